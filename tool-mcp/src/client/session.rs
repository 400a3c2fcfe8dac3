//! One live MCP session: connecting (stdio child or streamable HTTP) with a
//! handshake budget, and the client-side hooks.

use std::collections::HashMap;
use std::sync::Arc;

use process_wrap::tokio::{CommandWrap, ProcessGroup};
#[allow(deprecated)]
// MCP logging: deprecated by rmcp for a later revision, current in 2025-11-25.
use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationCapability, FormElicitationCapability, Implementation,
    LoggingMessageNotificationParam, ProgressNotificationParam, ProtocolVersion,
    ServerNotification, SubscriptionFilter, TASKS_EXTENSION_ID,
};
use rmcp::service::{NotificationContext, Peer, RequestContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{
    ClientCacheConfig, ClientHandler, ClientLifecycleMode, ClientServiceExt, RoleClient, ServiceExt,
};

use crate::client::config::{McpServerConfig, McpTransport};
use crate::client::elicit::{ElicitationHandler, Elicited};
use crate::client::http::{HttpGuard, RefusalSlot, WatchedClient, default_client};
use crate::client::remote_talk::{InFlight, with_defaults};
use crate::client::stderr::{StderrTail, scrub};
use crate::client::stdio::StdioTransport;
use crate::error::Error;

/// The protocol version the client proposes in the `initialize` handshake:
/// the newest one that has a handshake. (rmcp's default, `LATEST`, is
/// `2026-07-28`, a version without `initialize`, which a server answering
/// `initialize` must not be offered.)
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// [`PROTOCOL_VERSION`] as rmcp's type (a unit test keeps them equal).
const PROPOSED_PROTOCOL_VERSION: ProtocolVersion = ProtocolVersion::LATEST_WITH_INITIALIZE;

/// How a session is opened: which protocol revision, which lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lifecycle {
    /// 2025-11-25: the `initialize` handshake and a session.
    Initialize,
    /// 2026-07-28: `server/discover`, then stateless requests with
    /// per-request `_meta`.
    Discover,
    /// `server/discover`, and on the same connection the `initialize`
    /// handshake when the server answers it with a JSON-RPC error (it does
    /// not know the method).
    Auto,
}

impl Lifecycle {
    /// Starts `hooks` on `transport` this way.
    async fn start<T, E, A>(
        self,
        hooks: Hooks,
        transport: T,
    ) -> Result<RunningService<RoleClient, Hooks>, rmcp::service::ClientInitializeError>
    where
        T: rmcp::transport::IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        match self {
            Self::Initialize => hooks.serve(transport).await,
            Self::Discover => {
                hooks
                    .serve_with_lifecycle(
                        transport,
                        ClientLifecycleMode::Discover {
                            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                        },
                    )
                    .await
            }
            Self::Auto => {
                hooks
                    .serve_with_lifecycle(
                        transport,
                        ClientLifecycleMode::Auto {
                            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                            legacy_version: Some(PROPOSED_PROTOCOL_VERSION),
                        },
                    )
                    .await
            }
        }
    }
}

/// What the client does on server notifications.
#[derive(Clone)]
pub(crate) struct Hooks {
    pub(crate) server: String,
    pub(crate) on_tools_changed: Arc<dyn Fn() + Send + Sync>,
    pub(crate) elicitation: Option<Arc<dyn ElicitationHandler>>,
    /// Questions without an in-process answer may wait as pending data
    /// ([`ManagerOptions::pending_questions`](crate::ManagerOptions::pending_questions)):
    /// elicitation is declared, and a session's `elicitation/create` that
    /// no handler answers is cancelled (dismissed), not declined.
    pub(crate) pending_questions: bool,
    /// The tasks extension is declared and calls made tasks are followed
    /// ([`ManagerOptions::tasks`](crate::ManagerOptions::tasks)).
    pub(crate) tasks: bool,
    /// The calls with events in flight (progress and log lines go there).
    pub(crate) in_flight: Arc<InFlight>,
    /// The `execution` of listed tools, read by the transports.
    pub(crate) listed: Arc<crate::client::listed_execution::ListedExecution>,
}

