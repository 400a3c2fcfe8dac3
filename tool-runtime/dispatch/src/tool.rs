//! A tool whose every call is dispatched: how a client-side tool takes part
//! in the server's invocation pipeline.

use async_trait::async_trait;
use serde_json::Value;
use tokio::time::Instant;
use tool_core::{InvokeConfig, Tool, ToolContext, ToolError, ToolManifest, ToolOutput};

use super::dispatcher::{DispatchCall, Dispatcher};

/// A [`Tool`] that runs nowhere here: each call goes through a
/// [`Dispatcher`] to the executor that has the tool, and its one result
/// comes back as the call's output.
///
/// The wait ends at the deadline the [`Invoker`](tool_core::Invoker) put on
/// the call's context (its resolved timeout, bounded by the host's turn
/// deadline); the call id and the cancellation token come from the context
/// too. Outside the Invoker (no deadline on the context) the budget is
/// resolved the Invoker's way from [`InvokeConfig`] (default unless set
/// with [`invoke_config`](Self::invoke_config)).
///
/// Register it instead of the real tool when [`route`](super::route) says
/// `Client`; the manifest is the tool's own, so the model sees the same
/// schema either way.
#[derive(Debug, Clone)]
pub struct DispatchedTool {
    manifest: ToolManifest,
    dispatcher: Dispatcher,
    config: InvokeConfig,
}

impl DispatchedTool {
    /// Dispatches every call of the tool described by `manifest`.
    pub fn new(manifest: ToolManifest, dispatcher: Dispatcher) -> Self {
        Self {
            manifest,
            dispatcher,
            config: InvokeConfig::default(),
        }
    }

    /// The pipeline settings used to resolve a budget when the context
    /// carries no deadline.
    pub fn invoke_config(mut self, config: InvokeConfig) -> Self {
        self.config = config;
        self
    }
}

#[async_trait]
impl Tool for DispatchedTool {
    fn manifest(&self) -> &ToolManifest {
        &self.manifest
    }

    async fn call(
        &self,
        api: &str,
        args: Value,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let deadline = ctx.deadline().unwrap_or_else(|| {
            let budget = match self.manifest.api(api) {
                Some(definition) => self.config.resolve_timeout(definition, &args),
                None => std::time::Duration::from_millis(self.config.default_timeout_ms),
            };
            Instant::now() + budget
        });
        let mut call = DispatchCall::new(&self.manifest.identifier, api, args.to_string());
        if let Some(id) = ctx.call_id() {
            call = call.with_tool_call_id(id);
        }
        Ok(self
            .dispatcher
            .dispatch_until(call, deadline, ctx.cancellation())
            .await)
    }
}
