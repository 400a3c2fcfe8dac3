//! A connected server's skills (SEP-2640) as a source of tool-skills'
//! registry (feature `skills`): [`McpSkillSource`] implements
//! [`tool_skills::RemoteSkills`] over [`McpManager`].
//!
//! Listing is `skills/list` (no file read): each entry becomes a
//! [`ListedSkill`] with its frontmatter, and the size and digest of
//! `SKILL.md` and of every other file, whose path in the skill is its URI
//! below the skill's folder, percent-decoded. Reading is one
//! `resources/read`, checked against the entry as
//! [`McpManager::load_skill_entry`] checks it (size, then digest; for
//! `SKILL.md`, its frontmatter field by field), so a skill of a server
//! reaches the model only through the same checks whether a host loads it
//! whole or the registry fetches it file by file. The registry adds its
//! own: the Agent Skills format, its caps, shadowing, the catalog budget.

use std::sync::Arc;

use async_trait::async_trait;
use rmcp::model::{Skill, SkillFrontmatter, SkillResource, SkillResources};
use serde_json::Value;
use tool_skills::{ListedFile, ListedSkill, RemoteError, RemoteErrorKind, RemoteSkills};

use crate::client::manager::McpManager;
use crate::client::remote_skills::{SkillFault, Spoilt};
use crate::error::Error;

/// The skills of server `server` of a manager, as a
/// [`tool_skills::SkillSource`].
///
/// ```no_run
/// use std::sync::Arc;
/// use tool_mcp::{McpManager, McpSkillSource};
/// use tool_skills::{LoadOptions, SkillRegistry, SkillSource};
/// # async fn run(manager: Arc<McpManager>) {
/// let registry = SkillRegistry::load_listed(
///     [
///         SkillSource::dir("project", ".agents/skills"),
///         McpSkillSource::new(manager, "docs").into_source("mcp:docs"),
///     ],
///     LoadOptions::default(),
/// )
/// .await;
/// # let _ = registry;
/// # }
/// ```
#[derive(Clone)]
pub struct McpSkillSource {
    manager: Arc<McpManager>,
    server: String,
}

impl std::fmt::Debug for McpSkillSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpSkillSource")
            .field("server", &self.server)
            .finish_non_exhaustive()
    }
}

impl McpSkillSource {
    /// The skills of server `server` (an id of `manager`).
    pub fn new(manager: Arc<McpManager>, server: impl Into<String>) -> Self {
        Self {
            manager,
            server: server.into(),
        }
    }

    /// The server id.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// A registry source labelled `label` (highest precedence first, as
    /// every source): not listed yet.
    pub fn into_source(self, label: impl Into<String>) -> tool_skills::SkillSource {
        tool_skills::SkillSource::remote(label, Arc::new(self))
    }
}

#[async_trait]
impl RemoteSkills for McpSkillSource {
    fn describe(&self) -> String {
        format!("MCP server `{}`", self.server)
    }

    async fn list(&self) -> Result<Vec<ListedSkill>, RemoteError> {
        let skills = self
            .manager
            .list_skills(&self.server)
            .await
            .map_err(|e| remote_error(&e))?;
        skills.iter().map(listed).collect()
    }

    async fn read(&self, skill: &ListedSkill, uri: &str) -> Result<Vec<u8>, RemoteError> {
        let entry = entry_of(skill)?;
        self.manager
            .read_skill_file(&self.server, &entry, uri)
            .await
            .map_err(|fault| match fault {
                SkillFault::Request(error) => remote_error(&error),
                SkillFault::Spoilt { kind, uri, message } => {
                    RemoteError::new(kind_of(kind), Some(&uri), message)
                }
            })
    }
}

fn kind_of(spoilt: Spoilt) -> RemoteErrorKind {
    match spoilt {
        Spoilt::Entry | Spoilt::Content => RemoteErrorKind::Invalid,
        Spoilt::Size => RemoteErrorKind::Size,
        Spoilt::Digest => RemoteErrorKind::Digest,
        Spoilt::Frontmatter => RemoteErrorKind::Frontmatter,
        Spoilt::TooLarge => RemoteErrorKind::TooLarge,
    }
}

fn remote_error(error: &Error) -> RemoteError {
    match error {
        Error::SkillIntegrity { uri, message, .. } => {
            RemoteError::new(RemoteErrorKind::Invalid, Some(uri), message.clone())
        }
        other => RemoteError::unavailable(None, format!("{}: {other}", other.code())),
    }
}

/// A `skills/list` entry as tool-skills lists it.
fn listed(skill: &Skill) -> Result<ListedSkill, RemoteError> {
    let invalid =
        |uri: &str, message: String| RemoteError::new(RemoteErrorKind::Invalid, Some(uri), message);
    let Value::Object(frontmatter) = serde_json::to_value(&skill.frontmatter)
        .map_err(|e| invalid(&skill.uri, format!("frontmatter: {e}")))?
    else {
        return Err(invalid(
            &skill.uri,
            "the frontmatter is not an object".into(),
        ));
    };
    let name = skill.name().to_owned();
    let mut out = ListedSkill::new(skill.uri.clone(), &name, &skill.frontmatter.description);
    out.frontmatter = frontmatter;
    let SkillResources::Files(files) = &skill.resources else {
        // "dynamic": no size, no digest, no other file known.
        return Ok(out);
    };
    let folder = skill.uri.strip_suffix("SKILL.md").unwrap_or(&skill.uri);
    for file in files {
        if file.uri == skill.uri {
            out = out.sized(file.size, Some(file.digest.clone()));
            continue;
        }
        let path = file
            .uri
            .strip_prefix(folder)
            .and_then(|rest| {
                percent_encoding::percent_decode_str(rest)
                    .decode_utf8()
                    .ok()
            })
            .ok_or_else(|| {
                invalid(
                    &file.uri,
                    format!("not a file below the skill's folder {folder}"),
                )
            })?;
        out = out.file(
            ListedFile::new(path.into_owned(), file.uri.clone(), file.size)
                .digest(file.digest.clone()),
        );
    }
    Ok(out)
}

/// The `skills/list` entry a [`ListedSkill`] came from (what the checks
/// compare files against).
fn entry_of(listed: &ListedSkill) -> Result<Skill, RemoteError> {
    let text = |key: &str| {
        listed
            .frontmatter
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| {
                RemoteError::new(
                    RemoteErrorKind::Invalid,
                    Some(&listed.uri),
                    format!("the listing has no text `{key}`"),
                )
            })
    };
    let mut frontmatter = SkillFrontmatter::new(text("name")?, text("description")?);
    for (key, value) in &listed.frontmatter {
        if key != "name" && key != "description" {
            frontmatter = frontmatter.with_field(key.clone(), value.clone());
        }
    }
    let resources = match (listed.size, &listed.digest) {
        (Some(size), Some(digest)) => {
            let mut files = vec![SkillResource::new(listed.uri.clone(), digest.clone(), size)];
            files.extend(listed.files.iter().map(|f| {
                SkillResource::new(f.uri.clone(), f.digest.clone().unwrap_or_default(), f.size)
            }));
            SkillResources::Files(files)
        }
        _ => SkillResources::Dynamic,
    };
    Ok(Skill::new(listed.uri.clone(), frontmatter, resources))
}
