//! Fuzzes the shell splitter, the matchers and a full evaluation.
//!
//! Input: `PATTERN \0 COMMAND`. The splitter must never panic, a
//! command-prefix approval must imply every part starts with the prefix,
//! and a decision must be stable: the same call evaluated twice, by the
//! default engine and by one with an agent's prefix rules (closed program
//! rows, a full-access rule, deny rules), gets the same decision.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use tool_approval::{CallRef, MatchMode, Matcher, PolicyEngine, PolicyFile, ShellCommand};
use tool_core::{ToolContext, manifest::ArgMatcher};

/// Prefix rules of the kind coding agents ship (the corpus's agent policy,
/// shortened).
const AGENT_POLICY: &str = r#"{"rules": {"local-system/runCommand": [
    {"match": {"command": "find:*"}, "policy": "never"},
    {"match": {"command": "sort:*"}, "policy": "never"},
    {"match": {"command": "grep:*"}, "policy": "never"},
    {"match": {"command": "sed:*"}, "policy": "never"},
    {"match": {"command": "xargs:*"}, "policy": "never"},
    {"match": {"command": "git log:*"}, "policy": "never"},
    {"match": {"command": "git status:*"}, "policy": "never"},
    {"match": {"command": "npm test:*"}, "policy": "never"},
    {"match": {"command": "cargo test:*"}, "policy": "never"},
    {"match": {"command": "cargo build:*"}, "policy": "never", "confinement": "full_access"},
    {"match": {"command": "git push:*"}, "policy": "deny"},
    {"match": {"command": "curl:*"}, "policy": "deny"},
    {"policy": "required"}
]}}"#;

fn engines() -> &'static [PolicyEngine] {
    static ENGINES: OnceLock<Vec<PolicyEngine>> = OnceLock::new();
    ENGINES.get_or_init(|| {
        let agent = PolicyFile::from_json(AGENT_POLICY)
            .and_then(|f| f.engine())
            .unwrap_or_default();
        vec![PolicyEngine::default(), agent]
    })
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (pattern, command) = text.split_once('\0').unwrap_or(("git status:*", &text));
    let parsed = ShellCommand::parse(command);
    let value = serde_json::Value::String(command.to_owned());
    for matcher in [
        ArgMatcher::Pattern(pattern.to_owned()),
        ArgMatcher::Regex {
            regex: pattern.to_owned(),
        },
    ] {
        if let Ok(m) = Matcher::compile(&matcher) {
            let approved = m.matches(&value, MatchMode::Approve);
            let _ = m.matches(&value, MatchMode::Trigger);
            if approved && m.is_command_prefix() {
                assert!(
                    parsed.is_plain(),
                    "approved a command with hazards: {command:?}"
                );
            }
        }
    }
    let args = serde_json::json!({ "command": command, "path": pattern });
    let ctx = ToolContext::new().with_cwd("/tmp");
    let calls = [CallRef::new("local-system", "runCommand", &args)];
    for engine in engines() {
        let first = engine.evaluate(&calls, &ctx);
        let again = engine.evaluate(&calls, &ctx);
        assert_eq!(
            first, again,
            "a decision changed between two evaluations: {command:?}"
        );
    }
});
