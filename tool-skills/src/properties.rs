//! A skill's frontmatter fields as one flat value, named as the format
//! writes them (the shape the reference validator's `read-properties`
//! prints).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::validate::SkillDocument;

/// The frontmatter fields of a skill, flat, with the format's own key
/// spellings.
///
/// Serialises as
/// `{"name", "description", "license"?, "compatibility"?, "allowed-tools"?,
/// "metadata"?, "extra"?}`: absent fields are left out (an empty list or
/// map counts as absent), as the reference validator's `read-properties`
/// does. Two differences from it, both on purpose: `allowed-tools` is
/// always a list (a space-separated string is split on whitespace, a YAML
/// list is kept), and keys the format does not define are kept under
/// `extra` instead of being dropped.
///
/// ```
/// use tool_skills::{parse_skill_md, ParseOptions, ValidationMode};
/// let text = "---\nname: pdf\ndescription: Handles PDFs.\nlicense: MIT\nallowed-tools: Read Bash(jq:*)\nmetadata:\n  version: \"1.0\"\n---\nBody\n";
/// let parsed = parse_skill_md(text, &ParseOptions::new("pdf/SKILL.md", ValidationMode::Strict).folder("pdf"));
/// let properties = parsed.document.unwrap().properties();
/// assert_eq!(
///     serde_json::to_value(&properties).unwrap(),
///     serde_json::json!({
///         "name": "pdf",
///         "description": "Handles PDFs.",
///         "license": "MIT",
///         "allowed-tools": ["Read", "Bash(jq:*)"],
///         "metadata": {"version": "1.0"},
///     })
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct SkillProperties {
    /// `name` (NFKC-normalised; in lenient mode possibly the folder name).
    pub name: String,
    /// `description`.
    pub description: String,
    /// `license`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    /// `compatibility`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compatibility: Option<String>,
    /// `allowed-tools`, one entry per tool pattern.
    #[serde(rename = "allowed-tools", skip_serializing_if = "Vec::is_empty")]
    pub allowed_tools: Vec<String>,
    /// `metadata` (text to text).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub metadata: BTreeMap<String, String>,
    /// Keys the format does not define (and known keys whose value could not
    /// be typed), as JSON.
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

impl SkillDocument {
    /// The frontmatter fields as one flat [`SkillProperties`].
    pub fn properties(&self) -> SkillProperties {
        let fm = &self.frontmatter;
        SkillProperties {
            name: self.name.clone(),
            description: self.description.clone(),
            license: fm.license.clone(),
            compatibility: fm.compatibility.clone(),
            allowed_tools: fm.allowed_tools.clone(),
            metadata: fm.metadata.clone(),
            extra: fm.extra.clone(),
        }
    }
}
