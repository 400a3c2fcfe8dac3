//! Skill sources (folders on disk, builtin lists) and loading one source.

use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;

use crate::discovery::{DiscoveryOptions, FoundSkill, discover};
use crate::finding::{Finding, FindingCode, Severity};
use crate::frontmatter::ParseLimits;
use crate::remote::{RemoteError, RemoteSkills};
use crate::remote_source::{RemoteSource, Rules, load_remote};
use crate::skill::{BuiltinSkill, Origin, Skill, digest};
use crate::trust::{Place, Withheld, Withhold, Workspace, withheld};
use crate::validate::{ParseOptions, SkillDocument, ValidationMode, parse_skill_md};

/// Where skills come from; a registry holds several in precedence order.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SkillSource {
    /// A short label shown in provenance (`project`, `user`, `builtin`…).
    pub label: String,
    /// What the source is.
    pub kind: SourceKind,
}

/// The kinds of source.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SourceKind {
    /// A folder of skill folders (or one skill folder).
    Dir(PathBuf),
    /// Skills compiled into the host.
    Builtin(Vec<BuiltinSkill>),
    /// Skills another system serves (an MCP server's), read through
    /// [`RemoteSkills`]: the registry loads its last listing.
    Remote(RemoteSource),
}

impl SkillSource {
    /// A folder source.
    pub fn dir(label: impl Into<String>, path: impl Into<PathBuf>) -> Self {
        Self {
            label: label.into(),
            kind: SourceKind::Dir(path.into()),
        }
    }

    /// A builtin source.
    pub fn builtin(
        label: impl Into<String>,
        skills: impl IntoIterator<Item = BuiltinSkill>,
    ) -> Self {
        Self {
            label: label.into(),
            kind: SourceKind::Builtin(skills.into_iter().collect()),
        }
    }
}

impl SkillSource {
    /// A remote source: skills another system serves, such as a connected
    /// MCP server's (tool-mcp's `McpSkillSource`). Nothing is asked of it
    /// here: [`relist`](Self::relist) (or
    /// [`SkillRegistry::load_listed`](crate::SkillRegistry::load_listed))
    /// lists its catalogue; a skill's files are fetched when it is used.
    ///
    /// Its skills are checked as a folder's are (the registry's mode and
    /// caps, a listed `SKILL.md` over the file cap refused unread) and take
    /// part in precedence and shadowing by the source's place in the list.
    pub fn remote(label: impl Into<String>, remote: Arc<dyn RemoteSkills>) -> Self {
        Self {
            label: label.into(),
            kind: SourceKind::Remote(RemoteSource::new(remote)),
        }
    }

    /// Asks a remote source for its catalogue again and keeps it for the
    /// next load or reload (a failure too, reported then as a finding).
    /// Returns how many skills it listed; other sources list nothing.
    pub async fn relist(&self) -> Result<usize, RemoteError> {
        match &self.kind {
            SourceKind::Remote(remote) => remote.relist().await,
            _ => Ok(0),
        }
    }
}

/// How a registry loads its sources.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct LoadOptions {
    /// Strict or lenient validation (default lenient).
    pub mode: ValidationMode,
    /// Size caps for `SKILL.md`.
    pub limits: ParseLimits,
    /// Discovery bounds and policies.
    pub discovery: DiscoveryOptions,
    /// The workspace folder sources are judged against (none: every
    /// folder is read). See [`in_workspace`](Self::in_workspace).
    pub workspace: Option<Workspace>,
}

impl LoadOptions {
    /// Options in `mode`, other settings at their defaults.
    pub fn new(mode: ValidationMode) -> Self {
        Self {
            mode,
            ..Self::default()
        }
    }

    /// The same options judging each folder source against `workspace`
    /// first: a folder that is the workspace's configuration and not
    /// readable ([`Place`]) is listed, never read; it loads no skill, is
    /// reported in [`SkillRegistry::withheld`](crate::SkillRegistry::withheld)
    /// and by an `untrusted_workspace` finding. Folders outside the
    /// workspace (the host's own) load as before.
    pub fn in_workspace(mut self, workspace: Workspace) -> Self {
        self.workspace = Some(workspace);
        self
    }
}

