//! Any bytes as a SKILL.md, in both modes: findings, never a panic; a
//! loaded document always has a non-empty name and description, and every
//! line a finding names exists in the (normalised) file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_skills::{ParseOptions, ValidationMode, parse_skill_md};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let lines = text.split(['\n', '\r']).count() + 2;
    for mode in [ValidationMode::Strict, ValidationMode::Lenient] {
        let parsed = parse_skill_md(text, &ParseOptions::new("fuzz/SKILL.md", mode).folder("fuzz"));
        if let Some(doc) = &parsed.document {
            assert!(!doc.name.is_empty());
            assert!(!doc.description.is_empty());
        } else {
            assert!(parsed.findings.iter().any(|f| f.is_error()));
        }
        for finding in &parsed.findings {
            if let Some(line) = finding.line {
                assert!(line >= 1 && line <= lines, "{finding}");
            }
        }
    }
});
