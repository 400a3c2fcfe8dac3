//! Agent Skills for the tool layer: `SKILL.md` folders (and skills compiled
//! into a host) validated against the public Agent Skills format, shown to
//! a model as a compact catalog, and opened on demand through the builtin
//! `skills` tool, without path escapes.
//!
//! A host needs one import, [`prelude`], and three steps:
//!
//! 1. **Load**: [`SkillRegistry::load`] reads [`SkillSource`]s (folders,
//!    [`BuiltinSkill`]s) in precedence order; every problem is a
//!    [`Finding`] with a stable code, file and line
//!    ([`SkillRegistry::findings`]; [`SkillRegistry::outcome`] gives the
//!    load as tool-core's `Partial`: loaded skills plus what failed, by file).
//! 2. **Register**: `registry.register_all(SkillsTool::new(skills).into_tools())`
//!    (or [`SkillsTool::load`] in one step) adds the `skills` tool:
//!    `activateSkill`, `readReference` and, with the `scripts` feature and a
//!    computer, `runScript`.
//! 3. **Prompt**: the catalog ([`SkillCatalog`], `<available_skills>` XML by
//!    default, under a character budget) is the tool's `systemRole`; it
//!    reaches the model through `OfferedTools::system_prompt()` of
//!    tool-core, which the host puts in its system prompt. Without that
//!    step the model never learns which skills exist.
//!
//! Beyond the prelude: [`parse_skill_md`] checks one `SKILL.md` text
//! without I/O, in [`ValidationMode::Strict`] (the public format) or
//! [`ValidationMode::Lenient`] (what clients accept, the default); names
//! are compared in NFKC form ([`normalize_name`]);
//! [`SkillDocument::properties`] gives the frontmatter fields flat
//! ([`SkillProperties`]); [`maintain`] creates, renames, edits and deletes
//! skills on disk; [`trust`] keeps the skills folders of a workspace the
//! host has not trusted listed but unread
//! ([`LoadOptions::in_workspace`], [`SkillRegistry::withheld`]); a
//! [`RemoteSkills`] source (an MCP server's skills, through tool-mcp's
//! `McpSkillSource`) is one more [`SkillSource::remote`], listed from its
//! catalogue ([`SkillRegistry::load_listed`]) and fetched file by file
//! when the model activates a skill or reads one of its files.
//!
//! # Example
//!
//! ```
//! use tool_skills::prelude::*;
//! use tool_core::prelude::*;
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
//! registry.register_all(SkillsTool::new(skills).into_tools());
//! let ctx = ToolContext::new();
//! let offered = registry.offer(&ctx);
//! // The catalog reaches the model through the system prompt.
//! let system = offered.system_prompt().unwrap();
//! assert!(system.contains("<name>greeting</name>"));
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
#![cfg_attr(docsrs, feature(doc_cfg))]

mod catalog;
pub mod codes;
mod discovery;
mod error;
mod finding;
mod frontmatter;
pub mod maintain;
mod name;
mod open;
mod properties;
mod reference;
mod registry;
mod remote;
mod remote_entry;
mod remote_fetch;
mod remote_source;
#[cfg(test)]
mod remote_tests;
#[cfg(feature = "scripts")]
mod scripts;
mod skill;
mod skill_lookup;
mod source;
mod tool;
pub mod trust;
mod validate;

pub use catalog::{
    CatalogEntry, CatalogFormat, CatalogOptions, EntryStatus, SkillCatalog, xml_escape,
};
pub use discovery::{DiscoveryOptions, SKILL_FILE, SymlinkPolicy};
pub use error::{Error, Result};
pub use finding::{Finding, FindingCode, Severity};
pub use frontmatter::ParseLimits;
pub use name::{MAX_NAME_CHARS, is_valid_skill_name, normalize_name};
pub use properties::SkillProperties;
pub use reference::{ReferenceLimits, Resolution};
pub use registry::{Lookup, ReloadDiff, Shadowed, SkillRegistry, close_matches};
pub use remote::{ListedFile, ListedSkill, RemoteError, RemoteErrorKind, RemoteSkills};
pub use remote_entry::RemoteEntry;
pub use remote_source::RemoteSource;
pub use skill::{BuiltinSkill, Origin, Provenance, Skill};
pub use source::{LoadOptions, SkillSource, SourceKind};
pub use tool::{SKILLS_IDENTIFIER, SharedSkills, SkillsTool, SkillsToolConfig};
pub use validate::{
    Frontmatter, MAX_COMPATIBILITY_CHARS, MAX_DESCRIPTION_CHARS, ParseOptions, Parsed,
    RECOMMENDED_MAX_BODY_LINES, SkillDocument, ValidationMode, parse_skill_md,
};

/// What a host uses, in one import: `use tool_skills::prelude::*;`.
///
/// Loading ([`SkillRegistry`], [`SkillSource`], [`BuiltinSkill`],
/// [`LoadOptions`], [`ValidationMode`]), what loading reports ([`Finding`],
/// [`Skill`]), the tool ([`SkillsTool`], [`SharedSkills`]) and the catalog
/// ([`SkillCatalog`], [`CatalogOptions`], [`CatalogFormat`]). Everything
/// else stays at the crate root. Names do not clash with
/// `tool_core::prelude`.
pub mod prelude {
    #[doc(no_inline)]
    pub use crate::{
        BuiltinSkill, CatalogFormat, CatalogOptions, Finding, LoadOptions, SharedSkills, Skill,
        SkillCatalog, SkillRegistry, SkillSource, SkillsTool, ValidationMode,
    };
}
