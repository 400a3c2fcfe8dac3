//! The invocation pipeline: raw model call → exactly one [`ToolOutput`].

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use futures::FutureExt;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::time::Instant;
use tracing::Instrument;

use crate::arguments::parse_arguments;
use crate::confine::Confinement;
use crate::context::ToolContext;
use crate::declare::ApiDefinition;
use crate::gate::{Asker, Gate, Verdict};
use crate::offered::OfferedTools;
use crate::output::{ErrorCode, ToolError, ToolOutput};
use crate::prepared::PreparedCall;
use crate::registry::ToolRegistry;
use crate::telemetry::{CallTrace, TracedGate};

/// The global default time budget of a call: 120 s.
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// The shortest time budget a call can get: 1 s.
pub const MIN_TIMEOUT_MS: u64 = 1_000;
/// The longest time budget a call can get: 800 s.
pub const MAX_TIMEOUT_MS: u64 = 800_000;
/// Default cap on the characters of `content` sent to the model.
pub const DEFAULT_MAX_CONTENT_CHARS: usize = 25_000;

/// A function call exactly as a model produced it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's call id, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The function name (a wire name, or a bare API name).
    pub name: String,
    /// The raw arguments text.
    #[serde(default)]
    pub arguments: String,
}

impl ToolCall {
    /// A call without an id.
    pub fn new(name: impl Into<String>, arguments: impl Into<String>) -> Self {
        Self {
            id: None,
            name: name.into(),
            arguments: arguments.into(),
        }
    }

    /// Sets the call id.
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }

    /// The call id, minting one (see [`mint_call_id`]) when the model sent
    /// none or an empty one. Call this before invoking when the host needs
    /// the id the tool will see (to pair the result with the call).
    pub fn ensure_id(&mut self) -> &str {
        if self.id.as_deref().is_none_or(str::is_empty) {
            self.id = Some(mint_call_id());
        }
        self.id.as_deref().unwrap_or_default()
    }
}

/// A fresh call id, `call_` + 24 hex digits: unique within the process
/// (a counter) and, with overwhelming likelihood, across processes (seeded
/// from the clock and the process id). Used by the [`Invoker`] when a model
/// sent no id; ids a provider sent are kept as they are.
///
/// ```
/// let a = tool_core::pipeline::mint_call_id();
/// assert!(a.starts_with("call_") && a.len() == 29);
/// assert_ne!(a, tool_core::pipeline::mint_call_id());
/// assert!(a[5..].bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
/// ```
pub fn mint_call_id() -> String {
    static SEED: OnceLock<u64> = OnceLock::new();
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let seed = *SEED.get_or_init(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        splitmix64(nanos ^ (u64::from(std::process::id()) << 32))
    });
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    // "call_" + 16 + 8 hex digits, written without the formatting machinery
    // (this runs once per call the model sent without an id).
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut id = String::with_capacity(29);
    id.push_str("call_");
    let random = splitmix64(seed.wrapping_add(n));
    for shift in (0..16).rev() {
        id.push(char::from(HEX[((random >> (shift * 4)) & 0xf) as usize]));
    }
    let count = n as u32;
    for shift in (0..8).rev() {
        id.push(char::from(HEX[((count >> (shift * 4)) & 0xf) as usize]));
    }
    id
}

fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Settings of the pipeline.
///
/// Defaults: content capped at 25 000 characters; timeouts default to
/// 120 000 ms and are clamped to [1 000, 800 000] ms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvokeConfig {
    /// Cap on `content` characters; head and tail are kept around a notice.
    pub max_content_chars: usize,
    /// Budget when neither the call nor the API sets one.
    pub default_timeout_ms: u64,
    /// Lower clamp of every budget.
    pub min_timeout_ms: u64,
    /// Upper clamp of every budget.
    pub max_timeout_ms: u64,
}

impl Default for InvokeConfig {
    fn default() -> Self {
        Self {
            max_content_chars: DEFAULT_MAX_CONTENT_CHARS,
            default_timeout_ms: DEFAULT_TIMEOUT_MS,
            min_timeout_ms: MIN_TIMEOUT_MS,
            max_timeout_ms: MAX_TIMEOUT_MS,
        }
    }
}

