//! tool-skills: discovery + validation + catalog of 1 000 skills on disk
//! (target under 50 ms), plus the per-call costs of parsing one SKILL.md,
//! rendering a budgeted catalog, activating and reading a reference.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use tool_skills::{
    CatalogFormat, CatalogOptions, LoadOptions, ParseOptions, SkillRegistry, SkillSource,
    SkillsTool, ValidationMode, parse_skill_md,
};

const SKILLS: usize = 1_000;

fn skill_md(i: usize) -> String {
    let body: String = (0..40)
        .map(|l| format!("{l}. Step {l}: what to check, what to run, what to report.\n"))
        .collect();
    format!(
        "---\nname: skill-{i:04}\ndescription: \"Handles task family {i}. Use when the user asks about topic {i}, its files or its reports.\"\nlicense: MIT\nmetadata:\n  author: bench\n  version: \"1.{i}\"\nallowed-tools: Read Bash(git:*)\n---\n# Skill {i}\n\n{body}"
    )
}

/// 1 000 skills in 10 category folders, each with a reference and a script.
fn generate(root: &Path) {
    for i in 0..SKILLS {
        let dir = root.join(format!("group-{}/skill-{i:04}", i % 10));
        std::fs::create_dir_all(dir.join("references")).unwrap();
        std::fs::create_dir_all(dir.join("scripts")).unwrap();
        std::fs::write(dir.join("SKILL.md"), skill_md(i)).unwrap();
        std::fs::write(dir.join("references/guide.md"), "Details.\n").unwrap();
        std::fs::write(dir.join("scripts/run.sh"), "echo run\n").unwrap();
    }
}

fn bench(c: &mut Criterion) {
    let tmp = tempfile::tempdir().unwrap();
    generate(tmp.path());
    let source = || [SkillSource::dir("bench", tmp.path())];

    let mut group = c.benchmark_group("skills");
    group.sample_size(20);
    group.bench_function("load_1000_lenient_plus_catalog", |b| {
        b.iter(|| {
            let registry = SkillRegistry::load(source(), LoadOptions::default());
            let catalog = registry.catalog(&CatalogOptions::new(CatalogFormat::Xml, Some(12_000)));
            assert_eq!(catalog.entries.len(), SKILLS);
            black_box(catalog.chars)
        })
    });
    group.bench_function("load_1000_strict_plus_catalog", |b| {
        b.iter(|| {
            let registry = SkillRegistry::load(source(), LoadOptions::new(ValidationMode::Strict));
            black_box(registry.catalog(&CatalogOptions::default()).chars)
        })
    });
    group.finish();

    let registry = SkillRegistry::load(source(), LoadOptions::default());
    c.bench_function("skills/catalog_1000_budget_12000", |b| {
        let options = CatalogOptions::new(CatalogFormat::Xml, Some(12_000));
        b.iter(|| black_box(registry.catalog(&options).chars))
    });
    let texts: Vec<String> = (0..SKILLS).map(skill_md).collect();
    c.bench_function("skills/parse_1000_in_memory", |b| {
        let options = ParseOptions::new("SKILL.md", ValidationMode::Lenient);
        b.iter(|| {
            texts
                .iter()
                .map(|t| parse_skill_md(t, &options).findings.len())
                .sum::<usize>()
        })
    });
    let text = skill_md(7);
    let options =
        ParseOptions::new("skill-0007/SKILL.md", ValidationMode::Lenient).folder("skill-0007");
    c.bench_function("skills/parse_one", |b| {
        b.iter(|| black_box(parse_skill_md(black_box(&text), &options).findings.len()))
    });
    let repaired = text
        .replace(
            "description: \"Handles task family 7. Use",
            "description: Handles task family 7: use",
        )
        .replace("reports.\"", "reports.");
    c.bench_function("skills/parse_one_with_colon_repair", |b| {
        b.iter(|| {
            black_box(
                parse_skill_md(black_box(&repaired), &options)
                    .findings
                    .len(),
            )
        })
    });
    let tool = SkillsTool::new(registry);
    c.bench_function("skills/activate", |b| {
        b.iter(|| black_box(tool.activate("skill-0500").content.len()))
    });
    c.bench_function("skills/read_reference_unique_name", |b| {
        b.iter(|| black_box(tool.read_reference("skill-0500", "guide").content.len()))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
