//! The registry of tools: register, replace, remove, and offer snapshots.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::compiled::CompiledSchema;
use crate::context::ToolContext;
use crate::declare::{RenderDisplayControl, ToolManifest};
use crate::error::Error;
use crate::naming::wire_name;
use crate::offered::{OfferedTools, Snapshot};
use crate::tool::Tool;
use crate::validate::{NameRules, validate_manifest_with};

struct Entry {
    tool: Arc<dyn Tool>,
    /// A shared copy of the static manifest, taken at registration.
    manifest: Arc<ToolManifest>,
    /// Compiled parameters of the static manifest, in API order.
    schemas: Arc<[CompiledSchema]>,
    /// Wire names of the static manifest, in API order.
    wire_names: Arc<[String]>,
    /// The name rules this tool was validated under.
    rules: NameRules,
}

/// Identifier → tool. Registration validates the manifest, compiles every
/// API's schema once, and refuses duplicate identifiers and wire-name
/// collisions.
///
/// # Name rules
///
/// Each tool is validated under its own [`Tool::name_rules`] (what its
/// [`ToolBuilder`](crate::ToolBuilder) declared), so one MCP tool with
/// foreign names does not loosen the rules for every builtin. A registry
/// made [`with_name_rules`](Self::with_name_rules)`(NameRules::Foreign)`
/// accepts foreign names for every tool.
///
/// # A live registry
///
/// [`replace`](Self::replace) and [`remove`](Self::remove) change the
/// registry while it is in use (an MCP server's `tools/list_changed`, a
/// reconnect, a reloaded skills folder). Snapshots already offered are not
/// affected: a call running on one finishes with the tool it started with.
/// Every change bumps the [`generation`](Self::generation); while it stays
/// the same and no tool resolves its manifest per context, [`offer`](Self::offer)
/// hands out the same shared snapshot instead of rebuilding it. Share a
/// registry between tasks with [`LiveRegistry`](crate::LiveRegistry).
///
/// ```
/// use tool_core::{ApiDefinition, ToolBuilder, ToolContext, ToolOutput, ToolRegistry};
/// let mut registry = ToolRegistry::new();
/// registry.register(
///     ToolBuilder::new("clock")
///         .api(ApiDefinition::new("now", "Current time."), |_, _| async {
///             Ok(ToolOutput::text("12:00"))
///         })
///         .build()?,
/// )?;
/// let offered = registry.offer(&ToolContext::new());
/// assert_eq!(offered.openai_chat_tools()[0]["function"]["name"], "clock____now");
/// assert!(registry.offer(&ToolContext::new()).shares_snapshot_with(&offered));
///
/// registry.remove("clock");
/// assert_eq!(offered.api_count(), 1, "the snapshot taken before is unchanged");
/// assert_eq!(registry.offer(&ToolContext::new()).api_count(), 0);
/// # Ok::<(), tool_core::Error>(())
/// ```
#[derive(Default)]
pub struct ToolRegistry {
    entries: Vec<Entry>,
    by_id: HashMap<String, usize>,
    /// Wire names of every static API → `identifier/api`.
    wire: HashMap<String, String>,
    rules: NameRules,
    generation: u64,
    /// The last fully static snapshot and the generation it was taken at.
    cache: Mutex<Option<OfferedTools>>,
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolRegistry")
            .field("tools", &self.identifiers().collect::<Vec<_>>())
            .field("generation", &self.generation)
            .finish()
    }
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Accepts names under `rules` for every tool from now on (default
    /// [`NameRules::Strict`]: each tool's own [`Tool::name_rules`] apply).
    pub fn with_name_rules(mut self, rules: NameRules) -> Self {
        self.rules = rules;
        self
    }

    /// Registers a tool.
    pub fn register(&mut self, tool: impl Tool) -> Result<(), Error> {
        self.register_arc(Arc::new(tool))
    }

    /// Registers every tool of a provider in one line (the tools of an MCP
    /// server, the operations of an API document, a skills folder): each
    /// that registers is listed by identifier, each that does not is a
    /// failure named by its identifier. One bad tool never stops the rest.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use tool_core::{ApiDefinition, Tool, ToolBuilder, ToolOutput, ToolRegistry};
    /// let tool = |id: &str| -> Arc<dyn Tool> {
    ///     Arc::new(ToolBuilder::new(id)
    ///         .api(ApiDefinition::new("run", "Runs."), |_, _| async { Ok(ToolOutput::text("ok")) })
    ///         .build().unwrap())
    /// };
    /// let mut registry = ToolRegistry::new();
    /// let loaded = registry.register_all([tool("a"), tool("b"), tool("a")]);
    /// assert_eq!(loaded.loaded(), ["a", "b"]);
    /// assert_eq!(loaded.failed()[0].source, "a");
    /// ```
    pub fn register_all(
        &mut self,
        tools: impl IntoIterator<Item = Arc<dyn Tool>>,
    ) -> crate::Partial<String, Error> {
        let mut outcome = crate::Partial::new();
        for tool in tools {
            let identifier = tool.manifest().identifier.clone();
            match self.register_arc(tool) {
                Ok(()) => outcome.push(identifier),
                Err(e) => outcome.fail(identifier, e),
            }
        }
        outcome
    }

    /// Registers a shared tool.
    pub fn register_arc(&mut self, tool: Arc<dyn Tool>) -> Result<(), Error> {
        let identifier = &tool.manifest().identifier;
        if self.by_id.contains_key(identifier) {
            return Err(Error::DuplicateTool {
                identifier: identifier.clone(),
            });
        }
        let entry = self.checked_entry(tool, None, None)?;
        self.push_entry(entry);
        Ok(())
    }

    /// [`register_arc`](Self::register_arc) for a tool whose manifest and
    /// parameters schemas were prepared beforehand: the same checks, errors
    /// and result, without redoing that work.
    ///
    /// - `manifest` is shared instead of copied when it is the very manifest
    ///   `tool.manifest()` returns (for a tool that keeps its manifest in an
    ///   `Arc`); otherwise the registry copies the tool's manifest as usual.
    /// - `compiled[i]` stands for API `i`'s compiled parameters under the
    ///   rules of [`CompiledSchema::for_manifest`]: used when its kept source
    ///   equals them or when it keeps none (on the caller's word); `None`
    ///   compiles them here.
    /// - A [`CompiledSchema::checked`] entry (checked, nothing kept) is
    ///   compiled the first time a call to that API is validated, from the
    ///   registered manifest's parameters: registering thousands of APIs
    ///   keeps no validator until they are called.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use tool_core::{ApiDefinition, Tool, ToolBuilder, ToolOutput, ToolRegistry, pipeline::CompiledSchema};
    /// let schema = serde_json::json!({"type": "object", "properties": {"q": {"type": "string"}}});
    /// let tool = ToolBuilder::new("search")
    ///     .api(ApiDefinition::new("find", "Finds.").with_parameters(schema.clone()), |_, _| async {
    ///         Ok(ToolOutput::text("found"))
    ///     })
    ///     .build()?;
    /// let manifest = Arc::new(tool.manifest().clone()); // not the tool's own: copied as usual
    /// let kept = CompiledSchema::try_compile_kept(schema)?;
    /// let mut registry = ToolRegistry::new();
    /// registry.register_compiled(Arc::new(tool), manifest, vec![Some(kept)])?;
    /// assert_eq!(registry.len(), 1);
    /// # Ok::<(), tool_core::Error>(())
    /// ```
    pub fn register_compiled(
        &mut self,
        tool: Arc<dyn Tool>,
        manifest: Arc<ToolManifest>,
        compiled: Vec<Option<CompiledSchema>>,
    ) -> Result<(), Error> {
        let identifier = &tool.manifest().identifier;
        if self.by_id.contains_key(identifier) {
            return Err(Error::DuplicateTool {
                identifier: identifier.clone(),
            });
        }
        let entry = self.checked_entry(tool, None, Some((manifest, compiled)))?;
        self.push_entry(entry);
        Ok(())
    }

    fn push_entry(&mut self, entry: Entry) {
        self.insert_wire_names(&entry);
        self.by_id
            .insert(entry.manifest.identifier.clone(), self.entries.len());
        self.entries.push(entry);
        self.changed();
    }

    /// Registers a tool, or replaces the one with the same identifier (keeping
    /// its position); returns the tool it replaced.
    pub fn replace(&mut self, tool: impl Tool) -> Result<Option<Arc<dyn Tool>>, Error> {
        self.replace_arc(Arc::new(tool))
    }

    /// [`replace`](Self::replace) for a shared tool. On error the registry is
    /// unchanged.
    pub fn replace_arc(&mut self, tool: Arc<dyn Tool>) -> Result<Option<Arc<dyn Tool>>, Error> {
        let Some(&index) = self.by_id.get(&tool.manifest().identifier) else {
            self.register_arc(tool)?;
            return Ok(None);
        };
        let entry = self.checked_entry(tool, Some(index), None)?;
        for name in self.entries[index].wire_names.iter() {
            self.wire.remove(name);
        }
        self.insert_wire_names(&entry);
        let old = std::mem::replace(&mut self.entries[index], entry);
        self.changed();
        Ok(Some(old.tool))
    }

    /// Removes the tool registered under `identifier`; returns it.
    pub fn remove(&mut self, identifier: &str) -> Option<Arc<dyn Tool>> {
        let index = self.by_id.remove(identifier)?;
        let entry = self.entries.remove(index);
        for name in entry.wire_names.iter() {
            self.wire.remove(name);
        }
        for position in self.by_id.values_mut() {
            if *position > index {
                *position -= 1;
            }
        }
        self.changed();
        Some(entry.tool)
    }

    /// Removes every tool whose static manifest fails `keep`; returns how
    /// many were removed (one generation bump for the lot).
    pub fn retain(&mut self, mut keep: impl FnMut(&ToolManifest) -> bool) -> usize {
        let before = self.entries.len();
        self.entries.retain(|entry| keep(&entry.manifest));
        let removed = before - self.entries.len();
        if removed > 0 {
            self.by_id = self
                .entries
                .iter()
                .enumerate()
                .map(|(i, e)| (e.manifest.identifier.clone(), i))
                .collect();
            self.wire = self
                .entries
                .iter()
                .flat_map(|e| {
                    e.wire_names.iter().zip(&e.manifest.api).map(|(name, api)| {
                        (
                            name.clone(),
                            format!("{}/{}", e.manifest.identifier, api.name),
                        )
                    })
                })
                .collect();
            self.changed();
        }
        removed
    }

    /// A counter bumped by every change (register, replace, remove, retain).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    fn changed(&mut self) {
        self.generation += 1;
        *self.cache.get_mut().unwrap_or_else(|e| e.into_inner()) = None;
    }

    /// Validates `tool` and checks its wire names against every other tool
    /// (`replacing`: the entry it would replace, whose names do not count;
    /// `prepared`: see [`register_compiled`](Self::register_compiled)).
    fn checked_entry(
        &self,
        tool: Arc<dyn Tool>,
        replacing: Option<usize>,
        prepared: Option<(Arc<ToolManifest>, Vec<Option<CompiledSchema>>)>,
    ) -> Result<Entry, Error> {
        let rules = self.rules.loosest(tool.name_rules());
        let manifest = tool.manifest();
        let (schemas, shared) = match prepared {
            Some((shared, compiled)) => {
                let shared = if std::ptr::eq(manifest, shared.as_ref()) {
                    shared
                } else {
                    Arc::new(manifest.clone())
                };
                let schemas = CompiledSchema::for_shared_manifest(&shared, rules, compiled)?;
                (schemas, Some(shared))
            }
            None => (validate_manifest_with(manifest, rules)?, None),
        };
        let own: &[String] = replacing.map_or(&[], |i| &self.entries[i].wire_names);
        let mut wire_names = Vec::with_capacity(manifest.api.len());
        for api in &manifest.api {
            let name = wire_name(&manifest.identifier, &api.name);
            if let Some(first) = self.wire.get(&name).filter(|_| !own.contains(&name)) {
                return Err(Error::WireNameCollision {
                    name,
                    first: first.clone(),
                    second: format!("{}/{}", manifest.identifier, api.name),
                });
            }
            wire_names.push(name);
        }
        let manifest = shared.unwrap_or_else(|| Arc::new(manifest.clone()));
        Ok(Entry {
            tool,
            manifest,
            schemas: schemas.into(),
            wire_names: wire_names.into(),
            rules,
        })
    }

    fn insert_wire_names(&mut self, entry: &Entry) {
        for (name, api) in entry.wire_names.iter().zip(&entry.manifest.api) {
            self.wire.insert(
                name.clone(),
                format!("{}/{}", entry.manifest.identifier, api.name),
            );
        }
    }

    /// The tool registered under `identifier`.
    pub fn get(&self, identifier: &str) -> Option<&Arc<dyn Tool>> {
        self.by_id.get(identifier).map(|&i| &self.entries[i].tool)
    }

    /// Registered identifiers, in registration order.
    pub fn identifiers(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|e| e.manifest.identifier.as_str())
    }

    /// Number of registered tools.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing is registered.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Static manifests (as registered), in registration order.
    pub fn manifests(&self) -> impl Iterator<Item = &ToolManifest> {
        self.entries.iter().map(|e| e.manifest.as_ref())
    }

    /// The display control for a result card (from the static manifest;
    /// collapsed when the tool or API is unknown or sets none).
    pub fn display_control(&self, identifier: &str, api: &str) -> RenderDisplayControl {
        self.by_id
            .get(identifier)
            .and_then(|&i| self.entries[i].manifest.api(api))
            .and_then(|a| a.render_display_control)
            .unwrap_or_default()
    }

    /// What a model is offered in `ctx`: each tool's resolved manifest (a tool
    /// may hide itself or trim its APIs), with wire names and compiled schemas.
    ///
    /// A resolved manifest that fails validation is left out and reported in
    /// [`OfferedTools::problems`].
    ///
    /// When every tool offers its static manifest unchanged (a resolution
    /// that borrows, the default of [`Tool::resolve_manifest`]) and nothing
    /// changed since the last such offer, the same shared snapshot is
    /// returned: nothing is cloned or rebuilt.
    pub fn offer(&self, ctx: &ToolContext) -> OfferedTools {
        let resolved: Vec<Option<Cow<'_, ToolManifest>>> = self
            .entries
            .iter()
            .map(|entry| entry.tool.resolve_manifest(ctx))
            .collect();
        let all_static = resolved.iter().all(|m| matches!(m, Some(Cow::Borrowed(_))));
        if all_static {
            let cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(cached) = cache.as_ref().filter(|c| c.generation() == self.generation) {
                return cached.clone();
            }
        }
        let mut snapshot = Snapshot::default();
        snapshot.generation = self.generation;
        for (entry, manifest) in self.entries.iter().zip(resolved) {
            match manifest {
                None => {}
                Some(Cow::Borrowed(_)) => snapshot.push(
                    Arc::clone(&entry.tool),
                    Arc::clone(&entry.manifest),
                    Arc::clone(&entry.schemas),
                    Arc::clone(&entry.wire_names),
                ),
                Some(Cow::Owned(resolved)) => match reuse_or_compile(entry, &resolved) {
                    Ok(schemas) => {
                        let names = resolved
                            .api
                            .iter()
                            .map(|api| wire_name(&resolved.identifier, &api.name))
                            .collect();
                        snapshot.push(
                            Arc::clone(&entry.tool),
                            Arc::new(resolved),
                            schemas.into(),
                            names,
                        );
                    }
                    Err(problem) => {
                        tracing::warn!(error = %problem, "resolved manifest left out");
                        snapshot.problems.push(problem);
                    }
                },
            }
        }
        let offered = snapshot.into_offered();
        if all_static {
            *self.cache.lock().unwrap_or_else(|e| e.into_inner()) = Some(offered.clone());
        }
        offered
    }
}

