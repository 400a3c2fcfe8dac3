//! Options that make a command do more than its name says.
//!
//! A prefix rule such as `git diff:*` approves the command it names. It does
//! not approve a file written by an option (`git diff --output=F`,
//! `sort -o F`), code run by one (`git -c core.pager=CMD`, `rg --pre CMD`,
//! `tar --to-command=CMD`), or the same command run with another
//! configuration or repository (`git -C DIR`, `cargo --config`,
//! `npm --prefix`). Each such option found in a command:
//!
//! - adds [`Hazard::OptionEffect`](super::Hazard::OptionEffect), so no prefix
//!   rule approves the command;
//! - for [`OptionEffect::WritesFile`], adds the value to the command's files,
//!   so path entries of the blacklist (`/etc/passwd`, `~/.bashrc`) see it;
//! - for [`OptionEffect::RunsCode`], parses the value as a script, so deny
//!   rules and the blacklist judge what it runs.
//!
//! The built-in table covers git, cargo, npm and its kin, ripgrep, find,
//! tar, rsync, ssh, sort, pytest and a few more; hosts add entries with
//! [`ShellSyntax::with_option`](super::ShellSyntax::with_option).

use std::borrow::Cow;

use super::words::basename;

/// What an option makes a command do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum OptionEffect {
    /// The value is a file the command writes.
    WritesFile,
    /// The value is a command or script the command runs.
    RunsCode,
    /// The command runs with another configuration, directory or
    /// repository, which can make it run code (hooks, pagers, build scripts).
    ChangesConfig,
}

impl OptionEffect {
    /// A short human description.
    pub fn describe(self) -> &'static str {
        match self {
            Self::WritesFile => "writes a file",
            Self::RunsCode => "runs a command",
            Self::ChangesConfig => "changes the configuration the command runs with",
        }
    }
}

/// How an option takes its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OptionValue {
    /// No value: the option's presence is the effect (`--ext-diff`).
    Flag,
    /// `-o FILE`, `-oFILE`, `--output FILE` or `--output=FILE`.
    Required,
    /// Only attached: `--output=FILE` (a separate word is an operand).
    Attached,
}

/// One option of one command that writes a file or runs code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandOption {
    program: String,
    subcommand: Option<String>,
    names: Vec<String>,
    value: OptionValue,
    effect: OptionEffect,
}

impl CommandOption {
    /// `program`'s option, spelled any of `names` (`-o`, `--output`).
    pub fn new(
        program: impl Into<String>,
        names: &[&str],
        value: OptionValue,
        effect: OptionEffect,
    ) -> Self {
        Self {
            program: program.into(),
            subcommand: None,
            names: names.iter().map(|n| (*n).to_owned()).collect(),
            value,
            effect,
        }
    }

    /// Only after this subcommand (`git diff --output`).
    pub fn subcommand(mut self, subcommand: impl Into<String>) -> Self {
        self.subcommand = Some(subcommand.into());
        self
    }

    /// The program (a basename).
    pub fn program(&self) -> &str {
        &self.program
    }

    /// The effect.
    pub fn effect(&self) -> OptionEffect {
        self.effect
    }
}

/// A built-in row: program, subcommand, names, value, effect.
type Row = (
    &'static str,
    Option<&'static str>,
    &'static [&'static str],
    OptionValue,
    OptionEffect,
);

use OptionEffect::{ChangesConfig, RunsCode, WritesFile};
use OptionValue::{Attached, Flag, Required};

