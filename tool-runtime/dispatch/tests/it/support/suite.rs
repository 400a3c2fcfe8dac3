//! The behaviour suite over any result store.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use tokio::io::AsyncWriteExt;
use tokio::sync::Mutex;
use tokio::time::Instant;
use tool_core::{CancellationToken, ToolOutput};
use tool_dispatch::*;
use tool_dispatch::{Error, Result};

use super::tools::{Observed, device};

/// A dispatcher, an executor serving it in a task, and what the tools saw.
pub struct Rig {
    pub dispatcher: Dispatcher,
    pub executor: ExecutorClient,
    pub observed: Observed,
}

/// Dispatcher and executor over `store`, joined by an in-process channel.
pub fn rig(store: Arc<dyn ResultStore>) -> Rig {
    let (channel, inbox) = in_process_channel(1_024);
    let observed = Observed::default();
    let executor = ExecutorClient::builder(Arc::clone(&store))
        .tool(Arc::new(device(&observed)))
        .build();
    let serving = executor.clone();
    tokio::spawn(async move { serving.serve(inbox).await });
    Rig {
        dispatcher: Dispatcher::with(Arc::new(channel), store),
        executor,
        observed,
    }
}

/// A dispatcher whose channel nobody serves: messages are kept, never run.
pub fn unserved(store: Arc<dyn ResultStore>) -> (Dispatcher, Inbox) {
    let (channel, inbox) = in_process_channel(1_024);
    (Dispatcher::with(Arc::new(channel), store), inbox)
}

pub fn call(api: &str, args: &str) -> DispatchCall {
    DispatchCall::new("device", api, args)
}

pub fn code(output: &ToolOutput) -> &str {
    output.error_code().map_or("success", |c| c.as_str())
}

fn never() -> CancellationToken {
    CancellationToken::new()
}

/// A host channel writing JSON lines to a byte stream (as a WebSocket or
/// IPC channel would); when the other end is gone, sending fails.
pub struct LineChannel {
    writer: Mutex<tokio::io::DuplexStream>,
}

#[async_trait]
impl DispatchChannel for LineChannel {
    async fn send(&self, message: ChannelMessage) -> Result<()> {
        let mut line = serde_json::to_vec(&message).expect("encodable");
        line.push(b'\n');
        let mut writer = self.writer.lock().await;
        writer
            .write_all(&line)
            .await
            .map_err(|e| Error::DispatchFailed {
                message: format!("writing to the executor's stream failed: {e}"),
            })
    }
}

