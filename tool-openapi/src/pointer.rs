//! JSON pointers (RFC 6901) for problem reports.

/// Escapes one reference token: `~` → `~0`, `/` → `~1`.
pub fn escape(token: &str) -> String {
    if !token.contains(['~', '/']) {
        return token.to_owned();
    }
    token.replace('~', "~0").replace('/', "~1")
}

/// `base` + `/` + escaped `token` (one allocation).
pub fn join(base: &str, token: &str) -> String {
    let mut out = String::with_capacity(base.len() + token.len() + 1);
    out.push_str(base);
    out.push('/');
    if token.contains(['~', '/']) {
        for c in token.chars() {
            match c {
                '~' => out.push_str("~0"),
                '/' => out.push_str("~1"),
                c => out.push(c),
            }
        }
    } else {
        out.push_str(token);
    }
    out
}

/// Unescapes one reference token.
pub fn unescape(token: &str) -> String {
    if !token.contains('~') {
        return token.to_owned();
    }
    token.replace("~1", "/").replace("~0", "~")
}

/// The `{placeholder}` names of a path template, in order; `Err` names
/// the first malformed brace.
pub fn placeholders(path: &str) -> Result<Vec<&str>, String> {
    let mut names = Vec::new();
    let mut rest = path;
    while let Some(open) = rest.find(['{', '}']) {
        if rest.as_bytes()[open] == b'}' {
            return Err("a `}` without its `{`".into());
        }
        let after = &rest[open + 1..];
        let Some(close) = after.find(['{', '}']) else {
            return Err("a `{` without its `}`".into());
        };
        if after.as_bytes()[close] == b'{' {
            return Err("nested `{`".into());
        }
        let name = &after[..close];
        if name.is_empty() {
            return Err("an empty `{}` placeholder".into());
        }
        names.push(name);
        rest = &after[close + 1..];
    }
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_round_trip() {
        for token in ["a", "a/b", "~x", "~1/", ""] {
            assert_eq!(unescape(&escape(token)), token);
        }
        assert_eq!(join("/paths", "/pets/{id}"), "/paths/~1pets~1{id}");
        assert_eq!(join("", "a~b/c"), "/a~0b~1c");
        assert_eq!(join("/x", "plain"), "/x/plain");
    }

    #[test]
    fn placeholders_are_found_and_malformed_ones_named() {
        assert_eq!(placeholders("/a/{x}/b/{y}").unwrap(), ["x", "y"]);
        assert!(placeholders("/a/{x").is_err());
        assert!(placeholders("/a/x}").is_err());
        assert!(placeholders("/a/{}").is_err());
        assert!(placeholders("/a/{{x}}").is_err());
    }
}
