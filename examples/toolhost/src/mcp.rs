//! toolhost's MCP side: `--mcp-stdio` / `--mcp-http` / `--mcp-config`
//! servers loaded as tools through tool-mcp, `toolhost mcp serve` (the
//! host's registry served over MCP, each call through the pipeline and the
//! host's approval policy), `toolhost mcp tools`, `toolhost mcp call`
//! (a call with the servers' elicitation answered from the command line),
//! and the demo steps. `mcp serve --conformance-fixtures` serves the tools
//! of the official conformance suite's server scenarios ([`conformance`]).
//! `--skills` folders are served as MCP resources (each `SKILL.md`) and
//! prompts as well as through the `skills` tool ([`skills`]).

mod conformance;
mod conformance_rounds;
mod conformance_tasks;
mod oauth;
mod remote_skills;
mod skills;
mod skills_ext;
mod tasks;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use clap::{Subcommand, ValueEnum};
use serde_json::{Value, json};
use tool_approval::PolicyEngine;
use tool_core::{LiveRegistry, ToolContext, ToolRegistry};
use tool_mcp::{
    ElicitationHandler, Elicited, ManagerOptions, McpManager, McpProvider, McpServerConfig,
    McpTransport, RegistryServer, ServerReport, parse_server_list,
};

pub use oauth::OAuthMode;
pub use tasks::TaskCommand;

use crate::Failure;
use crate::host::{Host, PolicyOptions};

/// `toolhost mcp …`
#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// Serve this host's tools over MCP: stdio by default, streamable HTTP at `/mcp` with `--http`.
    Serve {
        /// Listen on ADDR (e.g. 127.0.0.1:8931) instead of stdio.
        #[arg(long, value_name = "ADDR")]
        http: Option<std::net::SocketAddr>,
        /// List tools under their bare API names (`evaluate`, not
        /// `calculator____evaluate`) where no other tool has that name.
        #[arg(long)]
        bare_names: bool,
        /// Also serve the tools the official MCP conformance suite calls
        /// (`test_simple_text`, `test_elicitation`, …; use with `--bare-names`)
        /// and its resources and prompts (in place of the skills' ones).
        #[arg(long)]
        conformance_fixtures: bool,
    },
    /// Decide, then run one call, answering MCP servers' questions
    /// (elicitation) as `--elicitation` says: `{"decision", "output"}`.
    Call {
        /// The tool's wire name, e.g. `mcp1____add_numbers`.
        name: String,
        /// The raw arguments JSON (default `{}`).
        args: Option<String>,
        /// Run a call whose decision is `ask` (a human said yes).
        #[arg(long)]
        approve: bool,
        /// How to answer a server's `elicitation/create` (declared only when given):
        /// accept with the schema's defaults, or decline.
        #[arg(long, value_enum)]
        elicitation: Option<ElicitationAnswer>,
    },
    /// What the configured MCP servers offer: `{"servers": [{"id", "status", "tools"|"error"}]}`.
    Tools,
    /// The configured servers' resources, resource templates and prompts:
    /// `{"servers": [{"id", "resources", "templates", "prompts"}]}`, each
    /// list or `{"code", "error"}` (`mcp_not_offered` when the server
    /// declared no such feature).
    Library,
    /// Reads resource URI of server SERVER: `{"contents": [{"uri", "mimeType", "text"|"blob"}]}`.
    Read {
        /// The server's id (`mcp1`, or its `--mcp-config` id).
        server: String,
        /// The resource's URI, as the server lists it.
        uri: String,
    },
    /// The skills the configured servers serve (SEP-2640), no file read:
    /// `{"servers": [{"id", "skills": [entry]} | {"id", "code", "error"}]}`.
    Skills,
    /// Loads skill NAME of server SERVER: reads its files (`SKILL.md`
    /// first), each checked against the server's entry (size, `sha256`
    /// digest, frontmatter): `{"skill", "files": [{"uri", "size", "text"}]}`;
    /// a file that fails stops the load (`mcp_skill_integrity`).
    Skill {
        /// The server's id.
        server: String,
        /// The skill's name.
        name: String,
    },
    /// The `--skills` folders and then every configured server's skills
    /// (as sources `mcp:ID`, listed through the skills extension with no
    /// file read) in one registry, as a host would load them:
    /// `{"catalog", "skills": [{"name", "source", "location"}], "shadowed",
    /// "findings", "activated"?}`. With `--activate NAME` the skill is
    /// activated through the `skills` tool (a server's skill fetched and
    /// checked then): `"activated": {"success", "code"?, "content"}`.
    SkillCatalog {
        /// A skill to activate after loading.
        #[arg(long, value_name = "NAME")]
        activate: Option<String>,
    },
    /// A remote tool's task as data: `start` ends as soon as the server
    /// made the call a task and prints its handle; `get` and `cancel`
    /// take that handle in any later process (see the README).
    Task {
        /// What to do with the task.
        #[command(subcommand)]
        command: TaskCommand,
    },
    /// Renders prompt NAME of server SERVER with ARGS (a JSON object of
    /// strings, default `{}`): `{"description"?, "messages": [{"role", "content"}]}`.
    Prompt {
        /// The server's id.
        server: String,
        /// The prompt's name.
        name: String,
        /// The arguments JSON.
        args: Option<String>,
    },
}

