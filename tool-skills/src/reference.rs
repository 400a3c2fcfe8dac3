//! Resolving a model-supplied path to one file of a skill, with no way out
//! of the skill's folder.
//!
//! # Refused outright (`path_not_allowed`)
//!
//! Empty paths, NUL bytes, absolute paths (`/…`, `\…`, `C:…`, `~…`), any
//! `..` component (with `/` or `\` as separators), the same forms hidden
//! behind percent-encoding, and any path whose real location (all symbolic
//! links resolved) is outside the skill's folder.
//!
//! # Resolution order
//!
//! 1. exact relative path;
//! 2. the same path ignoring case, component by component, when unambiguous;
//! 3. with `.md` added (or removed when given), exact then ignoring case;
//! 4. a unique file of that name (with or without `.md`) anywhere in the
//!    skill; several are returned as candidates.
//!
//! Only regular files are read, up to a size cap, through one open that
//! follows no link (see [`crate::open`]), so a path swapped for a link
//! after this check is refused rather than followed.

use std::collections::{BTreeMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// Caps of reference reading and file listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReferenceLimits {
    /// Largest file returned, in bytes (default 256 KiB).
    pub max_bytes: u64,
    /// Most files listed in an activation result or a miss (default 50).
    pub max_listed: usize,
    /// Most files looked at when searching a skill by file name (default 5 000).
    pub max_scanned: usize,
    /// Deepest folder level searched inside a skill (default 8).
    pub max_depth: usize,
}

impl Default for ReferenceLimits {
    fn default() -> Self {
        Self {
            max_bytes: 256 * 1024,
            max_listed: 50,
            max_scanned: 5_000,
            max_depth: 8,
        }
    }
}

/// Which resolution step found a reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Resolution {
    /// The path as given.
    Exact,
    /// The path ignoring case.
    CaseInsensitive,
    /// The path with `.md` added.
    WithMarkdownExtension,
    /// The path with `.md` removed.
    WithoutMarkdownExtension,
    /// The only file of that name in the skill.
    UniqueFileName,
}

/// Why a reference could not be returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RefError {
    NotAllowed(String),
    NotFound,
    Ambiguous(Vec<String>),
    NotAFile(String),
    Io(String),
}

/// A resolved reference: its path relative to the skill, and where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Resolved {
    pub rel: String,
    pub abs: Option<PathBuf>,
    pub how: Resolution,
}

/// The path's components, or why it is refused.
pub(crate) fn check_path(raw: &str) -> Result<(Vec<String>, Option<Vec<String>>), RefError> {
    let refuse = |why: &str| Err(RefError::NotAllowed(why.to_owned()));
    let parts = match components(raw) {
        Ok(c) => c,
        Err(why) => return refuse(why),
    };
    let decoded = percent_decode_fully(raw);
    let alternative = match decoded {
        Some(decoded) if decoded != raw => match components(&decoded) {
            Ok(c) => Some(c),
            Err(why) => {
                return Err(RefError::NotAllowed(format!(
                    "the path is percent-encoded and its decoded form is refused: {why}"
                )));
            }
        },
        Some(_) => None,
        None => return refuse("the path has percent-encoding that does not decode to text"),
    };
    Ok((parts, alternative))
}

fn components(path: &str) -> Result<Vec<String>, &'static str> {
    if path.trim().is_empty() {
        return Err("the path is empty");
    }
    if path.contains('\0') {
        return Err("the path contains a NUL byte");
    }
    let bytes = path.as_bytes();
    if path.starts_with('/') || path.starts_with('\\') {
        return Err("absolute paths are not allowed; give a path relative to the skill folder");
    }
    if path.starts_with('~') {
        return Err(
            "home-relative paths are not allowed; give a path relative to the skill folder",
        );
    }
    if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
        return Err("drive paths are not allowed; give a path relative to the skill folder");
    }
    let mut out = Vec::new();
    for part in path.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => return Err("`..` components are not allowed"),
            part => out.push(part.to_owned()),
        }
    }
    if out.is_empty() {
        return Err("the path names no file");
    }
    Ok(out)
}

