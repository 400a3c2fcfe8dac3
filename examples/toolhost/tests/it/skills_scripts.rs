//! `toolhost --skills` with script execution: `skills____runScript` is
//! offered on the host's local computer with `humanIntervention: required`,
//! asks in manual mode, runs in auto-run mode, is blocked in headless mode,
//! runs in the same OS sandbox as `local-system____runCommand`, and refuses
//! script paths that leave `scripts/`. The scripts really run are the
//! example skill's harmless subject checker and one-line writes into folders
//! the test creates; escape paths are only sent as data and refused.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

fn toolhost(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../skills")
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A base for test folders outside the system temp dir (which the sandbox
/// keeps writable): the target's temp dir, or `/var/tmp` or `$HOME` when the
/// checkout itself lives under the temp dir.
fn base_outside_temp() -> PathBuf {
    let real = |p: &Path| fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let temp = real(&std::env::temp_dir());
    [
        Some(PathBuf::from(env!("CARGO_TARGET_TMPDIR"))),
        Some(PathBuf::from("/var/tmp")),
        std::env::var_os("HOME").map(PathBuf::from),
    ]
    .into_iter()
    .flatten()
    .find(|dir| dir.is_dir() && !real(dir).starts_with(&temp))
    .expect("a writable directory outside the system temp dir")
}

/// `base/skills/commit-messages` (a copy of the example) and `base/ws`.
struct Layout {
    _base: tempfile::TempDir,
    skills: PathBuf,
    skill: PathBuf,
    ws: PathBuf,
}

fn layout() -> Layout {
    let base = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let skills = base.path().join("skills");
    let skill = skills.join("commit-messages");
    copy_dir(&examples().join("commit-messages"), &skill);
    let ws = base.path().join("ws");
    fs::create_dir_all(&ws).unwrap();
    Layout {
        skills,
        skill,
        ws,
        _base: base,
    }
}

/// `toolhost call skills____runScript ARGS` in auto-run mode on the copy.
fn auto_run(layout: &Layout, args: &str) -> Value {
    toolhost(&[
        "--skills",
        path(&layout.skills),
        "--cwd",
        path(&layout.ws),
        "--mode",
        "auto-run",
        "call",
        "skills____runScript",
        args,
    ])
}

/// Whether commands can be confined here (auto-run and the demo run
/// scripts under `workspace_write`).
fn sandbox_available() -> bool {
    match tool_runtime::probe_kernel() {
        Ok(_) => true,
        Err(reason) => {
            test_support::cannot_check("a confined script run", reason);
            false
        }
    }
}

fn subject_call(subject: &str) -> String {
    json!({"skill": "commit-messages", "script": "scripts/check-subject.sh", "args": [subject]})
        .to_string()
}

#[test]
fn run_script_is_offered_with_required_intervention() {
    let examples = examples();
    let out = toolhost(&["--skills", path(&examples), "tools"]);
    let skills = out["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["identifier"] == "skills")
        .unwrap();
    let names: Vec<&str> = skills["api"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["activateSkill", "readReference", "runScript"]);
    let run = &skills["api"][2];
    assert_eq!(run["humanIntervention"], "required");
    assert_eq!(run["parameters"]["required"], json!(["skill", "script"]));

    let openai = toolhost(&["--skills", path(&examples), "tools", "--format", "openai"]);
    assert!(
        openai["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["function"]["name"] == "skills____runScript"),
        "{openai}"
    );
    // No --skills: no skills tool, so no runScript either.
    let bare = toolhost(&["tools"]);
    assert!(
        bare["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["identifier"] != "skills")
    );
}

#[test]
fn manual_asks_auto_run_runs_headless_blocks() {
    let examples = examples();
    let args = subject_call("toolhost: offer skill scripts");
    let decide = |mode: &str| {
        toolhost(&[
            "--skills",
            path(&examples),
            "--mode",
            mode,
            "check",
            "skills____runScript",
            &args,
        ])["decision"]
            .clone()
    };
    let manual = decide("manual");
    assert_eq!(manual["action"], "ask", "{manual}");
    assert_eq!(manual["policy"], "required");
    assert_eq!(manual["reason"]["level"], "api_static");
    assert_eq!(decide("allow-list")["action"], "ask");
    assert_eq!(decide("auto-run")["action"], "run");
    let headless = decide("headless");
    assert_eq!(headless["action"], "block", "{headless}");
    assert!(
        headless["reason"]["message"]
            .as_str()
            .unwrap()
            .contains("nobody is there in headless mode"),
        "{headless}"
    );
    // The headless audit is about runScript only.
    let read = toolhost(&[
        "--skills",
        path(&examples),
        "--mode",
        "headless",
        "check",
        "skills____readReference",
        r#"{"skill":"commit-messages","path":"references/examples.md"}"#,
    ]);
    assert_eq!(read["decision"]["action"], "run", "{read}");

    // Manual without --approve: decided, not run.
    let asked = toolhost(&[
        "--skills",
        path(&examples),
        "call",
        "skills____runScript",
        &args,
    ]);
    assert_eq!(asked["decision"]["action"], "ask");
    assert_eq!(asked["output"], Value::Null);
    // Headless `call`: the blocked output, nothing ran.
    let blocked = toolhost(&[
        "--skills",
        path(&examples),
        "--mode",
        "headless",
        "call",
        "skills____runScript",
        &args,
    ]);
    assert_eq!(
        blocked["output"]["error"]["code"], "blocked_by_security_privacy",
        "{blocked}"
    );
    assert!(blocked["output"]["state"].get("exitCode").is_none());
}

#[test]
fn auto_run_runs_the_example_script_in_a_copy_of_the_skill() {
    if !sandbox_available() {
        return;
    }
    let layout = layout();
    let subject = "tool-skills: open references once.";
    let out = auto_run(&layout, &subject_call(subject));
    let output = &out["output"];
    assert_eq!(output["success"], true, "{out}");
    let state = &output["state"];
    assert_eq!(state["exitCode"], 0, "{out}");
    assert_eq!(
        state["stdout"], "length: 34\nshape: ok\nends with a full stop: drop it\n",
        "{out}"
    );
    assert!(output["content"].as_str().unwrap().contains("shape: ok"));
    let provenance = &state["provenance"];
    assert_eq!(provenance["skill"], "commit-messages");
    assert_eq!(provenance["source"], "skills[0]");
    assert_eq!(provenance["script"], "scripts/check-subject.sh");
    let real_skill = fs::canonicalize(&layout.skill).unwrap();
    assert_eq!(
        provenance["file"],
        path(&real_skill.join("scripts/check-subject.sh"))
    );

    // An argument stays one word: the shell does not read it.
    let out = auto_run(&layout, &subject_call("fix: a; echo injected"));
    assert_eq!(
        out["output"]["state"]["stdout"], "length: 21\nshape: ok\n",
        "{out}"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn scripts_run_in_the_sandbox_of_run_command() {
    if !sandbox_available() {
        return;
    }
    let layout = layout();
    // A harmless script of the copy only: writes one line into its own
    // folder (the skill folder, outside the workspace).
    fs::write(
        layout.skill.join("scripts/note.sh"),
        "echo note > note.txt && echo written\n",
    )
    .unwrap();
    let note = layout.skill.join("note.txt");
    let run = |extra: &[&str]| {
        let args = json!({"skill": "commit-messages", "script": "note.sh"}).to_string();
        let mut all = vec!["--skills", path(&layout.skills), "--cwd", path(&layout.ws)];
        all.extend_from_slice(extra);
        all.extend_from_slice(&["call", "skills____runScript", &args, "--approve"]);
        toolhost(&all)["output"].clone()
    };
    let command = |extra: &[&str]| {
        let args = json!({"command": "true"}).to_string();
        let mut all = vec!["--cwd", path(&layout.ws)];
        all.extend_from_slice(extra);
        all.extend_from_slice(&["call", "local-system____runCommand", &args, "--approve"]);
        toolhost(&all)["output"]["state"]["sandbox"].clone()
    };

    // Allow-list mode asks for a script that is not on the list; approved
    // by a person (`--approve`), it runs as in manual mode: full access,
    // the same as runCommand.
    let output = run(&["--mode", "allow-list"]);
    assert_eq!(
        output["state"]["sandbox"]["policy"], "full_access",
        "{output}"
    );
    assert_eq!(command(&["--mode", "allow-list"])["policy"], "full_access");
    fs::remove_file(&note).unwrap();

    let mode = "auto-run";
    let output = run(&["--mode", mode]);
    let sandbox = &output["state"]["sandbox"];
    assert_eq!(sandbox["policy"], "workspace_write", "{output}");
    assert_eq!(sandbox["policy"], command(&["--mode", mode])["policy"]);
    assert_eq!(sandbox["network"], false);
    assert_ne!(output["state"]["exitCode"], 0, "{output}");
    assert!(
        !note.exists(),
        "{mode}: the script wrote outside the workspace"
    );
    let output = run(&["--mode", "auto-run", "--sandbox", "read-only"]);
    assert_eq!(output["state"]["sandbox"]["policy"], "read_only");
    assert!(!note.exists());

    // Manual mode (a person approved): full access, as for runCommand.
    let output = run(&["--mode", "manual"]);
    assert_eq!(output["state"]["sandbox"]["policy"], "full_access");
    assert_eq!(command(&["--mode", "manual"])["policy"], "full_access");
    assert_eq!(output["state"]["exitCode"], 0, "{output}");
    assert_eq!(fs::read_to_string(&note).unwrap(), "note\n");
}

#[test]
fn script_paths_leaving_scripts_are_refused() {
    let layout = layout();
    let outside = layout.skills.join("outside.sh");
    fs::write(&outside, "echo escaped\n").unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&outside, layout.skill.join("scripts/link-out.sh")).unwrap();
        std::os::unix::fs::symlink("../SKILL.md", layout.skill.join("scripts/link-up.sh")).unwrap();
    }
    let mut attempts = vec![
        "../SKILL.md",
        "scripts/../SKILL.md",
        "scripts/../../outside.sh",
        "scripts/..\\..\\outside.sh",
        "scripts/%2e%2e/%2e%2e/outside.sh",
        "/bin/sh",
        "scripts/\u{0}x.sh",
    ];
    if cfg!(unix) {
        attempts.extend(["scripts/link-out.sh", "link-up.sh"]);
    }
    for script in attempts {
        let args = json!({"skill": "commit-messages", "script": script}).to_string();
        let out = auto_run(&layout, &args);
        let output = &out["output"];
        assert_eq!(output["success"], false, "{script:?}: {out}");
        assert_eq!(
            output["error"]["code"], "path_not_allowed",
            "{script:?}: {out}"
        );
        assert!(output["state"].get("exitCode").is_none(), "{script:?} ran");
        assert!(!out.to_string().contains("escaped\\n"), "{script:?} ran");
    }
}

#[test]
fn the_demo_runs_the_example_script() {
    let out = toolhost(&["demo"]);
    let step = out["demo"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["step"] == "Skills: runScript")
        .unwrap();
    let result = &step["result"];
    assert_eq!(result["humanIntervention"], "required", "{step}");
    if !sandbox_available() {
        return;
    }
    assert_eq!(result["stdout"], "length: 28\nshape: ok\n", "{step}");
    assert_eq!(result["provenance"]["script"], "scripts/check-subject.sh");
}
