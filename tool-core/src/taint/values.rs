//! The values an output delivers and an argument carries, normalised so
//! that the same address, link, number or text compares equal wherever it
//! appears.

use serde::{Deserialize, Serialize};
use serde_json::Value;

mod normalise;

#[cfg(test)]
pub(crate) use normalise::normalise_number;
pub(crate) use normalise::normalise_url;
use normalise::{is_host, normalise_id_into, normalise_number_into, normalise_url_into};

/// What kind of value a normalised value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ValueKind {
    /// An e-mail address, lower-cased.
    Email,
    /// An `http(s)` URL: scheme and host lower-cased, fragment and trailing
    /// `/` dropped.
    Url,
    /// A host name (from a URL, an address, or written bare), lower-cased.
    Host,
    /// A number of at least four digits (amounts, codes, phone numbers):
    /// digits only, a decimal part kept without trailing zeros.
    Number,
    /// An account-like id (IBANs, order numbers): six or more letters and
    /// digits mixed, upper-cased, `-`, `_` and spaces dropped.
    Id,
    /// A whole short string (3 to 256 characters): trimmed, whitespace
    /// collapsed, lower-cased.
    Text,
}

/// The longest whole string kept as a [`ValueKind::Text`] value.
pub const MAX_TEXT_VALUE: usize = 256;

/// Calls `found` with every value in `text`: the text itself when short
/// (see [`ValueKind::Text`]), then each address, URL, host, number and id
/// written in it. Linear in the text's length.
///
/// ```
/// use tool_core::taint::{ValueKind, values_in};
/// let mut seen = Vec::new();
/// values_in("Pay 1,250.00 to IBAN GB29 NWBK or mail Ann@Example.org, see https://Example.org/x/", &mut |k, v| seen.push((k, v)));
/// assert!(seen.contains(&(ValueKind::Email, "ann@example.org".to_owned())));
/// assert!(seen.contains(&(ValueKind::Host, "example.org".to_owned())));
/// assert!(seen.contains(&(ValueKind::Url, "https://example.org/x".to_owned())));
/// assert!(seen.contains(&(ValueKind::Number, "1250".to_owned())));
/// ```
pub fn values_in(text: &str, found: &mut dyn FnMut(ValueKind, String)) {
    let mut buf = String::new();
    scan_text(text, &mut buf, &mut |kind, value| {
        found(kind, value.to_owned())
    });
}

/// Calls `found` with every value in `value`: each leaf string as
/// [`values_in`] reads it, each number of at least four digits. `path` is
/// the JSON pointer of each leaf.
pub fn values_in_json(value: &Value, found: &mut dyn FnMut(&str, ValueKind, String)) {
    let mut path = String::new();
    let mut buf = String::new();
    walk(value, &mut path, &mut buf, found);
}

fn walk(
    value: &Value,
    path: &mut String,
    buf: &mut String,
    found: &mut dyn FnMut(&str, ValueKind, String),
) {
    match value {
        Value::String(s) => {
            let at: &str = path;
            scan_text(s, buf, &mut |k, v| found(at, k, v.to_owned()));
        }
        Value::Number(n) => {
            if normalise_number_into(&n.to_string(), buf) {
                found(path, ValueKind::Number, buf.clone());
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let len = path.len();
                path.push('/');
                path.push_str(&i.to_string());
                walk(item, path, buf, found);
                path.truncate(len);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                let len = path.len();
                path.push('/');
                path.push_str(&key.replace('~', "~0").replace('/', "~1"));
                walk(item, path, buf, found);
                path.truncate(len);
            }
        }
        Value::Null | Value::Bool(_) => {}
    }
}

