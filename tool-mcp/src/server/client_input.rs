//! What a served call asks its MCP client: a question for the user
//! (elicitation), a completion from the client's model (sampling), or the
//! client's roots — whichever protocol revision the client speaks.
//!
//! [`ClientLine::of`] finds the line in a served call's context. How an
//! ask travels depends on the request:
//!
//! - **2025-11-25 and older** (a session with an `initialize` handshake):
//!   the server sends `elicitation/create`, `sampling/createMessage` or
//!   `roots/list` to the client and waits for its answer.
//! - **2026-07-28** (stateless, no server→client requests): the call is
//!   answered by *multi-round-trip* (SEP-2322). An ask whose answer is not
//!   in the request yet stops the call; the server answers
//!   `resultType: "input_required"` with every question asked so far under
//!   its key and a sealed `requestState`; the client calls again with
//!   `inputResponses` and that state, and the call runs again from the
//!   start, each ask now answered from them. The state carries the answers
//!   of earlier rounds, HMAC-sealed (rmcp's `RequestStateCodec`) and bound
//!   to the method, the name and the arguments of the call, with a time to
//!   live: a state that was altered, or made for another call, is refused
//!   with `invalid_params` and the call does not run.
//!
//! A tool that asks on 2026-07-28 therefore runs once per round up to its
//! asks: do nothing that cannot be repeated before the last question.
//! Approval asks of the host's gate take the same way (key `approval-N`),
//! and so do [`ToolContext::elicit`](tool_core::ToolContext::elicit)
//! questions (key `elicitation-N`), numbered in the order the call asks.
//!
//! An ask for a capability the client did not declare is refused: on a
//! session, [`Error::ClientInput`]; on 2026-07-28 the whole request fails
//! with `-32021` (missing required client capability) naming it, as the
//! revision requires.

// Sampling and roots are deprecated in rmcp for a later revision (SEP-2577);
// both are current in 2025-11-25 and 2026-07-28, the revisions served here.
#![allow(deprecated)]

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::ErrorData;
use rmcp::RoleServer;
use rmcp::model::{
    ClientCapabilities, CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema,
    InputRequest, InputRequests, InputRequiredResult, InputResponses, ListRootsRequest,
    ListRootsResult, RequestStateCodec, SealOptions,
};
use rmcp::service::Peer;
use rmcp::task_manager::TaskContext;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::Notify;
use tool_core::{Elicitation, Elicited, ToolContext};

use crate::error::Error;
use crate::server::serve_tasks::Escalation;

/// How long a sealed `requestState` is accepted after it was handed out.
pub const REQUEST_STATE_TTL: Duration = Duration::from_secs(15 * 60);

/// A capability a client declares for what a server may ask it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClientCapability {
    /// `elicitation` (questions for the user).
    Elicitation,
    /// `sampling` (the client's model).
    Sampling,
    /// `roots`.
    Roots,
}

impl ClientCapability {
    fn declared(self, caps: &ClientCapabilities) -> bool {
        match self {
            Self::Elicitation => caps.elicitation.is_some(),
            Self::Sampling => caps.sampling.is_some(),
            Self::Roots => caps.roots.is_some(),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Elicitation => "elicitation",
            Self::Sampling => "sampling",
            Self::Roots => "roots",
        }
    }
}

/// One thing a served call asks its client.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum ClientAsk {
    /// A form question for the user.
    Elicit(Elicitation),
    /// A completion from the client's model.
    Sample(Box<CreateMessageRequestParams>),
    /// The client's roots.
    ListRoots,
}

impl ClientAsk {
    fn capability(&self) -> ClientCapability {
        match self {
            Self::Elicit(_) => ClientCapability::Elicitation,
            Self::Sample(_) => ClientCapability::Sampling,
            Self::ListRoots => ClientCapability::Roots,
        }
    }

    /// The line's refusal of this request, saying why.
    fn refused(&self, message: String) -> Error {
        Error::ClientInput {
            method: self.method().to_owned(),
            message,
        }
    }

