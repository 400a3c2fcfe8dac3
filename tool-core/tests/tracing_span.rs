//! Each call runs inside a `tool_call` span recording tool, API, duration and outcome.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, Mutex};

use tool_core::{
    ApiDefinition, Invoker, ToolBuilder, ToolCall, ToolContext, ToolOutput, ToolRegistry,
};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

#[derive(Default, Clone)]
struct Recorded(Arc<Mutex<Vec<(String, String)>>>);

struct Fields<'a>(&'a mut Vec<(String, String)>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.push((
            field.name().to_owned(),
            format!("{value:?}").trim_matches('"').to_owned(),
        ));
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.push((field.name().to_owned(), value.to_string()));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.push((field.name().to_owned(), value.to_owned()));
    }
}

impl<S: tracing::Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Recorded {
    fn on_new_span(&self, attrs: &Attributes<'_>, _: &Id, _: Context<'_, S>) {
        if attrs.metadata().name() == "tool_call" {
            attrs.record(&mut Fields(&mut self.0.lock().unwrap()));
        }
    }
    fn on_record(&self, _: &Id, values: &Record<'_>, _: Context<'_, S>) {
        values.record(&mut Fields(&mut self.0.lock().unwrap()));
    }
}

#[tokio::test]
async fn a_call_records_tool_api_duration_and_outcome() {
    let recorded = Recorded::default();
    let subscriber = tracing_subscriber::registry().with(recorded.clone());
    let _guard = tracing::subscriber::set_default(subscriber);

    let mut registry = ToolRegistry::new();
    registry
        .register(
            ToolBuilder::new("clock")
                .api(ApiDefinition::new("now", "Now."), |_, _| async {
                    Ok(ToolOutput::text("noon"))
                })
                .build()
                .unwrap(),
        )
        .unwrap();
    let out = Invoker::default()
        .invoke_in(
            &registry,
            &ToolCall::new("clock____now", "{}").with_id("call-1"),
            &ToolContext::new(),
        )
        .await;
    assert!(out.success);

    let fields = recorded.0.lock().unwrap().clone();
    let get = |name: &str| {
        fields
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(get("tool").as_deref(), Some("clock"));
    assert_eq!(get("api").as_deref(), Some("now"));
    assert_eq!(get("call_id").as_deref(), Some("call-1"));
    assert_eq!(get("outcome").as_deref(), Some("success"));
    assert!(get("duration_ms").is_some());
}
