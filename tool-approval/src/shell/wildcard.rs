//! Shell-style wildcard matching of one glob word against one candidate
//! path, without compiling anything: `*` and `?` never match `/`, `[…]` is a
//! class (`!`/`^` negates, `a-z` ranges), `\` escapes. Linear in practice
//! (the classic one-star backtracking), so a command of thousands of glob
//! words costs microseconds per word.

/// Whether `pattern` matches all of `text`.
pub(crate) fn wildcard_match(pattern: &str, text: &str) -> bool {
    if !slashes_may_match(pattern, text) {
        return false;
    }
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    // Where the last `*` was, and the text position it currently covers up to.
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        let step = p.get(pi).and_then(|_| single(&p, pi, t.get(ti).copied()));
        match (p.get(pi), step) {
            (Some('*'), _) => {
                star = Some((pi, ti));
                pi += 1;
                continue;
            }
            (_, Some(next)) => {
                pi = next;
                ti += 1;
                continue;
            }
            _ => {}
        }
        // Backtrack: let the last star take one more character, never a `/`.
        match star {
            Some((sp, st)) if t.get(st) != Some(&'/') => {
                star = Some((sp, st + 1));
                pi = sp + 1;
                ti = st + 1;
            }
            _ => return false,
        }
    }
    p.get(pi..).unwrap_or_default().iter().all(|c| *c == '*')
}

/// Whether `pattern` may match `text` as far as slashes tell: a pattern
/// without classes or escapes matches each `/` with a `/` (`*` and `?`
/// never match one), so more slashes than the text has cannot match. One
/// pass that stops as soon as it knows: a huge pattern (`*/` × 65 000) is
/// rejected after a few bytes instead of being copied for every candidate.
fn slashes_may_match(pattern: &str, text: &str) -> bool {
    let mut left = text.bytes().filter(|&b| b == b'/').count();
    for b in pattern.bytes() {
        match b {
            b'[' | b'\\' => return true,
            b'/' if left == 0 => return false,
            b'/' => left -= 1,
            _ => {}
        }
    }
    true
}

/// Matches one pattern element at `pi` against `c`; the next pattern index.
fn single(p: &[char], pi: usize, c: Option<char>) -> Option<usize> {
    let c = c?;
    match p.get(pi)? {
        '?' => (c != '/').then_some(pi + 1),
        '\\' => match p.get(pi + 1) {
            Some(lit) => (*lit == c).then_some(pi + 2),
            None => (c == '\\').then_some(pi + 1),
        },
        '[' if closes(p, pi) => class(p, pi, c),
        lit => (*lit == c).then_some(pi + 1),
    }
}

/// Whether the `[` at `pi` has a closing `]` (a `]` right after `[` or
/// `[!` is a member, not the end).
fn closes(p: &[char], pi: usize) -> bool {
    let mut i = pi + 1;
    if matches!(p.get(i), Some('!' | '^')) {
        i += 1;
    }
    p.get(i + 1..).is_some_and(|rest| rest.contains(&']'))
}

/// A `[…]` class at `pi` (known to close).
fn class(p: &[char], pi: usize, c: char) -> Option<usize> {
    let mut i = pi + 1;
    let negated = matches!(p.get(i), Some('!' | '^'));
    if negated {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    loop {
        let here = *p.get(i)?;
        if here == ']' && !first {
            break;
        }
        first = false;
        if p.get(i + 1) == Some(&'-') && p.get(i + 2).is_some_and(|e| *e != ']') {
            let end = *p.get(i + 2)?;
            matched |= here <= c && c <= end;
            i += 3;
        } else {
            matched |= here == c;
            i += 1;
        }
    }
    (matched != negated && c != '/').then_some(i + 1)
}

#[cfg(test)]
mod tests {
    use super::wildcard_match as m;

    #[test]
    fn stars_questions_and_classes() {
        assert!(m("/etc/sha*", "/etc/shadow"));
        assert!(m("/etc/sha?ow", "/etc/shadow"));
        assert!(m("/etc/[s]hadow", "/etc/shadow"));
        assert!(m("/etc/[!x]hadow", "/etc/shadow"));
        assert!(m("/etc/[a-t]hadow", "/etc/shadow"));
        assert!(!m("/etc/[!s]hadow", "/etc/shadow"));
        assert!(!m("/*", "/etc/shadow"), "a star stays in one segment");
        assert!(m("/*/shadow", "/etc/shadow"));
        assert!(m(".e*", ".env"));
        assert!(!m(".e*", "x.env"));
        assert!(m("*", ""));
        assert!(m("a\\*", "a*"));
        assert!(!m("a\\*", "ab"));
        assert!(m("[", "["), "an unclosed bracket is literal");
    }
}