/// A successful round trip keeps content and state; the executor saw the
/// arguments text and the model's call id.
pub async fn round_trip(store: Arc<dyn ResultStore>) {
    let rig = rig(store);
    let out = rig
        .dispatcher
        .dispatch(
            call("echo", r#"{"n": 42}"#).with_tool_call_id("call_1"),
            Duration::from_secs(5),
            &never(),
        )
        .await;
    assert!(out.success, "{out:?}");
    assert_eq!(out.content, "42");
    assert_eq!(out.state.unwrap()["n"], 42);
    // The executor forgets the call once its result is out.
    wait_for(|| rig.executor.running_calls() == 0).await;
}

/// Every failure code of the executor side arrives as one failed output.
pub async fn executor_failures(store: Arc<dyn ResultStore>) {
    let rig = rig(store);
    let d = &rig.dispatcher;
    let budget = Duration::from_secs(5);
    let cases = [
        (call("echo", r#"{"n": "#), "arguments_parse_error"),
        (call("echo", "[1, 2]"), "arguments_parse_error"),
        (
            DispatchCall::new("printer", "echo", "{}"),
            "executor_not_found",
        ),
        (call("reboot", "{}"), "executor_not_found"),
        (call("boom", "{}"), "executor_panic"),
        (call("locked", "{}"), "device_locked"),
    ];
    for (call, expected) in cases {
        let what = format!("{call:?}");
        let out = d.dispatch(call, budget, &never()).await;
        assert!(!out.success, "{what}");
        assert_eq!(code(&out), expected, "{what}: {out:?}");
        assert!(!out.content.is_empty());
    }
    let parse = d.dispatch(call("echo", "{\"n\": "), budget, &never()).await;
    let details = parse.error.unwrap().details.unwrap();
    assert_eq!(details["cause"], "truncated_arguments");
}

/// The executor stops at budget − 500 ms and says so; the tool is stopped.
pub async fn client_executor_timeout(store: Arc<dyn ResultStore>) {
    let rig = rig(store);
    let started = Instant::now();
    let out = rig
        .dispatcher
        .dispatch(call("hang", "{}"), Duration::from_millis(1_000), &never())
        .await;
    let took = started.elapsed();
    assert_eq!(code(&out), "client_executor_timeout", "{out:?}");
    assert!(took >= Duration::from_millis(450), "{took:?}");
    // (Arriving after the server's 1 s deadline it would have been `timeout`.)
    assert!(took < Duration::from_millis(1_000), "{took:?}");
    wait_for(|| rig.observed.stopped() == 1).await;
    // The floor: a 300 ms budget still gives the executor 100 ms.
    let out = rig
        .dispatcher
        .dispatch(
            call("sleep", r#"{"ms": 250}"#),
            Duration::from_millis(300),
            &never(),
        )
        .await;
    assert_eq!(code(&out), "client_executor_timeout", "{out:?}");
}

/// Nothing arrives: the server side reports `timeout` at the deadline,
/// and the unserved executor is told to abort.
pub async fn server_timeout(store: Arc<dyn ResultStore>) {
    let (dispatcher, mut inbox) = unserved(store);
    let started = Instant::now();
    let out = dispatcher
        .dispatch(call("echo", "{}"), Duration::from_millis(300), &never())
        .await;
    assert_eq!(code(&out), "timeout", "{out:?}");
    assert!(started.elapsed() >= Duration::from_millis(300));
    assert!(started.elapsed() < Duration::from_millis(1_000));
    assert!(matches!(
        inbox.recv().await,
        Some(ChannelMessage::ToolExecute(_))
    ));
    assert!(matches!(
        inbox.recv().await,
        Some(ChannelMessage::ToolAbort { .. })
    ));
}

/// No channel, a closed channel, no store, a failing send.
pub async fn dispatcher_failures(store: Arc<dyn ResultStore>) {
    let budget = Duration::from_secs(2);
    let no_channel = Dispatcher::new().store(Arc::clone(&store));
    let out = no_channel
        .dispatch(call("echo", "{}"), budget, &never())
        .await;
    assert_eq!(code(&out), "channel_unavailable");

    let (channel, inbox) = in_process_channel(4);
    drop(inbox);
    let closed = Dispatcher::with(Arc::new(channel), Arc::clone(&store));
    let out = closed.dispatch(call("echo", "{}"), budget, &never()).await;
    assert_eq!(code(&out), "channel_unavailable", "{out:?}");

    let (channel, _inbox) = in_process_channel(4);
    let no_store = Dispatcher::new().channel(Arc::new(channel));
    let out = no_store
        .dispatch(call("echo", "{}"), budget, &never())
        .await;
    assert_eq!(code(&out), "store_unavailable");

    let (writer, reader) = tokio::io::duplex(64);
    drop(reader);
    let broken = Dispatcher::with(
        Arc::new(LineChannel {
            writer: Mutex::new(writer),
        }),
        store,
    );
    let out = broken.dispatch(call("echo", "{}"), budget, &never()).await;
    assert_eq!(code(&out), "dispatch_failed", "{out:?}");
    assert!(
        out.content
            .contains("writing to the executor's stream failed")
    );
}

/// Cancelling wakes the waiter at once and stops the tool on the executor.
pub async fn cancellation(store: Arc<dyn ResultStore>) {
    let rig = rig(store);
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(150)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    let out = rig
        .dispatcher
        .dispatch(call("hang", "{}"), Duration::from_secs(30), &cancel)
        .await;
    assert_eq!(code(&out), "cancelled", "{out:?}");
    assert!(started.elapsed() < Duration::from_millis(1_000));
    wait_for(|| rig.observed.stopped() == 1).await;
    wait_for(|| rig.executor.running_calls() == 0).await;
}

/// The executor's work ends without a result: a responder dropped unsent,
/// or the execution itself dropped mid-way.
pub async fn no_result(store: Arc<dyn ResultStore>) {
    let (dispatcher, mut inbox) = unserved(Arc::clone(&store));
    let executor = ExecutorClient::builder(Arc::clone(&store))
        .tool(Arc::new(device(&Observed::default())))
        .build();
    let host = executor.clone();
    tokio::spawn(async move {
        while let Some(message) = inbox.recv().await {
            if let ChannelMessage::ToolExecute(call) = message {
                if call.api_name == "echo" {
                    // The host took the call and forgot to answer.
                    drop(host.responder(call.id.clone()));
                } else {
                    // The host gave up on the execution after 50 ms.
                    let _ =
                        tokio::time::timeout(Duration::from_millis(50), host.execute(call)).await;
                }
            }
        }
    });
    for api in ["echo", "hang"] {
        let out = dispatcher
            .dispatch(call(api, "{}"), Duration::from_secs(5), &never())
            .await;
        assert_eq!(code(&out), "client_executor_no_result", "{api}: {out:?}");
    }
}

/// Duplicates are dropped (first wins); so are results after collection
/// and results for ids nobody expects.
pub async fn duplicates(store: Arc<dyn ResultStore>) {
    let (dispatcher, mut inbox) = unserved(Arc::clone(&store));
    let host_store = Arc::clone(&store);
    let answered = tokio::spawn(async move {
        let Some(ChannelMessage::ToolExecute(call)) = inbox.recv().await else {
            panic!("expected a call");
        };
        let first = host_store
            .put(&call.id, &ToolOutput::text("first"))
            .await
            .unwrap();
        let second = host_store
            .put(&call.id, &ToolOutput::text("second"))
            .await
            .unwrap();
        (call.id, first, second)
    });
    let out = dispatcher
        .dispatch(call("echo", "{}"), Duration::from_secs(5), &never())
        .await;
    assert_eq!(out.content, "first");
    let (id, first, second) = answered.await.unwrap();
    assert!(first);
    assert!(!second);
    assert!(!store.put(&id, &ToolOutput::text("late")).await.unwrap());
    assert!(
        !store
            .put("nobody-1", &ToolOutput::text("stray"))
            .await
            .unwrap()
    );
}

/// A result arriving after the server gave up is dropped, not kept.
pub async fn late_result_is_dropped(store: Arc<dyn ResultStore>) {
    let (dispatcher, mut inbox) = unserved(Arc::clone(&store));
    let out = dispatcher
        .dispatch(call("echo", "{}"), Duration::from_millis(200), &never())
        .await;
    assert_eq!(code(&out), "timeout");
    let Some(ChannelMessage::ToolExecute(call)) = inbox.recv().await else {
        panic!("expected a call");
    };
    assert!(
        !store
            .put(&call.id, &ToolOutput::text("too late"))
            .await
            .unwrap()
    );
}

/// Ten parallel calls with a 1 s budget share one deadline: ≈ 1 s in all.
pub async fn shared_deadline(store: Arc<dyn ResultStore>) {
    let (dispatcher, _inbox) = unserved(Arc::clone(&store));
    let calls = (0..10)
        .map(|n| call("echo", &format!(r#"{{"n": {n}}}"#)))
        .collect();
    let started = Instant::now();
    let outs = dispatcher
        .dispatch_batch(calls, Duration::from_secs(1), &never())
        .await;
    let took = started.elapsed();
    assert_eq!(outs.len(), 10);
    assert!(outs.iter().all(|o| code(o) == "timeout"));
    assert!(took >= Duration::from_millis(1_000), "{took:?}");
    assert!(took < Duration::from_millis(1_500), "{took:?}");

    // Served: slow calls of 300 ms each, run side by side, well within it.
    let rig = rig(store);
    let calls = (0..10).map(|_| call("sleep", r#"{"ms": 300}"#)).collect();
    let started = Instant::now();
    let outs = rig
        .dispatcher
        .dispatch_batch(calls, Duration::from_secs(1), &never())
        .await;
    assert!(outs.iter().all(|o| o.success), "{outs:?}");
    // One after the other they would take 3 s.
    assert!(started.elapsed() < Duration::from_millis(2_000));
}

/// `count` concurrent dispatches each receive exactly their own result.
pub async fn many_concurrent(store: Arc<dyn ResultStore>, count: usize) {
    let rig = rig(store);
    let started = Instant::now();
    let outs = futures::future::join_all((0..count).map(|n| {
        let dispatcher = rig.dispatcher.clone();
        async move {
            dispatcher
                .dispatch(
                    call("echo", &format!(r#"{{"n": {n}}}"#)),
                    Duration::from_secs(60),
                    &never(),
                )
                .await
        }
    }))
    .await;
    for (n, out) in outs.iter().enumerate() {
        assert!(out.success, "{n}: {out:?}");
        assert_eq!(out.content, n.to_string());
    }
    eprintln!("{count} concurrent dispatches: {:?}", started.elapsed());
}

/// Polls `condition` for up to 2 s.
pub async fn wait_for(condition: impl Fn() -> bool) {
    let until = Instant::now() + Duration::from_secs(2);
    while !condition() {
        assert!(Instant::now() < until, "condition not met within 2 s");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A dispatch whose future is dropped mid-wait (the pipeline's own timeout
/// or cancellation got there first) still forgets its slot and stops the
/// tool on the executor.
pub async fn dropped_dispatch(store: Arc<dyn ResultStore>) {
    let rig = rig(store);
    let gave_up = tokio::time::timeout(
        Duration::from_millis(150),
        rig.dispatcher
            .dispatch(call("hang", "{}"), Duration::from_secs(30), &never()),
    )
    .await;
    assert!(gave_up.is_err());
    wait_for(|| rig.observed.stopped() == 1).await;
    wait_for(|| rig.executor.running_calls() == 0).await;
}
