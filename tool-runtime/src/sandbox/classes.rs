//! Which paths are protected and which are secret: tool-core's
//! [`PathClass`] tables plus the host's extra entries, one answer for the
//! command sandbox and the file operations alike.

use std::collections::HashMap;
use std::hash::{Hash as _, Hasher as _};
use std::path::{Component, Path, PathBuf};
use std::sync::{Mutex, MutexGuard, OnceLock};

use tool_core::approval::{PathClass, PathRole};

use crate::error::{Error, Result};
use crate::sandbox::policy::SandboxOptions;

/// The classification of paths for one call.
#[derive(Debug, Clone)]
pub(crate) struct Classes {
    home: Option<PathBuf>,
    /// Extra protected entry names (any depth, ASCII case-insensitive).
    extra_protected: Vec<String>,
    /// Extra secret locations (expanded, canonical where they exist).
    extra_secrets: Vec<PathBuf>,
    /// A hash of the three above: the key of this configuration's answers
    /// in the memo of [`Classes::kinds`].
    key: u64,
}

/// Whether an entry is protected and whether it is secret (see
/// [`Classes::kinds`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Kinds {
    /// In a protected class.
    pub(crate) protected: bool,
    /// In a secret class.
    pub(crate) secret: bool,
}

/// Answers the memo of [`Classes::kinds`] holds at most; then it starts
/// over (a bound on its memory, not a cache policy: every answer stays
/// right forever).
const MEMO_ENTRIES: usize = 1 << 16;

/// The memo of [`Classes::kinds`]: configuration key and path to answer.
fn memo() -> MutexGuard<'static, HashMap<(u64, PathBuf), Kinds>> {
    static MEMO: OnceLock<Mutex<HashMap<(u64, PathBuf), Kinds>>> = OnceLock::new();
    MEMO.get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

impl Classes {
    /// The classes of `options`, `~` meaning `home`. Refuses an extra
    /// protected name that is not one plain entry name.
    pub(crate) fn new(options: &SandboxOptions, home: Option<&Path>) -> Result<Self> {
        for name in &options.protected_names {
            if name.is_empty() || name.contains('/') || name == "." || name == ".." {
                return Err(Error::SandboxSetup {
                    path: PathBuf::from(name),
                    message: "a protected name must be one plain entry name".to_owned(),
                });
            }
        }
        let extra_secrets = options
            .expanded_secrets(home)
            .into_iter()
            .map(|p| std::fs::canonicalize(&p).unwrap_or(p))
            .collect::<Vec<PathBuf>>();
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        home.hash(&mut hasher);
        options.protected_names.hash(&mut hasher);
        extra_secrets.hash(&mut hasher);
        Ok(Self {
            home: home.map(Path::to_path_buf),
            extra_protected: options.protected_names.clone(),
            extra_secrets,
            key: hasher.finish(),
        })
    }

    /// Whether `path` (absolute, resolved) is protected and whether it is
    /// secret, remembered for this configuration. Both answers are lexical
    /// (the path and the classes, never the file system), so a remembered
    /// one never goes stale; the sandbox asks them for the same entries at
    /// every command (the listings before and after it), and each costs a
    /// match against every pattern of every class.
    pub(crate) fn kinds(&self, path: &Path) -> Kinds {
        let key = (self.key, path.to_path_buf());
        if let Some(kinds) = memo().get(&key) {
            return *kinds;
        }
        let kinds = Kinds {
            protected: self.protected(path).is_some(),
            secret: self.secret(path).is_some(),
        };
        let mut memo = memo();
        if memo.len() >= MEMO_ENTRIES {
            memo.clear();
        }
        memo.insert(key, kinds);
        kinds
    }

    /// The home `~` means.
    pub(crate) fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    /// The name of the protected class `path` (absolute, resolved) is in.
    ///
    /// Inside a git directory only the parts that make git run code or
    /// change where it reads from are protected (see [`git_code_part`]):
    /// the index, objects, refs and logs are git's own work.
    pub(crate) fn protected(&self, path: &Path) -> Option<String> {
        let home = self.home.as_deref();
        if let Some(class) = PathClass::find(PathRole::Protected, path, home) {
            if class.name != GIT_CLASS || git_code_part(path) {
                return Some(class.name.to_owned());
            }
            if let Some(other) = PathClass::of_role(PathRole::Protected)
                .filter(|c| c.name != GIT_CLASS)
                .find(|c| c.matches(path, home))
            {
                return Some(other.name.to_owned());
            }
        }
        let hit = path.components().any(|c| match c {
            Component::Normal(part) => self
                .extra_protected
                .iter()
                .any(|n| part.to_string_lossy().eq_ignore_ascii_case(n)),
            _ => false,
        });
        hit.then(|| "host-protected".to_owned())
    }

