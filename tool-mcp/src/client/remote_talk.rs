//! What a remote server says while one of our calls runs, handed to the
//! host: `notifications/progress` for the call's `progressToken` and
//! `notifications/message` log lines, to the call's
//! [`CallEvents`](tool_core::CallEvents).
//!
//! Every request carries a `progressToken` (rmcp gives each one its own);
//! a call made with events ([`McpManager::call_tool_with_events`](crate::McpManager::call_tool_with_events),
//! and every [`McpTool`](crate::McpTool) call, whose events are its
//! context's) registers under its token, and a progress notification goes
//! to the call holding it. rmcp hands notifications to the handler on
//! tasks of their own, so a note the server sent just before its answer can
//! be handled just after it: a finished call still gets its progress for
//! two seconds. MCP does not tie log lines to a
//! request, so a server's log line goes to every call with events in
//! flight on that server (none: it is dropped).
//!
//! Also here: SEP-1034 on the answering side. When the host's user accepts
//! an elicitation, fields they left out that the schema gives a `default`
//! are filled in before the answer goes back ([`with_defaults`]).

// MCP logging is deprecated in rmcp for a later protocol revision (SEP-2577);
// it is current in 2025-11-25, the revision served and proposed here.
#![allow(deprecated)]

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotificationParam, ClientRequest,
    LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken, ServerResult,
};
use rmcp::service::{Peer, PeerRequestOptions};
use rmcp::{RoleClient, ServiceError};
use serde_json::Value;
use tool_core::{CallEvents, LogLevel, Progress};
use tracing::Instrument;

use crate::client::abandon::OnAbandon;
use crate::client::remote_rounds::{Answerer, Reached, Rounds, rounds};
use crate::client::remote_tasks::follow;
use crate::level::from_mcp_level;
use crate::trace::{ClientTrace, record_error, record_result, record_rpc_error, semconv};

/// Progress notes kept for a token not registered yet (the answer to a
/// request can race its registration by a few microseconds).
const MAX_EARLY_NOTES: usize = 64;

/// How long a finished call still gets its progress notes: rmcp hands
/// notifications to the handler on tasks of their own, so the note a
/// server sent just before its answer may be handled just after it.
const LATE_NOTES: Duration = Duration::from_secs(2);

/// Finished calls kept for [`LATE_NOTES`].
const MAX_FINISHED: usize = 64;

type Finished = (ProgressToken, Arc<dyn CallEvents>, Instant);

#[derive(Default)]
struct Calls {
    by_token: HashMap<ProgressToken, Arc<dyn CallEvents>>,
    /// Calls whose request is being sent (their token is not known yet):
    /// they hear log lines already, since a server may log before the
    /// request's handle comes back to its caller.
    sending: HashMap<u64, Arc<dyn CallEvents>>,
    next_sending: u64,
    early: VecDeque<ProgressNotificationParam>,
    finished: VecDeque<Finished>,
}

impl Calls {
    /// The events of `token`'s call, in flight or finished a moment ago.
    fn events(&mut self, token: &ProgressToken) -> Option<Arc<dyn CallEvents>> {
        if let Some(events) = self.by_token.get(token) {
            return Some(Arc::clone(events));
        }
        let now = Instant::now();
        self.finished
            .retain(|(_, _, at)| now.duration_since(*at) < LATE_NOTES);
        self.finished
            .iter()
            .find(|(t, _, _)| t == token)
            .map(|(_, events, _)| Arc::clone(events))
    }
}

/// The calls with events in flight on one server.
#[derive(Default)]
pub(crate) struct InFlight {
    calls: Mutex<Calls>,
}

/// Removes its call from [`InFlight`] when dropped (the call ended, or
/// its future was dropped).
pub(crate) struct Registered {
    in_flight: Arc<InFlight>,
    token: ProgressToken,
}

impl Drop for Registered {
    fn drop(&mut self) {
        let mut calls = self.in_flight.lock();
        if let Some(events) = calls.by_token.remove(&self.token) {
            if calls.finished.len() == MAX_FINISHED {
                calls.finished.pop_front();
            }
            calls
                .finished
                .push_back((self.token.clone(), events, Instant::now()));
        }
    }
}

