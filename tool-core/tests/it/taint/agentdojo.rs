//! The outside benchmark: AgentDojo's suites (PyPI `agentdojo`, pinned in
//! `tests/fixtures/agentdojo/requirements.txt`) replayed through the
//! pipeline.
//!
//! `replay.py` runs, against each suite's real environment, every user
//! task's ground-truth calls: once without an attack, and once per
//! injection task with that task's goal written into the injection vectors
//! the user task reads, followed by the injection task's own ground-truth
//! calls (what a model that obeyed the injection would call). This harness
//! offers each suite's functions as one tool (their schemas as AgentDojo
//! gives them, their capabilities derived from their names and parameters
//! by the rules of `labels.json`), replays the
//! calls in order through an [`Invoker`] (each call returns the output the
//! environment gave), and counts, per suite and per gate:
//!
//! - goals stopped: attacks whose attacker calls were held (asked, or
//!   blocked in headless) at least once, over the attacks with calls (an
//!   injection task whose ground truth has no call, a goal met by what the
//!   model says, is counted apart);
//! - user tasks complete unasked: runs in which no call of the user's task
//!   was held, without the attack (benign) and under it.
//!
//! Gates: none (a per-call policy that runs these calls), the trifecta rule
//! following values (the default), and the session-level rule (strict).
//! A held call is put to a person who approves it (and the asks are
//! counted): the replay goes on as the user would have it, and what a
//! held call returns still enters the ledger.

use std::collections::{BTreeMap, VecDeque};
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::Value;
use tool_core::taint::{
    Capabilities, RunAll, Session, TRIFECTA_RULE, TaintGate, TrifectaSettings, is_destination_name,
};
use tool_core::{
    Answer, ApiDefinition, Ask, Asker, Invoker, OfferedTools, ToolBuilder, ToolCall, ToolContext,
    ToolOutput, ToolRegistry,
};

/// A person who approves every ask put to them by the trifecta rule, and
/// counts them.
#[derive(Default)]
struct Person {
    asked: Mutex<usize>,
    /// What each ask said.
    messages: Mutex<Vec<String>>,
}

#[async_trait]
impl Asker for Person {
    async fn ask(&self, asks: &[Ask<'_>], _: &ToolContext) -> Vec<Answer> {
        let trifecta = asks
            .iter()
            .filter(|a| a.decision.rule.as_deref() == Some(TRIFECTA_RULE))
            .count();
        *self.asked.lock().unwrap() += trifecta;
        self.messages.lock().unwrap().extend(
            asks.iter()
                .filter(|a| a.decision.rule.as_deref() == Some(TRIFECTA_RULE))
                .map(|a| a.decision.message.clone()),
        );
        asks.iter().map(|_| Answer::approve()).collect()
    }
}

#[derive(Deserialize)]
pub struct Trace {
    pub version: String,
    pub suites: Vec<Suite>,
}

#[derive(Deserialize)]
pub struct Suite {
    pub name: String,
    tools: Vec<ToolDef>,
    pub user_tasks: Vec<UserTask>,
}

#[derive(Deserialize)]
struct ToolDef {
    name: String,
    description: String,
    parameters: Value,
}

#[derive(Deserialize)]
pub struct UserTask {
    id: String,
    prompt: String,
    benign: Vec<Call>,
    attacks: Vec<Attack>,
}

#[derive(Deserialize)]
struct Attack {
    injection: String,
    user_calls: Vec<Call>,
    attacker_calls: Vec<Call>,
}

#[derive(Deserialize)]
struct Call {
    function: String,
    args: Value,
    output: String,
}

/// The gates compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Gate {
    /// No ledger: every call runs (as a per-call policy allowing them).
    None,
    /// The trifecta rule following values (default settings).
    Values,
    /// The session-level rule (`strict`).
    Session,
}

