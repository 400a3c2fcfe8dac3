//! The values an output delivers and an argument carries, normalised so
//! that the same address, link, number or text compares equal wherever it
//! appears.

use serde::{Deserialize, Serialize};
use serde_json::Value;

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
    if let Some(whole) = normalise_text(text) {
        found(ValueKind::Text, whole);
    }
    atoms_in(text, found);
}

/// Calls `found` with every value in `value`: each leaf string as
/// [`values_in`] reads it, each number of at least four digits. `path` is
/// the JSON pointer of each leaf.
pub fn values_in_json(value: &Value, found: &mut dyn FnMut(&str, ValueKind, String)) {
    let mut path = String::new();
    walk(value, &mut path, found);
}

fn walk(value: &Value, path: &mut String, found: &mut dyn FnMut(&str, ValueKind, String)) {
    match value {
        Value::String(s) => {
            let at: &str = path;
            values_in(s, &mut |k, v| found(at, k, v));
        }
        Value::Number(n) => {
            if let Some(norm) = normalise_number(&n.to_string()) {
                found(path, ValueKind::Number, norm);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let len = path.len();
                path.push('/');
                path.push_str(&i.to_string());
                walk(item, path, found);
                path.truncate(len);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                let len = path.len();
                path.push('/');
                path.push_str(&key.replace('~', "~0").replace('/', "~1"));
                walk(item, path, found);
                path.truncate(len);
            }
        }
        Value::Null | Value::Bool(_) => {}
    }
}

/// A whole string as a [`ValueKind::Text`] value, or `None` when it is too
/// short or too long to be one.
pub fn normalise_text(text: &str) -> Option<String> {
    let trimmed = text.trim();
    if trimmed.len() < 3 || trimmed.len() > MAX_TEXT_VALUE * 4 {
        return None;
    }
    // Past the character limit whatever the whitespace: no value.
    if trimmed.len() > MAX_TEXT_VALUE
        && trimmed
            .chars()
            .filter(|c| !c.is_whitespace())
            .nth(MAX_TEXT_VALUE)
            .is_some()
    {
        return None;
    }
    let mut out = String::with_capacity(trimmed.len());
    let mut space = false;
    let mut chars = 0usize;
    for c in trimmed.chars() {
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        for l in c.to_lowercase() {
            out.push(l);
        }
        chars += 1;
        if chars > MAX_TEXT_VALUE {
            return None;
        }
    }
    Some(out)
}

fn is_separator(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t'
            | b'\n'
            | b'\r'
            | b'"'
            | b'\''
            | b'<'
            | b'>'
            | b'('
            | b')'
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b','
            | b';'
            | b'|'
            | b'`'
            | b'\\'
    )
}

/// Each address, URL, host, number and id in `text`.
fn atoms_in(text: &str, found: &mut dyn FnMut(ValueKind, String)) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        while i < bytes.len() && is_separator(bytes[i]) {
            i += 1;
        }
        let start = i;
        while i < bytes.len() && !is_separator(bytes[i]) {
            i += 1;
        }
        if i > start {
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
                && let Some(norm) = text.get(start..end).and_then(normalise_number)
            {
                found(ValueKind::Number, norm);
                i = end;
                continue;
            }
            if let Some(token) = text.get(start..i) {
                classify(token, found);
            }
        }
    }
}

fn classify(token: &str, found: &mut dyn FnMut(ValueKind, String)) {
    let token = token.trim_end_matches(['.', ':', '!', '?']);
    let token = token.trim_start_matches(':');
    let bytes = token.as_bytes();
    if bytes.len() < 3 {
        return;
    }
    let starts = |prefix: &[u8]| {
        bytes.len() >= prefix.len() && bytes[..prefix.len()].eq_ignore_ascii_case(prefix)
    };
    if starts(b"http://") || starts(b"https://") {
        if let Some((url, host)) = normalise_url(token) {
            found(ValueKind::Url, url);
            found(ValueKind::Host, host);
        }
        return;
    }
    let token = if starts(b"mailto:") {
        token.get(7..).unwrap_or_default()
    } else {
        token
    };
    // One pass of cheap checks on the bytes: most tokens are words, and a
    // word costs no allocation (nor a search per question asked of it).
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
            // One allocation per value: ASCII (nearly every address)
            // lower-cases in place.
            let mut email = String::with_capacity(token.len());
            if local.is_ascii() {
                email.push_str(local);
            } else {
                email.push_str(&local.to_lowercase());
            }
            email.push('@');
            email.push_str(domain);
            email.make_ascii_lowercase();
            let host = email
                .get(email.len() - domain.len()..)
                .unwrap_or_default()
                .to_owned();
            found(ValueKind::Email, email);
            found(ValueKind::Host, host);
        }
        return;
    }
    if digits >= 4
        && let Some(norm) = normalise_number(token)
    {
        found(ValueKind::Number, norm);
        return;
    }
    if dots > 0 && is_host(token) {
        found(ValueKind::Host, token.to_ascii_lowercase());
        return;
    }
    if digits > 0
        && letters > 0
        && digits + letters >= 6
        && let Some(id) = normalise_id(token)
    {
        found(ValueKind::Id, id);
    }
}