impl InvokeConfig {
    /// The time budget of a call to `api` with `args`.
    ///
    /// Order: the call's own `timeout` argument if it is a finite positive
    /// number (milliseconds, truncated), else the API's `defaultTimeoutMs`,
    /// else [`InvokeConfig::default_timeout_ms`]; the result is clamped to
    /// `[min_timeout_ms, max_timeout_ms]`. The clamp is the only judge: a
    /// model can suggest, a tool author can default, neither can exceed it.
    pub fn resolve_timeout(&self, api: &ApiDefinition, args: &Value) -> Duration {
        let from_call = args
            .get("timeout")
            .and_then(Value::as_f64)
            .filter(|t| t.is_finite() && *t > 0.0)
            .map(|t| t.trunc().min(u64::MAX as f64) as u64);
        let ms = from_call
            .or(api.default_timeout_ms)
            .unwrap_or(self.default_timeout_ms)
            .clamp(
                self.min_timeout_ms,
                self.max_timeout_ms.max(self.min_timeout_ms),
            );
        Duration::from_millis(ms)
    }
}

/// Runs model calls through the pipeline.
///
/// ```
/// use tool_core::{ApiDefinition, Invoker, ToolBuilder, ToolCall, ToolContext, ToolOutput, ToolRegistry};
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let mut registry = ToolRegistry::new();
/// registry.register(ToolBuilder::new("clock")
///     .api(ApiDefinition::new("now", "Current time."), |_, _| async { Ok(ToolOutput::text("noon")) })
///     .build()?)?;
/// let ctx = ToolContext::new();
/// let offered = registry.offer(&ctx);
/// let out = Invoker::default().invoke(&offered, &ToolCall::new("clock____now", ""), &ctx).await;
/// assert!(out.success);
/// let out = Invoker::default().invoke(&offered, &ToolCall::new("clock____now", "{\"a\":"), &ctx).await;
/// assert_eq!(out.error_code().unwrap(), "truncated_arguments");
/// # Ok::<(), tool_core::Error>(())
/// # }).unwrap();
/// ```
///
/// # With a gate
///
/// [`with_gate`](Self::with_gate) and [`with_asker`](Self::with_asker) make
/// approval a step of [`invoke`](Self::invoke) and
/// [`invoke_batch`](Self::invoke_batch): decide, ask, run under the
/// decision's confinement, one output per call (see the [`gate`](crate::Gate)
/// flow). Without a gate every prepared call runs, as before.
/// [`execute`](Self::execute) is the raw step and never consults the gate.
#[derive(Clone, Default)]
pub struct Invoker {
    config: InvokeConfig,
    gate: Option<Arc<dyn Gate>>,
    asker: Option<Arc<dyn Asker>>,
    session: Option<Arc<crate::taint::Session>>,
}

impl std::fmt::Debug for Invoker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Invoker")
            .field("config", &self.config)
            .field("gate", &self.gate.is_some())
            .field("asker", &self.asker.is_some())
            .field("session", &self.session.is_some())
            .finish()
    }
}

impl Invoker {
    /// A pipeline with `config`.
    pub fn new(config: InvokeConfig) -> Self {
        Self {
            config,
            gate: None,
            asker: None,
            session: None,
        }
    }

    /// The same pipeline deciding every call with `gate` before it runs.
    pub fn with_gate(mut self, gate: Arc<dyn Gate>) -> Self {
        self.gate = Some(gate);
        self
    }

    /// The same pipeline putting the gate's asks to `asker`. Without one, an
    /// ask does not run and gets [`ToolOutput::approval_required`].
    pub fn with_asker(mut self, asker: Arc<dyn Asker>) -> Self {
        self.asker = Some(asker);
        self
    }

    /// The same pipeline keeping `session`'s ledger: every call that runs
    /// is recorded as it completes, with the values its output delivered
    /// when its API reads private data or returns untrusted content (see
    /// [`taint`](crate::taint)). Pair it with a
    /// [`TaintGate`](crate::taint::TaintGate) over the same session.
    pub fn with_session(mut self, session: Arc<crate::taint::Session>) -> Self {
        self.session = Some(session);
        self
    }

