//! Trust before reading: the configuration the workspace (`--cwd`)
//! carries is reported, and read only once the workspace is trusted.
//!
//! toolhost looks for the places of [`KNOWN`] in the workspace's root:
//! a skills folder, a policy file, an MCP server list, instruction files.
//! They are repository bytes someone else may have written, so:
//!
//! 1. Until the workspace is trusted, each one found is reported under
//!    `"workspace"` in the output and never opened (a skills folder is
//!    listed: its skill folders and sizes, through tool-skills'
//!    `SkillRegistry::withheld`).
//! 2. `--trust-workspace` records the workspace in toolhost's trust store,
//!    `trusted.json` in the state directory (mode 0600, see
//!    [`crate::pending`]), by canonical path and folder identity;
//!    `--distrust-workspace` removes it. Trust is exact (tool-skills'
//!    `trust` module): a folder replaced at the path, or a workspace
//!    below a trusted one, is not trusted.
//! 3. In a trusted workspace each place is used, unless it leads out of the
//!    workspace through a link (`leaves_workspace`) or the command line
//!    names its own (`--policy`, `--mcp-config` win: `overridden`); its
//!    skills come after `--skills` folders in precedence.
//!
//! Paths given on the command line are the person's own choice and are
//! read as always, wherever they are.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use tool_skills::trust::{Place, TrustStore, Withhold, Workspace};
use tool_skills::{LoadOptions, SkillRegistry, SkillSource};

use crate::Failure;

/// What a place of the workspace holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A folder of Agent Skills (like `--skills`).
    Skills,
    /// A policy file (like `--policy`).
    Policy,
    /// A list of MCP servers (like `--mcp-config`).
    McpServers,
    /// Instructions for the model (shown by `tools` once trusted).
    Instructions,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Self::Skills => "skills",
            Self::Policy => "policy",
            Self::McpServers => "mcpServers",
            Self::Instructions => "instructions",
        }
    }
}

/// The places toolhost looks at in a workspace's root, in precedence
/// order within a kind.
pub const KNOWN: &[(&str, Kind)] = &[
    (".toolhost/skills", Kind::Skills),
    (".agents/skills", Kind::Skills),
    (".toolhost/policy.json", Kind::Policy),
    (".toolhost/mcp.json", Kind::McpServers),
    ("AGENTS.md", Kind::Instructions),
    ("CLAUDE.md", Kind::Instructions),
];

/// The most of an instruction file `tools` shows.
const MAX_INSTRUCTIONS_BYTES: u64 = 64 * 1024;

/// The trust flags of the command line.
#[derive(Debug, Clone, Copy, Default)]
pub struct TrustFlags {
    /// `--trust-workspace`.
    pub trust: bool,
    /// `--distrust-workspace`.
    pub distrust: bool,
}

/// One place found in the workspace.
struct Found {
    kind: Kind,
    path: PathBuf,
    /// `None`: used; else why not.
    why: Option<&'static str>,
    /// What a withheld skills folder holds (listed, not read).
    listed: Option<Value>,
}

/// The workspace's configuration: what was found and what is used.
pub struct WorkspaceConfig {
    workspace: Workspace,
    store: PathBuf,
    found: Vec<Found>,
    flagged: bool,
}

/// The trust store's file (in the state directory, not created).
fn store_path() -> Result<PathBuf, Failure> {
    Ok(crate::pending::state_dir_path()?.join("trusted.json"))
}

