//! The `skills` tool and remote sources: fetching a remote skill's
//! `SKILL.md` before it is activated and one of its files before it is
//! read, listing the sources again, and the failed outputs of a fetch.
//!
//! Activation and reading stay synchronous and read only what was fetched;
//! the tool's `activateSkill` and `readReference` fetch first (and a host
//! calling [`SkillsTool::activate`] or [`SkillsTool::read_reference`]
//! itself calls [`SkillsTool::fetch`] or [`SkillsTool::fetch_reference`]
//! before).

use std::sync::Arc;

use serde_json::json;
use tool_core::{ToolError, ToolOutput};

use crate::codes;
use crate::error::Error;
use crate::reference::resolve_keys;
use crate::registry::ReloadDiff;
use crate::remote::RemoteError;
use crate::remote_entry::RemoteEntry;
use crate::skill::{Origin, Skill};
use crate::skill_lookup::find_skill;
use crate::source::SkillSource;
use crate::tool::SkillsTool;

impl SkillsTool {
    /// Fetches what activating skill `name` needs: for a skill of a remote
    /// source, its `SKILL.md`, checked (once; later calls reuse it). A
    /// skill on disk or builtin needs nothing.
    ///
    /// Errors: [`Error::UnknownSkill`] when no enabled skill has the name
    /// (exact, or ignoring case when unambiguous); [`Error::Remote`]
    /// naming the skill, its source, the file and what was wrong.
    pub async fn fetch(&self, name: &str) -> Result<(), Error> {
        let (skill, entry) = match self.found(name)? {
            Some(remote) => remote,
            None => return Ok(()),
        };
        entry
            .fetch_skill_md(&skill.document)
            .await
            .map(drop)
            .map_err(|error| remote_error(&skill, error))
    }

    /// Fetches the file `path` of skill `skill_name` for
    /// [`read_reference`](Self::read_reference) when the skill is a remote
    /// source's: resolved among its listed files as `readReference`
    /// resolves, refused over the reference cap before a request, checked
    /// against its listed size (and by the source against its digest).
    /// A path that does not resolve, or a file listed over the cap, is left
    /// for `read_reference` to explain (`Ok`).
    pub async fn fetch_reference(&self, skill_name: &str, path: &str) -> Result<(), Error> {
        let (skill, entry) = match self.found(skill_name)? {
            Some(remote) => remote,
            None => return Ok(()),
        };
        let paths = entry.listed().files.iter().map(|f| f.path.as_str());
        let Ok(resolved) = resolve_keys(paths, path) else {
            return Ok(());
        };
        let cap = self.config().references.max_bytes;
        let Some(file) = entry.file(&resolved.rel).filter(|f| f.size <= cap).cloned() else {
            return Ok(());
        };
        entry
            .fetch_file(&file, cap)
            .await
            .map(drop)
            .map_err(|error| remote_error(&skill, error))
    }

    /// Lists every remote source of the registry again, then reloads it;
    /// what the reload changed. The registry is not locked while sources
    /// answer.
    pub async fn relist(&self) -> ReloadDiff {
        let sources: Vec<SkillSource> = self.read_registry().sources().to_vec();
        for source in &sources {
            // A failure is kept in the source and reported by the reload.
            let _ = source.relist().await;
        }
        self.registry()
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .reload()
    }

    /// [`fetch`](Self::fetch) for the tool's `activateSkill`: an unknown
    /// name is left for the activation to explain.
    pub(crate) async fn prefetch_skill(&self, name: &str) -> Result<(), Box<ToolOutput>> {
        match self.fetch(name).await {
            Err(Error::Remote {
                skill,
                source_label,
                error,
            }) => Err(Box::new(failure(&skill, &source_label, &error))),
            _ => Ok(()),
        }
    }

    /// [`fetch_reference`](Self::fetch_reference) for the tool's
    /// `readReference`.
    pub(crate) async fn prefetch_reference(
        &self,
        skill_name: &str,
        path: &str,
    ) -> Result<(), Box<ToolOutput>> {
        match self.fetch_reference(skill_name, path).await {
            Err(Error::Remote {
                skill,
                source_label,
                error,
            }) => Err(Box::new(failure(&skill, &source_label, &error))),
            _ => Ok(()),
        }
    }

    /// The enabled skill `name` and, when a remote source's, its entry.
    fn found(&self, name: &str) -> Result<Option<(Arc<Skill>, RemoteEntry)>, Error> {
        let registry = self.read_registry();
        let (skill, _) =
            find_skill(&registry, name).map_err(|_| Error::UnknownSkill { name: name.into() })?;
        let entry = match &skill.origin {
            Origin::Remote(entry) => entry.clone(),
            _ => return Ok(None),
        };
        Ok(Some((skill, entry)))
    }
}

fn remote_error(skill: &Skill, error: RemoteError) -> Error {
    Error::Remote {
        skill: skill.name().to_owned(),
        source_label: skill.source.clone(),
        error,
    }
}

/// The failed output of a fetch: `skill_unavailable` when the source could
/// not answer, `skill_refused` when what it handed over failed a check.
fn failure(skill: &str, source: &str, error: &RemoteError) -> ToolOutput {
    let (code, what) = if error.is_unavailable() {
        (codes::SKILL_UNAVAILABLE, "could not be fetched")
    } else {
        (codes::SKILL_REFUSED, "was refused")
    };
    let details = json!({
        "skill": skill,
        "source": source,
        "kind": error.kind,
        "file": error.file,
    });
    ToolOutput::failure(
        ToolError::new(
            code,
            format!("Skill {skill:?} of source `{source}` {what}: {error}"),
        )
        .with_details(details.clone()),
    )
    .state(details)
}
