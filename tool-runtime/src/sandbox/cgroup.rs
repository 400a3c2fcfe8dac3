//! A pids cgroup per confined command, where the host may make one: the
//! process limit that binds a root host too (the kernel exempts uid 0 from
//! `RLIMIT_NPROC`).
//!
//! The group is made beneath the host process's own pids cgroup (cgroup
//! v1's `pids` hierarchy, or cgroup v2 where `pids` is enabled for its
//! children), with `pids.max` set to the limit; the command's first
//! process moves itself in (writing `0` to `cgroup.procs`) before it does
//! anything else, so every process it starts is counted. The group is
//! removed when the command has ended. Where no such group can be made
//! (no write access, no controller), the rlimit alone applies and the
//! state says `processLimit: "rlimit"` instead of `"cgroup"`.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A pids cgroup made for one command; removed when dropped (once empty).
#[derive(Debug)]
pub(crate) struct PidsGroup {
    dir: PathBuf,
    /// `<dir>/cgroup.procs`, for the child to write to.
    pub(crate) procs: CString,
}

impl Drop for PidsGroup {
    fn drop(&mut self) {
        // Members may take a moment to be reaped after the command ends.
        for _ in 0..50 {
            if std::fs::remove_dir(&self.dir).is_ok() || !self.dir.exists() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        tracing::warn!(dir = %self.dir.display(), "cannot remove a command's pids cgroup");
    }
}

/// The directory of this process's pids cgroup, when it can hold child
/// groups with a pids limit.
fn parent() -> Option<PathBuf> {
    let text = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    for line in text.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let rel = path.trim_start_matches('/');
        if controllers.split(',').any(|c| c == "pids") {
            let dir = Path::new("/sys/fs/cgroup/pids").join(rel);
            if dir.join("cgroup.procs").exists() {
                return Some(dir);
            }
        }
        if controllers.is_empty() {
            for mount in ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"] {
                let dir = Path::new(mount).join(rel);
                let enabled = std::fs::read_to_string(dir.join("cgroup.subtree_control"))
                    .is_ok_and(|s| s.split_whitespace().any(|c| c == "pids"));
                if enabled {
                    return Some(dir);
                }
            }
        }
    }
    None
}

/// Makes a pids cgroup with `pids.max = limit` for one command, or `None`
/// where the host cannot.
pub(crate) fn make(limit: u64) -> Option<PidsGroup> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let parent = parent()?;
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = parent.join(format!("tool-sandbox-{}-{n}", std::process::id()));
    std::fs::create_dir(&dir).ok()?;
    let group = PidsGroup {
        procs: CString::new(dir.join("cgroup.procs").as_os_str().as_bytes()).ok()?,
        dir,
    };
    std::fs::write(group.dir.join("pids.max"), limit.to_string()).ok()?;
    Some(group)
}
