//! How a host assembles the crates: one registry, one context, one pipeline.

use std::path::Path;

use serde_json::Value;
use tool_core::{Invoker, ToolCall, ToolContext, ToolOutput, ToolRegistry};

use crate::{Failure, Format, builtin};

/// The reference host's state for one command.
pub struct Host {
    registry: ToolRegistry,
    ctx: ToolContext,
    invoker: Invoker,
}

impl Host {
    /// Registers the builtin tools with `cwd` as the tools' working directory.
    pub fn new(cwd: &Path) -> Result<Self, Failure> {
        let mut registry = ToolRegistry::new();
        let internal = |e: tool_core::Error| Failure::Source(format!("builtin tool: {e}"));
        registry
            .register(builtin::calculator::tool().map_err(internal)?)
            .map_err(internal)?;
        registry
            .register(builtin::clock::tool().map_err(internal)?)
            .map_err(internal)?;
        Ok(Self {
            registry,
            ctx: ToolContext::new().with_cwd(cwd),
            invoker: Invoker::default(),
        })
    }

    /// The offered tools in `format`.
    pub fn tools(&self, format: Format) -> Vec<Value> {
        let offered = self.registry.offer(&self.ctx);
        match format {
            Format::Manifest => offered
                .manifests()
                .map(|m| serde_json::to_value(m).unwrap_or(Value::Null))
                .collect(),
            Format::Openai => offered.openai_chat_tools(),
            Format::OpenaiResponses => offered.openai_responses_tools(),
            Format::Anthropic => offered.anthropic_tools(),
        }
    }

    /// Runs one call through the pipeline.
    pub async fn call(&self, name: &str, args: &str) -> ToolOutput {
        self.invoker
            .invoke_in(&self.registry, &ToolCall::new(name, args), &self.ctx)
            .await
    }
}
