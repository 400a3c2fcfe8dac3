//! The approval corpus: every case in `tests/corpus/*.cases` is evaluated
//! through the public API (`PolicyEngine::evaluate`) and every mismatch is
//! reported with its file and line before the test fails.
//!
//! Attack strings in the corpus are only evaluated, never executed.
//!
//! # Format
//!
//! One case per line; `#` starts a comment line, blank lines are ignored.
//! A case has five fields, the first four separated by white space, the
//! fifth the rest of the line:
//!
//! ```text
//! [gap] KIND  MODES  EXPECT  CHECKS  INPUT
//! ```
//!
//! - `KIND`: `attempt` (something the engine must stop or confine) or
//!   `control` (benign work that must keep running as the policy says).
//! - `MODES`: comma-separated `manual`, `allow-list`, `auto-run`,
//!   `headless`, or the groups `all`, `attended` (manual, allow-list) and
//!   `unattended` (auto-run, headless). The case is evaluated in each.
//! - `EXPECT`: `run` (runs, under any confinement), `run-confined` (runs
//!   under a confinement that confines), `ask` (asks; in headless, where
//!   nobody can be asked, is blocked), `block`, or `stop` (does not run:
//!   asks or is blocked; in headless, is blocked), or `any` (only the
//!   checks count).
//! - `CHECKS`: `-`, or comma-separated checks that hold in every mode of
//!   the case: a rule id (`blacklist/read-secrets`), a rule id it must not
//!   be (`!limits/unread-code`), `level:NAME` (a [`Level`] as serialised,
//!   `global_audit`) or `policy:NAME` (`always`, `required`, …).
//! - `INPUT`: a command for `runCommand`, written as is to the end of the
//!   line, or as a JSON string when it starts with `"` (for newlines and
//!   other escapes); or `@API {json}`: a call of the local-system API `API`
//!   with these arguments (`@runCommand {"command": "ls", "env": {…}}`).
//!
//! A leading `gap` marks an open gap: a case the engine gets wrong today.
//! Gaps are evaluated and printed, and do not fail the test; a gap that
//! holds fails it, so it is promoted to an ordinary case. With
//! `TOOL_APPROVAL_CORPUS_GAPS=FILE` the open gaps are also written to FILE.
//!
//! Directives set up the engine for the lines after them, in that file:
//!
//! - `@policy NAME`: the policy file, `fixture` (`tests/fixtures/policy.json`,
//!   the default) or `tests/corpus/policies/NAME.json`;
//! - `@support available|unknown`: whether the host can confine (default
//!   `unknown`, counted as unavailable);
//! - `@host plain|touching`: whether the local-system APIs touch the host
//!   (default `plain`); with `touching`, any run in an unattended mode must
//!   be confined, whatever the case expects;
//! - `@cwd none|temp`: the host's working directory (default none; `temp`
//!   is an empty temp directory).
//!
//! Every engine is built with an explicit home, [`CORPUS_HOME`] (tool-core's
//! example home, `/home/user`): the blacklist and the path scope audit read
//! `~` as that directory, not as the running user's `$HOME`, so a case that
//! names a file under the home by its full path writes `/home/user/…`, and
//! the corpus holds under any `$HOME`
//! (`the_corpus_holds_whatever_the_running_users_home`).
//!
//! # The decision digest
//!
//! The cases say what must hold; the digest says what the engine decides
//! today. `the_corpus_decisions_match_the_checked_in_digest` evaluates every
//! case in all four modes (whatever its `MODES`) and hashes, per case and
//! mode, the whole decision as serialised (action, policy, level, rule,
//! confinement) but for the free-text message, with the temp working
//! directory written as a placeholder, under a fixed `$HOME` (the test runs
//! itself again with it when `$HOME` differs). The hash (FNV-1a, 64 bits)
//! is compared with [`DIGEST_FILE`]: a refactor meant to change no decision
//! (a fast path, a file split, a table's reshape) must leave it equal.
//!
//! To change decisions on purpose: run the test with
//! `TOOL_APPROVAL_CORPUS_DECISIONS=FILE` before and after the change (it
//! writes one line per case and mode to FILE), diff the two files, and
//! when every changed line is intended, write the new digest the failing
//! test prints into [`DIGEST_FILE`] and say in the commit which decisions
//! changed and why. Adding or editing a case changes the digest too.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value, json};
use tool_approval::{
    Action, ApprovalMode, CallRef, Decision, Level, PathScopeAudit, PolicyEngine, PolicyFile,
};
use tool_core::{ConfinementSupport, InterventionPolicy, ToolContext, ToolManifest};

