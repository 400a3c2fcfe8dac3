//! Every finding code, in both modes, with its file and line.

use std::collections::BTreeSet;
use std::fs;

use tool_skills::{
    BuiltinSkill, Finding, FindingCode, LoadOptions, ParseLimits, ParseOptions, Severity,
    SkillRegistry, SkillSource, SymlinkPolicy, ValidationMode, parse_skill_md,
};

use crate::common::write;

const GOOD: &str = "---\nname: pdf\ndescription: Handles PDFs.\n---\n# PDF\nDo things.\n";

fn parse(text: &str, mode: ValidationMode) -> tool_skills::Parsed {
    parse_skill_md(text, &ParseOptions::new("pdf/SKILL.md", mode).folder("pdf"))
}

fn find(findings: &[Finding], code: FindingCode) -> &Finding {
    findings
        .iter()
        .find(|f| f.code == code)
        .unwrap_or_else(|| panic!("no {code} in {findings:#?}"))
}

fn skill_md(name: &str) -> String {
    format!("---\nname: {name}\ndescription: The {name} skill.\n---\nBody of {name}.\n")
}

/// One text case: the code it must produce, its severity in each mode,
/// whether the skill loads in each mode, and the line.
struct Case {
    text: String,
    code: FindingCode,
    strict: (Severity, bool),
    lenient: (Severity, bool),
    line: Option<usize>,
}

fn case(
    text: impl Into<String>,
    code: FindingCode,
    strict: (Severity, bool),
    lenient: (Severity, bool),
    line: Option<usize>,
) -> Case {
    Case {
        text: text.into(),
        code,
        strict,
        lenient,
        line,
    }
}

use Severity::{Error as E, Info as I, Warning as W};

fn text_cases() -> Vec<Case> {
    let long_name = "a".repeat(65);
    let long_description = "d".repeat(1025);
    let long_compat = "c".repeat(501);
    let long_body = "line\n".repeat(501);
    vec![
        case(
            "# Just markdown\n",
            FindingCode::MissingFrontmatter,
            (E, false),
            (E, false),
            Some(1),
        ),
        case(
            "---\nname: pdf\ndescription: x\n",
            FindingCode::UnclosedFrontmatter,
            (E, false),
            (E, false),
            Some(1),
        ),
        case(
            "---\nname: pdf\ndescription: [unclosed\n---\nbody\n",
            FindingCode::InvalidYaml,
            (E, false),
            (E, false),
            Some(4),
        ),
        case(
            "---\nname: pdf\ndescription: x\nname: pdf\n---\nbody\n",
            FindingCode::DuplicateKey,
            (E, false),
            (E, false),
            Some(4),
        ),
        case(
            "---\nname: \u{ff50}df\ndescription: Handles PDFs.\n---\nbody\n",
            FindingCode::NameNormalized,
            (I, true),
            (I, true),
            Some(2),
        ),
        case(
            "---\n- a\n- b\n---\nbody\n",
            FindingCode::FrontmatterNotMapping,
            (E, false),
            (E, false),
            Some(2),
        ),
        case(
            "---\nname: pdf\ndescription: Use when: the user asks\n---\nbody\n",
            FindingCode::ColonRepaired,
            (E, false),
            (W, true),
            Some(3),
        ),
        case(
            "---\ndescription: Handles PDFs.\n---\nbody\n",
            FindingCode::MissingName,
            (E, false),
            (W, true),
            Some(2),
        ),
        case(
            "---\nname: Pdf\ndescription: Handles PDFs.\n---\nbody\n",
            FindingCode::InvalidName,
            (E, false),
            (W, true),
            Some(2),
        ),
        case(
            format!("---\nname: {long_name}\ndescription: x\n---\nbody\n"),
            FindingCode::NameTooLong,
            (E, false),
            (W, true),
            Some(2),
        ),
        case(
            "---\nname: docx\ndescription: Handles PDFs.\n---\nbody\n",
            FindingCode::NameFolderMismatch,
            (E, false),
            (W, true),
            Some(2),
        ),
        case(
            "---\nname: pdf\n---\nbody\n",
            FindingCode::MissingDescription,
            (E, false),
            (E, false),
            Some(2),
        ),
        case(
            "---\nname: pdf\ndescription: \"  \"\n---\nbody\n",
            FindingCode::MissingDescription,
            (E, false),
            (E, false),
            Some(3),
        ),
        case(
            format!("---\nname: pdf\ndescription: {long_description}\n---\nbody\n"),
            FindingCode::DescriptionTooLong,
            (E, false),
            (W, true),
            Some(3),
        ),
        case(
            format!("---\nname: pdf\ndescription: x\ncompatibility: {long_compat}\n---\nbody\n"),
            FindingCode::InvalidCompatibility,
            (E, false),
            (W, true),
            Some(4),
        ),
        case(
            "---\nname: pdf\ndescription: x\nlicense: 2\n---\nbody\n",
            FindingCode::InvalidFieldType,
            (E, false),
            (W, true),
            Some(4),
        ),
        case(
            "---\nname: pdf\ndescription: x\nallowed-tools: {a: b}\n---\nbody\n",
            FindingCode::InvalidFieldType,
            (E, false),
            (W, true),
            Some(4),
        ),
        case(
            "---\nname: pdf\ndescription: [a, b]\n---\nbody\n",
            FindingCode::InvalidFieldType,
            (E, false),
            (E, false),
            Some(3),
        ),
        case(
            "---\nname: pdf\ndescription: x\nmetadata:\n  version: 1.0\n---\nbody\n",
            FindingCode::InvalidMetadata,
            (E, false),
            (W, true),
            Some(4),
        ),
        case(
            "---\nname: pdf\ndescription: x\nmetadata: [a]\n---\nbody\n",
            FindingCode::InvalidMetadata,
            (E, false),
            (W, true),
            Some(4),
        ),
        case(
            "---\nname: pdf\ndescription: x\nversion: 2\n---\nbody\n",
            FindingCode::UnknownField,
            (E, false),
            (I, true),
            Some(4),
        ),
        case(
            "---\nname: pdf\ndescription: x\n---\n\n\n",
            FindingCode::EmptyBody,
            (W, true),
            (W, true),
            Some(5),
        ),
        case(
            format!("---\nname: pdf\ndescription: x\n---\n\n{long_body}"),
            FindingCode::LongBody,
            (W, true),
            (W, true),
            Some(6),
        ),
    ]
}