/// `host.name` with at least two labels and an alphabetic top label.
fn is_host(s: &str) -> bool {
    if s.len() > 253 || !s.contains('.') {
        return false;
    }
    let mut labels = 0;
    let mut last = "";
    for label in s.split('.') {
        if label.is_empty()
            || label.len() > 63
            || !label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        {
            return false;
        }
        labels += 1;
        last = label;
    }
    labels >= 2 && last.len() >= 2 && last.bytes().all(|b| b.is_ascii_alphabetic())
}

/// The normalised URL and its host.
pub(crate) fn normalise_url(token: &str) -> Option<(String, String)> {
    let (scheme, rest) = token.split_once("://")?;
    let rest = rest.split('#').next().unwrap_or_default();
    let (authority, path) = match rest.find(['/', '?']) {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let host_port = authority.rsplit('@').next().unwrap_or(authority);
    let host = host_port.split(':').next().unwrap_or_default();
    if host.is_empty() {
        return None;
    }
    let path = path.trim_end_matches('/');
    // Scheme and authority lower-cased in place, the path kept as written.
    let mut url = String::with_capacity(scheme.len() + 3 + authority.len() + path.len());
    url.push_str(scheme);
    url.push_str("://");
    url.push_str(authority);
    url.make_ascii_lowercase();
    url.push_str(path);
    Some((url, host.to_ascii_lowercase()))
}

/// A number of four or more digits, or `None`.
pub(crate) fn normalise_number(token: &str) -> Option<String> {
    let token = token.trim_start_matches(['+', '$', '€', '£']);
    let bytes = token.as_bytes();
    // Checked first on the bytes (any other byte, non-ASCII included, is
    // not a number), so a word costs no allocation.
    let (mut count, mut int_digits, mut point) = (0usize, 0usize, None);
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'0'..=b'9' => {
                count += 1;
                if point.is_none() {
                    int_digits += 1;
                }
            }
            b',' | b' ' | b'_' | b'-' if point.is_none() && i > 0 => {}
            b'.' if point.is_none() => point = Some(i),
            _ => return None,
        }
    }
    if count < 4 || int_digits == 0 {
        return None;
    }
    let (int, frac) = match point {
        Some(p) => (&bytes[..p], &bytes[p + 1..]),
        None => (bytes, &[][..]),
    };
    // After the point only digits were allowed: drop the trailing zeros.
    let frac_len = frac.iter().rposition(|b| *b != b'0').map_or(0, |i| i + 1);
    let mut out = String::with_capacity(int_digits + 1 + frac_len);
    for &b in int.iter().filter(|b| b.is_ascii_digit()) {
        if !(out.is_empty() && b == b'0') {
            out.push(char::from(b));
        }
    }
    if out.is_empty() {
        out.push('0');
    }
    if frac_len > 0 {
        out.push('.');
        out.extend(frac[..frac_len].iter().map(|b| char::from(*b)));
    }
    Some(out)
}

/// An id of six or more letters and digits, both present.
fn normalise_id(token: &str) -> Option<String> {
    let mut out = String::with_capacity(token.len());
    let (mut letters, mut digits) = (false, false);
    for b in token.bytes() {
        match b {
            b'0'..=b'9' => {
                digits = true;
                out.push(char::from(b));
            }
            b'a'..=b'z' | b'A'..=b'Z' => {
                letters = true;
                out.push(char::from(b.to_ascii_uppercase()));
            }
            b'-' | b'_' => {}
            _ => return None,
        }
    }
    (letters && digits && out.len() >= 6).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str) -> Vec<(ValueKind, String)> {
        let mut v = Vec::new();
        values_in(text, &mut |k, s| v.push((k, s)));
        v
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
