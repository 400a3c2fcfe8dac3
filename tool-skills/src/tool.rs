//! The builtin `skills` tool: `activateSkill`, `readReference` (and
//! `runScript` with the `scripts` feature and a computer).

use std::borrow::Cow;
use std::sync::{Arc, Mutex, RwLock};

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Value, json};
use tool_core::{
    ApiDefinition, Tool, ToolContext, ToolError, ToolManifest, ToolOutput,
    manifest::RenderDisplayControl, pipeline::deserialize_args,
};
use tracing::field::Empty;

use crate::catalog::{CatalogFormat, CatalogOptions, xml_escape};
use crate::codes;
use crate::reference::{
    RefError, ReferenceLimits, Resolved, is_binary, list_disk, media_type, resolve_disk,
    resolve_keys, resolve_memory,
};
use crate::registry::SkillRegistry;
use crate::skill::{Origin, Skill};
use crate::skill_lookup::find_skill;
use crate::source::{LoadOptions, SkillSource};

/// The tool's identifier.
pub const SKILLS_IDENTIFIER: &str = "skills";

/// A registry shared between the host (reload, enable, maintenance) and the tool.
pub type SharedSkills = Arc<RwLock<SkillRegistry>>;

/// Settings of the `skills` tool.
///
/// Defaults: an XML catalog of at most 12 000 characters in the system
/// role, references up to 256 KiB, 50 files listed per activation.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SkillsToolConfig {
    /// The catalog carried in the tool's `systemRole`.
    pub catalog: CatalogOptions,
    /// Caps of `readReference` and of file listings.
    pub references: ReferenceLimits,
}

impl Default for SkillsToolConfig {
    fn default() -> Self {
        Self {
            catalog: CatalogOptions::new(CatalogFormat::Xml, Some(12_000)),
            references: ReferenceLimits::default(),
        }
    }
}

/// The builtin `skills` tool over a shared [`SkillRegistry`].
///
/// Offered only while at least one skill is enabled. Its `systemRole`
/// carries the catalog; `activateSkill`'s `name` is an enum of the enabled
/// names, refreshed whenever the registry changes.
pub struct SkillsTool {
    skills: SharedSkills,
    config: SkillsToolConfig,
    manifest: ToolManifest,
    cache: Mutex<Option<(u64, ToolManifest)>>,
    #[cfg(feature = "scripts")]
    computer: Option<Arc<dyn tool_runtime::ComputerRuntime>>,
}

impl std::fmt::Debug for SkillsTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkillsTool")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

#[derive(Deserialize)]
struct ActivateArgs {
    name: String,
}

#[derive(Deserialize)]
struct ReadArgs {
    skill: String,
    path: String,
}

const ACTIVATE: &str = "activateSkill";
const READ: &str = "readReference";
#[cfg(feature = "scripts")]
use crate::scripts::RUN;

impl SkillsTool {
    /// A tool over `registry` with the default settings.
    pub fn new(registry: SkillRegistry) -> Self {
        Self::shared(Arc::new(RwLock::new(registry)), SkillsToolConfig::default())
    }

    /// Loads `sources` (highest precedence first) and makes the tool over
    /// them with the default settings; the load's findings stay readable
    /// through [`registry`](Self::registry).
    pub fn load(sources: impl IntoIterator<Item = SkillSource>, options: LoadOptions) -> Self {
        Self::new(SkillRegistry::load(sources, options))
    }

    /// The tool as the list [`ToolRegistry::register_all`] takes, so skill
    /// folders register in one line like an MCP server's or an API
    /// document's tools.
    ///
    /// ```
    /// use tool_core::ToolRegistry;
    /// use tool_skills::{BuiltinSkill, LoadOptions, SkillSource, SkillsTool};
    /// let skills = SkillsTool::load(
    ///     [SkillSource::builtin("builtin", [BuiltinSkill::new("g", "greeting", "Greets.", "Say hello.")])],
    ///     LoadOptions::default(),
    /// );
    /// let mut registry = ToolRegistry::new();
    /// assert_eq!(registry.register_all(skills.into_tools()).loaded(), ["skills"]);
    /// ```
    ///
    /// [`ToolRegistry::register_all`]: tool_core::ToolRegistry::register_all
    pub fn into_tools(self) -> Vec<Arc<dyn Tool>> {
        vec![Arc::new(self)]
    }

