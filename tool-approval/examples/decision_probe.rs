//! Instruction-count probe for the approval bench's decisions.
//!
//! `decision_probe <static|simple|compound> <n>` builds the `peers_approval`
//! bench's 50-rule policy and evaluates the chosen call `n` times. Run it
//! under `valgrind --tool=callgrind` with `n` and with `0`: the difference
//! divided by `n` is the cost of one decision, free of the machine's load.
//! `decision_probe file <n> <path>` evaluates the command in a file instead.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use serde_json::{Value, json};
use tool_approval::{CallRef, PolicyEngine, PolicyFile};
use tool_core::{ApiDefinition, HumanIntervention, InterventionPolicy, ToolContext, ToolManifest};

/// The prefixes the 50-rule policy approves, the same list
/// `benches/benches/peers_approval.rs` times.
const PREFIX_LINES: &str = include_str!("approved_prefixes.txt");

fn prefixes() -> impl Iterator<Item = &'static str> {
    PREFIX_LINES
        .lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
}

fn engine() -> PolicyEngine {
    // `PROBE_ONE_RULE=1`: one catch-all `never` rule instead of the 50,
    // to see what the rules cost.
    if std::env::var_os("PROBE_ONE_RULE").is_some() {
        let rules = vec![json!({"policy": "never"})];
        let file = PolicyFile::from_value(&json!({"rules": {"local-system/runCommand": rules}}));
        return file.and_then(|f| f.engine()).expect("one-rule policy");
    }
    let mut rules: Vec<Value> = prefixes()
        .map(|p| json!({"match": {"command": format!("{p}:*")}, "policy": "never"}))
        .collect();
    rules.push(json!({"match": {"command": "git push:*"}, "policy": "deny"}));
    rules.push(json!({"policy": "required"}));
    // `PROBE_REMOVE=id,id`: the policy without these blacklist entries,
    // to see what each entry costs.
    let remove: Vec<String> = std::env::var("PROBE_REMOVE")
        .map(|ids| ids.split(',').map(str::to_owned).collect())
        .unwrap_or_default();
    let file = PolicyFile::from_value(&json!({
        "rules": {"local-system/runCommand": rules},
        "blacklist": {"remove": remove},
    }));
    file.and_then(|f| f.engine()).expect("bench policy")
}

fn main() {
    let mut args = std::env::args().skip(1);
    let kind = args.next().unwrap_or_else(|| "compound".into());
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(320);
    let engine = engine();
    let mut manifest = ToolManifest::new("local-system");
    manifest.api.push(
        ApiDefinition::new("runCommand", "run")
            .with_intervention(HumanIntervention::Policy(InterventionPolicy::Required)),
    );
    manifest.api.push(
        ApiDefinition::new("searchWeb", "search")
            .with_parameters(json!({"type": "object", "properties": {"query": {"type": "string"}}}))
            .with_intervention(HumanIntervention::Policy(InterventionPolicy::Never)),
    );
    let ctx = ToolContext::new();
    let (api, calls): (&str, Vec<Value>) = match kind.as_str() {
        "static" => ("searchWeb", vec![json!({"query": "weather in Paris"})]),
        "simple" => (
            "runCommand",
            (0..16)
                .map(|i| json!({"command": format!("git diff --stat src/m{i}.rs")}))
                .collect(),
        ),
        "compound" => (
            "runCommand",
            (0..16)
                .map(|i| json!({"command": format!(
                    "git add -A src/m{i} && cargo test -p tool-core; ls -la src | grep lib && echo done {i}"
                )}))
                .collect(),
        ),
        // `file <n> <path>`: the command in a file, evaluated n times (the
        // decision may be anything).
        "file" => {
            let path = args.next().expect("a file");
            let text = std::fs::read_to_string(path).expect("readable file");
            let started = std::time::Instant::now();
            let call = json!({"command": text.trim_end_matches('\n')});
            for _ in 0..n {
                let call = CallRef::new("local-system", "runCommand", &call).with_manifest(&manifest);
                std::hint::black_box(engine.evaluate_one(&call, &ctx));
            }
            eprintln!("{:?} per decision", started.elapsed() / n.max(1) as u32);
            return;
        }
        other => panic!("unknown kind {other}"),
    };
    // One warm-up round, also in the run with none: tables built on first
    // use are not counted as a decision's cost.
    for a in &calls {
        let call = CallRef::new("local-system", api, a).with_manifest(&manifest);
        std::hint::black_box(engine.evaluate_one(&call, &ctx));
    }
    let mut runs = 0usize;
    let started = std::time::Instant::now();
    for a in calls.iter().cycle().take(n) {
        let call = CallRef::new("local-system", api, a).with_manifest(&manifest);
        let d = engine.evaluate_one(&call, &ctx);
        runs += usize::from(d.action == tool_approval::Action::Run);
    }
    // Wall time too (a rough figure: criterion's is the one reported).
    if n > 0 {
        eprintln!("{:?} per decision", started.elapsed() / n as u32);
    }
    assert_eq!(runs, n, "every probe call runs");
}
