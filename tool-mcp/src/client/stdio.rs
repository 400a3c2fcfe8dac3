//! The stdio transport: a child process in its own process group, messages
//! as JSON lines — with answers to `tools/call` decoded straight into
//! `CallToolResult`.
//!
//! rmcp's own stdio transport decodes every incoming message through the
//! untagged `ServerResult` union, which tries some fifteen result types
//! before `CallToolResult` (about 7 µs per small answer, against about
//! 2 µs decoded directly). This transport remembers the ids of the
//! `tools/call` requests it sent and decodes their answers directly when
//! they have exactly the shape of a tool result; every other line goes
//! through rmcp's decoding unchanged. An answer to a pending `tools/call`
//! that does not decode fails that call at once (a JSON-RPC error naming
//! what was wrong); other unparsable lines are skipped, as rmcp does.
//!
//! `notifications/message` log lines go straight to the calls in flight
//! ([`InFlight::log`]) and never reach rmcp, which would decode each
//! through its untagged union and hand it to the handler on a task of its
//! own (about 8.6 µs per line, against about 1 µs to read and parse one):
//! a flood of log lines ahead of an answer then costs about what reading it
//! costs, and the lines reach the call in the order they were sent.

// MCP logging is deprecated in rmcp for a later protocol revision (SEP-2577);
// it is current in 2025-11-25, the revision served and proposed here.
#![allow(deprecated)]

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

use process_wrap::tokio::{ChildWrapper, CommandWrap};
use rmcp::RoleClient;
use rmcp::model::{
    CallToolResult, ClientJsonRpcMessage, ClientNotification, ClientRequest, ErrorData,
    JsonRpcError, JsonRpcMessage, JsonRpcResponse, JsonRpcVersion2_0,
    LoggingMessageNotificationMethod, LoggingMessageNotificationParam, RequestId,
    ServerJsonRpcMessage, ServerResult,
};
use rmcp::transport::Transport;
use serde::Deserialize;
use serde_json::{Map, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{ChildStderr, ChildStdin, ChildStdout};

use crate::client::line_id::IdScan;
use crate::client::listed_execution::ListedExecution;
use crate::client::remote_talk::InFlight;

/// Longest accepted line by default (as rmcp): longer ones are not
/// buffered; the request they answer fails with `mcp_message_too_large`.
pub(crate) const DEFAULT_MAX_LINE: usize = 16 * 1024 * 1024;

/// The [`ErrorData::data`] member that marks our own answer to a request
/// whose real answer was too long (`{"toolMcp": "message_too_large", …}`).
pub(crate) const TOO_LARGE_MARK: &str = "message_too_large";

/// How long a closing server may take to exit by itself, after its input
/// is closed and again after SIGTERM.
const EXIT_GRACE: std::time::Duration = std::time::Duration::from_millis(500);

/// SIGTERM (15 on every Unix this runs on).
#[cfg(unix)]
const SIGTERM: i32 = 15;

/// The MCP stdio shutdown of a server whose input is already closed: it
/// gets [`EXIT_GRACE`] to exit, then SIGTERM (its whole process group) and
/// [`EXIT_GRACE`] again, then SIGKILL.
async fn wind_down(mut child: Box<dyn ChildWrapper>) -> std::io::Result<()> {
    if tokio::time::timeout(EXIT_GRACE, child.wait()).await.is_ok() {
        return Ok(());
    }
    #[cfg(unix)]
    {
        let _ = child.signal(SIGTERM);
        if tokio::time::timeout(EXIT_GRACE, child.wait()).await.is_ok() {
            return Ok(());
        }
    }
    Box::into_pin(child.kill()).await
}

/// The members a plain tool result may have; anything else (a task, an
/// input request) goes through rmcp's full decoding.
const CALL_RESULT_KEYS: &[&str] = &[
    "content",
    "structuredContent",
    "isError",
    "_meta",
    "resultType",
];

/// A response line, for the direct path.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Answer {
    jsonrpc: JsonRpcVersion2_0,
    id: RequestId,
    result: Map<String, Value>,
}

/// A `notifications/message` line, for the direct path.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LogNote {
    #[serde(rename = "jsonrpc")]
    _jsonrpc: JsonRpcVersion2_0,
    #[serde(rename = "method")]
    _method: LoggingMessageNotificationMethod,
    params: LoggingMessageNotificationParam,
}

