//! Checks on paths: secrets, account files, devices, kernel files.

use std::path::Path;

use super::path_rows;
use crate::path_view::resolve_path;
use crate::shell::basename;
use crate::shell::table::Invocation;
use crate::shell::wildcard::wildcard_match;
use crate::shell::words::has_byte;

pub(super) fn add_path(
    paths: &mut Vec<String>,
    raw: &str,
    cwd: Option<&Path>,
    home: Option<&Path>,
) {
    paths.push(raw.to_owned());
    if has_byte(raw, b"$`") {
        // `/etc/pass$1wd`, `/proc/sysrq-trigge${X}r`: an expansion can be
        // anything (also empty), so the word may name whatever it matches
        // with each expansion read as `*`.
        let pattern = expansions_as_stars(raw);
        paths.extend(glob_matches(&pattern, cwd, home));
    }
    if has_byte(raw, b"*?[") {
        // `cat /etc/sha*`, `cat .e*`: the sensitive files the glob would name.
        paths.extend(glob_matches(raw, cwd, home));
    }
    // Most words are clean already (`src/main.rs`): cleaning them gives
    // the same text.
    if !is_lexically_clean(raw) {
        let lexical = path_clean::clean(raw).display().to_string();
        if lexical != raw {
            if lexical.contains(['*', '?', '[']) {
                // `cat /etc/../etc/sha?ow`: the glob after `..` is resolved.
                paths.extend(glob_matches(&lexical, cwd, home));
            }
            paths.push(lexical);
        }
    }
    if (cwd.is_some()
        || raw.starts_with('/')
        || raw.starts_with('~')
        || raw.starts_with("$HOME")
        || raw.starts_with("${HOME}"))
        && let Some(resolved) = resolve_path(raw, cwd.unwrap_or(Path::new("/")), home)
    {
        let resolved = resolved.display().to_string();
        if resolved != raw {
            paths.push(resolved);
        }
    }
}

/// Whether lexical cleaning leaves `path` as it is: no empty, `.` or `..`
/// component and no trailing `/` (a leading `/` is the root).
fn is_lexically_clean(path: &str) -> bool {
    let rest = path.strip_prefix('/').unwrap_or(path);
    !rest.is_empty() && rest.split('/').all(|c| !matches!(c, "" | "." | ".."))
}

/// The system account, group and sudo files (`system-accounts`).
const SYSTEM_ACCOUNT_FILES: &[&str] = &[
    "/etc/passwd",
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/sudoers",
    "/etc/master.passwd",
    "/etc/group",
    "/etc/ld.so.preload",
    "/etc/security/opasswd",
];

/// Files every blacklist path entry knows besides [`SYSTEM_ACCOUNT_FILES`],
/// as globs are tested against them.
const SENSITIVE_ABSOLUTE: &[&str] = &[
    "/etc/ssh/sshd_config",
    "/etc/ssh/ssh_host_rsa_key",
    "/etc/ssh/ssh_host_ed25519_key",
    "/dev/sda",
    "/dev/nvme0n1",
    "/dev/mem",
    "/dev/kmem",
    "/dev/port",
    "/proc/sysrq-trigger",
    "/proc/sys/kernel/panic",
];

/// Sensitive files under the home directory (`~/` prefixed).
const SENSITIVE_HOME: &[&str] = &[
    ".ssh/id_rsa",
    ".ssh/id_ed25519",
    ".ssh/id_ecdsa",
    ".ssh/id_dsa",
    ".aws/credentials",
    ".aws/config",
    ".azure/accessTokens.json",
    ".gnupg/private-keys-v1.d",
    ".config/gcloud/credentials.db",
    ".config/gh/hosts.yml",
    ".docker/config.json",
    ".kube/config",
    ".netrc",
    ".pgpass",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".bash_history",
    ".zsh_history",
    ".sh_history",
    ".python_history",
    ".psql_history",
    ".mysql_history",
    ".node_repl_history",
    ".env",
];

/// Sensitive names anywhere (relative globs like `.e*` are tested against them).
const SENSITIVE_NAMES: &[&str] = &[
    ".env",
    ".env.local",
    ".env.production",
    ".env.development",
    "prod.env",
    "secrets.env",
    "id_rsa",
    "id_ed25519",
    "id_ecdsa",
    "credentials",
    "credentials.json",
    ".netrc",
    ".git-credentials",
    ".bash_history",
    ".zsh_history",
    ".pgpass",
];