#[test]
fn every_text_finding_in_both_modes() {
    for c in text_cases() {
        for (mode, (severity, loads)) in [
            (ValidationMode::Strict, c.strict),
            (ValidationMode::Lenient, c.lenient),
        ] {
            let parsed = parse(&c.text, mode);
            let f = find(&parsed.findings, c.code);
            assert_eq!(f.severity, severity, "{} in {mode:?}: {f}", c.code);
            assert_eq!(
                parsed.document.is_some(),
                loads,
                "{} in {mode:?}: {:#?}",
                c.code,
                parsed.findings
            );
            assert_eq!(f.line, c.line, "{} in {mode:?}: {f}", c.code);
            assert_eq!(f.file, "pdf/SKILL.md");
        }
    }
}

#[test]
fn lenient_falls_back_to_the_folder_name() {
    let parsed = parse(
        "---\ndescription: Handles PDFs.\n---\nbody\n",
        ValidationMode::Lenient,
    );
    assert_eq!(parsed.document.unwrap().name, "pdf");
}

#[test]
fn a_good_skill_has_no_findings_in_strict_mode() {
    let parsed = parse(GOOD, ValidationMode::Strict);
    assert!(parsed.findings.is_empty(), "{:#?}", parsed.findings);
    let doc = parsed.document.unwrap();
    assert_eq!(doc.body, "# PDF\nDo things.");
    assert_eq!(doc.body_line, 5);
}

