//! Synthetic calls: a user's own action (a file attached to a message, a
//! folder opened in the UI) recorded as if the model had called the tool,
//! so the model sees the same shape whichever of them did it.

use serde_json::{Value, json};

use crate::context::ToolContext;
use crate::error::Error;
use crate::invoke::{Invoker, ToolCall, mint_call_id};
use crate::offered::OfferedTools;
use crate::output::ToolOutput;
use crate::provider::ProviderFormat;

/// A call the host made on the user's behalf, with the output the real tool
/// produced: append [`messages`](Self::messages) to the conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntheticCall {
    /// The call, with a locally made id (`call_…`) and the canonical wire name.
    pub call: ToolCall,
    /// What the tool produced.
    pub output: ToolOutput,
}

impl SyntheticCall {
    /// The assistant turn holding the call, then the result messages, in
    /// `format`'s shapes (the same [`ProviderFormat::tool_results`] a real
    /// call gets).
    pub fn messages(&self, format: ProviderFormat) -> Result<Vec<Value>, Error> {
        let calls = std::slice::from_ref(&self.call);
        let mut messages = format.assistant_calls(calls)?;
        messages.extend(format.tool_results(calls, std::slice::from_ref(&self.output))?);
        Ok(messages)
    }
}

impl Invoker {
    /// Runs `name` with `arguments` for the user's own action and records it
    /// as a [`SyntheticCall`]: parsed, validated and executed by the same
    /// pipeline as a model's call (same content, same state, same caps).
    ///
    /// The gate is not consulted: the person did this themselves. A call the
    /// pipeline refuses (unknown name, bad arguments) is recorded with its
    /// refusal, as a model's would be.
    ///
    /// ```
    /// use tool_core::{ApiDefinition, Invoker, ProviderFormat, ToolBuilder, ToolContext, ToolOutput, ToolRegistry};
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let mut registry = ToolRegistry::new();
    /// registry.register(ToolBuilder::new("files")
    ///     .api(ApiDefinition::new("read", "Reads a file."), |_, _| async { Ok(ToolOutput::text("hello")) })
    ///     .build()?)?;
    /// let ctx = ToolContext::new();
    /// let offered = registry.offer(&ctx);
    /// let attached = Invoker::default()
    ///     .synthesize(&offered, "files____read", serde_json::json!({"path": "a.txt"}), &ctx)
    ///     .await;
    /// let messages = attached.messages(ProviderFormat::OpenAiChat)?;
    /// assert_eq!(messages[0]["tool_calls"][0]["function"]["name"], "files____read");
    /// assert_eq!(messages[1]["content"], "hello");
    /// assert_eq!(messages[1]["tool_call_id"], messages[0]["tool_calls"][0]["id"]);
    /// # Ok::<(), tool_core::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn synthesize(
        &self,
        offered: &OfferedTools,
        name: &str,
        arguments: Value,
        ctx: &ToolContext,
    ) -> SyntheticCall {
        let wire = offered
            .resolve(name)
            .map_or_else(|_| name.to_owned(), |r| r.wire_name.to_owned());
        let call = ToolCall::new(wire, arguments.to_string()).with_id(mint_call_id());
        let output = match self.prepare(offered, &call) {
            Ok(prepared) => self.execute(prepared, ctx).await,
            Err(refused) => crate::invoke::cap_content(refused, self.config().max_content_chars),
        };
        SyntheticCall { call, output }
    }
}

impl ProviderFormat {
    /// The assistant turn that makes `calls`, in this format's shape: an
    /// OpenAI Chat assistant message with `tool_calls`, the Responses
    /// `function_call` items, an Anthropic assistant message of `tool_use`
    /// blocks. Fails when a call has no id, or (Anthropic, which takes an
    /// object) when its arguments are not a JSON object.
    pub fn assistant_calls(self, calls: &[ToolCall]) -> Result<Vec<Value>, Error> {
        let mut ids = Vec::with_capacity(calls.len());
        for (index, call) in calls.iter().enumerate() {
            match call.id.as_deref().filter(|id| !id.is_empty()) {
                Some(id) => ids.push(id),
                None => {
                    return Err(self.problem(
                        &format!("/{index}/id"),
                        "a call needs an id (use ToolCall::ensure_id)".into(),
                    ));
                }
            }
        }
        let arguments = |call: &ToolCall| {
            if call.arguments.trim().is_empty() {
                "{}".to_owned()
            } else {
                call.arguments.clone()
            }
        };
        Ok(match self {
            Self::OpenAiChat => vec![json!({
                "role": "assistant",
                "content": null,
                "tool_calls": calls.iter().zip(&ids).map(|(call, id)| json!({
                    "id": id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": arguments(call)},
                })).collect::<Vec<_>>(),
            })],
            Self::OpenAiResponses => calls
                .iter()
                .zip(&ids)
                .map(|(call, id)| {
                    json!({
                        "type": "function_call",
                        "call_id": id,
                        "name": call.name,
                        "arguments": arguments(call),
                    })
                })
                .collect(),
            Self::Anthropic => {
                let mut blocks = Vec::with_capacity(calls.len());
                for (index, (call, id)) in calls.iter().zip(&ids).enumerate() {
                    let input: Value = serde_json::from_str(&arguments(call)).map_err(|e| {
                        self.problem(
                            &format!("/{index}/arguments"),
                            format!("arguments are not JSON: {e}"),
                        )
                    })?;
                    if !input.is_object() {
                        return Err(self.problem(
                            &format!("/{index}/arguments"),
                            "tool_use input must be a JSON object".into(),
                        ));
                    }
                    blocks.push(
                        json!({"type": "tool_use", "id": id, "name": call.name, "input": input}),
                    );
                }
                vec![json!({"role": "assistant", "content": blocks})]
            }
        })
    }
}
