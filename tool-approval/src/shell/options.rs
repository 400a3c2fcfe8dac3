//! Options that make a command do more than its name says.
//!
//! A prefix rule such as `git diff:*` approves the command it names. It does
//! not approve a file written by an option (`git diff --output=F`,
//! `sort -o F`), code run by one (`git -c core.pager=CMD`, `rg --pre CMD`,
//! `tar --to-command=CMD`), code loaded by one (`node -r M`), or the same
//! command run with another configuration or repository (`git -C DIR`,
//! `cargo --config`, `npm --prefix`). The options and what they do are rows
//! of the program table ([`shell::table`](super::table)); each option with an
//! [`Effect`] found in a command:
//!
//! - adds [`Hazard::OptionEffect`](super::Hazard::OptionEffect), so no prefix
//!   rule approves the command (unless it only reads);
//! - for [`Effect::WritesFile`], adds the value to the command's files,
//!   so path entries of the blacklist (`/etc/passwd`, `~/.bashrc`) see it;
//! - for [`Effect::RunsCode`], parses the value as a script, so deny
//!   rules and the blacklist judge what it runs.
//!
//! Values are classified by named checks where a row cannot say it: git's
//! `-c KEY=VALUE` by key (`GIT_CODE_KEYS` and key patterns), ssh's
//! `-o ProxyCommand=…`, tar's `--checkpoint-action=exec=CMD`. Hosts add rows
//! with [`ShellSyntax::with_option`](super::ShellSyntax::with_option).

use super::classes::{self, PartClasses};
use super::table::{CommandOption, Effect, Found, Invocation};
use super::words::basename;

/// `-c KEY=VALUE` keys whose value is a command git runs.
pub(crate) const GIT_CODE_KEYS: &[&str] = &[
    "core.pager",
    "core.sshcommand",
    "core.fsmonitor",
    "core.editor",
    "core.askpass",
    "core.gitproxy",
    "core.alternaterefscommand",
    "interactive.difffilter",
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

/// `-c KEY=VALUE` keys whose value is a place git loads code or
/// configuration from (hooks, included files, templates): what runs is
/// not on the line.
pub(crate) const GIT_CODE_LOCATION_KEYS: &[&str] =
    &["core.hookspath", "include.path", "init.templatedir"];

/// Whether `key` (lower-cased) names a place git loads code from:
/// [`GIT_CODE_LOCATION_KEYS`] and `includeIf.<condition>.path`.
fn git_code_location_key(key: &str) -> bool {
    GIT_CODE_LOCATION_KEYS.contains(&key)
        || (key.starts_with("includeif.") && key.ends_with(".path"))
}

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

/// A cheap first look: whether `words` name a program of the table (or
/// one that takes `-t DIR`) and hold an option at all, or are `git config`.
/// `classes` are the words' ([`PartClasses`]): the names are looked up
/// once per part, not here.
pub(crate) fn may_have_effects(
    words: &[String],
    classes: PartClasses,
    extra: &[CommandOption],
) -> bool {
    // `git config KEY VALUE` writes a configuration file without an option.
    if words.get(1).is_some_and(|w| w == "config")
        && words.first().is_some_and(|w| basename(w) == "git")
    {
        return true;
    }
    let has_option = classes.has_option();
    // `systemctl link PATH`, `make -f -`: effects without a row (the
    // programs are found by name, after the cheap look for an option).
    if !has_option
        && !words
            .iter()
            .any(|w| matches!(w.as_str(), "link" | "enable" | "set"))
    {
        return false;
    }
    classes.named_is(classes::LOADER)
        || (has_option
            && (classes.named_is(classes::ROW_OR_MOVER)
                || (!extra.is_empty()
                    && programs(words).any(|name| extra.iter().any(|o| o.program == name)))))
}

/// [`may_have_effects`] as it read the words itself, one lookup per word:
/// what the differential test holds it to.
#[cfg(test)]
pub(crate) fn may_have_effects_by_words(words: &[String], extra: &[CommandOption]) -> bool {
    if words.get(1).is_some_and(|w| w == "config")
        && words.first().is_some_and(|w| basename(w) == "git")
    {
        return true;
    }
    let has_option = words.iter().any(|w| w.starts_with('-'));
    if !has_option
        && !words
            .iter()
            .any(|w| matches!(w.as_str(), "link" | "enable" | "set"))
    {
        return false;
    }
    programs(words).any(|name| {
        let (loader, row) = effect_classes(name);
        loader || (has_option && (row || extra.iter().any(|o| o.program == name)))
    })
}

/// Whether `name` is a loader and whether it has a row of the table or
/// moves files, from the tables themselves (no index).
#[cfg(test)]
pub(crate) fn effect_classes(name: &str) -> (bool, bool) {
    (
        loader_names().any(|n| n == name),
        row_or_mover_names().any(|n| n == name),
    )
}

/// The programs with a row of the table, and those that move files into
/// a place (`-t DIR`).
pub(crate) fn row_or_mover_names() -> impl Iterator<Item = &'static str> {
    super::table::builtin_program_names().chain(["mv", "cp", "install", "ln"])
}

