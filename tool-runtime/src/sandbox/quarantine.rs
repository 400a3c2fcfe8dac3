//! Protected entries a confined command created where none existed: found
//! after the command by looking again at the same few places the sandbox
//! examined before it (each root's top, the way down to the working
//! directory, the code parts of its git directories; never a walk of the
//! workspace), and moved (never deleted) into the computer's quarantine
//! folder.
//!
//! Existing protected entries are read-only mounts and cannot be replaced
//! (an existing `.cargo` whole); missing ones of the stand-in tables are
//! held by read-only stand-ins (the private `placeholder` module). Any
//! other name that does not exist has no inode for a mount or a Landlock
//! rule to attach to, so a command can create `team.code-workspace` there
//! (a pattern's name), and, under the Landlock fallback, which has no
//! stand-ins, `.envrc` or `.yarnrc`. A `*.pth` file
//! outside a site directory runs nothing and is left where it is. With the namespace
//! mechanism every process of the command ends with it (PID namespace), so
//! the check after the run cannot be raced or outlived. A new repository
//! (`git init`, `cargo new`) keeps its `.git`.

use std::collections::HashSet;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use tool_core::approval::PathRole;

use crate::sandbox::classes::{Classes, GIT_CODE_PARTS};
use crate::sandbox::entries::{multi_component, read_pointer, submodule_paths};
use crate::sandbox::nested::nested_git;
use crate::sandbox::new_repo::{live_hooks, without_code_keys};

/// Entries copied at most when a move must copy (the quarantine on another
/// file system); a bigger entry stays where it is and the report says so.
const MAX_COPY_ENTRIES: usize = 10_000;

/// A protected entry a command created, and where the sweep put it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProtectedCreated {
    /// Where the command created it.
    pub path: PathBuf,
    /// Where it is now, in the computer's quarantine folder; `None` when it
    /// could not be moved (then `error` says why, and it is still there).
    #[serde(default)]
    pub moved_to: Option<PathBuf>,
    /// Why it could not be moved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What one command's sweeps compare with: the protected entries at the
/// examined places before it started, by path and inode.
#[derive(Debug)]
pub(crate) struct Watch {
    roots: Vec<PathBuf>,
    dirs: Vec<PathBuf>,
    git_dirs: Vec<PathBuf>,
    before: HashSet<(PathBuf, u64, u64)>,
    classes: Classes,
    limit: usize,
    /// Entries that could not be moved, already reported (not twice).
    reported: Mutex<HashSet<PathBuf>>,
    /// New repositories already neutralised (not twice).
    repos_done: Mutex<HashSet<PathBuf>>,
}

impl Watch {
    /// A watch over `roots` looking at `dirs` and the code parts of
    /// `git_dirs`; what is there now is "before".
    pub(crate) fn new(
        roots: Vec<PathBuf>,
        dirs: Vec<PathBuf>,
        git_dirs: Vec<PathBuf>,
        classes: Classes,
        limit: usize,
    ) -> Self {
        let mut watch = Self {
            roots,
            dirs,
            git_dirs,
            before: HashSet::new(),
            classes,
            limit,
            reported: Mutex::new(HashSet::new()),
            repos_done: Mutex::new(HashSet::new()),
        };
        watch.before = watch.present();
        watch
    }

    /// The protected entries at the watched places now, with their inodes.
    fn present(&self) -> HashSet<(PathBuf, u64, u64)> {
        let mut out = HashSet::new();
        let mut add = |path: PathBuf| {
            if let Ok(meta) = path.symlink_metadata() {
                out.insert((path, meta.dev(), meta.ino()));
            }
        };
        for dir in &self.dirs {
            if let Ok(entries) = std::fs::read_dir(dir) {
                for entry in entries.flatten().take(self.limit) {
                    // A new repository keeps its `.git`.
                    if entry.file_name().eq_ignore_ascii_case(".git") {
                        continue;
                    }
                    let path = entry.path();
                    if self.classes.kinds(&path).protected && !inert_here(&path) {
                        add(path);
                    }
                }
            }
            for rel in multi_component(PathRole::Protected) {
                let path = dir.join(rel);
                if self.classes.kinds(&path).protected {
                    add(path);
                }
            }
        }
        for dir in &self.git_dirs {
            for part in GIT_CODE_PARTS {
                add(dir.join(part));
            }
        }
        out
    }

