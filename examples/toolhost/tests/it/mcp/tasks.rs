//! `toolhost mcp task start|get|cancel` with real processes: a task
//! started by one toolhost process against `toolhost mcp serve --http`
//! (the conformance fixtures' `slow_compute`, a task when the client
//! declares the extension) outlives that process and is read, waited for
//! and cancelled by handle from new ones; an edited handle, or one read
//! with another key, is refused before anything is sent.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Output, Stdio};

use serde_json::Value;

/// `toolhost mcp serve --http 127.0.0.1:0 --conformance-fixtures`, killed on drop.
struct Served(Child, #[allow(dead_code)] tempfile::TempDir);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve() -> (Served, String) {
    let cwd = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(["--cwd", &cwd.path().display().to_string()])
        .args([
            "--mode",
            "auto-run",
            "mcp",
            "serve",
            "--http",
            "127.0.0.1:0",
        ])
        .args(["--bare-names", "--conformance-fixtures"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let url = loop {
        let line = lines
            .next()
            .expect("toolhost mcp serve ended before listening")
            .unwrap();
        let value: Value = serde_json::from_str(&line).unwrap_or_default();
        if let Some(url) = value["listening"].as_str() {
            break url.to_owned();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    (Served(child, cwd), url)
}

const KEY: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
const OTHER_KEY: &str = "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210";

/// One toolhost process (a host that starts and ends) against `url`.
fn toolhost(url: &str, key: &str, args: &[&str]) -> Output {
    let cwd = tempfile::tempdir().unwrap();
    Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .env("TOOLHOST_MCP_TASK_KEY", key)
        .args(["--cwd", &cwd.path().display().to_string()])
        .args([
            "--allow-host",
            "127.0.0.1",
            "--mcp-http",
            url,
            "mcp",
            "task",
        ])
        .args(args)
        .output()
        .unwrap()
}

fn stdout_json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn started(url: &str, args: &str) -> Value {
    let out = stdout_json(&toolhost(
        url,
        KEY,
        &["start", "mcp1____slow_compute", args, "--approve"],
    ));
    let handle = out["handle"].clone();
    assert!(handle.is_object(), "no task handle: {out}");
    // Bound to the decision that let it run.
    assert_eq!(handle["approval"]["approvedBy"], "--approve", "{handle}");
    assert_eq!(handle["approval"]["decision"]["action"], "ask", "{handle}");
    handle
}

#[test]
fn a_task_outlives_the_host_that_started_it_and_is_resumed_by_handle() {
    let (_served, url) = serve();
    let handle = started(&url, r#"{"seconds": 2, "label": "resumed"}"#).to_string();
    // The process that started the task has ended; a new one looks.
    let now = stdout_json(&toolhost(&url, KEY, &["get", &handle]));
    assert_eq!(now["task"]["status"], "working", "{now}");
    assert!(now.get("output").is_none(), "{now}");
    // Another one waits for its end, statuses reported on stderr.
    let out = toolhost(&url, KEY, &["get", &handle, "--wait"]);
    let done = stdout_json(&out);
    assert_eq!(done["task"]["status"], "completed", "{done}");
    assert_eq!(done["output"]["success"], true, "{done}");
    assert_eq!(
        done["output"]["content"], "resumed: done after 2 s",
        "{done}"
    );
    let statuses = String::from_utf8_lossy(&out.stderr);
    assert!(statuses.contains(r#""status":"completed""#), "{statuses}");
    // A handle in a file reads the same.
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), &handle).unwrap();
    let from_file = format!("@{}", file.path().display());
    let again = stdout_json(&toolhost(&url, KEY, &["get", &from_file]));
    assert_eq!(again["task"]["status"], "completed", "{again}");
}

#[test]
fn a_task_is_cancelled_by_handle_from_another_process() {
    let (_served, url) = serve();
    let handle = started(&url, r#"{"seconds": 30}"#).to_string();
    let cancelled = stdout_json(&toolhost(&url, KEY, &["cancel", &handle]));
    assert_eq!(cancelled["task"]["status"], "cancelled", "{cancelled}");
    let later = stdout_json(&toolhost(&url, KEY, &["get", &handle]));
    assert_eq!(later["task"]["status"], "cancelled", "{later}");
}

#[test]
fn an_edited_or_foreign_handle_is_refused_before_anything_is_sent() {
    let (_served, url) = serve();
    let handle = started(&url, r#"{"seconds": 30}"#);
    let refused = |key: &str, handle: &Value, verb: &str| {
        let out = toolhost(&url, key, &[verb, &handle.to_string()]);
        assert_eq!(out.status.code(), Some(1), "{handle}");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(stderr.contains("mcp_task_handle"), "{stderr}");
        stderr
    };
    // Another task's id, another tool, a widened approval, a later expiry.
    for (field, value) in [
        (
            "taskId",
            Value::from("00000000-0000-0000-0000-000000000000"),
        ),
        ("tool", Value::from("greet")),
        ("approval", serde_json::json!({"approvedBy": "policy"})),
        ("expiresAtMs", Value::from(u64::MAX)),
    ] {
        let mut edited = handle.clone();
        edited[field] = value;
        for verb in ["get", "cancel"] {
            let stderr = refused(KEY, &edited, verb);
            assert!(stderr.contains("MAC does not match"), "{field}: {stderr}");
        }
    }
    // A host with another key does not hold the handle's key.
    let stderr = refused(OTHER_KEY, &handle, "get");
    assert!(stderr.contains("no key with id"), "{stderr}");
    // Not a handle at all.
    let stderr = refused(KEY, &Value::from("nonsense"), "get");
    assert!(stderr.contains("not an MCP task handle"), "{stderr}");
    // The untouched handle still works: the refusals cancelled nothing.
    let fine = stdout_json(&toolhost(&url, KEY, &["get", &handle.to_string()]));
    assert_eq!(fine["task"]["status"], "working", "{fine}");
    let _ = toolhost(&url, KEY, &["cancel", &handle.to_string()]);
}
