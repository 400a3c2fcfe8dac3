//! What rmcp drops from a `tools/list` answer: each tool's `execution`
//! (2025-11-25: `{"taskSupport": "forbidden" | "optional" | "required"}`).
//! rmcp 3.11's `Tool` has no such field, so the typed listing never shows
//! it; our transports read it from the raw answer instead — the stdio
//! transport from the line, the HTTP client from the SSE event's data (an
//! answer sent as plain JSON is decoded by rmcp before we see it, so a
//! server answering `tools/list` without SSE keeps its `execution` from
//! us) — keyed by the request id of each `tools/list` they sent.
//!
//! A first page (no cursor) starts the table afresh, so a tool that stops
//! asking for tasks is forgotten.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage, RequestId};
use serde::Deserialize;
use serde_json::Value;

/// A tool's `execution.taskSupport` as listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListedTaskSupport {
    /// `optional`: a task when the client asks for one.
    Optional,
    /// `required`: only as a task.
    Required,
}

/// The `execution` of the tools one server listed (see the module guide).
#[derive(Debug, Default)]
pub(crate) struct ListedExecution {
    /// `tools/list` requests sent, not answered yet: id → first page?
    asked: Mutex<HashMap<RequestId, bool>>,
    /// Tool name → its task support (tools without one are absent).
    support: Mutex<HashMap<String, ListedTaskSupport>>,
    /// Tool name → its `execution` object exactly as listed (kept in the
    /// catalog, so a proxy passes it on unchanged).
    raw: Mutex<HashMap<String, Value>>,
}

#[derive(Deserialize)]
struct RawAnswer {
    id: RequestId,
    #[serde(default)]
    result: Option<RawPage>,
}

#[derive(Deserialize)]
struct RawPage {
    #[serde(default)]
    tools: Vec<RawTool>,
}

#[derive(Deserialize)]
struct RawTool {
    name: String,
    #[serde(default)]
    execution: Option<Value>,
}

impl ListedExecution {
    /// Notes `message` when it is a `tools/list` request.
    pub(crate) fn sent(&self, message: &ClientJsonRpcMessage) {
        if let JsonRpcMessage::Request(request) = message
            && let ClientRequest::ListToolsRequest(list) = &request.request
        {
            let first = list.params.as_ref().is_none_or(|p| p.cursor.is_none());
            self.asked
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(request.id.clone(), first);
        }
    }

    /// Reads `raw` (one JSON-RPC message as received) when it answers a
    /// `tools/list` noted by [`sent`](Self::sent). Cheap when none is
    /// outstanding.
    pub(crate) fn received(&self, raw: &[u8]) {
        if self
            .asked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_empty()
        {
            return;
        }
        let Ok(answer) = serde_json::from_slice::<RawAnswer>(raw) else {
            return;
        };
        let Some(first) = self
            .asked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&answer.id)
        else {
            return;
        };
        let mut support = self.support.lock().unwrap_or_else(PoisonError::into_inner);
        let mut raw = self.raw.lock().unwrap_or_else(PoisonError::into_inner);
        if first {
            support.clear();
            raw.clear();
        }
        for tool in answer.result.map(|page| page.tools).unwrap_or_default() {
            match &tool.execution {
                Some(execution @ Value::Object(_)) => {
                    raw.insert(tool.name.clone(), execution.clone());
                }
                _ => {
                    raw.remove(&tool.name);
                }
            }
            let listed = tool
                .execution
                .as_ref()
                .and_then(|e| e.get("taskSupport"))
                .and_then(Value::as_str);
            match listed {
                Some("required") => {
                    support.insert(tool.name, ListedTaskSupport::Required);
                }
                Some("optional") => {
                    support.insert(tool.name, ListedTaskSupport::Optional);
                }
                // `forbidden`, absent, or a value this client does not know.
                _ => {
                    support.remove(&tool.name);
                }
            }
        }
    }

    /// The listed task support of `tool`, if any.
    pub(crate) fn task_support(&self, tool: &str) -> Option<ListedTaskSupport> {
        self.support
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(tool)
            .copied()
    }

    /// The `execution` object `tool` was listed with, if any.
    pub(crate) fn execution(&self, tool: &str) -> Option<Value> {
        self.raw
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(tool)
            .cloned()
    }

    /// The tools listed with a task support (for tests and diagnostics).
    #[cfg(test)]
    fn names(&self) -> std::collections::HashSet<String> {
        self.support
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .keys()
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn list(id: i64, cursor: Option<&str>) -> ClientJsonRpcMessage {
        let params = cursor.map_or_else(|| json!({}), |c| json!({"cursor": c}));
        serde_json::from_value(
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params}),
        )
        .unwrap()
    }

    fn answer(id: i64, tools: Value) -> Vec<u8> {
        serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "result": {"tools": tools}}))
            .unwrap()
    }

    #[test]
    fn task_support_is_read_from_the_raw_answers_to_our_listings_only() {
        let listed = ListedExecution::default();
        let tools = json!([
            {"name": "a", "inputSchema": {}, "execution": {"taskSupport": "required"}},
            {"name": "b", "inputSchema": {}, "execution": {"taskSupport": "optional"}},
            {"name": "c", "inputSchema": {}, "execution": {"taskSupport": "forbidden"}},
            {"name": "d", "inputSchema": {}, "execution": {"taskSupport": 7}},
            {"name": "e", "inputSchema": {}}
        ]);
        // An answer to no listing of ours is ignored.
        listed.received(&answer(1, tools.clone()));
        assert!(listed.names().is_empty());
        listed.sent(&list(1, None));
        listed.received(&answer(1, tools));
        assert_eq!(listed.task_support("a"), Some(ListedTaskSupport::Required));
        assert_eq!(listed.task_support("b"), Some(ListedTaskSupport::Optional));
        assert_eq!(listed.names().len(), 2, "forbidden, unknown and absent");
        // The objects are kept as sent, `forbidden` and unknown words too.
        assert_eq!(
            listed.execution("c"),
            Some(json!({"taskSupport": "forbidden"}))
        );
        assert_eq!(listed.execution("d"), Some(json!({"taskSupport": 7})));
        assert_eq!(listed.execution("e"), None);
        // A second page adds; a new first page starts afresh.
        listed.sent(&list(2, Some("p2")));
        listed.received(&answer(
            2,
            json!([{"name": "f", "execution": {"taskSupport": "required"}}]),
        ));
        assert_eq!(listed.names().len(), 3);
        listed.sent(&list(3, None));
        listed.received(&answer(3, json!([{"name": "a"}])));
        assert!(listed.names().is_empty());
        assert_eq!(listed.execution("c"), None);
        // Garbage is ignored.
        listed.sent(&list(4, None));
        listed.received(b"not json");
        listed.received(&answer(4, json!("not a list")));
    }
}
