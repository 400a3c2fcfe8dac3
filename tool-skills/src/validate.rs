//! Reading a `SKILL.md` into a [`SkillDocument`] under a [`ValidationMode`],
//! with a [`Finding`] for everything that is off.
//!
//! Pure functions over text: no I/O.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use yaml_serde::Value as Yaml;

use crate::finding::{Finding, FindingCode, Severity};
use crate::frontmatter::{self, ParseLimits, YAML_FIRST_LINE, key_line, yaml_kind};
use crate::name::{name_problem, normalize_name};

/// Longest `description` the format allows.
pub const MAX_DESCRIPTION_CHARS: usize = 1024;
/// Longest `compatibility` the format allows.
pub const MAX_COMPATIBILITY_CHARS: usize = 500;
/// Body length (lines) past which a `long_body` warning is given.
pub const RECOMMENDED_MAX_BODY_LINES: usize = 500;

/// How closely a skill must follow the public Agent Skills format.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ValidationMode {
    /// The public specification: every rule violation is an error and the
    /// skill is not loaded.
    Strict,
    /// What clients do in practice (the default): warn on a name/folder
    /// mismatch, a bad or over-long name and over-long fields; fall back to
    /// the folder name when `name` is missing; skip a skill only when its
    /// description is missing or its YAML cannot be read.
    #[default]
    Lenient,
}

/// The frontmatter fields, typed. Unknown keys are kept in `extra`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Frontmatter {
    /// `license`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    /// `compatibility`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compatibility: Option<String>,
    /// `metadata` (string → string).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub metadata: BTreeMap<String, String>,
    /// `allowed-tools`, from a space-separated string or a list.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_tools: Vec<String>,
    /// Every other key, and known keys whose value could not be typed, as JSON.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

/// A `SKILL.md` that loaded: its name, description, other fields and body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SkillDocument {
    /// The skill's name, NFKC-normalised (see [`normalize_name`]); in
    /// lenient mode possibly the folder name.
    pub name: String,
    /// What the skill does and when to use it.
    pub description: String,
    /// The other frontmatter fields.
    pub frontmatter: Frontmatter,
    /// The Markdown after the frontmatter, trimmed, with `\n` line endings.
    pub body: String,
    /// The 1-based file line where the body starts.
    pub body_line: usize,
}

/// What to check a `SKILL.md` against.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ParseOptions {
    /// Strict or lenient.
    pub mode: ValidationMode,
    /// Size caps.
    pub limits: ParseLimits,
    /// How findings name the file.
    pub file: String,
    /// The skill's folder name (the name must equal it; lenient mode falls back to it).
    pub folder_name: Option<String>,
}

impl ParseOptions {
    /// Options for `file` in `mode`, folder unknown, default limits.
    pub fn new(file: impl Into<String>, mode: ValidationMode) -> Self {
        Self {
            mode,
            limits: ParseLimits::default(),
            file: file.into(),
            folder_name: None,
        }
    }

    /// Sets the folder name.
    pub fn folder(mut self, name: impl Into<String>) -> Self {
        self.folder_name = Some(name.into());
        self
    }

    /// Sets the limits.
    pub fn limits(mut self, limits: ParseLimits) -> Self {
        self.limits = limits;
        self
    }
}

/// The outcome of reading one `SKILL.md`: the document when it loads, and
/// every finding either way.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Parsed {
    /// The document, or `None` when an error finding stopped it.
    pub document: Option<SkillDocument>,
    /// Everything noticed, in file order where lines are known.
    pub findings: Vec<Finding>,
}

