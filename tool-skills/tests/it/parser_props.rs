//! Property tests of the frontmatter parser (the fuzz target's CI twin).

use proptest::prelude::*;
use tool_skills::{ParseOptions, ValidationMode, maintain, parse_skill_md};

fn options(mode: ValidationMode) -> ParseOptions {
    ParseOptions::new("x/SKILL.md", mode).folder("x")
}

proptest! {
    #[test]
    fn any_text_gives_findings_never_a_panic(text in "\\PC{0,400}", mode in prop_oneof![Just(ValidationMode::Strict), Just(ValidationMode::Lenient)]) {
        let parsed = parse_skill_md(&text, &options(mode));
        if parsed.document.is_none() {
            prop_assert!(parsed.findings.iter().any(|f| f.is_error()));
        }
        for f in &parsed.findings {
            prop_assert!(f.line.is_none_or(|l| l >= 1 && l <= text.lines().count().max(1) + 2), "{f}");
        }
    }

    #[test]
    fn yamlish_text_never_panics(
        lines in proptest::collection::vec(
            prop_oneof![
                Just("name: x".to_owned()), Just("description: d".to_owned()), Just("---".to_owned()),
                Just("description: a: b".to_owned()), Just("metadata:".to_owned()), Just("  k: v".to_owned()),
                Just("  - item".to_owned()), Just("allowed-tools: [a, 1]".to_owned()), Just("&a [*a]".to_owned()),
                Just("\u{feff}".to_owned()), Just("\r".to_owned()), "[a-z:\\-\"' |>]{0,20}",
            ],
            0..12,
        )
    ) {
        let text = lines.join("\n");
        let _ = parse_skill_md(&text, &options(ValidationMode::Lenient));
        let _ = parse_skill_md(&text, &options(ValidationMode::Strict));
    }

    #[test]
    fn written_skills_read_back_exactly(description in "[^\\p{C}]{1,300}", body in "[^\\p{C}]{0,200}") {
        prop_assume!(!description.trim().is_empty());
        let root = tempfile::tempdir().unwrap();
        maintain::create(root.path(), "x", description.trim(), &body).unwrap();
        let text = std::fs::read_to_string(root.path().join("x/SKILL.md")).unwrap();
        let parsed = parse_skill_md(&text, &options(ValidationMode::Strict));
        let doc = parsed.document.unwrap();
        prop_assert_eq!(doc.description, description.trim());
        prop_assert_eq!(doc.body, body.trim());
    }
}
