//! Brace expansion, decoded before anything else reads a line, as Bash
//! does: `{rm,-rf,/}` is `rm -rf /`, `cat /etc/{shadow,passwd}` names both
//! files, `git pu{sh,}` is `git push pu`.
//!
//! Only unquoted braces with a comma at their top level expand; quoted
//! text, `$'…'`, `${…}`, `$(…)`, backquotes, `{}` and `{a}` stay as they are,
//! and so do assignments (`a={x,y}`). Sequences (`{1..3}`) are left alone.
//! The expansion is bounded: past [`MAX_EXPANDED_BYTES`] the line is not
//! expanded and the caller names the limit.

/// The most text an expansion may produce (the size limit of a line).
pub(crate) const MAX_EXPANDED_BYTES: usize = super::types::MAX_COMMAND_BYTES;

/// Why a line was not expanded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TooLarge;

/// One character of a word and whether it is an unquoted `{`, `,` or `}`.
type Token = (char, bool);

/// `source` with its brace expansions done, `Ok(None)` when it has none.
pub(crate) fn expand(source: &str) -> Result<Option<String>, TooLarge> {
    if !(source.contains('{') && source.contains(',')) {
        return Ok(None);
    }
    let mut out = String::with_capacity(source.len());
    let mut word: Vec<Token> = Vec::new();
    let mut changed = false;
    let chars: Vec<char> = source.chars().collect();
    let mut i = 0;
    // The work of the whole line's expansions (see `expand_word`).
    let mut work = WORK_BASE.saturating_add(source.len().saturating_mul(WORK_PER_BYTE));
    let mut flush =
        |word: &mut Vec<Token>, out: &mut String, changed: &mut bool| -> Result<(), TooLarge> {
            if word.is_empty() {
                return Ok(());
            }
            let mut words = Vec::new();
            let mut budget = MAX_EXPANDED_BYTES.saturating_sub(out.len());
            expand_word(word, &mut words, &mut budget, &mut work)?;
            if words.len() != 1 || words.first().is_some_and(|w| w.len() != word.len()) {
                *changed = true;
            }
            out.push_str(&words.join(" "));
            word.clear();
            Ok(())
        };
    while let Some(&c) = chars.get(i) {
        match c {
            '\\' => {
                word.push((c, false));
                if let Some(&n) = chars.get(i + 1) {
                    word.push((n, false));
                }
                i += 2;
            }
            '\'' => {
                i = copy_until(&chars, i, '\'', &mut word, false);
            }
            '"' => {
                i = copy_until(&chars, i, '"', &mut word, true);
            }
            '$' if matches!(chars.get(i + 1), Some('\'')) => {
                word.push(('$', false));
                i = copy_until(&chars, i + 1, '\'', &mut word, true);
            }
            '$' if matches!(chars.get(i + 1), Some('(' | '{')) => {
                let open = chars.get(i + 1).copied().unwrap_or('(');
                let close = if open == '(' { ')' } else { '}' };
                word.push(('$', false));
                i = copy_balanced(&chars, i + 1, open, close, &mut word);
            }
            '`' => {
                i = copy_until(&chars, i, '`', &mut word, true);
            }
            c if c.is_whitespace() || matches!(c, ';' | '&' | '|' | '<' | '>' | '(' | ')') => {
                flush(&mut word, &mut out, &mut changed)?;
                out.push(c);
                i += 1;
            }
            '{' | ',' | '}' => {
                word.push((c, true));
                i += 1;
            }
            other => {
                word.push((other, false));
                i += 1;
            }
        }
    }
    flush(&mut word, &mut out, &mut changed)?;
    Ok(changed.then_some(out))
}

