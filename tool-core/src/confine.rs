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
use serde_json::{Map, Value};

use crate::error::Error;

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
///
/// Read from JSON ([`Confinement::from_json`], and every `Deserialize`,
/// which goes through it), `network` is a flag or the egress allow-list
/// itself, `{"allow": [...], "deny": [...], "methods": [...]}` (the same
/// as giving it as `egress`; giving both is refused). Every key is
/// checked: an unknown mode or key, a value of the wrong type, an egress
/// entry that is not a host name fails with
/// [`Error::InvalidConfinement`] naming the field.
///
/// ```
/// use tool_core::{Confinement, approval::Egress};
///
/// let c: Confinement = serde_json::from_str(
///     r#"{"mode": "workspace_write", "network": {"allow": ["registry.example", "*.cdn.example"]}}"#,
/// ).unwrap();
/// assert_eq!(c, Confinement::workspace_write().with_egress(Egress::allow(["registry.example", "*.cdn.example"])));
/// let bad = Confinement::from_json(&serde_json::json!(
///     {"mode": "workspace_write", "network": {"allow": ["registry.example", "10.0.0.7"]}}
/// ));
/// assert!(bad.unwrap_err().to_string().contains("/network/allow/1"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(
    tag = "mode",
    rename_all = "snake_case",
    try_from = "serde_json::Value"
)]
#[non_exhaustive]
pub enum Confinement {
    /// No confinement: the call has the host's own rights.
    #[default]
    FullAccess,
    /// Writes only inside the context's working directory, the
    /// `writable_roots` and a private temp dir; protected entries
    /// ([`PathRole::Protected`](crate::approval::PathRole::Protected)) stay read-only; secrets
    /// ([`PathRole::Secret`](crate::approval::PathRole::Secret)) unreadable; network off unless `network`.
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
/// use tool_core::{Confinement, approval::Egress};
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
#[serde(try_from = "serde_json::Value")]
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

    /// Checks every entry: `allow` and `deny` hold host names or
    /// `*.suffix` patterns (no address, scheme, port, path or other
    /// wildcard: such an entry could never match, and a typo in `deny`
    /// would silently deny nothing), `methods` HTTP method names. The
    /// error names the first bad entry as a JSON pointer (`/allow/1`).
    ///
    /// ```
    /// use tool_core::approval::Egress;
    ///
    /// assert!(Egress::allow(["registry.example", "*.cdn.example"]).check().is_ok());
    /// let err = Egress::allow(["registry.example"]).with_deny(["https://x.example/"]).check();
    /// assert!(err.unwrap_err().to_string().contains("/deny/0"));
    /// ```
    pub fn check(&self) -> Result<(), Error> {
        self.check_at("")
    }

    fn check_at(&self, at: &str) -> Result<(), Error> {
        for (key, entries) in [("allow", &self.allow), ("deny", &self.deny)] {
            for (i, entry) in entries.iter().enumerate() {
                check_name(entry).map_err(|message| Error::InvalidConfinement {
                    field: format!("{at}/{key}/{i}"),
                    message: format!("`{entry}`: {message}"),
                })?;
            }
        }
        for (i, method) in self.methods.iter().enumerate() {
            let token = !method.is_empty()
                && method
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
            if !token {
                return Err(Error::InvalidConfinement {
                    field: format!("{at}/methods/{i}"),
                    message: format!("`{method}`: not an HTTP method name (GET, HEAD…)"),
                });
            }
        }
        Ok(())
    }

    /// The allow-list object at `at` (`/network` or `/egress`).
    fn from_json_at(value: &Value, at: &str) -> Result<Self, Error> {
        let map = object(
            value,
            at,
            "an egress object `{\"allow\": [names], \"deny\": [names], \"methods\": [..]}`",
        )?;
        known_keys(map, at, &["allow", "deny", "methods"])?;
        let egress = Self {
            allow: strings(map, at, "allow")?,
            deny: strings(map, at, "deny")?,
            methods: strings(map, at, "methods")?,
        };
        egress.check_at(at)?;
        Ok(egress)
    }
}

