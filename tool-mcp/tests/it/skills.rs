//! Skills of a connected server (SEP-2640), client side: `McpManager`
//! against an in-process `RegistryServer` on 127.0.0.1 serving one skill
//! (`skill://pdf/SKILL.md` and `skill://pdf/refs/FORMS.md`) whose served
//! bytes or entry each test can spoil. Listing reads no file; loading
//! reads `SKILL.md` first and checks every file against the entry (size,
//! digest, frontmatter); the first failure is `mcp_skill_integrity`
//! naming the file, and no later file is read.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use rmcp::model::{
    Resource, ResourceContents, Skill, SkillFrontmatter, SkillResource, SkillResources,
};
use tokio_util::sync::CancellationToken;
use tool_core::{ToolContext, ToolRegistry};
use tool_mcp::{
    Error, McpManager, McpServerConfig, McpTransport, RegistryServer, ResourceSource,
    RunEverything, SkillSource, SourceError,
};

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
            SkillFrontmatter::new("pdf", "Fill PDF forms").with_field("license", "MIT"),
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
    let mut server = RegistryServer::new(
        Arc::new(ToolRegistry::new()),
        Arc::new(RunEverything),
        ToolContext::new(),
    )
    .with_resources(shelf.clone());
    if skills {
        server = server.with_skills(shelf);
    }
    let stop = CancellationToken::new();
    let (addr, _task) = server
        .serve_http("127.0.0.1:0".parse().unwrap(), stop.clone())
        .await
        .unwrap();
    let manager = McpManager::default();
    manager
        .upsert(McpServerConfig::new(
            "shelf",
            McpTransport::http(format!("http://{addr}/mcp")),
        ))
        .unwrap();
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
