//! The tasks extension (SEP-2663) served: a registry's long-running tools
//! run as tasks for a client that declared the extension (rmcp's client
//! over real HTTP on 127.0.0.1), which polls, answers and cancels them;
//! on 2026-07-28 a tool that asks first becomes a task mid-call. Our
//! client's side of the same server is in `task_client`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ClientCapabilities,
    ClientConfig, DetailedTask, ErrorCode, GetTaskParams, Implementation, ProtocolVersion,
    TaskPayload, UpdateTaskParams,
};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientLifecycleMode, ClientServiceExt, ServiceError, ServiceExt};
use serde_json::json;
use tool_core::{
    ApiDefinition, Elicitation, Elicited, HumanIntervention, InterventionPolicy, ToolBuilder,
    ToolContext, ToolError, ToolOutput, ToolRegistry,
};
use tool_mcp::{ClientAsk, ClientLine, ClientReply, TaskSupport};

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

/// 30 s asleep, unless the call is cancelled first: "slept".
async fn sleep_unless_cancelled(ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
    tokio::select! {
        () = ctx.cancellation().cancelled() => {}
        () = tokio::time::sleep(Duration::from_secs(30)) => {}
    }
    Ok(ToolOutput::text("slept"))
}

fn one_tool(tool: impl tool_core::Tool) -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    registry.register(tool).unwrap();
    registry
}

/// `jobs`: `quick` answers, `boom` fails, `asks` asks the client, `sleep`
/// waits 30 s (its end noted in `stopped`).
pub(super) fn jobs(stopped: Arc<AtomicBool>) -> ToolRegistry {
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
                sleep_unless_cancelled(&ctx).await
            }
        })
        .build()
        .unwrap();
    one_tool(tool)
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

