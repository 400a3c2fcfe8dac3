//! The policy a host chooses, the options around it, and the report of
//! what a command actually ran under.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// How much of the machine a command (and, under a call's confinement, a
/// file operation) may touch: the very type of [`tool_core::Confinement`],
/// so a gate's decision and a computer's configured sandbox are one value.
///
/// Serialised with a `mode` tag:
///
/// ```
/// use tool_runtime::SandboxPolicy;
///
/// let policy: SandboxPolicy = serde_json::from_str(
///     r#"{"mode": "workspace_write", "writable_roots": ["/srv/cache"], "network": false}"#,
/// ).unwrap();
/// assert_eq!(policy, SandboxPolicy::workspace_write().with_writable_root("/srv/cache"));
/// assert_eq!(serde_json::to_value(SandboxPolicy::FullAccess).unwrap()["mode"], "full_access");
/// let same: tool_core::Confinement = policy;
/// assert!(same.is_confined());
/// ```
///
/// What each policy guarantees, and what it does not, is listed in the
/// [module guide](crate::sandbox).
pub type SandboxPolicy = tool_core::Confinement;

/// What to do when the machine has no mechanism for a confining policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SandboxFallback {
    /// Refuse to run: the command fails with `sandbox_unavailable`.
    #[default]
    Refuse,
    /// Run unconfined, and say so in the command's state (`mechanism:
    /// "unconfined"` with the reason). An explicit host choice.
    Unconfined,
}

/// What the running kernel offers, as found by a [probe](SandboxOptions::probe).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelSupport {
    /// The Landlock ABI version (1 or more).
    pub landlock_abi: u8,
    /// Whether seccomp filters can be installed.
    pub seccomp: bool,
}

/// Why the probe found no usable mechanism.
pub type ProbeFailure = String;

