//! What a host serves over MCP besides tools: resources and prompts.
//!
//! [`RegistryServer::with_resources`](crate::RegistryServer::with_resources)
//! and [`RegistryServer::with_prompts`](crate::RegistryServer::with_prompts)
//! take a host's [`ResourceSource`] / [`PromptSource`] (skills as
//! `SKILL.md` resources, a project's documents, prompt templates…); the
//! server then declares `resources` / `prompts`, pages `resources/list` and
//! `resources/templates/list` and `prompts/list` like `tools/list`, and answers `resources/read` and
//! `prompts/get` from the source. A source's [`SourceError`] becomes the
//! MCP error a client expects: an unknown URI is `-32002` (resource not
//! found) with the URI in `data`, an unknown prompt or bad arguments
//! `invalid_params`, anything else `internal_error`. Both answer
//! `completion/complete` for their arguments (none by default), and a
//! prompt may ask the client while it is rendered
//! ([`PromptSource::get_asking`]).

use async_trait::async_trait;
use rmcp::ErrorData;
use rmcp::model::{
    ErrorCode, GetPromptResult, Prompt, Resource, ResourceContents, ResourceTemplate,
};
use serde_json::{Map, Value, json};
use tool_core::ToolContext;

use crate::server::client_input::ClientLine;

/// The MCP error code for a resource that does not exist.
pub const RESOURCE_NOT_FOUND: i32 = -32002;

/// Why a source could not answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SourceError {
    /// No resource with this URI, or no prompt with this name.
    #[error("{kind} `{name}` does not exist")]
    NotFound {
        /// `resource` or `prompt`.
        kind: &'static str,
        /// The URI or prompt name asked for.
        name: String,
    },
    /// The arguments of a prompt are missing or wrong.
    #[error("prompt `{prompt}`: {message}")]
    InvalidArguments {
        /// The prompt.
        prompt: String,
        /// What is wrong.
        message: String,
    },
    /// The source failed (a file that cannot be read…).
    #[error("{0}")]
    Failed(String),
}

impl SourceError {
    /// No resource `uri`.
    pub fn no_resource(uri: impl Into<String>) -> Self {
        Self::NotFound {
            kind: "resource",
            name: uri.into(),
        }
    }

    /// No prompt `name`.
    pub fn no_prompt(name: impl Into<String>) -> Self {
        Self::NotFound {
            kind: "prompt",
            name: name.into(),
        }
    }

    pub(crate) fn into_mcp(self) -> ErrorData {
        let message = self.to_string();
        match self {
            Self::NotFound {
                kind: "resource",
                name,
            } => ErrorData::new(
                ErrorCode(RESOURCE_NOT_FOUND),
                message,
                Some(json!({"uri": name})),
            ),
            Self::NotFound { name, .. } => {
                ErrorData::invalid_params(message, Some(json!({"name": name})))
            }
            Self::InvalidArguments { prompt, .. } => {
                ErrorData::invalid_params(message, Some(json!({"name": prompt})))
            }
            Self::Failed(_) => ErrorData::internal_error(message, None),
        }
    }
}

/// Skills a host serves over MCP (SEP-2640, `io.modelcontextprotocol/skills`):
/// each an entry of `skills/list` — the URI of its `SKILL.md`
/// (`skill://<name>/SKILL.md`), its frontmatter as the file has it, and
/// every file of the skill with its `sha256:` digest and size. The files
/// themselves are read through the server's [`ResourceSource`]
/// ([`RegistryServer::with_resources`](crate::RegistryServer::with_resources)),
/// which must serve every URI listed here.
#[async_trait]
pub trait SkillSource: Send + Sync {
    /// Every skill, in a stable order (the server pages it).
    async fn list(&self) -> Result<Vec<rmcp::model::Skill>, SourceError>;
}

/// Resources a host serves over MCP.
#[async_trait]
pub trait ResourceSource: Send + Sync {
    /// Every resource, in a stable order (the server pages it).
    async fn list(&self) -> Result<Vec<Resource>, SourceError>;

    /// The contents of `uri` (a listed resource or one a template
    /// describes); [`SourceError::no_resource`] when there is no such
    /// resource.
    async fn read(&self, uri: &str) -> Result<Vec<ResourceContents>, SourceError>;

    /// The URI templates of resources that are read but not listed
    /// (`resources/templates/list`, paged too); none by default.
    async fn templates(&self) -> Result<Vec<ResourceTemplate>, SourceError> {
        Ok(Vec::new())
    }

