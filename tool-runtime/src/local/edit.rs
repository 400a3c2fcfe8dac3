//! Literal text replacement with uniqueness, line-ending and freshness checks.
//!
//! Semantics of one edit:
//!
//! 1. The file is read (size-limited, must be text).
//! 2. If `expectedHash` is given and differs from the file's fingerprint, the
//!    edit is refused with `file_changed`: the model's view of the file is stale.
//! 3. In a CRLF file, `\n` in the old and new text is read as `\r\n`, so the
//!    file keeps its line endings.
//! 4. The old text is searched literally (no regex, no `$` substitutions).
//!    Absent: `edit_text_not_found`. More than once without `replaceAll`:
//!    `edit_ambiguous`, naming the count and the lines.
//! 5. The new content is written to a temporary file; just before it is
//!    renamed over the original, the file is fingerprinted again (length,
//!    modification time and content hash) and the edit is refused with
//!    `file_changed` if anything differs from step 1, so a concurrent writer's
//!    work is never silently overwritten. (A write landing in the microseconds
//!    between that check and the rename is not detected.)

use std::path::Path;
use std::time::SystemTime;

use similar::{ChangeTag, TextDiff};

use crate::error::{Error, Result};
use crate::local::LocalConfig;
use crate::local::fs::atomic_write;
use crate::local::paths::Paths;
use crate::local::read::{content_hash, read_limited};
use crate::request::EditFileParams;
use crate::response::EditFileResult;

/// What identifies a version of a file.
#[derive(Debug, PartialEq, Eq)]
struct Fingerprint {
    len: u64,
    modified: Option<SystemTime>,
    hash: String,
}

fn fingerprint(path: &Path, shown: &str) -> Result<Fingerprint> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(shown, e))?;
    let bytes = std::fs::read(path).map_err(|e| Error::io(shown, e))?;
    Ok(Fingerprint {
        len: meta.len(),
        modified: meta.modified().ok(),
        hash: content_hash(&bytes),
    })
}

/// Whether the file's lines end with CRLF (most of them do).
fn uses_crlf(text: &str) -> bool {
    let crlf = text.matches("\r\n").count();
    crlf > 0 && crlf * 2 >= text.matches('\n').count()
}

fn to_crlf(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\n', "\r\n")
}

/// 1-based line number of byte offset `at`.
fn line_of(text: &str, at: usize) -> usize {
    memchr::memchr_iter(b'\n', &text.as_bytes()[..at]).count() + 1
}

/// `editFile`.
pub(crate) fn edit_file(
    paths: &Paths,
    config: &LocalConfig,
    p: &EditFileParams,
) -> Result<EditFileResult> {
    edit_file_with_hook(paths, config, p, || {})
}

/// `editFile`, with `between` run after the read and before the commit
/// check (tests use it to change the file meanwhile).
pub(crate) fn edit_file_with_hook(
    paths: &Paths,
    config: &LocalConfig,
    p: &EditFileParams,
    between: impl FnOnce(),
) -> Result<EditFileResult> {
    if p.old_string.is_empty() {
        return Err(Error::invalid(
            "oldString",
            "",
            "the text to replace is empty; use writeFile to create or overwrite a whole file",
        ));
    }
    let target = paths.writable(&p.path)?;
    let shown = p.path.as_str();
    let before = {
        let meta = std::fs::metadata(&target).map_err(|e| Error::io(shown, e))?;
        let bytes = read_limited(&target, shown, config.max_file_bytes, paths.guard())?;
        (meta, bytes)
    };
    let (meta, bytes) = before;
    let original_hash = content_hash(&bytes);
    if let Some(expected) = &p.expected_hash
        && *expected != original_hash
    {
        return Err(Error::FileChanged {
            path: shown.into(),
            reason: format!("its hash is {original_hash}, the edit expected {expected}"),
        });
    }
    let text = String::from_utf8(bytes).map_err(|_| Error::Binary {
        path: shown.into(),
        reason: "not valid UTF-8; only UTF-8 text files can be edited".into(),
    })?;
    let read_print = Fingerprint {
        len: meta.len(),
        modified: meta.modified().ok(),
        hash: original_hash,
    };

    let (old, new) = if uses_crlf(&text) {
        (to_crlf(&p.old_string), to_crlf(&p.new_string))
    } else {
        (p.old_string.clone(), p.new_string.clone())
    };
    let starts: Vec<usize> = text.match_indices(old.as_str()).map(|(at, _)| at).collect();
    if starts.is_empty() {
        return Err(Error::EditNotFound { path: shown.into() });
    }
    let replace_all = p.replace_all.unwrap_or(false);
    if starts.len() > 1 && !replace_all {
        return Err(Error::EditAmbiguous {
            path: shown.into(),
            count: starts.len(),
            lines: starts.iter().map(|at| line_of(&text, *at)).collect(),
        });
    }
    // `str::replace` is literal: `$1` or `\n` in `new` are inserted as written.
    let updated = if replace_all {
        text.replace(old.as_str(), &new)
    } else {
        text.replacen(old.as_str(), &new, 1)
    };

    let diff = TextDiff::from_lines(text.as_str(), updated.as_str());
    let (mut added, mut removed) = (0, 0);
    for change in diff.iter_all_changes() {
        match change.tag() {
            ChangeTag::Insert => added += 1,
            ChangeTag::Delete => removed += 1,
            ChangeTag::Equal => {}
        }
    }
    let unified = diff
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{shown}"), &format!("b/{shown}"))
        .to_string();

    between();
    atomic_write(&target, shown, updated.as_bytes(), paths.guard(), || {
        let now = fingerprint(&target, shown)?;
        if now == read_print {
            Ok(())
        } else {
            Err(Error::FileChanged {
                path: shown.into(),
                reason: "it was modified by someone else while the edit was being made".into(),
            })
        }
    })?;

    Ok(EditFileResult {
        path: p.path.clone(),
        replacements: starts.len(),
        diff: unified,
        lines_added: added,
        lines_removed: removed,
        bytes_written: updated.len() as u64,
        content_hash: content_hash(updated.as_bytes()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(path: &str, old: &str, new: &str) -> EditFileParams {
        EditFileParams {
            path: path.into(),
            old_string: old.into(),
            new_string: new.into(),
            replace_all: None,
            expected_hash: None,
        }
    }

    #[test]
    fn a_write_between_read_and_commit_refuses_the_edit() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.txt");
        std::fs::write(&file, "one\ntwo\n").unwrap();
        let paths = Paths::new(dir.path().to_path_buf());
        let err = edit_file_with_hook(
            &paths,
            &LocalConfig::default(),
            &params("a.txt", "two", "TWO"),
            || std::fs::write(&file, "one\ntwo\nthree\n").unwrap(),
        )
        .unwrap_err();
        assert_eq!(err.code(), "file_changed");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "one\ntwo\nthree\n");
    }

    #[test]
    fn crlf_detection_needs_most_lines_to_be_crlf() {
        assert!(uses_crlf("a\r\nb\r\n"));
        assert!(!uses_crlf("a\nb\nc\r\n"));
        assert_eq!(to_crlf("a\nb\r\n"), "a\r\nb\r\n");
    }

    #[test]
    fn line_numbers_are_one_based() {
        assert_eq!(line_of("a\nb\nc", 0), 1);
        assert_eq!(line_of("a\nb\nc", 4), 3);
    }
}
