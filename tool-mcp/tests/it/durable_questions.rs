//! A 2026-07-28 server's questions (`input_required`, multi-round-trip)
//! kept as tool-core's durable pending turn and resumed in another
//! "process": a fresh manager, registry, invoker and server process, the
//! same MAC keys and use-once ledger (what a host keeps in its database).
//!
//! The server is the pinned Python SDK (2.3, 2026-07-28 over stdio): its
//! `remove` tool asks `Remove PATH?` through a resolver, its request state
//! sealed with `TOOL_MCP_STATE_KEY` (so a server started again accepts the
//! state of the one before, as a deployment sharing a key does); each run
//! of its body is appended to `TOOL_MCP_RUN_LOG`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};
use tool_core::durable::{
    Asked, Durable, InputAction, KeyRing, MacKey, MemoryLedger, Pending, Reply, Scope,
};
use tool_core::{
    Answer, Ask, Asker, Elicitation, Elicited, Invoker, OfferedTools, ToolCall, ToolContext,
    ToolRegistry,
};
use tool_mcp::{ManagerOptions, McpManager, McpServerConfig, McpTransport};

/// The server's request-state key (the Python SDK wants 32 bytes or more).
const STATE_KEY: &str = "a 32-byte request state key for the fixture";

/// One host process: its own manager (hence its own server process),
/// registry and invoker; keys and ledger as the host's database holds them.
struct Host {
    manager: Arc<McpManager>,
    _registry: ToolRegistry,
    offered: OfferedTools,
    invoker: Invoker,
    durable: Durable,
    ctx: ToolContext,
}

fn keys() -> KeyRing {
    KeyRing::new(MacKey::new("k-2026-12", *b"the host's 32-byte durable key!!").unwrap())
}

async fn host(run_log: &Path, ledger: &Arc<MemoryLedger>) -> Host {
    let mut config = crate::common::python_stdio("py", "stdio");
    if let McpTransport::Stdio { env, .. } = &mut config.transport {
        env.insert("TOOL_MCP_STATE_KEY".into(), STATE_KEY.into());
        env.insert(
            "TOOL_MCP_RUN_LOG".into(),
            run_log.display().to_string().into(),
        );
    }
    host_of(config, ledger).await
}

async fn host_of(config: McpServerConfig, ledger: &Arc<MemoryLedger>) -> Host {
    let manager = Arc::new(McpManager::new(
        ManagerOptions::default().pending_questions(true),
    ));
    manager.upsert(config).unwrap();
    let registry = crate::common::registry_of(&manager).await;
    let ctx = ToolContext::new().with_extension(Scope::new().with(Scope::CONVERSATION, "c-1"));
    let offered = registry.offer(&ctx);
    Host {
        manager,
        _registry: registry,
        offered,
        invoker: Invoker::default(),
        durable: Durable::new(keys()).with_ledger(Arc::clone(ledger) as _),
        ctx,
    }
}

fn remove(offered: &OfferedTools, id: &str, path: &str) -> ToolCall {
    let wire = offered
        .resolve_pair("py", "remove")
        .unwrap()
        .wire_name
        .to_owned();
    ToolCall::new(wire, json!({ "path": path }).to_string()).with_id(id)
}

