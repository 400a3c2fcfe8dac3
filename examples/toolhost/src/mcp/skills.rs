//! `mcp serve --skills DIR`: the skills served as MCP resources and prompts
//! too, next to the `skills` tool.
//!
//! Each enabled skill is one resource, `skill://NAME/SKILL.md`
//! (`text/markdown`, the skill's description), whose contents are its
//! `SKILL.md` as it is on disk (frontmatter included; a built-in skill's
//! name, description and body), and one prompt, `NAME`, with an optional
//! `task` argument, whose message is the skill's instructions (the body)
//! followed by the task when one is given. Resources and prompts are
//! looked up by name among the loaded skills: a URI never names a path.
//! The skills extension (SEP-2640: `skills/list`, `skills/get`, and every
//! file of a skill as a resource) is [`super::skills_ext`].

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Map, Value};
use tool_mcp::rmcp::model::{
    GetPromptResult, Prompt, PromptArgument, PromptMessage, Resource, ResourceContents, Role,
};
use tool_mcp::{PromptSource, ResourceSource, SkillSource, SourceError};

use super::skills_ext::{Bytes, Extension};
use tool_skills::{Origin, Skill, SkillRegistry};

/// The URI scheme of served skills.
const SCHEME: &str = "skill://";
/// The file each skill resource is.
const FILE: &str = "/SKILL.md";
/// The longest `SKILL.md` served (the loader's own cap is lower).
const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// The loaded skills, served as resources and prompts.
pub struct SkillLibrary {
    skills: Vec<Arc<Skill>>,
    /// The skills extension's entries and files.
    extension: Extension,
}

impl SkillLibrary {
    /// The enabled skills of `registry`, by name.
    pub fn new(registry: &SkillRegistry) -> Self {
        let mut skills: Vec<Arc<Skill>> = registry.enabled().cloned().collect();
        skills.sort_by(|a, b| a.name().cmp(b.name()));
        let extension = Extension::of(&skills);
        Self { skills, extension }
    }

    /// The skills the extension leaves out, with why.
    pub fn left_out(&self) -> &[String] {
        &self.extension.left_out
    }

    /// Whether there is nothing to serve.
    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    fn named(&self, name: &str) -> Option<&Arc<Skill>> {
        self.skills.iter().find(|s| s.name() == name)
    }

    fn uri(skill: &Skill) -> String {
        format!("{SCHEME}{}{FILE}", skill.name())
    }
}

/// A skill's `SKILL.md`: the file on disk, or a built-in skill's parts.
fn skill_file(skill: &Skill) -> Result<String, SourceError> {
    let Origin::Disk { file, .. } = &skill.origin else {
        return Ok(format!(
            "---\nname: {}\ndescription: {}\n---\n{}\n",
            skill.name(),
            skill.description(),
            skill.body()
        ));
    };
    let failed = |why: String| {
        SourceError::Failed(format!(
            "skill `{}`: {}: {why}",
            skill.name(),
            file.display()
        ))
    };
    let size = std::fs::metadata(file)
        .map_err(|e| failed(e.to_string()))?
        .len();
    if size > MAX_FILE_BYTES {
        return Err(failed(format!(
            "{size} bytes, over the {MAX_FILE_BYTES} served"
        )));
    }
    std::fs::read_to_string(file).map_err(|e| failed(e.to_string()))
}

#[async_trait]
impl ResourceSource for SkillLibrary {
    async fn list(&self) -> Result<Vec<Resource>, SourceError> {
        Ok(self
            .skills
            .iter()
            .map(|skill| {
                Resource::new(Self::uri(skill), skill.name())
                    .with_title(format!("Skill {}", skill.name()))
                    .with_description(skill.description())
                    .with_mime_type("text/markdown")
            })
            .collect())
    }

