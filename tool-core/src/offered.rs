//! What a model is offered in one context: a shared, immutable snapshot.

use std::collections::HashMap;
use std::sync::Arc;

use crate::compiled::CompiledSchema;
use crate::declare::{ApiDefinition, RenderDisplayControl, ToolManifest};
use crate::error::Error;
use crate::naming::split_wire_name;
use crate::tool::Tool;

/// One tool as offered in a context.
pub struct OfferedTool {
    tool: Arc<dyn Tool>,
    manifest: Arc<ToolManifest>,
    schemas: Arc<[CompiledSchema]>,
    wire_names: Arc<[String]>,
    /// The manifest's fingerprint, made on first use (durable approvals
    /// bind pending calls to it).
    fingerprint: std::sync::OnceLock<String>,
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

    /// The shared manifest (the search index keeps it to see later whether
    /// the tool changed).
    pub(crate) fn manifest_arc(&self) -> &Arc<ToolManifest> {
        &self.manifest
    }

    /// The manifest's fingerprint, computed by `make` once per snapshot.
    pub(crate) fn fingerprint_with(&self, make: impl FnOnce(&ToolManifest) -> String) -> &str {
        self.fingerprint.get_or_init(|| make(&self.manifest))
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
/// names a call may use. Build it once per turn with [`ToolRegistry::offer`](crate::ToolRegistry::offer)
/// and use the same value to export tools and to invoke calls.
///
/// An `OfferedTools` is an immutable snapshot: changes to the registry after
/// it was taken (a tool removed or replaced) do not reach it, so calls
/// already running on it finish with the tools they started with. Cloning
/// is cheap (the snapshot is shared); when nothing changed and no tool
/// resolves its manifest per context, [`ToolRegistry::offer`](crate::ToolRegistry::offer) returns the
/// same shared snapshot again instead of rebuilding it.
#[derive(Default, Clone)]
pub struct OfferedTools {
    inner: Arc<Snapshot>,
}

#[derive(Default)]
pub(crate) struct Snapshot {
    tools: Vec<OfferedTool>,
    by_wire: HashMap<String, (usize, usize)>,
    by_id: HashMap<String, usize>,
    by_api: HashMap<String, Vec<(usize, usize)>>,
    pub(crate) problems: Vec<Error>,
    pub(crate) generation: u64,
    /// Exported tool lists, built on first use, one per provider format.
    pub(crate) exports: [std::sync::OnceLock<Arc<[serde_json::Value]>>; 3],
}

impl Snapshot {
    pub(crate) fn push(
        &mut self,
        tool: Arc<dyn Tool>,
        manifest: Arc<ToolManifest>,
        schemas: Arc<[CompiledSchema]>,
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
            fingerprint: std::sync::OnceLock::new(),
        });
    }

    pub(crate) fn into_offered(self) -> OfferedTools {
        OfferedTools {
            inner: Arc::new(self),
        }
    }
}

impl std::fmt::Debug for OfferedTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OfferedTools")
            .field("tools", &self.inner.tools)
            .field("problems", &self.inner.problems)
            .finish()
    }
}

impl OfferedTools {
    /// Whether `self` and `other` are the same shared snapshot (no rebuild
    /// happened between the two offers).
    pub fn shares_snapshot_with(&self, other: &OfferedTools) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// The tool list of `format`, built once per snapshot and shared: with
    /// [`ToolRegistry::offer`](crate::ToolRegistry::offer) handing out the
    /// same snapshot while nothing changes, exporting is free after the
    /// first turn. (The `*_tools()` methods build a fresh list each call.)
    pub fn tools_shared(&self, format: crate::ProviderFormat) -> Arc<[serde_json::Value]> {
        let slot = match format {
            crate::ProviderFormat::OpenAiChat => 0,
            crate::ProviderFormat::OpenAiResponses => 1,
            crate::ProviderFormat::Anthropic => 2,
        };
        Arc::clone(self.inner.exports[slot].get_or_init(|| format.tools(self).into()))
    }

    /// The registry generation this snapshot was taken at (see
    /// [`ToolRegistry::generation`](crate::ToolRegistry::generation)).
    pub fn generation(&self) -> u64 {
        self.inner.generation
    }

    /// The offered tools, in registration order.
    pub fn tools(&self) -> &[OfferedTool] {
        &self.inner.tools
    }

    /// The offered manifests.
    pub fn manifests(&self) -> impl Iterator<Item = &ToolManifest> {
        self.inner.tools.iter().map(|t| t.manifest.as_ref())
    }

    /// The offered tool with this identifier.
    pub fn get(&self, identifier: &str) -> Option<&OfferedTool> {
        self.inner
            .by_id
            .get(identifier)
            .map(|&i| &self.inner.tools[i])
    }

    /// Resolved manifests that were left out because they were invalid.
    pub fn problems(&self) -> &[Error] {
        &self.inner.problems
    }

    /// Number of offered APIs.
    pub fn api_count(&self) -> usize {
        self.inner.by_wire.len()
    }

    /// Resolves a model-provided name.
    ///
    /// A wire name resolves to its API. A bare API name resolves only when
    /// exactly one offered tool has it. Anything else is an error that says
    /// whether the tool, the API or the choice was the problem.
    pub fn resolve(&self, name: &str) -> Result<ResolvedApi<'_>, Error> {
        if let Some(&(t, a)) = self.inner.by_wire.get(name) {
            return Ok(self.resolved(t, a));
        }
        if let Some((identifier, api)) = split_wire_name(name) {
            if let Some(&t) = self.inner.by_id.get(identifier) {
                if let Some(a) = self.inner.tools[t]
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
        match self.inner.by_api.get(name).map(Vec::as_slice) {
            Some([(t, a)]) => Ok(self.resolved(*t, *a)),
            Some(many) if many.len() > 1 => Err(Error::AmbiguousName {
                name: name.to_owned(),
                candidates: many
                    .iter()
                    .map(|&(t, a)| self.inner.tools[t].wire_names[a].clone())
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
            .inner
            .by_id
            .get(identifier)
            .ok_or_else(|| Error::UnknownToolName {
                name: identifier.to_owned(),
            })?;
        let a = self.inner.tools[t]
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
        let tool = &self.inner.tools[t];
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
        self.inner
            .tools
            .iter()
            .flat_map(|t| t.apis().map(move |(name, api)| (t, name, api)))
    }
}