    /// The taint session, when there is one.
    pub fn session(&self) -> Option<&Arc<crate::taint::Session>> {
        self.session.as_ref()
    }

    /// The asker, when there is one.
    pub fn asker(&self) -> Option<&Arc<dyn Asker>> {
        self.asker.as_ref()
    }

    /// The gate, when there is one.
    pub fn gate(&self) -> Option<&Arc<dyn Gate>> {
        self.gate.as_ref()
    }

    /// The settings.
    pub fn config(&self) -> &InvokeConfig {
        &self.config
    }

    /// Resolves the name, parses and validates the arguments, resolves the
    /// timeout. A refusal is the failed output to hand to the model.
    ///
    /// A `null` given for an optional property whose schema does not accept
    /// `null` counts as absent: that is how a model in OpenAI strict mode
    /// (see [`strict_schema`](crate::export::strict_schema)) leaves a property out.
    /// The call id is kept, or minted when the model sent none.
    // The refusal *is* the product here (handed straight to the model), once per call.
    #[allow(clippy::result_large_err)]
    pub fn prepare(
        &self,
        offered: &OfferedTools,
        call: &ToolCall,
    ) -> Result<PreparedCall, ToolOutput> {
        let resolved = offered
            .resolve(&call.name)
            .map_err(|e| ToolOutput::failure(e.to_tool_error()))?;
        let mut arguments = Value::Object(parse_arguments(&call.arguments)?);
        crate::strict::drop_strict_nulls(&resolved.api.parameters, &mut arguments);
        if let Some(error) = resolved.schema.compile_error() {
            return Err(ToolOutput::failure(ToolError::new(
                ErrorCode::SCHEMA_UNUSABLE,
                format!(
                    "`{}` cannot be called: {error}. The tool was not run.",
                    resolved.wire_name
                ),
            )));
        }
        let violations = resolved.schema.violations(&arguments);
        if !violations.is_empty() {
            let list: Vec<String> = violations.iter().map(ToString::to_string).collect();
            let message = format!(
                "the arguments for `{}` do not match its schema ({} problem{}):\n- {}\nThe tool was not run; fix these and call again.",
                resolved.wire_name,
                list.len(),
                if list.len() == 1 { "" } else { "s" },
                list.join("\n- ")
            );
            return Err(ToolOutput::failure(
                ToolError::new(ErrorCode::INVALID_ARGUMENTS, message)
                    .with_details(json!({ "violations": violations })),
            ));
        }
        let timeout = self.config.resolve_timeout(resolved.api, &arguments);
        Ok(PreparedCall {
            call_id: Some(match call.id.as_deref() {
                Some(id) if !id.is_empty() => id.to_owned(),
                _ => mint_call_id(),
            }),
            identifier: resolved.identifier().to_owned(),
            api: resolved.api.name.clone(),
            wire_name: resolved.wire_name.to_owned(),
            arguments,
            timeout,
            tool: Arc::clone(resolved.tool.tool()),
        })
    }

    /// Runs a prepared call with its time budget and `ctx`'s cancellation.
    /// Panics, timeouts, cancellation and tool errors all become failed
    /// outputs with distinct codes; content is capped.
    ///
    /// The budget starts now: the call's deadline is the earlier of now +
    /// [`PreparedCall::timeout`] and `ctx`'s own [`deadline`](ToolContext::deadline).
    /// The tool sees a child context carrying the call id and the deadlines
    /// (see [`ToolContext`]). With an [asker](Self::with_asker), the call's
    /// questions ([`ToolContext::elicit`]) go to it.
    pub async fn execute(&self, call: PreparedCall, ctx: &ToolContext) -> ToolOutput {
        let trace = CallTrace::prepared(&call);
        self.execute_traced(call, ctx, trace).await
    }

