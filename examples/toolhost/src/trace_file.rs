//! `TOOLHOST_TRACE_FILE=PATH`: the spans and events of the tool-layer
//! crates, appended to PATH one JSON object a line, so a test or a person
//! can see what a host's subscriber would (a production host exports the
//! same spans with `tracing-opentelemetry` instead; see `examples/otel`).
//!
//! Each line is `{"kind": "span" | "event", "name", "parent", "target",
//! "fields": {NAME: TEXT}}`: a span when it closes, with every field
//! recorded on it by then (`trace_id`, `span_id` and `parent_span_id` on
//! MCP spans join this process's spans to the client's); an event when it
//! happens. Only callsites of our crates (targets `tool_*`) are enabled:
//! the crates record names, ids, outcomes and error classes, never an
//! argument value or a credential, while a dependency's debug events may
//! log whole requests.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::sync::Mutex;

use serde_json::{Map, Value, json};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Event, Metadata, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

use crate::Failure;

/// The environment variable naming the file.
pub const TRACE_FILE_VAR: &str = "TOOLHOST_TRACE_FILE";

/// Installs the file's subscriber as the process's default when
/// [`TRACE_FILE_VAR`] is set (and not empty); a file that cannot be opened
/// is a source failure naming it.
pub fn install() -> Result<(), Failure> {
    let Some(path) = std::env::var_os(TRACE_FILE_VAR).filter(|p| !p.is_empty()) else {
        return Ok(());
    };
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| {
            Failure::Source(format!(
                "{TRACE_FILE_VAR}={}: {e}",
                std::path::Path::new(&path).display()
            ))
        })?;
    let subscriber = tracing_subscriber::registry().with(JsonLines(Mutex::new(file)));
    tracing::subscriber::set_global_default(subscriber)
        .map_err(|e| Failure::Source(format!("{TRACE_FILE_VAR}: {e}")))
}

/// The layer: one line per closed span and per event.
struct JsonLines(Mutex<File>);

/// A span's fields so far, kept in its extensions until it closes.
struct Fields(Map<String, Value>);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        let text = format!("{value:?}");
        self.0.insert(
            field.name().to_owned(),
            Value::String(text.trim_matches('"').to_owned()),
        );
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0
            .insert(field.name().to_owned(), Value::String(value.to_owned()));
    }
}

impl JsonLines {
    fn write(
        &self,
        kind: &str,
        meta: &Metadata<'_>,
        parent: Option<&str>,
        fields: Map<String, Value>,
    ) {
        let line = json!({
            "kind": kind,
            "name": meta.name(),
            "parent": parent,
            "target": meta.target(),
            "fields": fields,
        });
        let mut file = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // One write per line, so lines of concurrent spans never interleave;
        // a full disk loses trace lines, never the call.
        let _ = file.write_all(format!("{line}\n").as_bytes());
    }
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for JsonLines {
    fn register_callsite(&self, meta: &'static Metadata<'static>) -> Interest {
        if meta.target().starts_with("tool_") {
            Interest::always()
        } else {
            Interest::never()
        }
    }

    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut fields = Fields(Map::new());
        attrs.record(&mut fields);
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(fields);
        }
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(id)
            && let Some(fields) = span.extensions_mut().get_mut::<Fields>()
        {
            values.record(fields);
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let mut fields = Fields(Map::new());
        event.record(&mut fields);
        let parent = ctx.event_span(event).map(|s| s.name());
        self.write("event", event.metadata(), parent, fields.0);
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(&id) else { return };
        let fields = span
            .extensions_mut()
            .remove::<Fields>()
            .map_or_else(Map::new, |f| f.0);
        let parent = span.parent().map(|p| p.name());
        self.write("span", span.metadata(), parent, fields);
    }
}
