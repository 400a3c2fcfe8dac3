//! The crate's one error type.

/// What went wrong with an MCP server, its configuration or the serving side.
///
/// Every variant names the server (its configuration `id`) it concerns.
/// Messages never contain a secret from `env` or `headers`: captured stderr
/// is scrubbed of those values before it is attached.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A configuration is invalid; `field` is a path inside it (`transport.url`).
    #[error("MCP server `{server}`: {field}: {message}")]
    InvalidConfig {
        /// The server id (or `#index` when the id itself is missing).
        server: String,
        /// The offending field.
        field: String,
        /// What is wrong with it.
        message: String,
    },
    /// The server is configured but disabled.
    #[error("MCP server `{server}` is disabled")]
    Disabled {
        /// The server id.
        server: String,
    },
    /// No server with this id is configured.
    #[error("no MCP server `{server}` is configured")]
    UnknownServer {
        /// The id asked for.
        server: String,
    },
    /// The process could not be started, or the HTTP transport could not be built.
    #[error("MCP server `{server}` could not be started: {message}")]
    Spawn {
        /// The server id.
        server: String,
        /// Why.
        message: String,
    },
    /// The server did not finish the MCP handshake in time.
    #[error("MCP server `{server}` did not answer the handshake within {timeout_ms} ms{}", stderr_note(.stderr))]
    HandshakeTimeout {
        /// The server id.
        server: String,
        /// The startup budget.
        timeout_ms: u64,
        /// The tail of the server's stderr (stdio servers), scrubbed of secrets.
        stderr: String,
    },
    /// The handshake failed (the process exited, the server refused, bad protocol).
    #[error("MCP server `{server}` failed the handshake: {message}{}", stderr_note(.stderr))]
    Handshake {
        /// The server id.
        server: String,
        /// Why.
        message: String,
        /// The tail of the server's stderr (stdio servers), scrubbed of secrets.
        stderr: String,
    },
    /// A request on a live session failed.
    #[error("MCP server `{server}`: {operation} failed: {message}")]
    Request {
        /// The server id.
        server: String,
        /// `tools/list`, `tools/call`, …
        operation: String,
        /// Why.
        message: String,
    },
    /// The session ended (process died, connection closed) and could not be re-established.
    #[error("MCP server `{server}`: connection lost: {message}{}", stderr_note(.stderr))]
    Disconnected {
        /// The server id.
        server: String,
        /// Why.
        message: String,
        /// The tail of the server's stderr, scrubbed of secrets.
        stderr: String,
    },
    /// The server's answer was longer than the host takes
    /// ([`ManagerOptions::max_message_bytes`](crate::ManagerOptions::max_message_bytes)):
    /// it was not kept, and the request failed at once.
    #[error(
        "MCP server `{server}`: {operation} failed: the answer is longer than the limit of {limit} bytes"
    )]
    MessageTooLarge {
        /// The server id.
        server: String,
        /// `tools/list`, `tools/call`, …
        operation: String,
        /// The limit it went over.
        limit: usize,
    },
    /// A secret could not be sealed or opened (wrong key, tampered value, still sealed).
    #[error("MCP server `{server}`: secret {field}: {message}")]
    Secret {
        /// The server id.
        server: String,
        /// Where the secret sits (`transport.env.API_KEY`).
        field: String,
        /// Why.
        message: String,
    },
    /// The host's HTTP guard refused the server's URL: an address it does
    /// not allow (private, loopback, link-local, cloud metadata…) in the
    /// URL itself, behind its host name, or behind a redirect.
    #[error(
        "MCP server `{server}`: the request to {url} was refused by the host's HTTP guard: {reason}"
    )]
    UrlRefused {
        /// The server id.
        server: String,
        /// The configured URL.
        url: String,
        /// The guard's reason (names the refused address).
        reason: String,
    },
    /// The server no longer offers the tool (it changed its tool list).
    #[error("MCP server `{server}` no longer offers the tool `{tool}` (its tool list changed)")]
    ToolRemoved {
        /// The server id.
        server: String,
        /// The remote tool name.
        tool: String,
    },
    /// The server does not offer what was asked of it: it declared no
    /// `resources` (or `prompts`) capability in its handshake.
    #[error("MCP server `{server}` does not offer {feature} (not declared in its capabilities)")]
    NotOffered {
        /// The server id.
        server: String,
        /// `resources` or `prompts`.
        feature: String,
    },
    /// The server asked for OAuth authorization (`401`) and it could not
    /// be had: no [`OAuthOptions`](crate::OAuthOptions) were given, or
    /// discovery, registration, the user's step or the token exchange failed.
    #[error("MCP server `{server}` needs authorization: {message}")]
    Unauthorized {
        /// The server id.
        server: String,
        /// What failed.
        message: String,
    },
    /// A remote tool's questions could not be kept pending, or the answers
    /// of a resumed call could not be sent: a question this client cannot
    /// answer, a state that is not this call's, answers that do not fit
    /// the questions.
    #[error("MCP server `{server}`, tool `{tool}`: {message}")]
    InputState {
        /// The server id.
        server: String,
        /// The remote tool.
        tool: String,
        /// What was wrong.
        message: String,
    },
    /// Serving a registry over MCP failed (bind, transport).
    #[error("serving over MCP: {0}")]
    Serve(String),
    /// A served call's ask of its MCP client failed: the client did not
    /// declare the capability, refused or failed the request, or the
    /// question cannot be sent.
    #[error("asking the MCP client (`{method}`): {message}")]
    ClientInput {
        /// `elicitation/create`, `sampling/createMessage` or `roots/list`.
        method: String,
        /// What went wrong.
        message: String,
    },
    /// A remote task's handle was refused: not a handle, edited or forged
    /// (its MAC does not match), made with a key this host does not hold,
    /// expired, for a server not configured here or configured somewhere
    /// else now — or the host gave no [`TaskKeys`](crate::TaskKeys) to make one.
    #[error("{message}")]
    TaskHandle {
        /// What was wrong.
        message: String,
    },
    /// A server's skill (SEP-2640) failed its checks: an entry that breaks
    /// the extension's rules, or a file whose bytes differ from its entry
    /// (size, `sha256:` digest) or whose `SKILL.md` frontmatter differs
    /// from the entry's. Nothing of the skill was used.
    #[error("MCP server `{server}`: skill file {uri}: {message}")]
    SkillIntegrity {
        /// The server id.
        server: String,
        /// The skill or file URI.
        uri: String,
        /// What differed.
        message: String,
    },
}