impl TryFrom<Value> for Egress {
    type Error = Error;

    fn try_from(value: Value) -> Result<Self, Error> {
        Self::from_json_at(&value, "")
    }
}

/// Why `entry` is not a host name or a `*.suffix` pattern.
fn check_name(entry: &str) -> Result<(), String> {
    let name = entry.strip_suffix('.').unwrap_or(entry);
    let body = name.strip_prefix("*.").unwrap_or(name);
    if body.is_empty() {
        return Err("an empty name".to_owned());
    }
    if body
        .trim_matches(['[', ']'])
        .parse::<std::net::IpAddr>()
        .is_ok()
    {
        return Err(
            "an IP address: the list holds names only, and addresses are never reached by name"
                .to_owned(),
        );
    }
    if body.contains('*') {
        return Err("a wildcard is only allowed as a leading `*.`".to_owned());
    }
    if body.contains(['/', ':', '@', '?', '#']) {
        return Err("a host name is wanted, without scheme, user, port or path".to_owned());
    }
    if body.len() > 253 {
        return Err("longer than a host name can be (253)".to_owned());
    }
    for label in body.split('.') {
        let fine = !label.is_empty()
            && label.len() <= 63
            && label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if !fine {
            return Err(format!(
                "`{label}` is not a name label (letters, digits, `-`, 1 to 63 of them)"
            ));
        }
    }
    Ok(())
}

/// `value` as an object, or an error at `at` saying it should be `what`.
fn object<'v>(value: &'v Value, at: &str, what: &str) -> Result<&'v Map<String, Value>, Error> {
    value.as_object().ok_or_else(|| Error::InvalidConfinement {
        field: at.to_owned(),
        message: format!("expected {what}, found {}", kind(value)),
    })
}

/// Refuses a key of `map` not among `known`.
fn known_keys(map: &Map<String, Value>, at: &str, known: &[&str]) -> Result<(), Error> {
    match map.keys().find(|k| !known.contains(&k.as_str())) {
        Some(key) => Err(Error::InvalidConfinement {
            field: format!("{at}/{key}"),
            message: format!("unknown key `{key}` (expected one of {})", known.join(", ")),
        }),
        None => Ok(()),
    }
}

/// The list of strings at `map[key]` (empty when absent).
fn strings(map: &Map<String, Value>, at: &str, key: &str) -> Result<Vec<String>, Error> {
    let here = format!("{at}/{key}");
    match map.get(key) {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                item.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| Error::InvalidConfinement {
                        field: format!("{here}/{i}"),
                        message: format!("expected a string, found {}", kind(item)),
                    })
            })
            .collect(),
        Some(other) => Err(Error::InvalidConfinement {
            field: here,
            message: format!("expected a list of strings, found {}", kind(other)),
        }),
    }
}

/// How a JSON value is named in an error.
fn kind(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("`{b}`"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string \"{s}\""),
        Value::Array(_) => "a list".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}

impl TryFrom<Value> for Confinement {
    type Error = Error;

    fn try_from(value: Value) -> Result<Self, Error> {
        Self::from_json(&value)
    }
}