/// How `toolhost mcp call` answers servers' questions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ElicitationAnswer {
    /// Accept, with the schema's `default` for every field that has one.
    AcceptDefaults,
    /// Decline every question.
    Decline,
}

/// Answers every elicitation the same way, and notes each question on
/// stderr (`{"elicitation": {"server", "message", "answer"}}`).
struct CommandLineAnswer(ElicitationAnswer);

#[async_trait]
impl ElicitationHandler for CommandLineAnswer {
    async fn elicit(&self, server: &str, message: &str, _schema: &Value) -> Elicited {
        let (answer, name) = match self.0 {
            ElicitationAnswer::AcceptDefaults => (Elicited::Accept(json!({})), "accept-defaults"),
            ElicitationAnswer::Decline => (Elicited::Decline, "decline"),
        };
        crate::report(
            &json!({"elicitation": {"server": server, "message": message, "answer": name}}),
        );
        answer
    }
}

/// The MCP servers given on the command line.
#[derive(Debug, Default, Clone)]
pub struct McpOptions {
    /// `--mcp-stdio "COMMAND ARGS…"`, repeatable.
    pub stdio: Vec<String>,
    /// `--mcp-http URL`, repeatable.
    pub http: Vec<String>,
    /// `--mcp-config FILE`: a JSON list of server configurations.
    pub config: Option<PathBuf>,
    /// `--allow-host` entries: streamable HTTP servers obey the same SSRF
    /// guard as HTTP tools.
    pub allow_hosts: Vec<String>,
    /// `--mcp-oauth`: how servers that ask for OAuth are authorized
    /// (without it they fail with `mcp_unauthorized`).
    pub oauth: Option<OAuthMode>,
    /// `--mcp-oauth-client-id`: a pre-registered client (its secret from
    /// `TOOLHOST_MCP_OAUTH_CLIENT_SECRET`).
    pub oauth_client_id: Option<String>,
    /// `--mcp-oauth-client-metadata-url`: the host's client metadata document.
    pub oauth_client_metadata_url: Option<String>,
    /// `--mcp-oauth-dpop`: DPoP-bound tokens (RFC 9449).
    pub oauth_dpop: bool,
}

impl McpOptions {
    /// Whether any server was given.
    pub fn is_empty(&self) -> bool {
        self.stdio.is_empty() && self.http.is_empty() && self.config.is_none()
    }