/// `raw` with every `$NAME`, `${…}`, `$(…)`, `$N` and backquoted text
/// replaced by `*` (matching within one path segment).
fn expansions_as_stars(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '$' => {
                match chars.peek() {
                    Some('{') | Some('(') => {
                        let close = if chars.peek() == Some(&'{') { '}' } else { ')' };
                        for n in chars.by_ref() {
                            if n == close {
                                break;
                            }
                        }
                    }
                    _ => {
                        while chars.peek().is_some_and(|n| {
                            n.is_ascii_alphanumeric()
                                || *n == '_'
                                || matches!(n, '@' | '*' | '#' | '?' | '!' | '-')
                        }) {
                            chars.next();
                        }
                    }
                }
                out.push('*');
            }
            '`' => {
                for n in chars.by_ref() {
                    if n == '`' {
                        break;
                    }
                }
                out.push('*');
            }
            other => out.push(other),
        }
    }
    out
}

/// The sensitive files a glob word would name (with `~` expanded).
fn glob_matches(raw: &str, cwd: Option<&Path>, home: Option<&Path>) -> Vec<String> {
    let home_text = home.map(|h| h.display().to_string());
    let pattern = match (raw.strip_prefix('~'), &home_text) {
        (Some(rest), Some(h)) => format!("{h}{rest}"),
        _ => raw.to_owned(),
    };
    let candidates = || {
        let homes = home_text.iter().map(String::as_str).chain(["/root"]);
        SYSTEM_ACCOUNT_FILES
            .iter()
            .chain(SENSITIVE_ABSOLUTE)
            .map(|p| (*p).to_owned())
            .chain(homes.flat_map(|dir| SENSITIVE_HOME.iter().map(move |p| format!("{dir}/{p}"))))
    };
    if pattern.starts_with('/') {
        return candidates()
            .filter(|c| wildcard_match(&pattern, c))
            .collect();
    }
    let relative = pattern.trim_start_matches("./");
    let mut out: Vec<String> = Vec::new();
    for name in SENSITIVE_NAMES.iter().chain(SENSITIVE_HOME) {
        if wildcard_match(&pattern, name) || (relative != pattern && wildcard_match(relative, name))
        {
            out.push((*name).to_owned());
        }
    }
    if let Some(cwd) = cwd {
        let joined = format!("{}/{relative}", cwd.display());
        out.extend(candidates().filter(|c| wildcard_match(&joined, c)));
    }
    out
}

/// A bare file name that is a secret by its spelling (`prod.env`, `id_rsa`).
fn secret_name(word: &str) -> bool {
    word.ends_with(".env")
        || word.ends_with(".pem")
        || word.ends_with(".key")
        || matches!(word, ".envrc" | ".vault-token" | "master.key")
        || word.starts_with(".env")
        || ["id_rsa", "id_ed25519", "id_ecdsa", "id_dsa", "credentials"]
            .iter()
            .any(|p| word.starts_with(p))
        || word == "identity"
}

pub(super) fn looks_like_path(word: &str) -> bool {
    secret_name(word)
        || has_byte(word, b"/")
        || word.starts_with('.')
        || word.starts_with('~')
        || super::contains_text(word, "history")
        || matches!(
            word,
            "Cookies" | "cookies.sqlite" | "Login Data" | "logins.json" | "key4.db"
        )
}

/// A system account file (a row of `path_rows::SYSTEM_ACCOUNTS`).
pub(super) fn system_accounts(path: &str) -> bool {
    path_rows::system_account_row(path).is_some()
}

/// A disk or partition device (a row of `path_rows::DISK_DEVICES`).
pub(super) fn is_disk_device(path: &str) -> bool {
    path_rows::disk_device_row(path).is_some()
}

/// A kernel tunable or trigger (a row of `path_rows::KERNEL_FILES`).
pub(super) fn is_kernel_path(path: &str) -> bool {
    path_rows::kernel_row(path).is_some()
}

/// A secret: a row of the blacklist's secret tables or of the shared list
/// (`path_rows::secret_row`), or a file named like a secret where a row
/// would also take in a folder of that name ([`secret_file_name`]).
pub(crate) fn is_secret(path: &str, home: Option<&Path>) -> bool {
    secret_file_name(path) || path_rows::secret_row(path, home).is_some()
}

