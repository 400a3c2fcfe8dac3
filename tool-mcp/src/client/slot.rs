//! A server's slot in the manager: the live session, the cached catalog
//! and its freshness, and the counters a report shows.

use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use crate::client::catalog::McpCatalog;
use crate::client::config::McpServerConfig;
use crate::client::remote_talk::InFlight;
use crate::client::session::{Lifecycle, Session};
use crate::client::timeouts::{TimeoutWatch, Unanswered};

pub(crate) struct Slot {
    pub(crate) config: McpServerConfig,
    /// The live session, read without waiting on the hot path.
    pub(super) live: RwLock<Option<Arc<Session>>>,
    /// Held while a session is being opened, so concurrent callers share one.
    pub(super) connecting: tokio::sync::Mutex<()>,
    /// Held while `tools/list` runs, so concurrent callers share one listing.
    pub(super) listing: tokio::sync::Mutex<()>,
    pub(super) catalog: Arc<Mutex<Option<Arc<McpCatalog>>>>,
    /// When the cached catalog goes stale (the server's `ttlMs`, when above 0).
    pub(super) fresh_until: Mutex<Option<std::time::Instant>>,
    pub(super) sessions_started: AtomicU64,
    pub(super) list_changes: Arc<AtomicU64>,
    /// Calls with events in flight, across sessions.
    pub(crate) in_flight: Arc<InFlight>,
    /// The `execution` of the tools the server listed (rmcp drops it).
    pub(crate) listed: Arc<crate::client::listed_execution::ListedExecution>,
    /// The lifecycle that opened this server's last session (what
    /// [`McpProtocol::Auto`] found).
    pub(super) lifecycle: Mutex<Option<Lifecycle>>,
    /// Calls in a row dropped before the server answered
    /// (`client::timeouts`).
    pub(super) unanswered: Arc<Unanswered>,
}

impl Slot {
    pub(super) fn new(config: McpServerConfig) -> Self {
        Self {
            config,
            live: RwLock::new(None),
            connecting: tokio::sync::Mutex::new(()),
            listing: tokio::sync::Mutex::new(()),
            catalog: Arc::new(Mutex::new(None)),
            fresh_until: Mutex::new(None),
            sessions_started: AtomicU64::new(0),
            list_changes: Arc::new(AtomicU64::new(0)),
            in_flight: Arc::default(),
            listed: Arc::default(),
            lifecycle: Mutex::new(None),
            unanswered: Arc::default(),
        }
    }

    /// Watches a call to this server: when it is dropped unanswered and
    /// `limit` calls in a row were, the live session is let go (the next
    /// request opens a new one).
    pub(super) fn watch_call(
        self: &Arc<Self>,
        limit: u32,
    ) -> TimeoutWatch<impl FnOnce(u32) + use<>> {
        let slot = Arc::clone(self);
        TimeoutWatch::new(&self.unanswered, limit, move |in_a_row| {
            if slot.set_live(None).is_some() {
                tracing::warn!(
                    name: "mcp.restart",
                    server = %slot.config.id,
                    unanswered = in_a_row,
                    "restarting an MCP server after calls in a row went unanswered"
                );
            }
        })
    }

    pub(super) fn live_session(&self) -> Option<Arc<Session>> {
        self.live
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .filter(|s| !s.is_closed())
            .cloned()
    }

    pub(super) fn set_live(&self, session: Option<Arc<Session>>) -> Option<Arc<Session>> {
        std::mem::replace(
            &mut *self.live.write().unwrap_or_else(PoisonError::into_inner),
            session,
        )
    }

    pub(super) fn cached_catalog(&self) -> Option<Arc<McpCatalog>> {
        let stale = self
            .fresh_until
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some_and(|until| std::time::Instant::now() >= until);
        if stale {
            return None;
        }
        self.catalog
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    pub(super) fn set_catalog(&self, catalog: Option<Arc<McpCatalog>>) {
        *self.catalog.lock().unwrap_or_else(PoisonError::into_inner) = catalog;
    }
}
