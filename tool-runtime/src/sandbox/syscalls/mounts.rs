//! The mounts of a confined command's namespace, made in PID 1 of it: the
//! clones, binds, overlay, fresh `/dev` and `/proc` the
//! [namespace](crate::sandbox) plan asks for. Part of the crate's only
//! `unsafe` module (see its guide): async-signal-safe syscalls on data
//! built before the fork, nothing allocated.

use std::ffi::CStr;

use super::{errno, write_file};
use crate::sandbox::child::Mounts;

/// `OPEN_TREE_CLONE` from the kernel's uapi (`linux/mount.h`).
const OPEN_TREE_CLONE: libc::c_uint = 1;
/// `AT_RECURSIVE` from the kernel's uapi.
const AT_RECURSIVE: libc::c_uint = 0x8000;
/// `MOVE_MOUNT_F_EMPTY_PATH` from the kernel's uapi.
const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 0x4;
/// `MOUNT_ATTR_RDONLY` from the kernel's uapi.
const MOUNT_ATTR_RDONLY: u64 = 0x1;
/// `MOUNT_ATTR_NOSUID` from the kernel's uapi.
const MOUNT_ATTR_NOSUID: u64 = 0x2;
/// `MOUNT_ATTR_NODEV` from the kernel's uapi.
const MOUNT_ATTR_NODEV: u64 = 0x4;

/// `struct mount_attr` of `mount_setattr(2)`.
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// Enters new user, mount and PID namespaces (with `network`, a network
/// namespace too; the PID namespace takes
/// the next child), maps the host's ids to themselves and makes every
/// mount private. As root too: inside, root has capabilities only over
/// the new namespaces, and the command drops even those.
pub(super) fn enter(uid_map: &[u8], gid_map: &[u8], network: bool) -> std::io::Result<()> {
    let mut flags = libc::CLONE_NEWUSER | libc::CLONE_NEWNS | libc::CLONE_NEWPID;
    if network {
        flags |= libc::CLONE_NEWNET;
    }
    // SAFETY: unshare with constant flags.
    if unsafe { libc::unshare(flags) } != 0 {
        return Err(errno());
    }
    write_file(c"/proc/self/setgroups", b"deny")?;
    write_file(c"/proc/self/uid_map", uid_map)?;
    write_file(c"/proc/self/gid_map", gid_map)?;
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
pub(super) fn clone_tree(path: &CStr) -> std::io::Result<libc::c_int> {
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

/// A detached clone of the one mount at `path` (an fd), without what is
/// mounted beneath it.
pub(super) fn clone_one(path: &CStr) -> std::io::Result<libc::c_int> {
    // SAFETY: `path` is a valid C string; flags are constants.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_open_tree,
            libc::AT_FDCWD,
            path.as_ptr(),
            OPEN_TREE_CLONE | libc::O_CLOEXEC as libc::c_uint,
        )
    };
    if fd < 0 {
        return Err(errno());
    }
    libc::c_int::try_from(fd).map_err(|_| std::io::Error::from_raw_os_error(libc::EBADF))
}

/// Sets (or clears) read-only on the mount tree at `fd` (with an empty
/// path) or at `path`, recursively; `nosuid` and `nodev` are always set.
pub(super) fn set_read_only(fd: libc::c_int, path: &CStr, read_only: bool) -> std::io::Result<()> {
    set_attr(fd, path, read_only, true)
}

