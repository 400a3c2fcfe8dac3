//! Server configurations: what a host stores about each MCP server.
//!
//! The JSON shape is camelCase like tool manifests:
//!
//! ```json
//! {"id": "files", "name": "File server",
//!  "transport": {"type": "stdio", "command": "mcp-files", "args": ["--root", "."],
//!                "env": {"API_KEY": "…"}, "cwd": "/srv"},
//!  "startupTimeoutMs": 10000, "callTimeoutMs": 60000, "enabled": true,
//!  "updatedAt": "2026-12-01T10:00:00Z",
//!  "approval": {"server": "required", "tools": {"read_file": "never"}}}
//! ```
//!
//! `env` values and `headers` values are [`McpSecret`]s: their `Debug` output is
//! redacted and tool-mcp never puts them in a log line, an error, a content or
//! a state.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tool_core::{InterventionPolicy, manifest::is_valid_name};

use crate::client::secret::McpSecret;
use crate::error::Error;

/// Startup (handshake) budget when a configuration sets none: 30 s.
pub const DEFAULT_STARTUP_TIMEOUT_MS: u64 = 30_000;
/// Shortest accepted startup budget: 100 ms.
pub const MIN_STARTUP_TIMEOUT_MS: u64 = 100;
/// Longest accepted startup budget: 10 min.
pub const MAX_STARTUP_TIMEOUT_MS: u64 = 600_000;

/// Header names the streamable HTTP transport sets itself; a configuration
/// may not set them.
pub const RESERVED_HEADERS: &[&str] = &[
    "accept",
    "connection",
    "content-length",
    "content-type",
    "host",
    "last-event-id",
    "mcp-protocol-version",
    "mcp-session-id",
    "transfer-encoding",
    "upgrade",
];

/// How to reach a server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
#[non_exhaustive]
pub enum McpTransport {
    /// A child process speaking MCP on stdin/stdout.
    Stdio {
        /// The program to run (looked up on `PATH` when not a path).
        command: String,
        /// Its arguments.
        #[serde(default)]
        args: Vec<String>,
        /// Extra environment variables (secrets).
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        env: BTreeMap<String, McpSecret>,
        /// Its working directory.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cwd: Option<PathBuf>,
    },
    /// A streamable HTTP endpoint.
    Http {
        /// The endpoint, `http://` or `https://`.
        url: String,
        /// Extra request headers (secrets), e.g. `Authorization`.
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        headers: BTreeMap<String, McpSecret>,
    },
}

impl McpTransport {
    /// A stdio transport running `command` with `args`.
    pub fn stdio(
        command: impl Into<String>,
        args: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        Self::Stdio {
            command: command.into(),
            args: args.into_iter().map(Into::into).collect(),
            env: BTreeMap::new(),
            cwd: None,
        }
    }

    /// A streamable HTTP transport to `url`.
    pub fn http(url: impl Into<String>) -> Self {
        Self::Http {
            url: url.into(),
            headers: BTreeMap::new(),
        }
    }

    /// `stdio` or `http`.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Stdio { .. } => "stdio",
            Self::Http { .. } => "http",
        }
    }

    /// Every secret with its field path, e.g. `transport.env.API_KEY`.
    pub fn secrets(&self) -> Vec<(String, &McpSecret)> {
        match self {
            Self::Stdio { env, .. } => env
                .iter()
                .map(|(k, v)| (format!("transport.env.{k}"), v))
                .collect(),
            Self::Http { headers, .. } => headers
                .iter()
                .map(|(k, v)| (format!("transport.headers.{k}"), v))
                .collect(),
        }
    }

    pub(crate) fn secrets_mut(&mut self) -> Vec<(String, &mut McpSecret)> {
        match self {
            Self::Stdio { env, .. } => env
                .iter_mut()
                .map(|(k, v)| (format!("transport.env.{k}"), v))
                .collect(),
            Self::Http { headers, .. } => headers
                .iter_mut()
                .map(|(k, v)| (format!("transport.headers.{k}"), v))
                .collect(),
        }
    }
}

