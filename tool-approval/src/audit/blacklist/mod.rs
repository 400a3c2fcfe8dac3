//! The default global audit: a blacklist of dangerous commands and paths.
//!
//! Each entry has a stable id, a policy and a message. The paths the
//! built-in entries know are rows of path classes (`path_rows.rs` and the
//! shared [`PathClass`](tool_core::approval::PathClass) table) with examples checked
//! by the tests. Built-in entries
//! (see [`Blacklist::builtin`]) are code, because judging `rm -r -f /` takes
//! more than a pattern; hosts add their own with [`BlacklistEntry::command`]
//! (a matcher, applied in trigger mode to every shell-command argument) or
//! [`BlacklistEntry::path`] (a glob over path arguments and over the
//! path-like words of commands), and remove built-ins with
//! [`Blacklist::without`].
//!
//! Command entries look at every part of a compound command, at commands in
//! substitutions and `bash -c` strings, and through wrappers (`sudo`,
//! `timeout`, `env`, …); words are compared with quotes removed, so
//! `"rm" -rf /`, `rm -r -f /`, `rm -fr ~/` and `\rm -rf /` are all the same.
//!
//! | id | policy | what |
//! |---|---|---|
//! | `rm-recursive-root` | always | recursive `rm` (or `find -delete`, `git clean -f`, `rimraf`) of `/`, `~`, `$HOME`, home or system directories, also as `*`, `.`, `..` in such a directory (a `cwd` argument, `cd X` before) |
//! | `system-accounts` | always | `/etc/passwd`, `/etc/shadow`, `/etc/gshadow`, `/etc/sudoers`; `vipw`, `visudo`, `usermod`, `passwd`, `chpasswd`… |
//! | `fork-bomb` | always | `:(){ :\|:& };:` and renamed variants |
//! | `raw-device-write` | always | `dd of=/dev/…`, `cp`/`tee`/`shred`… onto a disk device, redirection onto one |
//! | `format-device` | always | `mkfs*`, `mkswap`, `wipefs`, `blkdiscard`, `hdparm --security-erase`, `cryptsetup luksFormat`/`erase`, `fdisk`/`sfdisk`/`parted` on `/dev/…` |
//! | `kernel-write` | always | writes under `/proc/sys`, `/proc/sysrq-trigger`, `sysctl -w` |
//! | `raw-memory` | always | `/dev/mem`, `/dev/kmem`, `/dev/port` |
//! | `recursive-chown-system` | always | recursive `chown`/`chmod`/`chgrp` of `/` or a system directory |
//! | `setuid-shell` | always | setting the setuid/setgid bit on a shell, an interpreter, anything in a system `bin` directory, or a copy of a shell |
//! | `kernel-modules` | always | `insmod`, `rmmod`, `modprobe` (not its dry runs), `kexec` |
//! | `file-capabilities` | always | `setcap` (not `setcap -v`) |
//! | `system-binaries` | always | overwriting, truncating or replacing system programs and libraries (`/bin`, `/usr/bin`, `/usr/local/bin`, `/lib`, `/usr/lib`, `/boot`…) by redirection, `cp`/`mv`/`install`/`ln` destination, `tee`, `truncate`, `shred`, `dd of=` |
//! | `reverse-shell` | always | redirection to `/dev/tcp/…`/`/dev/udp/…`, `nc -e`/`-c`, `ncat --sh-exec`, `socat … EXEC:`, a shell and a network client on one line (`sh -i \| nc host port`) |
//! | `downloaded-script` | always | a download run as a script: `curl URL \| sh`, `wget -O- URL \| bash -s`, `sh -c "$(curl URL)"`, `bash <(curl URL)`, `curl URL \| python3 -`; a download run on a later part (`wget -O i.sh URL && sh i.sh`, `curl URL > a.sh; bash a.sh`, `./x` after `wget -O x`; after a fetch whose files the line does not name, `git clone URL && ./r/install.sh`, `wget -P /tmp URL && sh /tmp/a.sh`, an archive extracted then run), `source <(curl URL)`, a package runner given a URL or repository (`go run host/x@latest`, `npx github:x/y`, `uv run https://…`) |
//! | `container-host-access` | always | `docker`/`podman`/`nerdctl` `run`/`create` mounting `/`, a home or system directory or the container socket; `--privileged`, `--pid=host`, `--cap-add=ALL`/`SYS_ADMIN` |
//! | `power-off` | always | `shutdown` (not `-c`), `poweroff`, `reboot`, `halt`, `systemctl poweroff`/`reboot`/`suspend`…, `init 0`/`6` |
//! | `kill-all` | always | `kill -9 -1` in any spelling of the signal, `killall5`, `pkill .`, `killall -u USER` |
//! | `firewall-off` | required | `ufw disable`, stopping firewalld/ufw/nftables, flushing iptables, `setenforce 0` |
//! | `sshd-config` | required | changing `sshd_config` |
//! | `remove-core-package` | required | removing systemd, bash, coreutils, libc, sudo, ssh server, kernel… |
//! | `setuid-bit` | required | setting the setuid/setgid bit on any file (`chmod u+s`, `chmod 4755`, `install -m 4755`) |
//! | `read-home` | required | recursive `grep`/`rg`/`tar`/`zip`/`cp -r`/`rsync` of a whole home directory or `/` |
//! | `dangerous-env` | required | setting a variable of the rows of `env_rows::ENV_ROWS` (dynamic loader, shell start-up, `PATH` and toolchain homes pointing outside the system, the home and the working directory, interpreter load paths and options, git's programs and dirs, pagers/editors/openers/askpass, build wrappers and compilers, build flags that name a program or plugin, package-manager script shells and config files) in any form: environment argument, `VAR=` alone, before a command or in a `for`, `env`/`sudo`/`doas`/`make VAR=`, `export`/`declare`/`typeset`/`local`/`readonly`, `read`, `printf -v`; a plain pager or editor (`GIT_PAGER=cat`) and literal harmless flags (`CFLAGS=-O2`) are not |
//! | `upload` | required | a network client of `network::CLIENTS` given a file (`curl -T`, `-F f=@F`, `--data-binary @F`, `wget --post-file`, `http … < F`, `nc … < F`, `scp F host:`), standard input on a line that dumps the environment (`env \| curl -d @- …`), a body or credential header built from an expansion (`-d "$(env)"`, `-H "Authorization: Bearer $TOKEN"`), any word expanding a variable named like a secret (`?t=$GITHUB_TOKEN`, `--password="$DB_PASSWORD"`), `gh gist create F`, `gh api -F f=@F`, `sftp … <<< 'put F'`, `openssl s_client … < F`, a name looked up with an expansion (`dig "$(whoami).x.example"`) |
//! | `persistence` | required | editing a crontab (not `crontab -l`); writes (also a file tool's path) to the rows of `path_rows::PERSISTENCE`: shell start-up files (per user and system-wide), cron and at, systemd/init/launchd units, desktop autostart, editors' start-up files and plugin folders, git's global config, per-user package-manager and runtime start-up files, `~/.ssh/rc` |
//! | `code-execution-file` | required | writes to the rows of `path_rows::CODE_EXECUTION` (git hooks and config, also of submodules and worktrees; `.exrc`/`.nvim.lua`; editor task and settings files; `.envrc`) and the shared protected classes `shell-environment`, `git-hooks`, `build-tool-config`, `test-bootstrap`, also inside the working directory (hosts that trust them remove the entry with [`Blacklist::without`]) |
//! | `read-secrets` | required | `.env*`, SSH private keys, cloud/docker/kube credentials, browser cookie stores, every secret [`PathClass`](tool_core::approval::PathClass) (the list the sandbox reads too: infrastructure state, coding agents' tokens, registry, cloud and deploy credentials, shell histories, dev secret files…), named as a bare word, a path, `$HOME/…`, a redirection, or a directory holding one given to a recursive reader (`tar cf - ~/.claude`); and commands that print a credential or a secret store's content, rows of `secret_printers.rs` (`gh auth token`, `git credential fill`, `vault kv get`, `kubectl get secret`, `terraform state pull`) |

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use globset::{GlobBuilder, GlobMatcher};
use serde_json::Value;
use tool_core::{InterventionPolicy, manifest::ArgMatcher};

