//! A remote server's questions on 2026-07-28 (multi-round-trip, SEP-2322),
//! client side: a `tools/call` answered with `resultType:
//! "input_required"` is called again with the answers and the server's
//! `requestState` echoed verbatim, until it completes (at most
//! [`MAX_ROUNDS`] rounds). Elicitations go to the client's handler (the
//! session's hooks), hence to the host's
//! [`ElicitationHandler`](crate::ElicitationHandler) by the same way as a
//! 2025-11-25 `elicitation/create` request (declined without one); the
//! client declares neither sampling nor roots, so a server asking for them
//! gets the call failed with a message saying so, never an invented answer.
//! Each round is a new request (a new JSON-RPC id); the calls are not
//! re-sent otherwise.

use rmcp::model::{
    CallToolRequestParams, CallToolResult, InputRequest, InputRequests, InputRequiredResult,
    InputResponses, NumberOrString, ServerResult, Task,
};
use rmcp::service::{Peer, RequestContext};
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceError};

/// The most `input_required` rounds one call goes through.
pub(crate) const MAX_ROUNDS: usize = 10;

/// The client's answers to `requests`.
async fn answer(
    hooks: &impl ClientHandler,
    peer: &Peer<RoleClient>,
    requests: &InputRequests,
) -> Result<InputResponses, ServiceError> {
    let mut responses = InputResponses::new();
    for (key, request) in requests {
        let answer = match request {
            InputRequest::Elicitation(elicit) => {
                let context = RequestContext::new(NumberOrString::Number(0), peer.clone());
                let result = hooks
                    .create_elicitation(elicit.params.clone(), context)
                    .await
                    .map_err(ServiceError::McpError)?;
                serde_json::to_value(result).map_err(|e| {
                    ServiceError::McpError(ErrorData::internal_error(e.to_string(), None))
                })?
            }
            other => {
                let method = match other {
                    InputRequest::CreateMessage(_) => "sampling/createMessage",
                    InputRequest::ListRoots(_) => "roots/list",
                    _ => "a request kind this client does not know",
                };
                return Err(ServiceError::McpError(ErrorData::invalid_request(
                    format!(
                        "the server asked `{key}` by {method}, which this client did not declare"
                    ),
                    None,
                )));
            }
        };
        responses.insert(key.clone(), answer);
    }
    Ok(responses)
}

/// Who answers a round's questions.
pub(crate) trait Answerer: Sync {
    /// The answers to `requests`, or `None` when they wait (the call ends
    /// with the server's `input_required` as it is).
    fn answer(
        &self,
        requests: &InputRequests,
    ) -> impl Future<Output = Result<Option<InputResponses>, ServiceError>> + Send;
}

/// The session's hooks answer, in process (the host's
/// [`ElicitationHandler`](crate::ElicitationHandler), else a decline).
pub(crate) struct ByHooks<'a, H> {
    pub(crate) hooks: &'a H,
    pub(crate) peer: &'a Peer<RoleClient>,
}

impl<H: ClientHandler> Answerer for ByHooks<'_, H> {
    async fn answer(
        &self,
        requests: &InputRequests,
    ) -> Result<Option<InputResponses>, ServiceError> {
        answer(self.hooks, self.peer, requests).await.map(Some)
    }
}

/// What a call in rounds came to.
#[derive(Debug)]
pub(crate) enum Rounds {
    /// The server's result.
    Done(CallToolResult),
    /// Questions the answerer left waiting, with the server's state.
    Asked(InputRequiredResult),
}

/// Where [`rounds`] stopped: the call's end, or the task the server made
/// of it (to follow: `remote_tasks`).
#[derive(Debug)]
pub(crate) enum Reached {
    /// The call's rounds ended.
    Rounds(Rounds),
    /// The server made the call this task.
    Task(Task),
}

/// Sends `params` with `send` and answers `input_required` rounds until
/// the call completes, the answerer lets the questions wait, or the server
/// makes the call a task. `params` may already carry answers and a request
/// state (a resumed call).
pub(crate) async fn rounds<F, Fut>(
    answerer: &impl Answerer,
    mut params: CallToolRequestParams,
    mut send: F,
) -> Result<Reached, ServiceError>
where
    F: FnMut(CallToolRequestParams) -> Fut,
    Fut: Future<Output = Result<ServerResult, ServiceError>>,
{
    for _ in 0..MAX_ROUNDS {
        match send(params.clone()).await? {
            ServerResult::CallToolResult(result) => {
                return Ok(Reached::Rounds(Rounds::Done(result)));
            }
            // The server made the call a task (the client declared the
            // extension): the caller follows it.
            ServerResult::CreateTaskResult(created) => return Ok(Reached::Task(created.task)),
            ServerResult::InputRequiredResult(asked) => {
                let responses = match &asked.input_requests {
                    Some(requests) => match answerer.answer(requests).await? {
                        Some(responses) => responses,
                        None => return Ok(Reached::Rounds(Rounds::Asked(asked))),
                    },
                    None => InputResponses::new(),
                };
                params.input_responses = (!responses.is_empty()).then_some(responses);
                params.request_state = asked.request_state;
            }
            _ => return Err(ServiceError::UnexpectedResponse),
        }
    }
    Err(ServiceError::InputRequiredRoundsExceeded {
        max_rounds: MAX_ROUNDS,
    })
}