    /// The configurations: `mcp1`, `mcp2`, … for command-line servers (in
    /// order, stdio first), then the file's own ids.
    pub fn configs(&self) -> Result<Vec<McpServerConfig>, Failure> {
        let mut configs = Vec::new();
        let mut n = 0;
        for line in &self.stdio {
            n += 1;
            let words = split_command(line)
                .map_err(|e| Failure::Usage(format!("--mcp-stdio {line:?}: {e}")))?;
            let Some((command, args)) = words.split_first() else {
                return Err(Failure::Usage("--mcp-stdio: empty command".into()));
            };
            configs.push(McpServerConfig::new(
                format!("mcp{n}"),
                McpTransport::stdio(command.clone(), args.iter().cloned()),
            ));
        }
        for url in &self.http {
            n += 1;
            configs.push(McpServerConfig::new(
                format!("mcp{n}"),
                McpTransport::http(url.clone()),
            ));
        }
        for config in &configs {
            config
                .validate()
                .map_err(|e| Failure::Usage(format!("{e}")))?;
        }
        if let Some(path) = &self.config {
            let text = std::fs::read_to_string(path)
                .map_err(|e| Failure::Source(format!("--mcp-config {}: {e}", path.display())))?;
            let (loaded, errors) = parse_server_list(&text);
            if let Some(first) = errors.first() {
                let all: Vec<String> = errors.iter().map(ToString::to_string).collect();
                return Err(Failure::Source(format!(
                    "--mcp-config {}: {} problem(s): {}{}",
                    path.display(),
                    errors.len(),
                    first,
                    if all.len() > 1 {
                        format!("; {}", all[1..].join("; "))
                    } else {
                        String::new()
                    }
                )));
            }
            for config in loaded {
                let config = open_sealed(config)?;
                if configs.iter().any(|c| c.id == config.id) {
                    return Err(Failure::Source(format!(
                        "--mcp-config {}: id `{}` is taken by a command-line server",
                        path.display(),
                        config.id
                    )));
                }
                configs.push(config);
            }
        }
        Ok(configs)
    }
}

/// The environment variable holding the key (64 hex digits) that opens
/// sealed secrets (`enc:v1:…`) in an `--mcp-config` file.
pub const KEY_VAR: &str = "TOOLHOST_MCP_KEY";

/// Opens a configuration's sealed secrets with the key in [`KEY_VAR`]; a
/// missing or wrong key is an error naming the field, never a silent pass.
fn open_sealed(config: McpServerConfig) -> Result<McpServerConfig, Failure> {
    if config.ensure_open().is_ok() {
        return Ok(config);
    }
    let hex = std::env::var(KEY_VAR).map_err(|_| {
        Failure::Source(format!(
            "MCP server `{}` has sealed secrets; set {KEY_VAR} to the 64-hex-digit key",
            config.id
        ))
    })?;
    let key = parse_key(hex.trim())
        .ok_or_else(|| Failure::Source(format!("{KEY_VAR}: expected 64 hex digits")))?;
    config
        .open_secrets(&tool_mcp::XChaChaCipher::new(key))
        .map_err(|e| Failure::Source(e.to_string()))
}

fn parse_key(hex: &str) -> Option<[u8; 32]> {
    if hex.len() != 64 || !hex.is_ascii() {
        return None;
    }
    let mut key = [0u8; 32];
    for (i, byte) in key.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(key)
}

/// Splits a command line into words by POSIX shell rules: '…' and "…"
/// quoting, backslash escapes (`my\ server.js`, `"a \"b\""`), no
/// expansions (nothing here goes through a shell).
fn split_command(line: &str) -> Result<Vec<String>, String> {
    shell_words::split(line).map_err(|e| e.to_string())
}

/// Where a pre-registered OAuth client's secret is read from (never argv).
const CLIENT_SECRET_VAR: &str = "TOOLHOST_MCP_OAUTH_CLIENT_SECRET";
/// The environment variable holding the client's private key (PKCS#8 PEM,
/// ECDSA P-256) for `--mcp-oauth client-credentials` with `private_key_jwt`.
const CLIENT_KEY_VAR: &str = "TOOLHOST_MCP_OAUTH_CLIENT_KEY";

