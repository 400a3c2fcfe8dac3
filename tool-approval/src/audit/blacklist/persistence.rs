//! Commands that change the running system or plant code that runs later:
//! kernel modules, file capabilities, signalling every process, cron jobs,
//! login scripts, and the files inside a workspace that make tools run code
//! (`.git/hooks`, `.git/config`, `.envrc`, editor task files, the scripts
//! of `package.json`).
//!
//! Writes are what count for the path checks: `cat ~/.bashrc` reads a login
//! script and runs; `echo x >> ~/.bashrc` plants one and is flagged. A write
//! is a redirection onto the file or a command that names it and is not on
//! the read-only list.

use super::commands::{invocation, is_read_only, program};
use crate::shell::table::Operands;

/// `insmod`, `rmmod`, `modprobe` (not its dry runs), `kexec`.
pub(super) fn kernel_modules(view: &[String]) -> bool {
    match program(view) {
        "insmod" | "rmmod" | "kexec" => true,
        "modprobe" => {
            !invocation(view).has_flag(&['n', 'c', 'D'], &["dry-run", "showconfig", "show-depends"])
        }
        _ => false,
    }
}

/// `setcap` (not `setcap -v`, which only verifies).
pub(super) fn sets_capabilities(view: &[String]) -> bool {
    program(view) == "setcap" && !invocation(view).has_flag(&['v'], &[])
}

/// `kill … -1` (every process the user may signal), `killall5`, `pkill` of
/// every process (`pkill -9 .`, `pkill -u root`).
pub(super) fn kills_everything(view: &[String]) -> bool {
    match program(view) {
        "killall5" => true,
        "kill" => kill_targets(view).any(|t| t == "-1"),
        // A pattern that matches every process name.
        "pkill" => invocation(view)
            .operands
            .iter()
            .any(|o| matches!(*o, "." | ".*" | "^" | "")),
        // `killall -u USER` with no name: every process of that user.
        "killall" => {
            invocation(view).has_flag(&['u'], &["user"]) && invocation(view).operands.len() <= 1
        }
        _ => false,
    }
}

/// The process ids `kill` signals: everything after the signal spec
/// (`-9`, `-KILL`, `-s KILL`, `-n 9`, `--signal KILL`) and an optional `--`.
fn kill_targets(view: &[String]) -> impl Iterator<Item = &str> {
    let words: Vec<&str> = view.iter().skip(1).map(String::as_str).collect();
    let mut start = 0;
    match words.first().copied() {
        Some("-s" | "-n" | "--signal") => start = 2,
        Some(w) if w.starts_with("--signal=") => start = 1,
        // `kill -9 PID`. A lone `kill -1` counts as a target: shells read it as
        // a signal with no process, but judging it as `-1` is the cautious side.
        Some(w) if w.starts_with('-') && w != "--" && words.len() > 1 => start = 1,
        _ => {}
    }
    if words.get(start) == Some(&"--") {
        start += 1;
    }
    words.into_iter().skip(start)
}

/// `crontab FILE`, `crontab -e`, `crontab -r`, `crontab -` (not `crontab -l`).
pub(super) fn edits_crontab(view: &[String]) -> bool {
    program(view) == "crontab" && !invocation(view).has_flag(&['l'], &["list"])
}

/// A row of [`STARTS_LATER`]: programs, and the subcommands that do it.
type StartsLater = (&'static [&'static str], &'static [&'static str]);

/// Commands that make a program start later on their own (at boot, at
/// login, after logout, on a schedule) without writing a file the path rows
/// see: programs and the subcommands that do it.
const STARTS_LATER: &[StartsLater] = &[
    // A user's services keep running, and start at boot, without a login.
    (&["loginctl"], &["enable-linger"]),
    (
        &["systemctl"],
        &[
            "enable",
            "reenable",
            "preset",
            "preset-all",
            "add-wants",
            "add-requires",
            "set-default",
        ],
    ),
    (&["launchctl"], &["load", "bootstrap", "enable", "submit"]),
    (&["update-rc.d"], &["defaults", "enable"]),
    (&["rc-update"], &["add"]),
    (&["chkconfig"], &["on", "--add"]),
];

