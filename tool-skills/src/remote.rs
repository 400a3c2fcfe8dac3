//! Skills another system serves (an MCP server's skills extension, a
//! skills service): the [`RemoteSkills`] trait a registry reads them
//! through, and what such a source lists and reports.
//!
//! A remote source is read in two steps, so nothing is fetched before it
//! is needed:
//!
//! 1. **Listing** ([`RemoteSkills::list`]): each skill's catalogue entry
//!    ([`ListedSkill`]: its `SKILL.md` address, frontmatter, and the size
//!    and digest of each file), no file read. The registry validates the
//!    listed frontmatter exactly as it validates a folder skill's (same
//!    [`ValidationMode`](crate::ValidationMode), same caps, same shadowing
//!    and catalog budget); a listed `SKILL.md` over the registry's file cap
//!    is refused there, unread.
//! 2. **Fetching** ([`RemoteSkills::read`]): a skill's `SKILL.md` when it
//!    is activated, one of its other files when the model reads it. The
//!    source checks what it hands over against its own listing (the MCP
//!    skills extension: size, digest, and `SKILL.md`'s frontmatter against
//!    the entry's); the registry checks again what does not depend on the
//!    source's honesty (sizes against the listing and the caps, UTF-8, the
//!    Agent Skills format, name and description against the listing).
//!
//! The trait has no transport in it: tool-mcp implements it over a
//! connected server (`tool_mcp::McpSkillSource`).

use async_trait::async_trait;
use serde::Serialize;
use serde_json::{Map, Value};

/// A source of skills outside this process, read through
/// [`SkillSource::remote`](crate::SkillSource::remote).
///
/// # The wrong way and the right way
///
/// A source that reads every file while listing makes a catalog of fifty
/// skills cost fifty downloads before the model has chosen one:
///
/// ```text
/// async fn list(&self) -> … { for entry in entries { self.read_all(entry).await?; } … }
/// ```
///
/// List from the catalogue only, and read in [`read`](Self::read), which
/// the registry calls for `SKILL.md` on activation and for another file
/// when it is asked for:
///
/// ```
/// use async_trait::async_trait;
/// use tool_skills::{ListedSkill, RemoteError, RemoteSkills};
///
/// struct Shelf;
///
/// #[async_trait]
/// impl RemoteSkills for Shelf {
///     fn describe(&self) -> String {
///         "the shelf".into()
///     }
///     async fn list(&self) -> Result<Vec<ListedSkill>, RemoteError> {
///         Ok(vec![ListedSkill::new("shelf://greeting/SKILL.md", "greeting", "Greets.")])
///     }
///     async fn read(&self, _skill: &ListedSkill, uri: &str) -> Result<Vec<u8>, RemoteError> {
///         match uri {
///             "shelf://greeting/SKILL.md" => {
///                 Ok(b"---\nname: greeting\ndescription: Greets.\n---\nSay hello.\n".to_vec())
///             }
///             other => Err(RemoteError::unavailable(Some(other), "no such file")),
///         }
///     }
/// }
/// ```
#[async_trait]
pub trait RemoteSkills: Send + Sync {
    /// How findings and errors name the source (`MCP server "docs"`).
    fn describe(&self) -> String;

    /// Every skill the source offers, from its catalogue: no file is read.
    async fn list(&self) -> Result<Vec<ListedSkill>, RemoteError>;

    /// The bytes of one file of `skill`: its `SKILL.md` (`skill.uri`) or one
    /// of `skill.files` (by `uri`), checked by the source against its
    /// listing before they are handed over.
    async fn read(&self, skill: &ListedSkill, uri: &str) -> Result<Vec<u8>, RemoteError>;
}

/// One skill as a remote source lists it: nothing of it read yet.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListedSkill {
    /// The address of its `SKILL.md` (`skill://pdf/SKILL.md`); the skill's
    /// folder is this address without `/SKILL.md`.
    pub uri: String,
    /// The frontmatter as listed (`name`, `description` and every other
    /// field), YAML values as JSON.
    pub frontmatter: Map<String, Value>,
    /// `SKILL.md`'s size in bytes, when listed (`None`: the source gives no
    /// size, e.g. an MCP skill whose files are `"dynamic"`).
    pub size: Option<u64>,
    /// `SKILL.md`'s digest as the source writes it (`sha256:…`), when listed.
    pub digest: Option<String>,
    /// The skill's other files.
    pub files: Vec<ListedFile>,
}

