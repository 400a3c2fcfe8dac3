//! The fast path of [`ShellCommand::parse`](super::ShellCommand::parse):
//! command lines so plain that splitting them needs no grammar.
//!
//! A line qualifies when every byte is a letter, a digit, a space or tab, or
//! one of `_ . / , : + = -`, joined by the operators `&&`, `||`, `;` and
//! `|`, optionally ending in a ` # comment` (no line breaks). Each command
//! must have a word, its first word must hold no `=` (an assignment) and
//! must not be a reserved word; a command that runs a script (`bash -c`,
//! `eval`, a shell reading a pipe) or stacks too many wrappers goes to the
//! full parser. Anything else (quotes, `$`, globs, braces, redirections,
//! backslashes, non-ASCII, `&`) is parsed by tree-sitter as before. A unit
//! property test checks that both paths agree on every line the fast path
//! accepts.

use super::class_index::classes_of;
use super::classes::ClassCell;
use super::scripts::{reads_stdin_script_views, scripts_of_views};
use super::types::{MAX_LINE_PARTS, SimpleCommand};
use super::words::basename;
use super::wrappers::{
    runs_with_stdin_words, stored_views_of, too_many_wrappers, views_of, words_are_a_view,
};

/// Lines longer than this always take the full parser: the size limit, so
/// a plain line of any length is split in one linear pass (tree-sitter
/// took some 85 ms for `ls; ` × 32 750, the fast path 20 ms).
const MAX_PLAIN_BYTES: usize = super::types::MAX_COMMAND_BYTES;

const RESERVED: &[&str] = &[
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do",
    "done", "in", "function", "time", "coproc", "!", "{", "}", "[[", "]]",
];

fn word_byte(b: u8) -> bool {
    WORD_BYTES[usize::from(b)]
}

/// [`word_byte`] as a table (every byte of every line is looked up).
static WORD_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0u8;
    loop {
        table[b as usize] = b.is_ascii_alphanumeric()
            || matches!(b, b'_' | b'.' | b'/' | b',' | b':' | b'+' | b'=' | b'-');
        if b == u8::MAX {
            break;
        }
        b += 1;
    }
    table
};

/// `name+…` as a first word: the grammar starts reading an `name+=value`
/// assignment there and reports `a+:` as an error, so such lines take the
/// full parser (found by the property test below).
fn name_then_plus(word: &str) -> bool {
    let name_len = word
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .count();
    name_len > 0
        && !word.as_bytes()[0].is_ascii_digit()
        && word.as_bytes().get(name_len) == Some(&b'+')
}

/// Whether every byte before a comment may be on a plain line (a word
/// byte, a blank or an operator byte), and if so how many operators it
/// counted (the split's parts are one more at most): one pass before any
/// part is built, so a long line with one byte the grammar must read
/// (`a; ` × 4 096 then `(`) is handed on without being split first. `split` stops reading
/// past [`MAX_LINE_PARTS`] commands, so this stops too (earlier: every
/// operator byte counts as a command's end) and leaves the rest to it.
fn plain_bytes(bytes: &[u8]) -> Option<usize> {
    let mut operators = 0usize;
    // `&&` and `||` end one command, as `split` counts them.
    let mut pair = false;
    for (i, &b) in bytes.iter().enumerate() {
        // Most bytes are word bytes or blanks: one table look.
        if PLAIN_QUIET[usize::from(b)] {
            pair = false;
            continue;
        }
        if pair {
            pair = false;
            continue;
        }
        match b {
            b'&' | b'|' | b';' => {
                pair = matches!(b, b'&' | b'|') && bytes.get(i + 1) == Some(&b);
                operators += 1;
                if operators > MAX_LINE_PARTS {
                    return Some(operators);
                }
            }
            // A comment at a word boundary runs to the end: `split` reads it.
            b'#' if i == 0
                || bytes
                    .get(i - 1)
                    .is_some_and(|p| matches!(p, b' ' | b'\t' | b';' | b'|' | b'&')) =>
            {
                return Some(operators);
            }
            _ => return None,
        }
    }
    Some(operators)
}

/// The bytes [`plain_bytes`] passes over: word bytes and blanks.
static PLAIN_QUIET: [bool; 256] = {
    let mut table = WORD_BYTES;
    table[b' ' as usize] = true;
    table[b'\t' as usize] = true;
    table
};

/// The simple commands of a plain line.
#[derive(Debug, Default)]
pub(crate) struct Split {
    pub(crate) parts: Vec<SimpleCommand>,
    /// Some part stacks more wrappers than are looked through
    /// ([`Hazard::WrapperChain`](super::Hazard::WrapperChain), as the
    /// grammar's walk names it): `nice nice … ls` thousands deep is split
    /// here rather than given to the grammar, whose budget it would spend.
    pub(crate) wrapper_chain: bool,
}