    /// A tool over a registry the host keeps a handle to.
    pub fn shared(skills: SharedSkills, config: SkillsToolConfig) -> Self {
        let mut tool = Self {
            skills,
            config,
            manifest: ToolManifest::new(SKILLS_IDENTIFIER),
            cache: Mutex::new(None),
            #[cfg(feature = "scripts")]
            computer: None,
        };
        tool.manifest = tool.build_manifest(None);
        tool
    }

    /// Offers `runScript` over skills' `scripts/` folders, run on `computer`
    /// (always with `humanIntervention: required`).
    #[cfg(feature = "scripts")]
    pub fn with_computer(mut self, computer: Arc<dyn tool_runtime::ComputerRuntime>) -> Self {
        self.computer = Some(computer);
        self.manifest = self.build_manifest(None);
        if let Ok(mut cache) = self.cache.lock() {
            *cache = None;
        }
        self
    }

    /// The shared registry.
    pub fn registry(&self) -> &SharedSkills {
        &self.skills
    }

    /// The settings.
    pub fn config(&self) -> &SkillsToolConfig {
        &self.config
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, SkillRegistry> {
        self.skills
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(crate) fn read_registry(&self) -> std::sync::RwLockReadGuard<'_, SkillRegistry> {
        self.read()
    }

    /// The system-role text: how to use skills, then the catalog. `None`
    /// when no skill is enabled.
    pub fn system_role(&self) -> Option<String> {
        let registry = self.read();
        system_role_of(&registry, &self.config)
    }

    fn build_manifest(&self, registry: Option<&SkillRegistry>) -> ToolManifest {
        let (names, role) = match registry {
            Some(r) => (
                Some(r.enabled().map(|s| s.name().to_owned()).collect::<Vec<_>>()),
                system_role_of(r, &self.config),
            ),
            None => (None, None),
        };
        let mut name_schema = json!({"type": "string", "description": "The skill's name, as listed in <available_skills>."});
        if let Some(names) = names {
            name_schema["enum"] = json!(names);
        }
        let mut manifest = ToolManifest::new(SKILLS_IDENTIFIER);
        manifest.meta.title = Some("Skills".into());
        manifest.meta.description =
            Some("Loads skill instructions and the files they refer to, on demand.".into());
        manifest.kind = Some(tool_core::ToolKind::Builtin);
        manifest.system_role = role;
        manifest.api.push(
            ApiDefinition::new(
                ACTIVATE,
                "Activates a skill by name: returns its instructions (to follow from now on), its folder and a list of its files. On a wrong name, returns the close matches and the available names.",
            )
            .with_parameters(json!({
                "type": "object",
                "properties": {"name": name_schema},
                "required": ["name"],
                "additionalProperties": false,
            }))
            .with_display_control(RenderDisplayControl::Collapsed),
        );
        manifest.api.push(
            ApiDefinition::new(
                READ,
                "Reads one file of a skill (e.g. references/guide.md), by a path relative to the skill folder. Case and a missing .md are forgiven; a bare file name works when it is unique. Binary files are described, not shown.",
            )
            .with_parameters(json!({
                "type": "object",
                "properties": {
                    "skill": {"type": "string", "description": "The skill's name."},
                    "path": {"type": "string", "description": "Path relative to the skill folder, e.g. references/forms.md."},
                },
                "required": ["skill", "path"],
                "additionalProperties": false,
            })),
        );
        #[cfg(feature = "scripts")]
        if self.computer.is_some() {
            manifest.api.push(crate::scripts::api_definition());
        }
        manifest
    }

    /// Activates a skill as a model's call would (host-side use, e.g. a
    /// slash command). Lookup: exact, then ignoring case when unambiguous.
    ///
    /// A skill of a remote source is activated from its fetched `SKILL.md`:
    /// call [`fetch`](Self::fetch) first (the tool's `activateSkill` does),
    /// else the output is a `skill_unavailable` failure.
    ///
    /// Runs in a `load_skill` span (`gen_ai.skill.name`: the activated
    /// skill's registered name; `error.type` on failure).
    pub fn activate(&self, name: &str) -> ToolOutput {
        let span = tracing::info_span!(
            "load_skill",
            gen_ai.skill.name = Empty,
            error.type = Empty,
        );
        let _entered = span.enter();
        let output = self.activate_in(name);
        traced(&span, &output, false);
        output
    }

    fn activate_in(&self, name: &str) -> ToolOutput {
        let registry = self.read();
        let skill = match find_skill(&registry, name) {
            Ok(found) => found,
            Err(output) => return *output,
        };
        let (skill, matched) = skill;
        let body = match &skill.origin {
            Origin::Remote(entry) => match entry.body() {
                Some(body) => body,
                None => return not_fetched(&skill, "its SKILL.md", "fetch"),
            },
            _ => skill.body().to_owned(),
        };
        let (files, truncated, total_hint) = files_of(&skill, &self.config.references);
        let mut text = format!(
            "<skill_content name=\"{}\" source=\"{}\">\n{}\n\nSkill folder: {}\nRelative paths in this skill are relative to that folder; open them with readReference.\n",
            xml_escape(skill.name()),
            xml_escape(&skill.source),
            body,
            skill.location(),
        );
        if !files.is_empty() {
            text.push_str("\n<skill_resources>\n");
            for file in &files {
                text.push_str(&format!("  <file>{}</file>\n", xml_escape(file)));
            }
            if truncated {
                text.push_str(&format!(
                    "  <!-- list cut at {} files{total_hint} -->\n",
                    files.len()
                ));
            }
            text.push_str("</skill_resources>\n");
        }
        text.push_str("</skill_content>");
        let mut state = skill.provenance(None).to_json();
        state["matched"] = json!(matched);
        state["description"] = json!(skill.description());
        state["files"] = json!(files);
        state["filesTruncated"] = json!(truncated);
        state["frontmatter"] = serde_json::to_value(skill.frontmatter()).unwrap_or(Value::Null);
        ToolOutput::with_state(text, state)
    }

    /// Reads one file of a skill as a model's call would.
    ///
    /// A file of a remote source's skill is read from what was fetched:
    /// call [`fetch_reference`](Self::fetch_reference) first (the tool's
    /// `readReference` does).
    ///
    /// Runs in a `read_skill_resource` span (`gen_ai.skill.name`,
    /// `gen_ai.skill.resource.name`: the file read, relative to the skill's
    /// folder; `error.type` on failure). The requested path itself is not
    /// recorded.
    pub fn read_reference(&self, skill_name: &str, path: &str) -> ToolOutput {
        let span = tracing::info_span!(
            "read_skill_resource",
            gen_ai.skill.name = Empty,
            gen_ai.skill.resource.name = Empty,
            error.type = Empty,
        );
        let _entered = span.enter();
        let output = self.read_reference_in(skill_name, path);
        traced(&span, &output, true);
        output
    }

    fn read_reference_in(&self, skill_name: &str, path: &str) -> ToolOutput {
        let registry = self.read();
        let (skill, _) = match find_skill(&registry, skill_name) {
            Ok(found) => found,
            Err(output) => return *output,
        };
        let limits = &self.config.references;
        let mut state = skill.provenance(None).to_json();
        state["requested"] = json!(path);
        let resolved = match &skill.origin {
            Origin::Disk { dir, .. } => resolve_disk(dir, path, limits),
            Origin::Builtin { resources, .. } => resolve_memory(resources, path),
            Origin::Remote(entry) => {
                resolve_keys(entry.listed().files.iter().map(|f| f.path.as_str()), path)
            }
        };
        let resolved = match resolved {
            Ok(resolved) => resolved,
            Err(error) => return ref_failure(&skill, path, error, limits, state),
        };
        let bytes = match read_resolved(&skill, &resolved, limits.max_bytes) {
            Ok(Ok(bytes)) => bytes,
            Ok(Err(size)) => {
                state["path"] = json!(resolved.rel);
                state["bytes"] = json!(size);
                return ToolOutput::failure(
                    ToolError::new(
                        codes::REFERENCE_TOO_LARGE,
                        format!(
                            "`{}` is {size} bytes, over the {}-byte limit for readReference",
                            resolved.rel, limits.max_bytes
                        ),
                    )
                    .with_details(json!({"bytes": size, "limit": limits.max_bytes})),
                )
                .state(state);
            }
            Err(error) => return ref_failure(&skill, path, error, limits, state),
        };
        let file = match &resolved.abs {
            Some(abs) => abs.display().to_string(),
            None => format!("{}/{}", skill.location(), resolved.rel),
        };
        let kind = media_type(&resolved.rel, &bytes);
        let mut state = skill.provenance(Some(&file)).to_json();
        state["requested"] = json!(path);
        state["path"] = json!(resolved.rel);
        state["resolution"] = json!(resolved.how);
        state["bytes"] = json!(bytes.len());
        state["mediaType"] = json!(kind);
        if is_binary(&bytes) {
            state["binary"] = json!(true);
            return ToolOutput::with_state(
                format!(
                    "`{}` is a binary file ({kind}, {} bytes); its content is not shown as text.",
                    resolved.rel,
                    bytes.len()
                ),
                state,
            );
        }
        state["binary"] = json!(false);
        let text = String::from_utf8(bytes).unwrap_or_default();
        ToolOutput::with_state(text, state)
    }
}

/// Records on `span` what `output` says: on success the skill's registered
/// name (and, for a resource, the file read, relative to its folder), on
/// failure the error code only (what the model asked for is not recorded).
fn traced(span: &tracing::Span, output: &ToolOutput, resource: bool) {
    if span.is_disabled() {
        return;
    }
    if let Some(code) = output.error_code() {
        span.record("error.type", code.as_str());
        return;
    }
    let state = output.state.as_ref();
    if let Some(skill) = state.and_then(|s| s.get("skill")).and_then(Value::as_str) {
        span.record("gen_ai.skill.name", skill);
    }
    let path = state.and_then(|s| s.get("path")).and_then(Value::as_str);
    if let Some(path) = path.filter(|_| resource) {
        span.record("gen_ai.skill.resource.name", path);
    }
}

fn read_resolved(
    skill: &Skill,
    resolved: &Resolved,
    cap: u64,
) -> Result<Result<Vec<u8>, u64>, RefError> {
    match (&skill.origin, &resolved.abs) {
        (Origin::Disk { dir, .. }, Some(abs)) => crate::open::read_inside(dir, abs, cap),
        (Origin::Builtin { .. }, Some(_)) => Err(RefError::NotFound),
        (Origin::Builtin { resources, .. }, None) => {
            let bytes = resources.get(&resolved.rel).cloned().unwrap_or_default();
            Ok(if bytes.len() as u64 > cap {
                Err(bytes.len() as u64)
            } else {
                Ok(bytes)
            })
        }
        (Origin::Disk { .. }, None) | (Origin::Remote(_), Some(_)) => Err(RefError::NotFound),
        (Origin::Remote(entry), None) => {
            let size = entry.file(&resolved.rel).map_or(0, |f| f.size);
            if size > cap {
                return Ok(Err(size));
            }
            match entry.cached(&resolved.rel) {
                Some(bytes) => Ok(Ok(bytes.as_ref().clone())),
                None => Err(RefError::Io(format!(
                    "`{}` is at {} and not fetched yet: `SkillsTool::fetch_reference` fetches it (the tool's readReference does)",
                    resolved.rel,
                    entry.describe()
                ))),
            }
        }
    }
}

/// The failed output for a remote skill used before `what` was fetched.
fn not_fetched(skill: &Skill, what: &str, method: &str) -> ToolOutput {
    let source = match &skill.origin {
        Origin::Remote(entry) => entry.describe(),
        _ => skill.source.clone(),
    };
    ToolOutput::failure(ToolError::new(
        codes::SKILL_UNAVAILABLE,
        format!(
            "skill {:?} comes from {source} and {what} is not fetched yet: `SkillsTool::{method}` fetches it (the skills tool does before it runs)",
            skill.name()
        ),
    ))
    .state(skill.provenance(None).to_json())
}

fn system_role_of(registry: &SkillRegistry, config: &SkillsToolConfig) -> Option<String> {
    registry.enabled().next()?;
    let catalog = registry.catalog(&config.catalog);
    let mut role = String::from(
        "Skills give specialised instructions for particular tasks. When a task matches a skill's description, call activateSkill with its name before starting, then follow the instructions it returns; open the files a skill mentions with readReference.\n\n",
    );
    role.push_str(&catalog.text);
    if catalog.is_degraded() {
        role.push_str("\n\nSome descriptions above are shortened or left out to save space; activateSkill accepts every name in its enum.");
    }
    Some(role)
}

/// The files of a skill for listings: `(files, truncated, hint)`.
fn files_of(skill: &Skill, limits: &ReferenceLimits) -> (Vec<String>, bool, String) {
    match &skill.origin {
        Origin::Disk { dir, file } => {
            let (mut files, truncated) = list_disk(dir, limits, limits.max_listed + 1);
            // The skill's own file (`SKILL.md`, or a `skill.md` loaded leniently).
            let own = file.file_name().map(|n| n.to_string_lossy().into_owned());
            files.retain(|f| Some(f) != own.as_ref());
            let truncated = truncated || files.len() > limits.max_listed;
            files.truncate(limits.max_listed);
            (files, truncated, String::new())
        }
        Origin::Builtin { resources, .. } => {
            let total = resources.len();
            let files: Vec<String> = resources.keys().take(limits.max_listed).cloned().collect();
            let truncated = total > files.len();
            (files, truncated, format!(" of {total}"))
        }
        Origin::Remote(entry) => {
            let listed = &entry.listed().files;
            let total = listed.len();
            let mut files: Vec<String> = listed.iter().map(|f| f.path.clone()).collect();
            files.sort();
            files.truncate(limits.max_listed);
            let truncated = total > files.len();
            (files, truncated, format!(" of {total}"))
        }
    }
}

fn ref_failure(
    skill: &Skill,
    path: &str,
    error: RefError,
    limits: &ReferenceLimits,
    mut state: Value,
) -> ToolOutput {
    let error = match error {
        RefError::NotAllowed(why) => ToolError::new(
            codes::PATH_NOT_ALLOWED,
            format!("{path:?} is not allowed: {why}. Paths are relative to the skill folder and stay inside it."),
        )
        .with_details(json!({"path": path, "reason": why})),
        RefError::Ambiguous(candidates) => ToolError::new(
            codes::AMBIGUOUS_REFERENCE,
            format!("{path:?} matches several files: {}; give one of them", candidates.join(", ")),
        )
        .with_details(json!({"candidates": candidates})),
        RefError::NotAFile(rel) => ToolError::new(
            codes::NOT_A_FILE,
            format!("`{rel}` is not a regular file (a folder or a special file); only files can be read"),
        ),
        RefError::Io(message) => ToolError::new(codes::READ_FAILED, format!("{path:?} could not be read: {message}")),
        RefError::NotFound => {
            let (files, truncated, hint) = files_of(skill, limits);
            let mut message = format!("Skill {:?} has no file {path:?}.", skill.name());
            if files.is_empty() {
                message.push_str(" It has no files besides SKILL.md.");
            } else {
                message.push_str(&format!(" Its files: {}", files.join(", ")));
                if truncated {
                    message.push_str(&format!(" (list cut{hint})"));
                }
                message.push('.');
            }
            state["files"] = json!(files);
            ToolError::new(codes::REFERENCE_NOT_FOUND, message).with_details(json!({"files": files, "truncated": truncated}))
        }
    };
    ToolOutput::failure(error).state(state)
}

#[async_trait]
impl Tool for SkillsTool {
    fn manifest(&self) -> &ToolManifest {
        &self.manifest
    }

