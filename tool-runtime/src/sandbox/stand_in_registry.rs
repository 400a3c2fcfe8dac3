//! Which empty-file stand-ins (sockets) a host has in the user's
//! workspaces, so that those a host that died left (killed during a
//! command, or within the two seconds before its stand-ins are removed)
//! are removed by the next host.
//!
//! A socket can carry no note of its maker (the stand-in folders carry one
//! in their `.gitignore`: the private `stand_in_owner` module), so the host
//! keeps a registry beside its private temp dirs: a folder
//! `tool-sandbox-stand-ins-…` of the system temp dir, made when the host
//! makes its first socket stand-in and removed when it has none left. It
//! holds what every private temp dir holds, a lock file (`.host.lock`)
//! the host keeps locked (`flock`) while it lives, and `sockets`: one line
//! per socket stand-in the host has now, with the socket's device and
//! inode numbers, its workspace root and its path beneath the root (in
//! hex, so that any byte can be written). A confined command cannot
//! change it: under the `/tmp` overlay the host's `/tmp` is the read-only
//! lower layer (a write lands in the command's private upper layer), and
//! without it the system temp dir's own path is read-only to the command,
//! unless the host made a writable root of a folder holding it; even then
//! a line it forges names at most a socket at a stand-in name, which the
//! checks below let through only if it is that very socket.
//!
//! When a host makes a computer's private temp dir it removes the private
//! temp dirs of its user whose lock nobody holds (the `private_tmp` module
//! of the shell); for a registry among them it first removes each socket
//! listed that
//!
//! - lies at a name of the empty-file stand-in table (the path ends in one
//!   of its names),
//! - is reached from the handle of its root without following a symlink
//!   (a folder on the way that became a symlink stops it),
//! - is, at that moment, a socket with the device and inode recorded,
//!
//! and nothing else (`unlinkat` of that name, never a walk, never a
//! folder). The check and the removal are two calls; what could change the
//! name between them is a process that can write that folder, so it
//! could remove the name itself.

use std::os::fd::AsFd as _;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Component, Path, PathBuf};
use std::sync::{Mutex, MutexGuard, OnceLock};

use nix::fcntl::AtFlags;
use nix::sys::stat::{SFlag, fstatat};
use nix::unistd::{UnlinkatFlags, unlinkat};

use crate::sandbox::{HOST_DIR_PREFIX, HOST_LOCK as LOCK};

/// The prefix of a registry's folder (a host's folder: the private temp
/// dirs' sweep looks at it).
const REGISTRY_NAME: &str = "stand-ins-";
/// The list of sockets in a registry.
const SOCKETS: &str = "sockets";
/// The largest list read.
const MAX_BYTES: u64 = 4 << 20;

/// One socket stand-in.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Record {
    root: PathBuf,
    rel: PathBuf,
    dev: u64,
    ino: u64,
}