/// The path a git pathspec with magic names: `.env*` of `:(glob).env*`,
/// `:(top,icase)x`, `:/x`, `:!x`, `:^x`; `None` for a word without magic.
pub(super) fn pathspec_body(word: &str) -> Option<&str> {
    let rest = word.strip_prefix(':')?;
    if let Some(long) = rest.strip_prefix('(') {
        return long.split_once(')').map(|(_, body)| body);
    }
    let body = rest.trim_start_matches(['/', '!', '^']);
    let body = body.strip_prefix(':').unwrap_or(body);
    (body.len() < rest.len() || rest.starts_with(':')).then_some(body)
}

/// Programs whose first operand is program text or a pattern, not a file
/// (`jq '.env' package.json`, `grep .env .gitignore`), unless one of the
/// options that give the program or pattern another way is used (then
/// every operand may be a file): the programs, those options' letters, and
/// their long names.
const PROGRAM_TEXT_FIRST: &[(&[&str], &str, &[&str])] = &[
    (&["jq"], "f", &["from-file"]),
    (&["grep", "egrep", "fgrep", "rg"], "ef", &["regexp", "file"]),
];

/// The index in `words` (command word first) of the operand that is
/// program text or a pattern (see [`PROGRAM_TEXT_FIRST`]), read through
/// the program table; `None` when there is none.
pub(super) fn program_text_at(words: &[String]) -> Option<usize> {
    let program = basename(words.first()?);
    let (_, letters, longs) = PROGRAM_TEXT_FIRST
        .iter()
        .find(|(programs, _, _)| programs.contains(&program))?;
    let inv = Invocation::read(words, &[]);
    let elsewhere = inv
        .options
        .iter()
        .any(|o| o.letters.chars().any(|c| letters.contains(c)) || longs.contains(&o.long));
    if elsewhere {
        return None;
    }
    inv.subcommand_at.map(|at| at + 1)
}

/// The named check behind [`is_secret`] for bare names that are also
/// common folder names: the file `credentials`, `identity` or `environ`, a
/// browser's `Cookies`, a shell's `.history`, or a `.ssh` folder itself.
/// Rows cover everything below a match (and fold case), and
/// `src/credentials/mod.rs`, `src/cookies/` or an editor's `.history/`
/// folder are no secrets, so these are read on the last component only,
/// as written.
fn secret_file_name(path: &str) -> bool {
    let name = path
        .split(['/', '\\'])
        .rfind(|c| !c.is_empty() && *c != ".")
        .unwrap_or_default();
    matches!(
        name,
        "credentials" | "identity" | "environ" | ".ssh" | "Cookies" | ".history"
    )
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    #[test]
    fn a_pathspec_s_magic_is_taken_off() {
        use super::pathspec_body;
        assert_eq!(pathspec_body(":(glob)**/.env*"), Some("**/.env*"));
        assert_eq!(pathspec_body(":(top,icase).ENV"), Some(".ENV"));
        assert_eq!(pathspec_body(":/.env"), Some(".env"));
        assert_eq!(pathspec_body(":!secrets/x"), Some("secrets/x"));
        assert_eq!(pathspec_body("::x"), Some("x"));
        assert_eq!(pathspec_body("src/a.rs"), None);
        assert_eq!(pathspec_body(":x"), None);
        assert_eq!(pathspec_body(":(glob"), None);
    }

    use super::is_lexically_clean;

    proptest! {
        /// A word the shortcut calls clean is one cleaning leaves alone.
        #[test]
        fn clean_words_are_left_as_they_are(word in "[a./~]{0,12}") {
            if is_lexically_clean(&word) {
                prop_assert_eq!(path_clean::clean(&word).display().to_string(), word);
            }
        }
    }

    #[test]
    fn words_that_cleaning_changes_are_not_clean() {
        for word in [
            "a//b", "./a", "a/./b", "a/../b", "a/", "/", "", ".", "..", "//etc",
        ] {
            assert!(!is_lexically_clean(word), "{word}");
        }
        for word in [
            "src/main.rs",
            "/etc/passwd",
            "~/.ssh/id_rsa",
            ".env",
            "a.b/c",
        ] {
            assert!(is_lexically_clean(word), "{word}");
        }
    }
}