/// Host overrides of the approval policy the annotations suggest.
///
/// Precedence: a per-tool entry, then `server`, then the default from the
/// tool's annotations (see [`crate::default_policy`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ApprovalOverrides {
    /// Policy for every tool of the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<InterventionPolicy>,
    /// Policy per remote tool name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tools: BTreeMap<String, InterventionPolicy>,
}

/// One MCP server as a host stores it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct McpServerConfig {
    /// Stable id, `[A-Za-z0-9_-]+`; it becomes the tool identifier.
    pub id: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// How to reach the server.
    pub transport: McpTransport,
    /// Handshake budget in ms (default 30 000, accepted 100 … 600 000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub startup_timeout_ms: Option<u64>,
    /// Default budget of one call in ms, handed to the pipeline as the APIs'
    /// `defaultTimeoutMs` (the pipeline clamps it to its own limits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_timeout_ms: Option<u64>,
    /// Disabled servers are skipped (and reported as such).
    #[serde(default = "yes")]
    pub enabled: bool,
    /// The version of this configuration (opaque, e.g. RFC 3339); the tool
    /// catalog is cached per `id` + `updatedAt`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
    /// Approval overrides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<ApprovalOverrides>,
    /// Which protocol revision to speak (default [`McpProtocol::Auto`]).
    #[serde(default, skip_serializing_if = "McpProtocol::is_auto")]
    pub protocol: McpProtocol,
}

/// Which MCP revision a client speaks to a server.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum McpProtocol {
    /// `server/discover` first (2026-07-28); when the server does not know
    /// it, the `initialize` handshake (2025-11-25). The answer is
    /// remembered per server for the manager's life.
    #[default]
    #[serde(rename = "auto")]
    Auto,
    /// 2025-11-25 only: the `initialize` handshake and a session.
    #[serde(rename = "2025-11-25")]
    V2025_11_25,
    /// 2026-07-28 only: `server/discover`, stateless requests with
    /// per-request `_meta`, multi-round-trip questions.
    #[serde(rename = "2026-07-28")]
    V2026_07_28,
}

impl McpProtocol {
    fn is_auto(&self) -> bool {
        *self == Self::Auto
    }
}

fn yes() -> bool {
    true
}

impl McpServerConfig {
    /// An enabled configuration with defaults.
    pub fn new(id: impl Into<String>, transport: McpTransport) -> Self {
        Self {
            id: id.into(),
            name: None,
            transport,
            startup_timeout_ms: None,
            call_timeout_ms: None,
            enabled: true,
            updated_at: None,
            approval: None,
            protocol: McpProtocol::Auto,
        }
    }

    /// Speaks `protocol` to this server.
    pub fn with_protocol(mut self, protocol: McpProtocol) -> Self {
        self.protocol = protocol;
        self
    }

    /// Sets the handshake budget.
    pub fn with_startup_timeout(mut self, timeout: Duration) -> Self {
        self.startup_timeout_ms = Some(timeout.as_millis().min(u128::from(u64::MAX)) as u64);
        self
    }

