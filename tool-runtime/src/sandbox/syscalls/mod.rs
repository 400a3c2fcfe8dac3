//! The crate's only `unsafe` code: the Landlock version probe, the
//! namespace (and overlay) probe, and the hook that confines a child
//! between `fork` and `exec` (namespaces and mounts, then capabilities
//! dropped, limits, Landlock, seccomp).
//!
//! With namespaces a confined command is three processes:
//!
//! 1. the child `tokio` spawns (the process group leader the host waits
//!    on and signals) enters new user, mount and PID namespaces, forks,
//!    and then only waits: it ignores `SIGTERM`, `SIGINT`, `SIGHUP` and
//!    `SIGQUIT` (the command gets them through the group), reads the
//!    command's wait status from a pipe and ends the same way (same exit
//!    code, or the same signal);
//! 2. its child is PID 1 of the new PID namespace (it dies with its
//!    parent, `PR_SET_PDEATHSIG`): it builds the mounts (a fresh `/proc`
//!    needs a process inside the namespace), forks the command, reaps
//!    orphans until the command has ended, and reports its status. When
//!    it exits the kernel kills whatever is left in the namespace, so
//!    nothing the command started (`setsid`, `nohup`, a double fork)
//!    outlives it;
//! 3. the command drops every capability, sets its limits and
//!    `no_new_privs`, restricts itself with Landlock and seccomp, and
//!    `exec`s.
//!
//! Errors in 1–3 before `exec` reach the host through the standard
//! library's error pipe: the spawn fails with the errno.
//!
//! The host is a multi-threaded tokio process. After `fork`, the child is a
//! copy with one thread, and any lock another thread held at the fork (the
//! allocator's included) stays locked forever. So the hook does no
//! allocation, takes no lock and calls only async-signal-safe syscalls
//! (`prctl`, `landlock_restrict_self`, `seccomp`) on data built before the
//! fork: the ruleset fd and the compiled filter live in the closure.

#![allow(unsafe_code)]

use std::os::fd::AsRawFd as _;

use std::ffi::CStr;

mod mounts;
mod netns;
#[cfg(feature = "egress")]
pub(crate) use netns::receive_listener;

use mounts::{clone_one, enter, fresh_dev, mount_fs, overlay, set_read_only, setup_namespace};

use crate::sandbox::child::Confinement;

/// The host's real uid and gid.
pub(crate) fn ids() -> (u32, u32) {
    // SAFETY: getuid and getgid have no arguments and cannot fail.
    unsafe { (libc::getuid(), libc::getgid()) }
}

/// Returns the errno of the last failed call.
fn errno() -> std::io::Error {
    std::io::Error::last_os_error()
}

/// Writes `bytes` to the file at `path` (open, write, close: all
/// async-signal-safe).
fn write_file(path: &CStr, bytes: &[u8]) -> std::io::Result<()> {
    // SAFETY: `path` is a valid C string; flags are plain integers.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(errno());
    }
    // SAFETY: `bytes` is valid for its length; `fd` was just opened.
    let written = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
    // SAFETY: closing the fd opened above.
    unsafe { libc::close(fd) };
    if written < 0 || written as usize != bytes.len() {
        return Err(errno());
    }
    Ok(())
}

/// Closes every descriptor but `keep` (stdio included).
fn close_all_but(keep: libc::c_int) {
    // SAFETY: close_range on plain integer ranges; an error leaves
    // descriptors open, which only delays the host's end-of-file.
    unsafe {
        if keep > 0 {
            libc::syscall(
                libc::SYS_close_range,
                0u32,
                (keep - 1) as libc::c_uint,
                0u32,
            );
        }
        libc::syscall(
            libc::SYS_close_range,
            (keep + 1) as libc::c_uint,
            libc::c_uint::MAX,
            0u32,
        );
    }
}

/// Ends this process as `status` (a wait status) says: the same exit
/// code, or the same signal.
fn exit_as(status: libc::c_int) -> ! {
    if libc::WIFSIGNALED(status) {
        let signal = libc::WTERMSIG(status);
        // SAFETY: resetting a disposition and signalling oneself.
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            libc::kill(libc::getpid(), signal);
            libc::_exit(128 + signal);
        }
    }
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        1
    };
    // SAFETY: _exit never returns and runs no destructors.
    unsafe { libc::_exit(code) }
}

