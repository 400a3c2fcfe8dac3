//! What a client may assume about an API's effects and how it runs, as the
//! API's author (or the remote server it comes from) states it: the MCP tool
//! annotations (`readOnlyHint`, `destructiveHint`, `idempotentHint`,
//! `openWorldHint`) and `execution.taskSupport`, held by
//! [`ApiDefinition`](crate::manifest::ApiDefinition) so a proxy passes them on
//! unchanged and a local tool can state them truthfully.
//!
//! Hints are what the author says, not what approval trusts: a gate decides
//! from the policy and the capabilities, never from a hint alone.

use serde::{Deserialize, Serialize};

/// The effect hints of one API; each is unknown (`None`) unless stated.
///
/// ```
/// use tool_core::manifest::ApiHints;
/// let hints = ApiHints::default().read_only(true).open_world(false);
/// assert_eq!(
///     serde_json::to_value(&hints).unwrap(),
///     serde_json::json!({"readOnly": true, "openWorld": false})
/// );
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ApiHints {
    /// The API changes nothing (MCP `readOnlyHint`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    /// A change it makes may destroy data (MCP `destructiveHint`;
    /// meaningful when not read-only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive: Option<bool>,
    /// Calling it again with the same arguments changes nothing more (MCP
    /// `idempotentHint`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent: Option<bool>,
    /// It reaches things outside the host's closed world: the web, other
    /// people, other services (MCP `openWorldHint`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world: Option<bool>,
}

impl ApiHints {
    /// Whether no hint is stated.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// States whether the API changes nothing.
    pub fn read_only(mut self, value: bool) -> Self {
        self.read_only = Some(value);
        self
    }

    /// States whether a change it makes may destroy data.
    pub fn destructive(mut self, value: bool) -> Self {
        self.destructive = Some(value);
        self
    }

    /// States whether a repeated call changes nothing more.
    pub fn idempotent(mut self, value: bool) -> Self {
        self.idempotent = Some(value);
        self
    }

    /// States whether the API reaches outside the host's closed world.
    pub fn open_world(mut self, value: bool) -> Self {
        self.open_world = Some(value);
        self
    }
}

/// Whether an API runs as a task (a long-running call with a durable
/// handle; MCP `execution.taskSupport`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum TaskSupport {
    /// Never as a task.
    Forbidden,
    /// As a task when the caller asks.
    Optional,
    /// Only as a task: a plain call fails.
    Required,
}

impl TaskSupport {
    /// The wire word (`forbidden`, `optional`, `required`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Forbidden => "forbidden",
            Self::Optional => "optional",
            Self::Required => "required",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn hints_read_back_as_written_and_unknown_ones_stay_unstated() {
        let hints: ApiHints = serde_json::from_value(json!({"destructive": false})).unwrap();
        assert_eq!(hints.destructive, Some(false));
        assert_eq!(hints.read_only, None);
        assert!(!hints.is_empty());
        assert!(ApiHints::default().is_empty());
        let all = ApiHints::default()
            .read_only(false)
            .destructive(true)
            .idempotent(true)
            .open_world(true);
        let back: ApiHints = serde_json::from_value(serde_json::to_value(all).unwrap()).unwrap();
        assert_eq!(back, all);
    }

    #[test]
    fn task_support_reads_the_wire_words_and_refuses_others() {
        for word in ["forbidden", "optional", "required"] {
            let support: TaskSupport = serde_json::from_value(json!(word)).unwrap();
            assert_eq!(support.as_str(), word);
        }
        assert!(serde_json::from_value::<TaskSupport>(json!("sometimes")).is_err());
    }
}
