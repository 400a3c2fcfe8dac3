//! MCP spans in the OpenTelemetry semantic conventions for MCP, and W3C
//! Trace Context carried in a request's `_meta` (SEP-414).
//!
//! Each `tools/call` request our client sends is a `tracing` span (kind
//! client) and each one our server receives is another (kind server),
//! named `tools/call {gen_ai.tool.name}` (the `otel.name` field, which
//! `tracing-opentelemetry` takes as the span name) with the convention's
//! attributes, named by the constants of [`semconv`]. The client writes the
//! trace context of its span into the request's `params._meta`
//! (`traceparent`, `tracestate`, unprefixed as SEP-414 says); the server
//! reads it and makes its span a child of the client's, so one trace
//! crosses the process — on both protocol revisions and every transport.
//!
//! What is recorded: the method, the tool's name, the JSON-RPC id, the
//! protocol revision, the transport (`pipe` for stdio, `tcp` for HTTP),
//! the server's address and port (client side), a digest of the HTTP
//! session id (never the id itself: it authenticates the session), the
//! error class and JSON-RPC code. What never is: argument values, results,
//! headers, tokens.
//!
//! # Who makes the trace ids
//!
//! `tracing` has no trace ids of its own, so a [`TracePropagator`] decides
//! what goes on the wire and what a received context becomes:
//!
//! - [`SpanFields`] (the default) makes W3C ids itself: a client span
//!   continues the trace of the served call it runs inside (a proxy), or
//!   starts one; a server span continues the trace it received. Each span
//!   records `trace_id`, `span_id` and `parent_span_id` as fields, so any
//!   subscriber (a JSON log, a test) can join the two sides.
//! - A host exporting to OpenTelemetry (`tracing-opentelemetry`)
//!   implements the trait with its SDK: `inject` reads the span's
//!   OpenTelemetry context (`OpenTelemetrySpanExt::context`), `extract`
//!   sets the remote parent (`set_parent`); this crate stays free of the
//!   OpenTelemetry SDK.

// Without either half only the public types are used.
#![cfg_attr(
    not(any(feature = "client", feature = "server")),
    allow(dead_code, unused_macros)
)]

use std::hash::{BuildHasher, Hasher, RandomState};
use std::sync::atomic::{AtomicU64, Ordering};

use tracing::Span;