/// Runs `setup` as PID 1 of new user, mount and PID namespaces (and a
/// network namespace handing its listener out over `egress`), then
/// `confine` in the command's process, which returns to `exec` (see the
/// module guide for the three processes). Returns only in the command's
/// process (or with an error before it exists).
fn in_namespaces(
    uid_map: &[u8],
    gid_map: &[u8],
    egress: Option<(libc::c_int, u16)>,
    setup: impl Fn() -> std::io::Result<()>,
    confine: impl Fn() -> std::io::Result<()>,
) -> std::io::Result<()> {
    enter(uid_map, gid_map, egress.is_some())?;
    if let Some((channel, port)) = egress {
        // A new network namespace: loopback only, and on it the proxy's
        // listener, which the host serves.
        netns::hand_out_listener(channel, port)?;
    }
    let mut pipe = [-1 as libc::c_int; 2];
    // SAFETY: `pipe` has room for the two descriptors.
    if unsafe { libc::pipe2(pipe.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(errno());
    }
    let [status_read, status_write] = pipe;
    // SAFETY: fork in a single-threaded child; both sides only make
    // async-signal-safe calls afterwards.
    let init = unsafe { libc::fork() };
    if init < 0 {
        return Err(errno());
    }
    if init > 0 {
        // The waiter outside: the group's signals are the command's. Not
        // dumpable: its memory and environment are the host's.
        // SAFETY: plain signal-disposition changes and descriptor work.
        unsafe {
            libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
            for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGQUIT] {
                libc::signal(signal, libc::SIG_IGN);
            }
        }
        close_all_but(status_read);
        let mut status: libc::c_int = 0;
        // SAFETY: reading at most the size of `status` into it.
        let read = loop {
            let n = unsafe {
                libc::read(
                    status_read,
                    (&mut status as *mut libc::c_int).cast(),
                    std::mem::size_of::<libc::c_int>(),
                )
            };
            if n >= 0 || errno().raw_os_error() != Some(libc::EINTR) {
                break n;
            }
        };
        let mut init_status = 0;
        // SAFETY: waiting for the child forked above.
        unsafe { libc::waitpid(init, &mut init_status, 0) };
        if read != std::mem::size_of::<libc::c_int>() as isize {
            // PID 1 ended without a report (killed): end as it did.
            exit_as(init_status);
        }
        exit_as(status);
    }
    // PID 1 of the new namespace: dies with the waiter; not dumpable (a
    // copy of the host's memory and environment).
    // SAFETY: prctl and close with integer arguments.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
        libc::close(status_read);
    }
    setup()?;
    // SAFETY: fork in a single-threaded process, as above.
    let command = unsafe { libc::fork() };
    if command < 0 {
        return Err(errno());
    }
    if command == 0 {
        // SAFETY: closing the report pipe, which the command must not hold.
        unsafe { libc::close(status_write) };
        return confine();
    }
    close_all_but(status_write);
    let mut status: libc::c_int = 0;
    loop {
        let mut reaped: libc::c_int = 0;
        // SAFETY: waiting for any child; `reaped` receives its status.
        let pid = unsafe { libc::waitpid(-1, &mut reaped, 0) };
        if pid == command {
            status = reaped;
            break;
        }
        if pid < 0 && errno().raw_os_error() != Some(libc::EINTR) {
            break;
        }
    }
    // SAFETY: writing the status to the waiter, then ending PID 1 (which
    // kills whatever the command left in the namespace).
    unsafe {
        libc::write(
            status_write,
            (&status as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>(),
        );
        libc::_exit(0)
    }
}

