//! Durable approvals from the command line: `call --pending FILE` writes
//! the pending turn instead of asking, `resume FILE --answer …` runs it in
//! a new process, `pending FILE` prints it for a person.
//!
//! # State
//!
//! Unless told otherwise (`--key-file`, `--ledger-redis URL`), toolhost
//! keeps its MAC key and its use-once ledger under a state directory of
//! its own, created with mode 0700 (files 0600):
//!
//! - `$TOOLHOST_STATE_DIR` when set, else `$XDG_STATE_HOME/toolhost`, else
//!   `$HOME/.local/state/toolhost`;
//! - `key`: 32 random bytes (hex), made on first use;
//! - `ledger/`: one file per settled item, made with `O_CREAT|O_EXCL` (the
//!   atomic claim), rewritten to `started` just before the call starts;
//! - `remembered.json`: the "always" answers, each scoped to the workspace
//!   (the `--cwd` directory).
//!
//! So a pending turn resumed once is refused in any later process, and a
//! pending file edited by hand (an argument, the decision) is refused
//! whole. Resuming with other flags (another `--policy`, `--mode`,
//! `--sandbox`, other tools) fails closed with `approval_stale`.
//!
//! # With `--session FILE`
//!
//! Both `call --pending` and `resume` load the session and save it after:
//! calls are decided by the taint gate over the policy engine, a call that
//! runs (at once, or on resume) enters the session's ledger and counts
//! against its quotas, the session's pins are checked. The session file's
//! path joins the turn's scope (`session`), and its settings the policy
//! fingerprint, so a turn resumed with another session (or none), or after
//! the settings changed, fails closed with `approval_stale`. The "always"
//! answers are kept in the session file instead of `remembered.json`,
//! scoped to the workspace and the session. A session rule the person was
//! not shown blocks on resume (see [`crate::resume_gate`]).

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use async_trait::async_trait;
use clap::ValueEnum;
use serde_json::{Value, json};
use tool_core::durable::{
    Claim, Durable, KeyRing, MacKey, Pending, RememberedAnswers, Reply, Scope, UseOnceLedger,
    UseState, digest,
};
use tool_core::{Invoker, ToolCall};

use crate::Failure;
use crate::host::{Host, PolicyOptions};
use crate::resume_gate::{ResumeGate, held_by_session};
use crate::session::SessionFile;

/// The environment variable naming toolhost's state directory.
pub const STATE_DIR_ENV: &str = "TOOLHOST_STATE_DIR";

/// `resume --answer`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AnswerArg {
    /// Run the call.
    Approve,
    /// Do not run it.
    Decline,
}

/// Where the key and the ledger come from.
#[derive(Debug, Clone, Default)]
pub struct StateOptions {
    /// `--key-file K`: the key (hex, at least 32 bytes) instead of the state dir's.
    pub key_file: Option<PathBuf>,
    /// `--ledger-redis URL`: a Redis use-once ledger instead of the state dir's.
    pub ledger_redis: Option<String>,
}

/// The state directory (see the module docs), created 0700.
pub fn state_dir() -> Result<PathBuf, Failure> {
    let dir = state_dir_path()?;
    private_dir(&dir)?;
    Ok(dir)
}

/// Where the state directory is (see the module docs), not created.
pub fn state_dir_path() -> Result<PathBuf, Failure> {
    Ok(match std::env::var_os(STATE_DIR_ENV) {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => match std::env::var_os("XDG_STATE_HOME") {
            Some(base) if !base.is_empty() => PathBuf::from(base).join("toolhost"),
            _ => match std::env::var_os("HOME") {
                Some(home) => PathBuf::from(home).join(".local/state/toolhost"),
                None => {
                    return Err(Failure::Usage(format!(
                        "no state directory: set {STATE_DIR_ENV} (or HOME)"
                    )));
                }
            },
        },
    })
}

/// Creates `dir` with mode 0700, or checks an existing one is not open to others.
pub fn private_dir(dir: &Path) -> Result<(), Failure> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| Failure::Source(format!("state directory {}: {e}", dir.display())))?;
    let mode = std::fs::metadata(dir)
        .map_err(|e| Failure::Source(format!("state directory {}: {e}", dir.display())))?
        .permissions()
        .mode();
    if mode & 0o077 != 0 {
        return Err(Failure::Source(format!(
            "state directory {} is open to others (mode {:o}); make it 0700",
            dir.display(),
            mode & 0o777
        )));
    }
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
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

