//! A 2026-07-28 server's questions to a [`McpTool`](crate::McpTool) call,
//! as tool-core's durable pending turn.
//!
//! On 2026-07-28 a server that needs answers ends the request with
//! `resultType: "input_required"`: its questions under keys, and an opaque
//! `requestState`. Nothing waits on the server side, so the answers may
//! come from another process an hour later. With
//! [`ManagerOptions::pending_questions`](crate::ManagerOptions::pending_questions),
//! questions that nothing in the process answers (no
//! [`ElicitationHandler`](crate::ElicitationHandler), and the call's
//! context has no asker: [`ToolContext::elicit`] is `Unsupported`) make the
//! call's output [`ToolOutput::input_required`](tool_core::ToolOutput::input_required):
//!
//! - the questions, in key order, as tool-core [`Elicitation`]s;
//! - as the tool's state: `{"mcp": {"server", "tool", "keys",
//!   "requestState"}}` — the server id, the remote tool, the question
//!   keys in the order of the questions, and the server's state verbatim.
//!
//! [`Invoker::invoke_turn`](tool_core::Invoker::invoke_turn) keeps the
//! call as a pending item bound to the exact call (tool, arguments digest,
//! manifest, policy, scope, expiry) and MAC'd, state included: a client
//! that alters the request state or the keys makes the turn refused as a
//! whole. [`Invoker::resume`](tool_core::Invoker::resume), in any process
//! with the same tools and keys, claims the item once in the use-once
//! ledger and calls the tool again with the answers
//! ([`ToolContext::input_response`]); the call is sent again with
//! `inputResponses` under the question keys and the `requestState` as the
//! server gave it, and goes on in rounds from there.
//!
//! The reply's `content`: for one question, its answer (an object
//! following the question's schema; the schema's defaults are filled in
//! for fields left out, SEP-1034); for several, an array with one answer
//! per question, in order. `decline` and `cancel` go to every question.
//!
//! The server's state has a lifetime of its own (the server's to choose:
//! minutes, typically): an answer that comes after it is refused by the
//! server (the call fails with `mcp_request_failed` naming its reason and
//! nothing runs), whatever the pending item's own expiry says. Hosts keep
//! [`Durable`](tool_core::durable::Durable)'s TTL within it when they know it.
//!
//! Questions this client cannot answer at all (sampling, roots, URL-mode
//! elicitation: not declared) fail the call naming the key, as an
//! in-process round does.

use rmcp::model::{
    ElicitRequestParams, ElicitResult, ElicitationAction, InputRequest, InputRequests,
    InputRequiredResult, InputResponses,
};
use rmcp::service::Peer;
use rmcp::{ErrorData, RoleClient, ServiceError};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tool_core::durable::{InputAction, InputResponse};
use tool_core::{Elicitation, Elicited, ToolContext};

use crate::client::remote_rounds::{Answerer, ByHooks};
use crate::client::remote_talk::with_defaults;
use crate::client::session::Hooks;
use crate::error::Error;

/// The key of the MCP part of a pending call's tool state.
const STATE_KEY: &str = "mcp";

/// The MCP part of a pending call's tool state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct McpState {
    /// The server id.
    server: String,
    /// The remote tool.
    tool: String,
    /// The question keys, in the order of the questions.
    keys: Vec<String>,
    /// Per question, the defaults its schema gives (filled in for fields
    /// an accepted answer leaves out, SEP-1034).
    #[serde(default)]
    defaults: Vec<Value>,
    /// The server's `requestState`, verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    request_state: Option<String>,
}

/// What a resumed call is sent with.
#[derive(Debug, Clone)]
pub(crate) struct Resumed {
    /// The answers under the server's question keys.
    pub(crate) responses: InputResponses,
    /// The server's state, as it gave it.
    pub(crate) request_state: Option<String>,
}

fn state_error(server: &str, tool: &str, message: impl Into<String>) -> Error {
    Error::InputState {
        server: server.to_owned(),
        tool: tool.to_owned(),
        message: message.into(),
    }
}

/// The form question of `request`, or why this client cannot answer it.
fn form_question(key: &str, request: &InputRequest) -> Result<Elicitation, String> {
    let method = match request {
        InputRequest::Elicitation(elicit) => match &elicit.params {
            ElicitRequestParams::FormElicitationParams {
                message,
                requested_schema,
                ..
            } => {
                let schema = serde_json::to_value(requested_schema)
                    .map_err(|e| format!("the schema of `{key}` does not serialise: {e}"))?;
                return Ok(Elicitation::new(message.clone(), schema));
            }
            ElicitRequestParams::UrlElicitationParams { .. } => "URL-mode elicitation",
            _ => "an elicitation mode this client does not know",
        },
        InputRequest::CreateMessage(_) => "sampling/createMessage",
        InputRequest::ListRoots(_) => "roots/list",
        _ => "a request kind this client does not know",
    };
    Err(format!(
        "the server asked `{key}` by {method}, which this client did not declare"
    ))
}

