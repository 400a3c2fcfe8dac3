//! Listings and searches that a concurrent process cannot redirect.
//!
//! `listFiles` reads its directory from a handle; the searches walk with
//! ripgrep's `ignore` walker, which reads directories by path, so under
//! confinement every entry it finds is confirmed through directory handles
//! before it is shown or read:
//!
//! - The start directory is resolved once (symlinks followed), that real
//!   path judged (not secret), then opened by a walk from `/` with
//!   `O_NOFOLLOW` on every component: a component swapped for a symlink
//!   since the judgement fails the call instead of opening elsewhere.
//! - Each entry the walker yields is looked up again from that handle, one
//!   component at a time with `O_NOFOLLOW` (the handles of the last
//!   entry's directories are kept, so a depth-first walk opens each
//!   directory once). What is shown (kind, size, time) is the entry of the
//!   real tree; a file searched is opened from its verified directory
//!   handle with `O_NOFOLLOW`, and the path the kernel gives for the open
//!   file is judged once more.
//!
//! So an entry the walker saw through a folder swapped for a symlink to a
//! folder elsewhere appears only when the same path exists in the real
//! tree, and is then shown and read from the real tree: a race can drop an
//! entry from one result, never add one from outside.

use std::ffi::{OsStr, OsString};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Component, Path, PathBuf};

use nix::fcntl::{OFlag, openat};
use nix::sys::stat::Mode;

use crate::error::{Error, Result};
use crate::local::confine::Guard;

const DIR: OFlag = OFlag::O_PATH
    .union(OFlag::O_DIRECTORY)
    .union(OFlag::O_NOFOLLOW)
    .union(OFlag::O_CLOEXEC);

/// A start directory held by a handle, and the path its entries are
/// found under.
#[derive(Debug)]
pub(crate) struct Beneath {
    /// The path the walker walks (as given, resolved): entries are found
    /// beneath it by name.
    walked: PathBuf,
    /// The start directory; `None` when the search starts at a file.
    fd: Option<OwnedFd>,
    guard: Guard,
    /// Handles of the directories of the last entry looked up, outermost
    /// first.
    chain: Vec<(OsString, OwnedFd)>,
}

impl Beneath {
    /// Opens the directory `path` for a listing or search under `guard`:
    /// its real path judged, then opened without following any symlink.
    /// A search may start at a file: that file is then opened by
    /// [`Beneath::open_file`] and judged on what was opened.
    pub(crate) fn open(path: &Path, shown: &str, guard: &Guard) -> Result<Self> {
        let real = std::fs::canonicalize(path).map_err(|e| Error::io(shown, e))?;
        guard.check_opened(&real, shown)?;
        let fd = if real.is_dir() {
            Some(
                crate::beneath::open_dir(Path::new("/"), &real, false)
                    .map_err(|e| Error::io(shown, e))?,
            )
        } else {
            None
        };
        Ok(Self {
            walked: path.to_path_buf(),
            fd,
            guard: guard.clone(),
            chain: Vec::new(),
        })
    }

    /// Another handle of the same directory, for another thread.
    pub(crate) fn try_clone(&self) -> std::io::Result<Self> {
        Ok(Self {
            walked: self.walked.clone(),
            fd: self.fd.as_ref().map(OwnedFd::try_clone).transpose()?,
            guard: self.guard.clone(),
            chain: Vec::new(),
        })
    }