use crate::audit::{AuditHit, AuditInput, GlobalAudit};
use crate::call::facts::{CallFacts, command_text};
use crate::error::Error;
use crate::path_view::real_path;
use crate::policy::matcher::{MatchMode, Matcher, Subject};
use crate::shell::wrappers::{stdin_commands, views};
use crate::shell::{ShellCommand, SimpleCommand, basename};

mod commands;
mod context;
#[cfg(test)]
mod differential;
mod dispatch;
mod env_rows;
mod escapes;
/// Variables that point a tool at its own credential or configuration
/// file (`KUBECONFIG`, `AWS_SHARED_CREDENTIALS_FILE`): a value naming a
/// secret there is used by the command, not read out by the call.
const CREDENTIAL_VARIABLES: &[&str] = &[
    "KUBECONFIG",
    "AWS_SHARED_CREDENTIALS_FILE",
    "AWS_CONFIG_FILE",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "CLOUDSDK_CONFIG",
    "AZURE_CONFIG_DIR",
    "DOCKER_CONFIG",
    "NPM_CONFIG_USERCONFIG",
    "PGPASSFILE",
    "NETRC",
];

mod network;
mod path_rows;
mod paths;
mod persistence;
mod secret_names;
mod secret_printers;
mod setuid;

use context::{Dir, env_names, is_dangerous_env, may_set_env, part_dirs, start_dir};

use commands::*;
use paths::*;
use persistence::{is_code_execution_file, is_persistence_path, written_operands};
use setuid::{interpreter_copies, setuid_shell};

use InterventionPolicy::{Always, Required};

/// One blacklist entry.
#[derive(Debug, Clone)]
pub struct BlacklistEntry {
    id: String,
    policy: InterventionPolicy,
    message: String,
    check: Check,
}

