//! Skills of connected servers (SEP-2640, `io.modelcontextprotocol/skills`),
//! client side.
//!
//! [`McpManager::list_skills`] pages `skills/list` of a server that
//! declared the extension and hands back each skill's entry (its
//! `SKILL.md` URI, frontmatter, and files with `sha256:` digest and size)
//! without reading any file: the files of a skill are read only when it is
//! loaded ([`McpManager::load_skill`]), `SKILL.md` first. Each file read is
//! checked against its entry, size first, then digest; `SKILL.md`'s YAML
//! frontmatter is parsed and compared field by field with the entry's. The
//! first file that fails stops the load: nothing after it is read and
//! nothing of the skill is handed back ([`Error::SkillIntegrity`], naming
//! the server, the file and what differed).

use rmcp::model::{ResourceContents, Skill, SkillIntegrityError, SkillResource, SkillResources};
use serde_json::Value;

use crate::client::manager::McpManager;
use crate::client::remote_library::every_page;
use crate::error::Error;

/// The feature name in [`Error::NotOffered`].
const FEATURE: &str = "skills (io.modelcontextprotocol/skills)";

/// The largest `SKILL.md` whose frontmatter is parsed (1 MiB).
const MAX_SKILL_MD: usize = 1 << 20;

/// A skill loaded from a server: its entry and every file it lists, each
/// checked against the entry.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct McpLoadedSkill {
    /// The server's entry for the skill, as listed.
    pub entry: Skill,
    /// The skill's files, `SKILL.md` first, then in the entry's order.
    pub files: Vec<McpSkillFile>,
}

/// One file of a loaded skill.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct McpSkillFile {
    /// The file's resource URI.
    pub uri: String,
    /// Its bytes (verified against the entry's size and digest when the
    /// entry lists files; a `"dynamic"` skill has only its `SKILL.md`).
    pub bytes: Vec<u8>,
}

impl McpLoadedSkill {
    /// The text of `SKILL.md` (it is UTF-8: its frontmatter was checked).
    pub fn skill_md(&self) -> &str {
        self.files
            .first()
            .and_then(|f| std::str::from_utf8(&f.bytes).ok())
            .unwrap_or_default()
    }
}

fn integrity(server: &str, uri: &str, message: impl Into<String>) -> Error {
    Error::SkillIntegrity {
        server: server.to_owned(),
        uri: uri.to_owned(),
        message: message.into(),
    }
}

/// What was wrong with a skill's entry or with one of its files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Spoilt {
    /// The entry breaks the extension's rules, or does not list the file.
    Entry,
    /// The bytes are not the entry's size.
    Size,
    /// The bytes do not have the entry's digest.
    Digest,
    /// `SKILL.md`'s frontmatter is unreadable or differs from the entry's.
    Frontmatter,
    /// `SKILL.md` is over the size this client parses.
    TooLarge,
    /// The answer is not the file (missing, not base64, unknown kind).
    Content,
}

/// A skill file that could not be had: the request failed, or what came
/// back failed a check. [`Error::SkillIntegrity`] (or the request's own
/// error) once the server is known.
#[derive(Debug)]
pub(crate) enum SkillFault {
    /// The request itself failed.
    Request(Error),
    /// What came back (or the entry) failed a check.
    Spoilt {
        /// Which check (read by the tool-skills source, feature `skills`).
        #[cfg_attr(not(feature = "skills"), allow(dead_code))]
        kind: Spoilt,
        /// The skill or file URI.
        uri: String,
        /// What differed.
        message: String,
    },
}

impl SkillFault {
    fn spoilt(kind: Spoilt, uri: &str, message: impl Into<String>) -> Self {
        Self::Spoilt {
            kind,
            uri: uri.to_owned(),
            message: message.into(),
        }
    }

    /// As the crate's error, for server `id`.
    pub(crate) fn into_error(self, id: &str) -> Error {
        match self {
            Self::Request(error) => error,
            Self::Spoilt { uri, message, .. } => integrity(id, &uri, message),
        }
    }
}

impl McpManager {
    /// Whether server `id` declared the skills extension (connects if needed).
    pub async fn offers_skills(&self, id: &str) -> Result<bool, Error> {
        self.idempotent(id, "skills capability", |session| async move {
            Ok(session
                .peer()
                .peer_info()
                .is_some_and(|info| info.capabilities.supports_skills()))
        })
        .await
    }

