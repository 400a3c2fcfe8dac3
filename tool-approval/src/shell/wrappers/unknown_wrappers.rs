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

/// The known names, and a bit set keyed by (length, first byte, last
/// byte) of each: most words after a command word are no program's name,
/// and the bit set answers them without hashing.
struct Known {
    names: crate::name_hash::NameMap<&'static str, ()>,
    bits: Vec<u64>,
}

const SLOTS: usize = 8192;

fn slot(name: &str) -> usize {
    let first = usize::from(name.bytes().next().unwrap_or(0));
    let last = usize::from(name.bytes().next_back().unwrap_or(0));
    (name.len().wrapping_mul(31) ^ first.wrapping_mul(131) ^ (last << 5)) % SLOTS
}

/// Every known name: [`KNOWN_PROGRAMS`], the built-in wrappers and the
/// program table's programs.
pub(super) fn known_names() -> impl Iterator<Item = &'static str> {
    KNOWN_PROGRAMS
        .iter()
        .copied()
        .chain(super::builtin_wrapper_names())
        .chain(crate::shell::table::builtin_program_names())
}

fn known() -> &'static Known {
    static KNOWN: std::sync::OnceLock<Known> = std::sync::OnceLock::new();
    KNOWN.get_or_init(|| {
        let names: crate::name_hash::NameMap<&'static str, ()> =
            known_names().map(|n| (n, ())).collect();
        let mut bits = vec![0u64; SLOTS / 64];
        for name in names.keys() {
            let at = slot(name);
            if let Some(word) = bits.get_mut(at / 64) {
                *word |= 1 << (at % 64);
            }
        }
        Known { names, bits }
    })
}

/// Whether `name` (a basename) is a program the engine knows.
pub(crate) fn is_known_program(name: &str) -> bool {
    let known = known();
    let at = slot(name);
    known
        .bits
        .get(at / 64)
        .is_some_and(|word| word & (1 << (at % 64)) != 0)
        && known.names.contains_key(name)
}

/// How many words after an unknown command word are looked at for a
/// known program (`mywrap --arch x86_64 git push`: its options and their
/// values come first).
const LOOK_AHEAD: usize = 4;

/// Where in `rest` (the words after `first`, the command word as
/// written) a known program starts, when `first` is unknown: the rest may
/// be that program's command line (`frobnicate git push`,
/// `mywrap x86_64 git push`).
pub(crate) fn reads_through_at(first: &str, rest: &[String]) -> Option<usize> {
    // Most words after a command word are no program (`git add`, `echo
    // done`): the bit set answers them before the command word is looked up.
    let at = rest
        .iter()
        .take(LOOK_AHEAD)
        .position(|w| !w.starts_with('-') && is_known_program(basename(w)))?;
    let name = basename(first);
    (!name.is_empty() && !first.contains('=') && !is_known_program(name)).then_some(at)
}

/// Whether [`reads_through_at`] finds a program in `words` (command word first).
pub(crate) fn reads_through(words: &[String]) -> bool {
    words
        .split_first()
        .is_some_and(|(first, rest)| reads_through_at(first, rest).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn through(line: &str) -> bool {
        let words: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        reads_through(&words)
    }

    #[test]
    fn an_unknown_word_before_a_known_program_reads_through() {
        assert!(through("frobnicate git push"));
        assert!(through("./tools/run.sh git push"));
        assert!(through("frobnicate /usr/bin/printenv X"));
        // Stacked, or with an argument of its own first.
        assert!(through("frobnicate frobnicate git push"));
        assert!(through("mywrap --arch x86_64 git push"));
        // Known command words are read by their own rows.
        assert!(!through("echo git push"));
        assert!(!through("grep rm notes.txt"));
        // Not a program after it.
        assert!(!through("frobnicate status"));
        assert!(!through("frobnicate --git push"));
        assert!(!through("frobnicate"));
    }
}
