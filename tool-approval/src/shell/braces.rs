//! Brace expansion, decoded before anything else reads a line, as Bash
//! does: `{rm,-rf,/}` is `rm -rf /`, `cat /etc/{shadow,passwd}` names both
//! files, `git pu{sh,}` is `git push pu`.
//!
//! Only unquoted braces with a comma at their top level expand; quoted
//! text, `$'…'`, `${…}`, `$(…)`, backquotes, `{}` and `{a}` stay as they are,
//! and so do assignments (`a={x,y}`). Sequences expand too, as Bash reads
//! them: `{1..3}`, `{01..10}` (zero-padded), `{5..1..2}`, `{a..e}`, so
//! `git pus{h..h}` is `git push`; a group that is not a valid sequence
//! (`{a..5}`, `{1..}`) stays as written. The expansion is bounded: past [`MAX_EXPANDED_BYTES`] the line is not
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
    if !(source.contains('{') && (source.contains(',') || source.contains(".."))) {
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
        first_brace(word)?
    };
    if found.is_some() && depth >= MAX_GROUPS {
        return Err(TooLarge);
    }
    let Some((open, group, close)) = found else {
        let t = text(word);
        *budget = budget.checked_sub(t.len() + 1).ok_or(TooLarge)?;
        out.push(t);
        return Ok(());
    };
    let prefix = word.get(..open).unwrap_or_default();
    let suffix = word.get(close + 1..).unwrap_or_default();
    let commas = match group {
        Group::Commas(commas) => commas,
        Group::Sequence(items) => {
            let steps: usize = items
                .iter()
                .map(|item| prefix.len() + item.len() + suffix.len() + 1)
                .fold(0usize, usize::saturating_add);
            if steps > *work {
                return Err(TooLarge);
            }
            for item in items {
                let mut next: Vec<Token> = prefix.to_vec();
                next.extend(item.chars().map(|c| (c, false)));
                next.extend_from_slice(suffix);
                expand_word_at(&next, out, budget, work, depth + 1)?;
            }
            return Ok(());
        }
    };
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

/// What a brace group holds: alternatives (the indexes of its top-level
/// commas) or the items of a sequence.
#[derive(Debug)]
enum Group {
    Commas(Vec<usize>),
    Sequence(Vec<String>),
}

/// The most items one sequence may have (past it the line is not expanded
/// and the caller names the limit: `{1..100000000}`).
const MAX_SEQUENCE_ITEMS: u64 = 4096;

/// The items of `{x..y}` or `{x..y..step}` as Bash expands them: integers
/// (zero-padded to the wider end when either is written with a leading
/// zero) or single ASCII letters; `None` when `inner` is not a sequence.
/// A sequence past [`MAX_SEQUENCE_ITEMS`] is `Some(Err(TooLarge))`.
fn sequence(inner: &str) -> Option<Result<Vec<String>, TooLarge>> {
    let mut pieces = inner.split("..");
    let (from, to) = (pieces.next()?, pieces.next()?);
    let step = pieces.next();
    if pieces.next().is_some() {
        return None;
    }
    let step: i64 = match step {
        Some(s) => s.parse::<i64>().ok()?.checked_abs()?.max(1),
        None => 1,
    };
    let count = |a: i64, b: i64| (a.abs_diff(b) / step.unsigned_abs()).saturating_add(1);
    if let (Ok(a), Ok(b)) = (from.parse::<i64>(), to.parse::<i64>()) {
        if count(a, b) > MAX_SEQUENCE_ITEMS {
            return Some(Err(TooLarge));
        }
        let padded = |t: &str| {
            t.trim_start_matches('-').len() > 1 && t.trim_start_matches('-').starts_with('0')
        };
        let width = if padded(from) || padded(to) {
            from.len().max(to.len())
        } else {
            0
        };
        let mut items = Vec::new();
        let mut at = a;
        loop {
            items.push(if at < 0 {
                format!("-{:0w$}", at.unsigned_abs(), w = width.saturating_sub(1))
            } else {
                format!("{at:0width$}")
            });
            if at == b {
                break;
            }
            let next = if a < b {
                at.checked_add(step)?
            } else {
                at.checked_sub(step)?
            };
            if (a < b && next > b) || (a > b && next < b) {
                break;
            }
            at = next;
        }
        return Some(Ok(items));
    }
    let (mut x, mut y) = (from.chars(), to.chars());
    let (Some(a), None, Some(b), None) = (x.next(), x.next(), y.next(), y.next()) else {
        return None;
    };
    if !(a.is_ascii_alphabetic() && b.is_ascii_alphabetic()) {
        return None;
    }
    let (a, b) = (a as i64, b as i64);
    let mut items = Vec::new();
    let mut at = a;
    loop {
        items.push(char::from(u8::try_from(at).ok()?).to_string());
        let next = if a < b { at + step } else { at - step };
        if at == b || (a < b && next > b) || (a > b && next < b) {
            break;
        }
        at = next;
    }
    Some(Ok(items))
}

