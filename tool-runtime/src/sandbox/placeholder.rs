//! Protected folders that do not exist yet, refused up front: while a
//! confined command (with its own mount namespace) runs, each missing name
//! of [`PLACEHOLDERS`] in the places examined (a root's top and the way to
//! the working directory) gets an empty folder in its place, which the
//! namespace binds read-only like any protected entry. The command can
//! neither create the name nor anything in it, remove or rename it
//! (`EROFS`, `EBUSY`), so nothing needs sweeping afterwards.
//!
//! The first missing component of a name is what is made: `.github/workflows`
//! in a workspace without `.github` makes `.github` (so nothing can be
//! created beneath `.github` during that command), with one it makes
//! `.github/workflows`. Only folders are made: an empty folder is what the
//! tools reading these names take for "nothing here" (an empty file in
//! place of `.envrc`, `.mcp.json` or `rust-toolchain.toml` would not be),
//! so the file-like protected names are still moved out after the run.
//!
//! The folders appear in the host's workspace while the command runs and
//! are removed when it has ended (if still empty). Commands of one host
//! process running at once share them: a count per folder, removed when
//! the last command using it has ended. Each is made with `mkdirat` in a
//! handle of its parent reached from the root without following symlinks,
//! so a concurrent command cannot redirect it outside the workspace.

use std::collections::HashMap;
use std::os::fd::AsFd as _;
use std::path::{Component, Path, PathBuf};
use std::sync::{Mutex, MutexGuard, OnceLock};

use nix::sys::stat::{Mode, mkdirat};

use crate::sandbox::classes::Classes;

/// Protected names whose absence gets an empty read-only folder while a
/// confined command runs: folders an editor, a CI system, a hook manager
/// or an agent reads programs to start from. Each must be protected by a
/// [`tool_core::PathClass`] (checked by the module's tests).
pub(crate) const PLACEHOLDERS: &[&str] = &[
    ".vscode",
    ".idea",
    ".zed",
    ".fleet",
    ".devcontainer",
    ".husky",
    ".githooks",
    ".github/workflows",
    ".github/actions",
    ".gitlab",
    ".circleci",
    ".buildkite",
    ".azure-pipelines",
    ".woodpecker",
    ".claude/hooks",
];

/// The folders made for commands now running, with how many use each.
fn active() -> MutexGuard<'static, HashMap<PathBuf, usize>> {
    static ACTIVE: OnceLock<Mutex<HashMap<PathBuf, usize>>> = OnceLock::new();
    ACTIVE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

/// The placeholder folders one command uses; released when dropped.
#[derive(Debug, Default)]
pub(crate) struct Claimed {
    paths: Vec<PathBuf>,
}

impl Claimed {
    /// The folders, for the plan's read-only entries.
    pub(crate) fn paths(&self) -> &[PathBuf] {
        &self.paths
    }
}

impl Drop for Claimed {
    fn drop(&mut self) {
        let mut active = active();
        // Deepest first: a folder made inside another goes before it.
        for path in self.paths.iter().rev() {
            let last = match active.get_mut(path) {
                Some(n) if *n > 1 => {
                    *n -= 1;
                    false
                }
                _ => true,
            };
            if last {
                active.remove(path);
                // Only an empty folder goes: anything the host put there stays.
                if let Err(e) = std::fs::remove_dir(path)
                    && e.kind() != std::io::ErrorKind::NotFound
                {
                    tracing::debug!(path = %path.display(), error = %e, "placeholder kept");
                }
            }
        }
    }
}

/// The first component of `name` missing beneath `dir`, as a path, when
/// every component before it is a real folder (no symlink, no file).
fn first_missing(dir: &Path, name: &str) -> Option<PathBuf> {
    let mut path = dir.to_path_buf();
    for part in Path::new(name).components() {
        let Component::Normal(part) = part else {
            return None;
        };
        path.push(part);
        match path.symlink_metadata() {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => return None,
            Err(_) => return Some(path),
        }
    }
    None
}

