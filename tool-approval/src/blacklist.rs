//! The default global audit: a blacklist of dangerous commands and paths.
//!
//! Each entry has a stable id, a policy and a message. Built-in entries
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
//! | `rm-recursive-root` | always | recursive `rm` (or `find -delete`) of `/`, `~`, `$HOME`, home or system directories |
//! | `system-accounts` | always | `/etc/passwd`, `/etc/shadow`, `/etc/gshadow`, `/etc/sudoers` |
//! | `fork-bomb` | always | `:(){ :\|:& };:` and renamed variants |
//! | `raw-device-write` | always | `dd of=/dev/…`, redirection onto a disk device |
//! | `format-device` | always | `mkfs*`, `mkswap`, `fdisk`/`sfdisk`/`parted`/`wipefs` on `/dev/…` |
//! | `kernel-write` | always | writes under `/proc/sys`, `/proc/sysrq-trigger`, `sysctl -w` |
//! | `raw-memory` | always | `/dev/mem`, `/dev/kmem`, `/dev/port` |
//! | `recursive-chown-system` | always | recursive `chown`/`chmod`/`chgrp` of `/` or a system directory |
//! | `setuid-shell` | always | setting the setuid/setgid bit on a shell |
//! | `oversized-command` | always | a command too long or deep to analyse |
//! | `firewall-off` | required | `ufw disable`, stopping firewalld/ufw/nftables, flushing iptables, `setenforce 0` |
//! | `sshd-config` | required | changing `sshd_config` |
//! | `remove-core-package` | required | removing systemd, bash, coreutils, libc, sudo, ssh server, kernel… |
//! | `read-secrets` | required | `.env*`, SSH private keys, cloud/docker/kube credentials, shell histories, browser cookie stores |

use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};
use serde_json::Value;
use tool_core::{ArgMatcher, InterventionPolicy};

use crate::audit::{AuditHit, AuditInput, GlobalAudit};
use crate::error::Error;
use crate::matcher::{MatchMode, Matcher, Subject};
use crate::path_scope::{real_path, resolve_path};
use crate::shell::{Hazard, ShellCommand, SimpleCommand, basename, is_shell};
use crate::wrapper::views;

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
    Oversized,
    FirewallOff,
    SshdConfig,
    RemoveCorePackage,
    ReadSecrets,
}

