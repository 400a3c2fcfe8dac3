//! The `toolhost` CLI contract: commands, JSON shapes, exit codes.

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

fn write_policy(dir: &std::path::Path, text: &str) -> String {
    let path = dir.join("policy.json");
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_owned()
}

const POLICY: &str = r#"{
  "mode": "manual",
  "allowList": ["local-system/readFile"],
  "rules": {
    "local-system/runCommand": [
      {"match": {"command": "echo:*"}, "policy": "never"},
      {"match": {"command": "git push:*"}, "policy": "deny"},
      {"policy": "required"}
    ]
  }
}"#;

#[test]
fn check_decides_without_running() {
    let dir = tempfile::tempdir().unwrap();
    let policy = write_policy(dir.path(), POLICY);
    let cwd = dir.path().to_str().unwrap();
    let marker = dir.path().join("ran");
    let cmd = format!(r#"{{"command": "echo hi > {}"}}"#, marker.display());
    let out = toolhost(&[
        "--cwd",
        cwd,
        "--policy",
        &policy,
        "check",
        "local-system____runCommand",
        &cmd,
    ]);
    assert!(out.status.success());
    let decision = &stdout_json(&out)["decision"];
    assert_eq!(
        decision["action"], "ask",
        "a redirection to a file is not approved by a prefix rule"
    );
    assert!(decision["reason"]["level"].is_string());
    assert!(decision["reason"]["message"].is_string());
    assert!(!marker.exists(), "check never runs the tool");

    let plain = stdout_json(&toolhost(&[
        "--cwd",
        cwd,
        "--policy",
        &policy,
        "check",
        "local-system____runCommand",
        r#"{"command":"echo hi"}"#,
    ]));
    assert_eq!(plain["decision"]["action"], "run");
    assert_eq!(plain["decision"]["policy"], "never");
    assert_eq!(plain["decision"]["reason"]["level"], "host_policy");
}

#[test]
fn check_and_call_report_the_policy_files_findings_and_keep_the_decision() {
    let dir = tempfile::tempdir().unwrap();
    // `cargo build` with full access (a build runs the workspace's
    // `build.rs`): a finding; `git status` with full access is not one.
    let policy = write_policy(
        dir.path(),
        r#"{"rules": {"local-system/runCommand": [
            {"match": {"command": "git status:*"}, "policy": "never", "confinement": "full_access"},
            {"match": {"command": "cargo build:*"}, "policy": "never", "confinement": "full_access"}
        ]}}"#,
    );
    let cwd = dir.path().to_str().unwrap();
    for command in ["check", "call"] {
        let out = toolhost(&[
            "--cwd",
            cwd,
            "--policy",
            &policy,
            command,
            "calculator____evaluate",
            r#"{"expression": "6*7"}"#,
        ]);
        assert!(out.status.success(), "{command}: {out:?}");
        let json = stdout_json(&out);
        assert!(json["decision"]["action"].is_string(), "{command}: {json}");
        let findings = json["policy"]["findings"].as_array().unwrap();
        assert_eq!(findings.len(), 1, "{command}: {json}");
        assert_eq!(findings[0]["id"], "policy/full-access-runs-workspace-code");
        assert_eq!(findings[0]["pointer"], "/rules/local-system~1runCommand/1");
        assert!(
            findings[0]["message"]
                .as_str()
                .unwrap()
                .contains("build.rs")
        );
    }
    // A file without findings: no `policy` field (the shape as before).
    let clean = write_policy(dir.path(), POLICY);
    let json = stdout_json(&toolhost(&[
        "--cwd",
        cwd,
        "--policy",
        &clean,
        "check",
        "calculator____evaluate",
        r#"{"expression": "6*7"}"#,
    ]));
    assert!(json.get("policy").is_none(), "{json}");
    assert!(json["decision"].is_object());
}

#[test]
fn an_allow_rule_does_not_approve_a_compound_command() {
    let dir = tempfile::tempdir().unwrap();
    let policy = write_policy(dir.path(), POLICY);
    let out = stdout_json(&toolhost(&[
        "--policy",
        &policy,
        "check",
        "local-system____runCommand",
        r#"{"command":"echo ok && rm -rf ~"}"#,
    ]));
    assert_eq!(out["decision"]["action"], "ask");
    assert_eq!(out["decision"]["policy"], "always");
    assert_eq!(out["decision"]["reason"]["level"], "global_audit");
}

