//! `toolhost demo`'s remote-dispatch step: a call the server cannot run
//! itself goes to an executor task (standing in for a desktop app) and its
//! one result comes back through the result store.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;
use tool_core::{
    ApiDefinition, Invoker, Tool, ToolBuilder, ToolCall, ToolContext, ToolOutput, ToolRegistry,
    manifest::Executor,
};
use tool_dispatch::{
    DispatchedTool, Dispatcher, ExecutorClient, MemoryResultStore, Route, RoutingConfig,
    in_process_channel, route,
};

/// The device's own tool: only the executor has the code.
fn device_tool() -> Result<impl Tool, tool_core::Error> {
    ToolBuilder::new("device")
        .api(
            ApiDefinition::new("battery", "Battery level of the user's laptop."),
            |_, _| async {
                Ok(ToolOutput::with_state(
                    "Battery at 87%, charging.",
                    json!({"level": 87, "charging": true}),
                ))
            },
        )
        .api(
            ApiDefinition::new("scan", "A long scan of the user's disk.")
                .with_default_timeout_ms(1_000),
            |_, ctx: ToolContext| async move {
                ctx.cancellation().cancelled().await;
                Ok(ToolOutput::text("stopped"))
            },
        )
        .build()
}

/// The step: `(title, explanation, result)`.
pub async fn demo_step() -> (String, String, Value) {
    let title = "Remote dispatch to a client executor".to_owned();
    let explanation = "A tool whose manifest lists the `client` executor is routed to the user's device when no device gateway is configured. The server sends a `tool_execute` message over a channel (in-process here; a WebSocket in a real host) and waits in a result store (in memory here; Redis across server instances); the executor runs the tool under budget − 500 ms and puts exactly one result.".to_owned();
    let result = match run().await {
        Ok(result) => result,
        Err(e) => json!({ "error": e.to_string() }),
    };
    (title, explanation, result)
}

async fn run() -> Result<Value, tool_core::Error> {
    let device = device_tool()?;
    let mut manifest = device.manifest().clone();
    manifest.executors = Some(vec![Executor::Client]);
    let config = RoutingConfig {
        device_gateway: false,
        client_connected: true,
    };
    let routed = route(&manifest, &config);

    // The executor (the desktop app): serves the channel, records what it saw.
    let store = Arc::new(MemoryResultStore::new());
    let (channel, mut inbox) = in_process_channel(16);
    let executor = ExecutorClient::builder(store.clone())
        .tool(Arc::new(device))
        .build();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    tokio::spawn(async move {
        while let Some(message) = inbox.recv().await {
            if let Ok(mut log) = log.lock() {
                log.push(serde_json::to_value(&message).unwrap_or(Value::Null));
            }
            let executor = executor.clone();
            tokio::spawn(async move { executor.handle(message).await });
        }
    });

    // The server: the same manifest, every call dispatched.
    let dispatcher = Dispatcher::with(Arc::new(channel), store.clone());
    let mut registry = ToolRegistry::new();
    registry.register(DispatchedTool::new(manifest, dispatcher))?;
    let ctx = ToolContext::new();
    let offered = registry.offer(&ctx);
    let invoker = Invoker::default();
    let mut calls = Vec::new();
    for (call, why) in [
        (
            ToolCall::new("device____battery", "{}").with_id("call_1"),
            "Runs on the device; content and state come back unchanged.",
        ),
        (
            ToolCall::new("device____scan", "{}").with_id("call_2"),
            "Budget 1 s: the executor stops at 500 ms and reports client_executor_timeout, so the server gets a named failure.",
        ),
    ] {
        let started = Instant::now();
        let output = invoker.invoke(&offered, &call, &ctx).await;
        calls.push(json!({
            "call": call, "why": why, "output": output,
            "tookMs": started.elapsed().as_millis() as u64,
        }));
    }
    tokio::time::sleep(Duration::from_millis(20)).await;
    let seen = seen.lock().map(|s| s.clone()).unwrap_or_default();
    Ok(json!({
        "route": match routed { Route::Client => "client", Route::Server => "server", Route::DeviceGateway => "deviceGateway" },
        "calls": calls,
        "executorReceived": seen,
        "uncollectedResults": store.len(),
    }))
}