impl Confinement {
    /// Reads a confinement from JSON: `{"mode": ...}` with the keys of its
    /// mode, `network` a flag or an egress allow-list object (see the type's
    /// documentation). Every problem is an [`Error::InvalidConfinement`]
    /// naming the field as a JSON pointer (`/network/allow/1`).
    pub fn from_json(value: &Value) -> Result<Self, Error> {
        let map = object(value, "", "a confinement object `{\"mode\": ...}`")?;
        let mode = match map.get("mode") {
            Some(Value::String(mode)) => mode.as_str(),
            Some(other) => {
                return Err(Error::InvalidConfinement {
                    field: "/mode".to_owned(),
                    message: format!("expected a mode name, found {}", kind(other)),
                });
            }
            None => {
                return Err(Error::InvalidConfinement {
                    field: "/mode".to_owned(),
                    message: "missing (full_access, workspace_write or read_only)".to_owned(),
                });
            }
        };
        match mode {
            "full_access" => {
                known_keys(map, "", &["mode"])?;
                Ok(Self::FullAccess)
            }
            "workspace_write" => {
                known_keys(map, "", &["mode", "writable_roots", "network", "egress"])?;
                let writable_roots = strings(map, "", "writable_roots")?
                    .into_iter()
                    .map(PathBuf::from)
                    .collect();
                let (network, egress) = network_setting(map)?;
                Ok(Self::WorkspaceWrite {
                    writable_roots,
                    network,
                    egress,
                })
            }
            "read_only" => {
                known_keys(map, "", &["mode", "network", "egress"])?;
                let (network, egress) = network_setting(map)?;
                Ok(Self::ReadOnly { network, egress })
            }
            other => Err(Error::InvalidConfinement {
                field: "/mode".to_owned(),
                message: format!(
                    "unknown mode `{other}` (expected full_access, workspace_write or read_only)"
                ),
            }),
        }
    }

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

/// A confinement's `network` and `egress` keys: `network` a flag or the
/// allow-list object itself, `egress` the allow-list object; the list
/// given once.
fn network_setting(map: &Map<String, Value>) -> Result<(bool, Option<Egress>), Error> {
    let egress = map
        .get("egress")
        .map(|v| Egress::from_json_at(v, "/egress"))
        .transpose()?;
    match map.get("network") {
        None => Ok((false, egress)),
        Some(Value::Bool(on)) => Ok((*on, egress)),
        Some(list @ Value::Object(_)) if egress.is_none() => {
            Ok((false, Some(Egress::from_json_at(list, "/network")?)))
        }
        Some(Value::Object(_)) => Err(Error::InvalidConfinement {
            field: "/egress".to_owned(),
            message: "the allow-list is given twice, as `network` and as `egress`: give it once"
                .to_owned(),
        }),
        Some(other) => Err(Error::InvalidConfinement {
            field: "/network".to_owned(),
            message: format!(
                "expected `true`, `false` or an allow-list `{{\"allow\": [names]}}`, found {}",
                kind(other)
            ),
        }),
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

    /// The field an [`Error::InvalidConfinement`] names, for the tests.
    fn field_of(value: Value) -> String {
        match Confinement::from_json(&value) {
            Err(Error::InvalidConfinement { field, .. }) => field,
            other => format!("not refused: {other:?}"),
        }
    }

    #[test]
    fn network_as_an_allow_list_reads_as_egress_by_name() {
        let issue: Confinement = serde_json::from_str(
            r#"{"mode": "workspace_write", "network": {"allow": ["registry.example", "*.cdn.example"]}}"#,
        )
        .unwrap_or_default();
        let expected = Confinement::workspace_write()
            .with_egress(Egress::allow(["registry.example", "*.cdn.example"]));
        assert_eq!(issue, expected);
        assert!(!issue.network());
        // The same as the `egress` key, in read_only too, with deny and methods.
        let full = serde_json::json!({"mode": "read_only", "network": {
            "allow": ["registry.example"], "deny": ["bad.registry.example"], "methods": ["GET", "HEAD"]}});
        let read = Confinement::from_json(&full).unwrap_or_default();
        assert_eq!(
            read,
            Confinement::read_only().with_egress(
                Egress::allow(["registry.example"])
                    .with_deny(["bad.registry.example"])
                    .with_methods(["GET", "HEAD"])
            )
        );
        // What is written reads back; flags and the old `egress` key still read.
        let back: Confinement =
            serde_json::from_value(serde_json::to_value(&read).unwrap_or_default())
                .unwrap_or_default();
        assert_eq!(back, read);
        let flag = serde_json::json!({"mode": "workspace_write", "network": true});
        assert_eq!(
            Confinement::from_json(&flag).ok(),
            Some(Confinement::workspace_write().with_network(true))
        );
        let old =
            serde_json::json!({"mode": "workspace_write", "egress": {"allow": ["a.example"]}});
        assert_eq!(
            Confinement::from_json(&old).ok(),
            Some(Confinement::workspace_write().with_egress(Egress::allow(["a.example"])))
        );
        let egress: Egress = serde_json::from_str(r#"{"allow": ["a.example"]}"#)
            .unwrap_or_else(|_| Egress::allow(["not read"]));
        assert_eq!(egress, Egress::allow(["a.example"]));
    }

    #[test]
    fn bad_confinement_shapes_are_refused_naming_the_field() {
        let ws =
            |network: Value| serde_json::json!({"mode": "workspace_write", "network": network});
        let cases = [
            (ws(serde_json::json!("registry.example")), "/network"),
            (ws(serde_json::json!(["registry.example"])), "/network"),
            (ws(serde_json::json!(null)), "/network"),
            (
                ws(serde_json::json!({"allow": "registry.example"})),
                "/network/allow",
            ),
            (
                ws(serde_json::json!({"allow": ["a.example", 7]})),
                "/network/allow/1",
            ),
            (
                ws(serde_json::json!({"allow": ["a.example", "10.0.0.7"]})),
                "/network/allow/1",
            ),
            (
                ws(serde_json::json!({"allow": ["[::1]"]})),
                "/network/allow/0",
            ),
            (
                ws(serde_json::json!({"allow": ["https://registry.example/"]})),
                "/network/allow/0",
            ),
            (
                ws(serde_json::json!({"allow": ["registry.example:443"]})),
                "/network/allow/0",
            ),
            (ws(serde_json::json!({"allow": ["*"]})), "/network/allow/0"),
            (
                ws(serde_json::json!({"allow": ["a.*.example"]})),
                "/network/allow/0",
            ),
            (ws(serde_json::json!({"allow": [""]})), "/network/allow/0"),
            (
                ws(serde_json::json!({"allow": ["a..example"]})),
                "/network/allow/0",
            ),
            (
                ws(serde_json::json!({"allow": ["a.example"], "deny": ["*.*"]})),
                "/network/deny/0",
            ),
            (
                ws(serde_json::json!({"allow": ["a.example"], "dney": ["b.example"]})),
                "/network/dney",
            ),
            (
                ws(serde_json::json!({"allow": ["a.example"], "methods": ["GET /"]})),
                "/network/methods/0",
            ),
            (
                serde_json::json!({"mode": "workspace_write", "network": {"allow": ["a.example"]}, "egress": {"allow": ["b.example"]}}),
                "/egress",
            ),
            (
                serde_json::json!({"mode": "workspace_write", "egress": {"allow": ["1.2.3.4"]}}),
                "/egress/allow/0",
            ),
            (
                serde_json::json!({"mode": "workspace_write", "writable_roots": "/srv"}),
                "/writable_roots",
            ),
            (
                serde_json::json!({"mode": "workspace_write", "netwrok": true}),
                "/netwrok",
            ),
            (
                serde_json::json!({"mode": "read_only", "writable_roots": []}),
                "/writable_roots",
            ),
            (
                serde_json::json!({"mode": "full_access", "network": false}),
                "/network",
            ),
            (serde_json::json!({"mode": "sandboxed"}), "/mode"),
            (serde_json::json!({"mode": 1}), "/mode"),
            (serde_json::json!({"network": true}), "/mode"),
            (serde_json::json!("workspace_write"), ""),
        ];
        for (value, field) in cases {
            assert_eq!(field_of(value.clone()), field, "{value}");
        }
        // Through serde too (policy files, stored decisions): the message names the field.
        let err = serde_json::from_str::<Confinement>(
            r#"{"mode": "workspace_write", "network": {"allow": ["registry.example", "10.0.0.7"]}}"#,
        )
        .map(|_| ())
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("/network/allow/1") && err.contains("IP address"),
            "{err}"
        );
        assert!(serde_json::from_str::<Egress>(r#"{"allow": ["x"], "extra": 1}"#).is_err());
        assert!(
            Egress::allow(["a.example"])
                .with_methods([""])
                .check()
                .is_err()
        );
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