/// Every run of the tool's body: (path, server process id).
fn runs(log: &Path) -> Vec<(String, u64)> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap();
            (
                v["path"].as_str().unwrap().to_owned(),
                v["pid"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn temp_log() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("runs.jsonl");
    (dir, log)
}

fn code(turn: &tool_core::durable::Turn, index: usize) -> String {
    turn.outputs[index]
        .as_ref()
        .and_then(|o| o.error_code().map(|c| c.as_str().to_owned()))
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_servers_question_waits_as_a_pending_turn_and_is_resumed_once_by_another_process() {
    let (_dir, log) = temp_log();
    let ledger = Arc::new(MemoryLedger::new());

    // Process 1: the model's call; the server asks, nobody here answers.
    let first = host(&log, &ledger).await;
    let call = remove(&first.offered, "c1", "/srv/old");
    let turn = first
        .invoker
        .invoke_turn(&first.durable, &first.offered, &[call], &first.ctx)
        .await;
    assert!(turn.outputs[0].is_none(), "{:?}", turn.outputs[0]);
    let pending = turn.pending.expect("the question waits");
    let Asked::Input { questions, state } = &pending.items[0].asked else {
        panic!("input asked, got {:?}", pending.items[0].asked);
    };
    assert_eq!(questions.len(), 1);
    assert_eq!(questions[0].message, "Remove /srv/old?");
    assert_eq!(
        questions[0].requested_schema["properties"]["confirm"]["type"],
        "boolean"
    );
    assert_eq!(state["mcp"]["server"], "py");
    assert_eq!(state["mcp"]["tool"], "remove");
    let request_state = state["mcp"]["requestState"].as_str().unwrap().to_owned();
    assert!(!request_state.is_empty());
    assert!(runs(&log).is_empty(), "the body waits for the answer");
    let first_pid = first.manager.process_id("py").await.unwrap();
    let stored = serde_json::to_string(&pending).unwrap();
    first.manager.shutdown().await;
    drop(first);

    // Process 2: a fresh host and server process; the person said yes.
    let second = host(&log, &ledger).await;
    let pending = Pending::from_json(&stored).unwrap();
    let yes = pending
        .answer(
            "c1",
            Reply::input(json!({"confirm": true})),
            second.durable.keys(),
        )
        .unwrap();

    // A client that altered the server's state in the stored turn is
    // refused before anything is sent.
    let tampered = stored.replace(&request_state, &format!("{request_state}x"));
    let err = second
        .invoker
        .resume(
            &second.durable,
            &second.offered,
            Pending::from_json(&tampered).unwrap(),
            std::slice::from_ref(&yes),
            &second.ctx,
        )
        .await
        .unwrap_err();
    assert!(err.to_string().contains("mac"), "{err}");

    let done = second
        .invoker
        .resume(
            &second.durable,
            &second.offered,
            pending.clone(),
            std::slice::from_ref(&yes),
            &second.ctx,
        )
        .await
        .unwrap();
    assert!(done.is_settled());
    // `note` was left out: its default ("") filled in (SEP-1034).
    assert_eq!(
        done.outputs[0].as_ref().unwrap().content,
        "removed /srv/old ()"
    );
    let ran = runs(&log);
    assert_eq!(ran.len(), 1, "{ran:?}");
    assert_ne!(
        ran[0].1,
        u64::from(first_pid),
        "answered by the new server process"
    );

    // Process 3: the same answer again is used once already; nothing is sent.
    let third = host(&log, &ledger).await;
    let replay = third
        .invoker
        .resume(&third.durable, &third.offered, pending, &[yes], &third.ctx)
        .await
        .unwrap();
    assert_eq!(code(&replay, 0), "approval_used");
    assert_eq!(runs(&log).len(), 1);
    second.manager.shutdown().await;
    third.manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declined_question_reaches_the_server_and_an_answer_for_another_call_settles_nothing() {
    let (_dir, log) = temp_log();
    let ledger = Arc::new(MemoryLedger::new());
    let h = host(&log, &ledger).await;
    let calls = [
        remove(&h.offered, "a", "/srv/a"),
        remove(&h.offered, "b", "/srv/b"),
    ];
    let turn = h
        .invoker
        .invoke_turn(&h.durable, &h.offered, &calls, &h.ctx)
        .await;
    let pending = turn.pending.unwrap();
    assert_eq!(pending.items.len(), 2);
    let no = pending
        .answer(
            "a",
            Reply::Input {
                action: InputAction::Decline,
                content: Value::Null,
            },
            h.durable.keys(),
        )
        .unwrap();
    // An answer made for `a`, presented as `b`'s, is refused.
    let mut forged = no.clone();
    forged.call_id = "b".into();
    let resumed = h
        .invoker
        .resume(&h.durable, &h.offered, pending, &[no, forged], &h.ctx)
        .await
        .unwrap();
    assert_eq!(
        resumed.outputs[0].as_ref().unwrap().content,
        "kept /srv/a (decline)"
    );
    assert!(resumed.outputs[1].is_none(), "b still waits");
    assert_eq!(resumed.refused.len(), 1);
    assert_eq!(resumed.refused[0].call_id, "b");
    assert_eq!(runs(&log).len(), 1);
    h.manager.shutdown().await;
}

/// A person at the terminal: answers the tool's questions at once.
struct Terminal;

#[async_trait]
impl Asker for Terminal {
    async fn ask(&self, asks: &[Ask<'_>], _: &ToolContext) -> Vec<Answer> {
        asks.iter().map(|_| Answer::approve()).collect()
    }

    async fn elicit(&self, question: &Elicitation, _: &ToolContext) -> Elicited {
        assert_eq!(question.message, "Remove /srv/now?");
        Elicited::Accept(json!({"confirm": true, "note": "asked in process"}))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_an_asker_in_the_process_the_question_is_answered_at_once_and_nothing_waits() {
    let (_dir, log) = temp_log();
    let ledger = Arc::new(MemoryLedger::new());
    let mut h = host(&log, &ledger).await;
    h.invoker = Invoker::default().with_asker(Arc::new(Terminal));
    let call = remove(&h.offered, "c", "/srv/now");
    let turn = h
        .invoker
        .invoke_turn(&h.durable, &h.offered, &[call], &h.ctx)
        .await;
    assert!(turn.pending.is_none());
    assert_eq!(
        turn.outputs[0].as_ref().unwrap().content,
        "removed /srv/now (asked in process)"
    );
    h.manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_streamable_http_a_restarted_host_resumes_the_servers_question() {
    let (_dir, log) = temp_log();
    let port = crate::common::free_port();
    let mut command = tokio::process::Command::new(crate::common::python());
    command
        .arg(crate::common::python_script())
        .arg("http")
        .arg(port.to_string())
        .env("TOOL_MCP_RUN_LOG", &log);
    let server = crate::common::spawn_http(&mut command, port).await;
    let config = || McpServerConfig::new("py", McpTransport::http(server.url.clone()));
    let ledger = Arc::new(MemoryLedger::new());

    let first = host_of(config(), &ledger).await;
    let call = remove(&first.offered, "h1", "/srv/remote");
    let turn = first
        .invoker
        .invoke_turn(&first.durable, &first.offered, &[call], &first.ctx)
        .await;
    let stored = serde_json::to_string(&turn.pending.expect("the question waits")).unwrap();
    first.manager.shutdown().await;
    drop(first);
    assert!(runs(&log).is_empty());

    // The host restarts; the server (remote) stays.
    let second = host_of(config(), &ledger).await;
    let pending = Pending::from_json(&stored).unwrap();
    let yes = pending
        .answer(
            "h1",
            Reply::input(json!({"confirm": true, "note": "later"})),
            second.durable.keys(),
        )
        .unwrap();
    let done = second
        .invoker
        .resume(
            &second.durable,
            &second.offered,
            pending,
            &[yes],
            &second.ctx,
        )
        .await
        .unwrap();
    assert_eq!(
        done.outputs[0].as_ref().unwrap().content,
        "removed /srv/remote (later)"
    );
    assert_eq!(runs(&log).len(), 1);
    second.manager.shutdown().await;
}
