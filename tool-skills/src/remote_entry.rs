//! One skill of a remote source, as a registry holds it: its listing, the
//! source to fetch from, and what was fetched (checked) so far.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use crate::finding::{Finding, FindingCode};
use crate::frontmatter::ParseLimits;
use crate::remote::{ListedFile, ListedSkill, RemoteError, RemoteErrorKind, RemoteSkills};
use crate::validate::{ParseOptions, SkillDocument, ValidationMode, parse_skill_md};

/// Where a skill of a remote source lives ([`Origin::Remote`]): its
/// listing and the source, plus its `SKILL.md` and files once fetched.
///
/// Cheap to clone (shared). Fetching is done by the `skills` tool
/// ([`SkillsTool::fetch`], [`SkillsTool::fetch_reference`], and its own
/// `activateSkill` and `readReference`); what was fetched is kept until
/// the registry lists the source again.
///
/// [`Origin::Remote`]: crate::Origin::Remote
/// [`SkillsTool::fetch`]: crate::SkillsTool::fetch
/// [`SkillsTool::fetch_reference`]: crate::SkillsTool::fetch_reference
#[derive(Clone)]
pub struct RemoteEntry {
    inner: Arc<Inner>,
}

struct Inner {
    remote: Arc<dyn RemoteSkills>,
    listed: ListedSkill,
    folder_name: String,
    mode: ValidationMode,
    limits: ParseLimits,
    skill_md: Mutex<Option<Arc<Fetched>>>,
    files: Mutex<BTreeMap<String, Arc<Vec<u8>>>>,
}

/// A fetched `SKILL.md`: the document and what validation noticed.
#[derive(Debug)]
pub(crate) struct Fetched {
    pub document: SkillDocument,
    pub findings: Vec<Finding>,
}

impl std::fmt::Debug for RemoteEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteEntry")
            .field("source", &self.inner.remote.describe())
            .field("uri", &self.inner.listed.uri)
            .field("fetched", &self.is_fetched())
            .finish_non_exhaustive()
    }
}

// As for `RemoteSource`: what was fetched sits behind mutexes read
// through poisoning, so a skill from a remote source is unwind safe like
// any other.
impl std::panic::UnwindSafe for RemoteEntry {}
impl std::panic::RefUnwindSafe for RemoteEntry {}

impl PartialEq for RemoteEntry {
    /// The same listing of the same source.
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner.remote, &other.inner.remote)
            && self.inner.listed == other.inner.listed
    }
}

