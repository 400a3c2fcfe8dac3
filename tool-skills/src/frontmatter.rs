//! Splitting `SKILL.md` into YAML frontmatter and a Markdown body, and
//! reading the YAML (with the common unquoted-colon repair).
//!
//! Pure functions over text: no I/O.

use yaml_serde::{Mapping, Value as Yaml};

use crate::finding::{Finding, FindingCode, Severity};

/// Size caps applied before any parsing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParseLimits {
    /// Largest `SKILL.md` read, in bytes (default 1 MiB).
    pub max_file_bytes: usize,
    /// Largest frontmatter block handed to the YAML parser, in bytes (default 64 KiB).
    pub max_frontmatter_bytes: usize,
}

impl Default for ParseLimits {
    fn default() -> Self {
        Self {
            max_file_bytes: 1024 * 1024,
            max_frontmatter_bytes: 64 * 1024,
        }
    }
}

/// The two parts of a `SKILL.md`, line endings normalised to `\n`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Split {
    /// The YAML text between the delimiters.
    pub yaml: String,
    /// The body after the closing delimiter, trimmed.
    pub body: String,
    /// The 1-based file line of the body's first line.
    pub body_line: usize,
}

/// File line of the first YAML line (line 1 is the opening `---`).
pub(crate) const YAML_FIRST_LINE: usize = 2;

fn is_delimiter(line: &str) -> bool {
    line.trim_end() == "---"
}

/// Splits the text; a BOM is dropped, CRLF and lone CR become LF.
pub(crate) fn split(text: &str, file: &str, limits: &ParseLimits) -> Result<Split, Finding> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let normalised;
    let text = if text.contains('\r') {
        normalised = text.replace("\r\n", "\n").replace('\r', "\n");
        normalised.as_str()
    } else {
        text
    };
    let mut lines = text.split_inclusive('\n');
    match lines.next() {
        Some(first) if is_delimiter(first) => {}
        _ => {
            return Err(Finding::new(
                FindingCode::MissingFrontmatter,
                Severity::Error,
                file,
                Some(1),
                "the file must start with a `---` line opening the YAML frontmatter",
            ));
        }
    }
    let mut yaml_len = 0usize;
    let mut line_no = 1usize;
    let start = text.find('\n').map_or(text.len(), |i| i + 1);
    for line in lines {
        line_no += 1;
        if is_delimiter(line) {
            if yaml_len > limits.max_frontmatter_bytes {
                return Err(too_large(file, yaml_len, limits));
            }
            let yaml = text[start..start + yaml_len].to_owned();
            let rest = &text[start + yaml_len + line.len()..];
            let leading_blank = rest
                .split_inclusive('\n')
                .take_while(|l| l.trim().is_empty())
                .count();
            let body = rest.trim().to_owned();
            let skipped = if body.is_empty() { 0 } else { leading_blank };
            return Ok(Split {
                yaml,
                body,
                body_line: line_no + 1 + skipped,
            });
        }
        yaml_len += line.len();
        if yaml_len > limits.max_frontmatter_bytes {
            let closes_later = text[start + yaml_len..]
                .split_inclusive('\n')
                .any(is_delimiter);
            return Err(if closes_later {
                too_large(file, yaml_len, limits)
            } else {
                unclosed(file)
            });
        }
    }
    Err(unclosed(file))
}

fn too_large(file: &str, len: usize, limits: &ParseLimits) -> Finding {
    Finding::new(
        FindingCode::FrontmatterTooLarge,
        Severity::Error,
        file,
        Some(1),
        format!(
            "the frontmatter is over {} bytes (at least {len}); it was not parsed",
            limits.max_frontmatter_bytes
        ),
    )
}

fn unclosed(file: &str) -> Finding {
    Finding::new(
        FindingCode::UnclosedFrontmatter,
        Severity::Error,
        file,
        Some(1),
        "the `---` on line 1 opens a frontmatter that no `---` line closes",
    )
}

/// The frontmatter read as a YAML mapping, with the findings of any repair.
#[derive(Debug, Clone)]
pub(crate) struct ReadYaml {
    pub mapping: Mapping,
    /// The YAML text actually parsed (after repair), for key line lookups.
    pub text: String,
    pub findings: Vec<Finding>,
}

/// Parses the frontmatter YAML; on failure, retries once with unquoted
/// values containing `: ` quoted, and reports each repaired line.
pub(crate) fn read_yaml(yaml: &str, file: &str) -> Result<ReadYaml, Finding> {
    let first_error = match yaml_serde::from_str::<Yaml>(yaml) {
        Ok(value) => {
            return into_mapping(value, file).map(|mapping| ReadYaml {
                mapping,
                text: yaml.to_owned(),
                findings: Vec::new(),
            });
        }
        Err(error) => error,
    };
    let (repaired, lines) = repair_colons(yaml);
    if !lines.is_empty()
        && let Ok(value) = yaml_serde::from_str::<Yaml>(&repaired)
    {
        let mapping = into_mapping(value, file)?;
        let findings = lines
            .into_iter()
            .map(|(line, key)| {
                Finding::new(
                    FindingCode::ColonRepaired,
                    Severity::Warning,
                    file,
                    Some(line),
                    format!(
                        "the value of `{key}` contains an unquoted `: `, which YAML does not allow; it was read as quoted text (quote it in the file)"
                    ),
                )
            })
            .collect();
        return Ok(ReadYaml {
            mapping,
            text: repaired,
            findings,
        });
    }
    let message = first_error.to_string();
    if let Some(finding) = duplicate_key(yaml, file, &message, first_error.location()) {
        return Err(finding);
    }
    let line = first_error
        .location()
        .map(|l| l.line() + YAML_FIRST_LINE - 1);
    Err(Finding::new(
        FindingCode::InvalidYaml,
        Severity::Error,
        file,
        line.or(Some(YAML_FIRST_LINE)),
        format!("the frontmatter is not valid YAML: {first_error}"),
    ))
}

