//! The size limit of a computer's private temp dir (the confined
//! commands' `/tmp`, or their `TMPDIR` without namespaces).
//!
//! The private temp dir is a folder of the host's temp dir shared by the
//! computer's commands, so no mount of the command's own can bound it (a
//! `tmpfs` would end with the command). Its use is measured instead: the
//! space its files take on disk (allocated blocks, so a sparse file counts
//! what it really holds), while a command runs (every [`POLL`], or less
//! often when a measure takes long: at most a tenth of the time goes to
//! measuring) and when it ends. A command running when the use passes
//! [`Limits::tmp_bytes`](super::Limits::tmp_bytes) is killed, and its end
//! names the `tmp size limit`. The bound is as tight as the poll: what a
//! command writes within one poll lands before it is killed (each file
//! stays under the file-size limit).

use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How often the use is measured while a command runs.
pub(crate) const POLL: Duration = Duration::from_millis(100);

/// Entries measured at most; a private temp dir holding more counts as
/// over any limit (its use cannot be told cheaply).
const MAX_ENTRIES: usize = 500_000;

/// The space the files under `dir` take, once it is more than `limit`
/// bytes (the walk stops there); `None` while it is within.
pub(crate) fn over(dir: &Path, limit: u64) -> Option<u64> {
    let mut used: u64 = 0;
    let mut seen = 0usize;
    let mut stack: Vec<PathBuf> = vec![dir.to_path_buf()];
    while let Some(next) = stack.pop() {
        // Unreadable folders (the overlay's `work/work`, mode 000) hold
        // only what the kernel moves through them.
        let Ok(entries) = std::fs::read_dir(&next) else {
            continue;
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen > MAX_ENTRIES {
                return Some(used.max(limit.saturating_add(1)));
            }
            let Ok(meta) = entry.path().symlink_metadata() else {
                continue;
            };
            used = used.saturating_add(meta.blocks().saturating_mul(512));
            if used > limit {
                return Some(used);
            }
            if meta.is_dir() {
                stack.push(entry.path());
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn use_is_counted_in_nested_folders_and_stops_past_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("a/b")).unwrap();
        std::fs::write(dir.path().join("a/b/f"), vec![1u8; 64 * 1024]).unwrap();
        assert_eq!(over(dir.path(), 1 << 20), None);
        let used = over(dir.path(), 16 * 1024).unwrap();
        assert!(used > 16 * 1024, "{used}");
    }

    #[test]
    fn a_sparse_file_counts_what_it_holds_not_its_length() {
        let dir = tempfile::tempdir().unwrap();
        let file = std::fs::File::create(dir.path().join("sparse")).unwrap();
        file.set_len(1 << 30).unwrap();
        assert_eq!(over(dir.path(), 1 << 20), None);
    }
}
