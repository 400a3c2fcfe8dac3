//! The remote adapter: a [`ComputerRuntime`] whose executor sits behind any
//! async transport (a sandbox's HTTP API, a device's RPC channel, a queue).
//!
//! The wire format is our own typed JSON, one envelope each way:
//!
//! ```text
//! → {"request": {"op": "readFile", "params": {"path": "README.md"}}}
//! ← {"ok": true,  "response": {"op": "readFile", "result": {…}}}
//! ← {"ok": false, "error": {"code": "file_not_found", "message": "…"}}
//! ```
//!
//! [`serve`] is the executor's half: it runs a request on any runtime (for
//! example a [`LocalComputer`](crate::LocalComputer) inside the sandbox) and
//! produces the reply envelope.

use async_trait::async_trait;
use serde_json::{Value, json};
use tool_core::ToolContext;

use crate::error::{Error, Result};
use crate::request::Request;
use crate::response::Response;
use crate::runtime::ComputerRuntime;

/// Carries one request envelope to the executor and brings its reply back.
///
/// The whole contract is one round trip: `send` delivers `message` and
/// resolves to the reply envelope, or to [`Error::Transport`] when the
/// channel failed. [`RemoteComputer`] does everything else (encoding,
/// decoding, mapping remote errors to their codes, cancellation).
///
/// # Scenarios
///
/// - **HTTP**: POST the envelope to the sandbox, return the JSON body; a
///   connection error or a 5xx is `Error::Transport`, a well-formed
///   `{"ok": false, …}` body is a reply like any other (not an error here).
/// - **A device over a message queue**: publish the envelope (wrapped with
///   a correlation id of your own when the channel needs one) and await the
///   one reply for it.
/// - **In tests**: a closure over [`serve`] and a [`LocalComputer`](crate::LocalComputer)
///   gives a full round trip without a network.
///
/// ```
/// use serde_json::Value;
/// use tool_runtime::{Error, Transport};
///
/// /// Replies that every request failed on the far side.
/// struct Refusing;
///
/// #[async_trait::async_trait]
/// impl Transport for Refusing {
///     async fn send(&self, _message: Value) -> Result<Value, Error> {
///         Ok(serde_json::json!({"ok": false, "error": {"code": "busy", "message": "try later"}}))
///     }
/// }
/// # let _ = Refusing;
/// ```
///
/// # The wrong way
///
/// Adding a timeout inside `send`: the [`RemoteComputer`] already ends the
/// wait when the call's token is cancelled, and the pipeline cancels at the
/// call's deadline, so a second timer only disagrees with the first.
/// Retrying inside `send` for requests that change things (`writeFile`,
/// `runCommand`): a retry after a lost reply runs them twice. Turning a
/// transport failure into `{"ok": true}`, or the remote's `{"ok": false}`
/// into `Error::Transport`: both hide from the model what really happened.
#[async_trait]
pub trait Transport: Send + Sync {
    /// Sends `message` and waits for the reply. Transport failures are
    /// [`Error::Transport`].
    async fn send(&self, message: Value) -> Result<Value>;
}

/// A computer reached through a [`Transport`].
///
/// The call's cancellation token is honoured: when the host (or the
/// pipeline's timeout) cancels, the wait ends with `cancelled`, whatever the
/// transport is doing.
#[derive(Debug, Clone)]
pub struct RemoteComputer<T> {
    transport: T,
}

impl<T: Transport> RemoteComputer<T> {
    /// A computer behind `transport`.
    pub fn new(transport: T) -> Self {
        Self { transport }
    }

    /// The transport.
    pub fn transport(&self) -> &T {
        &self.transport
    }
}

/// Builds the request envelope.
pub fn encode_request(request: &Request) -> Result<Value> {
    serde_json::to_value(request)
        .map(|request| json!({ "request": request }))
        .map_err(|e| Error::Protocol {
            message: e.to_string(),
        })
}

/// Reads a reply envelope.
pub fn decode_reply(reply: Value) -> Result<Response> {
    match reply.get("ok").and_then(Value::as_bool) {
        Some(true) => {
            let response = reply.get("response").cloned().unwrap_or(Value::Null);
            serde_json::from_value(response).map_err(|e| Error::Protocol {
                message: format!("the response does not fit any operation: {e}"),
            })
        }
        Some(false) => {
            let error = reply.get("error");
            let field = |name: &str| {
                error
                    .and_then(|e| e.get(name))
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            };
            Err(Error::Remote {
                code: field("code").unwrap_or_else(|| "remote_error".into()),
                message: field("message")
                    .unwrap_or_else(|| "the remote computer failed without a message".into()),
            })
        }
        None => Err(Error::Protocol {
            message: "the reply has no boolean `ok` field".into(),
        }),
    }
}

#[async_trait]
impl<T: Transport> ComputerRuntime for RemoteComputer<T> {
    async fn call_service(&self, request: Request, ctx: &ToolContext) -> Result<Response> {
        let message = encode_request(&request)?;
        let reply = tokio::select! {
            reply = self.transport.send(message) => reply?,
            () = ctx.cancellation().cancelled() => return Err(Error::Cancelled),
        };
        decode_reply(reply)
    }
}

/// The executor's half: decodes an envelope, runs it on `runtime`, returns
/// the reply envelope. Never fails; failures travel as `ok: false`.
pub async fn serve<R: ComputerRuntime + ?Sized>(
    runtime: &R,
    message: Value,
    ctx: &ToolContext,
) -> Value {
    let request = message
        .get("request")
        .cloned()
        .ok_or_else(|| Error::Protocol {
            message: "the message has no `request` field".into(),
        })
        .and_then(|r| {
            serde_json::from_value::<Request>(r).map_err(|e| Error::Protocol {
                message: format!("the request does not fit any operation: {e}"),
            })
        });
    let outcome = match request {
        Ok(request) => runtime.call_service(request, ctx).await,
        Err(e) => Err(e),
    };
    match outcome {
        Ok(response) => json!({ "ok": true, "response": response }),
        Err(e) => json!({
            "ok": false,
            "error": { "code": e.code().as_str(), "message": e.to_string() },
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_reply_keeps_the_remote_code() {
        let err = decode_reply(
            json!({"ok": false, "error": {"code": "sandbox_gone", "message": "expired"}}),
        )
        .unwrap_err();
        assert_eq!(err.code(), "sandbox_gone");
        assert_eq!(err.to_string(), "expired");
    }

    #[test]
    fn a_reply_without_ok_is_a_protocol_error() {
        assert_eq!(
            decode_reply(json!({})).unwrap_err().code(),
            "protocol_error"
        );
    }
}