fn into_mapping(value: Yaml, file: &str) -> Result<Mapping, Finding> {
    match value {
        Yaml::Mapping(mapping) => Ok(mapping),
        Yaml::Null => Ok(Mapping::new()),
        other => Err(Finding::new(
            FindingCode::FrontmatterNotMapping,
            Severity::Error,
            file,
            Some(YAML_FIRST_LINE),
            format!(
                "the frontmatter must be a mapping of keys to values, found {}",
                yaml_kind(&other)
            ),
        )),
    }
}

/// The parser's words for a key defined twice in one mapping.
const DUPLICATE_MARKER: &str = "duplicate entry with key ";

/// A [`FindingCode::DuplicateKey`] finding when the parser's error is a
/// duplicate key: the parser names the key and where its mapping starts
/// (nothing for the top-level mapping); the duplicate's own line is found by
/// reading that mapping's keys at its indentation.
fn duplicate_key(
    yaml: &str,
    file: &str,
    message: &str,
    location: Option<yaml_serde::Location>,
) -> Option<Finding> {
    let rest = &message[message.find(DUPLICATE_MARKER)? + DUPLICATE_MARKER.len()..];
    let written = rest.split(" at line ").next().unwrap_or(rest);
    let key = match serde_json::from_str::<String>(written) {
        Ok(key) => key,
        Err(_) => written.trim_matches(['"', '`']).to_owned(),
    };
    let start = location.map_or((1, 1), |l| (l.line(), l.column()));
    let lines = mapping_key_lines(yaml, &key, start);
    let to_file = |line: usize| line + YAML_FIRST_LINE - 1;
    let (line, first) = match lines.as_slice() {
        [first, second, ..] => (to_file(*second), Some(to_file(*first))),
        _ => (to_file(start.0), None),
    };
    let parent = message[..message.find(DUPLICATE_MARKER)?]
        .trim_end()
        .trim_end_matches(':');
    let place = if parent.is_empty() {
        "the frontmatter".to_owned()
    } else {
        format!("`{parent}`")
    };
    let first = first.map_or_else(String::new, |l| format!(" (first on line {l})"));
    Some(Finding::new(
        FindingCode::DuplicateKey,
        Severity::Error,
        file,
        Some(line),
        format!("`{key}` is defined twice in {place}{first}; keep one"),
    ))
}

/// The 1-based YAML lines where `key` is a key of the block mapping that
/// starts at `(line, column)` (both 1-based): the first line from that
/// column, then every line at the same indentation until one less indented.
fn mapping_key_lines(yaml: &str, key: &str, (line, column): (usize, usize)) -> Vec<usize> {
    let indent = column.saturating_sub(1);
    let mut found = Vec::new();
    for (index, text) in yaml.lines().enumerate().skip(line.saturating_sub(1)) {
        let content: &str = if index + 1 == line {
            let offset = text
                .char_indices()
                .nth(indent)
                .map_or(text.len(), |(i, _)| i);
            &text[offset..]
        } else {
            let trimmed = text.trim_start_matches(' ');
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            let lead = text.len() - trimmed.len();
            if lead < indent {
                break;
            }
            if lead > indent {
                continue;
            }
            trimmed
        };
        if starts_with_key(content, key) {
            found.push(index + 1);
        }
    }
    found
}

/// Whether a line's content defines `key` (plain, `"key"` or `'key'`).
fn starts_with_key(content: &str, key: &str) -> bool {
    let rest = content
        .strip_prefix(key)
        .or_else(|| {
            content
                .strip_prefix('"')
                .and_then(|c| c.strip_prefix(key))
                .and_then(|c| c.strip_prefix('"'))
        })
        .or_else(|| {
            content
                .strip_prefix('\'')
                .and_then(|c| c.strip_prefix(key))
                .and_then(|c| c.strip_prefix('\''))
        });
    rest.is_some_and(|rest| {
        let rest = rest.trim_start_matches([' ', '\t']);
        rest == ":" || rest.starts_with(": ") || rest.starts_with(":\t")
    })
}

/// A short name of a YAML value's kind.
pub(crate) fn yaml_kind(value: &Yaml) -> &'static str {
    match value {
        Yaml::Null => "null",
        Yaml::Bool(_) => "a boolean",
        Yaml::Number(_) => "a number",
        Yaml::String(_) => "text",
        Yaml::Sequence(_) => "a list",
        Yaml::Mapping(_) => "a mapping",
        Yaml::Tagged(_) => "a tagged value",
    }
}

