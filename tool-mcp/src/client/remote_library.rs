//! Resources and prompts of connected servers, through the manager.
//!
//! A server that declares `resources` in its capabilities can be listed
//! ([`McpManager::list_resources`], [`McpManager::list_resource_templates`])
//! and read ([`McpManager::read_resource`]); one that declares `prompts`
//! can be listed ([`McpManager::list_prompts`]) and rendered
//! ([`McpManager::get_prompt`]). Lists follow every page (at most
//! [`MAX_LIST_PAGES`](crate::MAX_LIST_PAGES) pages, a repeated cursor is an
//! error). A server that does not declare the feature gets
//! [`Error::NotOffered`] without a request; the server's own refusal (an
//! unknown URI or prompt, bad arguments) is [`Error::Request`] naming the
//! server, the operation and what was asked for. These requests only read,
//! so one whose session died is sent again on a new session.

use std::collections::HashSet;
use std::future::Future;

use rmcp::ServiceError;
use rmcp::model::{
    GetPromptRequestParams, GetPromptResult, PaginatedRequestParams, Prompt,
    ReadResourceRequestParams, ReadResourceResult, Resource, ResourceTemplate, ServerCapabilities,
};
use serde_json::{Map, Value};

use crate::client::manager::{MAX_LIST_PAGES, McpManager};
use crate::client::session::Session;
use crate::error::Error;

/// Which capability a request needs.
#[derive(Clone, Copy)]
enum Feature {
    Resources,
    Prompts,
}

impl Feature {
    fn name(self) -> &'static str {
        match self {
            Self::Resources => "resources",
            Self::Prompts => "prompts",
        }
    }

    fn declared(self, capabilities: &ServerCapabilities) -> bool {
        match self {
            Self::Resources => capabilities.resources.is_some(),
            Self::Prompts => capabilities.prompts.is_some(),
        }
    }
}

fn offers(session: &Session, feature: Feature) -> bool {
    session
        .peer()
        .peer_info()
        .is_some_and(|info| feature.declared(&info.capabilities))
}

/// Every page of a list, guarded against servers whose list never ends.
pub(crate) async fn every_page<T, F, Fut>(
    operation: &str,
    mut page: F,
) -> Result<Vec<T>, ServiceError>
where
    F: FnMut(Option<PaginatedRequestParams>) -> Fut,
    Fut: Future<Output = Result<(Vec<T>, Option<String>), ServiceError>>,
{
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    let mut seen = HashSet::new();
    for number in 1..=MAX_LIST_PAGES {
        let params = cursor.take().map(|c| {
            let mut params = PaginatedRequestParams::default();
            params.cursor = Some(c);
            params
        });
        let (more, next) = page(params).await?;
        items.extend(more);
        match next {
            Some(next) if !next.is_empty() => {
                if !seen.insert(next.clone()) {
                    return Err(ServiceError::McpError(rmcp::ErrorData::internal_error(
                        format!(
                            "{operation} repeated cursor `{next}` (page {number}); the list never ends"
                        ),
                        None,
                    )));
                }
                cursor = Some(next);
            }
            _ => return Ok(items),
        }
    }
    Err(ServiceError::McpError(rmcp::ErrorData::internal_error(
        format!("{operation} had more than {MAX_LIST_PAGES} pages"),
        None,
    )))
}

impl McpManager {
    /// Runs `op` on `id`'s session if the server declared `feature`.
    async fn if_offered<T, F, Fut>(
        &self,
        id: &str,
        operation: &str,
        feature: Feature,
        op: F,
    ) -> Result<T, Error>
    where
        F: Fn(std::sync::Arc<Session>) -> Fut,
        Fut: Future<Output = Result<T, ServiceError>>,
    {
        let answer = self
            .idempotent(id, operation, |session| {
                let offered = offers(&session, feature);
                let run = offered.then(|| op(session));
                async move {
                    match run {
                        Some(run) => run.await.map(Some),
                        None => Ok(None),
                    }
                }
            })
            .await?;
        answer.ok_or_else(|| Error::NotOffered {
            server: id.to_owned(),
            feature: feature.name().to_owned(),
        })
    }

    /// Every resource `id` lists (`resources/list`, all pages).
    pub async fn list_resources(&self, id: &str) -> Result<Vec<Resource>, Error> {
        self.if_offered(
            id,
            "resources/list",
            Feature::Resources,
            |session| async move {
                every_page("resources/list", |params| {
                    let session = &session;
                    async move {
                        let page = session.peer().list_resources(params).await?;
                        Ok((page.resources, page.next_cursor))
                    }
                })
                .await
            },
        )
        .await
    }

    /// Every resource template `id` lists (`resources/templates/list`, all pages).
    pub async fn list_resource_templates(&self, id: &str) -> Result<Vec<ResourceTemplate>, Error> {
        let operation = "resources/templates/list";
        self.if_offered(id, operation, Feature::Resources, |session| async move {
            every_page(operation, |params| {
                let session = &session;
                async move {
                    let page = session.peer().list_resource_templates(params).await?;
                    Ok((page.resource_templates, page.next_cursor))
                }
            })
            .await
        })
        .await
    }

    /// The contents of resource `uri` on `id` (`resources/read`): text or
    /// base64 blobs, each with its URI and MIME type as the server gave them.
    pub async fn read_resource(&self, id: &str, uri: &str) -> Result<ReadResourceResult, Error> {
        let operation = format!("resources/read of `{uri}`");
        self.if_offered(id, &operation, Feature::Resources, |session| async move {
            session
                .peer()
                .read_resource(ReadResourceRequestParams::new(uri))
                .await
        })
        .await
    }

    /// Every prompt `id` lists (`prompts/list`, all pages), with its arguments.
    pub async fn list_prompts(&self, id: &str) -> Result<Vec<Prompt>, Error> {
        self.if_offered(id, "prompts/list", Feature::Prompts, |session| async move {
            every_page("prompts/list", |params| {
                let session = &session;
                async move {
                    let page = session.peer().list_prompts(params).await?;
                    Ok((page.prompts, page.next_cursor))
                }
            })
            .await
        })
        .await
    }

    /// Prompt `name` of `id` rendered with `arguments` (`prompts/get`):
    /// its messages, each a role and a content block.
    pub async fn get_prompt(
        &self,
        id: &str,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<GetPromptResult, Error> {
        let operation = format!("prompts/get of `{name}`");
        self.if_offered(id, &operation, Feature::Prompts, |session| {
            let mut params = GetPromptRequestParams::new(name);
            if !arguments.is_empty() {
                params = params.with_arguments(arguments.clone());
            }
            async move { session.peer().get_prompt(params).await }
        })
        .await
    }
}