impl ClientHandler for Hooks {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        (self.on_tools_changed)();
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.in_flight.progress(&params);
    }

    #[allow(deprecated)] // see the import.
    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.in_flight.log(&params);
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        let (
            Some(handler),
            ElicitRequestParams::FormElicitationParams {
                message,
                requested_schema,
                ..
            },
        ) = (&self.elicitation, request)
        else {
            return Ok(ElicitResult::new(if self.pending_questions {
                ElicitationAction::Cancel
            } else {
                ElicitationAction::Decline
            }));
        };
        let schema = serde_json::to_value(&requested_schema).unwrap_or_default();
        Ok(
            match handler.elicit(&self.server, &message, &schema).await {
                Elicited::Accept(content) => ElicitResult::new(ElicitationAction::Accept)
                    .with_content(with_defaults(content, &schema)),
                Elicited::Cancel => ElicitResult::new(ElicitationAction::Cancel),
                _ => ElicitResult::new(ElicitationAction::Decline),
            },
        )
    }

    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        if self.elicitation.is_some() || self.pending_questions {
            let mut elicitation = ElicitationCapability::new();
            elicitation.form = Some(FormElicitationCapability::new());
            capabilities.elicitation = Some(elicitation);
        }
        if self.tasks {
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .insert(TASKS_EXTENSION_ID.to_owned(), Default::default());
        }
        ClientConfig::new(
            capabilities,
            Implementation::new("tool-mcp", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(PROPOSED_PROTOCOL_VERSION)
    }
}

/// How sessions are opened.
#[derive(Clone)]
pub(crate) struct ConnectOptions {
    pub(crate) http_client: Option<reqwest::Client>,
    pub(crate) http_guard: Option<Arc<dyn HttpGuard>>,
    pub(crate) stderr_limit: usize,
    pub(crate) max_message_bytes: usize,
    pub(crate) oauth: Option<crate::client::oauth::OAuthOptions>,
}

/// A live session. Dropping it closes the transport; a stdio child's whole
/// process group is killed.
pub(crate) struct Session {
    service: RunningService<RoleClient, Hooks>,
    stderr: Option<StderrTail>,
    secrets: Vec<String>,
    pid: Option<u32>,
    /// The configured URL and the guard's first refusal (HTTP sessions).
    refusals: Option<(String, RefusalSlot)>,
    /// The first 401/403 challenge of an HTTP session.
    challenges: Option<RefusalSlot>,
    /// The HTTP session id the transport sends (2025-11-25).
    session_ids: Option<RefusalSlot>,
    /// 2026-07-28: the `subscriptions/listen` stream for tool list changes.
    listener: Option<tokio::task::JoinHandle<()>>,
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(listener) = self.listener.take() {
            listener.abort();
        }
    }
}

/// On 2026-07-28 a server tells of list changes only on a
/// `subscriptions/listen` stream: when it declares `tools.listChanged`,
/// one is opened for tool list changes, each handed to the hooks as a
/// `notifications/tools/list_changed` would be on a 2025-11-25 session.
fn listen_for_list_changes(
    peer: &Peer<RoleClient>,
    hooks: &Hooks,
) -> Option<tokio::task::JoinHandle<()>> {
    let declared = peer
        .peer_info()
        .and_then(|info| {
            info.capabilities
                .tools
                .as_ref()
                .and_then(|t| t.list_changed)
        })
        .unwrap_or(false);
    if !declared {
        return None;
    }
    let (peer, on_change) = (peer.clone(), Arc::clone(&hooks.on_tools_changed));
    Some(tokio::spawn(async move {
        let filter = SubscriptionFilter::builder().tools_list_changed().build();
        let mut subscription = match peer.listen(filter).await {
            Ok(subscription) => subscription,
            Err(error) => {
                tracing::debug!(%error, "subscriptions/listen refused; no tool list changes");
                return;
            }
        };
        while let Ok(Some(notification)) = subscription.next().await {
            if matches!(
                notification,
                ServerNotification::ToolListChangedNotification(_)
            ) {
                on_change();
            }
        }
    }))
}

