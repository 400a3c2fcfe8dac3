//! The computer's private temp dir, and the ones that hosts which ended
//! without cleaning up (killed, or ended by a signal they do not handle)
//! left behind.
//!
//! Each private temp dir holds a lock file that its computer keeps locked
//! (`flock`) as long as it lives. When a computer makes its own, it first
//! removes every `tool-sandbox-*` folder of the system temp dir that
//! belongs to the same user and whose lock nobody holds: its host is gone.
//! A folder without a lock file (another program's, or a probe's) is left
//! alone. A host's registry of socket stand-ins is such a folder too: the
//! sockets it lists are removed before it (the sandbox's private
//! `stand_in_registry` module).

use std::fs::File;
use std::os::unix::fs::MetadataExt as _;
use std::path::Path;

/// The prefix of private temp dirs (and of the registries of socket
/// stand-ins, which the sweep removes alike).
const PREFIX: &str = crate::sandbox::HOST_DIR_PREFIX;
/// The lock file in each.
const LOCK: &str = crate::sandbox::HOST_LOCK;
/// Entries of the system temp dir examined at most when sweeping.
const MAX_ENTRIES: usize = 10_000;

/// A computer's private temp dir, locked while it lives.
#[derive(Debug)]
pub(crate) struct PrivateTmp {
    dir: tempfile::TempDir,
    _lock: File,
}

impl PrivateTmp {
    /// Removes the stale private temp dirs, then makes this computer's.
    pub(crate) fn make() -> Option<Self> {
        sweep_stale(&std::env::temp_dir());
        let dir = tempfile::Builder::new().prefix(PREFIX).tempdir().ok()?;
        let lock = File::create(dir.path().join(LOCK)).ok()?;
        lock.try_lock().ok()?;
        Some(Self { dir, _lock: lock })
    }

    /// Where it is.
    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// Removes the private temp dirs under `temp` of this user whose lock no
/// live computer holds.
pub(crate) fn sweep_stale(temp: &Path) {
    let Ok(me) = std::fs::metadata("/proc/self").map(|m| m.uid()) else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(temp) else {
        return;
    };
    for entry in entries.flatten().take(MAX_ENTRIES) {
        if !entry.file_name().to_string_lossy().starts_with(PREFIX) {
            continue;
        }
        let path = entry.path();
        let Ok(meta) = path.symlink_metadata() else {
            continue;
        };
        if !meta.is_dir() || meta.uid() != me {
            continue;
        }
        let Ok(lock) = File::open(path.join(LOCK)) else {
            continue;
        };
        if lock.try_lock().is_ok() {
            crate::sandbox::remove_dead_hosts_file_stand_ins(&path);
            crate::sandbox::make_removable(&path);
            if let Err(e) = std::fs::remove_dir_all(&path) {
                tracing::warn!(dir = %path.display(), error = %e, "cannot remove a stale private temp dir");
            }
        }
    }
}
