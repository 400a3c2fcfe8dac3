//! tool-core: cost of the pipeline around a trivial tool, and of its parts.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use tool_core::{
    ApiDefinition, Invoker, ProviderFormat, ToolBuilder, ToolCall, ToolContext, ToolOutput,
    ToolRegistry, parse_arguments, wire_name,
};

fn registry() -> ToolRegistry {
    registry_of(20)
}

fn registry_of(tools: usize) -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    for t in 0..tools {
        let mut builder = ToolBuilder::new(format!("tool{t}"));
        for a in 0..5 {
            builder = builder.api(
                ApiDefinition::new(format!("api{a}"), "Does a thing.").with_parameters(json!({
                    "type": "object",
                    "properties": {
                        "path": {"type": "string"},
                        "limit": {"type": "integer", "minimum": 0},
                        "tags": {"type": "array", "items": {"type": "string"}}
                    },
                    "required": ["path"]
                })),
                |_, _| async { Ok(ToolOutput::text("ok")) },
            );
        }
        registry
            .register(builder.build().expect("valid tool"))
            .expect("registers");
    }
    registry
}

fn bench_core(c: &mut Criterion) {
    let registry = registry();
    let ctx = ToolContext::new();
    let offered = registry.offer(&ctx);
    let invoker = Invoker::default();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let call = ToolCall::new(
        "tool7____api3",
        r#"{"path": "src/lib.rs", "limit": 20, "tags": ["a", "b"]}"#,
    );

    c.bench_function("invoke/trivial tool, 100 offered APIs", |b| {
        b.iter(|| runtime.block_on(invoker.invoke(&offered, black_box(&call), &ctx)))
    });
    c.bench_function("prepare/resolve+parse+validate", |b| {
        b.iter(|| invoker.prepare(&offered, black_box(&call)).is_ok())
    });
    c.bench_function("offer/20 tools x 5 APIs", |b| {
        b.iter(|| registry.offer(black_box(&ctx)))
    });
    c.bench_function("export/openai chat tools, 100 APIs", |b| {
        b.iter(|| offered.openai_chat_tools())
    });
    c.bench_function("parse_arguments/small object", |b| {
        b.iter(|| parse_arguments(black_box(&call.arguments)))
    });
    c.bench_function("parse_arguments/truncated diagnosis", |b| {
        b.iter(|| parse_arguments(black_box(r#"{"path": "src/lib.rs", "tags": ["a", "b"#)))
    });
    c.bench_function("wire_name/plain", |b| {
        b.iter(|| wire_name(black_box("local-system"), black_box("readFile")))
    });
    c.bench_function("wire_name/hashed", |b| {
        b.iter(|| {
            wire_name(
                black_box("my.mcp.server/with/a/long/name"),
                black_box("读取文件"),
            )
        })
    });
    let calls: Vec<ToolCall> = (0..1000).map(|_| call.clone()).collect();
    c.bench_function("invoke_batch/1000 calls", |b| {
        b.iter(|| runtime.block_on(invoker.invoke_batch(&offered, black_box(&calls), &ctx)))
    });
}

/// A registry of 100 tools x 5 APIs: export, cached offer, provider messages.
fn bench_large(c: &mut Criterion) {
    let registry = registry_of(100);
    let ctx = ToolContext::new();
    let offered = registry.offer(&ctx);
    c.bench_function(
        "offer/100 tools x 5 APIs, unchanged (cached snapshot)",
        |b| b.iter(|| registry.offer(black_box(&ctx))),
    );
    c.bench_function("export/openai chat tools, 500 APIs", |b| {
        b.iter(|| offered.openai_chat_tools())
    });
    c.bench_function(
        "export/openai chat tools shared, 500 APIs, cached snapshot",
        |b| {
            b.iter(|| {
                registry
                    .offer(black_box(&ctx))
                    .tools_shared(ProviderFormat::OpenAiChat)
            })
        },
    );
    c.bench_function("export/anthropic tools, 500 APIs", |b| {
        b.iter(|| offered.anthropic_tools())
    });
    c.bench_function("export/openai chat strict tools, 500 APIs", |b| {
        b.iter(|| offered.openai_chat_tools_strict())
    });
    let answer = json!({"role": "assistant", "content": null, "tool_calls": (0..20).map(|i| json!({
        "id": format!("call_{i}"), "type": "function",
        "function": {"name": format!("tool{i}____api1"), "arguments": r#"{"path": "src/lib.rs", "limit": 20}"#}
    })).collect::<Vec<_>>()});
    c.bench_function("provider/openai chat: 20 tool calls parsed", |b| {
        b.iter(|| ProviderFormat::OpenAiChat.tool_calls(black_box(&answer)))
    });
    let calls = ProviderFormat::OpenAiChat
        .tool_calls(&answer)
        .expect("valid answer");
    let outputs: Vec<ToolOutput> = (0..20)
        .map(|i| ToolOutput::text(format!("result {i}")))
        .collect();
    c.bench_function("provider/anthropic: 20 tool results", |b| {
        b.iter(|| ProviderFormat::Anthropic.tool_results(black_box(&calls), black_box(&outputs)))
    });
}

criterion_group!(benches, bench_core, bench_large);
criterion_main!(benches);
