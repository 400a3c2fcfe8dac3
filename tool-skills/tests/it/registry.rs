//! Sources, precedence and shadowing, discovery bounds and policies,
//! enable/disable, reload diffs and lookup, on real folders.

use std::fs;
use std::path::Path;

use tool_skills::{
    BuiltinSkill, FindingCode, LoadOptions, Lookup, SkillRegistry, SkillSource, SymlinkPolicy,
    ValidationMode,
};

use crate::common::write;

fn skill(dir: &Path, folder: &str, name: &str, description: &str) {
    write(
        dir,
        &format!("{folder}/SKILL.md"),
        format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n"),
    );
}

fn names(registry: &SkillRegistry) -> Vec<String> {
    registry.enabled().map(|s| s.name().to_owned()).collect()
}

#[test]
fn higher_sources_shadow_lower_ones_and_say_so() {
    let project = tempfile::tempdir().unwrap();
    let user = tempfile::tempdir().unwrap();
    skill(project.path(), "review", "review", "Project review.");
    skill(user.path(), "review", "review", "User review.");
    skill(user.path(), "notes", "notes", "User notes.");
    let registry = SkillRegistry::load(
        [
            SkillSource::dir("project", project.path()),
            SkillSource::dir("user", user.path()),
            SkillSource::builtin(
                "builtin",
                [
                    BuiltinSkill::new("notes", "notes", "Builtin notes.", "Body"),
                    BuiltinSkill::new("only-builtin", "only-builtin", "Builtin only.", "Body"),
                ],
            ),
        ],
        LoadOptions::default(),
    );
    assert_eq!(names(&registry), ["notes", "only-builtin", "review"]);
    assert_eq!(registry.get("review").unwrap().source, "project");
    assert_eq!(registry.get("notes").unwrap().source, "user");
    let shadowed: Vec<(&str, &str, &str)> = registry
        .shadowed()
        .iter()
        .map(|s| {
            (
                s.name.as_str(),
                s.winner.source.as_str(),
                s.shadowed.source.as_str(),
            )
        })
        .collect();
    assert_eq!(
        shadowed,
        [("review", "project", "user"), ("notes", "user", "builtin")]
    );
    let warnings = registry
        .findings()
        .iter()
        .filter(|f| f.code == FindingCode::ShadowedSkill)
        .count();
    assert_eq!(warnings, 2);
}

#[test]
fn discovery_is_sorted_bounded_and_skips_hidden_and_vendor_folders() {
    let root = tempfile::tempdir().unwrap();
    for name in ["charlie", "alpha", "bravo"] {
        skill(root.path(), &format!("group/{name}"), name, "A skill.");
    }
    skill(root.path(), ".hidden/secret", "secret", "Hidden.");
    skill(
        root.path(),
        "node_modules/vendored",
        "vendored",
        "Vendored.",
    );
    let registry =
        SkillRegistry::load([SkillSource::dir("p", root.path())], LoadOptions::default());
    assert_eq!(names(&registry), ["alpha", "bravo", "charlie"]);

    let mut options = LoadOptions::default();
    options.discovery.include_hidden = true;
    let registry = SkillRegistry::load([SkillSource::dir("p", root.path())], options);
    assert!(registry.get("secret").is_some());

    let mut options = LoadOptions::default();
    options.discovery.max_skills = 2;
    let registry = SkillRegistry::load([SkillSource::dir("p", root.path())], options);
    assert_eq!(names(&registry), ["alpha", "bravo"]);
    assert!(
        registry
            .findings()
            .iter()
            .any(|f| f.code == FindingCode::DiscoveryLimit && f.message.contains("max_skills"))
    );

    let mut options = LoadOptions::default();
    options.discovery.max_dirs = 3;
    let registry = SkillRegistry::load([SkillSource::dir("p", root.path())], options);
    assert_eq!(names(&registry), ["alpha"]);
    assert!(
        registry
            .findings()
            .iter()
            .any(|f| f.message.contains("max_dirs"))
    );
}

#[test]
fn a_skill_folder_given_directly_is_one_skill_and_skills_do_not_nest() {
    let root = tempfile::tempdir().unwrap();
    skill(root.path(), "outer", "outer", "Outer.");
    skill(
        root.path(),
        "outer/inner",
        "inner",
        "Nested inside another skill.",
    );
    let registry = SkillRegistry::load(
        [SkillSource::dir("p", root.path().join("outer"))],
        LoadOptions::default(),
    );
    assert_eq!(names(&registry), ["outer"]);
}