/// Decodes `%XX` repeatedly (up to three rounds); `None` when the bytes are
/// not UTF-8.
pub(crate) fn percent_decode_fully(raw: &str) -> Option<String> {
    let mut current = raw.to_owned();
    for _ in 0..3 {
        if !current.contains('%') {
            break;
        }
        let bytes = current.as_bytes();
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'%'
                && i + 2 < bytes.len()
                && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
            {
                out.push(h * 16 + l);
                i += 3;
            } else {
                out.push(bytes[i]);
                i += 1;
            }
        }
        let next = String::from_utf8(out).ok()?;
        if next == current {
            break;
        }
        current = next;
    }
    Some(current)
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).and_then(|d| u8::try_from(d).ok())
}

fn toggled_md(last: &str) -> (String, Resolution) {
    let lower = last.to_lowercase();
    match lower.strip_suffix(".md") {
        Some(_) if last.len() > 3 => (
            last[..last.len() - 3].to_owned(),
            Resolution::WithoutMarkdownExtension,
        ),
        _ => (format!("{last}.md"), Resolution::WithMarkdownExtension),
    }
}

// ---------------------------------------------------------------- disk

/// Resolves `raw` inside the canonical skill folder `dir`.
pub(crate) fn resolve_disk(
    dir: &Path,
    raw: &str,
    limits: &ReferenceLimits,
) -> Result<Resolved, RefError> {
    let (components, alternative) = check_path(raw)?;
    let mut attempts = vec![components];
    attempts.extend(alternative);
    for parts in &attempts {
        if let Some(found) = exact_disk(dir, parts)? {
            return Ok(found);
        }
    }
    for parts in &attempts {
        if let Some(found) = folded_disk(dir, parts, Resolution::CaseInsensitive)? {
            return Ok(found);
        }
    }
    for parts in &attempts {
        let mut toggled = parts.clone();
        let last = toggled.pop().unwrap_or_default();
        let (name, how) = toggled_md(&last);
        toggled.push(name);
        if let Some(mut found) = exact_disk(dir, &toggled)? {
            found.how = how;
            return Ok(found);
        }
        if let Some(mut found) = folded_disk(dir, &toggled, how)? {
            found.how = how;
            return Ok(found);
        }
    }
    let (files, _) = list_disk(dir, limits, limits.max_scanned);
    for parts in &attempts {
        let last = parts.last().map(|s| s.to_lowercase()).unwrap_or_default();
        let (toggled, _) = toggled_md(&last);
        let matches: Vec<&String> = files
            .iter()
            .filter(|f| {
                let name = f.rsplit('/').next().unwrap_or(f).to_lowercase();
                name == last || name == toggled
            })
            .collect();
        match matches.as_slice() {
            [one] => {
                return exact_disk(dir, &split_rel(one))?
                    .map(|mut found| {
                        found.how = Resolution::UniqueFileName;
                        found
                    })
                    .ok_or(RefError::NotFound);
            }
            [] => {}
            many => {
                return Err(RefError::Ambiguous(
                    many.iter().map(|s| (*s).clone()).collect(),
                ));
            }
        }
    }
    Err(RefError::NotFound)
}

fn split_rel(rel: &str) -> Vec<String> {
    rel.split('/').map(str::to_owned).collect()
}

/// The file at `dir/parts` when it exists, is inside `dir` and is regular.
fn exact_disk(dir: &Path, parts: &[String]) -> Result<Option<Resolved>, RefError> {
    let mut path = dir.to_path_buf();
    for part in parts {
        path.push(part);
    }
    if fs::symlink_metadata(&path).is_err() {
        return Ok(None);
    }
    let rel = parts.join("/");
    let real = fs::canonicalize(&path).map_err(|e| {
        RefError::NotAllowed(format!(
            "`{rel}` cannot be resolved ({e}); dangling links are not followed"
        ))
    })?;
    if !real.starts_with(dir) {
        return Err(RefError::NotAllowed(format!(
            "`{rel}` leads outside the skill folder (through a symbolic link)"
        )));
    }
    let meta = fs::metadata(&real).map_err(|e| RefError::Io(format!("`{rel}`: {e}")))?;
    if !meta.is_file() {
        return Err(RefError::NotAFile(rel));
    }
    Ok(Some(Resolved {
        rel,
        abs: Some(real),
        how: Resolution::Exact,
    }))
}