/// Settings around a [`SandboxPolicy`].
///
/// What is protected and what is secret comes from
/// [`tool_core::approval::PathClass`], the table the approval engine reads too, so a
/// path is protected or secret in both walls alike; the two lists here only
/// *add* to it.
///
/// | setting | default |
/// |---|---|
/// | protected entries | every [`PathRole::Protected`](tool_core::approval::PathRole::Protected) class (`.git`'s code parts, `.envrc`, `.vscode`, `.github/workflows`, `.cargo/config.toml`, `conftest.py`, …) at the places examined (below) |
/// | secret locations | every [`PathRole::Secret`](tool_core::approval::PathRole::Secret) class: its fixed locations ([`PathClass::fixed_locations`](tool_core::approval::PathClass::fixed_locations): `~/.ssh`, `~/.aws`, `~/.codex/auth.json`, `/etc/shadow`, …) and, at the places examined in the writable roots (below), the files its patterns match (`.env`, `.env.local`, `*.tfstate`, `id_rsa`, …; not `.env.example`) |
/// | `secret_paths` | none (extra secret locations) |
/// | `protected_names` | none (extra entry names protected at any depth) |
/// | `scan_limit` | 20 000 entries per directory listed |
/// | `namespaces` | on (where the machine allows them) |
/// | `tmp_overlay` | on (where the kernel allows an overlay over `/tmp`) |
/// | `fallback` | refuse |
/// | `limits` | [`Limits::default`] |
/// | `hide_home` | on: the home is unreadable but for the toolchain locations |
/// | `toolchain_caches_writable` | on |
/// | `home_readable`, `home_caches` | none (extra toolchain locations) |
/// | `env_pass`, `env_withhold` | none (see the environment rules in the sandbox guide) |
/// | `egress` | [`EgressOptions::default`](crate::sandbox::EgressOptions): public addresses only, DNS, no credentials |
///
/// Entries inside the writable roots are found, when a command starts,
/// without walking the workspace: each root's top and every directory on
/// the way down to the working directory are listed (at most `scan_limit`
/// entries each; the state then says `scanTruncated: true`), the fixed
/// multi-component names (`.github/workflows`) are looked up there, and
/// the git directories met are followed (see the sandbox guide). Deeper
/// entries are not excluded for commands (file operations are checked per
/// path and have no such bound).
///
/// A leading `~/` in a secret path is the `HOME` of the host process when
/// the command starts; a secret path that does not exist is skipped.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct SandboxOptions {
    /// Extra locations commands may neither read nor write, beyond the
    /// secret path classes.
    pub secret_paths: Vec<PathBuf>,
    /// Extra entry names kept read-only wherever they appear in a writable
    /// root (with everything beneath them), beyond the protected classes.
    pub protected_names: Vec<String>,
    /// Entries examined at most per directory listed when looking for
    /// protected and secret entries.
    pub scan_limit: usize,
    /// Whether commands get a private mount namespace when the machine
    /// allows one (protected entries as read-only mounts, a private `/tmp`,
    /// everything outside the writable roots read-only). `false` forces the
    /// Landlock-only fallback (`mechanism: "landlock+seccomp"`).
    pub namespaces: bool,
    /// With namespaces: whether the private `/tmp` is an overlay over the
    /// host's (host files under `/tmp` readable, writes private) when the
    /// kernel allows one. `false`, or a kernel without it: the private
    /// temp dir replaces `/tmp`, and only the command's working directory
    /// under `/tmp` is bound back (read-only).
    pub tmp_overlay: bool,
    /// What to do when no mechanism exists.
    pub fallback: SandboxFallback,
    /// Resource limits of every confined command (see [`Limits`]).
    pub limits: Limits,
    /// Whether the host user's home is hidden from confined commands, but
    /// for the toolchain locations (see the sandbox guide's table).
    pub hide_home: bool,
    /// Whether the toolchain caches in the home (`~/.cargo/registry`,
    /// `~/.npm`, `~/.cache/pip`, …) are writable, not only readable.
    pub toolchain_caches_writable: bool,
    /// Extra readable locations in the hidden home (relative to it, or
    /// absolute).
    pub home_readable: Vec<PathBuf>,
    /// Extra writable cache locations in the hidden home (relative to it,
    /// or absolute).
    pub home_caches: Vec<PathBuf>,
    /// Environment variables passed to confined commands even though they
    /// look secret (by exact name).
    pub env_pass: Vec<String>,
    /// Extra environment variables withheld from confined commands (by
    /// exact name).
    pub env_withhold: Vec<String>,
    /// The egress proxy's settings (addresses allowed although private,
    /// fixed name resolutions, the credential broker's bindings), for
    /// commands whose confinement carries an egress allow-list.
    pub egress: crate::sandbox::EgressOptions,
    /// Whether the protected files whose readers fail on a folder
    /// (`.yarnrc`, `.travis.yml`, `.claude/settings.json`…: the sandbox
    /// guide's row) get an empty-file stand-in while a command runs, so a
    /// command cannot create them at all (on by default). Inside the
    /// command the name is an empty read-only regular file: reading it
    /// reads nothing, writing it fails (`EROFS`), it cannot be removed,
    /// renamed or replaced (`EBUSY`), `cp -a` and `tar` copy it as an empty
    /// file, git lists it nowhere (in the host it is a socket). Off, such a
    /// file a command creates is made, then moved to the quarantine after
    /// the run and reported (`protectedCreated`, a content line): the
    /// named fallback for a host that wants the folder exactly as it is.
    pub file_stand_ins: bool,
    /// Finds what the kernel offers; tests replace it to simulate a kernel
    /// without Landlock.
    #[serde(skip, default = "default_probe")]
    pub probe: fn() -> Result<KernelSupport, ProbeFailure>,
}

