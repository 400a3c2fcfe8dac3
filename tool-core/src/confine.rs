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
        /// Egress by name: the network only through the runtime's proxy, to
        /// the names listed (overrides `network`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        egress: Option<Egress>,
    },
    /// No writes at all (except to `/dev/null` and its kind); secrets
    /// unreadable; network off unless `network`.
    ReadOnly {
        /// Whether new network connections are allowed.
        #[serde(default)]
        network: bool,
        /// Egress by name (overrides `network`), as for `workspace_write`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        egress: Option<Egress>,
    },
}

/// Egress by name: a confined call reaches the network only through a
/// proxy the runtime starts, and only the names allowed here (the package
/// registries and mirrors a build needs).
///
/// A name matches an entry written exactly (`registry.example`,
/// case-insensitive, a trailing dot ignored) or, for `*.cdn.example`, any
/// name below `cdn.example` (not `cdn.example` itself). A name matching a
/// `deny` entry is refused even when an `allow` entry matches it (deny
/// wins). IP addresses are never names: a literal address is refused.
/// `methods`, when not empty, limits plain HTTP requests to those methods
/// (`GET`, `HEAD`); the proxy cannot see the methods inside an HTTPS
/// tunnel, so with a method limit it refuses tunnels too.
///
/// ```
/// use tool_core::{Confinement, Egress};
///
/// let c: Confinement = serde_json::from_str(
///     r#"{"mode": "workspace_write", "egress": {"allow": ["registry.example", "*.cdn.example"]}}"#,
/// ).unwrap();
/// let egress = c.egress().unwrap();
/// assert!(egress.allows("registry.example"));
/// assert!(egress.allows("eu.cdn.example"));
/// assert!(!egress.allows("cdn.example"));
/// assert!(!egress.allows("evil.example"));
/// let denied = Egress::allow(["*.cdn.example"]).with_deny(["eu.cdn.example"]);
/// assert!(!denied.allows("eu.cdn.example"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Egress {
    /// Names (or `*.suffix` patterns) the call may reach.
    #[serde(default)]
    pub allow: Vec<String>,
    /// Names (or patterns) refused even when allowed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deny: Vec<String>,
    /// Plain HTTP methods allowed (empty: any); a limit also refuses
    /// HTTPS tunnels.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub methods: Vec<String>,
}

impl Egress {
    /// An allow-list of names or `*.suffix` patterns.
    pub fn allow<S: Into<String>>(names: impl IntoIterator<Item = S>) -> Self {
        Self {
            allow: names.into_iter().map(Into::into).collect(),
            ..Self::default()
        }
    }

    /// The same with names refused even when allowed.
    pub fn with_deny<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.deny.extend(names.into_iter().map(Into::into));
        self
    }

    /// The same with plain HTTP limited to `methods` (`GET`, `HEAD`).
    pub fn with_methods<S: Into<String>>(mut self, methods: impl IntoIterator<Item = S>) -> Self {
        self.methods.extend(methods.into_iter().map(Into::into));
        self
    }

    /// Whether `host` (a name, not an address) is allowed: matched by an
    /// `allow` entry and by no `deny` entry.
    pub fn allows(&self, host: &str) -> bool {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        let matches = |entry: &String| {
            let entry = entry.trim_end_matches('.').to_ascii_lowercase();
            match entry.strip_prefix("*.") {
                Some(suffix) => host
                    .strip_suffix(suffix)
                    .is_some_and(|head| head.len() > 1 && head.ends_with('.')),
                None => !entry.is_empty() && host == entry,
            }
        };
        !host.is_empty() && !self.deny.iter().any(matches) && self.allow.iter().any(matches)
    }

    /// Whether plain HTTP `method` is allowed.
    pub fn allows_method(&self, method: &str) -> bool {
        self.methods.is_empty() || self.methods.iter().any(|m| m.eq_ignore_ascii_case(method))
    }
}

impl Confinement {
    /// `workspace_write` without extra roots and without network: the
    /// default confinement of a call no person has seen.
    pub fn workspace_write() -> Self {
        Self::WorkspaceWrite {
            writable_roots: Vec::new(),
            network: false,
            egress: None,
        }
    }

    /// `read_only` without network.
    pub fn read_only() -> Self {
        Self::ReadOnly {
            network: false,
            egress: None,
        }
    }

