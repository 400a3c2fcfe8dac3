//! Compiled argument matchers: command prefix, glob, equality, regex.
//!
//! | written as | kind | matches |
//! |---|---|---|
//! | `"git add:*"` | command prefix | a shell command whose words start with `git add` (word boundary: not `git addx`) |
//! | `"src/**/*.rs"`, `"*.md"`, `"a?c"` | glob | the whole value; `*` and `?` stay within one `/` segment, `**` crosses them |
//! | `"main"` | equality | exactly that value |
//! | `{"regex": "v[0-9]+"}` | regex | the whole value (the pattern is anchored for you) |
//!
//! A matcher is used in one of two [`MatchMode`]s. When it *approves* (a
//! `never` rule), a command-prefix matcher approves a shell command only if
//! the command has no [`Hazard`](crate::Hazard) and every part starts with
//! the prefix; glob, equality and regex matchers on a shell-command
//! parameter approve only a single plain simple command. When it *triggers*
//! (a `required`/`always`/`deny` rule), a command-prefix matcher fires if any
//! part, nested parts and wrapped commands included, starts with the prefix.

use std::cell::OnceCell;
use std::sync::Arc;

use globset::{GlobBuilder, GlobMatcher};
use regex::{Regex, RegexBuilder};
use serde_json::Value;
use tool_core::manifest::ArgMatcher;

use crate::call::facts::command_text;
use crate::error::Error;
use crate::shell::wildcard::wildcard_match;
use crate::shell::words::has_byte;
use crate::shell::wrappers::{stdin_commands, views};
use crate::shell::{Hazard, ShellCommand, SimpleCommand, tokenize};

/// The compiled-program size limit for `{regex: …}` matchers.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// How a matcher is being used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MatchMode {
    /// To approve (`never` rules): every part must match, hazards never match.
    Approve,
    /// To flag (`required`, `always`, `deny` rules): any part is enough.
    Trigger,
}

/// One compiled matcher.
#[derive(Debug, Clone)]
pub struct Matcher {
    kind: Kind,
    source: String,
}

#[derive(Debug, Clone)]
enum Kind {
    Prefix(Vec<String>),
    Glob(GlobMatcher),
    Equals,
    Regex(Regex),
}

/// A value under test, with its shell parse computed at most once (or
/// handed over from the call's facts).
#[derive(Debug)]
pub(crate) struct Subject<'v> {
    value: &'v Value,
    shell_param: bool,
    parsed: OnceCell<Option<Arc<ShellCommand>>>,
}

impl<'v> Subject<'v> {
    pub(crate) fn new(value: &'v Value, shell_param: bool) -> Self {
        Self {
            value,
            shell_param,
            parsed: OnceCell::new(),
        }
    }

    /// A subject whose parse is already known.
    pub(crate) fn parsed(value: &'v Value, shell: Option<Arc<ShellCommand>>) -> Self {
        Self {
            value,
            shell_param: true,
            parsed: OnceCell::from(shell),
        }
    }

    pub(crate) fn is_shell_param(&self) -> bool {
        self.shell_param
    }

    pub(crate) fn shell(&self) -> Option<&ShellCommand> {
        self.parsed
            .get_or_init(|| command_text(self.value).map(|t| Arc::new(ShellCommand::parse(&t))))
            .as_deref()
    }
}

impl Matcher {
    /// Compiles a matcher as written in a rule.
    ///
    /// ```
    /// use tool_approval::{MatchMode, Matcher};
    /// use tool_core::manifest::ArgMatcher;
    /// let m = Matcher::compile(&ArgMatcher::Pattern("git add:*".into())).unwrap();
    /// assert!(m.matches(&"git add -A src".into(), MatchMode::Approve));
    /// assert!(!m.matches(&"git addx".into(), MatchMode::Approve));
    /// assert!(!m.matches(&"git add . && rm -rf ~".into(), MatchMode::Approve));
    /// ```
    pub fn compile(matcher: &ArgMatcher) -> Result<Self, Error> {
        Self::compile_at(matcher, "")
    }

