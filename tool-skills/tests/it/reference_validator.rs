//! Where the reference validator (`skills-ref`) and this crate must agree,
//! on real folders: names compared after NFKC normalisation, a `skill.md`
//! or a `SKILL.md` that is a folder reported instead of silently skipped,
//! a duplicate key reported at the duplicate's line, the frontmatter
//! fields as `read-properties` prints them, and the catalog's location.

use std::fs;
use std::path::Path;

use serde_json::json;
use tool_skills::{
    CatalogOptions, Finding, FindingCode, LoadOptions, Lookup, Severity, SkillRegistry,
    SkillSource, SkillsTool, ValidationMode, is_valid_skill_name, maintain,
};

use crate::common::codes;

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn skill(root: &Path, folder: &str, name: &str) {
    write(
        &root.join(folder).join("SKILL.md"),
        &format!("---\nname: {name}\ndescription: The {folder} skill.\n---\nBody.\n"),
    );
}

fn load(root: &Path, mode: ValidationMode) -> SkillRegistry {
    SkillRegistry::load([SkillSource::dir("t", root)], LoadOptions::new(mode))
}

fn errors(registry: &SkillRegistry) -> Vec<&Finding> {
    registry
        .findings()
        .iter()
        .filter(|f| f.is_error())
        .collect()
}

#[test]
fn a_titlecase_letter_is_not_lowercase() {
    // U+01C5 (Dž, titlecase) lowercases to U+01C6: not a lowercase letter.
    let tmp = tempfile::tempdir().unwrap();
    skill(tmp.path(), "\u{1c5}a", "\u{1c5}a");
    let strict = load(tmp.path(), ValidationMode::Strict);
    assert_eq!(strict.skills().count(), 0);
    let invalid = errors(&strict)
        .into_iter()
        .find(|f| f.code == FindingCode::InvalidName)
        .unwrap();
    assert!(invalid.message.contains("not lowercase"), "{invalid}");
    assert_eq!(invalid.line, Some(2));
    assert!(!is_valid_skill_name("\u{1c5}a"));
    assert!(is_valid_skill_name("\u{1c6}a"));
    // Uppercase Cyrillic is rejected, lowercase Cyrillic accepted.
    assert!(!is_valid_skill_name("НАВЫК"));
    assert!(is_valid_skill_name("мой-навык"));
}

#[test]
fn a_decomposed_letter_is_a_letter() {
    let tmp = tempfile::tempdir().unwrap();
    // The folder composed (U+00E9), the name decomposed (e + U+0301).
    skill(tmp.path(), "caf\u{e9}", "cafe\u{301}");
    let strict = load(tmp.path(), ValidationMode::Strict);
    assert!(errors(&strict).is_empty(), "{:#?}", strict.findings());
    let skill = strict.get("caf\u{e9}").expect("stored in NFKC form");
    assert_eq!(skill.name(), "caf\u{e9}");
    let note = strict
        .findings()
        .iter()
        .find(|f| f.code == FindingCode::NameNormalized)
        .unwrap();
    assert_eq!((note.severity, note.line), (Severity::Info, Some(2)));
    // A model (or a host) may send either form.
    assert!(matches!(strict.lookup("cafe\u{301}"), Lookup::Exact(_)));
    let tool = SkillsTool::new(strict);
    assert!(tool.activate("cafe\u{301}").success);
}

#[test]
fn a_composed_name_matches_a_decomposed_folder_as_macos_stores_it() {
    let tmp = tempfile::tempdir().unwrap();
    skill(tmp.path(), "cafe\u{301}", "caf\u{e9}");
    let strict = load(tmp.path(), ValidationMode::Strict);
    assert!(errors(&strict).is_empty(), "{:#?}", strict.findings());
    assert!(!codes(&strict).contains(&FindingCode::NameFolderMismatch));
    assert_eq!(strict.skills().next().unwrap().name(), "caf\u{e9}");
    // A different name is still a mismatch after normalisation.
    let other = tempfile::tempdir().unwrap();
    skill(other.path(), "cafe\u{301}", "cafe");
    let strict = load(other.path(), ValidationMode::Strict);
    assert_eq!(
        errors(&strict)[0].code,
        FindingCode::NameFolderMismatch,
        "{:#?}",
        strict.findings()
    );
}