/// Fewer cases than this means files went missing.
const MIN_CASES: usize = 900;

/// When set, the open gaps are also written to this file as Markdown.
const GAPS_FILE_VAR: &str = "TOOL_APPROVAL_CORPUS_GAPS";

/// The checked-in digest of every case's decisions (see the module docs).
const DIGEST_FILE: &str = "tests/corpus/decisions.digest";

/// The home every engine of the corpus is built with (see the module docs).
const CORPUS_HOME: &str = tool_core::approval::EXAMPLE_HOME;

/// The `$HOME` the digest is taken under: the corpus home, so that what
/// still reads the process's `$HOME` (a working-directory argument `~/x`)
/// reads the same directory.
const DIGEST_HOME: &str = CORPUS_HOME;

/// When set, every case's decisions are also written to this file, one
/// line per case and mode (what the digest hashes).
const DECISIONS_FILE_VAR: &str = "TOOL_APPROVAL_CORPUS_DECISIONS";

const MODES: [(&str, ApprovalMode); 4] = [
    ("manual", ApprovalMode::Manual),
    ("allow-list", ApprovalMode::AllowList),
    ("auto-run", ApprovalMode::AutoRun),
    ("headless", ApprovalMode::Headless),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Attempt,
    Control,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    Run,
    RunConfined,
    Ask,
    Block,
    Stop,
    Any,
}

#[derive(Debug, Clone)]
enum Check {
    Rule(String),
    NotRule(String),
    Level(Level),
    Policy(InterventionPolicy),
}

/// How the engine of a case is set up (the directives in force).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Setup {
    policy: String,
    support: bool,
    touching: bool,
    temp_cwd: bool,
}

impl Default for Setup {
    fn default() -> Self {
        Self {
            policy: "fixture".into(),
            support: false,
            touching: false,
            temp_cwd: false,
        }
    }
}

