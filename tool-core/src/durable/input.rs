//! Tools that answer "input required" instead of waiting for a person.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::context::ToolContext;
use crate::durable::pending::InputAction;
use crate::output::{ErrorCode, ToolError, ToolOutput};
use crate::talk::Elicitation;

/// The content of an `input_required` output (the model sees it only when
/// the host does not keep the turn pending).
pub const INPUT_REQUIRED_CONTENT: &str =
    "The tool needs answers to its questions before it can finish; it did not finish.";

/// What a tool asks instead of waiting: its questions, and an opaque state
/// it gives itself to carry on from when it is called again with the
/// answers ([`ToolContext::input_response`]).
///
/// This is MCP's multi-round-trip request (`input_required` with a request
/// state) inside the pipeline. Tools that prefer to wait keep
/// [`ToolContext::elicit`] with an in-process asker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputRequest {
    /// The questions, each with the schema of its answer.
    pub questions: Vec<Elicitation>,
    /// The tool's own state (MAC'd with the pending item: a client cannot
    /// alter it).
    #[serde(default)]
    pub state: Value,
}

impl InputRequest {
    /// One question, with the tool's state.
    pub fn new(question: Elicitation, state: Value) -> Self {
        Self {
            questions: vec![question],
            state,
        }
    }

    /// Reads the request back from an output made by
    /// [`ToolOutput::input_required`]; `None` for any other output.
    pub fn from_output(output: &ToolOutput) -> Option<Self> {
        if output.error_code() != Some(&ErrorCode::INPUT_REQUIRED) {
            return None;
        }
        let state = output.state.as_ref()?;
        if state.get("type").and_then(Value::as_str) != Some("input_required") {
            return None;
        }
        serde_json::from_value(state.get("request")?.clone()).ok()
    }
}

impl ToolOutput {
    /// The output of a tool that asks questions before it can finish: error
    /// code `input_required`, state `{"type": "input_required", "request":
    /// {questions, state}}`. A durable turn
    /// ([`Invoker::invoke_turn`](crate::Invoker::invoke_turn)) keeps the
    /// call pending and calls the tool again with the answers on resume.
    ///
    /// ```
    /// use tool_core::{Elicitation, ToolOutput};
    /// use tool_core::durable::InputRequest;
    /// let question = Elicitation::new("Which branch?", serde_json::json!({"type": "object"}));
    /// let out = ToolOutput::input_required(InputRequest::new(question, serde_json::json!({"step": 2})));
    /// assert_eq!(out.error_code().unwrap(), "input_required");
    /// assert_eq!(InputRequest::from_output(&out).unwrap().state["step"], 2);
    /// ```
    pub fn input_required(request: InputRequest) -> Self {
        let message = request
            .questions
            .iter()
            .map(|q| q.message.as_str())
            .collect::<Vec<_>>()
            .join(" / ");
        Self {
            content: INPUT_REQUIRED_CONTENT.to_owned(),
            state: Some(json!({ "type": "input_required", "request": request })),
            success: false,
            error: Some(ToolError::new(ErrorCode::INPUT_REQUIRED, message)),
        }
    }
}

/// The answers a resumed call gets, with the state the tool gave itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputResponse {
    /// What the person did.
    pub action: InputAction,
    /// Their answers (for `accept`).
    pub content: Value,
    /// The state from the tool's [`InputRequest`], unaltered.
    pub state: Value,
}

impl ToolContext {
    /// The answers to this tool's questions, when this call is the resume
    /// of an `input_required` ([`ToolOutput::input_required`]); `None` on a
    /// first call.
    pub fn input_response(&self) -> Option<&InputResponse> {
        self.extension::<InputResponse>()
    }
}