/// Reuses static schemas for APIs whose parameters did not change.
fn reuse_or_compile(entry: &Entry, resolved: &ToolManifest) -> Result<Vec<CompiledSchema>, Error> {
    let original = entry.manifest.as_ref();
    if resolved.identifier != original.identifier {
        return Err(Error::InvalidManifest {
            tool: original.identifier.clone(),
            api: None,
            field: "/identifier".into(),
            message: format!(
                "a resolved manifest may not rename the tool (got `{}`)",
                resolved.identifier
            ),
        });
    }
    let all_static = resolved.api.iter().all(|api| {
        original
            .api(&api.name)
            .is_some_and(|o| o.parameters == api.parameters && o.shared_defs() == api.shared_defs())
    });
    if !all_static {
        return validate_manifest_with(resolved, entry.rules);
    }
    Ok(resolved
        .api
        .iter()
        .filter_map(|api| {
            let index = original.api.iter().position(|o| o.name == api.name)?;
            entry.schemas.get(index).cloned()
        })
        .collect())
}

#[cfg(test)]
mod compiled_tests {
    use super::*;
    use crate::declare::ApiDefinition;
    use crate::output::{ToolError, ToolOutput};
    use serde_json::{Value, json};

    /// A tool keeping its manifest in an `Arc`, as a compiled tool does.
    struct Shared(Arc<ToolManifest>);

