//! The skills row of `benches/run`: discovery + validation + catalog of
//! 1 000 skills on disk (each a folder with a `SKILL.md` of ~1.5 KB and a
//! reference file), target under 50 ms. No peer: the target is absolute.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use tool_skills::{CatalogOptions, LoadOptions, SkillRegistry, SkillSource};

const SKILLS: usize = 1_000;

fn write_skills(root: &Path) {
    let body: String = (0..30)
        .map(|l| format!("{l}. Step {l} of the procedure, with the details an agent needs.\n"))
        .collect();
    for i in 0..SKILLS {
        let dir = root.join(format!("skill-{i:04}"));
        std::fs::create_dir_all(dir.join("references")).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            format!(
                "---\nname: skill-{i:04}\ndescription: Handles task family {i}: when the user asks \
                 about topic {i}, follow these steps.\nlicense: MIT\nmetadata:\n  version: \"1.{i}\"\n\
                 ---\n# Skill {i}\n\n{body}"
            ),
        )
        .unwrap();
        std::fs::write(dir.join("references/guide.md"), "Details.\n").unwrap();
    }
}

fn load(root: &Path) -> (usize, usize) {
    let registry = SkillRegistry::load(
        [SkillSource::dir("project", root.to_path_buf())],
        LoadOptions::default(),
    );
    let catalog = registry.catalog(&CatalogOptions::default());
    (registry.skills().count(), catalog.text.len())
}

fn bench(c: &mut Criterion) {
    let tree = tempfile::tempdir().unwrap();
    write_skills(tree.path());
    let registry = SkillRegistry::load(
        [SkillSource::dir("project", tree.path().to_path_buf())],
        LoadOptions::default(),
    );
    assert_eq!(
        registry.skills().count(),
        SKILLS,
        "{:?}",
        registry.findings()
    );
    let catalog = registry.catalog(&CatalogOptions::default());
    assert!(catalog.text.contains("<name>skill-0999</name>"));

    let mut group = c.benchmark_group("peers_skills");
    group.sample_size(20);
    group.bench_function("load_and_catalog_1000", |b| {
        b.iter(|| black_box(load(black_box(tree.path()))))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
