//! A remote source in a registry: its last listing, and the listing turned
//! into skills under the same rules as a folder's.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::finding::{Finding, FindingCode, Severity};
use crate::frontmatter::ParseLimits;
use crate::reference::{RefError, check_path, percent_decode_fully};
use crate::remote::{ListedSkill, RemoteError, RemoteSkills};
use crate::remote_entry::RemoteEntry;
use crate::skill::{Origin, Skill, digest};
use crate::validate::{ParseOptions, ValidationMode, parse_skill_md};

/// The registry's rules a listing is loaded under (its `LoadOptions`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rules {
    pub mode: ValidationMode,
    pub limits: ParseLimits,
    pub max_skills: usize,
}

/// A remote source and its last listing ([`SourceKind::Remote`]).
///
/// The registry's [`load`](crate::SkillRegistry::load) and
/// [`reload`](crate::SkillRegistry::reload) read the listing kept here,
/// never the network; [`relist`](Self::relist) (or
/// [`SkillRegistry::load_listed`](crate::SkillRegistry::load_listed),
/// [`SkillsTool::relist`](crate::SkillsTool::relist)) asks the source again.
/// Clones share the listing.
///
/// [`SourceKind::Remote`]: crate::SourceKind::Remote
#[derive(Clone)]
pub struct RemoteSource {
    remote: Arc<dyn RemoteSkills>,
    listing: Arc<Mutex<Option<Listing>>>,
}

/// What a source answered when last listed.
type Listing = Result<Vec<ListedSkill>, RemoteError>;

impl std::fmt::Debug for RemoteSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteSource")
            .field("source", &self.remote.describe())
            .finish_non_exhaustive()
    }
}

// A panic in a source's call leaves nothing half-changed here: the only
// shared state is the listing, behind a mutex read through poisoning. So a
// registry holding a remote source stays unwind safe, as it was before
// remote sources (the trait object alone would not be).
impl std::panic::UnwindSafe for RemoteSource {}
impl std::panic::RefUnwindSafe for RemoteSource {}

impl PartialEq for RemoteSource {
    /// The same source (and so the same listing).
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.remote, &other.remote) && Arc::ptr_eq(&self.listing, &other.listing)
    }
}

impl RemoteSource {
    pub(crate) fn new(remote: Arc<dyn RemoteSkills>) -> Self {
        Self {
            remote,
            listing: Arc::new(Mutex::new(None)),
        }
    }

    /// The source.
    pub fn remote(&self) -> &Arc<dyn RemoteSkills> {
        &self.remote
    }

    /// Asks the source for its listing and keeps it (a failure too: the
    /// next load reports it as a `remote_source_failed` finding). Returns
    /// how many skills were listed.
    pub async fn relist(&self) -> Result<usize, RemoteError> {
        let listing = self.remote.list().await;
        let result = listing.as_ref().map(Vec::len).map_err(Clone::clone);
        *self.listing.lock().unwrap_or_else(|p| p.into_inner()) = Some(listing);
        result
    }

