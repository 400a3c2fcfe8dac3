//! MCP servers as agent tools, through `rmcp` — and any tool registry served over MCP.
#![deny(missing_docs)]

mod catalog;
mod config;
mod content;
mod error;
mod manager;
mod policy;
mod provider;
mod secret;
mod session;
mod stderr;
mod tool;

pub use catalog::{Catalog, CatalogTool};
pub use config::{
    ApprovalOverrides, DEFAULT_STARTUP_TIMEOUT_MS, MAX_STARTUP_TIMEOUT_MS, MIN_STARTUP_TIMEOUT_MS,
    McpServerConfig, McpTransport, RESERVED_HEADERS, Secret, parse_server_list,
};
pub use content::{ERROR_META_KEY, MCP_TOOL_ERROR, map_call_result};
pub use error::Error;
pub use manager::{MAX_LIST_PAGES, ManagerOptions, McpManager, ServerStatus};
pub use policy::{default_policy, effective_policy};
pub use provider::{ALL_TOOLS, MCP_REFERENCE_KIND, McpLoad, McpProvider, ServerReport};
#[cfg(feature = "encryption")]
pub use secret::XChaChaCipher;
pub use secret::{SEALED_PREFIX, SecretCipher};
pub use stderr::DEFAULT_STDERR_LIMIT;
pub use tool::{MCP_TOOL_KIND, McpTool};