#[derive(Debug, Clone)]
enum Check {
    Builtin(Builtin),
    Command(Matcher),
    Path(GlobMatcher),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Builtin {
    RmRecursiveRoot,
    SystemAccounts,
    ForkBomb,
    RawDeviceWrite,
    FormatDevice,
    KernelWrite,
    RawMemory,
    RecursiveChownSystem,
    SetuidShell,
    FirewallOff,
    SshdConfig,
    RemoveCorePackage,
    ReadSecrets,
    DangerousEnv,
    SetuidBit,
    ReadHome,
    KernelModules,
    Capabilities,
    KillAll,
    SystemBinaries,
    Persistence,
    CodeExecutionFile,
    ReverseShell,
    DownloadedScript,
    ContainerHostAccess,
    PowerOff,
    Upload,
}

const BUILTINS: &[(Builtin, &str, InterventionPolicy, &str)] = &[
    (
        Builtin::RmRecursiveRoot,
        "rm-recursive-root",
        Always,
        "recursive removal of the root, a home, a system directory or the workspace as a whole",
    ),
    (
        Builtin::SystemAccounts,
        "system-accounts",
        Always,
        "touches the system account or sudo files",
    ),
    (Builtin::ForkBomb, "fork-bomb", Always, "a fork bomb"),
    (
        Builtin::RawDeviceWrite,
        "raw-device-write",
        Always,
        "writes raw data onto a device",
    ),
    (
        Builtin::FormatDevice,
        "format-device",
        Always,
        "formats or repartitions a device",
    ),
    (
        Builtin::KernelWrite,
        "kernel-write",
        Always,
        "changes kernel parameters",
    ),
    (
        Builtin::RawMemory,
        "raw-memory",
        Always,
        "accesses raw memory or I/O ports",
    ),
    (
        Builtin::RecursiveChownSystem,
        "recursive-chown-system",
        Always,
        "recursively changes ownership or modes of a system directory",
    ),
    (
        Builtin::SetuidShell,
        "setuid-shell",
        Always,
        "makes a shell setuid/setgid",
    ),
    (
        Builtin::KernelModules,
        "kernel-modules",
        Always,
        "loads or removes kernel modules or boots another kernel",
    ),
    (
        Builtin::Capabilities,
        "file-capabilities",
        Always,
        "grants file capabilities (setcap), which can be a way to root",
    ),
    (
        Builtin::KillAll,
        "kill-all",
        Always,
        "signals every process (kill -1, killall5, pkill of every name)",
    ),
    (
        Builtin::ReverseShell,
        "reverse-shell",
        Always,
        "wires a shell to a network connection (a reverse shell)",
    ),
    (
        Builtin::DownloadedScript,
        "downloaded-script",
        Always,
        "runs a script straight from the network (curl … | sh)",
    ),
    (
        Builtin::ContainerHostAccess,
        "container-host-access",
        Always,
        "runs a container with the host's root, a home or system directory, the container socket or host privileges",
    ),
    (
        Builtin::PowerOff,
        "power-off",
        Always,
        "shuts down, reboots or suspends the machine",
    ),
    (
        Builtin::SystemBinaries,
        "system-binaries",
        Always,
        "overwrites or truncates a system program or library",
    ),
    (
        Builtin::Persistence,
        "persistence",
        Required,
        "plants code that runs later or at login (crontab, cron and systemd directories, shell rc files)",
    ),
    (
        Builtin::CodeExecutionFile,
        "code-execution-file",
        Required,
        "writes a file whose contents tools execute (.git/hooks, .git/config, .envrc, editor task files, package.json scripts)",
    ),
    (
        Builtin::FirewallOff,
        "firewall-off",
        Required,
        "disables or flushes the firewall",
    ),
    (
        Builtin::SshdConfig,
        "sshd-config",
        Required,
        "changes the SSH server configuration",
    ),
    (
        Builtin::RemoveCorePackage,
        "remove-core-package",
        Required,
        "removes a core system package",
    ),
    (
        Builtin::ReadSecrets,
        "read-secrets",
        Required,
        "touches secrets (env files, private keys, credentials, histories, cookies)",
    ),
    (
        Builtin::SetuidBit,
        "setuid-bit",
        Required,
        "sets the setuid/setgid bit on a file",
    ),
    (
        Builtin::ReadHome,
        "read-home",
        Required,
        "reads, searches or archives a whole home directory (which holds secrets)",
    ),
    (
        Builtin::DangerousEnv,
        "dangerous-env",
        Required,
        "sets an environment variable that changes which code runs (PATH, LD_PRELOAD, GIT_CONFIG_*, BASH_ENV…)",
    ),
    (
        Builtin::Upload,
        "upload",
        Required,
        "sends a file, standard input or the environment to the network (an upload)",
    ),
];

impl BlacklistEntry {
    /// A host entry that fires when any shell-command argument matches
    /// `matcher` in trigger mode (`"git push:*"`, a glob, `{regex}`).
    pub fn command(
        id: impl Into<String>,
        policy: InterventionPolicy,
        matcher: &ArgMatcher,
        message: impl Into<String>,
    ) -> Result<Self, Error> {
        Ok(Self {
            id: id.into(),
            policy,
            message: message.into(),
            check: Check::Command(Matcher::compile(matcher)?),
        })
    }

    /// A host entry that fires when a path argument, or a path-like word of
    /// a command, matches `glob` (checked both as written and resolved).
    pub fn path(
        id: impl Into<String>,
        policy: InterventionPolicy,
        glob: &str,
        message: impl Into<String>,
    ) -> Result<Self, Error> {
        let compiled = GlobBuilder::new(glob)
            .literal_separator(true)
            .build()
            .map_err(|e| Error::Glob {
                pointer: String::new(),
                pattern: glob.to_owned(),
                message: e.kind().to_string(),
            })?;
        Ok(Self {
            id: id.into(),
            policy,
            message: message.into(),
            check: Check::Path(compiled.compile_matcher()),
        })
    }

    /// The entry's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The policy a hit asks for.
    pub fn policy(&self) -> InterventionPolicy {
        self.policy
    }

    /// The entry's message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// What the entry checks, as text that names it exactly: a built-in
    /// check's name, a command pattern or a path glob as written (a
    /// policy's fingerprint is made of it).
    pub(crate) fn check_text(&self) -> String {
        match &self.check {
            Check::Builtin(b) => format!("builtin:{b:?}"),
            Check::Command(m) => format!("command:{}", m.source()),
            Check::Path(g) => format!("path:{}", g.glob().glob()),
        }
    }
}

/// A list of blacklist entries; a [`GlobalAudit`] named `blacklist`.
#[derive(Debug, Clone)]
pub struct Blacklist {
    entries: Vec<BlacklistEntry>,
    home: Option<PathBuf>,
}

impl Default for Blacklist {
    fn default() -> Self {
        Self::builtin()
    }
}

/// The (word, directory) pairs already taken as paths: a short list
/// searched in place while a line has few (most have one or two; a set
/// would hash each and allocate its table), a set once it has more.
#[derive(Default)]
struct Seen<'a> {
    few: Vec<(&'a str, Option<&'a Path>)>,
    many: HashSet<(&'a str, Option<&'a Path>)>,
}

