use std::collections::BTreeMap;

use crate::common::{code, computer, ctx, ok, write};
use async_trait::async_trait;
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};
use tool_core::{CancellationToken, ToolContext};
use tool_runtime::adapter::{serve, serve_foreign};
use tool_runtime::*;

fn all_requests() -> Vec<Request> {
    let mut env = BTreeMap::new();
    env.insert("MY_VAR".to_owned(), "1".to_owned());
    env.insert("camelCaseVar".to_owned(), "2".to_owned());
    vec![
        Request::ListFiles(ListFilesParams {
            path: "src".into(),
            show_hidden: Some(true),
            sort_by: Some(SortBy::Modified),
            limit: Some(5),
        }),
        Request::ReadFile(ReadFileParams {
            path: "a.txt".into(),
            start_line: Some(3),
            end_line: Some(9),
            full_content: Some(false),
        }),
        Request::ReadFile(ReadFileParams {
            path: "a.txt".into(),
            start_line: None,
            end_line: Some(9),
            full_content: None,
        }),
        Request::ReadFile(ReadFileParams::new("plain.txt")),
        Request::ReadFiles(ReadFilesParams {
            paths: vec!["a".into(), "b".into()],
        }),
        Request::WriteFile(WriteFileParams {
            path: "w.txt".into(),
            content: "x\n".into(),
        }),
        Request::EditFile(EditFileParams {
            path: "e.txt".into(),
            old_string: "a".into(),
            new_string: "b".into(),
            replace_all: Some(true),
            expected_hash: Some("fnv1a64:00".into()),
        }),
        Request::MoveFiles(MoveFilesParams {
            items: vec![MoveItem {
                old_path: "a".into(),
                new_path: "b".into(),
            }],
            overwrite: Some(true),
        }),
        Request::RenameFile(RenameFileParams {
            path: "a".into(),
            new_name: "b".into(),
        }),
        Request::SearchFiles(SearchFilesParams {
            keyword: "main".into(),
            directory: Some("src".into()),
            file_types: Some(vec!["rs".into()]),
            modified_after: Some("2025-01-01".into()),
            modified_before: Some("2026-01-01".into()),
            kind: Some(EntryKind::Directory),
            include_ignored: Some(true),
            include_hidden: Some(false),
            limit: Some(7),
        }),
        Request::GlobFiles(GlobFilesParams {
            pattern: "**/*.rs".into(),
            path: Some("src".into()),
            include_ignored: Some(true),
            include_hidden: Some(true),
            limit: Some(3),
        }),
        Request::GrepContent(GrepContentParams {
            pattern: "fn".into(),
            path: Some("src".into()),
            output_mode: Some(GrepOutputMode::FilesWithMatches),
            glob: Some("*.rs".into()),
            file_type: Some("rust".into()),
            case_insensitive: Some(true),
            line_numbers: Some(false),
            context_before: Some(1),
            context_after: Some(2),
            context: Some(3),
            multiline: Some(true),
            include_ignored: Some(false),
            include_hidden: Some(true),
            limit: Some(10),
        }),
        Request::RunCommand(RunCommandParams {
            command: "make".into(),
            description: Some("build".into()),
            cwd: Some("sub".into()),
            env: Some(env),
            timeout: Some(5000),
            run_in_background: Some(true),
        }),
        Request::GetCommandOutput(GetCommandOutputParams {
            shell_id: "sh-1".into(),
            filter: Some("err".into()),
        }),
        Request::KillCommand(KillCommandParams {
            shell_id: "sh-1".into(),
        }),
    ]
}

fn entry() -> FileEntry {
    FileEntry {
        name: "a.rs".into(),
        path: "src/a.rs".into(),
        is_directory: false,
        size: 3,
        modified_ms: Some(1),
    }
}

fn read_result() -> ReadFileResult {
    ReadFileResult {
        path: "a.txt".into(),
        content: "x\n".into(),
        start_line: 0,
        end_line: 1,
        total_lines: 1,
        total_characters: 2,
        total_bytes: 2,
        truncated: false,
        long_lines_cut: 0,
        encoding: "utf-8".into(),
        content_hash: "fnv1a64:1".into(),
    }
}

