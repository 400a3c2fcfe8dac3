//! The `toolhost` CLI contract: commands, JSON shapes, exit codes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::{Command, Output};

use serde_json::Value;

fn toolhost(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(args)
        .output()
        .expect("toolhost runs")
}

fn stdout_json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

fn stderr_json(output: &Output) -> Value {
    serde_json::from_slice(&output.stderr).unwrap_or_else(|e| {
        panic!(
            "stderr is not JSON ({e}): {}",
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

#[test]
fn tools_lists_manifests_by_default_and_provider_shapes_on_request() {
    let manifests = toolhost(&["tools"]);
    assert!(manifests.status.success());
    let tools = stdout_json(&manifests)["tools"].as_array().unwrap().clone();
    assert!(tools.iter().any(|t| t["identifier"] == "calculator"));
    assert!(tools.iter().all(|t| t["api"].is_array()));

    let openai = stdout_json(&toolhost(&["tools", "--format", "openai"]));
    assert!(
        openai["tools"].as_array().unwrap().iter().any(|t| {
            t["type"] == "function" && t["function"]["name"] == "calculator____evaluate"
        })
    );
    let anthropic = stdout_json(&toolhost(&["tools", "--format", "anthropic"]));
    assert!(
        anthropic["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["input_schema"].is_object())
    );
    let responses = stdout_json(&toolhost(&["tools", "--format", "openai-responses"]));
    assert!(
        responses["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["name"].is_string())
    );
}

#[test]
fn call_prints_the_output_of_a_successful_call() {
    let out = toolhost(&["call", "calculator____evaluate", r#"{"expression":"6*7"}"#]);
    assert!(out.status.success());
    let output = &stdout_json(&out)["output"];
    assert_eq!(output["content"], "42");
    assert_eq!(output["success"], true);
    assert_eq!(output["state"]["value"], 42.0);
}

#[test]
fn a_failed_call_still_exits_zero_with_the_failure_in_the_output() {
    let out = toolhost(&["call", "calculator____evaluate", r#"{"expression":"6*"#]);
    assert_eq!(out.status.code(), Some(0));
    let output = &stdout_json(&out)["output"];
    assert_eq!(output["success"], false);
    assert_eq!(output["error"]["code"], "truncated_arguments");

    let unknown = stdout_json(&toolhost(&["call", "nope____x"]));
    assert_eq!(unknown["output"]["error"]["code"], "tool_not_found");
}

#[test]
fn clock_answers_at_an_offset() {
    let out = stdout_json(&toolhost(&[
        "call",
        "clock____now",
        r#"{"utcOffset":"+08:00"}"#,
    ]));
    assert!(
        out["output"]["state"]["iso"]
            .as_str()
            .unwrap()
            .ends_with("+08:00")
    );
    let bad = stdout_json(&toolhost(&["call", "clock____now", r#"{"utcOffset":"8"}"#]));
    assert_eq!(bad["output"]["error"]["code"], "invalid_utc_offset");
}

#[test]
fn usage_errors_exit_two_with_json_on_stderr() {
    for args in [
        &["frobnicate"][..],
        &["tools", "--format", "yaml"],
        &["call"],
        &[],
    ] {
        let out = toolhost(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty());
        assert_eq!(stderr_json(&out)["error"]["kind"], "usage", "{args:?}");
    }
    let missing = toolhost(&["--cwd", "/definitely/not/here", "tools"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        stderr_json(&missing)["error"]["message"]
            .as_str()
            .unwrap()
            .contains("--cwd")
    );
}

#[test]
fn help_exits_zero() {
    assert!(toolhost(&["--help"]).status.success());
}

#[test]
fn demo_runs_offline_and_shows_each_pipeline_outcome() {
    let out = toolhost(&["demo"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let steps = stdout_json(&out)["demo"].as_array().unwrap().clone();
    let codes: Vec<String> = steps
        .iter()
        .filter_map(|s| {
            s["result"]["output"]["error"]["code"]
                .as_str()
                .map(str::to_owned)
        })
        .collect();
    for expected in [
        "truncated_arguments",
        "invalid_arguments",
        "timeout",
        "tool_not_found",
    ] {
        assert!(
            codes.iter().any(|c| c == expected),
            "{expected} missing from {codes:?}"
        );
    }
    let text = toolhost(&["demo", "--text"]);
    assert!(String::from_utf8_lossy(&text.stdout).contains("1. "));
}
