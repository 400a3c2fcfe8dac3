//! Confinement: what a call that runs may touch on the host machine.
//!
//! A [`Gate`](crate::Gate) that lets a call run says under what it runs
//! ([`GateDecision::confinement`](crate::GateDecision::confinement)); the
//! [`Invoker`](crate::Invoker) hands that [`Confinement`] to the tool in its
//! [`ToolContext`](crate::ToolContext) (`ctx.extension::<Confinement>()`), and
//! a tool that touches the host (a local computer running commands or
//! editing files, a script runner) applies it: the OS sandbox for
//! processes, the same rules checked in-process for file operations.
//!
//! Which entries are protected and which are secret is one table shared by
//! both walls, [`PathClass`]: the approval engine reads it to judge
//! arguments, the runtime to confine what actually runs.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// How much of the machine a call may touch.
///
/// Serialised with a `mode` tag (the shape `toolhost check` prints in a
/// decision's `confinement`):
///
/// ```
/// use tool_core::Confinement;
///
/// let c: Confinement = serde_json::from_str(
///     r#"{"mode": "workspace_write", "writable_roots": ["/srv/cache"], "network": false}"#,
/// ).unwrap();
/// assert_eq!(c, Confinement::workspace_write().with_writable_root("/srv/cache"));
/// assert_eq!(serde_json::to_value(Confinement::FullAccess).unwrap()["mode"], "full_access");
/// assert!(Confinement::read_only().is_narrower_or_equal(&Confinement::workspace_write()));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Confinement {
    /// No confinement: the call has the host's own rights.
    #[default]
    FullAccess,
    /// Writes only inside the context's working directory, the
    /// `writable_roots` and a private temp dir; protected entries
    /// ([`PathRole::Protected`](crate::PathRole::Protected)) stay read-only; secrets
    /// ([`PathRole::Secret`](crate::PathRole::Secret)) unreadable; network off unless `network`.
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

impl Confinement {
    /// `workspace_write` without extra roots and without network: the
    /// default confinement of a call no person has seen.
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

    /// The same confinement with the network allowed (or not); no effect on
    /// `full_access`, which always has it.
    pub fn with_network(mut self, allowed: bool) -> Self {
        match &mut self {
            Self::FullAccess => {}
            Self::WorkspaceWrite { network, .. } | Self::ReadOnly { network } => *network = allowed,
        }
        self
    }

    /// The same confinement with one more writable root; ignored by
    /// `read_only` (it has no writable roots) and `full_access`.
    pub fn with_writable_root(mut self, root: impl Into<PathBuf>) -> Self {
        if let Self::WorkspaceWrite { writable_roots, .. } = &mut self {
            writable_roots.push(root.into());
        }
        self
    }

    /// The name as serialised: `full_access`, `workspace_write`, `read_only`.
    pub fn name(&self) -> &'static str {
        match self {
            Self::FullAccess => "full_access",
            Self::WorkspaceWrite { .. } => "workspace_write",
            Self::ReadOnly { .. } => "read_only",
        }
    }

    /// Whether new network connections are allowed.
    pub fn network(&self) -> bool {
        match self {
            Self::FullAccess => true,
            Self::WorkspaceWrite { network, .. } | Self::ReadOnly { network } => *network,
        }
    }

    /// Whether anything is confined.
    pub fn is_confined(&self) -> bool {
        !matches!(self, Self::FullAccess)
    }

    /// The extra writable roots (empty for `read_only` and `full_access`).
    pub fn writable_roots(&self) -> &[PathBuf] {
        match self {
            Self::WorkspaceWrite { writable_roots, .. } => writable_roots,
            _ => &[],
        }
    }

    /// Whether `self` allows nothing that `other` forbids: `read_only` ≤
    /// `workspace_write` ≤ `full_access`, network off ≤ on, and for two
    /// `workspace_write`s, `self`'s extra roots all among `other`'s.
    pub fn is_narrower_or_equal(&self, other: &Self) -> bool {
        let network = !self.network() || other.network();
        match (self, other) {
            (_, Self::FullAccess) => true,
            (Self::FullAccess, _) => false,
            (Self::ReadOnly { .. }, _) => network,
            (Self::WorkspaceWrite { .. }, Self::ReadOnly { .. }) => false,
            (
                Self::WorkspaceWrite {
                    writable_roots: mine,
                    ..
                },
                Self::WorkspaceWrite {
                    writable_roots: theirs,
                    ..
                },
            ) => network && mine.iter().all(|r| theirs.contains(r)),
        }
    }
}

/// Whether the host can enforce a confining [`Confinement`] for the tools
/// that touch it. The gate needs it: a call that would run confined where
/// nothing can confine it asks or is blocked instead.
///
/// A pure crate cannot probe the kernel; the host finds out (tool-runtime's
/// sandbox probe) and says so. The default, [`Unknown`](Self::Unknown),
/// counts as unavailable.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ConfinementSupport {
    /// The host enforces confinement (for example Landlock + seccomp).
    Available {
        /// What enforces it, for reports (`landlock+seccomp`).
        mechanism: String,
    },
    /// The host cannot confine.
    Unavailable {
        /// Why (no Landlock in this kernel, not Linux…).
        reason: String,
    },
    /// Nobody said; treated as unavailable.
    #[default]
    Unknown,
}

impl ConfinementSupport {
    /// Whether a confining policy can be enforced.
    pub fn is_available(&self) -> bool {
        matches!(self, Self::Available { .. })
    }

    /// Why confinement is not available, `None` when it is.
    pub fn missing_reason(&self) -> Option<String> {
        match self {
            Self::Available { .. } => None,
            Self::Unavailable { reason } => Some(reason.clone()),
            Self::Unknown => Some("the host did not say whether it can confine calls".to_owned()),
        }
    }
}
