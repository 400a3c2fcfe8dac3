//! Our side of three peer pairs run by `benches/run` (see `benches/peers/`):
//!
//! - `peers_pipeline`: a trivial tool through the whole `Invoker` pipeline
//!   (resolve, parse, validate, timeout, run, cap) among 100 offered tools,
//!   one call and a batch of 100 | LangChain `StructuredTool.invoke`.
//! - `peers_validation`: a 20-property JSON Schema, validation alone |
//!   pydantic's `model_validate` for the same model (same fixture files).
//! - `peers_export`: 500 tools rendered for OpenAI Chat, OpenAI Responses and
//!   Anthropic | LangChain's `convert_to_openai_tool` for the Chat shape.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use tool_core::{
    ApiDefinition, Invoker, ToolBuilder, ToolCall, ToolContext, ToolOutput, ToolRegistry,
    pipeline::CompiledSchema,
};

/// The trivial tool's arguments schema; `peers/python/pipeline.py` declares
/// the same model for LangChain.
fn trivial_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File to look at."},
            "limit": {"type": "integer", "minimum": 0, "description": "Most lines to return."},
            "tags": {"type": "array", "items": {"type": "string"}, "description": "Labels."}
        },
        "required": ["path"]
    })
}

/// `tools` tools with one API each, all answering "ok".
fn registry(tools: usize) -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    for t in 0..tools {
        let tool = ToolBuilder::new(format!("tool{t}"))
            .api(
                ApiDefinition::new("run", format!("Trivial tool number {t}: answers ok."))
                    .with_parameters(trivial_schema()),
                |_, _| async { Ok(ToolOutput::text("ok")) },
            )
            .build()
            .expect("valid tool");
        registry.register(tool).expect("registers");
    }
    registry
}

fn fixture(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("peers/fixtures")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(&path).expect("fixture")).expect("fixture JSON")
}

fn pipeline(c: &mut Criterion) {
    let registry = registry(100);
    let ctx = ToolContext::new();
    let offered = registry.offer(&ctx);
    let invoker = Invoker::default();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let call = ToolCall::new(
        "tool42____run",
        r#"{"path": "src/lib.rs", "limit": 20, "tags": ["a", "b"]}"#,
    );
    let check = runtime.block_on(invoker.invoke(&offered, &call, &ctx));
    assert!(check.success, "{check:?}");
    assert_eq!(check.content, "ok");
    let batch: Vec<ToolCall> = (0..100).map(|_| call.clone()).collect();

    let mut group = c.benchmark_group("peers_pipeline");
    group.bench_function("invoke_one", |b| {
        b.iter(|| runtime.block_on(invoker.invoke(&offered, black_box(&call), &ctx)))
    });
    group.bench_function("invoke_batch_100", |b| {
        b.iter(|| runtime.block_on(invoker.invoke_batch(&offered, black_box(&batch), &ctx)))
    });
    group.finish();
}

fn validation(c: &mut Criterion) {
    let schema = CompiledSchema::compile(&fixture("schema20.json")).expect("schema compiles");
    let instance = fixture("instance20.json");
    assert!(schema.violations(&instance).is_empty());
    let mut bad = instance.clone();
    bad["age"] = json!("thirty-six");
    assert_eq!(schema.violations(&bad).len(), 1);

    let mut group = c.benchmark_group("peers_validation");
    // What the pipeline runs: every violation with its pointer (none here).
    group.bench_function("schema20_violations", |b| {
        b.iter(|| schema.violations(black_box(&instance)))
    });
    group.bench_function("schema20_is_valid", |b| {
        b.iter(|| schema.is_valid(black_box(&instance)))
    });
    group.finish();
}

fn export(c: &mut Criterion) {
    let registry = registry(500);
    let offered = registry.offer(&ToolContext::new());
    assert_eq!(offered.api_count(), 500);
    assert_eq!(offered.anthropic_tools().len(), 500);

    let mut group = c.benchmark_group("peers_export");
    group.bench_function("openai_chat_500", |b| {
        b.iter(|| black_box(&offered).openai_chat_tools())
    });
    group.bench_function("openai_responses_500", |b| {
        b.iter(|| black_box(&offered).openai_responses_tools())
    });
    group.bench_function("anthropic_500", |b| {
        b.iter(|| black_box(&offered).anthropic_tools())
    });
    group.finish();
}

criterion_group!(benches, pipeline, validation, export);
criterion_main!(benches);