impl RemoteEntry {
    pub(crate) fn new(
        remote: Arc<dyn RemoteSkills>,
        listed: ListedSkill,
        folder_name: String,
        mode: ValidationMode,
        limits: ParseLimits,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                remote,
                listed,
                folder_name,
                mode,
                limits,
                skill_md: Mutex::new(None),
                files: Mutex::new(BTreeMap::new()),
            }),
        }
    }

    /// The skill as the source listed it.
    pub fn listed(&self) -> &ListedSkill {
        &self.inner.listed
    }

    /// How the source names itself.
    pub fn describe(&self) -> String {
        self.inner.remote.describe()
    }

    /// Whether `SKILL.md` was fetched and passed its checks.
    pub fn is_fetched(&self) -> bool {
        self.fetched().is_some()
    }

    /// The instructions (the body of `SKILL.md`), once fetched.
    pub fn body(&self) -> Option<String> {
        self.fetched().map(|f| f.document.body.clone())
    }

    /// What validation noticed in the fetched `SKILL.md` (warnings such as
    /// `long_body`; a file with errors is never kept): empty before the
    /// fetch.
    pub fn findings(&self) -> Vec<Finding> {
        self.fetched()
            .map(|f| f.findings.clone())
            .unwrap_or_default()
    }

    pub(crate) fn fetched(&self) -> Option<Arc<Fetched>> {
        lock(&self.inner.skill_md).clone()
    }

    /// A file already fetched, by its path in the skill.
    pub(crate) fn cached(&self, path: &str) -> Option<Arc<Vec<u8>>> {
        lock(&self.inner.files).get(path).cloned()
    }

    /// The listed file at `path`.
    pub(crate) fn file(&self, path: &str) -> Option<&ListedFile> {
        self.inner.listed.files.iter().find(|f| f.path == path)
    }

    /// Fetches `SKILL.md` (once) and checks it against the listing and the
    /// registry's rules: the listed size, the file cap, UTF-8, the Agent
    /// Skills format in the registry's mode, and the name, description and
    /// other fields against `listed` (the document the listing gave).
    pub(crate) async fn fetch_skill_md(
        &self,
        listed: &SkillDocument,
    ) -> Result<Arc<Fetched>, RemoteError> {
        if let Some(done) = self.fetched() {
            return Ok(done);
        }
        let inner = &self.inner;
        let uri = inner.listed.uri.as_str();
        let bytes = inner.remote.read(&inner.listed, uri).await?;
        let refuse = |kind, message: String| RemoteError::new(kind, Some(uri), message);
        if let Some(size) = inner.listed.size
            && bytes.len() as u64 != size
        {
            return Err(refuse(
                RemoteErrorKind::Size,
                format!("it is {} bytes, the listing says {size}", bytes.len()),
            ));
        }
        let cap = inner.limits.max_file_bytes;
        if bytes.len() > cap {
            return Err(refuse(
                RemoteErrorKind::TooLarge,
                format!("it is {} bytes, over the {cap}-byte cap", bytes.len()),
            ));
        }
        let text = String::from_utf8(bytes)
            .map_err(|_| refuse(RemoteErrorKind::Invalid, "SKILL.md is not UTF-8".into()))?;
        let options = ParseOptions::new(uri, inner.mode)
            .folder(inner.folder_name.clone())
            .limits(inner.limits);
        let parsed = parse_skill_md(&text, &options);
        let Some(document) = parsed.document else {
            let errors: Vec<&Finding> = parsed.findings.iter().filter(|f| f.is_error()).collect();
            let kind = if errors.iter().any(|f| FRONTMATTER_CODES.contains(&f.code)) {
                RemoteErrorKind::Frontmatter
            } else {
                RemoteErrorKind::Invalid
            };
            let summary: Vec<String> = errors
                .iter()
                .map(|f| format!("{} ({})", f.code, f.message))
                .collect();
            return Err(refuse(
                kind,
                format!("SKILL.md does not validate: {}", summary.join("; ")),
            ));
        };
        let differs = [
            ("name", document.name != listed.name),
            ("description", document.description != listed.description),
            ("other fields", document.frontmatter != listed.frontmatter),
        ];
        if let Some((field, _)) = differs.iter().find(|(_, differs)| *differs) {
            return Err(refuse(
                RemoteErrorKind::Frontmatter,
                format!("SKILL.md's frontmatter ({field}) differs from the listing"),
            ));
        }
        let fetched = Arc::new(Fetched {
            document,
            findings: parsed.findings,
        });
        *lock(&inner.skill_md) = Some(fetched.clone());
        Ok(fetched)
    }

    /// Fetches the listed file `file` (once), refusing it when it is listed
    /// or fetched over `cap` bytes or differs from its listed size.
    pub(crate) async fn fetch_file(
        &self,
        file: &ListedFile,
        cap: u64,
    ) -> Result<Arc<Vec<u8>>, RemoteError> {
        if let Some(done) = self.cached(&file.path) {
            return Ok(done);
        }
        let uri = Some(file.uri.as_str());
        let too_large = |size: u64| {
            RemoteError::new(
                RemoteErrorKind::TooLarge,
                uri,
                format!("it is {size} bytes, over the {cap}-byte cap"),
            )
        };
        if file.size > cap {
            return Err(too_large(file.size));
        }
        let bytes = self
            .inner
            .remote
            .read(&self.inner.listed, &file.uri)
            .await?;
        if bytes.len() as u64 != file.size {
            return Err(RemoteError::new(
                RemoteErrorKind::Size,
                uri,
                format!(
                    "it is {} bytes, the listing says {}",
                    bytes.len(),
                    file.size
                ),
            ));
        }
        let bytes = Arc::new(bytes);
        lock(&self.inner.files).insert(file.path.clone(), bytes.clone());
        Ok(bytes)
    }
}

/// Findings that mean `SKILL.md`'s frontmatter could not be read.
const FRONTMATTER_CODES: &[FindingCode] = &[
    FindingCode::MissingFrontmatter,
    FindingCode::UnclosedFrontmatter,
    FindingCode::FrontmatterTooLarge,
    FindingCode::InvalidYaml,
    FindingCode::FrontmatterNotMapping,
    FindingCode::DuplicateKey,
];

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