/// `systemctl`, `npm`, `pnpm` and the programs of [`CONFIG_LOADERS`].
pub(crate) fn loader_names() -> impl Iterator<Item = &'static str> {
    ["systemctl", "npm", "pnpm"].into_iter().chain(
        CONFIG_LOADERS
            .iter()
            .flat_map(|(programs, _, _)| programs.iter().copied()),
    )
}

/// The words that may name a program (through wrappers any word may): not
/// the options, by their basenames.
fn programs(words: &[String]) -> impl Iterator<Item = &str> {
    words
        .iter()
        .filter(|w| !w.starts_with('-'))
        .map(|w| basename(w))
}

/// A row of [`CONFIG_LOADERS`]: programs, the options naming the file,
/// and whether only standard input as that file counts.
pub(crate) type ConfigLoader = (&'static [&'static str], &'static [&'static str], bool);

/// Options whose value is a file of commands the program runs (a
/// configuration that runs commands, a script, a makefile): programs, the
/// options, and whether only standard input (`-`, `/dev/stdin`) counts
/// (`make -f -` reads a makefile from the line's input; `make -f ci.mk` is
/// a file of the project, like its Makefile). What runs is not on the
/// line: `Found::runs_unread`.
pub(crate) const CONFIG_LOADERS: &[ConfigLoader] = &[
    (&["tmux"], &["-f"], false),
    (&["screen"], &["-c"], false),
    (&["bash"], &["--rcfile", "--init-file"], false),
    (&["emacs"], &["-l", "--load"], false),
    (&["gdb"], &["-x", "--command"], false),
    (&["make", "gmake"], &["-f", "--file", "--makefile"], true),
    (&["just"], &["-f", "--justfile"], true),
    (&["awk", "gawk", "mawk"], &["-f", "--file"], true),
    (&["sed"], &["-f", "--file"], true),
];

/// Whether `view` gives a program of [`CONFIG_LOADERS`] a file of commands.
fn loads_commands(view: &[String]) -> bool {
    let Some((first, args)) = view.split_first() else {
        return false;
    };
    let name = basename(first);
    crate::name_hash::rows_named!(CONFIG_LOADERS: ConfigLoader, |(p, _, _)| p, name)
        .iter()
        .any(|(_, options, stdin_only)| {
            let mut words = args.iter();
            while let Some(word) = words.next() {
                if word == "--" {
                    break;
                }
                let value = if options.contains(&word.as_str()) {
                    words.next().map(String::as_str)
                } else {
                    word.split_once('=')
                        .filter(|(o, _)| o.starts_with("--") && options.contains(o))
                        .map(|(_, v)| v)
                };
                if let Some(value) = value
                    && (!stdin_only || matches!(value, "-" | "/dev/stdin" | "/dev/fd/0"))
                {
                    return true;
                }
            }
            false
        })
}

/// npm configuration keys that name a program or code npm runs later (the
/// shell of every script, git, node's options, a script run at start).
pub(crate) const NPM_CODE_KEYS: &[&str] = &[
    "script-shell",
    "shell",
    "git",
    "node-options",
    "onload-script",
    "init-module",
    "editor",
    "browser",
    "viewer",
    "userconfig",
    "globalconfig",
];

