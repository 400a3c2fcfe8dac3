//! Executor-side tools of the suite.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;
use tool_core::{
    ApiDefinition, ErrorCode, FnTool, ToolBuilder, ToolContext, ToolError, ToolOutput,
};

/// Counts the calls of the `device` tool that saw their cancellation.
#[derive(Debug, Default, Clone)]
pub struct Observed {
    pub stopped: Arc<AtomicUsize>,
}

impl Observed {
    pub fn stopped(&self) -> usize {
        self.stopped.load(Ordering::SeqCst)
    }
}

/// `device`: `echo` (content = the `n` argument), `hang` (runs until
/// stopped, counting the stop), `sleep` (`ms`), `boom` (panics), `locked`
/// (a tool error with its own code).
pub fn device(observed: &Observed) -> FnTool {
    let stopped = Arc::clone(&observed.stopped);
    ToolBuilder::new("device")
        .api(
            ApiDefinition::new("echo", "Echoes n."),
            |args, _| async move {
                let n = args.get("n").cloned().unwrap_or(json!(null));
                Ok(ToolOutput::with_state(n.to_string(), json!({ "n": n })))
            },
        )
        .api(
            ApiDefinition::new("hang", "Never finishes."),
            move |_, ctx: ToolContext| {
                let stopped = Arc::clone(&stopped);
                async move {
                    ctx.cancellation().cancelled().await;
                    stopped.fetch_add(1, Ordering::SeqCst);
                    Ok(ToolOutput::text("stopped"))
                }
            },
        )
        .api(
            ApiDefinition::new("sleep", "Sleeps ms."),
            |args, _| async move {
                let ms = args.get("ms").and_then(|v| v.as_u64()).unwrap_or(0);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                Ok(ToolOutput::text(format!("slept {ms}")))
            },
        )
        .api(ApiDefinition::new("boom", "Panics."), |_, _| async move {
            if std::hint::black_box(true) {
                panic!("the device tool exploded");
            }
            Ok(ToolOutput::text("unreachable"))
        })
        .api(ApiDefinition::new("locked", "Fails."), |_, _| async move {
            Err(ToolError::new(
                ErrorCode::new("device_locked"),
                "the device is locked; unlock it and retry",
            ))
        })
        .build()
        .expect("device tool")
}