    /// [`execute`](Self::execute) inside the call's `execute_tool` span
    /// (made before the gate decided, in a gated batch).
    pub(crate) async fn execute_traced(
        &self,
        call: PreparedCall,
        ctx: &ToolContext,
        trace: CallTrace,
    ) -> ToolOutput {
        if let Some(asker) = &self.asker {
            let ctx = ctx.clone().with_asker(Arc::clone(asker));
            return self.execute_in(call, &ctx, trace).await;
        }
        self.execute_in(call, ctx, trace).await
    }

    async fn execute_in(
        &self,
        call: PreparedCall,
        ctx: &ToolContext,
        trace: CallTrace,
    ) -> ToolOutput {
        trace.run(&call, ctx.extension::<Confinement>());
        let observed = self.session.as_ref().map(|s| s.observe(&call));
        // Boxed once here, so the futures around it stay small and are not
        // copied at each layer (a measurable share of a trivial call).
        let mut output = Box::pin(self.run(call, ctx))
            .instrument(trace.span.clone())
            .await;
        if let (Some(session), Some(observed)) = (&self.session, observed) {
            session.completed(observed, &mut output);
        }
        trace.finish(&output);
        output
    }

    /// A refusal of [`prepare`](Self::prepare), capped, on its own
    /// `execute_tool` span.
    fn refused(&self, call: &ToolCall, refused: ToolOutput) -> ToolOutput {
        let output = cap_content(refused, self.config.max_content_chars);
        CallTrace::refused(&call.name, call.id.as_deref()).finish(&output);
        output
    }

    async fn run(&self, call: PreparedCall, ctx: &ToolContext) -> ToolOutput {
        let PreparedCall {
            call_id,
            identifier,
            api,
            arguments,
            timeout,
            tool,
            ..
        } = call;
        let started = Instant::now();
        let own = started + timeout;
        let deadline = ctx.deadline().map_or(own, |outer| outer.min(own));
        let batch_deadline = ctx
            .batch_deadline()
            .map_or(deadline, |batch| batch.max(deadline));
        let mut ctx = ctx
            .child()
            .with_deadline(deadline)
            .with_batch_deadline(batch_deadline);
        ctx = ctx.with_call_id(call_id.unwrap_or_else(mint_call_id));
        let timeout = deadline.saturating_duration_since(started);
        let work = AssertUnwindSafe(tool.call(&api, arguments, &ctx)).catch_unwind();
        let outcome = tokio::select! {
            biased;
            () = ctx.cancellation().cancelled() => Outcome::Cancelled,
            result = tokio::time::timeout_at(deadline, work) => match result {
                Err(_) => Outcome::TimedOut,
                Ok(Err(panic)) => Outcome::Panicked(ToolError::from_panic(
                    format_args!("`{identifier}/{api}` crashed"),
                    panic.as_ref(),
                )),
                Ok(Ok(result)) => Outcome::Done(result),
            },
        };
        // Whatever happened, let the tool's own tasks know the call is over.
        ctx.cancellation().cancel();
        let output = match outcome {
            Outcome::Done(Ok(output)) => output.normalized(),
            Outcome::Done(Err(error)) => ToolOutput::failure(error),
            Outcome::Cancelled => ToolOutput::failure(
                ToolError::new(
                    ErrorCode::CANCELLED,
                    format!("`{identifier}/{api}` was cancelled before it finished."),
                ),
            ),
            Outcome::TimedOut => ToolOutput::failure(
                ToolError::new(
                    ErrorCode::TIMEOUT,
                    format!(
                        "`{identifier}/{api}` did not finish within {} ms and was stopped. Try a smaller request, or pass a larger `timeout` (ms) if the API accepts one.",
                        timeout.as_millis()
                    ),
                )
                .with_details(json!({ "timeoutMs": timeout.as_millis() as u64 })),
            ),
            Outcome::Panicked(error) => ToolOutput::failure(error),
        };
        cap_content(output, self.config.max_content_chars)
    }

