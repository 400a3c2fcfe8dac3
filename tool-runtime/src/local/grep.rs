//! Content search on ripgrep's crates: `grep-regex` + `grep-searcher` over
//! the parallel `ignore` walker.
//!
//! Every option of the schema is implemented: case-insensitive matching,
//! line numbers, context before/after, the three output modes, glob and
//! ripgrep-type filters, the result limit, multiline patterns, and the
//! ignored/hidden switches. Binary files (a NUL byte) are skipped like
//! ripgrep does.
//!
//! Determinism: a first, parallel pass counts matching lines per file; files
//! are then sorted by path. Content mode runs a second, sequential pass over
//! the sorted files that stops as soon as `limit` lines are collected, so
//! the shown lines are always the first ones in path order and memory stays
//! bounded by the limit.

use std::path::PathBuf;
use std::sync::Mutex;

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use ignore::WalkState;
use ignore::overrides::OverrideBuilder;
use ignore::types::TypesBuilder;

use crate::error::{Error, Result};
use crate::local::paths::Paths;
use crate::local::search::{WalkFilter, search_root, walker};
use crate::request::{GrepContentParams, GrepOutputMode};
use crate::response::{GrepContentResult, GrepCount, GrepLine};

/// Default number of results.
pub(crate) const DEFAULT_GREP_LIMIT: usize = 200;
/// Characters of a matched line kept.
const MAX_LINE_CHARS: usize = 500;
/// Largest accepted context on either side.
const MAX_CONTEXT: usize = 50;

fn matcher(p: &GrepContentParams) -> Result<RegexMatcher> {
    let multiline = p.multiline.unwrap_or(false);
    let mut builder = RegexMatcherBuilder::new();
    builder
        .case_insensitive(p.case_insensitive.unwrap_or(false))
        .multi_line(true)
        .dot_matches_new_line(multiline);
    if !multiline {
        builder.line_terminator(Some(b'\n'));
    }
    builder.build(&p.pattern).map_err(|e| {
        let message = e.to_string();
        let hint = if !multiline && message.contains("\\n") {
            "set multiline: true to match across lines"
        } else {
            "escape regex metacharacters such as ( [ . * with a backslash"
        };
        Error::invalid("pattern", &p.pattern, format!("{message}; {hint}"))
    })
}

fn searcher(p: &GrepContentParams, with_context: bool) -> Searcher {
    let (before, after) = if with_context {
        let both = p.context.unwrap_or(0);
        (
            p.context_before.unwrap_or(both).min(MAX_CONTEXT),
            p.context_after.unwrap_or(both).min(MAX_CONTEXT),
        )
    } else {
        (0, 0)
    };
    SearcherBuilder::new()
        .line_number(true)
        .multi_line(p.multiline.unwrap_or(false))
        .before_context(before)
        .after_context(after)
        .binary_detection(BinaryDetection::quit(b'\x00'))
        .build()
}

/// Counts matching lines.
struct CountSink(u64);

impl Sink for CountSink {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> std::io::Result<bool> {
        self.0 += mat.lines().count().max(1) as u64;
        Ok(true)
    }
}

/// Collects matched and context lines up to a limit.
struct LineSink<'a> {
    path: String,
    out: &'a mut Vec<GrepLine>,
    limit: usize,
}

fn line_text(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end_matches(['\n', '\r']);
    match text.char_indices().nth(MAX_LINE_CHARS) {
        Some((at, _)) => format!("{}… [line cut]", &text[..at]),
        None => text.to_owned(),
    }
}

impl LineSink<'_> {
    fn push(&mut self, number: u64, bytes: &[u8], context: bool) -> bool {
        if self.out.len() >= self.limit {
            return false;
        }
        self.out.push(GrepLine {
            path: self.path.clone(),
            line_number: number,
            text: line_text(bytes),
            context,
        });
        true
    }
}

impl Sink for LineSink<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> std::io::Result<bool> {
        let first = mat.line_number().unwrap_or(0);
        for (offset, line) in mat.lines().enumerate() {
            if !self.push(first + offset as u64, line, false) {
                return Ok(false);
            }
        }
        Ok(self.out.len() < self.limit)
    }

    fn context(&mut self, _: &Searcher, ctx: &SinkContext<'_>) -> std::io::Result<bool> {
        Ok(self.push(ctx.line_number().unwrap_or(0), ctx.bytes(), true))
    }
}