/// Attribute names of the OpenTelemetry semantic conventions for MCP (and
/// the GenAI, JSON-RPC, network and error attributes they use), plus the
/// `tracing-opentelemetry` span fields and the trace-id fields
/// [`SpanFields`](super::SpanFields) records.
pub mod semconv {
    /// The request or notification method (`tools/call`).
    pub const MCP_METHOD_NAME: &str = "mcp.method.name";
    /// The MCP session (here a digest of the HTTP session id, never the id).
    pub const MCP_SESSION_ID: &str = "mcp.session.id";
    /// The protocol revision of the request (`2026-07-28`).
    pub const MCP_PROTOCOL_VERSION: &str = "mcp.protocol.version";
    /// The tool called.
    pub const GEN_AI_TOOL_NAME: &str = "gen_ai.tool.name";
    /// The GenAI operation: [`EXECUTE_TOOL`] on `tools/call`, absent otherwise.
    pub const GEN_AI_OPERATION_NAME: &str = "gen_ai.operation.name";
    /// [`GEN_AI_OPERATION_NAME`] of a tool call.
    pub const EXECUTE_TOOL: &str = "execute_tool";
    /// The JSON-RPC id of the request, as a string.
    pub const JSONRPC_REQUEST_ID: &str = "jsonrpc.request.id";
    /// `pipe` (stdio) or `tcp` (HTTP).
    pub const NETWORK_TRANSPORT: &str = "network.transport";
    /// The server's host (client side, HTTP).
    pub const SERVER_ADDRESS: &str = "server.address";
    /// The server's port (client side, HTTP).
    pub const SERVER_PORT: &str = "server.port";
    /// Why the operation failed: the JSON-RPC code, [`TOOL_ERROR`] for an
    /// `isError` result, or a low-cardinality class (`timeout`,
    /// `cancelled`, `transport`).
    pub const ERROR_TYPE: &str = "error.type";
    /// [`ERROR_TYPE`] of a result with `isError: true`.
    pub const TOOL_ERROR: &str = "tool_error";
    /// The JSON-RPC error code of the response.
    pub const RPC_RESPONSE_STATUS_CODE: &str = "rpc.response.status_code";
    /// The span's name for `tracing-opentelemetry` (`tools/call {tool}`).
    pub const OTEL_NAME: &str = "otel.name";
    /// The span's kind for `tracing-opentelemetry` (`client`, `server`).
    pub const OTEL_KIND: &str = "otel.kind";
    /// `error` when [`ERROR_TYPE`] is set.
    pub const OTEL_STATUS_CODE: &str = "otel.status_code";
    /// The JSON-RPC error message, when there is one.
    pub const OTEL_STATUS_MESSAGE: &str = "otel.status_message";
    /// The W3C trace id of the span (32 hex digits).
    pub const TRACE_ID: &str = "trace_id";
    /// The W3C span id of the span (16 hex digits).
    pub const SPAN_ID: &str = "span_id";
    /// The W3C span id of the span's parent, when it has one.
    pub const PARENT_SPAN_ID: &str = "parent_span_id";
    /// The `_meta` key of the W3C `traceparent` (SEP-414, unprefixed).
    pub const META_TRACEPARENT: &str = "traceparent";
    /// The `_meta` key of the W3C `tracestate` (SEP-414, unprefixed).
    pub const META_TRACESTATE: &str = "tracestate";
}

/// The most bytes of a `tracestate` carried (W3C: 32 members of at most
/// 256 characters is the cap a vendor may rely on; 512 is what must be
/// propagated).
const MAX_TRACESTATE: usize = 512;

/// A W3C Trace Context: the trace, the span that is the parent of the
/// receiver's, the sampled flag and the vendors' `tracestate`.
///
/// ```
/// use tool_mcp::TraceContext;
/// let parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
/// let ctx = TraceContext::parse(parent, Some("rojo=00f067aa0ba902b7")).unwrap();
/// assert_eq!(ctx.trace_id_hex(), "4bf92f3577b34da6a3ce929d0e0e4736");
/// assert_eq!(ctx.traceparent(), parent);
/// // All-zero ids, upper case, a wrong length: not a context.
/// assert!(TraceContext::parse("00-00000000000000000000000000000000-00f067aa0ba902b7-01", None).is_none());
/// assert!(TraceContext::parse("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", None).is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceContext {
    trace_id: [u8; 16],
    span_id: [u8; 8],
    flags: u8,
    state: Option<String>,
}

tokio::task_local! {
    /// The context of the served call this task runs (server side).
    static CURRENT: TraceContext;
}

impl TraceContext {
    /// A context from its ids and sampled flag; `None` when an id is all
    /// zeros (invalid in W3C Trace Context).
    pub fn new(trace_id: [u8; 16], span_id: [u8; 8], sampled: bool) -> Option<Self> {
        (trace_id != [0; 16] && span_id != [0; 8]).then_some(Self {
            trace_id,
            span_id,
            flags: u8::from(sampled),
            state: None,
        })
    }

    /// This context with `tracestate` (dropped when longer than 512 bytes
    /// or not printable ASCII, as a receiver may do).
    pub fn with_state(mut self, state: Option<&str>) -> Self {
        self.state = state
            .filter(|s| {
                !s.is_empty()
                    && s.len() <= MAX_TRACESTATE
                    && s.bytes().all(|b| (0x20..0x7f).contains(&b))
            })
            .map(str::to_owned);
        self
    }