#[test]
fn call_runs_only_what_is_allowed_or_approved() {
    let dir = tempfile::tempdir().unwrap();
    let policy = write_policy(dir.path(), POLICY);
    let cwd = dir.path().to_str().unwrap();
    let args = r#"{"command":"touch made-by-call"}"#;
    let asked = stdout_json(&toolhost(&[
        "--cwd",
        cwd,
        "--policy",
        &policy,
        "call",
        "local-system____runCommand",
        args,
    ]));
    assert_eq!(asked["decision"]["action"], "ask");
    assert!(asked["output"].is_null());
    assert!(!dir.path().join("made-by-call").exists());

    let approved = stdout_json(&toolhost(&[
        "--cwd",
        cwd,
        "--policy",
        &policy,
        "call",
        "local-system____runCommand",
        args,
        "--approve",
    ]));
    assert_eq!(approved["output"]["success"], true, "{approved}");
    assert!(dir.path().join("made-by-call").exists());

    let ran = stdout_json(&toolhost(&[
        "--cwd",
        cwd,
        "--policy",
        &policy,
        "call",
        "local-system____runCommand",
        r#"{"command":"echo hello"}"#,
    ]));
    assert_eq!(ran["decision"]["action"], "run");
    assert!(ran["output"]["content"].as_str().unwrap().contains("hello"));
}

#[test]
fn blocked_calls_never_run_and_carry_the_blocked_output() {
    let dir = tempfile::tempdir().unwrap();
    let policy = write_policy(dir.path(), POLICY);
    let cwd = dir.path().to_str().unwrap();
    let out = stdout_json(&toolhost(&[
        "--cwd",
        cwd,
        "--policy",
        &policy,
        "call",
        "local-system____runCommand",
        r#"{"command":"git push --force; touch pushed"}"#,
        "--approve",
    ]));
    assert_eq!(out["decision"]["action"], "block");
    assert_eq!(out["output"]["content"], "Blocked by security/privacy.");
    assert_eq!(
        out["output"]["error"]["code"],
        "blocked_by_security_privacy"
    );
    assert_eq!(out["output"]["state"]["type"], "blocked");
    assert_eq!(out["output"]["success"], false);
    assert!(!dir.path().join("pushed").exists());
}

#[test]
fn headless_mode_blocks_what_would_need_a_human_and_mode_overrides_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let policy = write_policy(dir.path(), POLICY);
    let always = stdout_json(&toolhost(&[
        "--mode",
        "headless",
        "check",
        "local-system____runCommand",
        r#"{"command":"rm -rf ~"}"#,
    ]));
    assert_eq!(always["decision"]["action"], "block");
    let required = stdout_json(&toolhost(&[
        "--mode",
        "headless",
        "--policy",
        &policy,
        "check",
        "local-system____runCommand",
        r#"{"command":"ls"}"#,
    ]));
    assert_eq!(required["decision"]["action"], "run");
    let auto = stdout_json(&toolhost(&["--mode", "auto-run", "check", "nope____x"]));
    assert_eq!(auto["decision"]["action"], "run");
    let manual = stdout_json(&toolhost(&["check", "nope____x"]));
    assert_eq!(manual["decision"]["action"], "ask");
    assert_eq!(manual["decision"]["reason"]["level"], "unknown_tool");
}

#[test]
fn a_bad_policy_file_is_a_source_error_naming_the_place() {
    let dir = tempfile::tempdir().unwrap();
    let policy = write_policy(
        dir.path(),
        r#"{"rules": {"local-system/runCommand": [{"policy": "sometimes"}]}}"#,
    );
    let out = toolhost(&["--policy", &policy, "tools"]);
    assert_eq!(out.status.code(), Some(1));
    let error = stderr_json(&out);
    assert_eq!(error["error"]["kind"], "source");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("/rules/local-system~1runCommand/0/policy"),
        "{error}"
    );
    let missing = toolhost(&["--policy", "/no/such/policy.json", "tools"]);
    assert_eq!(missing.status.code(), Some(1));
    assert_eq!(
        toolhost(&["--mode", "yolo", "tools"]).status.code(),
        Some(2)
    );
}

#[test]
fn local_system_reads_a_file_relative_to_cwd() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("README.md"), "# Title\nbody\n").unwrap();
    let out = stdout_json(&toolhost(&[
        "call",
        "local-system____readFile",
        r#"{"path":"README.md"}"#,
        "--cwd",
        dir.path().to_str().unwrap(),
    ]));
    assert_eq!(out["decision"]["action"], "run");
    assert_eq!(out["output"]["success"], true);
    assert!(
        out["output"]["content"]
            .as_str()
            .unwrap()
            .contains("# Title")
    );
    assert_eq!(out["output"]["state"]["totalLines"], 2);

    let outside = stdout_json(&toolhost(&[
        "check",
        "local-system____readFile",
        r#"{"path":"../outside.txt"}"#,
        "--cwd",
        dir.path().to_str().unwrap(),
    ]));
    assert_eq!(outside["decision"]["action"], "ask");
    assert_eq!(outside["decision"]["reason"]["level"], "api_dynamic");
}

