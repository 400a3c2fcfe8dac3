//! The shell process manager: commands in their own process groups, with
//! bounded output buffers, background ids and whole-tree kills.
//!
//! A command runs as `sh -c <command>` in a new process group (its pid is
//! the group id), so killing the group kills every child it started. The
//! manager lives as long as the computer that owns it and kills every group
//! still running when it is dropped.

mod buffer;
mod private_tmp;
mod process;

use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt as _;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use regex::Regex;
use tokio::io::AsyncReadExt as _;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::error::{Error, Result};
use crate::response::{CommandOutput, KillCommandResult};
use crate::sandbox::{
    self, AppliedSandbox, ProtectedCreated, SandboxOptions, SandboxPolicy, Watch,
};
use buffer::StreamBuffer;

pub(crate) use process::{group_alive, signal_name};

/// Settings of the shell process manager.
///
/// Defaults: program `sh`; a foreground window of 30 s (at most 120 s); 16
/// KiB of head and 64 KiB of tail kept per stream; 16 commands running at
/// once; finished commands forgotten 10 minutes after they end (and at most
/// 64 remembered); 2 s between SIGTERM and SIGKILL; sandbox
/// [`SandboxPolicy::FullAccess`] with the default [`SandboxOptions`]; the
/// quarantine folder made on first need in the system temp dir.
#[derive(Debug, Clone)]
pub struct ShellConfig {
    /// The shell run as `<program> -c <command>`.
    pub program: PathBuf,
    /// How long runCommand waits when the call does not say.
    pub default_window: Duration,
    /// The longest runCommand wait a call can ask for.
    pub max_window: Duration,
    /// Bytes kept from the start of each stream.
    pub head_bytes: usize,
    /// Bytes kept from the end of each stream.
    pub tail_bytes: usize,
    /// Commands that may run at the same time.
    pub max_running: usize,
    /// How long a finished command stays readable.
    pub finished_ttl: Duration,
    /// How many finished commands stay readable at most.
    pub max_finished: usize,
    /// Time between SIGTERM and SIGKILL when killing.
    pub kill_grace: Duration,
    /// What commands may touch (see [`crate::sandbox`]); the workspace is
    /// the call's working directory (the context's, not a `cwd` argument).
    /// A call whose context carries a [`tool_core::Confinement`] (a gated
    /// invoker puts the decision's there) runs under that one instead.
    /// Under `workspace_write` each command also gets `TMPDIR` pointing at a
    /// private, writable temp dir of this computer (removed when it is
    /// dropped), unless the call sets `TMPDIR` itself.
    pub sandbox: SandboxPolicy,
    /// Secret locations, protected names and what to do without a mechanism.
    pub sandbox_options: SandboxOptions,
    /// Where protected entries a confined command created are moved
    /// (`<folder>/<shellId>/<path below the root>`). `None`: a folder
    /// `tool-quarantine-*` made in the system temp dir the first time
    /// something must move. Never removed by the computer: what it holds
    /// is the user's to look at.
    pub quarantine_dir: Option<PathBuf>,
}

impl Default for ShellConfig {
    fn default() -> Self {
        Self {
            program: PathBuf::from("sh"),
            default_window: Duration::from_secs(30),
            max_window: Duration::from_secs(120),
            head_bytes: 16 * 1024,
            tail_bytes: 64 * 1024,
            max_running: 16,
            finished_ttl: Duration::from_secs(600),
            max_finished: 64,
            kill_grace: Duration::from_secs(2),
            sandbox: SandboxPolicy::FullAccess,
            sandbox_options: SandboxOptions::default(),
            quarantine_dir: None,
        }
    }
}

#[derive(Debug)]
struct ShellState {
    stdout: StreamBuffer,
    stderr: StreamBuffer,
    status: Option<ExitStatus>,
    finished_at: Option<Instant>,
    protected_created: Vec<ProtectedCreated>,
}