pub(crate) struct StdioTransport {
    reader: BufReader<ChildStdout>,
    line: Vec<u8>,
    max_line: usize,
    /// While a line too long to keep is read to its end: its length so far
    /// and the scan for its `id`.
    oversized: Option<(usize, IdScan)>,
    writer: Arc<tokio::sync::Mutex<Option<ChildStdin>>>,
    /// Ids of `tools/call` requests sent and not answered (nor cancelled).
    calls: Arc<Mutex<HashSet<RequestId>>>,
    /// Where log lines go (the session's calls in flight).
    logs: Arc<InFlight>,
    /// The `execution` of listed tools, read from the raw answers.
    listed: Arc<ListedExecution>,
    child: Option<Box<dyn ChildWrapper>>,
}

impl StdioTransport {
    /// Spawns `command` with piped stdio; returns the transport, the
    /// child's stderr and its process id. Log lines go to `logs`.
    pub(crate) fn spawn(
        mut command: CommandWrap,
        max_line: usize,
        logs: Arc<InFlight>,
        listed: Arc<ListedExecution>,
    ) -> std::io::Result<(Self, Option<ChildStderr>, Option<u32>)> {
        command
            .command_mut()
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = command.spawn()?;
        let stdin = child
            .stdin()
            .take()
            .ok_or_else(|| std::io::Error::other("the child's stdin is not piped"))?;
        let stdout = child
            .stdout()
            .take()
            .ok_or_else(|| std::io::Error::other("the child's stdout is not piped"))?;
        let stderr = child.stderr().take();
        let pid = child.id();
        Ok((
            Self {
                reader: BufReader::new(stdout),
                line: Vec::new(),
                max_line,
                oversized: None,
                writer: Arc::new(tokio::sync::Mutex::new(Some(stdin))),
                calls: Arc::new(Mutex::new(HashSet::new())),
                logs,
                listed,
                child: Some(child),
            },
            stderr,
            pid,
        ))
    }