#[test]
fn the_path_audit_and_the_computer_agree_on_dot_dot_after_a_symlink() {
    let root = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(root.path()).unwrap();
    let cwd = root.join("work");
    std::fs::create_dir_all(cwd.join("inside")).unwrap();
    std::fs::create_dir_all(root.join("elsewhere/a/b")).unwrap();
    std::fs::write(root.join("elsewhere/secret.txt"), "outside the scope\n").unwrap();
    std::fs::write(cwd.join("secret.txt"), "inside the scope\n").unwrap();
    std::os::unix::fs::symlink(root.join("elsewhere/a/b"), cwd.join("deep")).unwrap();
    let cwd_arg = cwd.to_str().unwrap();
    // The OS resolves deep/../.. from the link's target: elsewhere/, outside the scope.
    let args = r#"{"path":"deep/../../secret.txt"}"#;
    let check = stdout_json(&toolhost(&[
        "--cwd",
        cwd_arg,
        "check",
        "local-system____readFile",
        args,
    ]));
    assert_eq!(check["decision"]["action"], "ask", "{check}");
    let approved = stdout_json(&toolhost(&[
        "--cwd",
        cwd_arg,
        "call",
        "local-system____readFile",
        args,
        "--approve",
    ]));
    let content = approved["output"]["content"].as_str().unwrap();
    assert!(
        content.contains("outside the scope"),
        "the computer reads what the audit judged: {content}"
    );
    let unapproved = stdout_json(&toolhost(&[
        "--cwd",
        cwd_arg,
        "call",
        "local-system____readFile",
        args,
    ]));
    assert!(unapproved["output"].is_null());
}

/// Whether this kernel can confine commands (the decisions below depend on it).
fn can_confine() -> bool {
    let probe = stdout_json(&toolhost(&[
        "--mode",
        "auto-run",
        "check",
        "local-system____runCommand",
        r#"{"command":"ls"}"#,
    ]));
    probe["decision"]["action"] == "run"
}

#[test]
fn check_says_under_what_a_run_would_happen() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().to_str().unwrap();
    let check = |extra: &[&str], name: &str, args: &str| {
        let mut all = vec!["--cwd", cwd];
        all.extend_from_slice(extra);
        all.extend_from_slice(&["check", name, args]);
        stdout_json(&toolhost(&all))["decision"].clone()
    };
    let ls = r#"{"command":"ls"}"#;
    // A tool that touches nothing on the machine: nothing to confine.
    let pure = check(&[], "calculator____evaluate", r#"{"expression":"1+1"}"#);
    assert!(pure.get("confinement").is_some(), "{pure}");
    assert!(pure["confinement"].is_null(), "{pure}");
    // Manual mode asks; once approved, a person saw it: full access.
    let manual = check(&[], "local-system____runCommand", ls);
    assert_eq!(manual["action"], "ask", "{manual}");
    assert_eq!(manual["confinement"]["mode"], "full_access", "{manual}");
    let confined = can_confine();
    for mode in ["auto-run", "headless"] {
        let d = check(&["--mode", mode], "local-system____runCommand", ls);
        if confined {
            assert_eq!(d["action"], "run", "{mode}: {d}");
            assert_eq!(d["confinement"]["mode"], "workspace_write", "{mode}: {d}");
            assert_eq!(d["confinement"]["network"], false, "{mode}: {d}");
        } else {
            // Never an unconfined run nobody saw: ask, or block in headless.
            assert_ne!(d["action"], "run", "{mode}: {d}");
        }
    }
    // The host's explicit choices are honoured, and said.
    let open = check(
        &["--mode", "auto-run", "--allow-network"],
        "local-system____runCommand",
        ls,
    );
    if confined {
        assert_eq!(open["confinement"]["network"], true, "{open}");
    }
    let full = check(
        &["--mode", "auto-run", "--sandbox", "full-access"],
        "local-system____runCommand",
        ls,
    );
    assert_eq!(full["confinement"]["mode"], "full_access", "{full}");
    let kept = check(
        &["--sandbox", "read-only"],
        "local-system____runCommand",
        ls,
    );
    assert_eq!(kept["action"], "ask", "{kept}");
    assert_eq!(kept["confinement"]["mode"], "read_only", "{kept}");
}