fn command_output() -> CommandOutput {
    CommandOutput {
        shell_id: "sh-1".into(),
        command: "ls".into(),
        running: false,
        exit_code: Some(0),
        signal: Some(9),
        signal_name: Some("SIGKILL".into()),
        stdout: "a\n".into(),
        stderr: "".into(),
        new_bytes: 2,
        dropped_bytes: 0,
        stdout_total_bytes: 2,
        stderr_total_bytes: 0,
        elapsed_ms: 5,
        background: true,
        filter: Some("a".into()),
        sandbox: None,
        protected_created: Vec::new(),
        network_blocked: Vec::new(),
    }
}

fn all_responses() -> Vec<Response> {
    let item_error = ItemError {
        code: "file_not_found".into(),
        message: "gone".into(),
    };
    vec![
        Response::ListFiles(ListFilesResult {
            path: "src".into(),
            entries: vec![entry()],
            total: 1,
            secrets_skipped: 0,
        }),
        Response::ReadFile(read_result()),
        Response::ReadFiles(ReadFilesResult {
            files: vec![
                ReadFilesItem {
                    path: "a.txt".into(),
                    file: Some(read_result()),
                    error: None,
                },
                ReadFilesItem {
                    path: "b".into(),
                    file: None,
                    error: Some(item_error.clone()),
                },
            ],
        }),
        Response::WriteFile(WriteFileResult {
            path: "w".into(),
            bytes_written: 3,
            created: true,
        }),
        Response::EditFile(EditFileResult {
            path: "e".into(),
            replacements: 2,
            diff: "@@".into(),
            lines_added: 1,
            lines_removed: 1,
            bytes_written: 9,
            content_hash: "h".into(),
        }),
        Response::MoveFiles(MoveFilesResult {
            results: vec![MoveOutcome {
                old_path: "a".into(),
                new_path: "b".into(),
                success: false,
                error: Some(item_error),
            }],
            moved: 0,
            failed: 1,
        }),
        Response::RenameFile(RenameFileResult {
            old_path: "a".into(),
            new_path: "b".into(),
        }),
        Response::SearchFiles(SearchFilesResult {
            keyword: "a".into(),
            directory: ".".into(),
            results: vec![entry()],
            total: 1,
            secrets_skipped: 0,
        }),
        Response::GlobFiles(GlobFilesResult {
            pattern: "*".into(),
            directory: ".".into(),
            files: vec!["a".into()],
            total: 1,
            secrets_skipped: 0,
        }),
        Response::GrepContent(GrepContentResult {
            pattern: "x".into(),
            path: ".".into(),
            output_mode: GrepOutputMode::Content,
            line_numbers: true,
            lines: vec![GrepLine {
                path: "a".into(),
                line_number: 1,
                text: "x".into(),
                context: true,
            }],
            files: vec!["a".into()],
            counts: vec![GrepCount {
                path: "a".into(),
                count: 1,
            }],
            total_matches: 1,
            total_files: 1,
            omitted: 0,
            secrets_skipped: 0,
        }),
        Response::RunCommand(command_output()),
        Response::GetCommandOutput(command_output()),
        Response::KillCommand(KillCommandResult {
            shell_id: "sh-1".into(),
            command: "ls".into(),
            was_running: true,
            killed: true,
            signal: Some("SIGTERM".into()),
            exit_code: Some(1),
        }),
    ]
}

/// Every object key at any depth, except inside `env`.
fn keys(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                out.push(k.clone());
                if k != "env" {
                    keys(v, out);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| keys(v, out)),
        _ => {}
    }
}

#[test]
fn every_request_round_trips_through_the_foreign_dialect() {
    let protocol = ForeignProtocol::snake_case_ipc();
    let requests = all_requests();
    let covered: std::collections::BTreeSet<_> = requests.iter().map(Request::operation).collect();
    assert_eq!(
        covered.len(),
        OPERATIONS.len(),
        "every operation is covered"
    );
    for request in requests {
        let call = protocol.encode_request(&request).unwrap();
        let mut foreign_keys = Vec::new();
        keys(&call.params, &mut foreign_keys);
        assert!(
            foreign_keys
                .iter()
                .all(|k| k.starts_with('-') || !k.chars().any(|c| c.is_ascii_uppercase())),
            "{}: camelCase leaked into {:?}",
            call.method,
            foreign_keys
        );
        assert_eq!(
            protocol.decode_request(&call).unwrap(),
            request,
            "{}",
            call.method
        );
    }
}

