//! A secret value of a configuration (an env var, a header value), and how
//! a sealed one is marked.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Prefix of a sealed secret.
pub const SEALED_PREFIX: &str = "enc:v1:";

/// A secret value (an env var or a header value). `Debug` and `Display`
/// print `***`; serialisation writes the value itself (a configuration file
/// must round-trip; see the `encryption` feature for sealing it at rest).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct McpSecret(String);

impl McpSecret {
    /// Wraps a value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The value itself. Only hand it to the transport.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Whether the value is sealed (encrypted at rest, see [`SecretCipher`](crate::SecretCipher)).
    pub fn is_sealed(&self) -> bool {
        self.0.starts_with(SEALED_PREFIX)
    }
}

impl fmt::Debug for McpSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl fmt::Display for McpSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl From<&str> for McpSecret {
    fn from(value: &str) -> Self {
        Self::new(value)
    }
}

impl From<String> for McpSecret {
    fn from(value: String) -> Self {
        Self::new(value)
    }
}