    #[async_trait::async_trait]
    impl Tool for Shared {
        fn manifest(&self) -> &ToolManifest {
            &self.0
        }
        async fn call(
            &self,
            _api: &str,
            _args: Value,
            _ctx: &ToolContext,
        ) -> Result<ToolOutput, ToolError> {
            Ok(ToolOutput::text("ok"))
        }
    }

    fn shared(identifier: &str, schema: Value) -> Arc<ToolManifest> {
        let mut manifest = ToolManifest::new(identifier);
        manifest
            .api
            .push(ApiDefinition::new("run", "Runs.").with_parameters(schema));
        Arc::new(manifest)
    }

    #[test]
    fn a_prepared_tool_shares_its_manifest_and_compilation() {
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
        let manifest = shared("t", schema.clone());
        let kept = CompiledSchema::try_compile_kept(schema).unwrap();
        let mut registry = ToolRegistry::new();
        registry
            .register_compiled(
                Arc::new(Shared(Arc::clone(&manifest))),
                Arc::clone(&manifest),
                vec![Some(kept)],
            )
            .unwrap();
        assert!(Arc::ptr_eq(&registry.entries[0].manifest, &manifest));
        let offered = registry.offer(&ToolContext::new());
        let api = offered.resolve("t____run").unwrap();
        assert!(!api.schema.is_valid(&json!({"n": "x"})));
        assert!(
            api.schema.source().is_none(),
            "the kept source is not stored"
        );
    }

