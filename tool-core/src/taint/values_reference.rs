//! The value extraction as first written (allocating, one `String` per
//! value), kept for tests only: the fast scanner of `values.rs` must find
//! exactly what it found, on every input (a differential property test).
#![allow(dead_code)]

use super::values::{MAX_TEXT_VALUE, ValueKind};
use serde_json::Value;

pub(super) fn values_in(text: &str, found: &mut dyn FnMut(ValueKind, String)) {
    if let Some(whole) = normalise_text(text) {
        found(ValueKind::Text, whole);
    }
    atoms_in(text, found);
}

/// Calls `found` with every value in `value`: each leaf string as
/// [`values_in`] reads it, each number of at least four digits. `path` is
/// the JSON pointer of each leaf.
pub(super) fn values_in_json(value: &Value, found: &mut dyn FnMut(&str, ValueKind, String)) {
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
pub(super) fn normalise_text(text: &str) -> Option<String> {
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
fn normalise_url(token: &str) -> Option<(String, String)> {
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
fn normalise_number(token: &str) -> Option<String> {
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