    /// Every skill entry of server `id` (`skills/list`, all pages), with no
    /// file read. A server that did not declare the extension gets
    /// [`Error::NotOffered`] without a request; an entry that breaks the
    /// extension's rules (URI not ending in `/SKILL.md`, a name that is
    /// not the URI's, a file outside the skill, a malformed digest, a
    /// skill listed twice) is [`Error::SkillIntegrity`] naming it.
    pub async fn list_skills(&self, id: &str) -> Result<Vec<Skill>, Error> {
        let listed = self
            .idempotent(id, "skills/list", |session| async move {
                let offered = session
                    .peer()
                    .peer_info()
                    .is_some_and(|info| info.capabilities.supports_skills());
                if !offered {
                    return Ok(None);
                }
                every_page("skills/list", |params| {
                    let session = &session;
                    async move {
                        let page = session.peer().list_skills(params).await?;
                        Ok((page.skills, page.next_cursor))
                    }
                })
                .await
                .map(Some)
            })
            .await?;
        let skills = listed.ok_or_else(|| Error::NotOffered {
            server: id.to_owned(),
            feature: FEATURE.to_owned(),
        })?;
        let mut seen = std::collections::HashSet::new();
        for skill in &skills {
            skill
                .validate()
                .map_err(|e| integrity(id, &skill.uri, format!("skills/list entry: {e}")))?;
            if !seen.insert(skill.uri.as_str()) {
                return Err(integrity(id, &skill.uri, "skills/list lists it twice"));
            }
        }
        Ok(skills)
    }

    /// Loads skill `name` of server `id`: its entry from
    /// [`list_skills`](Self::list_skills), then its files (see
    /// [`load_skill_entry`](Self::load_skill_entry)). An unknown name is
    /// [`Error::Request`].
    pub async fn load_skill(&self, id: &str, name: &str) -> Result<McpLoadedSkill, Error> {
        let entry = self
            .list_skills(id)
            .await?
            .into_iter()
            .find(|s| s.name() == name)
            .ok_or_else(|| Error::Request {
                server: id.to_owned(),
                operation: format!("loading skill `{name}`"),
                message: "the server lists no skill of that name".to_owned(),
            })?;
        self.load_skill_entry(id, entry).await
    }

    /// Reads the files of `entry` (a skill server `id` listed): `SKILL.md`
    /// first, checked against its size and digest and its frontmatter
    /// against the entry's, then every other listed file, each checked.
    /// The first failure stops: no later file is read.
    pub async fn load_skill_entry(&self, id: &str, entry: Skill) -> Result<McpLoadedSkill, Error> {
        let skill_md = self
            .read_skill_file(id, &entry, &entry.uri)
            .await
            .map_err(|f| f.into_error(id))?;
        let mut files = vec![McpSkillFile {
            uri: entry.uri.clone(),
            bytes: skill_md,
        }];
        let others: Vec<String> = match &entry.resources {
            SkillResources::Files(listed) => listed
                .iter()
                .filter(|f| f.uri != entry.uri)
                .map(|f| f.uri.clone())
                .collect(),
            _ => Vec::new(),
        };
        for uri in others {
            let bytes = self
                .read_skill_file(id, &entry, &uri)
                .await
                .map_err(|f| f.into_error(id))?;
            files.push(McpSkillFile { uri, bytes });
        }
        Ok(McpLoadedSkill { entry, files })
    }

    /// Reads one file of `entry` (its `SKILL.md`, or a file it lists),
    /// after checking the entry: the bytes against the entry's size and
    /// digest and, for `SKILL.md`, its frontmatter against the entry's.
    pub(crate) async fn read_skill_file(
        &self,
        id: &str,
        entry: &Skill,
        uri: &str,
    ) -> Result<Vec<u8>, SkillFault> {
        entry.validate().map_err(|e| {
            SkillFault::spoilt(Spoilt::Entry, &entry.uri, format!("skill entry: {e}"))
        })?;
        let listed: &[SkillResource] = match &entry.resources {
            SkillResources::Files(files) => files,
            _ => &[],
        };
        let file = listed.iter().find(|f| f.uri == uri);
        if uri != entry.uri && file.is_none() {
            return Err(SkillFault::spoilt(
                Spoilt::Entry,
                uri,
                format!("the entry of {} does not list this file", entry.uri),
            ));
        }
        let bytes = self.read_verified(uri, file, id).await?;
        if uri == entry.uri {
            check_frontmatter(entry, &bytes)?;
        }
        Ok(bytes)
    }

    /// `resources/read` of `uri`, its bytes checked against `listed`.
    async fn read_verified(
        &self,
        uri: &str,
        listed: Option<&SkillResource>,
        id: &str,
    ) -> Result<Vec<u8>, SkillFault> {
        let read = self
            .read_resource(id, uri)
            .await
            .map_err(SkillFault::Request)?;
        let content = read
            .contents
            .iter()
            .find(|c| content_uri(c) == uri)
            .or_else(|| read.contents.first().filter(|_| read.contents.len() == 1))
            .ok_or_else(|| {
                SkillFault::spoilt(
                    Spoilt::Content,
                    uri,
                    "resources/read answered without this file",
                )
            })?;
        let bytes = match content {
            ResourceContents::TextResourceContents { text, .. } => text.clone().into_bytes(),
            ResourceContents::BlobResourceContents { blob, .. } => {
                decode_base64(blob).ok_or_else(|| {
                    SkillFault::spoilt(
                        Spoilt::Content,
                        uri,
                        "resources/read: the blob is not base64",
                    )
                })?
            }
            _ => {
                return Err(SkillFault::spoilt(
                    Spoilt::Content,
                    uri,
                    "resources/read: unknown content kind",
                ));
            }
        };
        if let Some(file) = listed {
            file.verify(&bytes).map_err(|e| {
                let kind = match e {
                    SkillIntegrityError::Size { .. } => Spoilt::Size,
                    _ => Spoilt::Digest,
                };
                SkillFault::spoilt(kind, uri, mismatch(&e))
            })?;
        }
        Ok(bytes)
    }
}

