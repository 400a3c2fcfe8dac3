//! `toolhost mcp task start|get|cancel`: a remote tool's task as data.
//!
//! `start` decides the call with the host's policy (as `mcp call` does),
//! then calls the remote tool declaring the tasks extension; when the
//! server makes the call a task, the command ends at once and prints the
//! task's handle (tool-mcp's `McpTaskHandle`, MAC'd, bound to the server,
//! the tool, the arguments and the decision that let the call run). Any
//! later toolhost process with the same servers and the same task key
//! reads it by handle (`get`, `get --wait`) or cancels it (`cancel`); an
//! edited or forged handle is refused (`mcp_task_handle`) before anything
//! is sent.
//!
//! The key: 64 hex digits in `TOOLHOST_MCP_TASK_KEY`, else the state
//! directory's `mcp-task-key` (32 random bytes, made 0600 on first use).

use std::path::Path;
use std::sync::Arc;

use clap::Subcommand;
use serde_json::{Value, json};
use tool_core::{ToolCall, durable::digest};
use tool_mcp::{McpManager, McpTaskHandle, McpTaskStart, McpTaskStatus, TaskKey, TaskKeys};

use crate::Failure;
use crate::host::{Host, PolicyOptions, decision_json};

/// The environment variable holding the task key (64 hex digits).
pub const TASK_KEY_VAR: &str = "TOOLHOST_MCP_TASK_KEY";

/// The state directory's task key file.
const TASK_KEY_FILE: &str = "mcp-task-key";

/// `toolhost mcp task …`
#[derive(Debug, Subcommand)]
pub enum TaskCommand {
    /// Decide, then start remote tool NAME as a task; ends at once:
    /// `{"decision", "handle"}` when the server made a task,
    /// `{"decision", "output"}` when it answered at once, `{"decision"}`
    /// for an `ask` without `--approve`, `{"decision", "output"}` (blocked)
    /// for a `block`.
    Start {
        /// The tool's wire name, e.g. `mcp1____slow_compute`.
        name: String,
        /// The raw arguments JSON (default `{}`).
        args: Option<String>,
        /// Start a call whose decision is `ask` (a human said yes).
        #[arg(long)]
        approve: bool,
    },
    /// The task of HANDLE now: `{"task": {"taskId", "status",
    /// "statusMessage"?, "pollIntervalMs"?, "ttlMs"?, "questions"?,
    /// "result"?, "error"?}, "output"?}` (`output`: a completed task's
    /// result as the tool's output).
    Get {
        /// The handle's JSON, or `@FILE` to read it from FILE.
        handle: String,
        /// Wait until the task ends (or waits on questions); each status
        /// goes to stderr as `{"task": {"taskId", "status", "statusMessage"?}}`.
        #[arg(long)]
        wait: bool,
    },
    /// Cancels the task of HANDLE: `{"task": {…}}` as `get` prints it,
    /// once the task has ended.
    Cancel {
        /// The handle's JSON, or `@FILE` to read it from FILE.
        handle: String,
    },
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    let text = text.trim();
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

fn key_from_hex(text: &str, whence: &str) -> Result<TaskKeys, Failure> {
    let secret = unhex(text)
        .filter(|s| s.len() >= tool_mcp::MIN_TASK_SECRET_LEN)
        .ok_or_else(|| Failure::Source(format!("{whence}: expected 64 hex digits or more")))?;
    let id = format!("k-{}", &digest(&Value::String(text.trim().to_owned()))[..8]);
    let key = TaskKey::new(id, secret).map_err(|e| Failure::Source(format!("{whence}: {e}")))?;
    Ok(TaskKeys::new(key))
}

/// The task key (see the module docs).
pub fn task_keys() -> Result<TaskKeys, Failure> {
    if let Ok(hex) = std::env::var(TASK_KEY_VAR) {
        return key_from_hex(&hex, TASK_KEY_VAR);
    }
    let dir = crate::pending::state_dir()?;
    let path = dir.join(TASK_KEY_FILE);
    if !path.exists() {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let mut secret = [0u8; 32];
        std::fs::File::open("/dev/urandom")
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut secret))
            .map_err(|e| Failure::Source(format!("cannot read random bytes: {e}")))?;
        let hex: String = secret.iter().map(|b| format!("{b:02x}")).collect();
        // create_new: two first runs at once do not overwrite each other.
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
        {
            Ok(mut file) => file
                .write_all(hex.as_bytes())
                .map_err(|e| Failure::Source(format!("{}: {e}", path.display())))?,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(Failure::Source(format!("{}: {e}", path.display()))),
        }
    }
    let text = std::fs::read_to_string(&path)
        .map_err(|e| Failure::Source(format!("{}: {e}", path.display())))?;
    key_from_hex(&text, &path.display().to_string())
}