#[derive(Debug)]
struct Shell {
    id: String,
    command: String,
    pgid: i32,
    started: Instant,
    state: Mutex<ShellState>,
    exited: watch::Receiver<bool>,
    drained: watch::Receiver<u8>,
    sandbox: AppliedSandbox,
    /// The protected entries before the command, when it ran confined.
    watch: Option<Arc<Watch>>,
    /// The computer's quarantine folder.
    quarantine: Arc<Quarantine>,
    /// The egress proxy's refusals, under egress by name.
    egress_log: Option<Arc<sandbox::EgressLog>>,
    /// The private temp dir and its size limit, when confined with one.
    tmp_limit: Option<(PathBuf, u64)>,
    /// Whether the private temp dir went over its size limit.
    tmp_limit_hit: AtomicBool,
    /// Whether the command's memory cgroup killed a process of it.
    memory_limit_hit: AtomicBool,
}

impl Shell {
    fn lock(&self) -> MutexGuard<'_, ShellState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn running(&self) -> bool {
        self.lock().status.is_none()
    }

    /// The output since the last read, filtered, with the exit status.
    fn snapshot(&self, filter: Option<&Regex>, background: bool) -> CommandOutput {
        let mut state = self.lock();
        let out = state.stdout.read_new();
        let err = state.stderr.read_new();
        let keep = |text: String| match filter {
            None => text,
            Some(re) => text
                .lines()
                .filter(|line| re.is_match(line))
                .map(|line| format!("{line}\n"))
                .collect(),
        };
        let status = state.status;
        let mut sandbox = AppliedSandbox {
            tmp_limit_hit: self.tmp_limit_hit.load(Ordering::Relaxed),
            memory_limit_hit: self.memory_limit_hit.load(Ordering::Relaxed),
            ..self.sandbox.clone()
        };
        if let Some(status) = status {
            sandbox.limit_hit = sandbox.hit(status.code(), status.signal(), &err.text);
        }
        CommandOutput {
            shell_id: self.id.clone(),
            command: self.command.clone(),
            running: status.is_none(),
            exit_code: status.and_then(|s| s.code()),
            signal: status.and_then(|s| s.signal()),
            signal_name: status.and_then(|s| s.signal()).map(signal_name),
            stdout: keep(out.text),
            stderr: keep(err.text),
            new_bytes: out.new_bytes + err.new_bytes,
            dropped_bytes: out.dropped_bytes + err.dropped_bytes,
            stdout_total_bytes: state.stdout.total(),
            stderr_total_bytes: state.stderr.total(),
            elapsed_ms: state
                .finished_at
                .unwrap_or_else(Instant::now)
                .duration_since(self.started)
                .as_millis()
                .min(u128::from(u64::MAX)) as u64,
            background: background && status.is_none(),
            filter: filter.map(|re| re.as_str().to_owned()),
            sandbox: Some(sandbox),
            protected_created: state.protected_created.clone(),
            network_blocked: self
                .egress_log
                .as_ref()
                .map(|log| log.blocked())
                .unwrap_or_default(),
        }
    }

    /// Whether the private temp dir is over its size limit now (recorded).
    async fn check_tmp(&self) -> bool {
        let Some((dir, limit)) = self.tmp_limit.clone() else {
            return false;
        };
        let over = tokio::task::spawn_blocking(move || sandbox::tmp_limit::over(&dir, limit))
            .await
            .ok()
            .flatten()
            .is_some();
        if over {
            self.tmp_limit_hit.store(true, Ordering::Relaxed);
        }
        over
    }

    /// Moves the protected entries the command created since it started
    /// into the quarantine folder and records them (no-op unconfined).
    async fn sweep(self: &Arc<Self>) {
        let Some(watch) = self.watch.clone() else {
            return;
        };
        let quarantine = Arc::clone(&self.quarantine);
        let tag = self.id.clone();
        let moved = tokio::task::spawn_blocking(move || watch.sweep(&|| quarantine.dir(), &tag))
            .await
            .unwrap_or_default();
        if !moved.is_empty() {
            self.lock().protected_created.extend(moved);
        }
    }

    async fn wait_exit(&self, limit: Duration) -> bool {
        let mut exited = self.exited.clone();
        tokio::time::timeout(limit, exited.wait_for(|done| *done))
            .await
            .is_ok()
    }
}

