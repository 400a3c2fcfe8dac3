//! The crate's only `unsafe` code: the Landlock version probe and the hook
//! that confines a child between `fork` and `exec`.
//!
//! The host is a multi-threaded tokio process. After `fork`, the child is a
//! copy with one thread, and any lock another thread held at the fork (the
//! allocator's included) stays locked forever. So the hook does no
//! allocation, takes no lock and calls only async-signal-safe syscalls
//! (`prctl`, `landlock_restrict_self`, `seccomp`) on data built before the
//! fork: the ruleset fd and the compiled filter live in the closure.

#![allow(unsafe_code)]

use std::os::fd::AsRawFd as _;

use crate::sandbox::linux::Confinement;

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

/// The `struct sock_fprog` the `seccomp` syscall takes.
#[repr(C)]
struct SockFprog {
    len: libc::c_ushort,
    filter: *const seccompiler::sock_filter,
}

/// Makes the child of `cmd` confine itself right before `exec`: no new
/// privileges, then the Landlock ruleset, then the seccomp filter. A
/// failure aborts the spawn with the errno (the command never runs
/// unconfined). The whole process tree started by the command inherits it.
pub(crate) fn confine_child(cmd: &mut tokio::process::Command, confinement: Confinement) {
    let Confinement { ruleset, filter } = confinement;
    let filter_len = filter
        .as_ref()
        .map(|f| libc::c_ushort::try_from(f.len()).unwrap_or(libc::c_ushort::MAX));
    let hook = move || -> std::io::Result<()> {
        // SAFETY: plain prctl with integer arguments; async-signal-safe.
        if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: `ruleset` is an open Landlock ruleset fd owned by this
        // closure (inherited through the fork; close-on-exec); flags 0.
        let restricted =
            unsafe { libc::syscall(libc::SYS_landlock_restrict_self, ruleset.as_raw_fd(), 0u32) };
        if restricted != 0 {
            return Err(std::io::Error::last_os_error());
        }
        if let (Some(filter), Some(len)) = (&filter, filter_len) {
            let program = SockFprog {
                len,
                filter: filter.as_ptr(),
            };
            // SAFETY: `program` points at the compiled filter, which lives
            // in this closure for the whole call; the kernel copies it.
            let installed = unsafe {
                libc::syscall(
                    libc::SYS_seccomp,
                    libc::SECCOMP_SET_MODE_FILTER,
                    0u32,
                    &program as *const SockFprog,
                )
            };
            if installed != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(())
    };
    // SAFETY: the hook runs in the forked child before exec; it allocates
    // nothing, takes no lock and makes only async-signal-safe syscalls on
    // data prepared before the fork (see the module doc).
    unsafe {
        cmd.pre_exec(hook);
    }
}