    /// Looks at the watched places again and moves every protected entry
    /// that was not there before into `<quarantine>/<tag>/` (keeping its
    /// path below its root); `quarantine` is asked for the folder only when
    /// something must move. Blocking file-system work: call it off the
    /// async threads.
    pub(crate) fn sweep(
        &self,
        quarantine: &dyn Fn() -> Result<PathBuf, String>,
        tag: &str,
    ) -> Vec<ProtectedCreated> {
        let reported = self.reported.lock().unwrap_or_else(|p| p.into_inner());
        let mut new: Vec<PathBuf> = self
            .present()
            .into_iter()
            .filter(|entry| !self.before.contains(entry) && !reported.contains(&entry.0))
            .map(|(path, _, _)| path)
            .collect();
        new.sort();
        new.dedup();
        // Another command's stand-ins, made after this one started.
        #[cfg(target_os = "linux")]
        new.retain(|path| !super::placeholder::holds(path));
        drop(reported);
        let mut out = self.new_repositories(quarantine, tag);
        let mut reported = self.reported.lock().unwrap_or_else(|p| p.into_inner());
        for path in new {
            let Some((index, root)) = self
                .roots
                .iter()
                .enumerate()
                .find(|(_, r)| path.starts_with(r))
            else {
                continue;
            };
            let Ok(rel) = path.strip_prefix(root) else {
                continue;
            };
            // Reached through a symlink the command made (`gradle` -> a
            // folder): moved where it really is when that is in the roots
            // (the user's tools read it through the link), never from
            // outside them.
            let real = if crosses_symlink(root, rel) {
                let parent = path.parent().and_then(|p| std::fs::canonicalize(p).ok());
                match (parent, path.file_name()) {
                    (Some(parent), Some(name))
                        if self.roots.iter().any(|r| parent.starts_with(r)) =>
                    {
                        parent.join(name)
                    }
                    _ => {
                        tracing::warn!(path = %path.display(), "a protected name behind a symlink out of the roots is left alone");
                        continue;
                    }
                }
            } else {
                path.clone()
            };
            let moved = quarantine().and_then(|folder| {
                let mut dest = folder.join(tag);
                if self.roots.len() > 1 {
                    dest.push(format!("root-{index}"));
                }
                dest.push(rel);
                move_entry(&real, &dest)
            });
            let entry = match moved {
                Ok(moved_to) => ProtectedCreated {
                    path: path.clone(),
                    moved_to: Some(moved_to),
                    error: None,
                },
                Err(error) => ProtectedCreated {
                    path: path.clone(),
                    moved_to: None,
                    error: Some(error),
                },
            };
            tracing::warn!(path = %path.display(), moved_to = ?entry.moved_to, "a confined command created a protected entry");
            if entry.moved_to.is_none() {
                reported.insert(path);
            }
            out.push(entry);
        }
        out
    }
}

