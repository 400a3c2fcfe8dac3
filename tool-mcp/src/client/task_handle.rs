//! A remote task as data: [`McpTaskHandle`], what a host keeps of a call a
//! server made a task (SEP-2663) so that any process holding the same
//! [`TaskKeys`] can look at it again, take its result or cancel it —
//! after the process that started it has ended.
//!
//! A handle names the server (its configuration id and a digest of where
//! it is: the URL, or the command line of a stdio server), the remote
//! tool, the digest of the call's arguments, the server's task id, the
//! approval that let the call run (the host's record, verbatim), when it
//! was made and until when the server keeps the task. All of it is covered
//! by an HMAC-SHA-256 (`mac`, made with the key `keyId`, domain
//! [`HANDLE_DOMAIN`], over the canonical JSON of the other fields): a
//! handle whose task id, server, approval or any other field was edited,
//! or that was made with a key this host does not hold, is refused with
//! [`Error::TaskHandle`] before anything is sent, and so is a handle for a
//! server that is now configured somewhere else.
//!
//! The handle is not a secret from the server (the task id is the
//! server's), but it is the host's proof of what it approved: keep the
//! keys out of what the model or a client sees.
//!
//! # Rotating keys
//!
//! Put a new key first, the old one after it
//! (`TaskKeys::new(new).with_previous(old)`); once every handle made with
//! the old one is past its `expiresAtMs`, drop it.

use std::time::{SystemTime, UNIX_EPOCH};

use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use sha2::Sha256;

use crate::client::config::{McpServerConfig, McpTransport};
use crate::error::Error;

type HmacSha256 = Hmac<Sha256>;

/// The domain a handle's MAC is made in (no other MAC of the same key can
/// pass for a handle's).
pub const HANDLE_DOMAIN: &str = "tool-mcp/task-handle/v1";

/// The shortest secret a [`TaskKey`] takes: 32 bytes.
pub const MIN_TASK_SECRET_LEN: usize = 32;

/// The version of the handle's shape.
const VERSION: u32 = 1;

/// One HMAC-SHA-256 key for task handles, with its id (the secret is
/// never printed).
#[derive(Clone)]
pub struct TaskKey {
    id: String,
    keyed: HmacSha256,
}

impl std::fmt::Debug for TaskKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskKey")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl TaskKey {
    /// A key named `id` (1 to 64 of `[A-Za-z0-9._-]`) with at least
    /// [`MIN_TASK_SECRET_LEN`] bytes of secret.
    pub fn new(id: impl Into<String>, secret: impl AsRef<[u8]>) -> Result<Self, Error> {
        let id = id.into();
        let secret = secret.as_ref();
        let id_ok = !id.is_empty()
            && id.len() <= 64
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
        if !id_ok {
            return Err(handle_error(format!(
                "task key id {id:?}: 1 to 64 letters, digits, `.`, `_` or `-`"
            )));
        }
        if secret.len() < MIN_TASK_SECRET_LEN {
            return Err(handle_error(format!(
                "task key `{id}`: the secret has {} bytes; at least {MIN_TASK_SECRET_LEN} are needed",
                secret.len()
            )));
        }
        let keyed = HmacSha256::new_from_slice(secret)
            .map_err(|_| handle_error(format!("task key `{id}`: HMAC refused the secret")))?;
        Ok(Self { id, keyed })
    }

    /// The key's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    fn mac(&self, body: &str) -> HmacSha256 {
        let mut mac = self.keyed.clone();
        mac.update(HANDLE_DOMAIN.as_bytes());
        mac.update(&[0]);
        mac.update(body.as_bytes());
        mac
    }
}

/// The keys a host makes and checks task handles with: the current one
/// signs, previous ones still verify (see the module guide).
#[derive(Debug, Clone)]
pub struct TaskKeys {
    current: TaskKey,
    previous: Vec<TaskKey>,
}

impl TaskKeys {
    /// Keys signing with `current`.
    pub fn new(current: TaskKey) -> Self {
        Self {
            current,
            previous: Vec::new(),
        }
    }

    /// The same keys, also verifying with `key` (rotated out).
    pub fn with_previous(mut self, key: TaskKey) -> Self {
        self.previous.push(key);
        self
    }
}

/// A task a server made of one call, as data (see the module guide).
/// Serialise it with serde (or [`to_json`](Self::to_json)); read it back
/// with [`from_json`](Self::from_json) and hand it to
/// [`McpManager::task_status`](crate::McpManager::task_status),
/// [`wait_task`](crate::McpManager::wait_task) or
/// [`cancel_task`](crate::McpManager::cancel_task), which check it first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct McpTaskHandle {
    /// The shape's version (1).
    pub version: u32,
    /// The server's configuration id.
    pub server: String,
    /// Where the server is: SHA-256 of its URL (HTTP) or its command,
    /// arguments and working directory (stdio).
    pub endpoint: String,
    /// The remote tool.
    pub tool: String,
    /// SHA-256 of the call's arguments (canonical JSON).
    pub arguments_digest: String,
    /// The server's task id.
    pub task_id: String,
    /// The host's record of the approval that let the call run, verbatim.
    pub approval: Value,
    /// When the handle was made (milliseconds since the Unix epoch).
    pub created_at_ms: u64,
    /// Until when the server said it keeps the task (its `ttlMs` after
    /// the handle was made); `None`: it did not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at_ms: Option<u64>,
    /// The id of the key the MAC was made with.
    pub key_id: String,
    /// HMAC-SHA-256 (hex) over the other fields (see the module guide).
    pub mac: String,
}

