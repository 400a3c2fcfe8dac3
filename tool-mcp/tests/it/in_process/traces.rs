//! A `tools/call` from our client to our server over real HTTP on
//! 127.0.0.1 is one trace: a client span and a server span in the
//! OpenTelemetry MCP conventions, the server's the child of the client's
//! through the `traceparent` the request carries in `_meta`, and no
//! argument value on either.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::json;
use tool_core::{
    ApiDefinition, ErrorCode, HumanIntervention, InterventionPolicy, ToolBuilder, ToolError,
    ToolOutput, ToolRegistry,
};
use tool_mcp::semconv::*;
use tool_mcp::{McpManager, McpProtocol, McpServerConfig, McpTransport};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

/// A value that must never reach a span.
const SECRET: &str = "s3cr3t-argument-value";

/// One span seen: its name and fields (recorded later ones included).
#[derive(Debug, Clone)]
struct SeenSpan {
    name: &'static str,
    fields: BTreeMap<String, String>,
}

impl SeenSpan {
    fn get(&self, field: &str) -> Option<&str> {
        self.fields.get(field).map(String::as_str)
    }

    fn field(&self, field: &str) -> &str {
        self.get(field)
            .unwrap_or_else(|| panic!("span {self:?} has no {field}"))
    }
}

/// An in-memory subscriber layer: every span with its fields.
#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<(Id, SeenSpan)>>>);

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
}

impl<S: tracing::Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Seen {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, _: Context<'_, S>) {
        let mut fields = BTreeMap::new();
        attrs.record(&mut Fields(&mut fields));
        let span = SeenSpan {
            name: attrs.metadata().name(),
            fields,
        };
        self.0.lock().unwrap().push((id.clone(), span));
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _: Context<'_, S>) {
        let mut seen = self.0.lock().unwrap();
        // Ids are reused after a span closes: the latest holder is meant.
        if let Some((_, span)) = seen.iter_mut().rev().find(|(seen, _)| seen == id) {
            values.record(&mut Fields(&mut span.fields));
        }
    }
}

/// The process's subscriber: every span of this test binary. Global, so
/// that no test thread's callsite cache hides a span from it; the tools
/// traced here have names no other test uses.
fn seen() -> Seen {
    static SEEN: OnceLock<Seen> = OnceLock::new();
    SEEN.get_or_init(|| {
        let seen = Seen::default();
        tracing::subscriber::set_global_default(tracing_subscriber::registry().with(seen.clone()))
            .expect("no other global subscriber in this binary");
        seen
    })
    .clone()
}

/// `name`: `read` answers, `broken` fails; both run without asking.
fn registry(name: &str) -> ToolRegistry {
    let api = |api: &str| {
        ApiDefinition::new(api, "A tool.")
            .with_parameters(json!({"type": "object", "properties": {}}))
            .with_intervention(HumanIntervention::Policy(InterventionPolicy::Never))
    };
    let tool = ToolBuilder::new(name)
        .api(api("read"), |_, _| async { Ok(ToolOutput::text("read")) })
        .api(api("broken"), |_, _| async {
            Err::<ToolOutput, _>(ToolError::new(ErrorCode::new("disk_full"), "No space."))
        })
        .build()
        .unwrap();
    let mut registry = ToolRegistry::new();
    registry.register(tool).unwrap();
    registry
}

impl Seen {
    fn clear(&self) {
        self.0.lock().unwrap().clear();
    }

    fn calls(&self, kind: &str, tool: &str) -> Vec<SeenSpan> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .map(|(_, span)| span.clone())
            .filter(|span| {
                span.name == "tools/call"
                    && span.get(OTEL_KIND) == Some(kind)
                    && span.get(GEN_AI_TOOL_NAME) == Some(tool)
            })
            .collect()
    }

    fn any_value_contains(&self, text: &str) -> bool {
        self.0
            .lock()
            .unwrap()
            .iter()
            .any(|(_, span)| span.fields.values().any(|v| v.contains(text)))
    }
}

