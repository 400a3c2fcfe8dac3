//! Durable approvals through the public API: a pending turn stored as JSON
//! and resumed by a fresh invoker, and the attacks on it (replay, altered
//! arguments, forged or misdirected answers, changed manifest, policy or
//! scope, expiry, two resumers, a crash between claim and start, tampered
//! tool state).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use serde_json::{Value, json};
use tool_core::durable::{
    BindingPart, Claim, Durable, InputAction, InputRequest, InterventionStatus, KeyRing, MacKey,
    MemoryLedger, Pending, RememberedAnswers, Reply, Scope, Turn, UseOnceLedger,
};
use tool_core::{
    Answer, ApiDefinition, Ask, Asker, Confinement, Elicitation, Error, Gate, GateDecision,
    Invoker, OfferedTools, ProviderFormat, ToolBuilder, ToolCall, ToolContext, ToolOutput,
    ToolRegistry, pipeline::PreparedCall,
};

/// Asks before `delete` (confined read-only once approved), blocks
/// `format`, runs the rest; with `block_deletes`, blocks `delete` too.
struct Policy {
    block_deletes: bool,
}

#[async_trait]
impl Gate for Policy {
    async fn decide(
        &self,
        calls: &[PreparedCall],
        _: &OfferedTools,
        _: &ToolContext,
    ) -> Vec<GateDecision> {
        calls
            .iter()
            .map(|c| match c.api.as_str() {
                "delete" if self.block_deletes => GateDecision::block("deletes are off now"),
                "delete" => GateDecision::ask("deleting needs a yes")
                    .with_rule("rules[0]")
                    .with_confinement(Confinement::read_only()),
                "format" => GateDecision::block("never"),
                _ => GateDecision::run(),
            })
            .collect()
    }

    fn fingerprint(&self) -> Option<String> {
        Some(if self.block_deletes { "p2" } else { "p1" }.to_owned())
    }
}

struct Host {
    offered: OfferedTools,
    invoker: Invoker,
    durable: Durable,
    ctx: ToolContext,
    runs: Arc<AtomicUsize>,
}

fn keys() -> KeyRing {
    KeyRing::new(MacKey::new("k1", *b"0123456789abcdef0123456789abcdef").unwrap())
}

fn scope() -> Scope {
    Scope::new()
        .with(Scope::CONVERSATION, "c-1")
        .with(Scope::WORKSPACE, "w-1")
}

/// A host: `disk` with list / delete / format / ask (a tool that asks a
/// question before it deletes); `description` changes the manifest.
fn host_with(description: &str, block_deletes: bool, durable: Durable, scope: Scope) -> Host {
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&runs);
    let counter2 = Arc::clone(&runs);
    let path = json!({"type": "object", "properties": {"path": {"type": "string"}}});
    let tool = ToolBuilder::new("disk")
        .api(
            ApiDefinition::new("list", description).with_parameters(path.clone()),
            |_, _| async { Ok(ToolOutput::text("a b c")) },
        )
        .api(
            ApiDefinition::new("delete", "Deletes a path.").with_parameters(path.clone()),
            move |args, ctx| {
                let counter = Arc::clone(&counter);
                async move {
                    counter.fetch_add(1, Ordering::SeqCst);
                    let confinement = ctx.extension::<Confinement>().map(|c| c.name());
                    Ok(ToolOutput::text(format!(
                        "deleted {} under {}",
                        args["path"].as_str().unwrap_or("?"),
                        confinement.unwrap_or("nothing")
                    )))
                }
            },
        )
        .api(ApiDefinition::new("format", "Formats."), |_, _| async {
            Ok(ToolOutput::text("formatted"))
        })
        .api(
            ApiDefinition::new("tidy", "Tidies, after asking which branch.").with_parameters(path),
            move |_, ctx| {
                let counter = Arc::clone(&counter2);
                async move {
                    match ctx.input_response() {
                        None => Ok(ToolOutput::input_required(InputRequest::new(
                            Elicitation::new(
                                "Which branch?",
                                json!({"type": "object", "properties": {"branch": {"type": "string"}}}),
                            ),
                            json!({"step": 1, "target": "/srv"}),
                        ))),
                        Some(answer) if answer.action != InputAction::Accept => {
                            Ok(ToolOutput::text("left alone"))
                        }
                        Some(answer) if answer.state["step"] == 1 => {
                            Ok(ToolOutput::input_required(InputRequest::new(
                                Elicitation::new("Sure?", json!({"type": "object"})),
                                json!({"step": 2, "branch": answer.content["branch"], "target": answer.state["target"]}),
                            )))
                        }
                        Some(answer) => {
                            counter.fetch_add(1, Ordering::SeqCst);
                            Ok(ToolOutput::text(format!(
                                "tidied {} on {}",
                                answer.state["target"].as_str().unwrap_or("?"),
                                answer.state["branch"].as_str().unwrap_or("?")
                            )))
                        }
                    }
                }
            },
        )
        .build()
        .unwrap();
    let mut registry = ToolRegistry::new();
    registry.register(tool).unwrap();
    let ctx = ToolContext::new().with_extension(scope);
    Host {
        offered: registry.offer(&ctx),
        invoker: Invoker::default().with_gate(Arc::new(Policy { block_deletes })),
        durable,
        ctx,
        runs,
    }
}

fn host() -> Host {
    host_with("Lists.", false, Durable::new(keys()), scope())
}

