//! `--session FILE`: one conversation's taint session (ledger, pins, quota
//! counts) kept between runs, and the capabilities `toolhost tools` shows.
//!
//! The file is `{"settings": …, "state": …}`, created when missing:
//!
//! - `settings` (written by a person, kept as found): `capabilities` (a
//!   `CapabilityMap`: overrides per API and tool, trusted sources),
//!   `trifecta` (`strict`, `headless`, `allow`), `quotas`, `pins` (a
//!   `PinPolicy`), `redact` (default true: secrets in outputs are replaced
//!   with named placeholders).
//! - `state` (written by toolhost): the `SessionState`.
//!
//! - `remembered` (written by toolhost, absent until there is one): the
//!   "always" answers of `resume --always` given with this session, in
//!   `RememberedAnswers` JSON, scoped to the workspace and this session.
//!
//! Each `toolhost call` is one turn (per-turn quotas start again), and
//! `--user-said TEXT` records what the user wrote (destinations it names
//! are not exfiltration). `call --pending` and `resume` keep the same
//! session: a resumed call continues the turn it was asked in.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tool_core::OfferedTools;
use tool_core::durable::RememberedAnswers;
use tool_core::taint::{
    Capabilities, CapabilityMap, PinPolicy, PinReport, QuotaSettings, Redactor, Session,
    SessionState, TrifectaSettings,
};

use crate::Failure;

/// The settings part of a session file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionSettings {
    /// Capability overrides.
    #[serde(default)]
    pub capabilities: CapabilityMap,
    /// The trifecta rule's settings.
    #[serde(default)]
    pub trifecta: TrifectaSettings,
    /// Quotas and budget.
    #[serde(default)]
    pub quotas: QuotaSettings,
    /// Which tools are pinned.
    #[serde(default)]
    pub pins: PinPolicy,
    /// Redact secrets from outputs.
    #[serde(default = "yes")]
    pub redact: bool,
}

fn yes() -> bool {
    true
}