/// The pending form of a server's `input_required` to `tool` on `server`.
pub(crate) fn pending_request(
    server: &str,
    tool: &str,
    asked: InputRequiredResult,
) -> Result<tool_core::durable::InputRequest, Error> {
    let requests = asked.input_requests.unwrap_or_default();
    let mut questions = Vec::with_capacity(requests.len());
    let mut keys = Vec::with_capacity(requests.len());
    let mut defaults = Vec::with_capacity(requests.len());
    for (key, request) in &requests {
        let question = form_question(key, request).map_err(|m| state_error(server, tool, m))?;
        defaults.push(defaults_of(&question.requested_schema));
        questions.push(question);
        keys.push(key.clone());
    }
    let state = McpState {
        server: server.to_owned(),
        tool: tool.to_owned(),
        keys,
        defaults,
        request_state: asked.request_state,
    };
    let state =
        serde_json::to_value(&state).map_err(|e| state_error(server, tool, e.to_string()))?;
    Ok(tool_core::durable::InputRequest {
        questions,
        state: json!({ STATE_KEY: state }),
    })
}

/// The schema's property defaults, as a schema [`with_defaults`] reads.
fn defaults_of(schema: &Value) -> Value {
    let properties: serde_json::Map<String, Value> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| {
            properties
                .iter()
                .filter_map(|(name, p)| {
                    p.get("default")
                        .map(|d| (name.clone(), json!({ "default": d })))
                })
                .collect()
        })
        .unwrap_or_default();
    json!({ "properties": properties })
}

fn elicit_result(action: InputAction, content: Option<Value>, schema: &Value) -> Value {
    let result = match action {
        InputAction::Accept => ElicitResult::new(ElicitationAction::Accept)
            .with_content(with_defaults(content.unwrap_or_else(|| json!({})), schema)),
        InputAction::Decline => ElicitResult::new(ElicitationAction::Decline),
        InputAction::Cancel => ElicitResult::new(ElicitationAction::Cancel),
    };
    serde_json::to_value(result).unwrap_or(Value::Null)
}

/// What the resume of `tool` on `server` is sent with: the person's reply
/// spread over the question keys, and the server's state.
pub(crate) fn resumed(
    server: &str,
    tool: &str,
    response: &InputResponse,
) -> Result<Resumed, Error> {
    let state: McpState = response
        .state
        .get(STATE_KEY)
        .cloned()
        .ok_or_else(|| state_error(server, tool, "the resumed call's state has no `mcp` part"))
        .and_then(|v| {
            serde_json::from_value(v).map_err(|e| {
                state_error(server, tool, format!("the resumed call's `mcp` state: {e}"))
            })
        })?;
    if state.server != server || state.tool != tool {
        return Err(state_error(
            server,
            tool,
            format!(
                "the answers are for `{}` on `{}`, not this call",
                state.tool, state.server
            ),
        ));
    }
    let answers: Vec<Option<Value>> = match (response.action, state.keys.len()) {
        (InputAction::Accept, 1) => vec![Some(response.content.clone())],
        (InputAction::Accept, n) => match &response.content {
            Value::Array(items) if items.len() == n => items.iter().cloned().map(Some).collect(),
            _ => {
                return Err(state_error(
                    server,
                    tool,
                    format!("{n} questions need an array of {n} answers, in order"),
                ));
            }
        },
        (_, n) => vec![None; n],
    };
    let mut responses = InputResponses::new();
    for (i, (key, answer)) in state.keys.iter().zip(answers).enumerate() {
        let schema = state.defaults.get(i).cloned().unwrap_or(Value::Null);
        responses.insert(key.clone(), elicit_result(response.action, answer, &schema));
    }
    Ok(Resumed {
        responses,
        request_state: state.request_state,
    })
}

/// Answers a call's questions. A [`McpTool`](crate::McpTool) call (with
/// its context): the host's [`ElicitationHandler`](crate::ElicitationHandler)
/// when it set one; else, with pending questions on, the call's asker
/// ([`ToolContext::elicit`]), and when there is none the questions wait;
/// else the hooks (a decline). A call without a context
/// ([`McpManager::call_tool`](crate::McpManager::call_tool)): the hooks,
/// so its questions never wait.
pub(crate) struct ForTool<'a> {
    hooks: &'a Hooks,
    peer: &'a Peer<RoleClient>,
    ctx: Option<&'a ToolContext>,
}

impl<'a> ForTool<'a> {
    pub(crate) fn new(
        hooks: &'a Hooks,
        peer: &'a Peer<RoleClient>,
        ctx: Option<&'a ToolContext>,
    ) -> Self {
        Self { hooks, peer, ctx }
    }
}