/// Runs `true` in the namespaces a confined command gets (fresh `/proc`
/// and `/dev` included), to learn whether the kernel (and its policy)
/// allows them here. With `overlay` (mount options), the child also mounts
/// that overlay over its `/tmp`; with `network`, it also makes the network
/// namespace egress by name needs.
pub(crate) fn probe_namespace(
    overlay_options: Option<std::ffi::CString>,
    network: bool,
) -> std::io::Result<()> {
    // With `network`: a network namespace too, its loopback up and a
    // listener handed out over a channel nobody reads (the egress path).
    let channel = if network {
        Some(std::os::unix::net::UnixStream::pair()?)
    } else {
        None
    };
    let egress = channel
        .as_ref()
        .map(|(_, child)| (child.as_raw_fd(), netns::PROBE_PORT));
    let (uid, gid) = ids();
    let uid_map = format!("{uid} {uid} 1").into_bytes();
    let gid_map = format!("{gid} {gid} 1").into_bytes();
    let devices = vec![std::ffi::CString::from(c"/dev/null")];
    let mut cmd = std::process::Command::new("true");
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let hook = move || {
        let setup = || {
            let null = clone_one(c"/dev/null")?;
            if let Some(options) = &overlay_options {
                overlay(options)?;
            }
            set_read_only(libc::AT_FDCWD, c"/", true)?;
            fresh_dev(&[null], &devices)?;
            mount_fs(
                c"proc",
                c"/proc",
                libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                c"",
            )
        };
        in_namespaces(&uid_map, &gid_map, egress, setup, drop_capabilities)
    };
    // SAFETY: the hook runs in the forked child before exec and makes only
    // async-signal-safe syscalls on data built before the fork.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut cmd, hook);
    }
    let status = cmd.status()?;
    if status.success() {
        Ok(())
    } else {
        Err(std::io::Error::other(format!(
            "the probe child exited with {status}"
        )))
    }
}

/// `struct __user_cap_header_struct`.
#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

/// `struct __user_cap_data_struct`.
#[repr(C)]
#[derive(Clone, Copy)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// `_LINUX_CAPABILITY_VERSION_3`.
const CAPABILITY_VERSION_3: u32 = 0x2008_0522;
/// `SECBIT_NOROOT`, `SECBIT_NO_SETUID_FIXUP`, `SECBIT_NO_CAP_AMBIENT_RAISE`
/// and their locks, and `SECBIT_KEEP_CAPS_LOCKED`: root regains nothing
/// at `exec`, and nobody can change that.
const SECURE_BITS: libc::c_ulong = 0b1110_1111;

/// Drops every capability for good: the bounding and ambient sets emptied,
/// the secure bits that keep root from regaining them at `exec` set and
/// locked (where allowed: an unprivileged process has nothing to drop from
/// those), then the effective, permitted and inheritable sets emptied.
fn drop_capabilities() -> std::io::Result<()> {
    // SAFETY: prctl and capset with integer arguments and a header and
    // data that live for the call.
    unsafe {
        libc::prctl(libc::PR_SET_SECUREBITS, SECURE_BITS, 0, 0, 0);
        for cap in 0..64 {
            libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0);
        }
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        );
        let header = CapHeader {
            version: CAPABILITY_VERSION_3,
            pid: 0,
        };
        let data = [CapData {
            effective: 0,
            permitted: 0,
            inheritable: 0,
        }; 2];
        if libc::syscall(libc::SYS_capset, &header as *const CapHeader, data.as_ptr()) != 0 {
            return Err(errno());
        }
    }
    Ok(())
}

/// `LANDLOCK_CREATE_RULESET_VERSION` from the kernel's uapi.
const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;

/// The running kernel's Landlock ABI version, or the errno that says why
/// there is none (`ENOSYS`: not built in; `EOPNOTSUPP`: disabled at boot).
pub(crate) fn landlock_abi() -> Result<i32, std::io::Error> {
    // SAFETY: with a null attribute pointer, size 0 and the VERSION flag
    // the kernel only returns a number; no memory is read or written.
    let version = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    if version < 0 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(i32::try_from(version).unwrap_or(i32::MAX))
    }
}

/// `LANDLOCK_RULE_PATH_BENEATH` from the kernel's uapi.
const LANDLOCK_RULE_PATH_BENEATH: libc::c_uint = 1;

/// `struct landlock_path_beneath_attr` (packed in the uapi).
#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