/// Resource limits of a confined command, set as rlimits (soft and hard
/// alike) in the command's process before `exec`, inherited by everything
/// it starts, or as cgroups of the command where the table says so.
/// `None`: no limit. The state's `sandbox.limits` lists them, and a limit
/// hit is named in the content and, typed, in `sandbox.limitHit`
/// ([`LimitHit`]).
///
/// | limit | default | what happens when it is hit |
/// |---|---|---|
/// | `processes` (a pids cgroup of the command where the host can make one, which binds root hosts too; else, on Linux 6.14 and later, the `pid_max` of the command's PID namespace, root hosts too, at least 300; else `RLIMIT_NPROC`, which the kernel does not apply to uid 0) | 1 024 | `fork` fails (`Resource temporarily unavailable`): the output says `process limit` |
/// | `run_memory_bytes` (a memory cgroup of the command: the memory of all its processes together, page cache included, no swap, where the host can make one; else `RLIMIT_DATA` of each process, the private writable memory it uses, not the address space it only reserves: state `memoryLimit`, `cgroup` or `rlimit`) | 8 GiB | cgroup: the kernel kills the command's largest process (`SIGKILL`); rlimit: an allocation fails (`MemoryError`, `Cannot allocate memory`, `JavaScript heap out of memory`…); either way, once the command failed, the output says `memory limit` |
/// | `memory_bytes` (`RLIMIT_AS`, address space per process) | none (runtimes such as Node and Go reserve far more than they use) | allocations fail (`Cannot allocate memory`): the output says `memory limit` |
/// | `cpu_seconds` (`RLIMIT_CPU`, CPU time per process) | none | `SIGXCPU` (and `SIGKILL` a second later if a process ignores it): the output says `cpu time limit` |
/// | `file_size_bytes` (`RLIMIT_FSIZE`, the largest file a process writes) | 4 GiB | `SIGXFSZ` (or `EFBIG` where it is ignored): the output says `file size limit` |
/// | `open_files` (`RLIMIT_NOFILE`) | 4 096 | `open` fails (`Too many open files`) |
/// | `tmp_bytes` (the space the computer's private `/tmp` takes on disk, shared by its commands; measured while a command runs and when it ends, see below) | 1 GiB | the command is killed: the output says `tmp size limit` (state `sandbox.tmpLimitHit: true`); what it wrote stays until removed, so a later command ends the same way unless it frees the space first (`rm` in it) |
///
/// The private `/tmp` is a folder of the host shared by the computer's
/// commands, so no mount of one command's own can bound it: its use is
/// measured every 100 ms (less often when a measure takes long) while a
/// confined command runs and once when it ends. A command can therefore
/// pass the limit by what it writes between two measures (each file stays
/// under `file_size_bytes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
#[non_exhaustive]
pub struct Limits {
    /// Processes (and threads) at once.
    pub processes: Option<u64>,
    /// Memory of the whole command (all its processes), in bytes.
    pub run_memory_bytes: Option<u64>,
    /// Address space per process, in bytes.
    pub memory_bytes: Option<u64>,
    /// CPU time per process, in seconds.
    pub cpu_seconds: Option<u64>,
    /// Size of any file written, in bytes.
    pub file_size_bytes: Option<u64>,
    /// Open file descriptors per process.
    pub open_files: Option<u64>,
    /// Space the computer's private `/tmp` takes on disk, in bytes.
    pub tmp_bytes: Option<u64>,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            processes: Some(1024),
            run_memory_bytes: Some(8 << 30),
            memory_bytes: None,
            cpu_seconds: None,
            file_size_bytes: Some(4 << 30),
            open_files: Some(4096),
            tmp_bytes: Some(1 << 30),
        }
    }
}

impl Limits {
    /// No limits at all.
    pub fn none() -> Self {
        Self {
            processes: None,
            run_memory_bytes: None,
            memory_bytes: None,
            cpu_seconds: None,
            file_size_bytes: None,
            open_files: None,
            tmp_bytes: None,
        }
    }

