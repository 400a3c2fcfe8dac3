//! One call to evaluate: the borrowed [`CallRef`], the discovery of its
//! path and shell-command arguments ([`arguments`]), and the facts built
//! from them once per evaluation, which every audit and rule list reads.

use serde_json::Value;
use tool_core::{ConfinementSupport, OfferedTools, ToolManifest, pipeline::PreparedCall};

pub(crate) mod arguments;
pub(crate) mod facts;

/// One call to evaluate: who, which API, with what, and the tool's manifest
/// if the tool is known. A call to a tool missing from the registry is
/// evaluated with `manifest: None`.
#[derive(Debug, Clone, Copy)]
pub struct CallRef<'a> {
    /// The tool identifier.
    pub identifier: &'a str,
    /// The API name.
    pub api: &'a str,
    /// The parsed arguments.
    pub arguments: &'a Value,
    /// The tool's manifest as offered, `None` for an unknown tool.
    pub manifest: Option<&'a ToolManifest>,
    /// What the tool says about confining its calls
    /// ([`Tool::confinement_support`](tool_core::Tool::confinement_support)),
    /// read when the host did not tell the engine.
    pub confinement_support: Option<&'a ConfinementSupport>,
}

impl<'a> CallRef<'a> {
    /// A call to a tool the engine knows nothing about (no manifest).
    pub fn new(identifier: &'a str, api: &'a str, arguments: &'a Value) -> Self {
        Self {
            identifier,
            api,
            arguments,
            manifest: None,
            confinement_support: None,
        }
    }

    /// Attaches the tool's manifest.
    pub fn with_manifest(mut self, manifest: &'a ToolManifest) -> Self {
        self.manifest = Some(manifest);
        self
    }

    /// A prepared call, with its manifest looked up in the offered tools.
    pub fn from_prepared(call: &'a PreparedCall, offered: &'a OfferedTools) -> Self {
        Self {
            identifier: &call.identifier,
            api: &call.api,
            arguments: &call.arguments,
            manifest: offered.get(&call.identifier).map(|t| t.manifest()),
            confinement_support: call.confinement_support(),
        }
    }

    /// Looks the manifest up in `offered` (unknown identifiers stay `None`).
    pub fn offered_in(mut self, offered: &'a OfferedTools) -> Self {
        let tool = offered.get(self.identifier);
        self.manifest = tool.map(|t| t.manifest());
        self.confinement_support = tool.and_then(|t| t.tool().confinement_support());
        self
    }

    /// The `identifier/apiName` key used by allow lists and policy files.
    pub fn key(&self) -> String {
        [self.identifier, "/", self.api].concat()
    }

    /// The API's parameters schema, when the tool and API are known.
    pub fn schema(&self) -> Option<&'a Value> {
        self.manifest
            .and_then(|m| m.api(self.api))
            .map(|a| &*a.parameters)
    }
}