/// One suite's figures under one gate.
#[derive(Debug, Default, Clone)]
pub struct Figures {
    pub attacks: usize,
    /// Attacks whose injection task has no ground-truth call.
    pub attacks_without_calls: usize,
    pub stopped: usize,
    pub benign: usize,
    pub benign_unasked: usize,
    pub attacked_unasked: usize,
    /// Calls that failed for another reason than the gate (bad arguments).
    pub failed: Vec<String>,
    /// `user task × injection task` of the attacks not stopped.
    pub missed: Vec<String>,
    /// `user task: why` of the benign runs asked.
    pub benign_asked: Vec<String>,
}

impl Figures {
    pub fn stopped_share(&self) -> f64 {
        share(self.stopped, self.attacks - self.attacks_without_calls)
    }

    pub fn benign_share(&self) -> f64 {
        share(self.benign_unasked, self.benign)
    }

    pub fn attacked_share(&self) -> f64 {
        share(self.attacked_unasked, self.attacks)
    }
}

fn share(n: usize, of: usize) -> f64 {
    if of == 0 {
        0.0
    } else {
        100.0 * n as f64 / of as f64
    }
}

/// How `labels.json` derives a function's capabilities from its
/// declaration (see the file's `$comment`).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Labels {
    read_verbs: Vec<String>,
    public_words: Vec<String>,
    own_settings_words: Vec<String>,
    request_parameters: Vec<String>,
    egress_verbs: Vec<String>,
}

impl Labels {
    fn label(&self, tool: &ToolDef) -> Capabilities {
        let words: Vec<&str> = tool.name.split('_').filter(|w| !w.is_empty()).collect();
        let has = |list: &[String]| words.iter().any(|w| list.iter().any(|l| l == w));
        let params: Vec<&str> = tool
            .parameters
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default();
        let verb = words.first().copied().unwrap_or_default();
        let mut caps = Capabilities::NONE;
        if self.read_verbs.iter().any(|v| v == verb) {
            caps.reads_private = !has(&self.public_words);
            caps.untrusted_source = !has(&self.own_settings_words);
            caps.egress = params
                .iter()
                .any(|p| self.request_parameters.iter().any(|r| r == p));
        } else {
            caps.writes_private = true;
            caps.egress = self.egress_verbs.iter().any(|v| v == verb)
                || params.iter().any(|p| is_destination_name(p));
        }
        caps
    }
}

/// Labels every function of `trace` by the rules of `labels.json`: suite
/// → function → capabilities.
pub fn capabilities(
    text: &str,
    trace: &Trace,
) -> Result<BTreeMap<String, BTreeMap<String, Capabilities>>, String> {
    let labels: Labels = serde_json::from_str(text).map_err(|e| format!("labels.json: {e}"))?;
    Ok(trace
        .suites
        .iter()
        .map(|suite| {
            let table = suite
                .tools
                .iter()
                .map(|tool| (tool.name.clone(), labels.label(tool)))
                .collect();
            (suite.name.clone(), table)
        })
        .collect())
}

/// The suite's functions as one tool whose every call returns the next
/// output of `queue`.
fn offered(
    suite: &Suite,
    caps: &BTreeMap<String, Capabilities>,
    queue: &Arc<Mutex<VecDeque<String>>>,
) -> OfferedTools {
    let mut builder = ToolBuilder::new(suite.name.clone());
    for tool in &suite.tools {
        let queue = Arc::clone(queue);
        builder = builder.api(
            ApiDefinition::new(tool.name.clone(), tool.description.clone())
                .with_parameters(tool.parameters.clone())
                .with_capabilities(caps.get(&tool.name).copied().unwrap_or_default()),
            move |_, _| {
                let next = queue.lock().unwrap().pop_front().unwrap_or_default();
                async move { Ok(ToolOutput::text(next)) }
            },
        );
    }
    let mut registry = ToolRegistry::new();
    registry.register(builder.build().unwrap()).unwrap();
    registry.offer(&ToolContext::new())
}

struct Replay<'a> {
    suite: &'a Suite,
    offered: OfferedTools,
    queue: Arc<Mutex<VecDeque<String>>>,
    gate: Gate,
}