    pub(crate) fn compile_at(matcher: &ArgMatcher, pointer: &str) -> Result<Self, Error> {
        match matcher {
            ArgMatcher::Regex { regex } => {
                let compiled = RegexBuilder::new(&format!("^(?:{regex})$"))
                    .size_limit(REGEX_SIZE_LIMIT)
                    .build()
                    .map_err(|e| Error::Regex {
                        pointer: pointer.to_owned(),
                        pattern: regex.clone(),
                        message: e.to_string(),
                    })?;
                Ok(Self {
                    kind: Kind::Regex(compiled),
                    source: regex.clone(),
                })
            }
            ArgMatcher::Pattern(pattern) => {
                let kind = if let Some(prefix) = pattern.strip_suffix(":*") {
                    let words = tokenize(prefix);
                    if words.is_empty() {
                        return Err(Error::invalid(
                            pointer,
                            &Value::String(pattern.clone()),
                            "a command prefix needs at least one word before `:*`",
                        ));
                    }
                    Kind::Prefix(words)
                } else if pattern.contains(['*', '?']) {
                    let escaped = escape_brackets(pattern);
                    let glob = GlobBuilder::new(&escaped)
                        .literal_separator(true)
                        .backslash_escape(true)
                        .build()
                        .map_err(|e| Error::Glob {
                            pointer: pointer.to_owned(),
                            pattern: pattern.clone(),
                            message: e.kind().to_string(),
                        })?;
                    Kind::Glob(glob.compile_matcher())
                } else {
                    Kind::Equals
                };
                Ok(Self {
                    kind,
                    source: pattern.clone(),
                })
            }
        }
    }

    /// The matcher as written.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The words of a command-prefix matcher.
    pub(crate) fn prefix_words(&self) -> Option<&[String]> {
        match &self.kind {
            Kind::Prefix(words) => Some(words),
            _ => None,
        }
    }

    /// True for a `"…:*"` command-prefix matcher.
    pub fn is_command_prefix(&self) -> bool {
        matches!(self.kind, Kind::Prefix(_))
    }

    /// Whether `value` matches. Strings are matched as they are; numbers and
    /// booleans by their JSON text; arrays element by element (all elements
    /// to approve, any element to trigger), except that a command prefix
    /// reads an array of strings as argv.
    pub fn matches(&self, value: &Value, mode: MatchMode) -> bool {
        self.matches_subject(&Subject::new(value, false), mode)
    }

    pub(crate) fn matches_subject(&self, subject: &Subject<'_>, mode: MatchMode) -> bool {
        match mode {
            MatchMode::Approve => self.approves_subject(subject),
            MatchMode::Trigger => self.triggers_subject(subject).is_some(),
        }
    }

    pub(crate) fn approves_subject(&self, subject: &Subject<'_>) -> bool {
        if let Kind::Prefix(prefix) = &self.kind {
            return subject.shell().is_some_and(|shell| approves(shell, prefix));
        }
        self.matches_value(subject, MatchMode::Approve)
    }

    /// Whether the matcher fires on `subject` in trigger mode: `Some(None)`
    /// surely, `Some(Some(hazard))` only perhaps (see [`triggers`]).
    pub(crate) fn triggers_subject(&self, subject: &Subject<'_>) -> Option<Option<Hazard>> {
        if let Kind::Prefix(prefix) = &self.kind {
            return triggers(subject.shell()?, prefix);
        }
        self.matches_value(subject, MatchMode::Trigger)
            .then_some(None)
    }

    fn matches_value(&self, subject: &Subject<'_>, mode: MatchMode) -> bool {
        match subject.value {
            Value::Array(items) => match mode {
                MatchMode::Approve => {
                    !items.is_empty()
                        && items.iter().all(|i| {
                            self.matches_subject(&Subject::new(i, subject.shell_param), mode)
                        })
                }
                MatchMode::Trigger => items
                    .iter()
                    .any(|i| self.matches_subject(&Subject::new(i, subject.shell_param), mode)),
            },
            Value::Null => false,
            Value::Object(_) if mode == MatchMode::Approve => false,
            value => {
                let text = match value {
                    Value::String(s) => std::borrow::Cow::Borrowed(s.as_str()),
                    other => std::borrow::Cow::Owned(other.to_string()),
                };
                let hit = self.matches_text(&text);
                if hit && mode == MatchMode::Approve && subject.shell_param {
                    // A glob like `git *` must not approve `git x && rm -rf ~`.
                    return subject.shell().is_some_and(|s| {
                        s.is_plain() && s.parts().len() == 1 && s.parts().iter().all(|p| !p.nested)
                    });
                }
                hit
            }
        }
    }

    fn matches_text(&self, text: &str) -> bool {
        match &self.kind {
            Kind::Prefix(_) => false,
            Kind::Glob(glob) => glob.is_match(text),
            Kind::Equals => text == self.source,
            Kind::Regex(regex) => regex.is_match(text),
        }
    }
}

