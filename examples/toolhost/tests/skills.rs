//! `toolhost` with Agent Skills: `--skills`, `skills validate`, `skills catalog`, the demo.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

fn toolhost(args: &[&str]) -> (i32, Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let json = if stdout.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
    };
    (out.status.code().unwrap(), json)
}

fn examples() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../skills")
        .display()
        .to_string()
}

fn corpus() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tool-skills/tests/fixtures/corpus")
        .display()
        .to_string()
}

#[test]
fn the_example_skills_are_strictly_valid() {
    let (code, out) = toolhost(&["skills", "validate", &examples(), "--strict"]);
    assert_eq!(code, 0);
    let names: Vec<&str> = out["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["commit-messages", "release-notes", "unit-conversion"]
    );
    assert_eq!(out["findings"], serde_json::json!([]));
}

#[test]
fn validate_reports_findings_and_still_exits_zero() {
    let (code, out) = toolhost(&["skills", "validate", &corpus(), "--strict"]);
    assert_eq!(code, 0);
    let findings = out["findings"].as_array().unwrap();
    let mismatch = findings
        .iter()
        .find(|f| f["code"] == "name_folder_mismatch")
        .unwrap();
    assert_eq!(mismatch["severity"], "error");
    assert_eq!(mismatch["line"], 2);
    assert!(
        mismatch["file"]
            .as_str()
            .unwrap()
            .ends_with("renamed-folder/SKILL.md")
    );
    let keys: Vec<&String> = mismatch.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["code", "file", "line", "message", "severity"]);
    let (_, lenient) = toolhost(&["skills", "validate", &corpus()]);
    assert!(lenient["skills"].as_array().unwrap().len() > out["skills"].as_array().unwrap().len());
}

#[test]
fn catalog_formats_and_budget() {
    let (code, out) = toolhost(&["skills", "catalog", &examples()]);
    assert_eq!(code, 0);
    assert!(
        out["text"]
            .as_str()
            .unwrap()
            .starts_with("<available_skills>")
    );
    let (_, out) = toolhost(&[
        "skills",
        "catalog",
        &examples(),
        "--format",
        "json",
        "--budget",
        "300",
    ]);
    assert!(out["chars"].as_u64().unwrap() <= 300);
    let text: Value = serde_json::from_str(out["text"].as_str().unwrap()).unwrap();
    assert!(text.is_array());
    assert!(
        !out["shortened"].as_array().unwrap().is_empty()
            || !out["namesOnly"].as_array().unwrap().is_empty()
    );
    let (code, _) = toolhost(&["skills", "catalog", &examples(), "--format", "yaml"]);
    assert_eq!(code, 2);
}

#[test]
fn skills_folders_become_the_skills_tool_in_precedence_order() {
    let first = tempfile::tempdir().unwrap();
    let dir = first.path().join("unit-conversion");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        "---\nname: unit-conversion\ndescription: A local override.\n---\nLocal body.\n",
    )
    .unwrap();
    let first = first.path().display().to_string();
    let (_, tools) = toolhost(&["--skills", &first, "--skills", &examples(), "tools"]);
    let skills = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["identifier"] == "skills")
        .unwrap();
    assert!(
        skills["systemRole"]
            .as_str()
            .unwrap()
            .contains("<name>release-notes</name>")
    );
    assert!(
        tools["skills"]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["code"] == "shadowed_skill")
    );
    let (_, called) = toolhost(&[
        "--skills",
        &first,
        "--skills",
        &examples(),
        "call",
        "skills____activateSkill",
        r#"{"name":"unit-conversion"}"#,
    ]);
    let output = &called["output"];
    assert!(output["content"].as_str().unwrap().contains("Local body."));
    assert_eq!(output["state"]["source"], "skills[0]");
    let (_, called) = toolhost(&[
        "--skills",
        &examples(),
        "call",
        "skills____readReference",
        r#"{"skill":"unit-conversion","path":"/proc/self/root/etc/passwd"}"#,
        "--approve",
    ]);
    // The approval layer asks first (system files); approved, the tool still refuses.
    assert_eq!(called["decision"]["action"], "ask");
    assert_eq!(called["output"]["error"]["code"], "path_not_allowed");
    let (_, tools) = toolhost(&["tools"]);
    assert!(
        !tools["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["identifier"] == "skills"),
        "no --skills, no tool"
    );
}

#[test]
fn the_demo_activates_and_reads_the_example_skills() {
    let (code, out) = toolhost(&["demo"]);
    assert_eq!(code, 0);
    let steps = out["demo"].as_array().unwrap();
    let activate = steps
        .iter()
        .find(|s| s["step"] == "Skills: activateSkill")
        .unwrap();
    assert!(
        activate["result"]["content"]
            .as_str()
            .unwrap()
            .starts_with("<skill_content name=\"unit-conversion\"")
    );
    let read = steps
        .iter()
        .find(|s| s["step"] == "Skills: readReference")
        .unwrap();
    assert!(read["result"]["content"].as_str().unwrap().contains("2.54"));
    let escape = steps
        .iter()
        .find(|s| s["step"] == "Skills: no path escapes")
        .unwrap();
    assert_eq!(escape["result"]["error"]["code"], "path_not_allowed");
}
