//! Catalog renderings, escaping and the budget's defined degradation.

use proptest::prelude::*;
use tool_skills::{
    BuiltinSkill, CatalogFormat, CatalogOptions, EntryStatus, LoadOptions, SkillRegistry,
    SkillSource,
};

fn registry(skills: &[(&str, &str)]) -> SkillRegistry {
    SkillRegistry::load(
        [SkillSource::builtin(
            "builtin",
            skills
                .iter()
                .map(|(name, description)| BuiltinSkill::new(*name, *name, *description, "Body")),
        )],
        LoadOptions::default(),
    )
}

fn sample() -> SkillRegistry {
    let long = "Extracts text and tables from PDF files, fills PDF forms and merges several PDFs into one. Use when the user mentions PDFs, forms or document extraction.";
    registry(&[
        ("alpha", long),
        ("bravo", long),
        ("charlie", long),
        ("delta", "Short one."),
    ])
}

#[test]
fn xml_is_escaped_and_well_formed() {
    let r = registry(&[("x", "Use <b> & \"quotes\" when 'asked'\u{1}.")]);
    let catalog = r.catalog(&CatalogOptions::default());
    assert_eq!(
        catalog.text,
        "<available_skills>\n  <skill>\n    <name>x</name>\n    <description>Use &lt;b&gt; &amp; &quot;quotes&quot; when &apos;asked&apos;.</description>\n  </skill>\n</available_skills>"
    );
    assert!(!catalog.is_degraded());
}

#[test]
fn markdown_and_json_renderings() {
    let r = registry(&[("a-skill", "Does *a*.\nOn two lines."), ("b", "Does b.")]);
    let md = r.catalog(&CatalogOptions::new(CatalogFormat::Markdown, None));
    assert_eq!(
        md.text,
        "## Available skills\n\n- **a-skill**: Does *a*. On two lines.\n- **b**: Does b.\n"
    );
    let json = r.catalog(&CatalogOptions::new(CatalogFormat::Json, None));
    let parsed: serde_json::Value = serde_json::from_str(&json.text).unwrap();
    assert_eq!(parsed[1]["name"], "b");
    assert_eq!(parsed[0]["description"], "Does *a*. On two lines.");
}

#[test]
fn location_is_included_on_request() {
    let r = registry(&[("x", "X.")]);
    let mut options = CatalogOptions::default();
    options.include_location = true;
    assert!(
        r.catalog(&options)
            .text
            .contains("<location>builtin:x</location>")
    );
}

#[test]
fn step_one_shortens_descriptions_evenly() {
    let r = sample();
    let full = r.catalog(&CatalogOptions::default()).chars;
    let catalog = r.catalog(&CatalogOptions::new(CatalogFormat::Xml, Some(full - 60)));
    assert!(catalog.chars <= full - 60);
    assert_eq!(catalog.shortened(), ["alpha", "bravo", "charlie"]);
    assert!(catalog.names_only().is_empty() && catalog.omitted().is_empty());
    let EntryStatus::Shortened {
        original_chars,
        kept_chars,
    } = catalog.entries[0].status
    else {
        panic!()
    };
    assert!(kept_chars < original_chars && kept_chars >= 48);
    assert!(catalog.text.contains("…</description>"));
    assert!(catalog.text.contains("Short one."));
}

#[test]
fn step_two_drops_descriptions_from_the_end() {
    let r = sample();
    let budget = 330;
    let catalog = r.catalog(&CatalogOptions::new(CatalogFormat::Xml, Some(budget)));
    assert!(catalog.chars <= budget, "{} > {budget}", catalog.chars);
    assert!(!catalog.names_only().is_empty());
    assert_eq!(catalog.names_only().last(), Some(&"delta"));
    assert!(catalog.omitted().is_empty());
    assert!(
        catalog
            .text
            .contains("<skill>\n    <name>delta</name>\n  </skill>")
    );
}

#[test]
fn step_three_omits_from_the_end_with_a_note() {
    let r = sample();
    let catalog = r.catalog(&CatalogOptions::new(CatalogFormat::Xml, Some(160)));
    assert!(catalog.chars <= 160, "{}", catalog.text);
    assert_eq!(catalog.names_only().len() + catalog.omitted().len(), 4);
    assert!(catalog.omitted().contains(&"delta"));
    let n = catalog.omitted().len();
    assert!(
        catalog
            .text
            .contains(&format!("<!-- {n} more skills left out"))
    );
    let tiny = r.catalog(&CatalogOptions::new(CatalogFormat::Xml, Some(10)));
    assert_eq!(tiny.text, "");
    assert_eq!(tiny.omitted().len(), 4);
    let report = tiny.report();
    assert_eq!(report["omitted"].as_array().unwrap().len(), 4);
}

#[test]
fn no_skills_means_no_catalog() {
    let r = registry(&[]);
    assert_eq!(r.catalog(&CatalogOptions::default()).text, "");
}

proptest! {
    // Seeds beside this file (`catalog.proptest-regressions`): the default
    // would look beside the binary's `main.rs`.
    #![proptest_config(ProptestConfig {
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::WithSource("proptest-regressions"),
        )),
        ..ProptestConfig::default()
    })]

    #[test]
    fn the_budget_is_never_exceeded_and_every_skill_is_accounted_for(
        descriptions in proptest::collection::vec("[a-zA-Z][a-zA-Z <>&\"' ]{0,300}", 1..30),
        budget in 0usize..6000,
        format in prop_oneof![Just(CatalogFormat::Xml), Just(CatalogFormat::Markdown), Just(CatalogFormat::Json)],
    ) {
        let names: Vec<String> = (0..descriptions.len()).map(|i| format!("skill-{i:02}")).collect();
        let pairs: Vec<(&str, &str)> = names.iter().map(String::as_str).zip(descriptions.iter().map(String::as_str)).collect();
        let r = registry(&pairs);
        let catalog = r.catalog(&CatalogOptions::new(format, Some(budget)));
        prop_assert!(catalog.chars <= budget, "{} > {}", catalog.chars, budget);
        prop_assert_eq!(catalog.entries.len(), names.len());
        for entry in &catalog.entries {
            let listed = catalog.text.contains(&entry.name);
            prop_assert_eq!(listed, entry.status != EntryStatus::Omitted, "{}", entry.name);
        }
        if format == CatalogFormat::Json && !catalog.text.is_empty() {
            prop_assert!(serde_json::from_str::<serde_json::Value>(&catalog.text).is_ok());
        }
    }
}
