//! File operations under confinement that a concurrent process cannot
//! redirect: what is checked is what is opened.
//!
//! - A write walks from a handle of its writable root down to the target's
//!   directory one component at a time with `O_NOFOLLOW` (creating missing
//!   directories with `mkdirat` on the way), so a directory swapped for a
//!   symlink between the check and the write makes the write fail instead
//!   of landing elsewhere; the file is then created in that directory
//!   handle (`openat` with `O_EXCL`) and renamed over the target by name
//!   within it (`renameat`). No path is looked up again from the top.
//! - A read opens the file first (`O_NONBLOCK`, so a FIFO cannot hang it),
//!   then judges the file it holds: the path the kernel gives for the open
//!   descriptor (`/proc/self/fd/N`) must not be secret, else the read is
//!   refused. Whatever a concurrent process swaps in, the bytes returned
//!   come from the file that was judged.

use std::io::Write as _;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Component, Path, PathBuf};

use nix::fcntl::{OFlag, openat, renameat};
use nix::sys::stat::{Mode, fchmod, fstatat, mkdirat};

/// Opens `dir` (canonical, beneath `root`) by walking from `root` without
/// following any symlink, creating missing directories when `create`.
pub(crate) fn open_dir(root: &Path, dir: &Path, create: bool) -> std::io::Result<OwnedFd> {
    let rel = dir
        .strip_prefix(root)
        .map_err(|_| std::io::Error::other("the directory is not beneath its root"))?;
    let flags = OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC;
    let mut fd = openat(nix::fcntl::AT_FDCWD, root, flags, Mode::empty())?;
    for part in rel.components() {
        let Component::Normal(name) = part else {
            return Err(std::io::Error::other("the path is not canonical"));
        };
        if create {
            match mkdirat(fd.as_fd(), name, Mode::from_bits_truncate(0o777)) {
                Ok(()) | Err(nix::errno::Errno::EEXIST) => {}
                Err(e) => return Err(e.into()),
            }
        }
        fd = openat(fd.as_fd(), name, flags | OFlag::O_NOFOLLOW, Mode::empty()).map_err(
            |e| match e {
                nix::errno::Errno::ELOOP | nix::errno::Errno::ENOTDIR => {
                    std::io::Error::other(format!(
                        "`{}` changed into a symbolic link or a file while it was being written",
                        name.to_string_lossy()
                    ))
                }
                e => e.into(),
            },
        )?;
    }
    Ok(fd)
}

/// Writes `bytes` to `target` (canonical directory + name, beneath
/// `root`) atomically: a new file in the directory handle, renamed over
/// the name. The target's permissions are kept when it exists.
pub(crate) fn write_atomic(
    root: &Path,
    target: &Path,
    bytes: &[u8],
    before_commit: impl FnOnce() -> crate::error::Result<()>,
    io: impl Fn(std::io::Error) -> crate::error::Error,
) -> crate::error::Result<()> {
    let (Some(dir), Some(name)) = (target.parent(), target.file_name()) else {
        return Err(io(std::io::Error::other("no file name to write")));
    };
    let dir_fd = open_dir(root, dir, true).map_err(&io)?;
    let mode = fstatat(
        dir_fd.as_fd(),
        name,
        nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW,
    )
    .ok()
    .filter(|st| st.st_mode & libc_s_ifmt() == libc_s_ifreg())
    .map(|st| Mode::from_bits_truncate(st.st_mode & 0o7777));
    let mut tmp_name = None;
    let mut file = None;
    for n in 0..100u32 {
        let candidate = format!(".{}.{}-{n}.tmp", name.to_string_lossy(), std::process::id());
        match openat(
            dir_fd.as_fd(),
            candidate.as_str(),
            OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_WRONLY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
            Mode::from_bits_truncate(0o666),
        ) {
            Ok(fd) => {
                tmp_name = Some(candidate);
                file = Some(std::fs::File::from(fd));
                break;
            }
            Err(nix::errno::Errno::EEXIST) => continue,
            Err(e) => return Err(io(e.into())),
        }
    }
    let (Some(tmp_name), Some(mut file)) = (tmp_name, file) else {
        return Err(io(std::io::Error::other("no free temporary name")));
    };
    let remove = |dir_fd: &OwnedFd| {
        let _ = nix::unistd::unlinkat(
            dir_fd.as_fd(),
            tmp_name.as_str(),
            nix::unistd::UnlinkatFlags::NoRemoveDir,
        );
    };
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| match mode {
            Some(mode) => fchmod(file.as_fd(), mode).map_err(Into::into),
            None => Ok(()),
        });
    if let Err(e) = written {
        remove(&dir_fd);
        return Err(io(e));
    }
    if let Err(e) = before_commit() {
        remove(&dir_fd);
        return Err(e);
    }
    if let Err(e) = renameat(dir_fd.as_fd(), tmp_name.as_str(), dir_fd.as_fd(), name) {
        remove(&dir_fd);
        return Err(io(e.into()));
    }
    Ok(())
}

fn libc_s_ifmt() -> u32 {
    0o170000
}

fn libc_s_ifreg() -> u32 {
    0o100000
}

/// Opens `path` for reading and returns the file with the path the
/// kernel reports for it (symlinks resolved, as opened).
pub(crate) fn open_read(path: &Path) -> std::io::Result<(std::fs::File, PathBuf)> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NONBLOCK)
        .open(path)?;
    let fd = std::os::fd::AsRawFd::as_raw_fd(&file);
    let real = std::fs::read_link(format!("/proc/self/fd/{fd}"))?;
    Ok((file, real))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symlink_in_the_way_fails_the_write_and_nothing_lands_outside() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let root = base.join("root");
        let outside = base.join("outside");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        let io = |e: std::io::Error| crate::error::Error::io("x", e);
        write_atomic(&root, &root.join("a/b/file"), b"one", || Ok(()), io).unwrap();
        assert_eq!(std::fs::read(root.join("a/b/file")).unwrap(), b"one");
        std::os::unix::fs::symlink(&outside, root.join("d")).unwrap();
        assert!(write_atomic(&root, &root.join("d/x"), b"two", || Ok(()), io).is_err());
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
        let (_, real) = open_read(&root.join("a/b/file")).unwrap();
        assert_eq!(real, root.join("a/b/file"));
    }
}