    /// Reads a `traceparent` header value (and `tracestate`): `None` when
    /// it is not one (version `ff`, wrong length or separators, anything
    /// but lower-case hex, all-zero ids). A later version is read by its
    /// first four fields, as the W3C recommendation says.
    pub fn parse(traceparent: &str, tracestate: Option<&str>) -> Option<Self> {
        let bytes = traceparent.as_bytes();
        let version = hex::<1>(bytes.get(0..2)?)?[0];
        let exact = bytes.len() == 55;
        let longer = bytes.len() > 55 && bytes.get(55) == Some(&b'-');
        if version == 0xff || (version == 0 && !exact) || !(exact || longer) {
            return None;
        }
        if bytes[2] != b'-' || bytes[35] != b'-' || bytes[52] != b'-' {
            return None;
        }
        let trace_id = hex::<16>(&bytes[3..35])?;
        let span_id = hex::<8>(&bytes[36..52])?;
        let flags = hex::<1>(&bytes[53..55])?[0];
        let mut ctx = Self::new(trace_id, span_id, false)?;
        ctx.flags = flags;
        Some(ctx.with_state(tracestate))
    }

    /// The `traceparent` value (version `00`).
    pub fn traceparent(&self) -> String {
        format!(
            "00-{}-{}-{:02x}",
            self.trace_id_hex(),
            self.span_id_hex(),
            self.flags
        )
    }

    /// The `tracestate` value, when there is one.
    pub fn tracestate(&self) -> Option<&str> {
        self.state.as_deref()
    }

    /// The trace id.
    pub fn trace_id(&self) -> [u8; 16] {
        self.trace_id
    }

    /// The span id (the parent of the receiver's span).
    pub fn span_id(&self) -> [u8; 8] {
        self.span_id
    }

    /// Whether the sender sampled the trace.
    pub fn sampled(&self) -> bool {
        self.flags & 1 == 1
    }

    /// The trace id in 32 lower-case hex digits.
    pub fn trace_id_hex(&self) -> String {
        to_hex(&self.trace_id)
    }

    /// The span id in 16 lower-case hex digits.
    pub fn span_id_hex(&self) -> String {
        to_hex(&self.span_id)
    }

    /// A new span in this trace (same trace, flags and state; a new id).
    pub fn child(&self) -> Self {
        Self {
            span_id: random_span_id(),
            ..self.clone()
        }
    }

    /// A new trace, sampled.
    pub fn root() -> Self {
        let high = random_u64().to_be_bytes();
        let low = random_u64().to_be_bytes();
        let mut trace_id = [0; 16];
        trace_id[..8].copy_from_slice(&high);
        trace_id[8..].copy_from_slice(&low);
        Self {
            trace_id,
            span_id: random_span_id(),
            flags: 1,
            state: None,
        }
    }

    /// The context of the served call the current task runs inside, when
    /// [`SpanFields`] made one (a client call made by a served tool — a
    /// proxy — continues its trace).
    pub fn current() -> Option<Self> {
        CURRENT.try_with(Self::clone).ok()
    }

    /// Runs `future` with `self` as the [`current`](Self::current) context.
    #[cfg(feature = "server")]
    pub(crate) async fn scope<F: Future>(self, future: F) -> F::Output {
        CURRENT.scope(self, future).await
    }

    /// Reads the context of a request's `_meta`.
    #[cfg(feature = "server")]
    pub(crate) fn from_meta(meta: &rmcp::model::MetaObject) -> Option<Self> {
        Self::parse(meta.get_traceparent()?, meta.get_tracestate())
    }

    /// Writes this context into a request's `_meta`.
    #[cfg(feature = "client")]
    pub(crate) fn write_meta(&self, meta: &mut rmcp::model::MetaObject) {
        meta.set_traceparent(self.traceparent());
        if let Some(state) = &self.state {
            meta.set_tracestate(state.clone());
        }
    }
}

