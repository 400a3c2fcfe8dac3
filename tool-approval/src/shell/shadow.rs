//! The text the grammar parses: a *shadow* of the command line with the
//! same length and byte offsets, so a node's byte range in the shadow's tree
//! is the same text's range in the original, from which every word is read.
//!
//! Two things differ from the original:
//!
//! - every byte of every non-ASCII character is [`SHADOW_BYTE`]: the
//!   grammar's external scanner misreads code points above ASCII (it calls
//!   `isdigit` on them, out of bounds: a crash, upstream tree-sitter-bash
//!   issue 337);
//! - the name of a named coprocess before a subshell (`coproc P (CMD)`,
//!   valid Bash the grammar does not read) is blanked, so the grammar reads
//!   `coproc (CMD)` and the command inside is judged like any other. The
//!   name is a variable name, never a command;
//! - a blank a backslash escapes (`\ `, a backslash before a tab, a
//!   carriage return, a vertical tab or a form feed) is [`SHADOW_BYTE`]: to
//!   Bash it is a word character, while the grammar reads it as a blank —
//!   a word that is only an escaped space (`\ && > F`, `ls; \ `) is a
//!   syntax error or vanishes, `\  ls` is one word, `x=\  ls` no command.
//!   A here-document's delimiter keeps its escaped blanks (its body ends at
//!   a line the grammar compares with the delimiter's text).

use std::borrow::Cow;

/// The byte that stands for every byte of a non-ASCII character in the text
/// the parser sees. A letter: to Bash (and to the grammar) a non-ASCII
/// character is a word character, so the shadow splits into the same words,
/// operators and quotes as the original. No run of `x`s is a keyword.
const SHADOW_BYTE: u8 = b'x';

/// The text the grammar parses for `source` (see the module docs).
///
/// Where the shadow reads differently from the original, it reads less
/// literally: `$é` (literal text to Bash) is an expansion in the shadow
/// (`$xx`), which only makes the command less approvable; two different
/// non-ASCII here-document delimiters of the same length end the body at the
/// same place or earlier (the body lines are then judged as commands).
pub(super) fn grammar_shadow(source: &str) -> Cow<'_, str> {
    let named_coproc = source.contains("coproc");
    let escaped_blank = source.contains('\\') && escaped_blanks(source.as_bytes()).next().is_some();
    if source.is_ascii() && !named_coproc && !escaped_blank {
        return Cow::Borrowed(source);
    }
    let mut bytes: Vec<u8> = source
        .bytes()
        .map(|b| if b.is_ascii() { b } else { SHADOW_BYTE })
        .collect();
    if named_coproc {
        blank_coproc_names(&mut bytes);
    }
    if escaped_blank {
        for at in escaped_blanks(source.as_bytes()).collect::<Vec<_>>() {
            if let Some(b) = bytes.get_mut(at) {
                *b = SHADOW_BYTE;
            }
        }
    }
    // Every byte is ASCII now, so the bytes are UTF-8.
    Cow::Owned(String::from_utf8(bytes).unwrap_or_default())
}

/// The offsets of the blanks a backslash escapes, outside here-document
/// delimiters. A backslash escapes the byte after it (a quote, another
/// backslash); inside single quotes it does not, but a blank there is no
/// separator either, so reading it as a letter moves no boundary.
fn escaped_blanks(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    let mut at = 0;
    let mut delimiter = false;
    std::iter::from_fn(move || {
        while let Some(&b) = bytes.get(at) {
            at += 1;
            match b {
                b'\\' => {
                    let next = at;
                    at += 1;
                    if !delimiter
                        && bytes
                            .get(next)
                            .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\r' | 0x0b | 0x0c))
                    {
                        return Some(next);
                    }
                }
                b'<' if bytes.get(at) == Some(&b'<') => {
                    at += 1;
                    if bytes.get(at) == Some(&b'<') {
                        // `<<< WORD`: a here-string, read as any word.
                        at += 1;
                        continue;
                    }
                    // `<<WORD` or `<<-WORD`: the delimiter word follows,
                    // after blanks.
                    if bytes.get(at) == Some(&b'-') {
                        at += 1;
                    }
                    while bytes.get(at).is_some_and(|c| matches!(c, b' ' | b'\t')) {
                        at += 1;
                    }
                    delimiter = true;
                }
                b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>' => {
                    delimiter = false;
                }
                _ => {}
            }
        }
        None
    })
}

/// Blanks `NAME` in each `coproc NAME (` that starts a command (at the
/// start of the text or after an operator, a newline or an opening brace).
fn blank_coproc_names(bytes: &mut [u8]) {
    const WORD: &[u8] = b"coproc";
    let mut at = 0;
    while let Some(found) = find(bytes.get(at..).unwrap_or_default(), WORD) {
        let start = at + found;
        at = start + WORD.len();
        let before = bytes
            .get(..start)
            .unwrap_or_default()
            .iter()
            .rev()
            .find(|b| !matches!(b, b' ' | b'\t'));
        if !matches!(
            before,
            None | Some(b';' | b'&' | b'|' | b'(' | b'{' | b'\n' | b'!')
        ) {
            continue;
        }
        let mut i = at;
        let blanks = |i: &mut usize, bytes: &[u8]| {
            let from = *i;
            while bytes.get(*i).is_some_and(|b| matches!(b, b' ' | b'\t')) {
                *i += 1;
            }
            *i > from
        };
        if !blanks(&mut i, bytes) {
            continue;
        }
        let name_start = i;
        if !bytes
            .get(i)
            .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
        {
            continue;
        }
        while bytes
            .get(i)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            i += 1;
        }
        let name_end = i;
        if !blanks(&mut i, bytes) || bytes.get(i) != Some(&b'(') {
            continue;
        }
        for b in bytes.get_mut(name_start..name_end).unwrap_or_default() {
            *b = b' ';
        }
        at = i;
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_ascii_bytes_become_letters_at_the_same_offsets() {
        let shadow = grammar_shadow("echo é{");
        assert_eq!(shadow, "echo xx{");
        assert!(matches!(grammar_shadow("ls -la"), Cow::Borrowed(_)));
    }

    #[test]
    fn an_escaped_blank_is_a_word_character_except_in_a_delimiter() {
        assert_eq!(grammar_shadow("\\ && > ls"), "\\x&& > ls");
        assert_eq!(grammar_shadow("x=\\\t ls"), "x=\\x ls");
        // An escaped backslash escapes nothing after it.
        assert_eq!(grammar_shadow("echo \\\\ x"), "echo \\\\ x");
        assert_eq!(grammar_shadow("echo \\\\\\ x"), "echo \\\\\\xx");
        // A here-document's delimiter keeps its text; a here-string does not.
        assert_eq!(
            grammar_shadow("cat <<-\\ E\n E\n\\ ls"),
            "cat <<-\\ E\n E\n\\xls"
        );
        assert_eq!(grammar_shadow("cat <<< \\ x"), "cat <<< \\xx");
        assert!(matches!(grammar_shadow("echo a\\b"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_named_coprocess_before_a_subshell_loses_its_name() {
        assert_eq!(grammar_shadow("coproc P (git push)"), "coproc   (git push)");
        assert_eq!(
            grammar_shadow("ls; coproc NAME_2\t(x)"),
            "ls; coproc       \t(x)"
        );
        // Not a command start, no subshell, or a brace group: unchanged.
        for text in [
            "echo coproc P (x)",
            "coproc P { x; }",
            "coproc (x)",
            "coprocP (x)",
            "coproc 1x (y)",
        ] {
            assert_eq!(grammar_shadow(text), text, "{text}");
        }
    }
}
