//! Literal values a line assigns to variables, read back where the line
//! uses them: `h=~/.bashrc; echo x >> "$h"` writes `~/.bashrc`,
//! `f=.env; cat $f` reads `.env`, `r=push; git $r` pushes.
//!
//! A part that uses such a variable is read a second time with the values
//! put in (a part added right after it); the part as written stays, so a
//! reading only ever adds to what the checks see. A value is literal when it
//! holds no expansion other than a leading `$HOME`, no glob and no
//! whitespace (an unquoted `$c` holding `rm -rf ~` is split into words at
//! run time: that stays a computed word). A variable assigned twice on the
//! line, or in a way that is not a literal, is not put in.

use std::collections::HashMap;

use super::SimpleCommand;
use super::words::basename;

/// Builtins whose `NAME=VALUE` operands assign variables of the shell.
const ASSIGNING_BUILTINS: &[&str] = &["export", "declare", "typeset", "local", "readonly"];

/// Builtins and commands that assign the variables they name in another
/// way (from input, a loop, a format): the names they assign are not put in.
const OTHER_ASSIGNERS: &[&str] = &[
    "read",
    "mapfile",
    "readarray",
    "for",
    "select",
    "printf",
    "getopts",
    "unset",
];

/// Commands that change the directory later parts run in: not read again,
/// since a second reading would move them somewhere known where the part
/// as written leaves it unknown (which is what the directory checks rely on).
const DIRECTORY_CHANGERS: &[&str] = &["cd", "pushd", "popd", "chdir"];

/// Readings added per line at most: past it the rest are not added (the
/// parts as written are still read).
const MAX_READINGS: usize = 64;

/// The parts of `parts` with a second reading after each part that uses a
/// literal the line assigned earlier.
pub(super) fn with_values_read(parts: &mut Vec<SimpleCommand>) {
    if !parts.iter().any(assigns) {
        return;
    }
    let mut values: HashMap<String, Option<String>> = HashMap::new();
    let mut added: Vec<(usize, SimpleCommand)> = Vec::new();
    for (index, part) in parts.iter().enumerate() {
        if added.len() < MAX_READINGS
            && let Some(reading) = read_with(part, &values)
        {
            added.push((index, reading));
        }
        record(part, &mut values);
    }
    for (index, reading) in added.into_iter().rev() {
        parts.insert(index + 1, reading);
    }
}

/// Whether a part assigns a shell variable (alone, or through a builtin).
fn assigns(part: &SimpleCommand) -> bool {
    match part.words.first() {
        None => !part.assignments.is_empty(),
        Some(first) => ASSIGNING_BUILTINS.contains(&basename(first)),
    }
}

/// Records what `part` assigns: each name once with its literal value;
/// a name assigned again, or not literally, is kept out.
fn record(part: &SimpleCommand, values: &mut HashMap<String, Option<String>>) {
    let mut set = |name: &str, value: Option<String>| {
        if let Some(known) = values.get_mut(name) {
            *known = None;
        } else {
            values.insert(name.to_owned(), value);
        }
    };
    let program = part.program().map(basename);
    match program {
        None => {
            for assignment in &part.assignments {
                if let Some((name, value)) = split(assignment) {
                    set(name, literal(value));
                }
            }
        }
        Some(p) if ASSIGNING_BUILTINS.contains(&p) => {
            for word in part.words.iter().skip(1).filter(|w| !w.starts_with('-')) {
                match split(word) {
                    Some((name, value)) => set(name, literal(value)),
                    // `export NAME`: its value is whatever it was.
                    None if is_name(word) => set(word, None),
                    None => {}
                }
            }
        }
        Some(p) if OTHER_ASSIGNERS.contains(&p) => {
            for word in part.words.iter().skip(1).filter(|w| is_name(w)) {
                set(word, None);
            }
        }
        Some(_) => {}
    }
}

/// `NAME=VALUE` (not `NAME+=…` or `NAME[i]=…`).
fn split(assignment: &str) -> Option<(&str, &str)> {
    let (name, value) = assignment.split_once('=')?;
    is_name(name).then_some((name, value))
}