    /// The whole pipeline for one call: [`prepare`](Self::prepare) then
    /// [`execute`](Self::execute).
    pub async fn invoke(
        &self,
        offered: &OfferedTools,
        call: &ToolCall,
        ctx: &ToolContext,
    ) -> ToolOutput {
        if self.gate.is_some() {
            // Boxed: the batch path's future is large, and the ungated path
            // should not carry (and move) its size.
            let mut outputs =
                Box::pin(self.invoke_batch(offered, std::slice::from_ref(call), ctx)).await;
            return outputs.pop().unwrap_or_else(|| {
                ToolOutput::failure(ToolError::execution_failed("the pipeline lost the call"))
            });
        }
        match self.prepare(offered, call) {
            Ok(prepared) => self.execute(prepared, ctx).await,
            Err(refused) => self.refused(call, refused),
        }
    }

    /// Offers the registry's tools for `ctx`, then invokes `call`.
    pub async fn invoke_in(
        &self,
        registry: &ToolRegistry,
        call: &ToolCall,
        ctx: &ToolContext,
    ) -> ToolOutput {
        let offered = registry.offer(ctx);
        self.invoke(&offered, call, ctx).await
    }

    /// Runs a batch concurrently; outputs come back in input order, one per call.
    ///
    /// Every call's context carries the batch deadline: the latest deadline
    /// among the calls that passed preparation (bounded by `ctx`'s deadline).
    pub async fn invoke_batch(
        &self,
        offered: &OfferedTools,
        calls: &[ToolCall],
        ctx: &ToolContext,
    ) -> Vec<ToolOutput> {
        // Refusals are the outputs handed to the model, one per refused call.
        #[allow(clippy::result_large_err)]
        let prepare = |call| self.prepare(offered, call);
        let prepared: Vec<Result<PreparedCall, ToolOutput>> = calls.iter().map(prepare).collect();
        if let Some(gate) = &self.gate {
            return self
                .gated_batch(gate.as_ref(), offered, calls, prepared, ctx)
                .await;
        }
        let batch_ctx = &batch_context(ctx, prepared.iter().filter_map(|p| p.as_ref().ok()));
        futures::future::join_all(prepared.into_iter().zip(calls).map(
            |(prepared, call)| async move {
                match prepared {
                    Ok(prepared) => self.execute(prepared, batch_ctx).await,
                    Err(refused) => self.refused(call, refused),
                }
            },
        ))
        .await
    }
}

impl Invoker {
    /// The gated batch: decide, ask, then run what may run under its
    /// confinement (see the [`Gate`] flow). Each prepared call's
    /// `execute_tool` span is opened before the gate decides, so the
    /// decision and the answer are events on it.
    async fn gated_batch(
        &self,
        gate: &dyn Gate,
        offered: &OfferedTools,
        calls: &[ToolCall],
        prepared: Vec<Result<PreparedCall, ToolOutput>>,
        ctx: &ToolContext,
    ) -> Vec<ToolOutput> {
        let ready: Vec<PreparedCall> = prepared
            .iter()
            .filter_map(|p| p.as_ref().ok().cloned())
            .collect();
        let traces: Vec<CallTrace> = ready.iter().map(CallTrace::prepared).collect();
        let traced = TracedGate::new(gate, &ready, &traces);
        let verdicts = crate::gate::judge(
            traced.as_gate(),
            self.asker.as_deref(),
            &ready,
            offered,
            ctx,
            false,
        )
        .await;
        let asked = traced.asked();
        let mut verdicts = ready.into_iter().zip(verdicts).zip(traces).enumerate();
        // Every slot: a refusal, a ready output, or a call to run.
        let slots: Vec<Slot> = prepared
            .into_iter()
            .zip(calls)
            .map(|(p, call)| match p {
                Err(refused) => Slot::Done(self.refused(call, refused)),
                Ok(_) => match verdicts.next() {
                    Some((index, ((call, verdict), trace))) => {
                        let was_asked = asked.get(index).copied().unwrap_or(false);
                        settle(
                            call,
                            verdict,
                            trace,
                            was_asked,
                            self.config.max_content_chars,
                        )
                    }
                    None => Slot::Done(ToolOutput::blocked(
                        "the approval step lost this call",
                        Value::Null,
                    )),
                },
            })
            .collect();
        let running = slots.iter().filter_map(|s| match s {
            Slot::Run(call, _, _) => Some(call),
            Slot::Done(_) => None,
        });
        let batch_ctx = &batch_context(ctx, running);
        futures::future::join_all(slots.into_iter().map(|slot| async move {
            match slot {
                Slot::Run(call, Some(confinement), trace) => {
                    let ctx = batch_ctx.clone().with_extension(confinement);
                    self.execute_traced(call, &ctx, trace).await
                }
                Slot::Run(call, None, trace) => self.execute_traced(call, batch_ctx, trace).await,
                Slot::Done(done) => done,
            }
        }))
        .await
    }
}