const BUILTIN: &[Row] = &[
    // git, before the subcommand (`-c` is judged by key, see `git_config`).
    (
        "git",
        None,
        &[
            "-C",
            "--git-dir",
            "--work-tree",
            "--exec-path",
            "--namespace",
        ],
        Required,
        ChangesConfig,
    ),
    ("git", None, &["--config-env"], Required, ChangesConfig),
    // git subcommands that write files or run programs.
    ("git", Some("diff"), &["--output"], Required, WritesFile),
    ("git", Some("log"), &["--output"], Required, WritesFile),
    ("git", Some("show"), &["--output"], Required, WritesFile),
    (
        "git",
        Some("format-patch"),
        &["-o", "--output-directory"],
        Required,
        WritesFile,
    ),
    ("git", Some("diff"), &["--ext-diff"], Flag, ChangesConfig),
    ("git", Some("log"), &["--ext-diff"], Flag, ChangesConfig),
    (
        "git",
        Some("grep"),
        &["-O", "--open-files-in-pager"],
        Attached,
        RunsCode,
    ),
    ("git", Some("fetch"), &["--upload-pack"], Required, RunsCode),
    ("git", Some("pull"), &["--upload-pack"], Required, RunsCode),
    (
        "git",
        Some("clone"),
        &["-u", "--upload-pack"],
        Required,
        RunsCode,
    ),
    (
        "git",
        Some("clone"),
        &["--template", "-c", "--config"],
        Required,
        ChangesConfig,
    ),
    (
        "git",
        Some("push"),
        &["--receive-pack", "--exec"],
        Required,
        RunsCode,
    ),
    (
        "git",
        Some("ls-remote"),
        &["--upload-pack"],
        Required,
        RunsCode,
    ),
    (
        "git",
        Some("archive"),
        &["-o", "--output"],
        Required,
        WritesFile,
    ),
    ("git", Some("archive"), &["--exec"], Required, RunsCode),
    // cargo: configuration that picks the compiler, runners, wrappers.
    ("cargo", None, &["--config"], Required, ChangesConfig),
    ("cargo", None, &["-Z"], Required, ChangesConfig),
    ("cargo", None, &["--target-dir"], Required, ChangesConfig),
    // npm and its kin: Node options, another project, another shell.
    ("npm", None, &["--node-options"], Required, ChangesConfig),
    ("npm", None, &["--prefix", "-C"], Required, ChangesConfig),
    ("npm", None, &["--script-shell"], Required, RunsCode),
    (
        "npm",
        None,
        &["--userconfig", "--globalconfig"],
        Required,
        ChangesConfig,
    ),
    (
        "npx",
        None,
        &["--node-options", "--prefix"],
        Required,
        ChangesConfig,
    ),
    (
        "pnpm",
        None,
        &["--node-options", "--prefix", "-C", "--dir"],
        Required,
        ChangesConfig,
    ),
    (
        "yarn",
        None,
        &["--cwd", "--use-yarnrc"],
        Required,
        ChangesConfig,
    ),
    (
        "node",
        None,
        &[
            "-r",
            "--require",
            "--import",
            "--loader",
            "--experimental-loader",
        ],
        Required,
        ChangesConfig,
    ),
    // ripgrep runs a preprocessor on every file.
    ("rg", None, &["--pre"], Required, RunsCode),
    // find: writes of its own.
    (
        "find",
        None,
        &["-fprint", "-fprint0", "-fls", "-fprintf"],
        Required,
        WritesFile,
    ),
    // tar, rsync, ssh, scp: programs they run.
    (
        "tar",
        None,
        &[
            "--to-command",
            "--use-compress-program",
            "-I",
            "--rsh-command",
            "--info-script",
            "--new-volume-script",
        ],
        Required,
        RunsCode,
    ),
    ("tar", None, &["--checkpoint-action"], Attached, RunsCode),
    (
        "rsync",
        None,
        &["-e", "--rsh", "--rsync-path"],
        Required,
        RunsCode,
    ),
    ("ssh", None, &["-o"], Required, ChangesConfig),
    ("ssh", None, &["-F"], Required, ChangesConfig),
    ("scp", None, &["-o", "-F", "-S"], Required, ChangesConfig),
    ("zip", None, &["-TT", "--unzip-command"], Required, RunsCode),
    // Writers by option.
    ("sort", None, &["-o", "--output"], Required, WritesFile),
    (
        "curl",
        None,
        &[
            "-o",
            "--output",
            "-D",
            "--dump-header",
            "-c",
            "--cookie-jar",
            "--trace",
            "--trace-ascii",
            "--stderr",
        ],
        Required,
        WritesFile,
    ),
    (
        "wget",
        None,
        &[
            "-O",
            "--output-document",
            "-o",
            "--output-file",
            "-a",
            "--append-output",
        ],
        Required,
        WritesFile,
    ),
    ("gcc", None, &["-o"], Required, WritesFile),
    // Test runners and interpreters loading code by option.
    // (Values in another language are a configuration change: no prefix
    // rule approves them, and they are not parsed as shell.)
    (
        "pytest",
        None,
        &["-p", "-c", "--rootdir", "--confcutdir"],
        Required,
        ChangesConfig,
    ),
    ("python", None, &["-c", "-m"], Required, ChangesConfig),
    ("python3", None, &["-c", "-m"], Required, ChangesConfig),
    (
        "make",
        None,
        &[
            "-f",
            "--file",
            "--makefile",
            "-C",
            "--directory",
            "-I",
            "--include-dir",
        ],
        Required,
        ChangesConfig,
    ),
    (
        "man",
        None,
        &["-P", "--pager", "-H", "--html"],
        Required,
        RunsCode,
    ),
];

