//! Two-level lookup tables for host-side UI surfaces.

use std::collections::HashMap;

/// `identifier → apiName → T`, with an optional per-tool entry and a global
/// fallback. A host keeps one per surface (renderers, inspectors,
/// placeholders, intervention panels…); the chat UI then never needs to know
/// a concrete tool.
///
/// Lookup order: exact `(identifier, api)`, then the tool-wide entry for
/// `identifier`, then the fallback.
///
/// ```
/// use tool_core::export::SurfaceTable;
/// let mut renders = SurfaceTable::with_fallback("json-card");
/// renders.insert("web", "search", "search-results");
/// renders.insert_tool("web", "web-card");
/// assert_eq!(renders.get("web", "search"), Some(&"search-results"));
/// assert_eq!(renders.get("web", "crawl"), Some(&"web-card"));
/// assert_eq!(renders.get("calculator", "eval"), Some(&"json-card"));
/// assert_eq!(renders.get_exact("calculator", "eval"), None);
/// ```
#[derive(Debug, Clone)]
pub struct SurfaceTable<T> {
    by_api: HashMap<String, HashMap<String, T>>,
    by_tool: HashMap<String, T>,
    fallback: Option<T>,
}

impl<T> Default for SurfaceTable<T> {
    fn default() -> Self {
        Self {
            by_api: HashMap::new(),
            by_tool: HashMap::new(),
            fallback: None,
        }
    }
}

impl<T> SurfaceTable<T> {
    /// An empty table without fallback.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty table whose lookups fall back to `fallback`.
    pub fn with_fallback(fallback: T) -> Self {
        Self {
            fallback: Some(fallback),
            ..Self::default()
        }
    }

    /// Registers `value` for one API; returns the value it replaced.
    pub fn insert(
        &mut self,
        identifier: impl Into<String>,
        api: impl Into<String>,
        value: T,
    ) -> Option<T> {
        self.by_api
            .entry(identifier.into())
            .or_default()
            .insert(api.into(), value)
    }

    /// Registers `value` for every API of a tool without its own entry.
    pub fn insert_tool(&mut self, identifier: impl Into<String>, value: T) -> Option<T> {
        self.by_tool.insert(identifier.into(), value)
    }

    /// Merges `entries` (`identifier → api → T`), as a tool package registers its surfaces.
    pub fn extend<I, A>(&mut self, entries: I)
    where
        I: IntoIterator<Item = (String, A)>,
        A: IntoIterator<Item = (String, T)>,
    {
        for (identifier, apis) in entries {
            self.by_api.entry(identifier).or_default().extend(apis);
        }
    }

    /// Sets the fallback.
    pub fn set_fallback(&mut self, fallback: T) {
        self.fallback = Some(fallback);
    }

    /// The entry for `(identifier, api)`: exact, then tool-wide, then fallback.
    pub fn get(&self, identifier: &str, api: &str) -> Option<&T> {
        self.get_exact(identifier, api)
            .or_else(|| self.by_tool.get(identifier))
            .or(self.fallback.as_ref())
    }

    /// Only an exact `(identifier, api)` entry.
    pub fn get_exact(&self, identifier: &str, api: &str) -> Option<&T> {
        self.by_api.get(identifier).and_then(|apis| apis.get(api))
    }

    /// Whether any entry exists for `identifier`.
    pub fn has_tool(&self, identifier: &str) -> bool {
        self.by_api.contains_key(identifier) || self.by_tool.contains_key(identifier)
    }
}