/// What to run.
#[derive(Debug)]
pub(crate) struct Spawn {
    pub(crate) command: String,
    pub(crate) cwd: PathBuf,
    /// The workspace the sandbox lets the command write in.
    pub(crate) workspace: PathBuf,
    pub(crate) env: BTreeMap<String, String>,
    /// `None`: return at once (background).
    pub(crate) window: Option<Duration>,
    /// The call's own confinement (from its context), which replaces the
    /// configured sandbox for this command.
    pub(crate) confinement: Option<SandboxPolicy>,
}

/// The computer's quarantine folder, made on first need.
#[derive(Debug)]
struct Quarantine {
    configured: Option<PathBuf>,
    made: std::sync::OnceLock<std::result::Result<PathBuf, String>>,
}

impl Quarantine {
    fn dir(&self) -> std::result::Result<PathBuf, String> {
        if let Some(dir) = &self.configured {
            return Ok(dir.clone());
        }
        self.made
            .get_or_init(|| {
                tempfile::Builder::new()
                    .prefix("tool-quarantine-")
                    .tempdir()
                    .map(tempfile::TempDir::keep)
                    .map_err(|e| format!("cannot create a quarantine folder: {e}"))
            })
            .clone()
    }
}

/// The process manager: starts, reads, kills and forgets commands.
#[derive(Debug)]
pub(crate) struct ShellManager {
    config: ShellConfig,
    next_id: AtomicU64,
    shells: Mutex<BTreeMap<u64, Arc<Shell>>>,
    /// The private temp dir of `workspace_write` commands (their `TMPDIR`),
    /// created on first use and removed with the manager.
    private_tmp: std::sync::OnceLock<Option<private_tmp::PrivateTmp>>,
    quarantine: Arc<Quarantine>,
}

impl ShellManager {
    pub(crate) fn new(config: ShellConfig) -> Self {
        Self {
            quarantine: Arc::new(Quarantine {
                configured: config.quarantine_dir.clone(),
                made: std::sync::OnceLock::new(),
            }),
            config,
            next_id: AtomicU64::new(1),
            shells: Mutex::new(BTreeMap::new()),
            private_tmp: std::sync::OnceLock::new(),
        }
    }

    /// The policy of the next command, and its `TMPDIR`: `workspace_write`
    /// commands get a private temp dir as one more writable root, so
    /// `mktemp` works even where the system temp dir's top is closed (a
    /// workspace with `.git` inside it).
    fn sandbox_policy(&self, call: Option<&SandboxPolicy>) -> (SandboxPolicy, Option<PathBuf>) {
        let policy = call.unwrap_or(&self.config.sandbox).clone();
        if !matches!(policy, SandboxPolicy::WorkspaceWrite { .. }) {
            return (policy, None);
        }
        match self.private_tmp() {
            Some(tmp) => (policy.with_writable_root(&tmp), Some(tmp)),
            None => (policy, None),
        }
    }

    /// The computer's private temp dir (created on first use, removed with
    /// the manager): a writable root of every `workspace_write` call.
    pub(crate) fn private_tmp(&self) -> Option<PathBuf> {
        self.private_tmp
            .get_or_init(private_tmp::PrivateTmp::make)
            .as_ref()
            .map(|dir| dir.path().to_path_buf())
    }

    pub(crate) fn config(&self) -> &ShellConfig {
        &self.config
    }