/// The first active `{` with a matching `}` and at least one top-level
/// comma, or holding a sequence: its index, what it holds and the close's
/// index. One pass with a stack, so unmatched braces cost nothing more. A
/// sequence too long to expand is `Err(TooLarge)`.
fn first_brace(word: &[Token]) -> Result<Option<(usize, Group, usize)>, TooLarge> {
    Ok(match first_group(word) {
        Some((open, None, close)) => {
            let inner = text(word.get(open + 1..close).unwrap_or_default());
            match sequence(&inner) {
                Some(items) => Some((open, Group::Sequence(items?), close)),
                None => None,
            }
        }
        Some((open, Some(commas), close)) => Some((open, Group::Commas(commas), close)),
        None => None,
    })
}

/// The first group: with commas (`Some`) or a candidate sequence (`None`:
/// no comma, no nested active brace, `..` inside).
fn first_group(word: &[Token]) -> Option<(usize, Option<Vec<usize>>, usize)> {
    let mut open: Vec<(usize, Vec<usize>, bool)> = Vec::new();
    let mut best: Option<(usize, Option<Vec<usize>>, usize)> = None;
    for (i, (c, active)) in word.iter().enumerate() {
        if !active {
            continue;
        }
        match c {
            '{' => {
                if let Some(last) = open.last_mut() {
                    last.2 = true;
                }
                open.push((i, Vec::new(), false));
            }
            ',' => {
                if let Some((_, commas, _)) = open.last_mut() {
                    commas.push(i);
                }
            }
            '}' => {
                if let Some((start, commas, nested)) = open.pop()
                    && best.as_ref().is_none_or(|(b, _, _)| start < *b)
                {
                    if !commas.is_empty() {
                        best = Some((start, Some(commas), i));
                    } else if !nested
                        && text(word.get(start + 1..i).unwrap_or_default()).contains("..")
                    {
                        best = Some((start, None, i));
                    }
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
        assert_eq!(e("echo {1}"), None);
        assert_eq!(e("echo {a..5} {1..} {..3} {1..2..3..4}"), None);
        assert_eq!(e("echo ${x:1..2}"), None);
    }

    #[test]
    fn sequences_expand_like_bash() {
        assert_eq!(e("echo {1..3}").as_deref(), Some("echo 1 2 3"));
        assert_eq!(e("echo {3..1}").as_deref(), Some("echo 3 2 1"));
        assert_eq!(e("echo {01..03}").as_deref(), Some("echo 01 02 03"));
        assert_eq!(e("echo {1..10..4}").as_deref(), Some("echo 1 5 9"));
        assert_eq!(e("echo {-1..1}").as_deref(), Some("echo -1 0 1"));
        assert_eq!(e("echo {a..c}").as_deref(), Some("echo a b c"));
        assert_eq!(e("echo {e..a..2}").as_deref(), Some("echo e c a"));
        assert_eq!(e("git pus{h..h}").as_deref(), Some("git push"));
        assert_eq!(e("g{i..i}t {p..p}ush").as_deref(), Some("git push"));
        assert_eq!(
            e("ls {1..2}.{txt,md}").as_deref(),
            Some("ls 1.txt 1.md 2.txt 2.md")
        );
        assert_eq!(
            e("echo x > ~/.bash{r..r}c").as_deref(),
            Some("echo x > ~/.bashrc")
        );
        assert_eq!(expand("echo {1..100000000}"), Err(TooLarge));
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
