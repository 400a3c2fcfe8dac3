//! Unit tests of remote sources over an in-memory [`RemoteSkills`] that
//! records every read (the real one, an MCP server through tool-mcp, is
//! tested with real servers in tool-mcp's tests): listings validated like
//! folders, nothing read before it is needed, and what a source hands over
//! checked again by the registry whatever the source says.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, RwLock};

use async_trait::async_trait;
use serde_json::{Value, json};
use tool_core::{Tool, ToolContext};

use crate::{
    BuiltinSkill, Error, FindingCode, ListedFile, ListedSkill, LoadOptions, RemoteError,
    RemoteErrorKind, RemoteSkills, SkillRegistry, SkillSource, SkillsTool, SkillsToolConfig,
    ValidationMode,
};

const PDF: &str = "mem://pdf/SKILL.md";
const FORMS: &str = "mem://pdf/refs/forms.md";
const PDF_MD: &str = "---\nname: pdf\ndescription: Fill PDF forms.\n---\nUse the forms guide.\n";

struct Fake {
    listing: Result<Vec<ListedSkill>, RemoteError>,
    /// Replaces `listing` from the second `list` on, when set.
    later: Option<Vec<ListedSkill>>,
    lists: Mutex<usize>,
    files: BTreeMap<String, Vec<u8>>,
    reads: Mutex<Vec<String>>,
}

impl Fake {
    fn new(listing: Vec<ListedSkill>) -> Self {
        Self {
            listing: Ok(listing),
            later: None,
            lists: Mutex::new(0),
            files: BTreeMap::from([
                (PDF.to_owned(), PDF_MD.as_bytes().to_vec()),
                (FORMS.to_owned(), b"Field names.".to_vec()),
            ]),
            reads: Mutex::new(Vec::new()),
        }
    }

    fn reads(&self) -> Vec<String> {
        self.reads.lock().unwrap().clone()
    }
}

#[async_trait]
impl RemoteSkills for Fake {
    fn describe(&self) -> String {
        "the fake".into()
    }

    async fn list(&self) -> Result<Vec<ListedSkill>, RemoteError> {
        let mut lists = self.lists.lock().unwrap();
        *lists += 1;
        match (&self.later, *lists) {
            (Some(later), 2..) => Ok(later.clone()),
            _ => self.listing.clone(),
        }
    }

    async fn read(&self, _skill: &ListedSkill, uri: &str) -> Result<Vec<u8>, RemoteError> {
        self.reads.lock().unwrap().push(uri.to_owned());
        self.files
            .get(uri)
            .cloned()
            .ok_or_else(|| RemoteError::unavailable(Some(uri), "gone"))
    }
}

fn pdf() -> ListedSkill {
    ListedSkill::new(PDF, "pdf", "Fill PDF forms.")
        .sized(PDF_MD.len() as u64, None)
        .file(ListedFile::new("refs/forms.md", FORMS, 12))
}

fn tool_over(fake: &Arc<Fake>, options: LoadOptions) -> SkillsTool {
    let registry = futures_block(SkillRegistry::load_listed(
        [SkillSource::remote("mem", fake.clone())],
        options,
    ));
    SkillsTool::shared(Arc::new(RwLock::new(registry)), SkillsToolConfig::default())
}

fn futures_block<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(future)
}

fn codes_of(registry: &SkillRegistry) -> Vec<(FindingCode, String)> {
    registry
        .findings()
        .iter()
        .map(|f| (f.code, f.file.clone()))
        .collect()
}

