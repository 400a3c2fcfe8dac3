//! Skill names: the form they are compared in (NFKC) and the format's
//! rules for them.
//!
//! The reference validator normalises a name (and its folder's name) with
//! NFKC before checking it; so does this crate. One deliberate difference:
//! "letter" is Rust's `char::is_alphanumeric`, which also counts the
//! combining vowel signs that Indic and other scripts need in a word (the
//! reference validator's Python `isalnum` does not, and rejects such names).

use unicode_normalization::UnicodeNormalization;

use crate::finding::FindingCode;

/// Longest `name` the format allows (in characters, after normalisation).
pub const MAX_NAME_CHARS: usize = 64;

/// Whether `name` follows the format: 1–64 lowercase letters, digits and
/// single hyphens, not starting or ending with a hyphen, judged after NFKC
/// normalisation (as the reference validator does).
///
/// "Lowercase" means a letter that lowercases to itself: `A` and the
/// titlecase `ǅ` are not lowercase. A letter written decomposed (`e` and a
/// combining accent) is one letter once composed.
///
/// ```
/// assert!(tool_skills::is_valid_skill_name("pdf-processing"));
/// assert!(tool_skills::is_valid_skill_name("cafe\u{301}")); // café, decomposed
/// assert!(!tool_skills::is_valid_skill_name("PDF"));
/// assert!(!tool_skills::is_valid_skill_name("\u{1c5}a")); // ǅ is titlecase
/// assert!(!tool_skills::is_valid_skill_name("a--b"));
/// ```
pub fn is_valid_skill_name(name: &str) -> bool {
    name_problem(&normalize_name(name)).is_none()
}

/// A skill name as names are compared: trimmed and NFKC-normalised (a
/// decomposed `é` becomes one character, a full-width `ａ` becomes `a`).
/// Folder names go through the same function, so a name written composed
/// matches a folder stored decomposed (as macOS stores names).
///
/// ```
/// assert_eq!(tool_skills::normalize_name(" cafe\u{301} "), "caf\u{e9}");
/// ```
pub fn normalize_name(name: &str) -> String {
    name.trim().nfkc().collect()
}

/// Whether `c` may appear in a name: a hyphen, or a letter or digit that is
/// not changed by lowercasing.
fn name_char(c: char) -> bool {
    c == '-' || (c.is_alphanumeric() && c.to_lowercase().eq([c]))
}

/// The first problem of an already normalised name.
pub(crate) fn name_problem(name: &str) -> Option<(FindingCode, String)> {
    let count = name.chars().count();
    if count > MAX_NAME_CHARS {
        return Some((
            FindingCode::NameTooLong,
            format!("`name` is {count} characters, over {MAX_NAME_CHARS}"),
        ));
    }
    if name.is_empty() {
        return Some((FindingCode::InvalidName, "`name` is empty".into()));
    }
    if let Some(bad) = name.chars().find(|c| !name_char(*c)) {
        let why = if bad.is_alphanumeric() {
            " (not lowercase)"
        } else {
            ""
        };
        return Some((
            FindingCode::InvalidName,
            format!(
                "`name` {name:?} has {bad:?}{why}; only lowercase letters, digits and hyphens are allowed"
            ),
        ));
    }
    if name.starts_with('-') || name.ends_with('-') {
        return Some((
            FindingCode::InvalidName,
            format!("`name` {name:?} starts or ends with a hyphen"),
        ));
    }
    if name.contains("--") {
        return Some((
            FindingCode::InvalidName,
            format!("`name` {name:?} has consecutive hyphens"),
        ));
    }
    None
}