/// Copies from `chars[start]` (an opening quote) to the matching `close`,
/// honouring backslashes when `escapes`; returns the index after it.
fn copy_until(
    chars: &[char],
    start: usize,
    close: char,
    word: &mut Vec<Token>,
    escapes: bool,
) -> usize {
    let mut i = start;
    if let Some(&c) = chars.get(i) {
        word.push((c, false));
        i += 1;
    }
    while let Some(&c) = chars.get(i) {
        word.push((c, false));
        i += 1;
        if escapes && c == '\\' {
            if let Some(&n) = chars.get(i) {
                word.push((n, false));
                i += 1;
            }
            continue;
        }
        if c == close {
            break;
        }
    }
    i
}

/// Copies a bracketed region (`(…)`, `{…}`) with nesting; returns the
/// index after its close.
fn copy_balanced(
    chars: &[char],
    start: usize,
    open: char,
    close: char,
    word: &mut Vec<Token>,
) -> usize {
    let mut depth = 0usize;
    let mut i = start;
    while let Some(&c) = chars.get(i) {
        word.push((c, false));
        i += 1;
        if c == open {
            depth += 1;
        } else if c == close {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                break;
            }
        }
    }
    i
}

fn text(tokens: &[Token]) -> String {
    tokens.iter().map(|(c, _)| *c).collect()
}

/// Whether the word is an assignment (`a={x,y}` does not expand).
fn is_assignment(word: &[Token]) -> bool {
    let t = text(word);
    let Some(eq) = t.find('=') else {
        return false;
    };
    let name = t.get(..eq).unwrap_or_default();
    let name = name.strip_suffix('+').unwrap_or(name);
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// How many brace groups one word may expand, one inside another or one
/// after another: each has two alternatives or more, so past this many the
/// words would pass [`MAX_EXPANDED_BYTES`] anyway (and the recursion stays
/// shallow).
const MAX_GROUPS: usize = 32;

/// The work every line may spend on expansions, whatever its length.
const WORK_BASE: usize = 64 * 1024;

/// Work per byte of the line: a word without braces costs its length once.
const WORK_PER_BYTE: usize = 2;

/// Expands one word into `out`, spending `budget` bytes of words produced
/// and `work`: every step of the expansion reads and copies the word it
/// expands, and pays its length, so `{,}{,}…` (millions of empty words,
/// which produce nothing) stops after a few thousand steps.
fn expand_word(
    word: &[Token],
    out: &mut Vec<String>,
    budget: &mut usize,
    work: &mut usize,
) -> Result<(), TooLarge> {
    expand_word_at(word, out, budget, work, 0)
}

fn expand_word_at(
    word: &[Token],
    out: &mut Vec<String>,
    budget: &mut usize,
    work: &mut usize,
    depth: usize,
) -> Result<(), TooLarge> {
    // The step is paid before the word is read.
    *work = work.checked_sub(word.len() + 1).ok_or(TooLarge)?;
    let found = if is_assignment(word) {
        None
    } else {
        first_brace(word)
    };
    if found.is_some() && depth >= MAX_GROUPS {
        return Err(TooLarge);
    }
    let Some((open, commas, close)) = found else {
        let t = text(word);
        *budget = budget.checked_sub(t.len() + 1).ok_or(TooLarge)?;
        out.push(t);
        return Ok(());
    };
    let prefix = word.get(..open).unwrap_or_default();
    let suffix = word.get(close + 1..).unwrap_or_default();
    let mut bounds = vec![open];
    bounds.extend(&commas);
    bounds.push(close);
    // Each alternative's first step pays its word's length: when they
    // cannot all be paid, the expansion fails whatever the order, so it
    // fails before any is copied (`{a,b}` × 20 000 in one 100 KiB word).
    let steps: usize = bounds
        .windows(2)
        .map(|pair| prefix.len() + (pair[1] - pair[0] - 1) + suffix.len() + 1)
        .fold(0usize, usize::saturating_add);
    if steps > *work {
        return Err(TooLarge);
    }
    for pair in bounds.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let mut next: Vec<Token> = prefix.to_vec();
        next.extend_from_slice(word.get(a + 1..b).unwrap_or_default());
        next.extend_from_slice(suffix);
        let before = out.len();
        expand_word_at(&next, out, budget, work, depth + 1)?;
        // `/bin/{rm,}`: an empty alternative that leaves an empty word drops it.
        if out.len() == before + 1 && out.last().is_some_and(String::is_empty) {
            out.pop();
        }
    }
    Ok(())
}