/// What one source loaded, plus every finding.
#[derive(Debug, Clone, Default)]
pub(crate) struct Loaded {
    pub skills: Vec<Skill>,
    pub findings: Vec<Finding>,
    pub withheld: Vec<Withheld>,
}

/// Loads one source; within it, the first skill of a name (in sorted order) wins.
pub(crate) fn load_source(source: &SkillSource, options: &LoadOptions) -> Loaded {
    let withheld = match &source.kind {
        SourceKind::Dir(root) => judge(source, root, options),
        SourceKind::Builtin(_) | SourceKind::Remote(_) => None,
    };
    let mut loaded = match (&source.kind, withheld) {
        (SourceKind::Dir(root), Some(withheld)) => {
            let count = withheld.skills.len();
            let message = format!(
                "the skills folder is configuration of the workspace {} ({}): {count} skill folder{} listed, none read; trust the workspace to load them",
                options
                    .workspace
                    .as_ref()
                    .map(|w| w.root().display().to_string())
                    .unwrap_or_default(),
                withheld.why.as_str(),
                if count == 1 { "" } else { "s" },
            );
            Loaded {
                skills: Vec::new(),
                findings: vec![Finding::new(
                    FindingCode::UntrustedWorkspace,
                    Severity::Warning,
                    root.display().to_string(),
                    None,
                    message,
                )],
                withheld: vec![withheld],
            }
        }
        (SourceKind::Dir(root), None) => {
            let (found, mut findings) = discover(root, &options.discovery);
            let mut skills = Vec::with_capacity(found.len());
            for result in load_all(&found, &source.label, options) {
                match result {
                    Ok((skill, more)) => {
                        findings.extend(more);
                        if let Some(skill) = skill {
                            skills.push(skill);
                        }
                    }
                    Err(finding) => findings.push(finding),
                }
            }
            Loaded {
                skills,
                findings,
                withheld: Vec::new(),
            }
        }
        (SourceKind::Remote(remote), _) => {
            let rules = Rules {
                mode: options.mode,
                limits: options.limits,
                max_skills: options.discovery.max_skills,
            };
            let (skills, findings) = load_remote(&source.label, remote, rules);
            Loaded {
                skills,
                findings,
                withheld: Vec::new(),
            }
        }
        (SourceKind::Builtin(list), _) => {
            let mut loaded = Loaded::default();
            for builtin in list {
                let (skill, findings) = load_builtin(builtin, &source.label, options.mode);
                loaded.findings.extend(findings);
                loaded.skills.extend(skill);
            }
            loaded
        }
    };
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    let mut kept = Vec::with_capacity(loaded.skills.len());
    for skill in loaded.skills {
        if let Some(first) = seen.get(skill.name()) {
            loaded.findings.push(Finding::new(
                FindingCode::DuplicateSkill,
                Severity::Warning,
                skill.file(),
                None,
                format!(
                    "source `{}` already has a skill named {:?} ({first}); this one is not used",
                    source.label,
                    skill.name()
                ),
            ));
        } else {
            seen.insert(skill.name().to_owned(), skill.file());
            kept.push(skill);
        }
    }
    loaded.skills = kept;
    loaded
}

/// The report of a folder source the workspace does not let be read.
fn judge(source: &SkillSource, root: &std::path::Path, options: &LoadOptions) -> Option<Withheld> {
    let workspace = options.workspace.as_ref()?;
    match workspace.place(root) {
        Place::Workspace {
            readable: false,
            why,
        } => Some(withheld(
            &source.label,
            root,
            workspace,
            why.unwrap_or(Withhold::NotTrusted),
            &options.discovery,
        )),
        _ => None,
    }
}

type FoundResult = Result<(Option<Skill>, Vec<Finding>), Finding>;

