//! A call ready to run: what the gate judges and the invoker runs.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::tool::Tool;

/// A call that passed name resolution, parsing and validation, ready to run.
///
/// This is the point where a host asks its approval policy: the arguments are
/// parsed and valid, nothing has run yet.
#[derive(Clone)]
pub struct PreparedCall {
    /// The provider's call id, or one minted by [`Invoker::prepare`](crate::Invoker::prepare) when the
    /// model sent none (always `Some` after `prepare`).
    pub call_id: Option<String>,
    /// The tool identifier.
    pub identifier: String,
    /// The API name.
    pub api: String,
    /// The canonical wire name.
    pub wire_name: String,
    /// Parsed, validated arguments.
    pub arguments: Value,
    /// The resolved time budget.
    pub timeout: Duration,
    pub(crate) tool: Arc<dyn Tool>,
}

impl PreparedCall {
    /// The `identifier/apiName` key of the call (for approval and policy lookups).
    pub fn api_key(&self) -> crate::ApiKey {
        crate::ApiKey::new(&self.identifier, &self.api)
    }

    /// What the called tool says about confining its calls (see
    /// [`Tool::confinement_support`]).
    pub fn confinement_support(&self) -> Option<&crate::ConfinementSupport> {
        self.tool.confinement_support()
    }
}

impl std::fmt::Debug for PreparedCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedCall")
            .field("call_id", &self.call_id)
            .field("identifier", &self.identifier)
            .field("api", &self.api)
            .field("arguments", &self.arguments)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}
