//! A corpus shaped like public skill collections (tests/fixtures/corpus):
//! long descriptions, a name/folder mismatch, a binary asset, nested
//! references, scripts, CRLF with a BOM, missing fields, client-specific
//! keys, folded descriptions, category folders, hidden folders.

use std::path::PathBuf;

use tool_skills::{
    CatalogOptions, FindingCode, LoadOptions, Severity, SkillRegistry, SkillSource, SkillsTool,
    ValidationMode,
};

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/corpus")
}

fn load(mode: ValidationMode) -> SkillRegistry {
    SkillRegistry::load(
        [SkillSource::dir("corpus", corpus())],
        LoadOptions::new(mode),
    )
}

fn names(r: &SkillRegistry) -> Vec<&str> {
    r.skills().map(|s| s.name()).collect()
}

fn has(r: &SkillRegistry, code: FindingCode, file_end: &str, severity: Severity) -> bool {
    r.findings()
        .iter()
        .any(|f| f.code == code && f.file.ends_with(file_end) && f.severity == severity)
}

#[test]
fn lenient_mode_loads_what_clients_load() {
    let r = load(ValidationMode::Lenient);
    assert_eq!(
        names(&r),
        [
            "block-description",
            "claude-style",
            "colon-description",
            "crlf-skill",
            "empty-body",
            "no-name",
            "original-name",
            "pdf-processing",
            "release-notes",
            "too-long-description",
        ]
    );
    assert!(has(
        &r,
        FindingCode::MissingDescription,
        "no-description/SKILL.md",
        Severity::Error
    ));
    assert!(has(
        &r,
        FindingCode::NameFolderMismatch,
        "renamed-folder/SKILL.md",
        Severity::Warning
    ));
    assert!(has(
        &r,
        FindingCode::MissingName,
        "no-name/SKILL.md",
        Severity::Warning
    ));
    assert!(has(
        &r,
        FindingCode::ColonRepaired,
        "colon-description/SKILL.md",
        Severity::Warning
    ));
    assert!(has(
        &r,
        FindingCode::UnknownField,
        "claude-style/SKILL.md",
        Severity::Info
    ));
    assert!(has(
        &r,
        FindingCode::DescriptionTooLong,
        "too-long-description/SKILL.md",
        Severity::Warning
    ));
    assert!(has(
        &r,
        FindingCode::EmptyBody,
        "empty-body/SKILL.md",
        Severity::Warning
    ));
    assert_eq!(
        r.get("block-description").unwrap().description(),
        "A folded description over several lines."
    );
    let crlf = r.get("crlf-skill").unwrap();
    assert_eq!(crlf.body(), "# CRLF\nStep one.");
    let claude = r.get("claude-style").unwrap();
    assert_eq!(claude.frontmatter().extra["disable-model-invocation"], true);
    let pdf = r.get("pdf-processing").unwrap();
    assert_eq!(pdf.frontmatter().allowed_tools, ["Read", "Bash(python3:*)"]);
    assert_eq!(pdf.frontmatter().metadata["version"], "2.1");
    assert!(pdf.description().chars().count() > 700);
}

#[test]
fn strict_mode_keeps_only_skills_that_follow_the_format() {
    let r = load(ValidationMode::Strict);
    assert_eq!(
        names(&r),
        [
            "block-description",
            "crlf-skill",
            "empty-body",
            "pdf-processing",
            "release-notes"
        ]
    );
    assert!(has(
        &r,
        FindingCode::NameFolderMismatch,
        "renamed-folder/SKILL.md",
        Severity::Error
    ));
    assert!(has(
        &r,
        FindingCode::UnknownField,
        "claude-style/SKILL.md",
        Severity::Error
    ));
    assert!(has(
        &r,
        FindingCode::DescriptionTooLong,
        "too-long-description/SKILL.md",
        Severity::Error
    ));
    assert!(has(
        &r,
        FindingCode::MissingName,
        "no-name/SKILL.md",
        Severity::Error
    ));
    assert!(has(
        &r,
        FindingCode::ColonRepaired,
        "colon-description/SKILL.md",
        Severity::Error
    ));
}

#[test]
fn hidden_folders_and_plain_files_are_not_skills() {
    let r = load(ValidationMode::Lenient);
    assert!(r.get("hidden-skill").is_none());
    assert!(!r.findings().iter().any(|f| f.file.ends_with("README.md")));
}

#[test]
fn nested_references_scripts_and_binary_assets() {
    let tool = SkillsTool::new(load(ValidationMode::Lenient));
    let out = tool.activate("pdf-processing");
    for file in [
        "assets/sample.png",
        "references/REFERENCE.md",
        "references/forms/FORMS.md",
        "scripts/extract.py",
    ] {
        assert!(
            out.content.contains(&format!("<file>{file}</file>")),
            "{file}"
        );
    }
    let forms = tool.read_reference("pdf-processing", "references/forms/forms");
    assert!(forms.content.contains("case-sensitive"), "{forms:?}");
    let reference = tool.read_reference("pdf-processing", "reference");
    assert!(reference.content.starts_with("# Reference"));
    let script = tool.read_reference("pdf-processing", "scripts/extract.py");
    assert_eq!(script.state.as_ref().unwrap()["mediaType"], "text/x-python");
    let png = tool.read_reference("pdf-processing", "assets/sample.png");
    assert!(png.success);
    assert_eq!(png.state.as_ref().unwrap()["binary"], true);
}

#[test]
fn the_corpus_catalog_fits_a_small_budget_with_a_report() {
    let r = load(ValidationMode::Lenient);
    let full = r.catalog(&CatalogOptions::default());
    assert!(!full.is_degraded());
    let mut options = CatalogOptions::default();
    options.budget = Some(full.chars / 2);
    let small = r.catalog(&options);
    assert!(small.chars <= full.chars / 2);
    assert!(small.shortened().contains(&"pdf-processing"));
}
