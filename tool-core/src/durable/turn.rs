//! What a durable batch or a resume returns, and what the host sends the
//! model once every call of the batch has its result.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::durable::pending::{Intervention, Pending};
use crate::error::Error;
use crate::invoke::ToolCall;
use crate::output::ToolOutput;
use crate::provider::{ProviderFormat, ResultOptions};

/// An answer [`Invoker::resume`](crate::Invoker::resume) refused: it
/// settled nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RefusedAnswer {
    /// The call the answer said it was for.
    pub call_id: String,
    /// Why it was refused (a MAC that does not verify, another turn's or
    /// another call's answer, a second answer for one call…).
    pub reason: String,
}

/// A batch as far as it got: every call (ids filled in), the output of
/// each that settled, the [`Pending`] turn for the rest.
///
/// # What to send the model
///
/// While a turn is pending the conversation holds the assistant's tool
/// calls without results, and providers reject a next request that
/// answers only some of them. So nothing is sent until
/// [`is_settled`](Self::is_settled); then [`tool_results`](Self::tool_results)
/// builds every result of the batch together, in the original order,
/// blocked, declined and stale ones included:
///
/// - OpenAI Chat: one `tool` message per call, right after the assistant
///   message that made the calls;
/// - OpenAI Responses: one `function_call_output` item per call, as the
///   next request's input (with `previous_response_id`, or after the
///   `function_call` items);
/// - Anthropic: one `user` message holding every `tool_result` block.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// Every call of the batch, in order, ids filled in.
    pub calls: Vec<ToolCall>,
    /// The output of each call that settled; `None` for those pending.
    pub outputs: Vec<Option<ToolOutput>>,
    /// What still waits, to store; `None` once everything settled.
    pub pending: Option<Pending>,
    /// Per call, LobeHub's intervention state after this step: `pending`
    /// for waiting calls, `approved` / `rejected` for those settled by this
    /// step's answers, `None` for calls that needed no one.
    pub interventions: Vec<Option<Intervention>>,
    /// Answers that were refused (they settled nothing), and approvals
    /// that ran once but whose "always" could not be recorded.
    pub refused: Vec<RefusedAnswer>,
}

impl Turn {
    /// Whether every call has its output.
    pub fn is_settled(&self) -> bool {
        self.outputs.iter().all(Option::is_some)
    }

    /// Every output in order, once all settled.
    pub fn settled_outputs(&self) -> Option<Vec<ToolOutput>> {
        self.outputs.iter().cloned().collect()
    }

    /// The messages or items that carry the whole batch's results back to
    /// the model (see the type's docs). Fails while a call is pending,
    /// naming it.
    pub fn tool_results(&self, format: ProviderFormat) -> Result<Vec<Value>, Error> {
        self.tool_results_with(format, ResultOptions::default())
    }

    /// [`tool_results`](Self::tool_results) with options.
    pub fn tool_results_with(
        &self,
        format: ProviderFormat,
        options: ResultOptions,
    ) -> Result<Vec<Value>, Error> {
        let outputs = match self.settled_outputs() {
            Some(outputs) => outputs,
            None => {
                let index = self.outputs.iter().position(Option::is_none).unwrap_or(0);
                return Err(Error::ProviderMessage {
                    format: format.as_str().to_owned(),
                    pointer: format!("/outputs/{index}"),
                    message: format!(
                        "call `{}` is still pending: send results only once every call of the batch has one",
                        self.calls
                            .get(index)
                            .and_then(|c| c.id.as_deref())
                            .unwrap_or_default()
                    ),
                });
            }
        };
        format.tool_results_with(&self.calls, &outputs, options)
    }
}