    fn method(&self) -> &'static str {
        match self {
            Self::Elicit(_) => "elicitation/create",
            Self::Sample(_) => "sampling/createMessage",
            Self::ListRoots => "roots/list",
        }
    }

    fn to_input_request(&self) -> Result<InputRequest, String> {
        Ok(match self {
            Self::Elicit(question) => InputRequest::Elicitation(ElicitRequest::new(
                ElicitRequestParams::FormElicitationParams {
                    meta: None,
                    message: question.message.clone(),
                    requested_schema: form_schema(question)?,
                },
            )),
            Self::Sample(params) => {
                InputRequest::CreateMessage(CreateMessageRequest::new((**params).clone()))
            }
            Self::ListRoots => InputRequest::ListRoots(ListRootsRequest::default()),
        })
    }

    /// Reads the client's answer to this request.
    fn read_answer(&self, answer: Value) -> Result<ClientReply, String> {
        Ok(match self {
            Self::Elicit(_) => {
                let result: ElicitResult = serde_json::from_value(answer)
                    .map_err(|e| format!("is not an elicitation result: {e}"))?;
                ClientReply::Elicited(elicited(result))
            }
            Self::Sample(_) => ClientReply::Sampled(
                serde_json::from_value(answer)
                    .map_err(|e| format!("is not a sampling result: {e}"))?,
            ),
            Self::ListRoots => ClientReply::Roots(
                serde_json::from_value(answer)
                    .map_err(|e| format!("is not a roots/list result: {e}"))?,
            ),
        })
    }
}

pub(crate) fn form_schema(question: &Elicitation) -> Result<ElicitationSchema, String> {
    serde_json::from_value(question.requested_schema.clone())
        .map_err(|e| format!("the question's schema is not an MCP form schema: {e}"))
}

fn elicited(result: ElicitResult) -> Elicited {
    match result.action {
        ElicitationAction::Accept => Elicited::Accept(result.content.unwrap_or_else(|| json!({}))),
        ElicitationAction::Decline => Elicited::Decline,
        _ => Elicited::Cancel,
    }
}

/// The client's answer to a [`ClientAsk`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum ClientReply {
    /// The user's answer.
    Elicited(Elicited),
    /// The model's completion.
    Sampled(Box<CreateMessageResult>),
    /// The client's roots.
    Roots(ListRootsResult),
}

/// A served call's way to its MCP client (see the module guide).
#[derive(Clone)]
pub struct ClientLine {
    kind: LineKind,
    caps: ClientCapabilities,
}

#[derive(Clone)]
enum LineKind {
    /// A session: server→client requests.
    Session(Peer<RoleServer>),
    /// 2026-07-28: multi-round-trip; with an [`Escalation`], a call that
    /// may become a task when it says so ([`ClientLine::start_task`]).
    Rounds(Arc<Round>, Option<Arc<Escalation>>),
    /// A task (SEP-2663): the question waits in the task's
    /// `inputRequests` until the client answers by `tasks/update`.
    Task(TaskContext, Arc<AtomicUsize>),
}

impl std::fmt::Debug for ClientLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.kind {
            LineKind::Session(_) => "session",
            LineKind::Rounds(..) => "multi-round-trip",
            LineKind::Task(..) => "task",
        };
        f.debug_struct("ClientLine")
            .field("kind", &kind)
            .finish_non_exhaustive()
    }
}

impl ClientLine {
    pub(crate) fn session(peer: Peer<RoleServer>, caps: ClientCapabilities) -> Self {
        Self {
            kind: LineKind::Session(peer),
            caps,
        }
    }

    pub(crate) fn rounds(
        round: Arc<Round>,
        escalation: Option<Arc<Escalation>>,
        caps: ClientCapabilities,
    ) -> Self {
        Self {
            kind: LineKind::Rounds(round, escalation),
            caps,
        }
    }

    pub(crate) fn task(task: TaskContext, caps: ClientCapabilities) -> Self {
        Self {
            kind: LineKind::Task(task, Arc::default()),
            caps,
        }
    }

    /// The line of the served call `ctx` belongs to (none outside a served call).
    pub fn of(ctx: &ToolContext) -> Option<Self> {
        ctx.extension::<Self>().cloned()
    }