impl Record {
    /// The socket at `path` (beneath `root`), when it is one.
    pub(crate) fn of(root: &Path, path: &Path) -> Option<Record> {
        use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _};
        let meta = path.symlink_metadata().ok()?;
        if !meta.file_type().is_socket() {
            return None;
        }
        Some(Record {
            root: root.to_path_buf(),
            rel: path.strip_prefix(root).ok()?.to_path_buf(),
            dev: meta.dev(),
            ino: meta.ino(),
        })
    }

    /// Whether the socket at `path` is still this one.
    pub(crate) fn still_at(&self, path: &Path) -> bool {
        use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _};
        path.symlink_metadata()
            .is_ok_and(|m| m.file_type().is_socket() && m.dev() == self.dev && m.ino() == self.ino)
    }

    fn line(&self) -> String {
        format!(
            "socket {} {} {} {}\n",
            self.dev,
            self.ino,
            hex(self.root.as_os_str().as_bytes()),
            hex(self.rel.as_os_str().as_bytes())
        )
    }

    fn parse(line: &str) -> Option<Record> {
        let mut words = line.split(' ');
        (words.next()? == "socket").then_some(())?;
        let dev = words.next()?.parse().ok()?;
        let ino = words.next()?.parse().ok()?;
        let root = PathBuf::from(std::ffi::OsStr::from_bytes(&unhex(words.next()?)?));
        let rel = PathBuf::from(std::ffi::OsStr::from_bytes(&unhex(words.next()?)?));
        if words.next().is_some() || !root.is_absolute() {
            return None;
        }
        let plain = rel.components().all(|c| matches!(c, Component::Normal(_)));
        (plain && rel.file_name().is_some()).then_some(Record {
            root,
            rel,
            dev,
            ino,
        })
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if text.is_empty() || !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// This host's registry, while it has socket stand-ins.
#[derive(Debug)]
struct Registry {
    dir: tempfile::TempDir,
    _lock: std::fs::File,
}

impl Registry {
    fn make() -> std::io::Result<Registry> {
        let dir = tempfile::Builder::new()
            .prefix(&format!("{HOST_DIR_PREFIX}{REGISTRY_NAME}"))
            .tempdir()?;
        let lock = std::fs::File::create(dir.path().join(LOCK))?;
        lock.try_lock().map_err(std::io::Error::other)?;
        Ok(Registry { dir, _lock: lock })
    }
}

fn registry() -> MutexGuard<'static, Option<Registry>> {
    static REGISTRY: OnceLock<Mutex<Option<Registry>>> = OnceLock::new();
    REGISTRY
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

/// Makes the registry say that `records` are this host's socket stand-ins
/// now: made when first needed, replaced whole (a new list renamed over
/// the old), removed when there are none.
pub(crate) fn set(records: &[&Record]) {
    let mut registry = registry();
    if records.is_empty() {
        *registry = None;
        return;
    }
    if registry.is_none() {
        match Registry::make() {
            Ok(made) => *registry = Some(made),
            Err(e) => {
                tracing::warn!(error = %e, "no registry of stand-ins: a crash would leave them");
                return;
            }
        }
    }
    let Some(made) = registry.as_ref() else {
        return;
    };
    let text: String = records.iter().map(|r| r.line()).collect();
    let next = made.dir.path().join(format!("{SOCKETS}.next"));
    let written = std::fs::write(&next, text)
        .and_then(|()| std::fs::rename(&next, made.dir.path().join(SOCKETS)));
    if let Err(e) = written {
        tracing::warn!(error = %e, "cannot write the registry of stand-ins");
    }
}

/// Removes the socket stand-ins listed in the registry `dir` of a host
/// that is gone (its lock was free), each only when it is still the socket
/// recorded, reached without following symlinks, at one of `names`.
/// Returns how many were removed. A folder without a list (a private temp
/// dir) has none.
pub(crate) fn remove_dead(dir: &Path, names: &[&str]) -> usize {
    let Some(text) = read_list(dir) else {
        return 0;
    };
    text.lines()
        .filter_map(Record::parse)
        .filter(|r| names.iter().any(|name| r.rel.ends_with(name)))
        .filter(remove_socket)
        .count()
}

/// The list of `dir`, opened without following a symlink.
fn read_list(dir: &Path) -> Option<String> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(dir.join(SOCKETS))
        .ok()?;
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return None;
    }
    let mut text = String::new();
    std::io::Read::read_to_string(&mut std::io::Read::take(file, MAX_BYTES), &mut text).ok()?;
    Some(text)
}

