//! `pathScopeAudit`: flags a call whose path arguments leave the working directory.
//!
//! Every path argument ([`path_arguments`](crate::call::arguments::path_arguments)) is
//! resolved against the working directory from the host's [`ToolContext`]
//! (never from the arguments), `~` and `$HOME` are expanded, `.`/`..` and
//! repeated or trailing slashes are normalised, and symlinks are resolved for
//! the part of the path that exists, in order, so that `link/../x` follows
//! the link first as the kernel would; a dangling link counts as its target
//! (writing through it creates that file). A path that resolves outside the
//! (real) working directory flags the call.
//!
//! Inside the working directory, the same path classes the sandbox uses
//! ([`PathClass`]) apply to the location reached: a path in a secret class
//! (`.env`, `terraform.tfstate`, `~/.aws/…`) flags any call, a path in a
//! protected class (`.git/…`, `.envrc`, `.github/workflows/…`) flags a call
//! that writes it: an API whose name holds one of [`WRITING_API_WORDS`], or
//! an argument named like a destination ([`DESTINATION_NAMES`]). So a path
//! is protected or secret to both walls alike.
//!
//! No working directory in the context means the audit passes. Temp
//! directories are not exempt unless [`PathScopeAudit::allow_temp_dirs`] is
//! set; the exemption compares real paths, so a link into `/tmp` that points
//! elsewhere is not exempt.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tool_core::approval::{PathClass, PathRole};

use crate::audit::{AuditInput, AuditVerdict, DynamicAudit};
use crate::path_view::{PathView, RealFs, absolute, real_path_in, resolve_path_in};

/// The dynamic audit's type string (tool-core's constant).
use tool_core::approval::PATH_SCOPE_AUDIT;

/// Words in an API's name (ASCII case ignored) that mean it writes,
/// creates, moves or deletes its path arguments.
pub(crate) const WRITING_API_WORDS: &[&str] = &[
    "write", "edit", "move", "rename", "delete", "remove", "create", "mkdir", "copy", "patch",
    "append", "save", "touch", "chmod", "link", "replace", "apply", "unzip", "extract",
];

/// Argument names (ASCII case ignored) that hold a location the call writes.
pub(crate) const DESTINATION_NAMES: &[&str] = &[
    "destination",
    "dest",
    "dst",
    "to",
    "newpath",
    "new_path",
    "target",
    "output",
    "outputpath",
    "output_path",
    "newname",
    "new_name",
];

/// Whether the call writes the path argument at `pointer`.
fn writes(api: &str, pointer: &str) -> bool {
    let api = api.to_ascii_lowercase();
    let name = pointer
        .rsplit('/')
        .find(|s| s.parse::<usize>().is_err())
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    WRITING_API_WORDS.iter().any(|w| api.contains(w)) || DESTINATION_NAMES.contains(&name.as_str())
}