#[test]
fn symlink_policies() {
    let root = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    skill(root.path(), "real", "real", "Real.");
    skill(outside.path(), "away", "away", "Outside the root.");
    std::os::unix::fs::symlink(root.path().join("real"), root.path().join("alias")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("away"), root.path().join("away")).unwrap();
    fs::create_dir_all(root.path().join("loop")).unwrap();
    std::os::unix::fs::symlink(root.path(), root.path().join("loop/back")).unwrap();

    let load = |policy| {
        let mut options = LoadOptions::default();
        options.discovery.symlinks = policy;
        SkillRegistry::load([SkillSource::dir("p", root.path())], options)
    };
    let within = load(SymlinkPolicy::WithinRoot);
    assert_eq!(names(&within), ["real"]);
    assert!(
        within
            .findings()
            .iter()
            .any(|f| f.code == FindingCode::SymlinkSkipped && f.file.ends_with("away"))
    );
    let skip = load(SymlinkPolicy::Skip);
    assert_eq!(names(&skip), ["real"]);
    let follow = load(SymlinkPolicy::Follow);
    assert_eq!(names(&follow), ["away", "real"]);
    let away = follow.get("away").unwrap();
    assert_eq!(
        away.dir().unwrap(),
        fs::canonicalize(outside.path().join("away")).unwrap()
    );
}

#[test]
fn enable_disable_and_lookup() {
    let mut registry = SkillRegistry::load(
        [SkillSource::builtin(
            "b",
            [
                BuiltinSkill::new("1", "pdf-processing", "PDFs.", "B"),
                BuiltinSkill::new("2", "pdf-forms", "Forms.", "B"),
                BuiltinSkill::new("3", "Docs", "Docs upper.", "B"),
                BuiltinSkill::new("4", "docs", "Docs lower.", "B"),
            ],
        )],
        LoadOptions::default(),
    );
    let generation = registry.generation();
    assert!(registry.disable("pdf-forms").unwrap());
    assert!(!registry.disable("pdf-forms").unwrap());
    assert!(registry.generation() > generation);
    assert!(!registry.is_enabled("pdf-forms"));
    assert!(registry.disable("nope").is_err());
    assert!(matches!(
        registry.lookup("pdf-forms"),
        Lookup::Missing { .. }
    ));
    assert!(matches!(
        registry.lookup("pdf-processing"),
        Lookup::Exact(_)
    ));
    match registry.lookup("PDF-Processing") {
        Lookup::CaseInsensitive(s) => assert_eq!(s.name(), "pdf-processing"),
        other => panic!("{other:?}"),
    }
    match registry.lookup("DOCS") {
        Lookup::Ambiguous(names) => assert_eq!(names, ["Docs", "docs"]),
        other => panic!("{other:?}"),
    }
    match registry.lookup("pdf-procesing") {
        Lookup::Missing { close } => assert_eq!(close[0], "pdf-processing"),
        other => panic!("{other:?}"),
    }
    assert!(registry.enable("pdf-forms").unwrap());
    assert!(registry.is_enabled("pdf-forms"));
}

#[test]
fn reload_reports_added_removed_changed_and_keeps_disabled() {
    let root = tempfile::tempdir().unwrap();
    skill(root.path(), "keep", "keep", "Kept.");
    skill(root.path(), "edit", "edit", "Before.");
    skill(root.path(), "gone", "gone", "Removed later.");
    let mut registry =
        SkillRegistry::load([SkillSource::dir("p", root.path())], LoadOptions::default());
    registry.disable("keep").unwrap();
    skill(root.path(), "edit", "edit", "After.");
    fs::remove_dir_all(root.path().join("gone")).unwrap();
    skill(root.path(), "fresh", "fresh", "New.");
    let diff = registry.reload();
    assert_eq!(diff.added, ["fresh"]);
    assert_eq!(diff.removed, ["gone"]);
    assert_eq!(diff.changed, ["edit"]);
    assert_eq!(registry.get("edit").unwrap().description(), "After.");
    assert!(!registry.is_enabled("keep"));
    assert!(registry.reload().is_empty());
}

#[test]
fn strict_mode_skips_what_lenient_mode_loads() {
    let root = tempfile::tempdir().unwrap();
    skill(root.path(), "folder", "other-name", "Mismatch.");
    write(
        root.path(),
        "nameless/SKILL.md",
        "---\ndescription: No name.\n---\nbody\n",
    );
    write(
        root.path(),
        "nodesc/SKILL.md",
        "---\nname: nodesc\n---\nbody\n",
    );
    let lenient = SkillRegistry::load(
        [SkillSource::dir("p", root.path())],
        LoadOptions::new(ValidationMode::Lenient),
    );
    assert_eq!(names(&lenient), ["nameless", "other-name"]);
    let strict = SkillRegistry::load(
        [SkillSource::dir("p", root.path())],
        LoadOptions::new(ValidationMode::Strict),
    );
    assert!(names(&strict).is_empty());
    let codes: Vec<_> = strict.findings().iter().map(|f| f.code).collect();
    assert!(codes.contains(&FindingCode::NameFolderMismatch));
    assert!(codes.contains(&FindingCode::MissingName));
    assert!(codes.contains(&FindingCode::MissingDescription));
}
