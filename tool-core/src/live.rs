//! A registry shared between tasks and changed while calls run.

use std::sync::{Arc, PoisonError, RwLock};

use crate::context::ToolContext;
use crate::error::Error;
use crate::offered::OfferedTools;
use crate::registry::ToolRegistry;
use crate::tool::Tool;

/// A [`ToolRegistry`] behind a shared handle: one task offers and invokes
/// while another replaces or removes tools (an MCP client reacting to
/// `tools/list_changed`, a watcher reloading a skills folder).
///
/// Changes never disturb what was offered before: a call running on an
/// earlier snapshot finishes with the tool it started with, and the next
/// [`offer`](Self::offer) sees the change. The lock is held only while the
/// registry itself is read or changed, never while a tool runs.
///
/// ```
/// use tool_core::{ApiDefinition, LiveRegistry, ToolBuilder, ToolContext, ToolOutput};
/// let version = |v: &'static str| {
///     ToolBuilder::new("srv")
///         .api(ApiDefinition::new("ping", "Pings."), move |_, _| async move { Ok(ToolOutput::text(v)) })
///         .build()
/// };
/// let live = LiveRegistry::new();
/// live.register(version("v1")?)?;
/// let before = live.offer(&ToolContext::new());
/// live.replace(version("v2")?)?;               // e.g. after tools/list_changed
/// assert_ne!(live.generation(), before.generation());
/// assert!(before.get("srv").is_some());        // the old snapshot still works
/// # Ok::<(), tool_core::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct LiveRegistry {
    inner: Arc<RwLock<ToolRegistry>>,
}

impl From<ToolRegistry> for LiveRegistry {
    fn from(registry: ToolRegistry) -> Self {
        Self {
            inner: Arc::new(RwLock::new(registry)),
        }
    }
}

impl LiveRegistry {
    /// An empty shared registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// A snapshot of what `ctx` is offered (see [`ToolRegistry::offer`]).
    pub fn offer(&self, ctx: &ToolContext) -> OfferedTools {
        self.read(|registry| registry.offer(ctx))
    }

    /// Registers a tool.
    pub fn register(&self, tool: impl Tool) -> Result<(), Error> {
        self.update(|registry| registry.register(tool))
    }

    /// Registers or replaces a tool by identifier; returns the replaced one.
    pub fn replace(&self, tool: impl Tool) -> Result<Option<Arc<dyn Tool>>, Error> {
        self.update(|registry| registry.replace(tool))
    }

    /// [`replace`](Self::replace) for a shared tool.
    pub fn replace_arc(&self, tool: Arc<dyn Tool>) -> Result<Option<Arc<dyn Tool>>, Error> {
        self.update(|registry| registry.replace_arc(tool))
    }

    /// Removes a tool by identifier; returns it.
    pub fn remove(&self, identifier: &str) -> Option<Arc<dyn Tool>> {
        self.update(|registry| registry.remove(identifier))
    }

    /// The registry's generation (bumped by every change).
    pub fn generation(&self) -> u64 {
        self.read(ToolRegistry::generation)
    }

    /// Reads the registry under the lock.
    pub fn read<R>(&self, f: impl FnOnce(&ToolRegistry) -> R) -> R {
        f(&self.inner.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// Changes the registry under the lock: several changes in one closure
    /// (all tools of one MCP server swapped at once) are seen together by
    /// the next offer.
    pub fn update<R>(&self, f: impl FnOnce(&mut ToolRegistry) -> R) -> R {
        f(&mut self.inner.write().unwrap_or_else(PoisonError::into_inner))
    }
}
