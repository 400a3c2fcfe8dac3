//! A repository a confined command created (`git init`, `cargo new`)
//! keeps its `.git`, but what the command wrote into its code parts
//! during that same run must not reach the user: once the command has
//! ended, the settings of its `config` that make git run a program or
//! read settings from elsewhere ([`CODE_KEYS`]) are taken out (the
//! original is kept in the quarantine folder), and its hooks (anything in
//! `hooks/` but git's own `*.sample` files) are moved into the
//! quarantine folder. Both are reported in `protectedCreated`. From the
//! next command on, the repository's code parts are read-only like any
//! other's.

use std::path::Path;

/// The settings of a git configuration that make git run a program, or
/// read settings or hooks from elsewhere: `section.key`, with `*` for a
/// subsection (`filter.*.smudge`) or any key of the section (`alias.*`).
/// Matched ASCII case-insensitively. Examples are checked by the module's
/// tests.
pub(crate) const CODE_KEYS: &[&str] = &[
    // Run on every `git status` (and by shell prompts showing it).
    "core.fsmonitor",
    "core.hookspath",
    "core.sshcommand",
    "core.pager",
    "core.editor",
    "core.askpass",
    "core.gitproxy",
    "core.worktree",
    "sequence.editor",
    "diff.external",
    "diff.*.textconv",
    "diff.*.command",
    "merge.*.driver",
    "filter.*.clean",
    "filter.*.smudge",
    "filter.*.process",
    "credential.helper",
    "credential.*.helper",
    "gpg.program",
    "gpg.*.program",
    "uploadpack.packobjectshook",
    "remote.*.uploadpack",
    "remote.*.receivepack",
    "remote.*.vcs",
    "pager.*",
    "alias.*",
    "web.browser",
    "browser.*.cmd",
    "man.*.cmd",
    "difftool.*.cmd",
    "mergetool.*.cmd",
    "instaweb.httpd",
    "sendemail.*",
    "include.path",
    "includeif.*.path",
];

/// Whether `section.sub.key` (any case) is one of [`CODE_KEYS`].
fn is_code_key(section: &str, sub: Option<&str>, key: &str) -> bool {
    CODE_KEYS.iter().any(|pattern| {
        let parts: Vec<&str> = pattern.split('.').collect();
        match (parts.as_slice(), sub) {
            ([s, k], None) => {
                s.eq_ignore_ascii_case(section) && (*k == "*" || k.eq_ignore_ascii_case(key))
            }
            ([s, "*"], Some(_)) => s.eq_ignore_ascii_case(section),
            ([s, "*", k], Some(_)) => {
                s.eq_ignore_ascii_case(section) && k.eq_ignore_ascii_case(key)
            }
            _ => false,
        }
    })
}

/// The text of a git configuration without its [`CODE_KEYS`] settings
/// (and their continuation lines), and the keys taken out.
pub(crate) fn without_code_keys(text: &str) -> (String, Vec<String>) {
    let mut out = String::with_capacity(text.len());
    let mut removed = Vec::new();
    let (mut section, mut sub) = (String::new(), None::<String>);
    let mut skipping = false;
    for line in text.split_inclusive('\n') {
        if skipping {
            skipping = line.trim_end().ends_with('\\');
            continue;
        }
        let trimmed = line.trim_start();
        let mut rest = trimmed;
        if let Some(header) = trimmed.strip_prefix('[') {
            let Some((inside, after)) = header.split_once(']') else {
                out.push_str(line);
                continue;
            };
            let inside = inside.trim();
            match inside.split_once(|c: char| c.is_whitespace()) {
                Some((s, q)) => {
                    section = s.to_owned();
                    sub = Some(q.trim().trim_matches('"').to_owned());
                }
                None => match inside.split_once('.') {
                    // The old `[section.sub]` form.
                    Some((s, q)) => {
                        section = s.to_owned();
                        sub = Some(q.to_owned());
                    }
                    None => {
                        section = inside.to_owned();
                        sub = None;
                    }
                },
            }
            // A setting may follow the header on the same line.
            rest = after.trim_start();
            if rest.is_empty() || rest.starts_with(['#', ';']) {
                out.push_str(line);
                continue;
            }
        }
        let key = rest
            .split(['=', ' ', '\t', '\r', '\n'])
            .next()
            .unwrap_or("");
        if !key.is_empty()
            && !key.starts_with(['#', ';'])
            && is_code_key(&section, sub.as_deref(), key)
        {
            let name = match &sub {
                Some(q) => format!("{section}.{q}.{key}"),
                None => format!("{section}.{key}"),
            };
            removed.push(name.to_ascii_lowercase());
            skipping = line.trim_end().ends_with('\\');
            if rest.len() != trimmed.len() {
                // Keep the header of a `[section] key = …` line.
                let header_len = line.len() - rest.len();
                out.push_str(&line[..header_len]);
                out.push('\n');
            }
            continue;
        }
        out.push_str(line);
    }
    (out, removed)
}