fn handle_error(message: String) -> Error {
    Error::TaskHandle { message }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if text.len() != 64 {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Where `config`'s server is, as a digest (secrets left out: a rotated
/// token does not orphan the server's tasks).
pub(crate) fn endpoint_of(config: &McpServerConfig) -> String {
    let place = match &config.transport {
        McpTransport::Http { url, .. } => json!({"http": url}),
        McpTransport::Stdio {
            command, args, cwd, ..
        } => json!({"stdio": {"command": command, "args": args, "cwd": cwd}}),
    };
    tool_core::durable::digest(&place)
}

/// What the MAC covers: every field but `mac`, as canonical JSON.
fn body(handle: &McpTaskHandle) -> Result<String, Error> {
    let mut value = serde_json::to_value(handle)
        .map_err(|e| handle_error(format!("the handle does not serialise: {e}")))?;
    if let Value::Object(fields) = &mut value {
        fields.remove("mac");
    }
    Ok(tool_core::durable::canonical_json(&value))
}

/// What a new handle is made of (everything but the MAC).
pub(crate) struct NewHandle<'a> {
    pub(crate) config: &'a McpServerConfig,
    pub(crate) tool: &'a str,
    pub(crate) arguments: &'a Map<String, Value>,
    pub(crate) task_id: String,
    pub(crate) ttl_ms: Option<u64>,
    pub(crate) approval: Value,
}

impl TaskKeys {
    /// A signed handle.
    pub(crate) fn sign(&self, new: NewHandle<'_>) -> Result<McpTaskHandle, Error> {
        let created_at_ms = now_ms();
        let mut handle = McpTaskHandle {
            version: VERSION,
            server: new.config.id.clone(),
            endpoint: endpoint_of(new.config),
            tool: new.tool.to_owned(),
            arguments_digest: tool_core::durable::digest(&Value::Object(new.arguments.clone())),
            task_id: new.task_id,
            approval: new.approval,
            created_at_ms,
            expires_at_ms: new.ttl_ms.map(|ttl| created_at_ms.saturating_add(ttl)),
            key_id: self.current.id.clone(),
            mac: String::new(),
        };
        let body = body(&handle)?;
        handle.mac = hex(&self.current.mac(&body).finalize().into_bytes());
        Ok(handle)
    }

    /// Checks `handle`'s MAC (constant time), version and expiry, and that
    /// its server is `config` at the same place.
    pub(crate) fn verify(
        &self,
        handle: &McpTaskHandle,
        config: Option<&McpServerConfig>,
    ) -> Result<(), Error> {
        if handle.version != VERSION {
            return Err(handle_error(format!(
                "task handle version {} is not one this host reads (1)",
                handle.version
            )));
        }
        let key = std::iter::once(&self.current)
            .chain(&self.previous)
            .find(|k| k.id == handle.key_id)
            .ok_or_else(|| {
                handle_error(format!(
                    "task handle for `{}`: no key with id `{}` is held here",
                    handle.task_id, handle.key_id
                ))
            })?;
        let expected = unhex(&handle.mac).ok_or_else(|| {
            handle_error(format!(
                "task handle for `{}`: the MAC is not 64 hex digits",
                handle.task_id
            ))
        })?;
        key.mac(&body(handle)?)
            .verify_slice(&expected)
            .map_err(|_| {
                handle_error(format!(
                    "task handle for `{}`: the MAC does not match (forged, edited or made with another key)",
                    handle.task_id
                ))
            })?;
        let Some(config) = config else {
            return Err(handle_error(format!(
                "task handle for `{}`: no MCP server `{}` is configured here",
                handle.task_id, handle.server
            )));
        };
        if endpoint_of(config) != handle.endpoint {
            return Err(handle_error(format!(
                "task handle for `{}`: MCP server `{}` is configured somewhere else now than where the task was started",
                handle.task_id, handle.server
            )));
        }
        if let Some(expires) = handle.expires_at_ms
            && now_ms() > expires
        {
            return Err(handle_error(format!(
                "task handle for `{}`: expired (the server keeps its tasks {} ms)",
                handle.task_id,
                expires.saturating_sub(handle.created_at_ms)
            )));
        }
        Ok(())
    }
}

impl McpTaskHandle {
    /// The handle as compact JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// A handle read from JSON (not checked yet: the manager checks it
    /// before use). Text that is no handle is [`Error::TaskHandle`]
    /// naming what is wrong.
    pub fn from_json(text: &str) -> Result<Self, Error> {
        serde_json::from_str(text).map_err(|e| handle_error(format!("not an MCP task handle: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(id: &str, byte: u8) -> TaskKeys {
        TaskKeys::new(TaskKey::new(id, [byte; 32]).unwrap())
    }

    fn config(url: &str) -> McpServerConfig {
        McpServerConfig::new("s", McpTransport::http(url))
    }

    fn handle(keys: &TaskKeys, config: &McpServerConfig) -> McpTaskHandle {
        let mut arguments = Map::new();
        arguments.insert("seconds".into(), json!(3));
        keys.sign(NewHandle {
            config,
            tool: "slow",
            arguments: &arguments,
            task_id: "t-1".into(),
            ttl_ms: Some(60_000),
            approval: json!({"action": "run", "policy": "p1"}),
        })
        .unwrap()
    }

    #[test]
    fn a_handle_round_trips_through_json_and_verifies() {
        let (keys, config) = (keys("k1", 1), config("http://127.0.0.1:1/mcp"));
        let made = handle(&keys, &config);
        let read = McpTaskHandle::from_json(&made.to_json()).unwrap();
        assert_eq!(read, made);
        keys.verify(&read, Some(&config)).unwrap();
    }

    #[test]
    fn every_edited_field_forged_key_or_moved_server_is_refused_by_name() {
        let (keys, config) = (keys("k1", 1), config("http://127.0.0.1:1/mcp"));
        let made = handle(&keys, &config);
        let edits: [(&str, Value); 8] = [
            ("taskId", json!("t-2")),
            ("server", json!("other")),
            ("tool", json!("delete_everything")),
            ("argumentsDigest", json!("00")),
            ("approval", json!({"action": "run", "policy": "p2"})),
            ("expiresAtMs", json!(u64::MAX)),
            ("endpoint", json!("ff")),
            ("createdAtMs", json!(1)),
        ];
        for (field, value) in edits {
            let mut raw = serde_json::to_value(&made).unwrap();
            raw[field] = value;
            let edited: McpTaskHandle = serde_json::from_value(raw).unwrap();
            let err = keys.verify(&edited, Some(&config)).unwrap_err();
            assert_eq!(err.code(), "mcp_task_handle", "{field}");
            assert!(
                err.to_string().contains("MAC does not match"),
                "{field}: {err}"
            );
        }
        // Another key with the same id: the MAC does not match.
        let forged = handle(&self::keys("k1", 2), &config);
        assert!(keys.verify(&forged, Some(&config)).is_err());
        // A key this host does not hold.
        let unknown = handle(&self::keys("k9", 1), &config);
        let err = keys.verify(&unknown, Some(&config)).unwrap_err();
        assert!(err.to_string().contains("no key with id `k9`"), "{err}");
        // A rotated-out key still verifies once kept as previous.
        let rotated = self::keys("k2", 3).with_previous(TaskKey::new("k1", [1; 32]).unwrap());
        rotated.verify(&made, Some(&config)).unwrap();
        // The server moved.
        let moved = self::config("http://127.0.0.1:2/mcp");
        let err = keys.verify(&made, Some(&moved)).unwrap_err();
        assert!(err.to_string().contains("somewhere else"), "{err}");
        let err = keys.verify(&made, None).unwrap_err();
        assert!(err.to_string().contains("no MCP server `s`"), "{err}");
        // Garbage MACs and unknown fields.
        let mut bad = made.clone();
        bad.mac = "zz".into();
        assert!(keys.verify(&bad, Some(&config)).is_err());
        let mut raw = serde_json::to_value(&made).unwrap();
        raw["extra"] = json!(1);
        let err = McpTaskHandle::from_json(&raw.to_string()).unwrap_err();
        assert!(err.to_string().contains("not an MCP task handle"), "{err}");
    }

    #[test]
    fn an_expired_handle_and_a_weak_key_are_refused() {
        let (keys, config) = (keys("k1", 1), config("http://127.0.0.1:1/mcp"));
        let mut arguments = Map::new();
        arguments.insert("a".into(), json!(1));
        let mut made = keys
            .sign(NewHandle {
                config: &config,
                tool: "slow",
                arguments: &arguments,
                task_id: "t".into(),
                ttl_ms: Some(0),
                approval: Value::Null,
            })
            .unwrap();
        made.created_at_ms -= 10;
        made.expires_at_ms = Some(made.created_at_ms);
        let resigned = {
            let body = body(&made).unwrap();
            hex(&keys.current.mac(&body).finalize().into_bytes())
        };
        made.mac = resigned;
        let err = keys.verify(&made, Some(&config)).unwrap_err();
        assert!(err.to_string().contains("expired"), "{err}");
        assert!(TaskKey::new("k", [0; 31]).is_err());
        assert!(TaskKey::new("bad id", [0; 32]).is_err());
    }
}