fn stderr_note(stderr: &str) -> String {
    let trimmed = stderr.trim();
    if trimmed.is_empty() {
        String::new()
    } else {
        format!("; its stderr ended with: {trimmed}")
    }
}

impl Error {
    /// The server the error concerns, when there is one.
    pub fn server(&self) -> Option<&str> {
        match self {
            Self::InvalidConfig { server, .. }
            | Self::Disabled { server }
            | Self::UnknownServer { server }
            | Self::Spawn { server, .. }
            | Self::HandshakeTimeout { server, .. }
            | Self::Handshake { server, .. }
            | Self::Request { server, .. }
            | Self::Disconnected { server, .. }
            | Self::MessageTooLarge { server, .. }
            | Self::Secret { server, .. }
            | Self::UrlRefused { server, .. }
            | Self::ToolRemoved { server, .. }
            | Self::NotOffered { server, .. }
            | Self::Unauthorized { server, .. }
            | Self::InputState { server, .. }
            | Self::SkillIntegrity { server, .. } => Some(server),
            Self::Serve(_) | Self::ClientInput { .. } | Self::TaskHandle { .. } => None,
        }
    }

    /// Whether the server could not be reached or started (as opposed to a
    /// configuration problem or a failed request on a live session).
    pub fn is_unavailable(&self) -> bool {
        matches!(
            self,
            Self::Spawn { .. }
                | Self::HandshakeTimeout { .. }
                | Self::Handshake { .. }
                | Self::Disconnected { .. }
        )
    }

    /// Whether the host's HTTP guard refused the server's address.
    pub fn is_refused(&self) -> bool {
        matches!(self, Self::UrlRefused { .. })
    }

    /// Whether the error is a configuration problem.
    pub fn is_config(&self) -> bool {
        matches!(self, Self::InvalidConfig { .. } | Self::Secret { .. })
    }

    /// A stable machine code for tool outputs and reports.
    pub fn code(&self) -> &'static str {
        match self {
            Self::InvalidConfig { .. } => "mcp_invalid_config",
            Self::Disabled { .. } => "mcp_server_disabled",
            Self::UnknownServer { .. } => "mcp_unknown_server",
            Self::Spawn { .. } | Self::Handshake { .. } => "mcp_server_unavailable",
            Self::HandshakeTimeout { .. } => "mcp_handshake_timeout",
            Self::Request { .. } => "mcp_request_failed",
            Self::Disconnected { .. } => "mcp_disconnected",
            Self::MessageTooLarge { .. } => "mcp_message_too_large",
            Self::Secret { .. } => "mcp_secret",
            Self::UrlRefused { .. } => "mcp_url_refused",
            Self::ToolRemoved { .. } => "mcp_tool_removed",
            Self::NotOffered { .. } => "mcp_not_offered",
            Self::Unauthorized { .. } => "mcp_unauthorized",
            Self::InputState { .. } => "mcp_input_state",
            Self::Serve(_) => "mcp_serve",
            Self::ClientInput { .. } => "mcp_client_input",
            Self::TaskHandle { .. } => "mcp_task_handle",
            Self::SkillIntegrity { .. } => "mcp_skill_integrity",
        }
    }
}