    fn shells(&self) -> MutexGuard<'_, BTreeMap<u64, Arc<Shell>>> {
        self.shells.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Forgets finished commands past their time to live, and the oldest
    /// finished ones beyond the count limit.
    fn prune(&self) {
        let ttl = self.config.finished_ttl;
        let mut shells = self.shells();
        let now = Instant::now();
        shells.retain(|_, shell| {
            shell
                .lock()
                .finished_at
                .is_none_or(|at| now.duration_since(at) < ttl)
        });
        let finished: Vec<u64> = shells
            .iter()
            .filter(|(_, s)| !s.running())
            .map(|(id, _)| *id)
            .collect();
        let excess = finished.len().saturating_sub(self.config.max_finished);
        for id in finished.into_iter().take(excess) {
            shells.remove(&id);
        }
    }

    fn get(&self, id: &str) -> Result<Arc<Shell>> {
        self.prune();
        id.strip_prefix("sh-")
            .and_then(|n| n.parse::<u64>().ok())
            .and_then(|n| self.shells().get(&n).cloned())
            .ok_or_else(|| Error::ShellNotFound { id: id.to_owned() })
    }

    /// Starts a command and waits for it up to its window (or until `cancel`).
    pub(crate) async fn run(
        &self,
        spawn: Spawn,
        cancel: &CancellationToken,
    ) -> Result<CommandOutput> {
        self.prune();
        let running = self.shells().values().filter(|s| s.running()).count();
        if running >= self.config.max_running {
            return Err(Error::TooManyShells {
                running,
                limit: self.config.max_running,
            });
        }
        let shell = self.start(&spawn)?;
        let Some(window) = spawn.window else {
            return Ok(shell.snapshot(None, true));
        };
        let mut exited = shell.exited.clone();
        // Dropped while waiting (the caller's future was dropped at its
        // deadline): the command goes with its whole group.
        let mut on_drop = KillOnDrop(Some(shell.pgid));
        let (finished, cancelled) = tokio::select! {
            done = tokio::time::timeout(window, exited.wait_for(|d| *d)) => (done.is_ok(), false),
            () = cancel.cancelled() => (false, true),
        };
        on_drop.0 = None;
        if cancelled {
            // The caller gave up (cancelled, or its time budget ran out):
            // nobody will poll this command, so it goes with its whole tree.
            self.kill_group(&shell).await;
        }
        if finished {
            // Give the readers a moment to drain what the pipes still hold.
            let mut drained = shell.drained.clone();
            let _ = tokio::time::timeout(Duration::from_millis(250), drained.wait_for(|n| *n >= 2))
                .await;
        }
        Ok(shell.snapshot(None, true))
    }

