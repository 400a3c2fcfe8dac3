//! The cgroups of one confined command, where the host may make them: a
//! pids group (the process limit that binds a root host too: the kernel
//! exempts uid 0 from `RLIMIT_NPROC`) and a memory group (the memory of
//! the whole command, all its processes together).
//!
//! Each group is made beneath the host process's own group of that
//! controller (cgroup v1's hierarchy of the controller, or cgroup v2 where
//! the controller is enabled for its children), with its limit set; the
//! command's first process moves itself in before it does anything else,
//! so every process it starts is counted. The groups are removed when the
//! command has ended. Where no group can be made (no write access, no
//! controller), the state says so and rlimits stand in
//! (`processLimit: "rlimit"`, `memoryLimit: "rlimit"`: `RLIMIT_NPROC`,
//! `RLIMIT_DATA` per process).
//!
//! How the process moves itself costs: writing `0` to cgroup v1's
//! `cgroup.procs` (or v2's) takes the kernel's cgroup-wide thread-group
//! lock, whose writer waits for an RCU grace period (~10 ms per command
//! here). On v1 the child writes `0` to `tasks` instead, which moves only
//! the calling thread and skips that lock; the child is a fresh fork with
//! one thread, so the thread is the whole process. On v2 a thread cannot
//! move on its own across groups, so `cgroup.procs` it is.
//!
//! `clone3` with `CLONE_INTO_CGROUP` (v2 only) would start the process in
//! its group instead of moving it there; it would save that write's cost,
//! not add a guarantee (nothing of the command runs before the move, and
//! every later process starts inside). The command's first process comes
//! from tokio's `fork`, which cannot be given a group, so it is not used.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A controller of a group: what it limits and how it is set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Controller {
    /// `pids`: processes and threads at once.
    Pids,
    /// `memory`: memory of the whole group.
    Memory,
}

impl Controller {
    fn name(self) -> &'static str {
        match self {
            Self::Pids => "pids",
            Self::Memory => "memory",
        }
    }

    /// The files that set `limit` (the first must take; the rest are
    /// best effort: swap accounting may be off).
    fn settings(self, v2: bool, limit: u64) -> Vec<(&'static str, String)> {
        let value = limit.to_string();
        match (self, v2) {
            (Self::Pids, _) => vec![("pids.max", value)],
            (Self::Memory, false) => vec![
                ("memory.limit_in_bytes", value.clone()),
                ("memory.memsw.limit_in_bytes", value),
            ],
            (Self::Memory, true) => vec![("memory.max", value), ("memory.swap.max", "0".into())],
        }
    }
}

/// One group made for a command: a directory in one hierarchy.
#[derive(Debug)]
struct Group {
    dir: PathBuf,
    controllers: Vec<Controller>,
    /// The file the child writes `0` to: `tasks` (v1) or `cgroup.procs`.
    join: CString,
    /// Whether the hierarchy is cgroup v2.
    v2: bool,
}

impl Group {
    /// How many times the kernel's OOM killer ended a process of the
    /// group (v1 `memory.oom_control`, v2 `memory.events`: `oom_kill N`).
    fn oom_kills(&self) -> u64 {
        let file = if self.v2 {
            "memory.events"
        } else {
            "memory.oom_control"
        };
        std::fs::read_to_string(self.dir.join(file))
            .ok()
            .and_then(|text| {
                text.lines().find_map(|line| {
                    line.strip_prefix("oom_kill ")
                        .and_then(|n| n.trim().parse().ok())
                })
            })
            .unwrap_or(0)
    }
}

/// The cgroups made for one command; removed when dropped (once empty).
#[derive(Debug, Default)]
pub(crate) struct RunGroups {
    groups: Vec<Group>,
}

impl RunGroups {
    /// The files the command's first process writes `0` to.
    pub(crate) fn joins(&self) -> Vec<CString> {
        self.groups.iter().map(|g| g.join.clone()).collect()
    }

