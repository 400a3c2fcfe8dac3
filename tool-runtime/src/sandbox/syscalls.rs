//! The crate's only `unsafe` code: the Landlock version probe, the
//! namespace (and overlay) probe, and the hook that confines a child
//! between `fork` and `exec` (mount namespace, then Landlock, then
//! seccomp).
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

use crate::sandbox::child::{Confinement, Mounts};

/// `OPEN_TREE_CLONE` from the kernel's uapi (`linux/mount.h`).
const OPEN_TREE_CLONE: libc::c_uint = 1;
/// `AT_RECURSIVE` from the kernel's uapi.
const AT_RECURSIVE: libc::c_uint = 0x8000;
/// `MOVE_MOUNT_F_EMPTY_PATH` from the kernel's uapi.
const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 0x4;
/// `MOUNT_ATTR_RDONLY` from the kernel's uapi.
const MOUNT_ATTR_RDONLY: u64 = 0x1;

/// `struct mount_attr` of `mount_setattr(2)`.
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// Whether the host process runs as root (then no user namespace is needed).
pub(crate) fn is_root() -> bool {
    // SAFETY: geteuid has no arguments and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

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

/// Enters a new mount namespace (and a user namespace first when
/// `user_namespace`, mapping the host's ids to themselves) and makes every
/// mount private.
fn enter(user_namespace: bool, uid_map: &[u8], gid_map: &[u8]) -> std::io::Result<()> {
    if user_namespace {
        // SAFETY: unshare with constant flags.
        if unsafe { libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS) } != 0 {
            return Err(errno());
        }
        write_file(c"/proc/self/setgroups", b"deny")?;
        write_file(c"/proc/self/uid_map", uid_map)?;
        write_file(c"/proc/self/gid_map", gid_map)?;
    } else {
        // SAFETY: unshare with a constant flag.
        if unsafe { libc::unshare(libc::CLONE_NEWNS) } != 0 {
            return Err(errno());
        }
    }
    // SAFETY: mount with null source/type/data changes propagation only.
    let private = unsafe {
        libc::mount(
            std::ptr::null(),
            c"/".as_ptr(),
            std::ptr::null(),
            libc::MS_REC | libc::MS_PRIVATE,
            std::ptr::null(),
        )
    };
    if private != 0 {
        return Err(errno());
    }
    Ok(())
}

/// A detached recursive clone of the mount tree at `path` (an fd).
fn clone_tree(path: &CStr) -> std::io::Result<libc::c_int> {
    // SAFETY: `path` is a valid C string; flags are constants.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_open_tree,
            libc::AT_FDCWD,
            path.as_ptr(),
            OPEN_TREE_CLONE | AT_RECURSIVE | libc::O_CLOEXEC as libc::c_uint,
        )
    };
    if fd < 0 {
        return Err(errno());
    }
    libc::c_int::try_from(fd).map_err(|_| std::io::Error::from_raw_os_error(libc::EBADF))
}

/// Sets (or clears) read-only on the mount tree at `fd` (with an empty
/// path) or at `path`, recursively.
fn set_read_only(fd: libc::c_int, path: &CStr, read_only: bool) -> std::io::Result<()> {
    set_attr(fd, path, read_only, true)
}

/// Mounts an overlay over `/tmp` with `options` (`lowerdir=/tmp,…`, built
/// before the fork).
fn overlay(options: &CStr) -> std::io::Result<()> {
    // SAFETY: constant source, target and type; `options` a valid C string.
    let mounted = unsafe {
        libc::mount(
            c"overlay".as_ptr(),
            c"/tmp".as_ptr(),
            c"overlay".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV,
            options.as_ptr().cast(),
        )
    };
    if mounted != 0 {
        return Err(errno());
    }
    Ok(())
}

/// Sets (or clears) read-only on the mount at `fd` / `path`, recursively
/// when `recursive`.
fn set_attr(fd: libc::c_int, path: &CStr, read_only: bool, recursive: bool) -> std::io::Result<()> {
    let attr = MountAttr {
        attr_set: if read_only { MOUNT_ATTR_RDONLY } else { 0 },
        attr_clr: if read_only { 0 } else { MOUNT_ATTR_RDONLY },
        propagation: 0,
        userns_fd: 0,
    };
    let flags = if recursive { AT_RECURSIVE } else { 0 }
        | if path.is_empty() {
            libc::AT_EMPTY_PATH as libc::c_uint
        } else {
            0
        };
    // SAFETY: `attr` lives for the call and its size is passed; `path` is a
    // valid C string.
    let done = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            fd,
            path.as_ptr(),
            flags,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        )
    };
    if done != 0 {
        return Err(errno());
    }
    Ok(())
}

/// Attaches the detached tree `fd` at `path` and closes `fd`.
fn attach(fd: libc::c_int, path: &CStr) -> std::io::Result<()> {
    // SAFETY: `fd` is a detached tree from open_tree; paths are C strings.
    let moved = unsafe {
        libc::syscall(
            libc::SYS_move_mount,
            fd,
            c"".as_ptr(),
            libc::AT_FDCWD,
            path.as_ptr(),
            MOVE_MOUNT_F_EMPTY_PATH,
        )
    };
    // SAFETY: closing the tree's fd; the mount stays attached.
    unsafe { libc::close(fd) };
    if moved != 0 {
        return Err(errno());
    }
    Ok(())
}

