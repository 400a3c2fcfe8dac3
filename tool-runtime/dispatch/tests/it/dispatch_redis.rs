//! Remote dispatch over a real redis-server (feature `redis`): the same
//! suite as in memory, plus what only a shared store can get wrong.
#![cfg(feature = "redis")]

use std::sync::Arc;
use std::time::Duration;

use crate::support::redis_server::RedisServer;
use crate::support::suite::{self, call, code};
use crate::support::tools::{Observed, device};
use tokio::time::Instant;
use tool_core::{CancellationToken, ToolOutput};
use tool_dispatch::*;

async fn store(server: &RedisServer) -> RedisResultStore {
    RedisResultStore::connect(RedisStoreConfig::new(server.url()))
        .await
        .unwrap()
}

/// Waits until the database holds no key.
async fn no_leftover_keys(server: &RedisServer) {
    let until = Instant::now() + Duration::from_secs(3);
    loop {
        let keys = server.keys().await;
        if keys.is_empty() {
            return;
        }
        assert!(Instant::now() < until, "keys left behind: {keys:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Runs a suite case over a fresh server and store, then checks no key is left.
macro_rules! over_redis {
    ($($name:ident $(($arg:expr))?),* $(,)?) => {$(
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $name() {
            let server = RedisServer::start().await;
            let shared: Arc<dyn ResultStore> = Arc::new(store(&server).await);
            suite::$name(shared $(, $arg)?).await;
            no_leftover_keys(&server).await;
        }
    )*};
}

over_redis!(
    round_trip,
    executor_failures,
    client_executor_timeout,
    server_timeout,
    dispatcher_failures,
    cancellation,
    dropped_dispatch,
    no_result,
    duplicates,
    late_result_is_dropped,
    shared_deadline,
    many_concurrent(10_000),
);

/// Two server instances share one Redis; each one's executor answers
/// through the *other* instance's store. Each dispatcher still gets exactly
/// its own results, and each subscriber is woken only for its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_stores_sharing_one_redis_each_get_only_their_own_results() {
    let server = RedisServer::start().await;
    let a = store(&server).await;
    let b = store(&server).await;
    assert_ne!(a.wake_channel(), b.wake_channel());
    let per_side = 500;
    let side = |waits_on: &RedisResultStore, answers_through: &RedisResultStore| {
        let (channel, inbox) = in_process_channel(1_024);
        let executor = ExecutorClient::builder(Arc::new(answers_through.clone()))
            .tool(Arc::new(device(&Observed::default())))
            .build();
        tokio::spawn(async move { executor.serve(inbox).await });
        Dispatcher::with(Arc::new(channel), Arc::new(waits_on.clone()))
    };
    let on_a = side(&a, &b);
    let on_b = side(&b, &a);
    let run = |dispatcher: Dispatcher, offset: usize| async move {
        futures::future::join_all((0..per_side).map(|i| {
            let dispatcher = dispatcher.clone();
            async move {
                let n = offset + i;
                // Both sides use the same model call ids.
                let call = call("echo", &format!(r#"{{"n": {n}}}"#))
                    .with_tool_call_id(format!("call_{i}"));
                (
                    n,
                    dispatcher
                        .dispatch(call, Duration::from_secs(30), &CancellationToken::new())
                        .await,
                )
            }
        }))
        .await
    };
    // Warm up: both subscribers subscribed before counting wake-ups (a
    // result published before its store subscribed is found by the check
    // after subscribing, without a wake-up).
    for dispatcher in [&on_a, &on_b] {
        let out = dispatcher
            .dispatch(
                call("echo", "{}"),
                Duration::from_secs(5),
                &CancellationToken::new(),
            )
            .await;
        assert!(out.success, "{out:?}");
    }
    let (base_a, base_b) = (a.wakeups(), b.wakeups());
    let (from_a, from_b) = tokio::join!(run(on_a, 0), run(on_b, 100_000));
    for (n, out) in from_a.iter().chain(from_b.iter()) {
        assert!(out.success, "{out:?}");
        assert_eq!(out.content, n.to_string());
    }
    // Every result woke its own store's subscriber, none the other's (a
    // wake-up may arrive after its waiter already found the result).
    let (want_a, want_b) = (base_a + per_side as u64, base_b + per_side as u64);
    suite::wait_for(|| a.wakeups() >= want_a && b.wakeups() >= want_b).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!((a.wakeups(), b.wakeups()), (want_a, want_b));
    no_leftover_keys(&server).await;

    // Different namespaces never see each other's keys.
    let other = RedisResultStore::connect(RedisStoreConfig::new(server.url()).namespace("other"))
        .await
        .unwrap();
    a.expect("same-id", Duration::from_secs(5)).await.unwrap();
    assert!(
        !other
            .put("same-id", &ToolOutput::text("wrong"))
            .await
            .unwrap()
    );
    assert!(a.put("same-id", &ToolOutput::text("right")).await.unwrap());
    let got = a
        .wait("same-id", Instant::now() + Duration::from_secs(2))
        .await
        .unwrap();
    assert_eq!(got.unwrap().content, "right");
    no_leftover_keys(&server).await;
}

/// 10 000 waits at once use no more connections than the store's bound.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_concurrent_waits_stay_within_the_connection_bound() {
    let server = RedisServer::start().await;
    let store =
        RedisResultStore::connect(RedisStoreConfig::new(server.url()).command_connections(2))
            .await
            .unwrap();
    assert_eq!(store.connection_bound(), 3);
    let (dispatcher, mut inbox) = suite::unserved(Arc::new(store.clone()));
    let count = 10_000;
    let waits = tokio::spawn(async move {
        futures::future::join_all((0..count).map(|n| {
            let dispatcher = dispatcher.clone();
            async move {
                let call = call("echo", &format!(r#"{{"n": {n}}}"#));
                dispatcher
                    .dispatch(call, Duration::from_secs(60), &CancellationToken::new())
                    .await
            }
        }))
        .await
    });
    let mut calls = Vec::with_capacity(count);
    while calls.len() < count {
        match inbox.recv().await {
            Some(ChannelMessage::ToolExecute(call)) => calls.push(call),
            other => panic!("unexpected {other:?}"),
        }
    }
    suite::wait_for(|| store.waiting() == count).await;
    let clients = server.clients().await;
    eprintln!(
        "{count} concurrent waits: {clients} Redis connections (bound {})",
        store.connection_bound()
    );
    assert!(clients <= store.connection_bound(), "{clients} connections");
    // Answer them all through the same store.
    for call in &calls {
        let n: serde_json::Value = serde_json::from_str(&call.arguments).unwrap();
        assert!(
            store
                .put(&call.id, &ToolOutput::text(n["n"].to_string()))
                .await
                .unwrap()
        );
    }
    let outs = waits.await.unwrap();
    for (n, out) in outs.iter().enumerate() {
        assert_eq!(out.content, n.to_string());
    }
    assert!(server.clients().await <= store.connection_bound());
    no_leftover_keys(&server).await;
}

/// Redis goes away while a call waits: the wait ends at once with
/// `store_unavailable`, not at its 30 s deadline; a dispatch while Redis is
/// down fails the same way; after Redis is back, dispatch works again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redis_restart_mid_wait_is_a_named_failure_not_a_hang() {
    let mut server = RedisServer::start().await;
    let store = store(&server).await;
    let (dispatcher, _inbox) = suite::unserved(Arc::new(store.clone()));
    let waiting = {
        let dispatcher = dispatcher.clone();
        tokio::spawn(async move {
            let started = Instant::now();
            let out = dispatcher
                .dispatch(
                    call("echo", "{}"),
                    Duration::from_secs(30),
                    &CancellationToken::new(),
                )
                .await;
            (out, started.elapsed())
        })
    };
    suite::wait_for(|| store.waiting() == 1).await;
    server.stop().await;
    let (out, took) = waiting.await.unwrap();
    assert_eq!(code(&out), "store_unavailable", "{out:?}");
    assert!(took < Duration::from_secs(5), "{took:?}");

    let started = Instant::now();
    let out = dispatcher
        .dispatch(
            call("echo", "{}"),
            Duration::from_secs(30),
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(code(&out), "store_unavailable", "{out:?}");
    assert!(started.elapsed() < Duration::from_secs(10));

    server.restart().await;
    let rig = suite::rig(Arc::new(store.clone()));
    let mut recovered = None;
    for _ in 0..50 {
        let out = rig
            .dispatcher
            .dispatch(
                call("echo", r#"{"n": 7}"#),
                Duration::from_secs(5),
                &CancellationToken::new(),
            )
            .await;
        if out.success {
            recovered = Some(out);
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        recovered
            .expect("dispatch works again after the restart")
            .content,
        "7"
    );
    no_leftover_keys(&server).await;
}

/// A server that cannot be reached is `store_unavailable` when connecting.
#[tokio::test]
async fn connecting_to_nothing_is_store_unavailable() {
    let mut server = RedisServer::start().await;
    let url = server.url();
    server.stop().await;
    let error = RedisResultStore::connect(
        RedisStoreConfig::new(url).connect_timeout(Duration::from_millis(300)),
    )
    .await
    .unwrap_err();
    assert_eq!(error.code(), "store_unavailable");
    let error = RedisResultStore::connect(RedisStoreConfig::new("not a url"))
        .await
        .unwrap_err();
    assert_eq!(error.code(), "store_unavailable");
}

/// A Redis that requires a password: the store works with it in the URL
/// (the pub/sub subscriber authenticates too), and without it or with a
/// wrong one the failure is `store_unavailable`, naming the cause and never
/// the password.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_password_protected_redis_needs_the_password_and_never_shows_it() {
    let server = RedisServer::start_with_password("s3cret-pass-Ob7").await;
    suite::round_trip(Arc::new(store(&server).await)).await;
    no_leftover_keys(&server).await;

    for (url, secret) in [
        (server.url_with(""), None),
        (server.url_with(":wrong-pass-Qx2@"), Some("wrong-pass-Qx2")),
        (
            server.url_with("default:wrong-pass-Qx2@"),
            Some("wrong-pass-Qx2"),
        ),
    ] {
        let config = RedisStoreConfig::new(url.clone()).connect_timeout(Duration::from_millis(500));
        let error = match RedisResultStore::connect(config).await {
            Err(error) => error,
            Ok(store) => {
                let rig = suite::rig(Arc::new(store));
                let out = rig
                    .dispatcher
                    .dispatch(
                        call("echo", r#"{"n": 1}"#),
                        Duration::from_secs(2),
                        &CancellationToken::new(),
                    )
                    .await;
                panic!("{url}: connected without the password: {out:?}");
            }
        };
        assert_eq!(error.code(), "store_unavailable", "{url}: {error}");
        let message = error.to_string();
        assert!(
            message.contains("NOAUTH") || message.contains("WRONGPASS"),
            "{url}: the cause is named: {message}"
        );
        assert!(!message.contains("s3cret-pass-Ob7"), "{message}");
        if let Some(secret) = secret {
            assert!(!message.contains(secret), "{url}: {message}");
        }
    }
}
