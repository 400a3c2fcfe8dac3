//! Skill load and read spans, collected in memory by test-support's
//! collector (which keeps a second dispatcher alive, so a call site another
//! test reaches first without a subscriber is not disabled for this one).

use std::fs;

use test_support::Collected;
use tool_skills::{LoadOptions, SkillRegistry, SkillSource, SkillsTool};

/// One disk skill `pdf` with one reference.
fn fixture() -> (tempfile::TempDir, SkillRegistry) {
    let root = tempfile::tempdir().unwrap();
    let skill = root.path().join("pdf");
    fs::create_dir_all(skill.join("references")).unwrap();
    fs::write(
        skill.join("SKILL.md"),
        "---\nname: pdf\ndescription: Works with PDF files.\n---\n# PDF\n",
    )
    .unwrap();
    fs::write(skill.join("references/forms.md"), "# Forms").unwrap();
    let registry = SkillRegistry::load(
        [SkillSource::dir("project", root.path())],
        LoadOptions::default(),
    );
    (root, registry)
}

#[test]
fn loads_and_reads_run_in_skill_spans_naming_the_skill_and_file_never_the_request() {
    let (collected, _guard) = Collected::install();
    let (_root, registry) = fixture();
    let tool = SkillsTool::new(registry);
    assert!(tool.activate("pdf").success);
    assert!(tool.read_reference("pdf", "forms").success);
    let escape = tool.read_reference("pdf", "../../etc/private-target");
    assert_eq!(escape.error_code().unwrap().as_str(), "path_not_allowed");

    let loads = collected.spans("load_skill");
    let reads = collected.spans("read_skill_resource");
    assert_eq!((loads.len(), reads.len()), (1, 2), "{loads:?} {reads:?}");
    assert_eq!(loads[0].get("gen_ai.skill.name"), Some("pdf"));
    assert_eq!(reads[0].get("gen_ai.skill.name"), Some("pdf"));
    assert_eq!(
        reads[0].get("gen_ai.skill.resource.name"),
        Some("references/forms.md")
    );
    assert_eq!(reads[1].get("error.type"), Some("path_not_allowed"));
    let all = collected.all_text();
    assert!(!all.contains("private-target"), "{all}");
}
