//! The registry of tools and the per-context snapshot of what a model is offered.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use crate::context::ToolContext;
use crate::error::Error;
use crate::manifest::{ApiDefinition, RenderDisplayControl, ToolManifest};
use crate::naming::{split_wire_name, wire_name};
use crate::tool::Tool;
use crate::validate::{CompiledSchema, NameRules, validate_manifest_with};

struct Entry {
    tool: Arc<dyn Tool>,
    /// A shared copy of the static manifest, taken at registration.
    manifest: Arc<ToolManifest>,
    /// Compiled parameters of the static manifest, in API order.
    schemas: Vec<CompiledSchema>,
    /// Wire names of the static manifest, in API order.
    wire_names: Arc<[String]>,
}

/// Identifier → tool. Registration validates the manifest, compiles every
/// API's schema once, and refuses duplicate identifiers and wire-name
/// collisions.
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
/// # Ok::<(), tool_core::Error>(())
/// ```
#[derive(Default)]
pub struct ToolRegistry {
    entries: Vec<Entry>,
    by_id: HashMap<String, usize>,
    /// Wire names of every static API → `identifier/api`.
    wire: HashMap<String, String>,
    rules: NameRules,
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolRegistry")
            .field("tools", &self.identifiers().collect::<Vec<_>>())
            .finish()
    }
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Accepts names under `rules` from now on (default [`NameRules::Strict`]).
    pub fn with_name_rules(mut self, rules: NameRules) -> Self {
        self.rules = rules;
        self
    }

    /// Registers a tool.
    pub fn register(&mut self, tool: impl Tool) -> Result<(), Error> {
        self.register_arc(Arc::new(tool))
    }

    /// Registers a shared tool.
    pub fn register_arc(&mut self, tool: Arc<dyn Tool>) -> Result<(), Error> {
        let manifest = tool.manifest();
        let schemas = validate_manifest_with(manifest, self.rules)?;
        if self.by_id.contains_key(&manifest.identifier) {
            return Err(Error::DuplicateTool {
                identifier: manifest.identifier.clone(),
            });
        }
        let mut new_names: Vec<(String, String)> = Vec::with_capacity(manifest.api.len());
        for api in &manifest.api {
            let name = wire_name(&manifest.identifier, &api.name);
            let key = format!("{}/{}", manifest.identifier, api.name);
            if let Some(first) = self.wire.get(&name) {
                return Err(Error::WireNameCollision {
                    name,
                    first: first.clone(),
                    second: key,
                });
            }
            new_names.push((name, key));
        }
        let wire_names: Arc<[String]> = new_names.iter().map(|(n, _)| n.clone()).collect();
        self.wire.extend(new_names);
        self.by_id
            .insert(manifest.identifier.clone(), self.entries.len());
        let manifest = Arc::new(manifest.clone());
        self.entries.push(Entry {
            tool,
            manifest,
            schemas,
            wire_names,
        });
        Ok(())
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
    pub fn offer(&self, ctx: &ToolContext) -> OfferedTools {
        let mut offered = OfferedTools::default();
        for entry in &self.entries {
            let Some(manifest) = entry.tool.resolve_manifest(ctx) else {
                continue;
            };
            match manifest {
                Cow::Borrowed(_) => offered.push(
                    Arc::clone(&entry.tool),
                    Arc::clone(&entry.manifest),
                    entry.schemas.clone(),
                    Arc::clone(&entry.wire_names),
                ),
                Cow::Owned(resolved) => match reuse_or_compile(entry, &resolved, self.rules) {
                    Ok(schemas) => {
                        let names = resolved
                            .api
                            .iter()
                            .map(|api| wire_name(&resolved.identifier, &api.name))
                            .collect();
                        offered.push(Arc::clone(&entry.tool), Arc::new(resolved), schemas, names);
                    }
                    Err(problem) => {
                        tracing::warn!(error = %problem, "resolved manifest left out");
                        offered.problems.push(problem);
                    }
                },
            }
        }
        offered
    }
}