    /// The limits as `(rlimit resource, soft, hard)`: soft and hard alike
    /// but for CPU time, whose hard limit is a second later (at the hard
    /// limit the kernel sends `SIGKILL`, at the soft one `SIGXCPU`, which
    /// names the limit).
    #[cfg(target_os = "linux")]
    pub(crate) fn rlimits(&self) -> Vec<(libc::__rlimit_resource_t, u64, u64)> {
        [
            (libc::RLIMIT_NPROC, self.processes, 0),
            (libc::RLIMIT_AS, self.memory_bytes, 0),
            (libc::RLIMIT_CPU, self.cpu_seconds, 1),
            (libc::RLIMIT_FSIZE, self.file_size_bytes, 0),
            (libc::RLIMIT_NOFILE, self.open_files, 0),
        ]
        .into_iter()
        .filter_map(|(resource, value, grace)| {
            value.map(|v| (resource, v, v.saturating_add(grace)))
        })
        .collect()
    }

    /// The name of the limit a command ended by `signal` hit, if any.
    pub fn hit_by_signal(signal: i32) -> Option<&'static str> {
        LimitHit::by_signal(signal).map(LimitHit::name)
    }
}

/// Which of its [`Limits`] a confined command hit: `sandbox.limitHit` in
/// its state (snake_case), named in its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum LimitHit {
    /// [`Limits::processes`]: `fork` failed.
    Processes,
    /// [`Limits::run_memory_bytes`]: the kernel killed a process of the
    /// command for it.
    Memory,
    /// [`Limits::cpu_seconds`]: `SIGXCPU`.
    CpuTime,
    /// [`Limits::file_size_bytes`]: `SIGXFSZ`.
    FileSize,
    /// [`Limits::tmp_bytes`]: the command was killed.
    TmpSize,
}

impl LimitHit {
    /// The limit's name in the content (`memory limit`, …).
    pub fn name(self) -> &'static str {
        match self {
            Self::Processes => "process limit",
            Self::Memory => "memory limit",
            Self::CpuTime => "cpu time limit",
            Self::FileSize => "file size limit",
            Self::TmpSize => "tmp size limit",
        }
    }

    /// The limit a command ended by `signal` hit, if any.
    pub fn by_signal(signal: i32) -> Option<Self> {
        #[cfg(target_os = "linux")]
        {
            match signal {
                libc::SIGXCPU => return Some(Self::CpuTime),
                libc::SIGXFSZ => return Some(Self::FileSize),
                _ => {}
            }
        }
        let _ = signal;
        None
    }
}

/// Entries examined at most per writable root by default.
pub const DEFAULT_SCAN_LIMIT: usize = 20_000;

fn default_probe() -> fn() -> Result<KernelSupport, ProbeFailure> {
    crate::sandbox::probe_kernel
}

impl Default for SandboxOptions {
    fn default() -> Self {
        Self {
            secret_paths: Vec::new(),
            protected_names: Vec::new(),
            scan_limit: DEFAULT_SCAN_LIMIT,
            namespaces: true,
            tmp_overlay: true,
            fallback: SandboxFallback::Refuse,
            limits: Limits::default(),
            hide_home: true,
            toolchain_caches_writable: true,
            home_readable: Vec::new(),
            home_caches: Vec::new(),
            env_pass: Vec::new(),
            env_withhold: Vec::new(),
            egress: crate::sandbox::EgressOptions::default(),
            file_stand_ins: true,
            probe: default_probe(),
        }
    }
}

impl SandboxOptions {
    /// The extra secret paths with `~/` expanded against `home` (entries
    /// starting with `~` are dropped when there is no home).
    pub(crate) fn expanded_secrets(&self, home: Option<&Path>) -> Vec<PathBuf> {
        self.secret_paths
            .iter()
            .filter_map(|p| match p.strip_prefix("~") {
                Ok(rest) => home.map(|h| h.join(rest)),
                Err(_) => Some(p.clone()),
            })
            .collect()
    }
}