/// Reads a `SKILL.md` text.
///
/// ```
/// use tool_skills::{parse_skill_md, ParseOptions, ValidationMode};
/// let text = "---\nname: pdf\ndescription: Use when: PDFs are involved\n---\n# PDF\n";
/// let parsed = parse_skill_md(text, &ParseOptions::new("pdf/SKILL.md", ValidationMode::Lenient).folder("pdf"));
/// let doc = parsed.document.unwrap();
/// assert_eq!(doc.description, "Use when: PDFs are involved");
/// assert_eq!(parsed.findings[0].code.as_str(), "colon_repaired");
/// assert_eq!(parsed.findings[0].line, Some(3));
/// ```
pub fn parse_skill_md(text: &str, options: &ParseOptions) -> Parsed {
    let file = options.file.as_str();
    if text.len() > options.limits.max_file_bytes {
        return fatal(Finding::new(
            FindingCode::FileTooLarge,
            Severity::Error,
            file,
            None,
            format!(
                "the file is {} bytes, over the {}-byte cap; it was not parsed",
                text.len(),
                options.limits.max_file_bytes
            ),
        ));
    }
    let split = match frontmatter::split(text, file, &options.limits) {
        Ok(split) => split,
        Err(finding) => return fatal(finding),
    };
    let read = match frontmatter::read_yaml(&split.yaml, file) {
        Ok(read) => read,
        Err(finding) => return fatal(finding),
    };
    let mut repairs = read.findings;
    if options.mode == ValidationMode::Strict {
        // The repaired text is still read (to report everything else), but
        // the file itself is not valid YAML.
        for finding in &mut repairs {
            finding.severity = Severity::Error;
        }
    }
    let mut checker = Checker {
        mode: options.mode,
        file,
        yaml: &read.text,
        findings: repairs,
    };
    let fields = checker.fields(read.mapping);
    let document = checker.document(fields, split, options.folder_name.as_deref());
    let mut findings = checker.findings;
    findings.sort_by_key(|f| f.line.unwrap_or(usize::MAX));
    let failed = match options.mode {
        ValidationMode::Strict => findings.iter().any(Finding::is_error),
        ValidationMode::Lenient => document.is_none(),
    };
    Parsed {
        document: if failed { None } else { document },
        findings,
    }
}

fn fatal(finding: Finding) -> Parsed {
    Parsed {
        document: None,
        findings: vec![finding],
    }
}

#[derive(Default)]
struct Fields {
    name: Option<String>,
    description: Option<String>,
    frontmatter: Frontmatter,
}

struct Checker<'a> {
    mode: ValidationMode,
    file: &'a str,
    yaml: &'a str,
    findings: Vec<Finding>,
}

const KNOWN: [&str; 6] = [
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
];

