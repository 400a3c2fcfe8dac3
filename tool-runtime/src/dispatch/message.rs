//! What travels on a dispatch channel, and the failure codes of dispatch.

use serde::{Deserialize, Serialize};
use tool_core::ErrorCode;

/// No channel reaches an executor (none configured, or it has gone).
pub const CHANNEL_UNAVAILABLE: ErrorCode = ErrorCode::from_static("channel_unavailable");
/// The result store is missing or unreachable.
pub const STORE_UNAVAILABLE: ErrorCode = ErrorCode::from_static("store_unavailable");
/// The channel took the call but failed to deliver it.
pub const DISPATCH_FAILED: ErrorCode = ErrorCode::from_static("dispatch_failed");
/// The executor could not parse the arguments text.
pub const ARGUMENTS_PARSE_ERROR: ErrorCode = ErrorCode::from_static("arguments_parse_error");
/// The executor has no such tool or API.
pub const EXECUTOR_NOT_FOUND: ErrorCode = ErrorCode::from_static("executor_not_found");
/// The executor stopped the tool at its own deadline (budget − safety margin).
pub const CLIENT_EXECUTOR_TIMEOUT: ErrorCode = ErrorCode::from_static("client_executor_timeout");
/// The executor's work ended without producing a result.
pub const CLIENT_EXECUTOR_NO_RESULT: ErrorCode =
    ErrorCode::from_static("client_executor_no_result");

/// One call sent to an executor: `{"type": "tool_execute", …}` on the wire.
///
/// ```
/// use tool_runtime::dispatch::ToolExecute;
/// let message: ToolExecute = serde_json::from_str(
///     r#"{"id":"d-1","identifier":"local-system","apiName":"readFile",
///         "arguments":"{\"path\":\"a.txt\"}","executionTimeoutMs":30000}"#,
/// ).unwrap();
/// assert_eq!(message.execution_timeout_ms, 30_000);
/// assert_eq!(message.tool_call_id, None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolExecute {
    /// The dispatch id: the key the executor puts its one result under.
    /// Unique per dispatch (a model's call id may repeat; this never does).
    pub id: String,
    /// The model's call id, for the executor's logs and UI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// The tool identifier.
    pub identifier: String,
    /// The API name.
    pub api_name: String,
    /// The arguments exactly as text (the executor parses them).
    pub arguments: String,
    /// The time left of the call's budget when it was sent, in ms. The
    /// executor stops its own work earlier (see
    /// [`executor_budget`](crate::dispatch::executor_budget)).
    pub execution_timeout_ms: u64,
}

/// A message from a dispatcher to an executor.
///
/// ```
/// use tool_runtime::dispatch::ChannelMessage;
/// let abort = ChannelMessage::ToolAbort { id: "d-1".into() };
/// assert_eq!(serde_json::to_value(&abort).unwrap(),
///     serde_json::json!({"type": "tool_abort", "id": "d-1"}));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ChannelMessage {
    /// Run a call and put exactly one result.
    ToolExecute(ToolExecute),
    /// Stop the call with this dispatch id: nobody waits for it any more.
    ToolAbort {
        /// The dispatch id.
        id: String,
    },
}

impl ChannelMessage {
    /// The dispatch id the message concerns.
    pub fn id(&self) -> &str {
        match self {
            Self::ToolExecute(call) => &call.id,
            Self::ToolAbort { id } => id,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_execute_round_trips_with_its_type_tag() {
        let message = ChannelMessage::ToolExecute(ToolExecute {
            id: "d-7".into(),
            tool_call_id: Some("call_1".into()),
            identifier: "t".into(),
            api_name: "a".into(),
            arguments: "{}".into(),
            execution_timeout_ms: 1_000,
        });
        let wire = serde_json::to_value(&message).unwrap();
        assert_eq!(wire["type"], "tool_execute");
        assert_eq!(wire["toolCallId"], "call_1");
        assert_eq!(wire["apiName"], "a");
        let back: ChannelMessage = serde_json::from_value(wire).unwrap();
        assert_eq!(back, message);
        assert_eq!(back.id(), "d-7");
    }
}