#[test]
fn an_unattended_command_runs_confined_and_says_so() {
    if !can_confine() {
        return test_support::cannot_check(
            "an unattended command's confinement",
            "toolhost's auto-run check of `ls` does not run here (no confinement)",
        );
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    std::fs::write(dir.path().join(".git/config"), "[core]\n").unwrap();
    // What the engine cannot see (a script file's contents) meets the
    // second wall: the script's write to .git/config is refused by the
    // kernel, while a new file at the root of the repository is fine.
    std::fs::write(dir.path().join("w.sh"), "echo x >> .git/config\n").unwrap();
    let cwd = dir.path().to_str().unwrap();
    let out = stdout_json(&toolhost(&[
        "--cwd",
        cwd,
        "--mode",
        "auto-run",
        "call",
        "local-system____runCommand",
        r#"{"command":"echo hi > new.txt && sh w.sh; echo done"}"#,
    ]));
    assert_eq!(out["decision"]["action"], "run", "{out}");
    assert_eq!(out["decision"]["confinement"]["mode"], "workspace_write");
    assert_eq!(
        out["output"]["state"]["sandbox"]["policy"], "workspace_write",
        "{out}"
    );
    let config = std::fs::read_to_string(dir.path().join(".git/config")).unwrap();
    assert_eq!(config, "[core]\n", "the confined command wrote .git/config");
    let created = std::fs::read_to_string(dir.path().join("new.txt")).unwrap();
    assert_eq!(created, "hi\n", "{out}");
}

#[test]
fn output_to_a_closed_pipe_ends_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(["tools", "--format", "openai"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Close the pipe before toolhost writes, as `| head -c 0` would.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn tools_search_prints_ranked_apis_with_name_score_and_description() {
    let out = toolhost(&[
        "tools",
        "--search",
        "evaluate a math expression",
        "--limit",
        "2",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results = stdout_json(&out)["results"].as_array().unwrap().clone();
    assert!(!results.is_empty() && results.len() <= 2, "{results:?}");
    assert_eq!(results[0]["name"], "calculator____evaluate");
    for result in &results {
        let keys: Vec<&String> = result.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["name", "score", "description"]);
        assert!(result["score"].as_f64().unwrap() > 0.0);
    }
    // A query with no searchable word is a usage error.
    let out = toolhost(&["tools", "--search", "the of"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_json(&out)["error"]["message"]
            .as_str()
            .unwrap()
            .contains("--search")
    );
}

#[test]
fn tools_defer_over_exports_with_deferral_and_reports_sizes() {
    let full = stdout_json(&toolhost(&["tools", "--format", "anthropic"]));
    let count = full["tools"].as_array().unwrap().len();
    let out = toolhost(&["tools", "--format", "anthropic", "--defer-over", "1500"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json = stdout_json(&out);
    let tools = json["tools"].as_array().unwrap();
    let report = &json["deferral"];
    assert!(report["deferred"].as_u64().unwrap() > 0, "{report}");
    assert_eq!(
        report["deferredByBudget"].as_array().unwrap().len() as u64,
        report["deferred"].as_u64().unwrap()
    );
    assert!(tools.iter().any(|t| t["defer_loading"] == true));
    assert_eq!(
        tools.last().unwrap()["type"],
        "tool_search_tool_bm25_20251119"
    );
    assert_eq!(tools.len(), count + 1);
    assert!(
        report["charsInContext"].as_u64().unwrap() <= 1500,
        "{report}"
    );
    assert!(json["systemNote"].as_str().unwrap().contains("more tools"));

    let out = toolhost(&["tools", "--defer-over", "1500"]);
    assert_eq!(out.status.code(), Some(2), "manifests have no deferral");
}

#[test]
fn demo_searches_loads_and_calls_a_deferred_tool() {
    let out = toolhost(&["demo"]);
    assert!(out.status.success());
    let steps = stdout_json(&out)["demo"].as_array().unwrap().clone();
    let step = steps
        .iter()
        .find(|s| s["step"] == "Thousands of tools: search, load, call")
        .expect("the tool search step");
    let result = &step["result"];
    assert_eq!(
        result["turn1"]["offered"],
        serde_json::json!(["tool_search"])
    );
    assert!(
        result["turn1"]["output"]
            .as_str()
            .unwrap()
            .contains("crm____listOpenOrders")
    );
    assert!(
        result["turn2"]["offered"]
            .as_array()
            .unwrap()
            .contains(&Value::from("crm____listOpenOrders"))
    );
    assert!(
        result["turn2"]["output"]
            .as_str()
            .unwrap()
            .contains("CUST-12345")
    );
}

/// The demo's approval step tells its engine what this machine can
/// confine, and each explanation agrees with the decision printed beside
/// it: its action and rule are named, and the step's claims hold here;
/// the gated step says what its outputs show.
#[test]
fn demo_approval_steps_explain_what_they_decided() {
    let out = toolhost(&["demo"]);
    assert!(out.status.success());
    let steps = stdout_json(&out)["demo"].as_array().unwrap().clone();
    let step = steps
        .iter()
        .find(|s| s["step"] == "Approval: run, ask or block, with reasons")
        .expect("the approval step");
    let result = &step["result"];
    let support = tool_runtime::confinement_support(&tool_runtime::SandboxOptions::default());
    assert_eq!(
        result["confinementSupport"],
        serde_json::to_value(&support).unwrap()
    );
    let unavailable = "confinement/unavailable";
    let explanation = step["explanation"].as_str().unwrap();
    assert_eq!(
        explanation.contains(unavailable),
        !support.is_available(),
        "{explanation}"
    );
    let decisions = result["decisions"].as_array().unwrap();
    assert_eq!(decisions.len(), 7);
    let mut runs = 0;
    let mut unconfined = 0;
    for entry in decisions {
        let why = entry["why"].as_str().unwrap();
        let decision = &entry["decision"];
        let action = decision["action"].as_str().unwrap();
        let rule = decision["reason"]["rule"].as_str().unwrap();
        assert!(why.contains(&format!("`{rule}`")), "{why} / {decision}");
        if rule == unavailable {
            unconfined += 1;
            assert_eq!(action, "ask");
            assert!(why.contains("cannot confine calls"), "{why}");
        } else {
            assert!(why.contains(&format!("Decision: {action}")), "{why}");
        }
        for other in ["run", "ask", "block"].iter().filter(|a| **a != action) {
            assert!(!why.contains(&format!("Decision: {other}")), "{why}");
        }
        assert!(!why.starts_with("Meant to show"), "{why}");
        if action == "run" {
            runs += 1;
            let mode = decision["confinement"]["mode"].as_str().unwrap();
            assert!(why.contains(&format!("confined ({mode}")), "{why}");
        }
    }
    // The allowed plain status and the in-workspace read run confined where
    // the kernel confines, and ask for that reason where it cannot.
    if support.is_available() {
        assert_eq!((runs, unconfined), (2, 0), "{decisions:?}");
    } else {
        assert_eq!((runs, unconfined), (0, 2), "{decisions:?}");
    }

    // The gated step says what its outputs show.
    let gated = steps
        .iter()
        .find(|s| s["step"] == "Approval in the pipeline: decide, ask, run confined")
        .expect("the gated step");
    let explanation = gated["explanation"].as_str().unwrap();
    let results = gated["result"].as_array().unwrap();
    assert_eq!(results.len(), 4);
    assert_eq!(results[0]["content"], "42");
    assert!(explanation.contains("The calculator runs"), "{explanation}");
    match results[1]["sandbox"]["policy"].as_str() {
        Some(policy) => {
            assert!(support.is_available(), "{results:?}");
            assert!(
                explanation.contains(&format!("the command runs confined ({policy}")),
                "{explanation}"
            );
        }
        None => {
            assert!(!explanation.contains("runs confined"), "{explanation}");
            assert_eq!(results[1]["errorCode"], "declined_by_user");
            assert!(
                explanation.contains("cannot confine the command"),
                "{explanation}"
            );
        }
    }
    let both_declined = results[2..]
        .iter()
        .all(|r| r["errorCode"] == "declined_by_user");
    assert!(both_declined, "{results:?}");
    assert!(explanation.contains("declines both"), "{explanation}");
}

/// Decisions recorded with `check --record FILE --record-arguments` under
/// one policy, replayed under another: each change is reported (action
/// changes by their direction, same action by another rule as `rule`),
/// digest-only, tampered and unreadable lines are named, not guessed at.
#[test]
fn replay_reports_what_a_new_policy_would_change_on_recorded_calls() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().join("ws");
    std::fs::create_dir_all(&cwd).unwrap();
    let cwd = cwd.to_str().unwrap();
    let old = dir.path().join("old.json");
    std::fs::write(
        &old,
        r#"{"mode": "manual", "rules": {"local-system/runCommand": [
            {"match": {"command": "git status:*"}, "policy": "never"},
            {"match": {"command": "echo:*"}, "policy": "never"},
            {"match": {"command": "git push:*"}, "policy": "deny"},
            {"policy": "required"}]}}"#,
    )
    .unwrap();
    let new = dir.path().join("new.json");
    std::fs::write(
        &new,
        r#"{"mode": "manual", "rules": {"local-system/runCommand": [
            {"match": {"command": "echo hi:*"}, "policy": "never"},
            {"match": {"command": "ls:*"}, "policy": "never"},
            {"policy": "required"}]}}"#,
    )
    .unwrap();
    let records = dir.path().join("decisions.jsonl");
    let records = records.to_str().unwrap();
    let (old, new) = (old.to_str().unwrap(), new.to_str().unwrap());
    let record = |command: &str, keep: bool| {
        let args = serde_json::json!({ "command": command }).to_string();
        let mut argv = vec![
            "--cwd",
            cwd,
            "--policy",
            old,
            "check",
            "local-system____runCommand",
            args.as_str(),
            "--record",
            records,
        ];
        if keep {
            argv.push("--record-arguments");
        }
        let out = toolhost(&argv);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout_json(&out)["decision"]["action"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(record("git status", true), "run");
    assert_eq!(record("ls -la", true), "ask");
    assert_eq!(record("git push origin main", true), "block");
    assert_eq!(record("echo hi", true), "run");
    assert_eq!(record("echo private-value", false), "run");

    let text = std::fs::read_to_string(records).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5);
    // Digest only unless the host opts in: the value is not on record.
    assert!(!lines[4].contains("private-value"), "{}", lines[4]);
    let first: Value = serde_json::from_str(lines[0]).unwrap();
    for key in [
        "timeMs",
        "tool",
        "api",
        "argumentsDigest",
        "action",
        "rule",
        "policyFingerprint",
    ] {
        assert!(first.get(key).is_some(), "{key} missing from {first}");
    }
    assert_eq!(first["arguments"]["command"], "git status");
    // A record whose kept arguments no longer match its digest, and a line
    // that is not a record.
    let mut tampered: Value = serde_json::from_str(lines[0]).unwrap();
    tampered["arguments"]["command"] = Value::from("rm -rf ~");
    let text = format!("{text}{tampered}\nnot a record\n");
    std::fs::write(records, text).unwrap();

    // Under the policy they were recorded with, nothing changes.
    let same = toolhost(&["--cwd", cwd, "--policy", old, "replay", records]);
    assert!(
        same.status.success(),
        "{}",
        String::from_utf8_lossy(&same.stderr)
    );
    let same = stdout_json(&same);
    assert_eq!(same["changes"], serde_json::json!([]), "{same}");
    assert_eq!(same["unchanged"], 4);
    assert_eq!(same["policy"]["recordedUnder"].as_array().unwrap().len(), 1);
    assert_eq!(
        same["policy"]["recordedUnder"][0],
        same["policy"]["fingerprint"]
    );

    let out = toolhost(&["--cwd", cwd, "--policy", new, "replay", records]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = stdout_json(&out);
    assert_eq!(out["records"], 6, "{out}");
    assert_eq!(out["replayed"], 4, "{out}");
    assert_eq!(out["unchanged"], 0, "{out}");
    assert_ne!(out["policy"]["fingerprint"], first["policyFingerprint"]);
    let changes = out["changes"].as_array().unwrap();
    let change_of = |line: u64| {
        changes
            .iter()
            .find(|c| c["line"] == line)
            .unwrap_or_else(|| panic!("no change for line {line}: {out}"))
    };
    assert_eq!(change_of(1)["change"], "run→ask");
    assert_eq!(change_of(1)["before"]["action"], "run");
    assert_eq!(change_of(1)["after"]["action"], "ask");
    assert_eq!(change_of(2)["change"], "ask→run");
    assert!(
        change_of(2)["after"]["rule"]
            .as_str()
            .unwrap()
            .contains("ls:*"),
        "{out}"
    );
    assert_eq!(change_of(3)["change"], "block→ask");
    let rule = change_of(4);
    assert_eq!(rule["change"], "rule", "{out}");
    assert_eq!(rule["before"]["action"], rule["after"]["action"]);
    assert!(rule["before"]["rule"].as_str().unwrap().contains("echo:*"));
    assert!(
        rule["after"]["rule"]
            .as_str()
            .unwrap()
            .contains("echo hi:*")
    );
    assert_eq!(
        out["summary"],
        serde_json::json!({"run→ask": 1, "ask→run": 1, "block→ask": 1, "rule": 1})
    );
    let not_replayable = out["notReplayable"].as_array().unwrap();
    assert_eq!(not_replayable.len(), 2, "{out}");
    assert_eq!(not_replayable[0]["line"], 5);
    assert_eq!(not_replayable[0]["why"], "arguments_not_kept");
    assert_eq!(not_replayable[1]["line"], 6);
    assert_eq!(not_replayable[1]["why"], "digest_mismatch");
    assert_eq!(out["unreadable"][0]["line"], 7, "{out}");

    // A missing records file is a source error.
    let missing = dir.path().join("missing.jsonl");
    let gone = toolhost(&["--cwd", cwd, "replay", missing.to_str().unwrap()]);
    assert_eq!(gone.status.code(), Some(1));
    assert_eq!(stderr_json(&gone)["error"]["kind"], "source");
}

/// Every step of `toolhost demo` is checked against what it printed: each
/// explanation's claim holds for its result on this machine (a step this
/// test does not know fails it, so a new step comes with its check). The
/// approval steps' fuller checks are in
/// `demo_approval_steps_explain_what_they_decided`.
#[test]
fn demo_each_step_explanation_matches_its_result() {
    let out = toolhost(&["demo"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let steps = stdout_json(&out)["demo"].as_array().unwrap().clone();
    let code = |v: &Value| v["output"]["error"]["code"].as_str().map(str::to_owned);
    let mut checked = Vec::new();
    for step in &steps {
        let title = step["step"].as_str().unwrap();
        let why = step["explanation"].as_str().unwrap();
        let r = &step["result"];
        let context = format!("{title}: {why}\n{r}");
        match title {
            "Offer tools to a model" => {
                assert!(why.contains("identifier____apiName"), "{context}");
                let names = r.as_array().unwrap();
                assert!(!names.is_empty(), "{context}");
                assert!(
                    names.iter().all(|n| n.as_str().unwrap().contains("____")),
                    "{context}"
                );
            }
            "Names that providers would reject" => {
                let wire = r["wireName"].as_str().unwrap();
                assert_eq!(r["roundTrips"], true, "{context}");
                assert_ne!(r["wireName"], r["identifier"], "{context}");
                assert!(wire.len() <= 64, "{context}");
                assert!(
                    wire.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'),
                    "{context}"
                );
            }
            "A successful call" => {
                assert_eq!(r["output"]["success"], true, "{context}");
                assert!(!r["output"]["content"].as_str().unwrap().is_empty());
                assert!(
                    r["output"]["state"].is_object(),
                    "state for a UI: {context}"
                );
            }
            "Arguments cut off by the model" => {
                assert_eq!(code(r).as_deref(), Some("truncated_arguments"), "{context}");
            }
            "Arguments that break the schema" => {
                assert_eq!(code(r).as_deref(), Some("invalid_arguments"), "{context}");
                let violations = r["output"]["error"]["details"]["violations"]
                    .as_array()
                    .unwrap();
                assert_eq!(violations.len(), 2, "every violation: {context}");
                let content = r["output"]["content"].as_str().unwrap();
                assert!(
                    content.contains("at /expression") && content.contains("at /:"),
                    "{context}"
                );
            }
            "A tool error" => {
                let c = code(r).unwrap();
                assert!(
                    !["execution_failed", "invalid_arguments", "executor_panic"]
                        .contains(&c.as_str()),
                    "its specific code: {context}"
                );
                assert!(!r["output"]["content"].as_str().unwrap().is_empty());
            }
            "A call past its time budget" => {
                assert_eq!(code(r).as_deref(), Some("timeout"), "{context}");
                let ms = r["output"]["error"]["details"]["timeoutMs"]
                    .as_u64()
                    .unwrap();
                assert!((1_000..=800_000).contains(&ms), "{context}");
            }
            "A name nobody offered" => {
                assert_eq!(code(r).as_deref(), Some("tool_not_found"), "{context}");
            }
            "Approval: run, ask or block, with reasons" => {
                for entry in r["decisions"].as_array().unwrap() {
                    let rule = entry["decision"]["reason"]["rule"].as_str().unwrap();
                    assert!(entry["why"].as_str().unwrap().contains(rule), "{context}");
                }
            }
            "Approval in the pipeline: decide, ask, run confined" => {
                assert_eq!(r[0]["content"], "42", "{context}");
                assert!(why.contains("The calculator runs"), "{context}");
            }
            "The local computer" => {
                let r = r.as_array().unwrap();
                assert!(why.contains("state omitted"), "{context}");
                assert_eq!(r[0]["success"], true, "{context}");
                assert!(r[0]["content"].as_str().unwrap().contains("notes/todo.md"));
                assert_eq!(r[1]["errorCode"], "edit_ambiguous", "{context}");
                assert!(
                    r[1]["content"].as_str().unwrap().contains("lines 1, 3"),
                    "{context}"
                );
                assert_eq!(r[2]["success"], true, "{context}");
                let diff = r[2]["content"].as_str().unwrap();
                assert!(
                    diff.contains("--- a/") && diff.contains("+++ b/"),
                    "{context}"
                );
                assert_eq!(r[3]["success"], true, "{context}");
                assert!(
                    r[3]["content"]
                        .as_str()
                        .unwrap()
                        .starts_with("2 matching lines"),
                    "{context}"
                );
                assert!(
                    r[4]["content"]
                        .as_str()
                        .unwrap()
                        .contains("exited with code 3"),
                    "{context}"
                );
                for entry in r {
                    let stated = entry["why"].as_str().unwrap();
                    assert!(!stated.is_empty());
                }
            }
            "A second wall: the OS sandbox" => {
                let r = r.as_array().unwrap();
                match r.iter().find_map(|e| e["errorCode"].as_str()) {
                    Some(refused) => {
                        assert!(
                            why.contains("cannot confine") && why.contains(refused),
                            "{context}"
                        );
                    }
                    None => {
                        assert!(why.contains("the kernel refuses it"), "{context}");
                        let content = |i: usize| r[i]["content"].as_str().unwrap();
                        assert!(content(0).contains("exited with code 0"), "{context}");
                        for i in [1, 2] {
                            assert!(content(i).contains("exited with code"), "{context}");
                            assert!(
                                !content(i).contains("exited with code 0"),
                                "refused: {context}"
                            );
                        }
                        assert!(
                            r.iter()
                                .all(|e| e["sandbox"]["policy"] == "workspace_write"),
                            "{context}"
                        );
                    }
                }
            }
            "Remote dispatch to a client executor" => {
                assert_eq!(r["route"], "client", "{context}");
                let calls = r["calls"].as_array().unwrap();
                assert_eq!(calls[0]["output"]["success"], true, "{context}");
                assert_eq!(calls[0]["output"]["content"], "Battery at 87%, charging.");
                assert_eq!(
                    code(&calls[1]).as_deref(),
                    Some("client_executor_timeout"),
                    "{context}"
                );
                let received = r["executorReceived"].as_array().unwrap();
                assert!(
                    received.iter().all(|m| m["type"] == "tool_execute"),
                    "{context}"
                );
                let sent = received[1]["executionTimeoutMs"].as_u64().unwrap();
                let budget = calls[1]["output"]["error"]["details"]["budgetMs"]
                    .as_u64()
                    .unwrap();
                assert_eq!(budget + 500, sent, "budget − 500 ms: {context}");
                assert_eq!(r["uncollectedResults"], 0, "exactly one result: {context}");
            }
            "Thousands of tools: search, load, call" => {
                assert_eq!(
                    r["turn1"]["offered"],
                    serde_json::json!(["tool_search"]),
                    "{context}"
                );
            }
            "Skills: the catalog" => {
                assert!(why.contains("600-character budget"), "{context}");
                assert!(
                    r["text"].as_str().unwrap().chars().count() <= 600,
                    "{context}"
                );
                assert!(!r["shortened"].as_array().unwrap().is_empty(), "{context}");
            }
            "Skills: activateSkill" => {
                let content = r["content"].as_str().unwrap();
                assert!(content.starts_with("<skill_content name="), "{context}");
                assert!(
                    !content.contains("\ndescription:"),
                    "no frontmatter: {context}"
                );
                assert!(
                    content.contains("Skill folder:") && content.contains("<file>"),
                    "{context}"
                );
            }
            "Skills: readReference" => {
                assert_eq!(r["state"]["requested"], "table", "{context}");
                assert_eq!(r["state"]["path"], "references/table.md", "{context}");
                assert_eq!(r["state"]["resolution"], "uniqueFileName", "{context}");
            }
            "Skills: no path escapes" => {
                assert_eq!(r["success"], false, "{context}");
                assert_eq!(r["error"]["code"], "path_not_allowed", "{context}");
            }
            "Skills: runScript" => {
                assert_eq!(r["humanIntervention"], "required", "{context}");
                let sandbox = r["sandbox"].as_str().unwrap_or("none");
                assert!(why.contains(&format!("under {sandbox}")), "{context}");
                let args = r["arguments"]["args"].as_array().unwrap();
                let word = args[0].as_str().unwrap();
                assert_eq!(args.len(), 1);
                assert!(
                    r["stdout"]
                        .as_str()
                        .unwrap()
                        .contains(&format!("length: {}", word.len())),
                    "one word: {context}"
                );
            }
            "Compile a narrow API document" => {
                let apis = r.as_array().unwrap();
                assert!(
                    why.contains("GET runs without asking (`never`)"),
                    "{context}"
                );
                assert_eq!(apis[0]["name"], "getWeather");
                assert_eq!(apis[0]["humanIntervention"], "never", "{context}");
                assert_eq!(apis[1]["name"], "addNote");
                assert_eq!(apis[1]["humanIntervention"], "required", "{context}");
            }
            "Call `weather____getWeather`" => {
                let args: Value =
                    serde_json::from_str(r["call"]["arguments"].as_str().unwrap()).unwrap();
                assert!(args["city"].as_str().unwrap().contains('/'), "{context}");
                assert_eq!(
                    r["output"]["state"]["body"]["city"], args["city"],
                    "one segment: {context}"
                );
                assert_eq!(
                    r["output"]["state"]["body"]["units"], args["units"],
                    "{context}"
                );
            }
            "Call `weather____addNote`" => {
                let args: Value =
                    serde_json::from_str(r["call"]["arguments"].as_str().unwrap()).unwrap();
                assert_eq!(
                    r["output"]["state"]["body"]["saved"], args,
                    "the JSON body: {context}"
                );
            }
            "Call `weather_default_guard____getWeather`" => {
                assert_eq!(code(r).as_deref(), Some("ssrf_blocked"), "{context}");
                assert_eq!(r["output"]["error"]["details"]["address"], "127.0.0.1");
            }
            "MCP: toolhost talks to itself" => {
                let calls = r["calls"].as_array().unwrap();
                assert!(calls.iter().all(|c| c["success"] == true), "{context}");
                let elicitations = r["elicitations"].as_array().unwrap();
                assert_eq!(elicitations.len(), 1, "only runCommand asked: {context}");
                assert!(
                    elicitations[0].as_str().unwrap().contains("runCommand"),
                    "{context}"
                );
                assert!(
                    calls[4]["content"]
                        .as_str()
                        .unwrap()
                        .contains("written over MCP")
                );
            }
            "MCP: a third-party server" => {
                if r.is_null() {
                    assert!(why.starts_with("Not installed"), "{context}");
                } else {
                    let outs = r.as_array().unwrap();
                    assert!(
                        outs[0]["content"]
                            .as_str()
                            .unwrap()
                            .contains("hello from toolhost")
                    );
                    assert!(
                        outs[1]["content"].as_str().unwrap().contains("[image:"),
                        "{context}"
                    );
                    assert_eq!(outs[1]["stateKept"], true, "{context}");
                }
            }
            other => panic!("the demo step {other:?} has no check here: {context}"),
        }
        checked.push(title.to_owned());
    }
    assert!(checked.len() >= 24, "{checked:?}");
}