/// `grepContent`.
pub(crate) fn grep_content(paths: &Paths, p: &GrepContentParams) -> Result<GrepContentResult> {
    let (root, shown, mut beneath) = search_root(paths, p.path.as_deref())?;
    let matcher = matcher(p)?;
    let filter = WalkFilter {
        include_ignored: p.include_ignored.unwrap_or(false),
        include_hidden: p.include_hidden.unwrap_or(false),
    };
    let (mut walk, skipped) = walker(&root, filter, paths.guard());
    if let Some(glob) = &p.glob {
        let overrides = OverrideBuilder::new(&root)
            .add(glob)
            .and_then(|b| b.build())
            .map_err(|e| Error::invalid("glob", glob, e.to_string()))?;
        walk.overrides(overrides);
    }
    if let Some(name) = &p.file_type {
        let types = TypesBuilder::new()
            .add_defaults()
            .select(name)
            .build()
            .map_err(|e| {
                Error::invalid(
                    "type",
                    name,
                    format!("{e}; use a ripgrep type name such as rust, py, js, ts, go, md, json"),
                )
            })?;
        walk.types(types);
    }
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(4);

    // Under confinement each thread confirms what the walk finds through
    // its own handles of the start directory.
    let handles = match &beneath {
        // One for each worker and one for the walk's start.
        Some(b) => (0..=threads)
            .map(|_| b.try_clone().map(Some))
            .collect::<std::io::Result<Vec<_>>>()
            .map_err(|e| Error::io(&shown, e))?,
        None => Vec::new(),
    };
    let handles = Mutex::new(handles);

    // Pass 1: count matching lines per file, in parallel.
    let found: Mutex<Vec<(PathBuf, u64)>> = Mutex::new(Vec::new());
    walk.threads(threads).build_parallel().run(|| {
        let matcher = matcher.clone();
        let mut searcher = searcher(p, false);
        let found = &found;
        let confined = beneath.is_some();
        let mut mine = handles
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .pop()
            .flatten();
        Box::new(move |item| {
            let Ok(item) = item else {
                return WalkState::Continue;
            };
            if !item.file_type().is_some_and(|t| t.is_file()) {
                return WalkState::Continue;
            }
            let mut sink = CountSink(0);
            let searched = match (confined, mine.as_mut()) {
                (false, _) => searcher.search_path(&matcher, item.path(), &mut sink),
                (true, Some(beneath)) => match beneath.open_file(item.path()) {
                    Some(file) => searcher.search_file(&matcher, &file, &mut sink),
                    None => return WalkState::Continue,
                },
                (true, None) => return WalkState::Quit,
            };
            if searched.is_ok() && sink.0 > 0 {
                found
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner())
                    .push((item.into_path(), sink.0));
            }
            WalkState::Continue
        })
    });
    let mut found = found.into_inner().unwrap_or_else(|p| p.into_inner());
    found.sort_by(|a, b| a.0.cmp(&b.0));

    let limit = p.limit.unwrap_or(DEFAULT_GREP_LIMIT).max(1);
    let mode = p.output_mode.unwrap_or_default();
    let total_matches: u64 = found.iter().map(|(_, n)| n).sum();
    let total_files = found.len();
    let mut result = GrepContentResult {
        pattern: p.pattern.clone(),
        path: shown,
        output_mode: mode,
        line_numbers: p.line_numbers.unwrap_or(true),
        lines: Vec::new(),
        files: Vec::new(),
        counts: Vec::new(),
        total_matches,
        total_files,
        omitted: 0,
        secrets_skipped: 0,
    };
    match mode {
        GrepOutputMode::FilesWithMatches => {
            result.files = found
                .iter()
                .take(limit)
                .map(|(f, _)| paths.display(f))
                .collect();
            result.omitted = total_files.saturating_sub(limit);
        }
        GrepOutputMode::Count => {
            result.counts = found
                .iter()
                .take(limit)
                .map(|(f, count)| GrepCount {
                    path: paths.display(f),
                    count: *count,
                })
                .collect();
            result.omitted = total_files.saturating_sub(limit);
        }
        GrepOutputMode::Content => {
            // Pass 2: the first `limit` lines in path order, with context.
            let mut searcher = searcher(p, true);
            for (file, _) in &found {
                if result.lines.len() >= limit {
                    break;
                }
                let mut sink = LineSink {
                    path: paths.display(file),
                    out: &mut result.lines,
                    limit,
                };
                // A file that vanished since pass 1 simply contributes nothing.
                let _ = match beneath.as_mut() {
                    Some(beneath) => match beneath.open_file(file) {
                        Some(opened) => searcher.search_file(&matcher, &opened, &mut sink),
                        None => continue,
                    },
                    None => searcher.search_path(&matcher, file, &mut sink),
                };
            }
            let shown_matches = result.lines.iter().filter(|l| !l.context).count() as u64;
            result.omitted =
                usize::try_from(total_matches.saturating_sub(shown_matches)).unwrap_or(usize::MAX);
        }
    }
    result.secrets_skipped = skipped.count();
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_regex_says_how_to_fix_it() {
        let err = matcher(&GrepContentParams::new("fn (")).unwrap_err();
        assert_eq!(err.code(), "invalid_argument");
        assert!(err.to_string().contains("escape"));
    }

    #[test]
    fn long_matched_lines_are_cut() {
        let text = line_text("y".repeat(2_000).as_bytes());
        assert!(text.ends_with("[line cut]"));
        assert!(text.chars().count() < 600);
    }
}
