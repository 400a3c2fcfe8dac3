//! The tasks extension (SEP-2663) served: a registry's long-running tools
//! run as tasks for a client that declared the extension (rmcp's client
//! over real HTTP on 127.0.0.1), which polls, answers and cancels them.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ClientCapabilities,
    ClientConfig, DetailedTask, ErrorCode, GetTaskParams, Implementation, TaskPayload,
    UpdateTaskParams,
};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ServiceError, ServiceExt};
use serde_json::json;
use tool_core::{
    ApiDefinition, Elicitation, Elicited, HumanIntervention, InterventionPolicy, ToolBuilder,
    ToolContext, ToolError, ToolOutput, ToolRegistry,
};
use tool_mcp::{ClientAsk, ClientLine, ClientReply, RegistryServer, RunEverything, TaskSupport};

fn api(name: &str) -> ApiDefinition {
    ApiDefinition::new(name, "A job.")
        .with_parameters(json!({"type": "object", "properties": {}}))
        .with_intervention(HumanIntervention::Policy(InterventionPolicy::Never))
}

/// Notes in its flag that the call holding it ended (ran out or was dropped).
struct Ended(Arc<AtomicBool>);

impl Drop for Ended {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// `jobs`: `quick` answers, `boom` fails, `asks` asks the client, `sleep`
/// waits 30 s (its end noted in `stopped`).
fn jobs(stopped: Arc<AtomicBool>) -> ToolRegistry {
    let tool = ToolBuilder::new("jobs")
        .api(api("quick"), |_, _| async { Ok(ToolOutput::text("done")) })
        .api(api("boom"), |_, _| async {
            Err::<ToolOutput, _>(ToolError::execution_failed("it broke"))
        })
        .api(api("panics"), |_, _| async {
            let outcome: Option<ToolOutput> = None;
            // A bug in the tool: tool-core catches the panic.
            #[allow(clippy::unnecessary_literal_unwrap)]
            Ok(outcome.unwrap())
        })
        .api(api("asks"), |_, ctx: ToolContext| async move {
            let line = ClientLine::of(&ctx).expect("served");
            let question = Elicitation::new(
                "Go on?",
                json!({"type": "object", "properties": {"go": {"type": "boolean"}}}),
            );
            match line.ask("go", ClientAsk::Elicit(question), &ctx).await {
                Ok(ClientReply::Elicited(Elicited::Accept(answer))) => {
                    Ok(ToolOutput::text(format!("answered {answer}")))
                }
                other => Err(ToolError::execution_failed(format!("{other:?}"))),
            }
        })
        .api(api("sleep"), move |_, ctx: ToolContext| {
            let stopped = Arc::clone(&stopped);
            async move {
                let _ended = Ended(stopped);
                tokio::select! {
                    () = ctx.cancellation().cancelled() => {}
                    () = tokio::time::sleep(Duration::from_secs(30)) => {}
                }
                Ok(ToolOutput::text("slept"))
            }
        })
        .build()
        .unwrap();
    let mut registry = ToolRegistry::new();
    registry.register(tool).unwrap();
    registry
}

async fn client(url: &str, tasks: bool) -> RunningService<RoleClient, ClientConfig> {
    let caps = if tasks {
        ClientCapabilities::builder()
            .enable_elicitation()
            .enable_tasks()
            .build()
    } else {
        ClientCapabilities::default()
    };
    ClientConfig::new(caps, Implementation::new("test", "0"))
        .serve(StreamableHttpClientTransport::from_uri(url.to_owned()))
        .await
        .unwrap()
}

async fn call(
    client: &RunningService<RoleClient, ClientConfig>,
    name: &str,
) -> Result<CallToolResponse, ServiceError> {
    client
        .peer()
        .call_tool_once(CallToolRequestParams::new(name.to_owned()))
        .await
}

/// The task `id` once `done` says so (within five seconds).
async fn wait_for(
    client: &RunningService<RoleClient, ClientConfig>,
    id: &str,
    done: impl Fn(&DetailedTask) -> bool,
) -> DetailedTask {
    for _ in 0..100 {
        let task = client
            .peer()
            .get_task(GetTaskParams::new(id.to_owned()))
            .await
            .unwrap()
            .task;
        if done(&task) {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("task {id} did not get there");
}

fn task_id(response: CallToolResponse) -> String {
    match response {
        CallToolResponse::Task(created) => created.task.task_id,
        other => panic!("expected a task, got {other:?}"),
    }
}

fn completed(task: &DetailedTask) -> CallToolResult {
    match &task.payload {
        TaskPayload::Completed { result } => {
            serde_json::from_value(serde_json::Value::Object(result.clone())).unwrap()
        }
        other => panic!("expected a completed task, got {other:?}"),
    }
}

fn text(result: &CallToolResult) -> String {
    result.content[0].as_text().unwrap().text.clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_tools_run_as_tasks_the_client_polls_answers_and_cancels() {
    let stopped = Arc::new(AtomicBool::new(false));
    let server = RegistryServer::new(
        Arc::new(jobs(Arc::clone(&stopped))),
        Arc::new(RunEverything),
        ToolContext::new(),
    )
    .with_task_tools([
        ("jobs____quick", TaskSupport::Optional),
        ("jobs____boom", TaskSupport::Required),
        ("jobs____panics", TaskSupport::Optional),
        ("jobs____asks", TaskSupport::Optional),
        ("jobs____sleep", TaskSupport::Optional),
    ]);
    let stop = tokio_util::sync::CancellationToken::new();
    let (addr, _task) = server
        .serve_http("127.0.0.1:0".parse().unwrap(), stop.clone())
        .await
        .unwrap();
    let url = format!("http://{addr}/mcp");
    let tasks = client(&url, true).await;
    let declared = tasks
        .peer()
        .peer_info()
        .unwrap()
        .capabilities
        .supports_tasks();
    assert!(declared, "the server declares the extension");

    // A task the client polls to its result.
    let id = task_id(call(&tasks, "jobs____quick").await.unwrap());
    let done = wait_for(&tasks, &id, |t| t.status().is_terminal()).await;
    assert_eq!(text(&completed(&done)), "done");

    // A tool's own failure: a completed task whose result is an error.
    let id = task_id(call(&tasks, "jobs____boom").await.unwrap());
    let done = wait_for(&tasks, &id, |t| t.status().is_terminal()).await;
    assert_eq!(completed(&done).is_error, Some(true));

    // A panicking executor is the server's failure: a failed task.
    let id = task_id(call(&tasks, "jobs____panics").await.unwrap());
    let done = wait_for(&tasks, &id, |t| t.status().is_terminal()).await;
    match &done.payload {
        TaskPayload::Failed { error } => assert_eq!(error["code"], -32603, "{error:?}"),
        other => panic!("expected a failed task, got {other:?}"),
    }

    // A question waits in the task until `tasks/update` answers it.
    let id = task_id(call(&tasks, "jobs____asks").await.unwrap());
    let asked = wait_for(&tasks, &id, |t| {
        matches!(&t.payload, TaskPayload::InputRequired { .. })
    })
    .await;
    let TaskPayload::InputRequired { input_requests } = &asked.payload else {
        unreachable!()
    };
    assert_eq!(input_requests.keys().collect::<Vec<_>>(), ["go"]);
    let answers = [(
        "go".to_owned(),
        json!({"action": "accept", "content": {"go": true}}),
    )]
    .into_iter()
    .collect();
    tasks
        .peer()
        .update_task(UpdateTaskParams::new(id.clone(), answers))
        .await
        .unwrap();
    let done = wait_for(&tasks, &id, |t| t.status().is_terminal()).await;
    assert_eq!(text(&completed(&done)), r#"answered {"go":true}"#);

    // A cancel stops the tool's call and settles the task `cancelled`.
    let id = task_id(call(&tasks, "jobs____sleep").await.unwrap());
    tasks
        .peer()
        .cancel_task(CancelTaskParams::new(id.clone()))
        .await
        .unwrap();
    let done = wait_for(&tasks, &id, |t| t.status().is_terminal()).await;
    assert!(matches!(done.payload, TaskPayload::Cancelled), "{done:?}");
    for _ in 0..50 {
        if stopped.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        stopped.load(Ordering::SeqCst),
        "the call stopped with its task"
    );

    // An unknown task id is refused.
    let unknown = tasks
        .peer()
        .get_task(GetTaskParams::new("no-such-task"))
        .await
        .unwrap_err();
    assert!(matches!(unknown, ServiceError::McpError(e) if e.code == ErrorCode::INVALID_PARAMS));

    // Without the extension: an optional task tool is called at once, a
    // required one is refused with -32021.
    let plain = client(&url, false).await;
    match call(&plain, "jobs____quick").await.unwrap() {
        CallToolResponse::Complete(result) => assert_eq!(text(&result), "done"),
        other => panic!("expected a result at once, got {other:?}"),
    }
    let refused = call(&plain, "jobs____boom").await.unwrap_err();
    assert!(
        matches!(&refused, ServiceError::McpError(e) if e.code == ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY),
        "{refused:?}"
    );
    stop.cancel();
}