    fn start(&self, spawn: &Spawn) -> Result<Arc<Shell>> {
        let mut cmd = tokio::process::Command::new(&self.config.program);
        cmd.arg("-c")
            .arg(&spawn.command)
            .current_dir(&spawn.cwd)
            .envs(&spawn.env)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(false);
        let (policy, tmp) = self.sandbox_policy(spawn.confinement.as_ref());
        let (applied, watch, held) = sandbox::prepare(
            &policy,
            &self.config.sandbox_options,
            &spawn.workspace,
            &spawn.cwd,
            tmp.as_deref(),
        )?
        .install(&mut cmd);
        let mut applied = applied;
        if applied.is_confined() {
            // The host's environment without what looks secret; the
            // call's own variables are the call's.
            let options = &self.config.sandbox_options;
            let (kept, withheld) = sandbox::env::scrub(
                std::env::vars_os(),
                &options.env_pass,
                &options.env_withhold,
            );
            cmd.env_clear().envs(kept).envs(&spawn.env);
            applied.env_withheld = withheld;
            if !held.egress_env().is_empty() {
                // The proxy is the only way out: every client is pointed at it.
                cmd.env_remove("NO_PROXY").env_remove("no_proxy");
                cmd.envs(held.egress_env().iter().map(|(k, v)| (k, v)));
            }
        }
        // The private temp dir is the command's /tmp when it has its own
        // mount namespace, and its TMPDIR otherwise.
        let tmp_limit = tmp
            .clone()
            .filter(|_| applied.is_confined())
            .zip(applied.limits.and_then(|l| l.tmp_bytes));
        let tmpdir = if applied.private_tmp {
            Some(PathBuf::from("/tmp"))
        } else {
            tmp
        };
        if let Some(tmpdir) = tmpdir.filter(|_| !spawn.env.contains_key("TMPDIR")) {
            cmd.env("TMPDIR", tmpdir);
        }
        let mut child = cmd.spawn().map_err(|source| Error::Spawn {
            command: spawn.command.clone(),
            source,
        })?;
        let pgid = child
            .id()
            .and_then(|pid| i32::try_from(pid).ok())
            .ok_or_else(|| Error::Spawn {
                command: spawn.command.clone(),
                source: std::io::Error::other("the child exited before its pid was known"),
            })?;
        let number = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (exit_tx, exit_rx) = watch::channel(false);
        let (drain_tx, drain_rx) = watch::channel(0u8);
        let shell = Arc::new(Shell {
            id: format!("sh-{number}"),
            command: spawn.command.clone(),
            pgid,
            started: Instant::now(),
            state: Mutex::new(ShellState {
                stdout: StreamBuffer::new(self.config.head_bytes, self.config.tail_bytes),
                stderr: StreamBuffer::new(self.config.head_bytes, self.config.tail_bytes),
                status: None,
                finished_at: None,
                protected_created: Vec::new(),
            }),
            exited: exit_rx,
            drained: drain_rx,
            sandbox: applied,
            watch: watch.map(Arc::new),
            quarantine: Arc::clone(&self.quarantine),
            egress_log: held.egress_log(),
            tmp_limit,
            tmp_limit_hit: AtomicBool::new(false),
            memory_limit_hit: AtomicBool::new(false),
        });
        let drain_tx = Arc::new(drain_tx);
        if let Some(out) = child.stdout.take() {
            tokio::spawn(pump(out, Arc::clone(&shell), false, Arc::clone(&drain_tx)));
        }
        if let Some(err) = child.stderr.take() {
            tokio::spawn(pump(err, Arc::clone(&shell), true, drain_tx));
        }
        if shell.tmp_limit.is_some() {
            tokio::spawn(watch_tmp(Arc::clone(&shell)));
        }
        let waiter_shell = Arc::clone(&shell);
        tokio::spawn(async move {
            let status = child.wait().await;
            // What the command left in the private /tmp counts too.
            waiter_shell.check_tmp().await;
            if held.memory_exceeded() {
                waiter_shell.memory_limit_hit.store(true, Ordering::Relaxed);
            }
            let mut held = held;
            held.release_placeholders();
            // The command has ended: its pids cgroup can go, off the async
            // threads and off the way to the caller (removal may wait for
            // the members to be reaped).
            drop(tokio::task::spawn_blocking(move || drop(held)));
            // What the command created is swept before anyone sees it end.
            waiter_shell.sweep().await;
            {
                let mut state = waiter_shell.lock();
                state.status = Some(status.unwrap_or_else(|_| ExitStatus::from_raw(-1 << 8)));
                state.finished_at = Some(Instant::now());
            }
            let _ = exit_tx.send(true);
            // Members that outlive the shell may still create entries:
            // sweep again once the whole group has gone.
            if waiter_shell.watch.is_some() && group_alive(waiter_shell.pgid) {
                while group_alive(waiter_shell.pgid) {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                waiter_shell.sweep().await;
            }
        });
        self.shells().insert(number, Arc::clone(&shell));
        Ok(shell)
    }

    /// The output produced since the last read.
    pub(crate) fn output(&self, id: &str, filter: Option<&str>) -> Result<CommandOutput> {
        let filter = filter
            .map(|f| {
                Regex::new(f)
                    .map_err(|e| Error::invalid("filter", f, format!("not a valid regex: {e}")))
            })
            .transpose()?;
        let shell = self.get(id)?;
        Ok(shell.snapshot(filter.as_ref(), false))
    }

    /// Kills the command's whole process group: SIGTERM, then SIGKILL after
    /// the grace period if anything in the group is still alive.
    pub(crate) async fn kill(&self, id: &str) -> Result<KillCommandResult> {
        let shell = self.get(id)?;
        let (was_running, signal) = self.kill_group(&shell).await;
        let exit_code = shell.lock().status.and_then(|s| s.code());
        Ok(KillCommandResult {
            shell_id: shell.id.clone(),
            command: shell.command.clone(),
            was_running: was_running || signal.is_some(),
            killed: !group_alive(shell.pgid),
            signal,
            exit_code: if was_running { None } else { exit_code },
        })
    }

    /// SIGTERM to the command's process group, SIGKILL after the grace
    /// period if anything in it is still alive; waits (bounded) for the
    /// members to go. Returns whether the command itself was running and
    /// the last signal sent.
    async fn kill_group(&self, shell: &Arc<Shell>) -> (bool, Option<String>) {
        let was_running = shell.running();
        let mut signal = None;
        if was_running || group_alive(shell.pgid) {
            process::signal_group(shell.pgid, nix::sys::signal::Signal::SIGTERM);
            signal = Some("SIGTERM".to_owned());
            let exited = shell.wait_exit(self.config.kill_grace).await;
            if !exited || group_alive(shell.pgid) {
                process::signal_group(shell.pgid, nix::sys::signal::Signal::SIGKILL);
                signal = Some("SIGKILL".to_owned());
                shell.wait_exit(self.config.kill_grace).await;
            }
            // Members may take a moment to die after SIGKILL.
            for _ in 0..20 {
                if !group_alive(shell.pgid) {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(25)).await;
            }
            shell.sweep().await;
        }
        (was_running, signal)
    }
}

/// Kills a process group when dropped while still armed.
struct KillOnDrop(Option<i32>);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if let Some(pgid) = self.0.take() {
            process::signal_group(pgid, nix::sys::signal::Signal::SIGKILL);
        }
    }
}