/// The slot of one decided call: to run on its trace, or done (its trace
/// finished with the ready output). Records the answer to an ask.
fn settle(
    call: PreparedCall,
    verdict: Verdict,
    trace: CallTrace,
    asked: bool,
    max_chars: usize,
) -> Slot {
    let done = |output: ToolOutput, trace: CallTrace| {
        let output = cap_content(output, max_chars);
        trace.finish(&output);
        Slot::Done(output)
    };
    match verdict {
        Verdict::Run(confinement) => {
            if asked {
                trace.answer("approved");
            }
            Slot::Run(call, confinement, trace)
        }
        Verdict::Done(output) => {
            if asked {
                trace.answer(
                    if output.error_code() == Some(&ErrorCode::DECLINED_BY_USER) {
                        "declined"
                    } else {
                        "unanswered"
                    },
                );
            }
            done(output, trace)
        }
        // Not asked to defer: unreachable, and not run if reached.
        Verdict::Defer(decision) => {
            trace.answer("pending");
            done(
                ToolOutput::approval_required(decision.message, Value::Null),
                trace,
            )
        }
    }
}

/// `ctx` with the batch deadline of `calls` starting now: the latest of
/// their deadlines, bounded by `ctx`'s own; `ctx` as it is for no calls.
pub(crate) fn batch_context<'a>(
    ctx: &ToolContext,
    calls: impl Iterator<Item = &'a PreparedCall>,
) -> ToolContext {
    let now = Instant::now();
    match (calls.map(|c| now + c.timeout).max(), ctx.deadline()) {
        (Some(latest), Some(outer)) => ctx.clone().with_batch_deadline(latest.min(outer)),
        (Some(latest), None) => ctx.clone().with_batch_deadline(latest),
        (None, _) => ctx.clone(),
    }
}

/// One call of a gated batch once decided: to run (under its
/// confinement), or done with a ready output.
enum Slot {
    Run(PreparedCall, Option<Confinement>, CallTrace),
    Done(ToolOutput),
}

enum Outcome {
    Done(Result<ToolOutput, ToolError>),
    Cancelled,
    TimedOut,
    Panicked(ToolError),
}

/// Caps `content` at `max_chars` characters, keeping the head and the tail
/// around a notice. `state` is never touched; when the tool gave no state,
/// the full content is kept there as `{"fullContent": …}` so nothing is lost.
pub fn cap_content(mut output: ToolOutput, max_chars: usize) -> ToolOutput {
    let total = output.content.chars().count();
    if total <= max_chars {
        return output;
    }
    let notice_for = |omitted: usize| {
        format!(
            "\n\n[… {omitted} of {total} characters omitted here; ask for a narrower range or a smaller result …]\n\n"
        )
    };
    let notice_len = notice_for(total).chars().count();
    let keep = max_chars.saturating_sub(notice_len);
    let head = keep - keep / 3;
    let tail = keep / 3;
    let omitted = total - head - tail;
    let head_end = output
        .content
        .char_indices()
        .nth(head)
        .map_or(output.content.len(), |(i, _)| i);
    let tail_start = output
        .content
        .char_indices()
        .nth(total - tail)
        .map_or(output.content.len(), |(i, _)| i);
    let capped = format!(
        "{}{}{}",
        &output.content[..head_end],
        notice_for(omitted),
        &output.content[tail_start..]
    );
    let full = std::mem::replace(&mut output.content, capped);
    if output.state.is_none() {
        output.state = Some(json!({ "fullContent": full }));
    }
    output
}