/// The sandbox a command ran under, as its state reports it (`sandbox` in
/// [`CommandOutput`](crate::CommandOutput)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AppliedSandbox {
    /// The policy: `full_access`, `workspace_write`, `read_only`.
    pub policy: String,
    /// What enforced it: `none` (full access), `landlock+seccomp`, or
    /// `unconfined` (no mechanism; the host allowed running anyway).
    pub mechanism: String,
    /// The Landlock ABI used, when Landlock confined the command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub landlock_abi: Option<u8>,
    /// Whether new network connections were allowed.
    pub network: bool,
    /// Where the command could write.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub writable_roots: Vec<PathBuf>,
    /// Protected entries found inside the writable roots, kept read-only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read_only_paths: Vec<PathBuf>,
    /// Why the command ran unconfined, when it did under a confining policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unconfined_reason: Option<String>,
    /// Secret entries found inside the writable roots and kept unreadable.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub secrets_hidden: usize,
    /// Whether the walk looking for protected and secret entries stopped at
    /// [`SandboxOptions::scan_limit`] (deeper entries were not excluded).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub scan_truncated: bool,
    /// Whether the command had its own `/tmp` (the computer's private temp
    /// dir, mounted over it in a private mount namespace).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub private_tmp: bool,
    /// Whether that private `/tmp` was an overlay over the host's: the
    /// host's files under `/tmp` readable, the command's writes private.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub host_tmp_readable: bool,
    /// The resource limits the command ran under, when confined.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<Limits>,
    /// The names of the host's environment variables withheld from the
    /// command (they looked secret); never their values.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env_withheld: Vec<String>,
    /// Whether the host user's home was hidden (but for the toolchain
    /// locations).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub home_hidden: bool,
    /// How the process limit was enforced: `cgroup` (a pids cgroup of the
    /// command, which binds a root host too), `pid_namespace` (no cgroup:
    /// the `pid_max` of the command's own PID namespace, Linux 6.14 and
    /// later, which binds a root host too; `RLIMIT_NPROC` beside it) or
    /// `rlimit` (`RLIMIT_NPROC` only, which the kernel does not apply to
    /// root).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process_limit: Option<String>,
    /// How [`Limits::run_memory_bytes`] was enforced: `cgroup` (a memory
    /// cgroup of the command: all its processes together) or `rlimit`
    /// (the host could make no such group: `RLIMIT_DATA` of each process,
    /// the same number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_limit: Option<String>,
    /// Egress by name: the names the command could reach through the
    /// runtime's proxy (its only network).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<EgressShape>")]
    pub egress: Option<tool_core::approval::Egress>,
    /// The environment variables that held dummies the proxy swaps for
    /// the real secrets on requests to their bound hosts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub credentials_brokered: Vec<String>,
    /// Whether the private `/tmp` took more than [`Limits::tmp_bytes`]
    /// while the command ran or when it ended (the command was killed if
    /// it still ran).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tmp_limit_hit: bool,
    /// Whether the kernel killed a process of the command for going over
    /// [`Limits::run_memory_bytes`].
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub memory_limit_hit: bool,
    /// The limit the command hit, once it has ended (see
    /// [`AppliedSandbox::hit`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_hit: Option<LimitHit>,
}

