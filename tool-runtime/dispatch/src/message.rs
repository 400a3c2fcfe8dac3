//! What travels on a dispatch channel, and the failure codes of dispatch.

use serde::{Deserialize, Serialize};
use tool_core::ErrorCode;

use crate::error::{Error, Result};

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
/// use tool_dispatch::ToolExecute;
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
    /// [`executor_budget`](crate::executor_budget)).
    pub execution_timeout_ms: u64,
}

/// A message from a dispatcher to an executor.
///
/// ```
/// use tool_dispatch::ChannelMessage;
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
    /// Reads a message as a channel received it (JSON text from a socket,
    /// a queue…). Anything else is [`Error::Protocol`] naming what was
    /// wrong and where (line and column).
    ///
    /// ```
    /// use tool_dispatch::ChannelMessage;
    /// let err = ChannelMessage::parse(r#"{"type": "tool_execute", "id": "d-1"}"#).unwrap_err();
    /// assert_eq!(err.code(), "protocol_error");
    /// assert!(err.to_string().contains("missing field `identifier`"));
    /// ```
    pub fn parse(text: &str) -> Result<Self> {
        let protocol = |message: String| Error::Protocol {
            message: format!("not a dispatch channel message: {message}"),
        };
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| protocol(e.to_string()))?;
        if let Some(problem) = shape_problem(&value) {
            return Err(protocol(problem));
        }
        serde_json::from_value(value).map_err(|e| protocol(e.to_string()))
    }

    /// The message as JSON text.
    pub fn to_json(&self) -> String {
        // A message is strings and numbers only: serialising cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The dispatch id the message concerns.
    pub fn id(&self) -> &str {
        match self {
            Self::ToolExecute(call) => &call.id,
            Self::ToolAbort { id } => id,
        }
    }
}

/// A field of a message: name, whether it is required, its type check.
type FieldRule = (&'static str, bool, fn(&serde_json::Value) -> bool);

/// The first field of a message that has the wrong type, as `at /field: …`.
fn shape_problem(value: &serde_json::Value) -> Option<String> {
    use serde_json::Value;
    let object = value.as_object()?;
    let fields: &[FieldRule] = match object.get("type")?.as_str()? {
        "tool_execute" => &[
            ("id", true, Value::is_string),
            ("identifier", true, Value::is_string),
            ("apiName", true, Value::is_string),
            ("arguments", true, Value::is_string),
            ("executionTimeoutMs", true, Value::is_u64),
            ("toolCallId", false, |v| v.is_string() || v.is_null()),
        ],
        "tool_abort" => &[("id", true, Value::is_string)],
        _ => return None,
    };
    for (name, required, fits) in fields {
        match object.get(*name) {
            Some(field) if !fits(field) => {
                return Some(format!("at /{name}: {field} has the wrong type"));
            }
            None if *required => return Some(format!("at /{name}: missing field `{name}`")),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_text_parses_or_is_a_protocol_error(text in ".{0,200}") {
            if let Err(e) = ChannelMessage::parse(&text) {
                prop_assert_eq!(e.code(), "protocol_error");
            }
        }

        #[test]
        fn every_message_round_trips(
            id in "[a-z0-9-]{1,20}",
            call_id in proptest::option::of("[ -~]{0,20}"),
            arguments in "\\PC{0,60}",
            ms in any::<u64>(),
            abort in any::<bool>(),
        ) {
            let message = if abort {
                ChannelMessage::ToolAbort { id }
            } else {
                ChannelMessage::ToolExecute(ToolExecute {
                    id,
                    tool_call_id: call_id,
                    identifier: "t".into(),
                    api_name: "a".into(),
                    arguments,
                    execution_timeout_ms: ms,
                })
            };
            prop_assert_eq!(ChannelMessage::parse(&message.to_json()).unwrap(), message);
        }
    }

    #[test]
    fn a_wrong_type_is_named() {
        let err = ChannelMessage::parse(r#"{"type": "tool_result", "id": "x"}"#).unwrap_err();
        assert!(err.to_string().contains("tool_result"), "{err}");
        let err =
            ChannelMessage::parse("{\n  \"type\": \"tool_execute\",\n  \"id\": }").unwrap_err();
        assert!(err.to_string().contains("line 3"), "{err}");
        let err = ChannelMessage::parse(
            r#"{"type": "tool_execute", "id": "d", "identifier": "t", "apiName": "a", "arguments": {}, "executionTimeoutMs": 5}"#,
        )
        .unwrap_err();
        assert!(err.to_string().contains("at /arguments"), "{err}");
        let err = ChannelMessage::parse(
            r#"{"type": "tool_execute", "id": "d", "identifier": "t", "apiName": "a", "arguments": "{}", "executionTimeoutMs": -1}"#,
        )
        .unwrap_err();
        assert!(err.to_string().contains("at /executionTimeoutMs"), "{err}");
        let err = ChannelMessage::parse(r#"{"type": "tool_abort"}"#).unwrap_err();
        assert!(err.to_string().contains("missing field `id`"), "{err}");
    }

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