#[test]
fn optional_fields_are_typed_and_unknown_keys_kept() {
    let text = "---\nname: pdf\ndescription: x\nlicense: Apache-2.0\ncompatibility: Needs poppler\nmetadata:\n  author: me\n  version: \"1.0\"\nallowed-tools: Bash(git:*) Read\nx-custom:\n  nested: [1, 2]\n---\nbody\n";
    let doc = parse(text, ValidationMode::Lenient).document.unwrap();
    let fm = &doc.frontmatter;
    assert_eq!(fm.license.as_deref(), Some("Apache-2.0"));
    assert_eq!(fm.compatibility.as_deref(), Some("Needs poppler"));
    assert_eq!(fm.metadata["version"], "1.0");
    assert_eq!(fm.allowed_tools, ["Bash(git:*)", "Read"]);
    assert_eq!(fm.extra["x-custom"]["nested"][1], 2);
    let list =
        "---\nname: pdf\ndescription: x\nallowed-tools:\n  - Read\n  - Bash(jq:*)\n---\nbody\n";
    let doc = parse(list, ValidationMode::Strict).document.unwrap();
    assert_eq!(doc.frontmatter.allowed_tools, ["Read", "Bash(jq:*)"]);
}

#[test]
fn a_wrongly_typed_field_is_kept_as_extra_data() {
    let text = "---\nname: pdf\ndescription: x\nlicense: [MIT, Apache-2.0]\n---\nbody\n";
    let doc = parse(text, ValidationMode::Lenient).document.unwrap();
    assert_eq!(doc.frontmatter.license, None);
    assert_eq!(doc.frontmatter.extra["license"][1], "Apache-2.0");
}

#[test]
fn bom_crlf_and_dashes_inside_values() {
    let text = "\u{feff}---\r\nname: pdf\r\ndescription: \"a --- b\"\r\nnote: |\r\n  ---\r\n---\r\nBody\r\n";
    let parsed = parse(text, ValidationMode::Lenient);
    let doc = parsed.document.unwrap();
    assert_eq!(doc.description, "a --- b");
    assert_eq!(doc.frontmatter.extra["note"], "---\n");
    assert_eq!(doc.body, "Body");
}

#[test]
fn caps_apply_before_parsing() {
    let mut limits = ParseLimits::default();
    limits.max_file_bytes = 64;
    let big = format!("{GOOD}{}", "x".repeat(100));
    let parsed = parse_skill_md(
        &big,
        &ParseOptions::new("f", ValidationMode::Lenient).limits(limits),
    );
    assert_eq!(parsed.findings[0].code, FindingCode::FileTooLarge);
    let mut limits = ParseLimits::default();
    limits.max_frontmatter_bytes = 16;
    for text in [GOOD.to_owned(), format!("---\n{}", "a: b\n".repeat(10))] {
        let parsed = parse_skill_md(
            &text,
            &ParseOptions::new("f", ValidationMode::Lenient).limits(limits),
        );
        let code = parsed.findings[0].code;
        assert!(
            code == FindingCode::FrontmatterTooLarge || code == FindingCode::UnclosedFrontmatter,
            "{code}"
        );
    }
    let parsed = parse_skill_md(
        GOOD,
        &ParseOptions::new("f", ValidationMode::Lenient).limits(limits),
    );
    assert_eq!(parsed.findings[0].code, FindingCode::FrontmatterTooLarge);
}

#[test]
fn yaml_alias_bombs_are_refused_not_expanded() {
    let mut text =
        String::from("---\nname: pdf\ndescription: x\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..12 {
        let prev = i - 1;
        text.push_str(&format!("a{i}: &a{i} [*a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}]\n"));
    }
    text.push_str("---\nbody\n");
    let parsed = parse(&text, ValidationMode::Lenient);
    assert_eq!(
        parsed.findings[0].code,
        FindingCode::InvalidYaml,
        "{:#?}",
        parsed.findings
    );
}