    fn has(&self, controller: Controller) -> bool {
        self.groups
            .iter()
            .any(|g| g.controllers.contains(&controller))
    }

    /// Whether a pids group binds the command.
    pub(crate) fn limits_processes(&self) -> bool {
        self.has(Controller::Pids)
    }

    /// Whether a memory group binds the command.
    pub(crate) fn limits_memory(&self) -> bool {
        self.has(Controller::Memory)
    }

    /// Whether the kernel killed a process of the command for going over
    /// its memory limit.
    pub(crate) fn memory_exceeded(&self) -> bool {
        self.groups
            .iter()
            .filter(|g| g.controllers.contains(&Controller::Memory))
            .any(|g| g.oom_kills() > 0)
    }
}

impl Drop for RunGroups {
    fn drop(&mut self) {
        for group in &self.groups {
            // Members may take a moment to be reaped after the command ends.
            let removed = (0..50).any(|_| {
                let gone = std::fs::remove_dir(&group.dir).is_ok() || !group.dir.exists();
                if !gone {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                gone
            });
            if !removed {
                tracing::warn!(dir = %group.dir.display(), "cannot remove a command's cgroup");
            }
        }
    }
}

/// The directory of this process's group of `controller`, when it can
/// hold child groups limited by it, and whether it is cgroup v2.
fn parent(controller: Controller) -> Option<(PathBuf, bool)> {
    let text = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let name = controller.name();
    for line in text.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let rel = path.trim_start_matches('/');
        if controllers.split(',').any(|c| c == name) {
            // v1: the hierarchy is mounted under the controllers' names.
            for mount in [controllers, name] {
                let dir = Path::new("/sys/fs/cgroup").join(mount).join(rel);
                if dir.join("tasks").exists() {
                    return Some((dir, false));
                }
            }
        }
        if controllers.is_empty() {
            for mount in ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"] {
                let dir = Path::new(mount).join(rel);
                let enabled = std::fs::read_to_string(dir.join("cgroup.subtree_control"))
                    .is_ok_and(|s| s.split_whitespace().any(|c| c == name));
                if enabled {
                    return Some((dir, true));
                }
            }
        }
    }
    None
}

/// Makes the groups for one command: a pids group with `pids.max =
/// processes` and a memory group with its limit at `memory`, each where
/// the host can (an empty set where it can make none).
pub(crate) fn make(processes: Option<u64>, memory: Option<u64>) -> RunGroups {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let name = format!("tool-sandbox-{}-{n}", std::process::id());
    let mut groups: Vec<Group> = Vec::new();
    let wanted = [(Controller::Pids, processes), (Controller::Memory, memory)];
    for (controller, limit) in wanted {
        let Some(limit) = limit else { continue };
        let Some((parent, v2)) = parent(controller) else {
            continue;
        };
        let dir = parent.join(&name);
        // v2: one group holds every controller of the same hierarchy.
        let existing = groups.iter().position(|g| g.dir == dir);
        if existing.is_none() && std::fs::create_dir(&dir).is_err() {
            continue;
        }
        let settings = controller.settings(v2, limit);
        let set = settings
            .iter()
            .enumerate()
            .all(|(i, (file, value))| std::fs::write(dir.join(file), value).is_ok() || i > 0);
        match existing {
            Some(i) if set => groups[i].controllers.push(controller),
            Some(_) => {}
            None if set => {
                let join = dir.join(if v2 { "cgroup.procs" } else { "tasks" });
                match CString::new(join.as_os_str().as_bytes()) {
                    Ok(join) => groups.push(Group {
                        dir,
                        controllers: vec![controller],
                        join,
                        v2,
                    }),
                    Err(_) => {
                        let _ = std::fs::remove_dir(&dir);
                    }
                }
            }
            None => {
                let _ = std::fs::remove_dir(&dir);
            }
        }
    }
    RunGroups { groups }
}