#[test]
fn a_listing_is_validated_like_a_folder_and_nothing_is_read() {
    let mut long = String::from("x");
    long.push_str(&"y".repeat(1100));
    let fake = Arc::new(Fake::new(vec![
        pdf(),
        ListedSkill::new("mem://climb/SKILL.md", "climb", "Climbs.").file(ListedFile::new(
            "../../etc/passwd",
            "mem://x",
            1,
        )),
        ListedSkill::new("mem://twice/SKILL.md", "twice", "Twice.")
            .file(ListedFile::new("a.md", "mem://twice/a.md", 1))
            .file(ListedFile::new("a.md", "mem://twice/b.md", 1)),
        ListedSkill::new("mem://huge/SKILL.md", "huge", "Huge.").sized(2 << 20, None),
        ListedSkill::new("mem://blank/SKILL.md", "blank", ""),
        ListedSkill::new("mem://nofile", "nofile", "No SKILL.md."),
        ListedSkill::new("mem://long/SKILL.md", "long", &long),
    ]));
    let tool = tool_over(&fake, LoadOptions::new(ValidationMode::Strict));
    let registry = tool.registry().read().unwrap();
    let names: Vec<&str> = registry.skills().map(|s| s.name()).collect();
    assert_eq!(names, ["pdf"]);
    let codes = codes_of(&registry);
    for expected in [
        (FindingCode::InvalidRemoteEntry, "mem://climb/SKILL.md"),
        (FindingCode::InvalidRemoteEntry, "mem://twice/SKILL.md"),
        (FindingCode::FileTooLarge, "mem://huge/SKILL.md"),
        (FindingCode::MissingDescription, "mem://blank/SKILL.md"),
        (FindingCode::InvalidRemoteEntry, "mem://nofile"),
        (FindingCode::DescriptionTooLong, "mem://long/SKILL.md"),
    ] {
        assert!(
            codes.contains(&(expected.0, expected.1.to_owned())),
            "{expected:?} not in {codes:?}"
        );
    }
    let skill = registry.get("pdf").unwrap();
    assert_eq!(skill.provenance(None).kind, "remote");
    assert_eq!(skill.location(), "mem://pdf");
    assert!(skill.body().is_empty());
    assert!(
        registry
            .catalog(&crate::CatalogOptions::default())
            .text
            .contains("Fill PDF forms.")
    );
    assert!(fake.reads().is_empty(), "{:?}", fake.reads());
}

#[test]
fn a_source_never_listed_or_failing_loads_nothing_and_says_why() {
    let fake = Arc::new(Fake::new(vec![pdf()]));
    let registry = SkillRegistry::load([SkillSource::remote("mem", fake)], LoadOptions::default());
    assert!(registry.get("pdf").is_none());
    let finding = &registry.findings()[0];
    assert_eq!(finding.code, FindingCode::RemoteSourceFailed);
    assert_eq!(finding.file, "the fake");
    assert!(finding.message.contains("never listed"), "{finding}");

    let mut failing = Fake::new(Vec::new());
    failing.listing = Err(RemoteError::unavailable(None, "connection refused"));
    let tool = tool_over(&Arc::new(failing), LoadOptions::default());
    let registry = tool.registry().read().unwrap();
    let finding = &registry.findings()[0];
    assert_eq!(finding.code, FindingCode::RemoteSourceFailed);
    assert!(finding.message.contains("connection refused"), "{finding}");
}

#[test]
fn a_builtin_skill_ahead_shadows_the_remote_one_unread() {
    let fake = Arc::new(Fake::new(vec![pdf()]));
    let registry = futures_block(SkillRegistry::load_listed(
        [
            SkillSource::builtin(
                "builtin",
                [BuiltinSkill::new(
                    "pdf",
                    "pdf",
                    "Local PDF rules.",
                    "Local.",
                )],
            ),
            SkillSource::remote("mem", fake.clone()),
        ],
        LoadOptions::default(),
    ));
    assert_eq!(registry.get("pdf").unwrap().source, "builtin");
    let shadowed = &registry.shadowed()[0];
    assert_eq!(shadowed.shadowed.source, "mem");
    assert_eq!(shadowed.shadowed.kind, "remote");
    assert!(fake.reads().is_empty());
}

async fn call(tool: &SkillsTool, api: &str, args: Value) -> tool_core::ToolOutput {
    tool.call(api, args, &ToolContext::new()).await.unwrap()
}