    async fn read(&self, uri: &str) -> Result<Vec<ResourceContents>, SourceError> {
        if let Some(bytes) = self.extension.files.get(uri) {
            return file_contents(uri, bytes).map(|c| vec![c]);
        }
        let skill = uri
            .strip_prefix(SCHEME)
            .and_then(|rest| rest.strip_suffix(FILE))
            .and_then(|name| self.named(name))
            .ok_or_else(|| SourceError::no_resource(uri))?;
        Ok(vec![ResourceContents::TextResourceContents {
            uri: uri.to_owned(),
            mime_type: Some("text/markdown".into()),
            text: skill_file(skill)?,
            meta: None,
        }])
    }
}

#[async_trait]
impl SkillSource for SkillLibrary {
    async fn list(&self) -> Result<Vec<tool_mcp::rmcp::model::Skill>, SourceError> {
        Ok(self.extension.entries.clone())
    }
}

/// Base64 (standard alphabet, padded) of `bytes`.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// One skill file as a resource: text when it is UTF-8, else a blob.
fn file_contents(uri: &str, bytes: &Bytes) -> Result<ResourceContents, SourceError> {
    let bytes = match bytes {
        Bytes::Held(bytes) => bytes.clone(),
        Bytes::Disk(path) => {
            let size = std::fs::metadata(path)
                .map_err(|e| SourceError::Failed(format!("{uri}: {e}")))?
                .len();
            if size > MAX_FILE_BYTES {
                return Err(SourceError::Failed(format!(
                    "{uri}: {size} bytes, over the {MAX_FILE_BYTES} served"
                )));
            }
            std::fs::read(path).map_err(|e| SourceError::Failed(format!("{uri}: {e}")))?
        }
    };
    let markdown = uri.ends_with(".md");
    Ok(match String::from_utf8(bytes) {
        Ok(text) => ResourceContents::TextResourceContents {
            uri: uri.to_owned(),
            mime_type: Some(
                if markdown {
                    "text/markdown"
                } else {
                    "text/plain"
                }
                .into(),
            ),
            text,
            meta: None,
        },
        Err(raw) => ResourceContents::BlobResourceContents {
            uri: uri.to_owned(),
            mime_type: Some("application/octet-stream".into()),
            blob: base64(raw.as_bytes()),
            meta: None,
        },
    })
}

#[async_trait]
impl PromptSource for SkillLibrary {
    async fn list(&self) -> Result<Vec<Prompt>, SourceError> {
        Ok(self
            .skills
            .iter()
            .map(|skill| {
                Prompt::new(
                    skill.name(),
                    Some(skill.description()),
                    Some(vec![
                        PromptArgument::new("task")
                            .with_description("What to do with the skill (optional)")
                            .with_required(false),
                    ]),
                )
                .with_title(format!("Skill {}", skill.name()))
            })
            .collect())
    }

    async fn get(
        &self,
        name: &str,
        arguments: &Map<String, Value>,
    ) -> Result<GetPromptResult, SourceError> {
        let skill = self
            .named(name)
            .ok_or_else(|| SourceError::no_prompt(name))?;
        if let Some(unknown) = arguments.keys().find(|k| k.as_str() != "task") {
            return Err(SourceError::InvalidArguments {
                prompt: name.to_owned(),
                message: format!("no argument `{unknown}` (the one argument is `task`)"),
            });
        }
        let mut text = skill.body().to_owned();
        match arguments.get("task") {
            None | Some(Value::Null) => {}
            Some(Value::String(task)) if !task.trim().is_empty() => {
                text.push_str("\n\nTask: ");
                text.push_str(task.trim());
            }
            Some(Value::String(_)) => {}
            Some(other) => {
                return Err(SourceError::InvalidArguments {
                    prompt: name.to_owned(),
                    message: format!("`task` is a string, not {other}"),
                });
            }
        }
        Ok(
            GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
                .with_description(skill.description()),
        )
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64_pads_like_the_standard() {
        assert_eq!(super::base64(b""), "");
        assert_eq!(super::base64(b"f"), "Zg==");
        assert_eq!(super::base64(b"fo"), "Zm8=");
        assert_eq!(super::base64(b"foo"), "Zm9v");
        assert_eq!(super::base64(&[0xff, 0xfe, 0x00, 0x01]), "//4AAQ==");
    }
}