fn to_progress(note: &ProgressNotificationParam) -> Progress {
    Progress {
        progress: note.progress,
        total: note.total,
        message: note.message.clone(),
    }
}

/// A call whose request is being sent: it hears log lines from now on
/// (removed when dropped, unless [`Sending::sent`] registered it).
pub(crate) struct Sending {
    in_flight: Arc<InFlight>,
    id: u64,
    events: Arc<dyn CallEvents>,
}

impl Sending {
    /// The request went out with `token`: the call is registered under it
    /// (in the same step as it leaves the calls being sent, so no log line
    /// falls between) and gets the progress that arrived for it already.
    pub(crate) fn sent(self, token: ProgressToken) -> Registered {
        let registered =
            self.in_flight
                .register_from(token, Arc::clone(&self.events), Some(self.id));
        drop(self);
        registered
    }
}

impl Drop for Sending {
    fn drop(&mut self) {
        self.in_flight.lock().sending.remove(&self.id);
    }
}

impl InFlight {
    fn lock(&self) -> std::sync::MutexGuard<'_, Calls> {
        self.calls.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A call about to send its request: it hears log lines at once.
    pub(crate) fn sending(self: &Arc<Self>, events: Arc<dyn CallEvents>) -> Sending {
        let mut calls = self.lock();
        calls.next_sending += 1;
        let id = calls.next_sending;
        calls.sending.insert(id, Arc::clone(&events));
        Sending {
            in_flight: Arc::clone(self),
            id,
            events,
        }
    }

    /// Registers a call's events under the progress token rmcp gave its
    /// request, and hands them what arrived for it already.
    #[cfg(test)]
    fn register(self: &Arc<Self>, token: ProgressToken, events: Arc<dyn CallEvents>) -> Registered {
        self.register_from(token, events, None)
    }

    fn register_from(
        self: &Arc<Self>,
        token: ProgressToken,
        events: Arc<dyn CallEvents>,
        sending: Option<u64>,
    ) -> Registered {
        let early: VecDeque<ProgressNotificationParam> = {
            let mut calls = self.lock();
            if let Some(id) = sending {
                calls.sending.remove(&id);
            }
            calls.by_token.insert(token.clone(), Arc::clone(&events));
            let (mine, others) = std::mem::take(&mut calls.early)
                .into_iter()
                .partition(|note| note.progress_token == token);
            calls.early = others;
            mine
        };
        for note in &early {
            events.progress(None, &to_progress(note));
        }
        Registered {
            in_flight: Arc::clone(self),
            token,
        }
    }

    /// A `notifications/progress`: to the call holding its token, also
    /// for [`LATE_NOTES`] after it finished (kept a moment when no call
    /// holds it yet).
    pub(crate) fn progress(&self, note: &ProgressNotificationParam) {
        let events = {
            let mut calls = self.lock();
            match calls.events(&note.progress_token) {
                Some(events) => events,
                None => {
                    if calls.early.len() == MAX_EARLY_NOTES {
                        calls.early.pop_front();
                    }
                    calls.early.push_back(note.clone());
                    return;
                }
            }
        };
        events.progress(None, &to_progress(note));
    }