/// Manager options with the host's SSRF guard (the one HTTP tools use,
/// public addresses only plus `--allow-host`), applied by tool-mcp with
/// MCP's redirect rule: every hop checked, only same-origin 307/308
/// followed ([`tool_mcp::SsrfHttpGuard`]).
fn guarded(options: &McpOptions) -> Result<ManagerOptions, Failure> {
    let guard = crate::openapi::guard(&crate::openapi::OpenApiOptions {
        allow_hosts: options.allow_hosts.clone(),
        ..Default::default()
    })?;
    let mut manager = ManagerOptions::default()
        .ssrf_guard(&guard)
        .map_err(|e| Failure::Source(format!("the HTTP client for MCP servers: {e}")))?;
    let authorizer: Option<Arc<dyn tool_mcp::Authorizer>> = match options.oauth {
        None => None,
        Some(OAuthMode::ClientCredentials) => {
            let var = |name: &str| std::env::var(name).ok().filter(|s| !s.is_empty());
            let oauth = match (
                &options.oauth_client_id,
                var(CLIENT_KEY_VAR),
                var(CLIENT_SECRET_VAR),
            ) {
                (Some(id), Some(key), _) => {
                    tool_mcp::OAuthOptions::client_credentials_jwt(id.clone(), &key)
                        .map_err(|e| Failure::Usage(format!("{CLIENT_KEY_VAR}: {e}")))?
                }
                (Some(id), None, Some(secret)) => {
                    tool_mcp::OAuthOptions::client_credentials(id.clone(), secret)
                }
                _ => {
                    return Err(Failure::Usage(format!(
                        "--mcp-oauth client-credentials needs --mcp-oauth-client-id and the secret in {CLIENT_SECRET_VAR} (or a PKCS#8 PEM ES256 key in {CLIENT_KEY_VAR})"
                    )));
                }
            };
            let oauth = oauth
                .dpop(options.oauth_dpop)
                .map_err(|e| Failure::Source(format!("--mcp-oauth-dpop: {e}")))?;
            return Ok(manager.oauth(oauth));
        }
        Some(OAuthMode::Browser) => {
            Some(Arc::new(oauth::BrowserAuthorizer::bind().map_err(|e| {
                Failure::Source(format!("--mcp-oauth browser: the callback listener: {e}"))
            })?))
        }
        Some(OAuthMode::Follow) => Some(Arc::new(
            oauth::FollowAuthorizer::new(&guard)
                .map_err(|e| Failure::Source(format!("--mcp-oauth follow: {e}")))?,
        )),
    };
    if let Some(authorizer) = authorizer {
        let mut oauth = tool_mcp::OAuthOptions::new(authorizer).client_name("toolhost");
        if let Some(id) = &options.oauth_client_id {
            let secret = std::env::var(CLIENT_SECRET_VAR)
                .ok()
                .filter(|s| !s.is_empty());
            oauth = oauth.preregistered(id.clone(), secret);
        }
        if let Some(url) = &options.oauth_client_metadata_url {
            oauth = oauth.client_metadata_url(url.clone());
        }
        let oauth = oauth
            .dpop(options.oauth_dpop)
            .map_err(|e| Failure::Source(format!("--mcp-oauth-dpop: {e}")))?;
        manager = manager.oauth(oauth);
    } else if options.oauth_client_id.is_some()
        || options.oauth_client_metadata_url.is_some()
        || options.oauth_dpop
    {
        return Err(Failure::Usage(
            "--mcp-oauth-client-id, --mcp-oauth-client-metadata-url and --mcp-oauth-dpop need --mcp-oauth"
                .into(),
        ));
    }
    Ok(manager)
}

fn manager_for(
    configs: Vec<McpServerConfig>,
    options: ManagerOptions,
) -> Result<Arc<McpManager>, Failure> {
    let manager = Arc::new(McpManager::new(options));
    for config in configs {
        manager
            .upsert(config)
            .map_err(|e| Failure::Usage(e.to_string()))?;
    }
    Ok(manager)
}

fn report_json(report: &ServerReport) -> Value {
    match report {
        ServerReport::Loaded {
            server,
            apis,
            skipped,
        } => json!({
            "id": server, "status": "loaded", "apis": apis,
            "skipped": skipped.iter().map(ToString::to_string).collect::<Vec<_>>(),
        }),
        ServerReport::Disabled { server } => json!({"id": server, "status": "disabled"}),
        ServerReport::Failed(error) => json!({
            "id": error.server(), "status": "failed", "code": error.code(), "error": error.to_string(),
        }),
        _ => json!({"id": report.server(), "status": "unknown"}),
    }
}