impl Watch {
    /// The git directories (real `.git` folders) at the watched places and
    /// nested two folders deep in the roots that were not there before the
    /// command: repositories it created.
    ///
    /// A `.git` file (`gitdir: …`, as `git init --separate-git-dir`, a
    /// submodule or a worktree writes) counts too: the git directory it
    /// names and that directory's `commondir`, when they lie in the roots
    /// or inside a known git dir (elsewhere the command could not write). So do the `.git` entries
    /// of the submodules a `.gitmodules` at a watched place names.
    fn created_repositories(&self) -> Vec<PathBuf> {
        let mut found: Vec<PathBuf> = self.dirs.iter().map(|d| d.join(".git")).collect();
        for root in &self.roots {
            found.extend(nested_git(root).0);
        }
        for dir in &self.dirs {
            found.extend(submodule_paths(dir).into_iter().map(|s| s.join(".git")));
        }
        let mut git_dirs = Vec::new();
        for entry in found {
            let Ok(meta) = entry.symlink_metadata() else {
                continue;
            };
            if meta.is_dir() {
                git_dirs.push(std::fs::canonicalize(&entry).unwrap_or(entry));
            } else if meta.is_file()
                && let Some(dir) = read_pointer(&entry, "gitdir:")
            {
                if let Some(common) = read_pointer(&dir.join("commondir"), "") {
                    git_dirs.push(common);
                }
                git_dirs.push(dir);
            }
        }
        let done = self.repos_done.lock().unwrap_or_else(|p| p.into_inner());
        let mut out: Vec<PathBuf> = git_dirs
            .into_iter()
            .filter(|g| g.symlink_metadata().is_ok_and(|m| m.is_dir()))
            // In the roots, or inside a git dir the command could write
            // (a worktree's main repository outside the roots).
            .filter(|g| {
                self.roots.iter().any(|r| g.starts_with(r))
                    || self.git_dirs.iter().any(|d| g.starts_with(d))
            })
            .filter(|g| !self.git_dirs.contains(g) && !done.contains(g))
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// Takes the code-running settings out of the configuration of every
    /// repository the command created (the original kept in the
    /// quarantine folder) and moves its hooks there; reports each.
    fn new_repositories(
        &self,
        quarantine: &dyn Fn() -> Result<PathBuf, String>,
        tag: &str,
    ) -> Vec<ProtectedCreated> {
        let mut out = Vec::new();
        for git in self.created_repositories() {
            // Below its root in the quarantine folder; one made inside a
            // git dir outside the roots (a worktree's main repository)
            // below `git-dirs/` and its whole path.
            let (root, rel) = match self.roots.iter().find(|r| git.starts_with(r)) {
                Some(root) => (Some(root), git.strip_prefix(root).unwrap_or(&git)),
                None => (None, git.strip_prefix("/").unwrap_or(&git)),
            };
            let dest = |inner: &Path| -> Result<PathBuf, String> {
                let mut dest = quarantine()?.join(tag);
                match root {
                    Some(root) if self.roots.len() > 1 => {
                        if let Some(i) = self.roots.iter().position(|r| r == root) {
                            dest.push(format!("root-{i}"));
                        }
                    }
                    Some(_) => {}
                    None => dest.push("git-dirs"),
                }
                Ok(dest.join(rel).join(inner))
            };
            let mut links = Vec::new();
            for name in ["config", "config.worktree"] {
                let config = git.join(name);
                let Ok(meta) = config.symlink_metadata() else {
                    continue;
                };
                // A symlink: git would read its target, and rewriting it
                // would write outside the sandbox; the link itself goes.
                if meta.file_type().is_symlink() {
                    links.push(config);
                    continue;
                }
                if !meta.is_file() {
                    continue;
                }
                let Ok(text) = std::fs::read_to_string(&config) else {
                    continue;
                };
                let (kept, removed) = without_code_keys(&text);
                if !removed.is_empty() {
                    let saved = dest(Path::new(name)).and_then(|to| {
                        let parent = to.parent().unwrap_or(&to).to_path_buf();
                        std::fs::create_dir_all(&parent)
                            .and_then(|()| std::fs::write(&to, &text))
                            .and_then(|()| std::fs::write(&config, kept))
                            .map(|()| to)
                            .map_err(|e| format!("cannot take out {}: {e}", removed.join(", ")))
                    });
                    tracing::warn!(path = %config.display(), keys = ?removed, "a confined command set code-running keys in a new repository");
                    out.push(match saved {
                        Ok(to) => ProtectedCreated {
                            path: config.clone(),
                            moved_to: Some(to),
                            error: None,
                        },
                        Err(error) => ProtectedCreated {
                            path: config.clone(),
                            moved_to: None,
                            error: Some(error),
                        },
                    });
                }
            }
            for hook in live_hooks(&git).into_iter().chain(links) {
                let moved = hook
                    .strip_prefix(&git)
                    .map_err(|e| e.to_string())
                    .and_then(&dest)
                    .and_then(|to| move_entry(&hook, &to));
                tracing::warn!(path = %hook.display(), "a confined command created a hook in a new repository");
                out.push(match moved {
                    Ok(to) => ProtectedCreated {
                        path: hook,
                        moved_to: Some(to),
                        error: None,
                    },
                    Err(error) => ProtectedCreated {
                        path: hook,
                        moved_to: None,
                        error: Some(error),
                    },
                });
            }
            let real = std::fs::canonicalize(&git).unwrap_or(git);
            self.repos_done
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(real);
        }
        out
    }
}

/// Whether a folder on the way from `root` to `root/rel` (not the entry
/// itself, which a move takes as it is) is a symlink, or cannot be looked
/// at: the path then leads out of the place the command could write.
fn crosses_symlink(root: &Path, rel: &Path) -> bool {
    let mut at = root.to_path_buf();
    let mut parts = rel.components().peekable();
    while let Some(part) = parts.next() {
        if parts.peek().is_none() {
            return false;
        }
        at.push(part);
        match at.symlink_metadata() {
            Ok(meta) if meta.is_dir() => {}
            _ => return true,
        }
    }
    false
}

/// Whether `path`, of a protected class, runs nothing where it is: a
/// `*.pth` file outside a site directory. Python reads `.pth` files (and
/// runs their `import` lines) only in its site directories
/// (`site-packages`, `dist-packages`, or one a program passes to
/// `site.addsitedir`); in a project folder one is inert, so a command
/// creating it there is neither refused nor swept.
fn inert_here(path: &Path) -> bool {
    let is_pth = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("pth"));
    let in_site_dir = path
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|d| d == "site-packages" || d == "dist-packages");
    is_pth && !in_site_dir
}