impl Answerer for ForTool<'_> {
    async fn answer(
        &self,
        requests: &InputRequests,
    ) -> Result<Option<InputResponses>, ServiceError> {
        let ctx = match self.ctx {
            Some(ctx) if self.hooks.elicitation.is_none() && self.hooks.pending_questions => ctx,
            _ => {
                return ByHooks {
                    hooks: self.hooks,
                    peer: self.peer,
                }
                .answer(requests)
                .await;
            }
        };
        let mut responses = InputResponses::new();
        for (key, request) in requests {
            let question = form_question(key, request)
                .map_err(|m| ServiceError::McpError(ErrorData::invalid_request(m, None)))?;
            let schema = question.requested_schema.clone();
            let (action, content) = match ctx.elicit(question).await {
                Elicited::Accept(content) => (InputAction::Accept, Some(content)),
                Elicited::Decline => (InputAction::Decline, None),
                Elicited::Cancel => (InputAction::Cancel, None),
                // Nobody here to ask: the questions wait as data.
                _ => return Ok(None),
            };
            responses.insert(key.clone(), elicit_result(action, content, &schema));
        }
        Ok(Some(responses))
    }
}

#[cfg(test)]
#[allow(deprecated)] // roots: deprecated by rmcp for a later revision.
mod tests {
    use super::*;
    use rmcp::model::{ElicitRequest, ElicitationSchema, ListRootsRequest};

    fn asked(keys: &[&str]) -> InputRequiredResult {
        let mut requests = InputRequests::new();
        for key in keys {
            let schema: ElicitationSchema = serde_json::from_value(json!({
                "type": "object",
                "properties": {"ok": {"type": "boolean"}, "note": {"type": "string", "default": "-"}}
            }))
            .unwrap();
            requests.insert(
                (*key).to_owned(),
                InputRequest::Elicitation(ElicitRequest::new(
                    ElicitRequestParams::FormElicitationParams {
                        meta: None,
                        message: format!("{key}?"),
                        requested_schema: schema,
                    },
                )),
            );
        }
        InputRequiredResult::new(Some(requests), Some("sealed".into()))
    }

    fn response(action: InputAction, content: Value, state: Value) -> InputResponse {
        InputResponse {
            action,
            content,
            state,
        }
    }

    #[test]
    fn several_answers_go_under_their_keys_in_order_with_defaults() {
        let request = pending_request("s", "t", asked(&["b", "a"])).unwrap();
        assert_eq!(request.questions[0].message, "a?", "key order");
        let sent = resumed(
            "s",
            "t",
            &response(
                InputAction::Accept,
                json!([{"ok": true}, {"ok": false, "note": "x"}]),
                request.state.clone(),
            ),
        )
        .unwrap();
        assert_eq!(sent.request_state.as_deref(), Some("sealed"));
        assert_eq!(
            sent.responses["a"],
            json!({"action": "accept", "content": {"ok": true, "note": "-"}})
        );
        assert_eq!(sent.responses["b"]["content"]["note"], "x");
        let declined = resumed(
            "s",
            "t",
            &response(InputAction::Decline, Value::Null, request.state),
        )
        .unwrap();
        assert_eq!(declined.responses["b"], json!({"action": "decline"}));
    }

    #[test]
    fn answers_that_do_not_fit_or_are_for_another_call_are_refused_by_name() {
        let request = pending_request("s", "t", asked(&["a", "b"])).unwrap();
        let one = response(
            InputAction::Accept,
            json!({"ok": true}),
            request.state.clone(),
        );
        let err = resumed("s", "t", &one).unwrap_err();
        assert_eq!(err.code(), "mcp_input_state");
        assert!(
            err.to_string().contains("2 questions need an array of 2"),
            "{err}"
        );
        let other = resumed(
            "s",
            "u",
            &response(InputAction::Cancel, Value::Null, request.state),
        )
        .unwrap_err();
        assert!(other.to_string().contains("for `t` on `s`"), "{other}");
        let none = resumed(
            "s",
            "t",
            &response(InputAction::Cancel, Value::Null, json!({})),
        )
        .unwrap_err();
        assert!(none.to_string().contains("no `mcp` part"), "{none}");
    }

    #[test]
    fn a_question_this_client_cannot_answer_is_named() {
        let mut asked = asked(&["a"]);
        asked.input_requests.as_mut().unwrap().insert(
            "roots".into(),
            InputRequest::ListRoots(ListRootsRequest::default()),
        );
        let err = pending_request("s", "t", asked).unwrap_err();
        assert!(
            err.to_string().contains("asked `roots` by roots/list"),
            "{err}"
        );
    }
}
