//! Reading a resolved file of a skill through one open that follows no
//! link, so a path checked by [`crate::reference`] cannot be swapped for a
//! link to somewhere else before it is read.
//!
//! Resolution finds the file's real location (every link resolved) and
//! checks that it is inside the skill folder. Opening that location by name
//! afterwards would follow whatever stands there at that moment: a component
//! replaced by a symbolic link in between (a check-then-open race) would
//! lead outside. So on Unix the read:
//!
//! 1. opens the skill folder itself (`O_DIRECTORY | O_NOFOLLOW`);
//! 2. opens each folder of the real path relative to the previous one with
//!    `openat(…, O_DIRECTORY | O_NOFOLLOW)`, and the file with
//!    `openat(…, O_NOFOLLOW | O_NONBLOCK)`: a link anywhere on the way makes
//!    the open fail instead of being followed, and a FIFO put in place of
//!    the file cannot block the open;
//! 3. on Linux, checks once more where the opened descriptor is
//!    (`/proc/self/fd/N`): inside the folder, or refused;
//! 4. checks through the descriptor that it is a regular file under the
//!    size cap, and reads through the same descriptor.
//!
//! Elsewhere the file is opened by its real path (no `openat` there).

use std::fs::File;
use std::io::Read;
use std::path::Path;

use crate::reference::RefError;

/// Reads `real` (a canonical path inside the canonical skill folder `root`)
/// up to `cap` bytes: `Ok(bytes)`, or `Err(size)` when it is larger.
pub(crate) fn read_inside(
    root: &Path,
    real: &Path,
    cap: u64,
) -> Result<Result<Vec<u8>, u64>, RefError> {
    let rel = real.strip_prefix(root).map_err(|_| {
        RefError::NotAllowed(format!("`{}` is outside the skill folder", real.display()))
    })?;
    let shown = rel.display().to_string();
    let file = open_inside(root, rel, &shown)?;
    read_file(file, &shown, cap)
}

#[cfg(unix)]
fn open_inside(root: &Path, rel: &Path, shown: &str) -> Result<File, RefError> {
    use rustix::fs::{CWD, Mode, OFlags, openat};
    use rustix::io::Errno;
    use std::path::Component;

    let folder = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let swapped = |what: &str| {
        RefError::NotAllowed(format!(
            "`{shown}` changed after it was checked: {what} is now a symbolic link or not a folder, and links are not followed when a file is opened"
        ))
    };
    let failed = |errno: Errno, what: &str| match errno {
        Errno::LOOP | Errno::NOTDIR | Errno::MLINK => swapped(what),
        Errno::NOENT => RefError::Io(format!("`{shown}` disappeared before it could be read")),
        other => RefError::Io(format!("`{shown}`: {}", std::io::Error::from(other))),
    };
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    for component in rel.components() {
        match component {
            Component::Normal(part) => parts.push(part),
            Component::CurDir => {}
            _ => {
                return Err(RefError::NotAllowed(format!(
                    "`{shown}` is not a plain relative path"
                )));
            }
        }
    }
    let Some((last, folders)) = parts.split_last() else {
        return Err(RefError::NotAFile(shown.to_owned()));
    };
    let mut dir =
        openat(CWD, root, folder, Mode::empty()).map_err(|e| failed(e, "the skill folder"))?;
    for part in folders {
        dir = openat(&dir, *part, folder, Mode::empty())
            .map_err(|e| failed(e, &format!("folder `{}`", part.to_string_lossy())))?;
    }
    let fd = openat(
        &dir,
        *last,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| failed(e, "the file"))?;
    verify_location(&fd, root, shown)?;
    Ok(File::from(fd))
}

/// Linux: where the descriptor really is, read back from `/proc/self/fd`.
/// Without `/proc` the component-wise open above is the guarantee.
#[cfg(target_os = "linux")]
fn verify_location(fd: &std::os::fd::OwnedFd, root: &Path, shown: &str) -> Result<(), RefError> {
    use std::os::fd::AsRawFd;
    let link = Path::new("/proc/self/fd").join(fd.as_raw_fd().to_string());
    match std::fs::read_link(&link) {
        Ok(target) if target.starts_with(root) => Ok(()),
        Ok(target) => Err(RefError::NotAllowed(format!(
            "`{shown}` was opened at {}, outside the skill folder",
            target.display()
        ))),
        Err(_) => Ok(()),
    }
}

#[cfg(all(unix, not(target_os = "linux")))]
fn verify_location(_fd: &std::os::fd::OwnedFd, _root: &Path, _shown: &str) -> Result<(), RefError> {
    Ok(())
}

#[cfg(not(unix))]
fn open_inside(root: &Path, rel: &Path, shown: &str) -> Result<File, RefError> {
    File::open(root.join(rel)).map_err(|e| RefError::Io(format!("`{shown}`: {e}")))
}