fn read_handle(text: &str) -> Result<McpTaskHandle, Failure> {
    let text = match text.strip_prefix('@') {
        Some(file) => std::fs::read_to_string(file)
            .map_err(|e| Failure::Source(format!("task handle {file}: {e}")))?,
        None => text.to_owned(),
    };
    McpTaskHandle::from_json(&text).map_err(|e| refused(&e))
}

fn refused(error: &tool_mcp::Error) -> Failure {
    Failure::Source(format!("{}: {error}", error.code()))
}

/// `{"task": status, "output"?}`.
fn status_json(server: &str, tool: &str, status: &McpTaskStatus) -> Value {
    let mut out = json!({ "task": status });
    if let Some(result) = &status.result {
        let output = tool_mcp::map_call_result(server, tool, result.clone());
        out["output"] = serde_json::to_value(output).unwrap_or(Value::Null);
    }
    out
}

/// Runs a `toolhost mcp task …` command. `attach` loads the servers into
/// a host with `manager`'s options (tasks declared, task keys set).
pub async fn run(
    command: TaskCommand,
    cwd: &Path,
    policy: &PolicyOptions,
    manager: Arc<McpManager>,
) -> Result<Value, Failure> {
    let result = match command {
        TaskCommand::Start {
            name,
            args,
            approve,
        } => start(cwd, policy, &manager, &name, args.as_deref(), approve).await,
        TaskCommand::Get { handle, wait } => {
            let handle = read_handle(&handle)?;
            let status = if wait {
                manager
                    .wait_task(&handle, |status| {
                        crate::report(&json!({"task": {
                            "taskId": status.task_id,
                            "status": status.status,
                            "statusMessage": status.status_message,
                        }}));
                    })
                    .await
            } else {
                manager.task_status(&handle).await
            };
            status
                .map(|s| status_json(&handle.server, &handle.tool, &s))
                .map_err(|e| refused(&e))
        }
        TaskCommand::Cancel { handle } => {
            let handle = read_handle(&handle)?;
            manager
                .cancel_task(&handle)
                .await
                .map(|s| status_json(&handle.server, &handle.tool, &s))
                .map_err(|e| refused(&e))
        }
    };
    manager.shutdown().await;
    result
}

async fn start(
    cwd: &Path,
    policy: &PolicyOptions,
    manager: &Arc<McpManager>,
    name: &str,
    args: Option<&str>,
    approve: bool,
) -> Result<Value, Failure> {
    let mut host = Host::new(cwd, policy)?;
    let load = tool_mcp::McpProvider::new(Arc::clone(manager))
        .load_all()
        .await;
    let reports: Vec<Value> = load.reports.iter().map(super::report_json).collect();
    for problem in host.add_tools(load.tools) {
        crate::report(&json!({"warning": {"mcp": {"status": "not registered", "error": problem}}}));
    }
    let args = args.unwrap_or("");
    let decision = host.check(name, args);
    if let Some(blocked) = decision.blocked_output() {
        return Ok(
            json!({"decision": decision_json(&decision), "output": blocked, "mcp": reports}),
        );
    }
    if !(decision.is_run() || approve) {
        return Ok(json!({"decision": decision_json(&decision), "mcp": reports}));
    }
    let offered = host.offered();
    let prepared = match host.invoker().prepare(&offered, &ToolCall::new(name, args)) {
        Ok(prepared) => prepared,
        Err(refused) => {
            return Ok(
                json!({"decision": decision_json(&decision), "output": refused, "mcp": reports}),
            );
        }
    };
    if manager.config(&prepared.identifier).is_none() {
        return Err(Failure::Usage(format!(
            "`{name}` is not a tool of an MCP server given with --mcp-*"
        )));
    }
    let arguments = match prepared.arguments {
        Value::Object(map) => map,
        _ => serde_json::Map::new(),
    };
    let approval = json!({
        "decision": decision_json(&decision),
        "approvedBy": if decision.is_run() { "policy" } else { "--approve" },
        "policy": host.policy_fingerprint(),
    });
    let started = manager
        .start_task(&prepared.identifier, &prepared.api, arguments, approval)
        .await
        .map_err(|e| refused(&e))?;
    Ok(match started {
        McpTaskStart::Task(handle) => {
            json!({"decision": decision_json(&decision), "handle": handle, "mcp": reports})
        }
        McpTaskStart::Done(result) => {
            let output = tool_mcp::map_call_result(&prepared.identifier, &prepared.api, result);
            json!({"decision": decision_json(&decision), "output": output, "mcp": reports})
        }
        _ => json!({"decision": decision_json(&decision), "mcp": reports}),
    })
}