/// The shape of [`tool_core::approval::Egress`] on the wire, for the output
/// schema (tool-core's type declares no schema of its own).
#[derive(schemars::JsonSchema)]
#[allow(dead_code)]
struct EgressShape {
    /// Names (or `*.suffix` patterns) the command could reach.
    allow: Vec<String>,
    /// Names refused even when allowed.
    #[serde(default)]
    deny: Vec<String>,
    /// Plain HTTP methods allowed (empty: any).
    #[serde(default)]
    methods: Vec<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl AppliedSandbox {
    /// The report of a command run with full access.
    pub fn full_access() -> Self {
        Self {
            policy: "full_access".to_owned(),
            mechanism: "none".to_owned(),
            landlock_abi: None,
            network: true,
            writable_roots: Vec::new(),
            read_only_paths: Vec::new(),
            unconfined_reason: None,
            secrets_hidden: 0,
            scan_truncated: false,
            private_tmp: false,
            host_tmp_readable: false,
            limits: None,
            env_withheld: Vec::new(),
            home_hidden: false,
            process_limit: None,
            egress: None,
            credentials_brokered: Vec::new(),
            tmp_limit_hit: false,
            memory_limit: None,
            memory_limit_hit: false,
            limit_hit: None,
        }
    }

    /// Whether an OS mechanism confined the command.
    pub fn is_confined(&self) -> bool {
        self.mechanism != "none" && self.mechanism != "unconfined"
    }

    /// One line for the model saying which sandbox the command ran under, or
    /// `None` for full access.
    pub fn summary(&self) -> Option<String> {
        if self.policy == "full_access" {
            return None;
        }
        if !self.is_confined() {
            return Some(format!(
                "(sandbox: {} requested but NOT enforced: {})",
                self.policy,
                self.unconfined_reason.as_deref().unwrap_or("no mechanism")
            ));
        }
        let network = match (&self.egress, self.network) {
            (Some(egress), _) => format!(
                "network only to {} through the egress proxy",
                if egress.allow.is_empty() {
                    "no name".to_owned()
                } else {
                    egress.allow.join(", ")
                }
            ),
            (None, true) => "network on".to_owned(),
            (None, false) => "network off".to_owned(),
        };
        Some(format!(
            "(sandbox: {} via {}, {network})",
            self.policy, self.mechanism
        ))
    }

    /// The name of the [`Limits`] entry a confined command hit (see
    /// [`AppliedSandbox::hit`]).
    pub fn limit_hit(
        &self,
        exit_code: Option<i32>,
        signal: Option<i32>,
        stderr: &str,
    ) -> Option<&'static str> {
        self.hit(exit_code, signal, stderr).map(LimitHit::name)
    }

    /// The [`Limits`] entry a confined command hit, when its end says so:
    /// its private `/tmp` over its size, a process killed by its memory
    /// cgroup, killed by (or, through the shell, exited with 128 +)
    /// `SIGXFSZ` or `SIGXCPU`, a failure whose standard error shows a
    /// failed allocation under a per-process memory limit
    /// (`memoryLimit: "rlimit"` or [`Limits::memory_bytes`]), or `fork`
    /// failing for lack of processes.
    pub fn hit(
        &self,
        exit_code: Option<i32>,
        signal: Option<i32>,
        stderr: &str,
    ) -> Option<LimitHit> {
        let limits = self.limits.as_ref()?;
        if self.tmp_limit_hit {
            return Some(LimitHit::TmpSize);
        }
        if self.memory_limit_hit {
            return Some(LimitHit::Memory);
        }
        if let Some(hit) = signal
            .or_else(|| exit_code.filter(|c| *c > 128).map(|c| c - 128))
            .and_then(LimitHit::by_signal)
        {
            return Some(hit);
        }
        // A per-process memory limit kills nothing: an allocation fails
        // and the program says so as it ends.
        let per_process_memory =
            self.memory_limit.as_deref() == Some("rlimit") || limits.memory_bytes.is_some();
        if per_process_memory
            && exit_code != Some(0)
            && crate::sandbox::memory_signs::allocation_failed(stderr)
        {
            return Some(LimitHit::Memory);
        }
        (limits.processes.is_some()
            && (stderr.contains("Cannot fork")
                || (stderr.contains("fork")
                    && stderr.contains("Resource temporarily unavailable"))))
        .then_some(LimitHit::Processes)
    }

