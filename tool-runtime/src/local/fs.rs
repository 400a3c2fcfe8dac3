//! Plain filesystem operations: list, atomic write, move, rename.

use std::io::Write as _;
use std::path::Path;
use std::time::UNIX_EPOCH;

use crate::error::{Error, Result};
use crate::local::paths::Paths;
use crate::request::{ListFilesParams, MoveFilesParams, RenameFileParams, SortBy, WriteFileParams};
use crate::response::{
    FileEntry, ItemError, ListFilesResult, MoveFilesResult, MoveOutcome, RenameFileResult,
    WriteFileResult,
};

/// Default number of entries `listFiles` returns.
pub(crate) const DEFAULT_LIST_LIMIT: usize = 500;

/// Milliseconds since the epoch of a metadata's modification time.
pub(crate) fn modified_ms(meta: &std::fs::Metadata) -> Option<u64> {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_millis().min(u128::from(u64::MAX)) as u64)
}

/// An entry for `path` with its metadata, the path shown as `shown`.
pub(crate) fn entry(path: &Path, shown: String, meta: &std::fs::Metadata) -> FileEntry {
    FileEntry {
        name: path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| shown.clone()),
        path: shown,
        is_directory: meta.is_dir(),
        size: if meta.is_dir() { 0 } else { meta.len() },
        modified_ms: modified_ms(meta),
    }
}

/// `listFiles`.
pub(crate) fn list_files(paths: &Paths, p: &ListFilesParams) -> Result<ListFilesResult> {
    let dir = paths.readable(&p.path)?;
    let meta = std::fs::metadata(&dir).map_err(|e| Error::io(&p.path, e))?;
    if !meta.is_dir() {
        return Err(Error::WrongKind {
            path: p.path.clone().into(),
            expected: "a directory",
            found: "a file",
        });
    }
    let show_hidden = p.show_hidden.unwrap_or(false);
    let mut entries = Vec::new();
    let mut secrets_skipped = 0;
    if let Some(guard) = paths.guard() {
        // Read from a handle of the directory judged, not by name again.
        let beneath = crate::local::verified::Beneath::open(&dir, &p.path, guard)?;
        for (name, meta) in beneath.list().map_err(|e| Error::io(&p.path, e))? {
            if !show_hidden && name.as_encoded_bytes().starts_with(b".") {
                continue;
            }
            let path = dir.join(&name);
            if guard.is_secret(&path) {
                secrets_skipped += 1;
                continue;
            }
            entries.push(entry(&path, paths.display(&path), &meta));
        }
    } else {
        for item in std::fs::read_dir(&dir).map_err(|e| Error::io(&p.path, e))? {
            let item = item.map_err(|e| Error::io(&p.path, e))?;
            let name = item.file_name().to_string_lossy().into_owned();
            if !show_hidden && name.starts_with('.') {
                continue;
            }
            let path = item.path();
            // Follow symlinks for the kind; fall back to the link itself when dangling.
            let Ok(meta) = std::fs::metadata(&path).or_else(|_| item.metadata()) else {
                continue;
            };
            entries.push(entry(&path, paths.display(&path), &meta));
        }
    }
    match p.sort_by.unwrap_or_default() {
        SortBy::Name => entries.sort_by(|a, b| {
            b.is_directory
                .cmp(&a.is_directory)
                .then_with(|| a.name.cmp(&b.name))
        }),
        SortBy::Modified => entries.sort_by(|a, b| {
            b.modified_ms
                .cmp(&a.modified_ms)
                .then_with(|| a.name.cmp(&b.name))
        }),
        SortBy::Size => {
            entries.sort_by(|a, b| b.size.cmp(&a.size).then_with(|| a.name.cmp(&b.name)))
        }
    }
    let total = entries.len();
    entries.truncate(p.limit.unwrap_or(DEFAULT_LIST_LIMIT).max(1));
    Ok(ListFilesResult {
        path: p.path.clone(),
        entries,
        total,
        secrets_skipped,
    })
}

/// Writes `bytes` to `target` atomically: a temporary file in the same
/// directory is written, synced and renamed over the target, so readers see
/// the old file or the new one, never half of one. Missing parent
/// directories are created. The existing file's permissions are kept.
///
/// `before_commit` runs after the temporary file is complete and just before
/// the rename; an error from it aborts the write and leaves the target as it
/// was (the edit operation uses it to refuse files changed meanwhile).
pub(crate) fn atomic_write(
    target: &Path,
    shown: &str,
    bytes: &[u8],
    guard: Option<&crate::local::confine::Guard>,
    before_commit: impl FnOnce() -> Result<()>,
) -> Result<()> {
    let io = |e| Error::io(shown, e);
    #[cfg(target_os = "linux")]
    if let Some(guard) = guard {
        let (root, entry) = guard.write_target(target, shown)?;
        return crate::beneath::write_atomic(&root, &entry, bytes, before_commit, io);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = guard;
    let parent = match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(parent).map_err(io)?;
    let file_name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{file_name}."))
        .suffix(".tmp")
        .tempfile_in(parent)
        .map_err(io)?;
    tmp.write_all(bytes).map_err(io)?;
    tmp.as_file().sync_all().map_err(io)?;
    if let Ok(meta) = std::fs::metadata(target) {
        std::fs::set_permissions(tmp.path(), meta.permissions()).map_err(io)?;
    }
    before_commit()?;
    tmp.persist(target).map_err(|e| io(e.error))?;
    Ok(())
}

/// `writeFile`.
pub(crate) fn write_file(paths: &Paths, p: &WriteFileParams) -> Result<WriteFileResult> {
    let target = paths.writable(&p.path)?;
    let created = match std::fs::metadata(&target) {
        Ok(meta) if meta.is_dir() => {
            return Err(Error::WrongKind {
                path: p.path.clone().into(),
                expected: "a file",
                found: "a directory",
            });
        }
        Ok(_) => false,
        Err(_) => true,
    };
    atomic_write(
        &target,
        &p.path,
        p.content.as_bytes(),
        paths.guard(),
        || Ok(()),
    )?;
    Ok(WriteFileResult {
        path: p.path.clone(),
        bytes_written: p.content.len() as u64,
        created,
    })
}

/// Moves one path, across filesystems too (files are copied then removed).
fn move_one(paths: &Paths, old: &str, new: &str, overwrite: bool) -> Result<()> {
    let from = paths.resolve(old);
    let to = paths.resolve(new);
    if let Some(guard) = paths.guard() {
        let judged = guard.check_move(&from, &to, old)?;
        #[cfg(target_os = "linux")]
        return move_beneath(guard, judged, (old, new), overwrite);
        #[cfg(not(target_os = "linux"))]
        let _ = judged;
    }
    let meta = std::fs::symlink_metadata(&from).map_err(|e| Error::io(old, e))?;
    if to.exists() && !overwrite {
        return Err(Error::AlreadyExists { path: new.into() });
    }
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Error::io(new, e))?;
    }
    match std::fs::rename(&from, &to) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::CrossesDevices && meta.is_file() => {
            std::fs::copy(&from, &to).map_err(|e| Error::io(new, e))?;
            std::fs::remove_file(&from).map_err(|e| Error::io(old, e))
        }
        Err(e) => Err(Error::io(old, e)),
    }
}