/// The client span and the server span of the one call of `tool`.
fn pair(seen: &Seen, tool: &str) -> (SeenSpan, SeenSpan) {
    let (clients, servers) = (seen.calls("client", tool), seen.calls("server", tool));
    assert_eq!(clients.len(), 1, "client spans of {tool}: {clients:?}");
    assert_eq!(servers.len(), 1, "server spans of {tool}: {servers:?}");
    (clients[0].clone(), servers[0].clone())
}

/// Calls `traced____read` (with a secret argument), `traced____broken`
/// and `traced____missing` from our client to our server over HTTP on
/// `protocol`; the spans seen meanwhile.
fn traced(protocol: McpProtocol) -> Seen {
    let seen = seen();
    seen.clear();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    {
        runtime.block_on(async {
            let server = crate::common::served(registry("traced"));
            let stop = tokio_util::sync::CancellationToken::new();
            let url = crate::common::serve_http_until(server, &stop).await;
            let manager = McpManager::default();
            manager
                .upsert(
                    McpServerConfig::new("host", McpTransport::http(url.clone()))
                        .with_protocol(protocol),
                )
                .unwrap();
            let args = |value: serde_json::Value| value.as_object().unwrap().clone();
            let read = manager
                .call_tool("host", "traced____read", args(json!({"text": SECRET})))
                .await
                .unwrap();
            assert_ne!(read.is_error, Some(true), "{read:?}");
            let broken = manager
                .call_tool("host", "traced____broken", args(json!({})))
                .await
                .unwrap();
            assert_eq!(broken.is_error, Some(true));
            let unknown = manager
                .call_tool("host", "traced____missing", args(json!({"text": SECRET})))
                .await;
            assert!(unknown.is_err(), "{unknown:?}");
            stop.cancel();
        });
    }
    seen
}

/// Every span of `tool` of `kind`, in order.
fn all(seen: &Seen, kind: &str, tool: &str) -> Vec<SeenSpan> {
    seen.calls(kind, tool)
}

/// A call through a proxy (our server serving another server's tools
/// through our client) is one trace of four spans.
fn a_proxy_continues_the_trace_it_was_called_in() {
    let seen = seen();
    seen.clear();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    {
        runtime.block_on(async {
            let stop = tokio_util::sync::CancellationToken::new();
            // The server behind the proxy.
            let behind = crate::common::served(registry("far"));
            let (behind, _task) = behind
                .serve_http("127.0.0.1:0".parse().unwrap(), stop.clone())
                .await
                .unwrap();
            let onward = Arc::new(McpManager::default());
            onward
                .upsert(McpServerConfig::new(
                    "behind",
                    McpTransport::http(format!("http://{behind}/mcp")),
                ))
                .unwrap();
            // The proxy: the server behind's tools served again.
            let proxy = crate::common::served(crate::common::registry_of(&onward).await);
            let (proxy, _task) = proxy
                .serve_http("127.0.0.1:0".parse().unwrap(), stop.clone())
                .await
                .unwrap();
            let manager = McpManager::default();
            manager
                .upsert(McpServerConfig::new(
                    "proxy",
                    McpTransport::http(format!("http://{proxy}/mcp")),
                ))
                .unwrap();
            let read = manager
                .call_tool("proxy", "behind____far____read", Default::default())
                .await
                .unwrap();
            assert_ne!(read.is_error, Some(true), "{read:?}");
            stop.cancel();
        });
    }
    let (client, proxy_server) = pair(&seen, "behind____far____read");
    let onward_clients = all(&seen, "client", "far____read");
    let behind_servers = all(&seen, "server", "far____read");
    assert_eq!(onward_clients.len(), 1, "{onward_clients:?}");
    assert_eq!(behind_servers.len(), 1, "{behind_servers:?}");
    let (onward, behind) = (&onward_clients[0], &behind_servers[0]);
    let trace = client.field(TRACE_ID);
    for span in [&proxy_server, onward, behind] {
        assert_eq!(
            span.field(TRACE_ID),
            trace,
            "one trace through the proxy: {span:?}"
        );
    }
    // Each span is the child of the one before it.
    assert_eq!(proxy_server.field(PARENT_SPAN_ID), client.field(SPAN_ID));
    assert_eq!(onward.field(PARENT_SPAN_ID), proxy_server.field(SPAN_ID));
    assert_eq!(behind.field(PARENT_SPAN_ID), onward.field(SPAN_ID));
}