impl Default for SessionSettings {
    fn default() -> Self {
        Self {
            capabilities: CapabilityMap::default(),
            trifecta: TrifectaSettings::default(),
            quotas: QuotaSettings::default(),
            pins: PinPolicy::default(),
            redact: true,
        }
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Stored {
    #[serde(default)]
    settings: SessionSettings,
    #[serde(default)]
    state: SessionState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    remembered: Option<Value>,
}

/// A loaded session file.
pub struct SessionFile {
    path: PathBuf,
    /// The file's canonical path: the `session` of pending turns' scope.
    id: String,
    settings: SessionSettings,
    session: Arc<Session>,
    remembered: Arc<RememberedAnswers>,
}

/// What the host knows that changes capabilities: commands have network.
#[derive(Debug, Clone, Copy, Default)]
pub struct HostFacts {
    /// The approval mode is headless (a trifecta hit blocks).
    pub headless: bool,
    /// Sandboxed commands may reach the network (`--allow-network`,
    /// `--allow-domain`): `local-system/runCommand` is a way out.
    pub command_network: bool,
}

/// The capability map of the host: the settings' overrides over what the
/// host knows (commands with network are `egress`).
pub fn capability_map(settings: Option<&SessionSettings>, facts: HostFacts) -> CapabilityMap {
    let mut map = settings.map(|s| s.capabilities.clone()).unwrap_or_default();
    let run_command = "local-system/runCommand";
    if facts.command_network
        && !map.apis.contains_key(run_command)
        && !map.tools.contains_key("local-system")
    {
        map.set_api(
            "local-system",
            "runCommand",
            Capabilities::private_read().union(Capabilities::egress()),
        );
    }
    map
}

impl SessionFile {
    /// Loads `path` (an empty session when it does not exist).
    pub fn load(path: &Path, facts: HostFacts) -> Result<Self, Failure> {
        let source = |m: String| Failure::Source(format!("--session {}: {m}", path.display()));
        let stored: Stored = match std::fs::read_to_string(path) {
            Ok(text) => {
                serde_json::from_str(&text).map_err(|e| source(format!("does not read: {e}")))?
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Stored::default(),
            Err(e) => return Err(source(e.to_string())),
        };
        let remembered = match &stored.remembered {
            Some(value) => RememberedAnswers::from_json(&value.to_string())
                .map_err(|e| source(format!("remembered: {e}")))?,
            None => RememberedAnswers::new(),
        };
        let id = session_id(path).map_err(|e| source(e.to_string()))?;
        let mut settings = stored.settings;
        if facts.headless {
            settings.trifecta.headless = true;
        }
        let mut session = Session::new()
            .with_capabilities(capability_map(Some(&settings), facts))
            .with_trifecta(settings.trifecta.clone())
            .with_pin_policy(settings.pins.clone())
            .with_quotas(settings.quotas.clone())
            .map_err(|e| source(e.to_string()))?
            .with_state(stored.state);
        if settings.redact {
            session =
                session.with_redactor(Redactor::builtin().map_err(|e| source(e.to_string()))?);
        }
        Ok(Self {
            path: path.to_owned(),
            id,
            settings,
            session: Arc::new(session),
            remembered: Arc::new(remembered),
        })
    }

    /// The file's canonical path, which names this session in the scope
    /// of the pending turns written with it.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The "always" answers kept in this session file.
    pub fn remembered(&self) -> &Arc<RememberedAnswers> {
        &self.remembered
    }

    /// The settings, as found in the file.
    pub fn settings(&self) -> &SessionSettings {
        &self.settings
    }

    /// The session, shared with the host's pipeline.
    pub fn session(&self) -> &Arc<Session> {
        &self.session
    }

    /// Writes the settings (as found) and the state back, atomically.
    pub fn save(&self) -> Result<(), Failure> {
        let mut stored = json!({ "settings": self.settings, "state": self.session.state() });
        if !self.remembered.rules().is_empty() {
            stored["remembered"] = self.remembered.to_json();
        }
        let text = serde_json::to_string_pretty(&stored).unwrap_or_default();
        let tmp = self.path.with_extension("tmp");
        std::fs::write(&tmp, text)
            .and_then(|()| std::fs::rename(&tmp, &self.path))
            .map_err(|e| {
                Failure::Source(format!(
                    "--session {}: cannot save: {e}",
                    self.path.display()
                ))
            })
    }

    /// What `toolhost call` adds to its output: the session's file, how
    /// many calls its ledger holds, and the pin report when it says
    /// something.
    pub fn summary(&self, pins: &PinReport) -> Value {
        let state = self.session.state();
        let ledger = &state.ledger;
        let mut out = json!({
            "file": self.path.display().to_string(),
            "calls": ledger.calls().len(),
            "privateRead": ledger.has_private(),
            "untrustedContent": ledger.has_untrusted(),
        });
        if !pins.is_quiet() {
            out["pins"] = json!(pins);
        }
        out
    }
}

/// The canonical path of a session file that may not exist yet: its
/// folder's canonical path and its name.
fn session_id(path: &Path) -> std::io::Result<String> {
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "names no file"))?;
    let parent = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    Ok(std::fs::canonicalize(parent)?
        .join(name)
        .display()
        .to_string())
}

/// `identifier/api` → its capabilities and where they came from, for
/// `toolhost tools`.
pub fn capabilities_json(offered: &OfferedTools, map: &CapabilityMap) -> Value {
    let mut out = Map::new();
    for manifest in offered.manifests() {
        for api in &manifest.api {
            let (caps, source) = map.resolve(manifest, api);
            let mut entry = serde_json::to_value(caps).unwrap_or_default();
            entry["source"] = json!(source);
            out.insert(format!("{}/{}", manifest.identifier, api.name), entry);
        }
    }
    Value::Object(out)
}