const BUILTINS: &[(Builtin, &str, InterventionPolicy, &str)] = &[
    (
        Builtin::RmRecursiveRoot,
        "rm-recursive-root",
        Always,
        "recursive removal of the root, a home or a system directory",
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
        Builtin::Oversized,
        "oversized-command",
        Always,
        "a command too long or too deeply nested to analyse",
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

/// What the blacklist looks at in one call.
struct Facts {
    commands: Vec<(String, ShellCommand)>,
    /// Paths as written and as resolved (path arguments, command words, redirect targets).
    paths: Vec<String>,
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
        let cwd_real = cwd.map(real_path);
        let home = self.home.as_deref();
        let mut facts = Facts {
            commands: Vec::new(),
            paths: Vec::new(),
        };
        for found in crate::arguments::command_arguments(args, schema) {
            let subject = Subject::new(found.value, true);
            let Some(shell) = subject.shell() else {
                continue;
            };
            let text = match found.value {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            for part in shell.parts() {
                for word in part.words.iter().skip(1).chain(&part.redirects) {
                    if looks_like_path(word) {
                        add_path(&mut facts.paths, word, cwd_real.as_deref(), home);
                    }
                }
            }
            facts.commands.push((text, shell.clone()));
        }
        for found in crate::arguments::path_arguments(args, schema) {
            if let Some(raw) = found.as_str() {
                add_path(&mut facts.paths, raw, cwd_real.as_deref(), home);
            }
        }
        let mut best: Option<AuditHit> = None;
        for entry in &self.entries {
            if best.as_ref().is_some_and(|b| b.policy >= entry.policy) {
                continue;
            }
            if self.entry_hits(entry, &facts, cwd_real.as_deref()) {
                best = Some(AuditHit {
                    policy: entry.policy,
                    rule: entry.id.clone(),
                    message: entry.message.clone(),
                });
            }
        }
        best
    }

    fn entry_hits(&self, entry: &BlacklistEntry, facts: &Facts, cwd: Option<&Path>) -> bool {
        match &entry.check {
            Check::Command(matcher) => facts.commands.iter().any(|(text, _)| {
                let value = Value::String(text.clone());
                matcher.matches_subject(&Subject::new(&value, true), MatchMode::Trigger)
            }),
            Check::Path(glob) => facts.paths.iter().any(|p| glob.is_match(p)),
            Check::Builtin(builtin) => {
                let ctx = Ctx {
                    cwd,
                    home: self.home.as_deref(),
                };
                builtin_hits(*builtin, facts, &ctx)
            }
        }
    }
}

impl GlobalAudit for Blacklist {
    fn name(&self) -> &str {
        "blacklist"
    }

    fn audit(&self, input: &AuditInput<'_>) -> Option<AuditHit> {
        self.check_values(input.call.arguments, input.schema(), input.ctx.cwd())
    }
}

struct Ctx<'a> {
    cwd: Option<&'a Path>,
    home: Option<&'a Path>,
}

fn add_path(paths: &mut Vec<String>, raw: &str, cwd: Option<&Path>, home: Option<&Path>) {
    paths.push(raw.to_owned());
    let lexical = path_clean::clean(raw).display().to_string();
    if lexical != raw {
        paths.push(lexical);
    }
    let base = cwd
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("/"));
    if (cwd.is_some() || raw.starts_with('/') || raw.starts_with('~'))
        && let Some(resolved) = resolve_path(raw, &base, home)
    {
        let resolved = resolved.display().to_string();
        if resolved != raw {
            paths.push(resolved);
        }
    }
}

fn looks_like_path(word: &str) -> bool {
    word.contains('/')
        || word.starts_with('.')
        || word.starts_with('~')
        || word.contains("history")
        || matches!(
            word,
            "Cookies" | "cookies.sqlite" | "Login Data" | "logins.json" | "key4.db"
        )
}

