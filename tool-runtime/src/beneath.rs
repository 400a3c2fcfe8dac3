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
//! - A move or rename opens the source's directory and the destination's
//!   directory by the same walk (creating the destination's missing
//!   directories on the way), then renames name to name between the two
//!   handles (`renameat2` with `RENAME_NOREPLACE` unless overwriting);
//!   across file systems a regular file is copied from a handle opened
//!   with `O_NOFOLLOW` into a new file of the destination handle, renamed
//!   into place, and the source name unlinked from its handle.

use std::io::Write as _;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Component, Path, PathBuf};

use nix::errno::Errno;
use nix::fcntl::{AtFlags, OFlag, openat, renameat};
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
                        "`{}` changed into a symbolic link or a file during the operation",
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

/// Why a move through directory handles failed.
#[derive(Debug)]
pub(crate) enum MoveFailure {
    /// The source could not be reached or removed.
    Source(std::io::Error),
    /// The destination could not be reached or written.
    Destination(std::io::Error),
    /// The destination exists and overwriting was not asked for.
    Exists,
}

/// Moves the entry `from` (canonical, beneath `from_root`) to `to`
/// (canonical, beneath `to_root`): both directories are opened by the
/// walk of [`open_dir`], the names are renamed between the handles, so
/// neither end can be redirected by a symlink swapped in meanwhile.
pub(crate) fn move_entry(
    (from_root, from): (&Path, &Path),
    (to_root, to): (&Path, &Path),
    overwrite: bool,
) -> Result<(), MoveFailure> {
    let (Some(from_dir), Some(from_name)) = (from.parent(), from.file_name()) else {
        return Err(MoveFailure::Source(std::io::Error::other(
            "no file name to move",
        )));
    };
    let (Some(to_dir), Some(to_name)) = (to.parent(), to.file_name()) else {
        return Err(MoveFailure::Destination(std::io::Error::other(
            "no file name to move to",
        )));
    };
    let source_dir = open_dir(from_root, from_dir, false).map_err(MoveFailure::Source)?;
    let source = fstatat(source_dir.as_fd(), from_name, AtFlags::AT_SYMLINK_NOFOLLOW)
        .map_err(|e| MoveFailure::Source(e.into()))?;
    let target_dir = open_dir(to_root, to_dir, true).map_err(MoveFailure::Destination)?;
    match rename_between(&source_dir, from_name, &target_dir, to_name, overwrite) {
        Ok(()) => Ok(()),
        Err(Errno::EXDEV) if source.st_mode & libc_s_ifmt() == libc_s_ifreg() => copy_across(
            (&source_dir, from_name),
            (&target_dir, to_name),
            (source.st_dev, source.st_ino),
            overwrite,
        ),
        Err(Errno::EEXIST) | Err(Errno::ENOTEMPTY) if !overwrite => Err(MoveFailure::Exists),
        Err(e) => Err(MoveFailure::Source(e.into())),
    }
}