/// Removes the socket `record` names when it is still that socket.
fn remove_socket(record: &Record) -> bool {
    let (Some(parent), Some(name)) = (record.rel.parent(), record.rel.file_name()) else {
        return false;
    };
    let Ok(dir) = crate::beneath::open_dir(&record.root, &record.root.join(parent), false) else {
        return false;
    };
    let Ok(stat) = fstatat(dir.as_fd(), name, AtFlags::AT_SYMLINK_NOFOLLOW) else {
        return false;
    };
    let socket = SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT == SFlag::S_IFSOCK;
    #[allow(clippy::useless_conversion)] // `st_dev`'s type differs between targets.
    let same = u64::from(stat.st_dev) == record.dev && u64::from(stat.st_ino) == record.ino;
    if !(socket && same) {
        return false;
    }
    match unlinkat(dir.as_fd(), name, UnlinkatFlags::NoRemoveDir) {
        Ok(()) => {
            tracing::debug!(path = %record.root.join(&record.rel).display(), "a dead host's socket stand-in removed");
            true
        }
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn socket(path: &Path) -> Record {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        drop(std::os::unix::net::UnixListener::bind(path).unwrap());
        let root = path.ancestors().find(|a| a.ends_with("ws")).unwrap();
        Record::of(root, path).unwrap()
    }

    #[test]
    fn a_record_reads_back_whatever_bytes_its_paths_hold() {
        let record = Record {
            root: PathBuf::from(std::ffi::OsStr::from_bytes(b"/w s/\xff\n")),
            rel: PathBuf::from("sub dir/.yarnrc"),
            dev: 7,
            ino: u64::MAX,
        };
        let line = record.line();
        assert_eq!(line.matches('\n').count(), 1);
        assert_eq!(Record::parse(line.trim_end()), Some(record));
        for bad in [
            "socket 1 2 2f 2e2e2f2e7961726e7263",
            "socket 1 2 77 2e7961726e7263",
            "socket 1 2 2f 2e7961726e7263 more",
            "file 1 2 2f 2e7961726e7263",
            "socket x 2 2f 2e7961726e7263",
            "socket 1 2 2f 2e7",
        ] {
            assert_eq!(Record::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn only_the_recorded_sockets_at_stand_in_names_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let ws = base.join("ws");
        let names = [
            ".yarnrc",
            ".travis.yml",
            ".bazelrc",
            ".claude/settings.json",
        ];
        let gone = socket(&ws.join(".yarnrc"));
        let nested = socket(&ws.join("app/.travis.yml"));
        // Replaced since (made before the old one goes, so that its inode
        // number is another): a socket, a file of the user's.
        let replaced = socket(&ws.join(".bazelrc"));
        drop(std::os::unix::net::UnixListener::bind(ws.join("new.sock")).unwrap());
        std::fs::rename(ws.join("new.sock"), ws.join(".bazelrc")).unwrap();
        let as_file = socket(&ws.join("app/.yarnrc"));
        std::fs::write(ws.join("app/new"), "user\n").unwrap();
        std::fs::rename(ws.join("app/new"), ws.join("app/.yarnrc")).unwrap();
        // Off the table of names.
        let off_table = socket(&ws.join("daemon.sock"));
        // Its folder moved outside, a symlink in its place: never followed.
        let moved = socket(&ws.join(".claude/settings.json"));
        std::fs::rename(ws.join(".claude"), base.join("outside")).unwrap();
        std::os::unix::fs::symlink(base.join("outside"), ws.join(".claude")).unwrap();
        let registry = base.join("registry");
        std::fs::create_dir(&registry).unwrap();
        let list: String = [&gone, &nested, &replaced, &as_file, &off_table, &moved]
            .iter()
            .map(|r| r.line())
            .collect();
        std::fs::write(registry.join(SOCKETS), format!("{list}garbage line\n")).unwrap();
        assert_eq!(remove_dead(&registry, &names), 2);
        assert!(ws.join(".yarnrc").symlink_metadata().is_err());
        assert!(ws.join("app/.travis.yml").symlink_metadata().is_err());
        assert!(ws.join(".bazelrc").symlink_metadata().is_ok());
        assert_eq!(
            std::fs::read_to_string(ws.join("app/.yarnrc")).unwrap(),
            "user\n"
        );
        assert!(ws.join("daemon.sock").symlink_metadata().is_ok());
        assert!(
            base.join("outside/settings.json")
                .symlink_metadata()
                .is_ok()
        );
        // A list that is a symlink is not read.
        let fresh = socket(&ws.join(".travis.yml"));
        std::fs::remove_file(registry.join(SOCKETS)).unwrap();
        std::fs::write(base.join("list"), fresh.line()).unwrap();
        std::os::unix::fs::symlink(base.join("list"), registry.join(SOCKETS)).unwrap();
        assert_eq!(remove_dead(&registry, &names), 0);
        assert!(ws.join(".travis.yml").symlink_metadata().is_ok());
        std::fs::remove_file(registry.join(SOCKETS)).unwrap();
        std::fs::write(registry.join(SOCKETS), fresh.line()).unwrap();
        assert_eq!(remove_dead(&registry, &names), 1);
    }
}
