//! `toolhost … | head`: a reader that goes away, on stdout or on stderr,
//! ends the command quietly with its usual exit code, never a panic (exit
//! 101 and a "failed printing" message).

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};

fn toolhost() -> Command {
    Command::new(env!("CARGO_BIN_EXE_toolhost"))
}

/// A narrow-protocol document with `n` operations: `tools` with it prints
/// far more than a pipe holds, so the writer is still writing when a
/// reader that took one line goes away.
fn big_document(dir: &std::path::Path, n: usize) -> std::path::PathBuf {
    let paths: serde_json::Map<String, serde_json::Value> = (0..n)
        .map(|i| {
            let op = serde_json::json!({"get": {
                "operationId": format!("item{i}"),
                "description": format!("Reads item number {i} of the collection."),
            }});
            (format!("/items/{i}"), op)
        })
        .collect();
    let doc =
        serde_json::json!({"server": "http://127.0.0.1:9", "description": "Big.", "paths": paths});
    let path = dir.join("big.json");
    std::fs::write(&path, doc.to_string()).unwrap();
    path
}

#[test]
fn a_reader_that_takes_one_line_and_leaves_ends_toolhost_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let doc = big_document(dir.path(), 2000);
    let mut child = toolhost()
        .args(["tools", "--openapi"])
        .arg(&doc)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert_eq!(first, "{\n", "toolhost started its document");
    drop(stdout); // as `head -1` does once it has its line
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert_eq!(stderr, "", "nothing to say about a reader that left");
}

#[test]
fn the_whole_document_is_larger_than_a_pipe_holds() {
    // Guards the test above: if the document fitted in the pipe's buffer,
    // toolhost would finish writing before the reader left.
    let dir = tempfile::tempdir().unwrap();
    let doc = big_document(dir.path(), 2000);
    let out = toolhost()
        .args(["tools", "--openapi"])
        .arg(&doc)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(out.stdout.len() > 1 << 18, "{} bytes", out.stdout.len());
}

/// Runs toolhost with stderr a pipe whose reader is already gone; returns
/// its exit code.
fn with_stderr_closed(args: &[&str]) -> Option<i32> {
    let mut child = toolhost()
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    child.wait().unwrap().code()
}

#[test]
fn errors_to_a_closed_stderr_keep_their_exit_codes() {
    // A usage error exits 2, a source that does not load exits 1, even when
    // nobody reads the error (`toolhost … 2>&1 | head -c 0`).
    assert_eq!(with_stderr_closed(&["--mode", "bogus", "tools"]), Some(2));
    let missing = tempfile::tempdir().unwrap().path().join("missing.json");
    let missing = missing.to_str().unwrap();
    assert_eq!(
        with_stderr_closed(&["tools", "--openapi", missing]),
        Some(1)
    );
}