impl Checker<'_> {
    /// Error in strict mode, warning in lenient mode.
    fn rule(&self) -> Severity {
        match self.mode {
            ValidationMode::Strict => Severity::Error,
            ValidationMode::Lenient => Severity::Warning,
        }
    }

    fn push(&mut self, code: FindingCode, severity: Severity, key: &str, message: String) {
        let line = key_line(self.yaml, key).or(Some(YAML_FIRST_LINE));
        self.findings
            .push(Finding::new(code, severity, self.file, line, message));
    }

    fn fields(&mut self, mapping: yaml_serde::Mapping) -> Fields {
        let mut fields = Fields::default();
        for (key, value) in mapping {
            let key = match key {
                Yaml::String(key) => key,
                other => scalar_text(&other).unwrap_or_else(|| to_json(&other).to_string()),
            };
            match key.as_str() {
                "name" => fields.name = self.text_field(&key, value, &mut fields.frontmatter),
                "description" => {
                    fields.description = self.text_field(&key, value, &mut fields.frontmatter)
                }
                "license" => {
                    fields.frontmatter.license =
                        self.text_field(&key, value, &mut fields.frontmatter)
                }
                "compatibility" => {
                    let text = self.text_field(&key, value, &mut fields.frontmatter);
                    if let Some(text) = &text {
                        let count = text.chars().count();
                        if count == 0 || count > MAX_COMPATIBILITY_CHARS {
                            let sev = self.rule();
                            self.push(
                                FindingCode::InvalidCompatibility,
                                sev,
                                &key,
                                format!(
                                    "`compatibility` is {count} characters; it must be 1 to {MAX_COMPATIBILITY_CHARS}"
                                ),
                            );
                        }
                    }
                    fields.frontmatter.compatibility = text;
                }
                "metadata" => self.metadata(&key, value, &mut fields.frontmatter),
                "allowed-tools" => self.allowed_tools(&key, value, &mut fields.frontmatter),
                _ => {
                    let sev = match self.mode {
                        ValidationMode::Strict => Severity::Error,
                        ValidationMode::Lenient => Severity::Info,
                    };
                    self.push(
                        FindingCode::UnknownField,
                        sev,
                        &key,
                        format!(
                            "`{key}` is not a field of the format (known: {}); it is kept as extra data",
                            KNOWN.join(", ")
                        ),
                    );
                    fields.frontmatter.extra.insert(key, to_json(&value));
                }
            }
        }
        fields
    }

    /// A text field; numbers and booleans are read as text with a finding,
    /// other shapes are kept in `extra` with a finding.
    fn text_field(&mut self, key: &str, value: Yaml, fm: &mut Frontmatter) -> Option<String> {
        match value {
            Yaml::String(text) => Some(text.trim().to_owned()),
            Yaml::Null => None,
            other => {
                let sev = self.rule();
                if let Some(text) = scalar_text(&other) {
                    self.push(
                        FindingCode::InvalidFieldType,
                        sev,
                        key,
                        format!(
                            "`{key}` should be text, found {}; read as {text:?}",
                            yaml_kind(&other)
                        ),
                    );
                    Some(text)
                } else {
                    self.push(
                        FindingCode::InvalidFieldType,
                        if key == "description" {
                            Severity::Error
                        } else {
                            sev
                        },
                        key,
                        format!(
                            "`{key}` must be text, found {}; kept as extra data",
                            yaml_kind(&other)
                        ),
                    );
                    fm.extra.insert(key.to_owned(), to_json(&other));
                    None
                }
            }
        }
    }

    fn metadata(&mut self, key: &str, value: Yaml, fm: &mut Frontmatter) {
        let sev = self.rule();
        let mapping = match value {
            Yaml::Mapping(mapping) => mapping,
            Yaml::Null => return,
            other => {
                self.push(
                    FindingCode::InvalidMetadata,
                    sev,
                    key,
                    format!(
                        "`metadata` must be a map of text to text, found {}; kept as extra data",
                        yaml_kind(&other)
                    ),
                );
                fm.extra.insert(key.to_owned(), to_json(&other));
                return;
            }
        };
        for (k, v) in mapping {
            let k = scalar_text(&k).unwrap_or_else(|| to_json(&k).to_string());
            let text = match v {
                Yaml::String(text) => text,
                other => {
                    let text = scalar_text(&other).unwrap_or_else(|| to_json(&other).to_string());
                    self.push(
                        FindingCode::InvalidMetadata,
                        sev,
                        key,
                        format!(
                            "`metadata.{k}` should be text, found {}; read as {text:?}",
                            yaml_kind(&other)
                        ),
                    );
                    text
                }
            };
            fm.metadata.insert(k, text);
        }
    }

    fn allowed_tools(&mut self, key: &str, value: Yaml, fm: &mut Frontmatter) {
        let sev = self.rule();
        match value {
            Yaml::String(text) => {
                fm.allowed_tools = text.split_whitespace().map(str::to_owned).collect();
            }
            Yaml::Null => {}
            Yaml::Sequence(items) => {
                for item in items {
                    match item {
                        Yaml::String(tool) => fm.allowed_tools.push(tool.trim().to_owned()),
                        other => {
                            let text =
                                scalar_text(&other).unwrap_or_else(|| to_json(&other).to_string());
                            self.push(
                                FindingCode::InvalidFieldType,
                                sev,
                                key,
                                format!("an `allowed-tools` entry should be text, found {}; read as {text:?}", yaml_kind(&other)),
                            );
                            fm.allowed_tools.push(text);
                        }
                    }
                }
            }
            other => {
                self.push(
                    FindingCode::InvalidFieldType,
                    sev,
                    key,
                    format!("`allowed-tools` must be a space-separated string or a list, found {}; kept as extra data", yaml_kind(&other)),
                );
                fm.extra.insert(key.to_owned(), to_json(&other));
            }
        }
    }

    fn document(
        &mut self,
        fields: Fields,
        split: frontmatter::Split,
        folder: Option<&str>,
    ) -> Option<SkillDocument> {
        let sev = self.rule();
        let description = match fields.description.filter(|d| !d.is_empty()) {
            Some(d) => Some(d),
            None => {
                self.push(
                    FindingCode::MissingDescription,
                    Severity::Error,
                    "description",
                    "`description` is missing or empty; a skill without one is never loaded".into(),
                );
                None
            }
        };
        if let Some(d) = &description {
            let count = d.chars().count();
            if count > MAX_DESCRIPTION_CHARS {
                self.push(
                    FindingCode::DescriptionTooLong,
                    sev,
                    "description",
                    format!("`description` is {count} characters, over {MAX_DESCRIPTION_CHARS}"),
                );
            }
        }
        let name = match fields.name.filter(|n| !n.is_empty()) {
            Some(written) => {
                let name = normalize_name(&written);
                if name != written {
                    self.push(
                        FindingCode::NameNormalized,
                        Severity::Info,
                        "name",
                        format!(
                            "`name` {written:?} is read as {name:?} (NFKC normalisation); names and folders are compared in that form"
                        ),
                    );
                }
                if let Some((code, message)) = name_problem(&name) {
                    self.push(code, sev, "name", message);
                }
                if let Some(folder) = folder
                    && normalize_name(folder) != name
                {
                    self.push(
                        FindingCode::NameFolderMismatch,
                        sev,
                        "name",
                        format!(
                            "`name` is {name:?} but the folder is {folder:?}; they must be equal"
                        ),
                    );
                }
                if name.chars().any(char::is_control) {
                    if folder.is_none() {
                        self.push(
                            FindingCode::InvalidName,
                            Severity::Error,
                            "name",
                            "`name` has control characters and there is no folder name to use instead".into(),
                        );
                    }
                    folder.map(normalize_name)
                } else {
                    Some(name)
                }
            }
            None => {
                let fallback = match self.mode {
                    ValidationMode::Lenient => folder,
                    ValidationMode::Strict => None,
                };
                let message = match fallback {
                    Some(folder) => {
                        format!("`name` is missing; the folder name {folder:?} is used")
                    }
                    None => "`name` is missing".to_owned(),
                };
                let severity = if fallback.is_some() {
                    Severity::Warning
                } else {
                    Severity::Error
                };
                self.findings.push(Finding::new(
                    FindingCode::MissingName,
                    severity,
                    self.file,
                    Some(YAML_FIRST_LINE),
                    message,
                ));
                fallback.map(normalize_name)
            }
        };
        if split.body.is_empty() {
            self.findings.push(Finding::new(
                FindingCode::EmptyBody,
                Severity::Warning,
                self.file,
                Some(split.body_line),
                "the body after the frontmatter is empty: activating the skill gives no instructions",
            ));
        } else {
            let lines = split.body.lines().count();
            if lines > RECOMMENDED_MAX_BODY_LINES {
                self.findings.push(Finding::new(
                    FindingCode::LongBody,
                    Severity::Warning,
                    self.file,
                    Some(split.body_line),
                    format!("the body is {lines} lines; keep it under {RECOMMENDED_MAX_BODY_LINES} and move detail into referenced files"),
                ));
            }
        }
        Some(SkillDocument {
            name: name?,
            description: description?,
            frontmatter: fields.frontmatter,
            body: split.body,
            body_line: split.body_line,
        })
    }
}