impl<'a> Seen<'a> {
    /// Most pairs kept in the list before the set takes them.
    const FEW: usize = 16;

    /// Adds `pair`; whether it was new.
    fn insert(&mut self, pair: (&'a str, Option<&'a Path>)) -> bool {
        if self.few.len() < Self::FEW {
            if self.few.contains(&pair) {
                return false;
            }
            self.few.push(pair);
            return true;
        }
        if self.many.is_empty() {
            self.many.extend(self.few.iter().copied());
        }
        self.many.insert(pair)
    }
}

/// What the blacklist looks at in one call.
struct Facts<'c> {
    /// Each command argument's value and parse.
    commands: Vec<(&'c Value, &'c Arc<ShellCommand>)>,
    /// Paths as written and as resolved (path arguments, command words, redirect targets).
    paths: Vec<String>,
    /// For each command, the directory each of its parts runs in.
    dirs: Vec<Vec<Dir>>,
    /// Environment variables the call sets, with their values where known.
    env: Vec<context::EnvSet>,
    /// The path arguments (of file tools), as written and resolved.
    arg_paths: Vec<String>,
}

/// Where a part that runs in an unknown directory (`cd "$X"`) may be: the
/// directories where the path entries care about particular names
/// (`/etc/passwd`, `~/.bashrc`). Directories where every
/// name matters (`/etc/sudoers.d`, `/etc/cron.d`, `~/.ssh`) are left out, or every
/// relative word would match.
const UNKNOWN_DIR_CANDIDATES: &[&str] = &["", "/etc", "/root", "~"];

/// The destination of `cp`/`install`/`mv` when every source is an example
/// env file (`.env.example`, `config/.env.sample`, `.env.template`…).
fn example_env_copy_destination(part: &SimpleCommand) -> Option<String> {
    let view = part.words.as_slice();
    if !matches!(
        view.first().map(|w| basename(w)),
        Some("cp" | "install" | "mv")
    ) {
        return None;
    }
    let ops = commands::invocation(view).operands;
    let (dest, sources) = ops.split_last()?;
    let example = |w: &str| {
        let name = w.rsplit('/').next().unwrap_or(w);
        name.starts_with(".env.")
            && matches!(
                name.rsplit('.').next(),
                Some("example" | "sample" | "template" | "dist" | "defaults")
            )
    };
    // The destination is an env file too (or a directory keeping the name).
    let dest_name = dest
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(dest);
    let env_file =
        dest_name == ".env" || dest_name.starts_with(".env.") || dest_name.ends_with(".env");
    let into_dir = dest.ends_with('/') || (!dest_name.contains('.') && !is_secret(dest, None));
    (!sources.is_empty() && sources.iter().all(|s| example(s)) && (env_file || into_dir))
        .then(|| (*dest).to_owned())
}

/// Whether a variable the call sets is dangerous. `env A=1 env A=1 …`:
/// every wrapper's view sets the same variables again, so past a handful
/// each (name, value) is judged once (out of line: most calls set a
/// handful or none).
fn any_dangerous_env(env: &[context::EnvSet]) -> bool {
    if env.len() > 8 {
        return any_dangerous_env_once_each(env);
    }
    env.iter().any(|(n, v)| is_dangerous_env(n, v.as_deref()))
}

#[cold]
#[inline(never)]
fn any_dangerous_env_once_each(env: &[context::EnvSet]) -> bool {
    let mut seen = std::collections::HashSet::new();
    env.iter()
        .filter(|(n, v)| seen.insert((n.as_str(), v.as_deref())))
        .any(|(n, v)| is_dangerous_env(n, v.as_deref()))
}

/// A word that names a file relative to where the part runs.
fn is_relative_word(word: &str) -> bool {
    !word.is_empty()
        && !word.starts_with(['-', '/', '~', '$'])
        && !crate::shell::words::has_byte(word, b"=:")
}

/// The built-in rows of the blacklist's tables (path classes, dangerous
/// environment) checked against their examples, once per process; the
/// message names the row and the example that disagrees.
pub(crate) fn builtin_rows_checked() -> Result<(), &'static str> {
    static CHECKED: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    CHECKED
        .get_or_init(|| {
            path_rows::check_rows()
                .and_then(|()| env_rows::check_rows())
                .and_then(|()| secret_printers::check_rows())
                .and_then(|()| crate::shell::programs::check_rows())
        })
        .as_ref()
        .map(|_| ())
        .map_err(String::as_str)
}

impl Blacklist {
    /// The built-in entries (the table in the module docs).
    pub fn builtin() -> Self {
        let entries = BUILTINS
            .iter()
            .map(|(check, id, policy, message)| BlacklistEntry {
                id: (*id).to_owned(),
                policy: *policy,
                message: (*message).to_owned(),
                check: Check::Builtin(*check),
            })
            .collect();
        Self {
            entries,
            home: std::env::var_os("HOME").map(PathBuf::from),
        }
    }

    /// No entries.
    pub fn empty() -> Self {
        Self {
            entries: Vec::new(),
            home: std::env::var_os("HOME").map(PathBuf::from),
        }
    }

    /// Adds an entry.
    pub fn with(mut self, entry: BlacklistEntry) -> Self {
        self.entries.push(entry);
        self
    }

    /// Removes the entries with this id.
    pub fn without(mut self, id: &str) -> Self {
        self.entries.retain(|e| e.id != id);
        self
    }

    /// Sets the directory `~` stands for (default: `$HOME`).
    pub fn home(mut self, home: Option<PathBuf>) -> Self {
        self.home = home;
        self
    }

    /// The entries, in order.
    pub fn entries(&self) -> &[BlacklistEntry] {
        &self.entries
    }