#[test]
fn the_length_limit_counts_normalised_characters() {
    // 64 decomposed letters are 128 code points, 64 characters once composed.
    let name = "e\u{301}".repeat(64);
    assert!(is_valid_skill_name(&name));
    assert!(!is_valid_skill_name(&"e\u{301}".repeat(65)));
}

#[test]
fn a_lowercase_skill_md_is_reported_and_loaded_only_leniently() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        &tmp.path().join("lower/skill.md"),
        "---\nname: lower\ndescription: Lowercase file.\n---\nBody.\n",
    );
    write(&tmp.path().join("lower/references/guide.md"), "Guide.");
    let lenient = load(tmp.path(), ValidationMode::Lenient);
    let finding = lenient
        .findings()
        .iter()
        .find(|f| f.code == FindingCode::MisnamedSkillFile)
        .unwrap();
    assert_eq!(finding.severity, Severity::Warning);
    assert!(finding.file.ends_with("lower/skill.md"), "{finding}");
    assert!(finding.message.contains("`skill.md`"), "{finding}");
    assert_eq!(lenient.skills().count(), 1);
    // Its own file is not listed as one of its resources.
    let out = SkillsTool::new(lenient).activate("lower");
    let files = out.state.unwrap()["files"].clone();
    assert_eq!(files, json!(["references/guide.md"]));

    let strict = load(tmp.path(), ValidationMode::Strict);
    assert_eq!(strict.skills().count(), 0);
    assert_eq!(errors(&strict)[0].code, FindingCode::MisnamedSkillFile);
    assert_eq!(strict.outcome().failed().len(), 1);
}

#[test]
fn a_skill_md_that_is_a_folder_is_a_finding_not_an_empty_result() {
    let tmp = tempfile::tempdir().unwrap();
    fs::create_dir_all(tmp.path().join("broken/SKILL.md")).unwrap();
    // A skill inside it is not searched for: the folder is a broken skill.
    skill(&tmp.path().join("broken/SKILL.md"), "inner", "inner");
    for mode in [ValidationMode::Lenient, ValidationMode::Strict] {
        let registry = load(tmp.path(), mode);
        assert_eq!(registry.skills().count(), 0, "{mode:?}");
        let finding = &errors(&registry)[0];
        assert_eq!(finding.code, FindingCode::SkillFileNotAFile);
        assert!(finding.file.ends_with("broken/SKILL.md"), "{finding}");
        assert!(finding.message.contains("a folder"), "{finding}");
        assert_eq!(registry.outcome().failed()[0].source, finding.file);
    }
    // The source folder itself as the skill: the same finding.
    let registry = load(&tmp.path().join("broken"), ValidationMode::Lenient);
    assert_eq!(errors(&registry)[0].code, FindingCode::SkillFileNotAFile);
}

#[cfg(unix)]
#[test]
fn a_skill_md_linking_to_a_folder_is_a_finding() {
    let tmp = tempfile::tempdir().unwrap();
    fs::create_dir_all(tmp.path().join("linked/target")).unwrap();
    std::os::unix::fs::symlink("target", tmp.path().join("linked/SKILL.md")).unwrap();
    let registry = load(tmp.path(), ValidationMode::Lenient);
    let finding = &errors(&registry)[0];
    assert_eq!(finding.code, FindingCode::SkillFileNotAFile);
    assert!(finding.message.contains("a link to a folder"), "{finding}");
}

#[test]
fn a_folder_without_any_skill_file_is_still_quietly_a_category() {
    let tmp = tempfile::tempdir().unwrap();
    write(&tmp.path().join("category/README.md"), "Not a skill.");
    skill(&tmp.path().join("category"), "real", "real");
    let registry = load(tmp.path(), ValidationMode::Strict);
    assert!(registry.findings().is_empty(), "{:#?}", registry.findings());
    assert_eq!(registry.skills().count(), 1);
}

