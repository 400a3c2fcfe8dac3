//! A served `tools/call`: the line to the client a call asks by (a
//! session's requests, 2026-07-28 rounds, a task), the invoker built for
//! it with the host's gate and the right asker, and a call that asks by
//! `input_required` before it becomes a task.

use std::sync::Arc;

use rmcp::model::{CallToolRequestParams, CallToolResponse, InputResponses, RequestParamsMeta};
use rmcp::service::RequestContext;
use rmcp::task_manager::TaskContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use tool_core::ToolCall;
use tracing::Instrument;

use super::client_input::{ClientCapability, ClientLine, Raced, Round, binding};
use super::gate::{ClientAsker, NoOneToAsk};
use super::serve::RegistryServer;
use super::serve_talk::{SessionLog, served_events};
use super::serve_tasks::{self, Escalation, Running, TaskSupport};
use crate::content::to_result;
impl RegistryServer {
    /// The line of a request to the client, and on 2026-07-28 its round
    /// (with the binding of its request state); `Err` when the request's
    /// `requestState` does not open.
    pub(super) fn line_for(
        &self,
        context: &RequestContext<RoleServer>,
        bound: &Bound<'_>,
        escalation: Option<&Arc<Escalation>>,
    ) -> Result<(ClientLine, Option<Arc<Round>>), ErrorData> {
        let caps = context.client_capabilities().unwrap_or_default();
        if !serve_tasks::stateless(context) {
            return Ok((ClientLine::session(context.peer.clone(), caps), None));
        }
        let round = Round::open(
            &self.inner.seal,
            &bound.binding,
            bound.state,
            bound.responses.clone(),
        )?;
        let line = ClientLine::rounds(Arc::clone(&round), escalation.cloned(), caps);
        Ok((line, Some(round)))
    }

    /// A served call; in `task`, its asks wait in the task.
    pub(super) async fn run_call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
        task: Option<TaskContext>,
    ) -> Result<CallToolResponse, ErrorData> {
        let inner = &self.inner;
        let bound = Bound {
            binding: binding("tools/call", &request.name, request.arguments.as_ref()),
            state: request.request_state.as_deref(),
            responses: request.input_responses.clone(),
        };
        // A tool that asks first may become a task mid-call (2026-07-28).
        let escalates = match task {
            Some(_) => None,
            None if serve_tasks::stateless(&context) => inner
                .tasks
                .escalates(&request.name, serve_tasks::declared(&context))
                .map(|support| (support, Escalation::new(), CancellationToken::new())),
            None => None,
        };
        let (line, round) = match task {
            Some(task) => (
                ClientLine::task(task, context.client_capabilities().unwrap_or_default()),
                None,
            ),
            None => self.line_for(&context, &bound, escalates.as_ref().map(|(_, e, _)| e))?,
        };
        let token = request
            .progress_token()
            .or_else(|| context.meta.get_progress_token());
        let log = if round.is_some() {
            Arc::new(SessionLog::for_request(context.meta.log_level()))
        } else {
            Arc::clone(&self.log)
        };
        let (events, forwarder) = served_events(context.peer.clone(), token, log, &request.name);
        // A call that may outlive its request has a cancellation of its
        // own, fired by the request's until it becomes a task.
        let cancellation = match &escalates {
            Some((_, _, stop)) => stop.clone(),
            None => context.ct.child_token(),
        };
        let ctx = inner
            .ctx
            .clone()
            .with_cancellation(cancellation)
            .with_events(events)
            .with_extension(line.clone());
        let offered = inner.registry.offer(&ctx);
        // An unknown tool is a bad request (-32602), not a tool's failure.
        if let Err(error) = offered.resolve(&request.name) {
            drop(ctx);
            forwarder.finish().await;
            return Err(ErrorData::invalid_params(
                error.to_string(),
                Some(json!({"name": request.name})),
            ));
        }
        let arguments = request
            .arguments
            .as_ref()
            .map(|a| Value::Object(a.clone()).to_string())
            .unwrap_or_default();
        let call = ToolCall::new(request.name.to_string(), arguments);
        let can_elicit = line.declares(ClientCapability::Elicitation)
            && context
                .client_capabilities()
                .and_then(|caps| caps.elicitation)
                .is_some_and(|e| e.form.is_some() || e.url.is_none());
        let asker = ClientAsker {
            line: can_elicit.then(|| line.clone()),
            fallback: inner.fallback.clone(),
        };
        let invoker = if asker.can_ask() {
            inner
                .invoker
                .clone()
                .with_gate(Arc::clone(&inner.gate))
                .with_asker(Arc::new(asker))
        } else {
            inner
                .invoker
                .clone()
                .with_gate(Arc::new(NoOneToAsk(Arc::clone(&inner.gate))))
        };
        if let (Some((support, escalation, stop)), Some(round)) = (escalates, &round) {
            let running: Running = Box::pin(
                async move {
                    let output = invoker.invoke(&offered, &call, &ctx).await;
                    drop(ctx);
                    forwarder.finish().await;
                    to_result(output)
                }
                .in_current_span(),
            );
            return self
                .race_to_task(running, round, &bound, &context, support, escalation, stop)
                .await;
        }
        let invoked = invoker.invoke(&offered, &call, &ctx);
        let output = match &round {
            None => invoked.await,
            Some(round) => match round.race(&inner.seal, &bound.binding, invoked).await {
                Raced::Done(output) => output,
                Raced::Stopped(stopped) => {
                    drop(ctx);
                    forwarder.finish().await;
                    return stopped.map(CallToolResponse::InputRequired);
                }
            },
        };
        drop(ctx);
        forwarder.finish().await;
        Ok(to_result(output).into())
    }
}

impl RegistryServer {
    /// Runs the call of a tool that asks first until it ends, stops to
    /// ask (`input_required`) or says its long part starts (the task).
    #[allow(clippy::too_many_arguments)]
    async fn race_to_task(
        &self,
        mut running: Running,
        round: &Round,
        bound: &Bound<'_>,
        context: &RequestContext<RoleServer>,
        support: TaskSupport,
        escalation: Arc<Escalation>,
        stop: CancellationToken,
    ) -> Result<CallToolResponse, ErrorData> {
        let seal = &self.inner.seal;
        let raced = round.race(seal, &bound.binding, async {
            tokio::select! {
                biased;
                result = &mut running => Some(result),
                () = escalation.asked() => None,
                () = context.ct.cancelled() => {
                    stop.cancel();
                    Some((&mut running).await)
                }
            }
        });
        match raced.await {
            Raced::Stopped(stopped) => stopped.map(CallToolResponse::InputRequired),
            Raced::Done(Some(result)) => Ok(match support {
                TaskSupport::Required => serve_tasks::completed(&self.inner.tasks, result),
                _ => result.into(),
            }),
            Raced::Done(None) => Ok(serve_tasks::escalate(
                &self.inner.tasks,
                escalation,
                stop,
                running,
            )),
        }
    }
}

/// A request's binding of its `requestState`, the state and the answers.
pub(super) struct Bound<'a> {
    pub(super) binding: Vec<u8>,
    pub(super) state: Option<&'a str>,
    pub(super) responses: Option<InputResponses>,
}