    /// Values for the variable `argument` of the template `template` that
    /// start with `value` (`completion/complete`), best first; at most 100
    /// are sent. `resolved` holds the template's variables already chosen.
    /// None by default.
    async fn complete(
        &self,
        template: &str,
        argument: &str,
        value: &str,
        resolved: &Map<String, Value>,
    ) -> Result<Vec<String>, SourceError> {
        let _ = (template, argument, value, resolved);
        Ok(Vec::new())
    }
}

/// Prompts a host serves over MCP.
#[async_trait]
pub trait PromptSource: Send + Sync {
    /// Every prompt with its arguments, in a stable order (the server pages it).
    async fn list(&self) -> Result<Vec<Prompt>, SourceError>;

    /// Prompt `name` rendered with `arguments`; [`SourceError::no_prompt`]
    /// when there is no such prompt, [`SourceError::InvalidArguments`] when
    /// a required argument is missing.
    async fn get(
        &self,
        name: &str,
        arguments: &Map<String, Value>,
    ) -> Result<GetPromptResult, SourceError>;

    /// Prompt `name` rendered with `arguments`, free to ask the client
    /// through `client` (see [`ClientLine`]: on 2026-07-28 an unanswered
    /// ask ends this request with `input_required` and the prompt is
    /// rendered again with the answer). [`get`](Self::get) by default.
    async fn get_asking(
        &self,
        name: &str,
        arguments: &Map<String, Value>,
        client: &ClientLine,
        ctx: &ToolContext,
    ) -> Result<GetPromptResult, SourceError> {
        let _ = (client, ctx);
        self.get(name, arguments).await
    }

    /// Values for the argument `argument` of prompt `prompt` that start
    /// with `value` (`completion/complete`), best first; at most 100 are
    /// sent. `resolved` holds the arguments already chosen. None by default.
    async fn complete(
        &self,
        prompt: &str,
        argument: &str,
        value: &str,
        resolved: &Map<String, Value>,
    ) -> Result<Vec<String>, SourceError> {
        let _ = (prompt, argument, value, resolved);
        Ok(Vec::new())
    }
}

/// The offset a `resources/list` or `prompts/list` cursor points at (the
/// decimal offset this server handed out).
pub(crate) fn parse_offset(list: &str, cursor: &str, total: usize) -> Result<usize, ErrorData> {
    let shown: String = cursor.chars().take(64).collect();
    let invalid = |why: &str| {
        ErrorData::invalid_params(
            format!("{list} cursor `{shown}` {why}"),
            Some(json!({"cursor": shown})),
        )
    };
    let offset = cursor
        .parse::<usize>()
        .ok()
        .filter(|o| o.to_string() == cursor)
        .ok_or_else(|| invalid("is not one this server handed out"))?;
    if offset == 0 || offset >= total {
        return Err(invalid("is past the end of the list"));
    }
    Ok(offset)
}

/// Items `start..` of `all`, a page of at most `size`, and the next cursor.
pub(crate) fn page_of<T>(
    list: &str,
    all: Vec<T>,
    cursor: Option<&str>,
    size: usize,
) -> Result<(Vec<T>, Option<String>), ErrorData> {
    let total = all.len();
    let start = match cursor {
        None => 0,
        Some(cursor) => parse_offset(list, cursor, total)?,
    };
    let end = start.saturating_add(size).min(total);
    let next = (end < total).then(|| end.to_string());
    let items = all.into_iter().skip(start).take(end - start).collect();
    Ok((items, next))
}

#[cfg(test)]
mod tests {
    use super::{page_of, parse_offset};

    #[test]
    fn list_cursors_are_offsets_inside_the_list() {
        assert_eq!(parse_offset("resources/list", "3", 5).unwrap(), 3);
        for cursor in [
            "0",
            "5",
            "-1",
            "03",
            "+3",
            "x",
            "",
            "99999999999999999999999",
        ] {
            assert!(
                parse_offset("resources/list", cursor, 5).is_err(),
                "{cursor}"
            );
        }
        let (first, next) = page_of("prompts/list", vec![1, 2, 3, 4, 5], None, 2).unwrap();
        assert_eq!((first, next.as_deref()), (vec![1, 2], Some("2")));
        let (last, next) = page_of("prompts/list", vec![1, 2, 3, 4, 5], Some("4"), 2).unwrap();
        assert_eq!((last, next), (vec![5], None));
    }
}