/// Decides the trace context a request carries and what a received one
/// becomes.
///
/// `tracing` has no trace ids of its own. The default, [`SpanFields`],
/// makes W3C ids itself and records them on the spans. A host exporting
/// to OpenTelemetry (`tracing-opentelemetry`) implements this trait with
/// its SDK instead, so the ids on the wire are the exported spans' own:
/// `inject` turns `span.context().span().span_context()`
/// (`OpenTelemetrySpanExt`) into a [`TraceContext`], `extract` calls
/// `span.set_parent(..)` with the remote context. This crate stays free of
/// the OpenTelemetry SDK.
pub trait TracePropagator: Send + Sync {
    /// The context sent with a request whose client span is `span` (its
    /// `traceparent` names `span` as the parent); `None` sends none.
    fn inject(&self, span: &Span) -> Option<TraceContext>;

    /// Makes the server span `span` a child of `remote` (the request's
    /// context, when it carried a valid one). Returns the context of
    /// `span` itself, which requests sent while the call runs continue.
    fn extract(&self, span: &Span, remote: Option<&TraceContext>) -> Option<TraceContext>;
}

/// The default [`TracePropagator`]: W3C ids made here and recorded on each
/// span as `trace_id`, `span_id` and `parent_span_id`. A client span
/// continues the served call it runs inside ([`TraceContext::current`]) or
/// starts a trace; a server span continues the request's trace, or starts
/// one when the request carried none.
#[derive(Debug, Clone, Copy, Default)]
pub struct SpanFields;

impl SpanFields {
    fn record(span: &Span, own: &TraceContext, parent: Option<&TraceContext>) {
        span.record(semconv::TRACE_ID, own.trace_id_hex());
        span.record(semconv::SPAN_ID, own.span_id_hex());
        if let Some(parent) = parent {
            span.record(semconv::PARENT_SPAN_ID, parent.span_id_hex());
        }
    }
}

impl TracePropagator for SpanFields {
    fn inject(&self, span: &Span) -> Option<TraceContext> {
        let parent = TraceContext::current();
        let own = parent
            .as_ref()
            .map_or_else(TraceContext::root, TraceContext::child);
        Self::record(span, &own, parent.as_ref());
        Some(own)
    }

    fn extract(&self, span: &Span, remote: Option<&TraceContext>) -> Option<TraceContext> {
        let own = remote.map_or_else(TraceContext::root, TraceContext::child);
        Self::record(span, &own, remote);
        Some(own)
    }
}

/// A digest of an HTTP session id for [`semconv::MCP_SESSION_ID`]: the
/// same on both sides, and not the id (which authenticates the session).
pub(crate) fn session_digest(session_id: &str) -> String {
    let mut hasher = std::hash::DefaultHasher::new();
    hasher.write(session_id.as_bytes());
    format!("{:016x}", hasher.finish())
}

/// Ends `span` as failed with `error_type` (and `message`, when the peer
/// gave one).
pub(crate) fn record_error(span: &Span, error_type: &str, message: Option<&str>) {
    span.record(semconv::ERROR_TYPE, error_type);
    span.record(semconv::OTEL_STATUS_CODE, "error");
    if let Some(message) = message {
        span.record(semconv::OTEL_STATUS_MESSAGE, message);
    }
}

/// Records a JSON-RPC error on `span`.
pub(crate) fn record_rpc_error(span: &Span, error: &rmcp::ErrorData) {
    let code = error.code.0.to_string();
    span.record(semconv::RPC_RESPONSE_STATUS_CODE, code.as_str());
    record_error(span, &code, Some(&error.message));
}

/// Records a `tools/call` result with `isError: true` on `span`.
pub(crate) fn record_result(span: &Span, result: &rmcp::model::CallToolResult) {
    if result.is_error == Some(true) {
        record_error(span, semconv::TOOL_ERROR, None);
    }
}

