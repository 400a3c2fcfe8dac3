//! Unknown wrappers, read both ways: `setarch x86_64 git push`,
//! `frobnicate printenv GITHUB_TOKEN`, `./tools/run.sh git push`.
//!
//! When the command word is one the engine does not know and the word
//! after it is a program it does know (or a path to one), the rest of the
//! line is also read as that program's command: a view, like a wrapper's.
//! Deny rules, secret variables and every other check then judge both
//! readings and the strictest wins; approval never looks through a wrapper,
//! so `frobnicate git status` is not `git status` to a prefix rule.
//!
//! "Known" is [`KNOWN_PROGRAMS`] (programs the blacklist, the deny rules
//! of hosts and the red-team rounds name), the built-in wrappers and the
//! program table's programs. Known wrapper programs (`setarch`, the dynamic
//! loader, `linux64`, `chrt`, …) have rows of their own in
//! `shell::wrappers`.

use crate::shell::words::basename;

/// Programs the engine knows by name: what an unknown word before one of
/// them may be running. Wrappers and the program table's programs count
/// too (see [`is_known_program`]).
pub(crate) const KNOWN_PROGRAMS: &[&str] = &[
    "git",
    "curl",
    "wget",
    "rm",
    "rmdir",
    "mv",
    "cp",
    "dd",
    "ln",
    "chmod",
    "chown",
    "chgrp",
    "cat",
    "printenv",
    "env",
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "fish",
    "csh",
    "tcsh",
    "python",
    "python3",
    "node",
    "perl",
    "ruby",
    "php",
    "nc",
    "ncat",
    "netcat",
    "socat",
    "ssh",
    "scp",
    "sftp",
    "rsync",
    "kill",
    "pkill",
    "killall",
    "shutdown",
    "reboot",
    "poweroff",
    "halt",
    "mkfs",
    "fdisk",
    "parted",
    "crontab",
    "at",
    "tee",
    "ls",
    "echo",
    "printf",
    "find",
    "head",
    "tail",
    "less",
    "more",
    "base64",
    "xxd",
    "od",
    "gpg",
    "openssl",
    "docker",
    "podman",
    "kubectl",
    "npm",
    "pnpm",
    "yarn",
    "cargo",
    "go",
    "make",
    "pip",
    "pip3",
    "uv",
    "tar",
    "zip",
    "unzip",
    "chattr",
    "truncate",
    "shred",
    "systemctl",
    "eval",
    "source",
    "sed",
    "awk",
    "grep",
    "rg",
    "jq",
    "sort",
    "tree",
    "pytest",
    "gh",
    "aws",
    "gcloud",
    "az",
    "terraform",
    "vault",
    "security",
    "install",
    "mount",
    "umount",
    "useradd",
    "usermod",
    "passwd",
    "visudo",
    "iptables",
    "ufw",
    "telnet",
    "ftp",
    "tftp",
    "nslookup",
    "dig",
    "host",
    "ping",
    "xargs",
    "sudo",
    "su",
    "doas",
    "strings",
    "hexdump",
    "vim",
    "vi",
    "nano",
    "emacs",
    "code",
];

/// Whether `name` (a basename) is a program the engine knows.
pub(crate) fn is_known_program(name: &str) -> bool {
    type Names = crate::name_hash::NameMap<&'static str, ()>;
    static NAMES: std::sync::OnceLock<Names> = std::sync::OnceLock::new();
    NAMES
        .get_or_init(|| {
            KNOWN_PROGRAMS
                .iter()
                .copied()
                .chain(super::builtin_wrapper_names())
                .chain(crate::shell::table::builtin_program_names())
                .map(|n| (n, ()))
                .collect()
        })
        .contains_key(name)
}

/// Whether `first` (the command word as written) is unknown and `next`
/// names a known program: the rest may be that program's command line.
pub(crate) fn reads_through(first: &str, next: Option<&String>) -> bool {
    let Some(next) = next else {
        return false;
    };
    if next.starts_with('-') || next.contains('=') || first.contains('=') {
        return false;
    }
    let name = basename(first);
    !name.is_empty() && !is_known_program(name) && is_known_program(basename(next))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn through(line: &str) -> bool {
        let words: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        reads_through(&words[0], words.get(1))
    }

    #[test]
    fn an_unknown_word_before_a_known_program_reads_through() {
        assert!(through("frobnicate git push"));
        assert!(through("./tools/run.sh git push"));
        assert!(through("frobnicate /usr/bin/printenv X"));
        // Known command words are read by their own rows.
        assert!(!through("echo git push"));
        assert!(!through("grep rm notes.txt"));
        // Not a program after it.
        assert!(!through("frobnicate status"));
        assert!(!through("frobnicate --git push"));
        assert!(!through("frobnicate"));
    }
}