    /// Sets the default call budget.
    pub fn with_call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout_ms = Some(timeout.as_millis().min(u128::from(u64::MAX)) as u64);
        self
    }

    /// Sets the version string.
    pub fn with_updated_at(mut self, updated_at: impl Into<String>) -> Self {
        self.updated_at = Some(updated_at.into());
        self
    }

    /// Sets the display name.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Sets the approval overrides.
    pub fn with_approval(mut self, approval: ApprovalOverrides) -> Self {
        self.approval = Some(approval);
        self
    }

    /// The handshake budget.
    pub fn startup_timeout(&self) -> Duration {
        Duration::from_millis(
            self.startup_timeout_ms
                .unwrap_or(DEFAULT_STARTUP_TIMEOUT_MS),
        )
    }

    /// Parses one configuration from JSON and validates it; errors name the
    /// server (`#index` is used by [`parse_server_list`] when the id is missing)
    /// and the field.
    pub fn from_json(value: &Value) -> Result<Self, Error> {
        Self::from_json_at(value, None)
    }

    fn from_json_at(value: &Value, index: Option<usize>) -> Result<Self, Error> {
        let server = value
            .get("id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .unwrap_or_else(|| match index {
                Some(i) => format!("#{i}"),
                None => "<no id>".to_owned(),
            });
        let invalid = |field: &str, message: String| Error::InvalidConfig {
            server: server.clone(),
            field: field.to_owned(),
            message,
        };
        let Some(object) = value.as_object() else {
            return Err(invalid("", "expected a JSON object".into()));
        };
        if !object.contains_key("id") {
            return Err(invalid("id", "missing".into()));
        }
        match object.get("transport") {
            None => return Err(invalid("transport", "missing".into())),
            Some(transport) => match transport.get("type").and_then(Value::as_str) {
                Some("stdio" | "http") => {}
                Some(other) => {
                    return Err(invalid(
                        "transport.type",
                        format!("unknown transport `{other}`, expected `stdio` or `http`"),
                    ));
                }
                None => {
                    return Err(invalid(
                        "transport.type",
                        "missing, expected `stdio` or `http`".into(),
                    ));
                }
            },
        }
        let config: Self = serde_json::from_value(value.clone())
            .map_err(|e| invalid(&guess_field(&e.to_string()), scrub_serde(&e.to_string())))?;
        config.validate()?;
        Ok(config)
    }

    /// Checks the configuration: id, command, URL, header names, env names,
    /// timeouts. The first problem is the error, naming server and field.
    pub fn validate(&self) -> Result<(), Error> {
        let invalid = |field: &str, message: &str| Error::InvalidConfig {
            server: if self.id.is_empty() {
                "<no id>".to_owned()
            } else {
                self.id.clone()
            },
            field: field.to_owned(),
            message: message.to_owned(),
        };
        if !is_valid_name(&self.id) {
            return Err(invalid(
                "id",
                "must be non-empty and use only A-Z, a-z, 0-9, `_` and `-`",
            ));
        }
        match &self.transport {
            McpTransport::Stdio { command, env, .. } => {
                if command.trim().is_empty() {
                    return Err(invalid("transport.command", "must not be empty"));
                }
                if command.contains('\0') {
                    return Err(invalid("transport.command", "contains a NUL byte"));
                }
                for name in env.keys() {
                    if name.is_empty() || name.contains('=') || name.contains('\0') {
                        return Err(invalid(
                            &format!("transport.env.{name}"),
                            "an environment variable name must be non-empty, without `=` or NUL",
                        ));
                    }
                }
            }
            McpTransport::Http { url, headers } => {
                let parsed = reqwest::Url::parse(url)
                    .map_err(|e| invalid("transport.url", &format!("not a URL: {e}")))?;
                if !matches!(parsed.scheme(), "http" | "https") {
                    return Err(invalid(
                        "transport.url",
                        &format!("scheme `{}` is not http or https", parsed.scheme()),
                    ));
                }
                if parsed.host_str().is_none_or(str::is_empty) {
                    return Err(invalid("transport.url", "has no host"));
                }
                for (name, value) in headers {
                    let field = format!("transport.headers.{name}");
                    if http::HeaderName::from_str(name).is_err() {
                        return Err(invalid(&field, "not a valid header name"));
                    }
                    if RESERVED_HEADERS.contains(&name.to_ascii_lowercase().as_str()) {
                        return Err(invalid(
                            &field,
                            "this header is set by the MCP transport and cannot be configured",
                        ));
                    }
                    if !value.is_sealed() && http::HeaderValue::from_str(value.expose()).is_err() {
                        return Err(invalid(&field, "the value is not a valid header value"));
                    }
                }
            }
        }
        if let Some(ms) = self.startup_timeout_ms
            && !(MIN_STARTUP_TIMEOUT_MS..=MAX_STARTUP_TIMEOUT_MS).contains(&ms)
        {
            return Err(invalid(
                "startupTimeoutMs",
                &format!("{ms} is outside {MIN_STARTUP_TIMEOUT_MS} … {MAX_STARTUP_TIMEOUT_MS}"),
            ));
        }
        if self.call_timeout_ms == Some(0) {
            return Err(invalid("callTimeoutMs", "must be positive"));
        }
        Ok(())
    }
}