/// The first active `{` with a matching `}` and at least one top-level
/// comma: its index, the commas' indexes and the close's index. One pass
/// with a stack, so unmatched braces cost nothing more.
fn first_brace(word: &[Token]) -> Option<(usize, Vec<usize>, usize)> {
    let mut open: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut best: Option<(usize, Vec<usize>, usize)> = None;
    for (i, (c, active)) in word.iter().enumerate() {
        if !active {
            continue;
        }
        match c {
            '{' => open.push((i, Vec::new())),
            ',' => {
                if let Some((_, commas)) = open.last_mut() {
                    commas.push(i);
                }
            }
            '}' => {
                if let Some((start, commas)) = open.pop()
                    && !commas.is_empty()
                    && best.as_ref().is_none_or(|(b, _, _)| start < *b)
                {
                    best = Some((start, commas, i));
                }
            }
            _ => {}
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(s: &str) -> Option<String> {
        expand(s).unwrap()
    }

    #[test]
    fn expands_like_bash() {
        assert_eq!(e("{rm,-rf,/}").as_deref(), Some("rm -rf /"));
        assert_eq!(
            e("/bin/{rm,} -rf /").as_deref(),
            Some("/bin/rm /bin/ -rf /")
        );
        assert_eq!(
            e("cat /etc/{shadow,passwd}").as_deref(),
            Some("cat /etc/shadow /etc/passwd")
        );
        assert_eq!(e("git pu{sh,}").as_deref(), Some("git push pu"));
        assert_eq!(e("echo {a,b}{c,d}").as_deref(), Some("echo ac ad bc bd"));
        assert_eq!(e("echo {a,{b,c}}").as_deref(), Some("echo a b c"));
    }

    #[test]
    fn leaves_quotes_groups_and_expansions() {
        assert_eq!(e("echo '{a,b}' \"{a,b}\""), None);
        assert_eq!(e("awk '{print $1, $2}' f"), None);
        assert_eq!(e("echo ${x:-a,b} $(f {a,b})"), None);
        assert_eq!(e("find . -exec rm {} \\;"), None);
        assert_eq!(e("{ a; b; }"), None);
        assert_eq!(e("a={x,y} cmd"), None);
        assert_eq!(e("echo {1..3}"), None);
    }

    #[test]
    fn growth_is_bounded() {
        let line = "echo ".to_owned() + &"{a,b}".repeat(40);
        assert_eq!(expand(&line), Err(TooLarge));
        // Thousands of groups: a named limit, not a deep recursion.
        let line = "echo ".to_owned() + &"{a,b}".repeat(20_000);
        assert_eq!(expand(&line), Err(TooLarge));
        let line = "echo ".to_owned() + &"{,}".repeat(20_000);
        assert_eq!(expand(&line), Err(TooLarge));
        // Millions of empty words produce nothing, but reading them is
        // work: a few thousand steps, then the limit.
        assert_eq!(expand(&"{,}".repeat(20)), Err(TooLarge));
        let words = format!("ls {}", format!("{} ", "{,}".repeat(12)).repeat(3000));
        assert_eq!(expand(&words), Err(TooLarge));
        // Plain words next to a small expansion cost their length.
        let big = format!("echo {{a,b}} {}", "word ".repeat(20_000));
        assert!(expand(&big).is_ok_and(|e| e.is_some()));
        let nested = format!("echo {}x{}", "{a,".repeat(20_000), "}".repeat(20_000));
        assert_eq!(expand(&nested), Err(TooLarge));
        // Unmatched braces: one pass, nothing expands.
        let open = format!("echo {}", "{a,".repeat(40_000));
        assert_eq!(expand(&open), Ok(None));
    }
}
