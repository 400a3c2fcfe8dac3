//! [`McpProvider`]: stored references of type `mcp` → managed tools, and
//! loading every configured server with a report per server.

use std::sync::Arc;

use async_trait::async_trait;
use tool_core::{
    Partial, Tool,
    assembly::{ProvideError, ToolProvider, ToolReference},
};

use crate::client::manager::McpManager;
use crate::client::tool::McpTool;
use crate::error::Error;

/// `tool_id` meaning "every tool of the server".
pub const ALL_TOOLS: &str = "*";

/// Turns references `{type: "mcp", provider_id: <server id>, tool_id:
/// <remote tool name> | "*"}` into [`McpTool`]s.
///
/// A reference to one remote tool yields the server's tool with that one
/// API; `"*"` yields every API. A registry holds one tool per identifier, so
/// a host that stores several tools of one server should store `"*"` (or
/// use [`McpProvider::load_all`]).
#[derive(Debug, Clone)]
pub struct McpProvider {
    manager: Arc<McpManager>,
}

/// What happened to one server in [`McpProvider::load_all`].
#[derive(Debug)]
#[non_exhaustive]
pub enum ServerReport {
    /// The server's tools loaded; `skipped` lists remote tools left out.
    Loaded {
        /// The server id.
        server: String,
        /// How many APIs the tool has.
        apis: usize,
        /// Remote tools that did not make a valid API.
        skipped: Vec<tool_core::Error>,
    },
    /// The server is disabled and was not started.
    Disabled {
        /// The server id.
        server: String,
    },
    /// The server could not be loaded.
    Failed(Error),
}

impl ServerReport {
    /// The server id.
    pub fn server(&self) -> &str {
        match self {
            Self::Loaded { server, .. } | Self::Disabled { server } => server,
            Self::Failed(error) => error.server().unwrap_or(""),
        }
    }
}

/// What [`McpProvider::load_all`] produced.
#[derive(Default)]
pub struct McpLoad {
    /// One tool per server that loaded.
    pub tools: Vec<Arc<dyn Tool>>,
    /// One report per configured server, in id order.
    pub reports: Vec<ServerReport>,
}

impl std::fmt::Debug for McpLoad {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpLoad")
            .field("tools", &self.tools.len())
            .field("reports", &self.reports)
            .finish()
    }
}

impl McpLoad {
    /// The load as tool-core's one batch shape: the tools, and each failed
    /// server with its id as the source (disabled servers are neither).
    /// `registry.register_all(load.into_partial().into_complete()?)` is the
    /// one line for a host that wants every server or none.
    pub fn into_partial(self) -> Partial<Arc<dyn Tool>, Error> {
        let mut out = Partial::new();
        out.extend(self.tools);
        for report in self.reports {
            if let ServerReport::Failed(error) = report {
                let source = error.server().unwrap_or("mcp").to_owned();
                out.fail(source, error);
            }
        }
        out
    }

    /// The failures (disabled servers are not failures).
    pub fn failures(&self) -> impl Iterator<Item = &Error> {
        self.reports.iter().filter_map(|r| match r {
            ServerReport::Failed(e) => Some(e),
            _ => None,
        })
    }
}

impl McpProvider {
    /// A provider over `manager`'s servers.
    pub fn new(manager: Arc<McpManager>) -> Self {
        Self { manager }
    }

    /// The manager.
    pub fn manager(&self) -> &Arc<McpManager> {
        &self.manager
    }

    async fn build(
        &self,
        server: &str,
        only: Option<&str>,
    ) -> Result<(McpTool, Vec<tool_core::Error>), Error> {
        let config = self
            .manager
            .config(server)
            .ok_or_else(|| Error::UnknownServer {
                server: server.into(),
            })?;
        let catalog = self.manager.catalog(server).await?;
        Ok(McpTool::from_catalog(
            Arc::clone(&self.manager),
            &config,
            &catalog,
            only,
        ))
    }

    /// Loads every configured server concurrently: disabled ones are skipped
    /// with a report, one that fails never stops the others, and every
    /// failure is in the reports.
    pub async fn load_all(&self) -> McpLoad {
        let ids = self.manager.ids();
        let results = futures::future::join_all(ids.iter().map(|id| self.load_one(id))).await;
        let mut load = McpLoad::default();
        for (tool, report) in results {
            load.tools.extend(tool);
            load.reports.push(report);
        }
        load
    }

    async fn load_one(&self, id: &str) -> (Option<Arc<dyn Tool>>, ServerReport) {
        if self.manager.config(id).is_some_and(|c| !c.enabled) {
            return (
                None,
                ServerReport::Disabled {
                    server: id.to_owned(),
                },
            );
        }
        match self.build(id, None).await {
            Ok((tool, skipped)) => {
                let report = ServerReport::Loaded {
                    server: id.to_owned(),
                    apis: tool.manifest().api.len(),
                    skipped,
                };
                (Some(Arc::new(tool)), report)
            }
            Err(error) => (None, ServerReport::Failed(error)),
        }
    }
}

#[async_trait]
impl ToolProvider for McpProvider {
    fn kind(&self) -> &str {
        tool_core::ToolKind::Mcp.as_str()
    }

    async fn provide(&self, reference: &ToolReference) -> Result<Arc<dyn Tool>, ProvideError> {
        let only = (reference.tool_id != ALL_TOOLS).then_some(reference.tool_id.as_str());
        let (tool, skipped) = self
            .build(&reference.provider_id, only)
            .await
            .map_err(|error| match error {
                Error::UnknownServer { .. } => ProvideError::NotFound(error.to_string()),
                other => ProvideError::Failed(other.to_string()),
            })?;
        if let Some(name) = only
            && tool.manifest().api.is_empty()
        {
            return Err(match skipped.into_iter().next() {
                Some(problem) => ProvideError::Failed(format!(
                    "MCP server `{}` offers `{name}`, but it is not usable: {problem}",
                    reference.provider_id
                )),
                None => ProvideError::NotFound(format!(
                    "MCP server `{}` offers no tool `{name}`",
                    reference.provider_id
                )),
            });
        }
        Ok(Arc::new(tool))
    }
}