fn escape_brackets(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    for c in pattern.chars() {
        if matches!(c, '[' | ']' | '{' | '}') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn approves(shell: &ShellCommand, prefix: &[String]) -> bool {
    shell.is_plain()
        && !shell.parts().is_empty()
        && shell.parts().iter().all(|part| part_approved(part, prefix))
}

/// One plain part starts with `prefix`, word for word.
pub(crate) fn part_approved(part: &SimpleCommand, prefix: &[String]) -> bool {
    !part.nested
        && part.assignments.is_empty()
        && part.redirects.is_empty()
        && part.words.len() >= prefix.len()
        && part.words.iter().zip(prefix).all(|(w, p)| w == p)
}

/// Whether a trigger-mode prefix fires: `Some(None)` surely (a part the
/// parser read starts with the prefix), `Some(Some(hazard))` perhaps (only a
/// part recovered from unreadable text does, or the text was too long or
/// deep to read whole), `None` not at all.
fn triggers(shell: &ShellCommand, prefix: &[String]) -> Option<Option<Hazard>> {
    let mut unsure = None;
    for part in shell.parts() {
        if views(part)
            .iter()
            .any(|view| starts_with_through_options(view, prefix))
        {
            if !part.recovered {
                return Some(None);
            }
            unsure = Some(Hazard::Syntax);
        }
        // `git $SUB origin`, `git pu$1sh`: a computed argument may spell
        // the rule's word.
        if unsure.is_none()
            && views(part)
                .iter()
                .any(|view| starts_with_through_options_as(view, prefix, word_could_be))
        {
            unsure = Some(Hazard::DynamicCommandWord);
        }
        // `echo push | xargs git`: `git` runs with words read from the
        // input, which may complete the prefix.
        if unsure.is_none()
            && stdin_commands(part).any(|view| {
                could_complete(view, prefix)
                    || starts_with_through_options_as(view, prefix, word_could_be)
            })
        {
            unsure = Some(Hazard::UnreadScript);
        }
    }
    // Text too long or deep to read whole, or a script whose text is
    // elsewhere (`cat x.sh | sh`, `. /dev/stdin`), may hide a match.
    let limit = Hazard::BOUNDS
        .into_iter()
        .chain([Hazard::UnreadScript])
        .find(|h| shell.hazards().contains(h));
    match (unsure, limit) {
        (_, Some(limit)) => Some(Some(limit)),
        (Some(h), None) => Some(Some(h)),
        (None, None) => None,
    }
}

/// Whether `view` (a command whose arguments continue with unknown words,
/// or hold words of the input: `xargs -I{} git {}`) starts like `prefix`:
/// every word it has could be the prefix's, and it is not longer.
fn could_complete(view: &[String], prefix: &[String]) -> bool {
    !view.is_empty()
        && view.len() <= prefix.len()
        && view.iter().zip(prefix).all(|(w, p)| word_could_be(w, p))
}

/// A command's word against a prefix rule's word: equal, or an unquoted
/// glob that names it (`gi[t]`, `pu?h`: the shell may expand it so).
fn word_matches(word: &str, want: &str) -> bool {
    word == want || (has_byte(word, b"*?[") && wildcard_match(word, want))
}

/// Options that take a separate value when they sit between a program and
/// its subcommand (`git -C dir push`).
const GLOBAL_VALUED_OPTIONS: &[&str] = &[
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--prefix",
    "--cwd",
];

/// `view` starts with `prefix`, where options between the program and the
/// next prefix word are skipped (`git -C dir push` starts with `git push`).
fn starts_with_through_options(view: &[String], prefix: &[String]) -> bool {
    starts_with_through_options_as(view, prefix, word_matches)
}

/// A word holding an expansion (`$X`, `${X:-y}`, `$(…)`, backquotes) read
/// as a glob with each expansion a `*`: what it could name at run time.
fn word_could_be(word: &str, want: &str) -> bool {
    if word_matches(word, want) {
        return true;
    }
    if !has_byte(word, b"$`") {
        return false;
    }
    let mut pattern = String::with_capacity(word.len());
    let mut chars = word.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '$' => {
                match chars.peek().copied() {
                    Some(open @ ('{' | '(')) => {
                        let close = if open == '{' { '}' } else { ')' };
                        let mut depth = 0usize;
                        for n in chars.by_ref() {
                            if n == open {
                                depth += 1;
                            } else if n == close {
                                depth = depth.saturating_sub(1);
                                if depth == 0 {
                                    break;
                                }
                            }
                        }
                    }
                    _ => {
                        while chars.peek().is_some_and(|n| {
                            n.is_ascii_alphanumeric()
                                || matches!(n, '_' | '@' | '*' | '#' | '?' | '!' | '-')
                        }) {
                            chars.next();
                        }
                    }
                }
                pattern.push('*');
            }
            '`' => {
                for n in chars.by_ref() {
                    if n == '`' {
                        break;
                    }
                }
                pattern.push('*');
            }
            '*' | '?' | '[' | ']' => {
                pattern.push('\\');
                pattern.push(c);
            }
            other => pattern.push(other),
        }
    }
    wildcard_match(&pattern, want)
}

