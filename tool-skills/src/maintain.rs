//! Changing skills on disk, for hosts (never offered to a model by
//! default): create, rename, replace the body of and delete a skill.
//!
//! Every change is validated before anything is written, `SKILL.md` is
//! written atomically (a temporary file in the same folder, then a rename),
//! a new skill appears in one rename of a complete folder, and symbolic
//! links are never changed or followed. `root` is the folder that holds the
//! skill folders; a skill's folder name is its name. Call
//! [`SkillRegistry::reload`](crate::SkillRegistry::reload) afterwards to
//! see the change.
//!
//! ```
//! use tool_skills::maintain;
//! let root = tempfile::tempdir().unwrap();
//! maintain::create(root.path(), "release-notes", "Writes release notes from merged changes.", "# Release notes\n").unwrap();
//! maintain::replace_body(root.path(), "release-notes", "# Release notes\n\nGroup by area.").unwrap();
//! maintain::rename(root.path(), "release-notes", "changelog").unwrap();
//! let text = std::fs::read_to_string(root.path().join("changelog/SKILL.md")).unwrap();
//! assert!(text.contains("name: changelog") && text.contains("Group by area."));
//! maintain::delete(root.path(), "changelog").unwrap();
//! assert!(!root.path().join("changelog").exists());
//! ```

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::discovery::SKILL_FILE;
use crate::error::{Error, Result};
use crate::finding::{Finding, FindingCode, Severity};
use crate::name::{is_valid_skill_name, normalize_name};
use crate::validate::{ParseOptions, ValidationMode, parse_skill_md};

/// A name maintenance may use as a folder name: valid, and already in its
/// normalised form ([`normalize_name`]: no surrounding spaces, NFKC), so
/// the folder is spelled exactly as the skill is named.
fn check_name(name: &str, file: &str) -> Result<()> {
    if is_valid_skill_name(name) && normalize_name(name) == name {
        return Ok(());
    }
    Err(Error::Invalid {
        file: file.to_owned(),
        findings: vec![Finding::new(
            FindingCode::InvalidName,
            Severity::Error,
            file,
            None,
            format!(
                "{name:?} is not a valid skill name in NFKC form (1-64 lowercase letters, digits and single hyphens)"
            ),
        )],
    })
}

/// Validates `text` as the `SKILL.md` of folder `name`.
fn validate(text: &str, name: &str, file: &str, mode: ValidationMode) -> Result<()> {
    let parsed = parse_skill_md(text, &ParseOptions::new(file, mode).folder(name));
    let errors: Vec<Finding> = parsed
        .findings
        .into_iter()
        .filter(Finding::is_error)
        .collect();
    if parsed.document.is_none() || !errors.is_empty() {
        return Err(Error::Invalid {
            file: file.to_owned(),
            findings: errors,
        });
    }
    Ok(())
}

/// The folder of an existing skill: a real folder (not a link) with a
/// regular `SKILL.md`.
fn existing(root: &Path, name: &str) -> Result<PathBuf> {
    let dir = root.join(name);
    check_name(name, &dir.display().to_string())?;
    let meta = fs::symlink_metadata(&dir).map_err(|e| Error::io(&dir, e))?;
    if !meta.is_dir() {
        return Err(Error::NotASkill {
            path: dir,
            reason: "not a folder (symbolic links are not changed)".into(),
        });
    }
    let file = dir.join(SKILL_FILE);
    match fs::symlink_metadata(&file) {
        Ok(meta) if meta.is_file() => Ok(dir),
        _ => Err(Error::NotASkill {
            path: dir,
            reason: format!("has no regular {SKILL_FILE}"),
        }),
    }
}

/// Writes `text` to `path` through a temporary file in the same folder.
fn write_atomic(path: &Path, text: &str) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut temp = tempfile::Builder::new()
        .prefix(".skill-write-")
        .tempfile_in(dir)
        .map_err(|e| Error::io(dir, e))?;
    temp.write_all(text.as_bytes())
        .map_err(|e| Error::io(temp.path(), e))?;
    temp.as_file()
        .sync_all()
        .map_err(|e| Error::io(temp.path(), e))?;
    temp.persist(path).map_err(|e| Error::io(path, e.error))?;
    Ok(())
}

/// Creates `root/name/SKILL.md` from a name, a description and a body
/// (validated strictly). The folder must not exist.
pub fn create(root: &Path, name: &str, description: &str, body: &str) -> Result<PathBuf> {
    let dir = root.join(name);
    let file = dir.join(SKILL_FILE);
    let display = file.display().to_string();
    check_name(name, &display)?;
    let yaml = yaml_serde::to_string(&BTreeMap::from([
        ("name", name),
        ("description", description),
    ]))
    .map_err(|e| Error::Invalid {
        file: display.clone(),
        findings: vec![Finding::new(
            FindingCode::InvalidYaml,
            Severity::Error,
            &display,
            None,
            e.to_string(),
        )],
    })?;
    let text = format!("---\n{yaml}---\n\n{}\n", body.trim());
    validate(&text, name, &display, ValidationMode::Strict)?;
    if fs::symlink_metadata(&dir).is_ok() {
        return Err(Error::AlreadyExists { path: dir });
    }
    fs::create_dir_all(root).map_err(|e| Error::io(root, e))?;
    let temp = tempfile::Builder::new()
        .prefix(".skill-new-")
        .tempdir_in(root)
        .map_err(|e| Error::io(root, e))?;
    write_atomic(&temp.path().join(SKILL_FILE), &text)?;
    let staged = temp.keep();
    if fs::symlink_metadata(&dir).is_ok() {
        let _ = fs::remove_dir_all(&staged);
        return Err(Error::AlreadyExists { path: dir });
    }
    fs::rename(&staged, &dir).map_err(|e| {
        let _ = fs::remove_dir_all(&staged);
        Error::io(&dir, e)
    })?;
    Ok(dir)
}