/// Reads `path` as a hex key (the id is the first 8 hex digits of its digest).
fn read_key(path: &Path) -> Result<MacKey, Failure> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure::Source(format!("key file {}: {e}", path.display())))?;
    let secret = unhex(&text).ok_or_else(|| {
        Failure::Source(format!(
            "key file {}: not hex (64 hex digits or more)",
            path.display()
        ))
    })?;
    let id = format!("k-{}", &digest(&Value::String(text.trim().to_owned()))[..8]);
    MacKey::new(id, secret)
        .map_err(|e| Failure::Source(format!("key file {}: {e}", path.display())))
}

/// The state dir's key, made (32 random bytes, mode 0600) on first use.
fn own_key(dir: &Path) -> Result<MacKey, Failure> {
    let path = dir.join("key");
    if !path.exists() {
        let mut secret = [0u8; 32];
        std::fs::File::open("/dev/urandom")
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut secret))
            .map_err(|e| Failure::Source(format!("cannot read random bytes: {e}")))?;
        // create_new: two first runs at once do not overwrite each other.
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
        {
            Ok(mut file) => file
                .write_all(hex(&secret).as_bytes())
                .map_err(|e| Failure::Source(format!("key file {}: {e}", path.display())))?,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(Failure::Source(format!("key file {}: {e}", path.display()))),
        }
    }
    read_key(&path)
}

/// A use-once ledger of files: claiming is creating a file that must not
/// exist (`O_CREAT|O_EXCL`, atomic across processes on one machine).
#[derive(Debug)]
struct FileLedger {
    dir: PathBuf,
}

impl FileLedger {
    fn path(&self, key: &str) -> PathBuf {
        // Keys hold `:`; a digest gives a plain, fixed-length file name.
        self.dir.join(&digest(&Value::String(key.to_owned()))[..40])
    }
}

fn ledger_error(path: &Path, e: std::io::Error) -> tool_core::Error {
    tool_core::Error::Ledger {
        message: format!("{}: {e}", path.display()),
    }
}

#[async_trait]
impl UseOnceLedger for FileLedger {
    async fn claim(&self, key: &str, _expires_at: SystemTime) -> Result<Claim, tool_core::Error> {
        let path = self.path(key);
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
        {
            Ok(mut file) => {
                file.write_all(b"claimed")
                    .map_err(|e| ledger_error(&path, e))?;
                Ok(Claim::First)
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let state = std::fs::read_to_string(&path).unwrap_or_default();
                Ok(Claim::Taken(if state == "started" {
                    UseState::Started
                } else {
                    UseState::Claimed
                }))
            }
            Err(e) => Err(ledger_error(&path, e)),
        }
    }

    async fn mark_started(&self, key: &str) -> Result<(), tool_core::Error> {
        let path = self.path(key);
        let temp = path.with_extension("tmp");
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&temp)
            .and_then(|mut f| f.write_all(b"started"))
            .and_then(|()| std::fs::rename(&temp, &path))
            .map_err(|e| ledger_error(&path, e))
    }
}

/// The durable settings of this command: key, ledger, remembered answers
/// (and where to save them), the policy fingerprint of the host.
struct Settings {
    durable: Durable,
    /// `None` with a session: its file keeps the answers.
    remembered_file: Option<PathBuf>,
}

/// `host` gives the policy fingerprint items are bound to (`None` where
/// nothing is decided, e.g. `pending FILE`).
async fn settings(
    host: Option<&Host>,
    policy: &PolicyOptions,
    state: &StateOptions,
    session: Option<&SessionFile>,
) -> Result<Settings, Failure> {
    let dir = state_dir()?;
    let key = match &state.key_file {
        Some(path) => read_key(path)?,
        None => own_key(&dir)?,
    };
    let ledger: Arc<dyn UseOnceLedger> = match &state.ledger_redis {
        Some(url) => Arc::new(
            tool_dispatch::RedisLedger::connect(url)
                .await
                .map_err(|e| Failure::Source(format!("--ledger-redis: {e}")))?,
        ),
        None => {
            let ledger_dir = dir.join("ledger");
            private_dir(&ledger_dir)?;
            Arc::new(FileLedger { dir: ledger_dir })
        }
    };
    let (remembered, remembered_file, scope) = match session {
        Some(file) => (
            Arc::clone(file.remembered()),
            None,
            vec![Scope::WORKSPACE, Scope::SESSION],
        ),
        None => {
            let path = dir.join("remembered.json");
            let remembered = match std::fs::read_to_string(&path) {
                Ok(text) => RememberedAnswers::from_json(&text)
                    .map_err(|e| Failure::Source(format!("{}: {e}", path.display())))?,
                Err(_) => RememberedAnswers::new(),
            };
            (Arc::new(remembered), Some(path), vec![Scope::WORKSPACE])
        }
    };
    let mut durable = Durable::new(KeyRing::new(key))
        .with_ledger(ledger)
        .with_remembered(remembered)
        .with_remember_scope(scope);
    if let Some(host) = host {
        durable = durable.with_policy_fingerprint(policy_fingerprint(host, policy, session));
    }
    Ok(Settings {
        durable,
        remembered_file,
    })
}