/// A confined move of the entries `judged` (canonical source and
/// destination, as the guard judged them) through directory handles
/// walked down from their writable roots: a symlink swapped into either
/// path after the check fails the move instead of redirecting it.
#[cfg(target_os = "linux")]
fn move_beneath(
    guard: &crate::local::confine::Guard,
    (from, to): (std::path::PathBuf, std::path::PathBuf),
    (old, new): (&str, &str),
    overwrite: bool,
) -> Result<()> {
    use crate::beneath::MoveFailure;
    let left = |shown: &str| {
        Error::io(
            shown,
            std::io::Error::other("the path left the writable roots while it was being moved"),
        )
    };
    let from_root = guard.root_of(&from).ok_or_else(|| left(old))?;
    let to_root = guard.root_of(&to).ok_or_else(|| left(new))?;
    crate::beneath::move_entry((&from_root, &from), (&to_root, &to), overwrite).map_err(|failure| {
        match failure {
            MoveFailure::Source(e) => Error::io(old, e),
            MoveFailure::Destination(e) => Error::io(new, e),
            MoveFailure::Exists => Error::AlreadyExists { path: new.into() },
        }
    })
}

/// `moveFiles`: each item is attempted; failures are reported per item.
pub(crate) fn move_files(paths: &Paths, p: &MoveFilesParams) -> Result<MoveFilesResult> {
    let overwrite = p.overwrite.unwrap_or(false);
    let results: Vec<MoveOutcome> = p
        .items
        .iter()
        .map(|item| {
            let outcome = move_one(paths, &item.old_path, &item.new_path, overwrite);
            MoveOutcome {
                old_path: item.old_path.clone(),
                new_path: item.new_path.clone(),
                success: outcome.is_ok(),
                error: outcome.err().as_ref().map(ItemError::from),
            }
        })
        .collect();
    let moved = results.iter().filter(|r| r.success).count();
    Ok(MoveFilesResult {
        failed: results.len() - moved,
        moved,
        results,
    })
}

/// `renameFile`.
pub(crate) fn rename_file(paths: &Paths, p: &RenameFileParams) -> Result<RenameFileResult> {
    let name = p.new_name.as_str();
    if name.is_empty() || name == "." || name == ".." || name.contains('/') || name.contains('\0') {
        return Err(Error::invalid(
            "newName",
            name,
            "give a bare file name without directories; use moveFiles to move it elsewhere",
        ));
    }
    let from = paths.resolve(&p.path);
    let Some(parent) = from.parent() else {
        return Err(Error::invalid(
            "path",
            &p.path,
            "the root cannot be renamed",
        ));
    };
    let to = parent.join(name);
    let new_path = match Path::new(&p.path).parent() {
        Some(given_parent) if !given_parent.as_os_str().is_empty() => {
            given_parent.join(name).to_string_lossy().into_owned()
        }
        _ => name.to_owned(),
    };
    if let Some(guard) = paths.guard() {
        let judged = guard.check_move(&from, &to, &p.path)?;
        #[cfg(target_os = "linux")]
        {
            move_beneath(guard, judged, (&p.path, &new_path), false)?;
            return Ok(RenameFileResult {
                old_path: p.path.clone(),
                new_path,
            });
        }
        #[cfg(not(target_os = "linux"))]
        let _ = judged;
    }
    std::fs::symlink_metadata(&from).map_err(|e| Error::io(&p.path, e))?;
    if to.exists() {
        return Err(Error::AlreadyExists {
            path: new_path.into(),
        });
    }
    std::fs::rename(&from, &to).map_err(|e| Error::io(&p.path, e))?;
    Ok(RenameFileResult {
        old_path: p.path.clone(),
        new_path,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aborted_atomic_write_leaves_the_old_file_and_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("a.txt");
        std::fs::write(&target, "old").unwrap();
        let err = atomic_write(&target, "a.txt", b"new", None, || {
            Err(Error::FileChanged {
                path: "a.txt".into(),
                reason: "test".into(),
            })
        })
        .unwrap_err();
        assert_eq!(err.code(), "file_changed");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
