//! The setuid/setgid bit: which files a command sets it on, and which of
//! those are a root shell away (shells, interpreters, system binaries).

use super::commands::{invocation, program};
use crate::shell::words::{basename, is_shell};

/// The mode a view sets with the setuid/setgid bit, and the files it sets
/// it on: `chmod u+s F`, `chmod 4755 F`, `install -m 4755 S F`.
pub(super) fn setuid_targets(view: &[String]) -> Option<Vec<&str>> {
    match program(view) {
        "chmod" => {
            if let Some(reference) = view.iter().find(|w| w.starts_with("--reference")) {
                let files: Vec<&str> = invocation(view).operands;
                return is_setuid_mode(reference).then_some(files);
            }
            let ops = invocation(view).operands;
            let (mode, files) = ops.split_first()?;
            is_setuid_mode(mode).then(|| files.to_vec())
        }
        "install" => {
            let mut mode = None;
            let mut iter = view.iter().skip(1);
            while let Some(w) = iter.next() {
                if w == "-m" || w == "--mode" {
                    mode = iter.next().map(String::as_str);
                } else if let Some(m) = w.strip_prefix("--mode=").or_else(|| w.strip_prefix("-m")) {
                    mode = Some(m);
                }
            }
            let ops: Vec<&str> = invocation(view)
                .operands
                .into_iter()
                .filter(|o| Some(*o) != mode)
                .collect();
            is_setuid_mode(mode?).then_some(ops)
        }
        _ => None,
    }
}

fn is_setuid_mode(mode: &str) -> bool {
    let symbolic = mode
        .split(',')
        .any(|m| m.split(['+', '=']).skip(1).any(|perms| perms.contains('s')));
    let octal = mode.chars().all(|c| c.is_digit(8))
        && mode.len() >= 4
        && mode
            .chars()
            .rev()
            .nth(3)
            .is_some_and(|c| matches!(c, '2' | '3' | '4' | '5' | '6' | '7'));
    // `--reference=F` copies a mode nobody can see here.
    symbolic || octal || mode.starts_with("--reference")
}

/// Shells and interpreters that run anything when setuid.
pub(super) fn is_interpreter(name: &str) -> bool {
    is_shell(name)
        || name.starts_with("python")
        || name.starts_with("perl")
        || name.starts_with("ruby")
        || name.starts_with("php")
        || name.starts_with("lua")
        || matches!(
            name,
            "node"
                | "env"
                | "find"
                | "vim"
                | "vi"
                | "nvim"
                | "less"
                | "more"
                | "awk"
                | "gawk"
                | "mawk"
                | "nawk"
                | "tclsh"
                | "wish"
                | "expect"
                | "nmap"
                | "tar"
                | "zip"
                | "cp"
                | "dd"
                | "tee"
                | "sed"
                | "xargs"
                | "git"
                | "make"
                | "gdb"
                | "strace"
                | "nice"
                | "timeout"
                | "stdbuf"
                | "taskset"
                | "ionice"
                | "sudo"
                | "su"
                | "docker"
                | "socat"
                | "nc"
                | "ncat"
                | "rsync"
                | "scp"
                | "ssh"
                | "emacs"
                | "ed"
                | "ex"
                | "bun"
                | "deno"
                | "java"
                | "jrunscript"
                | "rlwrap"
                | "script"
                | "flock"
        )
}

/// System binary directories: anything there made setuid is a root shell away.
fn in_system_bin(path: &str) -> bool {
    super::path_rows::system_binary_row(path).is_some_and(|row| row.name == "system-programs")
}

/// Setting the setuid bit on a shell, an interpreter, a system binary, or a
/// copy of a shell made earlier in the same command (`copies`).
pub(super) fn setuid_shell(view: &[String], copies: &[String]) -> bool {
    setuid_targets(view).is_some_and(|files| {
        files.iter().any(|t| {
            is_interpreter(basename(t)) || in_system_bin(t) || copies.iter().any(|c| c == t)
        })
    })
}

/// Files a view copies a shell or interpreter to (`cp /bin/bash x` → `x`).
pub(super) fn interpreter_copies(view: &[String]) -> Vec<String> {
    if !matches!(program(view), "cp" | "install" | "mv" | "ln" | "rsync") {
        return Vec::new();
    }
    let ops = invocation(view).operands;
    let Some((dest, sources)) = ops.split_last() else {
        return Vec::new();
    };
    if sources.iter().any(|s| is_interpreter(basename(s))) {
        vec![
            (*dest).to_owned(),
            format!(
                "{dest}/{}",
                sources.first().map(|s| basename(s)).unwrap_or_default()
            ),
        ]
    } else {
        Vec::new()
    }
}