#[test]
fn every_response_round_trips_through_the_foreign_dialect() {
    let protocol = ForeignProtocol::snake_case_ipc();
    let responses = all_responses();
    assert_eq!(responses.len(), OPERATIONS.len());
    for response in responses {
        let foreign = protocol.encode_response(&response).unwrap();
        let mut foreign_keys = Vec::new();
        keys(&foreign, &mut foreign_keys);
        assert!(
            foreign_keys
                .iter()
                .all(|k| !k.chars().any(|c| c.is_ascii_uppercase())),
            "{foreign_keys:?}"
        );
        assert_eq!(
            protocol
                .decode_response(response.operation(), foreign)
                .unwrap(),
            response
        );
    }
}

#[test]
fn the_foreign_dialect_uses_its_own_names() {
    let protocol = ForeignProtocol::snake_case_ipc();
    let requests = all_requests();
    let read = protocol.encode_request(&requests[1]).unwrap();
    assert_eq!(read.method, "readLocalFile");
    assert_eq!(
        read.params,
        json!({"file_path": "a.txt", "loc": [3, 9], "full_content": false})
    );

    let edit = protocol.encode_request(&requests[6]).unwrap();
    assert_eq!(edit.method, "editLocalFile");
    assert_eq!(edit.params["old_string"], "a");
    assert_eq!(edit.params["new_string"], "b");
    assert_eq!(edit.params["replace_all"], true);

    let grep = protocol.encode_request(&requests[11]).unwrap();
    assert_eq!(grep.params["-i"], true);
    assert_eq!(grep.params["-n"], false);
    assert_eq!(grep.params["-B"], 1);
    assert_eq!(grep.params["-A"], 2);
    assert_eq!(grep.params["-C"], 3);
    assert_eq!(grep.params["head_limit"], 10);
    assert_eq!(grep.params["output_mode"], "files_with_matches");
    assert_eq!(grep.params["type"], "rust");

    let run = protocol.encode_request(&requests[12]).unwrap();
    assert_eq!(run.params["run_in_background"], true);
    assert_eq!(
        run.params["env"],
        json!({"MY_VAR": "1", "camelCaseVar": "2"}),
        "env keys are user data"
    );

    let search = protocol.encode_request(&requests[9]).unwrap();
    assert_eq!(search.method, "searchLocalFiles");
    assert_eq!(search.params["scope"], "src");

    let moves = protocol.encode_request(&requests[7]).unwrap();
    assert_eq!(
        moves.params["items"][0],
        json!({"old_path": "a", "new_path": "b"})
    );

    let out = protocol
        .encode_response(&Response::RunCommand(command_output()))
        .unwrap();
    assert_eq!(out["shell_id"], "sh-1");
    assert_eq!(out["exit_code"], 0);
    assert_eq!(out["signal_name"], "SIGKILL");
}

#[test]
fn a_foreign_error_envelope_becomes_a_remote_error() {
    let protocol = ForeignProtocol::snake_case_ipc();
    let err = protocol
        .decode_response(
            "readFile",
            json!({"success": false, "error": "disk on fire"}),
        )
        .unwrap_err();
    assert_eq!(err.code(), "foreign_error");
    assert_eq!(err.to_string(), "disk on fire");
    let unknown = protocol
        .decode_request(&ForeignCall {
            method: "formatDisk".into(),
            params: json!({}),
        })
        .unwrap_err();
    assert_eq!(unknown.code(), "unsupported_operation");
}

/// A foreign executor that is really a LocalComputer served in the foreign dialect.
struct ForeignDesktop {
    protocol: ForeignProtocol,
    computer: LocalComputer,
    ctx: ToolContext,
}

#[async_trait]
impl ForeignExecutor for ForeignDesktop {
    async fn invoke(&self, method: &str, params: Value) -> Result<Value> {
        let call = ForeignCall {
            method: method.into(),
            params,
        };
        Ok(serve_foreign(&self.protocol, &self.computer, &call, &self.ctx).await)
    }
}

