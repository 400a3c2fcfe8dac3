//! Agent Skills for the tool layer: `SKILL.md` folders (and skills compiled
//! into a host) validated against the public Agent Skills format, gathered
//! from ordered sources, shown to a model as a compact catalog and opened
//! on demand through the builtin `skills` tool, without path escapes.
//!
//! # Overview of the roles
//!
//! - [`parse_skill_md`]: one `SKILL.md` text → a [`SkillDocument`] and
//!   [`Finding`]s (stable [`FindingCode`], file, line), in
//!   [`ValidationMode::Strict`] (the public format) or
//!   [`ValidationMode::Lenient`] (what clients accept in practice).
//! - [`SkillSource`] / [`SkillRegistry`]: folders and [`BuiltinSkill`]s in
//!   precedence order; discovery is bounded and sorted
//!   ([`DiscoveryOptions`], [`SymlinkPolicy`]); shadowed skills are listed;
//!   enable/disable; [`SkillRegistry::reload`] returns a [`ReloadDiff`].
//! - [`Catalog`]: the prompt listing (`<available_skills>` XML, Markdown,
//!   JSON) under a character budget with a defined degradation.
//! - [`SkillsTool`]: the builtin `skills` tool: `activateSkill` and
//!   `readReference` (and `runScript` with the `scripts` feature); its
//!   `systemRole` carries the catalog.
//! - [`maintain`]: create, rename, replace the body of and delete skills on
//!   disk, validated first, written atomically.
//!
//! # Example
//!
//! ```
//! use tool_skills::{BuiltinSkill, CatalogOptions, LoadOptions, SkillRegistry, SkillSource, SkillsTool};
//! use tool_core::{Invoker, ToolCall, ToolContext, ToolRegistry};
//!
//! let skills = SkillRegistry::load(
//!     [SkillSource::builtin("builtin", [
//!         BuiltinSkill::new("greet", "greeting", "How to greet users politely.", "Say hello, then ask how to help.")
//!             .resource("references/tone.md", "Warm, brief."),
//!     ])],
//!     LoadOptions::default(),
//! );
//! let catalog = skills.catalog(&CatalogOptions::default());
//! assert!(catalog.text.contains("<name>greeting</name>"));
//!
//! let mut registry = ToolRegistry::new();
//! registry.register(SkillsTool::new(skills))?;
//! let ctx = ToolContext::new();
//! let offered = registry.offer(&ctx);
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let invoker = Invoker::default();
//! let out = invoker.invoke(&offered, &ToolCall::new("skills____activateSkill", r#"{"name":"greeting"}"#), &ctx).await;
//! assert!(out.content.starts_with("<skill_content name=\"greeting\""));
//! let out = invoker.invoke(&offered, &ToolCall::new("skills____readReference", r#"{"skill":"greeting","path":"tone"}"#), &ctx).await;
//! assert_eq!(out.content, "Warm, brief.");
//! let out = invoker.invoke(&offered, &ToolCall::new("skills____readReference", r#"{"skill":"greeting","path":"../../etc/passwd"}"#), &ctx).await;
//! assert_eq!(out.error_code().unwrap(), "path_not_allowed");
//! # });
//! # Ok::<(), tool_core::Error>(())
//! ```
//!
//! # Crate features
//!
//! - `scripts` (off by default): `SkillsTool::with_computer` takes a
//!   `tool_runtime::ComputerRuntime` and offers `runScript` over a skill's
//!   `scripts/` folder, always with `humanIntervention: required` and
//!   marked as touching the host; the script runs as the computer's
//!   `runCommand` under the `tool_core::Confinement` of its call's context
//!   (a gated invoker puts the decision's there). Without a computer the API
//!   is not offered at all.
#![deny(missing_docs)]

mod catalog;
mod discovery;
mod error;
mod finding;
mod frontmatter;
pub mod maintain;
mod open;
mod reference;
mod registry;
#[cfg(feature = "scripts")]
mod scripts;
mod skill;
mod source;
mod tool;
mod validate;

pub use catalog::{Catalog, CatalogEntry, CatalogFormat, CatalogOptions, EntryStatus, xml_escape};
pub use discovery::{DiscoveryOptions, SKILL_FILE, SymlinkPolicy};
pub use error::{Error, Result};
pub use finding::{Finding, FindingCode, Severity};
pub use frontmatter::ParseLimits;
pub use reference::{ReferenceLimits, Resolution};
pub use registry::{Lookup, ReloadDiff, Shadowed, SkillRegistry, close_matches};
pub use skill::{BuiltinSkill, Origin, Provenance, Skill};
pub use source::{LoadOptions, SkillSource, SourceKind};
pub use tool::{SKILLS_IDENTIFIER, SharedSkills, SkillsTool, SkillsToolConfig, codes};
pub use validate::{
    Frontmatter, MAX_COMPATIBILITY_CHARS, MAX_DESCRIPTION_CHARS, MAX_NAME_CHARS, ParseOptions,
    Parsed, RECOMMENDED_MAX_BODY_LINES, SkillDocument, ValidationMode, is_valid_skill_name,
    parse_skill_md,
};
