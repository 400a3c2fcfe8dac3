//! The skills extension (SEP-2640) for `mcp serve --skills DIR`: each
//! enabled skill an entry of `skills/list` / `skills/get` — its
//! `skill://NAME/SKILL.md`, its frontmatter as the file has it, and every
//! file of its folder (hidden entries and links left out) with its
//! `sha256:` digest and size — and every such file readable by
//! `resources/read` under the URI the entry lists. A URI is looked up in
//! the table made at load time; it never becomes a path. A skill over
//! [`MAX_FILES`] files or [`MAX_TOTAL_BYTES`], or whose frontmatter does
//! not read as an object with its name and description, is left out of the
//! extension (its `SKILL.md` is still a resource) and reported.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use tool_mcp::rmcp::model::{Skill as Entry, SkillFrontmatter, SkillResource, SkillResources};
use tool_skills::{Origin, Skill};

/// The most files one skill serves through the extension (the spec's limit).
pub const MAX_FILES: usize = 512;
/// The most bytes one skill serves through the extension: 16 MiB.
pub const MAX_TOTAL_BYTES: u64 = 16 * 1024 * 1024;

/// Where a served file's bytes are.
#[derive(Debug, Clone)]
pub enum Bytes {
    /// A file on disk (read again when asked for).
    Disk(PathBuf),
    /// Held in memory (a built-in skill's files).
    Held(Vec<u8>),
}

/// The extension's view of the loaded skills.
#[derive(Debug, Default)]
pub struct Extension {
    /// The `skills/list` entries, by name.
    pub entries: Vec<Entry>,
    /// Every listed file: URI → bytes.
    pub files: BTreeMap<String, Bytes>,
    /// Why skills were left out.
    pub left_out: Vec<String>,
}

fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// Percent-encodes a path segment (RFC 3986 unreserved characters kept).
fn encode_segment(segment: &str) -> String {
    segment
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// The frontmatter block of a `SKILL.md`, as JSON.
fn frontmatter(text: &str) -> Result<Map<String, Value>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    if lines.next().map(str::trim_end) != Some("---") {
        return Err("SKILL.md does not begin with a `---` frontmatter block".into());
    }
    let mut block = String::new();
    let mut closed = false;
    for line in lines {
        if line.trim_end() == "---" {
            closed = true;
            break;
        }
        block.push_str(line);
    }
    if !closed {
        return Err("the frontmatter block is not closed by `---`".into());
    }
    match yaml_serde::from_str::<Value>(&block) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err("the frontmatter is not a mapping".into()),
        Err(e) => Err(format!("the frontmatter does not parse: {e}")),
    }
}

/// A skill folder's files: relative path (with `/`) → path; hidden
/// entries and links left out; at most `MAX_FILES + 1` gathered.
fn walk(dir: &Path) -> Result<BTreeMap<String, PathBuf>, String> {
    let mut files = BTreeMap::new();
    let mut pending = vec![(dir.to_path_buf(), String::new())];
    while let Some((folder, prefix)) = pending.pop() {
        let entries =
            std::fs::read_dir(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
        for entry in entries {
            let entry = entry.map_err(|e| format!("{}: {e}", folder.display()))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let kind = entry
                .file_type()
                .map_err(|e| format!("{}: {e}", entry.path().display()))?;
            let relative = format!("{prefix}{name}");
            if kind.is_dir() {
                pending.push((entry.path(), format!("{relative}/")));
            } else if kind.is_file() {
                files.insert(relative, entry.path());
                if files.len() > MAX_FILES {
                    return Err(format!("more than {MAX_FILES} files"));
                }
            }
        }
    }
    Ok(files)
}

/// One skill's entry and files, or why it is left out.
fn entry_of(skill: &Skill) -> Result<(Entry, Vec<(String, Bytes)>), String> {
    let base = format!("skill://{}", encode_segment(skill.name()));
    let skill_md = format!("{base}/SKILL.md");
    let mut served: Vec<(String, Bytes, Vec<u8>)> = Vec::new();
    let text = match &skill.origin {
        Origin::Disk { dir, file } => {
            let files = walk(dir)?;
            let mut total = 0u64;
            for (relative, path) in files {
                let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                total += bytes.len() as u64;
                if total > MAX_TOTAL_BYTES {
                    return Err(format!("more than {MAX_TOTAL_BYTES} bytes"));
                }
                let uri = relative
                    .split('/')
                    .map(encode_segment)
                    .fold(base.clone(), |uri, s| format!("{uri}/{s}"));
                served.push((uri, Bytes::Disk(path), bytes));
            }
            std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?
        }
        Origin::Builtin { resources, .. } => {
            let text = format!(
                "---\nname: {}\ndescription: {}\n---\n{}\n",
                skill.name(),
                skill.description(),
                skill.body()
            );
            served.push((
                skill_md.clone(),
                Bytes::Held(text.clone().into_bytes()),
                text.clone().into_bytes(),
            ));
            for (relative, bytes) in resources.iter() {
                let uri = relative
                    .split('/')
                    .map(encode_segment)
                    .fold(base.clone(), |uri, s| format!("{uri}/{s}"));
                served.push((uri, Bytes::Held(bytes.clone()), bytes.clone()));
            }
            text
        }
        _ => return Err("a skill of an origin this host does not serve".into()),
    };
    let mut fields = frontmatter(&text)?;
    let name = match fields.remove("name") {
        Some(Value::String(name)) => name,
        _ => return Err("the frontmatter has no string `name`".into()),
    };
    let description = match fields.remove("description") {
        Some(Value::String(text)) => text,
        _ => return Err("the frontmatter has no string `description`".into()),
    };
    if name != skill.name() {
        return Err(format!(
            "the frontmatter name `{name}` is not the skill's name `{}`",
            skill.name()
        ));
    }
    let mut front = SkillFrontmatter::new(name, description);
    front.extra = fields;
    let resources = served
        .iter()
        .map(|(uri, _, bytes)| SkillResource::new(uri.clone(), digest(bytes), bytes.len() as u64))
        .collect();
    let entry = Entry::new(skill_md, front, SkillResources::Files(resources));
    entry.validate().map_err(|e| e.to_string())?;
    Ok((
        entry,
        served
            .into_iter()
            .map(|(uri, bytes, _)| (uri, bytes))
            .collect(),
    ))
}

impl Extension {
    /// The extension's view of `skills` (sorted by name).
    pub fn of(skills: &[std::sync::Arc<Skill>]) -> Self {
        let mut extension = Self::default();
        for skill in skills {
            match entry_of(skill) {
                Ok((entry, files)) => {
                    extension.entries.push(entry);
                    extension.files.extend(files);
                }
                Err(why) => extension
                    .left_out
                    .push(format!("skill `{}`: {why}", skill.name())),
            }
        }
        extension
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frontmatter_is_read_as_the_file_has_it() {
        let map =
            frontmatter("---\nname: a\ndescription: b\nallowed-tools: Bash Read\n---\nbody\n")
                .unwrap();
        assert_eq!(map["allowed-tools"], "Bash Read");
        assert!(frontmatter("no block").is_err());
        assert!(frontmatter("---\nname: a\n").is_err());
        assert!(frontmatter("---\n- a\n---\n").is_err());
    }

    #[test]
    fn segments_are_percent_encoded() {
        assert_eq!(encode_segment("a b/../c"), "a%20b%2F..%2Fc");
        assert_eq!(encode_segment("FORMS.md"), "FORMS.md");
    }
}