    /// The home directory the entries resolve `~` with.
    pub(crate) fn home_dir(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    /// Checks one shell command as if it were a `command` argument.
    ///
    /// ```
    /// use tool_approval::Blacklist;
    /// let list = Blacklist::builtin();
    /// let hit = list.check_command("git status && sudo rm -r -f /", None).unwrap();
    /// assert_eq!(hit.rule, "rm-recursive-root");
    /// assert!(list.check_command("rm -rf ./build", None).is_none());
    /// ```
    pub fn check_command(&self, command: &str, cwd: Option<&Path>) -> Option<AuditHit> {
        let value = Value::String(command.to_owned());
        let args = serde_json::json!({ "command": value });
        self.check_values(&args, None, cwd)
    }

    /// Checks one path as if it were a `path` argument.
    pub fn check_path(&self, path: &str, cwd: Option<&Path>) -> Option<AuditHit> {
        let args = serde_json::json!({ "path": path });
        self.check_values(&args, None, cwd)
    }

    fn check_values(
        &self,
        args: &Value,
        schema: Option<&Value>,
        cwd: Option<&Path>,
    ) -> Option<AuditHit> {
        let facts = CallFacts::build(args, schema, cwd);
        self.check_facts(args, &facts, cwd)
    }

    fn check_facts(
        &self,
        args: &Value,
        call: &CallFacts<'_>,
        cwd: Option<&Path>,
    ) -> Option<AuditHit> {
        // Every entry reads commands, paths or the environment: a call with
        // none of them (a static API) cannot be flagged, so skip the work.
        if call.commands.iter().all(|c| c.shell.is_none())
            && call.paths.iter().all(|p| p.as_str().is_none())
            && !may_set_env(args)
        {
            return None;
        }
        let cwd_real = cwd.map(real_path);
        let home = self.home.as_deref();
        let mut facts = Facts {
            commands: Vec::new(),
            paths: Vec::new(),
            dirs: Vec::new(),
            env: Vec::new(),
            arg_paths: Vec::new(),
        };
        let start = start_dir(args, cwd_real.as_deref(), home);
        // Each command's parts' directories, made first so the words seen
        // below are kept as borrowed (word, directory) pairs, not copies.
        let shells: Vec<(&Value, &Arc<ShellCommand>)> = call
            .commands
            .iter()
            .filter_map(|c| c.shell.as_ref().map(|s| (c.value, s)))
            .collect();
        let all_dirs: Vec<Vec<Dir>> = shells
            .iter()
            .map(|(_, shell)| part_dirs(shell, &start, home))
            .collect();
        let mut seen = Seen::default();
        // Words already placed in every sensitive directory (a part run
        // somewhere unknown): once each, however many parts repeat them.
        let mut unknown_seen: HashSet<&str> = HashSet::new();
        for ((_, shell), dirs) in shells.iter().zip(&all_dirs) {
            for (part, dir) in shell.parts().iter().zip(dirs) {
                // Relative paths are seen from where the part runs (`cd /etc && cat shadow`).
                let here = match dir {
                    Dir::Known(Some(d)) => Some(d.as_path()),
                    _ => cwd_real.as_deref(),
                };
                let moved = here != cwd_real.as_deref();
                // `echo Copy .env.example to .env` prints words, it opens no
                // file: only its redirections are paths.
                let prints = part
                    .program()
                    .is_some_and(|p| matches!(basename(p), "echo" | "printf"));
                let skip = if prints { part.words.len() } else { 1 };
                // `GIT_TRACE=/etc/passwd git status` writes to the value;
                // an assignment alone (`x=${HOME:-/tmp}`) opens nothing.
                // `KUBECONFIG=~/.kube/staging.yaml kubectl …` hands a tool
                // its own credentials: the tool reads them, the call does
                // not print them.
                let values = part
                    .assignments
                    .iter()
                    .filter(|_| !part.words.is_empty())
                    .filter_map(|a| a.split_once('='))
                    .filter(|(name, _)| !CREDENTIAL_VARIABLES.contains(name))
                    .map(|(_, v)| v);
                let mut values: Vec<&str> = values.collect();
                // `git log -p -- ':(glob)**/.env*'`: a pathspec's magic is
                // no part of the path it names.
                // A leading `**/` matches no directory too (`.env` itself).
                if part.program().is_some_and(|p| basename(p) == "git") {
                    for body in part.words.iter().filter_map(|w| paths::pathspec_body(w)) {
                        values.push(body);
                        values.extend(body.strip_prefix("**/"));
                    }
                }
                // `cp .env.example .env`: setting up an env file from its
                // example writes the file and reads no secret.
                let example_copy = example_env_copy_destination(part);
                // A long part (thousands of words, most repeated) asks the
                // secret rows once per distinct word.
                let long = part.words.len() > 32;
                // (Made only for a long part: making a set seeds its hash.)
                let mut not_secret: Option<HashSet<&str>> = None;
                // `jq '.env' package.json`: a program's text names no file
                // (read only when a word might be a path).
                let program_text = std::cell::OnceCell::new();
                let text_at = || *program_text.get_or_init(|| paths::program_text_at(&part.words));
                let words = part.words.iter().enumerate().skip(skip);
                for (at, word) in words
                    .map(|(at, w)| (Some(at), w.as_str()))
                    .chain(part.redirects.iter().map(|w| (None, w.as_str())))
                    .chain(values.iter().map(|v| (None, *v)))
                {
                    if example_copy.as_deref() == Some(word) {
                        continue;
                    }
                    if at.is_some()
                        && (moved || crate::shell::words::has_byte(word, b"./"))
                        && text_at() == at
                    {
                        continue;
                    }
                    if (looks_like_path(word)
                        || (moved && !word.starts_with('-'))
                        // A bare secret name (`terraform.tfstate`); those
                        // without a dot are `looks_like_path` already.
                        || (word.contains('.') && {
                            let known = long
                                && not_secret.as_ref().is_some_and(|n| n.contains(word));
                            let secret =
                                !known && path_rows::secret_row(word, home).is_some();
                            if long && !known && !secret {
                                not_secret
                                    .get_or_insert_with(HashSet::new)
                                    .insert(word);
                            }
                            secret
                        }))
                        && seen.insert((word, here))
                    {
                        add_path(&mut facts.paths, word, here, home);
                    }
                    // `dd of=/etc/passwd`, `make DESTDIR=/etc/x`: an operand
                    // `KEY=VALUE` whose value is a path names that path; so
                    // does a long option's value
                    // (`--pathspec-from-file=.streamlit/secrets.toml`).
                    if (!word.starts_with('-') || word.starts_with("--"))
                        && let Some(eq) = word.bytes().position(|b| b == b'=')
                        && let Some(value) = word.get(eq + 1..)
                        && looks_like_path(value)
                        && seen.insert((value, here))
                    {
                        add_path(&mut facts.paths, value, here, home);
                    }
                    if *dir == Dir::Unknown && is_relative_word(word) && unknown_seen.insert(word) {
                        // `cd "$X" && echo x >> passwd`: the part runs
                        // somewhere unknown, so a relative word may name
                        // the file of that name in any sensitive directory.
                        for base in UNKNOWN_DIR_CANDIDATES {
                            add_path(&mut facts.paths, &format!("{base}/{word}"), None, home);
                        }
                    }
                }
            }
        }
        drop((seen, unknown_seen));
        facts.dirs = all_dirs;
        facts.commands = shells;
        facts.env = env_names(args, facts.commands.iter().map(|(_, s)| s.as_ref()));
        for found in &call.paths {
            if let Some(raw) = found.as_str() {
                let from = facts.paths.len();
                add_path(&mut facts.paths, raw, cwd_real.as_deref(), home);
                facts
                    .arg_paths
                    .extend(facts.paths.get(from..).unwrap_or_default().iter().cloned());
            }
        }
        // The built-in entries' checks of each part's readings, run once
        // for all entries by each reading's program.
        let ctx = Ctx {
            cwd: cwd_real.as_deref(),
            workspace: cwd_real.as_deref(),
            home,
            unknown_dir: false,
            next_stage: None,
        };
        let view_hits = if self
            .entries
            .iter()
            .any(|e| matches!(e.check, Check::Builtin(_)))
        {
            dispatch::view_hits(&facts, &ctx)
        } else {
            0
        };
        let mut best: Option<AuditHit> = None;
        for entry in &self.entries {
            if best.as_ref().is_some_and(|b| b.policy >= entry.policy) {
                continue;
            }
            if entry_hits(entry, &facts, &ctx, view_hits) {
                let message = match entry.check {
                    // Name the variable and what setting it does.
                    Check::Builtin(Builtin::DangerousEnv) => facts
                        .env
                        .iter()
                        .find_map(|(n, v)| {
                            env_rows::dangerous_env(n, v.as_deref()).map(|row| {
                                format!("{}: {n} {} (`{}`)", entry.message, row.what, row.name)
                            })
                        })
                        .unwrap_or_else(|| entry.message.clone()),
                    _ => entry.message.clone(),
                };
                best = Some(AuditHit {
                    policy: entry.policy,
                    rule: entry.id.clone(),
                    message,
                });
            }
        }
        best
    }
}

/// Whether `text` holds `needle`; a word shorter than it is answered
/// without a substring search being set up (most words are short).
pub(super) fn contains_text(text: &str, needle: &str) -> bool {
    if text.len() < needle.len() {
        return false;
    }
    let Some(&first) = needle.as_bytes().first() else {
        return true;
    };
    if text.len() > 64 {
        return text.contains(needle);
    }
    // A short word: compared where its byte equals the needle's first.
    let bytes = text.as_bytes();
    (0..=bytes.len() - needle.len()).any(|at| {
        bytes.get(at) == Some(&first) && bytes.get(at..at + needle.len()) == Some(needle.as_bytes())
    })
}

/// Whether `entry` fires for the call's facts (`view_hits`: what the
/// dispatch rows found in the parts' readings).
fn entry_hits(entry: &BlacklistEntry, facts: &Facts, ctx: &Ctx<'_>, view_hits: u32) -> bool {
    match &entry.check {
        Check::Command(matcher) => facts.commands.iter().any(|(value, shell)| {
            let subject = Subject::parsed(value, Some(Arc::clone(shell)));
            matcher.matches_subject(&subject, MatchMode::Trigger)
        }),
        Check::Path(glob) => facts.paths.iter().any(|p| glob.is_match(p)),
        Check::Builtin(builtin) => {
            dispatch::bit(*builtin) & view_hits != 0
                || builtin_hits(*builtin, facts, ctx, view_hits)
        }
    }
}

impl GlobalAudit for Blacklist {
    fn name(&self) -> &str {
        "blacklist"
    }