/// The hooks in a git directory's `hooks/` that git would run: every
/// entry but git's own `*.sample` files.
pub(crate) fn live_hooks(git_dir: &Path) -> Vec<std::path::PathBuf> {
    let hooks = git_dir.join("hooks");
    // A `hooks` that is not a folder (a symlink to one elsewhere: git
    // would run what is there) is itself what goes; it is never followed,
    // so nothing outside the sandbox is listed or moved.
    match hooks.symlink_metadata() {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => return vec![hooks],
        Err(_) => return Vec::new(),
    }
    let Ok(entries) = std::fs::read_dir(&hooks) else {
        return Vec::new();
    };
    let mut out: Vec<_> = entries
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().ends_with(".sample"))
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_running_keys_are_taken_out_and_the_rest_kept() {
        let text = "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = touch planted\n\tbare = false\n\
            [core] hooksPath = elsewhere\n\
            [filter \"lfs\"]\n\tsmudge = x %f \\\n  continued\n\trequired = true\n\
            [alias]\n\tst = status\n\
            [remote \"origin\"]\n\turl = https://example.invalid/r.git\n\tuploadpack = x\n\
            [includeIf \"gitdir:/\"]\n\tpath = /elsewhere/config\n\
            [core.other]\n\tfoo = 1\n\
            [user]\n\tname = T\n# sshCommand = comment\n";
        let (kept, removed) = without_code_keys(text);
        for gone in [
            "planted",
            "elsewhere",
            "continued",
            "st = status",
            "uploadpack",
            "gitdir:/\"]\n\tpath",
        ] {
            assert!(!kept.contains(gone), "{gone} in {kept}");
        }
        for stays in [
            "repositoryformatversion = 0",
            "bare = false",
            "required = true",
            "url = https://example.invalid/r.git",
            "name = T",
            "[core]",
            "# sshCommand = comment",
            "foo = 1",
        ] {
            assert!(kept.contains(stays), "{stays} not in {kept}");
        }
        assert_eq!(
            removed,
            [
                "core.fsmonitor",
                "core.hookspath",
                "filter.lfs.smudge",
                "alias.st",
                "remote.origin.uploadpack",
                "includeif.gitdir:/.path"
            ]
        );
        let (same, none) = without_code_keys("[core]\n\tbare = false\n");
        assert_eq!(same, "[core]\n\tbare = false\n");
        assert!(none.is_empty());
    }

    #[test]
    fn every_code_key_pattern_is_well_formed() {
        for pattern in CODE_KEYS {
            let parts: Vec<&str> = pattern.split('.').collect();
            assert!(matches!(parts.len(), 2 | 3), "{pattern}");
            assert!(parts.iter().all(|p| !p.is_empty()), "{pattern}");
            assert_eq!(pattern.to_ascii_lowercase(), *pattern, "{pattern}");
        }
    }
}