/// Parses a list of configurations: a JSON array, or `{"servers": [...]}`.
/// Returns every configuration that is valid and one error per one that is
/// not (a duplicate id is an error too); nothing is dropped silently.
pub fn parse_server_list(text: &str) -> (Vec<McpServerConfig>, Vec<Error>) {
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => {
            return (
                Vec::new(),
                vec![Error::InvalidConfig {
                    server: "<file>".into(),
                    field: format!("line {} column {}", e.line(), e.column()),
                    message: format!("not JSON: {e}"),
                }],
            );
        }
    };
    let items = match &value {
        Value::Array(items) => items.as_slice(),
        Value::Object(map) => match map.get("servers") {
            Some(Value::Array(items)) => items.as_slice(),
            _ => {
                return (
                    Vec::new(),
                    vec![Error::InvalidConfig {
                        server: "<file>".into(),
                        field: "servers".into(),
                        message: "expected an array of servers, or {\"servers\": [...]}".into(),
                    }],
                );
            }
        },
        _ => {
            return (
                Vec::new(),
                vec![Error::InvalidConfig {
                    server: "<file>".into(),
                    field: String::new(),
                    message: "expected an array of servers, or {\"servers\": [...]}".into(),
                }],
            );
        }
    };
    let mut configs: Vec<McpServerConfig> = Vec::new();
    let mut errors = Vec::new();
    for (index, item) in items.iter().enumerate() {
        match McpServerConfig::from_json_at(item, Some(index)) {
            Ok(config) if configs.iter().any(|c| c.id == config.id) => {
                errors.push(Error::InvalidConfig {
                    server: config.id,
                    field: "id".into(),
                    message: format!("duplicate id (entry #{index})"),
                });
            }
            Ok(config) => configs.push(config),
            Err(error) => errors.push(error),
        }
    }
    (configs, errors)
}

/// Serde names the field in backticks in most messages (`missing field `x``,
/// `unknown field `x``); use it as the field when it does.
fn guess_field(message: &str) -> String {
    let mut parts = message.split('`');
    match (parts.next(), parts.next()) {
        (Some(prefix), Some(name)) if prefix.contains("field") || prefix.contains("variant") => {
            name.to_owned()
        }
        _ => String::new(),
    }
}

/// Serde's type errors quote the offending value (`invalid type: string
/// "sk-…"`); a secret might be that value, so values are cut from messages.
fn scrub_serde(message: &str) -> String {
    match message.find(": string \"") {
        Some(start) => {
            let rest = &message[start + 10..];
            let end = rest.find('"').map_or(rest.len(), |i| i + 1);
            format!("{}: a string{}", &message[..start], &rest[end..])
        }
        None => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secrets_are_redacted_in_debug() {
        let mut config = McpServerConfig::new("s", McpTransport::stdio("x", ["a"]));
        if let McpTransport::Stdio { env, .. } = &mut config.transport {
            env.insert("TOKEN".into(), McpSecret::new("hunter2"));
        }
        let debug = format!("{config:?}");
        assert!(!debug.contains("hunter2"), "{debug}");
        assert!(debug.contains("***"));
    }

    #[test]
    fn serde_messages_lose_string_values() {
        let e = serde_json::from_value::<McpServerConfig>(json!({
            "id": "a", "transport": {"type": "stdio", "command": "x", "env": {"K": 5}}
        }))
        .unwrap_err();
        let _ = e;
        assert_eq!(
            scrub_serde("invalid type: string \"sk-secret\", expected u64"),
            "invalid type: a string, expected u64"
        );
    }
}