/// Codes that only a load from disk (or several sources) can produce.
fn disk_codes() -> BTreeSet<FindingCode> {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let mut seen = BTreeSet::new();

    // invalid_utf8 and file_too_large from files on disk.
    let bad = root.join("a/bad-utf8");
    fs::create_dir_all(&bad).unwrap();
    fs::write(
        bad.join("SKILL.md"),
        b"---\nname: bad-utf8\ndescription: \xff\xfe\n---\n",
    )
    .unwrap();
    write(
        root,
        "a/huge/SKILL.md",
        format!("{}{}", skill_md("huge"), "x".repeat(2000)),
    );
    write(root, "a/dup-one/SKILL.md", skill_md("same"));
    write(root, "a/dup-two/SKILL.md", skill_md("same"));
    let mut options = LoadOptions::default();
    options.limits.max_file_bytes = 1000;
    let registry = SkillRegistry::load(
        [
            SkillSource::dir("project", root.join("a")),
            SkillSource::builtin(
                "builtin",
                [BuiltinSkill::new("same", "same", "Builtin same.", "Body.")],
            ),
            SkillSource::dir("missing", root.join("does-not-exist")),
        ],
        options,
    );
    let codes = |r: &SkillRegistry| r.findings().iter().map(|f| f.code).collect::<Vec<_>>();
    let utf8 = find(registry.findings(), FindingCode::InvalidUtf8);
    assert_eq!(utf8.line, Some(3));
    assert!(utf8.file.ends_with("bad-utf8/SKILL.md"));
    assert!(
        find(registry.findings(), FindingCode::FileTooLarge)
            .file
            .ends_with("huge/SKILL.md")
    );
    assert!(
        find(registry.findings(), FindingCode::DuplicateSkill)
            .file
            .ends_with("dup-two/SKILL.md")
    );
    assert_eq!(
        find(registry.findings(), FindingCode::ShadowedSkill).file,
        "builtin:same"
    );
    assert!(
        find(registry.findings(), FindingCode::SourceNotFound)
            .file
            .ends_with("does-not-exist")
    );
    assert!(
        registry
            .get("same")
            .unwrap()
            .dir()
            .unwrap()
            .ends_with("dup-one")
    );
    seen.extend(codes(&registry));

    // symlink_skipped and discovery_limit.
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "elsewhere/SKILL.md", skill_md("elsewhere"));
    fs::create_dir_all(root.join("b/deep/er/still")).unwrap();
    write(root, "b/deep/er/still/x/SKILL.md", skill_md("x"));
    std::os::unix::fs::symlink(outside.path().join("elsewhere"), root.join("b/elsewhere")).unwrap();
    let mut options = LoadOptions::default();
    options.discovery.max_depth = 2;
    let registry = SkillRegistry::load([SkillSource::dir("b", root.join("b"))], options);
    assert_eq!(
        find(registry.findings(), FindingCode::SymlinkSkipped).severity,
        Severity::Warning
    );
    assert!(
        find(registry.findings(), FindingCode::DiscoveryLimit)
            .message
            .contains("max_depth")
    );
    assert!(registry.get("elsewhere").is_none() && registry.get("x").is_none());
    seen.extend(codes(&registry));

    // misnamed_skill_file and skill_file_not_a_file.
    write(root, "d/lower/skill.md", skill_md("lower"));
    fs::create_dir_all(root.join("d/folder/SKILL.md")).unwrap();
    let registry = SkillRegistry::load(
        [SkillSource::dir("d", root.join("d"))],
        LoadOptions::default(),
    );
    assert_eq!(
        find(registry.findings(), FindingCode::MisnamedSkillFile).severity,
        Severity::Warning
    );
    assert!(
        find(registry.findings(), FindingCode::SkillFileNotAFile)
            .file
            .ends_with("folder/SKILL.md")
    );
    seen.extend(codes(&registry));

    // io_error: a SKILL.md (followed by policy) whose read fails.
    #[cfg(target_os = "linux")]
    {
        write(root, "c/readme.txt", "not a skill");
        fs::create_dir_all(root.join("c/broken")).unwrap();
        std::os::unix::fs::symlink("/proc/self/mem", root.join("c/broken/SKILL.md")).unwrap();
        let mut options = LoadOptions::default();
        options.discovery.symlinks = SymlinkPolicy::Follow;
        let registry = SkillRegistry::load([SkillSource::dir("c", root.join("c"))], options);
        assert!(
            find(registry.findings(), FindingCode::IoError)
                .file
                .ends_with("broken/SKILL.md")
        );
        seen.extend(codes(&registry));
    }
    {
        // A skills folder inside a workspace nobody trusted.
        let ws = root.join("ws");
        fs::create_dir_all(ws.join("skills/x")).unwrap();
        fs::write(ws.join("skills/x/SKILL.md"), "---\nname: x\n---\n").unwrap();
        let workspace = tool_skills::trust::Workspace::untrusted(&ws).unwrap();
        let options = LoadOptions::default().in_workspace(workspace);
        let registry = SkillRegistry::load([SkillSource::dir("w", ws.join("skills"))], options);
        assert_eq!(
            find(registry.findings(), FindingCode::UntrustedWorkspace).severity,
            W
        );
        seen.extend(codes(&registry));
    }
    seen
}