fn builtin_hits(builtin: Builtin, facts: &Facts, ctx: &Ctx<'_>) -> bool {
    let parts = || facts.commands.iter().flat_map(|(_, s)| s.parts());
    let any_view = |f: &dyn Fn(&[String], &SimpleCommand) -> bool| {
        parts().any(|part| views(part).iter().any(|v| f(v, part)))
    };
    match builtin {
        Builtin::RmRecursiveRoot => any_view(&|v, _| rm_recursive_root(v, ctx)),
        Builtin::SystemAccounts => facts.paths.iter().any(|p| system_accounts(p)),
        Builtin::ForkBomb => facts.commands.iter().any(|(text, _)| fork_bomb(text)),
        Builtin::RawDeviceWrite => {
            any_view(&|v, _| dd_to_device(v))
                || parts().any(|p| p.redirects.iter().any(|r| is_disk_device(r)))
        }
        Builtin::FormatDevice => any_view(&|v, _| format_device(v)),
        Builtin::KernelWrite => {
            parts().any(|p| p.redirects.iter().any(|r| is_kernel_path(r)))
                || any_view(&|v, _| kernel_write(v))
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
        Builtin::RecursiveChownSystem => any_view(&|v, _| recursive_chown_system(v, ctx)),
        Builtin::SetuidShell => any_view(&|v, _| setuid_shell(v)),
        Builtin::Oversized => facts.commands.iter().any(|(_, s)| {
            s.hazards().contains(&Hazard::TooLong) || s.hazards().contains(&Hazard::TooDeep)
        }),
        Builtin::FirewallOff => any_view(&|v, _| firewall_off(v)),
        Builtin::SshdConfig => {
            any_view(&|v, part| {
                let mentions = |w: &String| w.contains("sshd_config");
                (v.iter().skip(1).any(mentions) && !is_read_only(v))
                    || part.redirects.iter().any(mentions)
            }) || facts.paths.iter().any(|p| p.contains("sshd_config"))
        }
        Builtin::RemoveCorePackage => any_view(&|v, _| remove_core_package(v)),
        Builtin::ReadSecrets => facts.paths.iter().any(|p| is_secret(p)),
    }
}

fn program(view: &[String]) -> &str {
    view.first().map(|w| basename(w)).unwrap_or_default()
}

/// Short flags (`-rf`, `-r -f`) and long flags of a view, before `--`.
fn has_flag(view: &[String], short: &[char], long: &[&str]) -> bool {
    for word in view.iter().skip(1) {
        if word == "--" {
            break;
        }
        if let Some(name) = word.strip_prefix("--") {
            let name = name.split('=').next().unwrap_or(name);
            if long.contains(&name) {
                return true;
            }
        } else if let Some(flags) = word.strip_prefix('-')
            && flags.chars().any(|c| short.contains(&c))
        {
            return true;
        }
    }
    false
}

/// Non-option words of a view (everything after `--` counts).
fn operands(view: &[String]) -> Vec<&str> {
    let mut out = Vec::new();
    let mut options_done = false;
    for word in view.iter().skip(1) {
        if !options_done && word == "--" {
            options_done = true;
            continue;
        }
        if !options_done && word.starts_with('-') && word.len() > 1 {
            continue;
        }
        out.push(word.as_str());
    }
    out
}

const SYSTEM_DIRS: &[&str] = &[
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/home",
    "/lib",
    "/lib32",
    "/lib64",
    "/opt",
    "/proc",
    "/root",
    "/sbin",
    "/srv",
    "/sys",
    "/usr",
    "/var",
    "/snap",
    "/Users",
    "/System",
    "/Library",
    "/Applications",
    "/private",
    "/usr/bin",
    "/usr/lib",
    "/usr/sbin",
    "/usr/local",
    "/var/lib",
];

/// Whether removing or re-owning `target` recursively would wreck the system
/// or a home directory.
fn is_precious_tree(target: &str, ctx: &Ctx<'_>) -> bool {
    let mut t = target.trim().to_owned();
    while t.len() > 1 && (t.ends_with('/') || t.ends_with("/*") || t.ends_with("/.")) {
        t.truncate(t.len() - if t.ends_with('/') { 1 } else { 2 });
    }
    if t.is_empty()
        || t == "/"
        || t == "/*"
        || t == "*" && ctx.cwd.is_some_and(|c| c == Path::new("/"))
    {
        return true;
    }
    if t == "~" || (t.starts_with('~') && !t.contains('/')) {
        return true;
    }
    if matches!(
        t.as_str(),
        "$HOME" | "${HOME}" | "~/" | "$HOME/" | "${HOME}/"
    ) {
        return true;
    }
    let resolved = if t.starts_with('/')
        || t.starts_with('~')
        || t.starts_with("$HOME")
        || t.starts_with("${HOME}")
    {
        resolve_path(&t, Path::new("/"), ctx.home)
    } else {
        ctx.cwd.and_then(|cwd| resolve_path(&t, cwd, ctx.home))
    };
    let Some(resolved) = resolved else {
        return t.starts_with('~');
    };
    if resolved == Path::new("/") || ctx.home.is_some_and(|h| real_path(h) == resolved) {
        return true;
    }
    let shown = resolved.display().to_string();
    if SYSTEM_DIRS.contains(&shown.as_str()) {
        return true;
    }
    // A user's home directory: /home/NAME, /Users/NAME, /root.
    let components: Vec<&str> = shown.split('/').filter(|c| !c.is_empty()).collect();
    matches!(components.as_slice(), ["home" | "Users", _])
}

fn rm_recursive_root(view: &[String], ctx: &Ctx<'_>) -> bool {
    match program(view) {
        "rm" => {
            let recursive = has_flag(view, &['r', 'R'], &["recursive"]);
            let no_preserve = has_flag(view, &[], &["no-preserve-root"]);
            (recursive || no_preserve) && operands(view).iter().any(|t| is_precious_tree(t, ctx))
        }
        "find" => {
            view.iter().any(|w| w == "-delete")
                && view
                    .iter()
                    .skip(1)
                    .take_while(|w| !w.starts_with('-'))
                    .any(|t| is_precious_tree(t, ctx))
        }
        _ => false,
    }
}

fn system_accounts(path: &str) -> bool {
    let cleaned = path_clean::clean(path).display().to_string();
    [
        "/etc/passwd",
        "/etc/shadow",
        "/etc/gshadow",
        "/etc/sudoers",
        "/etc/master.passwd",
    ]
    .iter()
    .any(|p| cleaned.starts_with(p) || path.starts_with(p))
}

fn fork_bomb(text: &str) -> bool {
    let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let mut names: Vec<String> = Vec::new();
    let mut rest = squeezed.as_str();
    while let Some(at) = rest.find("(){") {
        let head = rest.get(..at).unwrap_or_default();
        let name: String = head
            .chars()
            .rev()
            .take_while(|c| !matches!(c, ';' | '&' | '|' | '(' | ')' | '{' | '}'))
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let name = name.strip_prefix("function").unwrap_or(&name).to_owned();
        if !name.is_empty() {
            names.push(name);
        }
        rest = rest.get(at + 3..).unwrap_or_default();
    }
    for (index, _) in squeezed.match_indices("function") {
        let after = squeezed.get(index + "function".len()..).unwrap_or_default();
        let name: String = after
            .chars()
            .take_while(|c| !matches!(c, '{' | '('))
            .collect();
        if !name.is_empty() {
            names.push(name);
        }
    }
    names
        .iter()
        .any(|n| squeezed.contains(&format!("{n}|{n}&")) || squeezed.contains(&format!("{n}&{n}&")))
}

fn is_disk_device(path: &str) -> bool {
    let Some(dev) = path.strip_prefix("/dev/") else {
        return false;
    };
    [
        "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "md", "dm-", "loop", "mapper/",
    ]
    .iter()
    .any(|p| dev.starts_with(p))
}

fn dd_to_device(view: &[String]) -> bool {
    program(view) == "dd"
        && view.iter().any(|w| {
            w.strip_prefix("of=").is_some_and(|target| {
                target.starts_with("/dev/")
                    && !matches!(
                        target,
                        "/dev/null" | "/dev/zero" | "/dev/stdout" | "/dev/stderr" | "/dev/tty"
                    )
                    && !target.starts_with("/dev/fd/")
            })
        })
}

fn format_device(view: &[String]) -> bool {
    let name = program(view);
    if name.starts_with("mkfs") || matches!(name, "mke2fs" | "mkswap" | "mkdosfs" | "newfs") {
        return true;
    }
    matches!(
        name,
        "fdisk" | "sfdisk" | "cfdisk" | "gdisk" | "sgdisk" | "parted" | "wipefs" | "diskutil"
    ) && view
        .iter()
        .skip(1)
        .any(|w| w.starts_with("/dev/") || matches!(w.as_str(), "eraseDisk" | "partitionDisk"))
}

fn is_kernel_path(path: &str) -> bool {
    let cleaned = path_clean::clean(path).display().to_string();
    cleaned.starts_with("/proc/sys/")
        || cleaned == "/proc/sysrq-trigger"
        || cleaned.starts_with("/sys/kernel/")
}

fn kernel_write(view: &[String]) -> bool {
    match program(view) {
        "sysctl" => {
            has_flag(view, &['w', 'p'], &["write", "load", "system"])
                || operands(view).iter().any(|w| w.contains('='))
        }
        "tee" | "cp" | "dd" | "install" | "mv" => view
            .iter()
            .skip(1)
            .any(|w| is_kernel_path(w.strip_prefix("of=").unwrap_or(w))),
        _ => false,
    }
}

fn recursive_chown_system(view: &[String], ctx: &Ctx<'_>) -> bool {
    matches!(program(view), "chown" | "chmod" | "chgrp")
        && has_flag(view, &['R'], &["recursive"])
        && operands(view)
            .iter()
            .skip(1)
            .any(|t| is_precious_tree(t, ctx))
}

fn setuid_shell(view: &[String]) -> bool {
    if program(view) != "chmod" {
        return false;
    }
    let ops = operands(view);
    let Some(mode) = ops.first() else {
        return false;
    };
    let symbolic = mode
        .split(',')
        .any(|m| m.contains('+') && m.rsplit('+').next().is_some_and(|p| p.contains('s')))
        || mode
            .split(',')
            .any(|m| m.contains('=') && m.rsplit('=').next().is_some_and(|p| p.contains('s')));
    let octal = mode.len() == 4
        && mode.chars().all(|c| c.is_digit(8))
        && mode
            .chars()
            .next()
            .is_some_and(|c| matches!(c, '2' | '4' | '6' | '7' | '3' | '5'));
    (symbolic || octal) && ops.iter().skip(1).any(|t| is_shell(basename(t)))
}

fn firewall_off(view: &[String]) -> bool {
    let ops = operands(view);
    let first = ops.first().copied().unwrap_or_default();
    let is_firewall = |w: &str| {
        matches!(
            w.trim_end_matches(".service"),
            "firewalld"
                | "ufw"
                | "iptables"
                | "ip6tables"
                | "nftables"
                | "pf"
                | "netfilter-persistent"
        )
    };
    match program(view) {
        "ufw" => matches!(first, "disable" | "reset"),
        "systemctl" => matches!(first, "stop" | "disable" | "mask" | "kill") && ops.iter().skip(1).any(|w| is_firewall(w)),
        "service" => ops.len() >= 2 && is_firewall(first) && matches!(ops.get(1).copied(), Some("stop")),
        "iptables" | "ip6tables" | "iptables-legacy" | "iptables-nft" => {
            has_flag(view, &['F', 'X'], &["flush", "delete-chain"])
                || (has_flag(view, &['P'], &["policy"]) && view.iter().any(|w| w == "ACCEPT"))
        }
        "nft" => ops.windows(2).any(|w| matches!(w, [a, b] if (*a == "flush" && *b == "ruleset") || (*a == "delete" && *b == "table"))),
        "setenforce" => matches!(first, "0" | "Permissive" | "permissive"),
        "pfctl" => has_flag(view, &['d'], &[]),
        "netsh" => view.iter().any(|w| w.eq_ignore_ascii_case("off")) && view.iter().any(|w| w.eq_ignore_ascii_case("advfirewall")),
        _ => false,
    }
}

fn is_read_only(view: &[String]) -> bool {
    matches!(
        program(view),
        "cat"
            | "less"
            | "more"
            | "head"
            | "tail"
            | "grep"
            | "rg"
            | "diff"
            | "stat"
            | "ls"
            | "wc"
            | "file"
            | "sshd"
    )
}

const CORE_PACKAGES: &[&str] = &[
    "systemd",
    "bash",
    "coreutils",
    "libc6",
    "libc-bin",
    "glibc",
    "glibc-common",
    "sudo",
    "openssh-server",
    "openssh",
    "apt",
    "dpkg",
    "rpm",
    "yum",
    "dnf",
    "pacman",
    "util-linux",
    "login",
    "passwd",
    "base-files",
    "base",
    "filesystem",
    "init",
    "sysvinit",
    "perl-base",
    "e2fsprogs",
    "dash",
    "shadow-utils",
    "shadow",
    "linux",
    "kernel",
    "grub",
    "grub2",
    "grub-pc",
    "python3",
    "*",
];

fn is_core_package(name: &str) -> bool {
    let name = name.split([':', '=']).next().unwrap_or(name);
    CORE_PACKAGES.contains(&name)
        || [
            "linux-image",
            "linux-headers",
            "kernel-",
            "grub",
            "systemd-",
            "libc6",
            "glibc",
        ]
        .iter()
        .any(|p| name.starts_with(p))
        || name.contains('*')
}

fn remove_core_package(view: &[String]) -> bool {
    let ops = operands(view);
    let first = ops.first().copied().unwrap_or_default();
    let packages = || ops.iter().skip(1);
    if has_flag(
        view,
        &[],
        &["force-remove-essential", "allow-remove-essential"],
    ) {
        return true;
    }
    match program(view) {
        "apt" | "apt-get" | "aptitude" => {
            matches!(first, "remove" | "purge" | "autoremove")
                && packages().any(|p| is_core_package(p))
        }
        "yum" | "dnf" | "microdnf" | "zypper" | "snap" => {
            matches!(first, "remove" | "erase" | "autoremove" | "rm")
                && packages().any(|p| is_core_package(p))
        }
        "apk" => first == "del" && packages().any(|p| is_core_package(p)),
        "pacman" => {
            view.iter()
                .skip(1)
                .any(|w| w.starts_with("-R") || w == "--remove")
                && ops.iter().any(|p| is_core_package(p))
        }
        "dpkg" => {
            has_flag(view, &['r', 'P'], &["remove", "purge"])
                && ops.iter().any(|p| is_core_package(p))
        }
        "rpm" => has_flag(view, &['e'], &["erase"]) && ops.iter().any(|p| is_core_package(p)),
        _ => false,
    }
}

/// Secret files: env files, private keys, cloud/docker/kube credentials,
/// shell histories, browser cookie and login stores.
pub(crate) fn is_secret(path: &str) -> bool {
    let cleaned = path.replace('\\', "/");
    let components: Vec<&str> = cleaned
        .split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .collect();
    let Some(name) = components.last().copied() else {
        return false;
    };
    if name == ".env"
        || (name.starts_with(".env.")
            && !matches!(
                name.rsplit('.').next(),
                Some("example" | "sample" | "template" | "dist" | "defaults")
            ))
        || name.ends_with(".env")
    {
        return true;
    }
    let private_key = |n: &str| {
        (n.starts_with("id_") && !n.ends_with(".pub"))
            || matches!(
                n,
                "identity" | "ssh_host_rsa_key" | "ssh_host_ed25519_key" | "ssh_host_ecdsa_key"
            )
    };
    if private_key(name) {
        return true;
    }
    let has = |c: &str| components.contains(&c);
    if has(".ssh")
        && !(name.ends_with(".pub")
            || matches!(name, "known_hosts" | "config" | "authorized_keys" | ".ssh"))
    {
        return true;
    }
    if has(".ssh") && name == ".ssh" {
        return true;
    }
    if has(".aws") || has(".azure") || has(".gnupg") || has(".password-store") {
        return true;
    }
    let joined = components.join("/");
    if joined.contains(".config/gcloud")
        || joined.ends_with(".kube/config")
        || joined.ends_with(".docker/config.json")
        || joined.contains(".config/gh/hosts")
    {
        return true;
    }
    if matches!(
        name,
        ".netrc"
            | ".pgpass"
            | ".git-credentials"
            | ".npmrc"
            | ".pypirc"
            | "credentials.json"
            | ".bash_history"
            | ".zsh_history"
            | ".sh_history"
            | ".history"
            | "fish_history"
            | ".python_history"
            | ".node_repl_history"
            | ".psql_history"
            | ".mysql_history"
            | ".lesshst"
            | ".viminfo"
            | "Cookies"
            | "cookies.sqlite"
            | "Cookies.binarycookies"
            | "Login Data"
            | "logins.json"
            | "key4.db"
            | "Web Data"
    ) {
        return true;
    }
    false
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
            assert!(is_secret(p), "{p}");
        }
        for p in [
            ".env.example",
            "src/env.rs",
            "~/.ssh/id_ed25519.pub",
            "README.md",
        ] {
            assert!(!is_secret(p), "{p}");
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