    /// A one-line hint when the command's output shows an operation the
    /// sandbox refuses (permission denied, operation not permitted, a
    /// cross-device link): what the sandbox allows and how a host widens
    /// it; of the read-only entries, those whose names the output holds
    /// (else the first few), at most eight, and how many more the state's
    /// `readOnlyPaths` lists. `None` when the command was not confined or
    /// nothing looks refused.
    pub fn refusal_hint(&self, output: &str) -> Option<String> {
        if !self.is_confined() {
            return None;
        }
        const SIGNS: [&str; 6] = [
            "Device or resource busy",
            "Permission denied",
            "Operation not permitted",
            "Invalid cross-device link",
            "Read-only file system",
            "EACCES",
        ];
        // Without the network, clients often print their own words instead of the errno.
        const NETWORK_SIGNS: [&str; 6] = [
            "Couldn't connect",
            "Failed to connect",
            "Could not resolve",
            "Network is unreachable",
            "Temporary failure in name resolution",
            "Name or service not known",
        ];
        let network_sign = !self.network && NETWORK_SIGNS.iter().any(|sign| output.contains(sign));
        if !network_sign && !SIGNS.iter().any(|sign| output.contains(sign)) {
            return None;
        }
        let writes = if self.writable_roots.is_empty() {
            "no writes are allowed".to_owned()
        } else {
            format!(
                "writes are allowed only under {}",
                self.writable_roots
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        let protected = if self.read_only_paths.is_empty() {
            String::new()
        } else {
            // The stand-ins make these many (dozens per folder examined):
            // the ones the output names, else the first few; the state
            // lists them all.
            const SHOWN: usize = 8;
            let named = |p: &&PathBuf| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| output.contains(n))
            };
            let mut shown: Vec<&PathBuf> = self
                .read_only_paths
                .iter()
                .filter(named)
                .take(SHOWN)
                .collect();
            if shown.is_empty() {
                shown = self.read_only_paths.iter().take(SHOWN).collect();
            }
            let more = self.read_only_paths.len() - shown.len();
            format!(
                " ({} read-only{}{})",
                shown
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                if more > 0 {
                    format!(", and {more} more protected entries: `readOnlyPaths` in the state")
                } else {
                    String::new()
                },
                if self.mechanism == "landlock+seccomp" {
                    ", and no new entries next to them"
                } else {
                    ""
                }
            )
        };
        let network = match (&self.egress, self.network) {
            (Some(_), _) => ", the network only to the allowed names through the proxy",
            (None, true) => "",
            (None, false) => ", network is off",
        };
        Some(format!(
            "Hint: the {} sandbox may have refused this: {writes}{protected}{network}. Only the host can widen it (writable_roots, network: true, or full_access); do not try to work around it.",
            self.policy
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_refusal_hint_names_the_read_only_entries_the_output_names_and_counts_the_rest() {
        let names = [".envrc", ".yarnrc", ".travis.yml", ".vscode", ".mcp.json"];
        let mut applied = AppliedSandbox {
            policy: "workspace_write".to_owned(),
            mechanism: "namespaces+landlock+seccomp".to_owned(),
            network: false,
            writable_roots: vec![PathBuf::from("/ws")],
            read_only_paths: (0..10)
                .flat_map(|i| names.map(|n| PathBuf::from(format!("/ws/d{i}/{n}"))))
                .collect(),
            ..AppliedSandbox::full_access()
        };
        let hint = applied
            .refusal_hint("sh: 1: cannot create .yarnrc: Read-only file system")
            .unwrap();
        assert!(hint.contains("/ws/d0/.yarnrc, /ws/d1/.yarnrc"), "{hint}");
        assert!(!hint.contains(".travis.yml"), "{hint}");
        assert!(
            hint.contains("/ws/d7/.yarnrc read-only, and 42 more protected entries"),
            "{hint}"
        );
        // Nothing named: the first few.
        let hint = applied.refusal_hint("Permission denied").unwrap();
        assert!(hint.contains("(/ws/d0/.envrc, /ws/d0/.yarnrc"), "{hint}");
        assert!(hint.contains("and 42 more"), "{hint}");
        // Few: all of them, nothing counted.
        applied.read_only_paths.truncate(3);
        let hint = applied.refusal_hint("Permission denied").unwrap();
        assert!(
            hint.contains("/ws/d0/.travis.yml read-only), network is off"),
            "{hint}"
        );
    }
}
