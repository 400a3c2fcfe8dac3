//! Which paths are protected and which are secret: tool-core's
//! [`PathClass`] tables plus the host's extra entries, one answer for the
//! command sandbox and the file operations alike.

use std::collections::VecDeque;
use std::path::{Component, Path, PathBuf};

use tool_core::{PathClass, PathRole};

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
            .collect();
        Ok(Self {
            home: home.map(Path::to_path_buf),
            extra_protected: options.protected_names.clone(),
            extra_secrets,
        })
    }

    /// The name of the protected class `path` (absolute, resolved) is in.
    pub(crate) fn protected(&self, path: &Path) -> Option<String> {
        if let Some(class) = PathClass::find(PathRole::Protected, path, self.home.as_deref()) {
            return Some(class.name.to_owned());
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

/// Protected and secret entries found beneath one root.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    /// Protected entries (files or directories; a directory covers its contents).
    pub(crate) protected: Vec<PathBuf>,
    /// Secret entries.
    pub(crate) secret: Vec<PathBuf>,
    /// Whether the walk stopped at its limit.
    pub(crate) truncated: bool,
}

/// Walks `root` breadth-first (symlinks not followed, protected and secret
/// directories not entered) for at most `limit` entries, collecting the
/// protected and secret entries beneath it. Unlistable directories are
/// skipped: what the host user cannot list, its commands cannot either.
pub(crate) fn scan(root: &Path, classes: &Classes, limit: usize) -> Found {
    let mut found = Found::default();
    let mut queue = VecDeque::from([root.to_path_buf()]);
    let mut seen = 0usize;
    while let Some(dir) = queue.pop_front() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            if seen >= limit {
                found.truncated = true;
                return found;
            }
            seen += 1;
            let path = entry.path();
            if classes.protected(&path).is_some() {
                found.protected.push(path);
                continue;
            }
            if classes.secret(&path).is_some() {
                found.secret.push(path);
                continue;
            }
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                queue.push_back(path);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "x").unwrap();
    }

    #[test]
    fn the_walk_finds_protected_and_secret_entries_at_any_depth() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        for rel in [
            ".git/config",
            "src/lib.rs",
            "app/.envrc",
            "app/.env.local",
            "app/.env.example",
            "ci/.github/workflows/x.yml",
            "deep/a/b/conftest.py",
            "infra/prod.tfstate",
        ] {
            write(&root, rel);
        }
        let classes = Classes::new(&SandboxOptions::default(), None).unwrap();
        let mut found = scan(&root, &classes, 1000);
        found.protected.sort();
        found.secret.sort();
        assert_eq!(
            found.protected,
            vec![
                root.join(".git"),
                root.join("app/.envrc"),
                root.join("ci/.github/workflows"),
                root.join("deep/a/b/conftest.py"),
            ]
        );
        assert_eq!(
            found.secret,
            vec![root.join("app/.env.local"), root.join("infra/prod.tfstate")]
        );
        assert!(!found.truncated);
    }

    #[test]
    fn the_walk_stops_at_its_limit_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..10 {
            write(dir.path(), &format!("f{i}"));
        }
        let classes = Classes::new(&SandboxOptions::default(), None).unwrap();
        assert!(scan(dir.path(), &classes, 5).truncated);
        assert!(!scan(dir.path(), &classes, 10).truncated);
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