    /// Whether the client declared `capability` (on 2026-07-28, in this
    /// request's `_meta`).
    pub fn declares(&self, capability: ClientCapability) -> bool {
        capability.declared(&self.caps)
    }

    /// Whether asks travel by multi-round-trip (2026-07-28) or in a task
    /// (both: the question is data the client answers with a later
    /// request) rather than as requests on a session.
    pub fn is_multi_round_trip(&self) -> bool {
        matches!(self.kind, LineKind::Rounds(..) | LineKind::Task(..))
    }

    /// Says the call's long part starts here: a served tool the host let
    /// ask before it becomes a task
    /// ([`RegistryServer::with_questions_before_task`](crate::RegistryServer::with_questions_before_task)),
    /// called on 2026-07-28 by a client that declared the tasks extension,
    /// becomes a task now: the client gets the task (`CreateTaskResult`)
    /// and the call goes on in it, its later questions waiting in the task
    /// for `tasks/update`. Everywhere else (a session, a call that already
    /// is a task, a tool the host did not let ask first) it returns at once
    /// and changes nothing. Returns once the task exists.
    pub async fn start_task(&self) {
        if let LineKind::Rounds(_, Some(escalation)) = &self.kind {
            escalation.start().await;
        }
    }

    /// Asks the client `request` under `key` (the name of the question in
    /// an `input_required` result: stable for the same question across
    /// rounds, unique within a call). On 2026-07-28 an unanswered ask does
    /// not return: the call stops and is run again with the answer.
    ///
    /// # Errors
    ///
    /// [`Error::ClientInput`] when the client did not declare the
    /// capability, refused or failed the request, or the question cannot
    /// be sent (a schema MCP form elicitation cannot carry).
    pub async fn ask(
        &self,
        key: &str,
        request: ClientAsk,
        ctx: &ToolContext,
    ) -> Result<ClientReply, Error> {
        let refused = |message: String| request.refused(message);
        let capability = request.capability();
        match &self.kind {
            LineKind::Rounds(round, escalation) => {
                // Once the call became a task, what earlier rounds did not
                // answer is asked in the task.
                let task = escalation.as_ref().and_then(|e| e.task());
                match task {
                    Some(task) if !round.offered.contains_key(key) => {
                        self.ask_in_task(&task, key, &request, ctx).await
                    }
                    _ => {
                        if !self.declares(capability) {
                            round.stop(Stop::Missing(capability));
                            return std::future::pending().await;
                        }
                        round.answer(key, &request, ctx).await
                    }
                }
            }
            LineKind::Task(task, _) => self.ask_in_task(task, key, &request, ctx).await,
            LineKind::Session(peer) => {
                if !self.declares(capability) {
                    return Err(refused(format!(
                        "the client did not declare `{}`",
                        capability.name()
                    )));
                }
                let sent = async {
                    match &request {
                        ClientAsk::Elicit(question) => {
                            let schema = form_schema(question).map_err(refused)?;
                            peer.create_elicitation(ElicitRequestParams::FormElicitationParams {
                                meta: None,
                                message: question.message.clone(),
                                requested_schema: schema,
                            })
                            .await
                            .map(|r| ClientReply::Elicited(elicited(r)))
                            .map_err(|e| refused(e.to_string()))
                        }
                        ClientAsk::Sample(params) => peer
                            .create_message((**params).clone())
                            .await
                            .map(|r| ClientReply::Sampled(Box::new(r)))
                            .map_err(|e| refused(e.to_string())),
                        ClientAsk::ListRoots => peer
                            .list_roots()
                            .await
                            .map(ClientReply::Roots)
                            .map_err(|e| refused(e.to_string())),
                    }
                };
                tokio::select! {
                    biased;
                    () = ctx.cancellation().cancelled() => Err(refused("the call was cancelled while the client was asked".into())),
                    reply = sent => reply,
                }
            }
        }
    }