    fn calls(&self) -> std::sync::MutexGuard<'_, HashSet<RequestId>> {
        self.calls.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// One whole line into `self.line` (cancel-safe: a read dropped midway
    /// leaves its bytes there for the next call). A line longer than
    /// `max_line` is not kept: it is read to its end, scanned for its `id`,
    /// and reported as [`Line::Oversized`]. `None` at end of stream.
    async fn read_line(&mut self) -> Option<Line> {
        loop {
            let available = self.reader.fill_buf().await.ok()?;
            if available.is_empty() {
                return None;
            }
            let newline = available.iter().position(|b| *b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            match &mut self.oversized {
                Some((length, scan)) => {
                    *length = length.saturating_add(take);
                    scan.feed(&available[..take]);
                }
                None if self.line.len().saturating_add(take) > self.max_line => {
                    let mut scan = IdScan::default();
                    scan.feed(&self.line);
                    scan.feed(&available[..take]);
                    self.oversized = Some((self.line.len().saturating_add(take), scan));
                    self.line.clear();
                }
                None => self.line.extend_from_slice(&available[..take]),
            }
            self.reader.consume(take);
            if newline.is_some() {
                return Some(match self.oversized.take() {
                    Some((length, scan)) => Line::Oversized {
                        length,
                        id: scan.id(),
                    },
                    None => Line::Whole,
                });
            }
        }
    }

    /// The answer standing for a line too long to keep: an error for the
    /// request it answers, when its `id` is one rmcp waits for.
    fn too_large(&self, length: usize, id: Option<RequestId>) -> Option<ServerJsonRpcMessage> {
        tracing::error!(
            length,
            max = self.max_line,
            ?id,
            "an MCP server sent a message longer than the limit; dropped"
        );
        let id = id?;
        self.calls().remove(&id);
        Some(JsonRpcMessage::Error(JsonRpcError {
            jsonrpc: JsonRpcVersion2_0,
            id: Some(id),
            error: ErrorData::internal_error(
                format!(
                    "the server's answer is {length} bytes, over the limit of {} bytes",
                    self.max_line
                ),
                Some(serde_json::json!({
                    "toolMcp": TOO_LARGE_MARK,
                    "length": length,
                    "limit": self.max_line,
                })),
            ),
        }))
    }
}

/// What [`StdioTransport::read_line`] read.
enum Line {
    /// A line, in `line`.
    Whole,
    /// A line over the limit: its length and top-level `id`.
    Oversized {
        length: usize,
        id: Option<RequestId>,
    },
}

/// The direct path: an answer to a `tools/call` in `calls`, shaped like a
/// plain tool result (its id leaves `calls`); `None` for anything else.
fn call_answer(calls: &Mutex<HashSet<RequestId>>, line: &[u8]) -> Option<ServerJsonRpcMessage> {
    let calls_of = || calls.lock().unwrap_or_else(PoisonError::into_inner);
    if calls_of().is_empty() {
        return None;
    }
    let answer: Answer = serde_json::from_slice(line).ok()?;
    if !answer
        .result
        .keys()
        .all(|k| CALL_RESULT_KEYS.contains(&k.as_str()))
        || !calls_of().contains(&answer.id)
    {
        return None;
    }
    let result: CallToolResult = serde_json::from_value(Value::Object(answer.result)).ok()?;
    calls_of().remove(&answer.id);
    Some(JsonRpcMessage::Response(JsonRpcResponse {
        jsonrpc: answer.jsonrpc,
        id: answer.id,
        result: ServerResult::CallToolResult(result),
    }))
}

/// An answer to a pending `tools/call` that does not decode (an `error`
/// without a numeric code or a message, neither `result` nor `error`;
/// rmcp takes any `result` and reports its shape itself): the call fails now,
/// with what was wrong, instead of waiting out its timeout for an answer
/// that already came. `None` for a line that is no answer to a pending call.
fn broken_answer(
    calls: &Mutex<HashSet<RequestId>>,
    line: &[u8],
    error: &serde_json::Error,
) -> Option<ServerJsonRpcMessage> {
    let Ok(Value::Object(message)) = serde_json::from_slice::<Value>(line) else {
        return None;
    };
    if message.contains_key("method") {
        return None;
    }
    let id: RequestId = serde_json::from_value(message.get("id")?.clone()).ok()?;
    if !calls
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .remove(&id)
    {
        return None;
    }
    tracing::warn!(%error, "an MCP server answered a tool call with an invalid message");
    Some(JsonRpcMessage::Error(JsonRpcError {
        jsonrpc: JsonRpcVersion2_0,
        id: Some(id),
        error: ErrorData::internal_error(
            format!("the server's answer is not a valid MCP message: {error}"),
            None,
        ),
    }))
}

impl Drop for StdioTransport {
    fn drop(&mut self) {
        if let Some(child) = self.child.take() {
            // Its input closed now (unless a write holds it: then when
            // that ends), the whole process group wound down by a task
            // when a runtime is there; killed at once when not.
            if let Ok(mut writer) = self.writer.try_lock() {
                drop(writer.take());
            }
            match tokio::runtime::Handle::try_current() {
                Ok(runtime) => {
                    runtime.spawn(wind_down(child));
                }
                Err(_) => {
                    let mut child = child;
                    let _ = child.start_kill();
                }
            }
        }
    }
}

fn trimmed(line: &[u8]) -> &[u8] {
    let line = line
        .strip_prefix(b"\xEF\xBB\xBF".as_slice())
        .unwrap_or(line);
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

impl Transport<RoleClient> for StdioTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        match &item {
            JsonRpcMessage::Request(request)
                if matches!(request.request, ClientRequest::CallToolRequest(_)) =>
            {
                self.calls().insert(request.id.clone());
            }
            JsonRpcMessage::Notification(notification) => {
                if let ClientNotification::CancelledNotification(cancelled) =
                    &notification.notification
                    && let Some(id) = &cancelled.params.request_id
                {
                    self.calls().remove(id);
                }
            }
            _ => {}
        }
        self.listed.sent(&item);
        let bytes = serde_json::to_vec(&item).map(|mut bytes| {
            bytes.push(b'\n');
            bytes
        });
        let writer = Arc::clone(&self.writer);
        async move {
            let bytes = bytes.map_err(std::io::Error::other)?;
            let mut writer = writer.lock().await;
            let stdin = writer.as_mut().ok_or_else(|| {
                std::io::Error::new(std::io::ErrorKind::NotConnected, "the transport is closed")
            })?;
            stdin.write_all(&bytes).await?;
            stdin.flush().await
        }
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        loop {
            if let Line::Oversized { length, id } = self.read_line().await? {
                match self.too_large(length, id) {
                    Some(answer) => return Some(answer),
                    None => continue,
                }
            }
            let line = std::mem::take(&mut self.line);
            let text = trimmed(&line);
            let message = if text.is_empty() {
                None
            } else if let Ok(note) = serde_json::from_slice::<LogNote>(text) {
                self.logs.log(&note.params);
                None
            } else if let Some(answer) = call_answer(&self.calls, text) {
                Some(answer)
            } else {
                self.listed.received(text);
                match serde_json::from_slice::<ServerJsonRpcMessage>(text) {
                    Ok(message) => Some(message),
                    Err(error) => broken_answer(&self.calls, text, &error).or_else(|| {
                        // Not a message (a server printing to stdout): skipped, as rmcp does.
                        tracing::debug!(%error, "an MCP server sent a line that is not a message");
                        None
                    }),
                }
            };
            // Keep the buffer's capacity for the next line.
            self.line = line;
            self.line.clear();
            if message.is_some() {
                return message;
            }
        }
    }

