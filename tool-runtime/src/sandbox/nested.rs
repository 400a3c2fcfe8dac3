//! Repositories nested in a writable root, looked for one and two folders
//! below its top at every confined command (before it, for their code
//! parts, and after it, for a repository it created), and remembered per
//! root between commands while nothing they depend on has changed.
//!
//! The search lists the root and each folder at its top and looks for a
//! `.git` in each folder of those two levels. What it found stays right as
//! long as none of those folders gained, lost or renamed an entry, which
//! the kernel marks by setting the folder's change time (`ctime`: a
//! command cannot set it back, unlike the modification time). So each
//! folder's identity and change time is taken *before* it is read, and a
//! later command checks them with one `lstat` each instead of listing
//! them again; any difference means a new search.
//!
//! A change right after the search could carry the same change time as
//! the one taken (time stamps are as coarse as the kernel's clock tick,
//! and a second on file systems without nanoseconds), so a search is only
//! remembered when every change time it took lies well before it began
//! ([`RECENT`], or [`RECENT_COARSE`] for a time stamp without
//! nanoseconds), and only on local file systems (a network file system's
//! times come from another clock). A search that stopped at its budget is
//! never remembered.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, SystemTime};

/// Folders looked into at most, per root, for nested repositories (two
/// levels below the root's top; see [`nested_git`]).
pub(crate) const MAX_NESTED_PROBES: usize = 1_024;

/// Folders never looked into for nested repositories: package and build
/// trees (their size must not make a command slower) and git's own.
const NESTED_SKIP: &[&str] = &[
    "node_modules",
    "target",
    ".git",
    ".venv",
    "venv",
    "__pycache__",
    ".tox",
];

/// How long before a search a change time with nanoseconds must lie for
/// the search to be remembered: well over a clock tick.
const RECENT: Duration = Duration::from_millis(100);

/// The same for a change time without nanoseconds (a file system keeping
/// whole seconds, or two).
const RECENT_COARSE: Duration = Duration::from_secs(3);

/// Roots remembered at most (then the memory starts over).
const MAX_ROOTS: usize = 64;

/// A folder's identity and change time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    dev: u64,
    ino: u64,
    ctime: i64,
    ctime_nsec: i64,
}

impl Stamp {
    fn of(path: &Path) -> Option<Self> {
        let meta = path.symlink_metadata().ok()?;
        Some(Self {
            dev: meta.dev(),
            ino: meta.ino(),
            ctime: meta.ctime(),
            ctime_nsec: meta.ctime_nsec(),
        })
    }

    /// Whether a change after `began` could not carry this change time.
    fn settled(&self, began: SystemTime) -> bool {
        let recent = if self.ctime_nsec == 0 {
            RECENT_COARSE
        } else {
            RECENT
        };
        let Ok(secs) = u64::try_from(self.ctime) else {
            return false;
        };
        let nanos = u32::try_from(self.ctime_nsec).unwrap_or(0);
        let changed = SystemTime::UNIX_EPOCH + Duration::new(secs, nanos);
        changed + recent < began
    }
}

/// One root's remembered search.
#[derive(Debug, Clone)]
struct Search {
    found: Vec<PathBuf>,
    /// Every folder read, with its stamp taken before it was read; a
    /// folder that could not be read has none (`None`).
    looked: Vec<(PathBuf, Option<Stamp>)>,
}

impl Search {
    fn still_valid(&self) -> bool {
        self.looked
            .iter()
            .all(|(path, stamp)| Stamp::of(path) == *stamp)
    }
}

fn remembered() -> MutexGuard<'static, HashMap<PathBuf, Search>> {
    static SEARCHES: OnceLock<Mutex<HashMap<PathBuf, Search>>> = OnceLock::new();
    SEARCHES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

/// Whether `root` lies on a local file system whose change times come
/// from this machine's clock (elsewhere than Linux: never assumed).
#[cfg(not(target_os = "linux"))]
fn local_file_system(_root: &Path) -> bool {
    false
}

/// Whether `root` lies on a local file system whose change times come
/// from this machine's clock.
#[cfg(target_os = "linux")]
fn local_file_system(root: &Path) -> bool {
    use nix::sys::statfs::{
        BTRFS_SUPER_MAGIC, EXT4_SUPER_MAGIC, F2FS_SUPER_MAGIC, OVERLAYFS_SUPER_MAGIC, TMPFS_MAGIC,
        XFS_SUPER_MAGIC,
    };
    nix::sys::statfs::statfs(root).is_ok_and(|fs| {
        [
            EXT4_SUPER_MAGIC,
            XFS_SUPER_MAGIC,
            BTRFS_SUPER_MAGIC,
            TMPFS_MAGIC,
            OVERLAYFS_SUPER_MAGIC,
            F2FS_SUPER_MAGIC,
        ]
        .contains(&fs.filesystem_type())
    })
}