/// The path-scope dynamic audit. See the module docs.
#[derive(Debug, Clone)]
pub struct PathScopeAudit {
    allow_temp: bool,
    home: Option<PathBuf>,
    view: Arc<dyn PathView>,
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
            view: Arc::new(RealFs),
        }
    }

    /// Sets how the audit sees the filesystem (the real one, [`RealFs`], by
    /// default); a test can pass an in-memory [`PathView`].
    pub fn path_view(mut self, view: Arc<dyn PathView>) -> Self {
        self.view = view;
        self
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
        resolve_path_in(self.view.as_ref(), raw, cwd, self.home.as_deref())
    }

    /// Whether `raw` stays inside `cwd` (or an exempt temp directory).
    pub fn is_in_scope(&self, raw: &str, cwd: &Path) -> bool {
        let root = real_path_in(self.view.as_ref(), &absolute(cwd));
        let Some(resolved) = self.resolve(raw, &root) else {
            return false;
        };
        if resolved.starts_with(&root) {
            return true;
        }
        self.allow_temp && self.temp_roots().iter().any(|t| resolved.starts_with(t))
    }

    fn check(&self, input: &AuditInput<'_>, cwd: &Path) -> AuditVerdict {
        let root = real_path_in(self.view.as_ref(), &absolute(cwd));
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
                    || (self.allow_temp && self.temp_roots().iter().any(|t| r.starts_with(t)))
            });
            let resolved = match resolved {
                Some(resolved) if inside => resolved,
                resolved => {
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
            };
            if let Some(flag) = self.class_flag(input.call.api, raw, &found.pointer, &resolved) {
                return flag;
            }
        }
        AuditVerdict::Pass
    }

    /// A flag when the location reached is secret, or protected and written.
    fn class_flag(
        &self,
        api: &str,
        raw: &str,
        pointer: &str,
        resolved: &Path,
    ) -> Option<AuditVerdict> {
        let home = self.home.as_deref();
        let (class, what) = match PathClass::find(PathRole::Secret, resolved, home) {
            Some(class) => (class, "a secret location, never read without a person"),
            None if writes(api, pointer) => (
                PathClass::find(PathRole::Protected, resolved, home)?,
                "a protected entry, never written without a person",
            ),
            None => return None,
        };
        Some(AuditVerdict::Flag {
            rule: format!("{PATH_SCOPE_AUDIT}:{}:{}", class.name, pointer),
            message: format!(
                "`{raw}` (at {pointer}) resolves to {}, {what} ({}: {})",
                resolved.display(),
                class.name,
                class.description
            ),
        })
    }

    fn temp_roots(&self) -> Vec<PathBuf> {
        let mut roots = vec![
            PathBuf::from("/tmp"),
            PathBuf::from("/var/tmp"),
            std::env::temp_dir(),
        ];
        for root in &mut roots {
            *root = real_path_in(self.view.as_ref(), root);
        }
        roots
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

    /// An in-memory filesystem: directories, files and symlinks by absolute
    /// path; nothing else exists.
    #[derive(Debug, Default)]
    struct FakeFs {
        links: std::collections::BTreeMap<PathBuf, PathBuf>,
        others: std::collections::BTreeSet<PathBuf>,
    }

    impl FakeFs {
        fn dir(mut self, path: &str) -> Self {
            let mut at = PathBuf::new();
            for c in Path::new(path).components() {
                at.push(c);
                self.others.insert(at.clone());
            }
            self
        }

        fn link(mut self, path: &str, target: &str) -> Self {
            self.links.insert(path.into(), target.into());
            self
        }
    }

    impl PathView for FakeFs {
        fn entry(&self, path: &Path) -> crate::path_view::PathEntry {
            if self.links.contains_key(path) {
                crate::path_view::PathEntry::Link
            } else if self.others.contains(path) {
                crate::path_view::PathEntry::Other
            } else {
                crate::path_view::PathEntry::Missing
            }
        }

        fn canonicalize(&self, path: &Path) -> Option<PathBuf> {
            let mut todo: Vec<PathBuf> = vec![path.to_path_buf()];
            for _ in 0..16 {
                let p = todo.pop()?;
                let mut at = PathBuf::new();
                let mut comps = p.components();
                let mut followed = None;
                for c in comps.by_ref() {
                    match c {
                        std::path::Component::ParentDir => {
                            at.pop();
                        }
                        std::path::Component::CurDir => {}
                        _ => at.push(c),
                    }
                    if let Some(target) = self.links.get(&at) {
                        let parent = at.parent().unwrap_or(Path::new("/")).to_path_buf();
                        followed = Some(parent.join(target));
                        break;
                    }
                    if !self.others.contains(&at) {
                        return None;
                    }
                }
                match followed {
                    Some(mut next) => {
                        next.extend(comps);
                        todo.push(next);
                    }
                    None => return Some(at),
                }
            }
            None
        }

        fn read_link(&self, path: &Path) -> Option<PathBuf> {
            self.links.get(path).cloned()
        }
    }

    #[test]
    fn path_scope_is_judged_through_the_path_view() {
        let fs = FakeFs::default()
            .dir("/w/proj/src")
            .dir("/etc")
            .dir("/real/tmp")
            .link("/w/proj/etc", "/etc")
            .link("/w/proj/up", "../..")
            .link("/w/proj/dangling", "/etc/new-file")
            .link("/w/proj/local", "src")
            .link("/w/alias", "proj")
            .link("/tmp", "/real/tmp");
        let audit = PathScopeAudit::new()
            .home(Some("/w/proj".into()))
            .path_view(Arc::new(fs));
        let cwd = Path::new("/w/proj");
        assert!(audit.is_in_scope("src/a.rs", cwd));
        assert!(
            audit.is_in_scope("local/new.rs", cwd),
            "a link that stays inside"
        );
        assert!(
            !audit.is_in_scope("etc/passwd", cwd),
            "a link out of the workspace"
        );
        assert!(
            !audit.is_in_scope("up/w/x", cwd),
            "`..` inside a link target"
        );
        assert!(
            !audit.is_in_scope("dangling", cwd),
            "a dangling link counts as its target"
        );
        assert!(
            !audit.is_in_scope("etc/../proj/x", cwd),
            "the link is followed before `..`"
        );
        assert!(audit.is_in_scope("~/src", cwd));
        assert_eq!(
            audit.resolve("etc/shadow", cwd),
            Some(PathBuf::from("/etc/shadow"))
        );
        // The working directory is judged by its real location.
        assert!(audit.is_in_scope("src/a.rs", Path::new("/w/alias")));
        assert!(audit.is_in_scope("/w/proj/src", Path::new("/w/alias")));
        // Temp directories are exempt only when allowed, by real location.
        assert!(!audit.is_in_scope("/tmp/x", cwd));
        let audit = audit.allow_temp_dirs(true);
        assert!(audit.is_in_scope("/tmp/x", cwd));
        assert!(audit.is_in_scope("/real/tmp/x", cwd));
    }
}