#[derive(Debug, Clone)]
struct Case {
    at: String,
    file: String,
    gap: bool,
    kind: Kind,
    modes: Vec<(&'static str, ApprovalMode)>,
    expect: Expect,
    checks: Vec<Check>,
    api: String,
    args: Value,
    setup: Setup,
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

fn parse_modes(field: &str) -> Result<Vec<(&'static str, ApprovalMode)>, String> {
    let mut out: Vec<(&'static str, ApprovalMode)> = Vec::new();
    for name in field.split(',') {
        let group: &[&str] = match name {
            "all" => &["manual", "allow-list", "auto-run", "headless"],
            "attended" => &["manual", "allow-list"],
            "unattended" => &["auto-run", "headless"],
            _ => &[],
        };
        let one = [name];
        let names = if group.is_empty() { &one[..] } else { group };
        for n in names {
            let Some(mode) = MODES.iter().find(|(m, _)| m == n) else {
                return Err(format!("unknown mode `{n}`"));
            };
            if !out.iter().any(|(m, _)| m == &mode.0) {
                out.push(*mode);
            }
        }
    }
    Ok(out)
}

fn parse_expect(field: &str) -> Result<Expect, String> {
    Ok(match field {
        "run" => Expect::Run,
        "run-confined" => Expect::RunConfined,
        "ask" => Expect::Ask,
        "block" => Expect::Block,
        "stop" => Expect::Stop,
        "any" => Expect::Any,
        other => return Err(format!("unknown expectation `{other}`")),
    })
}

fn parse_checks(field: &str) -> Result<Vec<Check>, String> {
    if field == "-" {
        return Ok(Vec::new());
    }
    field
        .split(',')
        .map(|c| {
            if let Some(level) = c.strip_prefix("level:") {
                serde_json::from_value(json!(level))
                    .map(Check::Level)
                    .map_err(|_| format!("unknown level `{level}`"))
            } else if let Some(policy) = c.strip_prefix("policy:") {
                serde_json::from_value(json!(policy))
                    .map(Check::Policy)
                    .map_err(|_| format!("unknown policy `{policy}`"))
            } else if let Some(rule) = c.strip_prefix('!') {
                rule_id(rule).map(Check::NotRule)
            } else {
                rule_id(c).map(Check::Rule)
            }
        })
        .collect()
}

fn rule_id(text: &str) -> Result<String, String> {
    match text.split_once('/') {
        Some((a, b)) if !a.is_empty() && !b.is_empty() => Ok(text.to_owned()),
        _ => Err(format!(
            "`{text}` is not a check (a rule id `kind/name`, `!id`, `level:…`, `policy:…`)"
        )),
    }
}

/// The input field: a command, a JSON string, or `@API {json}`.
fn parse_input(field: &str) -> Result<(String, Value), String> {
    if let Some(rest) = field.strip_prefix('@') {
        let (api, args) = rest
            .split_once(char::is_whitespace)
            .ok_or("`@API` needs JSON arguments after it")?;
        let args: Value =
            serde_json::from_str(args.trim()).map_err(|e| format!("bad JSON arguments: {e}"))?;
        if !args.is_object() {
            return Err("the arguments of `@API` must be a JSON object".into());
        }
        return Ok((api.to_owned(), args));
    }
    let command = if field.starts_with('"') {
        serde_json::from_str::<String>(field).map_err(|e| format!("bad JSON string: {e}"))?
    } else {
        field.to_owned()
    };
    Ok(("runCommand".into(), json!({ "command": command })))
}

/// Splits off the first white-space-separated field.
fn field(rest: &str) -> Option<(&str, &str)> {
    let rest = rest.trim_start();
    if rest.is_empty() {
        return None;
    }
    match rest.find(char::is_whitespace) {
        Some(end) => Some((&rest[..end], &rest[end..])),
        None => Some((rest, "")),
    }
}

fn parse_directive(line: &str, setup: &mut Setup) -> Result<(), String> {
    let (name, value) = field(line).ok_or("empty directive")?;
    let value = value.trim();
    match (name, value) {
        ("@policy", "fixture") => setup.policy = "fixture".into(),
        ("@policy", name) if !name.is_empty() && !name.contains(['/', '.']) => {
            if !corpus_dir()
                .join("policies")
                .join(format!("{name}.json"))
                .is_file()
            {
                return Err(format!("no policy file policies/{name}.json"));
            }
            setup.policy = name.into();
        }
        ("@support", "available") => setup.support = true,
        ("@support", "unknown") => setup.support = false,
        ("@host", "touching") => setup.touching = true,
        ("@host", "plain") => setup.touching = false,
        ("@cwd", "temp") => setup.temp_cwd = true,
        ("@cwd", "none") => setup.temp_cwd = false,
        _ => return Err(format!("unknown directive `{}`", line.trim())),
    }
    Ok(())
}

fn parse_case(line: &str, at: String, file: &str, setup: &Setup) -> Result<Case, String> {
    let (mut first, mut rest) = field(line).ok_or("empty case")?;
    let gap = first == "gap";
    if gap {
        (first, rest) = field(rest).ok_or("a gap needs a case after `gap`")?;
    }
    let kind = match first {
        "attempt" => Kind::Attempt,
        "control" => Kind::Control,
        other => return Err(format!("unknown kind `{other}` (attempt, control)")),
    };
    let (modes, rest) = field(rest).ok_or("missing modes")?;
    let (expect, rest) = field(rest).ok_or("missing expectation")?;
    let (checks, rest) = field(rest).ok_or("missing checks (`-` for none)")?;
    let input = rest.trim();
    if input.is_empty() {
        return Err("missing input".into());
    }
    let (api, args) = parse_input(input)?;
    Ok(Case {
        at,
        file: file.to_owned(),
        gap,
        kind,
        modes: parse_modes(modes)?,
        expect: parse_expect(expect)?,
        checks: parse_checks(checks)?,
        api,
        args,
        setup: setup.clone(),
    })
}

/// Every case of every corpus file, and the bad lines.
fn load() -> (Vec<Case>, Vec<String>) {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("tests/corpus exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cases"))
        .collect();
    files.sort();
    let mut cases = Vec::new();
    let mut errors = Vec::new();
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        parse_file(&name, &text, &mut cases, &mut errors);
    }
    (cases, errors)
}

/// The cases of one file; each bad line is an error naming `file:line`.
fn parse_file(name: &str, text: &str, cases: &mut Vec<Case>, errors: &mut Vec<String>) {
    let mut setup = Setup::default();
    for (n, line) in text.lines().enumerate() {
        let at = format!("tests/corpus/{name}:{}", n + 1);
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let parsed = if trimmed.starts_with('@') {
            parse_directive(trimmed, &mut setup)
        } else {
            parse_case(trimmed, at.clone(), name, &setup).map(|c| cases.push(c))
        };
        if let Err(e) = parsed {
            errors.push(format!("{at}: bad line: {e}"));
        }
    }
}

struct Engines {
    engines: HashMap<(String, bool, &'static str), PolicyEngine>,
    policies: HashMap<String, PolicyFile>,
}

impl Engines {
    fn get(&mut self, setup: &Setup, mode: (&'static str, ApprovalMode)) -> &PolicyEngine {
        let key = (setup.policy.clone(), setup.support, mode.0);
        if !self.engines.contains_key(&key) {
            let mut file = self
                .policies
                .entry(setup.policy.clone())
                .or_insert_with(|| {
                    if setup.policy == "fixture" {
                        common::policy_file()
                    } else {
                        let path = corpus_dir()
                            .join("policies")
                            .join(format!("{}.json", setup.policy));
                        PolicyFile::load(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"))
                    }
                })
                .clone();
            // The explicit home (see the module docs), for the blacklist and
            // the path scope audit alike.
            file.blacklist = file
                .blacklist
                .take()
                .map(|b| b.home(Some(CORPUS_HOME.into())));
            let path_scope = PathScopeAudit::new().home(Some(CORPUS_HOME.into()));
            let mut builder = PolicyEngine::builder()
                .policy_file(&file)
                .mode(mode.1)
                .dynamic_audit(Arc::new(path_scope));
            if setup.support {
                builder = builder.confinement_support(ConfinementSupport::Available {
                    mechanism: "corpus".into(),
                });
            }
            let engine = builder.build().unwrap();
            self.engines.insert(key.clone(), engine);
        }
        &self.engines[&key]
    }
}

fn manifest(touching: bool) -> ToolManifest {
    let mut m = common::local_system();
    if touching {
        for api in &mut m.api {
            api.touches_host = true;
        }
    }
    m
}

fn shown(d: &Decision) -> String {
    let confinement = d
        .confinement
        .as_ref()
        .map_or("none".to_owned(), |c| c.name().to_owned());
    format!(
        "{} ({}, level {}, policy {}, confinement {confinement}: {})",
        serde_json::to_value(d.action).unwrap().as_str().unwrap(),
        d.reason.rule.as_deref().unwrap_or("no rule"),
        serde_json::to_value(d.reason.level).unwrap(),
        serde_json::to_value(d.policy).unwrap(),
        d.reason.message.chars().take(100).collect::<String>(),
    )
}

/// What is wrong with `d` for `case` in `mode`, if anything.
fn mismatch(case: &Case, mode: ApprovalMode, d: &Decision) -> Option<String> {
    let headless = mode == ApprovalMode::Headless;
    let confined = d
        .confinement
        .as_ref()
        .is_some_and(tool_core::Confinement::is_confined);
    let action_ok = match case.expect {
        Expect::Run => d.action == Action::Run,
        Expect::RunConfined => d.action == Action::Run && confined,
        Expect::Ask if headless => d.action == Action::Block,
        Expect::Ask => d.action == Action::Ask,
        Expect::Block => d.action == Action::Block,
        Expect::Stop if headless => d.action == Action::Block,
        Expect::Stop => d.action != Action::Run,
        Expect::Any => true,
    };
    let mut wrong = Vec::new();
    if !action_ok {
        wrong.push(format!("expected {:?}", case.expect));
    }
    for check in &case.checks {
        let ok = match check {
            Check::Rule(id) => d.reason.rule.as_deref() == Some(id.as_str()),
            Check::NotRule(id) => d.reason.rule.as_deref() != Some(id.as_str()),
            Check::Level(level) => d.reason.level == *level,
            Check::Policy(policy) => d.policy == *policy,
        };
        if !ok {
            wrong.push(format!("expected {check:?}"));
        }
    }
    let unattended = matches!(mode, ApprovalMode::AutoRun | ApprovalMode::Headless);
    if case.setup.touching && unattended && d.action == Action::Run && !confined {
        wrong.push("ran unconfined in an unattended mode".into());
    }
    (!wrong.is_empty()).then(|| wrong.join(", "))
}

#[derive(Default)]
struct Tally {
    attempts: usize,
    controls: usize,
    gaps: usize,
}

/// What evaluating the cases found: failures (each fails the test), open
/// gaps that still do not hold, and the counts per file.
struct Outcome {
    failures: Vec<String>,
    gaps: Vec<String>,
    tally: BTreeMap<String, Tally>,
}

fn judge(cases: &[Case]) -> Outcome {
    let mut failures = Vec::new();
    let mut gaps = Vec::new();
    let mut engines = Engines {
        engines: HashMap::new(),
        policies: HashMap::new(),
    };
    let temp = tempfile::tempdir().unwrap();
    let manifests = [manifest(false), manifest(true)];
    let mut tally: BTreeMap<String, Tally> = BTreeMap::new();
    for case in cases {
        let t = tally.entry(case.file.clone()).or_default();
        match case.kind {
            Kind::Attempt => t.attempts += 1,
            Kind::Control => t.controls += 1,
        }
        t.gaps += usize::from(case.gap);
        let manifest = &manifests[usize::from(case.setup.touching)];
        if !manifest.api.iter().any(|a| a.name == case.api) {
            failures.push(format!("{}: bad line: unknown API `{}`", case.at, case.api));
            continue;
        }
        let ctx = if case.setup.temp_cwd {
            ToolContext::new().with_cwd(temp.path())
        } else {
            ToolContext::new()
        };
        let mut wrong = Vec::new();
        let mut ran = false;
        for &(name, mode) in &case.modes {
            let engine = engines.get(&case.setup, (name, mode));
            let call =
                CallRef::new(&manifest.identifier, &case.api, &case.args).with_manifest(manifest);
            let d = engine.evaluate(&[call], &ctx).decisions()[0].clone();
            if let Some(what) = mismatch(case, mode, &d) {
                ran |= d.action == Action::Run
                    && matches!(case.expect, Expect::Ask | Expect::Block | Expect::Stop);
                wrong.push(format!("[{name}] {what}; got {}", shown(&d)));
            }
        }
        let input = match case.args.get("command").and_then(Value::as_str) {
            Some(c) if case.api == "runCommand" && case.args.as_object().unwrap().len() == 1 => {
                c.escape_debug().to_string()
            }
            _ => format!("@{} {}", case.api, case.args),
        };
        match (case.gap, wrong.is_empty()) {
            (false, true) => {}
            (false, false) => {
                failures.push(format!("{}: `{input}`: {}", case.at, wrong.join("; ")));
            }
            (true, true) => failures.push(format!(
                "{}: `{input}`: this gap now holds in every mode: promote it (remove `gap`)",
                case.at
            )),
            (true, false) => {
                let kind = if ran {
                    "RUNS"
                } else {
                    "wrong reason or over-asks"
                };
                gaps.push(format!(
                    "{}: [{kind}] `{input}`: {}",
                    case.at,
                    wrong.join("; ")
                ));
            }
        }
    }
    Outcome {
        failures,
        gaps,
        tally,
    }
}

#[test]
fn every_corpus_case_gets_its_expected_decision() {
    let (cases, errors) = load();
    let Outcome {
        mut failures,
        gaps,
        tally,
    } = judge(&cases);
    failures.splice(0..0, errors);
    let mut summary = String::new();
    let (mut a, mut c, mut g) = (0, 0, 0);
    for (file, t) in &tally {
        writeln!(
            summary,
            "  {file:<22} {:>4} attempts {:>4} controls ({:>3} of them open gaps)",
            t.attempts, t.controls, t.gaps
        )
        .unwrap();
        (a, c, g) = (a + t.attempts, c + t.controls, g + t.gaps);
        if t.attempts == 0 || t.controls == 0 {
            failures.push(format!(
                "tests/corpus/{file}: a class needs attempts and benign controls side by side"
            ));
        }
    }
    println!(
        "corpus: {} cases ({a} attempts, {c} controls; {g} open gaps)\n{summary}",
        cases.len()
    );
    if !gaps.is_empty() {
        println!("open gaps (known, not failing):");
        for gap in &gaps {
            println!("  {gap}");
        }
    }
    // For whoever closes the gaps: the list as a Markdown file.
    if let Some(path) = std::env::var_os(GAPS_FILE_VAR) {
        let mut text = format!(
            "# Open gaps of the approval corpus ({} of {} cases)\n\n\
             Each entry: corpus file:line, whether the engine runs a case \
             it must stop (RUNS) or stops it for another reason / asks \
             where it should run, the case, and per mode what the corpus \
             expects and what the engine gave.\n\n",
            gaps.len(),
            cases.len()
        );
        for gap in &gaps {
            writeln!(text, "- {gap}").unwrap();
        }
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{GAPS_FILE_VAR}: {e}"));
    }
    if cases.len() < MIN_CASES {
        failures.push(format!("only {} corpus cases loaded", cases.len()));
    }
    assert!(
        failures.is_empty(),
        "{} corpus failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A `$HOME` no case names and no file is under.
const OTHER_HOME: &str = "/nonexistent-home/corpus-user";

#[test]
fn the_corpus_holds_whatever_the_running_users_home() {
    // The engines are built with the corpus home, so the process's `$HOME`
    // must not change a case: every case is judged again in a child run of
    // this test under another home (`jq . /home/user/.codex/auth.json` asks
    // there as it does under `/home/user` or `/root`).
    if std::env::var_os("HOME").as_deref() != Some(std::ffi::OsStr::new(OTHER_HOME)) {
        let status = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "corpus::the_corpus_holds_whatever_the_running_users_home",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("HOME", OTHER_HOME)
            .status()
            .unwrap();
        assert!(
            status.success(),
            "the corpus fails under HOME={OTHER_HOME} (the child's output is above)"
        );
        return;
    }
    let (cases, errors) = load();
    assert!(errors.is_empty(), "{errors:#?}");
    // The case that once held only under `HOME=/root` is among them.
    assert!(
        cases
            .iter()
            .any(|c| c.args["command"] == "jq . /home/user/.codex/auth.json"),
        "the home-path case went missing from tests/corpus/secrets.cases"
    );
    let Outcome { failures, .. } = judge(&cases);
    assert!(
        failures.is_empty(),
        "{} corpus failures under HOME={OTHER_HOME}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn bad_corpus_lines_are_errors_naming_file_and_line() {
    let text = "# a comment\n\
        control manual run - ls\n\
        control sometimes run - ls\n\
        control manual maybe - ls\n\
        control manual run level:nowhere ls\n\
        control manual run policy:often ls\n\
        control manual run not-a-rule ls\n\
        sample manual run - ls\n\
        gap\n\
        control manual run -\n\
        control manual run - \"unterminated\n\
        control manual run - @readFile [1]\n\
        control manual run - @readFile\n\
        @policy no-such-policy\n\
        @support maybe\n\
        @color blue\n\
        control all run - ls\n";
    let (mut cases, mut errors) = (Vec::new(), Vec::new());
    parse_file("x.cases", text, &mut cases, &mut errors);
    assert_eq!(cases.len(), 2, "{errors:#?}");
    let lines: Vec<&str> = errors
        .iter()
        .map(|e| e.split(": bad line").next().unwrap())
        .collect();
    let want: Vec<String> = (3..=16)
        .map(|n| format!("tests/corpus/x.cases:{n}"))
        .collect();
    assert_eq!(lines, want, "{errors:#?}");
    assert!(errors[0].contains("unknown mode `sometimes`"), "{errors:?}");
    assert!(
        errors[1].contains("unknown expectation `maybe`"),
        "{errors:?}"
    );
    // A case naming an API the local-system manifest lacks fails too.
    let (mut cases, mut errors) = (Vec::new(), Vec::new());
    parse_file(
        "y.cases",
        "control manual run - @launchRocket {}\n",
        &mut cases,
        &mut errors,
    );
    let outcome = judge(&cases);
    assert_eq!(
        outcome.failures,
        ["tests/corpus/y.cases:1: bad line: unknown API `launchRocket`"]
    );
}

#[test]
fn a_gap_that_holds_fails_and_one_that_does_not_is_reported() {
    let text = "control auto-run run - ls -la\n\
        gap control auto-run run - ls -l\n\
        gap control manual block - ls\n\
        control manual block - ls -a\n";
    let (mut cases, mut errors) = (Vec::new(), Vec::new());
    parse_file("z.cases", text, &mut cases, &mut errors);
    assert!(errors.is_empty(), "{errors:?}");
    let outcome = judge(&cases);
    assert_eq!(outcome.failures.len(), 2, "{:#?}", outcome.failures);
    assert!(
        outcome.failures[0].starts_with("tests/corpus/z.cases:2: `ls -l`: this gap now holds"),
        "{:?}",
        outcome.failures
    );
    assert!(
        outcome.failures[1].starts_with("tests/corpus/z.cases:4: `ls -a`: [manual] expected Block"),
        "{:?}",
        outcome.failures
    );
    assert_eq!(outcome.gaps.len(), 1, "{:?}", outcome.gaps);
    assert!(outcome.gaps[0].starts_with("tests/corpus/z.cases:3:"));
    let t = &outcome.tally["z.cases"];
    assert_eq!((t.attempts, t.controls, t.gaps), (0, 4, 2));
}

#[test]
fn a_run_in_an_unattended_mode_of_a_host_touching_api_must_be_confined() {
    // Without confinement support a host-touching call does not run
    // unattended; with it, it runs confined. Either way no unconfined run.
    let text = "@host touching\n\
        control auto-run ask - ls\n\
        @support available\n\
        control unattended run-confined - ls\n\
        control unattended run - ls\n";
    let (mut cases, mut errors) = (Vec::new(), Vec::new());
    parse_file("w.cases", text, &mut cases, &mut errors);
    assert!(errors.is_empty(), "{errors:?}");
    let outcome = judge(&cases);
    assert!(outcome.failures.is_empty(), "{:#?}", outcome.failures);
}

/// One line per case and mode: where the case is, the mode, the input and
/// the decision as serialised without its message, machine paths replaced.
fn decision_lines(cases: &[Case]) -> Vec<String> {
    let mut engines = Engines {
        engines: HashMap::new(),
        policies: HashMap::new(),
    };
    let temp = tempfile::tempdir().unwrap();
    let temp_path = temp.path().to_string_lossy().into_owned();
    let manifests = [manifest(false), manifest(true)];
    let mut lines = Vec::with_capacity(cases.len() * MODES.len());
    for case in cases {
        let manifest = &manifests[usize::from(case.setup.touching)];
        let ctx = if case.setup.temp_cwd {
            ToolContext::new().with_cwd(temp.path())
        } else {
            ToolContext::new()
        };
        for &(name, mode) in &MODES {
            let engine = engines.get(&case.setup, (name, mode));
            let call =
                CallRef::new(&manifest.identifier, &case.api, &case.args).with_manifest(manifest);
            let d = engine.evaluate(&[call], &ctx).decisions()[0].clone();
            let mut value = serde_json::to_value(&d).unwrap();
            value["reason"].as_object_mut().unwrap().remove("message");
            let text = value.to_string().replace(&temp_path, "<cwd>");
            // The line number is left out: adding a case above another
            // does not change that case's line.
            lines.push(format!(
                "{} [{name}] @{} {} -> {text}",
                case.file, case.api, case.args
            ));
        }
    }
    lines
}

/// FNV-1a over the lines, each ended by a newline: a fingerprint, not a
/// defence (the corpus is ours).
fn fnv1a(lines: &[String]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for line in lines {
        for byte in line.bytes().chain([b'\n']) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}

#[test]
fn the_corpus_decisions_match_the_checked_in_digest() {
    // The engine reads `$HOME` (a secret under the home is one only there):
    // the digest is taken under one fixed home, in a child run of this test.
    if std::env::var_os("HOME").as_deref() != Some(std::ffi::OsStr::new(DIGEST_HOME)) {
        let status = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "corpus::the_corpus_decisions_match_the_checked_in_digest",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("HOME", DIGEST_HOME)
            .status()
            .unwrap();
        assert!(
            status.success(),
            "the digest under HOME={DIGEST_HOME} does not match (the child's output is above)"
        );
        return;
    }
    let (cases, errors) = load();
    assert!(errors.is_empty(), "{errors:#?}");
    let lines = decision_lines(&cases);
    if let Some(path) = std::env::var_os(DECISIONS_FILE_VAR) {
        std::fs::write(&path, lines.join("\n") + "\n")
            .unwrap_or_else(|e| panic!("{DECISIONS_FILE_VAR}: {e}"));
    }
    let got = format!("{:016x}", fnv1a(&lines));
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(DIGEST_FILE);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{DIGEST_FILE}: {e}"));
    // The file: comment lines (`#`), then the digest.
    let want = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .unwrap_or_default();
    assert_eq!(
        got,
        want,
        "the decisions over the corpus ({} cases x {} modes) changed: if every change is \
         intended (compare {DECISIONS_FILE_VAR}=FILE before and after), put {got} in {DIGEST_FILE}",
        cases.len(),
        MODES.len()
    );
}

#[test]
fn the_digest_changes_with_any_decision_field() {
    let base = vec!["a [manual] @runCommand {} -> {\"action\":\"ask\"}".to_owned()];
    let mut other = base.clone();
    other[0] = other[0].replace("ask", "run");
    assert_ne!(fnv1a(&base), fnv1a(&other));
    // Line ends count: two lines are not their concatenation.
    assert_ne!(
        fnv1a(&["ab".to_owned(), "c".to_owned()]),
        fnv1a(&["a".to_owned(), "bc".to_owned()])
    );
}