impl ListedSkill {
    /// A skill at `uri` with a name and a description, no size, no files.
    pub fn new(uri: impl Into<String>, name: &str, description: &str) -> Self {
        let mut frontmatter = Map::new();
        frontmatter.insert("name".into(), Value::from(name));
        frontmatter.insert("description".into(), Value::from(description));
        Self {
            uri: uri.into(),
            frontmatter,
            size: None,
            digest: None,
            files: Vec::new(),
        }
    }

    /// Adds a frontmatter field.
    pub fn field(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.frontmatter.insert(key.into(), value.into());
        self
    }

    /// Sets `SKILL.md`'s listed size and digest.
    pub fn sized(mut self, size: u64, digest: Option<String>) -> Self {
        self.size = Some(size);
        self.digest = digest;
        self
    }

    /// Adds a file.
    pub fn file(mut self, file: ListedFile) -> Self {
        self.files.push(file);
        self
    }

    /// The listed `name`, when it is text.
    pub fn name(&self) -> Option<&str> {
        self.frontmatter.get("name").and_then(Value::as_str)
    }

    /// The skill's folder: [`uri`](Self::uri) without its last segment.
    pub fn folder(&self) -> &str {
        self.uri.rsplit_once('/').map_or("", |(folder, _)| folder)
    }
}

/// One file of a listed skill besides `SKILL.md`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListedFile {
    /// Its path relative to the skill's folder, `/`-separated
    /// (`references/forms.md`), as a model asks for it.
    pub path: String,
    /// Its address at the source.
    pub uri: String,
    /// Its size in bytes.
    pub size: u64,
    /// Its digest as the source writes it, when listed.
    pub digest: Option<String>,
}

impl ListedFile {
    /// A file at `path` (relative to the skill) and `uri`, of `size` bytes.
    pub fn new(path: impl Into<String>, uri: impl Into<String>, size: u64) -> Self {
        Self {
            path: path.into(),
            uri: uri.into(),
            size,
            digest: None,
        }
    }

    /// Sets the digest.
    pub fn digest(mut self, digest: impl Into<String>) -> Self {
        self.digest = Some(digest.into());
        self
    }
}

/// What went wrong with a remote source or what it handed over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{}{message} ({})", file.as_ref().map(|f| format!("{f}: ")).unwrap_or_default(), kind.as_str())]
#[non_exhaustive]
pub struct RemoteError {
    /// What kind of problem.
    pub kind: RemoteErrorKind,
    /// The file (address) involved, when one is.
    pub file: Option<String>,
    /// What was wrong, for a person.
    pub message: String,
}

impl RemoteError {
    /// An error of `kind` about `file`.
    pub fn new(kind: RemoteErrorKind, file: Option<&str>, message: impl Into<String>) -> Self {
        Self {
            kind,
            file: file.map(str::to_owned),
            message: message.into(),
        }
    }

    /// The source could not be reached or refused the request.
    pub fn unavailable(file: Option<&str>, message: impl Into<String>) -> Self {
        Self::new(RemoteErrorKind::Unavailable, file, message)
    }

    /// Whether trying again later may help (the source was unavailable);
    /// every other kind is about what the source handed over.
    pub fn is_unavailable(&self) -> bool {
        self.kind == RemoteErrorKind::Unavailable
    }
}

/// The kinds of [`RemoteError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RemoteErrorKind {
    /// The source could not be reached, or answered the request with an error.
    Unavailable,
    /// A file's bytes are not the size its listing says.
    Size,
    /// A file's bytes do not have the digest its listing says.
    Digest,
    /// `SKILL.md` has no readable frontmatter, or it differs from the listing.
    Frontmatter,
    /// A file is over this host's cap (as listed, or as fetched).
    TooLarge,
    /// The listing or a file breaks the source's rules or the Agent Skills
    /// format (a malformed entry, text that is not UTF-8, a `SKILL.md` that
    /// does not validate).
    Invalid,
}

impl RemoteErrorKind {
    /// The kind as text (`snake_case`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Unavailable => "unavailable",
            Self::Size => "size",
            Self::Digest => "digest",
            Self::Frontmatter => "frontmatter",
            Self::TooLarge => "too_large",
            Self::Invalid => "invalid",
        }
    }
}