    fn audit(&self, input: &AuditInput<'_>) -> Option<AuditHit> {
        self.check_facts(input.call.arguments, input.facts(), input.ctx.cwd())
    }
}

pub(super) struct Ctx<'a> {
    pub(super) cwd: Option<&'a Path>,
    /// Where the call runs (the workspace), whatever `cd` the line makes.
    pub(super) workspace: Option<&'a Path>,
    pub(super) home: Option<&'a Path>,
    /// The part runs in a directory that cannot be known (`cd $X; …`).
    pub(super) unknown_dir: bool,
    /// The pipeline stage the part's output goes into (`grep PATH` of
    /// `env | grep PATH`; see [`secret_printers::keeps_harmless_variables`]).
    pub(super) next_stage: Option<&'a SimpleCommand>,
}

impl<'a> Ctx<'a> {
    /// The context of a part that runs in `dir` (where known, else where
    /// the call runs).
    fn in_dir(&self, dir: &'a Dir) -> Ctx<'a> {
        Ctx {
            cwd: match dir {
                Dir::Known(Some(d)) => Some(d.as_path()),
                _ => self.cwd,
            },
            workspace: self.workspace,
            home: self.home,
            unknown_dir: *dir == Dir::Unknown,
            next_stage: None,
        }
    }
}

/// Every reading of every part of a line (the parts' views, in order).
pub(super) fn readings(parts: &[SimpleCommand]) -> impl Iterator<Item = &Vec<String>> {
    parts.iter().flat_map(|p| views(p).iter())
}

/// Every part of every command, with the directory it runs in.
fn parts_in_dirs<'f>(facts: &'f Facts<'_>) -> impl Iterator<Item = (&'f SimpleCommand, &'f Dir)> {
    facts
        .commands
        .iter()
        .zip(&facts.dirs)
        .flat_map(|((_, shell), dirs)| shell.parts().iter().zip(dirs))
}