    #[test]
    fn a_prepared_tool_is_refused_like_any_other() {
        let bad = json!({"type": "object", "properties": {"n": {"minimum": "zero"}}});
        let manifest = shared("t", bad);
        let prepared = registry_error(|r| {
            r.register_compiled(
                Arc::new(Shared(Arc::clone(&manifest))),
                Arc::clone(&manifest),
                vec![None],
            )
        });
        let plain = registry_error(|r| r.register_arc(Arc::new(Shared(Arc::clone(&manifest)))));
        assert_eq!(prepared, plain);

        let good = shared("t", json!({"type": "object", "properties": {}}));
        let mut registry = ToolRegistry::new();
        registry
            .register_compiled(
                Arc::new(Shared(Arc::clone(&good))),
                Arc::clone(&good),
                vec![],
            )
            .unwrap();
        let duplicate = registry
            .register_compiled(Arc::new(Shared(Arc::clone(&good))), good, vec![])
            .unwrap_err();
        assert!(
            matches!(duplicate, Error::DuplicateTool { .. }),
            "{duplicate}"
        );
    }

    fn registry_error(register: impl FnOnce(&mut ToolRegistry) -> Result<(), Error>) -> String {
        let mut registry = ToolRegistry::new();
        let error = register(&mut registry).unwrap_err().to_string();
        assert!(registry.is_empty());
        error
    }
}
