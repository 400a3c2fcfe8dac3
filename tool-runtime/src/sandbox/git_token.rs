//! The git configuration files outside the workspace's git directories
//! that hold a CI token (`http.*.extraheader`), so that a confined command
//! sees them without it, like the `config` of a git directory found (the
//! private `entries` module).
//!
//! Examined: the configuration of each git directory found, the user's
//! (`~/.gitconfig`, `$XDG_CONFIG_HOME/git/config` or
//! `~/.config/git/config`, `$GIT_CONFIG_GLOBAL`), the system's
//! (`/etc/gitconfig`, `$GIT_CONFIG_SYSTEM`), and every file these reach by
//! `include.path` or `includeIf.*.path`, whatever the condition (a token
//! withheld where git would not have read it costs nothing), followed up
//! to [`MAX_DEPTH`] levels and [`MAX_FILES`] files as git does: `~/` is
//! the home, a relative path is relative to the including file's folder.
//! Each file is named by its real path (a symlinked `~/.gitconfig` is
//! replaced where it really is). A hidden home's files stay unreadable:
//! the copy bound over one is reached through the hidden folder.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use crate::sandbox::entries::is_extraheader_line;

/// Levels of includes followed (git stops at 10).
const MAX_DEPTH: usize = 10;
/// Configuration files examined at most.
const MAX_FILES: usize = 48;
/// Bytes of one configuration file read at most.
const MAX_BYTES: u64 = 1 << 20;

/// The configuration files reachable from `git_dirs` (their `config`),
/// the user's and the system's, that set an `extraheader`, by real path.
pub(crate) fn with_extraheader(git_dirs: &[PathBuf], home: Option<&Path>) -> Vec<PathBuf> {
    let env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let mut start: Vec<PathBuf> = git_dirs.iter().map(|d| d.join("config")).collect();
    if let Some(home) = home {
        start.push(home.join(".gitconfig"));
    }
    match (env("XDG_CONFIG_HOME"), home) {
        (Some(xdg), _) => start.push(PathBuf::from(xdg).join("git/config")),
        (None, Some(home)) => start.push(home.join(".config/git/config")),
        (None, None) => {}
    }
    start.extend(env("GIT_CONFIG_GLOBAL").map(PathBuf::from));
    start.push(PathBuf::from("/etc/gitconfig"));
    start.extend(env("GIT_CONFIG_SYSTEM").map(PathBuf::from));
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut found = Vec::new();
    let mut queue: std::collections::VecDeque<(PathBuf, usize)> =
        start.into_iter().map(|p| (p, 0)).collect();
    while let Some((path, depth)) = queue.pop_front() {
        if seen.len() >= MAX_FILES {
            break;
        }
        let Ok(real) = std::fs::canonicalize(&path) else {
            continue;
        };
        if seen.contains(&real) || !real.is_file() {
            continue;
        }
        seen.push(real.clone());
        let Some(text) = read(&real) else {
            continue;
        };
        if text.lines().any(is_extraheader_line) {
            found.push(real.clone());
        }
        if depth < MAX_DEPTH {
            let dir = real.parent().unwrap_or(Path::new("/"));
            for include in includes(&text) {
                let target = match (include.strip_prefix("~/"), home) {
                    (Some(rest), Some(home)) => home.join(rest),
                    (Some(_), None) => continue,
                    (None, _) => dir.join(&include),
                };
                queue.push_back((target, depth + 1));
            }
        }
    }
    found
}

