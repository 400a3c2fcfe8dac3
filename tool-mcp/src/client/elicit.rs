//! The client side of MCP elicitation: a server asks the host's user.

use async_trait::async_trait;
use serde_json::Value;
pub use tool_core::Elicited;

/// Answers a server's `elicitation/create` (form mode). With one set in
/// [`ManagerOptions::elicitation`](crate::ManagerOptions::elicitation), the
/// client declares the elicitation capability in its handshake; without,
/// it declares none and servers must not ask.
///
/// The answer is tool-core's [`Elicited`]: `Accept` with the fields (the
/// client fills in the schema's `default` for fields left out, SEP-1034,
/// so `Accept(json!({}))` accepts the defaults), `Decline`, `Cancel`;
/// `Unsupported` is sent as a decline.
#[async_trait]
pub trait ElicitationHandler: Send + Sync {
    /// Asks the user `message`; `schema` describes the fields wanted.
    async fn elicit(&self, server: &str, message: &str, schema: &Value) -> Elicited;
}
