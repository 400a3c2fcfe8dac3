//! `otel`: a host that exports the tool-layer crates' spans to
//! OpenTelemetry over OTLP/HTTP (protobuf).
//!
//! The library crates only emit `tracing` spans and events in the
//! OpenTelemetry GenAI conventions (`execute_tool {gen_ai.tool.name}` with
//! `gen_ai.*` attributes, the gate's decision and the answer as events on
//! it); the OpenTelemetry SDK stays in the host. This host:
//!
//! 1. builds an OTLP span exporter (HTTP/protobuf through reqwest's
//!    blocking client, no gRPC) to `$OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces`
//!    (e.g. `http://127.0.0.1:4318`, a collector's default), batched;
//! 2. installs `tracing-opentelemetry` as the subscriber's layer, for our
//!    crates' targets (`tool_*`) only: a dependency's spans (the exporter's
//!    own HTTP requests among them) are not exported;
//! 3. runs one gated call: a policy asks before `notes/add`, a stand-in
//!    person approves, the tool runs;
//! 4. shuts the provider down, which flushes the batch, and prints
//!    `{"exported": true, "output": …}`.
//!
//! The span name is the `otel.name` field (`execute_tool notes____add`),
//! its kind `otel.kind`; `tracing-opentelemetry` maps both. A host that
//! also serves or calls MCP plugs its OpenTelemetry context into
//! tool-mcp's `TracePropagator` so the `traceparent` on the wire is the
//! exported span's own.
//!
//! ```sh
//! OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 cargo run -p otel
//! ```

use std::sync::Arc;

use anyhow::{Context as _, bail};
use async_trait::async_trait;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, SpanExporter, WithExportConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SdkTracerProvider;
use serde_json::json;
use tool_core::{
    Answer, ApiDefinition, Ask, Asker, Invoker, ToolBuilder, ToolCall, ToolContext, ToolOutput,
    ToolRegistry,
};
use tracing_subscriber::Layer as _;
use tracing_subscriber::filter::filter_fn;
use tracing_subscriber::layer::SubscriberExt;

/// The environment variable naming the collector (the OpenTelemetry one).
const ENDPOINT_VAR: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";

fn main() -> anyhow::Result<()> {
    let endpoint = std::env::var(ENDPOINT_VAR)
        .with_context(|| format!("set {ENDPOINT_VAR}, e.g. http://127.0.0.1:4318"))?;
    let endpoint = endpoint.trim_end_matches('/');
    if !(endpoint.starts_with("http://") || endpoint.starts_with("https://")) {
        bail!("{ENDPOINT_VAR}={endpoint}: expected an http:// or https:// URL");
    }
    // Built outside any async runtime: the blocking client and the batch
    // processor run on threads of their own.
    let exporter = SpanExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpBinary)
        .with_endpoint(format!("{endpoint}/v1/traces"))
        .build()
        .context("the OTLP exporter")?;
    let provider = SdkTracerProvider::builder()
        .with_resource(
            Resource::builder()
                .with_service_name("otel-example")
                .build(),
        )
        .with_batch_exporter(exporter)
        .build();
    let layer = tracing_opentelemetry::layer()
        .with_tracer(provider.tracer("tool-layer"))
        .with_filter(filter_fn(|meta| meta.target().starts_with("tool_")));
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(layer))
        .context("installing the subscriber")?;

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("the async runtime")?;
    let output = runtime.block_on(gated_call())?;
    drop(runtime);
    // Flushes the batch: every span ended so far is sent (or the error says why).
    provider.shutdown().context("flushing the spans")?;
    println!("{}", json!({"exported": true, "output": output}));
    Ok(())
}

/// A person who says yes (a real host asks someone).
#[derive(Debug)]
struct Yes;

#[async_trait]
impl Asker for Yes {
    async fn ask(&self, asks: &[Ask<'_>], _: &ToolContext) -> Vec<Answer> {
        asks.iter().map(|_| Answer::approve()).collect()
    }
}

/// One call to `notes/add`, which the policy says a person approves first.
async fn gated_call() -> anyhow::Result<ToolOutput> {
    let mut registry = ToolRegistry::new();
    registry.register(
        ToolBuilder::new("notes")
            .api(
                ApiDefinition::new("add", "Adds a note.").with_parameters(json!({
                    "type": "object",
                    "properties": {"text": {"type": "string"}},
                    "required": ["text"]
                })),
                |_, _| async { Ok(ToolOutput::text("added")) },
            )
            .build()?,
    )?;
    let policy = tool_approval::PolicyFile::from_json(
        r#"{"mode": "manual", "rules": {"notes/add": [{"policy": "required"}]}}"#,
    )?;
    let invoker = Invoker::default()
        .with_gate(Arc::new(policy.engine()?))
        .with_asker(Arc::new(Yes));
    let call =
        ToolCall::new("notes____add", json!({"text": "buy milk"}).to_string()).with_id("call-1");
    let output = invoker
        .invoke_in(&registry, &call, &ToolContext::new())
        .await;
    if !output.success {
        bail!("the call failed: {}", output.content);
    }
    Ok(output)
}