/// `npm config set KEY VALUE` (or `KEY=VALUE`) with a key of
/// [`NPM_CODE_KEYS`]: the configuration file written (`~/.npmrc`, or the
/// project's `.npmrc` with `--location project`).
fn npm_config_write(inv: &Invocation<'_>) -> Option<Found> {
    if inv.subcommand != Some("config") || inv.operands.get(1) != Some(&"set") {
        return None;
    }
    let key = inv.operands.get(2)?;
    let key = key.split_once('=').map_or(*key, |(k, _)| k);
    if !NPM_CODE_KEYS.contains(&key.to_ascii_lowercase().as_str()) {
        return None;
    }
    let project = inv
        .options
        .iter()
        .any(|o| (o.long == "location" || o.letters == "L") && o.value == Some("project"));
    Some(Found::writes(
        if project { ".npmrc" } else { "~/.npmrc" }.to_owned(),
    ))
}

/// The last parts of cargo configuration keys whose value is a program
/// cargo runs (`target.<triple>.runner`, `build.rustc-wrapper`).
pub(crate) const CARGO_CODE_KEYS: &[&str] = &[
    "runner",
    "rustc-wrapper",
    "rustc-workspace-wrapper",
    "rustc",
    "rustdoc",
    "linker",
    "credential-provider",
    "global-credential-providers",
];

/// `cargo --config KEY=VALUE` with a key of [`CARGO_CODE_KEYS`]: the value
/// is a command (quotes of its TOML string taken off).
fn cargo_config_code(inv: &Invocation<'_>, out: &mut Vec<Found>) {
    for option in inv.options.iter().filter(|o| o.long == "config") {
        let Some((key, value)) = option.value.and_then(|v| v.split_once('=')) else {
            continue;
        };
        let last = key.trim().rsplit('.').next().unwrap_or_default();
        if CARGO_CODE_KEYS.contains(&last.trim_matches('"')) {
            let value = value.trim().trim_matches(['"', '\'', '[', ']']);
            out.push(Found::new(Effect::RunsCode, Some(value.to_owned())));
        }
    }
}

/// `systemctl [--user] link|enable PATH`: the unit file is linked into the
/// service manager's folder (the user's with `--user`), where it starts
/// later.
fn systemctl_links(inv: &Invocation<'_>, out: &mut Vec<Found>) {
    if !matches!(inv.subcommand, Some("link" | "enable")) {
        return;
    }
    let user = inv.options.iter().any(|o| o.long == "user");
    for unit in inv.operands.iter().skip(1).filter(|o| o.contains('/')) {
        let name = unit.rsplit('/').next().unwrap_or(unit);
        out.push(Found::writes(if user {
            format!("~/.config/systemd/user/{name}")
        } else {
            format!("/etc/systemd/system/{name}")
        }));
    }
}

/// The options with an effect in `view` (a command's words), read through
/// the program table with the host's `extra` rows.
#[cfg(test)]
pub(crate) fn option_effects(view: &[String], extra: &[CommandOption]) -> Vec<Found> {
    read_options(view, extra).0
}

/// [`option_effects`], and whether the view has an option its program's
/// closed row does not list (`shell::known_rows`).
pub(crate) fn read_options(view: &[String], extra: &[CommandOption]) -> (Vec<Found>, bool) {
    let inv = Invocation::read(view, extra);
    let unknown = inv.unknown.is_some();
    (effects_of(&inv, view, extra), unknown)
}

/// The effects of `inv`, read from `view`.
fn effects_of(inv: &Invocation<'_>, view: &[String], extra: &[CommandOption]) -> Vec<Found> {
    let mut out = Vec::new();
    if inv.program == "git" {
        git_config(inv, &mut out);
    }
    if inv.program == "systemctl" {
        systemctl_links(inv, &mut out);
    }
    if matches!(inv.program, "npm" | "pnpm") {
        out.extend(npm_config_write(inv));
    }
    if inv.program == "cargo" {
        cargo_config_code(inv, &mut out);
    }
    if loads_commands(view) {
        out.push(Found::runs_unread());
    }
    // A host row without option names: the subcommand itself is the effect.
    for o in extra
        .iter()
        .filter(|o| o.program == inv.program && o.names.is_empty())
    {
        if let Some(effect) = o.effect
            && o.subcommand.is_some()
            && o.subcommand.as_deref() == inv.subcommand
        {
            out.push(Found::new(effect, None));
        }
    }
    for option in &inv.options {
        let Some(effect) = option.effect else {
            continue;
        };
        let mut value = option.value.map(str::to_owned);
        if inv.program == "tar" {
            // `--checkpoint-action=exec=CMD`: the command is after `exec=`.
            if let Some(cmd) = value.as_deref().and_then(|v| v.strip_prefix("exec=")) {
                value = Some(cmd.to_owned());
            }
        }
        if effect == Effect::WritesFile && value.as_deref() == Some("-") {
            // `-o -`, `-qO-`: standard output, no file.
            continue;
        }
        out.push(ssh_command(effect, value));
    }
    out
}