/// A span of a `tools/call` request: `$kind` is `"client"` or `"server"`.
/// Every attribute is declared here (empty until recorded).
macro_rules! tools_call_span {
    ($kind:literal, $tool:expr) => {{
        use $crate::trace::semconv::*;
        let tool: &str = $tool;
        tracing::info_span!(
            "tools/call",
            { OTEL_NAME } = format!("tools/call {tool}"),
            { OTEL_KIND } = $kind,
            { MCP_METHOD_NAME } = "tools/call",
            { GEN_AI_OPERATION_NAME } = EXECUTE_TOOL,
            { GEN_AI_TOOL_NAME } = tool,
            { JSONRPC_REQUEST_ID } = tracing::field::Empty,
            { MCP_PROTOCOL_VERSION } = tracing::field::Empty,
            { MCP_SESSION_ID } = tracing::field::Empty,
            { NETWORK_TRANSPORT } = tracing::field::Empty,
            { SERVER_ADDRESS } = tracing::field::Empty,
            { SERVER_PORT } = tracing::field::Empty,
            { ERROR_TYPE } = tracing::field::Empty,
            { RPC_RESPONSE_STATUS_CODE } = tracing::field::Empty,
            { OTEL_STATUS_CODE } = tracing::field::Empty,
            { OTEL_STATUS_MESSAGE } = tracing::field::Empty,
            { TRACE_ID } = tracing::field::Empty,
            { SPAN_ID } = tracing::field::Empty,
            { PARENT_SPAN_ID } = tracing::field::Empty,
        )
    }};
}

/// What a client span records of the server it talks to, and the
/// propagator that makes its trace context.
#[cfg(feature = "client")]
pub(crate) struct ClientTrace {
    propagator: std::sync::Arc<dyn TracePropagator>,
    protocol_version: Option<String>,
    transport: &'static str,
    address: Option<(String, u16)>,
    session: Option<String>,
}

#[cfg(feature = "client")]
impl ClientTrace {
    /// `http_url`: the server's URL over streamable HTTP, `None` over stdio.
    pub(crate) fn new(
        propagator: std::sync::Arc<dyn TracePropagator>,
        http_url: Option<&str>,
        protocol_version: Option<String>,
        session_id: Option<&str>,
    ) -> Self {
        let (transport, address) = match http_url {
            None => ("pipe", None),
            Some(url) => (
                "tcp",
                reqwest::Url::parse(url).ok().and_then(|url| {
                    Some((url.host_str()?.to_owned(), url.port_or_known_default()?))
                }),
            ),
        };
        Self {
            propagator,
            protocol_version,
            transport,
            address,
            session: session_id.map(session_digest),
        }
    }

    /// A client span for a `tools/call` of `tool`.
    pub(crate) fn span(&self, tool: &str) -> Span {
        let span = tools_call_span!("client", tool);
        span.record(semconv::NETWORK_TRANSPORT, self.transport);
        if let Some(version) = &self.protocol_version {
            span.record(semconv::MCP_PROTOCOL_VERSION, version.as_str());
        }
        if let Some((host, port)) = &self.address {
            span.record(semconv::SERVER_ADDRESS, host.as_str());
            span.record(semconv::SERVER_PORT, *port);
        }
        if let Some(session) = &self.session {
            span.record(semconv::MCP_SESSION_ID, session.as_str());
        }
        span
    }

    /// The context a request sent in `span` carries.
    pub(crate) fn inject(&self, span: &Span) -> Option<TraceContext> {
        self.propagator.inject(span)
    }
}

/// The server span of a `tools/call` of `tool` received with `context`,
/// made a child of the request's trace context by `propagator`; with the
/// context the call continues (its own).
#[cfg(feature = "server")]
pub(crate) fn server_span(
    propagator: &dyn TracePropagator,
    tool: &str,
    context: &rmcp::service::RequestContext<rmcp::RoleServer>,
) -> (Span, Option<TraceContext>) {
    let span = tools_call_span!("server", tool);
    span.record(semconv::JSONRPC_REQUEST_ID, context.id.to_string());
    if let Some(version) = context.protocol_version() {
        span.record(semconv::MCP_PROTOCOL_VERSION, version.to_string());
    }
    // rmcp's HTTP service hands the request's head to the handler.
    let head = context.extensions.get::<axum::http::request::Parts>();
    span.record(
        semconv::NETWORK_TRANSPORT,
        if head.is_some() { "tcp" } else { "pipe" },
    );
    if let Some(session) = head
        .and_then(|head| head.headers.get("mcp-session-id"))
        .and_then(|value| value.to_str().ok())
    {
        span.record(semconv::MCP_SESSION_ID, session_digest(session));
    }
    let remote = TraceContext::from_meta(&context.meta);
    let own = propagator.extract(&span, remote.as_ref());
    (span, own)
}