    /// The name of the secret class `path` (absolute, resolved) is in.
    pub(crate) fn secret(&self, path: &Path) -> Option<String> {
        if let Some(class) = PathClass::find(PathRole::Secret, path, self.home.as_deref()) {
            return Some(class.name.to_owned());
        }
        self.extra_secrets
            .iter()
            .any(|s| path.starts_with(s))
            .then(|| "host-secret".to_owned())
    }

    /// The fixed secret locations: every secret class's fixed locations
    /// and the extra secret paths (existing or not).
    pub(crate) fn fixed_secrets(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = PathClass::of_role(PathRole::Secret)
            .flat_map(|c| c.fixed_locations(self.home.as_deref()))
            .collect();
        out.extend(self.extra_secrets.iter().cloned());
        out
    }
}

/// The path class of version-control metadata.
const GIT_CLASS: &str = "vcs-metadata";

/// The entries of a git directory that make git run code or change where
/// it reads from: read-only under confinement. Everything else in a git
/// directory (index, objects, refs, logs, `COMMIT_EDITMSG`, …) is written
/// by ordinary git commands.
pub(crate) const GIT_CODE_PARTS: [&str; 6] = [
    "config",
    "config.worktree",
    "hooks",
    "info",
    "commondir",
    "gitdir",
];

/// Whether `path` is a protected part of a version-control directory: the
/// directory itself, anything in a `.hg`, `.svn` or `.jj`, and in a `.git`
/// the [`GIT_CODE_PARTS`], also inside `modules/…` (submodules' git
/// directories, whose names may hold `/`) and `worktrees/<name>/`.
pub(crate) fn git_code_part(path: &Path) -> bool {
    let parts: Vec<String> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(p) => Some(p.to_string_lossy().to_ascii_lowercase()),
            _ => None,
        })
        .collect();
    let Some(at) = parts.iter().rposition(|p| p == ".git") else {
        // Another version-control system's metadata: protected whole.
        return true;
    };
    let inner = &parts[at + 1..];
    let is_code = |p: &String| GIT_CODE_PARTS.contains(&p.as_str());
    match inner {
        [] => true,
        [first, rest @ ..] if first == "modules" => rest.is_empty() || rest.iter().any(is_code),
        [first, _name, rest @ ..] if first == "worktrees" => rest.first().is_none_or(is_code),
        [first, ..] => is_code(first),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inside_a_git_directory_only_the_code_parts_are_protected() {
        let classes = Classes::new(&SandboxOptions::default(), None).unwrap();
        for yes in [
            "/w/.git",
            "/w/.git/config",
            "/w/.git/hooks/pre-commit",
            "/w/.git/info/attributes",
            "/w/.git/modules/lib/a/config",
            "/w/.git/modules/lib/hooks/x",
            "/w/.git/worktrees/wt/commondir",
            "/w/.git/worktrees/wt",
            "/w/.hg/hgrc",
            "/w/.hg/store/data",
        ] {
            assert!(classes.protected(Path::new(yes)).is_some(), "{yes}");
        }
        for no in [
            "/w/.git/index",
            "/w/.git/index.lock",
            "/w/.git/objects/ab/cdef",
            "/w/.git/refs/heads/main.lock",
            "/w/.git/logs/HEAD",
            "/w/.git/modules/lib/objects/x",
            "/w/.git/worktrees/wt/index",
        ] {
            assert!(classes.protected(Path::new(no)).is_none(), "{no}");
        }
    }

    #[test]
    fn extra_names_and_secrets_add_to_the_classes() {
        let options = SandboxOptions {
            protected_names: vec![".myhooks".into()],
            secret_paths: vec![PathBuf::from("/srv/vault")],
            ..SandboxOptions::default()
        };
        let classes = Classes::new(&options, Some(Path::new("/home/ada"))).unwrap();
        assert!(classes.protected(Path::new("/w/sub/.MYHOOKS/x")).is_some());
        assert!(classes.protected(Path::new("/w/.GIT/config")).is_some());
        assert!(classes.secret(Path::new("/srv/vault/key")).is_some());
        assert!(classes.secret(Path::new("/home/ada/.ssh/id_rsa")).is_some());
        assert!(classes.secret(Path::new("/w/src/main.rs")).is_none());
        assert!(
            classes
                .fixed_secrets()
                .contains(&PathBuf::from("/home/ada/.ssh"))
        );
        let bad = SandboxOptions {
            protected_names: vec!["a/b".into()],
            ..SandboxOptions::default()
        };
        assert!(Classes::new(&bad, None).is_err());
    }
}
