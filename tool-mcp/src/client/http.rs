//! The HTTP side of streamable HTTP sessions: the host's guard (an SSRF
//! policy: tool-core's [`SsrfGuard`] through [`SsrfHttpGuard`], or the
//! host's own [`HttpGuard`]) and the client wrapper that notices the
//! guard's refusals.
//!
//! A host that lets a model, a configuration file or a remote party choose
//! MCP URLs hands in a guard through
//! [`ManagerOptions::ssrf_guard`](crate::ManagerOptions::ssrf_guard) (the
//! same [`SsrfGuard`] its HTTP tools use) or
//! [`ManagerOptions::http_guard`](crate::ManagerOptions::http_guard):
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
use tool_core::net::{RedirectRule, SsrfGuard, refusal_in};

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
/// [`SsrfHttpGuard`] implements it over tool-core's [`SsrfGuard`]; a host
/// with another policy implements it itself.
pub trait HttpGuard: Send + Sync {
    /// The client every session uses (asked once per session).
    fn client(&self) -> reqwest::Client;

    /// Checks a server URL before anything is sent; `Err` is the reason.
    fn check_url(&self, url: &str) -> Result<(), String>;

    /// The guard's own refusal inside `error` (a `reqwest::Error` and its
    /// sources), described; `None` when the failure is something else.
    fn refusal(&self, error: &(dyn StdError + 'static)) -> Option<String>;
}

/// tool-core's [`SsrfGuard`] as the guard of MCP sessions: the same address
/// policy as HTTP tools (on the URL, behind names, at each connection and
/// at each redirect hop), with MCP's redirect rule,
/// [`RedirectRule::SameOriginKeepMethod`]: only 307/308 to the first
/// request's origin are followed (up to the policy's redirect cap, 5 by
/// default). Another origin would be handed the session id and the
/// configured headers, and 301–303 would turn the JSON-RPC POST into a GET;
/// such answers come back unfollowed. Refusals are found anywhere in a
/// failed request's error chain ([`refusal_in`]).
///
/// ```
/// use tool_core::net::{SsrfGuard, SsrfPolicy};
/// use tool_mcp::{ManagerOptions, SsrfHttpGuard};
/// let guard = SsrfGuard::new(SsrfPolicy::default().allow("127.0.0.1")?);
/// let options = ManagerOptions::default().ssrf_guard(&guard)?;
/// # let _ = (options, SsrfHttpGuard::new(&guard)?);
/// # Ok::<(), tool_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct SsrfHttpGuard {
    guard: SsrfGuard,
    client: reqwest::Client,
}

impl SsrfHttpGuard {
    /// `guard`'s policy with MCP's redirect rule, and its client (built
    /// once, shared by every session). Fails only when the TLS backend
    /// cannot start ([`tool_core::Error::HttpClient`]).
    pub fn new(guard: &SsrfGuard) -> Result<Self, tool_core::Error> {
        let guard = guard.with_redirect_rule(RedirectRule::SameOriginKeepMethod);
        let client = guard
            .client_builder()
            .pool_max_idle_per_host(0)
            .build()
            .map_err(|e| tool_core::Error::HttpClient {
                message: e.to_string(),
            })?;
        Ok(Self { guard, client })
    }

    /// The guard, with MCP's redirect rule.
    pub fn guard(&self) -> &SsrfGuard {
        &self.guard
    }
}

impl HttpGuard for SsrfHttpGuard {
    fn client(&self) -> reqwest::Client {
        self.client.clone()
    }

    fn check_url(&self, url: &str) -> Result<(), String> {
        self.guard
            .check_url(url)
            .map(|_| ())
            .map_err(|blocked| blocked.to_string())
    }

    fn refusal(&self, error: &(dyn StdError + 'static)) -> Option<String> {
        refusal_in(error).map(|refusal| refusal.to_string())
    }
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
    /// The first `WWW-Authenticate` of a 401 (OAuth needed).
    challenges: RefusalSlot,
    /// The session id the transport sends (2025-11-25 sessions).
    session_ids: RefusalSlot,
    /// The `execution` of listed tools, read from SSE answers.
    listed: Option<Arc<crate::client::listed_execution::ListedExecution>>,
    /// The client's DPoP key: the token goes as `Authorization: DPoP`
    /// with a fresh proof per request (`client::dpop`).
    dpop: Option<Arc<crate::client::dpop::DpopKey>>,
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
            challenges: RefusalSlot::default(),
            session_ids: RefusalSlot::default(),
            listed: None,
            dpop: None,
        }
    }