    /// Closes the server's stdin and winds it down (the MCP stdio
    /// shutdown): [`EXIT_GRACE`] to exit by itself, then SIGTERM and the
    /// same grace, then SIGKILL for what is left of its process group.
    async fn close(&mut self) -> Result<(), Self::Error> {
        drop(self.writer.lock().await.take());
        // A close cancelled from here on drops the child, which kills it
        // (the command is spawned with kill-on-drop).
        match self.child.take() {
            Some(child) => wind_down(child).await,
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full(line: &str) -> ServerJsonRpcMessage {
        serde_json::from_str(line).unwrap()
    }

    #[test]
    fn only_plain_answers_to_pending_calls_take_the_direct_path() {
        let calls = Mutex::new(HashSet::from([RequestId::Number(7)]));
        let echo = r#"{"result":{"content":[{"type":"text","text":"Echo: hi"}],"isError":false},"jsonrpc":"2.0","id":7}"#;
        let direct = call_answer(&calls, echo.as_bytes()).unwrap();
        assert_eq!(
            serde_json::to_value(&direct).unwrap(),
            serde_json::to_value(full(echo)).unwrap(),
            "the same message as rmcp's decoding"
        );
        assert!(matches!(
            direct,
            JsonRpcMessage::Response(JsonRpcResponse {
                result: ServerResult::CallToolResult(_),
                ..
            })
        ));
        assert!(
            calls.lock().unwrap().is_empty(),
            "answered ids are forgotten"
        );
        assert!(
            call_answer(&calls, echo.as_bytes()).is_none(),
            "not pending any more"
        );

        let calls = Mutex::new(HashSet::from([RequestId::Number(8)]));
        for other in [
            // another id, a task instead of a result, an error, a notification, garbage
            r#"{"result":{"content":[]},"jsonrpc":"2.0","id":9}"#,
            r#"{"result":{"task":{"taskId":"t"}},"jsonrpc":"2.0","id":8}"#,
            r#"{"error":{"code":-32602,"message":"no"},"jsonrpc":"2.0","id":8}"#,
            r#"{"method":"notifications/tools/list_changed","jsonrpc":"2.0"}"#,
            r#"{"result":{"content":[]},"jsonrpc":"2.0","id":8,"extra":1}"#,
            "not json",
        ] {
            assert!(call_answer(&calls, other.as_bytes()).is_none(), "{other}");
        }
        assert_eq!(calls.lock().unwrap().len(), 1, "still pending");
    }

    #[test]
    fn an_undecodable_answer_to_a_pending_call_fails_it() {
        let calls = Mutex::new(HashSet::from([RequestId::Number(3)]));
        let error = serde_json::from_str::<Value>("{").unwrap_err();
        for ignored in [
            // not JSON, another id, a request from the server, no id
            "not json",
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","error":{"code":"x"}}"#,
        ] {
            assert!(
                broken_answer(&calls, ignored.as_bytes(), &error).is_none(),
                "{ignored}"
            );
        }
        for broken in [
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":3}"#,
        ] {
            let calls = Mutex::new(HashSet::from([RequestId::Number(3)]));
            let Some(JsonRpcMessage::Error(answer)) =
                broken_answer(&calls, broken.as_bytes(), &error)
            else {
                panic!("{broken} fails the call");
            };
            assert_eq!(answer.id, Some(RequestId::Number(3)));
            assert!(
                answer.error.message.contains("not a valid MCP message"),
                "{answer:?}"
            );
            assert!(
                calls.lock().unwrap().is_empty(),
                "the call is no longer pending"
            );
        }
    }

    #[test]
    fn byte_order_marks_and_carriage_returns_are_trimmed() {
        assert_eq!(trimmed(b"\xEF\xBB\xBF{}\r\n"), b"{}");
        assert_eq!(trimmed(b"{}"), b"{}");
    }
}
