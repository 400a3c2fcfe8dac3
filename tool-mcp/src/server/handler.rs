//! The MCP methods a [`RegistryServer`] answers (rmcp's
//! [`ServerHandler`]): discovery and capabilities, tools, tasks,
//! resources, prompts, completion, logging levels and list-change
//! subscriptions.

use std::sync::PoisonError;

#[allow(deprecated)]
// MCP logging: deprecated by rmcp for a later revision, current in 2025-11-25.
use rmcp::model::{
    ArgumentInfo, CallToolRequestParams, CallToolResponse, CompleteRequestMethod,
    CompleteRequestParams, CompleteResult, CompletionInfo, GetPromptRequestMethod,
    GetPromptRequestParams, GetPromptResponse, Implementation, ListPromptsRequestMethod,
    ListPromptsResult, ListResourceTemplatesRequestMethod, ListResourceTemplatesResult,
    ListResourcesRequestMethod, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    PromptsCapability, ReadResourceRequestMethod, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, Reference, ResourcesCapability, ServerCapabilities, ServerConfig,
    SetLevelRequestParams, SubscriptionFilter,
};
use rmcp::model::{
    CancelTaskParams, GetTaskParams, GetTaskResult, TASKS_EXTENSION_ID, UpdateTaskParams,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Map, Value};
use tracing::Instrument;