/// The values of every leaf of `value` (as [`values_in_json`], without
/// the pointers), each normalised into `buf` and lent to `found`: no
/// allocation per value (the ledger's path).
pub(crate) fn scan_json(value: &Value, buf: &mut String, found: &mut dyn FnMut(ValueKind, &str)) {
    match value {
        Value::String(s) => scan_text(s, buf, found),
        Value::Number(n) => {
            // A number's text is short; a float's `Display` is the same as
            // `to_string`'s.
            let mut digits = String::new();
            // Writing into a String cannot fail.
            let _ = std::fmt::Write::write_fmt(&mut digits, format_args!("{n}"));
            if normalise_number_into(&digits, buf) {
                found(ValueKind::Number, buf);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| scan_json(v, buf, found)),
        Value::Object(map) => map.values().for_each(|v| scan_json(v, buf, found)),
        Value::Null | Value::Bool(_) => {}
    }
}

/// The values of `text` (as [`values_in`]), each normalised into `buf`
/// and lent to `found`: no allocation per value.
pub(crate) fn scan_text(text: &str, buf: &mut String, found: &mut dyn FnMut(ValueKind, &str)) {
    if normalise_text_into(text, buf) {
        found(ValueKind::Text, buf);
    }
    atoms_in(text, buf, found);
}

/// A whole string as a [`ValueKind::Text`] value, or `None` when it is too
/// short or too long to be one.
pub fn normalise_text(text: &str) -> Option<String> {
    let mut buf = String::new();
    normalise_text_into(text, &mut buf).then_some(buf)
}

/// `char::is_whitespace` for an ASCII byte.
fn is_ascii_space(b: u8) -> bool {
    b == b' ' || (b'\t'..=b'\r').contains(&b)
}

/// Whether `bytes` holds more than `limit` bytes that are not ASCII
/// whitespace.
fn more_non_space_than(bytes: &[u8], limit: usize) -> bool {
    let mut count = 0;
    for block in bytes.chunks(64) {
        // A sum of 0s and 1s (not a filtered count): one vector pass.
        let here: u32 = block.iter().map(|b| u32::from(!is_ascii_space(*b))).sum();
        count += here as usize;
        if count > limit {
            return true;
        }
    }
    false
}

/// [`normalise_text`] into `buf`; whether there is a value.
fn normalise_text_into(text: &str, buf: &mut String) -> bool {
    buf.clear();
    let trimmed = text.trim();
    if trimmed.len() < 3 || trimmed.len() > MAX_TEXT_VALUE * 4 {
        return false;
    }
    if trimmed.is_ascii() {
        // One byte, one character: count and copy in one pass.
        let bytes = trimmed.as_bytes();
        // More than MAX_TEXT_VALUE non-space bytes: no value. Counted a
        // block at a time, each block in one branch-free pass, up to the
        // first block past the limit (the common case: an output far too
        // long, known after a few hundred bytes).
        if bytes.len() > MAX_TEXT_VALUE && more_non_space_than(bytes, MAX_TEXT_VALUE) {
            return false;
        }
        buf.reserve(bytes.len());
        let mut space = false;
        for &b in bytes {
            if is_ascii_space(b) {
                space = true;
                continue;
            }
            if space {
                buf.push(' ');
                space = false;
            }
            buf.push(char::from(b.to_ascii_lowercase()));
        }
        return true;
    }
    // Past the character limit whatever the whitespace: no value.
    if trimmed.len() > MAX_TEXT_VALUE
        && trimmed
            .chars()
            .filter(|c| !c.is_whitespace())
            .nth(MAX_TEXT_VALUE)
            .is_some()
    {
        return false;
    }
    let mut space = false;
    let mut chars = 0usize;
    for c in trimmed.chars() {
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space {
            buf.push(' ');
            space = false;
        }
        for l in c.to_lowercase() {
            buf.push(l);
        }
        chars += 1;
        if chars > MAX_TEXT_VALUE {
            return false;
        }
    }
    true
}

/// A byte that ends a token (in [`BYTE_CLASS`]).
const SEPARATOR: u8 = 1;
/// A byte without which a token holds no value but a URL (in
/// [`BYTE_CLASS`]): a digit (numbers, ids), `.` (hosts), `@` (addresses).
/// A token of letters and other bytes only is a word.
const VALUE_BYTE: u8 = 2;
/// `:` (in [`BYTE_CLASS`]): with no [`VALUE_BYTE`], a token holds a value
/// only as a URL (`http://localhost`); see [`may_be_url`].
const COLON: u8 = 4;

/// Each byte's class, so one pass over a token finds both its end and
/// whether it can hold a value.
const BYTE_CLASS: [u8; 256] = {
    let mut table = [0u8; 256];
    let list = b" \t\n\r\"'<>()[]{},;|`\\";
    let mut i = 0;
    while i < list.len() {
        table[list[i] as usize] = SEPARATOR;
        i += 1;
    }
    let mut d = b'0';
    while d <= b'9' {
        table[d as usize] = VALUE_BYTE;
        d += 1;
    }
    table[b'.' as usize] = VALUE_BYTE;
    table[b'@' as usize] = VALUE_BYTE;
    table[b':' as usize] = COLON;
    table
};

fn is_separator(b: u8) -> bool {
    BYTE_CLASS[usize::from(b)] == SEPARATOR
}

/// Each address, URL, host, number and id in `text`.
fn atoms_in(text: &str, buf: &mut String, found: &mut dyn FnMut(ValueKind, &str)) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        while let Some(&b) = bytes.get(i)
            && is_separator(b)
        {
            i += 1;
        }
        let start = i;
        // The token's end, and whether any byte of it can make a value:
        // one pass, the bits of its bytes' classes gathered in a local.
        let mut seen = 0u8;
        while let Some(&b) = bytes.get(i) {
            let class = BYTE_CLASS[usize::from(b)];
            if class == SEPARATOR {
                break;
            }
            seen |= class;
            i += 1;
        }
        // A word (no digit, `.`, `@` or `:`) is no value, and starts no
        // grouped number (which needs digits): skipped at once. So is a
        // word with a `:` ("From:") unless it can be a URL.
        if i > start
            && (seen & VALUE_BYTE != 0
                || seen & COLON != 0 && may_be_url(bytes.get(start..i).unwrap_or_default()))
        {
            // Numbers written with thousands separators ("1,250.00") and
            // ids written in groups ("GB29 NWBK 6016"): read on across one
            // separator while digits follow.
            let mut end = i;
            while end + 1 < bytes.len()
                && matches!(bytes[end], b',' | b' ')
                && bytes[end + 1].is_ascii_digit()
                && bytes[start..end]
                    .iter()
                    .all(|b| b.is_ascii_digit() || *b == b',' || *b == b' ' || *b == b'.')
            {
                let mut j = end + 1;
                while j < bytes.len() && !is_separator(bytes[j]) {
                    j += 1;
                }
                end = j;
            }
            if end > i
                && text
                    .get(start..end)
                    .is_some_and(|t| normalise_number_into(t, buf))
            {
                found(ValueKind::Number, buf);
                i = end;
                continue;
            }
            if let Some(token) = text.get(start..i) {
                classify(token, buf, found);
            }
        }
    }
}