/// Walks `parts` ignoring case where the exact name is missing.
fn folded_disk(
    dir: &Path,
    parts: &[String],
    how: Resolution,
) -> Result<Option<Resolved>, RefError> {
    let mut current = dir.to_path_buf();
    let mut rel = Vec::with_capacity(parts.len());
    for part in parts {
        let real = fs::canonicalize(&current).map_err(|e| RefError::Io(e.to_string()))?;
        if !real.starts_with(dir) {
            return Err(RefError::NotAllowed(format!(
                "`{}` leads outside the skill folder (through a symbolic link)",
                rel.join("/")
            )));
        }
        let Ok(entries) = fs::read_dir(&real) else {
            return Ok(None);
        };
        let lower = part.to_lowercase();
        let mut names: Vec<String> = entries
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n == part || n.to_lowercase() == lower)
            .collect();
        names.sort();
        let chosen = if names.iter().any(|n| n == part) {
            part.clone()
        } else {
            match names.len() {
                0 => return Ok(None),
                1 => names.remove(0),
                _ => {
                    let prefix = rel.join("/");
                    return Err(RefError::Ambiguous(
                        names
                            .into_iter()
                            .map(|n| {
                                if prefix.is_empty() {
                                    n
                                } else {
                                    format!("{prefix}/{n}")
                                }
                            })
                            .collect(),
                    ));
                }
            }
        };
        current.push(&chosen);
        rel.push(chosen);
    }
    Ok(exact_disk(dir, &rel)?.map(|mut found| {
        if found.rel != parts.join("/") {
            found.how = how;
        }
        found
    }))
}

/// The regular files of a skill folder (relative, `/`-separated, sorted),
/// hidden entries skipped, links followed only inside the folder; the flag
/// says whether the list was cut at `max`.
pub(crate) fn list_disk(dir: &Path, limits: &ReferenceLimits, max: usize) -> (Vec<String>, bool) {
    let mut files = Vec::new();
    let mut visited = HashSet::new();
    let truncated = walk(dir, dir, "", 0, limits, max, &mut files, &mut visited);
    (files, truncated)
}

#[allow(clippy::too_many_arguments)]
fn walk(
    root: &Path,
    dir: &Path,
    prefix: &str,
    depth: usize,
    limits: &ReferenceLimits,
    max: usize,
    files: &mut Vec<String>,
    visited: &mut HashSet<PathBuf>,
) -> bool {
    if depth > limits.max_depth || !visited.insert(dir.to_path_buf()) {
        return false;
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return false;
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    names.sort();
    for name in names {
        let path = dir.join(&name);
        let Ok(real) = fs::canonicalize(&path) else {
            continue;
        };
        if !real.starts_with(root) {
            continue;
        }
        let rel = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        let Ok(meta) = fs::metadata(&real) else {
            continue;
        };
        if meta.is_dir() {
            if walk(root, &real, &rel, depth + 1, limits, max, files, visited) {
                return true;
            }
        } else if meta.is_file() {
            if files.len() >= max {
                return true;
            }
            files.push(rel);
        }
    }
    false
}

// -------------------------------------------------------------- memory

fn key_parts(key: &str) -> Vec<String> {
    key.split(['/', '\\'])
        .filter(|p| !p.is_empty() && *p != ".")
        .map(str::to_owned)
        .collect()
}

/// Resolves `raw` among an in-memory skill's resources.
pub(crate) fn resolve_memory(
    resources: &BTreeMap<String, Vec<u8>>,
    raw: &str,
) -> Result<Resolved, RefError> {
    resolve_keys(resources.keys().map(String::as_str), raw)
}

/// Resolves `raw` among the paths of a skill's files held elsewhere (in
/// memory, at a remote source); the resolved `rel` is one of `paths`.
pub(crate) fn resolve_keys<'a>(
    paths: impl IntoIterator<Item = &'a str>,
    raw: &str,
) -> Result<Resolved, RefError> {
    let (components, alternative) = check_path(raw)?;
    let mut attempts = vec![components];
    attempts.extend(alternative);
    let keys: Vec<(String, String)> = paths
        .into_iter()
        .map(|k| (key_parts(k).join("/"), k.to_owned()))
        .collect();
    let found = |rel: &str, how: Resolution, fold: bool| -> Result<Option<Resolved>, RefError> {
        if let Some((_, key)) = keys.iter().find(|(n, _)| n == rel) {
            return Ok(Some(Resolved {
                rel: key.clone(),
                abs: None,
                how: if fold { Resolution::Exact } else { how },
            }));
        }
        if !fold {
            return Ok(None);
        }
        let lower = rel.to_lowercase();
        let hits: Vec<&String> = keys
            .iter()
            .filter(|(n, _)| n.to_lowercase() == lower)
            .map(|(_, k)| k)
            .collect();
        match hits.as_slice() {
            [] => Ok(None),
            [one] => Ok(Some(Resolved {
                rel: (*one).clone(),
                abs: None,
                how,
            })),
            many => Err(RefError::Ambiguous(
                many.iter().map(|s| (*s).clone()).collect(),
            )),
        }
    };
    for parts in &attempts {
        if let Some(hit) = found(&parts.join("/"), Resolution::Exact, false)? {
            return Ok(hit);
        }
    }
    for parts in &attempts {
        if let Some(hit) = found(&parts.join("/"), Resolution::CaseInsensitive, true)? {
            return Ok(hit);
        }
    }
    for parts in &attempts {
        let mut toggled = parts.clone();
        let last = toggled.pop().unwrap_or_default();
        let (name, how) = toggled_md(&last);
        toggled.push(name);
        let rel = toggled.join("/");
        if let Some(mut hit) =
            found(&rel, how, false)?.map_or_else(|| found(&rel, how, true), |h| Ok(Some(h)))?
        {
            hit.how = how;
            return Ok(hit);
        }
    }
    for parts in &attempts {
        let last = parts.last().map(|s| s.to_lowercase()).unwrap_or_default();
        let (toggled, _) = toggled_md(&last);
        let hits: Vec<&String> = keys
            .iter()
            .filter(|(n, _)| {
                let name = n.rsplit('/').next().unwrap_or(n).to_lowercase();
                name == last || name == toggled
            })
            .map(|(_, k)| k)
            .collect();
        match hits.as_slice() {
            [] => {}
            [one] => {
                return Ok(Resolved {
                    rel: (*one).clone(),
                    abs: None,
                    how: Resolution::UniqueFileName,
                });
            }
            many => {
                return Err(RefError::Ambiguous(
                    many.iter().map(|s| (*s).clone()).collect(),
                ));
            }
        }
    }
    Err(RefError::NotFound)
}