/// A remote source holding its listing in memory (what an MCP server's
/// `skills/list` gives); its files are never read while loading.
struct Listing(Vec<tool_skills::ListedSkill>);

#[async_trait::async_trait]
impl tool_skills::RemoteSkills for Listing {
    fn describe(&self) -> String {
        "the listing".into()
    }
    async fn list(&self) -> Result<Vec<tool_skills::ListedSkill>, tool_skills::RemoteError> {
        Ok(self.0.clone())
    }
    async fn read(
        &self,
        _skill: &tool_skills::ListedSkill,
        uri: &str,
    ) -> Result<Vec<u8>, tool_skills::RemoteError> {
        panic!("loading read {uri}")
    }
}

/// remote_source_failed (a source never listed) and invalid_remote_entry.
fn remote_codes() -> BTreeSet<FindingCode> {
    use tool_skills::{ListedFile, ListedSkill};
    let listing = std::sync::Arc::new(Listing(vec![
        ListedSkill::new("mem://up/SKILL.md", "up", "Climbs out.").file(ListedFile::new(
            "../up.md",
            "mem://up.md",
            1,
        )),
    ]));
    let unlisted = SkillRegistry::load(
        [SkillSource::remote("r", listing.clone())],
        LoadOptions::default(),
    );
    let listed = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(SkillRegistry::load_listed(
            [SkillSource::remote("r", listing)],
            LoadOptions::default(),
        ));
    assert!(listed.get("up").is_none());
    let failed = find(unlisted.findings(), FindingCode::RemoteSourceFailed);
    assert_eq!((failed.file.as_str(), failed.severity), ("the listing", E));
    let invalid = find(listed.findings(), FindingCode::InvalidRemoteEntry);
    assert_eq!(invalid.file, "mem://up/SKILL.md");
    assert!(invalid.message.contains("`..`"), "{invalid}");
    unlisted
        .findings()
        .iter()
        .chain(listed.findings())
        .map(|f| f.code)
        .collect()
}

#[test]
fn every_code_is_produced_somewhere() {
    let mut seen: BTreeSet<FindingCode> = text_cases().iter().map(|c| c.code).collect();
    seen.insert(FindingCode::FileTooLarge);
    seen.insert(FindingCode::FrontmatterTooLarge);
    seen.extend(disk_codes());
    seen.extend(remote_codes());
    let missing: Vec<_> = FindingCode::ALL
        .iter()
        .filter(|c| !seen.contains(c))
        .collect();
    assert!(
        missing.is_empty(),
        "codes never produced by a test: {missing:?}"
    );
}

#[test]
fn findings_serialise_in_the_documented_shape() {
    let parsed = parse(
        "---\nname: Pdf\ndescription: x\n---\nbody\n",
        ValidationMode::Strict,
    );
    let json = serde_json::to_value(&parsed.findings[0]).unwrap();
    let keys: Vec<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["code", "file", "line", "message", "severity"]);
    assert_eq!(json["severity"], "error");
}

#[test]
fn a_builtin_skill_with_an_unusable_name_is_an_error_not_a_silent_skip() {
    let registry = SkillRegistry::load(
        [SkillSource::builtin(
            "b",
            [BuiltinSkill::new(
                "bad",
                "a\u{7}b",
                "Bell in the name.",
                "Body",
            )],
        )],
        LoadOptions::default(),
    );
    assert!(registry.get("a\u{7}b").is_none());
    let f = find(registry.findings(), FindingCode::InvalidName);
    assert!(registry.findings().iter().any(|f| f.is_error()), "{f}");
    assert_eq!(f.file, "builtin:bad");
}
