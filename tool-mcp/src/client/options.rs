//! [`ManagerOptions`]: how a [`McpManager`](crate::McpManager) connects
//! (HTTP client and guard, OAuth, limits), who answers servers' questions,
//! and what the client declares (elicitation, tasks).

use std::sync::Arc;

use crate::client::elicit::ElicitationHandler;
use crate::client::http::HttpGuard;
use crate::client::stderr::DEFAULT_STDERR_LIMIT;
use crate::trace::{SpanFields, TracePropagator};

/// Calls in a row a server may leave unanswered before it is restarted
/// (see [`ManagerOptions::restart_after_timeouts`]).
pub const DEFAULT_RESTART_AFTER_TIMEOUTS: u32 = 3;

/// The longest message taken from a stdio server unless
/// [`ManagerOptions::max_message_bytes`] says otherwise: 16 MiB.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = crate::client::stdio::DEFAULT_MAX_LINE;

/// Settings of a [`McpManager`](crate::McpManager).
///
/// Defaults: no HTTP guard and a plain client per session (no proxies, no
/// redirects followed), 16 KiB of stderr kept per stdio server, and
/// messages up to 16 MiB from stdio servers.
///
/// **Hosts that do not fully trust every configured URL** (a URL from a
/// model, a shared configuration file, a remote party) should pass an
/// guard with [`ssrf_guard`](Self::ssrf_guard) — tool-core's `SsrfGuard`,
/// so MCP servers obey the same address policy as HTTP tools — or their own
/// [`HttpGuard`] with [`http_guard`](Self::http_guard). Without one, an `http` server URL may point at loopback,
/// private or cloud-metadata addresses.
#[derive(Clone)]
pub struct ManagerOptions {
    pub(crate) http_client: Option<reqwest::Client>,
    pub(crate) http_guard: Option<Arc<dyn HttpGuard>>,
    pub(crate) stderr_limit: usize,
    pub(crate) max_message_bytes: usize,
    pub(crate) elicitation: Option<Arc<dyn ElicitationHandler>>,
    pub(crate) pending_questions: bool,
    pub(crate) tasks: bool,
    pub(crate) task_keys: Option<crate::client::task_handle::TaskKeys>,
    pub(crate) oauth: Option<crate::client::oauth::OAuthOptions>,
    pub(crate) propagator: Arc<dyn TracePropagator>,
    pub(crate) restart_after_timeouts: u32,
}

impl std::fmt::Debug for ManagerOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ManagerOptions")
            .field("http_client", &self.http_client.is_some())
            .field("http_guard", &self.http_guard.is_some())
            .field("stderr_limit", &self.stderr_limit)
            .field("max_message_bytes", &self.max_message_bytes)
            .field("elicitation", &self.elicitation.is_some())
            .field("pending_questions", &self.pending_questions)
            .field("tasks", &self.tasks)
            .field("task_keys", &self.task_keys)
            .field("oauth", &self.oauth)
            .field("restart_after_timeouts", &self.restart_after_timeouts)
            .finish_non_exhaustive()
    }
}

impl Default for ManagerOptions {
    fn default() -> Self {
        Self {
            http_client: None,
            http_guard: None,
            stderr_limit: DEFAULT_STDERR_LIMIT,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            elicitation: None,
            pending_questions: false,
            tasks: false,
            task_keys: None,
            oauth: None,
            propagator: Arc::new(SpanFields),
            restart_after_timeouts: DEFAULT_RESTART_AFTER_TIMEOUTS,
        }
    }
}

impl ManagerOptions {
    /// Uses this client for every streamable HTTP server (no URL check and
    /// no refusal reports: prefer [`http_guard`](Self::http_guard) for a
    /// guarded client). Replaces a guard set before.
    pub fn http_client(mut self, client: reqwest::Client) -> Self {
        self.http_client = Some(client);
        self.http_guard = None;
        self
    }

    /// Applies `guard` to every streamable HTTP server: its URL check before
    /// a session opens, its client for every request, its refusals reported
    /// as [`Error::UrlRefused`](crate::Error::UrlRefused) naming the configured URL. Replaces a client
    /// set with [`http_client`](Self::http_client).
    pub fn http_guard(mut self, guard: Arc<dyn HttpGuard>) -> Self {
        self.http_guard = Some(guard);
        self.http_client = None;
        self
    }

    /// Applies tool-core's `guard` (the one the host's HTTP tools use) to
    /// every streamable HTTP server, with MCP's redirect rule: see
    /// [`SsrfHttpGuard`](crate::SsrfHttpGuard). Replaces a client or guard set before.
    pub fn ssrf_guard(self, guard: &tool_core::net::SsrfGuard) -> Result<Self, tool_core::Error> {
        Ok(self.http_guard(Arc::new(crate::client::http::SsrfHttpGuard::new(guard)?)))
    }