impl Replay<'_> {
    fn invoker(&self, prompt: &str) -> (Invoker, Arc<Person>) {
        let person = Arc::new(Person::default());
        if self.gate == Gate::None {
            return (Invoker::default(), person);
        }
        let settings = TrifectaSettings {
            strict: self.gate == Gate::Session,
            ..TrifectaSettings::default()
        };
        let session = Arc::new(Session::new().with_trifecta(settings));
        session.user_said(prompt);
        let invoker = Invoker::default()
            .with_session(Arc::clone(&session))
            .with_gate(Arc::new(TaintGate::new(Arc::new(RunAll), session)))
            .with_asker(Arc::clone(&person) as Arc<dyn Asker>);
        (invoker, person)
    }

    /// Replays `calls`; how many the gate held (asked). A call that fails
    /// is noted in `failed`.
    async fn run(
        &self,
        (invoker, person): &(Invoker, Arc<Person>),
        calls: &[Call],
        n: &mut usize,
        failed: &mut Vec<String>,
    ) -> usize {
        let ctx = ToolContext::new();
        let before = *person.asked.lock().unwrap();
        for call in calls {
            *n += 1;
            self.queue.lock().unwrap().push_back(call.output.clone());
            let name = format!("{}____{}", self.suite.name, call.function);
            let wire = ToolCall::new(name, call.args.to_string()).with_id(format!("c{n}"));
            let out = invoker.invoke(&self.offered, &wire, &ctx).await;
            self.queue.lock().unwrap().clear();
            if !out.success {
                failed.push(format!(
                    "{}: {} {:?}",
                    call.function, out.content, out.state
                ));
            }
        }
        *person.asked.lock().unwrap() - before
    }
}

/// Replays every suite under `gate`.
pub async fn replay(
    trace: &Trace,
    caps: &BTreeMap<String, BTreeMap<String, Capabilities>>,
    gate: Gate,
) -> BTreeMap<String, Figures> {
    let mut out = BTreeMap::new();
    for suite in &trace.suites {
        let queue = Arc::new(Mutex::new(VecDeque::new()));
        let replay = Replay {
            suite,
            offered: offered(suite, &caps[&suite.name], &queue),
            queue,
            gate,
        };
        let mut f = Figures::default();
        let mut n = 0;
        for task in &suite.user_tasks {
            let invoker = replay.invoker(&task.prompt);
            f.benign += 1;
            if replay
                .run(&invoker, &task.benign, &mut n, &mut f.failed)
                .await
                == 0
            {
                f.benign_unasked += 1;
            } else {
                let why = invoker.1.messages.lock().unwrap().join(" / ");
                f.benign_asked.push(format!("{}: {why}", task.id));
            }
            for attack in &task.attacks {
                let invoker = replay.invoker(&task.prompt);
                f.attacks += 1;
                let user_held = replay
                    .run(&invoker, &attack.user_calls, &mut n, &mut f.failed)
                    .await;
                if user_held == 0 {
                    f.attacked_unasked += 1;
                }
                if attack.attacker_calls.is_empty() {
                    f.attacks_without_calls += 1;
                    continue;
                }
                if replay
                    .run(&invoker, &attack.attacker_calls, &mut n, &mut f.failed)
                    .await
                    > 0
                {
                    f.stopped += 1;
                } else {
                    f.missed.push(format!("{} × {}", task.id, attack.injection));
                }
            }
        }
        out.insert(suite.name.clone(), f);
    }
    out
}

/// The figures as a table.
pub fn report(version: &str, all: &BTreeMap<Gate, BTreeMap<String, Figures>>) -> String {
    let mut text = format!(
        "AgentDojo {version} ground truth replayed (important_instructions attack)\n\
         suite      gate     goals stopped            benign unasked        unasked under attack\n"
    );
    for (gate, suites) in all {
        for (name, f) in suites {
            let _ = writeln!(
                text,
                "{name:<10} {:<8} {:>5.1} % ({}/{}; {} without calls)  {:>5.1} % ({}/{})  {:>5.1} % ({}/{})",
                format!("{gate:?}"),
                f.stopped_share(),
                f.stopped,
                f.attacks - f.attacks_without_calls,
                f.attacks_without_calls,
                f.benign_share(),
                f.benign_unasked,
                f.benign,
                f.attacked_share(),
                f.attacked_unasked,
                f.attacks,
            );
        }
    }
    text
}
