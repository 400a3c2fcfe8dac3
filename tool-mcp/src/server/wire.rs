//! `tools/list` answers finished as the wire wants them where rmcp's types
//! have no room: each tool's `execution` travels from the listing under a
//! private `_meta` key (see [`listing`](super::listing)) and is moved to
//! its own member on the way out — by [`OnTheWire`] for stdio (a service
//! around the server) and by the [`finish_http`] middleware for streamable
//! HTTP (rmcp's HTTP service takes only a handler, so the answer is
//! finished in the response body: a JSON body whole, an SSE body event by
//! event). Messages without the key pass unchanged and unparsed.

use std::borrow::Cow;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{Method, header};
use axum::middleware::Next;
use axum::response::Response;
use futures::StreamExt;
use rmcp::model::{CustomResult, ProtocolVersion, ServerConfig, ServerResult};
use rmcp::service::{NotificationContext, RequestContext, Service, ServiceRole};
use rmcp::{ErrorData, RoleServer};
use serde_json::Value;

use super::http_body::MAX_BODY_BYTES;

/// The private `_meta` key a served tool's `execution` travels under from
/// the listing to the wire.
pub(crate) const EXECUTION_META_KEY: &str = "toolLayer/execution";

/// Finishes one `tools/list` result as sent (`result`, the JSON object):
/// each tool's `execution`, carried under [`EXECUTION_META_KEY`] in its
/// `_meta`, moved to its own member, and a `_meta` left empty removed.
fn finish_listed_tools(result: &mut Value) {
    for tool in result
        .get_mut("tools")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        let Some(tool) = tool.as_object_mut() else {
            continue;
        };
        let Some(Value::Object(meta)) = tool.get_mut("_meta") else {
            continue;
        };
        let execution = meta.remove(EXECUTION_META_KEY);
        if meta.is_empty() {
            tool.remove("_meta");
        }
        if let Some(execution) = execution {
            tool.insert("execution".into(), execution);
        }
    }
}

/// A server (the `RegistryServer`) whose
/// `tools/list` answers carry each tool's `execution`; every other request
/// and notification goes to the server unchanged.
#[derive(Clone)]
pub(crate) struct OnTheWire<S>(pub(crate) S);

impl<S: Service<RoleServer>> Service<RoleServer> for OnTheWire<S> {
    async fn handle_request(
        &self,
        request: <RoleServer as ServiceRole>::PeerReq,
        context: RequestContext<RoleServer>,
    ) -> Result<<RoleServer as ServiceRole>::Resp, ErrorData> {
        let result = self.0.handle_request(request, context).await?;
        let ServerResult::ListToolsResult(list) = &result else {
            return Ok(result);
        };
        let carried = list.tools.iter().any(|tool| {
            tool.meta
                .as_ref()
                .is_some_and(|m| m.0.contains_key(EXECUTION_META_KEY))
        });
        if !carried {
            return Ok(result);
        }
        let mut value = serde_json::to_value(list).map_err(|error| {
            ErrorData::internal_error(format!("tools/list answer: {error}"), None)
        })?;
        finish_listed_tools(&mut value);
        Ok(ServerResult::CustomResult(CustomResult(value)))
    }

    async fn handle_notification(
        &self,
        notification: <RoleServer as ServiceRole>::PeerNot,
        context: NotificationContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.0.handle_notification(notification, context).await
    }

    fn get_info(&self) -> ServerConfig {
        self.0.get_info()
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        self.0.supported_protocol_versions()
    }
}

/// The axum middleware (`axum::middleware::from_fn(finish_http)`): the
/// answers to POSTed requests with their `tools/list` results finished.
pub(crate) async fn finish_http(request: Request, next: Next) -> Response {
    let post = request.method() == Method::POST;
    let response = next.run(request).await;
    if !post {
        return response;
    }
    let kind = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase());
    match kind.as_deref() {
        Some("application/json") => {
            let (mut parts, body) = response.into_parts();
            let Ok(bytes) = axum::body::to_bytes(body, MAX_BODY_BYTES).await else {
                // Longer than any answer we make: nothing is lost by
                // refusing it, as the client would.
                return Response::from_parts(parts, Body::empty());
            };
            let finished = finish_message(&bytes).map_or(bytes, Bytes::from);
            parts.headers.remove(header::CONTENT_LENGTH);
            Response::from_parts(parts, Body::from(finished))
        }
        Some("text/event-stream") => {
            let (mut parts, body) = response.into_parts();
            parts.headers.remove(header::CONTENT_LENGTH);
            Response::from_parts(parts, Body::from_stream(finish_events(body)))
        }
        _ => response,
    }
}