impl Session {
    pub(crate) async fn connect(
        config: &McpServerConfig,
        options: &ConnectOptions,
        hooks: Hooks,
        challenge: Option<&str>,
        lifecycle: Lifecycle,
    ) -> Result<Self, Error> {
        config.ensure_open()?;
        let server = config.id.clone();
        let secrets: Vec<String> = config
            .transport
            .secrets()
            .into_iter()
            .map(|(_, s)| s.expose().to_owned())
            .collect();
        let spawn_error = |message: String| Error::Spawn {
            server: server.clone(),
            message: scrub(
                &message,
                &secrets.iter().map(String::as_str).collect::<Vec<_>>(),
            ),
        };
        let timeout = config.startup_timeout();
        let mut pid = None;
        let mut refusals = None;
        let mut challenge_slot = None;
        let mut session_ids = None;
        let (handshake, stderr) = match &config.transport {
            McpTransport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let mut cmd = tokio::process::Command::new(command);
                cmd.args(args)
                    .envs(env.iter().map(|(k, v)| (k, v.expose())))
                    .kill_on_drop(true);
                if let Some(cwd) = cwd {
                    cmd.current_dir(cwd);
                }
                let mut wrap = CommandWrap::from(cmd);
                wrap.wrap(ProcessGroup::leader());
                let (transport, stderr, child_pid) = StdioTransport::spawn(
                    wrap,
                    options.max_message_bytes,
                    Arc::clone(&hooks.in_flight),
                    Arc::clone(&hooks.listed),
                )
                .map_err(|e| spawn_error(format!("cannot run `{command}`: {e}")))?;
                let tail = stderr.map(|s| StderrTail::spawn(s, options.stderr_limit));
                pid = child_pid;
                let handshake =
                    tokio::time::timeout(timeout, lifecycle.start(hooks, transport)).await;
                (handshake, tail)
            }
            McpTransport::Http { url, headers } => {
                let mut custom = HashMap::new();
                for (name, value) in headers {
                    let header_name = http::HeaderName::try_from(name.as_str())
                        .map_err(|_| spawn_error(format!("header `{name}` is not valid")))?;
                    let header_value =
                        http::HeaderValue::try_from(value.expose()).map_err(|_| {
                            spawn_error(format!("header `{name}` has an invalid value"))
                        })?;
                    custom.insert(header_name, header_value);
                }
                let refused = |reason: String| Error::UrlRefused {
                    server: server.clone(),
                    url: url.clone(),
                    reason,
                };
                if let Some(guard) = &options.http_guard {
                    guard.check_url(url).map_err(refused)?;
                }
                let transport_config = StreamableHttpClientTransportConfig::with_uri(url.as_str())
                    .custom_headers(custom)
                    .reinit_on_expired_session(true);
                let client = match (&options.http_guard, &options.http_client) {
                    (Some(guard), _) => guard.client(),
                    (None, Some(client)) => client.clone(),
                    (None, None) => default_client()
                        .map_err(|e| spawn_error(format!("cannot build the HTTP client: {e}")))?,
                };
                let slot = RefusalSlot::default();
                let mut challenges = RefusalSlot::default();
                let watched =
                    WatchedClient::new(client.clone(), options.http_guard.clone(), slot.clone())
                        .with_listed(Arc::clone(&hooks.listed))
                        .with_challenges(challenges.clone())
                        .with_dpop(options.oauth.as_ref().and_then(|o| o.dpop_key()));
                session_ids = Some(watched.session_ids());
                let unauthorized = |message: String| Error::Unauthorized {
                    server: server.clone(),
                    message,
                };
                // A token from an earlier session: start with it.
                let stored = match (&options.oauth, challenge) {
                    // Asked mid-session: authorize again (a new scope).
                    (Some(oauth), Some(challenge)) => Some(
                        crate::client::oauth::authorize(
                            &server,
                            url,
                            client.clone(),
                            oauth,
                            challenge,
                        )
                        .await
                        .map_err(&unauthorized)?,
                    ),
                    (Some(oauth), None) => {
                        crate::client::oauth::stored(&server, url, client.clone(), oauth)
                            .await
                            .map_err(&unauthorized)?
                    }
                    (None, _) => None,
                };
                let mut handshake = match stored {
                    Some(manager) => {
                        let transport = StreamableHttpClientTransport::with_client(
                            rmcp::transport::auth::AuthClient::new(watched.clone(), manager),
                            transport_config.clone(),
                        );
                        tokio::time::timeout(timeout, lifecycle.start(hooks.clone(), transport))
                            .await
                    }
                    None => {
                        let transport = StreamableHttpClientTransport::with_client(
                            watched.clone(),
                            transport_config.clone(),
                        );
                        tokio::time::timeout(timeout, lifecycle.start(hooks.clone(), transport))
                            .await
                    }
                };
                if !matches!(handshake, Ok(Ok(_)))
                    && let Some(reason) = slot.get()
                {
                    return Err(refused(reason));
                }
                if !matches!(handshake, Ok(Ok(_)))
                    && let Some(challenge) = challenges.get()
                {
                    let Some(oauth) = &options.oauth else {
                        return Err(unauthorized(format!(
                            "it answered 401 ({challenge}) and the host configured no OAuth"
                        )));
                    };
                    let manager = crate::client::oauth::authorize(
                        &server,
                        url,
                        client.clone(),
                        oauth,
                        &challenge,
                    )
                    .await
                    .map_err(&unauthorized)?;
                    let transport = StreamableHttpClientTransport::with_client(
                        // A fresh slot: the 401 just answered is not this session's.
                        rmcp::transport::auth::AuthClient::new(
                            {
                                challenges = RefusalSlot::default();
                                watched.with_challenges(challenges.clone())
                            },
                            manager,
                        ),
                        transport_config,
                    );
                    handshake =
                        tokio::time::timeout(timeout, lifecycle.start(hooks, transport)).await;
                }
                refusals = Some((url.clone(), slot));
                challenge_slot = Some(challenges);
                (handshake, None)
            }
        };
        let secret_refs: Vec<&str> = secrets.iter().map(String::as_str).collect();
        let stderr_text = || {
            stderr
                .as_ref()
                .map(|t| t.text(&secret_refs))
                .unwrap_or_default()
        };
        let service = match handshake {
            Err(_) => {
                return Err(Error::HandshakeTimeout {
                    server,
                    timeout_ms: timeout.as_millis() as u64,
                    stderr: stderr_text(),
                });
            }
            Ok(Err(error)) => {
                // Give a dying process a moment to finish its last words.
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                return Err(Error::Handshake {
                    server,
                    message: scrub(&error.to_string(), &secret_refs),
                    stderr: stderr_text(),
                });
            }
            Ok(Ok(service)) => service,
        };
        // Freshness over speed: the catalog has its own cache.
        service
            .peer()
            .set_response_cache_config(ClientCacheConfig::disabled())
            .await;
        let stateless = service
            .peer()
            .peer_info()
            .is_some_and(|info| !info.protocol_version.has_initialize());
        let listener = stateless
            .then(|| listen_for_list_changes(service.peer(), service.service()))
            .flatten();
        Ok(Self {
            service,
            stderr,
            secrets,
            pid,
            refusals,
            challenges: challenge_slot,
            session_ids,
            listener,
        })
    }

    /// The configured URL and the reason, when the host's guard refused a
    /// request of this session.
    pub(crate) fn refusal(&self) -> Option<(String, String)> {
        let (url, slot) = self.refusals.as_ref()?;
        slot.get().map(|reason| (url.clone(), reason))
    }

    /// The first 401/403 challenge this session met.
    pub(crate) fn challenge(&self) -> Option<String> {
        self.challenges.as_ref().and_then(RefusalSlot::get)
    }

    /// The HTTP session id, once the server gave one (2025-11-25).
    pub(crate) fn session_id(&self) -> Option<String> {
        self.session_ids.as_ref().and_then(RefusalSlot::get)
    }

    pub(crate) fn process_id(&self) -> Option<u32> {
        self.pid
    }

    pub(crate) fn peer(&self) -> &Peer<RoleClient> {
        self.service.peer()
    }

    /// The client's hooks (they answer a server's questions).
    pub(crate) fn hooks(&self) -> &Hooks {
        self.service.service()
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.service.is_closed() || self.service.peer().is_transport_closed()
    }

    /// The captured stderr tail, scrubbed of secrets.
    pub(crate) fn stderr(&self) -> String {
        let refs: Vec<&str> = self.secrets.iter().map(String::as_str).collect();
        self.stderr
            .as_ref()
            .map(|t| t.text(&refs))
            .unwrap_or_default()
    }

    pub(crate) fn scrub(&self, text: &str) -> String {
        let refs: Vec<&str> = self.secrets.iter().map(String::as_str).collect();
        scrub(text, &refs)
    }

    pub(crate) fn server_name(&self) -> Option<String> {
        self.peer()
            .peer_info()
            .and_then(|info| info.server_info.as_ref().map(|i| i.name.clone()))
    }

    /// The lifecycle this session ended up with.
    pub(crate) fn lifecycle(&self) -> Lifecycle {
        match self.peer().peer_info() {
            Some(info) if !info.protocol_version.has_initialize() => Lifecycle::Discover,
            _ => Lifecycle::Initialize,
        }
    }

    /// The protocol version the handshake settled on.
    pub(crate) fn protocol_version(&self) -> Option<String> {
        self.peer()
            .peer_info()
            .map(|info| info.protocol_version.to_string())
    }

    pub(crate) fn instructions(&self) -> Option<String> {
        self.peer()
            .peer_info()
            .and_then(|info| info.instructions.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::{PROPOSED_PROTOCOL_VERSION, PROTOCOL_VERSION};

    #[test]
    fn the_proposed_version_is_the_newest_with_an_initialize_handshake() {
        assert_eq!(PROPOSED_PROTOCOL_VERSION.as_str(), PROTOCOL_VERSION);
        assert!(PROPOSED_PROTOCOL_VERSION.has_initialize());
    }
}
