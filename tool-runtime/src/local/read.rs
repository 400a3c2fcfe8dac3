//! Reading text files: binary detection, decoding, line ranges and caps.

use std::path::Path;

use crate::error::{Error, Result};
use crate::local::LocalConfig;
use crate::local::paths::Paths;
use crate::request::{ReadFileParams, ReadFilesParams};
use crate::response::{ItemError, ReadFileResult, ReadFilesItem, ReadFilesResult};

/// Bytes inspected by the binary sniffing heuristics.
const SNIFF_BYTES: usize = 8 * 1024;

/// The text of a file and how it was encoded.
#[derive(Debug)]
pub(crate) struct Decoded {
    pub(crate) text: String,
    pub(crate) encoding: &'static str,
}

/// FNV-1a 64 fingerprint of `bytes`, as `fnv1a64:<hex>`.
///
/// Not cryptographic: it detects that a file changed between a read and an
/// edit, it does not defend against someone forging a collision.
pub(crate) fn content_hash(bytes: &[u8]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in bytes {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("fnv1a64:{hash:016x}")
}

fn decode_utf16(bytes: &[u8], big_endian: bool) -> String {
    let units = bytes.chunks(2).map(|pair| {
        let (a, b) = (pair[0], pair.get(1).copied().unwrap_or(0));
        if big_endian {
            u16::from_be_bytes([a, b])
        } else {
            u16::from_le_bytes([a, b])
        }
    });
    char::decode_utf16(units)
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect()
}

/// Decodes a file's bytes as text, or says why it is binary.
///
/// Order: a UTF-16 byte-order mark decodes as UTF-16; a UTF-8 BOM is dropped;
/// a NUL byte in the first 8 KiB means binary; more than 10 % control
/// characters (other than tab, newlines, form feed and escape) in the first
/// 8 KiB means binary; invalid UTF-8 is accepted with replacement characters
/// only when fewer than 1 % of the characters are invalid. The extension is
/// never consulted.
pub(crate) fn decode(bytes: Vec<u8>) -> std::result::Result<Decoded, String> {
    if let Some(rest) = bytes.strip_prefix(&[0xFF, 0xFE]) {
        return Ok(Decoded {
            text: decode_utf16(rest, false),
            encoding: "utf-16le",
        });
    }
    if let Some(rest) = bytes.strip_prefix(&[0xFE, 0xFF]) {
        return Ok(Decoded {
            text: decode_utf16(rest, true),
            encoding: "utf-16be",
        });
    }
    let mut bytes = bytes;
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        bytes.drain(..3);
    }
    let head = &bytes[..bytes.len().min(SNIFF_BYTES)];
    if let Some(at) = memchr::memchr(0, head) {
        return Err(format!("NUL byte at offset {at}"));
    }
    let controls = head
        .iter()
        .filter(|b| b.is_ascii_control() && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0C | 0x1B))
        .count();
    if !head.is_empty() && controls * 10 > head.len() {
        return Err(format!(
            "{controls} control characters in the first {} bytes",
            head.len()
        ));
    }
    match String::from_utf8(bytes) {
        Ok(text) => Ok(Decoded {
            text,
            encoding: "utf-8",
        }),
        Err(invalid) => {
            let text = String::from_utf8_lossy(invalid.as_bytes()).into_owned();
            let bad = text
                .chars()
                .filter(|c| *c == char::REPLACEMENT_CHARACTER)
                .count();
            let all = text.chars().count().max(1);
            if bad * 100 >= all {
                Err(format!("{bad} invalid UTF-8 sequences"))
            } else {
                Ok(Decoded {
                    text,
                    encoding: "utf-8",
                })
            }
        }
    }
}

/// Reads a whole file within the size limit, as bytes.
///
/// Under confinement (`guard`) on Linux, the file is opened first and
/// judged by the path the kernel gives for it, so that a concurrent swap
/// cannot make it read a secret.
pub(crate) fn read_limited(
    path: &Path,
    shown: &str,
    limit: u64,
    guard: Option<&crate::local::confine::Guard>,
) -> Result<Vec<u8>> {
    #[cfg(target_os = "linux")]
    if let Some(guard) = guard {
        use std::io::Read as _;
        let (file, real) = crate::beneath::open_read(path).map_err(|e| Error::io(shown, e))?;
        guard.check_opened(&real, shown)?;
        let meta = file.metadata().map_err(|e| Error::io(shown, e))?;
        if meta.is_dir() {
            return Err(Error::WrongKind {
                path: shown.into(),
                expected: "a file",
                found: "a directory",
            });
        }
        if meta.len() > limit {
            return Err(Error::TooLarge {
                path: shown.into(),
                size: meta.len(),
                limit,
            });
        }
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
        file.take(limit)
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io(shown, e))?;
        return Ok(bytes);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = guard;
    let meta = std::fs::metadata(path).map_err(|e| Error::io(shown, e))?;
    if meta.is_dir() {
        return Err(Error::WrongKind {
            path: shown.into(),
            expected: "a file",
            found: "a directory",
        });
    }
    if meta.len() > limit {
        return Err(Error::TooLarge {
            path: shown.into(),
            size: meta.len(),
            limit,
        });
    }
    std::fs::read(path).map_err(|e| Error::io(shown, e))
}