    /// A `notifications/message`: to every call in flight (and every call
    /// sending its request).
    pub(crate) fn log(&self, note: &LoggingMessageNotificationParam) {
        let all: Vec<Arc<dyn CallEvents>> = {
            let calls = self.lock();
            calls
                .by_token
                .values()
                .chain(calls.sending.values())
                .cloned()
                .collect()
        };
        if all.is_empty() {
            return;
        }
        let text = match &note.data {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let message = match &note.logger {
            Some(logger) => format!("{logger}: {text}"),
            None => text,
        };
        let level = from_mcp_level(note.level);
        for events in all {
            events.log(None, level, &message, Some(&note.data));
        }
    }
}

/// A call's events that go nowhere (a call made without events).
pub(crate) struct Unheard;

impl CallEvents for Unheard {
    fn progress(&self, _: Option<&str>, _: &Progress) {}
    fn log(&self, _: Option<&str>, _: LogLevel, _: &str, _: Option<&Value>) {}
}

/// `tools/call` on `peer` with the server's progress for it (and its log
/// lines meanwhile) handed to `events`, questions answered by `answerer`,
/// which may leave them waiting; when the server makes the call a task,
/// `on_task` is told of it before the task is followed. Each round is a
/// request of its own, each its own client span whose trace context the
/// request carries in `_meta`. Dropping the future sends the server
/// `notifications/cancelled`, as rmcp's own `call_tool` does.
pub(crate) async fn call_rounds_telling_task(
    peer: &Peer<RoleClient>,
    answerer: &impl Answerer,
    in_flight: &Arc<InFlight>,
    params: CallToolRequestParams,
    events: Arc<dyn CallEvents>,
    trace: &ClientTrace,
    on_task: impl FnOnce(&rmcp::model::Task) + Send,
) -> Result<Rounds, ServiceError> {
    match call_reaching(
        peer,
        answerer,
        in_flight,
        params,
        Arc::clone(&events),
        trace,
    )
    .await?
    {
        Reached::Task(task) => {
            on_task(&task);
            follow(peer, answerer, task, events.as_ref())
                .await
                .map(Rounds::Done)
        }
        Reached::Rounds(rounds) => Ok(rounds),
    }
}

/// [`call_rounds_telling_task`] up to where the server makes the call a
/// task, which is returned as it is (a detached task: see
/// [`McpManager::start_task`](crate::McpManager::start_task)).
pub(crate) async fn call_reaching(
    peer: &Peer<RoleClient>,
    answerer: &impl Answerer,
    in_flight: &Arc<InFlight>,
    params: CallToolRequestParams,
    events: Arc<dyn CallEvents>,
    trace: &ClientTrace,
) -> Result<Reached, ServiceError> {
    rounds(answerer, params, |mut params| {
        let events = Arc::clone(&events);
        let span = trace.span(&params.name);
        if let Some(context) = trace.inject(&span) {
            context.write_meta(params.meta.get_or_insert_with(Default::default));
        }
        let recorded = span.clone();
        async move {
            // The call hears log lines before its request is written: a
            // server may log at once, before the handle comes back here.
            let sending = in_flight.sending(events);
            // rmcp gives every request a progress token of its own: learn it from the handle.
            let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
            let handle = match peer
                .send_cancellable_request(request, PeerRequestOptions::no_options())
                .await
            {
                Ok(handle) => handle,
                Err(error) => {
                    record_failure(&recorded, &error);
                    return Err(error);
                }
            };
            recorded.record(semconv::JSONRPC_REQUEST_ID, handle.id.to_string());
            let _registered = sending.sent(handle.progress_token.clone());
            // A caller that goes away before the answer: the server is
            // told the request was abandoned.
            let id = handle.id.clone();
            let mut guard = OnAbandon::new(peer, move |peer| async move {
                let note = CancelledNotificationParam::new(
                    Some(id),
                    Some("request abandoned by the caller".into()),
                );
                let _ = peer.notify_cancelled(note).await;
            });
            let answer = handle.await_response().await;
            guard.disarm();
            match &answer {
                Ok(ServerResult::CallToolResult(result)) => record_result(&recorded, result),
                Ok(_) => {}
                Err(error) => record_failure(&recorded, error),
            }
            answer
        }
        .instrument(span)
    })
    .await
}

/// Records why a request failed on its span: the JSON-RPC code, or the
/// class of a failure with none.
fn record_failure(span: &tracing::Span, error: &ServiceError) {
    match error {
        ServiceError::McpError(error) => record_rpc_error(span, error),
        ServiceError::Timeout { .. } => record_error(span, "timeout", None),
        ServiceError::Cancelled { .. } => record_error(span, "cancelled", None),
        ServiceError::UnexpectedResponse => record_error(span, "unexpected_response", None),
        _ => record_error(span, "transport", None),
    }
}

/// An accepted elicitation answer with the schema's defaults for the
/// fields the user left out (SEP-1034). Answers that are not objects, and
/// schemas without properties, are left as they are.
pub(crate) fn with_defaults(mut answer: Value, schema: &Value) -> Value {
    let (Value::Object(fields), Some(Value::Object(properties))) =
        (&mut answer, schema.get("properties"))
    else {
        return answer;
    };
    for (name, property) in properties {
        if let Some(default) = property.get("default")
            && !fields.contains_key(name)
        {
            fields.insert(name.clone(), default.clone());
        }
    }
    answer
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tool_core::LogLevel;

    #[derive(Default)]
    struct Seen(Mutex<Vec<String>>);

    impl CallEvents for Seen {
        fn progress(&self, _: Option<&str>, progress: &Progress) {
            self.0
                .lock()
                .unwrap()
                .push(format!("{}/{:?}", progress.progress, progress.total));
        }

        fn log(&self, _: Option<&str>, level: LogLevel, message: &str, _: Option<&Value>) {
            self.0.lock().unwrap().push(format!("{level:?} {message}"));
        }
    }

    #[test]
    fn progress_goes_to_the_call_holding_the_token_and_logs_to_all() {
        let in_flight = Arc::new(InFlight::default());
        let (a, b) = (Arc::new(Seen::default()), Arc::new(Seen::default()));
        let token = |n| ProgressToken(rmcp::model::NumberOrString::Number(n));
        // A note that beats its call's registration is kept for it.
        in_flight.progress(&ProgressNotificationParam::new(token(1), 0.5));
        let ra = in_flight.register(token(1), a.clone());
        let rb = in_flight.register(token(2), b.clone());
        in_flight.progress(&ProgressNotificationParam::new(token(1), 1.0).with_total(2.0));
        in_flight.log(
            &LoggingMessageNotificationParam::new(rmcp::model::LoggingLevel::Info, json!("hi"))
                .with_logger("srv"),
        );
        assert_eq!(
            *a.0.lock().unwrap(),
            ["0.5/None", "1/Some(2.0)", "Info srv: hi"]
        );
        assert_eq!(*b.0.lock().unwrap(), ["Info srv: hi"]);
        drop(ra);
        drop(rb);
        assert!(in_flight.lock().by_token.is_empty(), "guards unregister");
    }

    #[test]
    fn a_call_hears_log_lines_while_its_request_is_still_being_sent() {
        let in_flight = Arc::new(InFlight::default());
        let a = Arc::new(Seen::default());
        let token = ProgressToken(rmcp::model::NumberOrString::Number(7));
        let note = |text: &str| {
            LoggingMessageNotificationParam::new(rmcp::model::LoggingLevel::Info, json!(text))
        };
        // The server logs before the request's handle is back.
        let sending = in_flight.sending(a.clone());
        in_flight.log(&note("first"));
        let registered = sending.sent(token.clone());
        in_flight.log(&note("second"));
        in_flight.progress(&ProgressNotificationParam::new(token, 1.0));
        assert_eq!(
            *a.0.lock().unwrap(),
            ["Info first", "Info second", "1/None"]
        );
        assert!(in_flight.lock().sending.is_empty(), "moved, not kept twice");
        drop(registered);
        // A send that fails: dropping it unregisters.
        let b = Arc::new(Seen::default());
        drop(in_flight.sending(b.clone()));
        in_flight.log(&note("nobody"));
        assert!(b.0.lock().unwrap().is_empty());
        assert!(in_flight.lock().sending.is_empty());
    }

    #[test]
    fn accepted_answers_get_the_defaults_of_fields_left_out() {
        let schema = json!({"type": "object", "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "note": {"type": "string"}
        }});
        assert_eq!(
            with_defaults(json!({"age": 41}), &schema),
            json!({"age": 41, "name": "John Doe"})
        );
        assert_eq!(with_defaults(json!("x"), &schema), json!("x"));
    }
}