/// Makes (or shares) the placeholder folders of the places examined for
/// each of `roots` (canonical) with `cwd` (canonical) as the working
/// directory.
pub(crate) fn claim(roots: &[PathBuf], cwd: &Path, classes: &Classes) -> Claimed {
    let mut claimed = Claimed::default();
    let mut active = active();
    for root in roots {
        for dir in crate::sandbox::entries::dirs_of(root, cwd, classes) {
            for name in PLACEHOLDERS {
                let full = dir.join(name);
                // Inside a stand-in already claimed: covered by it.
                if claimed.paths.iter().any(|p| full.starts_with(p)) {
                    continue;
                }
                // At or inside a stand-in another command uses: share it,
                // never make anything in it (nor remove it under that
                // command: removing a mount point in the host detaches the
                // mount in every namespace).
                let shared = full
                    .ancestors()
                    .take_while(|a| *a != dir)
                    .find(|a| active.contains_key(*a))
                    .map(Path::to_path_buf);
                if let Some(shared) = shared {
                    if let Some(n) = active.get_mut(&shared) {
                        *n += 1;
                    }
                    claimed.paths.push(shared);
                    continue;
                }
                let Some(path) = first_missing(&dir, name) else {
                    continue;
                };
                if make(root, &path).is_ok() {
                    active.insert(path.clone(), 1);
                    claimed.paths.push(path);
                }
            }
        }
    }
    claimed
}

/// `mkdirat` of `path`'s last component in its parent, reached from
/// `root` without following symlinks.
fn make(root: &Path, path: &Path) -> std::io::Result<()> {
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(std::io::Error::other("no parent"));
    };
    let dir = crate::local::beneath::open_dir(root, parent, false)?;
    mkdirat(dir.as_fd(), name, Mode::from_bits_truncate(0o755))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::SandboxOptions;

    #[test]
    fn every_placeholder_names_a_protected_entry() {
        let classes = Classes::new(&SandboxOptions::default(), None).unwrap();
        for name in PLACEHOLDERS {
            let probe = Path::new("/ws").join(name).join("x");
            assert!(
                classes.protected(&probe).is_some(),
                "{name} is not protected"
            );
        }
    }

    #[test]
    fn placeholders_are_made_shared_and_removed_by_the_last_user() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir(root.join(".github")).unwrap();
        std::fs::write(root.join(".idea"), "a file: not a folder, left alone").unwrap();
        let classes = Classes::new(&SandboxOptions::default(), None).unwrap();
        let first = claim(std::slice::from_ref(&root), &root, &classes);
        assert!(first.paths().contains(&root.join(".vscode")));
        assert!(first.paths().contains(&root.join(".github/workflows")));
        assert!(!first.paths().contains(&root.join(".claude/hooks")));
        // Nothing made inside a stand-in of its own.
        std::fs::create_dir(root.join("sub")).unwrap();
        let nested = claim(std::slice::from_ref(&root), &root.join("sub"), &classes);
        assert!(nested.paths().contains(&root.join("sub/.github")));
        assert!(!nested.paths().contains(&root.join("sub/.github/actions")));
        drop(nested);
        assert!(!root.join("sub/.github").exists());
        assert!(first.paths().contains(&root.join(".claude")));
        assert!(
            !first
                .paths()
                .iter()
                .any(|p| p.starts_with(root.join(".idea")))
        );
        assert!(root.join(".vscode").is_dir());
        let second = claim(std::slice::from_ref(&root), &root, &classes);
        assert_eq!(first.paths(), second.paths());
        drop(first);
        assert!(root.join(".vscode").is_dir(), "still used by the second");
        drop(second);
        assert!(!root.join(".vscode").exists());
        assert!(!root.join(".github/workflows").exists());
        assert!(root.join(".github").is_dir(), "what existed stays");
        assert!(root.join(".idea").is_file());
    }
}
