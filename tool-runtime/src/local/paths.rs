//! Path resolution: `~`, relative paths, and how paths are reported back.

use std::path::{Component, Path, PathBuf};

use crate::error::Result;
use crate::local::confine::Guard;

/// Resolves the paths of one call against its working directory, and
/// checks them against the call's confinement when it has one.
#[derive(Debug, Clone)]
pub(crate) struct Paths {
    cwd: PathBuf,
    home: Option<PathBuf>,
    guard: Option<Guard>,
}

/// The host's home directory (`HOME`, when set and not empty).
pub(crate) fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

impl Paths {
    pub(crate) fn new(cwd: PathBuf) -> Self {
        Self {
            cwd,
            home: home(),
            guard: None,
        }
    }

    /// The same resolver with the file wall of a confined call.
    pub(crate) fn with_guard(mut self, guard: Option<Guard>) -> Self {
        self.guard = guard;
        self
    }

    /// The call's file wall, when it runs confined.
    pub(crate) fn guard(&self) -> Option<&Guard> {
        self.guard.as_ref()
    }

    /// `given` resolved, refused when the call's confinement forbids reading it.
    pub(crate) fn readable(&self, given: &str) -> Result<PathBuf> {
        let path = self.resolve(given);
        if let Some(guard) = &self.guard {
            guard.check_read(&path, given)?;
        }
        Ok(path)
    }

    /// `given` resolved, refused when the call's confinement forbids
    /// writing (creating, replacing) it.
    pub(crate) fn writable(&self, given: &str) -> Result<PathBuf> {
        let path = self.resolve(given);
        if let Some(guard) = &self.guard {
            guard.check_write(&path, given, "written")?;
        }
        Ok(path)
    }

    /// The working directory.
    pub(crate) fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// `~` and `~/x` expanded, relative paths joined to the working directory,
    /// `.` dropped and `..` resolved the way the kernel resolves it: after
    /// following the symlinks of the part that exists (so `link/..` is the
    /// parent of the link's target, exactly what the approval crate's path
    /// audit computes), lexically past what does not exist.
    pub(crate) fn resolve(&self, given: &str) -> PathBuf {
        let expanded = match (given.strip_prefix('~'), &self.home) {
            (Some(""), Some(home)) => home.clone(),
            (Some(rest), Some(home)) if rest.starts_with('/') => {
                home.join(rest.trim_start_matches('/'))
            }
            _ => PathBuf::from(given),
        };
        let joined = if expanded.is_absolute() {
            expanded
        } else {
            self.cwd.join(expanded)
        };
        normalize(&joined)
    }

    /// How a path found by the computer (not given by the model) is reported:
    /// relative to the working directory when inside it, absolute otherwise.
    pub(crate) fn display(&self, path: &Path) -> String {
        match path.strip_prefix(&self.cwd) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".to_owned(),
            Ok(rel) => rel.to_string_lossy().into_owned(),
            Err(_) => path.to_string_lossy().into_owned(),
        }
    }
}

/// Resolves `.` and `..`. Before a `..` is applied to a prefix that exists,
/// the prefix's symlinks are resolved, as the kernel would do: a lexical
/// `link/..` would name a different directory than the one the OS opens.
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if out.symlink_metadata().is_ok()
                    && let Ok(real) = std::fs::canonicalize(&out)
                {
                    out = real;
                }
                if !out.pop() {
                    out.push(component);
                }
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_join_the_working_directory() {
        let p = Paths::new("/work/project".into());
        assert_eq!(
            p.resolve("src/lib.rs"),
            PathBuf::from("/work/project/src/lib.rs")
        );
        assert_eq!(p.resolve("./a/../b"), PathBuf::from("/work/project/b"));
        assert_eq!(p.resolve("/etc/hosts"), PathBuf::from("/etc/hosts"));
    }

    #[test]
    fn dot_dot_after_a_symlink_leaves_from_the_links_target() {
        let root = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(root.path()).unwrap();
        let cwd = root.join("work");
        std::fs::create_dir_all(cwd.join("real")).unwrap();
        std::fs::create_dir_all(root.join("elsewhere/a/b")).unwrap();
        std::os::unix::fs::symlink(root.join("elsewhere/a/b"), cwd.join("deep")).unwrap();
        let p = Paths::new(cwd.clone());
        // The kernel opens elsewhere/a/b/../.. = elsewhere, not work/.. = root.
        assert_eq!(p.resolve("deep/../.."), root.join("elsewhere"));
        assert_eq!(
            p.resolve("deep/../../secret.txt"),
            root.join("elsewhere/secret.txt")
        );
        assert_eq!(p.resolve("real/../x"), cwd.join("x"));
        assert_eq!(p.resolve("missing/../x"), cwd.join("x"));
    }

    #[test]
    fn tilde_expands_to_home() {
        let mut p = Paths::new("/w".into());
        p.home = Some("/home/me".into());
        assert_eq!(p.resolve("~"), PathBuf::from("/home/me"));
        assert_eq!(p.resolve("~/notes.md"), PathBuf::from("/home/me/notes.md"));
        assert_eq!(p.resolve("~other"), PathBuf::from("/w/~other"));
    }

    #[test]
    fn found_paths_are_shown_relative_to_the_working_directory() {
        let p = Paths::new("/w".into());
        assert_eq!(p.display(Path::new("/w/src/a.rs")), "src/a.rs");
        assert_eq!(p.display(Path::new("/w")), ".");
        assert_eq!(p.display(Path::new("/etc/x")), "/etc/x");
    }
}