/// Checks through the open file that it is regular and under the cap, then
/// reads at most `cap + 1` bytes from it.
fn read_file(file: File, shown: &str, cap: u64) -> Result<Result<Vec<u8>, u64>, RefError> {
    let meta = file
        .metadata()
        .map_err(|e| RefError::Io(format!("`{shown}`: {e}")))?;
    if !meta.is_file() {
        return Err(RefError::NotAFile(shown.to_owned()));
    }
    if meta.len() > cap {
        return Ok(Err(meta.len()));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| RefError::Io(format!("`{shown}`: {e}")))?;
    if bytes.len() as u64 > cap {
        return Ok(Err(bytes.len() as u64));
    }
    Ok(Ok(bytes))
}

#[cfg(all(test, unix))]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::fs;
    use std::os::unix::fs::symlink;

    use super::*;
    use crate::reference::{ReferenceLimits, resolve_disk};

    /// A skill folder with `references/guide.md`, and a secret outside it.
    fn layout() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap();
        let skill = root.join("skill");
        fs::create_dir_all(skill.join("references")).unwrap();
        fs::write(skill.join("references/guide.md"), "inside").unwrap();
        let outside = root.join("outside");
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join("guide.md"), "SECRET").unwrap();
        (tmp, skill, outside)
    }

    #[test]
    fn reads_a_checked_file() {
        let (_tmp, skill, _) = layout();
        let resolved =
            resolve_disk(&skill, "references/guide.md", &ReferenceLimits::default()).unwrap();
        let abs = resolved.abs.unwrap();
        assert_eq!(read_inside(&skill, &abs, 1024).unwrap().unwrap(), b"inside");
        assert_eq!(read_inside(&skill, &abs, 3).unwrap(), Err(6));
    }

    /// The check passes, then the file is replaced by a link to an outside
    /// file before the read: the read refuses instead of following it.
    #[test]
    fn a_file_swapped_for_a_link_after_the_check_is_refused() {
        let (_tmp, skill, outside) = layout();
        let resolved =
            resolve_disk(&skill, "references/guide.md", &ReferenceLimits::default()).unwrap();
        let abs = resolved.abs.unwrap();
        fs::remove_file(&abs).unwrap();
        symlink(outside.join("guide.md"), &abs).unwrap();
        // Opening by name (what the read did before) would follow the link.
        assert_eq!(fs::read_to_string(&abs).unwrap(), "SECRET");
        let refused = read_inside(&skill, &abs, 1024);
        assert!(
            matches!(&refused, Err(RefError::NotAllowed(why)) if why.contains("changed after it was checked")),
            "{refused:?}"
        );
    }

    /// Same with a folder on the way replaced by a link to an outside folder.
    #[test]
    fn a_folder_swapped_for_a_link_after_the_check_is_refused() {
        let (_tmp, skill, outside) = layout();
        let resolved =
            resolve_disk(&skill, "references/guide.md", &ReferenceLimits::default()).unwrap();
        let abs = resolved.abs.unwrap();
        fs::rename(skill.join("references"), skill.join("old")).unwrap();
        symlink(&outside, skill.join("references")).unwrap();
        assert_eq!(fs::read_to_string(&abs).unwrap(), "SECRET");
        let refused = read_inside(&skill, &abs, 1024);
        assert!(
            matches!(&refused, Err(RefError::NotAllowed(why)) if why.contains("folder `references`")),
            "{refused:?}"
        );
    }

    /// A folder above the skill folder swapped for a link (the open of the
    /// folder itself follows links above it): caught by the Linux check of
    /// where the descriptor really is.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_parent_swapped_for_a_link_is_caught_by_the_descriptor_check() {
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        for top in ["home", "elsewhere"] {
            let refs = base.join(top).join("skill/references");
            fs::create_dir_all(&refs).unwrap();
            fs::write(refs.join("guide.md"), top).unwrap();
        }
        let skill = base.join("home/skill");
        let resolved =
            resolve_disk(&skill, "references/guide.md", &ReferenceLimits::default()).unwrap();
        let abs = resolved.abs.unwrap();
        fs::rename(base.join("home"), base.join("moved")).unwrap();
        symlink(base.join("elsewhere"), base.join("home")).unwrap();
        assert_eq!(fs::read_to_string(&abs).unwrap(), "elsewhere");
        let refused = read_inside(&skill, &abs, 1024);
        assert!(
            matches!(&refused, Err(RefError::NotAllowed(why)) if why.contains("outside the skill folder")),
            "{refused:?}"
        );
    }

    /// A FIFO put in place of the file neither blocks nor is read.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_file_swapped_for_a_fifo_is_not_a_file() {
        let (_tmp, skill, _) = layout();
        let resolved =
            resolve_disk(&skill, "references/guide.md", &ReferenceLimits::default()).unwrap();
        let abs = resolved.abs.unwrap();
        fs::remove_file(&abs).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &abs,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        assert!(matches!(
            read_inside(&skill, &abs, 1024),
            Err(RefError::NotAFile(_))
        ));
    }

    #[test]
    fn a_path_outside_the_root_is_refused() {
        let (_tmp, skill, outside) = layout();
        assert!(matches!(
            read_inside(&skill, &outside.join("guide.md"), 1024),
            Err(RefError::NotAllowed(_))
        ));
    }
}