/// Cuts `line` (without its ending) to `max` characters with a marker.
fn cut_line(line: &str, max: usize) -> Option<String> {
    let (cut_at, _) = line.char_indices().nth(max)?;
    let total = line.chars().count();
    Some(format!(
        "{}… [line cut: {total} characters, {} not shown]",
        &line[..cut_at],
        total - max
    ))
}

/// `readFile`.
pub(crate) fn read_file(
    paths: &Paths,
    config: &LocalConfig,
    p: &ReadFileParams,
) -> Result<ReadFileResult> {
    let bytes = read_limited(
        &paths.readable(&p.path)?,
        &p.path,
        config.max_file_bytes,
        paths.guard(),
    )?;
    let total_bytes = bytes.len() as u64;
    let hash = content_hash(&bytes);
    let decoded = decode(bytes).map_err(|reason| Error::Binary {
        path: p.path.clone().into(),
        reason,
    })?;
    let text = decoded.text;
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let total_lines = lines.len();

    let full = p.full_content.unwrap_or(false);
    let start = if full { 0 } else { p.start_line.unwrap_or(0) };
    let requested_end = if full {
        total_lines
    } else {
        p.end_line
            .unwrap_or_else(|| start.saturating_add(config.default_read_lines))
    };
    if start > total_lines {
        return Err(Error::invalid(
            "startLine",
            start.to_string(),
            format!(
                "the file has {total_lines} lines (0-based, so the last is {})",
                total_lines.saturating_sub(1)
            ),
        ));
    }
    if requested_end < start {
        return Err(Error::invalid(
            "endLine",
            requested_end.to_string(),
            "endLine is exclusive and must not be smaller than startLine",
        ));
    }
    let end = requested_end.min(total_lines);

    let mut content = String::new();
    let mut chars = 0usize;
    let mut long_lines_cut = 0usize;
    let mut truncated = false;
    let mut shown_end = start;
    for line in &lines[start..end] {
        let body = line.trim_end_matches(['\n', '\r']);
        let ending = &line[body.len()..];
        let piece = match cut_line(body, config.max_line_chars) {
            Some(cut) => {
                long_lines_cut += 1;
                format!("{cut}{ending}")
            }
            None => (*line).to_owned(),
        };
        let piece_chars = piece.chars().count();
        if chars + piece_chars > config.max_read_chars && shown_end > start {
            truncated = true;
            break;
        }
        chars += piece_chars;
        content.push_str(&piece);
        shown_end += 1;
    }

    Ok(ReadFileResult {
        path: p.path.clone(),
        content,
        start_line: start,
        end_line: shown_end,
        total_lines,
        total_characters: text.chars().count(),
        total_bytes,
        truncated,
        long_lines_cut,
        encoding: decoded.encoding.to_owned(),
        content_hash: hash,
    })
}

/// `readFiles`: each path read with the default range; failures per item.
pub(crate) fn read_files(
    paths: &Paths,
    config: &LocalConfig,
    p: &ReadFilesParams,
) -> Result<ReadFilesResult> {
    let files = p
        .paths
        .iter()
        .map(
            |path| match read_file(paths, config, &ReadFileParams::new(path.clone())) {
                Ok(file) => ReadFilesItem {
                    path: path.clone(),
                    file: Some(file),
                    error: None,
                },
                Err(e) => ReadFilesItem {
                    path: path.clone(),
                    file: None,
                    error: Some(ItemError::from(&e)),
                },
            },
        )
        .collect();
    Ok(ReadFilesResult { files })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_bytes_mean_binary_whatever_the_extension() {
        assert!(decode(b"abc\0def".to_vec()).is_err());
    }

    #[test]
    fn many_control_characters_mean_binary() {
        let bytes: Vec<u8> = (0..200u8)
            .map(|i| if i % 3 == 0 { 0x01 } else { b'a' })
            .collect();
        assert!(decode(bytes).unwrap_err().contains("control characters"));
    }

    #[test]
    fn utf16_with_bom_is_text() {
        let mut bytes = vec![0xFF, 0xFE];
        for unit in "héllo\n".encode_utf16() {
            bytes.extend_from_slice(&unit.to_le_bytes());
        }
        let d = decode(bytes).unwrap();
        assert_eq!(d.text, "héllo\n");
        assert_eq!(d.encoding, "utf-16le");
    }

    #[test]
    fn utf8_bom_is_dropped_and_escapes_are_text() {
        let d = decode(b"\xEF\xBB\xBF\x1b[31mred\x1b[0m\n".to_vec()).unwrap();
        assert!(d.text.starts_with('\x1b'));
    }

    #[test]
    fn long_lines_are_cut_with_a_marker() {
        let cut = cut_line(&"x".repeat(20), 5).unwrap();
        assert!(cut.starts_with("xxxxx…"));
        assert!(cut.contains("20 characters"));
        assert!(cut_line("short", 5).is_none());
    }

    #[test]
    fn hash_changes_with_content() {
        assert_ne!(content_hash(b"a"), content_hash(b"b"));
        assert_eq!(content_hash(b""), "fnv1a64:cbf29ce484222325");
    }
}
