//! The policy a host chooses, the options around it, and the report of
//! what a command actually ran under.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// How much of the machine a shell command may touch.
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
/// ```
///
/// What each policy guarantees, and what it does not, is listed in the
/// [module guide](crate::sandbox).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
#[non_exhaustive]
pub enum SandboxPolicy {
    /// No confinement: the command has the host's own rights.
    #[default]
    FullAccess,
    /// Writes only inside the context's working directory, the
    /// `writable_roots` and the temp dir; protected entries (`.git`, …) stay
    /// read-only; secrets unreadable; network off unless `network`.
    WorkspaceWrite {
        /// Directories the host adds to the writable set (absolute paths).
        #[serde(default)]
        writable_roots: Vec<PathBuf>,
        /// Whether new network connections are allowed.
        #[serde(default)]
        network: bool,
    },
    /// No writes at all (except to `/dev/null` and its kind); secrets
    /// unreadable; network off unless `network`.
    ReadOnly {
        /// Whether new network connections are allowed.
        #[serde(default)]
        network: bool,
    },
}

impl SandboxPolicy {
    /// `workspace_write` without extra roots and without network.
    pub fn workspace_write() -> Self {
        Self::WorkspaceWrite {
            writable_roots: Vec::new(),
            network: false,
        }
    }

    /// `read_only` without network.
    pub fn read_only() -> Self {
        Self::ReadOnly { network: false }
    }

    /// The same policy with the network allowed (or not); no effect on
    /// `full_access`, which always has it.
    pub fn with_network(mut self, allowed: bool) -> Self {
        match &mut self {
            Self::FullAccess => {}
            Self::WorkspaceWrite { network, .. } | Self::ReadOnly { network } => *network = allowed,
        }
        self
    }

    /// The same policy with one more writable root; turns `read_only` into
    /// nothing else (a read-only policy has no writable roots, so the root is
    /// ignored there) and leaves `full_access` as it is.
    pub fn with_writable_root(mut self, root: impl Into<PathBuf>) -> Self {
        if let Self::WorkspaceWrite { writable_roots, .. } = &mut self {
            writable_roots.push(root.into());
        }
        self
    }

    /// The policy's name as serialised: `full_access`, `workspace_write`, `read_only`.
    pub fn name(&self) -> &'static str {
        match self {
            Self::FullAccess => "full_access",
            Self::WorkspaceWrite { .. } => "workspace_write",
            Self::ReadOnly { .. } => "read_only",
        }
    }

    /// Whether commands may open new network connections.
    pub fn network(&self) -> bool {
        match self {
            Self::FullAccess => true,
            Self::WorkspaceWrite { network, .. } | Self::ReadOnly { network } => *network,
        }
    }

    /// Whether the policy confines anything.
    pub fn is_confined(&self) -> bool {
        !matches!(self, Self::FullAccess)
    }
}

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
/// Defaults: the secret locations below, the protected names below,
/// [`SandboxFallback::Refuse`] and the real kernel probe.
///
/// | setting | default |
/// |---|---|
/// | `secret_paths` | `~/.ssh`, `~/.aws`, `~/.gnupg`, `~/.azure`, `~/.kube`, `~/.docker`, `~/.config/gcloud`, `~/.config/gh`, `~/.password-store`, `~/.netrc`, `~/.git-credentials`, `~/.npmrc`, `~/.pypirc`, `~/.cargo/credentials.toml` |
/// | `protected_names` | `.git`, `.envrc`, `.vscode`, `.idea`, `.husky`, `.githooks`, `.devcontainer` |
/// | `fallback` | refuse |
///
/// A leading `~/` in a secret path is the `HOME` of the host process when
/// the command starts; a secret path that does not exist is skipped.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct SandboxOptions {
    /// Locations commands may neither read nor write (Linux: by Landlock).
    pub secret_paths: Vec<PathBuf>,
    /// Entry names kept read-only at the top of the workspace and of every
    /// writable root (with everything beneath them): `.git` covers
    /// `.git/hooks` and `.git/config`.
    pub protected_names: Vec<String>,
    /// What to do when no mechanism exists.
    pub fallback: SandboxFallback,
    /// Finds what the kernel offers; tests replace it to simulate a kernel
    /// without Landlock.
    #[serde(skip, default = "default_probe")]
    pub probe: fn() -> Result<KernelSupport, ProbeFailure>,
}

fn default_probe() -> fn() -> Result<KernelSupport, ProbeFailure> {
    crate::sandbox::probe_kernel
}

impl Default for SandboxOptions {
    fn default() -> Self {
        let secrets = [
            "~/.ssh",
            "~/.aws",
            "~/.gnupg",
            "~/.azure",
            "~/.kube",
            "~/.docker",
            "~/.config/gcloud",
            "~/.config/gh",
            "~/.password-store",
            "~/.netrc",
            "~/.git-credentials",
            "~/.npmrc",
            "~/.pypirc",
            "~/.cargo/credentials.toml",
        ];
        let protected = [
            ".git",
            ".envrc",
            ".vscode",
            ".idea",
            ".husky",
            ".githooks",
            ".devcontainer",
        ];
        Self {
            secret_paths: secrets.iter().map(PathBuf::from).collect(),
            protected_names: protected.iter().map(|s| (*s).to_owned()).collect(),
            fallback: SandboxFallback::Refuse,
            probe: default_probe(),
        }
    }
}

impl SandboxOptions {
    /// The secret paths with `~/` expanded against `home` (entries starting
    /// with `~` are dropped when there is no home).
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
        Some(format!(
            "(sandbox: {} via {}, network {})",
            self.policy,
            self.mechanism,
            if self.network { "on" } else { "off" }
        ))
    }

    /// A one-line hint when the command's output shows an operation the
    /// sandbox refuses (permission denied, operation not permitted, a
    /// cross-device link): what the sandbox allows and how a host widens
    /// it. `None` when the command was not confined or nothing looks refused.
    pub fn refusal_hint(&self, output: &str) -> Option<String> {
        if !self.is_confined() {
            return None;
        }
        const SIGNS: [&str; 5] = [
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
            format!(
                " ({} read-only, and no new entries next to them)",
                self.read_only_paths
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        let network = if self.network { "" } else { ", network is off" };
        Some(format!(
            "Hint: the {} sandbox may have refused this: {writes}{protected}{network}. Only the host can widen it (writable_roots, network: true, or full_access); do not try to work around it.",
            self.policy
        ))
    }
}