/// A configuration change carries no value, except ssh's `-o` options
/// that run a command (`ProxyCommand=…`, `LocalCommand=…`).
fn ssh_command(effect: Effect, value: Option<String>) -> Found {
    if effect != Effect::ChangesConfig {
        return Found::new(effect, value);
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
        Some(command) => Found::new(Effect::RunsCode, Some(command)),
        None => Found::new(effect, None),
    }
}

/// git's `-c KEY=VALUE` (before the subcommand, or `clone -c`): a key whose
/// value git runs is code, a key naming where git loads hooks or
/// configuration from is code not on the line; any other key but output
/// settings changes the configuration. `--exec-path=DIR` and `clone`/`init
/// --template=DIR` run programs from a folder; `git config KEY VALUE` with
/// such a key writes it into a configuration file.
fn git_config(inv: &Invocation<'_>, out: &mut Vec<Found>) {
    let clone = matches!(inv.subcommand, Some("clone"));
    for option in &inv.options {
        let value = option.value.filter(|v| !v.is_empty());
        if option.before_subcommand && option.long == "exec-path" && value.is_some() {
            out.push(Found::runs_unread());
        }
        if !option.before_subcommand
            && option.long == "template"
            && matches!(inv.subcommand, Some("clone" | "init"))
        {
            out.push(Found::runs_unread());
        }
    }
    git_config_write(inv, out);
    for option in inv.options.iter().filter(|o| {
        (o.before_subcommand && o.letters == "c")
            || (clone && !o.before_subcommand && (o.letters == "c" || o.long == "config"))
    }) {
        let Some(def) = option.value.filter(|d| !d.is_empty()) else {
            continue;
        };
        let (key, value) = def.split_once('=').unwrap_or((def, ""));
        let key = key.to_ascii_lowercase();
        if git_code_location_key(&key) {
            out.push(Found::runs_unread());
        } else if matches!(key.as_str(), "protocol.allow" | "protocol.ext.allow")
            && !value.eq_ignore_ascii_case("never")
        {
            // `ext::CMD` remotes run CMD once allowed, from the line or from
            // the repository's own configuration and `.gitmodules`.
            out.push(Found::runs_unread());
        } else if git_code_key(&key) {
            let value = (!value.is_empty()).then(|| value.trim_start_matches('!').to_owned());
            out.push(Found::new(Effect::RunsCode, value));
        } else if !git_harmless_key(&key) && !key.starts_with("alias.") {
            out.push(Found::new(Effect::ChangesConfig, None));
        }
    }
}

