//! The crate's one error type: why a dispatch step failed.

use tool_core::{ErrorCode, ToolError};

/// Why a step of remote dispatch (the channel, the result store, a
/// message) failed.
///
/// A [`Dispatcher`](crate::Dispatcher) never returns it: every dispatch
/// ends in a [`ToolOutput`](tool_core::ToolOutput) whose error code names
/// the step. Hosts see it from their own [`DispatchChannel`](crate::DispatchChannel)
/// and [`ResultStore`](crate::ResultStore) implementations, from
/// [`ChannelMessage::parse`](crate::ChannelMessage::parse) and from
/// connecting a store.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The executor sent something this side does not understand.
    #[error("the executor sent an unexpected reply: {message}")]
    Protocol {
        /// What was wrong with it.
        message: String,
    },
    /// No channel reaches an executor for a dispatched call.
    #[error("no executor is connected to run this tool: {message}")]
    ChannelUnavailable {
        /// What the channel (or the dispatcher) reported.
        message: String,
    },
    /// The channel failed to deliver a dispatched call.
    #[error("the call could not be sent to its executor: {message}")]
    DispatchFailed {
        /// What the channel reported.
        message: String,
    },
    /// The result store is missing or unreachable.
    #[error("the result store is unavailable: {message}")]
    StoreUnavailable {
        /// What the store reported.
        message: String,
    },
}

impl Error {
    /// The stable machine code of this error, the same codes the
    /// dispatcher's failed outputs carry.
    ///
    /// | code | variant |
    /// |---|---|
    /// | `protocol_error` | [`Error::Protocol`] |
    /// | `channel_unavailable` | [`Error::ChannelUnavailable`] |
    /// | `dispatch_failed` | [`Error::DispatchFailed`] |
    /// | `store_unavailable` | [`Error::StoreUnavailable`] |
    pub fn code(&self) -> ErrorCode {
        ErrorCode::from_static(match self {
            Self::Protocol { .. } => "protocol_error",
            Self::ChannelUnavailable { .. } => "channel_unavailable",
            Self::DispatchFailed { .. } => "dispatch_failed",
            Self::StoreUnavailable { .. } => "store_unavailable",
        })
    }

    /// The [`ToolError`] of a failed output: code and message.
    pub fn to_tool_error(&self) -> ToolError {
        ToolError::new(self.code(), self.to_string())
    }
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_variant_has_its_code_and_message() {
        let message = || "m".to_owned();
        let cases = [
            (Error::Protocol { message: message() }, "protocol_error"),
            (
                Error::ChannelUnavailable { message: message() },
                "channel_unavailable",
            ),
            (
                Error::DispatchFailed { message: message() },
                "dispatch_failed",
            ),
            (
                Error::StoreUnavailable { message: message() },
                "store_unavailable",
            ),
        ];
        for (error, code) in cases {
            assert_eq!(error.code(), code);
            assert!(error.to_string().ends_with(": m"));
            assert_eq!(error.to_tool_error().code, code);
        }
    }
}