    /// `request` put in the task's `inputRequests` until the client
    /// answers it by `tasks/update`.
    async fn ask_in_task(
        &self,
        task: &TaskContext,
        key: &str,
        request: &ClientAsk,
        ctx: &ToolContext,
    ) -> Result<ClientReply, Error> {
        let refused = |message: String| request.refused(message);
        let capability = request.capability();
        if !self.declares(capability) {
            return Err(refused(format!(
                "the client did not declare `{}`",
                capability.name()
            )));
        }
        let input = request.to_input_request().map_err(refused)?;
        tokio::select! {
            biased;
            () = ctx.cancellation().cancelled() => Err(refused("the task was cancelled while the client was asked".into())),
            answer = task.request_input(key, input) => match answer {
                Ok(answer) => request.read_answer(answer).map_err(|why| refused(format!("inputResponses `{key}` {why}"))),
                Err(_) => Err(refused("the task was cancelled while the client was asked".into())),
            },
        }
    }

    /// The next key of an ask numbered by the line (`prefix-N`, from 1, in
    /// the order the call asks; the same on every round).
    pub(crate) fn next_key(&self, prefix: &str) -> String {
        let n = match &self.kind {
            LineKind::Rounds(round, _) => round.counter.fetch_add(1, Ordering::Relaxed) + 1,
            LineKind::Task(_, counter) => counter.fetch_add(1, Ordering::Relaxed) + 1,
            LineKind::Session(_) => 0,
        };
        format!("{prefix}-{n}")
    }
}

/// Why a round stopped the call.
#[derive(Debug, Clone)]
enum Stop {
    /// Questions to put to the client.
    Input,
    /// The call needs a capability the client did not declare.
    Missing(ClientCapability),
    /// An answer in `inputResponses` does not fit its question.
    Invalid(String),
}

/// The sealed content of a `requestState`: the answers of earlier rounds.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Sealed {
    answers: BTreeMap<String, Value>,
}

/// One request's round of a multi-round-trip call.
pub(crate) struct Round {
    /// Answers from the state and this request's `inputResponses`.
    offered: BTreeMap<String, Value>,
    /// Answers the call used this round (carried into the next state).
    used: Mutex<BTreeMap<String, Value>>,
    posed: Mutex<InputRequests>,
    stop: Mutex<Option<Stop>>,
    stopped: Notify,
    counter: AtomicUsize,
}

/// What a raced call came to.
pub(crate) enum Raced<T> {
    /// It finished.
    Done(T),
    /// It asked: answer `input_required`, or the error to send.
    Stopped(Result<InputRequiredResult, ErrorData>),
}

/// Seals and opens request states for one server.
#[derive(Clone)]
pub(crate) struct StateSeal {
    /// None: no key could be made; every state is refused.
    codec: Option<Arc<RequestStateCodec>>,
}

impl StateSeal {
    /// A seal keyed by `key` (at least 32 bytes).
    pub(crate) fn new(key: &[u8]) -> Result<Self, Error> {
        let codec = RequestStateCodec::try_new(key.to_vec())
            .map_err(|e| Error::Serve(format!("request state key: {e}")))?;
        Ok(Self {
            codec: Some(Arc::new(codec)),
        })
    }

    /// A seal that seals nothing and opens nothing.
    pub(crate) fn refusing() -> Self {
        Self { codec: None }
    }

    /// A seal with a fresh random key (states do not outlive the process).
    pub(crate) fn random() -> Result<Self, Error> {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key)
            .map_err(|e| Error::Serve(format!("no randomness for the request state key: {e}")))?;
        Self::new(&key)
    }
}

/// What a request state is bound to: the method, the name and the
/// arguments of the call.
pub(crate) fn binding(
    method: &str,
    name: &str,
    arguments: Option<&serde_json::Map<String, Value>>,
) -> Vec<u8> {
    let arguments = arguments
        .map(|a| Value::Object(a.clone()))
        .unwrap_or(Value::Null);
    format!("{method}\u{0}{name}\u{0}{arguments}").into_bytes()
}

