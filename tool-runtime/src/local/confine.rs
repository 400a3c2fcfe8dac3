//! The file operations' wall: under a confining [`SandboxPolicy`] (the
//! call's [`tool_core::Confinement`], else the computer's configured
//! sandbox), every read and write of `LocalComputer` is checked in-process
//! against the same rules the OS sandbox applies to commands.
//!
//! | operation | refused when the path actually reached is … |
//! |---|---|
//! | read (`readFile`, `readFiles`, `editFile`'s read, `listFiles` of a directory, the root of a search) | secret ([`PathRole::Secret`](tool_core::approval::PathRole::Secret) classes, the host's extra secret paths) |
//! | write, create, rename, move (both ends), `editFile` | outside the writable roots (the working directory, the policy's `writable_roots`, the computer's private temp dir; none under `read_only`), protected ([`PathRole::Protected`](tool_core::approval::PathRole::Protected) classes at any depth, existing or not), or secret |
//! | search (`globFiles`, `searchFiles`, `grepContent`) | never refused for what it meets: secret entries are skipped and counted (`secretsSkipped` in the state) |
//!
//! "Actually reached": `~`, relative paths and `..` are resolved as the
//! kernel resolves them (see `Paths::resolve`), then the deepest existing
//! ancestor is canonicalised (symlinks followed). A write is judged both on
//! the entry it replaces (the link's own directory: an atomic write renames
//! over the link) and, when that entry exists, on what it points to; a
//! dangling symlink in the way of a write is refused (creating through it
//! would create its target). Classes compare ASCII case-insensitively, so
//! `.GIT/config` is protected on every file system.
//!
//! Races: on Linux `writeFile`, `editFile`, `readFile`, `readFiles`,
//! `moveFiles` and `renameFile` cannot be redirected by a process that
//! swaps a directory for a symlink between the check and the operation: a
//! write judges the entry it is about to walk to (not one resolved
//! earlier), walks down from its root's handle with `O_NOFOLLOW` and fails
//! when something changed; a move or rename resolves each end once (the entry
//! judged is the entry used), opens both directories by that walk and
//! renames name to name between the handles (`renameat2`, no replacing
//! unless asked; across file systems a file is copied handle to handle); a
//! read judges the file it opened (see the private `beneath` module);
//! `listFiles` reads the directory it judged from a handle, and `globFiles`,
//! `searchFiles` and `grepContent` confirm each entry found from a handle
//! of their start directory, without following symlinks, and search files
//! opened from there (see the private `verified` module).
//! Tests: `confined_files::file_tools_cannot_be_raced_by_a_confined_command_flipping_a_symlink`,
//! `confined_files::moves_renames_and_writes_cannot_be_raced_by_a_flipped_symlink`.
//! The protected-name scan of a moved directory reads it by path before
//! the move, so entries added to it meanwhile are not judged.
//!
//! Not covered: hard links (an inode reachable under an allowed name is
//! writable under that name, as with Landlock).

use std::path::{Component, Path, PathBuf};

use crate::error::{Error, Result};
use crate::sandbox::{Classes, SandboxOptions, SandboxPolicy};

/// Entries of a moved directory examined at most for protected names at
/// the destination; a larger tree is refused under confinement.
const MAX_MOVED_ENTRIES: usize = 20_000;

/// The wall of one confined call.
#[derive(Debug, Clone)]
pub(crate) struct Guard {
    policy: &'static str,
    roots: Vec<PathBuf>,
    classes: Classes,
}