/// Adds to `ruleset` a rule granting `access` beneath `path` (as the child
/// sees it, after its mounts): open with `O_PATH`, add, close.
fn allow_beneath(ruleset: libc::c_int, path: &CStr, access: u64) -> std::io::Result<()> {
    // SAFETY: `path` is a valid C string; flags are constants.
    let fd = unsafe {
        libc::open(
            path.as_ptr(),
            libc::O_PATH | libc::O_CLOEXEC | libc::O_DIRECTORY,
        )
    };
    if fd < 0 {
        return Err(errno());
    }
    let attr = PathBeneathAttr {
        allowed_access: access,
        parent_fd: fd,
    };
    // SAFETY: `attr` lives for the call; the kernel copies it.
    let added = unsafe {
        libc::syscall(
            libc::SYS_landlock_add_rule,
            ruleset,
            LANDLOCK_RULE_PATH_BENEATH,
            &attr as *const PathBeneathAttr,
            0u32,
        )
    };
    let failure = errno();
    // SAFETY: closing the fd opened above.
    unsafe { libc::close(fd) };
    if added != 0 {
        return Err(failure);
    }
    Ok(())
}

/// The `struct sock_fprog` the `seccomp` syscall takes.
#[repr(C)]
struct SockFprog {
    len: libc::c_ushort,
    filter: *const seccompiler::sock_filter,
}

/// Makes the child of `cmd` confine itself right before `exec`: with
/// namespaces, the three processes of the module guide; then capabilities
/// dropped, limits, `no_new_privs`, the Landlock ruleset and the seccomp
/// filter. A failure aborts the spawn with the errno (the command never
/// runs unconfined). The whole process tree started by the command
/// inherits it.
pub(crate) fn confine_child(cmd: &mut tokio::process::Command, confinement: Confinement) {
    let Confinement {
        ruleset,
        filters,
        mounts,
        tmp_access,
        read_access,
        device_access,
        limits,
        cgroup_joins,
        egress,
    } = confinement;

    let hook = move || -> std::io::Result<()> {
        let confine = || -> std::io::Result<()> {
            if let Some(mounts) = &mounts {
                if mounts.tmp_overlay.is_some() {
                    allow_beneath(ruleset.as_raw_fd(), c"/tmp", tmp_access)?;
                }
                allow_beneath(ruleset.as_raw_fd(), c"/proc", read_access)?;
                allow_beneath(ruleset.as_raw_fd(), c"/dev", read_access)?;
                allow_beneath(ruleset.as_raw_fd(), c"/dev/shm", tmp_access)?;
                allow_beneath(ruleset.as_raw_fd(), c"/dev/pts", device_access)?;
            }
            drop_capabilities()?;
            for (resource, soft, hard) in &limits {
                let limit = libc::rlimit {
                    rlim_cur: *soft,
                    rlim_max: *hard,
                };
                // SAFETY: `limit` lives for the call.
                if unsafe { libc::setrlimit(*resource, &limit) } != 0 {
                    return Err(errno());
                }
            }
            // SAFETY: plain prctl with integer arguments; async-signal-safe.
            if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
                return Err(errno());
            }
            // SAFETY: `ruleset` is an open Landlock ruleset fd owned by this
            // closure (inherited through the fork; close-on-exec); flags 0.
            let restricted = unsafe {
                libc::syscall(libc::SYS_landlock_restrict_self, ruleset.as_raw_fd(), 0u32)
            };
            if restricted != 0 {
                return Err(errno());
            }
            for filter in &filters {
                let program = SockFprog {
                    len: libc::c_ushort::try_from(filter.len()).unwrap_or(libc::c_ushort::MAX),
                    filter: filter.as_ptr(),
                };
                // SAFETY: `program` points at a compiled filter, which
                // lives in this closure for the whole call; the kernel
                // copies it.
                let installed = unsafe {
                    libc::syscall(
                        libc::SYS_seccomp,
                        libc::SECCOMP_SET_MODE_FILTER,
                        0u32,
                        &program as *const SockFprog,
                    )
                };
                if installed != 0 {
                    return Err(errno());
                }
            }
            Ok(())
        };
        // Into the cgroups first: everything started from here on counts.
        for join in &cgroup_joins {
            write_file(join, b"0")?;
        }
        match &mounts {
            Some(m) => in_namespaces(
                &m.uid_map,
                &m.gid_map,
                // The channel itself lives in this closure until the spawn.
                egress.as_ref().map(|e| (e.channel_fd(), e.port)),
                || setup_namespace(m),
                confine,
            ),
            None => confine(),
        }
    };
    // SAFETY: the hook runs in the forked child before exec; it allocates
    // nothing, takes no lock and makes only async-signal-safe syscalls on
    // data prepared before the fork (see the module doc).
    unsafe {
        cmd.pre_exec(hook);
    }
}