/// Whether the call that `stopped` watches ended within `wait` (it is
/// polled every 20 ms).
pub(super) async fn stops_within(stopped: &AtomicBool, wait: Duration) -> bool {
    let deadline = tokio::time::Instant::now() + wait;
    while !stopped.load(Ordering::SeqCst) {
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    true
}

/// Answers task `id`'s question `key` by `tasks/update`, accepting with
/// `content`.
async fn answer_in_task(
    client: &RunningService<RoleClient, ClientConfig>,
    id: &str,
    key: &str,
    content: serde_json::Value,
) {
    let answers = [(
        key.to_owned(),
        json!({"action": "accept", "content": content}),
    )]
    .into_iter()
    .collect();
    client
        .peer()
        .update_task(UpdateTaskParams::new(id.to_owned(), answers))
        .await
        .unwrap();
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

pub(super) fn text(result: &CallToolResult) -> String {
    result.content[0].as_text().unwrap().text.clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_tools_run_as_tasks_the_client_polls_answers_and_cancels() {
    let stopped = Arc::new(AtomicBool::new(false));
    let server = crate::common::served(jobs(Arc::clone(&stopped))).with_task_tools([
        ("jobs____quick", TaskSupport::Optional),
        ("jobs____boom", TaskSupport::Required),
        ("jobs____panics", TaskSupport::Optional),
        ("jobs____asks", TaskSupport::Optional),
        ("jobs____sleep", TaskSupport::Optional),
    ]);
    let (url, stop) = crate::common::serve_http(server).await;
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
    answer_in_task(&tasks, &id, "go", json!({"go": true})).await;
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
    assert!(
        stops_within(&stopped, Duration::from_millis(1000)).await,
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

/// `steps`: `greet` asks the user's name by `input_required`, becomes a
/// task, then asks in the task whether to shout; `short` asks and ends
/// before it would become a task; `long` asks, becomes a task and waits
/// 30 s (its end noted in `stopped`).
fn steps(stopped: Arc<AtomicBool>) -> ToolRegistry {
    async fn name(ctx: &ToolContext) -> Result<String, ToolError> {
        let line = ClientLine::of(ctx).expect("served");
        let question = Elicitation::new(
            "Your name?",
            json!({"type": "object", "properties": {"name": {"type": "string"}}}),
        );
        match line.ask("name", ClientAsk::Elicit(question), ctx).await {
            Ok(ClientReply::Elicited(Elicited::Accept(answer))) => {
                Ok(answer["name"].as_str().unwrap_or("nobody").to_owned())
            }
            other => Err(ToolError::execution_failed(format!("{other:?}"))),
        }
    }
    let tool = ToolBuilder::new("steps")
        .api(api("greet"), |_, ctx: ToolContext| async move {
            let name = name(&ctx).await?;
            let line = ClientLine::of(&ctx).expect("served");
            line.start_task().await;
            let question = Elicitation::new(
                "Shout?",
                json!({"type": "object", "properties": {"shout": {"type": "boolean"}}}),
            );
            let shout = matches!(
                line.ask("shout", ClientAsk::Elicit(question), &ctx).await,
                Ok(ClientReply::Elicited(Elicited::Accept(a))) if a["shout"] == true
            );
            let text = format!("Hello, {name}");
            Ok(ToolOutput::text(if shout {
                text.to_uppercase()
            } else {
                text
            }))
        })
        .api(api("short"), |_, ctx: ToolContext| async move {
            Ok(ToolOutput::text(format!("Hi, {}", name(&ctx).await?)))
        })
        .api(api("short_optional"), |_, ctx: ToolContext| async move {
            Ok(ToolOutput::text(format!("Hi, {}", name(&ctx).await?)))
        })
        .api(api("long"), move |_, ctx: ToolContext| {
            let stopped = Arc::clone(&stopped);
            async move {
                name(&ctx).await?;
                // Round one's run stops at the question: noted from here on.
                let _ended = Ended(stopped);
                ClientLine::of(&ctx).expect("served").start_task().await;
                sleep_unless_cancelled(&ctx).await
            }
        })
        .build()
        .unwrap();
    one_tool(tool)
}

/// Round one of a tool that asks first: its `input_required` (no task
/// yet); round two with `name` answered: the response.
async fn two_rounds(
    client: &RunningService<RoleClient, ClientConfig>,
    tool: &str,
    name: &str,
) -> CallToolResponse {
    let first = call(client, tool).await.unwrap();
    let CallToolResponse::InputRequired(asked) = first else {
        panic!("round one of {tool} must ask by input_required, got {first:?}");
    };
    let requests = asked.input_requests.clone().unwrap();
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["name"]);
    let again = CallToolRequestParams::new(tool.to_owned())
        .with_input_responses(
            [(
                "name".to_owned(),
                json!({"action": "accept", "content": {"name": name}}),
            )]
            .into(),
        )
        .with_request_state(asked.request_state.clone().unwrap());
    client.peer().call_tool_once(again).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_2026_07_28_a_tool_asks_by_input_required_then_becomes_a_task_when_it_says_so() {
    let stopped = Arc::new(AtomicBool::new(false));
    let server = crate::common::served(steps(Arc::clone(&stopped)))
        .with_task_tools([
            ("steps____greet", TaskSupport::Required),
            ("steps____short", TaskSupport::Required),
            ("steps____short_optional", TaskSupport::Optional),
            ("steps____long", TaskSupport::Optional),
        ])
        .with_questions_before_task([
            "steps____greet",
            "steps____short",
            "steps____short_optional",
            "steps____long",
        ]);
    let (url, stop) = crate::common::serve_http(server).await;
    let caps = ClientCapabilities::builder()
        .enable_elicitation()
        .enable_tasks()
        .build();
    let client = ClientConfig::new(caps, Implementation::new("test", "0"))
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_uri(url),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .unwrap();

    // Asked by input_required, then a task; its later question waits in
    // the task, and the answer of round one reaches the result.
    let response = two_rounds(&client, "steps____greet", "Alice").await;
    let CallToolResponse::Task(created) = &response else {
        panic!("round two must be the task, got {response:?}");
    };
    let wire = serde_json::to_value(created).unwrap();
    assert!(
        wire.get("requestState").is_none() && wire.get("inputRequests").is_none(),
        "the task carries neither the state nor the questions of the rounds: {wire}"
    );
    let id = task_id(response);
    let asked = wait_for(&client, &id, |t| {
        matches!(&t.payload, TaskPayload::InputRequired { .. })
    })
    .await;
    let TaskPayload::InputRequired { input_requests } = &asked.payload else {
        unreachable!()
    };
    assert_eq!(input_requests.keys().collect::<Vec<_>>(), ["shout"]);
    answer_in_task(&client, &id, "shout", json!({"shout": true})).await;
    let done = wait_for(&client, &id, |t| t.status().is_terminal()).await;
    assert_eq!(text(&completed(&done)), "HELLO, ALICE");

    // Ended before it said so: a required tool's answer is a task already
    // completed, an optional one's is its result.
    let id = task_id(two_rounds(&client, "steps____short", "Bob").await);
    let done = wait_for(&client, &id, |t| t.status().is_terminal()).await;
    assert_eq!(text(&completed(&done)), "Hi, Bob");
    match two_rounds(&client, "steps____short_optional", "Eve").await {
        CallToolResponse::Complete(result) => assert_eq!(text(&result), "Hi, Eve"),
        other => panic!("expected the result at once, got {other:?}"),
    }

    // The task outlives the request that made it, until it is cancelled.
    let id = task_id(two_rounds(&client, "steps____long", "Ann").await);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !stopped.load(Ordering::SeqCst),
        "the call goes on after its request was answered"
    );
    let working = wait_for(&client, &id, |_| true).await;
    assert!(!working.status().is_terminal(), "{working:?}");
    client
        .peer()
        .cancel_task(CancelTaskParams::new(id.clone()))
        .await
        .unwrap();
    let done = wait_for(&client, &id, |t| t.status().is_terminal()).await;
    assert!(matches!(done.payload, TaskPayload::Cancelled), "{done:?}");
    assert!(
        stops_within(&stopped, Duration::from_millis(1000)).await,
        "the call stopped with its task"
    );

    // A round two whose state was altered is refused; nothing becomes a task.
    let CallToolResponse::InputRequired(asked) = call(&client, "steps____greet").await.unwrap()
    else {
        panic!("round one asks");
    };
    let mut state = asked.request_state.clone().unwrap();
    state.push('x');
    let tampered = CallToolRequestParams::new("steps____greet")
        .with_input_responses(
            [(
                "name".to_owned(),
                json!({"action": "accept", "content": {"name": "Mallory"}}),
            )]
            .into(),
        )
        .with_request_state(state);
    let refused = client.peer().call_tool_once(tampered).await.unwrap_err();
    assert!(
        matches!(&refused, ServiceError::McpError(e) if e.code == ErrorCode::INVALID_PARAMS),
        "{refused:?}"
    );
    stop.cancel();
}