/// Moves `from` to `to` (or `to.1`, `to.2`… when taken): a rename, or a
/// copy then removal across file systems. Never removes before the copy
/// is complete.
fn move_entry(from: &Path, to: &Path) -> Result<PathBuf, String> {
    let parent = to
        .parent()
        .ok_or_else(|| format!("no folder for {}", to.display()))?;
    std::fs::create_dir_all(parent).map_err(|e| {
        format!(
            "cannot create the quarantine folder {}: {e}",
            parent.display()
        )
    })?;
    let mut dest = to.to_path_buf();
    let mut n = 0u32;
    while dest.symlink_metadata().is_ok() {
        n += 1;
        if n > 1000 {
            return Err(format!("{} and 1000 variants are taken", to.display()));
        }
        let mut name = to.as_os_str().to_owned();
        name.push(format!(".{n}"));
        dest = PathBuf::from(name);
    }
    match std::fs::rename(from, &dest) {
        Ok(()) => Ok(dest),
        Err(e) if e.kind() == std::io::ErrorKind::CrossesDevices => {
            let mut budget = MAX_COPY_ENTRIES;
            if let Err(err) = copy_tree(from, &dest, &mut budget) {
                let _ = std::fs::remove_dir_all(&dest).or_else(|_| std::fs::remove_file(&dest));
                return Err(format!(
                    "cannot copy it to {} (left in place): {err}",
                    dest.display()
                ));
            }
            let removed = if from.symlink_metadata().is_ok_and(|m| m.is_dir()) {
                std::fs::remove_dir_all(from)
            } else {
                std::fs::remove_file(from)
            };
            removed
                .map_err(|e| format!("copied to {} but cannot remove it: {e}", dest.display()))?;
            Ok(dest)
        }
        Err(e) => Err(format!("cannot move it to {}: {e}", dest.display())),
    }
}