/// `-c KEY=VALUE` keys whose value is a command git runs.
const GIT_CODE_KEYS: &[&str] = &[
    "core.pager",
    "core.sshcommand",
    "core.fsmonitor",
    "core.editor",
    "core.askpass",
    "core.gitproxy",
    "core.hookspath",
    "sequence.editor",
    "diff.external",
    "diff.tool",
    "merge.tool",
    "gpg.program",
    "gpg.ssh.program",
    "gpg.x509.program",
    "credential.helper",
    "uploadpack.packobjectshook",
    "sendemail.smtpserver",
    "web.browser",
];

/// Key patterns (`pager.*`, `filter.*.clean`) whose value git runs.
fn git_code_key(key: &str) -> bool {
    if GIT_CODE_KEYS.contains(&key) {
        return true;
    }
    let parts: Vec<&str> = key.split('.').collect();
    match (parts.first().copied(), parts.last().copied()) {
        (Some("pager"), _) => true,
        (Some("alias"), _) => false, // judged by the alias reader
        (
            Some("filter" | "diff" | "merge" | "difftool" | "mergetool" | "credential"),
            Some(
                "clean" | "smudge" | "process" | "command" | "textconv" | "driver" | "cmd"
                | "helper",
            ),
        ) => true,
        (Some("remote"), Some("uploadpack" | "receivepack" | "proxy" | "vcs")) => true,
        (Some("man"), Some("cmd" | "path")) => true,
        _ => false,
    }
}

/// `-c KEY=VALUE` keys that change nothing but output.
fn git_harmless_key(key: &str) -> bool {
    let section = key.split('.').next().unwrap_or_default();
    matches!(
        section,
        "color" | "advice" | "column" | "log" | "format" | "status" | "user" | "i18n"
    ) || matches!(
        key,
        "core.quotepath" | "core.abbrev" | "diff.noprefix" | "diff.renames" | "init.defaultbranch"
    )
}

/// One option found in a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    pub(crate) effect: OptionEffect,
    /// The value: the file written or the command run (none for a flag or
    /// a configuration change).
    pub(crate) value: Option<String>,
    /// The option makes the command run commands that are not on the line
    /// (`git -c protocol.ext.allow=always`: any `ext::` remote in the
    /// repository's configuration or its submodules).
    pub(crate) unread: bool,
}

/// A cheap first look: whether `words` name a program of the tables (or
/// one that takes `-t DIR`) and hold an option at all.
pub(crate) fn may_have_effects(words: &[String], extra: &[CommandOption]) -> bool {
    words.iter().any(|w| w.starts_with('-'))
        && words.iter().any(|w| {
            let name = basename(w);
            BUILTIN.iter().any(|row| row.0 == name)
                || extra.iter().any(|o| o.program == name)
                || matches!(name, "mv" | "cp" | "install" | "ln")
        })
}