/// Binds `source` over `target` read-only.
fn bind_read_only(source: &CStr, target: &CStr) -> std::io::Result<()> {
    let fd = clone_tree(source)?;
    if let Err(e) = set_read_only(fd, c"", true) {
        // SAFETY: closing the tree's fd on the error path.
        unsafe { libc::close(fd) };
        return Err(e);
    }
    attach(fd, target)
}

/// Carries out `mounts` in the child (see the namespace module). Only
/// async-signal-safe syscalls on data built before the fork; at most 64
/// roots are cloned (more fail with `E2BIG`).
fn setup_namespace(mounts: &Mounts) -> std::io::Result<()> {
    enter(mounts.user_namespace, &mounts.uid_map, &mounts.gid_map)?;
    const MAX_ROOTS: usize = 64;
    if mounts.roots.len() > MAX_ROOTS {
        return Err(std::io::Error::from_raw_os_error(libc::E2BIG));
    }
    let mut root_fds = [-1 as libc::c_int; MAX_ROOTS];
    for (slot, root) in root_fds.iter_mut().zip(&mounts.roots) {
        *slot = clone_tree(root)?;
    }
    let mut read_fds = [-1 as libc::c_int; MAX_ROOTS];
    if mounts.tmp_read.len() > MAX_ROOTS {
        return Err(std::io::Error::from_raw_os_error(libc::E2BIG));
    }
    for (slot, path) in read_fds.iter_mut().zip(&mounts.tmp_read) {
        let fd = clone_tree(path)?;
        set_read_only(fd, c"", true)?;
        *slot = fd;
    }
    // The overlay goes on before everything turns read-only: its upper
    // layer must be writable when it is mounted (the overlay keeps its own
    // private handle on it, which the read-only pass below does not reach).
    if let Some(options) = &mounts.tmp_overlay {
        overlay(options)?;
    }
    let tmp_fd = match (&mounts.private_tmp, &mounts.tmp_overlay) {
        (Some(tmp), None) => Some(clone_tree(tmp)?),
        _ => None,
    };
    set_read_only(libc::AT_FDCWD, c"/", true)?;
    if mounts.tmp_overlay.is_some() {
        // Only the overlay itself, not what is mounted beneath it.
        set_attr(libc::AT_FDCWD, c"/tmp", false, false)?;
    }
    if let Some(fd) = tmp_fd {
        attach(fd, c"/tmp")?;
    }
    for dir in &mounts.mkdirs {
        // SAFETY: `dir` is a valid C string; EEXIST is fine.
        if unsafe { libc::mkdir(dir.as_ptr(), 0o700) } != 0
            && std::io::Error::last_os_error().raw_os_error() != Some(libc::EEXIST)
        {
            return Err(errno());
        }
    }
    for (fd, path) in read_fds.iter().zip(&mounts.tmp_read) {
        attach(*fd, path)?;
    }
    for (fd, root) in root_fds.iter().zip(&mounts.roots) {
        attach(*fd, root)?;
    }
    for entry in &mounts.protected {
        bind_read_only(entry, entry)?;
    }
    for file in &mounts.secret_files {
        bind_read_only(c"/dev/null", file)?;
    }
    for dir in &mounts.secret_dirs {
        // SAFETY: constant type and source, `dir` a valid C string.
        let masked = unsafe {
            libc::mount(
                c"none".as_ptr(),
                dir.as_ptr(),
                c"tmpfs".as_ptr(),
                libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                std::ptr::null(),
            )
        };
        if masked != 0 {
            return Err(errno());
        }
    }
    // SAFETY: `cwd` is a valid C string.
    if unsafe { libc::chdir(mounts.cwd.as_ptr()) } != 0 {
        return Err(errno());
    }
    Ok(())
}

/// Runs `true` in a child that makes a private mount namespace, to learn
/// whether the kernel (and its policy) allows it here.
/// With `overlay` (mount options), the child also mounts that overlay over
/// its `/tmp`.
pub(crate) fn probe_namespace(
    user_namespace: bool,
    overlay_options: Option<std::ffi::CString>,
) -> std::io::Result<()> {
    let (uid, gid) = ids();
    let uid_map = format!("{uid} {uid} 1").into_bytes();
    let gid_map = format!("{gid} {gid} 1").into_bytes();
    let mut cmd = std::process::Command::new("true");
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let hook = move || {
        enter(user_namespace, &uid_map, &gid_map)?;
        match &overlay_options {
            Some(options) => overlay(options),
            None => Ok(()),
        }
    };
    // SAFETY: the hook runs in the forked child before exec and makes only
    // async-signal-safe syscalls (unshare, open/write/close, mount) on data
    // built before the fork.
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

/// Makes the child of `cmd` confine itself right before `exec`: no new
/// privileges, then the Landlock ruleset, then the seccomp filter. A
/// failure aborts the spawn with the errno (the command never runs
/// unconfined). The whole process tree started by the command inherits it.
pub(crate) fn confine_child(cmd: &mut tokio::process::Command, confinement: Confinement) {
    let Confinement {
        ruleset,
        filter,
        mounts,
        tmp_access,
    } = confinement;
    let filter_len = filter
        .as_ref()
        .map(|f| libc::c_ushort::try_from(f.len()).unwrap_or(libc::c_ushort::MAX));
    let hook = move || -> std::io::Result<()> {
        if let Some(mounts) = &mounts {
            setup_namespace(mounts)?;
            if mounts.tmp_overlay.is_some() {
                allow_beneath(ruleset.as_raw_fd(), c"/tmp", tmp_access)?;
            }
        }
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
