//! Capabilities: what an API can do to data, as data (see
//! [`taint`](crate::taint) for what reads them).

use serde::{Deserialize, Serialize};

/// What one API can do to the data of a conversation.
///
/// The three legs of the "lethal trifecta": a session that has read private
/// data and taken in untrusted content must not let a way out carry the
/// one where the other says.
///
/// ```
/// use tool_core::taint::Capabilities;
/// let caps: Capabilities = serde_json::from_str(r#"{"egress": true}"#).unwrap();
/// assert!(caps.egress && !caps.reads_private && !caps.untrusted_source);
/// assert_eq!(caps.to_string(), "egress");
/// assert_eq!(Capabilities::NONE.to_string(), "none");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Capabilities {
    /// Reads data the host keeps private: local files, secrets, mail,
    /// databases.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reads_private: bool,
    /// Returns content from outside the host's trust: web pages, issues,
    /// MCP servers not marked trusted, HTTP API responses.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub untrusted_source: bool,
    /// Sends data out of the host: HTTP requests that change things,
    /// open-world MCP tools, messaging, commands with network.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub egress: bool,
    /// Changes the user's own data or accounts: deletes files or mail,
    /// changes passwords or profiles, creates or cancels events. Not a
    /// way out, but an action the trifecta rule also guards.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub writes_private: bool,
}

impl Capabilities {
    /// None of the three.
    pub const NONE: Self = Self {
        reads_private: false,
        untrusted_source: false,
        egress: false,
        writes_private: false,
    };

    /// Only `reads_private`.
    pub fn private_read() -> Self {
        Self {
            reads_private: true,
            ..Self::NONE
        }
    }

    /// Only `untrusted_source`.
    pub fn untrusted() -> Self {
        Self {
            untrusted_source: true,
            ..Self::NONE
        }
    }

    /// Only `egress`.
    pub fn egress() -> Self {
        Self {
            egress: true,
            ..Self::NONE
        }
    }

    /// Only `writes_private`.
    pub fn private_write() -> Self {
        Self {
            writes_private: true,
            ..Self::NONE
        }
    }

    /// Whether a call of it acts (sends data out, or changes the user's
    /// data): what the trifecta rule judges.
    pub fn acts(self) -> bool {
        self.egress || self.writes_private
    }

    /// These and `other` together.
    pub fn union(self, other: Self) -> Self {
        Self {
            reads_private: self.reads_private || other.reads_private,
            untrusted_source: self.untrusted_source || other.untrusted_source,
            egress: self.egress || other.egress,
            writes_private: self.writes_private || other.writes_private,
        }
    }

    /// Whether the output of such a call is worth remembering (it read
    /// private data or took in untrusted content).
    pub fn feeds_ledger(self) -> bool {
        self.reads_private || self.untrusted_source
    }
}

impl std::fmt::Display for Capabilities {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = [
            (self.reads_private, "reads_private"),
            (self.untrusted_source, "untrusted_source"),
            (self.egress, "egress"),
            (self.writes_private, "writes_private"),
        ]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect();
        if names.is_empty() {
            f.write_str("none")
        } else {
            f.write_str(&names.join(","))
        }
    }
}
