//! `pathScopeAudit`: flags a call whose path arguments leave the working directory.
//!
//! Every path argument ([`path_arguments`](crate::path_arguments)) is
//! resolved against the working directory from the host's [`ToolContext`]
//! (never from the arguments), `~` and `$HOME` are expanded, `.`/`..` and
//! repeated or trailing slashes are normalised, and symlinks are resolved for
//! the part of the path that exists, in order, so that `link/../x` follows
//! the link first as the kernel would; a dangling link counts as its target
//! (writing through it creates that file). A path that resolves outside the
//! (real) working directory flags the call.
//!
//! No working directory in the context means the audit passes. Temp
//! directories are not exempt unless [`PathScopeAudit::allow_temp_dirs`] is
//! set; the exemption compares real paths, so a link into `/tmp` that points
//! elsewhere is not exempt.

use std::path::{Component, Path, PathBuf};

use crate::audit::{AuditInput, AuditVerdict, DynamicAudit};

/// The dynamic audit's type string (tool-core's constant).
pub use tool_core::PATH_SCOPE_AUDIT;

/// The path-scope dynamic audit. See the module docs.
#[derive(Debug, Clone)]
pub struct PathScopeAudit {
    allow_temp: bool,
    home: Option<PathBuf>,
}

impl Default for PathScopeAudit {
    fn default() -> Self {
        Self::new()
    }
}

impl PathScopeAudit {
    /// The audit with no temp exemption and `~` taken from `$HOME`.
    pub fn new() -> Self {
        Self {
            allow_temp: false,
            home: std::env::var_os("HOME").map(PathBuf::from),
        }
    }

    /// Lets paths whose real location is under `/tmp`, `/var/tmp` or the
    /// system temp directory pass (off by default).
    pub fn allow_temp_dirs(mut self, allow: bool) -> Self {
        self.allow_temp = allow;
        self
    }

    /// Sets the directory `~` stands for (`None`: `~` paths are always flagged).
    pub fn home(mut self, home: Option<PathBuf>) -> Self {
        self.home = home;
        self
    }

    /// Where `raw` really points, seen from `cwd`; `None` when it cannot be
    /// known (`~user`, or `~` without a home directory).
    pub fn resolve(&self, raw: &str, cwd: &Path) -> Option<PathBuf> {
        resolve_path(raw, cwd, self.home.as_deref())
    }

    /// Whether `raw` stays inside `cwd` (or an exempt temp directory).
    pub fn is_in_scope(&self, raw: &str, cwd: &Path) -> bool {
        let root = real_path(&absolute(cwd));
        let Some(resolved) = self.resolve(raw, &root) else {
            return false;
        };
        if resolved.starts_with(&root) {
            return true;
        }
        self.allow_temp && temp_roots().iter().any(|t| resolved.starts_with(t))
    }

    fn check(&self, input: &AuditInput<'_>, cwd: &Path) -> AuditVerdict {
        let root = real_path(&absolute(cwd));
        for found in input.paths() {
            let Some(raw) = found.as_str() else {
                return AuditVerdict::Flag {
                    rule: format!("{PATH_SCOPE_AUDIT}:{}", found.pointer),
                    message: format!(
                        "the path argument at {} is not a string and cannot be judged",
                        found.pointer
                    ),
                };
            };
            let resolved = self.resolve(raw, &root);
            let inside = resolved.as_ref().is_some_and(|r| {
                r.starts_with(&root)
                    || (self.allow_temp && temp_roots().iter().any(|t| r.starts_with(t)))
            });
            if !inside {
                let shown = resolved
                    .map(|r| r.display().to_string())
                    .unwrap_or_else(|| "an unknown location".into());
                return AuditVerdict::Flag {
                    rule: format!("{PATH_SCOPE_AUDIT}:{}", found.pointer),
                    message: format!(
                        "`{raw}` (at {}) resolves to {shown}, outside the working directory {}",
                        found.pointer,
                        root.display()
                    ),
                };
            }
        }
        AuditVerdict::Pass
    }
}

impl DynamicAudit for PathScopeAudit {
    fn kind(&self) -> &str {
        PATH_SCOPE_AUDIT
    }

    fn audit(&self, input: &AuditInput<'_>) -> AuditVerdict {
        match input.ctx.cwd() {
            Some(cwd) => self.check(input, cwd),
            None => AuditVerdict::Pass,
        }
    }
}

fn temp_roots() -> Vec<PathBuf> {
    let mut roots = vec![
        PathBuf::from("/tmp"),
        PathBuf::from("/var/tmp"),
        std::env::temp_dir(),
    ];
    for root in &mut roots {
        *root = real_path(root);
    }
    roots
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Expands `~`/`$HOME`, drops any glob tail, joins onto `cwd` and resolves
/// the result with [`real_path`].
pub fn resolve_path(raw: &str, cwd: &Path, home: Option<&Path>) -> Option<PathBuf> {
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
    Some(real_path(&joined))
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
/// kept as written, so a path to a new file still resolves.
pub fn real_path(path: &Path) -> PathBuf {
    real_path_within(path, 0)
}

/// How many dangling links [`real_path`] follows by hand before it stops.
const MAX_LINK_HOPS: usize = 40;

fn real_path_within(path: &Path, hops: usize) -> PathBuf {
    let mut current = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir => current.push(component.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                current.pop();
            }
            Component::Normal(part) => {
                let candidate = current.join(part);
                current = match std::fs::symlink_metadata(&candidate) {
                    Ok(meta) => match dunce::canonicalize(&candidate) {
                        Ok(real) => real,
                        // A dangling link: writing through it creates its
                        // target, so the target is where the path points.
                        Err(_) if meta.file_type().is_symlink() && hops < MAX_LINK_HOPS => {
                            match std::fs::read_link(&candidate) {
                                Ok(target) => real_path_within(&current.join(target), hops + 1),
                                Err(_) => candidate,
                            }
                        }
                        Err(_) => candidate,
                    },
                    Err(_) => candidate,
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
    fn dot_dot_cannot_climb_out() {
        let audit = PathScopeAudit::new().home(None);
        let cwd = Path::new("/nonexistent-root/work");
        assert!(audit.is_in_scope("a/b/../c", cwd));
        assert!(!audit.is_in_scope("a/../../x", cwd));
        assert!(!audit.is_in_scope("/etc/passwd", cwd));
        assert!(audit.is_in_scope("./a//b///", cwd));
        assert!(
            !audit.is_in_scope("../work2/x", cwd),
            "a sibling with a common prefix is outside"
        );
    }

    #[test]
    fn tilde_needs_a_home_and_tilde_user_is_outside() {
        let cwd = Path::new("/nonexistent-home/me/proj");
        let audit = PathScopeAudit::new().home(Some("/nonexistent-home/me".into()));
        assert!(!audit.is_in_scope("~/.ssh/id_rsa", cwd));
        assert!(audit.is_in_scope("~/proj/src", cwd));
        assert!(!audit.is_in_scope("~root/x", cwd));
        assert!(!PathScopeAudit::new().home(None).is_in_scope("~/proj", cwd));
    }

    #[test]
    fn glob_patterns_are_judged_by_their_base() {
        assert_eq!(glob_base("/etc/**/x"), "/etc");
        assert_eq!(glob_base("/*"), "/");
        assert_eq!(glob_base("*.rs"), ".");
        assert_eq!(glob_base("src/a.rs"), "src/a.rs");
    }
}
