//! Managed tools: one [`Tool`] per server, one API per remote tool.

use std::collections::HashSet;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Map, Value, json};
use tool_core::{
    ApiDefinition, ErrorCode, HumanIntervention, Tool, ToolContext, ToolError, ToolManifest,
    ToolOutput,
    export::wire_name,
    manifest::{NameRules, validate_manifest_with},
};

use crate::client::catalog::{McpCatalog, McpCatalogTool};
use crate::client::config::McpServerConfig;
use crate::client::manager::McpManager;
use crate::client::policy::effective_policy;
use crate::client::remote_pending::{pending_request, resumed};
use crate::client::remote_rounds::Rounds;
use crate::content::map_call_result;
use crate::error::Error;

/// The manifest `type` of managed MCP tools.
pub const MCP_TOOL_KIND: &str = tool_core::ToolKind::Mcp.as_str();

/// A server's tools as one runtime tool: identifier = the server id, one
/// API per remote tool (remote names kept as they are, under
/// [`NameRules::Foreign`]; the registry's wire names make them
/// provider-safe). Calls go through the shared [`McpManager`] session; a
/// call to a remote tool the server's current catalog no longer lists (it
/// sent `notifications/tools/list_changed`) fails with `mcp_tool_removed`
/// without reaching the server.
///
/// A 2026-07-28 server's questions during a call (`input_required`) are
/// answered by the manager's [`ElicitationHandler`](crate::ElicitationHandler),
/// else, with [`ManagerOptions::pending_questions`](crate::ManagerOptions::pending_questions),
/// by the call's asker ([`ToolContext::elicit`]); when nobody here can
/// answer, the call's output is [`ToolOutput::input_required`]: a durable
/// turn ([`Invoker::invoke_turn`](tool_core::Invoker::invoke_turn)) keeps it
/// pending, bound to the exact call and MAC'd with the server's request
/// state, and [`Invoker::resume`](tool_core::Invoker::resume) in any
/// process calls the server again, once, with the answers and that state.
/// The reply's content is the answer to the one question, or an array of
/// answers in the questions' order.
pub struct McpTool {
    manifest: ToolManifest,
    server: String,
    manager: Arc<McpManager>,
}

impl std::fmt::Debug for McpTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpTool")
            .field("server", &self.server)
            .field("apis", &self.manifest.api.len())
            .finish_non_exhaustive()
    }
}

impl McpTool {
    /// Builds the tool from a catalog; `only` keeps one remote tool.
    /// Remote tools that do not make a valid API (a name or a schema the
    /// registry rejects, a name the server lists twice, a name whose
    /// provider-safe form is an earlier tool's) are left out and returned
    /// as errors, one each; the server's other tools stay. Linear in the
    /// number of remote tools.
    pub fn from_catalog(
        manager: Arc<McpManager>,
        config: &McpServerConfig,
        catalog: &McpCatalog,
        only: Option<&str>,
    ) -> (Self, Vec<tool_core::Error>) {
        let mut manifest = ToolManifest::new(config.id.clone());
        manifest.kind = Some(tool_core::ToolKind::Mcp);
        manifest.meta.title = config.name.clone().or_else(|| catalog.server_name.clone());
        manifest.meta.description = Some(format!(
            "Tools of the MCP server `{}`.",
            config.name.as_deref().unwrap_or(&config.id)
        ));
        manifest.system_role = catalog.instructions.clone();
        let mut problems = Vec::new();
        // Each remote tool is checked alone, in a manifest that holds only
        // it (moved in and out, never copied), so loading is linear in the
        // number of tools; names are kept unique by hand, as are their wire
        // names, so the registry never refuses the whole server for one of them.
        let mut probe = manifest.clone();
        let mut names = HashSet::with_capacity(catalog.tools.len());
        let mut wire_names = HashSet::with_capacity(catalog.tools.len());
        for (index, remote) in catalog.tools.iter().enumerate() {
            if only.is_some_and(|name| name != remote.name) {
                continue;
            }
            let skipped = |message: String| tool_core::Error::InvalidManifest {
                tool: config.id.clone(),
                api: Some(remote.name.clone()),
                field: format!("/tools/{index}/name"),
                message,
            };
            if !names.insert(remote.name.as_str()) {
                problems.push(skipped(
                    "the server lists this name twice; the first one is kept".into(),
                ));
                continue;
            }
            if NameRules::Foreign.accepts(&remote.name)
                && !wire_names.insert(wire_name(&config.id, &remote.name))
            {
                problems.push(skipped(format!(
                    "its provider-safe name `{}` is that of an earlier tool; the first one is kept",
                    wire_name(&config.id, &remote.name)
                )));
                continue;
            }
            let api = api_of(config, remote);
            probe.api.push(api);
            let checked = validate_manifest_with(&probe, NameRules::Foreign);
            let Some(api) = probe.api.pop() else {
                continue;
            };
            match checked {
                Ok(_) => manifest.api.push(api),
                Err(error) => problems.push(error),
            }
        }
        (
            Self {
                manifest,
                server: config.id.clone(),
                manager,
            },
            problems,
        )
    }

