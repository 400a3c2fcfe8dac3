//! An in-memory `tracing` layer, and the same records read from JSON lines.

use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

use serde_json::Value;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

/// One span or event as a subscriber saw it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Seen {
    /// The span's name, or the event's (`gate.decision`; an event without
    /// a name has its callsite's, `event file:line`).
    pub name: String,
    /// The enclosing span's name: a span's parent, an event's span.
    pub parent: Option<String>,
    /// The callsite's target (the crate and module that emitted it).
    pub target: String,
    /// Whether this is an event (else a span).
    pub event: bool,
    /// Every field as text, in the order recorded (a span's later
    /// `record` calls appended).
    pub fields: Vec<(String, String)>,
}

impl Seen {
    /// The field's last recorded value.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Reads records written one JSON object a line, each
    /// `{"kind": "span" | "event", "name", "parent"?, "target", "fields": {NAME: TEXT}}`
    /// (what `toolhost` writes to `TOOLHOST_TRACE_FILE`). Blank lines are
    /// skipped; anything else that does not have this shape is an error
    /// naming the line.
    pub fn from_json_lines(text: &str) -> Result<Vec<Seen>, String> {
        let mut seen = Vec::new();
        for (index, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let bad = |why: &str| format!("line {}: {why}: {line}", index + 1);
            let value: Value = serde_json::from_str(line).map_err(|e| bad(&e.to_string()))?;
            let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
            let event = match value.get("kind").and_then(Value::as_str) {
                Some("span") => false,
                Some("event") => true,
                _ => return Err(bad("`kind` is neither \"span\" nor \"event\"")),
            };
            let fields = value
                .get("fields")
                .and_then(Value::as_object)
                .ok_or_else(|| bad("no `fields` object"))?
                .iter()
                .map(|(k, v)| {
                    let v = v.as_str().map_or_else(|| v.to_string(), str::to_owned);
                    (k.clone(), v)
                })
                .collect();
            seen.push(Seen {
                name: text("name").ok_or_else(|| bad("no `name`"))?,
                parent: text("parent"),
                target: text("target").unwrap_or_default(),
                event,
                fields,
            });
        }
        Ok(seen)
    }
}

/// A `tracing` layer keeping every span and event in memory; clones share
/// the records.
///
/// [`Collected::install`] sets it as the thread's default subscriber (on a
/// current-thread runtime, the whole test's); a test that needs other
/// layers adds it with `tracing_subscriber::registry().with(collected)`.
#[derive(Debug, Default, Clone)]
pub struct Collected {
    spans: Arc<Mutex<Vec<(u64, Seen)>>>,
    events: Arc<Mutex<Vec<Seen>>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A test that panicked while holding it left whole records behind.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Collected {
    /// A new collector, set as this thread's default subscriber until the
    /// guard drops.
    pub fn install() -> (Self, tracing::subscriber::DefaultGuard) {
        // tracing-core decides a callsite's interest once, from every live
        // dispatcher, or, while only one was ever registered, from the
        // registering thread's own default alone: a callsite another test's
        // thread hits first would then be disabled for good (another test
        // of the same binary logs nothing at all, so this one records
        // nothing). A second dispatcher, kept for the whole process, makes
        // every registration ask them all.
        static OTHER: OnceLock<tracing::Dispatch> = OnceLock::new();
        OTHER.get_or_init(|| tracing::Dispatch::new(tracing::subscriber::NoSubscriber::default()));
        let collected = Self::default();
        let subscriber = tracing_subscriber::registry().with(collected.clone());
        (collected, tracing::subscriber::set_default(subscriber))
    }

    /// The spans named `name`, in the order they were opened.
    pub fn spans(&self, name: &str) -> Vec<Seen> {
        lock(&self.spans)
            .iter()
            .filter(|(_, s)| s.name == name)
            .map(|(_, s)| s.clone())
            .collect()
    }

    /// The events named `name`, in order.
    pub fn events(&self, name: &str) -> Vec<Seen> {
        self.events_where(|e| e.name == name)
    }

    /// The events `keep` says yes to, in order (e.g. the ones carrying a
    /// metric's field).
    pub fn events_where(&self, keep: impl Fn(&Seen) -> bool) -> Vec<Seen> {
        lock(&self.events)
            .iter()
            .filter(|e| keep(e))
            .cloned()
            .collect()
    }

    /// Every span and every event, as one text to search for values that
    /// must never be traced.
    pub fn all_text(&self) -> String {
        self.text_where(|_| true)
    }

    /// Every span, and the events `keep` says yes to, as one text (e.g.
    /// only our crates' events where a dependency logs whole requests at
    /// `debug`).
    pub fn text_where(&self, keep: impl Fn(&Seen) -> bool) -> String {
        let spans: Vec<Seen> = lock(&self.spans).iter().map(|(_, s)| s.clone()).collect();
        format!("{spans:?}{:?}", self.events_where(keep))
    }
}

struct Fields<'a>(&'a mut Vec<(String, String)>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.push((
            field.name().to_owned(),
            format!("{value:?}").trim_matches('"').to_owned(),
        ));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.push((field.name().to_owned(), value.to_owned()));
    }
}

impl<S: tracing::Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Collected {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut seen = Seen {
            name: attrs.metadata().name().to_owned(),
            parent: ctx
                .span(id)
                .and_then(|span| span.parent())
                .map(|parent| parent.name().to_owned()),
            target: attrs.metadata().target().to_owned(),
            event: false,
            fields: Vec::new(),
        };
        attrs.record(&mut Fields(&mut seen.fields));
        lock(&self.spans).push((id.into_u64(), seen));
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _: Context<'_, S>) {
        let mut spans = lock(&self.spans);
        // Ids are reused once a span closes: the latest holder is this one.
        if let Some((_, seen)) = spans.iter_mut().rev().find(|(i, _)| *i == id.into_u64()) {
            values.record(&mut Fields(&mut seen.fields));
        }
    }

    fn on_event(&self, event: &tracing::Event<'_>, ctx: Context<'_, S>) {
        let mut seen = Seen {
            name: event.metadata().name().to_owned(),
            parent: ctx.event_span(event).map(|s| s.name().to_owned()),
            target: event.metadata().target().to_owned(),
            event: true,
            fields: Vec::new(),
        };
        event.record(&mut Fields(&mut seen.fields));
        lock(&self.events).push(seen);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_lines_read_back_into_records() {
        let text = concat!(
            r#"{"kind":"span","name":"tools/call","parent":null,"target":"tool_mcp","fields":{"otel.kind":"server","n":3}}"#,
            "\n\n",
            r#"{"kind":"event","name":"gate.decision","parent":"execute_tool","target":"tool_core","fields":{}}"#,
        );
        let seen = Seen::from_json_lines(text).unwrap();
        assert_eq!(seen.len(), 2);
        assert_eq!(seen[0].get("otel.kind"), Some("server"));
        assert_eq!(seen[0].get("n"), Some("3"));
        assert!(!seen[0].event && seen[1].event);
        assert_eq!(seen[1].parent.as_deref(), Some("execute_tool"));
    }

    #[test]
    fn a_line_of_another_shape_is_an_error_naming_it() {
        let err = Seen::from_json_lines("{\"kind\":\"span\"}\n{\"kind\":1}").unwrap_err();
        assert!(err.starts_with("line 1: "), "{err}");
        let err =
            Seen::from_json_lines("\n{\"kind\":\"log\",\"name\":\"x\",\"fields\":{}}").unwrap_err();
        assert!(err.starts_with("line 2: `kind`"), "{err}");
        assert!(Seen::from_json_lines("not json").is_err());
    }
}
