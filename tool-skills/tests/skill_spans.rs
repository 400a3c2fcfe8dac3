//! Skill load and read spans, in a test binary of their own: tracing caches
//! each call site's interest process-wide, so a test running beside others
//! that reach the same call sites without a subscriber can miss its spans.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::sync::Arc;

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

/// Field values recorded on the spans named in `names`.
#[derive(Clone, Default)]
struct SpanFields(Arc<std::sync::Mutex<Vec<(String, String, String)>>>);

struct Visitor<'a>(&'a SpanFields, String);

impl tracing::field::Visit for Visitor<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.record_str(field, format!("{value:?}").trim_matches('"'));
    }
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        let mut all = self.0.0.lock().unwrap();
        all.push((self.1.clone(), field.name().to_owned(), value.to_owned()));
    }
}

impl<S> tracing_subscriber::Layer<S> for SpanFields
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    fn on_new_span(
        &self,
        attrs: &tracing::span::Attributes<'_>,
        id: &tracing::span::Id,
        _: tracing_subscriber::layer::Context<'_, S>,
    ) {
        let key = format!("{}#{}", attrs.metadata().name(), id.into_u64());
        attrs.record(&mut Visitor(self, key));
    }
    fn on_record(
        &self,
        id: &tracing::span::Id,
        values: &tracing::span::Record<'_>,
        ctx: tracing_subscriber::layer::Context<'_, S>,
    ) {
        let name = ctx.span(id).map(|s| s.name()).unwrap_or_default();
        values.record(&mut Visitor(self, format!("{name}#{}", id.into_u64())));
    }
}

impl SpanFields {
    /// `span name` → fields, in the order the spans opened.
    fn spans(&self) -> Vec<(String, Vec<(String, String)>)> {
        let mut out: Vec<(String, Vec<(String, String)>)> = Vec::new();
        for (key, field, value) in self.0.lock().unwrap().iter() {
            match out.iter_mut().find(|(k, _)| k == key) {
                Some((_, fields)) => fields.push((field.clone(), value.clone())),
                None => out.push((key.clone(), vec![(field.clone(), value.clone())])),
            }
        }
        out.into_iter()
            .map(|(k, f)| (k.split('#').next().unwrap_or_default().to_owned(), f))
            .collect()
    }
}

#[test]
fn loads_and_reads_run_in_skill_spans_naming_the_skill_and_file_never_the_request() {
    use tracing_subscriber::layer::SubscriberExt;
    let fields = SpanFields::default();
    let _guard =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(fields.clone()));
    let (_root, registry) = fixture();
    let tool = SkillsTool::new(registry);
    assert!(tool.activate("pdf").success);
    assert!(tool.read_reference("pdf", "forms").success);
    let escape = tool.read_reference("pdf", "../../etc/private-target");
    assert_eq!(escape.error_code().unwrap().as_str(), "path_not_allowed");

    let spans = fields.spans();
    let get = |index: usize, name: &str| {
        spans[index]
            .1
            .iter()
            .rev()
            .find(|(k, v)| k == name && !v.is_empty())
            .map(|(_, v)| v.clone())
    };
    assert_eq!(spans.len(), 3, "{spans:?}");
    assert_eq!(spans[0].0, "load_skill");
    assert_eq!(get(0, "gen_ai.skill.name").as_deref(), Some("pdf"));
    assert_eq!(spans[1].0, "read_skill_resource");
    assert_eq!(get(1, "gen_ai.skill.name").as_deref(), Some("pdf"));
    assert_eq!(
        get(1, "gen_ai.skill.resource.name").as_deref(),
        Some("references/forms.md")
    );
    assert_eq!(spans[2].0, "read_skill_resource");
    assert_eq!(get(2, "error.type").as_deref(), Some("path_not_allowed"));
    assert!(
        !format!("{spans:?}").contains("private-target"),
        "{spans:?}"
    );
}