impl Guard {
    /// The guard for `policy` with `workspace` as the working directory and
    /// `private_tmp` as the computer's temp dir; `None` for full access.
    pub(crate) fn new(
        policy: &SandboxPolicy,
        options: &SandboxOptions,
        workspace: &Path,
        private_tmp: Option<&Path>,
        home: Option<&Path>,
    ) -> Result<Option<Self>> {
        let roots: Vec<PathBuf> = match policy {
            SandboxPolicy::FullAccess => return Ok(None),
            SandboxPolicy::WorkspaceWrite { writable_roots, .. } => {
                let mut roots = vec![workspace.to_path_buf()];
                roots.extend(writable_roots.iter().filter(|r| r.is_absolute()).cloned());
                roots.extend(private_tmp.map(Path::to_path_buf));
                roots.iter().map(|r| reached(r)).collect()
            }
            // read_only, and any confinement this runtime does not know: no writes.
            _ => Vec::new(),
        };
        Ok(Some(Self {
            policy: policy.name(),
            roots,
            classes: Classes::new(options, home)?,
        }))
    }

    /// What this confinement allows, for refusals.
    fn allows(&self) -> String {
        let writes = if self.roots.is_empty() {
            "no writes".to_owned()
        } else {
            format!(
                "writes only under {}",
                self.roots
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        format!(
            "{writes}, protected entries (.git, .envrc, .vscode, CI and build-tool configuration…) read-only, secret files (.env, credentials, keys) unreadable"
        )
    }

    fn refuse(&self, shown: &str, operation: &'static str, reason: String) -> Error {
        Error::ConfinementRefused {
            path: shown.into(),
            operation,
            reason,
            policy: self.policy.to_owned(),
            allowed: self.allows(),
        }
    }

    /// The writable root and the canonical entry of a write to `path`,
    /// for a write that walks down from the root: `path` is resolved and
    /// judged once more here, and the entry judged is the entry returned,
    /// so a symlink swapped in since an earlier check cannot move the
    /// write to an entry nobody judged.
    pub(crate) fn write_target(&self, path: &Path, shown: &str) -> Result<(PathBuf, PathBuf)> {
        let entry = self.check_write(path, shown, "written")?;
        match self.root_of(&entry) {
            Some(root) => Ok((root, entry)),
            None => Err(self.refuse(
                shown,
                "written",
                format!("`{}` is outside the writable roots", entry.display()),
            )),
        }
    }

    /// Refuses the read of a file already opened, judged on the path the
    /// kernel gives for it (`real`).
    pub(crate) fn check_opened(&self, real: &Path, shown: &str) -> Result<()> {
        match self.classes.secret(real) {
            Some(class) => Err(self.refuse(
                shown,
                "read",
                format!("`{}` is secret (class `{class}`)", real.display()),
            )),
            None => Ok(()),
        }
    }

    /// Whether `path` (already reached) is secret.
    pub(crate) fn is_secret(&self, path: &Path) -> bool {
        self.classes.secret(path).is_some()
    }

    /// Refuses reading `path` when what it reaches is secret.
    pub(crate) fn check_read(&self, path: &Path, shown: &str) -> Result<()> {
        for candidate in [entry_reached(path), reached(path)] {
            if let Some(class) = self.classes.secret(&candidate) {
                return Err(self.refuse(
                    shown,
                    "read",
                    format!("`{}` is secret (class `{class}`)", candidate.display()),
                ));
            }
        }
        Ok(())
    }

    /// The writable root `entry` (canonical) lies beneath, the deepest
    /// when roots nest.
    pub(crate) fn root_of(&self, entry: &Path) -> Option<PathBuf> {
        self.roots
            .iter()
            .filter(|r| entry.starts_with(r))
            .max_by_key(|r| r.components().count())
            .cloned()
    }

    /// Refuses writing, creating, renaming or deleting the entry `path`;
    /// returns the canonical entry judged, so that the operation walks to
    /// exactly that entry and does not resolve `path` a second time.
    pub(crate) fn check_write(
        &self,
        path: &Path,
        shown: &str,
        operation: &'static str,
    ) -> Result<PathBuf> {
        let entry = entry_reached(path);
        let mut candidates = vec![entry.clone()];
        match path.symlink_metadata() {
            Ok(meta) if meta.file_type().is_symlink() => match std::fs::canonicalize(path) {
                Ok(target) => candidates.push(target),
                Err(_) if operation != "moved" => {
                    return Err(self.refuse(
                        shown,
                        operation,
                        "it is a dangling symbolic link; writing through it would create its target".to_owned(),
                    ));
                }
                Err(_) => {}
            },
            _ => {}
        }
        for candidate in candidates {
            if !self.roots.iter().any(|root| candidate.starts_with(root)) {
                return Err(self.refuse(
                    shown,
                    operation,
                    format!("`{}` is outside the writable roots", candidate.display()),
                ));
            }
            if let Some(class) = self.classes.protected(&candidate) {
                return Err(self.refuse(
                    shown,
                    operation,
                    format!("`{}` is protected (class `{class}`)", candidate.display()),
                ));
            }
            if let Some(class) = self.classes.secret(&candidate) {
                return Err(self.refuse(
                    shown,
                    operation,
                    format!("`{}` is secret (class `{class}`)", candidate.display()),
                ));
            }
        }
        Ok(entry)
    }

    /// Refuses moving the entry `from` to `to`: both ends are writes, and a
    /// moved directory must not carry entries that become protected at the
    /// destination (a folder `workflows/` moved to `.github/`). Returns the
    /// canonical entries judged, source and destination.
    pub(crate) fn check_move(
        &self,
        from: &Path,
        to: &Path,
        shown: &str,
    ) -> Result<(PathBuf, PathBuf)> {
        let source = self.check_write(from, shown, "moved")?;
        let destination = self.check_write(to, shown, "moved")?;
        let judged = (source.clone(), destination.clone());
        let Ok(meta) = source.symlink_metadata() else {
            return Ok(judged);
        };
        if !meta.is_dir() {
            return Ok(judged);
        }
        let from = source.as_path();
        let mut stack = vec![from.to_path_buf()];
        let mut seen = 0usize;
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for item in entries.flatten() {
                seen += 1;
                if seen > MAX_MOVED_ENTRIES {
                    return Err(self.refuse(
                        shown,
                        "moved",
                        format!("the directory holds more than {MAX_MOVED_ENTRIES} entries, too many to check under confinement"),
                    ));
                }
                let path = item.path();
                let Ok(rel) = path.strip_prefix(from) else {
                    continue;
                };
                let landed = destination.join(rel);
                if let Some(class) = self.classes.protected(&landed) {
                    return Err(self.refuse(
                        shown,
                        "moved",
                        format!(
                            "it would put `{}` at `{}`, which is protected (class `{class}`)",
                            rel.display(),
                            landed.display()
                        ),
                    ));
                }
                if item.file_type().is_ok_and(|t| t.is_dir()) {
                    stack.push(path);
                }
            }
        }
        Ok(judged)
    }
}

/// The path actually reached by `path`: its deepest existing ancestor
/// canonicalised (symlinks followed), the rest appended.
pub(crate) fn reached(path: &Path) -> PathBuf {
    let mut base = path.to_path_buf();
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    loop {
        if let Ok(real) = std::fs::canonicalize(&base) {
            let mut out = real;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return out;
        }
        match (base.file_name().map(|n| n.to_os_string()), base.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                base = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// The entry `path` names itself, without following a final symlink: its
/// parent reached, its own name appended.
pub(crate) fn entry_reached(path: &Path) -> PathBuf {
    match (path.parent(), path.components().next_back()) {
        (Some(parent), Some(Component::Normal(name))) => reached(parent).join(name),
        _ => reached(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reached_follows_symlinks_of_the_existing_part() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("real")).unwrap();
        std::os::unix::fs::symlink(root.join("real"), root.join("link")).unwrap();
        assert_eq!(
            reached(&root.join("link/new/file")),
            root.join("real/new/file")
        );
        assert_eq!(entry_reached(&root.join("link")), root.join("link"));
        assert_eq!(reached(&root.join("link")), root.join("real"));
    }
}
