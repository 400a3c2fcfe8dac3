//! The approval seam of the serving side. tool-mcp does not depend on a
//! policy engine: the host implements [`ApprovalGate`] (e.g. with
//! tool-approval's `PolicyEngine`) and, optionally, an [`Approver`].

use async_trait::async_trait;
use tool_core::{OfferedTools, PreparedCall, ToolContext, ToolOutput};

/// What the gate decided for one prepared call.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum GateDecision {
    /// Run it.
    Run,
    /// A human must say yes first. `declined` is the output when they don't.
    Ask {
        /// The question put to the human (names the tool and why).
        message: String,
        /// The blocked output returned when the human declines.
        declined: ToolOutput,
    },
    /// Never run; this is the output.
    Block(ToolOutput),
}

/// Decides, for each call served over MCP, whether it runs.
pub trait ApprovalGate: Send + Sync {
    /// The decision for `call` (already parsed and validated by the pipeline).
    fn decide(
        &self,
        call: &PreparedCall,
        offered: &OfferedTools,
        ctx: &ToolContext,
    ) -> GateDecision;
}

/// A gate that runs everything (for trusted, local use only).
#[derive(Debug, Clone, Copy, Default)]
pub struct RunEverything;

impl ApprovalGate for RunEverything {
    fn decide(&self, _: &PreparedCall, _: &OfferedTools, _: &ToolContext) -> GateDecision {
        GateDecision::Run
    }
}

/// Answers an `ask` when the MCP client cannot (it declared no elicitation).
#[async_trait]
pub trait Approver: Send + Sync {
    /// Whether the human approves `call`.
    async fn approve(&self, call: &PreparedCall, message: &str) -> bool;
}
