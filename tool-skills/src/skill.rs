//! A loaded skill, where it came from, and skills compiled into a host.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Value, json};

use crate::remote_entry::RemoteEntry;
use crate::validate::{Frontmatter, SkillDocument};

/// A skill ready to be offered: its document plus its provenance.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Skill {
    /// The validated `SKILL.md`.
    pub document: SkillDocument,
    /// The label of the source it came from (e.g. `project`, `user`, `builtin`).
    pub source: String,
    /// Where its files live.
    pub origin: Origin,
    /// A hash of what defines the skill, to tell what a reload changed.
    pub digest: u64,
}

/// Where a skill's files live.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Origin {
    /// A folder on disk.
    Disk {
        /// The skill folder, canonical.
        dir: PathBuf,
        /// Its `SKILL.md`.
        file: PathBuf,
    },
    /// Compiled into the host.
    Builtin {
        /// The builtin skill's identifier.
        identifier: String,
        /// Its resources: relative path → bytes.
        resources: Arc<BTreeMap<String, Vec<u8>>>,
    },
    /// Listed by a remote source ([`SkillSource::remote`]); its files are
    /// fetched when used. Until its `SKILL.md` is fetched,
    /// [`Skill::body`] is empty ([`RemoteEntry::body`] has it after).
    ///
    /// [`SkillSource::remote`]: crate::SkillSource::remote
    Remote(RemoteEntry),
}

/// Where a result came from: attached to the state of every tool result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Provenance {
    /// The skill's name.
    pub skill: String,
    /// The source label.
    pub source: String,
    /// `disk`, `builtin` or `remote`.
    pub kind: &'static str,
    /// The skill folder (disk), `builtin:<identifier>`, or the remote
    /// skill's folder address (`skill://pdf`).
    pub location: String,
    /// The file the result was read from, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

impl Provenance {
    /// As JSON.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or_else(|_| json!({}))
    }
}

impl Skill {
    /// The skill's name.
    pub fn name(&self) -> &str {
        &self.document.name
    }

    /// The description.
    pub fn description(&self) -> &str {
        &self.document.description
    }

    /// The body (instructions) without frontmatter (empty for a remote
    /// skill whose `SKILL.md` is not fetched yet).
    pub fn body(&self) -> &str {
        &self.document.body
    }

    /// The other frontmatter fields.
    pub fn frontmatter(&self) -> &Frontmatter {
        &self.document.frontmatter
    }

    /// The skill folder, for a skill on disk.
    pub fn dir(&self) -> Option<&Path> {
        match &self.origin {
            Origin::Disk { dir, .. } => Some(dir),
            Origin::Builtin { .. } | Origin::Remote(_) => None,
        }
    }

    /// How the skill's folder is named to a model: its path,
    /// `builtin:<id>`, or a remote skill's folder address.
    pub fn location(&self) -> String {
        match &self.origin {
            Origin::Disk { dir, .. } => dir.display().to_string(),
            Origin::Builtin { identifier, .. } => format!("builtin:{identifier}"),
            Origin::Remote(entry) => entry.listed().folder().to_owned(),
        }
    }

    /// The `SKILL.md` as findings name it (a remote skill's: its address).
    pub fn file(&self) -> String {
        match &self.origin {
            Origin::Disk { file, .. } => file.display().to_string(),
            Origin::Builtin { identifier, .. } => format!("builtin:{identifier}"),
            Origin::Remote(entry) => entry.listed().uri.clone(),
        }
    }

    /// Provenance of a result read from `file` (relative to the skill), or
    /// of the skill itself when `file` is `None`.
    pub fn provenance(&self, file: Option<&str>) -> Provenance {
        let kind = match self.origin {
            Origin::Disk { .. } => "disk",
            Origin::Builtin { .. } => "builtin",
            Origin::Remote(_) => "remote",
        };
        Provenance {
            skill: self.name().to_owned(),
            source: self.source.clone(),
            kind,
            location: self.location(),
            file: Some(file.map_or_else(|| self.file(), str::to_owned)),
        }
    }
}

/// A skill compiled into a host: identifier, name, description, Markdown
/// content (the body, without frontmatter) and resources.
///
/// ```
/// use tool_skills::BuiltinSkill;
/// let skill = BuiltinSkill::new("artifacts", "artifacts", "Makes SVG and HTML deliverables.", "# Artifacts\n…")
///     .resource("references/svg.md", "Use viewBox.");
/// assert_eq!(skill.resources.len(), 1);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct BuiltinSkill {
    /// Stable identifier (used in provenance: `builtin:<identifier>`).
    pub identifier: String,
    /// The skill's name.
    pub name: String,
    /// What it does and when to use it.
    pub description: String,
    /// The Markdown instructions.
    pub content: String,
    /// Attached files: relative path (keep the `.md` suffix) → bytes.
    pub resources: BTreeMap<String, Vec<u8>>,
}

impl BuiltinSkill {
    /// A builtin skill without resources.
    pub fn new(
        identifier: impl Into<String>,
        name: impl Into<String>,
        description: impl Into<String>,
        content: impl Into<String>,
    ) -> Self {
        Self {
            identifier: identifier.into(),
            name: name.into(),
            description: description.into(),
            content: content.into(),
            resources: BTreeMap::new(),
        }
    }

    /// Adds a resource file.
    pub fn resource(mut self, path: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Self {
        self.resources.insert(path.into(), bytes.into());
        self
    }
}

/// A stable 64-bit FNV-1a hash (for reload diffs; not for security).
pub(crate) fn digest(parts: &[&[u8]]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for byte in part.iter().chain(&[0xff]) {
            hash ^= u64::from(*byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}