/// The byte offset just past the closing frontmatter delimiter line, and
/// whether the file uses CRLF.
fn frontmatter_end(text: &str) -> Option<(usize, bool)> {
    let mut offset = 0;
    let mut lines = text.split_inclusive('\n');
    let first = lines.next()?;
    if first.trim_start_matches('\u{feff}').trim_end() != "---" {
        return None;
    }
    let crlf = first.ends_with("\r\n");
    offset += first.len();
    for line in lines {
        offset += line.len();
        if line.trim_end() == "---" {
            return Some((offset, crlf));
        }
    }
    None
}

fn read_skill(dir: &Path) -> Result<(PathBuf, String)> {
    let file = dir.join(SKILL_FILE);
    let text = fs::read_to_string(&file).map_err(|e| Error::io(&file, e))?;
    Ok((file, text))
}

fn not_parseable(file: &Path) -> Error {
    let display = file.display().to_string();
    Error::Invalid {
        file: display.clone(),
        findings: vec![Finding::new(
            FindingCode::MissingFrontmatter,
            Severity::Error,
            display,
            Some(1),
            "the file has no frontmatter block to keep",
        )],
    }
}

/// Replaces the body of skill `name`, keeping its frontmatter byte for byte
/// (and its line endings).
pub fn replace_body(root: &Path, name: &str, body: &str) -> Result<PathBuf> {
    let dir = existing(root, name)?;
    let (file, text) = read_skill(&dir)?;
    let (end, crlf) = frontmatter_end(&text).ok_or_else(|| not_parseable(&file))?;
    let mut body = format!("\n{}\n", body.trim());
    if crlf {
        body = body.replace("\r\n", "\n").replace('\n', "\r\n");
    }
    let new = format!("{}{body}", &text[..end]);
    validate(
        &new,
        name,
        &file.display().to_string(),
        ValidationMode::Lenient,
    )?;
    write_atomic(&file, &new)?;
    Ok(file)
}

/// Renames skill `from` to `to`: the folder and the frontmatter `name`.
pub fn rename(root: &Path, from: &str, to: &str) -> Result<PathBuf> {
    let dir = existing(root, from)?;
    let target = root.join(to);
    check_name(to, &target.display().to_string())?;
    if fs::symlink_metadata(&target).is_ok() {
        return Err(Error::AlreadyExists { path: target });
    }
    let (file, text) = read_skill(&dir)?;
    let (end, crlf) = frontmatter_end(&text).ok_or_else(|| not_parseable(&file))?;
    let newline = if crlf { "\r\n" } else { "\n" };
    let mut head = String::with_capacity(end + 16);
    let mut replaced = false;
    for (index, line) in text[..end].split_inclusive('\n').enumerate() {
        let top_level_name = line.starts_with("name:")
            || line.starts_with("\"name\":")
            || line.starts_with("'name':");
        if !replaced && index > 0 && top_level_name {
            head.push_str(&format!("name: {to}{newline}"));
            replaced = true;
        } else {
            head.push_str(line);
            if index == 0 && !replaced && !text[..end].lines().any(|l| l.starts_with("name:")) {
                head.push_str(&format!("name: {to}{newline}"));
                replaced = true;
            }
        }
    }
    let new = format!("{head}{}", &text[end..]);
    let new_file = target.join(SKILL_FILE);
    validate(
        &new,
        to,
        &new_file.display().to_string(),
        ValidationMode::Lenient,
    )?;
    fs::rename(&dir, &target).map_err(|e| Error::io(&target, e))?;
    if let Err(error) = write_atomic(&new_file, &new) {
        let _ = fs::rename(&target, &dir);
        return Err(error);
    }
    Ok(target)
}

/// Deletes skill `name`: its folder is first renamed away (so it vanishes
/// at once), then removed. Links inside are removed, never followed.
pub fn delete(root: &Path, name: &str) -> Result<PathBuf> {
    let dir = existing(root, name)?;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let trash = root.join(format!(
        ".skill-deleted-{name}-{}-{nanos}",
        std::process::id()
    ));
    fs::rename(&dir, &trash).map_err(|e| Error::io(&dir, e))?;
    fs::remove_dir_all(&trash).map_err(|e| Error::io(&trash, e))?;
    Ok(dir)
}