#[tokio::test]
async fn skill_md_is_fetched_on_activation_and_a_file_when_read_each_once() {
    let fake = Arc::new(Fake::new(vec![pdf()]));
    let registry = SkillRegistry::load_listed(
        [SkillSource::remote("mem", fake.clone())],
        LoadOptions::default(),
    )
    .await;
    let tool = SkillsTool::new(registry);
    // Host-side use before a fetch: a typed failure, no read.
    let out = tool.activate("pdf");
    assert_eq!(out.error_code().unwrap(), "skill_unavailable");
    assert!(fake.reads().is_empty());

    let out = call(&tool, "activateSkill", json!({"name": "pdf"})).await;
    assert!(out.success, "{out:?}");
    assert!(
        out.content.contains("Use the forms guide."),
        "{}",
        out.content
    );
    assert!(
        out.content.contains("<file>refs/forms.md</file>"),
        "{}",
        out.content
    );
    assert_eq!(fake.reads(), [PDF]);
    let out = call(&tool, "activateSkill", json!({"name": "PDF"})).await;
    assert!(out.success);
    assert_eq!(fake.reads(), [PDF], "fetched once");

    let out = call(
        &tool,
        "readReference",
        json!({"skill": "pdf", "path": "forms"}),
    )
    .await;
    assert_eq!(out.content, "Field names.");
    assert_eq!(out.state.as_ref().unwrap()["kind"], "remote");
    let out = call(
        &tool,
        "readReference",
        json!({"skill": "pdf", "path": "refs/forms.md"}),
    )
    .await;
    assert!(out.success);
    assert_eq!(fake.reads(), [PDF, FORMS], "read once");
    let out = call(
        &tool,
        "readReference",
        json!({"skill": "pdf", "path": "../../x"}),
    )
    .await;
    assert_eq!(out.error_code().unwrap(), "path_not_allowed");
    let out = call(
        &tool,
        "readReference",
        json!({"skill": "pdf", "path": "nope.md"}),
    )
    .await;
    assert_eq!(out.error_code().unwrap(), "reference_not_found");
    assert_eq!(fake.reads(), [PDF, FORMS]);
}

/// The registry's own checks of what a source hands over, whatever the
/// source's own checks said: the listed size, the listed frontmatter, the
/// format, the caps.
#[tokio::test]
async fn what_a_source_hands_over_is_checked_by_the_registry_too() {
    let lying = [
        (
            PDF_MD.replace("Fill PDF forms.", "Fill PDF f0rms."),
            RemoteErrorKind::Frontmatter,
            "description",
        ),
        (format!("{PDF_MD}more"), RemoteErrorKind::Size, "bytes"),
        (
            "no frontmatter at all, same length as the real one, really!!!!!!!!".to_owned(),
            RemoteErrorKind::Frontmatter,
            "missing_frontmatter",
        ),
    ];
    for (served, kind, says) in lying {
        let mut fake = Fake::new(vec![pdf()]);
        if served.len() == PDF_MD.len() || kind != RemoteErrorKind::Size {
            // Keep the listed size honest unless the size is the lie.
            fake.listing = Ok(vec![pdf().sized(served.len() as u64, None)]);
        }
        fake.files.insert(PDF.to_owned(), served.into_bytes());
        let fake = Arc::new(fake);
        let registry = SkillRegistry::load_listed(
            [SkillSource::remote("mem", fake.clone())],
            LoadOptions::default(),
        )
        .await;
        let tool = SkillsTool::new(registry);
        let error = tool.fetch("pdf").await.unwrap_err();
        let Error::Remote {
            skill,
            source_label,
            error: remote,
        } = &error
        else {
            panic!("{error}");
        };
        assert_eq!((skill.as_str(), source_label.as_str()), ("pdf", "mem"));
        assert_eq!(remote.kind, kind, "{error}");
        assert_eq!(remote.file.as_deref(), Some(PDF));
        assert!(error.to_string().contains(says), "{error}");
        let out = call(&tool, "activateSkill", json!({"name": "pdf"})).await;
        assert_eq!(out.error_code().unwrap(), "skill_refused", "{out:?}");
        assert!(out.content.contains("\"pdf\""), "{}", out.content);
    }

    // A reference listed over the cap is refused without a read; one
    // served longer than listed is refused after it.
    let mut fake = Fake::new(vec![pdf()]);
    fake.files
        .insert(FORMS.to_owned(), b"Field names and more.".to_vec());
    let fake = Arc::new(fake);
    let registry = SkillRegistry::load_listed(
        [SkillSource::remote("mem", fake.clone())],
        LoadOptions::default(),
    )
    .await;
    let mut config = SkillsToolConfig::default();
    config.references.max_bytes = 4;
    let small = SkillsTool::shared(Arc::new(RwLock::new(registry.clone())), config);
    let out = call(
        &small,
        "readReference",
        json!({"skill": "pdf", "path": "refs/forms.md"}),
    )
    .await;
    assert_eq!(out.error_code().unwrap(), "reference_too_large");
    assert!(fake.reads().is_empty(), "{:?}", fake.reads());
    let tool = SkillsTool::new(registry);
    let out = call(
        &tool,
        "readReference",
        json!({"skill": "pdf", "path": "refs/forms.md"}),
    )
    .await;
    assert_eq!(out.error_code().unwrap(), "skill_refused");
    assert_eq!(out.state.as_ref().unwrap()["kind"], "size");
    assert_eq!(out.state.as_ref().unwrap()["file"], FORMS);
}