/// Reads and checks the found skills, on several threads when there are
/// many; results keep the discovery order.
fn load_all(found: &[FoundSkill], label: &str, options: &LoadOptions) -> Vec<FoundResult> {
    const PER_THREAD: usize = 64;
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(8)
        .min(found.len().div_ceil(PER_THREAD))
        .max(1);
    if threads == 1 {
        return found
            .iter()
            .map(|f| load_found(f, label, options))
            .collect();
    }
    let chunk = found.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = found
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|f| load_found(f, label, options))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut all = Vec::with_capacity(found.len());
        for (handle, part) in handles.into_iter().zip(found.chunks(chunk)) {
            match handle.join() {
                Ok(results) => all.extend(results),
                // A chunk panicked (a bug): run it again here so the panic
                // surfaces on the caller's thread instead of losing skills.
                Err(_) => all.extend(part.iter().map(|f| load_found(f, label, options))),
            }
        }
        all
    })
}

fn load_found(
    found: &FoundSkill,
    label: &str,
    options: &LoadOptions,
) -> Result<(Option<Skill>, Vec<Finding>), Finding> {
    let file_text = found.file.display().to_string();
    let io = |error: std::io::Error| {
        Finding::new(
            FindingCode::IoError,
            Severity::Error,
            file_text.clone(),
            None,
            format!("cannot read the file: {error}"),
        )
    };
    let cap = options.limits.max_file_bytes;
    let handle = fs::File::open(&found.file).map_err(io)?;
    let len = handle.metadata().map_err(io)?.len();
    if len > cap as u64 {
        return Err(Finding::new(
            FindingCode::FileTooLarge,
            Severity::Error,
            file_text,
            None,
            format!("the file is {len} bytes, over the {cap}-byte cap; it was not read"),
        ));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    handle
        .take(cap as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => {
            let offset = error.utf8_error().valid_up_to();
            let line = error.as_bytes()[..offset]
                .iter()
                .filter(|b| **b == b'\n')
                .count()
                + 1;
            return Err(Finding::new(
                FindingCode::InvalidUtf8,
                Severity::Error,
                file_text,
                Some(line),
                format!("the file is not UTF-8 (first bad byte at offset {offset})"),
            ));
        }
    };
    let parse = ParseOptions::new(file_text, options.mode)
        .folder(found.folder_name.clone())
        .limits(options.limits);
    let mut parsed = parse_skill_md(&text, &parse);
    if found.misnamed {
        let name = found
            .file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (severity, outcome) = match options.mode {
            ValidationMode::Strict => (Severity::Error, "it is not loaded (strict)"),
            ValidationMode::Lenient => (Severity::Warning, "it is loaded anyway"),
        };
        parsed.findings.insert(
            0,
            Finding::new(
                FindingCode::MisnamedSkillFile,
                severity,
                found.file.display().to_string(),
                None,
                format!("the skill file is named `{name}`, not `SKILL.md`; {outcome}: rename it"),
            ),
        );
        if options.mode == ValidationMode::Strict {
            parsed.document = None;
        }
    }
    let skill = parsed.document.map(|document| Skill {
        digest: digest(&[text.as_bytes(), found.dir.as_os_str().as_encoded_bytes()]),
        document,
        source: label.to_owned(),
        origin: Origin::Disk {
            dir: found.dir.clone(),
            file: found.file.clone(),
        },
    });
    Ok((skill, parsed.findings))
}

/// Checks a builtin skill the way a `SKILL.md` is checked (no folder rule).
pub(crate) fn load_builtin(
    builtin: &BuiltinSkill,
    label: &str,
    mode: ValidationMode,
) -> (Option<Skill>, Vec<Finding>) {
    let file = format!("builtin:{}", builtin.identifier);
    let yaml = yaml_serde::to_string(&BTreeMap::from([
        ("name", builtin.name.as_str()),
        ("description", builtin.description.as_str()),
    ]))
    .unwrap_or_default();
    let text = format!("---\n{yaml}---\n{}", builtin.content);
    let parsed = parse_skill_md(&text, &ParseOptions::new(file, mode));
    let skill = parsed.document.map(|document: SkillDocument| {
        let mut parts: Vec<&[u8]> = vec![text.as_bytes()];
        for (path, bytes) in &builtin.resources {
            parts.push(path.as_bytes());
            parts.push(bytes);
        }
        Skill {
            digest: digest(&parts),
            document,
            source: label.to_owned(),
            origin: Origin::Builtin {
                identifier: builtin.identifier.clone(),
                resources: Arc::new(builtin.resources.clone()),
            },
        }
    });
    (skill, parsed.findings)
}
