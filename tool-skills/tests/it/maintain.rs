//! The maintenance API on real folders: validated, atomic, link-safe.

use std::fs;

use tool_skills::{
    Error, FindingCode, LoadOptions, SkillRegistry, SkillSource, ValidationMode, maintain,
};

fn leftovers(dir: &std::path::Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".skill-"))
        .collect()
}

#[test]
fn create_writes_a_strictly_valid_skill() {
    let root = tempfile::tempdir().unwrap();
    let dir = maintain::create(
        root.path(),
        "quotes",
        "Handles: colons, \"quotes\" and # hashes.",
        "# Quotes\nBody.",
    )
    .unwrap();
    assert_eq!(dir, root.path().join("quotes"));
    let registry = SkillRegistry::load(
        [SkillSource::dir("p", root.path())],
        LoadOptions::new(ValidationMode::Strict),
    );
    let skill = registry.get("quotes").unwrap();
    assert_eq!(
        skill.description(),
        "Handles: colons, \"quotes\" and # hashes."
    );
    assert_eq!(skill.body(), "# Quotes\nBody.");
    assert!(registry.findings().is_empty(), "{:?}", registry.findings());
    assert!(leftovers(root.path()).is_empty());
}

#[test]
fn create_refuses_bad_input_before_writing() {
    let root = tempfile::tempdir().unwrap();
    let err = maintain::create(root.path(), "Bad Name", "x", "b").unwrap_err();
    assert_eq!(err.findings()[0].code, FindingCode::InvalidName);
    let err = maintain::create(root.path(), "ok", "", "b").unwrap_err();
    assert_eq!(err.findings()[0].code, FindingCode::MissingDescription);
    let err = maintain::create(root.path(), "ok", &"d".repeat(1025), "b").unwrap_err();
    assert_eq!(err.findings()[0].code, FindingCode::DescriptionTooLong);
    assert!(
        fs::read_dir(root.path()).unwrap().next().is_none(),
        "nothing written"
    );
    maintain::create(root.path(), "ok", "x", "b").unwrap();
    assert!(matches!(
        maintain::create(root.path(), "ok", "x", "b"),
        Err(Error::AlreadyExists { .. })
    ));
    assert!(matches!(
        maintain::create(root.path(), "../escape", "x", "b"),
        Err(Error::Invalid { .. })
    ));
}

#[test]
fn replace_body_keeps_frontmatter_bytes_and_line_endings() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("crlf");
    fs::create_dir_all(&dir).unwrap();
    let head = "---\r\nname: crlf\r\n# a comment kept\r\ndescription: Kept exactly.\r\nx-extra: 1\r\n---\r\n";
    fs::write(dir.join("SKILL.md"), format!("{head}\r\nold body\r\n")).unwrap();
    maintain::replace_body(root.path(), "crlf", "new body\nline two").unwrap();
    let text = fs::read_to_string(dir.join("SKILL.md")).unwrap();
    assert_eq!(text, format!("{head}\r\nnew body\r\nline two\r\n"));
    assert!(leftovers(&dir).is_empty());
}

#[test]
fn rename_moves_the_folder_and_the_name() {
    let root = tempfile::tempdir().unwrap();
    maintain::create(root.path(), "old", "Old skill.", "Body").unwrap();
    fs::write(root.path().join("old/notes.md"), "kept").unwrap();
    let mut registry = SkillRegistry::load(
        [SkillSource::dir("p", root.path())],
        LoadOptions::new(ValidationMode::Strict),
    );
    maintain::rename(root.path(), "old", "new").unwrap();
    assert!(!root.path().join("old").exists());
    assert_eq!(
        fs::read_to_string(root.path().join("new/notes.md")).unwrap(),
        "kept"
    );
    let diff = registry.reload();
    assert_eq!(diff.added, ["new"]);
    assert_eq!(diff.removed, ["old"]);
    assert!(registry.findings().is_empty(), "{:?}", registry.findings());
    maintain::create(root.path(), "other", "Other.", "Body").unwrap();
    assert!(matches!(
        maintain::rename(root.path(), "new", "other"),
        Err(Error::AlreadyExists { .. })
    ));
    assert!(maintain::rename(root.path(), "new", "Not Valid").is_err());
    assert!(maintain::rename(root.path(), "missing", "x").is_err());
}

#[test]
fn delete_removes_the_folder_but_never_follows_links() {
    let root = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("precious.txt"), "keep me").unwrap();
    maintain::create(root.path(), "doomed", "Doomed.", "Body").unwrap();
    std::os::unix::fs::symlink(outside.path(), root.path().join("doomed/link")).unwrap();
    maintain::delete(root.path(), "doomed").unwrap();
    assert!(!root.path().join("doomed").exists());
    assert_eq!(
        fs::read_to_string(outside.path().join("precious.txt")).unwrap(),
        "keep me"
    );
    assert!(leftovers(root.path()).is_empty());

    maintain::create(outside.path(), "real", "Real.", "Body").unwrap();
    std::os::unix::fs::symlink(outside.path().join("real"), root.path().join("linked")).unwrap();
    assert!(matches!(
        maintain::delete(root.path(), "linked"),
        Err(Error::NotASkill { .. })
    ));
    assert!(outside.path().join("real/SKILL.md").exists());
    assert!(matches!(
        maintain::replace_body(root.path(), "linked", "x"),
        Err(Error::NotASkill { .. })
    ));
}