fn read_store(path: &Path) -> Result<TrustStore, Failure> {
    match std::fs::read_to_string(path) {
        Ok(text) => TrustStore::from_json(&text)
            .map_err(|e| Failure::Source(format!("{}: {e}", path.display()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(TrustStore::new()),
        Err(e) => Err(Failure::Source(format!("{}: {e}", path.display()))),
    }
}

impl WorkspaceConfig {
    /// Opens the workspace at `cwd` (canonical) through the trust store,
    /// applying `flags` first (saved), and finds its places. Nothing in the
    /// workspace is opened here: the places are only looked up.
    pub fn open(cwd: &Path, flags: TrustFlags) -> Result<Self, Failure> {
        let store_file = store_path()?;
        let found_any = KNOWN
            .iter()
            .any(|(rel, _)| std::fs::symlink_metadata(cwd.join(rel)).is_ok());
        let flagged = flags.trust || flags.distrust;
        // Nothing to judge and nothing to record: the store is not read.
        let mut store = if found_any || flagged {
            read_store(&store_file)?
        } else {
            TrustStore::new()
        };
        if flagged {
            if flags.trust {
                store
                    .trust(cwd)
                    .map_err(|e| Failure::Source(format!("--trust-workspace: {e}")))?;
            } else {
                store.revoke(cwd);
            }
            if let Some(dir) = store_file.parent() {
                crate::pending::private_dir(dir)?;
            }
            crate::pending::write_private(&store_file, &store.to_json())?;
        }
        let workspace = store
            .workspace(cwd)
            .map_err(|e| Failure::Usage(format!("--cwd: {e}")))?;
        let mut found = Vec::new();
        for (rel, kind) in KNOWN {
            let path = cwd.join(rel);
            if std::fs::symlink_metadata(&path).is_err() {
                continue;
            }
            let (why, listed) = match workspace.place(&path) {
                Place::Workspace {
                    readable: false,
                    why,
                } => {
                    let why = why.unwrap_or(Withhold::NotTrusted);
                    let listed = (*kind == Kind::Skills).then(|| listed(&path, &workspace));
                    (Some(why.as_str()), listed)
                }
                _ => (None, None),
            };
            found.push(Found {
                kind: *kind,
                path,
                why,
                listed,
            });
        }
        Ok(Self {
            workspace,
            store: store_file,
            found,
            flagged,
        })
    }

    /// The first usable place of `kind`, unless the command line names
    /// its own (`explicit`), which then wins (`overridden`).
    fn take(&mut self, kind: Kind, explicit: bool) -> Option<PathBuf> {
        let mut taken = None;
        for found in self.found.iter_mut().filter(|f| f.kind == kind) {
            if found.why.is_some() {
                continue;
            }
            if explicit || taken.is_some() {
                found.why = Some(if explicit { "overridden" } else { "shadowed" });
            } else {
                taken = Some(found.path.clone());
            }
        }
        taken
    }

    /// Fills what the command line left open: the policy file and the
    /// MCP server list; appends the usable skills folders to `skills`.
    pub fn apply(
        &mut self,
        policy: &mut Option<PathBuf>,
        mcp_config: &mut Option<PathBuf>,
        skills: &mut Vec<PathBuf>,
    ) {
        if let Some(path) = self.take(Kind::Policy, policy.is_some()) {
            *policy = Some(path);
        }
        if let Some(path) = self.take(Kind::McpServers, mcp_config.is_some()) {
            *mcp_config = Some(path);
        }
        for found in self.found.iter().filter(|f| f.kind == Kind::Skills) {
            if found.why.is_none() {
                skills.push(found.path.clone());
            }
        }
    }

    /// The `"workspace"` report, or `None` when there is nothing to say
    /// (no place found, no trust flag). `instructions`: give the text of
    /// usable instruction files (`tools`).
    pub fn report(&self, instructions: bool) -> Option<Value> {
        if self.found.is_empty() && !self.flagged {
            return None;
        }
        let config: Vec<Value> = self
            .found
            .iter()
            .map(|f| {
                let mut entry = json!({
                    "kind": f.kind.as_str(),
                    "path": f.path.display().to_string(),
                    "used": f.why.is_none(),
                });
                if let Some(why) = f.why {
                    entry["why"] = json!(why);
                }
                if let Some(listed) = &f.listed {
                    entry["listed"] = listed.clone();
                }
                if instructions && f.kind == Kind::Instructions && f.why.is_none() {
                    entry["text"] = json!(read_instructions(&f.path));
                }
                entry
            })
            .collect();
        Some(json!({
            "root": self.workspace.root().display().to_string(),
            "trusted": self.workspace.is_trusted(),
            "why": self.workspace.untrusted_because().map(|w| w.as_str()),
            "trustStore": self.store.display().to_string(),
            "config": config,
        }))
    }
}

/// The skill folders of a skills folder not read, by listing folders
/// (tool-skills' withheld report).
fn listed(path: &Path, workspace: &Workspace) -> Value {
    let registry = SkillRegistry::load(
        [SkillSource::dir("workspace", path)],
        LoadOptions::default().in_workspace(workspace.clone()),
    );
    registry
        .withheld()
        .first()
        .map(|w| serde_json::to_value(&w.skills).unwrap_or_default())
        .unwrap_or_else(|| json!([]))
}

/// An instruction file's text, capped, lossy UTF-8.
fn read_instructions(path: &Path) -> String {
    use std::io::Read;
    let mut bytes = Vec::new();
    match std::fs::File::open(path)
        .and_then(|f| f.take(MAX_INSTRUCTIONS_BYTES).read_to_end(&mut bytes))
    {
        Ok(_) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => format!("(cannot read: {e})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_places_are_plain_relative_paths() {
        for (rel, _) in KNOWN {
            let path = Path::new(rel);
            assert!(path.is_relative(), "{rel}");
            assert!(
                path.components()
                    .all(|c| matches!(c, std::path::Component::Normal(_))),
                "{rel}"
            );
        }
    }
}