/// [`starts_with_through_options`] with the word comparison given.
fn starts_with_through_options_as(
    view: &[String],
    prefix: &[String],
    word_matches: fn(&str, &str) -> bool,
) -> bool {
    let (Some(first), Some(want)) = (view.first(), prefix.first()) else {
        return false;
    };
    if !word_matches(first, want) {
        return false;
    }
    let mut rest = view.get(1..).unwrap_or_default().iter().peekable();
    for want in prefix.get(1..).unwrap_or_default() {
        loop {
            let Some(word) = rest.next() else {
                return false;
            };
            if word_matches(word, want) {
                break;
            }
            if !want.starts_with('-') && word.starts_with('-') {
                if GLOBAL_VALUED_OPTIONS.contains(&word.as_str()) {
                    rest.next();
                }
                continue;
            }
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pattern: &str) -> Matcher {
        Matcher::compile(&ArgMatcher::Pattern(pattern.into())).unwrap()
    }

    fn approve(pattern: &str, value: &str) -> bool {
        m(pattern).matches(&Value::String(value.into()), MatchMode::Approve)
    }

    fn trigger(pattern: &str, value: &str) -> bool {
        m(pattern).matches(&Value::String(value.into()), MatchMode::Trigger)
    }

    #[test]
    fn prefix_has_a_word_boundary() {
        assert!(approve("git add:*", "git add"));
        assert!(approve("git add:*", "git add ."));
        assert!(approve("git add:*", "git add -A src"));
        assert!(!approve("git add:*", "git addx"));
        assert!(!approve("git add:*", "git"));
    }

    #[test]
    fn prefix_approves_only_when_every_part_matches() {
        assert!(approve("git add:*", "git add a && git add b"));
        assert!(!approve("git add:*", "git add . && rm -rf ~"));
        assert!(!approve("git add:*", "git add $(rm -rf ~)"));
        assert!(!approve("git add:*", "git add . > out.txt"));
    }

    #[test]
    fn prefix_triggers_on_any_part_and_through_wrappers() {
        assert!(trigger("git push:*", "git status; git push --force"));
        assert!(trigger("git push:*", "timeout 10 git push"));
        assert!(trigger("git push:*", "git -C repo push origin"));
        assert!(trigger("git push:*", "echo $(git push)"));
        assert!(!trigger("git push:*", "git status"));
    }

    #[test]
    fn glob_is_over_the_whole_value_and_star_is_not_everything() {
        assert!(approve("*.md", "README.md"));
        assert!(!approve("*.md", "docs/README.md"));
        assert!(approve("docs/**", "docs/a/b.md"));
        assert!(!approve("*.md", "README.mdx"));
        assert!(!approve("src/*", "lib/x"));
        assert!(approve("a?c", "abc"));
        assert!(approve("[x]*", "[x]yz"), "brackets are literal");
    }

    #[test]
    fn plain_string_is_equality() {
        assert!(approve("main", "main"));
        assert!(!approve("main", "main2"));
        assert!(!approve("main", "xmain"));
    }

    #[test]
    fn regex_is_anchored() {
        let r = Matcher::compile(&ArgMatcher::Regex {
            regex: "v[0-9]+".into(),
        })
        .unwrap();
        assert!(r.matches(&"v12".into(), MatchMode::Approve));
        assert!(!r.matches(&"xv12".into(), MatchMode::Approve));
        assert!(!r.matches(&"v12x".into(), MatchMode::Approve));
        let alt = Matcher::compile(&ArgMatcher::Regex {
            regex: "a|b".into(),
        })
        .unwrap();
        assert!(
            !alt.matches(&"ab".into(), MatchMode::Approve),
            "alternation stays anchored"
        );
    }

    #[test]
    fn bad_patterns_are_errors() {
        assert!(Matcher::compile(&ArgMatcher::Regex { regex: "(".into() }).is_err());
        assert!(Matcher::compile(&ArgMatcher::Pattern(":*".into())).is_err());
    }

    #[test]
    fn glob_on_a_shell_parameter_approves_only_a_single_plain_command() {
        let glob = m("git *");
        let ok = Value::String("git status".into());
        let bad = Value::String("git x && rm -rf ~".into());
        assert!(glob.matches_subject(&Subject::new(&ok, true), MatchMode::Approve));
        assert!(!glob.matches_subject(&Subject::new(&bad, true), MatchMode::Approve));
    }

    #[test]
    fn arrays_need_all_to_approve_and_any_to_trigger() {
        let glob = m("*.rs");
        let value = serde_json::json!(["a.rs", "b.txt"]);
        assert!(!glob.matches(&value, MatchMode::Approve));
        assert!(glob.matches(&value, MatchMode::Trigger));
        let argv = serde_json::json!(["git", "add", "."]);
        assert!(m("git add:*").matches(&argv, MatchMode::Approve));
    }
}
