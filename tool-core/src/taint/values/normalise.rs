//! One token normalised as a host, a URL, a number or an id, or found to
//! be none of them.

/// `host.name` with at least two labels and an alphabetic top label.
pub(super) fn is_host(s: &str) -> bool {
    let bytes = s.as_bytes();
    if bytes.len() > 253 {
        return false;
    }
    let (mut labels, mut label_start) = (0usize, 0usize);
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'.' {
            let len = i - label_start;
            if len == 0 || len > 63 {
                return false;
            }
            labels += 1;
            label_start = i + 1;
        } else if !(b.is_ascii_alphanumeric() || b == b'-') {
            return false;
        }
    }
    let last = &bytes[label_start..];
    labels >= 1
        && !last.is_empty()
        && last.len() <= 63
        && last.len() >= 2
        && last.iter().all(u8::is_ascii_alphabetic)
}

/// The normalised URL and its host.
pub(crate) fn normalise_url(token: &str) -> Option<(String, String)> {
    let mut buf = String::new();
    let (from, to) = normalise_url_into(token, &mut buf)?;
    let host = buf.get(from..to)?.to_owned();
    Some((buf, host))
}

/// [`normalise_url`] into `buf`; the host's range in it.
pub(super) fn normalise_url_into(token: &str, buf: &mut String) -> Option<(usize, usize)> {
    let bytes = token.as_bytes();
    // Every `://` starts with a `:`: when the first `:` starts one, it is
    // the first (the common case, `https://`), found without a window scan.
    let sep = match bytes.iter().position(|b| *b == b':') {
        Some(c) if bytes[c..].starts_with(b"://") => c,
        _ => bytes.windows(3).position(|w| w == b"://")?,
    };
    let rest = &token[sep + 3..];
    // One pass: the fragment cut at the first `#`, the authority ended by
    // the first `/` or `?` before it; inside the authority, the host
    // starts after the last `@` and ends at the first `:` after it (the
    // port).
    let (mut authority_end, mut fragment) = (None, rest.len());
    let (mut host_from, mut colon) = (0, None);
    for (i, b) in rest.bytes().enumerate() {
        match b {
            b'#' => {
                fragment = i;
                break;
            }
            _ if authority_end.is_some() => {}
            b'/' | b'?' => authority_end = Some(i),
            b'@' => {
                host_from = i + 1;
                colon = None;
            }
            b':' if colon.is_none() => colon = Some(i),
            _ => {}
        }
    }
    let authority_end = authority_end.unwrap_or(fragment);
    let (authority, path) = (&rest[..authority_end], &rest[authority_end..fragment]);
    let host_len = colon.map_or(authority.len(), |c| c) - host_from;
    if host_len == 0 {
        return None;
    }
    // The trailing `/`s dropped (on bytes: each is one).
    let kept = path.len() - path.bytes().rev().take_while(|b| *b == b'/').count();
    let path = path.get(..kept).unwrap_or_default();
    // Scheme, `://` and authority (one run of the token) lower-cased in
    // place, the path kept as written.
    let head = token.get(..sep + 3 + authority_end).unwrap_or_default();
    buf.clear();
    buf.push_str(head);
    buf.make_ascii_lowercase();
    buf.push_str(path);
    let from = sep + 3 + host_from;
    Some((from, from + host_len))
}

/// A number of four or more digits, or `None`.
#[cfg(test)]
pub(crate) fn normalise_number(token: &str) -> Option<String> {
    let mut buf = String::new();
    normalise_number_into(token, &mut buf).then_some(buf)
}

/// A number of four or more digits into `buf`; whether it is one.
pub(super) fn normalise_number_into(token: &str, buf: &mut String) -> bool {
    // The signs and currencies a number may start with (`+`, `$`, `€`,
    // `£`), trimmed on bytes: a token starting with a digit has none, and
    // one starting with any other byte is no number at once.
    let mut bytes = token.as_bytes();
    loop {
        bytes = match bytes {
            [b'0'..=b'9', ..] => break,
            [b'+' | b'$', rest @ ..] | [0xE2, 0x82, 0xAC, rest @ ..] | [0xC2, 0xA3, rest @ ..] => {
                rest
            }
            _ => break,
        };
    }
    // Checked first on the bytes (any other byte, non-ASCII included, is
    // not a number), so a word costs nothing more.
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
            _ => return false,
        }
    }
    if count < 4 || int_digits == 0 {
        return false;
    }
    let (int, frac) = match point {
        Some(p) => (&bytes[..p], &bytes[p + 1..]),
        None => (bytes, &[][..]),
    };
    // After the point only digits were allowed: drop the trailing zeros.
    let frac_len = frac.iter().rposition(|b| *b != b'0').map_or(0, |i| i + 1);
    buf.clear();
    for &b in int.iter().filter(|b| b.is_ascii_digit()) {
        if !(buf.is_empty() && b == b'0') {
            buf.push(char::from(b));
        }
    }
    if buf.is_empty() {
        buf.push('0');
    }
    if frac_len > 0 {
        buf.push('.');
        buf.extend(frac[..frac_len].iter().map(|b| char::from(*b)));
    }
    true
}

/// An id of six or more letters and digits, both present, into `buf`.
pub(super) fn normalise_id_into(token: &str, buf: &mut String) -> bool {
    buf.clear();
    let bytes = token.as_bytes();
    let (mut letters, mut digits, mut joins) = (false, false, 0usize);
    for &b in bytes {
        match b {
            b'0'..=b'9' => digits = true,
            b'a'..=b'z' | b'A'..=b'Z' => letters = true,
            b'-' | b'_' => joins += 1,
            _ => return false,
        }
    }
    // Only ASCII letters, digits, `-` and `_`: shorter than six once the
    // joins are dropped, no id (and nothing copied).
    if !(letters && digits) || bytes.len() - joins < 6 {
        return false;
    }
    buf.push_str(token);
    buf.make_ascii_uppercase();
    if joins > 0 {
        buf.retain(|c| c != '-' && c != '_');
    }
    true
}