/// Loads the command line's MCP servers into `host`; returns one report per
/// server (empty when none were given). A server that fails is reported and
/// the others still load.
pub async fn attach(host: &mut Host, options: &McpOptions) -> Result<Vec<Value>, Failure> {
    attach_with(host, options, None).await
}

/// [`attach`], with the servers' elicitation requests answered by
/// `elicitation` (and the capability declared only then).
async fn attach_with(
    host: &mut Host,
    options: &McpOptions,
    elicitation: Option<Arc<dyn ElicitationHandler>>,
) -> Result<Vec<Value>, Failure> {
    if options.is_empty() {
        return Ok(Vec::new());
    }
    let mut manager_options = guarded(options)?;
    if let Some(handler) = elicitation {
        manager_options = manager_options.elicitation(handler);
    }
    let manager = manager_for(options.configs()?, manager_options)?;
    let load = McpProvider::new(manager).load_all().await;
    let mut reports: Vec<Value> = load.reports.iter().map(report_json).collect();
    for problem in host.add_tools(load.tools) {
        reports.push(json!({"status": "not registered", "error": problem}));
    }
    Ok(reports)
}

/// `toolhost mcp …`
/// The host's other tool sources, which `mcp serve` serves too.
pub struct Sources<'a> {
    /// `--skills` folders.
    pub skills: &'a [PathBuf],
    /// `--openapi` documents.
    pub openapi: &'a crate::openapi::OpenApiOptions,
}