/// The options with an effect in `view` (a command's words, command word
/// reduced to its basename), from the built-in table and `extra`.
pub(crate) fn option_effects(view: &[String], extra: &[CommandOption]) -> Vec<Found> {
    let Some((first, args)) = view.split_first() else {
        return Vec::new();
    };
    let program = basename(first);
    let mut out = Vec::new();
    if program == "git" {
        git_config(args, &mut out);
    }
    let subcommand = first_operand(program, args);
    let rows = BUILTIN
        .iter()
        .filter(|row| row.0 == program)
        .map(|&(_, sub, names, value, effect)| (sub, Cow::Borrowed(names), value, effect));
    let host = extra.iter().filter(|o| o.program == program).map(|o| {
        let names: Vec<&str> = o.names.iter().map(String::as_str).collect();
        (
            o.subcommand.as_deref(),
            Cow::Owned(names),
            o.value,
            o.effect,
        )
    });
    for (sub, names, value, effect) in rows.chain(host) {
        let scope: &[String] = match (sub, &subcommand) {
            (None, Some((at, _))) if program == "git" => args.get(..*at).unwrap_or_default(),
            (None, _) => args,
            (Some(want), Some((at, name))) if *name == want => {
                args.get(at + 1..).unwrap_or_default()
            }
            (Some(_), _) => continue,
        };
        if names.is_empty() {
            // A row without option names: the subcommand itself is the effect
            // (`git bundle` reads and writes bundle files).
            if sub.is_some() {
                out.push(Found {
                    effect,
                    value: None,
                    unread: false,
                });
            }
            continue;
        }
        scan(scope, &names, value, effect, &mut out);
    }
    if program == "tar" {
        // `--checkpoint-action=exec=CMD`: the command is after `exec=`.
        for found in &mut out {
            if let Some(cmd) = found.value.as_deref().and_then(|v| v.strip_prefix("exec=")) {
                found.value = Some(cmd.to_owned());
            }
        }
    }
    out
}

/// git's own options that take a separate value before the subcommand.
pub(crate) const GIT_VALUED: &[&str] = &[
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--exec-path",
    "--config-env",
    "--super-prefix",
];

/// The first word after `program`'s leading options, and its index in
/// `args`: git's subcommand (`git -C x diff` → `diff`).
fn first_operand<'a>(program: &str, args: &'a [String]) -> Option<(usize, &'a str)> {
    let valued: &[&str] = match program {
        "git" => GIT_VALUED,
        "cargo" => &["--config", "-Z", "--color", "--manifest-path"],
        "npm" | "pnpm" | "npx" | "yarn" => &["--prefix", "-C", "--dir", "--cwd"],
        _ => &[],
    };
    let mut iter = args.iter().enumerate();
    while let Some((at, word)) = iter.next() {
        if word == "--" {
            return None;
        }
        if word.starts_with('-') {
            if valued.contains(&word.as_str()) {
                iter.next();
            }
            continue;
        }
        return Some((at, word.as_str()));
    }
    None
}

/// Finds `names` among `args` and records each with its value.
fn scan(
    args: &[String],
    names: &[&str],
    value: OptionValue,
    effect: OptionEffect,
    out: &mut Vec<Found>,
) {
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if arg == "--" {
            break;
        }
        if !arg.starts_with('-') {
            continue;
        }
        for name in names {
            let got = if arg == name {
                match value {
                    OptionValue::Flag => Some(None),
                    OptionValue::Required => Some(iter.next().cloned()),
                    // `-O` alone opens the default pager: still an effect.
                    OptionValue::Attached => Some(None),
                }
            } else if let Some(rest) = arg.strip_prefix(name) {
                let long = name.starts_with("--");
                match (value, rest.strip_prefix('=')) {
                    (OptionValue::Flag, _) => None,
                    (_, Some(v)) => Some(Some(v.to_owned())),
                    // `-oFILE`, `-Ocmd`: short options carry their value attached.
                    (_, None) if !long && !rest.is_empty() => Some(Some(rest.to_owned())),
                    _ => None,
                }
            } else {
                None
            };
            if let Some(value) = got {
                out.push(ssh_command(effect, value));
                break;
            }
        }
    }
}

/// A configuration change carries no value, except ssh's `-o` options
/// that run a command (`ProxyCommand=…`, `LocalCommand=…`).
fn ssh_command(effect: OptionEffect, value: Option<String>) -> Found {
    if effect != OptionEffect::ChangesConfig {
        return Found {
            effect,
            value,
            unread: false,
        };
    }
    let command = value.as_deref().and_then(|v| {
        let (key, rest) = v.split_once(['=', ' '])?;
        matches!(
            key.to_ascii_lowercase().as_str(),
            "proxycommand" | "localcommand" | "knownhostscommand" | "remotecommand"
        )
        .then(|| rest.trim().to_owned())
    });
    match command {
        Some(command) => Found {
            effect: OptionEffect::RunsCode,
            value: Some(command),
            unread: false,
        },
        None => Found {
            effect,
            value: None,
            unread: false,
        },
    }
}