/// `git config [--global|--system|--worktree|--file F] [set] KEY VALUE`
/// where KEY is a code or code-location key: the configuration file
/// written (so the blacklist sees a write to `.git/config` or
/// `~/.gitconfig`).
fn git_config_write(inv: &Invocation<'_>, out: &mut Vec<Found>) {
    if inv.subcommand != Some("config") {
        return;
    }
    let mut operands = inv.operands.iter().skip(1).copied();
    let Some(mut key) = operands.next() else {
        return;
    };
    if key == "set" {
        let Some(next) = operands.next() else {
            return;
        };
        key = next;
    }
    let Some(value) = operands.next() else {
        return;
    };
    let key = key.to_ascii_lowercase();
    // `git config alias.st '!CMD'`: CMD runs whenever `git st` does.
    let shell_alias = key.starts_with("alias.") && value.starts_with('!');
    if shell_alias {
        out.push(Found::new(
            Effect::RunsCode,
            Some(value.trim_start_matches('!').to_owned()),
        ));
    }
    if !(shell_alias || git_code_key(&key) || git_code_location_key(&key)) {
        return;
    }
    let scoped = |long: &str| inv.options.iter().any(|o| o.long == long);
    let file = inv
        .options
        .iter()
        .find(|o| o.long == "file" || o.letters == "f")
        .and_then(|o| o.value)
        .map(str::to_owned);
    let file = file.unwrap_or_else(|| {
        if scoped("global") {
            "~/.gitconfig".to_owned()
        } else if scoped("system") {
            "/etc/gitconfig".to_owned()
        } else if scoped("worktree") {
            ".git/config.worktree".to_owned()
        } else {
            ".git/config".to_owned()
        }
    });
    out.push(Found::writes(file));
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::shell::table::OptionValue::Required;
    use Effect::{ChangesConfig, RunsCode, WritesFile};

    fn found(line: &str) -> Vec<(Effect, Option<String>)> {
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
    fn command_files_and_unit_links() {
        let unread = |line: &str| {
            let words: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
            option_effects(&words, &[])
                .iter()
                .any(|f| f.reading == crate::shell::table::Reading::NotOnLine)
        };
        assert!(unread("tmux -f ./evil.conf new -d"));
        assert!(unread("make -f - all"));
        assert!(unread("just --justfile - p"));
        assert!(unread("awk -f /dev/stdin data.txt"));
        assert!(!unread("make -f ci.mk all"));
        assert!(!unread("tmux new -d -s x"));
        assert_eq!(
            found("systemctl --user link ./x.service"),
            [(WritesFile, Some("~/.config/systemd/user/x.service".into()))]
        );
        assert!(
            found("systemctl --user restart x.service")
                .iter()
                .all(|(e, _)| *e != WritesFile)
        );
        assert!(
            found("systemctl enable --now nginx")
                .iter()
                .all(|(e, _)| *e != WritesFile)
        );
    }

    #[test]
    fn cargo_configuration_and_git_shell_aliases() {
        assert_eq!(
            found("cargo --config target.x86_64-unknown-linux-gnu.runner=\"./x.sh\" run"),
            [(RunsCode, Some("./x.sh".into())), (ChangesConfig, None)]
        );
        assert_eq!(
            found("cargo --config build.rustc-wrapper=/tmp/w.sh build"),
            [(RunsCode, Some("/tmp/w.sh".into())), (ChangesConfig, None)]
        );
        assert_eq!(
            found("cargo --config net.git-fetch-with-cli=true build"),
            [(ChangesConfig, None)]
        );
        assert_eq!(
            found("git config alias.st !rm"),
            [
                (RunsCode, Some("rm".into())),
                (WritesFile, Some(".git/config".into()))
            ]
        );
        assert!(found("git config alias.st status").is_empty());
    }

    #[test]
    fn npm_configuration_that_runs_code() {
        assert_eq!(
            found("npm config set script-shell ./x"),
            [(WritesFile, Some("~/.npmrc".into()))]
        );
        assert_eq!(
            found("npm config set node-options=--require=./x.js"),
            [(WritesFile, Some("~/.npmrc".into()))]
        );
        assert!(found("npm config set registry https://r.example/").is_empty());
        assert!(found("npm config get script-shell").is_empty());
    }

    #[test]
    fn git_code_locations_and_config_writes() {
        let unread = |line: &str| {
            option_effects(
                &line
                    .split_whitespace()
                    .map(str::to_owned)
                    .collect::<Vec<_>>(),
                &[],
            )
            .iter()
            .any(|f| f.reading == crate::shell::table::Reading::NotOnLine)
        };
        assert!(unread("git -c core.hooksPath=/tmp/h commit -m x"));
        assert!(unread("git -c include.path=/tmp/e.cfg status"));
        assert!(unread("git -c includeIf.onbranch:main.path=/tmp/e status"));
        assert!(unread("git --exec-path=/tmp/evil status"));
        assert!(unread("git clone --template=./t https://x.example/r.git"));
        assert!(unread(
            "git clone -c core.hooksPath=./h https://x.example/r.git"
        ));
        assert!(!unread("git --exec-path"));
        assert!(!unread("git -c core.autocrlf=true status"));
        assert!(!unread("git clone https://x.example/r.git"));
        assert_eq!(
            found("git config --global core.pager less"),
            [(WritesFile, Some("~/.gitconfig".into()))]
        );
        assert_eq!(
            found("git config core.hooksPath /tmp/h"),
            [(WritesFile, Some(".git/config".into()))]
        );
        assert!(
            found("git config user.name ada")
                .iter()
                .all(|(e, _)| *e != WritesFile)
        );
        assert!(
            found("git config core.pager")
                .iter()
                .all(|(e, _)| *e != WritesFile)
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