pub async fn run(
    command: McpCommand,
    cwd: &Path,
    policy: &PolicyOptions,
    options: &McpOptions,
    sources: Sources<'_>,
) -> Result<Value, Failure> {
    match command {
        McpCommand::Tools => {
            let manager = manager_for(options.configs()?, guarded(options)?)?;
            let mut servers = Vec::new();
            for id in manager.ids() {
                let enabled = manager.config(&id).is_some_and(|c| c.enabled);
                servers.push(if !enabled {
                    json!({"id": id, "status": "disabled"})
                } else {
                    match manager.catalog(&id).await {
                        Ok(catalog) => json!({"id": id, "status": "loaded", "tools": catalog.tools}),
                        Err(error) => json!({"id": id, "status": "failed", "code": error.code(), "error": error.to_string()}),
                    }
                });
            }
            manager.shutdown().await;
            Ok(json!({ "servers": servers }))
        }
        McpCommand::Library => {
            let manager = manager_for(options.configs()?, guarded(options)?)?;
            let part = |listed: Result<Value, tool_mcp::Error>| {
                listed.unwrap_or_else(
                    |error| json!({"code": error.code(), "error": error.to_string()}),
                )
            };
            let mut servers = Vec::new();
            for id in manager.ids() {
                if !manager.config(&id).is_some_and(|c| c.enabled) {
                    servers.push(json!({"id": id, "status": "disabled"}));
                    continue;
                }
                let resources = manager.list_resources(&id).await.map(|r| json!(r));
                let templates = manager.list_resource_templates(&id).await.map(|t| json!(t));
                let prompts = manager.list_prompts(&id).await.map(|p| json!(p));
                servers.push(json!({
                    "id": id,
                    "resources": part(resources),
                    "templates": part(templates),
                    "prompts": part(prompts),
                }));
            }
            manager.shutdown().await;
            Ok(json!({ "servers": servers }))
        }
        McpCommand::Task { command } => {
            let keys = tasks::task_keys()?;
            let manager_options = guarded(options)?.tasks(true).task_keys(keys);
            let manager = manager_for(options.configs()?, manager_options)?;
            tasks::run(command, cwd, policy, manager).await
        }
        McpCommand::Skills => {
            let manager = manager_for(options.configs()?, guarded(options)?)?;
            let listed = remote_skills::list(&manager).await;
            manager.shutdown().await;
            Ok(listed)
        }
        McpCommand::SkillCatalog { activate } => {
            let manager = manager_for(options.configs()?, guarded(options)?)?;
            let catalog =
                remote_skills::catalog(Arc::clone(&manager), sources.skills, activate.as_deref())
                    .await;
            manager.shutdown().await;
            Ok(catalog)
        }
        McpCommand::Skill { server, name } => {
            let manager = manager_for(options.configs()?, guarded(options)?)?;
            let loaded = remote_skills::load(&manager, &server, &name).await;
            manager.shutdown().await;
            loaded
        }
        McpCommand::Read { server, uri } => {
            let manager = manager_for(options.configs()?, guarded(options)?)?;
            let read = manager.read_resource(&server, &uri).await;
            manager.shutdown().await;
            read.map(|r| json!(r))
                .map_err(|e| Failure::Source(e.to_string()))
        }
        McpCommand::Prompt { server, name, args } => {
            let arguments: serde_json::Map<String, Value> = match args.as_deref() {
                None | Some("") => serde_json::Map::new(),
                Some(text) => serde_json::from_str(text).map_err(|e| {
                    Failure::Usage(format!("prompt arguments: not a JSON object: {e}"))
                })?,
            };
            let manager = manager_for(options.configs()?, guarded(options)?)?;
            let got = manager.get_prompt(&server, &name, arguments).await;
            manager.shutdown().await;
            got.map(|p| json!(p))
                .map_err(|e| Failure::Source(e.to_string()))
        }
        McpCommand::Call {
            name,
            args,
            approve,
            elicitation,
        } => {
            let mut host = Host::new(cwd, policy)?;
            let handler = elicitation
                .map(|answer| Arc::new(CommandLineAnswer(answer)) as Arc<dyn ElicitationHandler>);
            let reports = attach_with(&mut host, options, handler).await?;
            let called = host
                .call(&name, args.as_deref().unwrap_or(""), approve)
                .await;
            Ok(json!({
                "decision": crate::host::decision_json(&called.decision),
                "output": called.output,
                "mcp": reports,
            }))
        }
        McpCommand::Serve {
            http,
            bare_names,
            conformance_fixtures,
        } => {
            let mut host = Host::new(cwd, policy)?;
            if conformance_fixtures {
                let tools = conformance::fixture_tool()
                    .and_then(|tool| {
                        Ok(vec![
                            tool,
                            conformance_rounds::rounds_tool()?,
                            conformance_tasks::tasks_tool()?,
                        ])
                    })
                    .map_err(|e| Failure::Source(format!("conformance fixtures: {e}")))?;
                if let Some(problem) = host.add_tools(tools).into_iter().next() {
                    return Err(Failure::Source(format!("conformance fixtures: {problem}")));
                }
            }
            // `--skills` and `--openapi` tools are served like the builtins.
            for finding in crate::skills::attach(&mut host, sources.skills)? {
                crate::report(&json!({ "warning": { "skills": finding } }));
            }
            crate::openapi::attach(&mut host, sources.openapi)?;
            let (registry, engine, ctx) = host.into_parts();
            // A live registry: the `--mcp-*` servers' tools follow their
            // lists, and this server's clients are told when they change.
            let live = LiveRegistry::from(registry);
            let mut server = serving(live.clone(), engine, ctx).with_bare_names(bare_names);
            // The skills as MCP resources (their SKILL.md) and prompts too.
            let library = Arc::new(skills::SkillLibrary::new(
                &tool_skills::SkillRegistry::load(
                    sources.skills.iter().enumerate().map(|(index, dir)| {
                        tool_skills::SkillSource::dir(format!("skills[{index}]"), dir)
                    }),
                    tool_skills::LoadOptions::default(),
                ),
            ));
            if conformance_fixtures {
                // The suite's resources and prompts, by the names it expects.
                let fixtures = Arc::new(conformance::FixtureLibrary);
                server = server
                    .with_resources(fixtures.clone())
                    .with_prompts(fixtures)
                    .with_task_tools(conformance_tasks::TASK_TOOLS)
                    .with_questions_before_task(conformance_tasks::ASK_FIRST);
            } else if !library.is_empty() {
                // And through the skills extension (SEP-2640).
                for why in library.left_out() {
                    crate::report(&json!({"warning": {"skills extension": why}}));
                }
                server = server
                    .with_resources(library.clone())
                    .with_prompts(library.clone())
                    .with_skills(library);
            }
            let mut follower = None;
            if !options.is_empty() {
                let manager = manager_for(options.configs()?, guarded(options)?)?;
                let load = McpProvider::new(manager).load_live(&live).await;
                for report in load.reports.iter().map(report_json) {
                    if report["status"] != "loaded" {
                        crate::report(&json!({"warning": {"mcp": report}}));
                    }
                }
                for (id, problem) in &load.not_registered {
                    let report =
                        json!({"id": id, "status": "not registered", "error": problem.to_string()});
                    crate::report(&json!({"warning": {"mcp": report}}));
                }
                let mut rebuilds = load.sync.subscribe();
                let notifier = server.clone();
                follower = Some((
                    load.sync,
                    tokio::spawn(async move {
                        while rebuilds.changed().await.is_ok() {
                            notifier.notify_tools_changed().await;
                        }
                    }),
                ));
            }
            match http {
                None => server
                    .serve_stdio()
                    .await
                    .map_err(|e| Failure::Source(e.to_string()))?,
                Some(addr) => {
                    let stop = tokio_util::sync::CancellationToken::new();
                    let (bound, task) = server
                        .serve_http(addr, stop.clone())
                        .await
                        .map_err(|e| Failure::Source(e.to_string()))?;
                    crate::report(&json!({"listening": format!("http://{bound}/mcp")}));
                    let _ = tokio::signal::ctrl_c().await;
                    stop.cancel();
                    let _ = task.await;
                }
            }
            if let Some((sync, task)) = follower {
                drop(sync);
                task.abort();
            }
            Ok(Value::String(String::new()))
        }
    }
}