/// `cd .git && echo x > hooks/pre-commit`: a relative file a part writes
/// (a redirection, or an operand the program table says is written), read
/// from the folder an earlier `cd` on the line moved to.
fn writes_after_cd(facts: &Facts, ctx: &Ctx<'_>, is_target: fn(&str) -> bool) -> bool {
    parts_in_dirs(facts).any(|(part, dir)| {
        let Dir::Known(Some(d)) = dir else {
            return false;
        };
        if ctx.cwd == Some(d.as_path()) {
            return false;
        }
        let relative = |w: &String| !w.starts_with(['/', '~', '$']);
        let joined = |w: &String| is_target(&d.join(w).to_string_lossy());
        part.redirects
            .iter()
            .filter(|r| !part.inputs.contains(r))
            .filter(|r| relative(r))
            .any(joined)
            || views(part)
                .iter()
                .flat_map(|v| written_operands(v))
                .filter(relative)
                .any(|w| joined(&w))
    })
}

/// Whether `f` holds for a view of some part, judged in the directory that part runs in.
#[cfg(debug_assertions)]
fn in_dirs(facts: &Facts, ctx: &Ctx<'_>, f: &dyn Fn(&[String], &Ctx<'_>) -> bool) -> bool {
    parts_in_dirs(facts).any(|(part, dir)| {
        let here = ctx.in_dir(dir);
        views(part).iter().any(|v| f(v, &here))
    })
}

/// What an entry finds beyond its rows in `dispatch` (whose hits are
/// `view_hits`): paths, redirections, the environment, the line as a whole.
fn builtin_hits(builtin: Builtin, facts: &Facts, ctx: &Ctx<'_>, view_hits: u32) -> bool {
    let parts = || facts.commands.iter().flat_map(|(_, s)| s.parts());
    let any_view = |f: &dyn Fn(&[String], &SimpleCommand) -> bool| {
        parts().any(|part| views(part).iter().any(|v| f(v, part)))
    };
    match builtin {
        // `… | xargs rm -rf`: the targets come from standard input.
        Builtin::RmRecursiveRoot => parts().any(|p| stdin_commands(p).any(is_recursive_rm)),
        Builtin::SystemAccounts => facts.paths.iter().any(|p| system_accounts(p)),
        Builtin::ForkBomb => facts
            .commands
            .iter()
            .any(|(value, _)| command_text(value).is_some_and(|t| fork_bomb(&t))),
        Builtin::RawDeviceWrite => parts().any(|p| p.redirects.iter().any(|r| is_disk_device(r))),
        Builtin::KernelWrite => {
            parts().any(|p| p.redirects.iter().any(|r| is_kernel_path(r)))
                || facts.paths.iter().any(|p| is_kernel_path(p))
        }
        Builtin::RawMemory => {
            facts
                .paths
                .iter()
                .any(|p| matches!(p.as_str(), "/dev/mem" | "/dev/kmem" | "/dev/port"))
                || any_view(&|v, _| {
                    v.iter()
                        .any(|w| w.ends_with("=/dev/mem") || w.ends_with("=/dev/kmem"))
                })
        }
        // Entries that only read parts' readings: all in `dispatch`.
        Builtin::FormatDevice
        | Builtin::RecursiveChownSystem
        | Builtin::SetuidBit
        | Builtin::ReadHome
        | Builtin::FirewallOff
        | Builtin::KernelModules
        | Builtin::Capabilities
        | Builtin::KillAll
        | Builtin::ContainerHostAccess
        | Builtin::PowerOff
        | Builtin::SystemBinaries => false,
        Builtin::DangerousEnv => any_dangerous_env(&facts.env),
        // Only where a part sets the setuid bit at all (the `setuid-bit`
        // row fired): `setuid_shell` reads the same targets.
        Builtin::SetuidShell if view_hits & dispatch::bit(Builtin::SetuidBit) == 0 => false,
        Builtin::SetuidShell => {
            let mut copies = Vec::new();
            for part in parts() {
                for view in views(part) {
                    copies.extend(interpreter_copies(view));
                }
            }
            any_view(&|v, _| setuid_shell(v, &copies))
        }
        Builtin::SshdConfig => {
            any_view(&|v, part| {
                let mentions = |w: &String| contains_text(w, "sshd_config");
                (v.iter().skip(1).any(mentions) && !is_read_only(v))
                    || part.redirects.iter().any(mentions)
            }) || facts.paths.iter().any(|p| contains_text(p, "sshd_config"))
        }
        // (Package managers removing a core package: a row of `dispatch`.)
        Builtin::RemoveCorePackage => any_view(&|v, _| forces_essential_removal(v)),
        // A path of a secret class (the rows hold the shared classes too);
        // commands that print one (`gh auth token`), recursive readers of a
        // secret's folder and `echo "$TOKEN"` are rows of `dispatch`.
        // A file tool's path argument that is a folder holding one
        // (`grepContent` over `.git`) reads it too.
        Builtin::ReadSecrets => {
            facts.paths.iter().any(|p| is_secret(p, ctx.home))
                || facts
                    .arg_paths
                    .iter()
                    .any(|p| path_rows::holds_secret_row(p))
        }
        Builtin::ReverseShell => facts
            .commands
            .iter()
            .any(|(_, shell)| escapes::reverse_shell(shell.parts())),
        Builtin::DownloadedScript => facts.commands.iter().any(|(_, shell)| {
            escapes::runs_downloaded_script(shell.parts())
                || network::runs_download_later(shell.parts())
        }),
        Builtin::Upload => facts
            .commands
            .iter()
            .any(|(_, shell)| network::uploads_data(shell.parts())),
        // The files parts write are judged in `dispatch` (one pass for
        // persistence, code-execution files and system binaries).
        Builtin::Persistence => {
            // A file tool's path argument counts as a write (as for
            // code-execution files).
            facts.arg_paths.iter().any(|p| is_persistence_path(p))
                || writes_after_cd(facts, ctx, is_persistence_path)
        }
        Builtin::CodeExecutionFile => {
            // A file tool's path argument: the tool may write it (no tool
            // says whether it only reads).
            facts.arg_paths.iter().any(|p| is_code_execution_file(p))
                || writes_after_cd(facts, ctx, is_code_execution_file)
        }
    }
}

