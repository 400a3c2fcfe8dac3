//! The operation filter of [`ImportOptions`] (see its docs for the rules),
//! judged on the document as written.

use std::collections::HashSet;

use crate::method::Method;

use super::ImportOptions;
use super::names;
use super::node::{Node, Object};

/// The filter of one import.
pub(crate) struct Filter<'o> {
    options: &'o ImportOptions,
    ids: HashSet<&'o str>,
}

impl<'o> Filter<'o> {
    pub(crate) fn new(options: &'o ImportOptions) -> Self {
        Self {
            options,
            ids: options.operations.iter().map(String::as_str).collect(),
        }
    }

    /// Whether the operation `op` (`METHOD /path` is `label`) is kept.
    pub(crate) fn keeps(&self, op: &Object<'_>, method: Method, path: &str, label: &str) -> bool {
        let o = self.options;
        if !o.methods.is_empty() && !o.methods.contains(&method) {
            return false;
        }
        if o.tags.is_empty() && o.operations.is_empty() && o.paths.is_empty() {
            return true;
        }
        if let Some(id) = op.get("operationId").and_then(Node::as_str)
            && (self.ids.contains(id) || self.ids.contains(names::sanitise(id).as_str()))
        {
            return true;
        }
        if self.ids.contains(label) {
            return true;
        }
        if o.paths.iter().any(|glob| glob_matches(glob, path)) {
            return true;
        }
        op.get("tags").and_then(Node::as_array).is_some_and(|list| {
            list.iter()
                .filter_map(Node::as_str)
                .any(|t| o.tags.iter().any(|w| w == t))
        })
    }
}

/// Whether `text` matches `glob`: `**` any text, `*` any text without `/`,
/// `?` one character other than `/`, anything else itself. Linear in
/// `glob × text` (no backtracking blow-up).
pub(crate) fn glob_matches(glob: &str, text: &str) -> bool {
    #[derive(Clone, Copy, PartialEq)]
    enum Token {
        Any,
        Segment,
        One,
        Char(char),
    }
    let mut tokens = Vec::new();
    let mut chars = glob.chars().peekable();
    while let Some(c) = chars.next() {
        tokens.push(match c {
            '*' if chars.peek() == Some(&'*') => {
                chars.next();
                Token::Any
            }
            '*' => Token::Segment,
            '?' => Token::One,
            c => Token::Char(c),
        });
    }
    let text: Vec<char> = text.chars().collect();
    // reach[j]: the first i tokens can match text[..j].
    let mut reach = vec![false; text.len() + 1];
    reach[0] = true;
    for token in tokens {
        let mut next = vec![false; text.len() + 1];
        for j in 0..=text.len() {
            match token {
                Token::Any | Token::Segment => {
                    // Stay (match empty) or extend from j-1.
                    next[j] = reach[j]
                        || (j > 0 && next[j - 1] && (token == Token::Any || text[j - 1] != '/'));
                }
                Token::One => next[j] = j > 0 && reach[j - 1] && text[j - 1] != '/',
                Token::Char(c) => next[j] = j > 0 && reach[j - 1] && text[j - 1] == c,
            }
        }
        reach = next;
    }
    reach[text.len()]
}

#[cfg(test)]
mod tests {
    use super::glob_matches;

    #[test]
    fn globs_match_segments_and_across() {
        assert!(glob_matches("/repos/*/issues", "/repos/{owner}/issues"));
        assert!(!glob_matches("/repos/*/issues", "/repos/a/b/issues"));
        assert!(glob_matches("/repos/**", "/repos/a/b/issues"));
        assert!(glob_matches("/repos/**/issues", "/repos/a/b/issues"));
        assert!(glob_matches("/users/?", "/users/x"));
        assert!(!glob_matches("/users/?", "/users/"));
        assert!(glob_matches("*", ""));
        assert!(!glob_matches("/a", "/ab"));
        assert!(glob_matches(&"*".repeat(40), &"a".repeat(40)));
        assert!(!glob_matches(
            &format!("{}b", "*a".repeat(20)),
            &"a".repeat(60)
        ));
    }
}