use super::call::Bound;
use super::client_input::{Raced, binding};
use super::serve::{RegistryServer, Source};
use super::serve_tasks::{self, call_as_task};
use super::served::{SourceError, page_of};
use crate::trace::{record_response, server_span};
impl ServerHandler for RegistryServer {
    #[allow(deprecated)] // `logging`: see the import.
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = match self.inner.registry {
            Source::Fixed(_) => ServerCapabilities::builder()
                .enable_logging()
                .enable_tools()
                .build(),
            Source::Live(_) => ServerCapabilities::builder()
                .enable_logging()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        };
        if self.inner.resources.is_some() {
            capabilities.resources = Some(ResourcesCapability::default());
        }
        if self.inner.prompts.is_some() {
            capabilities.prompts = Some(PromptsCapability::default());
        }
        if self.inner.prompts.is_some() || self.inner.resources.is_some() {
            capabilities.completions = Some(Map::new());
        }
        if self.inner.skills.is_some() && self.inner.resources.is_some() {
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .insert(rmcp::model::SKILLS_EXTENSION_ID.to_owned(), Map::new());
        }
        if self.inner.tasks.offered() {
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .insert(TASKS_EXTENSION_ID.to_owned(), Map::new());
        }
        ServerConfig::new(capabilities).with_server_info(Implementation::new(
            self.inner.name.clone(),
            env!("CARGO_PKG_VERSION"),
        ))
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.inner.live_peers().push(context.peer);
    }

    fn accepted_subscription_filter(
        &self,
        _requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        // Only tool list changes are ever sent (a live registry's); rmcp
        // keeps what was both asked for and declared.
        Some(SubscriptionFilter::builder().tools_list_changed().build())
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let sink = context.sink().clone();
        let id = sink.id().clone();
        self.inner
            .listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(sink);
        context.cancelled().await;
        self.inner
            .listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|s| *s.id() != id);
        Ok(())
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut page = self.page(request.as_ref().and_then(|r| r.cursor.as_deref()))?;
        if serve_tasks::stateless(&context) {
            self.list_cache_hints(&mut page);
        }
        Ok(page)
    }

    #[allow(deprecated)] // `logging/setLevel`: see the import.
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.log.set(request.level);
        Ok(())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let (span, own) = server_span(&*self.inner.propagator, &request.name, &context);
        let server = self.clone();
        let run = move |request, context, task| async move {
            server.run_call(request, context, Some(task)).await
        };
        if let Some(response) = call_as_task(&self.inner.tasks, &request, &context, run) {
            record_response(&span, &response);
            return response;
        }
        let call = self.run_call(request, context, None);
        let recorded = span.clone();
        async move {
            let response = match own {
                Some(own) => own.scope(call).await,
                None => call.await,
            };
            record_response(&recorded, &response);
            response
        }
        .instrument(span)
        .await
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        serve_tasks::get(&self.inner.tasks, &request)
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        serve_tasks::update(&self.inner.tasks, request)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        serve_tasks::cancel(&self.inner.tasks, &request)
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let Some(source) = &self.inner.resources else {
            return Err(ErrorData::method_not_found::<ListResourcesRequestMethod>());
        };
        let all = source.list().await.map_err(SourceError::into_mcp)?;
        let cursor = request.as_ref().and_then(|r| r.cursor.as_deref());
        let (items, next) = page_of("resources/list", all, cursor, self.inner.page_size)?;
        let mut result = ListResourcesResult::with_all_items(items);
        result.next_cursor = next;
        Ok(result)
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let Some(source) = &self.inner.resources else {
            return Err(ErrorData::method_not_found::<
                ListResourceTemplatesRequestMethod,
            >());
        };
        let all = source.templates().await.map_err(SourceError::into_mcp)?;
        let cursor = request.as_ref().and_then(|r| r.cursor.as_deref());
        let (items, next) = page_of(
            "resources/templates/list",
            all,
            cursor,
            self.inner.page_size,
        )?;
        let mut result = ListResourceTemplatesResult::with_all_items(items);
        result.next_cursor = next;
        Ok(result)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let Some(source) = &self.inner.resources else {
            return Err(ErrorData::method_not_found::<ReadResourceRequestMethod>());
        };
        let contents = source
            .read(&request.uri)
            .await
            .map_err(SourceError::into_mcp)?;
        Ok(ReadResourceResult::new(contents).into())
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListSkillsResult, ErrorData> {
        let Some(source) = &self.inner.skills else {
            return Err(ErrorData::method_not_found::<
                rmcp::model::ListSkillsRequestMethod,
            >());
        };
        let all = source.list().await.map_err(SourceError::into_mcp)?;
        let cursor = request.as_ref().and_then(|r| r.cursor.as_deref());
        let (items, next) = page_of("skills/list", all, cursor, self.inner.page_size)?;
        let mut result = rmcp::model::ListSkillsResult::with_all_items(items);
        result.next_cursor = next;
        Ok(result)
    }

    async fn get_skill(
        &self,
        request: rmcp::model::GetSkillRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetSkillResult, ErrorData> {
        let Some(source) = &self.inner.skills else {
            return Err(ErrorData::method_not_found::<
                rmcp::model::GetSkillRequestMethod,
            >());
        };
        let all = source.list().await.map_err(SourceError::into_mcp)?;
        let skill = all
            .into_iter()
            .find(|s| s.uri == request.uri)
            .ok_or_else(|| {
                ErrorData::invalid_params(
                    format!("no skill is served at {}", request.uri),
                    Some(serde_json::json!({"uri": request.uri})),
                )
            })?;
        Ok(rmcp::model::GetSkillResult::new(skill))
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let Some(source) = &self.inner.prompts else {
            return Err(ErrorData::method_not_found::<ListPromptsRequestMethod>());
        };
        let all = source.list().await.map_err(SourceError::into_mcp)?;
        let cursor = request.as_ref().and_then(|r| r.cursor.as_deref());
        let (items, next) = page_of("prompts/list", all, cursor, self.inner.page_size)?;
        let mut result = ListPromptsResult::with_all_items(items);
        result.next_cursor = next;
        Ok(result)
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let Some(source) = &self.inner.prompts else {
            return Err(ErrorData::method_not_found::<GetPromptRequestMethod>());
        };
        let bound = Bound {
            binding: binding("prompts/get", &request.name, request.arguments.as_ref()),
            state: request.request_state.as_deref(),
            responses: request.input_responses.clone(),
        };
        let (line, round) = self.line_for(&context, &bound, None)?;
        let ctx = self
            .inner
            .ctx
            .clone()
            .with_cancellation(context.ct.child_token())
            .with_extension(line.clone());
        let arguments = request.arguments.clone().unwrap_or_default();
        let rendered = source.get_asking(&request.name, &arguments, &line, &ctx);
        let result = match &round {
            None => rendered.await,
            Some(round) => match round.race(&self.inner.seal, &bound.binding, rendered).await {
                Raced::Done(result) => result,
                Raced::Stopped(stopped) => return stopped.map(GetPromptResponse::InputRequired),
            },
        };
        result.map(Into::into).map_err(SourceError::into_mcp)
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let resolved: Map<String, Value> = request
            .context
            .and_then(|c| c.arguments)
            .map(|chosen| {
                chosen
                    .into_iter()
                    .map(|(name, value)| (name, Value::String(value)))
                    .collect()
            })
            .unwrap_or_default();
        let ArgumentInfo { name, value, .. } = &request.argument;
        let values = match &request.r#ref {
            Reference::Prompt(prompt) => match &self.inner.prompts {
                Some(source) => source.complete(&prompt.name, name, value, &resolved).await,
                None => return Err(ErrorData::method_not_found::<CompleteRequestMethod>()),
            },
            Reference::Resource(template) => match &self.inner.resources {
                Some(source) => source.complete(&template.uri, name, value, &resolved).await,
                None => return Err(ErrorData::method_not_found::<CompleteRequestMethod>()),
            },
            _ => {
                return Err(ErrorData::invalid_params(
                    "completion/complete: only prompt and resource template references are completed",
                    None,
                ));
            }
        };
        let mut values = values.map_err(SourceError::into_mcp)?;
        let total = values.len();
        values.truncate(CompletionInfo::MAX_VALUES);
        let total_sent = u32::try_from(total).ok();
        let completion =
            CompletionInfo::with_pagination(values, total_sent, total > CompletionInfo::MAX_VALUES)
                .map_err(|e| ErrorData::internal_error(e, None))?;
        Ok(CompleteResult::new(completion))
    }
}