#[cfg(test)]
mod seen_tests {
    use super::*;

    proptest::proptest! {
        /// `Seen` says what a set says, past its list's length too.
        #[test]
        fn seen_answers_as_a_set(words in proptest::collection::vec(0u8..40, 0..80)) {
            let names: Vec<String> = words.iter().map(|w| format!("w{w}")).collect();
            let dirs = [None, Some(Path::new("/a"))];
            let mut seen = Seen::default();
            let mut set = HashSet::new();
            for (i, name) in names.iter().enumerate() {
                let pair = (name.as_str(), dirs[i % 2]);
                proptest::prop_assert_eq!(seen.insert(pair), set.insert(pair));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(cmd: &str) -> Option<String> {
        Blacklist::builtin()
            .home(Some("/home/me".into()))
            .check_command(cmd, None)
            .map(|h| h.rule)
    }

    #[test]
    fn recursive_root_removal_in_every_spelling() {
        for cmd in [
            "rm -rf /",
            "rm -r -f /",
            "rm -fr ~/",
            "\"rm\" -rf /",
            "rm -Rf ~",
            "rm --recursive --force /",
            "rm -rf -- /",
            "rm -rf /*",
            "rm -rf $HOME",
            "rm -rf \"$HOME\"",
            "rm -rf ${HOME}/",
            "/bin/rm -rf /",
            "rm -rf /home/alice",
            "rm -rf /usr",
            "rm --no-preserve-root /",
            "rm -rf ~alice",
        ] {
            assert_eq!(hit(cmd).as_deref(), Some("rm-recursive-root"), "{cmd}");
        }
    }

    #[test]
    fn ordinary_removals_are_not_flagged() {
        for cmd in [
            "rm -rf ./build",
            "rm -rf target",
            "rm file.txt",
            "rm -f /tmp/x.log",
            "rm -rf ~/proj/target",
        ] {
            assert_eq!(hit(cmd), None, "{cmd}");
        }
    }

    #[test]
    fn secrets_are_recognised_by_path() {
        for p in [
            ".env",
            "app/.env.local",
            "~/.ssh/id_ed25519",
            "/home/me/.aws/credentials",
            "x/.bash_history",
            "/home/me/.config/google-chrome/Default/Cookies",
            "/home/me/.docker/config.json",
            "~/.kube/config",
        ] {
            assert!(is_secret(p, None), "{p}");
        }
        for p in [
            ".env.example",
            "src/env.rs",
            "~/.ssh/id_ed25519.pub",
            "README.md",
        ] {
            assert!(!is_secret(p, None), "{p}");
        }
    }

    #[test]
    fn fork_bombs_with_any_name() {
        assert!(fork_bomb(":(){ :|:& };:"));
        assert!(fork_bomb("bomb() { bomb | bomb & }; bomb"));
        assert!(fork_bomb("function f { f|f& }; f"));
        assert!(!fork_bomb("f() { echo hi; }; f"));
    }

    #[test]
    fn strictest_entry_wins_within_the_list() {
        let h = Blacklist::builtin()
            .check_command("cat .env; rm -rf /", None)
            .unwrap();
        assert_eq!(h.policy, Always);
    }

    #[test]
    fn host_entries_extend_and_ids_remove() {
        let list = Blacklist::empty()
            .with(
                BlacklistEntry::command(
                    "no-push",
                    InterventionPolicy::Deny,
                    &ArgMatcher::Pattern("git push:*".into()),
                    "no pushing",
                )
                .unwrap(),
            )
            .with(BlacklistEntry::path("no-prod", Always, "/srv/prod/**", "production").unwrap());
        assert_eq!(
            list.check_command("git status && git push", None)
                .unwrap()
                .rule,
            "no-push"
        );
        assert_eq!(
            list.check_path("/srv/prod/app/x", None).unwrap().rule,
            "no-prod"
        );
        assert!(list.check_command("rm -rf /", None).is_none());
        assert!(
            Blacklist::builtin()
                .without("rm-recursive-root")
                .check_command("rm -rf /", None)
                .is_none()
        );
    }
}