/// Text of a scalar that is not a string (numbers, booleans).
fn scalar_text(value: &Yaml) -> Option<String> {
    match value {
        Yaml::String(s) => Some(s.clone()),
        Yaml::Bool(b) => Some(b.to_string()),
        Yaml::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A YAML value as JSON (mapping keys become text; tags are dropped).
pub(crate) fn to_json(value: &Yaml) -> Value {
    match value {
        Yaml::Null => Value::Null,
        Yaml::Bool(b) => Value::Bool(*b),
        Yaml::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::from(i)
            } else if let Some(u) = n.as_u64() {
                Value::from(u)
            } else {
                n.as_f64()
                    .and_then(serde_json::Number::from_f64)
                    .map_or_else(|| Value::String(n.to_string()), Value::Number)
            }
        }
        Yaml::String(s) => Value::String(s.clone()),
        Yaml::Sequence(items) => Value::Array(items.iter().map(to_json).collect()),
        Yaml::Mapping(mapping) => Value::Object(
            mapping
                .iter()
                .map(|(k, v)| {
                    let key = scalar_text(k).unwrap_or_else(|| to_json(k).to_string());
                    (key, to_json(v))
                })
                .collect(),
        ),
        Yaml::Tagged(tagged) => to_json(&tagged.value),
    }
}