impl Drop for ShellManager {
    fn drop(&mut self) {
        sandbox::remove_unused_placeholders();
        for shell in self.shells().values() {
            if shell.running() || group_alive(shell.pgid) {
                process::signal_group(shell.pgid, nix::sys::signal::Signal::SIGKILL);
            }
        }
        // The overlay leaves its work directory without permissions
        // (`work/work`, mode 000): open it so the temp dir can go.
        if let Some(Some(dir)) = self.private_tmp.get() {
            crate::sandbox::make_removable(dir.path());
        }
    }
}

/// Copies one pipe into the shell's bounded buffer until it closes.
/// Measures the private temp dir of a running confined command every
/// [`sandbox::tmp_limit::POLL`] (less often when one measure takes long:
/// at most a tenth of the time goes to measuring); kills the command's
/// group once it is over its size limit.
async fn watch_tmp(shell: Arc<Shell>) {
    let mut exited = shell.exited.clone();
    let mut pause = sandbox::tmp_limit::POLL;
    loop {
        tokio::select! {
            _ = exited.wait_for(|done| *done) => return,
            () = tokio::time::sleep(pause) => {}
        }
        let started = Instant::now();
        if shell.check_tmp().await {
            process::signal_group(shell.pgid, nix::sys::signal::Signal::SIGKILL);
            return;
        }
        pause = sandbox::tmp_limit::POLL.max(started.elapsed() * 9);
    }
}

async fn pump<R: tokio::io::AsyncRead + Unpin>(
    mut pipe: R,
    shell: Arc<Shell>,
    stderr: bool,
    drained: Arc<watch::Sender<u8>>,
) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let mut state = shell.lock();
                let stream = if stderr {
                    &mut state.stderr
                } else {
                    &mut state.stdout
                };
                stream.push(&buf[..n]);
            }
        }
    }
    drained.send_modify(|n| *n += 1);
}