/// `renameat`, refusing to replace an existing destination unless
/// `overwrite` (atomically where the C library has `renameat2`).
fn rename_between(
    from_dir: &OwnedFd,
    from_name: &std::ffi::OsStr,
    to_dir: &OwnedFd,
    to_name: &std::ffi::OsStr,
    overwrite: bool,
) -> Result<(), Errno> {
    if overwrite {
        return renameat(from_dir.as_fd(), from_name, to_dir.as_fd(), to_name);
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    match nix::fcntl::renameat2(
        from_dir.as_fd(),
        from_name,
        to_dir.as_fd(),
        to_name,
        nix::fcntl::RenameFlags::RENAME_NOREPLACE,
    ) {
        // File systems without RENAME_NOREPLACE: check, then rename, both
        // within the same directory handle.
        Err(Errno::EINVAL | Errno::ENOSYS) => {}
        done => return done,
    }
    match fstatat(to_dir.as_fd(), to_name, AtFlags::AT_SYMLINK_NOFOLLOW) {
        Ok(_) => Err(Errno::EEXIST),
        Err(Errno::ENOENT) => renameat(from_dir.as_fd(), from_name, to_dir.as_fd(), to_name),
        Err(e) => Err(e),
    }
}

/// The cross-device fallback of [`move_entry`] for a regular file: copied
/// from a handle opened without following symlinks into a new file of the
/// destination directory, renamed into place, then the source name
/// unlinked when it still names the file copied (`identity`).
fn copy_across(
    (from_dir, from_name): (&OwnedFd, &std::ffi::OsStr),
    (to_dir, to_name): (&OwnedFd, &std::ffi::OsStr),
    identity: (nix::libc::dev_t, nix::libc::ino_t),
    overwrite: bool,
) -> Result<(), MoveFailure> {
    let source = openat(
        from_dir.as_fd(),
        from_name,
        OFlag::O_RDONLY | OFlag::O_NOFOLLOW | OFlag::O_NONBLOCK | OFlag::O_CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| MoveFailure::Source(e.into()))?;
    let opened =
        nix::sys::stat::fstat(source.as_fd()).map_err(|e| MoveFailure::Source(e.into()))?;
    if (opened.st_dev, opened.st_ino) != identity {
        return Err(MoveFailure::Source(std::io::Error::other(
            "the file was replaced while it was being moved",
        )));
    }
    let mut tmp = None;
    for n in 0..100u32 {
        let candidate = format!(
            ".{}.{}-{n}.tmp",
            to_name.to_string_lossy(),
            std::process::id()
        );
        match openat(
            to_dir.as_fd(),
            candidate.as_str(),
            OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_WRONLY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
            Mode::from_bits_truncate(opened.st_mode & 0o7777),
        ) {
            Ok(fd) => {
                tmp = Some((candidate, std::fs::File::from(fd)));
                break;
            }
            Err(Errno::EEXIST) => continue,
            Err(e) => return Err(MoveFailure::Destination(e.into())),
        }
    }
    let Some((tmp_name, mut file)) = tmp else {
        return Err(MoveFailure::Destination(std::io::Error::other(
            "no free temporary name",
        )));
    };
    let remove = || {
        let _ = nix::unistd::unlinkat(
            to_dir.as_fd(),
            tmp_name.as_str(),
            nix::unistd::UnlinkatFlags::NoRemoveDir,
        );
    };
    let mut reader = std::fs::File::from(source);
    let copied = std::io::copy(&mut reader, &mut file)
        .and_then(|_| {
            fchmod(
                file.as_fd(),
                Mode::from_bits_truncate(opened.st_mode & 0o7777),
            )
            .map_err(Into::into)
        })
        .and_then(|()| file.sync_all());
    if let Err(e) = copied {
        remove();
        return Err(MoveFailure::Destination(e));
    }
    match rename_between(to_dir, tmp_name.as_ref(), to_dir, to_name, overwrite) {
        Ok(()) => {}
        Err(Errno::EEXIST) if !overwrite => {
            remove();
            return Err(MoveFailure::Exists);
        }
        Err(e) => {
            remove();
            return Err(MoveFailure::Destination(e.into()));
        }
    }
    match fstatat(from_dir.as_fd(), from_name, AtFlags::AT_SYMLINK_NOFOLLOW) {
        Ok(st) if (st.st_dev, st.st_ino) == identity => nix::unistd::unlinkat(
            from_dir.as_fd(),
            from_name,
            nix::unistd::UnlinkatFlags::NoRemoveDir,
        )
        .map_err(|e| MoveFailure::Source(e.into())),
        Ok(_) => Err(MoveFailure::Source(std::io::Error::other(
            "the file was replaced while it was being moved; the copy is kept, the new file left in place",
        ))),
        Err(e) => Err(MoveFailure::Source(e.into())),
    }
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

    #[test]
    fn the_cross_device_copy_moves_a_file_and_refuses_a_swapped_or_existing_one() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("a")).unwrap();
        std::fs::create_dir_all(root.join("b")).unwrap();
        std::fs::write(root.join("a/f"), b"data").unwrap();
        std::fs::write(root.join("b/taken"), b"kept").unwrap();
        let from = open_dir(&root, &root.join("a"), false).unwrap();
        let to = open_dir(&root, &root.join("b"), false).unwrap();
        let id = |p: &Path| {
            let st = nix::sys::stat::lstat(p).unwrap();
            (st.st_dev, st.st_ino)
        };
        let name = std::ffi::OsStr::new;
        // Another file's identity: the source is not removed, nothing copied.
        let other = id(&root.join("b/taken"));
        assert!(matches!(
            copy_across((&from, name("f")), (&to, name("g")), other, false),
            Err(MoveFailure::Source(_))
        ));
        assert!(!root.join("b/g").exists());
        let f = id(&root.join("a/f"));
        assert!(matches!(
            copy_across((&from, name("f")), (&to, name("taken")), f, false),
            Err(MoveFailure::Exists)
        ));
        assert_eq!(std::fs::read(root.join("b/taken")).unwrap(), b"kept");
        copy_across((&from, name("f")), (&to, name("g")), f, false).unwrap();
        assert_eq!(std::fs::read(root.join("b/g")).unwrap(), b"data");
        assert!(!root.join("a/f").exists());
        // A symlink is not followed: its target is never copied.
        std::os::unix::fs::symlink(root.join("b/taken"), root.join("a/l")).unwrap();
        let l = id(&root.join("a/l"));
        assert!(copy_across((&from, name("l")), (&to, name("h")), l, false).is_err());
        assert!(!root.join("b/h").exists());
        let mut left: Vec<_> = std::fs::read_dir(root.join("b"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        left.sort();
        assert_eq!(left, ["g", "taken"], "no temporary file is left");
        // move_entry refuses an existing destination unless overwriting.
        std::fs::write(root.join("a/m"), b"m").unwrap();
        let at = |p: &str| (root.as_path(), root.join(p));
        let (r, m) = at("a/m");
        let (_, taken) = at("b/taken");
        assert!(matches!(
            move_entry((r, &m), (r, &taken), false),
            Err(MoveFailure::Exists)
        ));
        move_entry((r, &m), (r, &taken), true).unwrap();
        assert_eq!(std::fs::read(root.join("b/taken")).unwrap(), b"m");
    }
}