/// Mounts an overlay over `/tmp` with `options` (`lowerdir=/tmp,…`, built
/// before the fork).
pub(super) fn overlay(options: &CStr) -> std::io::Result<()> {
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
/// when `recursive`, with `nosuid` and `nodev` set.
pub(super) fn set_attr(
    fd: libc::c_int,
    path: &CStr,
    read_only: bool,
    recursive: bool,
) -> std::io::Result<()> {
    let attr = MountAttr {
        attr_set: MOUNT_ATTR_NOSUID
            | MOUNT_ATTR_NODEV
            | if read_only { MOUNT_ATTR_RDONLY } else { 0 },
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

/// Makes the mount at `fd` (a device file's clone) read-only and
/// `nosuid`, leaving its device files usable: a read-only mount still
/// lets a device be read and written, but not its owner, mode or times
/// changed (they are the host's device's).
pub(super) fn device_read_only(fd: libc::c_int) -> std::io::Result<()> {
    let attr = MountAttr {
        attr_set: MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID,
        attr_clr: 0,
        propagation: 0,
        userns_fd: 0,
    };
    // SAFETY: `attr` lives for the call and its size is passed; the path
    // is an empty C string.
    let done = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            fd,
            c"".as_ptr(),
            libc::AT_EMPTY_PATH as libc::c_uint,
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
pub(super) fn attach(fd: libc::c_int, path: &CStr) -> std::io::Result<()> {
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
pub(super) fn bind_read_only(source: &CStr, target: &CStr) -> std::io::Result<()> {
    let fd = clone_tree(source)?;
    if let Err(e) = set_read_only(fd, c"", true) {
        // SAFETY: closing the tree's fd on the error path.
        unsafe { libc::close(fd) };
        return Err(e);
    }
    attach(fd, target)
}

/// Mounts a file system of `kind` at `target` with `flags` and `data`.
pub(super) fn mount_fs(
    kind: &CStr,
    target: &CStr,
    flags: libc::c_ulong,
    data: &CStr,
) -> std::io::Result<()> {
    // SAFETY: all arguments are valid C strings; flags are constants.
    let mounted = unsafe {
        libc::mount(
            kind.as_ptr(),
            target.as_ptr(),
            kind.as_ptr(),
            flags,
            data.as_ptr().cast(),
        )
    };
    if mounted != 0 {
        return Err(errno());
    }
    Ok(())
}

/// Creates an empty file at `path` (a mount point for a device).
pub(super) fn touch(path: &CStr) -> std::io::Result<()> {
    // SAFETY: `path` is a valid C string; flags are constants.
    let fd = unsafe {
        libc::open(
            path.as_ptr(),
            libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC,
            0o644 as libc::c_uint,
        )
    };
    if fd < 0 {
        return Err(errno());
    }
    // SAFETY: closing the fd opened above.
    unsafe { libc::close(fd) };
    Ok(())
}

/// Where the empty file masking secret files is made (and unlinked once
/// bound): on the command's own `/dev` tmpfs.
const MASK: &CStr = c"/dev/.sandbox-mask";

/// Creates a new empty file at `path`, readable by everyone, writable by
/// no one (the mask of secret files).
pub(super) fn empty_file(path: &CStr) -> std::io::Result<()> {
    // SAFETY: `path` is a valid C string; flags are constants.
    let fd = unsafe {
        libc::open(
            path.as_ptr(),
            libc::O_CREAT | libc::O_EXCL | libc::O_WRONLY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            0o444 as libc::c_uint,
        )
    };
    if fd < 0 {
        return Err(errno());
    }
    // SAFETY: closing the fd opened above.
    unsafe { libc::close(fd) };
    Ok(())
}

/// `mkdir` that accepts an existing directory.
pub(super) fn make_dir(path: &CStr, mode: libc::mode_t) -> std::io::Result<()> {
    // SAFETY: `path` is a valid C string.
    if unsafe { libc::mkdir(path.as_ptr(), mode) } != 0
        && errno().raw_os_error() != Some(libc::EEXIST)
    {
        return Err(errno());
    }
    Ok(())
}

/// `symlink(target, path)`.
pub(super) fn link(target: &CStr, path: &CStr) -> std::io::Result<()> {
    // SAFETY: both are valid C strings.
    if unsafe { libc::symlink(target.as_ptr(), path.as_ptr()) } != 0 {
        return Err(errno());
    }
    Ok(())
}

/// The most entries of each kind the child mounts (more fail with `E2BIG`).
pub(super) const MAX_MOUNTS: usize = 64;

pub(super) fn too_many(n: usize) -> std::io::Result<()> {
    if n > MAX_MOUNTS {
        return Err(std::io::Error::from_raw_os_error(libc::E2BIG));
    }
    Ok(())
}

/// A fresh `/dev`: a small tmpfs holding the host's `devices` (cloned
/// beforehand as `device_fds`, so the read-only `nodev` pass did not reach
/// them), a private `devpts`, a private `/dev/shm` and the usual links.
pub(super) fn fresh_dev(
    device_fds: &[libc::c_int],
    devices: &[std::ffi::CString],
) -> std::io::Result<()> {
    mount_fs(
        c"tmpfs",
        c"/dev",
        libc::MS_NOSUID | libc::MS_NOEXEC,
        c"mode=755,size=64k",
    )?;
    for (fd, path) in device_fds.iter().zip(devices) {
        touch(path)?;
        if let Err(e) = device_read_only(*fd) {
            // SAFETY: closing the tree's fd on the error path.
            unsafe { libc::close(*fd) };
            return Err(e);
        }
        attach(*fd, path)?;
    }
    make_dir(c"/dev/pts", 0o755)?;
    mount_fs(
        c"devpts",
        c"/dev/pts",
        libc::MS_NOSUID | libc::MS_NOEXEC,
        c"newinstance,ptmxmode=0666,mode=620",
    )?;
    link(c"pts/ptmx", c"/dev/ptmx")?;
    make_dir(c"/dev/shm", 0o1777)?;
    mount_fs(
        c"tmpfs",
        c"/dev/shm",
        libc::MS_NOSUID | libc::MS_NODEV,
        c"mode=1777",
    )?;
    link(c"/proc/self/fd", c"/dev/fd")?;
    link(c"/proc/self/fd/0", c"/dev/stdin")?;
    link(c"/proc/self/fd/1", c"/dev/stdout")?;
    link(c"/proc/self/fd/2", c"/dev/stderr")?;
    Ok(())
}

/// Carries out `mounts` in PID 1 of the new namespaces (see the namespace
/// module). Only async-signal-safe syscalls on data built before the fork;
/// at most [`MAX_MOUNTS`] entries of each kind that must be cloned early.
pub(super) fn setup_namespace(mounts: &Mounts) -> std::io::Result<()> {
    too_many(mounts.roots.len())?;
    too_many(mounts.tmp_read.len())?;
    too_many(mounts.devices.len())?;
    too_many(mounts.replacements.len())?;
    // Everything that must keep its own flags is cloned before the
    // read-only, nosuid, nodev pass over the whole tree.
    let mut root_fds = [-1 as libc::c_int; MAX_MOUNTS];
    for (slot, root) in root_fds.iter_mut().zip(&mounts.roots) {
        let fd = clone_tree(root)?;
        set_attr(fd, c"", false, true)?;
        *slot = fd;
    }
    let mut read_fds = [-1 as libc::c_int; MAX_MOUNTS];
    for (slot, path) in read_fds.iter_mut().zip(&mounts.tmp_read) {
        let fd = clone_tree(path)?;
        set_read_only(fd, c"", true)?;
        *slot = fd;
    }
    let mut device_fds = [-1 as libc::c_int; MAX_MOUNTS];
    for (slot, path) in device_fds.iter_mut().zip(&mounts.devices) {
        *slot = clone_one(path)?;
    }
    let mut replacement_fds = [-1 as libc::c_int; MAX_MOUNTS];
    for (slot, (source, _)) in replacement_fds.iter_mut().zip(&mounts.replacements) {
        let fd = clone_one(source)?;
        set_read_only(fd, c"", true)?;
        *slot = fd;
    }
    // The overlay goes on before everything turns read-only: its upper
    // layer must be writable when it is mounted (the overlay keeps its own
    // private handle on it, which the read-only pass below does not reach).
    if let Some(options) = &mounts.tmp_overlay {
        overlay(options)?;
    }
    // Without the overlay the private temp dir itself is `/tmp`: writable,
    // `nosuid` and `nodev` like the roots.
    let tmp_fd = match (&mounts.private_tmp, &mounts.tmp_overlay) {
        (Some(tmp), None) => {
            let fd = clone_tree(tmp)?;
            set_attr(fd, c"", false, true)?;
            Some(fd)
        }
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
        make_dir(dir, 0o700)?;
    }
    for (fd, path) in read_fds.iter().zip(&mounts.tmp_read) {
        attach(*fd, path)?;
    }
    for (fd, root) in root_fds.iter().zip(&mounts.roots) {
        attach(*fd, root)?;
    }
    for dir in &mounts.pinned {
        let fd = clone_tree(dir)?;
        attach(fd, dir)?;
    }
    for entry in &mounts.protected {
        bind_read_only(entry, entry)?;
    }
    for (fd, (_, target)) in replacement_fds.iter().zip(&mounts.replacements) {
        attach(*fd, target)?;
    }
    fresh_dev(&device_fds[..mounts.devices.len()], &mounts.devices)?;
    if !mounts.secret_files.is_empty() || !mounts.empty_files.is_empty() {
        // An empty regular file, not a device: git (`git add -A`), `cp -a`
        // and archivers take a device in a workspace for an error. Made on
        // the fresh `/dev`, bound read-only over each secret file and over
        // each stand-in of a missing protected file (a socket in the
        // host), then unlinked: nothing names it, nothing can write it.
        // Such a name reads as an empty file, a write to it fails
        // (`EROFS`), and it can be neither removed, renamed nor replaced
        // (`EBUSY`). Git in the command still skips a stand-in: its
        // directory entry says socket.
        empty_file(MASK)?;
        for file in mounts.secret_files.iter().chain(&mounts.empty_files) {
            bind_read_only(MASK, file)?;
        }
        // SAFETY: `MASK` is a valid C string.
        if unsafe { libc::unlink(MASK.as_ptr()) } != 0 {
            return Err(errno());
        }
    }
    for dir in &mounts.secret_dirs {
        mount_fs(
            c"tmpfs",
            dir,
            libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
            c"size=4k",
        )?;
    }
    for dir in &mounts.other_hosts {
        match mount_fs(
            c"tmpfs",
            dir,
            libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
            c"size=4k",
        ) {
            // Removed (its host ended) since the host listed it.
            Err(e) if matches!(e.raw_os_error(), Some(libc::ENOENT | libc::ENOTDIR)) => {}
            other => other?,
        }
    }
    // A /proc of this PID namespace: other processes are invisible.
    mount_fs(
        c"proc",
        c"/proc",
        libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
        c"",
    )?;
    // The namespace's own `pid_max`: the process limit where no pids
    // cgroup could be made (the `pid_limit` module).
    if let Some(pid_max) = &mounts.pid_max {
        write_file(c"/proc/sys/kernel/pid_max", pid_max)?;
    }
    // SAFETY: `cwd` is a valid C string.
    if unsafe { libc::chdir(mounts.cwd.as_ptr()) } != 0 {
        return Err(errno());
    }
    Ok(())
}
