//! How shell words are spelled: quote and escape removal, splitting a
//! simple command line into words, and recognising command names.

/// Removes backslash escapes from an unquoted word (`\r\m` → `rm`).
pub(crate) fn unescape_bare(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('\n') | None => {}
                Some(next) => out.push(next),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Removes the escapes that are special inside double quotes.
pub(crate) fn unescape_double(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some(&next) if matches!(next, '"' | '\\' | '$' | '`') => {
                    out.push(next);
                    chars.next();
                }
                Some('\n') => {
                    chars.next();
                }
                _ => out.push(c),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The last path component of a command word (`/usr/bin/rm` → `rm`).
pub(crate) fn basename(word: &str) -> &str {
    // A plain scan: words are short, and this runs for every view of every part.
    match word.bytes().rposition(|b| b == b'/') {
        Some(slash) => word.get(slash + 1..).unwrap_or_default(),
        None => word,
    }
}

pub(crate) fn is_shell(name: &str) -> bool {
    matches!(
        name,
        "sh" | "bash"
            | "zsh"
            | "dash"
            | "ksh"
            | "ash"
            | "fish"
            | "csh"
            | "tcsh"
            | "mksh"
            | "busybox"
    )
}

/// Splits text into words the way a shell would for a simple command,
/// honouring single quotes, double quotes and backslashes. Used for rule
/// prefixes and for text the parser could not read.
pub(crate) fn tokenize(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    current.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => {
                            if let Some(n) = chars.next() {
                                if !matches!(n, '"' | '\\' | '$' | '`') {
                                    current.push('\\');
                                }
                                current.push(n);
                            }
                        }
                        _ => current.push(q),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(n) = chars.next() {
                    current.push(n);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                current.push(c);
            }
        }
    }
    if in_word {
        words.push(current);
    }
    words
}

/// `word` as one single-quoted shell word (`'it'\''s'`).
pub(crate) fn shell_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokenize_honours_quotes() {
        assert_eq!(
            tokenize(r#"git commit -m "a b" 'c d'"#),
            ["git", "commit", "-m", "a b", "c d"]
        );
    }
}