// One test: the scenarios share the process's subscriber, cleared before each.
#[test]
fn tool_calls_are_one_trace_from_client_to_server_and_through_a_proxy() {
    a_tool_call_is_one_trace_from_client_span_to_server_span_on_both_revisions();
    a_proxy_continues_the_trace_it_was_called_in();
}

fn a_tool_call_is_one_trace_from_client_span_to_server_span_on_both_revisions() {
    for (protocol, revision, sessions) in [
        (McpProtocol::V2025_11_25, "2025-11-25", true),
        (McpProtocol::V2026_07_28, "2026-07-28", false),
    ] {
        let seen = traced(protocol);
        let (client, server) = pair(&seen, "traced____read");
        for (span, kind) in [(&client, "client"), (&server, "server")] {
            assert_eq!(span.field(OTEL_NAME), "tools/call traced____read", "{kind}");
            assert_eq!(span.field(MCP_METHOD_NAME), "tools/call");
            assert_eq!(span.field(GEN_AI_OPERATION_NAME), EXECUTE_TOOL);
            assert_eq!(span.field(NETWORK_TRANSPORT), "tcp");
            assert_eq!(span.field(MCP_PROTOCOL_VERSION), revision, "{kind}");
            assert_eq!(span.get(ERROR_TYPE), None, "{kind}: {span:?}");
            assert_eq!(
                span.get(MCP_SESSION_ID).is_some(),
                sessions,
                "{kind}: {span:?}"
            );
        }
        assert_eq!(client.field(SERVER_ADDRESS), "127.0.0.1");
        assert!(client.field(SERVER_PORT).parse::<u16>().is_ok());
        // The same request, seen from both ends.
        assert_eq!(
            client.field(JSONRPC_REQUEST_ID),
            server.field(JSONRPC_REQUEST_ID)
        );
        assert_eq!(client.get(MCP_SESSION_ID), server.get(MCP_SESSION_ID));
        // One trace: the server span's parent is the client span.
        assert_eq!(client.field(TRACE_ID).len(), 32);
        assert_eq!(server.field(TRACE_ID), client.field(TRACE_ID), "{revision}");
        assert_eq!(server.field(PARENT_SPAN_ID), client.field(SPAN_ID));
        assert_ne!(server.field(SPAN_ID), client.field(SPAN_ID));
        // Each call is a trace of its own (no ambient context here).
        let (other, other_server) = pair(&seen, "traced____broken");
        assert_ne!(other.field(TRACE_ID), client.field(TRACE_ID));
        assert_eq!(other_server.field(TRACE_ID), other.field(TRACE_ID));
        // A result with `isError` is a `tool_error` on both sides.
        for span in [&other, &other_server] {
            assert_eq!(span.field(ERROR_TYPE), TOOL_ERROR);
            assert_eq!(span.field(OTEL_STATUS_CODE), "error");
        }
        // An unknown tool is JSON-RPC -32602 on both sides.
        let (missing, missing_server) = pair(&seen, "traced____missing");
        for span in [&missing, &missing_server] {
            assert_eq!(span.field(ERROR_TYPE), "-32602", "{span:?}");
            assert_eq!(span.field(RPC_RESPONSE_STATUS_CODE), "-32602");
        }
        assert!(
            !seen.any_value_contains(SECRET),
            "an argument value reached a span on {revision}"
        );
    }
}