    /// Sends the token with DPoP proofs of `key`.
    pub(crate) fn with_dpop(mut self, key: Option<Arc<crate::client::dpop::DpopKey>>) -> Self {
        self.dpop = key;
        self
    }

    /// One request of the session, as `send` makes it on the inner client:
    /// with the token as rmcp gives it, or, for a DPoP client, with
    /// `Authorization: DPoP` and a fresh proof in the headers (rmcp's
    /// client would write `Bearer`), a `use_dpop_nonce` refusal sent again
    /// once with the server's nonce; its refusals and challenges noted
    /// ([`watch`](Self::watch)).
    async fn request<T, F, Fut>(
        &self,
        method: &str,
        uri: &str,
        session_id: Option<&str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        send: F,
    ) -> Result<T, StreamableHttpError<reqwest::Error>>
    where
        F: Fn(Option<String>, HashMap<HeaderName, HeaderValue>) -> Fut,
        Fut: std::future::Future<Output = Result<T, StreamableHttpError<reqwest::Error>>>,
    {
        use crate::client::dpop::{USE_NONCE, learn_resource_nonce, resource_headers};
        let (Some(key), Some(token)) = (&self.dpop, auth_header.as_deref()) else {
            return self.watch(send(auth_header, custom_headers).await);
        };
        let sign = |headers: HashMap<HeaderName, HeaderValue>| {
            resource_headers(key, method, uri, token, headers)
                .map_err(|e| StreamableHttpError::UnexpectedServerResponse(e.into()))
        };
        let result = send(None, sign(custom_headers.clone())?).await;
        let result = match &result {
            Err(StreamableHttpError::AuthRequired(challenge))
                if challenge.www_authenticate_header.contains(USE_NONCE)
                    && learn_resource_nonce(
                        &self.client,
                        key,
                        uri,
                        token,
                        session_id,
                        &custom_headers,
                    )
                    .await =>
            {
                send(None, sign(custom_headers)?).await
            }
            _ => result,
        };
        self.watch(result)
    }

    fn note_session(&self, id: Option<&str>) {
        if let Some(id) = id {
            self.session_ids.note(id.to_owned());
        }
    }

    /// Where the session id the transport sends is noted (the first one).
    pub(crate) fn session_ids(&self) -> RefusalSlot {
        self.session_ids.clone()
    }

    /// Notes 401 challenges in `slot`.
    pub(crate) fn with_challenges(mut self, slot: RefusalSlot) -> Self {
        self.challenges = slot;
        self
    }

    fn watch<T>(
        &self,
        result: Result<T, StreamableHttpError<reqwest::Error>>,
    ) -> Result<T, StreamableHttpError<reqwest::Error>> {
        match &result {
            Err(StreamableHttpError::AuthRequired(challenge)) => self
                .challenges
                .note(challenge.www_authenticate_header.clone()),
            Err(StreamableHttpError::InsufficientScope(challenge)) => self
                .challenges
                .note(challenge.www_authenticate_header.clone()),
            _ => {}
        }
        if let (Err(StreamableHttpError::Client(error)), Some(guard)) = (&result, &self.guard)
            && let Some(reason) = guard.refusal(error)
        {
            self.refusals.note(reason);
        }
        result
    }

    /// The same client, reading the `execution` of listed tools into `listed`.
    pub(crate) fn with_listed(
        mut self,
        listed: Arc<crate::client::listed_execution::ListedExecution>,
    ) -> Self {
        self.listed = Some(listed);
        self
    }

    /// Notes `message` when it is a `tools/list` request (before it goes).
    fn note_sent(&self, message: &ClientJsonRpcMessage) {
        if let Some(listed) = &self.listed {
            listed.sent(message);
        }
    }