/// Reuses static schemas for APIs whose parameters did not change.
fn reuse_or_compile(
    entry: &Entry,
    resolved: &ToolManifest,
    rules: NameRules,
) -> Result<Vec<CompiledSchema>, Error> {
    let original = entry.manifest.as_ref();
    if resolved.identifier != original.identifier {
        return Err(Error::InvalidManifest {
            tool: original.identifier.clone(),
            api: None,
            field: "identifier".into(),
            message: format!(
                "a resolved manifest may not rename the tool (got `{}`)",
                resolved.identifier
            ),
        });
    }
    let all_static = resolved.api.iter().all(|api| {
        original
            .api(&api.name)
            .is_some_and(|o| o.parameters == api.parameters)
    });
    if !all_static {
        return validate_manifest_with(resolved, rules);
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

/// One tool as offered in a context.
pub struct OfferedTool {
    tool: Arc<dyn Tool>,
    manifest: Arc<ToolManifest>,
    schemas: Vec<CompiledSchema>,
    wire_names: Arc<[String]>,
}

impl std::fmt::Debug for OfferedTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OfferedTool")
            .field("identifier", &self.manifest.identifier)
            .field("wire_names", &self.wire_names)
            .finish_non_exhaustive()
    }
}

impl OfferedTool {
    /// The tool itself.
    pub fn tool(&self) -> &Arc<dyn Tool> {
        &self.tool
    }

    /// The manifest as offered in this context.
    pub fn manifest(&self) -> &ToolManifest {
        &self.manifest
    }

    /// `(wire name, API definition)` pairs, in manifest order.
    pub fn apis(&self) -> impl Iterator<Item = (&str, &ApiDefinition)> {
        self.wire_names
            .iter()
            .map(String::as_str)
            .zip(self.manifest.api.iter())
    }
}

/// A model-provided name resolved to one offered API.
#[derive(Debug, Clone, Copy)]
pub struct ResolvedApi<'a> {
    /// The offered tool.
    pub tool: &'a OfferedTool,
    /// The API definition (as offered).
    pub api: &'a ApiDefinition,
    /// The API's compiled parameters schema.
    pub schema: &'a CompiledSchema,
    /// The canonical wire name.
    pub wire_name: &'a str,
}

impl ResolvedApi<'_> {
    /// The tool identifier.
    pub fn identifier(&self) -> &str {
        &self.tool.manifest.identifier
    }

    /// The `identifier/apiName` key.
    pub fn api_key(&self) -> crate::ApiKey {
        crate::ApiKey::new(self.identifier(), &self.api.name)
    }
}

/// The tools offered in one context: what the model sees, and the only
/// names a call may use. Build it once per turn with [`ToolRegistry::offer`]
/// and use the same value to export tools and to invoke calls.
#[derive(Default)]
pub struct OfferedTools {
    tools: Vec<OfferedTool>,
    by_wire: HashMap<String, (usize, usize)>,
    by_id: HashMap<String, usize>,
    by_api: HashMap<String, Vec<(usize, usize)>>,
    problems: Vec<Error>,
}

impl std::fmt::Debug for OfferedTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OfferedTools")
            .field("tools", &self.tools)
            .field("problems", &self.problems)
            .finish()
    }
}

impl OfferedTools {
    fn push(
        &mut self,
        tool: Arc<dyn Tool>,
        manifest: Arc<ToolManifest>,
        schemas: Vec<CompiledSchema>,
        wire_names: Arc<[String]>,
    ) {
        let tool_index = self.tools.len();
        for (api_index, (api, name)) in manifest.api.iter().zip(wire_names.iter()).enumerate() {
            self.by_wire.insert(name.clone(), (tool_index, api_index));
            self.by_api
                .entry(api.name.clone())
                .or_default()
                .push((tool_index, api_index));
        }
        self.by_id.insert(manifest.identifier.clone(), tool_index);
        self.tools.push(OfferedTool {
            tool,
            manifest,
            schemas,
            wire_names,
        });
    }

