//! How shell words are spelled: quote and escape removal, splitting a
//! simple command line into words, and recognising command names.

/// Removes backslash escapes from an unquoted word (`\r\m` → `rm`).
pub(crate) fn unescape_bare(text: &str) -> String {
    if !text.contains('\\') {
        return text.to_owned();
    }
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

/// Whether `word` holds one of the ASCII bytes of `set`: a plain loop
/// (words are short; `str::contains` with a set of chars sets up a
/// searcher and decodes every char). Equal to `word.contains(CHARS)` for
/// ASCII chars, which no byte of a multi-byte char can be.
#[inline]
pub(crate) fn has_byte(word: &str, set: &[u8]) -> bool {
    word.as_bytes().iter().any(|b| set.iter().any(|s| s == b))
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

/// The values of `options` among a command's arguments (the words after
/// its name), in order: `--opt=V`, `--opt V`, `-oV`, `-o V`; `--` ends the
/// options.
pub(crate) fn option_values<'w>(args: &'w [String], options: &[&str]) -> Vec<&'w str> {
    let mut out = Vec::new();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if word == "--" {
            break;
        }
        for option in options {
            if word == option {
                if let Some(v) = words.next() {
                    out.push(v.as_str());
                }
                break;
            }
            if option.starts_with("--") {
                if let Some(v) = word.strip_prefix(option).and_then(|r| r.strip_prefix('=')) {
                    out.push(v);
                    break;
                }
            } else if let Some(v) = word.strip_prefix(option).filter(|v| !v.is_empty()) {
                out.push(v);
                break;
            }
        }
    }
    out
}

/// `word` as one single-quoted shell word (`'it'\''s'`).
pub(crate) fn shell_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// Words given as an argument vector, as one line of shell text that reads
/// back as the same words: a word of plain characters stays as is, any
/// other is quoted. `tilde_expands` says whether a leading `~` was still to
/// be expanded (words of the line handed on by a runner: the shell expands
/// it before the runner sees it) or is literal (a list in a program's
/// source, `["rm", "~"]`).
pub(crate) fn join_argv<'w>(
    words: impl IntoIterator<Item = &'w str>,
    tilde_expands: bool,
) -> String {
    let mut line = String::new();
    for word in words {
        if !line.is_empty() {
            line.push(' ');
        }
        let plain = !word.is_empty()
            && word.chars().all(|c| {
                c.is_ascii_alphanumeric() || "_-./=:,+@%".contains(c) || (tilde_expands && c == '~')
            });
        if plain {
            line.push_str(word);
        } else {
            line.push_str(&shell_quote(word));
        }
    }
    line
}

/// The text of an ANSI-C quoted word (`$'…'`) with its escapes decoded:
/// `\n`, `\t`, `\e`, `\\`, `\'`, octal `\NNN`, hex `\xHH`, `\uHHHH`,
/// `\UHHHHHHHH`, `\cX`. Text that is not `$'…'` is returned as is.
pub(crate) fn decode_ansi_c(text: &str) -> String {
    let Some(inner) = text.strip_prefix("$'").and_then(|t| t.strip_suffix('\'')) else {
        return text.to_owned();
    };
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    let digits = |chars: &mut std::iter::Peekable<std::str::Chars<'_>>, radix: u32, max: usize| {
        let mut value = 0u32;
        let mut n = 0;
        while n < max {
            match chars.peek().and_then(|c| c.to_digit(radix)) {
                Some(d) => {
                    value = value * radix + d;
                    chars.next();
                    n += 1;
                }
                None => break,
            }
        }
        (n > 0).then_some(value)
    };
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        let decoded = match e {
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            'e' | 'E' => Some('\u{1b}'),
            'f' => Some('\u{c}'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'v' => Some('\u{b}'),
            '\\' | '\'' | '"' | '?' => Some(e),
            '0'..='7' => {
                // Up to three octal digits in all.
                let mut value = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                char::from_u32(value)
            }
            'x' => digits(&mut chars, 16, 2).and_then(char::from_u32),
            'u' => digits(&mut chars, 16, 4).and_then(char::from_u32),
            'U' => digits(&mut chars, 16, 8).and_then(char::from_u32),
            'c' => chars
                .next()
                .and_then(|x| char::from_u32(u32::from(x.to_ascii_uppercase()) ^ 0x40)),
            other => {
                out.push('\\');
                Some(other)
            }
        };
        if let Some(d) = decoded {
            out.push(d);
        }
    }
    out
}

/// The commands of the `$(…)` and backquoted substitutions in `text`, by
/// their text (outermost only), for readers where the grammar gives no
/// substitution node: inside `${y:=…}`, in an array subscript Bash
/// evaluates (`unset 'a[$(…)]'`).
pub(crate) fn substitutions_in(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        if c == '$' && chars.get(i + 1) == Some(&'(') && chars.get(i + 2) != Some(&'(') {
            let mut depth = 0usize;
            let mut j = i + 1;
            while let Some(&n) = chars.get(j) {
                if n == '(' {
                    depth += 1;
                } else if n == ')' {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                j += 1;
            }
            out.push(
                chars
                    .get(i + 2..j.min(chars.len()))
                    .unwrap_or_default()
                    .iter()
                    .collect(),
            );
            i = j + 1;
        } else if c == '`' {
            let end = chars
                .get(i + 1..)
                .and_then(|rest| rest.iter().position(|n| *n == '`'))
                .map_or(chars.len(), |p| i + 1 + p);
            out.push(chars.get(i + 1..end).unwrap_or_default().iter().collect());
            i = end + 1;
        } else {
            i += 1;
        }
    }
    out.retain(|s: &String| !s.trim().is_empty());
    out
}

/// Whether `text` holds an array subscript with an expansion in it
/// (`a[$i]`, `a[$(…)]`): Bash evaluates the subscript as arithmetic, and
/// the value of `$i` may itself hold a substitution.
pub(crate) fn subscript_expands(text: &str) -> bool {
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let after = rest.get(open + 1..).unwrap_or_default();
        let close = after.find(']').unwrap_or(after.len());
        if after
            .get(..close)
            .is_some_and(|inner| inner.contains(['$', '`']))
        {
            return true;
        }
        rest = after.get(close..).unwrap_or_default();
    }
    false
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

    #[test]
    fn ansi_c_strings_decode() {
        assert_eq!(decode_ansi_c(r"$'\x72\x6d'"), "rm");
        assert_eq!(decode_ansi_c(r"$'\162\155'"), "rm");
        assert_eq!(decode_ansi_c(r"$'\u0070ush'"), "push");
        assert_eq!(decode_ansi_c(r"$'a\tb\\'"), "a\tb\\");
        assert_eq!(decode_ansi_c("plain"), "plain");
    }

    #[test]
    fn substitutions_are_found_in_text() {
        assert_eq!(substitutions_in("${y:=`rm -rf ~`}"), ["rm -rf ~"]);
        assert_eq!(substitutions_in("${b#$(rm $(x))}"), ["rm $(x)"]);
        assert!(substitutions_in("$(( 1 + 2 ))").is_empty());
        assert!(subscript_expands("a[$i]"));
        assert!(!subscript_expands("a[1]"));
    }
}
