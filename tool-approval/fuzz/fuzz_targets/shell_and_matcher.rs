//! Fuzzes the shell splitter, the matchers and a full evaluation.
//!
//! Input: `PATTERN \0 COMMAND`. The splitter must never panic, and a
//! command-prefix approval must imply every part starts with the prefix.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_approval::{CallRef, MatchMode, Matcher, PolicyEngine, ShellCommand};
use tool_core::{ArgMatcher, ToolContext};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (pattern, command) = text.split_once('\0').unwrap_or(("git status:*", &text));
    let parsed = ShellCommand::parse(command);
    let value = serde_json::Value::String(command.to_owned());
    for matcher in [ArgMatcher::Pattern(pattern.to_owned()), ArgMatcher::Regex { regex: pattern.to_owned() }] {
        if let Ok(m) = Matcher::compile(&matcher) {
            let approved = m.matches(&value, MatchMode::Approve);
            let _ = m.matches(&value, MatchMode::Trigger);
            if approved && m.is_command_prefix() {
                assert!(parsed.is_plain(), "approved a command with hazards: {command:?}");
            }
        }
    }
    let args = serde_json::json!({ "command": command, "path": pattern });
    let engine = PolicyEngine::default();
    let _ = engine.evaluate(&[CallRef::new("local-system", "runCommand", &args)], &ToolContext::new().with_cwd("/tmp"));
});