/// A shell variable name.
fn is_name(word: &str) -> bool {
    let mut bytes = word.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The value an assignment gives, when it is literal: quotes around the
/// whole value taken off; no expansion but a leading `$HOME`, no glob, no
/// whitespace.
fn literal(value: &str) -> Option<String> {
    let unquoted = ['"', '\'']
        .iter()
        .find_map(|q| value.strip_prefix(*q).and_then(|v| v.strip_suffix(*q)))
        .unwrap_or(value);
    let rest = ["${HOME}", "$HOME"]
        .iter()
        .find_map(|h| unquoted.strip_prefix(h))
        .unwrap_or(unquoted);
    let plain = !unquoted.is_empty()
        && !rest.contains(|c: char| {
            c.is_whitespace()
                || matches!(
                    c,
                    '$' | '`' | '*' | '?' | '[' | '(' | ')' | '"' | '\'' | '\\'
                )
        });
    plain.then(|| unquoted.to_owned())
}

/// `part` with the known literals put in for `$NAME` and `${NAME}`, when it
/// uses one; `None` otherwise.
fn read_with(
    part: &SimpleCommand,
    values: &HashMap<String, Option<String>>,
) -> Option<SimpleCommand> {
    if values.values().all(Option::is_none)
        || part
            .program()
            .is_some_and(|p| DIRECTORY_CHANGERS.contains(&basename(p)))
    {
        return None;
    }
    let mut changed = false;
    let mut put_in = |word: &String| match substitute(word, values) {
        Some(text) => {
            changed = true;
            text
        }
        None => word.clone(),
    };
    // `p=/tmp/evil; PATH=$p git status`: an assignment's value too.
    let assignments: Vec<String> = part.assignments.iter().map(&mut put_in).collect();
    let words: Vec<String> = part.words.iter().map(&mut put_in).collect();
    let redirects: Vec<String> = part.redirects.iter().map(&mut put_in).collect();
    let inputs: Vec<String> = part.inputs.iter().map(&mut put_in).collect();
    changed.then(|| SimpleCommand {
        assignments,
        words,
        redirects,
        nested: part.nested,
        recovered: part.recovered,
        fed: part.fed.clone(),
        inputs,
        pipe_out: part.pipe_out,
        pipe_in: part.pipe_in,
        ..SimpleCommand::default()
    })
}

/// `word` with each `$NAME` or `${NAME}` of a known literal replaced by it;
/// `None` when it holds none.
fn substitute(word: &str, values: &HashMap<String, Option<String>>) -> Option<String> {
    if !word.contains('$') {
        return None;
    }
    let mut out = String::with_capacity(word.len());
    let mut rest = word;
    let mut changed = false;
    while let Some(at) = rest.find('$') {
        out.push_str(rest.get(..at).unwrap_or_default());
        let after = rest.get(at + 1..).unwrap_or_default();
        let (name, used) = match after.strip_prefix('{') {
            Some(inner) => match inner.find('}') {
                Some(end) => (inner.get(..end).unwrap_or_default(), end + 2),
                None => ("", 0),
            },
            None => {
                let end = after
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(after.len());
                (after.get(..end).unwrap_or_default(), end)
            }
        };
        match values.get(name) {
            Some(Some(value)) if is_name(name) => {
                out.push_str(value);
                changed = true;
                rest = after.get(used..).unwrap_or_default();
            }
            _ => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    changed.then_some(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn map(pairs: &[(&str, Option<&str>)]) -> HashMap<String, Option<String>> {
        pairs
            .iter()
            .map(|(n, v)| ((*n).to_owned(), v.map(str::to_owned)))
            .collect()
    }

    #[test]
    fn literals_are_put_in_where_they_are_used() {
        let values = map(&[("h", Some("~/.bashrc")), ("x", None)]);
        assert_eq!(substitute("$h", &values).as_deref(), Some("~/.bashrc"));
        assert_eq!(
            substitute("${h}.bak", &values).as_deref(),
            Some("~/.bashrc.bak")
        );
        assert_eq!(
            substitute("a$h/b", &values).as_deref(),
            Some("a~/.bashrc/b")
        );
        assert_eq!(substitute("$hx", &values), None);
        assert_eq!(substitute("$x", &values), None);
        assert_eq!(substitute("$", &values), None);
        assert_eq!(substitute("${h", &values), None);
        assert_eq!(substitute("plain", &values), None);
    }

    #[test]
    fn only_literal_values_count() {
        assert_eq!(literal("~/.bashrc").as_deref(), Some("~/.bashrc"));
        assert_eq!(
            literal("\"$HOME/.bashrc\"").as_deref(),
            Some("$HOME/.bashrc")
        );
        assert_eq!(literal("'.env'").as_deref(), Some(".env"));
        for value in ["", "$(pwd)", "a b", "*.rs", "$X/y", "`id`", "'a'b'"] {
            assert_eq!(literal(value), None, "{value}");
        }
    }
}