impl Round {
    /// The round of a request with `state` and `responses`; `Err` when the
    /// state does not open (altered, expired, or made for another call).
    pub(crate) fn open(
        seal: &StateSeal,
        binding: &[u8],
        state: Option<&str>,
        responses: Option<InputResponses>,
    ) -> Result<Arc<Self>, ErrorData> {
        let mut offered = match state {
            None => BTreeMap::new(),
            Some(state) => {
                let refused = |why: String| {
                    ErrorData::invalid_params(
                        format!("requestState refused ({why}); call again without it"),
                        None,
                    )
                };
                let codec = seal
                    .codec
                    .as_ref()
                    .ok_or_else(|| refused("this server has no request state key".into()))?;
                let sealed: Sealed = codec
                    .open_json_with(state, binding)
                    .map_err(|e| refused(e.to_string()))?;
                sealed.answers
            }
        };
        offered.extend(responses.unwrap_or_default());
        Ok(Arc::new(Self {
            offered,
            used: Mutex::default(),
            posed: Mutex::default(),
            stop: Mutex::default(),
            stopped: Notify::new(),
            counter: AtomicUsize::new(0),
        }))
    }

    fn stop(&self, why: Stop) {
        let mut stop = self.stop.lock().unwrap_or_else(PoisonError::into_inner);
        // A missing capability or a bad answer outranks questions.
        if !matches!(*stop, Some(Stop::Missing(_) | Stop::Invalid(_))) {
            *stop = Some(why);
        }
        drop(stop);
        self.stopped.notify_one();
    }

    async fn answer(
        &self,
        key: &str,
        request: &ClientAsk,
        _ctx: &ToolContext,
    ) -> Result<ClientReply, Error> {
        if let Some(answer) = self.offered.get(key) {
            match request.read_answer(answer.clone()) {
                Ok(reply) => {
                    self.used
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .insert(key.to_owned(), answer.clone());
                    return Ok(reply);
                }
                Err(why) => self.stop(Stop::Invalid(format!("inputResponses `{key}` {why}"))),
            }
        } else {
            match request.to_input_request() {
                Ok(input) => {
                    self.posed
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .insert(key.to_owned(), input);
                    self.stop(Stop::Input);
                }
                Err(why) => return Err(request.refused(why)),
            }
        }
        std::future::pending().await
    }

    /// Runs `call` until it finishes or stops to ask.
    pub(crate) async fn race<T>(
        &self,
        seal: &StateSeal,
        binding: &[u8],
        call: impl Future<Output = T>,
    ) -> Raced<T> {
        tokio::select! {
            biased;
            done = call => Raced::Done(done),
            () = self.stopped.notified() => Raced::Stopped(self.stopped_result(seal, binding)),
        }
    }

    fn stopped_result(
        &self,
        seal: &StateSeal,
        binding: &[u8],
    ) -> Result<InputRequiredResult, ErrorData> {
        let stop = self
            .stop
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        match stop {
            Some(Stop::Missing(capability)) => {
                let mut required = ClientCapabilities::default();
                match capability {
                    ClientCapability::Elicitation => {
                        required.elicitation = Some(Default::default())
                    }
                    ClientCapability::Sampling => required.sampling = Some(Default::default()),
                    ClientCapability::Roots => required.roots = Some(Default::default()),
                }
                let mut error = ErrorData::missing_required_client_capability(required);
                error.message = format!(
                    "this request needs the client capability `{}`, which it did not declare",
                    capability.name()
                )
                .into();
                Err(error)
            }
            Some(Stop::Invalid(why)) => Err(ErrorData::invalid_params(why, None)),
            Some(Stop::Input) | None => {
                let answers =
                    std::mem::take(&mut *self.used.lock().unwrap_or_else(PoisonError::into_inner));
                let codec = seal.codec.as_ref().ok_or_else(|| {
                    ErrorData::internal_error("this server has no request state key", None)
                })?;
                let state = codec
                    .seal_json_with(
                        &Sealed { answers },
                        &SealOptions::new()
                            .associated_data(binding)
                            .ttl(REQUEST_STATE_TTL),
                    )
                    .map_err(|e| {
                        ErrorData::internal_error(format!("sealing requestState: {e}"), None)
                    })?;
                let posed =
                    std::mem::take(&mut *self.posed.lock().unwrap_or_else(PoisonError::into_inner));
                Ok(InputRequiredResult::new(Some(posed), Some(state)))
            }
        }
    }
}