/// Records how a served `tools/call` ended on its span.
#[cfg(feature = "server")]
pub(crate) fn record_response(
    span: &Span,
    response: &Result<rmcp::model::CallToolResponse, rmcp::ErrorData>,
) {
    match response {
        Ok(rmcp::model::CallToolResponse::Complete(result)) => record_result(span, result),
        Ok(_) => {}
        Err(error) => record_rpc_error(span, error),
    }
}

fn random_u64() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    // A per-process random key (std's hasher keys), a counter for distinct
    // values: ids unique and unguessable enough for tracing, not secrets.
    loop {
        let mut hasher = RandomState::new().build_hasher();
        hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
        let value = hasher.finish();
        if value != 0 {
            return value;
        }
    }
}

fn random_span_id() -> [u8; 8] {
    random_u64().to_be_bytes()
}

fn hex<const N: usize>(digits: &[u8]) -> Option<[u8; N]> {
    if digits.len() != 2 * N {
        return None;
    }
    let nibble = |d: u8| match d {
        b'0'..=b'9' => Some(d - b'0'),
        b'a'..=b'f' => Some(d - b'a' + 10),
        _ => None,
    };
    let mut out = [0; N];
    for (i, pair) in digits.chunks_exact(2).enumerate() {
        out[i] = (nibble(pair[0])? << 4) | nibble(pair[1])?;
    }
    Some(out)
}

fn to_hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traceparent_reads_and_writes_the_w3c_form() {
        let text = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        let ctx = TraceContext::parse(text, None).unwrap();
        assert!(ctx.sampled());
        assert_eq!(ctx.traceparent(), text);
        assert_eq!(ctx.span_id_hex(), "b7ad6b7169203331");
        // A later version with more fields is read by its first four.
        let later =
            "cc-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-what-the-future-will-be-like";
        assert_eq!(
            TraceContext::parse(later, None).unwrap().trace_id(),
            ctx.trace_id()
        );
    }

    #[test]
    fn malformed_traceparents_are_no_context() {
        for bad in [
            "",
            "00",
            "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra",
            "00-0af7651916cd43dd8448eb211c80319c_b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319g-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b716920333é-01",
            "cc-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01x",
        ] {
            assert_eq!(TraceContext::parse(bad, None), None, "{bad:?}");
        }
    }

    #[test]
    fn an_oversized_or_unprintable_tracestate_is_dropped() {
        let text = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00";
        let long = "a=".to_owned() + &"b".repeat(600);
        assert_eq!(
            TraceContext::parse(text, Some(&long)).unwrap().tracestate(),
            None
        );
        assert_eq!(
            TraceContext::parse(text, Some("a=\nb"))
                .unwrap()
                .tracestate(),
            None
        );
        let kept = TraceContext::parse(text, Some("rojo=1")).unwrap();
        assert_eq!(kept.tracestate(), Some("rojo=1"));
        assert!(!kept.sampled());
        // A child keeps the trace, state and flags, with a new span id.
        let child = kept.child();
        assert_eq!(child.trace_id(), kept.trace_id());
        assert_eq!(child.tracestate(), Some("rojo=1"));
        assert_ne!(child.span_id(), kept.span_id());
    }

    #[test]
    fn new_traces_have_distinct_ids() {
        let (a, b) = (TraceContext::root(), TraceContext::root());
        assert_ne!(a.trace_id(), b.trace_id());
        assert!(TraceContext::parse(&a.traceparent(), None).is_some());
    }
}