    /// The same confinement with the network allowed (or not); no effect on
    /// `full_access`, which always has it.
    pub fn with_network(mut self, allowed: bool) -> Self {
        match &mut self {
            Self::FullAccess => {}
            Self::WorkspaceWrite { network, .. } | Self::ReadOnly { network, .. } => {
                *network = allowed
            }
        }
        self
    }

    /// The same confinement with the network only through the egress proxy
    /// to the names `egress` allows (`network` off); no effect on
    /// `full_access`.
    pub fn with_egress(mut self, allowed: Egress) -> Self {
        match &mut self {
            Self::FullAccess => {}
            Self::WorkspaceWrite {
                network, egress, ..
            }
            | Self::ReadOnly { network, egress } => {
                *network = false;
                *egress = Some(allowed);
            }
        }
        self
    }

    /// The egress allow-list, when the network is open by name only.
    pub fn egress(&self) -> Option<&Egress> {
        match self {
            Self::FullAccess => None,
            Self::WorkspaceWrite { egress, .. } | Self::ReadOnly { egress, .. } => egress.as_ref(),
        }
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

    /// Whether new network connections are allowed to any address (not
    /// when an [`Egress`] list narrows them).
    pub fn network(&self) -> bool {
        match self {
            Self::FullAccess => true,
            Self::WorkspaceWrite {
                network, egress, ..
            }
            | Self::ReadOnly { network, egress } => *network && egress.is_none(),
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
    /// `workspace_write` ≤ `full_access`, network off ≤ egress by name ≤
    /// on (two egress lists only when equal), and for two
    /// `workspace_write`s, `self`'s extra roots all among `other`'s.
    pub fn is_narrower_or_equal(&self, other: &Self) -> bool {
        let network = match (self.network(), self.egress()) {
            (true, _) => other.network(),
            (false, None) => true,
            (false, Some(mine)) => other.network() || other.egress() == Some(mine),
        };
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn egress_by_name_sits_between_network_off_and_on() {
        let registry = Egress::allow(["registry.example"]);
        let by_name = Confinement::workspace_write()
            .with_network(true)
            .with_egress(registry.clone());
        assert!(!by_name.network(), "egress wins over network: true");
        assert_eq!(by_name.egress(), Some(&registry));
        let off = Confinement::workspace_write();
        let on = Confinement::workspace_write().with_network(true);
        assert!(off.is_narrower_or_equal(&by_name));
        assert!(by_name.is_narrower_or_equal(&on));
        assert!(!on.is_narrower_or_equal(&by_name));
        assert!(!by_name.is_narrower_or_equal(&off));
        let other = Confinement::workspace_write().with_egress(Egress::allow(["other.example"]));
        assert!(!by_name.is_narrower_or_equal(&other));
        assert!(by_name.is_narrower_or_equal(&by_name.clone()));
        // Serialised only when set: older readers see the same shape.
        let plain = serde_json::to_value(&off).unwrap_or_default();
        assert!(plain.get("egress").is_none());
        let back: Confinement =
            serde_json::from_value(serde_json::to_value(&by_name).unwrap_or_default())
                .unwrap_or_default();
        assert_eq!(back, by_name);
        assert_eq!(Confinement::FullAccess.with_egress(registry).egress(), None);
    }

    #[test]
    fn names_match_exactly_or_below_a_wildcard_and_deny_wins() {
        let e = Egress::allow(["Registry.Example.", "*.cdn.example", "", "*."])
            .with_deny(["*.bad.cdn.example"]);
        assert!(e.allows("registry.example"));
        assert!(e.allows("REGISTRY.EXAMPLE."));
        assert!(e.allows("a.b.cdn.example"));
        assert!(!e.allows("cdn.example"));
        assert!(!e.allows("x.bad.cdn.example"));
        assert!(!e.allows("evilcdn.example"));
        assert!(!e.allows("registry.example.evil"));
        assert!(!e.allows(""));
        assert!(!e.allows("anything"));
        let limited = Egress::allow(["a.example"]).with_methods(["GET"]);
        assert!(limited.allows_method("get"));
        assert!(!limited.allows_method("POST"));
        assert!(Egress::allow(["a.example"]).allows_method("DELETE"));
    }
}
