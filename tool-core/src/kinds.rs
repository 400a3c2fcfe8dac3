//! Spellings shared across crates: tool kinds, audit kinds.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::Error;

/// The type name of the dynamic path-scope audit (`{dynamic: {type:
/// "pathScopeAudit"}}`): flags calls whose path arguments leave the working
/// directory. `tool-approval` implements it.
pub const PATH_SCOPE_AUDIT: &str = "pathScopeAudit";

/// What kind of tool a manifest describes (its `type`), and which provider
/// builds it from a stored reference (the reference's `type`): one spelling
/// for both.
///
/// | kind | spelling | also read (stored references of older hosts) |
/// |---|---|---|
/// | [`Builtin`](Self::Builtin) | `builtin` | `builtin_tool` |
/// | [`Api`](Self::Api) | `api` | `api_tool`, `openapi` |
/// | [`Mcp`](Self::Mcp) | `mcp` | `mcp_tool` |
/// | [`Skill`](Self::Skill) | `skill` | `skills` |
/// | [`Function`](Self::Function) | `function` | `workflow` |
///
/// The [`Assembler`](crate::assembly::Assembler) finds a provider under any spelling
/// of its kind, so references stored as `builtin_tool` still resolve.
///
/// ```
/// use tool_core::ToolKind;
/// assert_eq!(ToolKind::Builtin.as_str(), "builtin");
/// assert_eq!("builtin_tool".parse::<ToolKind>().unwrap(), ToolKind::Builtin);
/// assert_eq!(ToolKind::parse("mcp"), Some(ToolKind::Mcp));
/// assert_eq!(ToolKind::parse("teleporter"), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ToolKind {
    /// Code shipped with the host or a capability crate.
    Builtin,
    /// An HTTP API compiled from an OpenAPI-like document.
    Api,
    /// A tool of an MCP server.
    Mcp,
    /// An Agent Skill.
    Skill,
    /// A host-defined function or workflow published as a tool.
    Function,
}

impl ToolKind {
    /// Every kind.
    pub const ALL: [Self; 5] = [
        Self::Builtin,
        Self::Api,
        Self::Mcp,
        Self::Skill,
        Self::Function,
    ];

    /// The one spelling written by this workspace.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Builtin => "builtin",
            Self::Api => "api",
            Self::Mcp => "mcp",
            Self::Skill => "skill",
            Self::Function => "function",
        }
    }

    /// Older spellings still read.
    pub fn aliases(self) -> &'static [&'static str] {
        match self {
            Self::Builtin => &["builtin_tool"],
            Self::Api => &["api_tool", "openapi"],
            Self::Mcp => &["mcp_tool"],
            Self::Skill => &["skills"],
            Self::Function => &["workflow"],
        }
    }

    /// The kind spelled `text` (its spelling or an alias).
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|kind| kind.as_str() == text || kind.aliases().contains(&text))
    }
}

impl fmt::Display for ToolKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The kind's one spelling, for the places that keep kinds as text (a
/// stored [`ToolReference`](crate::assembly::ToolReference)'s `type`, a
/// provider registered under a host's own kind):
/// `ToolReference::new(ToolKind::Mcp, "github", "*")`.
impl From<ToolKind> for String {
    fn from(kind: ToolKind) -> Self {
        kind.as_str().to_owned()
    }
}

impl FromStr for ToolKind {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self, Error> {
        Self::parse(text).ok_or_else(|| Error::UnknownToolKind {
            kind: text.to_owned(),
        })
    }
}

impl Serialize for ToolKind {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ToolKind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}