/// The host's registry as an MCP server gated by its policy engine
/// (tool-approval's `PolicyEngine` is a `tool_core::Gate`).
pub fn serving(
    registry: LiveRegistry,
    engine: impl Into<Arc<PolicyEngine>>,
    ctx: ToolContext,
) -> RegistryServer {
    let gate: Arc<PolicyEngine> = engine.into();
    RegistryServer::live(registry, gate, ctx).with_name("toolhost")
}

/// The demo's "user": says yes to every question and remembers it.
#[derive(Default)]
struct SaysYes {
    asked: Mutex<Vec<String>>,
}

#[async_trait]
impl ElicitationHandler for SaysYes {
    async fn elicit(&self, server: &str, message: &str, _schema: &Value) -> Elicited {
        if let Ok(mut asked) = self.asked.lock() {
            asked.push(format!("{server}: {message}"));
        }
        Elicited::Accept(json!({}))
    }
}

/// Where a third-party server-everything can be found: on `PATH`, or the
/// copy the repository's setup script installs for tool-mcp's tests.
fn server_everything() -> Option<McpTransport> {
    if let Some(paths) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&paths) {
            if dir.join("mcp-server-everything").is_file() {
                return Some(McpTransport::stdio("mcp-server-everything", ["stdio"]));
            }
        }
    }
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tool-mcp/tests/fixtures/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    fixture
        .is_file()
        .then(|| McpTransport::stdio("node", [fixture.display().to_string(), "stdio".into()]))
}