/// Quotes top-level plain values that contain `: `; returns the new text
/// and `(file line, key)` of each line changed.
fn repair_colons(yaml: &str) -> (String, Vec<(usize, String)>) {
    let mut out = String::with_capacity(yaml.len() + 16);
    let mut changed = Vec::new();
    for (index, line) in yaml.split_inclusive('\n').enumerate() {
        let (content, newline) = match line.strip_suffix('\n') {
            Some(content) => (content, "\n"),
            None => (line, ""),
        };
        if let Some((key, value)) = plain_top_level(content)
            && (value.contains(": ") || value.ends_with(':'))
        {
            let quoted = value.replace('\'', "''");
            out.push_str(key);
            out.push_str(": '");
            out.push_str(&quoted);
            out.push('\'');
            out.push_str(newline);
            changed.push((index + YAML_FIRST_LINE, key.to_owned()));
            continue;
        }
        out.push_str(line);
    }
    (out, changed)
}

/// `key: value` at column 0 with a plain (unquoted, non-block) value.
fn plain_top_level(line: &str) -> Option<(&str, &str)> {
    let first = line.chars().next()?;
    if !(first.is_ascii_alphanumeric() || first == '_') {
        return None;
    }
    let colon = line.find(": ")?;
    let key = &line[..colon];
    if !key
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return None;
    }
    let value = line[colon + 2..].trim();
    let starts_special = value.chars().next().is_none_or(|c| {
        matches!(
            c,
            '"' | '\'' | '|' | '>' | '[' | '{' | '&' | '*' | '!' | '#'
        )
    });
    if starts_special {
        return None;
    }
    Some((key, value))
}

/// The 1-based file line where top-level `key` is defined, if found.
pub(crate) fn key_line(yaml: &str, key: &str) -> Option<usize> {
    yaml.lines().enumerate().find_map(|(index, line)| {
        let rest = line
            .strip_prefix(key)
            .or_else(|| {
                line.strip_prefix('"')
                    .and_then(|l| l.strip_prefix(key))
                    .and_then(|l| l.strip_prefix('"'))
            })
            .or_else(|| {
                line.strip_prefix('\'')
                    .and_then(|l| l.strip_prefix(key))
                    .and_then(|l| l.strip_prefix('\''))
            })?;
        rest.trim_start()
            .starts_with(':')
            .then_some(index + YAML_FIRST_LINE)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> ParseLimits {
        ParseLimits::default()
    }

    #[test]
    fn splits_with_bom_and_crlf() {
        let s = split(
            "\u{feff}---\r\nname: a\r\n---\r\n\r\n# Body\r\nline\r\n",
            "f",
            &limits(),
        )
        .unwrap();
        assert_eq!(s.yaml, "name: a\n");
        assert_eq!(s.body, "# Body\nline");
        assert_eq!(s.body_line, 5);
    }

    #[test]
    fn dashes_inside_values_do_not_close() {
        let s = split(
            "---\ndescription: a --- b\nnote: |\n  ---\n  kept\n---\nbody",
            "f",
            &limits(),
        )
        .unwrap();
        assert!(s.yaml.contains("a --- b"));
        assert!(s.yaml.contains("  ---\n  kept"));
        assert_eq!(s.body, "body");
    }

    #[test]
    fn repair_quotes_colon_values() {
        let read = read_yaml("name: a\ndescription: Use when: the user asks\n", "f").unwrap();
        assert_eq!(read.findings.len(), 1);
        assert_eq!(read.findings[0].line, Some(3));
        assert_eq!(
            read.mapping.get("description").and_then(|v| v.as_str()),
            Some("Use when: the user asks")
        );
    }

    #[test]
    fn a_duplicate_key_points_at_its_second_line() {
        let top = read_yaml("name: a\ndescription: x\nlicense: MIT\nname: b\n", "f").unwrap_err();
        assert_eq!(top.code, FindingCode::DuplicateKey);
        assert_eq!(top.line, Some(5), "{top}");
        assert!(top.message.contains("first on line 2"), "{top}");
        let nested = read_yaml(
            "name: a\nmetadata:\n  a: b\n  # note\n  'a': c\nlicense: MIT\n",
            "f",
        )
        .unwrap_err();
        assert_eq!(nested.code, FindingCode::DuplicateKey);
        assert_eq!(nested.line, Some(6), "{nested}");
        assert!(nested.message.contains("`metadata`"), "{nested}");
        let flow = read_yaml("name: a\nmetadata: {a: 1, a: 2}\n", "f").unwrap_err();
        assert_eq!(flow.code, FindingCode::DuplicateKey);
        assert_eq!(flow.line, Some(3), "{flow}");
    }

    #[test]
    fn key_lines_are_file_lines() {
        assert_eq!(key_line("a: 1\nname: x\n", "name"), Some(3));
        assert_eq!(key_line("a: 1\n\"name\": x\n", "name"), Some(3));
        assert_eq!(key_line("a: 1\n", "name"), None);
    }
}