/// What differed, without the URI the error names already.
fn mismatch(error: &SkillIntegrityError) -> String {
    match error {
        SkillIntegrityError::Size {
            expected, actual, ..
        } => format!("it is {actual} bytes, the entry says {expected}"),
        SkillIntegrityError::Digest {
            expected, actual, ..
        } => format!("its digest is {actual}, the entry says {expected}"),
        other => other.to_string(),
    }
}

fn content_uri(content: &ResourceContents) -> &str {
    match content {
        ResourceContents::TextResourceContents { uri, .. }
        | ResourceContents::BlobResourceContents { uri, .. } => uri,
        _ => "",
    }
}

/// Parses `SKILL.md`'s frontmatter and compares it, field by field, with
/// the entry's.
fn check_frontmatter(entry: &Skill, bytes: &[u8]) -> Result<(), SkillFault> {
    let uri = entry.uri.as_str();
    let refuse = |message: String| SkillFault::spoilt(Spoilt::Frontmatter, uri, message);
    if bytes.len() > MAX_SKILL_MD {
        return Err(SkillFault::spoilt(
            Spoilt::TooLarge,
            uri,
            format!("SKILL.md is longer than {MAX_SKILL_MD} bytes"),
        ));
    }
    let text = std::str::from_utf8(bytes)
        .map_err(|_| SkillFault::spoilt(Spoilt::Content, uri, "SKILL.md is not UTF-8"))?;
    let yaml = frontmatter_block(text).map_err(refuse)?;
    let parsed: Value = yaml_serde::from_str(yaml)
        .map_err(|e| refuse(format!("SKILL.md frontmatter is not YAML: {e}")))?;
    let Value::Object(fields) = parsed else {
        return Err(refuse("SKILL.md frontmatter is not a mapping".into()));
    };
    let expected = serde_json::to_value(&entry.frontmatter)
        .map_err(|e| refuse(format!("entry frontmatter: {e}")))?;
    let Value::Object(expected) = expected else {
        return Err(refuse("entry frontmatter is not an object".into()));
    };
    let keys: std::collections::BTreeSet<&String> = fields.keys().chain(expected.keys()).collect();
    for key in keys {
        let (got, want) = (fields.get(key), expected.get(key));
        if got != want {
            let show = |v: Option<&Value>| v.map_or_else(|| "absent".to_owned(), Value::to_string);
            return Err(refuse(format!(
                "SKILL.md frontmatter field `{key}` is {} but the entry says {}",
                show(got),
                show(want)
            )));
        }
    }
    Ok(())
}

/// The YAML between `SKILL.md`'s leading `---` line and the next one.
fn frontmatter_block(text: &str) -> Result<&str, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    if lines.next().map(str::trim_end) != Some("---") {
        return Err("SKILL.md does not start with a `---` frontmatter block".to_owned());
    }
    let start = text.find('\n').map_or(text.len(), |i| i + 1);
    let mut end = start;
    for line in lines {
        if line.trim_end() == "---" {
            return Ok(&text[start..end]);
        }
        end += line.len();
    }
    Err("SKILL.md frontmatter has no closing `---`".to_owned())
}

/// Standard base64 (padding optional); `None` for anything else.
fn decode_base64(text: &str) -> Option<Vec<u8>> {
    use base64::Engine as _;
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    LENIENT.decode(text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_decodes_padded_and_unpadded_and_refuses_other_text() {
        assert_eq!(decode_base64("aGk=").as_deref(), Some(&b"hi"[..]));
        assert_eq!(decode_base64("aGk").as_deref(), Some(&b"hi"[..]));
        assert_eq!(decode_base64("aGVsbG8h").as_deref(), Some(&b"hello!"[..]));
        assert_eq!(decode_base64("").as_deref(), Some(&b""[..]));
        assert_eq!(decode_base64("a"), None);
        assert_eq!(decode_base64("a*b="), None);
    }

    #[test]
    fn the_frontmatter_block_needs_both_fences() {
        assert_eq!(
            frontmatter_block("---\nname: a\n---\nbody"),
            Ok("name: a\n")
        );
        assert!(frontmatter_block("name: a\n").is_err());
        assert!(frontmatter_block("---\nname: a\n").is_err());
    }
}