/// Whether a token with a `:` but no digit, `.` or `@` can be the one
/// value such a token holds, a URL: it starts, past any `:`, with an `h`
/// (`http://`, `https://`; `mailto:` needs an `@`).
fn may_be_url(token: &[u8]) -> bool {
    token
        .iter()
        .find(|b| **b != b':')
        .is_some_and(|b| b.eq_ignore_ascii_case(&b'h'))
}

fn classify(token: &str, buf: &mut String, found: &mut dyn FnMut(ValueKind, &str)) {
    // The trims, on bytes (each trimmed byte is ASCII, so the cuts fall
    // on character boundaries).
    let raw = token.as_bytes();
    let mut end = raw.len();
    while end > 0 && matches!(raw[end - 1], b'.' | b':' | b'!' | b'?') {
        end -= 1;
    }
    let mut start = 0;
    while start < end && raw[start] == b':' {
        start += 1;
    }
    let token = token.get(start..end).unwrap_or_default();
    let bytes = token.as_bytes();
    if bytes.len() < 3 {
        return;
    }
    let starts = |prefix: &[u8]| {
        bytes.len() >= prefix.len() && bytes[..prefix.len()].eq_ignore_ascii_case(prefix)
    };
    let first = bytes[0].to_ascii_lowercase();
    if first == b'h' && (starts(b"http://") || starts(b"https://")) {
        if let Some((from, to)) = normalise_url_into(token, buf) {
            found(ValueKind::Url, buf);
            if let Some(host) = buf.get(from..to) {
                found(ValueKind::Host, host);
            }
        }
        return;
    }
    let token = if first == b'm' && starts(b"mailto:") {
        token.get(7..).unwrap_or_default()
    } else {
        token
    };
    // One pass of cheap checks on the bytes: most tokens are words, and a
    // word costs nothing more.
    let (mut digits, mut letters, mut dots) = (0usize, 0usize, 0usize);
    let mut last_at = None;
    for (i, b) in token.bytes().enumerate() {
        match b {
            b'0'..=b'9' => digits += 1,
            b'a'..=b'z' | b'A'..=b'Z' => letters += 1,
            b'.' => dots += 1,
            b'@' => last_at = Some(i),
            _ => {}
        }
    }
    if let Some(at) = last_at {
        let (local, domain) = (&token[..at], &token[at + 1..]);
        if !local.is_empty() && is_host(domain) {
            buf.clear();
            if local.is_ascii() {
                buf.push_str(local);
            } else {
                buf.push_str(&local.to_lowercase());
            }
            buf.push('@');
            let host_at = buf.len();
            buf.push_str(domain);
            buf.make_ascii_lowercase();
            found(ValueKind::Email, buf);
            if let Some(host) = buf.get(host_at..) {
                found(ValueKind::Host, host);
            }
        }
        return;
    }
    // An ASCII letter makes no number (none of the signs and currencies
    // a number may start with is one).
    if digits >= 4 && letters == 0 && normalise_number_into(token, buf) {
        found(ValueKind::Number, buf);
        return;
    }
    if dots > 0 && is_host(token) {
        buf.clear();
        buf.push_str(token);
        buf.make_ascii_lowercase();
        found(ValueKind::Host, buf);
        return;
    }
    if digits > 0 && letters > 0 && digits + letters >= 6 && normalise_id_into(token, buf) {
        found(ValueKind::Id, buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str) -> Vec<(ValueKind, String)> {
        let mut v = Vec::new();
        values_in(text, &mut |k, s| v.push((k, s)));
        v
    }

    fn reference(text: &str) -> Vec<(ValueKind, String)> {
        let mut v = Vec::new();
        super::super::values_reference::values_in(text, &mut |k, s| v.push((k, s)));
        v
    }

    /// Pieces the generated texts are made of: every kind of value, every
    /// separator, the edges of each rule (case, trailing dots, `mailto:`,
    /// grouped digits, non-ASCII).
    const PIECES: &[&str] = &[
        " ",
        "  ",
        "\t",
        "\n",
        "\r\n",
        "\u{b}",
        "\u{a0}",
        ",",
        ";",
        ".",
        ":",
        "!",
        "?",
        "@",
        "/",
        "#",
        "-",
        "_",
        "'",
        "\"",
        "<",
        ">",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        "|",
        "`",
        "\\",
        "a",
        "Z",
        "é",
        "Ä",
        "€",
        "£",
        "$",
        "+",
        "0",
        "7",
        "1,250.00",
        "4111 1111",
        "GB29",
        "NWBK",
        "ab-12cd-34",
        "US133000000121212121212",
        "mail",
        "Ann@Example.org",
        "x@y",
        "a@b.io",
        "mailto:",
        "http://",
        "HTTPS://",
        "Evil.Example.com",
        ":8443",
        "/Upload/",
        "?k=1",
        "#top",
        "user:pw@",
        "www.x.io",
        "v1.2",
        "e.g.",
        "0042.50",
        "12.34,56",
        "ÄNNE@Corp.Example",
        "https://a.b/c#d",
        "::",
        "..",
        "x.",
        "3.5",
        "2024-05-13",
        "+1 (555) 010-9999",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        #[test]
        fn the_scanner_finds_exactly_what_the_first_extraction_found(
            picks in proptest::collection::vec(0..PIECES.len(), 0..40),
            noise in ".{0,12}",
        ) {
            let mut text: String = picks.iter().map(|i| PIECES[*i]).collect();
            text.push_str(&noise);
            proptest::prop_assert_eq!(all(&text), reference(&text), "{:?}", text);
            let json = serde_json::json!({"a": [text.clone(), 12345.5, 42], "b/~": {"c": text}});
            let mut new = Vec::new();
            values_in_json(&json, &mut |p, k, s| new.push((p.to_owned(), k, s)));
            let mut old = Vec::new();
            super::super::values_reference::values_in_json(&json, &mut |p, k, s| old.push((p.to_owned(), k, s)));
            proptest::prop_assert_eq!(new, old);
            let mut buf = String::new();
            let mut lent = Vec::new();
            scan_json(&json, &mut buf, &mut |k, s| lent.push((k, s.to_owned())));
            let mut old_values: Vec<(ValueKind, String)> = Vec::new();
            super::super::values_reference::values_in_json(&json, &mut |_, k, s| old_values.push((k, s)));
            proptest::prop_assert_eq!(lent, old_values);
        }
    }

    /// Bytes the adversarial texts are made of: every separator, every
    /// byte that can make a value, the signs and currencies a number may
    /// start with (and characters whose UTF-8 shares their bytes), letters of both
    /// cases, whitespace beyond ASCII.
    const ADVERSARIAL: &[&str] = &[
        " ",
        "\t",
        "\n",
        "\r",
        "\"",
        "'",
        "<",
        ">",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        ",",
        ";",
        "|",
        "`",
        "\\",
        "0",
        "1",
        "9",
        ".",
        "@",
        ":",
        "/",
        "?",
        "#",
        "-",
        "_",
        "+",
        "$",
        "€",
        "£",
        "\u{a0}",
        "\u{2028}",
        "a",
        "h",
        "t",
        "p",
        "s",
        "m",
        "X",
        "Z",
        "é",
        "ß",
        "http",
        "https://",
        "1234",
        "0042",
        "9,876",
        "12.50",
        "mailto:",
        "\u{e2}\u{82}",
        "\u{c2}",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        #[test]
        fn the_scanner_finds_exactly_what_the_first_extraction_found_on_adversarial_bytes(
            picks in proptest::collection::vec(0..ADVERSARIAL.len(), 0..64),
            repeat in 1usize..4,
        ) {
            // Runs of the same piece too (long grouped numbers, `::::`,
            // `....`), so each rule's edge is met more than once.
            let text: String = picks
                .iter()
                .flat_map(|i| std::iter::repeat_n(ADVERSARIAL[*i], 1 + (*i % repeat)))
                .collect();
            proptest::prop_assert_eq!(all(&text), reference(&text), "{:?}", text);
        }
    }

    #[test]
    fn the_scanner_agrees_with_the_first_extraction_on_a_mailbox_digest() {
        // A fixed corpus too, so a change shows on every run the same way.
        let mut text = String::new();
        for i in 0..200 {
            text.push_str(&format!(
                "From: User{i}@Corp.Example | Invoice {i}042 for 1,250.00 EUR | IBAN DE89 3704 0044 0532 013{i:03} | https://Portal.corp.example/inv/{i}/#x | ref ab-{i}cd-99 | café №{i}\n"
            ));
        }
        for piece in text.lines() {
            assert_eq!(all(piece), reference(piece), "{piece}");
        }
        assert_eq!(all(&text), reference(&text));
    }

    #[test]
    fn one_address_written_three_ways_is_one_value() {
        for text in [
            "mail MARK.Black-2134@Gmail.com now",
            "<mark.black-2134@gmail.com>",
            "mailto:mark.black-2134@gmail.com.",
        ] {
            assert!(
                all(text).contains(&(ValueKind::Email, "mark.black-2134@gmail.com".into())),
                "{text}: {:?}",
                all(text)
            );
        }
    }

    #[test]
    fn numbers_and_ids_normalise() {
        assert_eq!(normalise_number("1,250.00").as_deref(), Some("1250"));
        assert_eq!(normalise_number("0042.50").as_deref(), Some("42.5"));
        assert_eq!(normalise_number("12"), None);
        assert_eq!(normalise_number("12ab"), None);
        let ids = all("IBAN: US133000000121212121212 ref ab-12cd-34");
        assert!(
            ids.contains(&(ValueKind::Id, "US133000000121212121212".into())),
            "{ids:?}"
        );
        assert!(ids.contains(&(ValueKind::Id, "AB12CD34".into())));
        let grouped = all("card 4111 1111 1111 1111 ends");
        assert!(
            grouped.contains(&(ValueKind::Number, "4111111111111111".into())),
            "{grouped:?}"
        );
    }

    #[test]
    fn numbers_normalise_the_same_at_every_edge() {
        for (token, want) in [
            ("+$1,234.5600", Some("1234.56")),
            ("€0000", Some("0")),
            ("0000.000", Some("0")),
            ("12.3456", Some("12.3456")),
            ("1234.", Some("1234")),
            ("1_234-567", Some("1234567")),
            (".1234", None),
            (",1234", None),
            ("1.2.34", None),
            ("12.34,56", None),
            ("12€34", None),
            ("123", None),
        ] {
            assert_eq!(normalise_number(token).as_deref(), want, "{token}");
        }
    }

    #[test]
    fn addresses_lower_case_beyond_ascii_and_keep_their_host() {
        let v = all("write to ÄNNE@Corp.Example now");
        assert!(
            v.contains(&(ValueKind::Email, "änne@corp.example".into())),
            "{v:?}"
        );
        assert!(
            v.contains(&(ValueKind::Host, "corp.example".into())),
            "{v:?}"
        );
        let v = all("see HTTP://User@Corp.Example:81/A/B/ here");
        assert!(
            v.contains(&(ValueKind::Url, "http://user@corp.example:81/A/B".into())),
            "{v:?}"
        );
        assert!(
            v.contains(&(ValueKind::Host, "corp.example".into())),
            "{v:?}"
        );
    }

    #[test]
    fn urls_keep_their_path_and_lose_case_of_host_and_fragment() {
        let v = all("go to HTTPS://Evil.Example.com:8443/Upload/?k=1#top now");
        assert!(
            v.contains(&(
                ValueKind::Url,
                "https://evil.example.com:8443/Upload/?k=1".into()
            )),
            "{v:?}"
        );
        assert!(v.contains(&(ValueKind::Host, "evil.example.com".into())));
    }

    #[test]
    fn words_and_short_things_are_not_values() {
        let v = all("e.g. this is a plain sentence, v1.2 ok");
        assert!(v.iter().all(|(k, _)| *k == ValueKind::Text), "{v:?}");
        assert!(normalise_text("ab").is_none());
        assert!(normalise_text(&"x".repeat(300)).is_none());
        assert_eq!(
            normalise_text("  Hello \n  World ").as_deref(),
            Some("hello world")
        );
    }

    #[test]
    fn json_leaves_carry_their_pointer() {
        let mut v = Vec::new();
        values_in_json(
            &serde_json::json!({"to": ["a@b.io"], "n": 123456, "a/b": "https://x.io"}),
            &mut |p, k, s| v.push((p.to_owned(), k, s)),
        );
        assert!(v.contains(&("/to/0".into(), ValueKind::Email, "a@b.io".into())));
        assert!(v.contains(&("/n".into(), ValueKind::Number, "123456".into())));
        assert!(v.contains(&("/a~1b".into(), ValueKind::Url, "https://x.io".into())));
    }
}
