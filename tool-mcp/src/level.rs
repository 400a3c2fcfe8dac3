//! MCP's log levels and tool-core's, one to one (both follow syslog).

// MCP logging is deprecated in rmcp for a later protocol revision (SEP-2577);
// it is current in 2025-11-25, the revision served and proposed here.
#![allow(deprecated)]

use rmcp::model::LoggingLevel;
use tool_core::LogLevel;

/// tool-core's level as MCP's.
#[cfg(feature = "server")]
pub(crate) fn to_mcp_level(level: LogLevel) -> LoggingLevel {
    match level {
        LogLevel::Debug => LoggingLevel::Debug,
        LogLevel::Info => LoggingLevel::Info,
        LogLevel::Notice => LoggingLevel::Notice,
        LogLevel::Warning => LoggingLevel::Warning,
        LogLevel::Error => LoggingLevel::Error,
        LogLevel::Critical => LoggingLevel::Critical,
        LogLevel::Alert => LoggingLevel::Alert,
        LogLevel::Emergency => LoggingLevel::Emergency,
    }
}

/// MCP's level as tool-core's.
#[cfg(feature = "client")]
pub(crate) fn from_mcp_level(level: LoggingLevel) -> LogLevel {
    match level {
        LoggingLevel::Debug => LogLevel::Debug,
        LoggingLevel::Info => LogLevel::Info,
        LoggingLevel::Notice => LogLevel::Notice,
        LoggingLevel::Warning => LogLevel::Warning,
        LoggingLevel::Error => LogLevel::Error,
        LoggingLevel::Critical => LogLevel::Critical,
        LoggingLevel::Alert => LogLevel::Alert,
        LoggingLevel::Emergency => LogLevel::Emergency,
    }
}

#[cfg(all(test, feature = "client", feature = "server"))]
mod tests {
    use super::*;

    #[test]
    fn levels_map_both_ways() {
        for level in [
            LogLevel::Debug,
            LogLevel::Info,
            LogLevel::Notice,
            LogLevel::Warning,
            LogLevel::Error,
            LogLevel::Critical,
            LogLevel::Alert,
            LogLevel::Emergency,
        ] {
            assert_eq!(from_mcp_level(to_mcp_level(level)), level);
        }
    }
}
