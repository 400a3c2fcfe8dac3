//! Finding files: by glob and by name, on ripgrep's `ignore` walker.
//!
//! Walks honour `.gitignore`, `.ignore` and `.git/info/exclude` (also
//! outside a git repository) and skip hidden entries, unless the call sets
//! `includeIgnored` / `includeHidden`. A `.git` directory is never entered.
//! Results are sorted by path and capped; the total is always reported.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use globset::{GlobBuilder, GlobMatcher};
use ignore::WalkBuilder;

use crate::error::{Error, Result};
use crate::local::confine::Guard;
use crate::local::fs::entry;
use crate::local::paths::Paths;
use crate::local::verified::Beneath;
use crate::request::{EntryKind, GlobFilesParams, SearchFilesParams};
use crate::response::{FileEntry, GlobFilesResult, SearchFilesResult};

/// Default number of `globFiles` results.
pub(crate) const DEFAULT_GLOB_LIMIT: usize = 500;
/// Default number of `searchFiles` results.
pub(crate) const DEFAULT_SEARCH_LIMIT: usize = 100;

/// Which files a walk visits.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct WalkFilter {
    pub(crate) include_ignored: bool,
    pub(crate) include_hidden: bool,
}

/// Secret entries a confined walk left out, counted across its threads.
#[derive(Debug, Clone, Default)]
pub(crate) struct Skipped(Arc<AtomicUsize>);

impl Skipped {
    /// How many were skipped.
    pub(crate) fn count(&self) -> usize {
        self.0.load(Ordering::Relaxed)
    }
}

/// A walker over `root` with the filter applied; under confinement
/// (`guard`), secret entries are neither yielded nor entered, and counted.
pub(crate) fn walker(
    root: &Path,
    filter: WalkFilter,
    guard: Option<&Guard>,
) -> (WalkBuilder, Skipped) {
    let honour = !filter.include_ignored;
    let skipped = Skipped::default();
    let counter = skipped.clone();
    let guard = guard.cloned();
    let mut builder = WalkBuilder::new(root);
    builder
        .hidden(!filter.include_hidden)
        .git_ignore(honour)
        .git_exclude(honour)
        .git_global(honour)
        .ignore(honour)
        .parents(honour)
        .require_git(false)
        .follow_links(false)
        .filter_entry(move |e| {
            if e.file_name() == ".git" {
                return false;
            }
            if e.depth() > 0 && guard.as_ref().is_some_and(|g| g.is_secret(e.path())) {
                counter.0.fetch_add(1, Ordering::Relaxed);
                return false;
            }
            true
        });
    (builder, skipped)
}

/// The directory a search starts from: the given one, or the working
/// directory; under confinement also held by a handle that confirms what
/// the walk finds (see [`Beneath`]).
pub(crate) fn search_root(
    paths: &Paths,
    given: Option<&str>,
) -> Result<(PathBuf, String, Option<Beneath>)> {
    let (root, shown) = match given {
        Some(dir) => (paths.readable(dir)?, dir.to_owned()),
        None => (paths.cwd().to_path_buf(), ".".to_owned()),
    };
    std::fs::metadata(&root).map_err(|e| Error::io(&shown, e))?;
    let beneath = match paths.guard() {
        Some(guard) => Some(Beneath::open(&root, &shown, guard)?),
        None => None,
    };
    Ok((root, shown, beneath))
}

fn glob_matcher(pattern: &str) -> Result<GlobMatcher> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|e| {
            Error::invalid(
                "pattern",
                pattern,
                format!("{e}; use * within a name, ** across directories, {{a,b}} for choices"),
            )
        })
}

/// `globFiles`. A pattern without `/` matches file names at any depth
/// (like a `.gitignore` line); with `/` it matches the path relative to the
/// search directory.
pub(crate) fn glob_files(paths: &Paths, p: &GlobFilesParams) -> Result<GlobFilesResult> {
    let (root, shown, mut beneath) = search_root(paths, p.path.as_deref())?;
    let matcher = glob_matcher(p.pattern.trim_start_matches("./"))?;
    let basename_only = !p.pattern.contains('/');
    let filter = WalkFilter {
        include_ignored: p.include_ignored.unwrap_or(false),
        include_hidden: p.include_hidden.unwrap_or(false),
    };
    let mut files = Vec::new();
    let (walk, skipped) = walker(&root, filter, paths.guard());
    for item in walk.build().flatten() {
        let kind = match beneath.as_mut() {
            Some(beneath) => beneath.metadata(item.path()).map(|m| m.file_type()),
            None => item.file_type(),
        };
        if !kind.is_some_and(|t| t.is_file() || t.is_symlink()) {
            continue;
        }
        let path = item.path();
        let hit = if basename_only {
            path.file_name().is_some_and(|n| matcher.is_match(n))
        } else {
            path.strip_prefix(&root)
                .is_ok_and(|rel| matcher.is_match(rel))
        };
        if hit {
            files.push(paths.display(path));
        }
    }
    files.sort();
    let total = files.len();
    files.truncate(p.limit.unwrap_or(DEFAULT_GLOB_LIMIT).max(1));
    Ok(GlobFilesResult {
        pattern: p.pattern.clone(),
        directory: shown,
        files,
        total,
        secrets_skipped: skipped.count(),
    })
}