/// The copies among `replacements` (copy, file replaced) that the
/// command may read (beneath `read`, the plan's read and write rules, and
/// not beneath `excluded`): a copy bound over a file is a mount root, which
/// Landlock judges by the copy's own rules and then the folder above, not
/// by the replaced file's rule, so each copy of a file the plan lets the
/// command read gets a read rule of its own (a hidden home's others stay
/// hidden).
#[cfg(target_os = "linux")]
pub(crate) fn readable_copies(
    (read, excluded): (&[PathBuf], &[PathBuf]),
    replacements: &[(std::ffi::CString, std::ffi::CString)],
) -> Vec<PathBuf> {
    use std::os::unix::ffi::OsStrExt as _;
    let path = |c: &std::ffi::CString| PathBuf::from(std::ffi::OsStr::from_bytes(c.to_bytes()));
    replacements
        .iter()
        .filter(|(_, target)| {
            let target = path(target);
            read.iter().any(|r| target.starts_with(r))
                && !excluded.iter().any(|e| target.starts_with(e))
        })
        .map(|(copy, _)| path(copy))
        .collect()
}

fn read(path: &Path) -> Option<String> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(MAX_BYTES)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// The `path` values of the `[include]` and `[includeIf "…"]` sections of
/// a configuration text.
fn includes(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_include = false;
    for line in text.lines() {
        let mut line = line.trim();
        if let Some(rest) = line.strip_prefix('[') {
            let Some(end) = rest.find(']') else {
                in_include = false;
                continue;
            };
            let name = rest[..end]
                .split([' ', '\t', '"', '.'])
                .next()
                .unwrap_or("");
            in_include =
                name.eq_ignore_ascii_case("include") || name.eq_ignore_ascii_case("includeif");
            // `[include] path = x` on one line.
            line = rest[end + 1..].trim();
        }
        if !in_include {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if !key.trim().eq_ignore_ascii_case("path") {
            continue;
        }
        let value = value.trim();
        let value = match value.strip_prefix('"') {
            Some(quoted) => quoted.split('"').next().unwrap_or(""),
            None => value.split(['#', ';']).next().unwrap_or("").trim(),
        };
        if !value.is_empty() {
            out.push(value.to_owned());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn include_paths_are_read_from_include_and_include_if_sections() {
        let text = "[core]\n\tpath = not-this\n[include]\n\tpath = a.cfg\n[includeIf \"gitdir:/x/\"]\n\tPath = \"b c.cfg\" ; note\n[includeif \"onbranch:main\"] path = ~/d.cfg # c\n[user]\n\tpath = nor-this\n";
        assert_eq!(includes(text), ["a.cfg", "b c.cfg", "~/d.cfg"]);
    }

    #[test]
    fn tokens_in_the_home_config_and_in_included_files_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let home = root.join("home");
        let git = root.join("ws/.git");
        std::fs::create_dir_all(&git).unwrap();
        std::fs::create_dir_all(home.join("dotfiles")).unwrap();
        let header = "\textraheader = AUTHORIZATION: basic fake-token\n";
        std::fs::write(
            git.join("config"),
            "[core]\n[include]\n\tpath = ../../shared.cfg\n",
        )
        .unwrap();
        std::fs::write(
            root.join("shared.cfg"),
            format!("[http]\n{header}[includeIf \"gitdir:/nowhere/\"]\n\tpath = ~/deep.cfg\n"),
        )
        .unwrap();
        std::fs::write(home.join("deep.cfg"), format!("[http]\n{header}")).unwrap();
        std::fs::write(
            home.join("dotfiles/gitconfig"),
            format!("[http \"https://x.invalid/\"]\n{header}[include]\n\tpath = loop.cfg\n"),
        )
        .unwrap();
        std::fs::write(
            home.join("dotfiles/loop.cfg"),
            "[include]\n\tpath = gitconfig\n",
        )
        .unwrap();
        std::os::unix::fs::symlink("dotfiles/gitconfig", home.join(".gitconfig")).unwrap();
        let mut found = with_extraheader(std::slice::from_ref(&git), Some(&home));
        found.retain(|p| p.starts_with(&root));
        found.sort();
        assert_eq!(
            found,
            [
                home.join("deep.cfg"),
                home.join("dotfiles/gitconfig"),
                root.join("shared.cfg"),
            ]
        );
    }
}