/// The programs of [`STARTS_LATER`].
pub(super) fn starts_later_programs() -> impl Iterator<Item = &'static str> {
    STARTS_LATER
        .iter()
        .flat_map(|(programs, _)| programs.iter().copied())
}

/// `loginctl enable-linger`, `systemctl --user enable x.service`,
/// `launchctl load …`: a service or job set to start later by itself.
pub(super) fn starts_later(view: &[String]) -> bool {
    let name = program(view);
    let rows = crate::name_hash::rows_named!(STARTS_LATER: StartsLater, |(p, _)| p, name);
    let Some((_, subcommands)) = rows.first() else {
        return false;
    };
    let inv = invocation(view);
    // `chkconfig NAME on`, `chkconfig --add NAME`: the word may come last.
    let words = view.iter().skip(1).map(String::as_str);
    match name {
        "chkconfig" => words.into_iter().any(|w| subcommands.contains(&w)),
        _ => inv
            .operands
            .first()
            .is_some_and(|s| subcommands.contains(s)),
    }
}

/// A file inside the system's program, library or boot folders (a row of
/// `path_rows::SYSTEM_BINARIES`).
pub(super) fn is_system_binary(path: &str) -> bool {
    super::path_rows::system_binary_row(path).is_some()
}

/// The files a command writes by position, as the program table's
/// operand rows say (`shell::table::Operands`): the destination of `cp`,
/// `mv`, `install`, `ln`, `rsync` (the last operand, or `-t DIR`), every
/// operand of `tee`, `truncate`, `shred`, and `dd of=`. `install -d DIR…`
/// makes directories: each operand (a named case).
pub(super) fn written_operands(view: &[String]) -> Vec<String> {
    // Most programs write no operand (every case below but `install -d`
    // needs a row that says they do): their words need no reading.
    let name = program(view);
    if name != "install" && crate::shell::table::operand_kind(name) == Operands::Plain {
        return Vec::new();
    }
    let inv = invocation(view);
    if inv.operand_kind() == Operands::LastWritten
        && crate::shell::links::target_directory(view).is_some()
    {
        return crate::shell::links::target_directory_writes(view);
    }
    if inv.program == "install" && view.iter().any(|w| w == "-d") {
        return inv.operands.iter().map(|o| (*o).to_owned()).collect();
    }
    inv.written_operands()
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// Login scripts, scheduler and service directories, editor, git, package
/// manager and runtime start-up files: code that runs later (the rows of
/// [`super::path_rows::PERSISTENCE`]).
pub(super) fn is_persistence_path(word: &str) -> bool {
    super::path_rows::persistence_row(word).is_some()
}

/// Files inside a workspace whose contents tools execute: git hooks and
/// config (also of submodules), direnv, editor start-up, task and settings
/// files, commit-hook managers, build-tool settings (the rows of
/// [`super::path_rows::CODE_EXECUTION`] and the shared protected classes).
pub(super) fn is_code_execution_file(word: &str) -> bool {
    super::path_rows::code_execution_row(word).is_some()
}

/// A part writes a file `is_target` recognises: a redirection onto it, a
/// word of a command that does not only read, or an operand the program
/// table says is written (`dd of=F`); a command naming it that only reads
/// is not enough. (`dispatch::view_hits` judges this for every class in
/// one pass; debug builds compare it with this definition.)
#[cfg(debug_assertions)]
pub(super) fn writes_matching(
    view: &[String],
    part: &crate::shell::SimpleCommand,
    is_target: fn(&str) -> bool,
) -> bool {
    part.redirects.iter().any(|r| is_target(r))
        || (!is_read_only(view) && !prints_only(view) && any_word(view, is_target))
        // `dd of=.exrc`: an operand the program table says is written.
        || written_operands(view).iter().any(|w| is_target(w))
}

/// Whether `is_target` holds for a word of `view` after the command word.
/// A long view (`git -c alias.a=… -c alias.a=… …`, thousands of words)
/// asks once per distinct word.
pub(super) fn any_word(view: &[String], is_target: fn(&str) -> bool) -> bool {
    let words = view.iter().skip(1);
    if view.len() <= 32 {
        return words.into_iter().any(|w| is_target(w));
    }
    let mut asked = std::collections::HashSet::new();
    words
        .filter(|w| asked.insert(w.as_str()))
        .any(|w| is_target(w))
}

/// Whether the words of `view` may be files it writes: not a command that
/// only reads, and not `echo`/`printf`, which print their words (only
/// their redirections write).
pub(super) fn writes_its_words(view: &[String]) -> bool {
    !is_read_only(view) && !prints_only(view)
}

/// `echo`/`printf` print their words; only their redirections write.
fn prints_only(view: &[String]) -> bool {
    matches!(program(view), "echo" | "printf")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn v(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn kill_minus_one_is_a_target_only_after_the_signal() {
        assert!(kills_everything(&v(&["kill", "-9", "-1"])));
        assert!(kills_everything(&v(&["kill", "-KILL", "-1"])));
        assert!(kills_everything(&v(&["kill", "-s", "KILL", "-1"])));
        assert!(kills_everything(&v(&["kill", "--", "-1"])));
        assert!(kills_everything(&v(&["kill", "-9", "--", "-1"])));
        assert!(!kills_everything(&v(&["kill", "-1", "1234"])));
        assert!(!kills_everything(&v(&["kill", "-9", "1234"])));
        assert!(kills_everything(&v(&["kill", "-1"])));
    }

    #[test]
    fn services_set_to_start_later_and_package_scripts() {
        for yes in [
            &["loginctl", "enable-linger"][..],
            &["systemctl", "--user", "enable", "--now", "x.service"],
            &["launchctl", "load", "x.plist"],
            &["chkconfig", "x", "on"],
            &["rc-update", "add", "x", "default"],
        ] {
            assert!(starts_later(&v(yes)), "{yes:?}");
        }
        for no in [
            &["loginctl", "show-user", "me"][..],
            &["systemctl", "--user", "restart", "x.service"],
            &["systemctl", "is-enabled", "x"],
            &["chkconfig", "--list"],
        ] {
            assert!(!starts_later(&v(no)), "{no:?}");
        }
        for yes in [
            &["npm", "pkg", "set", "scripts.postinstall=./x"][..],
            &["npm", "--prefix", "app", "pkg", "set", "scripts.x=y"],
            &["bun", "pm", "pkg", "set", "scripts.x=y"],
            &["npm", "set-script", "prepare", "./x"],
        ] {
            assert!(
                crate::shell::scripts::sets_package_script(&v(yes)),
                "{yes:?}"
            );
        }
        for no in [
            &["npm", "pkg", "set", "name=x"][..],
            &["npm", "pkg", "get", "scripts"],
            &["npm", "pkg", "set"],
            &["yarn", "pkg", "set", "scripts.x=y"],
        ] {
            assert!(
                !crate::shell::scripts::sets_package_script(&v(no)),
                "{no:?}"
            );
        }
    }

    #[test]
    fn persistence_and_code_execution_files() {
        assert!(is_persistence_path("~/.bashrc"));
        assert!(is_persistence_path("/root/.profile"));
        assert!(is_persistence_path("/etc/cron.d/job"));
        assert!(is_persistence_path(
            "/home/u/.config/systemd/user/x.service"
        ));
        assert!(!is_persistence_path("src/profile.rs"));
        assert!(is_code_execution_file(".git/hooks/pre-commit"));
        assert!(is_code_execution_file("./.git/config"));
        assert!(is_code_execution_file("sub/.envrc"));
        assert!(!is_code_execution_file(".gitignore"));
        assert!(!is_code_execution_file("docs/config.md"));
    }
}