/// Days since 1970-01-01 of a civil date (proleptic Gregorian).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Parses `YYYY-MM-DD`, optionally followed by `THH:MM[:SS[.fff]]` and `Z`
/// or `±HH:MM` (no offset means UTC).
pub(crate) fn parse_time(text: &str) -> Option<SystemTime> {
    let text = text.trim();
    let num = |s: &str| s.parse::<i64>().ok();
    let (date, rest) = text.split_at(text.len().min(10));
    let mut parts = date.split('-');
    let (y, m, d) = (
        num(parts.next()?)?,
        num(parts.next()?)?,
        num(parts.next()?)?,
    );
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || parts.next().is_some() {
        return None;
    }
    let mut seconds = days_from_civil(y, m, d) * 86_400;
    let rest = rest.strip_prefix(['T', 't', ' ']).unwrap_or(rest);
    if !rest.is_empty() {
        let (clock, offset) = match rest.find(['Z', 'z', '+', '-']) {
            Some(at) => rest.split_at(at),
            None => (rest, ""),
        };
        let mut hms = clock.split(':');
        let h = num(hms.next()?)?;
        let min = num(hms.next()?)?;
        let s = match hms.next() {
            Some(s) => s.split('.').next().and_then(num)?,
            None => 0,
        };
        if h > 23 || min > 59 || s > 60 {
            return None;
        }
        seconds += h * 3600 + min * 60 + s;
        if let Some(sign_rest) = offset.strip_prefix(['+', '-']) {
            let sign = if offset.starts_with('-') { -1 } else { 1 };
            let mut off = sign_rest.split(':');
            let oh = num(off.next()?)?;
            let om = off.next().map_or(Some(0), num)?;
            seconds -= sign * (oh * 3600 + om * 60);
        } else if !offset.is_empty() && !offset.eq_ignore_ascii_case("z") {
            return None;
        }
    }
    let secs = u64::try_from(seconds).ok()?;
    Some(UNIX_EPOCH + Duration::from_secs(secs))
}

fn time_arg(argument: &'static str, value: Option<&String>) -> Result<Option<SystemTime>> {
    value
        .map(|v| {
            parse_time(v).ok_or_else(|| {
                Error::invalid(
                    argument,
                    v,
                    "use ISO 8601, e.g. 2025-01-31 or 2025-01-31T12:00:00Z",
                )
            })
        })
        .transpose()
}

/// `searchFiles`: every whitespace-separated word of the keyword must occur
/// in the entry's name (case-insensitive); then the type, kind and
/// modification-time filters apply.
pub(crate) fn search_files(paths: &Paths, p: &SearchFilesParams) -> Result<SearchFilesResult> {
    let (root, shown, mut beneath) = search_root(paths, p.directory.as_deref())?;
    let words: Vec<String> = p
        .keyword
        .split_whitespace()
        .map(str::to_lowercase)
        .collect();
    let after = time_arg("modifiedAfter", p.modified_after.as_ref())?;
    let before = time_arg("modifiedBefore", p.modified_before.as_ref())?;
    let extensions: Option<Vec<String>> = p.file_types.as_ref().map(|types| {
        types
            .iter()
            .map(|t| {
                t.trim_start_matches("*.")
                    .trim_start_matches('.')
                    .to_lowercase()
            })
            .collect()
    });
    let kind = p.kind.unwrap_or_default();
    let filter = WalkFilter {
        include_ignored: p.include_ignored.unwrap_or(false),
        include_hidden: p.include_hidden.unwrap_or(false),
    };
    let mut results: Vec<FileEntry> = Vec::new();
    let (walk, skipped) = walker(&root, filter, paths.guard());
    for item in walk.build().flatten() {
        if item.depth() == 0 {
            continue;
        }
        let name = item.file_name().to_string_lossy().to_lowercase();
        if !words.iter().all(|w| name.contains(w.as_str())) {
            continue;
        }
        let meta = match beneath.as_mut() {
            Some(beneath) => beneath.metadata(item.path()),
            None => item.metadata().ok(),
        };
        let Some(meta) = meta else { continue };
        let wanted_kind = match kind {
            EntryKind::File => !meta.is_dir(),
            EntryKind::Directory => meta.is_dir(),
            EntryKind::Any => true,
        };
        if !wanted_kind {
            continue;
        }
        if let Some(exts) = &extensions {
            let ext = item
                .path()
                .extension()
                .map(|e| e.to_string_lossy().to_lowercase());
            if !ext.is_some_and(|e| exts.contains(&e)) {
                continue;
            }
        }
        let modified = meta.modified().ok();
        if after.is_some_and(|t| modified.is_none_or(|m| m < t)) {
            continue;
        }
        if before.is_some_and(|t| modified.is_none_or(|m| m >= t)) {
            continue;
        }
        results.push(entry(item.path(), paths.display(item.path()), &meta));
    }
    results.sort_by(|a, b| a.path.cmp(&b.path));
    let total = results.len();
    results.truncate(p.limit.unwrap_or(DEFAULT_SEARCH_LIMIT).max(1));
    Ok(SearchFilesResult {
        keyword: p.keyword.clone(),
        directory: shown,
        results,
        total,
        secrets_skipped: skipped.count(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(t: SystemTime) -> u64 {
        t.duration_since(UNIX_EPOCH).unwrap().as_secs()
    }

    #[test]
    fn iso_dates_and_times_parse_to_utc() {
        assert_eq!(secs(parse_time("1970-01-02").unwrap()), 86_400);
        assert_eq!(
            secs(parse_time("2000-03-01T00:00:00Z").unwrap()),
            951_868_800
        );
        assert_eq!(
            secs(parse_time("2000-03-01T02:00:00+02:00").unwrap()),
            951_868_800
        );
        assert_eq!(secs(parse_time("2000-03-01T00:00").unwrap()), 951_868_800);
    }

    #[test]
    fn malformed_dates_are_rejected() {
        assert!(parse_time("yesterday").is_none());
        assert!(parse_time("2024-13-01").is_none());
        assert!(parse_time("2024-01-01T25:00").is_none());
    }
}
