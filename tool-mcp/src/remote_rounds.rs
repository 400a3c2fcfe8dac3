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
    CallToolRequestParams, CallToolResult, InputRequest, InputRequests, InputResponses,
    NumberOrString, ServerResult,
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

/// Sends `params` with `send` and answers `input_required` rounds until
/// the call completes.
pub(crate) async fn call_in_rounds<F, Fut>(
    hooks: &impl ClientHandler,
    peer: &Peer<RoleClient>,
    mut params: CallToolRequestParams,
    mut send: F,
) -> Result<CallToolResult, ServiceError>
where
    F: FnMut(CallToolRequestParams) -> Fut,
    Fut: Future<Output = Result<ServerResult, ServiceError>>,
{
    for _ in 0..MAX_ROUNDS {
        match send(params.clone()).await? {
            ServerResult::CallToolResult(result) => return Ok(result),
            ServerResult::InputRequiredResult(asked) => {
                let responses = match &asked.input_requests {
                    Some(requests) => answer(hooks, peer, requests).await?,
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
