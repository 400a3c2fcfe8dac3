//! Trust before reading: configuration a workspace carries (skills
//! folders, server lists, policy files, instruction files) is reported
//! but not interpreted until the host marks the workspace trusted.
//!
//! A repository is bytes someone else wrote. A host that reads a skills
//! folder, a policy or an `AGENTS.md` out of a freshly cloned workspace
//! acts on those bytes before the person has looked at them; that is the
//! pattern of the 2025–2026 advisories against coding agents. So:
//!
//! 1. The host keeps a [`TrustStore`] (serialisable; the host persists it
//!    where the workspace cannot write, e.g. its own state directory) and
//!    opens each workspace through it: [`TrustStore::workspace`].
//! 2. Trust is **exact**: a store entry trusts the folder it names, by
//!    canonical path *and* identity (device and inode on Unix). A folder
//!    replaced at the same path (deleted and cloned again, renamed away
//!    and re-created, swapped for a symbolic link) is not trusted; a
//!    workspace opened *below* a trusted one is not trusted by it (a clone
//!    or a download inside a trusted folder brings its own configuration).
//! 3. [`Workspace::place`] says where a configuration path stands:
//!    outside the workspace (the host's own configuration), or inside it
//!    and readable or not. A path is inside when it is lexically inside or
//!    resolves inside (a link from the host's folders into the workspace
//!    counts); inside a trusted workspace, it is readable only when it
//!    also resolves inside it (a link out of the workspace is not covered
//!    by the workspace's trust).
//! 4. [`SkillRegistry::load`](crate::SkillRegistry::load) with
//!    [`LoadOptions::in_workspace`](crate::LoadOptions::in_workspace)
//!    reads no `SKILL.md` of a folder that is not readable: it reports
//!    what is there ([`SkillRegistry::withheld`](crate::SkillRegistry::withheld),
//!    a finding `untrusted_workspace`), by listing folders only.
//!
//! ```
//! use tool_skills::trust::{Place, TrustStore};
//!
//! let dir = tempfile::tempdir()?;
//! let ws = dir.path().join("repo");
//! std::fs::create_dir_all(ws.join(".agents/skills"))?;
//! let mut store = TrustStore::new();
//! let opened = store.workspace(&ws)?;
//! assert!(!opened.is_trusted());
//! assert!(matches!(opened.place(&ws.join(".agents/skills")), Place::Workspace { readable: false, .. }));
//!
//! store.trust(&ws)?;
//! let text = store.to_json();                       // the host stores this
//! let store = TrustStore::from_json(&text)?;        // and reads it back
//! let opened = store.workspace(&ws)?;
//! assert!(opened.is_trusted());
//! assert_eq!(opened.place(&ws.join(".agents/skills")), Place::Workspace { readable: true, why: None });
//! assert_eq!(opened.place(dir.path()), Place::Outside);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The version of [`TrustStore`]'s JSON.
pub const TRUST_STORE_VERSION: u32 = 1;

/// A folder's identity beyond its path: the same path holding another
/// folder later has another identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct FolderId {
    /// The device.
    pub device: u64,
    /// The inode.
    pub inode: u64,
}

impl FolderId {
    /// The identity of the folder at `path` (following links), where the
    /// platform has one.
    pub fn of(path: &Path) -> std::io::Result<Option<Self>> {
        let meta = std::fs::metadata(path)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Ok(Some(Self {
                device: meta.dev(),
                inode: meta.ino(),
            }))
        }
        #[cfg(not(unix))]
        {
            let _ = meta;
            Ok(None)
        }
    }
}

/// One folder the host marked trusted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TrustedRoot {
    /// The folder, canonical.
    pub path: PathBuf,
    /// Its identity when it was trusted (`None` where the platform has none).
    #[serde(default)]
    pub id: Option<FolderId>,
    /// When it was trusted (milliseconds since the Unix epoch).
    #[serde(default)]
    pub trusted_at_ms: u64,
}

/// The folders a host trusts, as it persists them: `{"version": 1,
/// "roots": [{"path", "id": {"device", "inode"}, "trustedAtMs"}]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrustStore {
    #[serde(default = "version")]
    version: u32,
    #[serde(default)]
    roots: Vec<TrustedRoot>,
}

fn version() -> u32 {
    TRUST_STORE_VERSION
}

impl Default for TrustStore {
    fn default() -> Self {
        Self {
            version: TRUST_STORE_VERSION,
            roots: Vec::new(),
        }
    }
}

/// Why a workspace is not trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Untrusted {
    /// No entry names this folder (a parent's entry does not count).
    NotTrusted,
    /// An entry names this path, but the folder there now is another one.
    Replaced,
}