/// A digest of everything that decides: the policy engine's own
/// fingerprint (its rules, mode, confinement and tables, see
/// `PolicyEngine::fingerprint`, made once when the engine is built) and
/// the sandbox flags (which also shape the computer the calls run on).
/// With a session, its settings too (capabilities, trifecta, quotas,
/// pins, redaction decide as well).
fn policy_fingerprint(
    host: &Host,
    policy: &PolicyOptions,
    session: Option<&SessionFile>,
) -> String {
    let mut parts = json!({
        "engine": host.policy_fingerprint(),
        "sandbox": format!("{:?}", policy.sandbox),
    });
    if let Some(file) = session {
        parts["session"] = serde_json::to_value(file.settings()).unwrap_or_default();
    }
    digest(&parts)
}

fn scope_of(cwd: &Path, session: Option<&SessionFile>) -> Scope {
    let scope = Scope::new().with(Scope::WORKSPACE, cwd.display().to_string());
    match session {
        Some(file) => scope.with(Scope::SESSION, file.id()),
        None => scope,
    }
}

/// Writes `text` to `path` with mode 0600.
pub fn write_private(path: &Path, text: &str) -> Result<(), Failure> {
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|e| Failure::Source(format!("{}: {e}", path.display())))
}

/// `call NAME ARGS --pending FILE`: decides and runs what may run; an ask
/// is written to FILE as a pending turn (`output: null`). With a session
/// (already given to `host`), the call is decided by the taint gate and a
/// call that runs enters the ledger; a session rule's ask is never
/// covered by a remembered "always".
#[allow(clippy::too_many_arguments)]
pub async fn call(
    host: Host,
    policy: &PolicyOptions,
    state: &StateOptions,
    cwd: &Path,
    name: &str,
    args: &str,
    file: &Path,
    session: Option<&SessionFile>,
) -> Result<Value, Failure> {
    let mut settings = settings(Some(&host), policy, state, session).await?;
    let decision = host.check(name, args);
    let ctx = host
        .context()
        .clone()
        .with_extension(scope_of(cwd, session));
    let offered = host.offered();
    let invoker = host.invoker().clone();
    let call = ToolCall::new(name, args);
    if session.is_some() && session_holds(&invoker, &offered, &call, &ctx).await {
        settings.durable = settings
            .durable
            .with_remembered(Arc::new(RememberedAnswers::new()));
    }
    let turn = invoker
        .invoke_turn(&settings.durable, &offered, &[call], &ctx)
        .await;
    let written = match &turn.pending {
        Some(pending) => {
            let text = serde_json::to_string_pretty(pending)
                .map_err(|e| Failure::Source(format!("cannot write the pending turn: {e}")))?;
            write_private(file, &text)?;
            Some(file.display().to_string())
        }
        None => None,
    };
    Ok(json!({
        "decision": crate::host::decision_json(&decision),
        "output": turn.outputs.first().cloned().flatten(),
        "pending": written,
    }))
}

/// Whether the session's gate holds `call` back by a session rule (so no
/// remembered "always" may answer it). Deciding twice is harmless: the
/// taint gate counts quotas when a call completes, not when it decides.
async fn session_holds(
    invoker: &Invoker,
    offered: &tool_core::OfferedTools,
    call: &ToolCall,
    ctx: &tool_core::ToolContext,
) -> bool {
    let (Some(gate), Ok(prepared)) = (invoker.gate(), invoker.prepare(offered, call)) else {
        return false;
    };
    gate.decide(std::slice::from_ref(&prepared), offered, ctx)
        .await
        .first()
        .is_some_and(held_by_session)
}

