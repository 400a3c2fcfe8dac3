//! `toolhost` with Agent Skills: `--skills`, `skills validate`, `skills catalog`,
//! `skills properties`, the demo.

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

/// Exit code, stdout JSON and stderr JSON (`Null` when empty).
fn toolhost_err(args: &[&str]) -> (i32, Value, Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(args)
        .output()
        .unwrap();
    let parse = |bytes: Vec<u8>| {
        let text = String::from_utf8(bytes).unwrap();
        if text.trim().is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
        }
    };
    (
        out.status.code().unwrap(),
        parse(out.stdout),
        parse(out.stderr),
    )
}

fn write(path: &std::path::Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
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

#[test]
fn properties_prints_the_frontmatter_fields_of_one_skill() {
    let dir = format!("{}/unit-conversion", examples());
    let (code, out) = toolhost(&["skills", "properties", &dir, "--strict"]);
    assert_eq!(code, 0);
    let mut fields = out.clone();
    let file = fields.as_object_mut().unwrap().remove("file").unwrap();
    assert!(file.as_str().unwrap().ends_with("unit-conversion/SKILL.md"));
    assert_eq!(
        fields.as_object_mut().unwrap().remove("findings"),
        Some(serde_json::json!([]))
    );
    assert_eq!(
        fields,
        serde_json::json!({
            "name": "unit-conversion",
            "description": "Converts between metric and imperial units (length, mass, temperature) with the calculator tool. Use when a question mixes units or asks \"how many X in Y\".",
            "license": "MIT OR Apache-2.0",
            "allowed-tools": ["calculator"],
            "metadata": {"author": "tool-layer", "version": "1.0"},
        })
    );
    // The SKILL.md itself names the same skill; absent fields are left out.
    let (code, same) = toolhost(&["skills", "properties", &format!("{dir}/SKILL.md")]);
    assert_eq!(code, 0);
    assert_eq!(same, out);
    let (_, commit) = toolhost(&[
        "skills",
        "properties",
        &format!("{}/commit-messages", examples()),
    ]);
    assert!(commit.get("license").is_none() && commit.get("metadata").is_none());
    assert!(commit.get("allowed-tools").is_none() && commit.get("compatibility").is_none());
}

#[test]
fn properties_fails_with_a_reason_when_no_single_skill_loads() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(
        &root.join("no-description/SKILL.md"),
        "---\nname: no-description\n---\nBody.\n",
    );
    std::fs::create_dir_all(root.join("folder/SKILL.md")).unwrap();
    std::fs::create_dir_all(root.join("empty")).unwrap();
    let cases = [
        ("no-description", "missing_description"),
        ("folder", "skill_file_not_a_file"),
        ("empty", "no skill"),
        ("", "holds"),
        ("does-not-exist", "source_not_found"),
    ];
    write(
        &root.join("a/SKILL.md"),
        "---\nname: a\ndescription: A.\n---\nA.\n",
    );
    write(
        &root.join("b/SKILL.md"),
        "---\nname: b\ndescription: B.\n---\nB.\n",
    );
    for (folder, expected) in cases {
        let path = root.join(folder).display().to_string();
        let (code, out, err) = toolhost_err(&["skills", "properties", &path]);
        assert_eq!((code, out), (1, Value::Null), "{folder}");
        assert_eq!(err["error"]["kind"], "source", "{folder}");
        let message = err["error"]["message"].as_str().unwrap();
        assert!(message.contains(expected), "{folder}: {message}");
    }
}

#[test]
fn catalog_location_gives_each_skill_md_path() {
    let (code, out) = toolhost(&["skills", "catalog", &examples(), "--location"]);
    assert_eq!(code, 0);
    let text = out["text"].as_str().unwrap();
    for name in ["commit-messages", "release-notes", "unit-conversion"] {
        assert!(
            text.contains(&format!("/{name}/SKILL.md</location>")),
            "{name}: {text}"
        );
    }
    let (_, json) = toolhost(&[
        "skills",
        "catalog",
        &examples(),
        "--location",
        "--format",
        "json",
    ]);
    let entries: Value = serde_json::from_str(json["text"].as_str().unwrap()).unwrap();
    assert!(
        entries[0]["location"]
            .as_str()
            .unwrap()
            .ends_with("/commit-messages/SKILL.md")
    );
    let (_, plain) = toolhost(&["skills", "catalog", &examples()]);
    assert!(!plain["text"].as_str().unwrap().contains("<location>"));
}

#[test]
fn validate_reports_a_lowercase_skill_md_and_normalised_names() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        &tmp.path().join("lower/skill.md"),
        "---\nname: lower\ndescription: Lowercase file.\n---\nBody.\n",
    );
    // Folder composed, name decomposed: the same name once normalised.
    write(
        &tmp.path().join("caf\u{e9}/SKILL.md"),
        "---\nname: cafe\u{301}\ndescription: Coffee.\n---\nBody.\n",
    );
    let dir = tmp.path().display().to_string();
    let (_, lenient) = toolhost(&["skills", "validate", &dir]);
    let names: Vec<&str> = lenient["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["caf\u{e9}", "lower"]);
    let (_, strict) = toolhost(&["skills", "validate", &dir, "--strict"]);
    let findings = strict["findings"].as_array().unwrap();
    let misnamed = findings
        .iter()
        .find(|f| f["code"] == "misnamed_skill_file")
        .unwrap();
    assert_eq!(misnamed["severity"], "error");
    assert!(
        findings.iter().all(|f| f["code"] != "name_folder_mismatch"),
        "{findings:?}"
    );
    assert_eq!(strict["skills"].as_array().unwrap().len(), 1);
}
