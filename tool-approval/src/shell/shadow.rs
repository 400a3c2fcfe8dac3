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
//!   name is a variable name, never a command.

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
    if source.is_ascii() && !named_coproc {
        return Cow::Borrowed(source);
    }
    let mut bytes: Vec<u8> = source
        .bytes()
        .map(|b| if b.is_ascii() { b } else { SHADOW_BYTE })
        .collect();
    if named_coproc {
        blank_coproc_names(&mut bytes);
    }
    // Every byte is ASCII now, so the bytes are UTF-8.
    Cow::Owned(String::from_utf8(bytes).unwrap_or_default())
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
