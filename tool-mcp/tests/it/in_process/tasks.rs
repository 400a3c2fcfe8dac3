//! The tasks extension (SEP-2663) served: a registry's long-running tools
//! run as tasks for a client that declared the extension (rmcp's client
//! over real HTTP on 127.0.0.1), which polls, answers and cancels them;
//! on 2026-07-28 a tool that asks first becomes a task mid-call. And our
//! client (`ManagerOptions::tasks`) following the tasks such a server makes
//! of its calls, on both revisions.

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
use tool_mcp::{
    ClientAsk, ClientLine, ClientReply, ManagerOptions, McpManager, McpProtocol, McpServerConfig,
    McpTransport, TaskSupport,
};

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
async fn stops_within(stopped: &AtomicBool, wait: Duration) -> bool {
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

fn text(result: &CallToolResult) -> String {
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

/// The log lines a call's events get.
#[derive(Default)]
struct StatusLines(std::sync::Mutex<Vec<String>>);

impl tool_core::CallEvents for StatusLines {
    fn progress(&self, _: Option<&str>, _: &tool_core::Progress) {}

    fn log(
        &self,
        _: Option<&str>,
        _: tool_core::LogLevel,
        message: &str,
        _: Option<&serde_json::Value>,
    ) {
        self.0.lock().unwrap().push(message.to_owned());
    }
}

/// Accepts every question with `{"go": true}`, counting them.
#[derive(Default)]
struct SaysGo(std::sync::atomic::AtomicUsize);

#[async_trait::async_trait]
impl tool_mcp::ElicitationHandler for SaysGo {
    async fn elicit(&self, _server: &str, _message: &str, _schema: &serde_json::Value) -> Elicited {
        self.0.fetch_add(1, Ordering::SeqCst);
        Elicited::Accept(json!({"go": true}))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_follows_the_tasks_a_server_makes_of_its_calls_on_both_revisions() {
    let stopped = Arc::new(AtomicBool::new(false));
    let server = crate::common::served(jobs(Arc::clone(&stopped))).with_task_tools([
        ("jobs____quick", TaskSupport::Required),
        ("jobs____boom", TaskSupport::Required),
        ("jobs____panics", TaskSupport::Required),
        ("jobs____asks", TaskSupport::Required),
        ("jobs____sleep", TaskSupport::Required),
    ]);
    let (url, stop) = crate::common::serve_http(server).await;
    for protocol in [McpProtocol::V2026_07_28, McpProtocol::V2025_11_25] {
        let config = |id: &str| {
            McpServerConfig::new(id, McpTransport::http(url.clone()))
                .with_protocol(protocol)
                .with_call_timeout(Duration::from_secs(10))
        };
        // Without the option the client declares no tasks: a tool the
        // server runs only as a task is refused with -32021.
        let plain = McpManager::default();
        plain.upsert(config("plain")).unwrap();
        let refused = plain
            .call_tool("plain", "jobs____quick", Default::default())
            .await
            .unwrap_err();
        assert!(
            refused
                .to_string()
                .contains("Missing required client capability"),
            "{protocol:?}: {refused}"
        );

        let asked = Arc::new(SaysGo::default());
        let manager = McpManager::new(
            ManagerOptions::default()
                .tasks(true)
                .elicitation(Arc::clone(&asked) as Arc<dyn tool_mcp::ElicitationHandler>),
        );
        manager.upsert(config("tasks")).unwrap();

        // The task's result is the call's result; its status reaches the
        // call's events.
        let lines = Arc::new(StatusLines::default());
        let done = manager
            .call_tool_with_events("tasks", "jobs____quick", Default::default(), lines.clone())
            .await
            .unwrap();
        assert_eq!(text(&done), "done", "{protocol:?}");
        let seen = lines.0.lock().unwrap().clone();
        assert!(
            seen.iter()
                .any(|l| l.starts_with("task `") && l.ends_with(": completed")),
            "{protocol:?}: {seen:?}"
        );

        // A tool's own failure: a result with isError.
        let failed = manager
            .call_tool("tasks", "jobs____boom", Default::default())
            .await
            .unwrap();
        assert_eq!(failed.is_error, Some(true), "{protocol:?}");

        // A failed task is the server's error.
        let broken = manager
            .call_tool("tasks", "jobs____panics", Default::default())
            .await
            .unwrap_err();
        assert!(
            broken.to_string().contains("panicked"),
            "{protocol:?}: {broken}"
        );

        // The task's question goes to the host's handler, once, and its
        // answer back by tasks/update.
        let answered = manager
            .call_tool("tasks", "jobs____asks", Default::default())
            .await
            .unwrap();
        assert_eq!(text(&answered), r#"answered {"go":true}"#, "{protocol:?}");
        assert_eq!(asked.0.swap(0, Ordering::SeqCst), 1, "asked once");

        // A call dropped before its task settles cancels the task: the
        // tool's call stops.
        stopped.store(false, Ordering::SeqCst);
        let dropped = tokio::time::timeout(
            Duration::from_millis(700),
            manager.call_tool("tasks", "jobs____sleep", Default::default()),
        )
        .await;
        assert!(dropped.is_err(), "the sleep task outlasts the wait");
        assert!(
            stops_within(&stopped, Duration::from_millis(2000)).await,
            "{protocol:?}: the abandoned task was cancelled and its call stopped"
        );
        manager.shutdown().await;
        plain.shutdown().await;
    }
    stop.cancel();
}

fn task_keys(byte: u8) -> tool_mcp::TaskKeys {
    tool_mcp::TaskKeys::new(tool_mcp::TaskKey::new(format!("k{byte}"), [byte; 32]).unwrap())
}

/// A manager as a fresh process would make it: nothing shared with the
/// one that started the task but the configuration and the keys.
fn fresh_manager(url: &str, protocol: McpProtocol, keys: Option<u8>) -> McpManager {
    let mut options = ManagerOptions::default().tasks(true);
    if let Some(byte) = keys {
        options = options.task_keys(task_keys(byte));
    }
    let manager = McpManager::new(options);
    manager
        .upsert(
            McpServerConfig::new("tasks", McpTransport::http(url.to_owned()))
                .with_protocol(protocol)
                .with_call_timeout(Duration::from_secs(10)),
        )
        .unwrap();
    manager
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_detached_task_is_read_waited_for_and_cancelled_by_handle_from_a_fresh_manager() {
    let stopped = Arc::new(AtomicBool::new(false));
    let server = crate::common::served(jobs(Arc::clone(&stopped))).with_task_tools([
        ("jobs____quick", TaskSupport::Required),
        ("jobs____sleep", TaskSupport::Required),
    ]);
    let (url, stop) = crate::common::serve_http(server).await;
    for protocol in [McpProtocol::V2026_07_28, McpProtocol::V2025_11_25] {
        let approval = json!({"action": "run", "rule": "jobs are fine"});
        // No keys: no handle is made, and nothing is sent.
        let keyless = fresh_manager(&url, protocol, None);
        let err = keyless
            .start_task(
                "tasks",
                "jobs____quick",
                Default::default(),
                approval.clone(),
            )
            .await
            .unwrap_err();
        assert_eq!(err.code(), "mcp_task_handle", "{protocol:?}: {err}");

        let starter = fresh_manager(&url, protocol, Some(1));
        let started = starter
            .start_task(
                "tasks",
                "jobs____quick",
                Default::default(),
                approval.clone(),
            )
            .await
            .unwrap();
        let tool_mcp::McpTaskStart::Task(handle) = started else {
            panic!("{protocol:?}: the server made no task: {started:?}");
        };
        assert_eq!(handle.approval, approval);
        // The starter goes away; the handle travels as text.
        starter.shutdown().await;
        drop(starter);
        let text_form = handle.to_json();

        let resumed = fresh_manager(&url, protocol, Some(1));
        let handle = tool_mcp::McpTaskHandle::from_json(&text_form).unwrap();
        let mut seen = Vec::new();
        let done = resumed
            .wait_task(&handle, |s| seen.push(s.status.clone()))
            .await
            .unwrap();
        assert_eq!(done.status, "completed", "{protocol:?}");
        assert_eq!(text(done.result.as_ref().unwrap()), "done", "{protocol:?}");
        assert_eq!(seen.last().map(String::as_str), Some("completed"));

        // A long task, cancelled by handle from yet another manager: the
        // tool's call stops.
        stopped.store(false, Ordering::SeqCst);
        let starter = fresh_manager(&url, protocol, Some(1));
        let tool_mcp::McpTaskStart::Task(sleeping) = starter
            .start_task(
                "tasks",
                "jobs____sleep",
                Default::default(),
                approval.clone(),
            )
            .await
            .unwrap()
        else {
            panic!("{protocol:?}: no task for sleep");
        };
        starter.shutdown().await;
        let canceller = fresh_manager(&url, protocol, Some(1));
        let working = canceller.task_status(&sleeping).await.unwrap();
        assert_eq!(working.status, "working", "{protocol:?}");
        // Edited handles and foreign keys are refused before anything is
        // sent: the task keeps running.
        let mut edited = sleeping.clone();
        edited.approval = json!({"action": "run", "rule": "anything goes"});
        let err = canceller.cancel_task(&edited).await.unwrap_err();
        assert_eq!(err.code(), "mcp_task_handle", "{protocol:?}: {err}");
        let foreign = fresh_manager(&url, protocol, Some(2));
        let err = foreign.cancel_task(&sleeping).await.unwrap_err();
        assert!(err.to_string().contains("no key with id `k1`"), "{err}");
        // The same id configured somewhere else now.
        let moved = McpManager::new(ManagerOptions::default().task_keys(task_keys(1)));
        moved
            .upsert(McpServerConfig::new(
                "tasks",
                McpTransport::http("http://127.0.0.1:9/mcp"),
            ))
            .unwrap();
        let err = moved.task_status(&sleeping).await.unwrap_err();
        assert!(err.to_string().contains("somewhere else"), "{err}");
        assert!(
            !stopped.load(Ordering::SeqCst),
            "{protocol:?}: still running"
        );

        let cancelled = canceller.cancel_task(&sleeping).await.unwrap();
        assert_eq!(cancelled.status, "cancelled", "{protocol:?}");
        assert!(
            stops_within(&stopped, Duration::from_millis(2000)).await,
            "{protocol:?}: the cancelled task's call stopped"
        );
        canceller.shutdown().await;
        foreign.shutdown().await;
        resumed.shutdown().await;
    }
    stop.cancel();
}

/// The data of the log lines a call's events get.
#[derive(Default)]
struct LogData(std::sync::Mutex<Vec<serde_json::Value>>);

impl tool_core::CallEvents for LogData {
    fn progress(&self, _: Option<&str>, _: &tool_core::Progress) {}

    fn log(
        &self,
        _: Option<&str>,
        _: tool_core::LogLevel,
        _: &str,
        data: Option<&serde_json::Value>,
    ) {
        self.0.lock().unwrap().extend(data.cloned());
    }
}

impl LogData {
    fn handle(&self) -> Option<tool_mcp::McpTaskHandle> {
        let data = self.0.lock().unwrap();
        let handle = data.iter().find_map(|d| d.get("handle"))?;
        Some(serde_json::from_value(handle.clone()).unwrap())
    }
}

/// A call through the pipeline (`McpTool`) that the server makes a task
/// tells the call's events the task's handle as soon as it is made (with
/// task keys), bound to the call; another manager holding the same keys
/// (a process after a crash) finds the task by it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pipeline_call_made_a_task_tells_its_events_the_handle() {
    let stopped = Arc::new(AtomicBool::new(false));
    let server = crate::common::served(jobs(Arc::clone(&stopped)))
        .with_task_tools([("jobs____quick", TaskSupport::Required)]);
    let (url, stop) = crate::common::serve_http(server).await;
    for protocol in [McpProtocol::V2026_07_28, McpProtocol::V2025_11_25] {
        let manager = Arc::new(fresh_manager(&url, protocol, Some(3)));
        let registry = crate::common::registry_of(&manager).await;
        let data = Arc::new(LogData::default());
        let ctx = ToolContext::new().with_events(data.clone());
        let out = crate::common::call_in(&registry, "tasks", "jobs____quick", "{}", &ctx).await;
        assert!(
            out.success && out.content == "done",
            "{protocol:?}: {out:?}"
        );
        let handle = data
            .handle()
            .unwrap_or_else(|| panic!("{protocol:?}: no handle in {:?}", data.0.lock()));
        assert_eq!(
            (handle.server.as_str(), handle.tool.as_str()),
            ("tasks", "jobs____quick")
        );
        assert_eq!(handle.approval["via"], "pipeline", "{protocol:?}");
        // The pipeline's own id of the call.
        assert!(
            handle.approval["callId"]
                .as_str()
                .is_some_and(|id| !id.is_empty()),
            "{protocol:?}: {:?}",
            handle.approval
        );
        let later = fresh_manager(&url, protocol, Some(3));
        let status = later.task_status(&handle).await.unwrap();
        assert_eq!(status.status, "completed", "{protocol:?}: {status:?}");
        assert_eq!(text(status.result.as_ref().unwrap()), "done");
        // Other keys: the handle is refused before the server hears of it.
        let other = fresh_manager(&url, protocol, Some(4));
        let refused = other.task_status(&handle).await.unwrap_err();
        assert_eq!(refused.code(), "mcp_task_handle", "{protocol:?}: {refused}");
        manager.shutdown().await;

        // Without keys no handle is made; the call is the same.
        let keyless = Arc::new(fresh_manager(&url, protocol, None));
        let registry = crate::common::registry_of(&keyless).await;
        let data = Arc::new(LogData::default());
        let ctx = ToolContext::new().with_events(data.clone());
        let out = crate::common::call_in(&registry, "tasks", "jobs____quick", "{}", &ctx).await;
        assert!(out.success, "{protocol:?}: {out:?}");
        assert!(data.handle().is_none(), "{protocol:?}");
        keyless.shutdown().await;
    }
    stop.cancel();
}