/// The demo's MCP steps: toolhost talking to itself (`toolhost mcp serve`
/// as a child, through tool-mcp), then to a third-party server if installed.
pub async fn demo_steps() -> Vec<(String, String, Value)> {
    let mut steps = Vec::new();
    let scratch = match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(e) => {
            steps.push((
                "MCP".into(),
                "no scratch directory".into(),
                json!(e.to_string()),
            ));
            return steps;
        }
    };
    let exe = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "toolhost".into());
    let answers = Arc::new(SaysYes::default());
    let options =
        ManagerOptions::default().elicitation(Arc::clone(&answers) as Arc<dyn ElicitationHandler>);
    let mut configs = vec![
        McpServerConfig::new(
            "self",
            McpTransport::stdio(
                exe,
                [
                    "--cwd".to_owned(),
                    scratch.path().display().to_string(),
                    "mcp".into(),
                    "serve".into(),
                ],
            ),
        )
        .with_startup_timeout(Duration::from_secs(20)),
    ];
    let third_party = server_everything();
    if let Some(transport) = &third_party {
        configs.push(
            McpServerConfig::new("everything", transport.clone())
                .with_startup_timeout(Duration::from_secs(20)),
        );
    }
    let manager = match manager_for(configs, options) {
        Ok(manager) => manager,
        Err(Failure::Usage(m) | Failure::Source(m)) => {
            steps.push(("MCP".into(), "configuration".into(), json!(m)));
            return steps;
        }
    };
    let load = McpProvider::new(Arc::clone(&manager)).load_all().await;
    let mut registry = ToolRegistry::new().with_name_rules(tool_core::manifest::NameRules::Foreign);
    for tool in load.tools {
        let _ = registry.register_arc(tool);
    }
    let ctx = ToolContext::new();
    let offered = registry.offer(&ctx);
    let invoker = tool_core::Invoker::default();
    let call = |server: &str, api: &str, args: &str| {
        let wire = offered
            .resolve_pair(server, api)
            .map(|r| r.wire_name.to_owned())
            .unwrap_or_else(|_| format!("{server}____{api}"));
        tool_core::ToolCall::new(wire, args)
    };
    let mut results = Vec::new();
    for (api, args) in [
        ("calculator____evaluate", r#"{"expression": "6 * 7"}"#),
        ("clock____now", "{}"),
        (
            "local-system____writeFile",
            r#"{"path": "hello.txt", "content": "written over MCP\n"}"#,
        ),
        ("local-system____readFile", r#"{"path": "hello.txt"}"#),
        (
            "local-system____runCommand",
            r#"{"command": "cat hello.txt"}"#,
        ),
    ] {
        let output = invoker
            .invoke(&offered, &call("self", api, args), &ctx)
            .await;
        results.push(json!({"remoteTool": api, "content": output.content, "success": output.success, "errorCode": output.error_code()}));
    }
    let asked = answers.asked.lock().map(|a| a.clone()).unwrap_or_default();
    steps.push((
        "MCP: toolhost talks to itself".into(),
        "`toolhost mcp serve` runs as a child process; tool-mcp discovers its tools and calls them. Each call goes through the serving host's pipeline and approval policy; writeFile inside the working directory runs, runCommand needs approval, so the server asked this client's user through MCP elicitation (the demo says yes).".into(),
        json!({
            "servers": load.reports.iter().map(report_json).collect::<Vec<_>>(),
            "calls": results,
            "elicitations": asked,
        }),
    ));
    match third_party {
        Some(_) => {
            let mut outs = Vec::new();
            for (api, args) in [("echo", r#"{"message": "hello from toolhost"}"#), ("get-tiny-image", "{}")] {
                let output = invoker.invoke(&offered, &call("everything", api, args), &ctx).await;
                outs.push(json!({"remoteTool": api, "content": output.content, "success": output.success, "stateKept": output.state.is_some()}));
            }
            steps.push((
                "MCP: a third-party server".into(),
                "@modelcontextprotocol/server-everything over stdio: text goes to the model, the image is summarised in content and kept whole in state.".into(),
                json!(outs),
            ));
        }
        None => steps.push((
            "MCP: a third-party server".into(),
            "Not installed, so skipped. Install it with `npm install -g @modelcontextprotocol/server-everything` (or run `bash .ci/setup.d/30-mcp.sh` in the repository), then run the demo again.".into(),
            Value::Null,
        )),
    }
    manager.shutdown().await;
    steps
}

#[cfg(test)]
mod tests {
    use super::split_command;

    #[test]
    fn commands_split_by_shell_word_rules() {
        assert_eq!(
            split_command(r#"node "my server.js" --flag 'a b'"#).unwrap(),
            ["node", "my server.js", "--flag", "a b"]
        );
        assert_eq!(split_command("  ").unwrap(), Vec::<String>::new());
        assert!(split_command("node 'open").is_err());
        assert_eq!(split_command(r#"x """#).unwrap(), ["x", ""]);
        // Backslash escapes, as a shell would read them.
        assert_eq!(
            split_command(r#"node my\ server.js "say \"hi\"" a\'b"#).unwrap(),
            ["node", "my server.js", r#"say "hi""#, "a'b"]
        );
    }
}