/// The `.git` entries of the repositories nested in `root` at most two
/// folders deep (`sub/.git`, `vendor/lib/.git`), never inside the
/// [`NESTED_SKIP`] folders; one listing of the root and of each folder at
/// its top, one `lstat` per folder, at most [`MAX_NESTED_PROBES`] folders
/// (then the second value is `true`). The cost grows with the number of
/// folders in those two levels, not with the workspace; when the last
/// search of `root` still holds (see the module), one `lstat` per folder
/// it read.
pub(crate) fn nested_git(root: &Path) -> (Vec<PathBuf>, bool) {
    let known = remembered().get(root).cloned();
    if let Some(search) = known
        && search.still_valid()
    {
        return (search.found, false);
    }
    let began = SystemTime::now();
    let (search, truncated) = search(root);
    let settled = search
        .looked
        .iter()
        .all(|(_, stamp)| stamp.is_none_or(|s| s.settled(began)));
    let mut remembered = remembered();
    if truncated || !settled || !local_file_system(root) {
        remembered.remove(root);
    } else {
        if remembered.len() >= MAX_ROOTS {
            remembered.clear();
        }
        remembered.insert(root.to_path_buf(), search.clone());
    }
    (search.found, truncated)
}

/// The search itself (see [`nested_git`]), with each folder's stamp
/// taken before the folder is read.
fn search(root: &Path) -> (Search, bool) {
    let mut out = Search {
        found: Vec::new(),
        looked: Vec::new(),
    };
    let mut budget = MAX_NESTED_PROBES;
    out.looked.push((root.to_path_buf(), Stamp::of(root)));
    let mut level = vec![root.to_path_buf()];
    for depth in 0..2 {
        let mut next = Vec::new();
        for dir in &level {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            for entry in entries.flatten() {
                // The entry's type from the listing: no `stat`, symlinks
                // not followed.
                if !entry.file_type().is_ok_and(|t| t.is_dir()) {
                    continue;
                }
                let name = entry.file_name();
                if NESTED_SKIP.iter().any(|s| name.eq_ignore_ascii_case(s)) {
                    continue;
                }
                let Some(left) = budget.checked_sub(1) else {
                    return (out, true);
                };
                budget = left;
                let path = entry.path();
                // Before its `.git` is looked for (and, one level down,
                // before it is listed).
                out.looked.push((path.clone(), Stamp::of(&path)));
                let git = path.join(".git");
                if git.symlink_metadata().is_ok() {
                    out.found.push(git);
                }
                if depth == 0 {
                    next.push(path);
                }
            }
        }
        level = next;
    }
    (out, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remembered_search_sees_a_repository_made_since() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        for d in ["a/b", "c", "node_modules/x"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        std::fs::create_dir_all(root.join("node_modules/x/.git")).unwrap();
        assert_eq!(nested_git(&root), (Vec::new(), false));
        // Once the folders' change times are old enough, it is remembered.
        std::thread::sleep(RECENT * 2);
        assert_eq!(nested_git(&root), (Vec::new(), false));
        let remembered_now = remembered().contains_key(&root);
        // A new repository two folders deep changes `a/b` only.
        std::fs::create_dir(root.join("a/b/.git")).unwrap();
        assert_eq!(nested_git(&root).0, vec![root.join("a/b/.git")]);
        // One folder deep, and through a renamed folder.
        std::fs::create_dir_all(root.join("elsewhere/.git")).unwrap();
        std::thread::sleep(RECENT * 2);
        let _ = nested_git(&root);
        std::fs::rename(root.join("elsewhere"), root.join("c/moved")).unwrap();
        let mut found = nested_git(&root).0;
        found.sort();
        assert_eq!(
            found,
            vec![root.join("a/b/.git"), root.join("c/moved/.git")]
        );
        // On a file system with nanosecond times (tmpfs, ext4 with large
        // inodes), the settled search was remembered.
        let nanos = Stamp::of(&root).is_some_and(|s| s.ctime_nsec != 0);
        if nanos && local_file_system(&root) {
            assert!(remembered_now);
        }
    }
}
