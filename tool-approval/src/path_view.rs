//! Where a path really points, seen through a [`PathView`] of the filesystem.
//!
//! Path arguments are judged by where they lead after `~`, `.`/`..` and
//! symlinks, so resolution needs to look at the filesystem. It does so only
//! through the small [`PathView`] trait: [`RealFs`] reads the real one
//! (`std::fs`), and a test can hand in an in-memory view, so the path-scope
//! policy is testable without I/O.

use std::fmt;
use std::path::{Component, Path, PathBuf};

/// What a [`PathView`] finds at a path, without following a final symlink.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum PathEntry {
    /// Nothing is there.
    Missing,
    /// A symbolic link (dangling or not).
    Link,
    /// A file, a directory or anything else that is not a link.
    Other,
}

/// The filesystem lookups path resolution needs.
pub trait PathView: Send + Sync + fmt::Debug {
    /// What is at `path`, not following a final symlink (`lstat`).
    fn entry(&self, path: &Path) -> PathEntry;
    /// `path` with every symlink followed, or `None` when that fails (a
    /// missing component, a dangling link, a loop).
    fn canonicalize(&self, path: &Path) -> Option<PathBuf>;
    /// The target of the symlink at `path`, as stored.
    fn read_link(&self, path: &Path) -> Option<PathBuf>;
}

/// The real filesystem, through `std::fs`.
#[derive(Debug, Clone, Copy, Default)]
pub struct RealFs;

impl PathView for RealFs {
    fn entry(&self, path: &Path) -> PathEntry {
        match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.file_type().is_symlink() => PathEntry::Link,
            Ok(_) => PathEntry::Other,
            Err(_) => PathEntry::Missing,
        }
    }

    fn canonicalize(&self, path: &Path) -> Option<PathBuf> {
        dunce::canonicalize(path).ok()
    }

    fn read_link(&self, path: &Path) -> Option<PathBuf> {
        std::fs::read_link(path).ok()
    }
}

/// Expands `~`/`$HOME`, drops any glob tail, joins onto `cwd` and resolves
/// the result with [`real_path`], on the real filesystem.
pub(crate) fn resolve_path(raw: &str, cwd: &Path, home: Option<&Path>) -> Option<PathBuf> {
    resolve_path_in(&RealFs, raw, cwd, home)
}

/// [`resolve_path`] through `view`.
pub(crate) fn resolve_path_in(
    view: &dyn PathView,
    raw: &str,
    cwd: &Path,
    home: Option<&Path>,
) -> Option<PathBuf> {
    // `file:///etc/passwd` is `/etc/passwd` to a tool that accepts URLs.
    let raw = raw.strip_prefix("file://").unwrap_or(raw);
    let raw = glob_base(raw);
    let joined = if raw == "~" || raw.starts_with("~/") {
        home?.join(raw.get(2..).unwrap_or_default())
    } else if raw.starts_with('~') {
        return None;
    } else if let Some(rest) = raw
        .strip_prefix("$HOME")
        .or_else(|| raw.strip_prefix("${HOME}"))
        .filter(|r| r.is_empty() || r.starts_with('/'))
    {
        home?.join(rest.trim_start_matches('/'))
    } else {
        cwd.join(raw)
    };
    Some(real_path_in(view, &joined))
}

/// Whether `raw` resolves (through `view`) inside `cwd`'s real location.
pub(crate) fn stays_inside(
    view: &dyn PathView,
    raw: &str,
    cwd: &Path,
    home: Option<&Path>,
) -> bool {
    let root = real_path_in(view, &absolute(cwd));
    resolve_path_in(view, raw, &root, home).is_some_and(|r| r.starts_with(&root))
}

/// `path` made absolute against the process's directory (no lookups).
pub(crate) fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The part of a glob before its first wildcard component (`/etc/**/x` → `/etc`).
fn glob_base(raw: &str) -> &str {
    match raw.find(['*', '?', '[', '{']) {
        Some(i) => match raw.get(..i).and_then(|head| head.rfind('/')) {
            Some(0) => "/",
            Some(slash) => raw.get(..slash).unwrap_or(raw),
            None => ".",
        },
        None => raw,
    }
}

/// Resolves `path` one component at a time: `.` is dropped, `..` goes up
/// from where the previous components really led (after symlinks), and every
/// existing component is canonicalised. Components that do not exist are
/// kept as written, so a path to a new file still resolves. Reads the real
/// filesystem; [`real_path_in`] takes a [`PathView`].
pub(crate) fn real_path(path: &Path) -> PathBuf {
    real_path_in(&RealFs, path)
}

/// [`real_path`] through `view`.
pub(crate) fn real_path_in(view: &dyn PathView, path: &Path) -> PathBuf {
    real_path_within(view, path, 0)
}

/// How many dangling links [`real_path`] follows by hand before it stops.
const MAX_LINK_HOPS: usize = 40;

/// Paths longer than this are not looked up (the OS refuses them too):
/// the rest of such a path is read lexically.
const MAX_LOOKUP_BYTES: usize = 4096;

fn real_path_within(view: &dyn PathView, path: &Path, hops: usize) -> PathBuf {
    let mut current = PathBuf::new();
    // Below a missing entry nothing exists: the rest is joined without
    // asking the file system, until a `..` climbs back out. (Asking for
    // every prefix of a long word, `s/a/b/;s/a/b/;…`, was quadratic.)
    let mut missing = false;
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir => {
                current.push(component.as_os_str());
                missing = false;
            }
            Component::CurDir => {}
            Component::ParentDir => {
                current.pop();
                missing = false;
            }
            Component::Normal(part) if missing => current.push(part),
            Component::Normal(part) => {
                let candidate = current.join(part);
                if candidate.as_os_str().len() > MAX_LOOKUP_BYTES {
                    missing = true;
                    current = candidate;
                    continue;
                }
                current = match view.entry(&candidate) {
                    PathEntry::Missing => {
                        missing = true;
                        candidate
                    }
                    entry => match view.canonicalize(&candidate) {
                        Some(real) => real,
                        // A dangling link: writing through it creates its
                        // target, so the target is where the path points.
                        None if entry == PathEntry::Link && hops < MAX_LINK_HOPS => {
                            match view.read_link(&candidate) {
                                Some(target) => {
                                    real_path_within(view, &current.join(target), hops + 1)
                                }
                                None => candidate,
                            }
                        }
                        None => candidate,
                    },
                };
            }
        }
    }
    if current.as_os_str().is_empty() {
        current.push(".");
    }
    current
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_patterns_are_judged_by_their_base() {
        assert_eq!(glob_base("/etc/**/x"), "/etc");
        assert_eq!(glob_base("/*"), "/");
        assert_eq!(glob_base("*.rs"), ".");
        assert_eq!(glob_base("src/a.rs"), "src/a.rs");
    }
}
