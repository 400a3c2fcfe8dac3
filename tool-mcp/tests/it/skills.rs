//! Skills of a connected server (SEP-2640), client side: `McpManager`
//! against an in-process `RegistryServer` on 127.0.0.1 serving one skill
//! (`skill://pdf/SKILL.md` and `skill://pdf/refs/FORMS.md`) whose served
//! bytes or entry each test can spoil. Listing reads no file; loading
//! reads `SKILL.md` first and checks every file against the entry (size,
//! digest, frontmatter); the first failure is `mcp_skill_integrity`
//! naming the file, and no later file is read.
//!
//! The same server as a tool-skills registry source (`McpSkillSource`,
//! last section): listed with no read, shadowed by (or shadowing) a folder
//! skill of the same name, `SKILL.md` fetched on activation and a file on
//! `readReference`; a tampered digest, an oversize file (listed or served)
//! and bad frontmatter are each refused with a typed error naming the
//! skill, the file and what was wrong.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use rmcp::model::{
    Resource, ResourceContents, Skill, SkillFrontmatter, SkillResource, SkillResources,
};
use tokio_util::sync::CancellationToken;
use tool_core::{ToolContext, ToolRegistry};
use tool_mcp::{Error, McpManager, McpSkillSource, ResourceSource, SkillSource, SourceError};

const SKILL_MD: &str = "skill://pdf/SKILL.md";
const FORMS: &str = "skill://pdf/refs/FORMS.md";
const BODY: &str =
    "---\nname: pdf\ndescription: Fill PDF forms\nlicense: MIT\n---\n\nSkill body.\n";
const FORMS_TEXT: &str = "Supporting content.\n";

/// What the server serves, and every URI read from it.
struct Shelf {
    /// The `SKILL.md` bytes served (the entry describes `BODY`
    /// unless `entry_body` says otherwise).
    served_body: String,
    /// The FORMS.md bytes served.
    served_forms: String,
    /// The body the entry's size and digest describe.
    entry_body: String,
    /// Overrides the entry's digest of `SKILL.md`.
    entry_digest: Option<String>,
    /// FORMS.md served as a base64 blob (this text) instead of text.
    forms_blob: Option<String>,
    /// Overrides the entry's description.
    entry_description: Option<String>,
    reads: Mutex<Vec<String>>,
}

impl Shelf {
    fn honest() -> Self {
        Self {
            served_body: BODY.to_owned(),
            served_forms: FORMS_TEXT.to_owned(),
            entry_body: BODY.to_owned(),
            entry_digest: None,
            forms_blob: None,
            entry_description: None,
            reads: Mutex::new(Vec::new()),
        }
    }

    fn reads(&self) -> Vec<String> {
        self.reads.lock().unwrap().clone()
    }
}

#[async_trait]
impl SkillSource for Shelf {
    async fn list(&self) -> Result<Vec<Skill>, SourceError> {
        let mut own = SkillResource::from_bytes(SKILL_MD, self.entry_body.as_bytes());
        if let Some(digest) = &self.entry_digest {
            own.digest = digest.clone();
        }
        Ok(vec![Skill::new(
            SKILL_MD,
            SkillFrontmatter::new(
                "pdf",
                self.entry_description
                    .as_deref()
                    .unwrap_or("Fill PDF forms"),
            )
            .with_field("license", "MIT"),
            SkillResources::Files(vec![
                own,
                SkillResource::from_bytes(FORMS, FORMS_TEXT.as_bytes()),
            ]),
        )])
    }
}

#[async_trait]
impl ResourceSource for Shelf {
    async fn list(&self) -> Result<Vec<Resource>, SourceError> {
        Ok(vec![Resource::new(SKILL_MD, "pdf")])
    }