/// An SSE body with each event that carries the key finished; events are
/// passed on as soon as they are whole.
fn finish_events(body: Body) -> impl futures::Stream<Item = Result<Bytes, axum::Error>> + Send {
    let chunks = body.into_data_stream();
    futures::stream::unfold(
        (chunks, Vec::<u8>::new(), false),
        |(mut chunks, mut held, ended)| async move {
            if ended {
                return None;
            }
            loop {
                match chunks.next().await {
                    Some(Ok(chunk)) => {
                        held.extend_from_slice(&chunk);
                        let Some(end) = last_event_end(&held) else {
                            continue;
                        };
                        let rest = held.split_off(end);
                        let out = finish_sse(&held);
                        return Some((Ok(out), (chunks, rest, false)));
                    }
                    Some(Err(error)) => return Some((Err(error), (chunks, held, true))),
                    None if held.is_empty() => return None,
                    None => {
                        let out = finish_sse(&held);
                        return Some((Ok(out), (chunks, Vec::new(), true)));
                    }
                }
            }
        },
    )
}

/// Where the last whole event of `held` ends (after its blank line).
fn last_event_end(held: &[u8]) -> Option<usize> {
    held.windows(2).rposition(|w| w == b"\n\n").map(|at| at + 2)
}

/// Whole SSE events, each `data:` line that carries the key finished.
fn finish_sse(events: &[u8]) -> Bytes {
    if !contains_key(events) {
        return Bytes::copy_from_slice(events);
    }
    let mut out = Vec::with_capacity(events.len());
    for line in events.split_inclusive(|b| *b == b'\n') {
        let data = line
            .strip_prefix(b"data:")
            .map(|d| d.strip_prefix(b" ").unwrap_or(d));
        match data.and_then(finish_message) {
            Some(finished) => {
                out.extend_from_slice(b"data: ");
                out.extend_from_slice(&finished);
                if line.ends_with(b"\n") {
                    out.push(b'\n');
                }
            }
            None => out.extend_from_slice(line),
        }
    }
    Bytes::from(out)
}

fn contains_key(bytes: &[u8]) -> bool {
    let key = EXECUTION_META_KEY.as_bytes();
    bytes.windows(key.len()).any(|w| w == key)
}

/// One JSON-RPC message finished, when it is an answer carrying the key.
fn finish_message(bytes: &[u8]) -> Option<Vec<u8>> {
    if !contains_key(bytes) {
        return None;
    }
    let mut message: Value = serde_json::from_slice(bytes.trim_ascii_end()).ok()?;
    finish_listed_tools(message.get_mut("result")?);
    serde_json::to_vec(&message).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn listing() -> Value {
        json!({"jsonrpc": "2.0", "id": 3, "result": {"tools": [
            {"name": "a", "inputSchema": {}, "_meta": {EXECUTION_META_KEY: {"taskSupport": "required"}}},
            {"name": "b", "inputSchema": {}, "_meta": {"vendor/x": 1, EXECUTION_META_KEY: {"taskSupport": "forbidden"}}},
            {"name": "c", "inputSchema": {}, "_meta": {"vendor/y": 2}}
        ]}})
    }

    fn finished() -> Value {
        json!({"jsonrpc": "2.0", "id": 3, "result": {"tools": [
            {"name": "a", "inputSchema": {}, "execution": {"taskSupport": "required"}},
            {"name": "b", "inputSchema": {}, "_meta": {"vendor/x": 1}, "execution": {"taskSupport": "forbidden"}},
            {"name": "c", "inputSchema": {}, "_meta": {"vendor/y": 2}}
        ]}})
    }

    #[test]
    fn a_json_answer_gets_each_tools_execution_and_loses_the_private_key() {
        let sent = finish_message(listing().to_string().as_bytes()).unwrap();
        assert_eq!(serde_json::from_slice::<Value>(&sent).unwrap(), finished());
        // Without the key, nothing is parsed or changed.
        assert!(finish_message(finished().to_string().as_bytes()).is_none());
        assert!(finish_message(b"not json toolLayer/execution").is_none());
    }

    #[tokio::test]
    async fn sse_events_split_anywhere_are_finished_whole_and_others_pass_unchanged() {
        let events = format!(
            "id: 0\nretry: 3000\ndata: \n\nevent: message\ndata: {}\n\nevent: message\ndata: {{\"jsonrpc\":\"2.0\",\"method\":\"x\"}}\n\n",
            listing()
        );
        for cut in [1, 7, 20, events.len() / 2, events.len() - 1] {
            let (a, b) = events.split_at(cut);
            let body = Body::from_stream(futures::stream::iter([
                Ok::<_, std::io::Error>(Bytes::copy_from_slice(a.as_bytes())),
                Ok(Bytes::copy_from_slice(b.as_bytes())),
            ]));
            let out: Vec<u8> = finish_events(body)
                .map(|chunk| chunk.unwrap().to_vec())
                .concat()
                .await;
            let out = String::from_utf8(out).unwrap();
            let parts: Vec<&str> = out.split("\n\n").collect();
            assert_eq!(parts[0], "id: 0\nretry: 3000\ndata: ", "cut {cut}");
            let data = parts[1].strip_prefix("event: message\ndata: ").unwrap();
            assert_eq!(serde_json::from_str::<Value>(data).unwrap(), finished());
            assert_eq!(
                parts[2],
                "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"x\"}"
            );
        }
    }
}