#[tokio::test]
async fn a_foreign_computer_behaves_like_the_local_one() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.txt", "one\ntwo\nthree\n");
    let cx = ctx(dir.path());
    let foreign = ForeignComputer::new(
        ForeignProtocol::snake_case_ipc(),
        ForeignDesktop {
            protocol: ForeignProtocol::snake_case_ipc(),
            computer: computer(),
            ctx: cx.clone(),
        },
    );
    let p = ReadFileParams {
        start_line: Some(1),
        end_line: Some(2),
        ..ReadFileParams::new("a.txt")
    };
    let via_foreign = foreign.read_file(p.clone(), &cx).await;
    let direct = computer().read_file(p, &cx).await;
    assert_eq!(via_foreign, direct);
    assert_eq!(ok(&via_foreign)["content"], "two\n");

    let edit = EditFileParams {
        path: "a.txt".into(),
        old_string: "t".into(),
        new_string: "T".into(),
        replace_all: None,
        expected_hash: None,
    };
    let refused = foreign.edit_file(edit, &cx).await;
    assert_eq!(code(&refused), "edit_ambiguous");
    assert!(
        refused.content.contains("lines 2, 3"),
        "{}",
        refused.content
    );

    let ran = foreign
        .run_command(RunCommandParams::new("echo via-ipc"), &cx)
        .await;
    assert_eq!(ok(&ran)["stdout"], "via-ipc\n");
}

/// An in-memory transport: envelopes go over a channel to a served computer.
struct ChannelTransport(mpsc::Sender<(Value, oneshot::Sender<Value>)>);

#[async_trait]
impl Transport for ChannelTransport {
    async fn send(&self, message: Value) -> Result<Value> {
        let (tx, rx) = oneshot::channel();
        self.0
            .send((message, tx))
            .await
            .map_err(|e| Error::Transport {
                message: e.to_string(),
            })?;
        rx.await.map_err(|e| Error::Transport {
            message: e.to_string(),
        })
    }
}

fn sandbox(cx: ToolContext) -> ChannelTransport {
    let (tx, mut rx) = mpsc::channel::<(Value, oneshot::Sender<Value>)>(8);
    tokio::spawn(async move {
        let computer = computer();
        while let Some((message, reply)) = rx.recv().await {
            let _ = reply.send(serve(&computer, message, &cx).await);
        }
    });
    ChannelTransport(tx)
}

#[tokio::test]
async fn a_remote_computer_runs_every_kind_of_operation_over_a_transport() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/lib.rs", "fn alpha() {}\n");
    let cx = ctx(dir.path());
    let remote = RemoteComputer::new(sandbox(cx.clone()));

    let read = remote
        .read_file(ReadFileParams::new("src/lib.rs"), &cx)
        .await;
    assert_eq!(
        read,
        computer()
            .read_file(ReadFileParams::new("src/lib.rs"), &cx)
            .await
    );
    let grep = remote
        .grep_content(GrepContentParams::new("alpha"), &cx)
        .await;
    assert_eq!(ok(&grep)["files"][0], "src/lib.rs");
    let ran = remote
        .run_command(RunCommandParams::new("echo remote"), &cx)
        .await;
    assert_eq!(ok(&ran)["stdout"], "remote\n");

    let missing = remote.read_file(ReadFileParams::new("nope.rs"), &cx).await;
    assert_eq!(
        code(&missing),
        "file_not_found",
        "the remote's code survives the trip"
    );
    assert_eq!(missing.state.unwrap()["request"]["path"], "nope.rs");
}

struct Silent;

#[async_trait]
impl Transport for Silent {
    async fn send(&self, _: Value) -> Result<Value> {
        std::future::pending().await
    }
}

#[tokio::test]
async fn a_cancelled_call_stops_waiting_for_the_remote() {
    let token = CancellationToken::new();
    let cx = ToolContext::new().with_cancellation(token.clone());
    token.cancel();
    let out = RemoteComputer::new(Silent)
        .read_file(ReadFileParams::new("a"), &cx)
        .await;
    assert_eq!(code(&out), "cancelled");
}

#[tokio::test]
async fn a_transport_failure_is_a_failed_output_with_its_own_code() {
    let (tx, rx) = mpsc::channel(1);
    drop(rx);
    let out = RemoteComputer::new(ChannelTransport(tx))
        .list_files(
            ListFilesParams {
                path: ".".into(),
                show_hidden: None,
                sort_by: None,
                limit: None,
            },
            &ToolContext::new(),
        )
        .await;
    assert_eq!(code(&out), "transport_error");
    assert!(out.content.contains("retry"));
}
