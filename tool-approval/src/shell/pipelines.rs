//! A cheap scan before the grammar: how many stages the longest pipeline
//! of a text has. The grammar's error recovery does work quadratic in a
//! pipeline's length inside one parsing step (a syntax error anywhere in
//! `a | a | … | a (`), where the step budget cannot stop it: 8 KiB took
//! 70 ms, 64 KiB over 5 s, and 60 pipelines of 250 stages 100 ms. A
//! pipeline longer than [`MAX_PIPELINE_STAGES`], or more than
//! [`MAX_PIPE_BARS`] bars in all, is therefore not given to the grammar:
//! the text names
//! `limits/pipeline-length` and its parts are recovered from the text, as
//! for text that does not parse.
//!
//! The scan skips quoted text (`'…'`, `"…"`), escaped characters and
//! comments; it reads nothing else (a `|` inside `$(…)` or a here-document
//! counts as a stage). It only decides whether the grammar is tried: a
//! miscount either asks under the limit or leaves the line to the grammar,
//! which reads it as before (slowly), never runs what it would not.

/// The most stages of one pipeline that are given to the grammar. Real
/// pipelines have a handful; at this length the grammar's worst case is
/// about a millisecond.
pub(crate) const MAX_PIPELINE_STAGES: usize = 128;

/// The most pipe bars of one text given to the grammar: the recovery's
/// work is about the bars times the length of their pipelines, so this
/// bounds it at 8 pipelines of the longest kind.
pub(crate) const MAX_PIPE_BARS: usize = 1024;

/// Whether some pipeline of `source` has more than [`MAX_PIPELINE_STAGES`]
/// stages (`a | b` has two; `||`, `;`, `&`, `&&` and a newline not after a
/// `|` end a pipeline), or its pipelines more than [`MAX_PIPE_BARS`] bars.
pub(crate) fn too_long(source: &str) -> bool {
    // Fewer bars than the bound: nothing to scan.
    if source.bytes().filter(|&b| b == b'|').count() < MAX_PIPELINE_STAGES {
        return false;
    }
    let mut bars = 0usize;
    let bytes = source.as_bytes();
    let mut stages = 1usize;
    // The last character that was not a space was a `|`.
    let mut after_bar = false;
    // At the start of a word (a `#` there starts a comment).
    let mut word_start = true;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' => {
                i += 2;
                after_bar = false;
                word_start = false;
                continue;
            }
            b'\'' => {
                i = skip_past(bytes, i + 1, b'\'', false);
                after_bar = false;
                word_start = false;
                continue;
            }
            b'"' => {
                i = skip_past(bytes, i + 1, b'"', true);
                after_bar = false;
                word_start = false;
                continue;
            }
            b'#' if word_start => {
                while bytes.get(i).is_some_and(|&c| c != b'\n') {
                    i += 1;
                }
                continue;
            }
            b'|' if bytes.get(i + 1) == Some(&b'|') => {
                stages = 1;
                after_bar = false;
                i += 2;
                word_start = true;
                continue;
            }
            b'|' => {
                stages += 1;
                bars += 1;
                if stages > MAX_PIPELINE_STAGES || bars > MAX_PIPE_BARS {
                    return true;
                }
                after_bar = true;
                word_start = true;
                // `|&` pipes standard error too: still one bar.
                if bytes.get(i + 1) == Some(&b'&') {
                    i += 1;
                }
            }
            b'\n' if after_bar => word_start = true,
            b';' | b'&' | b'\n' => {
                stages = 1;
                after_bar = false;
                word_start = true;
            }
            b' ' | b'\t' | b'(' | b')' | b'`' => word_start = true,
            _ => {
                after_bar = false;
                word_start = false;
            }
        }
        i += 1;
    }
    false
}

/// The index after the `close` that ends a quoted text starting at
/// `start` (backslashes escape when `escapes`), or the end of the text.
fn skip_past(bytes: &[u8], start: usize, close: u8, escapes: bool) -> usize {
    let mut i = start;
    while let Some(&b) = bytes.get(i) {
        if escapes && b == b'\\' {
            i += 2;
            continue;
        }
        i += 1;
        if b == close {
            break;
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_pipelines_are_found_and_quoted_or_separated_bars_are_not() {
        let n = MAX_PIPELINE_STAGES;
        assert!(!too_long(&vec!["a"; n].join(" | ")));
        assert!(too_long(&vec!["a"; n + 1].join(" | ")));
        assert!(too_long(&vec!["a"; n + 1].join(" |\n")));
        assert!(too_long(&format!("{} (", "a | ".repeat(n + 1))));
        for sep in [" || ", "; ", " && ", "\n", " & "] {
            assert!(!too_long(&vec!["a | b"; n].join(sep)), "{sep:?}");
            assert!(
                too_long(&vec!["a | b"; MAX_PIPE_BARS + 1].join(sep)),
                "{sep:?}"
            );
        }
        let bars = "|".repeat(2 * n);
        for quoted in [
            format!("grep '{bars}' f"),
            format!("grep \"{bars}\" f"),
            format!("grep \\{}", "|\\".repeat(2 * n)),
            format!("ls # {bars}"),
        ] {
            assert!(!too_long(&quoted), "{quoted}");
        }
    }
}