    /// The handle of the directory `rel` beneath the start directory,
    /// reached without following symlinks; `None` when it is not a real
    /// directory there (now).
    fn dir(&mut self, rel: &Path) -> Option<BorrowedFd<'_>> {
        let mut parts = Vec::new();
        for part in rel.components() {
            match part {
                Component::Normal(name) => parts.push(name),
                Component::CurDir => {}
                _ => return None,
            }
        }
        let keep = self
            .chain
            .iter()
            .zip(&parts)
            .take_while(|((have, _), want)| have.as_os_str() == **want)
            .count();
        self.chain.truncate(keep);
        let root = self.fd.as_ref()?;
        for part in &parts[keep..] {
            let parent = self.chain.last().map_or(root.as_fd(), |(_, fd)| fd.as_fd());
            let Ok(fd) = openat(parent, *part, DIR, Mode::empty()) else {
                return None;
            };
            self.chain.push((part.to_os_string(), fd));
        }
        Some(self.chain.last().map_or(root.as_fd(), |(_, fd)| fd.as_fd()))
    }

    /// The verified directory handle and name of `path`, an entry found
    /// beneath the start directory.
    fn locate<'a>(&mut self, path: &'a Path) -> Option<(BorrowedFd<'_>, &'a OsStr)> {
        let rel = path.strip_prefix(&self.walked).ok()?;
        let name = rel.file_name()?;
        let parent = rel.parent().unwrap_or(Path::new("")).to_path_buf();
        Some((self.dir(&parent)?, name))
    }

    /// The metadata (symlinks not followed) of `path`, an entry found
    /// beneath the start directory, when it is in the real tree now.
    pub(crate) fn metadata(&mut self, path: &Path) -> Option<std::fs::Metadata> {
        if path == self.walked {
            return match &self.fd {
                Some(fd) => std::fs::File::from(fd.try_clone().ok()?).metadata().ok(),
                None => std::fs::symlink_metadata(path).ok(),
            };
        }
        let (dir, name) = self.locate(path)?;
        let flags = OFlag::O_PATH | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
        let fd = openat(dir, name, flags, Mode::empty()).ok()?;
        std::fs::File::from(fd).metadata().ok()
    }

    /// Opens `path`, a regular file found beneath the start directory,
    /// from its verified directory handle; `None` when it is not a regular
    /// file of the real tree (now) or what was opened is secret.
    pub(crate) fn open_file(&mut self, path: &Path) -> Option<std::fs::File> {
        let file = if self.fd.is_none() && path == self.walked {
            crate::beneath::open_read(path).ok()?.0
        } else {
            let (dir, name) = self.locate(path)?;
            let flags = OFlag::O_RDONLY | OFlag::O_NOFOLLOW | OFlag::O_NONBLOCK | OFlag::O_CLOEXEC;
            std::fs::File::from(openat(dir, name, flags, Mode::empty()).ok()?)
        };
        if !file.metadata().ok()?.is_file() {
            return None;
        }
        let fd = std::os::fd::AsRawFd::as_raw_fd(&file);
        let real = std::fs::read_link(format!("/proc/self/fd/{fd}")).ok()?;
        if self.guard.is_secret(&real) {
            return None;
        }
        Some(file)
    }

    /// The entries of the start directory itself, read from its handle:
    /// each name with its metadata, a symlink's target's when that target
    /// exists and is not secret, else the link's own.
    pub(crate) fn list(&self) -> std::io::Result<Vec<(OsString, std::fs::Metadata)>> {
        let Some(fd) = &self.fd else {
            return Err(std::io::Error::other("not a directory"));
        };
        let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC;
        let mut dir = nix::dir::Dir::openat(fd.as_fd(), ".", flags, Mode::empty())?;
        let mut out = Vec::new();
        for item in dir.iter() {
            let item = item?;
            let name =
                <OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(item.file_name().to_bytes());
            if name == "." || name == ".." {
                continue;
            }
            let own = OFlag::O_PATH | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
            let Ok(entry) = openat(fd.as_fd(), name, own, Mode::empty()) else {
                continue;
            };
            let own = std::fs::File::from(entry);
            let Ok(mut meta) = own.metadata() else {
                continue;
            };
            if meta.is_symlink()
                && let Ok(link) = openat(
                    fd.as_fd(),
                    name,
                    OFlag::O_PATH | OFlag::O_CLOEXEC,
                    Mode::empty(),
                )
            {
                let target = std::fs::File::from(link);
                let raw = std::os::fd::AsRawFd::as_raw_fd(&target);
                let real = std::fs::read_link(format!("/proc/self/fd/{raw}"));
                if real.is_ok_and(|r| !self.guard.is_secret(&r))
                    && let Ok(followed) = target.metadata()
                {
                    meta = followed;
                }
            }
            out.push((name.to_os_string(), meta));
        }
        Ok(out)
    }
}