#[test]
fn a_duplicate_key_points_at_the_duplicate() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        &tmp.path().join("dup/SKILL.md"),
        "---\nname: dup\ndescription: First.\nlicense: MIT\ndescription: Second.\n---\nBody.\n",
    );
    write(
        &tmp.path().join("nested/SKILL.md"),
        "---\nname: nested\ndescription: x\nmetadata:\n  version: \"1\"\n  author: me\n  version: \"2\"\n---\nBody.\n",
    );
    let registry = load(tmp.path(), ValidationMode::Lenient);
    let lines: Vec<(String, Option<usize>)> = errors(&registry)
        .iter()
        .map(|f| {
            assert_eq!(f.code, FindingCode::DuplicateKey, "{f}");
            (f.file.rsplit('/').nth(1).unwrap().to_owned(), f.line)
        })
        .collect();
    assert_eq!(
        lines,
        [("dup".to_owned(), Some(5)), ("nested".to_owned(), Some(7))]
    );
    let message = &errors(&registry)[0].message;
    assert!(message.contains("`description`") && message.contains("first on line 3"));
}

#[test]
fn properties_are_the_frontmatter_fields_flat() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        &tmp.path().join("pdf/SKILL.md"),
        "---\nname: pdf\ndescription: Handles PDFs.\nlicense: Apache-2.0\ncompatibility: Needs poppler\nallowed-tools: Read Bash(pdftotext:*)\nmetadata:\n  author: example-org\n  version: \"1.0\"\nx-client: 3\n---\nBody.\n",
    );
    write(
        &tmp.path().join("bare/SKILL.md"),
        "---\nname: bare\ndescription: Only the required fields.\n---\nBody.\n",
    );
    let registry = load(tmp.path(), ValidationMode::Lenient);
    let full = serde_json::to_value(registry.get("pdf").unwrap().document.properties()).unwrap();
    assert_eq!(
        full,
        json!({
            "name": "pdf",
            "description": "Handles PDFs.",
            "license": "Apache-2.0",
            "compatibility": "Needs poppler",
            "allowed-tools": ["Read", "Bash(pdftotext:*)"],
            "metadata": {"author": "example-org", "version": "1.0"},
            "extra": {"x-client": 3},
        })
    );
    let bare = serde_json::to_value(registry.get("bare").unwrap().document.properties()).unwrap();
    assert_eq!(
        bare,
        json!({"name": "bare", "description": "Only the required fields."})
    );
}

#[test]
fn the_catalog_location_is_the_skill_md_path() {
    let tmp = tempfile::tempdir().unwrap();
    skill(tmp.path(), "pdf", "pdf");
    let registry = load(tmp.path(), ValidationMode::Strict);
    let file = registry.get("pdf").unwrap().file();
    assert!(file.ends_with("pdf/SKILL.md"));
    let with = registry.catalog(&CatalogOptions::default().with_location(true));
    assert!(
        with.text.contains(&format!("<location>{file}</location>")),
        "{}",
        with.text
    );
    let without = registry.catalog(&CatalogOptions::default());
    assert!(!without.text.contains("<location>"));
}

#[test]
fn the_load_outcome_is_tool_cores_partial_shape() {
    let tmp = tempfile::tempdir().unwrap();
    skill(tmp.path(), "good", "good");
    write(
        &tmp.path().join("no-description/SKILL.md"),
        "---\nname: no-description\n---\nBody.\n",
    );
    let registry = load(tmp.path(), ValidationMode::Lenient);
    let outcome = registry.outcome();
    assert!(outcome.is_partial());
    assert_eq!(outcome.loaded()[0].name(), "good");
    let failed = &outcome.failed()[0];
    assert!(failed.source.ends_with("no-description/SKILL.md"));
    assert_eq!(failed.error.code, FindingCode::MissingDescription);
    assert_eq!(outcome.failed().len(), 1);
}

#[test]
fn maintenance_names_folders_only_in_normal_form() {
    let tmp = tempfile::tempdir().unwrap();
    for name in [" pdf", "pdf ", "cafe\u{301}", "\u{ff50}df"] {
        let error = maintain::create(tmp.path(), name, "A skill.", "Body.").unwrap_err();
        assert_eq!(
            error.findings()[0].code,
            FindingCode::InvalidName,
            "{name:?}"
        );
    }
    assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), 0);
    maintain::create(tmp.path(), "caf\u{e9}", "A skill.", "Body.").unwrap();
    let registry = load(tmp.path(), ValidationMode::Strict);
    assert!(registry.findings().is_empty(), "{:#?}", registry.findings());
}