impl Untrusted {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::NotTrusted => "not_trusted",
            Self::Replaced => "replaced",
        }
    }
}

/// A workspace opened through a [`TrustStore`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workspace {
    /// The root as given, made absolute (not resolved).
    given: PathBuf,
    /// The root, canonical.
    root: PathBuf,
    /// `None` when trusted.
    untrusted: Option<Untrusted>,
}

/// Where a configuration path stands against a [`Workspace`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Place {
    /// Not the workspace's: the host's own configuration.
    Outside,
    /// The workspace's configuration.
    Workspace {
        /// Whether the host may read and interpret it.
        readable: bool,
        /// Why not, when not.
        why: Option<Withhold>,
    },
}

/// Why workspace configuration is not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Withhold {
    /// The workspace is not trusted.
    NotTrusted,
    /// The workspace was trusted, but the folder at its path was replaced.
    Replaced,
    /// The path is a link (or under one) that resolves out of the trusted
    /// workspace: the workspace's trust does not cover where it leads.
    LeavesWorkspace,
}

impl Withhold {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::NotTrusted => "not_trusted",
            Self::Replaced => "replaced",
            Self::LeavesWorkspace => "leaves_workspace",
        }
    }
}

impl From<Untrusted> for Withhold {
    fn from(why: Untrusted) -> Self {
        match why {
            Untrusted::NotTrusted => Self::NotTrusted,
            Untrusted::Replaced => Self::Replaced,
        }
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// `path` made absolute against the current directory.
fn absolute(path: &Path) -> Result<PathBuf> {
    if path.is_absolute() {
        return Ok(path.to_path_buf());
    }
    Ok(std::env::current_dir()
        .map_err(|e| Error::io(path, e))?
        .join(path))
}

/// `path` made absolute, `.` and `..` removed lexically (links not
/// resolved).
fn lexical(path: &Path) -> Result<PathBuf> {
    let absolute = absolute(path)?;
    let mut out = PathBuf::new();
    for part in absolute.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    Ok(out)
}

/// The canonical form of `path`, or of its deepest existing ancestor with
/// the rest appended (a path that does not exist yet still resolves
/// through the links above it).
fn resolved(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut at = path;
    loop {
        if let Ok(canonical) = std::fs::canonicalize(at) {
            let mut out = canonical;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return out;
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                at = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
}

impl TrustStore {
    /// An empty store: nothing is trusted.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads a stored store; a bad one is [`Error::TrustStore`] naming what.
    pub fn from_json(text: &str) -> Result<Self> {
        let store: Self = serde_json::from_str(text).map_err(|e| Error::TrustStore {
            message: format!("the trust store does not read: {e}"),
        })?;
        if store.version != TRUST_STORE_VERSION {
            return Err(Error::TrustStore {
                message: format!(
                    "the trust store has version {}; this build reads version {TRUST_STORE_VERSION}",
                    store.version
                ),
            });
        }
        Ok(store)
    }

    /// The store as JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The trusted folders.
    pub fn roots(&self) -> &[TrustedRoot] {
        &self.roots
    }

    /// Marks the folder at `root` trusted (by its canonical path and its
    /// identity now), replacing an older entry for the same path.
    pub fn trust(&mut self, root: &Path) -> Result<&TrustedRoot> {
        let path = std::fs::canonicalize(root).map_err(|e| Error::io(root, e))?;
        if !path.is_dir() {
            return Err(Error::NotAFolder { path });
        }
        let id = FolderId::of(&path).map_err(|e| Error::io(&path, e))?;
        self.roots.retain(|r| r.path != path);
        self.roots.push(TrustedRoot {
            path,
            id,
            trusted_at_ms: now_ms(),
        });
        let last = self.roots.len() - 1;
        Ok(&self.roots[last])
    }

    /// Removes the entry for the folder at `root` (by its canonical path, or
    /// the path as given when it no longer resolves); whether there was one.
    pub fn revoke(&mut self, root: &Path) -> bool {
        let path = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        let before = self.roots.len();
        self.roots.retain(|r| r.path != path);
        self.roots.len() != before
    }

    /// Opens the workspace at `root`: trusted when an entry names its
    /// canonical path and the folder there is still the one trusted.
    pub fn workspace(&self, root: &Path) -> Result<Workspace> {
        let given = lexical(root)?;
        let canonical = std::fs::canonicalize(root).map_err(|e| Error::io(root, e))?;
        if !canonical.is_dir() {
            return Err(Error::NotAFolder { path: canonical });
        }
        let untrusted = match self.roots.iter().find(|r| r.path == canonical) {
            None => Some(Untrusted::NotTrusted),
            Some(entry) => {
                let now = FolderId::of(&canonical).map_err(|e| Error::io(&canonical, e))?;
                if entry.id == now {
                    None
                } else {
                    Some(Untrusted::Replaced)
                }
            }
        };
        Ok(Workspace {
            given,
            root: canonical,
            untrusted,
        })
    }
}

impl Workspace {
    /// A workspace nobody trusted (a host without a store).
    pub fn untrusted(root: &Path) -> Result<Self> {
        TrustStore::new().workspace(root)
    }

    /// The root, canonical.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether the host may read the workspace's configuration.
    pub fn is_trusted(&self) -> bool {
        self.untrusted.is_none()
    }

    /// Why not, when not.
    pub fn untrusted_because(&self) -> Option<Untrusted> {
        self.untrusted
    }

    /// Where `path` (absolute, or relative to the current directory)
    /// stands; see the [module docs](self), step 3.
    pub fn place(&self, path: &Path) -> Place {
        let (Ok(lexical), Ok(absolute)) = (lexical(path), absolute(path)) else {
            // No current directory to place a relative path against: it
            // cannot be shown to be outside, so it is not read.
            return Place::Workspace {
                readable: false,
                why: Some(Withhold::NotTrusted),
            };
        };
        // Resolved as the kernel would (`..` after a link climbs the
        // link's target), not from the lexical form.
        let target = resolved(&absolute);
        let lexically_inside = lexical.starts_with(&self.given) || lexical.starts_with(&self.root);
        let resolves_inside = target.starts_with(&self.root);
        if !lexically_inside && !resolves_inside {
            return Place::Outside;
        }
        let why = match self.untrusted {
            Some(why) => Some(why.into()),
            None if !resolves_inside => Some(Withhold::LeavesWorkspace),
            None => None,
        };
        Place::Workspace {
            readable: why.is_none(),
            why,
        }
    }

    /// Whether `path` may be read: outside the workspace, or inside it and
    /// readable.
    pub fn may_read(&self, path: &Path) -> bool {
        matches!(
            self.place(path),
            Place::Outside | Place::Workspace { readable: true, .. }
        )
    }
}

/// A skills folder that was not read, and what is in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Withheld {
    /// The source's label.
    pub source: String,
    /// The folder as given.
    pub path: PathBuf,
    /// Why it was not read.
    pub why: Withhold,
    /// Where it resolves (differs from `path` through links).
    pub resolves_to: PathBuf,
    /// The skill folders found by listing folders (nothing read); empty
    /// when the folder resolves out of the workspace (not walked).
    pub skills: Vec<WithheldSkill>,
}

/// A skill folder of a [`Withheld`] source: where it is, nothing of what
/// it says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct WithheldSkill {
    /// The folder.
    pub dir: PathBuf,
    /// Its `SKILL.md` (not read).
    pub file: PathBuf,
    /// The file's size in bytes.
    pub bytes: u64,
}

/// The report of a skills folder not read: the skill folders below it,
/// found by listing folders within the workspace (no file is opened).
pub(crate) fn withheld(
    label: &str,
    root: &Path,
    workspace: &Workspace,
    why: Withhold,
    discovery: &crate::discovery::DiscoveryOptions,
) -> Withheld {
    let resolves_to = absolute(root)
        .map(|a| resolved(&a))
        .unwrap_or_else(|_| root.to_path_buf());
    let skills = if resolves_to.starts_with(workspace.root()) {
        let (found, _) = crate::discovery::discover(root, discovery);
        found
            .into_iter()
            .map(|f| WithheldSkill {
                bytes: std::fs::symlink_metadata(&f.file).map_or(0, |m| m.len()),
                dir: f.dir,
                file: f.file,
            })
            .collect()
    } else {
        Vec::new()
    };
    Withheld {
        source: label.to_owned(),
        path: root.to_path_buf(),
        why,
        resolves_to,
        skills,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_removes_dots_without_resolving() {
        let p = lexical(Path::new("/a/b/../c/./d")).unwrap();
        assert_eq!(p, PathBuf::from("/a/c/d"));
    }

    #[test]
    fn a_store_of_another_version_is_refused() {
        let err = TrustStore::from_json(r#"{"version": 9, "roots": []}"#).unwrap_err();
        assert!(err.to_string().contains("version 9"), "{err}");
        assert!(TrustStore::from_json(r#"{"roots": 3}"#).is_err());
    }
}