// ------------------------------------------------------------- content

/// A media type guessed from the first bytes, then the extension.
pub(crate) fn media_type(path: &str, bytes: &[u8]) -> &'static str {
    let magic: [(&[u8], &str); 7] = [
        (b"\x89PNG\r\n\x1a\n", "image/png"),
        (b"\xff\xd8\xff", "image/jpeg"),
        (b"GIF8", "image/gif"),
        (b"%PDF-", "application/pdf"),
        (b"PK\x03\x04", "application/zip"),
        (b"\x7fELF", "application/x-executable"),
        (b"\x1f\x8b", "application/gzip"),
    ];
    if let Some((_, kind)) = magic.iter().find(|(m, _)| bytes.starts_with(m)) {
        return kind;
    }
    let ext = path.rsplit('.').next().unwrap_or("").to_lowercase();
    match ext.as_str() {
        "md" | "markdown" => "text/markdown",
        "txt" => "text/plain",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "py" => "text/x-python",
        "sh" | "bash" => "text/x-shellscript",
        "js" | "mjs" => "text/javascript",
        "ts" => "text/typescript",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "xml" => "application/xml",
        "svg" => "image/svg+xml",
        "webp" => "image/webp",
        "ttf" | "otf" => "font/ttf",
        "docx" | "xlsx" | "pptx" => "application/zip",
        _ => "application/octet-stream",
    }
}

/// Whether bytes are binary: a NUL in the first 8 KiB or invalid UTF-8.
pub(crate) fn is_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(8192).any(|b| *b == 0) || std::str::from_utf8(bytes).is_err()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_escape_forms() {
        for bad in [
            "",
            "/etc/passwd",
            "\\etc",
            "C:\\x",
            "~/x",
            "../x",
            "a/../../x",
            "a\\..\\..\\x",
            "a\0b",
            "%2e%2e/x",
            "%252e%252e%252fx",
            "..%2fx",
            "%2fetc%2fpasswd",
            "a/%00",
            "./",
        ] {
            assert!(
                matches!(check_path(bad), Err(RefError::NotAllowed(_))),
                "{bad:?} was accepted"
            );
        }
        assert_eq!(check_path("./a//b").unwrap().0, vec!["a", "b"]);
        assert_eq!(
            check_path("my%20file.md").unwrap().1.unwrap(),
            vec!["my file.md"]
        );
    }
}