/// Copies a file, a symlink (as a symlink) or a directory tree.
fn copy_tree(from: &Path, to: &Path, budget: &mut usize) -> std::io::Result<()> {
    *budget = budget
        .checked_sub(1)
        .ok_or_else(|| std::io::Error::other(format!("more than {MAX_COPY_ENTRIES} entries")))?;
    let meta = from.symlink_metadata()?;
    if meta.file_type().is_symlink() {
        std::os::unix::fs::symlink(std::fs::read_link(from)?, to)
    } else if meta.is_dir() {
        std::fs::create_dir(to)?;
        for entry in std::fs::read_dir(from)? {
            let entry = entry?;
            copy_tree(&entry.path(), &to.join(entry.file_name()), budget)?;
        }
        Ok(())
    } else if meta.is_file() {
        std::fs::copy(from, to).map(|_| ())
    } else {
        Err(std::io::Error::other(format!(
            "{} is neither a file, a directory nor a symlink",
            from.display()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::policy::SandboxOptions;

    #[test]
    fn a_symlinked_folder_on_the_way_is_crossing_and_the_entry_itself_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("real/inner")).unwrap();
        std::os::unix::fs::symlink(root.join("real"), root.join("link")).unwrap();
        assert!(crosses_symlink(&root, Path::new("link/inner")));
        assert!(crosses_symlink(&root, Path::new("missing/x")));
        assert!(!crosses_symlink(&root, Path::new("real/inner")));
        assert!(!crosses_symlink(&root, Path::new("link")));
        assert!(!crosses_symlink(&root, Path::new("top")));
    }

    #[test]
    fn new_protected_entries_move_and_old_ones_and_plain_files_stay() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap().join("ws");
        std::fs::create_dir_all(root.join(".git")).unwrap();
        let classes = Classes::new(&SandboxOptions::default(), None).unwrap();
        let watch = Watch::new(
            vec![root.clone()],
            vec![root.clone(), root.join("app")],
            vec![root.join(".git")],
            classes,
            1000,
        );
        std::fs::write(root.join(".envrc"), "x").unwrap();
        // A `.pth` outside a site directory runs nothing: left alone.
        std::fs::write(root.join("demo.pth"), "import os\n").unwrap();
        std::fs::create_dir_all(root.join("app/.vscode")).unwrap();
        std::fs::write(root.join("app/.vscode/tasks.json"), "{}").unwrap();
        std::fs::write(root.join("README.md"), "x").unwrap();
        // A new repository keeps its .git, and git's own files are not protected.
        std::fs::create_dir_all(root.join("app/.git/hooks")).unwrap();
        std::fs::write(root.join(".git/index"), "x").unwrap();
        let quarantine = dir.path().join("q");
        let folder = || Ok(quarantine.clone());
        let moved = watch.sweep(&folder, "sh-1");
        assert_eq!(moved.len(), 2, "{moved:?}");
        assert!(!root.join(".envrc").exists());
        assert!(!root.join("app/.vscode").exists());
        assert!(root.join(".git").exists() && root.join("README.md").exists());
        assert!(root.join("demo.pth").exists());
        assert!(inert_here(&root.join("x.PTH")));
        assert!(!inert_here(&root.join("lib/site-packages/x.pth")));
        assert!(!inert_here(&root.join("conftest.py")));
        assert!(root.join("app/.git/hooks").exists());
        // A hooks folder created in an existing repository is moved.
        std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
        let hooks = watch.sweep(&folder, "sh-2");
        assert_eq!(hooks.len(), 1, "{hooks:?}");
        assert!(!root.join(".git/hooks").exists());
        assert_eq!(
            std::fs::read_to_string(quarantine.join("sh-1/app/.vscode/tasks.json")).unwrap(),
            "{}"
        );
        assert_eq!(moved[0].moved_to, Some(quarantine.join("sh-1/.envrc")));
        // A second sweep finds nothing new; a name taken gets a suffix.
        assert!(watch.sweep(&folder, "sh-1").is_empty());
        std::fs::write(root.join(".envrc"), "y").unwrap();
        let again = watch.sweep(&folder, "sh-1");
        assert_eq!(again[0].moved_to, Some(quarantine.join("sh-1/.envrc.1")));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_sweep_leaves_the_stand_ins_another_command_made_since_it_started() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap().join("ws");
        std::fs::create_dir_all(&root).unwrap();
        let classes = Classes::new(&SandboxOptions::default(), None).unwrap();
        let watch = Watch::new(
            vec![root.clone()],
            vec![root.clone()],
            Vec::new(),
            classes.clone(),
            1000,
        );
        // A command starting now gets its stand-ins (`.vscode`, `.yarnrc`…).
        let other =
            super::super::placeholder::claim(std::slice::from_ref(&root), &root, &classes, true);
        assert!(root.join(".vscode").is_dir() && root.join(".yarnrc").exists());
        // What the first command created is moved; the stand-ins stay.
        std::fs::write(root.join("team.code-workspace"), "{}").unwrap();
        let quarantine = dir.path().join("q");
        let moved = watch.sweep(&|| Ok(quarantine.clone()), "sh-1");
        let paths: Vec<&Path> = moved.iter().map(|m| m.path.as_path()).collect();
        assert_eq!(paths, [root.join("team.code-workspace")], "{moved:?}");
        assert!(root.join(".vscode").is_dir() && root.join(".yarnrc").exists());
        drop(other);
        super::super::placeholder::remove_unused();
        assert!(root.join(".yarnrc").symlink_metadata().is_err());
    }

    #[test]
    fn a_copy_keeps_files_dirs_and_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let from = dir.path().join("a");
        std::fs::create_dir_all(from.join("b")).unwrap();
        std::fs::write(from.join("b/f"), "x").unwrap();
        std::os::unix::fs::symlink("b/f", from.join("l")).unwrap();
        let to = dir.path().join("copy");
        let mut budget = 10;
        copy_tree(&from, &to, &mut budget).unwrap();
        assert_eq!(std::fs::read_to_string(to.join("b/f")).unwrap(), "x");
        assert_eq!(std::fs::read_link(to.join("l")).unwrap(), Path::new("b/f"));
        let mut small = 1;
        assert!(copy_tree(&from, &dir.path().join("c2"), &mut small).is_err());
    }
}
