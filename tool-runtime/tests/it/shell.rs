use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::common::{code, computer, ctx, ok, write};
use serde_json::Value;
use tool_core::{CancellationToken, ToolContext};
use tool_runtime::{
    ComputerRuntime, GetCommandOutputParams, KillCommandParams, LocalComputer, LocalConfig,
    RunCommandParams,
};

fn run(command: &str) -> RunCommandParams {
    RunCommandParams::new(command)
}

fn background(command: &str) -> RunCommandParams {
    RunCommandParams {
        run_in_background: Some(true),
        ..run(command)
    }
}

/// Whether `pid` is a live (non-zombie) process.
fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => false,
        Ok(stat) => {
            let rest = &stat[stat.rfind(')').unwrap() + 1..];
            let state = rest.split_whitespace().next().unwrap();
            state != "Z" && state != "X"
        }
    }
}

async fn output(c: &LocalComputer, cx: &ToolContext, id: &str) -> Value {
    let out = c
        .get_command_output(
            GetCommandOutputParams {
                shell_id: id.into(),
                filter: None,
            },
            cx,
        )
        .await;
    ok(&out).clone()
}

/// Polls until the command finishes, returning every chunk of stdout read.
async fn until_finished(c: &LocalComputer, cx: &ToolContext, id: &str) -> (Vec<String>, Value) {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut chunks = Vec::new();
    loop {
        let s = output(c, cx, id).await;
        chunks.push(s["stdout"].as_str().unwrap().to_owned());
        if s["running"] == false {
            return (chunks, s);
        }
        assert!(Instant::now() < deadline, "command did not finish");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn first_line_pid(c: &LocalComputer, cx: &ToolContext, id: &str) -> i32 {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut seen = String::new();
    loop {
        seen.push_str(output(c, cx, id).await["stdout"].as_str().unwrap());
        if let Some(line) = seen.lines().next().filter(|_| seen.contains('\n')) {
            return line.trim().parse().unwrap();
        }
        assert!(Instant::now() < deadline, "no pid printed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_quick_command_returns_output_and_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let c = computer();
    let out = c
        .run_command(run("echo hello; echo oops >&2; exit 3"), &ctx(dir.path()))
        .await;
    let s = ok(&out);
    assert_eq!(s["running"], false);
    assert_eq!(s["exitCode"], 3);
    assert_eq!(s["stdout"], "hello\n");
    assert_eq!(s["stderr"], "oops\n");
    assert!(s["shellId"].as_str().unwrap().starts_with("sh-"));
    assert!(
        out.content.contains("exited with code 3"),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn env_and_working_directory_are_applied() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "sub/marker", "");
    let mut env = BTreeMap::new();
    env.insert("GREETING".to_owned(), "bonjour".to_owned());
    let p = RunCommandParams {
        cwd: Some("sub".into()),
        env: Some(env),
        ..run("echo $GREETING; ls")
    };
    let out = computer().run_command(p, &ctx(dir.path())).await;
    assert_eq!(ok(&out)["stdout"], "bonjour\nmarker\n");
    let missing = computer()
        .run_command(
            RunCommandParams {
                cwd: Some("nope".into()),
                ..run("true")
            },
            &ctx(dir.path()),
        )
        .await;
    assert_eq!(code(&missing), "file_not_found");
}

#[tokio::test]
async fn a_command_printing_100_mb_keeps_bounded_head_and_tail() {
    let dir = tempfile::tempdir().unwrap();
    let out = computer()
        .run_command(
            run("head -c 100000000 /dev/zero | tr '\\0' a; echo; echo THE-END"),
            &ctx(dir.path()),
        )
        .await;
    let s = ok(&out);
    assert_eq!(s["exitCode"], 0);
    assert_eq!(s["stdoutTotalBytes"], 100_000_000u64 + 9);
    let stdout = s["stdout"].as_str().unwrap();
    assert!(stdout.len() < 200 * 1024, "kept {} bytes", stdout.len());
    assert!(stdout.starts_with("aaaa"));
    assert!(stdout.trim_end().ends_with("THE-END"));
    assert!(s["droppedBytes"].as_u64().unwrap() > 99_000_000);
    assert!(stdout.contains("bytes not kept"));
}

#[tokio::test]
async fn a_command_outliving_its_window_keeps_running_and_is_read_incrementally() {
    let dir = tempfile::tempdir().unwrap();
    let c = computer();
    let cx = ctx(dir.path());
    let p = RunCommandParams {
        timeout: Some(1000),
        ..run("echo start; sleep 1.5; echo middle; sleep 0.5; echo end")
    };
    let out = c.run_command(p, &cx).await;
    let s = ok(&out);
    assert_eq!(s["running"], true);
    assert_eq!(s["background"], true);
    assert_eq!(s["stdout"], "start\n");
    assert!(out.content.contains("getCommandOutput"), "{}", out.content);
    let id = s["shellId"].as_str().unwrap().to_owned();

    let (chunks, last) = until_finished(&c, &cx, &id).await;
    let all: String = chunks.concat();
    assert_eq!(all, "middle\nend\n", "each byte is returned exactly once");
    assert_eq!(last["exitCode"], 0);
    let again = output(&c, &cx, &id).await;
    assert_eq!(again["stdout"], "");
    assert_eq!(again["newBytes"], 0);
}

#[tokio::test]
async fn run_in_background_returns_at_once_and_output_can_be_filtered() {
    let dir = tempfile::tempdir().unwrap();
    let c = computer();
    let cx = ctx(dir.path());
    let out = c
        .run_command(
            background("sleep 0.3; echo 'ok 1'; echo 'error: boom'; echo 'ok 2'"),
            &cx,
        )
        .await;
    let s = ok(&out);
    assert_eq!(s["running"], true);
    let id = s["shellId"].as_str().unwrap().to_owned();
    tokio::time::sleep(Duration::from_millis(100)).await;
    // The filtered output of every read, until the command has ended (a
    // read may come after the lines and before the exit, on a busy
    // machine).
    let mut filtered = String::new();
    loop {
        let f = c
            .get_command_output(
                GetCommandOutputParams {
                    shell_id: id.clone(),
                    filter: Some("^error".into()),
                },
                &cx,
            )
            .await;
        let f = ok(&f);
        filtered.push_str(f["stdout"].as_str().unwrap());
        if f["running"] == false {
            assert_eq!(f["filter"], "^error");
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(filtered, "error: boom\n");
    let bad = c
        .get_command_output(
            GetCommandOutputParams {
                shell_id: id,
                filter: Some("(".into()),
            },
            &cx,
        )
        .await;
    assert_eq!(code(&bad), "invalid_argument");
}

#[tokio::test]
async fn killing_a_command_kills_its_whole_process_tree() {
    let dir = tempfile::tempdir().unwrap();
    let c = computer();
    let cx = ctx(dir.path());
    let out = c
        .run_command(background("sleep 300 & echo $!; sleep 300"), &cx)
        .await;
    let id = ok(&out)["shellId"].as_str().unwrap().to_owned();
    let child = first_line_pid(&c, &cx, &id).await;
    assert!(alive(child));

    let killed = c
        .kill_command(
            KillCommandParams {
                shell_id: id.clone(),
            },
            &cx,
        )
        .await;
    let s = ok(&killed);
    assert_eq!(s["wasRunning"], true);
    assert_eq!(s["killed"], true);
    assert!(
        killed.content.contains("process group"),
        "{}",
        killed.content
    );
    assert!(!alive(child), "the background child survived");

    let after = output(&c, &cx, &id).await;
    assert_eq!(after["running"], false);
    assert_eq!(after["signalName"], "SIGTERM");
}

#[tokio::test]
async fn a_child_ignoring_sigterm_is_killed_with_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = LocalConfig::default();
    config.shell.kill_grace = Duration::from_millis(300);
    let c = LocalComputer::new(config);
    let cx = ctx(dir.path());
    let out = c
        .run_command(
            background("sh -c 'trap \"\" TERM; echo $$; while :; do sleep 0.1; done'"),
            &cx,
        )
        .await;
    let id = ok(&out)["shellId"].as_str().unwrap().to_owned();
    let stubborn = first_line_pid(&c, &cx, &id).await;
    let killed = c
        .kill_command(KillCommandParams { shell_id: id }, &cx)
        .await;
    assert_eq!(ok(&killed)["signal"], "SIGKILL");
    assert_eq!(ok(&killed)["killed"], true);
    assert!(!alive(stubborn));
}

#[tokio::test]
async fn a_command_killed_by_a_signal_is_reported_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let out = computer()
        .run_command(run("kill -KILL $$"), &ctx(dir.path()))
        .await;
    let s = ok(&out);
    assert_eq!(s["signal"], 9);
    assert_eq!(s["signalName"], "SIGKILL");
    assert!(
        s.get("exitCode").is_none(),
        "a signal is not an exit code: {s}"
    );
    assert!(out.content.contains("killed by SIGKILL"), "{}", out.content);
}

#[tokio::test]
async fn killing_a_finished_command_reports_its_exit() {
    let dir = tempfile::tempdir().unwrap();
    let c = computer();
    let cx = ctx(dir.path());
    let out = c.run_command(run("exit 0"), &cx).await;
    let id = ok(&out)["shellId"].as_str().unwrap().to_owned();
    let killed = c
        .kill_command(KillCommandParams { shell_id: id }, &cx)
        .await;
    assert_eq!(ok(&killed)["wasRunning"], false);
    assert!(killed.content.contains("already finished with exit code 0"));
    let unknown = c
        .kill_command(
            KillCommandParams {
                shell_id: "sh-999".into(),
            },
            &cx,
        )
        .await;
    assert_eq!(code(&unknown), "shell_not_found");
}

#[tokio::test]
async fn cancelling_the_call_stops_the_wait_and_kills_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let c = computer();
    let token = CancellationToken::new();
    let cx = ToolContext::new()
        .with_cwd(dir.path())
        .with_cancellation(token.clone());
    let cancel = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        token.cancel();
    });
    let out = c
        .run_command(
            RunCommandParams {
                timeout: Some(60_000),
                ..run("echo begun; sleep 300")
            },
            &cx,
        )
        .await;
    cancel.await.unwrap();
    let s = ok(&out);
    assert_eq!(s["stdout"], "begun\n");
    let id = s["shellId"].as_str().unwrap().to_owned();
    let plain = ctx(dir.path());
    let output = c
        .get_command_output(
            tool_runtime::GetCommandOutputParams {
                shell_id: id,
                filter: None,
            },
            &plain,
        )
        .await;
    assert_eq!(ok(&output)["running"], false, "{}", output.content);
}

#[tokio::test]
async fn the_number_of_running_commands_is_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = LocalConfig::default();
    config.shell.max_running = 2;
    let c = LocalComputer::new(config);
    let cx = ctx(dir.path());
    let a = c.run_command(background("sleep 300"), &cx).await;
    let b = c.run_command(background("sleep 300"), &cx).await;
    let third = c.run_command(background("sleep 300"), &cx).await;
    assert_eq!(code(&third), "too_many_shells");
    assert!(third.content.contains("killCommand"));
    for out in [a, b] {
        let id = ok(&out)["shellId"].as_str().unwrap().to_owned();
        ok(&c
            .kill_command(KillCommandParams { shell_id: id }, &cx)
            .await);
    }
    assert!(c.run_command(run("true"), &cx).await.success);
}

#[tokio::test]
async fn finished_commands_are_forgotten_after_their_time_to_live() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = LocalConfig::default();
    config.shell.finished_ttl = Duration::from_millis(100);
    let c = LocalComputer::new(config);
    let cx = ctx(dir.path());
    let out = c.run_command(run("true"), &cx).await;
    let id = ok(&out)["shellId"].as_str().unwrap().to_owned();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let gone = c
        .get_command_output(
            GetCommandOutputParams {
                shell_id: id,
                filter: None,
            },
            &cx,
        )
        .await;
    assert_eq!(code(&gone), "shell_not_found");
}

#[tokio::test]
async fn dropping_the_computer_kills_commands_still_running() {
    let dir = tempfile::tempdir().unwrap();
    let c = computer();
    let cx = ctx(dir.path());
    let out = c
        .run_command(background("sleep 300 & echo $!; sleep 300"), &cx)
        .await;
    let id = ok(&out)["shellId"].as_str().unwrap().to_owned();
    let child = first_line_pid(&c, &cx, &id).await;
    drop(c);
    let deadline = Instant::now() + Duration::from_secs(5);
    while alive(child) {
        assert!(Instant::now() < deadline, "child outlived the computer");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
