//! Approval defaults from MCP tool annotations, with host overrides.

use tool_core::InterventionPolicy;

use crate::client::catalog::McpCatalogTool;
use crate::client::config::ApprovalOverrides;

/// The policy a remote tool's annotations suggest: `readOnlyHint: true`
/// (and not also `destructiveHint: true`) → `never`; anything else —
/// destructive, unannotated, or annotated without a read-only promise —
/// → `required`. Annotations are hints from the server, so only a read-only
/// promise relaxes the default.
pub fn default_policy(tool: &McpCatalogTool) -> InterventionPolicy {
    match (tool.read_only_hint(), tool.destructive_hint()) {
        (Some(true), Some(true)) => InterventionPolicy::Required,
        (Some(true), _) => InterventionPolicy::Never,
        _ => InterventionPolicy::Required,
    }
}

/// The policy for `tool` after the host's overrides: the per-tool entry,
/// else the server-wide one, else [`default_policy`].
pub fn effective_policy(
    tool: &McpCatalogTool,
    overrides: Option<&ApprovalOverrides>,
) -> InterventionPolicy {
    overrides
        .and_then(|o| o.tools.get(&tool.name).copied().or(o.server))
        .unwrap_or_else(|| default_policy(tool))
}