/// Room for the words of a part made at once (most commands an agent
/// writes have up to eight words; a longer one grows).
const WORDS_PER_PART: usize = 8;

/// The simple commands of a plain line, or `None` when the line needs the
/// full parser.
pub(crate) fn split(source: &str) -> Option<Split> {
    if source.len() > MAX_PLAIN_BYTES {
        return None;
    }
    let bytes = source.as_bytes();
    // The parts are at most one more than the operators counted.
    let operators = plain_bytes(bytes)?;
    let mut parts: Vec<SimpleCommand> = Vec::with_capacity(operators + 1);
    let mut wrapper_chain = false;
    // Made with room for a usual command at a part's first word (so the
    // line's last part leaves no empty list behind).
    let mut words: Vec<String> = Vec::new();
    let mut piped = false;
    let mut i = 0;
    // Commands finished so far (the closure holds `parts`).
    let mut finished = 0usize;
    // Ends the current command; `next_piped` says whether the next one reads a pipe.
    let mut finish = |words: &mut Vec<String>, piped: &mut bool, next_piped: bool| -> Option<()> {
        let first = words.first()?;
        if super::words::has_byte(first, b"=")
            || RESERVED.contains(&first.as_str())
            || name_then_plus(first)
        {
            return None;
        }
        // A wrapper whose own words run a script needs the full parser:
        // known before its views are computed (`watch watch … ls` has as
        // many views as wrappers, and each script of it is tried here too).
        // The words' classes, read once: kept on the part for every
        // later reader.
        let classes = classes_of(words);
        let wrapped = classes.first_is(super::classes::WRAPPER);
        if wrapped
            && words_are_a_view(words)
            && !scripts_of_views(std::slice::from_ref(words)).is_empty()
        {
            return None;
        }
        // Checked without copying the line; the views below stop at the
        // same bound. (A chain starts with a wrapper.)
        wrapper_chain |= wrapped && too_many_wrappers(words);
        // The views are computed once here and kept on the part, where
        // every later reader (effects, rules, the blacklist) finds them.
        let stored = stored_views_of(words, classes, &[]);
        let views = views_of(words, &stored);
        if !scripts_of_views(views).is_empty()
            || ((*piped || next_piped) && reads_stdin_script_views(views))
        {
            return None;
        }
        // Most parts are read only as their words: said once here, so
        // their readers take no lock (a filled cell costs one to make).
        // (With no stored views the words are the one view.)
        let words_only = stored.is_empty()
            && !words
                .first()
                .is_some_and(|w| runs_with_stdin_words(basename(w)));
        parts.push(SimpleCommand {
            words: std::mem::take(words),
            views: if words_only {
                std::sync::OnceLock::new()
            } else {
                std::sync::OnceLock::from(stored)
            },
            words_only,
            classes: ClassCell::with(classes),
            pipe_in: *piped,
            pipe_out: next_piped,
            ..SimpleCommand::default()
        });
        *piped = next_piped;
        Some(())
    };
    while let Some(&b) = bytes.get(i) {
        if finished > MAX_LINE_PARTS {
            // The line names `limits/part-count` and is not read further:
            // nor is the rest split.
            return Some(Split {
                parts,
                wrapper_chain,
            });
        }
        match b {
            b' ' | b'\t' => i += 1,
            b'#' => {
                // A comment starts at a word boundary and runs to the end
                // (no line breaks); `a#b` is one word: the full parser's.
                let boundary = i == 0
                    || bytes
                        .get(i - 1)
                        .is_some_and(|p| matches!(p, b' ' | b'\t' | b';' | b'|' | b'&'));
                // The full parser treats `\ ` anywhere as a hazard: so do we.
                if !boundary
                    || bytes
                        .get(i..)
                        .is_some_and(|rest| rest.iter().any(|c| matches!(c, b'\n' | b'\r' | b'\\')))
                {
                    return None;
                }
                break;
            }
            b'&' if bytes.get(i + 1) == Some(&b'&') => {
                finish(&mut words, &mut piped, false)?;
                finished += 1;
                i += 2;
            }
            b'|' if bytes.get(i + 1) == Some(&b'|') => {
                finish(&mut words, &mut piped, false)?;
                finished += 1;
                i += 2;
            }
            b'|' if bytes.get(i + 1) == Some(&b'&') => return None,
            b'|' => {
                finish(&mut words, &mut piped, true)?;
                finished += 1;
                i += 1;
            }
            b';' if bytes.get(i + 1) == Some(&b';') => return None,
            b';' => {
                finish(&mut words, &mut piped, false)?;
                finished += 1;
                i += 1;
            }
            b if word_byte(b) => {
                let start = i;
                while bytes.get(i).copied().is_some_and(word_byte) {
                    i += 1;
                }
                let word = source.get(start..i)?;
                if word.starts_with('=') {
                    // `==`, `=~`: the grammar reads test operators here.
                    return None;
                }
                if words.capacity() == 0 {
                    words = Vec::with_capacity(WORDS_PER_PART);
                }
                words.push(word.to_owned());
            }
            _ => return None,
        }
    }
    if words.is_empty() {
        // A trailing `;` is fine; a trailing `&&`, `||` or `|` is not.
        let last_op = source
            .split('#')
            .next()
            .unwrap_or_default()
            .trim_end()
            .bytes()
            .last();
        if parts.is_empty() || last_op != Some(b';') {
            return None;
        }
        return Some(Split {
            parts,
            wrapper_chain,
        });
    }
    finish(&mut words, &mut piped, false)?;
    Some(Split {
        parts,
        wrapper_chain,
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::split;
    use crate::shell::{ShellCommand, SimpleCommand};

    fn words(parts: &[SimpleCommand]) -> Vec<Vec<String>> {
        parts.iter().map(|p| p.words.clone()).collect()
    }

    #[test]
    fn plain_lines_split_without_the_grammar() {
        let parts = split("git add -A src && git status; ls -la | wc -l # 3")
            .unwrap()
            .parts;
        assert_eq!(
            words(&parts),
            [
                vec!["git", "add", "-A", "src"],
                vec!["git", "status"],
                vec!["ls", "-la"],
                vec!["wc", "-l"]
            ]
        );
        for needs_parser in [
            "echo $HOME",
            "ls > out",
            "FOO=1 git status",
            "if true; then ls; fi",
            "ls &&",
            "ls && && ls",
            "echo 'x'",
            "bash -c ls",
            "echo ls | sh",
            "ls *",
            "sleep 1 &",
            "ls\nrm",
            "é",
            "ls#x",
            "a+:",
            "ls && ab_1+: x",
            "ls # x\nrm -rf /",
        ] {
            assert!(split(needs_parser).is_none(), "{needs_parser:?}");
        }
    }

    #[test]
    fn the_byte_pass_stops_where_the_split_stops() {
        // Up to the part bound, a byte the grammar must read sends the
        // line on; past it the split has stopped reading already.
        use crate::shell::MAX_LINE_PARTS;
        for op in ["&&", "||", ";", "|"] {
            let upto = format!("{} (", format!("a {op} ").repeat(MAX_LINE_PARTS));
            assert!(split(&upto).is_none(), "{op}");
            let past = format!("{} (", format!("a {op} ").repeat(MAX_LINE_PARTS + 2));
            assert!(
                split(&past).is_some_and(|s| s.parts.len() > MAX_LINE_PARTS),
                "{op}"
            );
        }
    }

    #[test]
    fn a_wrapper_chain_is_split_here_and_named_as_the_grammar_names_it() {
        for line in [
            format!("{}ls", "sudo ".repeat(100)),
            format!("git status && {}rm -rf /", "nice ".repeat(70)),
            format!("{}ls | wc -l", "xargs ".repeat(300)),
        ] {
            let fast = split(&line).unwrap();
            assert!(fast.wrapper_chain, "{line:.40}");
            let full = ShellCommand::parse_with_grammar(&line);
            let plain = ShellCommand::parse(&line);
            assert_eq!(plain.hazards(), full.hazards(), "{line:.40}");
            assert_eq!(words(&fast.parts), words(full.parts()), "{line:.40}");
            assert_eq!(plain.parts(), full.parts(), "{line:.40}");
        }
        // A short stack is looked through, no hazard.
        let short = split("sudo nice ls").unwrap();
        assert!(!short.wrapper_chain);
    }

    fn plain_line() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            "[a-z0-9_./,:@%+=-]{1,6}",
            Just("git".to_owned()),
            Just("sudo".to_owned()),
            Just("sh".to_owned()),
            Just("if".to_owned()),
            Just("&&".to_owned()),
            Just("||".to_owned()),
            Just(";".to_owned()),
            Just("|".to_owned()),
            Just("#".to_owned()),
            Just("\\".to_owned()),
            Just(" ".to_owned()),
        ];
        proptest::collection::vec(piece, 0..12).prop_map(|p| p.join(" "))
    }

    proptest! {
        // `PROPTEST_CASES` raises the count for a long local run.
        #![proptest_config(ProptestConfig::with_cases(
            std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(512)
        ))]

        /// Wherever the fast path answers, the grammar agrees with it.
        #[test]
        fn the_fast_path_agrees_with_the_parser(line in plain_line()) {
            if let Some(fast) = split(&line) {
                let full = ShellCommand::parse_with_grammar(&line);
                prop_assert!(full.is_plain(), "{line:?}: {:?}", full.hazards());
                prop_assert!(!fast.wrapper_chain, "{line:?}");
                prop_assert_eq!(words(&fast.parts), words(full.parts()), "{:?}", line);
            }
        }
    }
}
