//! The process limit of a run that gets no pids cgroup, on a kernel whose
//! PID namespaces each have their own `pid_max` (Linux 6.14 and later).
//!
//! Without a cgroup the process limit was `RLIMIT_NPROC` alone, which the
//! kernel does not apply to uid 0 of the initial user namespace: a root
//! host in a container without cgroup access had no process limit. Every
//! confined run with namespaces has a PID namespace of its own, and since
//! 6.14 the namespace's `/proc/sys/kernel/pid_max` bounds the numbers it
//! hands out: the child that mounts the run's fresh `/proc` (it holds
//! `CAP_SYS_ADMIN` over the namespace then, and drops it before `exec`)
//! writes `processes + 1` there, so at most `processes` tasks (processes
//! and threads, PID 1 included) live in the run at once. The kernel's
//! floor for `pid_max` is 301, so a smaller limit binds at 300; and once
//! the numbers wrap, the kernel does not reuse those below 300, so a run
//! that outlives many processes keeps fewer (`processes − 299` at worst),
//! never more. The command cannot raise it: it has no capability left.
//! On an older kernel the file is the whole machine's and the namespace
//! may not write it, so the limit stays `RLIMIT_NPROC`.

use std::sync::OnceLock;

/// The smallest `pid_max` the kernel takes (`RESERVED_PIDS + 1`).
const FLOOR: u64 = 301;
/// The largest (`PID_MAX_LIMIT` on 64-bit).
const CEILING: u64 = 4 * 1024 * 1024;

/// Whether this kernel gives each PID namespace its own `pid_max`.
pub(crate) fn supported() -> bool {
    static SUPPORTED: OnceLock<bool> = OnceLock::new();
    *SUPPORTED.get_or_init(|| release().is_some_and(|r| at_least(&r, (6, 14))))
}

/// The `pid_max` text (`"<n>\n"`) that lets at most `processes` tasks
/// live in the namespace (300 when fewer are asked: the kernel's floor).
pub(crate) fn pid_max_text(processes: u64) -> Vec<u8> {
    let value = processes.saturating_add(1).clamp(FLOOR, CEILING);
    format!("{value}\n").into_bytes()
}

/// The kernel's release (`uname -r`), as `/proc` gives it.
fn release() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/osrelease").ok()
}

/// Whether a release such as `6.18.44-fc-v1300` is at least `wanted`.
fn at_least(release: &str, wanted: (u32, u32)) -> bool {
    let mut parts = release.split(|c: char| !c.is_ascii_digit());
    let major = parts.next().and_then(|p| p.parse::<u32>().ok());
    let minor = parts.next().and_then(|p| p.parse::<u32>().ok());
    match (major, minor) {
        (Some(major), Some(minor)) => (major, minor) >= wanted,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_are_compared_by_major_and_minor() {
        assert!(at_least("6.14.0", (6, 14)));
        assert!(at_least("6.18.44-fc-v1300", (6, 14)));
        assert!(at_least("7.0-rc1", (6, 14)));
        assert!(!at_least("6.13.12-arch1", (6, 14)));
        assert!(!at_least("5.15.0-91-generic", (6, 14)));
        assert!(!at_least("4.4.0", (6, 14)));
        assert!(!at_least("", (6, 14)));
        assert!(!at_least("linux", (6, 14)));
    }

    #[test]
    fn the_text_is_the_limit_plus_pid_1_within_the_kernels_bounds() {
        assert_eq!(pid_max_text(1024), b"1025\n");
        assert_eq!(pid_max_text(10), b"301\n");
        assert_eq!(pid_max_text(u64::MAX), b"4194304\n");
    }
}