fn batch() -> Vec<ToolCall> {
    vec![
        ToolCall::new("disk____list", "{}").with_id("c1"),
        ToolCall::new("disk____delete", r#"{"path": "/tmp/x"}"#).with_id("c2"),
        ToolCall::new("disk____format", "{}").with_id("c3"),
    ]
}

/// Process one: the batch, stored as JSON text.
async fn stored_turn() -> String {
    let h = host();
    let turn = h
        .invoker
        .invoke_turn(&h.durable, &h.offered, &batch(), &h.ctx)
        .await;
    serde_json::to_string(&turn.pending.expect("delete waits")).unwrap()
}

fn code(turn: &Turn, index: usize) -> String {
    turn.outputs[index]
        .as_ref()
        .and_then(|o| o.error_code())
        .map(|c| c.as_str().to_owned())
        .unwrap_or_default()
}

#[tokio::test]
async fn a_batch_without_asker_runs_what_may_run_and_keeps_the_ask_as_bound_data() {
    let h = host();
    let turn = h
        .invoker
        .invoke_turn(&h.durable, &h.offered, &batch(), &h.ctx)
        .await;
    assert_eq!(turn.outputs[0].as_ref().unwrap().content, "a b c");
    assert!(turn.outputs[1].is_none());
    assert_eq!(code(&turn, 2), "blocked_by_security_privacy");
    assert_eq!(h.runs.load(Ordering::SeqCst), 0);
    let pending = turn.pending.unwrap();
    let json = pending.to_json();
    assert_eq!(json["version"], 1);
    let item = &json["items"][0];
    assert_eq!(item["index"], 1);
    assert_eq!(item["asked"]["kind"], "approval");
    assert_eq!(item["decision"]["confinement"]["mode"], "read_only");
    assert_eq!(item["decision"]["rule"], "rules[0]");
    let binding = &item["binding"];
    assert_eq!(binding["tool"], "disk");
    assert_eq!(binding["api"], "delete");
    assert_eq!(binding["policyFingerprint"], "p1");
    assert_eq!(binding["scope"]["workspace"], "w-1");
    assert_eq!(binding["argumentsDigest"].as_str().unwrap().len(), 64);
    assert_eq!(binding["manifestFingerprint"].as_str().unwrap().len(), 64);
    // LobeHub's shape for the UI.
    let states = serde_json::to_value(pending.interventions()).unwrap();
    assert_eq!(states, json!([null, {"status": "pending"}, null]));
    // Results cannot go to the model while a call waits.
    let err = turn_results_error(&h).await;
    assert!(err.to_string().contains("still pending"), "{err}");
}

async fn turn_results_error(h: &Host) -> Error {
    let turn = h
        .invoker
        .invoke_turn(&h.durable, &h.offered, &batch(), &h.ctx)
        .await;
    turn.tool_results(ProviderFormat::OpenAiChat).unwrap_err()
}

#[tokio::test]
async fn a_stored_turn_resumed_by_a_fresh_host_runs_the_approved_call_once_under_its_confinement() {
    let stored = stored_turn().await;
    // Another "process": new registry, gate, invoker; same key and ledger kind.
    let h = host();
    let pending = Pending::from_json(&stored).unwrap();
    let answer = pending
        .answer("c2", Reply::approve(), h.durable.keys())
        .unwrap();
    // The answer travels as JSON too.
    let answer = serde_json::from_str(&serde_json::to_string(&answer).unwrap()).unwrap();
    let turn = h
        .invoker
        .resume(&h.durable, &h.offered, pending, &[answer], &h.ctx)
        .await
        .unwrap();
    assert!(turn.is_settled() && turn.pending.is_none());
    assert_eq!(
        turn.outputs[1].as_ref().unwrap().content,
        "deleted /tmp/x under read_only"
    );
    assert_eq!(h.runs.load(Ordering::SeqCst), 1);
    assert_eq!(
        turn.interventions[1].as_ref().unwrap().status,
        InterventionStatus::Approved
    );
    // What the model gets: all three results, in the original order.
    for format in [
        ProviderFormat::OpenAiChat,
        ProviderFormat::OpenAiResponses,
        ProviderFormat::Anthropic,
    ] {
        let sent = turn.tool_results(format).unwrap();
        let text = serde_json::to_string(&sent).unwrap();
        let (a, b, c) = (
            text.find("a b c").unwrap(),
            text.find("deleted /tmp/x").unwrap(),
            text.find("Blocked by security").unwrap(),
        );
        assert!(a < b && b < c, "{format:?}: {text}");
    }
    let chat = turn.tool_results(ProviderFormat::OpenAiChat).unwrap();
    let ids: Vec<&str> = chat
        .iter()
        .map(|m| m["tool_call_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["c1", "c2", "c3"]);
}

#[tokio::test]
async fn a_replayed_approval_is_refused_as_used_and_the_call_runs_once() {
    let stored = stored_turn().await;
    let h = host();
    let pending = Pending::from_json(&stored).unwrap();
    let answer = pending
        .answer("c2", Reply::approve(), h.durable.keys())
        .unwrap();
    let first = h
        .invoker
        .resume(
            &h.durable,
            &h.offered,
            pending.clone(),
            std::slice::from_ref(&answer),
            &h.ctx,
        )
        .await
        .unwrap();
    assert!(first.outputs[1].as_ref().unwrap().is_success());
    let replay = h
        .invoker
        .resume(&h.durable, &h.offered, pending, &[answer], &h.ctx)
        .await
        .unwrap();
    assert_eq!(code(&replay, 1), "approval_used");
    assert_eq!(h.runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_decline_then_an_approval_of_the_same_call_settles_only_once() {
    let stored = stored_turn().await;
    let h = host();
    let pending = Pending::from_json(&stored).unwrap();
    let no = pending
        .answer(
            "c2",
            Reply::decline(Some("not today".into())),
            h.durable.keys(),
        )
        .unwrap();
    let turn = h
        .invoker
        .resume(&h.durable, &h.offered, pending.clone(), &[no], &h.ctx)
        .await
        .unwrap();
    assert_eq!(code(&turn, 1), "declined_by_user");
    assert!(
        turn.outputs[1]
            .as_ref()
            .unwrap()
            .content
            .contains("not today")
    );
    let state = serde_json::to_value(turn.interventions[1].as_ref().unwrap()).unwrap();
    assert_eq!(
        state,
        json!({"status": "rejected", "rejectedReason": "not today"})
    );
    let yes = pending
        .answer("c2", Reply::approve(), h.durable.keys())
        .unwrap();
    let again = h
        .invoker
        .resume(&h.durable, &h.offered, pending, &[yes], &h.ctx)
        .await
        .unwrap();
    assert_eq!(code(&again, 1), "approval_used");
    assert_eq!(h.runs.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn an_altered_argument_in_the_stored_turn_refuses_the_whole_turn() {
    let stored = stored_turn().await;
    let h = host();
    let pending = Pending::from_json(&stored).unwrap();
    let answer = pending
        .answer("c2", Reply::approve(), h.durable.keys())
        .unwrap();
    // The client edits what the person approved, in the item and the batch.
    let altered = stored.replace(r#"/tmp/x"#, "/etc");
    assert_ne!(altered, stored);
    let forged = Pending::from_json(&altered).unwrap();
    let err = h
        .invoker
        .resume(&h.durable, &h.offered, forged, &[answer], &h.ctx)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::PendingRefused { .. }), "{err}");
    assert!(err.to_string().contains("/mac"), "{err}");
    assert_eq!(h.runs.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_turn_or_answer_signed_without_the_hosts_key_settles_nothing() {
    let stored = stored_turn().await;
    let h = host();
    let pending = Pending::from_json(&stored).unwrap();
    // A client that knows the format but not the key: its own key, same id.
    let client = KeyRing::new(MacKey::new("k1", [9u8; 32]).unwrap());
    assert!(pending.answer("c2", Reply::approve(), &client).is_err());
    // It flips a real decline into an approval.
    let mut flipped = pending
        .answer("c2", Reply::decline(None), h.durable.keys())
        .unwrap();
    flipped.reply = Reply::approve();
    // It pastes an approval into the history it sends, MAC made up.
    let mut made_up = flipped.clone();
    made_up.mac = "00".repeat(32);
    let turn = h
        .invoker
        .resume(
            &h.durable,
            &h.offered,
            pending.clone(),
            &[flipped, made_up],
            &h.ctx,
        )
        .await
        .unwrap();
    assert_eq!(turn.refused.len(), 2);
    assert!(turn.refused.iter().all(|r| r.reason.contains("MAC")));
    assert!(turn.outputs[1].is_none(), "the call still waits");
    assert!(turn.pending.is_some());
    assert_eq!(h.runs.load(Ordering::SeqCst), 0);
    // A turn the client made with its own key is refused whole.
    let mut own = pending.clone();
    own.mac = "ab".repeat(32);
    let err = h
        .invoker
        .resume(&h.durable, &h.offered, own, &[], &h.ctx)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("does not match"), "{err}");
}

#[tokio::test]
async fn an_answer_for_another_call_or_turn_approves_nothing() {
    let h = host();
    let two = vec![
        ToolCall::new("disk____delete", r#"{"path": "/a"}"#).with_id("d1"),
        ToolCall::new("disk____delete", r#"{"path": "/b"}"#).with_id("d2"),
    ];
    let turn = h
        .invoker
        .invoke_turn(&h.durable, &h.offered, &two, &h.ctx)
        .await;
    let pending = turn.pending.unwrap();
    let other = h
        .invoker
        .invoke_turn(&h.durable, &h.offered, &batch(), &h.ctx)
        .await
        .pending
        .unwrap();
    // Approval for /a, re-addressed to /b (MAC breaks); an approval from
    // another turn for the same call id shape.
    let mut moved = pending
        .answer("d1", Reply::approve(), h.durable.keys())
        .unwrap();
    moved.call_id = "d2".into();
    let foreign = other
        .answer("c2", Reply::approve(), h.durable.keys())
        .unwrap();
    let resumed = h
        .invoker
        .resume(&h.durable, &h.offered, pending, &[moved, foreign], &h.ctx)
        .await
        .unwrap();
    assert_eq!(resumed.refused.len(), 2, "{:?}", resumed.refused);
    assert!(resumed.refused[1].reason.contains("another turn"));
    assert!(resumed.outputs.iter().all(Option::is_none));
    assert_eq!(resumed.pending.unwrap().items.len(), 2);
    assert_eq!(h.runs.load(Ordering::SeqCst), 0);
}

async fn stale_part(h: &Host, stored: &str) -> (Turn, Value) {
    let pending = Pending::from_json(stored).unwrap();
    let answer = pending
        .answer("c2", Reply::approve(), h.durable.keys())
        .unwrap();
    let turn = h
        .invoker
        .resume(&h.durable, &h.offered, pending, &[answer], &h.ctx)
        .await
        .unwrap();
    let details = turn.outputs[1]
        .as_ref()
        .and_then(|o| o.error())
        .and_then(|e| e.details.clone())
        .unwrap_or_default();
    (turn, details)
}

#[tokio::test]
async fn a_changed_manifest_policy_or_scope_fails_closed_naming_the_part() {
    let stored = stored_turn().await;
    let cases = [
        (
            host_with(
                "Lists, now differently.",
                false,
                Durable::new(keys()),
                scope(),
            ),
            BindingPart::Manifest,
        ),
        (
            host_with(
                "Lists.",
                false,
                Durable::new(keys()).with_policy_fingerprint("p9"),
                scope(),
            ),
            BindingPart::Policy,
        ),
        (
            host_with(
                "Lists.",
                false,
                Durable::new(keys()),
                scope().with(Scope::WORKSPACE, "w-2"),
            ),
            BindingPart::Scope,
        ),
    ];
    for (h, part) in cases {
        let (turn, details) = stale_part(&h, &stored).await;
        assert_eq!(code(&turn, 1), "approval_stale", "{part:?}");
        assert_eq!(details["part"], json!(part), "{part:?}");
        assert_eq!(h.runs.load(Ordering::SeqCst), 0, "{part:?}");
        assert_eq!(
            turn.interventions[1].as_ref().unwrap().status,
            InterventionStatus::Rejected
        );
    }
    // The gate's own fingerprint changed (its policy now blocks deletes):
    // stale on `policy`, and the gate's new decision is shown.
    let h = host_with("Lists.", true, Durable::new(keys()), scope());
    let (turn, details) = stale_part(&h, &stored).await;
    assert_eq!(code(&turn, 1), "approval_stale");
    assert_eq!(details["part"], "policy");
    assert_eq!(details["redecided"]["action"], "block");
}

#[tokio::test]
async fn an_expired_approval_is_refused() {
    let durable = Durable::new(keys()).with_ttl(Duration::from_millis(1));
    let h = host_with("Lists.", false, durable, scope());
    let turn = h
        .invoker
        .invoke_turn(&h.durable, &h.offered, &batch(), &h.ctx)
        .await;
    let pending = turn.pending.unwrap();
    tokio::time::sleep(Duration::from_millis(20)).await;
    let answer = pending
        .answer("c2", Reply::approve(), h.durable.keys())
        .unwrap();
    let turn = h
        .invoker
        .resume(&h.durable, &h.offered, pending, &[answer], &h.ctx)
        .await
        .unwrap();
    assert_eq!(code(&turn, 1), "approval_stale");
    let details = &turn.outputs[1].as_ref().unwrap().error().unwrap().details;
    assert_eq!(details.as_ref().unwrap()["part"], "expiry");
    assert_eq!(h.runs.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn two_resumers_sharing_a_ledger_run_the_call_exactly_once() {
    let stored = stored_turn().await;
    let ledger: Arc<dyn UseOnceLedger> = Arc::new(MemoryLedger::new());
    let a = host_with(
        "Lists.",
        false,
        Durable::new(keys()).with_ledger(Arc::clone(&ledger)),
        scope(),
    );
    let b = host_with(
        "Lists.",
        false,
        Durable::new(keys()).with_ledger(Arc::clone(&ledger)),
        scope(),
    );
    let pending = Pending::from_json(&stored).unwrap();
    let answer = pending
        .answer("c2", Reply::approve(), a.durable.keys())
        .unwrap();
    let (ra, rb) = tokio::join!(
        a.invoker.resume(
            &a.durable,
            &a.offered,
            pending.clone(),
            std::slice::from_ref(&answer),
            &a.ctx
        ),
        b.invoker.resume(
            &b.durable,
            &b.offered,
            pending.clone(),
            std::slice::from_ref(&answer),
            &b.ctx
        ),
    );
    let (ra, rb) = (ra.unwrap(), rb.unwrap());
    assert_eq!(
        a.runs.load(Ordering::SeqCst) + b.runs.load(Ordering::SeqCst),
        1
    );
    let mut codes = [code(&ra, 1), code(&rb, 1)];
    codes.sort();
    assert_eq!(codes, [String::new(), "approval_used".to_owned()]);
}

/// A ledger whose first `mark_started` never lands, like a process that
/// claimed the call and died before starting it.
struct CrashAfterClaim {
    inner: MemoryLedger,
    crashed: AtomicUsize,
}

#[async_trait]
impl UseOnceLedger for CrashAfterClaim {
    async fn claim(&self, key: &str, until: SystemTime) -> Result<Claim, Error> {
        self.inner.claim(key, until).await
    }
    async fn mark_started(&self, key: &str) -> Result<(), Error> {
        if self.crashed.fetch_add(1, Ordering::SeqCst) == 0 {
            return Err(Error::Ledger {
                message: "connection lost".into(),
            });
        }
        self.inner.mark_started(key).await
    }
}

#[tokio::test]
async fn a_crash_between_claim_and_start_is_named_and_never_a_second_run() {
    let stored = stored_turn().await;
    let ledger = Arc::new(CrashAfterClaim {
        inner: MemoryLedger::new(),
        crashed: AtomicUsize::new(0),
    });
    let h = host_with(
        "Lists.",
        false,
        Durable::new(keys()).with_ledger(ledger),
        scope(),
    );
    let pending = Pending::from_json(&stored).unwrap();
    let answer = pending
        .answer("c2", Reply::approve(), h.durable.keys())
        .unwrap();
    let first = h
        .invoker
        .resume(
            &h.durable,
            &h.offered,
            pending.clone(),
            std::slice::from_ref(&answer),
            &h.ctx,
        )
        .await
        .unwrap();
    assert_eq!(code(&first, 1), "approval_ledger_unavailable");
    let second = h
        .invoker
        .resume(&h.durable, &h.offered, pending, &[answer], &h.ctx)
        .await
        .unwrap();
    assert_eq!(code(&second, 1), "approval_interrupted");
    assert_eq!(h.runs.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_tools_questions_round_trip_through_storage_and_tampered_state_is_refused() {
    let h = host();
    let calls = [ToolCall::new("disk____tidy", "{}").with_id("t1")];
    let turn = h
        .invoker
        .invoke_turn(&h.durable, &h.offered, &calls, &h.ctx)
        .await;
    let pending = turn.pending.unwrap();
    let item = &pending.to_json()["items"][0];
    assert_eq!(item["asked"]["kind"], "input");
    assert_eq!(item["asked"]["questions"][0]["message"], "Which branch?");
    let stored = serde_json::to_string(&pending).unwrap();

    // The client points the tool's state at another target.
    let tampered = Pending::from_json(&stored.replace("/srv", "/etc")).unwrap();
    let answer = pending
        .answer(
            "t1",
            Reply::input(json!({"branch": "main"})),
            h.durable.keys(),
        )
        .unwrap();
    let err = h
        .invoker
        .resume(
            &h.durable,
            &h.offered,
            tampered,
            std::slice::from_ref(&answer),
            &h.ctx,
        )
        .await
        .unwrap_err();
    assert!(err.to_string().contains("mac"), "{err}");

    // The real round trip: two rounds of questions, then the result.
    let second = h
        .invoker
        .resume(
            &h.durable,
            &h.offered,
            Pending::from_json(&stored).unwrap(),
            &[answer],
            &h.ctx,
        )
        .await
        .unwrap();
    let next = second.pending.expect("a second question");
    assert_eq!(
        next.items[0].to_owned().asked,
        tool_core::durable::Asked::Input {
            questions: vec![Elicitation::new("Sure?", json!({"type": "object"}))],
            state: json!({"step": 2, "branch": "main", "target": "/srv"}),
        }
    );
    let sure = next
        .answer("t1", Reply::input(json!({})), h.durable.keys())
        .unwrap();
    let done = h
        .invoker
        .resume(&h.durable, &h.offered, next, &[sure], &h.ctx)
        .await
        .unwrap();
    assert_eq!(
        done.outputs[0].as_ref().unwrap().content,
        "tidied /srv on main"
    );
    assert_eq!(h.runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn an_always_is_remembered_in_its_scope_only_and_survives_export() {
    let stored = stored_turn().await;
    let store = Arc::new(RememberedAnswers::new());
    let durable = Durable::new(keys())
        .with_remembered(Arc::clone(&store))
        .with_remember_scope([Scope::WORKSPACE]);
    let h = host_with("Lists.", false, durable.clone(), scope());
    let pending = Pending::from_json(&stored).unwrap();
    let rule = h.durable.always_rule(&pending.items[0]).unwrap();
    assert!(
        rule.describe().contains("workspace=w-1"),
        "{}",
        rule.describe()
    );
    assert!(rule.describe().contains("disk/delete"));
    let answer = pending
        .answer("c2", Reply::approve_always(), h.durable.keys())
        .unwrap();
    h.invoker
        .resume(&h.durable, &h.offered, pending, &[answer], &h.ctx)
        .await
        .unwrap();
    assert_eq!(store.rules().len(), 1);

    // Exported and imported by another process: the same call in the same
    // workspace (another conversation) runs without asking...
    let imported = Arc::new(RememberedAnswers::from_json(&store.to_json().to_string()).unwrap());
    let other_conversation = scope().with(Scope::CONVERSATION, "c-2");
    let h2 = host_with(
        "Lists.",
        false,
        Durable::new(keys()).with_remembered(Arc::clone(&imported)),
        other_conversation,
    );
    let turn = h2
        .invoker
        .invoke_turn(&h2.durable, &h2.offered, &batch(), &h2.ctx)
        .await;
    assert!(turn.pending.is_none());
    assert!(
        turn.outputs[1]
            .as_ref()
            .unwrap()
            .content
            .contains("under read_only")
    );
    // ...other arguments still ask, and so does another workspace.
    let other_args = [ToolCall::new("disk____delete", r#"{"path": "/tmp/y"}"#)];
    let t = h2
        .invoker
        .invoke_turn(&h2.durable, &h2.offered, &other_args, &h2.ctx)
        .await;
    assert!(t.pending.is_some());
    let h3 = host_with(
        "Lists.",
        false,
        Durable::new(keys()).with_remembered(imported),
        scope().with(Scope::WORKSPACE, "w-2"),
    );
    let t = h3
        .invoker
        .invoke_turn(&h3.durable, &h3.offered, &batch(), &h3.ctx)
        .await;
    assert!(t.pending.is_some());
    // A rule without a scope is never loaded.
    let unscoped = r#"[{"tool":"disk","api":"delete","argumentsDigest":"x","argumentsPreview":"","scope":{}}]"#;
    assert!(RememberedAnswers::from_json(unscoped).is_err());
    // A turn without the picked scope key cannot record an "always": the
    // approval runs once and the resume says the "always" was not kept.
    let bare = host_with("Lists.", false, durable, Scope::new());
    let turn = bare
        .invoker
        .invoke_turn(&bare.durable, &bare.offered, &batch(), &bare.ctx)
        .await;
    let pending = turn.pending.unwrap();
    assert!(bare.durable.always_rule(&pending.items[0]).is_err());
    let always = pending
        .answer("c2", Reply::approve_always(), bare.durable.keys())
        .unwrap();
    let resumed = bare
        .invoker
        .resume(&bare.durable, &bare.offered, pending, &[always], &bare.ctx)
        .await
        .unwrap();
    assert!(resumed.outputs[1].as_ref().unwrap().is_success());
    assert!(
        resumed.refused[0].reason.contains("was not recorded"),
        "{:?}",
        resumed.refused
    );
    assert_eq!(store.rules().len(), 1);
}

#[tokio::test]
async fn a_rotated_key_still_resumes_and_a_dropped_one_is_refused() {
    let stored = stored_turn().await;
    let new = MacKey::new("k2", [4u8; 32]).unwrap();
    let old = MacKey::new("k1", *b"0123456789abcdef0123456789abcdef").unwrap();
    let rotated = host_with(
        "Lists.",
        false,
        Durable::new(KeyRing::new(new.clone()).with_previous(old)),
        scope(),
    );
    let pending = Pending::from_json(&stored).unwrap();
    let answer = pending
        .answer("c2", Reply::approve(), rotated.durable.keys())
        .unwrap();
    assert_eq!(answer.key_id, "k2");
    let turn = rotated
        .invoker
        .resume(
            &rotated.durable,
            &rotated.offered,
            pending.clone(),
            &[answer],
            &rotated.ctx,
        )
        .await
        .unwrap();
    assert!(turn.outputs[1].as_ref().unwrap().is_success());
    let dropped = host_with("Lists.", false, Durable::new(KeyRing::new(new)), scope());
    let err = dropped
        .invoker
        .resume(
            &dropped.durable,
            &dropped.offered,
            pending,
            &[],
            &dropped.ctx,
        )
        .await
        .unwrap_err();
    assert!(err.to_string().contains("no key with id `k1`"), "{err}");
}

/// An asker for a chat server: it cannot answer now.
struct Later;

#[async_trait]
impl Asker for Later {
    async fn ask(&self, asks: &[Ask<'_>], _: &ToolContext) -> Vec<Answer> {
        asks.iter().map(|_| Answer::later()).collect()
    }
}

#[tokio::test]
async fn an_asker_answering_later_keeps_the_call_pending_and_a_plain_batch_reports_it() {
    let h = host();
    let invoker = h.invoker.clone().with_asker(Arc::new(Later));
    let turn = invoker
        .invoke_turn(&h.durable, &h.offered, &batch(), &h.ctx)
        .await;
    assert_eq!(turn.pending.unwrap().items.len(), 1);
    let plain = invoker.invoke_batch(&h.offered, &batch(), &h.ctx).await;
    assert_eq!(plain[1].error_code().unwrap(), "approval_required");
}

#[tokio::test]
async fn bad_stored_turns_get_errors_that_say_where() {
    for (text, pointer) in [
        ("not json", ""),
        (r#"{"version": 2, "id": "pend_x"}"#, "/version"),
        (r#"{"id": "pend_x"}"#, "/version"),
        (r#"{"version": 1, "id": "pend_x"}"#, ""),
    ] {
        match Pending::from_json(text) {
            Err(Error::PendingRefused { pointer: p, .. }) => assert_eq!(p, pointer, "{text}"),
            other => panic!("{text}: {other:?}"),
        }
    }
    // An item moved to another position of the batch.
    let stored = stored_turn().await;
    let mut value: Value = serde_json::from_str(&stored).unwrap();
    value["items"][0]["index"] = json!(0);
    let err = Pending::from_value(value).unwrap_err();
    assert!(err.to_string().contains("/items/0/index"), "{err}");
}

/// Every object's keys in reverse order, at every depth (what a store such
/// as a `jsonb` column may do to key order).
fn reversed(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .rev()
                .map(|(k, v)| (k.clone(), reversed(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(reversed).collect()),
        other => other.clone(),
    }
}

#[tokio::test]
async fn a_store_that_reorders_keys_does_not_break_the_macs() {
    let h = host();
    let calls = [
        ToolCall::new("disk____tidy", "{}").with_id("t1"),
        ToolCall::new("disk____delete", r#"{"path": "/tmp/x"}"#).with_id("c2"),
    ];
    let turn = h
        .invoker
        .invoke_turn(&h.durable, &h.offered, &calls, &h.ctx)
        .await;
    let stored: Value = serde_json::to_value(turn.pending.unwrap()).unwrap();
    let text = reversed(&stored).to_string();
    assert_ne!(text, stored.to_string());
    let pending = Pending::from_json(&text).unwrap();
    pending.verify(h.durable.keys()).unwrap();
    let answers = [
        pending
            .answer(
                "t1",
                Reply::input(json!({"branch": "dev"})),
                h.durable.keys(),
            )
            .unwrap(),
        pending
            .answer("c2", Reply::approve(), h.durable.keys())
            .unwrap(),
    ];
    let resumed = h
        .invoker
        .resume(&h.durable, &h.offered, pending, &answers, &h.ctx)
        .await
        .unwrap();
    assert!(resumed.outputs[1].as_ref().unwrap().is_success());
    assert!(
        resumed.pending.is_some(),
        "the tool's second question waits"
    );
}

/// Two stored turns of two deletes each (same key, same scope).
async fn two_turns_of_two_items() -> (Value, Value) {
    let h = host();
    let mut turns = Vec::new();
    for dir in ["a", "b"] {
        let calls = [
            ToolCall::new("disk____delete", format!(r#"{{"path": "/tmp/{dir}1"}}"#)).with_id("d1"),
            ToolCall::new("disk____delete", format!(r#"{{"path": "/tmp/{dir}2"}}"#)).with_id("d2"),
        ];
        let turn = h
            .invoker
            .invoke_turn(&h.durable, &h.offered, &calls, &h.ctx)
            .await;
        turns.push(serde_json::to_value(turn.pending.expect("both wait")).unwrap());
    }
    let b = turns.pop().unwrap();
    (turns.pop().unwrap(), b)
}

#[tokio::test]
async fn a_turn_with_items_swapped_dropped_or_spliced_from_another_is_refused_whole() {
    let (a, b) = two_turns_of_two_items().await;
    let h = host();
    assert_eq!(a["items"].as_array().unwrap().len(), 2);
    // Untouched, both verify: the edits below are what is refused.
    for turn in [&a, &b] {
        Pending::from_value(turn.clone())
            .unwrap()
            .verify(h.durable.keys())
            .unwrap();
    }

    let mut edits: Vec<(&str, Value)> = Vec::new();
    // The two items trade places (each keeps its index and call).
    let mut swapped = a.clone();
    swapped["items"].as_array_mut().unwrap().swap(0, 1);
    edits.push(("items swapped", swapped));
    // The two calls and items trade positions consistently.
    let mut reordered = a.clone();
    reordered["calls"].as_array_mut().unwrap().swap(0, 1);
    let items = reordered["items"].as_array_mut().unwrap();
    items.swap(0, 1);
    items[0]["index"] = json!(0);
    items[1]["index"] = json!(1);
    edits.push(("batch reordered", reordered));
    // The second item dropped (its call left pending for ever).
    let mut truncated = a.clone();
    truncated["items"].as_array_mut().unwrap().pop();
    edits.push(("an item dropped", truncated));
    // The last call, its output slot and its item dropped.
    let mut shortened = a.clone();
    shortened["items"].as_array_mut().unwrap().pop();
    shortened["calls"].as_array_mut().unwrap().pop();
    shortened["outputs"].as_array_mut().unwrap().pop();
    edits.push(("the batch truncated", shortened));
    // Turn b's first item and call (signed with the same key) in turn a.
    let mut spliced = a.clone();
    spliced["items"][0] = b["items"][0].clone();
    spliced["calls"][0] = b["calls"][0].clone();
    edits.push(("an item spliced from another turn", spliced));
    // Turn a's header and MAC over turn b's body.
    let mut header = b.clone();
    for field in ["id", "createdAtMs", "expiresAtMs", "mac"] {
        header[field] = a[field].clone();
    }
    edits.push(("another turn's header and MAC", header));
    // Turn b's item ids in turn a.
    let mut ids = a.clone();
    for i in 0..2 {
        ids["items"][i]["mac"] = b["items"][i]["mac"].clone();
    }
    edits.push(("another turn's item ids", ids));

    for (what, value) in edits {
        assert_ne!(value, a, "{what}");
        let pending = Pending::from_value(value).unwrap();
        let err = pending.verify(h.durable.keys()).unwrap_err();
        assert!(
            matches!(&err, Error::PendingRefused { pointer, .. } if pointer == "/mac"),
            "{what}: {err}"
        );
        // Nothing can be answered or resumed from it either.
        assert!(
            pending
                .answer("d1", Reply::approve(), h.durable.keys())
                .is_err(),
            "{what}"
        );
        let resumed = h
            .invoker
            .resume(&h.durable, &h.offered, pending, &[], &h.ctx)
            .await;
        assert!(resumed.is_err(), "{what}");
    }
    assert_eq!(h.runs.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn an_item_whose_call_differs_from_the_batchs_call_is_refused_by_name() {
    let (a, _) = two_turns_of_two_items().await;
    let h = host();
    let good = Pending::from_value(a).unwrap();
    let answer = good
        .answer("d2", Reply::approve(), h.durable.keys())
        .unwrap();
    // Built in memory (not read from JSON): only the item's copy of the
    // call is changed, the batch's call (which the MAC covers) is not.
    let mut altered = good.clone();
    altered.items[1].call.arguments = r#"{"path": "/etc"}"#.to_owned();
    let err = altered.verify(h.durable.keys()).unwrap_err();
    assert!(err.to_string().contains("/items/1/call"), "{err}");
    let err = h
        .invoker
        .resume(
            &h.durable,
            &h.offered,
            altered,
            std::slice::from_ref(&answer),
            &h.ctx,
        )
        .await
        .unwrap_err();
    assert!(matches!(err, Error::PendingRefused { .. }), "{err}");
    assert_eq!(h.runs.load(Ordering::SeqCst), 0);
    // The untouched turn still runs the approved call, once.
    let resumed = h
        .invoker
        .resume(&h.durable, &h.offered, good, &[answer], &h.ctx)
        .await
        .unwrap();
    assert!(resumed.outputs[1].as_ref().unwrap().is_success());
    assert_eq!(h.runs.load(Ordering::SeqCst), 1);
}

/// Asks before `delete` like [`Policy`], but by the rule `session/watch`
/// while `watching` is set (a question about the session, not the call,
/// as the taint gate's trifecta asks): answers to it are never kept.
struct Watch {
    watching: Arc<std::sync::atomic::AtomicBool>,
}

#[async_trait]
impl Gate for Watch {
    async fn decide(
        &self,
        calls: &[PreparedCall],
        offered: &OfferedTools,
        ctx: &ToolContext,
    ) -> Vec<GateDecision> {
        let plain = Policy {
            block_deletes: false,
        };
        let mut decisions = plain.decide(calls, offered, ctx).await;
        if self.watching.load(Ordering::SeqCst) {
            for (call, decision) in calls.iter().zip(&mut decisions) {
                if call.api == "delete" {
                    decision.rule = Some("session/watch".to_owned());
                }
            }
        }
        decisions
    }

    fn remembers(&self, decision: &GateDecision) -> bool {
        decision.rule.as_deref() != Some("session/watch")
    }

    fn fingerprint(&self) -> Option<String> {
        Some("watch".to_owned())
    }
}

fn watched_host(durable: Durable) -> (Host, Arc<std::sync::atomic::AtomicBool>) {
    let watching = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut h = host_with("Lists.", false, durable, scope());
    h.invoker = Invoker::default().with_gate(Arc::new(Watch {
        watching: Arc::clone(&watching),
    }));
    (h, watching)
}

#[tokio::test]
async fn a_remembered_always_never_answers_an_ask_the_gate_does_not_keep() {
    let store = Arc::new(RememberedAnswers::new());
    let durable = Durable::new(keys()).with_remembered(Arc::clone(&store));
    let (h, watching) = watched_host(durable);
    // An "always" for the plain rule is kept...
    let turn = h
        .invoker
        .invoke_turn(&h.durable, &h.offered, &batch(), &h.ctx)
        .await;
    let pending = turn.pending.unwrap();
    let always = pending
        .answer("c2", Reply::approve_always(), h.durable.keys())
        .unwrap();
    h.invoker
        .resume(&h.durable, &h.offered, pending, &[always], &h.ctx)
        .await
        .unwrap();
    assert_eq!(store.rules().len(), 1);
    assert_eq!(h.runs.load(Ordering::SeqCst), 1);

    // ...and answers the same call while the question is the same; once
    // the gate asks about the session instead, the same call waits.
    watching.store(true, Ordering::SeqCst);
    let turn = h
        .invoker
        .invoke_turn(&h.durable, &h.offered, &batch(), &h.ctx)
        .await;
    let pending = turn.pending.expect("the session's question is asked");
    assert_eq!(
        pending.items[0].decision.rule.as_deref(),
        Some("session/watch")
    );
    assert_eq!(h.runs.load(Ordering::SeqCst), 1);

    // "Always" on it approves this call once and is not kept.
    let always = pending
        .answer("c2", Reply::approve_always(), h.durable.keys())
        .unwrap();
    let resumed = h
        .invoker
        .resume(&h.durable, &h.offered, pending, &[always], &h.ctx)
        .await
        .unwrap();
    assert!(resumed.outputs[1].as_ref().unwrap().is_success());
    assert_eq!(h.runs.load(Ordering::SeqCst), 2);
    assert!(
        resumed.refused[0]
            .reason
            .contains("does not keep answers to its rule `session/watch`"),
        "{:?}",
        resumed.refused
    );
    assert_eq!(store.rules().len(), 1);
}

#[tokio::test]
async fn an_approval_resumed_after_the_gate_asks_by_another_rule_is_stale_naming_the_decision() {
    let (h, watching) = watched_host(Durable::new(keys()));
    let turn = h
        .invoker
        .invoke_turn(&h.durable, &h.offered, &batch(), &h.ctx)
        .await;
    let pending = turn.pending.unwrap();
    assert_eq!(pending.items[0].decision.rule.as_deref(), Some("rules[0]"));
    // Between the ask and the answer the session changed: the person said
    // yes to another question than the one the gate asks now.
    watching.store(true, Ordering::SeqCst);
    let answer = pending
        .answer("c2", Reply::approve(), h.durable.keys())
        .unwrap();
    let resumed = h
        .invoker
        .resume(&h.durable, &h.offered, pending, &[answer], &h.ctx)
        .await
        .unwrap();
    let output = resumed.outputs[1].as_ref().unwrap();
    assert_eq!(code(&resumed, 1), "approval_stale");
    let state = output.state.as_ref().unwrap();
    assert_eq!(state["part"], "decision");
    assert_eq!(state["redecided"]["rule"], "session/watch");
    assert_eq!(h.runs.load(Ordering::SeqCst), 0);
}

#[test]
fn the_taint_gate_keeps_no_answer_to_its_session_rules_and_defers_the_rest() {
    use tool_core::taint::{PIN_RULE, RunAll, Session, TRIFECTA_RULE, TaintGate};
    let gate = TaintGate::new(Arc::new(RunAll), Arc::new(Session::new()));
    for rule in [TRIFECTA_RULE, PIN_RULE] {
        assert!(
            !gate.remembers(&GateDecision::ask("?").with_rule(rule)),
            "{rule}"
        );
    }
    assert!(gate.remembers(&GateDecision::ask("?").with_rule("rules[0]")));
    // The inner gate's own say is kept.
    let watching = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let gate = TaintGate::new(Arc::new(Watch { watching }), Arc::new(Session::new()));
    assert!(!gate.remembers(&GateDecision::ask("?").with_rule("session/watch")));
}