    /// Authorizes streamable HTTP servers that ask for OAuth 2.1 (a `401`
    /// to the handshake) as [`OAuthOptions`](crate::OAuthOptions) say; see
    /// the `oauth` guide in [`Authorizer`](crate::Authorizer). Without it
    /// such a server fails with [`Error::Unauthorized`](crate::Error::Unauthorized).
    pub fn oauth(mut self, oauth: crate::client::oauth::OAuthOptions) -> Self {
        self.oauth = Some(oauth);
        self
    }

    /// Answers servers' elicitation requests (and declares the capability).
    pub fn elicitation(mut self, handler: Arc<dyn ElicitationHandler>) -> Self {
        self.elicitation = Some(handler);
        self
    }

    /// Lets a 2026-07-28 server's questions to a [`McpTool`](crate::McpTool)
    /// call wait as data: what no [`elicitation`](Self::elicitation) handler
    /// and no asker of the call's context answers becomes the call's
    /// `input_required` output, which tool-core's durable turn
    /// ([`Invoker::invoke_turn`](tool_core::Invoker::invoke_turn)) keeps
    /// pending and [`Invoker::resume`](tool_core::Invoker::resume) sends
    /// again with the answers and the server's request state, in any
    /// process (see [`McpTool`](crate::McpTool)). Declares the elicitation
    /// capability; a 2025-11-25 server's `elicitation/create` (which
    /// cannot wait: the server holds the call open) that no handler
    /// answers is cancelled.
    pub fn pending_questions(mut self, pending: bool) -> Self {
        self.pending_questions = pending;
        self
    }

    /// Declares the tasks extension (SEP-2663) to every server, so a
    /// server may make a call a task (and a tool it runs only as a task,
    /// refused with `-32021` otherwise, can be called): the call then
    /// follows its task to the end — `tasks/get` at the server's poll
    /// interval, the task's questions answered like a call's (the
    /// [`elicitation`](Self::elicitation) handler) by `tasks/update`, the
    /// result returned as the call's; a call dropped or timed out first
    /// cancels its task (`tasks/cancel`). Off by default: a long task then
    /// holds the call for as long as it runs, within the call's timeout.
    pub fn tasks(mut self, tasks: bool) -> Self {
        self.tasks = tasks;
        self
    }

    /// The keys task handles are made and checked with: with them,
    /// [`McpManager::start_task`](crate::McpManager::start_task) hands a
    /// task back as a [`McpTaskHandle`](crate::McpTaskHandle) that any
    /// process with the same keys can follow, and
    /// [`task_status`](crate::McpManager::task_status),
    /// [`wait_task`](crate::McpManager::wait_task) and
    /// [`cancel_task`](crate::McpManager::cancel_task) take such handles.
    pub fn task_keys(mut self, keys: crate::client::task_handle::TaskKeys) -> Self {
        self.task_keys = Some(keys);
        self
    }

    /// Who makes the trace context each `tools/call` carries in `_meta`
    /// (default [`SpanFields`]: W3C ids made here, recorded on the client
    /// span). A host exporting to OpenTelemetry passes a bridge to its SDK
    /// (see [`TracePropagator`]).
    pub fn trace_propagator(mut self, propagator: Arc<dyn TracePropagator>) -> Self {
        self.propagator = propagator;
        self
    }

    /// Restarts a server after this many calls in a row were dropped
    /// before it answered (a deadline passed, the host cancelled): its
    /// session is let go, the next request opens a new one (a new process
    /// for stdio), and no timed-out call is sent again. Default
    /// [`DEFAULT_RESTART_AFTER_TIMEOUTS`]; 0 never restarts.
    pub fn restart_after_timeouts(mut self, calls: u32) -> Self {
        self.restart_after_timeouts = calls;
        self
    }

    /// The longest message taken from a stdio server (default
    /// [`DEFAULT_MAX_MESSAGE_BYTES`], 16 MiB). A longer one is read to its
    /// end without being kept, and the request it answers fails at once
    /// with [`Error::MessageTooLarge`](crate::Error::MessageTooLarge); the session goes on.
    pub fn max_message_bytes(mut self, bytes: usize) -> Self {
        self.max_message_bytes = bytes;
        self
    }

    /// Keeps at most `bytes` of each stdio server's stderr.
    pub fn stderr_limit(mut self, bytes: usize) -> Self {
        self.stderr_limit = bytes;
        self
    }
}