    /// The last listing: `None` before the first [`relist`](Self::relist).
    pub fn listing(&self) -> Option<Result<Vec<ListedSkill>, RemoteError>> {
        self.listing
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

/// The skills of `source`'s last listing that pass the registry's rules,
/// and every finding.
///
/// Per listed skill, before anything is fetched: a `SKILL.md` address that
/// names a folder, files with plain relative paths listed once, a listed
/// `SKILL.md` within the file cap, and the listed frontmatter valid under
/// the registry's mode (with the folder rule against the address's last
/// folder). At most `discovery.max_skills` skills are taken.
pub(crate) fn load_remote(
    label: &str,
    source: &RemoteSource,
    rules: Rules,
) -> (Vec<Skill>, Vec<Finding>) {
    let describe = source.remote.describe();
    let listed = match source.listing() {
        Some(Ok(listed)) => listed,
        Some(Err(error)) => {
            return (
                Vec::new(),
                vec![Finding::new(
                    FindingCode::RemoteSourceFailed,
                    Severity::Error,
                    describe,
                    None,
                    format!("source `{label}` could not be listed: {error}"),
                )],
            );
        }
        None => {
            return (
                Vec::new(),
                vec![Finding::new(
                    FindingCode::RemoteSourceFailed,
                    Severity::Error,
                    describe,
                    None,
                    format!(
                        "source `{label}` was never listed: load with `SkillRegistry::load_listed` or call `SkillSource::relist` first"
                    ),
                )],
            );
        }
    };
    let mut skills = Vec::new();
    let mut findings = Vec::new();
    for entry in listed {
        if skills.len() >= rules.max_skills {
            findings.push(Finding::new(
                FindingCode::DiscoveryLimit,
                Severity::Warning,
                describe.clone(),
                None,
                format!(
                    "source `{label}` lists more than {} skills; the rest are not loaded",
                    rules.max_skills
                ),
            ));
            break;
        }
        match check_listed(label, source, entry, rules, &mut findings) {
            Some(skill) => skills.push(skill),
            None => continue,
        }
    }
    (skills, findings)
}

fn check_listed(
    label: &str,
    source: &RemoteSource,
    entry: ListedSkill,
    rules: Rules,
    findings: &mut Vec<Finding>,
) -> Option<Skill> {
    let uri = entry.uri.clone();
    let invalid = |message: String| {
        Finding::new(
            FindingCode::InvalidRemoteEntry,
            Severity::Error,
            uri.clone(),
            None,
            message,
        )
    };
    let Some(segment) = uri
        .strip_suffix("/SKILL.md")
        .and_then(|f| f.rsplit('/').next())
        .filter(|s| !s.is_empty())
    else {
        findings.push(invalid(
            "the listed address does not end in `<folder>/SKILL.md`; the skill is not loaded"
                .into(),
        ));
        return None;
    };
    let Some(folder_name) = percent_decode_fully(segment) else {
        findings.push(invalid(format!(
            "the skill's folder `{segment}` is not percent-encoded UTF-8"
        )));
        return None;
    };
    let mut seen = HashSet::new();
    for file in &entry.files {
        if let Err(error) = check_path(&file.path) {
            let why = match error {
                RefError::NotAllowed(why) => why,
                other => format!("{other:?}"),
            };
            findings.push(invalid(format!(
                "the listed file path {:?} is refused: {why}; the skill is not loaded",
                file.path
            )));
            return None;
        }
        if file.path == "SKILL.md" || !seen.insert(file.path.as_str()) {
            findings.push(invalid(format!(
                "the listed file path {:?} is listed twice (or is SKILL.md itself); the skill is not loaded",
                file.path
            )));
            return None;
        }
    }
    let cap = rules.limits.max_file_bytes;
    if let Some(size) = entry.size
        && size > cap as u64
    {
        findings.push(Finding::new(
            FindingCode::FileTooLarge,
            Severity::Error,
            uri.clone(),
            None,
            format!(
                "SKILL.md is listed as {size} bytes, over the {cap}-byte cap; it was not fetched"
            ),
        ));
        return None;
    }
    let yaml = match yaml_serde::to_string(&Value::Object(entry.frontmatter.clone())) {
        Ok(yaml) => yaml,
        Err(error) => {
            findings.push(invalid(format!(
                "the listed frontmatter cannot be written as YAML: {error}"
            )));
            return None;
        }
    };
    // The body is not fetched yet: a placeholder keeps body findings away.
    let text = format!("---\n{yaml}---\n(fetched on activation)\n");
    let parse = ParseOptions::new(uri.clone(), rules.mode)
        .folder(folder_name.clone())
        .limits(rules.limits);
    let parsed = parse_skill_md(&text, &parse);
    findings.extend(parsed.findings);
    let mut document = parsed.document?;
    document.body = String::new();
    let mut parts: Vec<Vec<u8>> = vec![
        entry.uri.clone().into_bytes(),
        yaml.into_bytes(),
        format!("{:?} {:?}", entry.size, entry.digest).into_bytes(),
    ];
    for file in &entry.files {
        parts.push(
            format!("{} {} {} {:?}", file.path, file.uri, file.size, file.digest).into_bytes(),
        );
    }
    let parts: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
    Some(Skill {
        digest: digest(&parts),
        document,
        source: label.to_owned(),
        origin: Origin::Remote(RemoteEntry::new(
            source.remote.clone(),
            entry,
            folder_name,
            rules.mode,
            rules.limits,
        )),
    })
}