/// git's `-c KEY=VALUE` (before the subcommand): a key whose value git runs
/// is code; any other key but output settings changes the configuration.
fn git_config(args: &[String], out: &mut Vec<Found>) {
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let def = match arg.as_str() {
            "-c" => iter.next().map(String::as_str),
            "--" => return,
            other if !other.starts_with('-') => return,
            other => other.strip_prefix("-c").filter(|d| !d.is_empty()),
        };
        let Some(def) = def else { continue };
        let (key, value) = def.split_once('=').unwrap_or((def, ""));
        let key = key.to_ascii_lowercase();
        if matches!(key.as_str(), "protocol.allow" | "protocol.ext.allow")
            && !value.eq_ignore_ascii_case("never")
        {
            // `ext::CMD` remotes run CMD once allowed, from the line or from
            // the repository's own configuration and `.gitmodules`.
            out.push(Found {
                effect: OptionEffect::RunsCode,
                value: None,
                unread: true,
            });
        } else if git_code_key(&key) {
            out.push(Found {
                effect: OptionEffect::RunsCode,
                value: (!value.is_empty()).then(|| value.trim_start_matches('!').to_owned()),
                unread: false,
            });
        } else if !git_harmless_key(&key) && !key.starts_with("alias.") {
            out.push(Found {
                effect: OptionEffect::ChangesConfig,
                value: None,
                unread: false,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(line: &str) -> Vec<(OptionEffect, Option<String>)> {
        let words: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        option_effects(&words, &[])
            .into_iter()
            .map(|f| (f.effect, f.value))
            .collect()
    }

    #[test]
    fn git_options_before_and_after_the_subcommand() {
        assert_eq!(
            found("git diff --output=p.txt"),
            [(WritesFile, Some("p.txt".into()))]
        );
        assert_eq!(
            found("git diff --output p.txt"),
            [(WritesFile, Some("p.txt".into()))]
        );
        assert_eq!(found("git -C x status"), [(ChangesConfig, None)]);
        assert_eq!(
            found("git -c core.pager=less diff"),
            [(RunsCode, Some("less".into()))]
        );
        assert_eq!(found("git -c color.ui=always status"), []);
        assert_eq!(
            found("git -c core.autocrlf=true status"),
            [(ChangesConfig, None)]
        );
        // `--output` of a subcommand that has none, or after `--`: nothing.
        assert_eq!(found("git status --output=x"), []);
        assert_eq!(found("git diff -- --output=x"), []);
        // `-c` after the subcommand is not git's.
        assert_eq!(found("git status -c x"), []);
        assert_eq!(
            found("git grep -Ovim foo"),
            [(RunsCode, Some("vim".into()))]
        );
    }

    #[test]
    fn other_programs_and_host_rows() {
        assert_eq!(found("sort -o out in"), [(WritesFile, Some("out".into()))]);
        assert_eq!(found("sort -oout in"), [(WritesFile, Some("out".into()))]);
        assert_eq!(found("rg --pre=./x foo"), [(RunsCode, Some("./x".into()))]);
        assert_eq!(found("cargo test --config x"), [(ChangesConfig, None)]);
        assert_eq!(found("cargo test -p x"), []);
        let extra =
            [CommandOption::new("deploy", &["--hook"], Required, RunsCode).subcommand("run")];
        let words: Vec<String> = ["deploy", "run", "--hook", "make"]
            .map(str::to_owned)
            .to_vec();
        assert_eq!(
            option_effects(&words, &extra)[0].value.as_deref(),
            Some("make")
        );
        let words: Vec<String> = ["deploy", "list", "--hook", "make"]
            .map(str::to_owned)
            .to_vec();
        assert!(option_effects(&words, &extra).is_empty());
    }
}