    async fn read(&self, uri: &str) -> Result<Vec<ResourceContents>, SourceError> {
        self.reads.lock().unwrap().push(uri.to_owned());
        let text = match uri {
            SKILL_MD => self.served_body.clone(),
            FORMS => self.served_forms.clone(),
            _ => return Err(SourceError::no_resource(uri)),
        };
        if let (FORMS, Some(blob)) = (uri, &self.forms_blob) {
            return Ok(vec![ResourceContents::BlobResourceContents {
                uri: uri.to_owned(),
                mime_type: Some("application/octet-stream".into()),
                blob: blob.clone(),
                meta: None,
            }]);
        }
        Ok(vec![ResourceContents::TextResourceContents {
            uri: uri.to_owned(),
            mime_type: Some("text/markdown".into()),
            text,
            meta: None,
        }])
    }
}

/// `shelf` served with the skills extension; a manager pointed at it.
async fn connect(shelf: Arc<Shelf>, skills: bool) -> (McpManager, CancellationToken) {
    let mut server = crate::common::served(ToolRegistry::new()).with_resources(shelf.clone());
    if skills {
        server = server.with_skills(shelf);
    }
    let stop = CancellationToken::new();
    let url = crate::common::serve_http_until(server, &stop).await;
    let manager = crate::common::http_manager("shelf", &url);
    (manager, stop)
}

