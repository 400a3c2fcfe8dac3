//! The one error type of `tool-approval`: loading and compiling policy.

use std::path::PathBuf;

/// A policy that could not be loaded or compiled.
///
/// Every variant names the place (`pointer`, a JSON pointer into the policy
/// document such as `/rules/local-system~1runCommand/0/match/command`) and
/// the offending input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The file could not be read.
    #[error("cannot read policy file {}: {message}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's message.
        message: String,
    },
    /// The text is not JSON.
    #[error("policy is not valid JSON at line {line}, column {column}: {message}")]
    Json {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's message.
        message: String,
    },
    /// A value is of the wrong shape, an unknown field, policy, mode or key.
    #[error("at {pointer}: {message} (got {input})")]
    Invalid {
        /// Where, as a JSON pointer.
        pointer: String,
        /// The offending input, as JSON text.
        input: String,
        /// What is wrong.
        message: String,
    },
    /// A `{regex: …}` matcher does not compile.
    #[error("at {pointer}: bad regex `{pattern}`: {message}")]
    Regex {
        /// Where, as a JSON pointer.
        pointer: String,
        /// The pattern.
        pattern: String,
        /// The regex engine's message.
        message: String,
    },
    /// A glob matcher does not compile.
    #[error("at {pointer}: bad glob `{pattern}`: {message}")]
    Glob {
        /// Where, as a JSON pointer.
        pointer: String,
        /// The pattern.
        pattern: String,
        /// The glob engine's message.
        message: String,
    },
    /// Several problems, each with its own pointer, in document order (a
    /// policy file reports every problem it has, not only the first).
    #[error("{} problems in the policy: {}", .0.len(), list(.0))]
    Many(Vec<Error>),
    /// A rule's `examples` disagree with what the rule matches.
    #[error("at {pointer}: the rule {} the example {example}, but the example is listed under `{}`", if *matched { "matches" } else { "does not match" }, if *matched { "notMatch" } else { "match" })]
    Example {
        /// Where the example is, as a JSON pointer.
        pointer: String,
        /// The example, as JSON text.
        example: String,
        /// Whether the rule matched it.
        matched: bool,
    },
    /// A row of the crate's built-in knowledge (a path class of the
    /// blacklist) disagrees with its own examples: a defect of this crate,
    /// found when an engine is built, never silently ignored.
    #[error("built-in row disagrees with its examples: {message}")]
    BuiltinRow {
        /// Which row and which example.
        message: String,
    },
}

impl Error {
    /// One error for a list of problems: the problem itself when there is
    /// one, [`Error::Many`] when there are several.
    pub(crate) fn from_list(mut problems: Vec<Error>) -> Result<(), Error> {
        match problems.len() {
            0 => Ok(()),
            1 => Err(problems.remove(0)),
            _ => Err(Self::Many(problems)),
        }
    }

    /// Every problem this error stands for: the list of [`Error::Many`], or
    /// this error alone.
    pub fn problems(&self) -> &[Error] {
        match self {
            Self::Many(list) => list,
            other => std::slice::from_ref(other),
        }
    }

    pub(crate) fn into_problems(self) -> Vec<Error> {
        match self {
            Self::Many(list) => list,
            other => vec![other],
        }
    }

    /// The JSON pointer of the offending value, when the error has one (for
    /// [`Error::Many`], the first problem's).
    pub fn pointer(&self) -> Option<&str> {
        match self {
            Self::Many(list) => list.first().and_then(Self::pointer),
            Self::Invalid { pointer, .. }
            | Self::Regex { pointer, .. }
            | Self::Glob { pointer, .. }
            | Self::Example { pointer, .. } => Some(pointer),
            Self::Io { .. } | Self::Json { .. } | Self::BuiltinRow { .. } => None,
        }
    }

    /// True for a failed rule self-check (or a list holding one).
    pub fn is_example_failure(&self) -> bool {
        self.problems()
            .iter()
            .any(|p| matches!(p, Self::Example { .. }))
    }

    pub(crate) fn invalid(
        pointer: &str,
        input: &serde_json::Value,
        message: impl Into<String>,
    ) -> Self {
        let mut input = input.to_string();
        if input.len() > 200 {
            let mut cut = 200;
            while !input.is_char_boundary(cut) {
                cut -= 1;
            }
            input.truncate(cut);
            input.push('…');
        }
        Self::Invalid {
            pointer: pointer.to_owned(),
            input,
            message: message.into(),
        }
    }
}

fn list(problems: &[Error]) -> String {
    let shown: Vec<String> = problems.iter().map(ToString::to_string).collect();
    shown.join("; ")
}

/// Appends one reference token to a JSON pointer, escaping `~` and `/`.
pub(crate) fn push_pointer(base: &str, token: impl std::fmt::Display) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(base.len() + 16);
    out.push_str(base);
    out.push('/');
    let start = out.len();
    let _ = write!(out, "{token}");
    if out.get(start..).is_some_and(|t| t.contains(['~', '/'])) {
        let escaped = out
            .get(start..)
            .unwrap_or_default()
            .replace('~', "~0")
            .replace('/', "~1");
        out.truncate(start);
        out.push_str(&escaped);
    }
    out
}