#[tokio::test]
async fn a_source_that_cannot_answer_is_unavailable_not_refused() {
    let mut fake = Fake::new(vec![pdf()]);
    fake.files.clear();
    let registry = SkillRegistry::load_listed(
        [SkillSource::remote("mem", Arc::new(fake))],
        LoadOptions::default(),
    )
    .await;
    let tool = SkillsTool::new(registry);
    let out = call(&tool, "activateSkill", json!({"name": "pdf"})).await;
    assert_eq!(out.error_code().unwrap(), "skill_unavailable");
    let error = tool.fetch("pdf").await.unwrap_err();
    assert!(error.remote().unwrap().is_unavailable());
    assert!(matches!(
        tool.fetch("nope").await,
        Err(Error::UnknownSkill { .. })
    ));
}

#[tokio::test]
async fn relisting_reloads_what_the_source_lists_now_and_forgets_what_was_fetched() {
    let mut fake = Fake::new(vec![pdf()]);
    let greeting = ListedSkill::new("mem://greeting/SKILL.md", "greeting", "Greets.");
    fake.later = Some(vec![pdf().field("license", "MIT"), greeting]);
    let fake = Arc::new(fake);
    let registry = SkillRegistry::load_listed(
        [SkillSource::remote("mem", fake.clone())],
        LoadOptions::default(),
    )
    .await;
    let tool = SkillsTool::new(registry);
    // A reload reads the kept listing: no request, nothing changed.
    assert!(tool.registry().write().unwrap().reload().is_empty());
    assert_eq!(*fake.lists.lock().unwrap(), 1);
    tool.fetch("pdf").await.unwrap();
    assert_eq!(fake.reads(), [PDF]);

    let diff = tool.relist().await;
    assert_eq!(diff.added, ["greeting"]);
    assert_eq!(diff.changed, ["pdf"]);
    assert_eq!(*fake.lists.lock().unwrap(), 2);
    // The listing changed: SKILL.md is fetched again, and now differs
    // from it (the file has no licence).
    let error = tool.fetch("pdf").await.unwrap_err();
    assert_eq!(
        error.remote().unwrap().kind,
        RemoteErrorKind::Frontmatter,
        "{error}"
    );
    assert_eq!(fake.reads(), [PDF, PDF]);
}

/// Remote sources keep the registry's types as they were: sendable,
/// shareable and unwind safe.
#[test]
fn registry_types_keep_their_auto_traits() {
    fn check<T: Send + Sync + std::panic::UnwindSafe + std::panic::RefUnwindSafe>() {}
    check::<SkillRegistry>();
    check::<SkillSource>();
    check::<crate::SourceKind>();
    check::<crate::Skill>();
    check::<crate::Origin>();
    check::<crate::RemoteEntry>();
    check::<crate::RemoteSource>();
    // (`Error` never was unwind safe: it holds `std::io::Error`.)
    fn sendable<T: Send + Sync>() {}
    sendable::<Error>();
}