/// Loads `pdf` from a server serving `shelf`; the error and the reads made.
async fn refused(shelf: Shelf) -> (Error, Vec<String>) {
    let shelf = Arc::new(shelf);
    let (manager, stop) = connect(shelf.clone(), true).await;
    let error = manager.load_skill("shelf", "pdf").await.unwrap_err();
    manager.shutdown().await;
    stop.cancel();
    assert_eq!(error.code(), "mcp_skill_integrity", "{error}");
    assert_eq!(error.server(), Some("shelf"));
    (error, shelf.reads())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skills_are_listed_without_reading_a_file_and_loaded_verified() {
    let shelf = Arc::new(Shelf::honest());
    let (manager, stop) = connect(shelf.clone(), true).await;
    assert!(manager.offers_skills("shelf").await.unwrap());
    let skills = manager.list_skills("shelf").await.unwrap();
    assert_eq!(skills.len(), 1);
    assert_eq!(skills[0].name(), "pdf");
    assert_eq!(skills[0].frontmatter.description, "Fill PDF forms");
    let SkillResources::Files(files) = &skills[0].resources else {
        panic!("{skills:?}");
    };
    assert_eq!(files.len(), 2);
    assert_eq!(files[1].size, FORMS_TEXT.len() as u64);
    assert!(shelf.reads().is_empty(), "listing read {:?}", shelf.reads());

    let loaded = manager.load_skill("shelf", "pdf").await.unwrap();
    assert_eq!(shelf.reads(), [SKILL_MD, FORMS]);
    assert_eq!(loaded.skill_md(), BODY);
    assert_eq!(loaded.files[1].uri, FORMS);
    assert_eq!(loaded.files[1].bytes, FORMS_TEXT.as_bytes());
    assert_eq!(loaded.entry, skills[0]);

    let unknown = manager.load_skill("shelf", "nope").await.unwrap_err();
    assert_eq!(unknown.code(), "mcp_request_failed", "{unknown}");
    assert!(unknown.to_string().contains("`nope`"), "{unknown}");
    manager.shutdown().await;
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_without_the_extension_is_not_asked_for_skills() {
    let shelf = Arc::new(Shelf::honest());
    let (manager, stop) = connect(shelf.clone(), false).await;
    assert!(!manager.offers_skills("shelf").await.unwrap());
    let error = manager.list_skills("shelf").await.unwrap_err();
    assert_eq!(error.code(), "mcp_not_offered", "{error}");
    assert!(error.to_string().contains("skills"), "{error}");
    manager.shutdown().await;
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_skill_md_whose_digest_differs_is_refused_before_any_other_read() {
    let mut shelf = Shelf::honest();
    // Same length, other bytes.
    shelf.served_body = BODY.replace("Skill body.", "Evil body!!");
    let (error, reads) = refused(shelf).await;
    let message = error.to_string();
    assert!(
        message.contains(SKILL_MD) && message.contains("digest"),
        "{message}"
    );
    assert_eq!(reads, [SKILL_MD]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_skill_md_whose_size_differs_is_refused_before_any_other_read() {
    let mut shelf = Shelf::honest();
    shelf.served_body = format!("{BODY}extra bytes\n");
    let (error, reads) = refused(shelf).await;
    let message = error.to_string();
    assert!(
        message.contains(SKILL_MD) && message.contains("bytes"),
        "{message}"
    );
    assert!(
        !message.contains("digest"),
        "size is checked first: {message}"
    );
    assert_eq!(reads, [SKILL_MD]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_skill_md_whose_frontmatter_differs_from_the_entry_is_refused() {
    // The entry's size and digest describe the served file: only the
    // frontmatter comparison can catch it.
    for (served, field) in [
        (
            BODY.replace("Fill PDF forms", "Exfiltrate credentials"),
            "description",
        ),
        (BODY.replace("license: MIT\n", ""), "license"),
        (
            BODY.replace("license: MIT\n", "license: MIT\nallowed-tools: Bash\n"),
            "allowed-tools",
        ),
    ] {
        let mut shelf = Shelf::honest();
        shelf.served_body = served.clone();
        shelf.entry_body = served;
        let (error, reads) = refused(shelf).await;
        let message = error.to_string();
        assert!(
            message.contains(&format!("`{field}`")),
            "{field}: {message}"
        );
        assert_eq!(reads, [SKILL_MD], "{field}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_skill_md_without_valid_frontmatter_is_refused() {
    for (served, what) in [
        ("no frontmatter at all\n".to_owned(), "does not start"),
        ("---\nname: pdf\n".to_owned(), "no closing"),
        ("---\nname: [pdf\n---\n".to_owned(), "not YAML"),
        ("---\n- a list\n---\n".to_owned(), "not a mapping"),
    ] {
        let mut shelf = Shelf::honest();
        shelf.served_body = served.clone();
        shelf.entry_body = served;
        let (error, reads) = refused(shelf).await;
        assert!(error.to_string().contains(what), "{what}: {error}");
        assert_eq!(reads, [SKILL_MD], "{what}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tampered_supporting_file_is_refused_naming_it() {
    let mut shelf = Shelf::honest();
    shelf.served_forms = "Supporting c0ntent.\n".to_owned();
    let (error, reads) = refused(shelf).await;
    let message = error.to_string();
    assert!(
        message.contains(FORMS) && message.contains("digest"),
        "{message}"
    );
    assert_eq!(reads, [SKILL_MD, FORMS]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_entry_is_refused_without_a_read() {
    // Our server refuses to list it (rmcp validates served entries): the
    // listing fails as a typed error naming the digest.
    let mut shelf = Shelf::honest();
    shelf.entry_digest = Some("sha256:NOT-HEX".to_owned());
    let shelf = Arc::new(shelf);
    let (manager, stop) = connect(shelf.clone(), true).await;
    let error = manager.list_skills("shelf").await.unwrap_err();
    assert!(error.to_string().contains("malformed digest"), "{error}");
    assert!(shelf.reads().is_empty(), "{:?}", shelf.reads());

    // An entry the host holds (from any server) is checked before a read.
    let honest = Arc::new(Shelf::honest());
    let (manager, stop_honest) = connect(honest.clone(), true).await;
    let good = manager.list_skills("shelf").await.unwrap().remove(0);
    let spoilt = [
        Skill::new(
            SKILL_MD,
            SkillFrontmatter::new("other", "Name not the URI's"),
            good.resources.clone(),
        ),
        Skill::new(
            SKILL_MD,
            good.frontmatter.clone(),
            SkillResources::Files(vec![
                SkillResource::from_bytes(SKILL_MD, BODY.as_bytes()),
                SkillResource::from_bytes("skill://pdf/../etc/passwd", b"x"),
            ]),
        ),
        Skill::new(
            SKILL_MD,
            good.frontmatter.clone(),
            SkillResources::Files(vec![SkillResource::new(SKILL_MD, "md5:00", 1)]),
        ),
    ];
    for entry in spoilt {
        let error = manager.load_skill_entry("shelf", entry).await.unwrap_err();
        assert_eq!(error.code(), "mcp_skill_integrity", "{error}");
        assert!(error.to_string().contains(SKILL_MD), "{error}");
    }
    assert!(honest.reads().is_empty(), "{:?}", honest.reads());
    manager.shutdown().await;
    stop.cancel();
    stop_honest.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_served_as_a_blob_is_decoded_and_verified() {
    // "Supporting content.\n" in base64.
    let mut shelf = Shelf::honest();
    shelf.forms_blob = Some("U3VwcG9ydGluZyBjb250ZW50Lgo=".to_owned());
    let shelf = Arc::new(shelf);
    let (manager, stop) = connect(shelf.clone(), true).await;
    let loaded = manager.load_skill("shelf", "pdf").await.unwrap();
    assert_eq!(loaded.files[1].bytes, FORMS_TEXT.as_bytes());
    manager.shutdown().await;
    stop.cancel();

    // Not base64: refused, naming the file.
    let mut shelf = Shelf::honest();
    shelf.forms_blob = Some("not*base64".to_owned());
    let (error, reads) = refused(shelf).await;
    assert!(error.to_string().contains(FORMS), "{error}");
    assert!(error.to_string().contains("base64"), "{error}");
    assert_eq!(reads, [SKILL_MD, FORMS]);
}

// ------------------------------------------------- as a tool-skills source

/// The shelf's skills as the registry source `mcp:shelf`, behind the
/// sources in `ahead` and ahead of those in `behind`, loaded (listed) with
/// `options`; the tool over them, the manager and the server's stop.
async fn skills_tool(
    shelf: Arc<Shelf>,
    ahead: Vec<tool_skills::SkillSource>,
    behind: Vec<tool_skills::SkillSource>,
    options: tool_skills::LoadOptions,
    config: tool_skills::SkillsToolConfig,
) -> (tool_skills::SkillsTool, Arc<McpManager>, CancellationToken) {
    let (manager, stop) = connect(shelf, true).await;
    let manager = Arc::new(manager);
    let mut sources = ahead;
    sources.push(McpSkillSource::new(manager.clone(), "shelf").into_source("mcp:shelf"));
    sources.extend(behind);
    let registry = tool_skills::SkillRegistry::load_listed(sources, options).await;
    let tool = tool_skills::SkillsTool::shared(Arc::new(std::sync::RwLock::new(registry)), config);
    (tool, manager, stop)
}

async fn honest_tool(
    shelf: Arc<Shelf>,
) -> (tool_skills::SkillsTool, Arc<McpManager>, CancellationToken) {
    skills_tool(
        shelf,
        Vec::new(),
        Vec::new(),
        tool_skills::LoadOptions::default(),
        tool_skills::SkillsToolConfig::default(),
    )
    .await
}

async fn skills_call(
    tool: &tool_skills::SkillsTool,
    api: &str,
    args: serde_json::Value,
) -> tool_core::ToolOutput {
    use tool_core::Tool as _;
    tool.call(api, args, &ToolContext::new()).await.unwrap()
}

/// A skill folder `pdf` in a temp dir, as the source `project`.
fn project_pdf() -> (tempfile::TempDir, tool_skills::SkillSource) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("pdf")).unwrap();
    std::fs::write(
        dir.path().join("pdf/SKILL.md"),
        "---\nname: pdf\ndescription: Our own PDF rules.\n---\nLocal body.\n",
    )
    .unwrap();
    let source = tool_skills::SkillSource::dir("project", dir.path());
    (dir, source)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_servers_skills_are_a_registry_source_read_only_when_used() {
    let shelf = Arc::new(Shelf::honest());
    let (tool, manager, stop) = honest_tool(shelf.clone()).await;
    {
        let registry = tool.registry().read().unwrap();
        assert!(
            registry.findings().iter().all(|f| !f.is_error()),
            "{:?}",
            registry.findings()
        );
        let skill = registry.get("pdf").unwrap();
        assert_eq!(skill.source, "mcp:shelf");
        assert_eq!(skill.provenance(None).kind, "remote");
        assert_eq!(skill.location(), "skill://pdf");
        assert_eq!(skill.frontmatter().license.as_deref(), Some("MIT"));
    }
    let prompt = tool.system_role().unwrap();
    assert!(
        prompt.contains("<name>pdf</name>") && prompt.contains("Fill PDF forms"),
        "{prompt}"
    );
    assert!(shelf.reads().is_empty(), "listing read {:?}", shelf.reads());

    let out = skills_call(&tool, "activateSkill", serde_json::json!({"name": "pdf"})).await;
    assert!(out.success, "{out:?}");
    assert!(out.content.contains("Skill body."), "{}", out.content);
    assert!(
        out.content.contains("<file>refs/FORMS.md</file>"),
        "{}",
        out.content
    );
    assert_eq!(shelf.reads(), [SKILL_MD], "only SKILL.md on activation");
    let again = skills_call(&tool, "activateSkill", serde_json::json!({"name": "pdf"})).await;
    assert_eq!(again.content, out.content);
    assert_eq!(shelf.reads(), [SKILL_MD], "fetched once");

    // Case and a missing `.md` are forgiven as for folder skills.
    let out = skills_call(
        &tool,
        "readReference",
        serde_json::json!({"skill": "pdf", "path": "refs/forms"}),
    )
    .await;
    assert_eq!(out.content, FORMS_TEXT, "{out:?}");
    assert_eq!(out.state.as_ref().unwrap()["source"], "mcp:shelf");
    assert_eq!(shelf.reads(), [SKILL_MD, FORMS]);
    for bad in ["../../etc/passwd", "/etc/passwd", "%2e%2e/x"] {
        let out = skills_call(
            &tool,
            "readReference",
            serde_json::json!({"skill": "pdf", "path": bad}),
        )
        .await;
        assert_eq!(out.error_code().unwrap(), "path_not_allowed", "{bad}");
    }
    assert_eq!(shelf.reads(), [SKILL_MD, FORMS]);
    manager.shutdown().await;
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_folder_skill_shadows_the_servers_skill_of_the_same_name_and_back() {
    // The folder first: it wins, the server's is shadowed and never read.
    let shelf = Arc::new(Shelf::honest());
    let (_dir, project) = project_pdf();
    let (tool, manager, stop) = skills_tool(
        shelf.clone(),
        vec![project],
        Vec::new(),
        tool_skills::LoadOptions::default(),
        tool_skills::SkillsToolConfig::default(),
    )
    .await;
    {
        let registry = tool.registry().read().unwrap();
        assert_eq!(registry.get("pdf").unwrap().source, "project");
        let shadowed = &registry.shadowed()[0];
        assert_eq!(
            (shadowed.shadowed.source.as_str(), shadowed.shadowed.kind),
            ("mcp:shelf", "remote")
        );
        assert!(
            registry
                .findings()
                .iter()
                .any(|f| f.code.as_str() == "shadowed_skill" && f.file == SKILL_MD)
        );
    }
    let out = skills_call(&tool, "activateSkill", serde_json::json!({"name": "pdf"})).await;
    assert!(out.content.contains("Local body."), "{}", out.content);
    assert!(shelf.reads().is_empty(), "{:?}", shelf.reads());
    manager.shutdown().await;
    stop.cancel();

    // The server first: its skill wins over the folder's.
    let shelf = Arc::new(Shelf::honest());
    let (_dir, project) = project_pdf();
    let (tool, manager, stop) = skills_tool(
        shelf.clone(),
        Vec::new(),
        vec![project],
        tool_skills::LoadOptions::default(),
        tool_skills::SkillsToolConfig::default(),
    )
    .await;
    {
        let registry = tool.registry().read().unwrap();
        assert_eq!(registry.get("pdf").unwrap().source, "mcp:shelf");
        assert_eq!(registry.shadowed()[0].shadowed.source, "project");
    }
    let out = skills_call(&tool, "activateSkill", serde_json::json!({"name": "pdf"})).await;
    assert!(out.content.contains("Skill body."), "{}", out.content);
    manager.shutdown().await;
    stop.cancel();
}

/// Activates `pdf` of a registry over `shelf`: the host-side error and
/// the tool's failed output, and the reads made.
async fn refused_activation(
    shelf: Shelf,
) -> (tool_skills::Error, tool_core::ToolOutput, Vec<String>) {
    let shelf = Arc::new(shelf);
    let (tool, manager, stop) = honest_tool(shelf.clone()).await;
    let error = tool.fetch("pdf").await.unwrap_err();
    let out = skills_call(&tool, "activateSkill", serde_json::json!({"name": "pdf"})).await;
    manager.shutdown().await;
    stop.cancel();
    let tool_skills::Error::Remote {
        skill,
        source_label,
        ..
    } = &error
    else {
        panic!("{error}");
    };
    assert_eq!(
        (skill.as_str(), source_label.as_str()),
        ("pdf", "mcp:shelf")
    );
    assert_eq!(out.error_code().unwrap(), "skill_refused", "{out:?}");
    assert!(
        out.content.contains("\"pdf\"") && out.content.contains("mcp:shelf"),
        "{}",
        out.content
    );
    (error, out, shelf.reads())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tampered_skill_md_is_refused_naming_the_skill_and_the_digest() {
    let mut shelf = Shelf::honest();
    shelf.served_body = BODY.replace("Skill body.", "Evil body!!");
    let (error, out, reads) = refused_activation(shelf).await;
    let remote = error.remote().unwrap();
    assert_eq!(remote.kind, tool_skills::RemoteErrorKind::Digest, "{error}");
    assert_eq!(remote.file.as_deref(), Some(SKILL_MD));
    assert_eq!(out.state.as_ref().unwrap()["kind"], "digest");
    assert!(!out.content.contains("Evil"), "{}", out.content);
    assert_eq!(
        reads,
        [SKILL_MD, SKILL_MD],
        "two attempts, nothing else read"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tampered_supporting_file_is_refused_when_read_naming_it() {
    let mut shelf = Shelf::honest();
    shelf.served_forms = "Supporting c0ntent.\n".to_owned();
    let shelf = Arc::new(shelf);
    let (tool, manager, stop) = honest_tool(shelf.clone()).await;
    let out = skills_call(&tool, "activateSkill", serde_json::json!({"name": "pdf"})).await;
    assert!(out.success, "{out:?}");
    let out = skills_call(
        &tool,
        "readReference",
        serde_json::json!({"skill": "pdf", "path": "refs/FORMS.md"}),
    )
    .await;
    assert_eq!(out.error_code().unwrap(), "skill_refused", "{out:?}");
    let state = out.state.as_ref().unwrap();
    assert_eq!(
        (state["kind"].as_str(), state["file"].as_str()),
        (Some("digest"), Some(FORMS))
    );
    assert!(!out.content.contains("c0ntent"), "{}", out.content);
    manager.shutdown().await;
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversize_skill_files_are_refused_listed_or_served() {
    // Listed over the registry's SKILL.md cap: not loaded, nothing read.
    let shelf = Arc::new(Shelf::honest());
    let mut options = tool_skills::LoadOptions::default();
    options.limits.max_file_bytes = 32;
    let (tool, manager, stop) = skills_tool(
        shelf.clone(),
        Vec::new(),
        Vec::new(),
        options,
        tool_skills::SkillsToolConfig::default(),
    )
    .await;
    {
        let registry = tool.registry().read().unwrap();
        assert!(registry.get("pdf").is_none());
        let finding = registry
            .findings()
            .iter()
            .find(|f| f.code.as_str() == "file_too_large")
            .unwrap();
        assert_eq!(finding.file, SKILL_MD);
        assert!(
            finding.message.contains(&format!("{} bytes", BODY.len())),
            "{finding}"
        );
    }
    assert!(shelf.reads().is_empty());
    manager.shutdown().await;
    stop.cancel();

    // Served longer than listed: refused as a size mismatch.
    let mut shelf = Shelf::honest();
    shelf.served_body = format!("{BODY}and a tail\n");
    let (error, out, reads) = refused_activation(shelf).await;
    assert_eq!(
        error.remote().unwrap().kind,
        tool_skills::RemoteErrorKind::Size,
        "{error}"
    );
    assert_eq!(out.state.as_ref().unwrap()["kind"], "size");
    assert_eq!(reads, [SKILL_MD, SKILL_MD]);

    // A reference listed over the reference cap: refused before a read.
    let shelf = Arc::new(Shelf::honest());
    let mut config = tool_skills::SkillsToolConfig::default();
    config.references.max_bytes = 8;
    let (tool, manager, stop) = skills_tool(
        shelf.clone(),
        Vec::new(),
        Vec::new(),
        tool_skills::LoadOptions::default(),
        config,
    )
    .await;
    let out = skills_call(
        &tool,
        "readReference",
        serde_json::json!({"skill": "pdf", "path": "refs/FORMS.md"}),
    )
    .await;
    assert_eq!(out.error_code().unwrap(), "reference_too_large", "{out:?}");
    assert!(
        !shelf.reads().contains(&FORMS.to_owned()),
        "{:?}",
        shelf.reads()
    );
    manager.shutdown().await;
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_frontmatter_from_the_server_is_refused_naming_the_field() {
    // SKILL.md's frontmatter differs from the entry (size and digest
    // describe the served file): refused, naming the field.
    let mut shelf = Shelf::honest();
    let served = BODY.replace("license: MIT\n", "license: MIT\nallowed-tools: Bash\n");
    shelf.served_body = served.clone();
    shelf.entry_body = served;
    let (error, out, reads) = refused_activation(shelf).await;
    assert_eq!(
        error.remote().unwrap().kind,
        tool_skills::RemoteErrorKind::Frontmatter,
        "{error}"
    );
    assert!(error.to_string().contains("`allowed-tools`"), "{error}");
    assert_eq!(out.state.as_ref().unwrap()["kind"], "frontmatter");
    assert_eq!(reads, [SKILL_MD, SKILL_MD]);

    // No frontmatter at all.
    let mut shelf = Shelf::honest();
    let served = "no frontmatter here\n".to_owned();
    shelf.served_body = served.clone();
    shelf.entry_body = served;
    let (error, _, _) = refused_activation(shelf).await;
    assert_eq!(
        error.remote().unwrap().kind,
        tool_skills::RemoteErrorKind::Frontmatter
    );
    assert!(error.to_string().contains("does not start"), "{error}");

    // A listed frontmatter that breaks the Agent Skills format (strict:
    // a description over 1 024 characters): not loaded, nothing read.
    let mut shelf = Shelf::honest();
    shelf.entry_description = Some("d".repeat(1100));
    let shelf = Arc::new(shelf);
    let (tool, manager, stop) = skills_tool(
        shelf.clone(),
        Vec::new(),
        Vec::new(),
        tool_skills::LoadOptions::new(tool_skills::ValidationMode::Strict),
        tool_skills::SkillsToolConfig::default(),
    )
    .await;
    {
        let registry = tool.registry().read().unwrap();
        assert!(registry.get("pdf").is_none());
        let finding = registry
            .findings()
            .iter()
            .find(|f| f.code.as_str() == "description_too_long")
            .unwrap();
        assert_eq!(finding.file, SKILL_MD);
    }
    assert!(shelf.reads().is_empty());
    manager.shutdown().await;
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_without_the_extension_is_a_failed_source_beside_loaded_folders() {
    let shelf = Arc::new(Shelf::honest());
    let (manager, stop) = connect(shelf.clone(), false).await;
    let manager = Arc::new(manager);
    let (_dir, project) = project_pdf();
    let registry = tool_skills::SkillRegistry::load_listed(
        [
            McpSkillSource::new(manager.clone(), "shelf").into_source("mcp:shelf"),
            project,
        ],
        tool_skills::LoadOptions::default(),
    )
    .await;
    assert_eq!(registry.get("pdf").unwrap().source, "project");
    let finding = &registry.findings()[0];
    assert_eq!(finding.code.as_str(), "remote_source_failed");
    assert_eq!(finding.file, "MCP server `shelf`");
    assert!(finding.message.contains("mcp_not_offered"), "{finding}");
    assert!(shelf.reads().is_empty());
    manager.shutdown().await;
    stop.cancel();
}