    /// Reads an answer's events as they pass, for the `execution` of
    /// listed tools (an SSE answer; a JSON one is rmcp's before we see it).
    fn peek(
        &self,
        result: Result<StreamableHttpPostResponse, StreamableHttpError<reqwest::Error>>,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<reqwest::Error>> {
        match (result, &self.listed) {
            (Ok(StreamableHttpPostResponse::Sse(stream, session)), Some(listed)) => {
                let listed = Arc::clone(listed);
                let stream = futures::StreamExt::inspect(stream, move |event| {
                    if let Ok(event) = event
                        && let Some(data) = &event.data
                    {
                        listed.received(data.as_bytes());
                    }
                });
                Ok(StreamableHttpPostResponse::Sse(
                    futures::StreamExt::boxed(stream),
                    session,
                ))
            }
            (other, _) => other,
        }
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

/// Which of rmcp's POST entry points a message came through: each is
/// passed on to the inner client as it came, with its size limits.
#[derive(Clone, Copy)]
enum PostLimits {
    /// `post_message`: the inner client's defaults.
    Default,
    /// `post_message_with_max_sse_event_size`.
    MaxSseEvent(usize),
    /// `post_message_with_response_limits`.
    Response(StreamableHttpResponseLimits),
}

impl WatchedClient {
    /// A JSON-RPC message POSTed through the entry point `limits` names:
    /// its session id and `tools/list` noted first, its SSE answer peeked.
    async fn post(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: PostLimits,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<reqwest::Error>> {
        self.note_session(session_id.as_deref());
        self.note_sent(&message);
        let result = self
            .request(
                "POST",
                &uri,
                session_id.as_deref(),
                auth_header,
                custom_headers,
                |auth, headers| {
                    let (uri, message, id) = (uri.clone(), message.clone(), session_id.clone());
                    async move {
                        match limits {
                            PostLimits::Default => {
                                self.client
                                    .post_message(uri, message, id, auth, headers)
                                    .await
                            }
                            PostLimits::MaxSseEvent(max) => {
                                self.client
                                    .post_message_with_max_sse_event_size(
                                        uri, message, id, auth, headers, max,
                                    )
                                    .await
                            }
                            PostLimits::Response(limits) => {
                                self.client
                                    .post_message_with_response_limits(
                                        uri, message, id, auth, headers, limits,
                                    )
                                    .await
                            }
                        }
                    }
                },
            )
            .await;
        self.peek(result)
    }

    /// The session's SSE stream (GET), with `max_sse_event_size` when
    /// rmcp gave one (else the inner client's default).
    async fn stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: Option<usize>,
    ) -> Result<BoxedSseResponse, StreamableHttpError<reqwest::Error>> {
        self.request(
            "GET",
            &uri,
            session_id.as_deref(),
            auth_header,
            custom_headers,
            |auth, headers| {
                let (uri, id, last) = (uri.clone(), session_id.clone(), last_event_id.clone());
                async move {
                    match max_sse_event_size {
                        None => self.client.get_stream(uri, id, last, auth, headers).await,
                        Some(max) => {
                            self.client
                                .get_stream_with_max_sse_event_size(
                                    uri, id, last, auth, headers, max,
                                )
                                .await
                        }
                    }
                }
            },
        )
        .await
    }
}

impl StreamableHttpClient for WatchedClient {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        id: Option<Arc<str>>,
        auth: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<reqwest::Error>> {
        let limits = PostLimits::Default;
        self.post(uri, message, id, auth, headers, limits).await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        id: Option<Arc<str>>,
        auth: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<reqwest::Error>> {
        let limits = PostLimits::MaxSseEvent(max_sse_event_size);
        self.post(uri, message, id, auth, headers, limits).await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        id: Option<Arc<str>>,
        auth: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<reqwest::Error>> {
        let limits = PostLimits::Response(limits);
        self.post(uri, message, id, auth, headers, limits).await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<reqwest::Error>> {
        self.request(
            "DELETE",
            &uri,
            Some(&session_id),
            auth_header,
            custom_headers,
            |auth, headers| {
                self.client
                    .delete_session(uri.clone(), session_id.clone(), auth, headers)
            },
        )
        .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        id: Option<Arc<str>>,
        last: Option<String>,
        auth: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxedSseResponse, StreamableHttpError<reqwest::Error>> {
        self.stream(uri, id, last, auth, headers, None).await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        id: Option<Arc<str>>,
        last: Option<String>,
        auth: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxedSseResponse, StreamableHttpError<reqwest::Error>> {
        let max = Some(max_sse_event_size);
        self.stream(uri, id, last, auth, headers, max).await
    }
}
