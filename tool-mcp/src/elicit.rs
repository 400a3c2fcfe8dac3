//! The client side of MCP elicitation: a server asks the host's user.

use async_trait::async_trait;
use serde_json::Value;

/// The user's answer to an elicitation.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Elicited {
    /// Accepted, with the requested fields (an empty object when none were asked).
    Accept(Value),
    /// Declined.
    Decline,
    /// Dismissed.
    Cancel,
}

/// Answers a server's `elicitation/create` (form mode). With one set in
/// [`ManagerOptions::elicitation`](crate::ManagerOptions::elicitation), the
/// client declares the elicitation capability in its handshake; without,
/// it declares none and servers must not ask.
#[async_trait]
pub trait ElicitationHandler: Send + Sync {
    /// Asks the user `message`; `schema` describes the fields wanted.
    async fn elicit(&self, server: &str, message: &str, schema: &Value) -> Elicited;
}