    /// The server id.
    pub fn server(&self) -> &str {
        &self.server
    }

    fn error(&self, api: &str, error: &Error) -> ToolError {
        ToolError::new(ErrorCode::new(error.code()), error.to_string())
            .with_details(json!({"server": self.server, "tool": api}))
    }
}

#[async_trait]
impl Tool for McpTool {
    fn manifest(&self) -> &ToolManifest {
        &self.manifest
    }

    /// A remote server names its tools: the registry takes them under the
    /// foreign rules without the host having to know.
    fn name_rules(&self) -> tool_core::manifest::NameRules {
        tool_core::manifest::NameRules::Foreign
    }

    async fn call(
        &self,
        api: &str,
        args: Value,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        self.manifest.require_api(api)?;
        let arguments = match args {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => {
                return Err(ToolError::new(
                    ErrorCode::INVALID_ARGUMENTS,
                    format!("MCP tools take an object of arguments, got {other}"),
                ));
            }
        };
        // This tool may come from a snapshot taken before the server changed
        // its list: the current catalog (cached; listed again after a
        // `tools/list_changed`) says whether the remote tool still exists.
        let catalog = self
            .manager
            .catalog(&self.server)
            .await
            .map_err(|error| self.error(api, &error))?;
        if catalog.tool(api).is_none() {
            return Err(self.error(
                api,
                &Error::ToolRemoved {
                    server: self.server.clone(),
                    tool: api.to_owned(),
                },
            ));
        }
        // The pipeline drops this future on timeout or cancellation; rmcp then
        // sends the server `notifications/cancelled` for the request.
        // The server's progress and log lines go to this call's context, so
        // the host's events (a progress bar) see a remote call like a local one.
        let events = Arc::new(ToContext(ctx.clone()));
        // The resume of a call whose questions waited: its answers and the
        // server's state go with it (see `ManagerOptions::pending_questions`).
        let resumed = ctx
            .input_response()
            .map(|response| resumed(&self.server, api, response))
            .transpose()
            .map_err(|error| self.error(api, &error))?;
        match self
            .manager
            .call_tool_in_turn(&self.server, api, arguments, events, resumed, ctx)
            .await
        {
            Ok(Rounds::Done(result)) => Ok(map_call_result(&self.server, api, result)),
            Ok(Rounds::Asked(asked)) => pending_request(&self.server, api, asked)
                .map(ToolOutput::input_required)
                .map_err(|error| self.error(api, &error)),
            Err(error) => Err(self.error(api, &error)),
        }
    }
}

/// The API a remote tool makes: its description (or title), its schema with
/// `"type": "object"` added when missing, its approval policy, and what the
/// server states beside them, kept as sent: the annotations' hints, the
/// output schema, `execution.taskSupport` and `_meta`.
fn api_of(config: &McpServerConfig, remote: &McpCatalogTool) -> ApiDefinition {
    let description = remote
        .description
        .clone()
        .or_else(|| remote.title.clone())
        .unwrap_or_default();
    let mut parameters = remote.input_schema.clone();
    if let Value::Object(schema) = &mut parameters
        && !schema.contains_key("type")
    {
        schema.insert("type".into(), json!("object"));
    }
    let mut api = ApiDefinition::new(remote.name.clone(), description)
        .with_parameters(parameters)
        .with_intervention(HumanIntervention::Policy(effective_policy(
            remote,
            config.approval.as_ref(),
        )));
    if let Some(ms) = config.call_timeout_ms {
        api = api.with_default_timeout_ms(ms);
    }
    api = api.with_hints(remote.hints());
    if let Some(support) = remote.task_support() {
        api = api.with_task_support(support);
    }
    if let Some(schema @ Value::Object(_)) = &remote.output_schema {
        api = api.with_output_schema(schema.clone());
    }
    if let Some(Value::Object(meta)) = &remote.meta {
        api.meta = Some(meta.clone());
    }
    api
}

/// A remote call's progress and log lines, reported through the calling
/// tool's context.
struct ToContext(ToolContext);

impl tool_core::CallEvents for ToContext {
    fn progress(&self, _call_id: Option<&str>, progress: &tool_core::Progress) {
        self.0.progress(progress.clone());
    }

    fn log(
        &self,
        _call_id: Option<&str>,
        level: tool_core::LogLevel,
        message: &str,
        data: Option<&Value>,
    ) {
        self.0.log_with_data(level, message, data);
    }
}