    /// The offered tools, in registration order.
    pub fn tools(&self) -> &[OfferedTool] {
        &self.tools
    }

    /// The offered manifests.
    pub fn manifests(&self) -> impl Iterator<Item = &ToolManifest> {
        self.tools.iter().map(|t| t.manifest.as_ref())
    }

    /// The offered tool with this identifier.
    pub fn get(&self, identifier: &str) -> Option<&OfferedTool> {
        self.by_id.get(identifier).map(|&i| &self.tools[i])
    }

    /// Resolved manifests that were left out because they were invalid.
    pub fn problems(&self) -> &[Error] {
        &self.problems
    }

    /// Number of offered APIs.
    pub fn api_count(&self) -> usize {
        self.by_wire.len()
    }

    /// Resolves a model-provided name.
    ///
    /// A wire name resolves to its API. A bare API name resolves only when
    /// exactly one offered tool has it. Anything else is an error that says
    /// whether the tool, the API or the choice was the problem.
    pub fn resolve(&self, name: &str) -> Result<ResolvedApi<'_>, Error> {
        if let Some(&(t, a)) = self.by_wire.get(name) {
            return Ok(self.resolved(t, a));
        }
        if let Some((identifier, api)) = split_wire_name(name) {
            if let Some(&t) = self.by_id.get(identifier) {
                if let Some(a) = self.tools[t]
                    .manifest
                    .api
                    .iter()
                    .position(|x| x.name == api)
                {
                    return Ok(self.resolved(t, a));
                }
                return Err(Error::UnknownApi {
                    tool: identifier.to_owned(),
                    api: api.to_owned(),
                });
            }
            return Err(Error::UnknownToolName {
                name: name.to_owned(),
            });
        }
        match self.by_api.get(name).map(Vec::as_slice) {
            Some([(t, a)]) => Ok(self.resolved(*t, *a)),
            Some(many) if many.len() > 1 => Err(Error::AmbiguousName {
                name: name.to_owned(),
                candidates: many
                    .iter()
                    .map(|&(t, a)| self.tools[t].wire_names[a].clone())
                    .collect(),
            }),
            _ => Err(Error::UnknownToolName {
                name: name.to_owned(),
            }),
        }
    }

    /// Resolves an `(identifier, api)` pair directly.
    pub fn resolve_pair(&self, identifier: &str, api: &str) -> Result<ResolvedApi<'_>, Error> {
        let &t = self
            .by_id
            .get(identifier)
            .ok_or_else(|| Error::UnknownToolName {
                name: identifier.to_owned(),
            })?;
        let a = self.tools[t]
            .manifest
            .api
            .iter()
            .position(|x| x.name == api)
            .ok_or_else(|| Error::UnknownApi {
                tool: identifier.to_owned(),
                api: api.to_owned(),
            })?;
        Ok(self.resolved(t, a))
    }

    fn resolved(&self, t: usize, a: usize) -> ResolvedApi<'_> {
        let tool = &self.tools[t];
        ResolvedApi {
            tool,
            api: &tool.manifest.api[a],
            schema: &tool.schemas[a],
            wire_name: &tool.wire_names[a],
        }
    }

    /// The display control for a result card (collapsed when unset or unknown).
    pub fn display_control(&self, identifier: &str, api: &str) -> RenderDisplayControl {
        self.get(identifier)
            .and_then(|t| t.manifest.api(api))
            .and_then(|a| a.render_display_control)
            .unwrap_or_default()
    }

    pub(crate) fn all_apis(&self) -> impl Iterator<Item = (&OfferedTool, &str, &ApiDefinition)> {
        self.tools
            .iter()
            .flat_map(|t| t.apis().map(move |(name, api)| (t, name, api)))
    }
}