    fn resolve_manifest(&self, _ctx: &ToolContext) -> Option<Cow<'_, ToolManifest>> {
        let registry = self.read();
        registry.enabled().next()?;
        let generation = registry.generation();
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((cached, manifest)) = cache.as_ref()
            && *cached == generation
        {
            return Some(Cow::Owned(manifest.clone()));
        }
        let manifest = self.build_manifest(Some(&registry));
        *cache = Some((generation, manifest.clone()));
        Some(Cow::Owned(manifest))
    }

    async fn call(
        &self,
        api: &str,
        args: Value,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        match api {
            ACTIVATE => {
                let args: ActivateArgs = deserialize_args(args)?;
                if let Err(failed) = self.prefetch_skill(&args.name).await {
                    return Ok(*failed);
                }
                Ok(self.activate(&args.name))
            }
            READ => {
                let args: ReadArgs = deserialize_args(args)?;
                if let Err(failed) = self.prefetch_reference(&args.skill, &args.path).await {
                    return Ok(*failed);
                }
                Ok(self.read_reference(&args.skill, &args.path))
            }
            #[cfg(feature = "scripts")]
            RUN => match &self.computer {
                Some(computer) => {
                    let args = deserialize_args(args)?;
                    let prepared = {
                        let registry = self.read();
                        crate::scripts::prepare(&registry, &args, &self.config.references)
                    };
                    Ok(match prepared {
                        Ok(prepared) => crate::scripts::run(computer.as_ref(), prepared, ctx).await,
                        Err(output) => *output,
                    })
                }
                None => Err(self.manifest.unknown_api(api)),
            },
            _ => {
                let _ = ctx;
                Err(self.manifest.unknown_api(api))
            }
        }
    }
}
