//! Parsing a model's raw arguments text, with a diagnosis when it was cut off.

use serde_json::{Map, Value, json};

use crate::output::{ErrorCode, ToolError};

/// How many characters of the raw text an error echoes back.
const ECHO_LIMIT: usize = 2_000;

/// Why a raw arguments text was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgumentsProblem {
    /// The text ends inside a string.
    UnterminatedString,
    /// The text ends with brackets still open.
    UnbalancedBrackets {
        /// How many `{`/`[` were never closed.
        open: usize,
    },
    /// The text is not JSON for another reason.
    InvalidJson,
    /// The text is JSON but not an object.
    NotAnObject,
}

impl ArgumentsProblem {
    /// Whether the text looks cut off (as when a model hit its output limit).
    pub fn is_truncated(self) -> bool {
        matches!(
            self,
            Self::UnterminatedString | Self::UnbalancedBrackets { .. }
        )
    }
}

/// Parses raw arguments: empty (or whitespace, or `null`) means `{}`; anything
/// else must be a JSON object. A refusal is an `truncated_arguments` or
/// `invalid_arguments_json` error that echoes the text.
pub fn parse_arguments(raw: &str) -> Result<Map<String, Value>, ToolError> {
    let text = raw.trim();
    if text.is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(Value::Null) => Ok(Map::new()),
        Ok(other) => Err(problem_error(
            raw,
            ArgumentsProblem::NotAnObject,
            &format!(
                "arguments must be a JSON object, got {}",
                crate::declare::json_kind(&other)
            ),
            None,
        )),
        Err(err) => {
            let problem = diagnose(text).unwrap_or(if err.is_eof() {
                ArgumentsProblem::UnbalancedBrackets { open: 0 }
            } else {
                ArgumentsProblem::InvalidJson
            });
            let detail = match problem {
                ArgumentsProblem::UnterminatedString => {
                    "the arguments were cut off inside a string".to_owned()
                }
                ArgumentsProblem::UnbalancedBrackets { open } if open > 0 => {
                    format!("the arguments were cut off with {open} bracket(s) left open")
                }
                ArgumentsProblem::UnbalancedBrackets { .. } => {
                    "the arguments were cut off before the JSON ended".to_owned()
                }
                _ => format!("the arguments are not valid JSON: {err}"),
            };
            Err(problem_error(
                raw,
                problem,
                &detail,
                Some((err.line(), err.column())),
            ))
        }
    }
}

/// Looks for signs that `text` was cut off: an open string or open brackets
/// with nothing mismatched. `None` when the text looks complete (so its
/// problem is something else).
pub fn diagnose(text: &str) -> Option<ArgumentsProblem> {
    let mut stack: Vec<u8> = Vec::new();
    let mut in_string = false;
    let mut escaped = false;
    for byte in text.bytes() {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' | b'[' => stack.push(byte),
            b'}' | b']' => {
                let expected = if byte == b'}' { b'{' } else { b'[' };
                if stack.pop() != Some(expected) {
                    return None;
                }
            }
            _ => {}
        }
    }
    if in_string {
        Some(ArgumentsProblem::UnterminatedString)
    } else if !stack.is_empty() {
        Some(ArgumentsProblem::UnbalancedBrackets { open: stack.len() })
    } else {
        None
    }
}

fn problem_error(
    raw: &str,
    problem: ArgumentsProblem,
    detail: &str,
    position: Option<(usize, usize)>,
) -> ToolError {
    let code = if problem.is_truncated() {
        ErrorCode::TRUNCATED_ARGUMENTS
    } else {
        ErrorCode::INVALID_ARGUMENTS_JSON
    };
    let echoed: String = raw.chars().take(ECHO_LIMIT).collect();
    let more = raw.chars().count().saturating_sub(ECHO_LIMIT);
    let suffix = if more > 0 {
        format!(" … ({more} more characters)")
    } else {
        String::new()
    };
    let advice = if problem.is_truncated() {
        "The tool was not run. Send the call again with complete arguments; if the content is long, split it into smaller calls."
    } else {
        "The tool was not run. Send the call again with a single JSON object as arguments."
    };
    // The raw text is echoed capped: a cut-off 2 MB argument must not travel
    // back in full in every error.
    let mut details = json!({
        "raw": echoed,
        "rawChars": more + echoed.chars().count(),
        "rawTruncated": more > 0,
        "problem": format!("{problem:?}"),
    });
    if let Some((line, column)) = position {
        details["line"] = json!(line);
        details["column"] = json!(column);
    }
    ToolError::new(
        code,
        format!("{detail}. {advice}\nReceived: {echoed}{suffix}"),
    )
    .with_details(details)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_with_escaped_quotes_are_not_open() {
        assert_eq!(diagnose(r#"{"a":"x\"y"}"#), None);
        assert_eq!(
            diagnose(r#"{"a":"x\"y"#),
            Some(ArgumentsProblem::UnterminatedString)
        );
    }

    #[test]
    fn brackets_inside_strings_do_not_count() {
        assert_eq!(diagnose(r#"{"a":"{["}"#), None);
    }

    #[test]
    fn mismatched_brackets_are_invalid_not_truncated() {
        assert_eq!(diagnose(r#"{"a":[1}"#), None);
    }
}
