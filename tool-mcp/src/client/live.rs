//! Servers' tools kept in step with their lists: every server loaded into a
//! [`LiveRegistry`], and rebuilt there when it sends
//! `notifications/tools/list_changed`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::broadcast::error::RecvError;
use tool_core::LiveRegistry;

use crate::client::manager::McpManager;
use crate::client::provider::{McpProvider, ServerReport};
use crate::client::tool::McpTool;

/// What [`McpProvider::load_live`] produced.
#[derive(Debug)]
#[non_exhaustive]
pub struct LiveLoad {
    /// One report per configured server, in id order.
    pub reports: Vec<ServerReport>,
    /// Servers whose tool loaded but could not be registered (an identifier
    /// or wire name already taken), with why; they are not followed.
    pub not_registered: Vec<(String, tool_core::Error)>,
    /// Follows the registered servers' list changes until dropped.
    pub sync: LiveSync,
}

#[derive(Debug)]
struct SyncState {
    rebuilds: tokio::sync::watch::Sender<u64>,
    errors: Mutex<BTreeMap<String, String>>,
}

/// The task that rebuilds servers' tools in a [`LiveRegistry`] on
/// `notifications/tools/list_changed`. Dropping it stops following.
///
/// A rebuild lists the server's tools again and replaces its tool in the
/// registry (every API at once; calls already running finish on the tool
/// they started with, and a call through an older snapshot to a tool the
/// server removed fails with `mcp_tool_removed`). A rebuild that fails
/// leaves the previous tool in place; its reason — or the remote tools a
/// rebuild had to leave out — is kept in [`errors`](Self::errors) until the
/// server's next clean rebuild.
#[derive(Debug)]
pub struct LiveSync {
    task: tokio::task::JoinHandle<()>,
    state: Arc<SyncState>,
}

impl Drop for LiveSync {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl LiveSync {
    /// Rebuilds done so far (successful or not).
    pub fn rebuilds(&self) -> u64 {
        *self.state.rebuilds.borrow()
    }

    /// The rebuild count, watched: changes after each rebuild (e.g. to call
    /// [`RegistryServer::notify_tools_changed`](crate::RegistryServer::notify_tools_changed)
    /// when the registry is also served over MCP).
    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.state.rebuilds.subscribe()
    }

    /// Per server id, what went wrong in its last rebuild (nothing for a clean one).
    pub fn errors(&self) -> BTreeMap<String, String> {
        self.state
            .errors
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Waits until [`rebuilds`](Self::rebuilds) exceeds `seen`.
    pub async fn rebuilt_after(&self, seen: u64) {
        let mut rebuilds = self.subscribe();
        // The sender lives as long as `self`, so this only returns once reached.
        let _ = rebuilds.wait_for(|n| *n > seen).await;
    }
}

impl McpProvider {
    /// Loads every configured server (like [`load_all`](Self::load_all)),
    /// registers each server's tool in `live`, and keeps it in step: when a
    /// server sends `notifications/tools/list_changed`, its tools are listed
    /// again and its tool replaced in `live` (see [`LiveSync`]).
    ///
    /// Must be called inside a Tokio runtime (the follower is a task).
    pub async fn load_live(&self, live: &LiveRegistry) -> LiveLoad {
        // Subscribe first: a change arriving while loading is not missed.
        let changes = self.manager().tool_list_changes();
        let load = self.load_all().await;
        let mut followed = BTreeSet::new();
        let mut not_registered = Vec::new();
        for tool in load.tools {
            let id = tool.manifest().identifier.clone();
            match live.update(|registry| registry.register_arc(tool)) {
                Ok(()) => {
                    followed.insert(id);
                }
                Err(error) => not_registered.push((id, error)),
            }
        }
        let state = Arc::new(SyncState {
            rebuilds: tokio::sync::watch::Sender::new(0),
            errors: Mutex::new(BTreeMap::new()),
        });
        let task = tokio::spawn(follow(
            Arc::clone(self.manager()),
            live.clone(),
            followed,
            changes,
            Arc::clone(&state),
        ));
        LiveLoad {
            reports: load.reports,
            not_registered,
            sync: LiveSync { task, state },
        }
    }
}

async fn follow(
    manager: Arc<McpManager>,
    live: LiveRegistry,
    followed: BTreeSet<String>,
    mut changes: tokio::sync::broadcast::Receiver<String>,
    state: Arc<SyncState>,
) {
    loop {
        let due: Vec<String> = match changes.recv().await {
            Ok(id) if followed.contains(&id) => vec![id],
            Ok(_) => continue,
            Err(RecvError::Lagged(_)) => {
                for id in &followed {
                    manager.invalidate(id);
                }
                followed.iter().cloned().collect()
            }
            Err(RecvError::Closed) => return,
        };
        for id in due {
            let outcome = rebuild(&manager, &live, &id).await;
            let mut errors = state.errors.lock().unwrap_or_else(PoisonError::into_inner);
            match outcome {
                Ok(()) => errors.remove(&id),
                Err(message) => errors.insert(id, message),
            };
            drop(errors);
            state.rebuilds.send_modify(|n| *n += 1);
        }
    }
}

async fn rebuild(manager: &Arc<McpManager>, live: &LiveRegistry, id: &str) -> Result<(), String> {
    let config = manager
        .config(id)
        .ok_or_else(|| format!("MCP server `{id}` is no longer configured"))?;
    let catalog = manager.catalog(id).await.map_err(|e| e.to_string())?;
    let (tool, skipped) = McpTool::from_catalog(Arc::clone(manager), &config, &catalog, None);
    live.replace_arc(Arc::new(tool))
        .map_err(|e| format!("the rebuilt tool was not registered: {e}"))?;
    if skipped.is_empty() {
        Ok(())
    } else {
        let all: Vec<String> = skipped.iter().map(ToString::to_string).collect();
        Err(format!(
            "rebuilt without {} remote tool(s) that make no valid API: {}",
            all.len(),
            all.join("; ")
        ))
    }
}