fn load(file: &Path) -> Result<Pending, Failure> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| Failure::Source(format!("{}: {e}", file.display())))?;
    Pending::from_json(&text).map_err(|e| Failure::Source(format!("{}: {e}", file.display())))
}

/// `resume FILE --answer approve|decline [--always]`: the person's answer,
/// signed here, and the resumed turn. With a session (already given to
/// `host`), the resumed calls are re-decided by the taint gate (a session
/// rule the person was not shown blocks), their outputs enter the ledger,
/// and an "always" on a session rule's ask approves once only
/// (`notRemembered`).
#[allow(clippy::too_many_arguments)]
pub async fn resume(
    host: Host,
    policy: &PolicyOptions,
    state: &StateOptions,
    cwd: &Path,
    file: &Path,
    answer: AnswerArg,
    always: bool,
    session: Option<&SessionFile>,
) -> Result<Value, Failure> {
    let settings = settings(Some(&host), policy, state, session).await?;
    let pending = load(file)?;
    let refused = |e: tool_core::Error| Failure::Source(format!("{}: {e}", file.display()));
    let reply = match answer {
        AnswerArg::Approve if always => Reply::approve_always(),
        AnswerArg::Approve => Reply::approve(),
        AnswerArg::Decline => Reply::decline(Some("declined at the command line".to_owned())),
    };
    let mut answers = Vec::new();
    let mut not_remembered = Vec::new();
    for item in &pending.items {
        let session_rule = item
            .decision
            .rule
            .as_deref()
            .is_some_and(|rule| crate::resume_gate::SESSION_RULES.contains(&rule));
        let reply = if always && session_rule && answer == AnswerArg::Approve {
            not_remembered.push(json!({
                "callId": item.call_id(),
                "rule": item.decision.rule,
                "reason": "a session rule's ask is approved once, never remembered",
            }));
            Reply::approve()
        } else {
            reply.clone()
        };
        answers.push(
            pending
                .answer(item.call_id(), reply, settings.durable.keys())
                .map_err(refused)?,
        );
    }
    let ctx = host
        .context()
        .clone()
        .with_extension(scope_of(cwd, session));
    let offered = host.offered();
    let mut invoker = host.invoker().clone();
    if let (Some(file), Some(gate)) = (session, invoker.gate()) {
        let shown = pending
            .items
            .iter()
            .map(|item| (item.call_id().to_owned(), item.decision.rule.clone()))
            .collect();
        invoker = Invoker::default()
            .with_gate(Arc::new(ResumeGate::new(Arc::clone(gate), shown)))
            .with_session(Arc::clone(file.session()));
    }
    let turn = invoker
        .resume(&settings.durable, &offered, pending, &answers, &ctx)
        .await
        .map_err(refused)?;
    if always && let Some(path) = &settings.remembered_file {
        let text = settings.durable.remembered().to_json().to_string();
        write_private(path, &text)?;
    }
    let mut out = json!({
        "outputs": turn.outputs,
        "interventions": turn.interventions,
        "refused": turn.refused,
        "pending": turn.pending,
    });
    if !not_remembered.is_empty() {
        out["notRemembered"] = json!(not_remembered);
    }
    Ok(out)
}

/// `pending FILE`: the turn for a person: each waiting call, why, under
/// what it would run, what "always" would cover.
pub async fn show(
    policy: &PolicyOptions,
    state: &StateOptions,
    cwd: &Path,
    file: &Path,
    session: Option<&SessionFile>,
) -> Result<Value, Failure> {
    let settings = settings(None, policy, state, session).await?;
    let pending = load(file)?;
    let verified = pending.verify(settings.durable.keys());
    let items: Vec<Value> = pending
        .items
        .iter()
        .map(|item| {
            json!({
                "callId": item.call_id(),
                "tool": item.binding.tool,
                "api": item.binding.api,
                "arguments": item.arguments(),
                "asked": item.asked,
                "reason": item.decision.message,
                "rule": item.decision.rule,
                "confinement": item.decision.confinement,
                "scope": item.binding.scope,
                // Whether `resume` from this --cwd is in the item's scope.
                "inScope": item.binding.scope == scope_of(cwd, session),
                "expiresAtMs": item.binding.expires_at_ms,
                "always": settings.durable.always_rule(item).ok().map(|r| r.describe()),
            })
        })
        .collect();
    Ok(json!({
        "id": pending.id,
        "verified": verified.is_ok(),
        "problem": verified.err().map(|e| e.to_string()),
        "interventions": pending.interventions(),
        "items": items,
    }))
}
