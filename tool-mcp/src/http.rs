//! The HTTP side of streamable HTTP sessions: the host's guard (an SSRF
//! policy, for instance tool-openapi's `SsrfGuard`) and the client wrapper
//! that notices the guard's refusals.
//!
//! tool-mcp does not know any SSRF policy itself. A host that lets a model,
//! a configuration file or a remote party choose MCP URLs hands in an
//! [`HttpGuard`] through [`ManagerOptions::http_guard`](crate::ManagerOptions::http_guard):
//! its URL check runs before anything is sent, its client (resolver,
//! connector and redirect policy installed) carries every request, and its
//! refusals come back as [`Error::UrlRefused`](crate::Error::UrlRefused)
//! naming the configured URL.

use std::collections::HashMap;
use std::error::Error as StdError;
use std::sync::{Arc, Mutex, PoisonError};

use http::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::common::client_side_sse::BoxedSseResponse;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};

/// A host's policy for the HTTP connections of streamable HTTP MCP sessions.
///
/// The three parts work together:
///
/// 1. [`check_url`](Self::check_url) runs on the configured URL before a
///    session opens (the scheme, an IP literal in any spelling);
/// 2. [`client`](Self::client) carries every request, and must enforce the
///    policy on what the URL check cannot see: names that resolve to
///    refused addresses, redirects to them, the peer of each connection;
/// 3. [`refusal`](Self::refusal) recognises the client's refusals in a
///    failed request's error chain, so they are reported as refusals
///    rather than as a server that is down.
///
/// With tool-openapi, a host implements it over `SsrfGuard` in a few lines:
/// `client` → `guard.build_client()`, `check_url` → `guard.check_url(url)`,
/// `refusal` → `SsrfBlocked::find_in(error)`.
pub trait HttpGuard: Send + Sync {
    /// The client every session uses (asked once per session).
    fn client(&self) -> reqwest::Client;

    /// Checks a server URL before anything is sent; `Err` is the reason.
    fn check_url(&self, url: &str) -> Result<(), String>;

    /// The guard's own refusal inside `error` (a `reqwest::Error` and its
    /// sources), described; `None` when the failure is something else.
    fn refusal(&self, error: &(dyn StdError + 'static)) -> Option<String>;
}

/// The first refusal the guard made on one session.
#[derive(Debug, Clone, Default)]
pub(crate) struct RefusalSlot(Arc<Mutex<Option<String>>>);

impl RefusalSlot {
    pub(crate) fn get(&self) -> Option<String> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn note(&self, reason: String) {
        let mut slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.is_none() {
            *slot = Some(reason);
        }
    }
}

/// A `reqwest::Client` that reports the guard's refusals into a slot (rmcp
/// turns transport errors into text on the way up, losing their sources).
#[derive(Clone)]
pub(crate) struct WatchedClient {
    client: reqwest::Client,
    guard: Option<Arc<dyn HttpGuard>>,
    refusals: RefusalSlot,
}

impl WatchedClient {
    pub(crate) fn new(
        client: reqwest::Client,
        guard: Option<Arc<dyn HttpGuard>>,
        refusals: RefusalSlot,
    ) -> Self {
        Self {
            client,
            guard,
            refusals,
        }
    }

    fn watch<T>(
        &self,
        result: Result<T, StreamableHttpError<reqwest::Error>>,
    ) -> Result<T, StreamableHttpError<reqwest::Error>> {
        if let (Err(StreamableHttpError::Client(error)), Some(guard)) = (&result, &self.guard)
            && let Some(reason) = guard.refusal(error)
        {
            self.refusals.note(reason);
        }
        result
    }
}

/// The client used when the host gives none: no proxies from the
/// environment, no redirects followed (a redirect would replay the session
/// id and custom headers elsewhere), no idle pooling (rmcp's advice against
/// delayed-ACK stalls).
pub(crate) fn default_client() -> Result<reqwest::Client, reqwest::Error> {
    reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .pool_max_idle_per_host(0)
        .build()
}

impl StreamableHttpClient for WatchedClient {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<reqwest::Error>> {
        let result = self
            .client
            .post_message(uri, message, session_id, auth_header, custom_headers)
            .await;
        self.watch(result)
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<reqwest::Error>> {
        let result = self
            .client
            .post_message_with_max_sse_event_size(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await;
        self.watch(result)
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<reqwest::Error>> {
        let result = self
            .client
            .post_message_with_response_limits(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                limits,
            )
            .await;
        self.watch(result)
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<reqwest::Error>> {
        let result = self
            .client
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await;
        self.watch(result)
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxedSseResponse, StreamableHttpError<reqwest::Error>> {
        let result = self
            .client
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await;
        self.watch(result)
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxedSseResponse, StreamableHttpError<reqwest::Error>> {
        let result = self
            .client
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await;
        self.watch(result)
    }
}
