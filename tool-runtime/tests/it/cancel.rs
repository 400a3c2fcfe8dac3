//! A command whose call is cancelled, or whose call future is dropped at
//! its deadline, goes with its whole process tree.

#[path = "../../../.ci/process_tree.rs"]
mod process_tree;

use std::time::Duration;

use process_tree::{alive, gone, read_pids};

use crate::common::computer;
use tokio_util::sync::CancellationToken;
use tool_core::ToolContext;
use tool_runtime::{ComputerRuntime, RunCommandParams};

/// A shell that starts a child `sleep` and waits itself; both pids end up in `pids`.
const TREE: &str = "sleep 60 & child=$!; echo $$ $child > pids.tmp && mv pids.tmp pids; wait";

#[tokio::test]
async fn a_cancelled_command_and_its_children_are_killed() {
    let dir = tempfile::tempdir().unwrap();
    let c = computer();
    let token = CancellationToken::new();
    let ctx = ToolContext::new()
        .with_cwd(dir.path())
        .with_cancellation(token.clone());
    let run = tokio::spawn({
        let c = c.clone();
        async move { c.run_command(RunCommandParams::new(TREE), &ctx).await }
    });
    let pids = read_pids(dir.path()).await;
    assert!(pids.iter().all(|p| alive(*p)), "{pids:?} not running");
    token.cancel();
    let out = tokio::time::timeout(Duration::from_secs(10), run)
        .await
        .unwrap()
        .unwrap();
    assert!(
        gone(&pids).await,
        "{pids:?} still running after cancel: {}",
        out.content
    );
}

#[tokio::test]
async fn a_call_dropped_at_its_deadline_takes_its_command_tree_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let c = computer();
    let ctx = ToolContext::new().with_cwd(dir.path());
    let call = c.run_command(RunCommandParams::new(TREE), &ctx);
    // The pipeline's deadline drops the call's future.
    let _ = tokio::time::timeout(Duration::from_millis(600), call).await;
    let pids = read_pids(dir.path()).await;
    assert!(gone(&pids).await, "{pids:?} still running after the drop");
}
