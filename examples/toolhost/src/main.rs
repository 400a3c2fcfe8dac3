//! `toolhost`: the reference host of the tool-layer crates.
//!
//! It shows how a host wires the crates together, and it is the CLI through
//! which users and test suites drive them. Contract:
//!
//! - stdout is one JSON document per command;
//! - exit 0 when the command itself worked (even if the tool call failed:
//!   the failure is in the output), 2 for a usage error, 1 when a source
//!   (a policy file, a spec…) cannot be loaded; errors are JSON on stderr:
//!   `{"error": {"kind": "usage" | "source" | "internal", "message": …}}`;
//! - with `TOOLHOST_TRACE_FILE=PATH` set, the tool-layer crates' spans and
//!   events are appended to PATH as JSON lines ([`trace_file`]).

mod builtin;
mod demo;
mod dispatch;
mod host;
mod mcp;
mod openapi;
mod pending;
mod replay;
mod resume_gate;
mod sandbox;
mod script_audit;
mod session;
mod skills;
mod tool_search;
mod trace_file;
mod workspace;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use serde_json::{Value, json};

use crate::host::Host;

/// Reference host of the tool-layer crates: offers, checks and runs tools.
#[derive(Debug, Parser)]
#[command(name = "toolhost", version)]
struct Cli {
    /// Working directory given to tools through the context (default: the current directory).
    #[arg(long, global = true, value_name = "DIR")]
    cwd: Option<PathBuf>,

    /// Approval mode; overrides the policy file's mode (default: manual).
    #[arg(long, global = true, value_enum)]
    mode: Option<Mode>,

    /// A JSON policy file: mode, allowList, rules, blacklist.
    #[arg(long, global = true, value_name = "FILE")]
    policy: Option<PathBuf>,

    /// OS sandbox of runCommand (default: workspace-write in auto-run, allow-list
    /// and headless modes, full-access in manual mode).
    #[arg(long, global = true, value_enum)]
    sandbox: Option<sandbox::SandboxArg>,

    /// Let sandboxed commands open network connections (loopback included).
    #[arg(long, global = true)]
    allow_network: bool,

    /// Let sandboxed commands reach this host name (or `*.suffix`) through the
    /// runtime's egress proxy, and nothing else on the network (repeatable;
    /// wins over --allow-network).
    #[arg(long = "allow-domain", global = true, value_name = "NAME")]
    allow_domain: Vec<String>,

    /// An MCP server to load tools from: a command line run over stdio (repeatable).
    #[arg(long = "mcp-stdio", global = true, value_name = "COMMAND ARGS…")]
    mcp_stdio: Vec<String>,

    /// A streamable HTTP MCP server to load tools from (repeatable).
    #[arg(long = "mcp-http", global = true, value_name = "URL")]
    mcp_http: Vec<String>,
    /// How MCP servers that ask for OAuth 2.1 are authorized: `browser`
    /// prints the URL and waits for the redirect on 127.0.0.1, `follow`
    /// takes the authorization server's redirect itself.
    #[arg(long = "mcp-oauth", global = true, value_enum, value_name = "MODE")]
    mcp_oauth: Option<mcp::OAuthMode>,
    /// A client id registered with the servers' authorization server out of
    /// band (no dynamic registration); its secret, for a confidential
    /// client, comes from the environment variable TOOLHOST_MCP_OAUTH_CLIENT_SECRET.
    #[arg(long = "mcp-oauth-client-id", global = true, value_name = "ID")]
    mcp_oauth_client_id: Option<String>,
    /// The HTTPS URL of this host's OAuth Client ID Metadata Document, used
    /// as the client id where the authorization server supports it.
    #[arg(
        long = "mcp-oauth-client-metadata-url",
        global = true,
        value_name = "URL"
    )]
    mcp_oauth_client_metadata_url: Option<String>,
    /// DPoP (RFC 9449) with `--mcp-oauth`: tokens bound to a key pair made
    /// for this run, sent as `Authorization: DPoP` with a fresh proof per request.
    #[arg(long = "mcp-oauth-dpop", global = true)]
    mcp_oauth_dpop: bool,

    /// A JSON file with a list of MCP server configurations.
    #[arg(long = "mcp-config", global = true, value_name = "FILE")]
    mcp_config: Option<PathBuf>,

    /// A folder of Agent Skills offered through the `skills` tool
    /// (repeatable; the first folder wins a name defined twice).
    #[arg(long = "skills", global = true, value_name = "DIR")]
    skills: Vec<PathBuf>,

    /// An API document to load one HTTP tool from: narrow protocol or
    /// OpenAPI 3, JSON or YAML, detected (repeatable).
    #[arg(long = "openapi", global = true, value_name = "FILE")]
    openapi: Vec<PathBuf>,

    /// The base URL of the API documents (`--openapi`, `openapi validate|tools`),
    /// replacing their `servers`: needed when those are relative or missing.
    #[arg(long = "server", global = true, value_name = "URL")]
    server: Option<String>,

    /// A credential for the API documents' security scheme SCHEME, read from
    /// the environment variable ENV_VAR (repeatable; never a value on the
    /// command line). Basic: `USER:PASSWORD`; OAuth2 client credentials:
    /// `CLIENT_ID:CLIENT_SECRET`; other schemes: the key or token.
    #[arg(long = "openapi-secret", global = true, value_name = "SCHEME=ENV_VAR")]
    openapi_secret: Vec<String>,

    /// A JSON file of credentials for the API documents' security schemes:
    /// `{"SCHEME": {"token"} | {"username", "password"} | {"clientId", "clientSecret"}}`.
    #[arg(long = "openapi-credentials", global = true, value_name = "FILE")]
    openapi_credentials: Option<PathBuf>,

    /// A host name, IP address or CIDR the SSRF guard lets HTTP tools and
    /// streamable HTTP MCP servers reach (repeatable; by default only public
    /// addresses are reachable).
    #[arg(long = "allow-host", global = true, value_name = "HOST_OR_CIDR")]
    allow_host: Vec<String>,

    /// The MAC key of pending turns (hex, at least 32 bytes), instead of
    /// the one in toolhost's state directory (`$TOOLHOST_STATE_DIR`).
    #[arg(long = "key-file", global = true, value_name = "FILE")]
    key_file: Option<PathBuf>,

    /// A Redis use-once ledger for resumed approvals (`redis://host:port/`),
    /// instead of the one in toolhost's state directory.
    #[arg(long = "ledger-redis", global = true, value_name = "URL")]
    ledger_redis: Option<String>,

    /// A session file (created when missing) keeping the taint ledger, the
    /// pinned tool definitions and the quota counts between runs; `call`
    /// judges each way out against it (rules `taint/trifecta`,
    /// `pin/changed`, `quota/…`). Its `settings` are written by a person.
    #[arg(long = "session", global = true, value_name = "FILE")]
    session: Option<PathBuf>,

    /// What the user wrote, recorded in the session before the call
    /// (repeatable): destinations it names are not exfiltration.
    #[arg(
        long = "user-said",
        global = true,
        value_name = "TEXT",
        requires = "session"
    )]
    user_said: Vec<String>,

    /// Trust the workspace (`--cwd`): record it in toolhost's trust store
    /// (`trusted.json` in the state directory), so the configuration it
    /// carries (`.toolhost/skills`, `.agents/skills`, `.toolhost/policy.json`,
    /// `.toolhost/mcp.json`, `AGENTS.md`, `CLAUDE.md`) is used from now on.
    /// Until then it is reported under `"workspace"`, never read.
    #[arg(long, global = true, conflicts_with = "distrust_workspace")]
    trust_workspace: bool,

    /// Remove the workspace (`--cwd`) from toolhost's trust store.
    #[arg(long, global = true)]
    distrust_workspace: bool,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print the offered tools: `{"tools": [...]}`.
    Tools {
        /// Shape of each entry.
        #[arg(long, value_enum, default_value_t = Format::Manifest)]
        format: Format,
        /// Print the offered APIs ranked for QUERY instead (BM25):
        /// `{"results": [{"name", "score", "description"}]}`.
        #[arg(long, value_name = "QUERY", conflicts_with = "defer_over")]
        search: Option<String>,
        /// How many ranked APIs `--search` prints.
        #[arg(long, value_name = "K", default_value_t = 10, requires = "search")]
        limit: usize,
        /// Defer every API that does not fit CHARS characters of loaded
        /// definitions (first fit, offered order); adds `"deferral"` (sizes,
        /// what the budget deferred) and `"systemNote"`. Needs a provider
        /// `--format`.
        #[arg(long, value_name = "CHARS")]
        defer_over: Option<usize>,
    },
    /// Decide, then run one call: `{"decision": Decision, "output": ToolOutput | null}`.
    Call {
        /// The tool's wire name, e.g. `calculator____evaluate`.
        name: String,
        /// The raw arguments JSON, exactly as a model would send it (default `{}`).
        args: Option<String>,
        /// Run a call whose decision is `ask` (a human said yes). `block` never runs.
        #[arg(long)]
        approve: bool,
        /// Write a call whose decision is `ask` to FILE as a pending turn
        /// instead of asking (`output: null`, `pending: FILE`); resume it
        /// with `toolhost resume FILE`.
        #[arg(long, value_name = "FILE", conflicts_with = "approve")]
        pending: Option<PathBuf>,
        #[command(flatten)]
        record: replay::RecordArgs,
    },
    /// Answer a pending turn and run it: `{"outputs", "interventions", "refused", "pending"}`.
    Resume {
        /// The pending turn written by `call --pending`.
        file: PathBuf,
        /// The person's answer.
        #[arg(long, value_enum)]
        answer: pending::AnswerArg,
        /// Remember an approval for this workspace ("always").
        #[arg(long)]
        always: bool,
    },
    /// Print a pending turn for a person: each waiting call, why, under what it would run.
    Pending {
        /// The pending turn written by `call --pending`.
        file: PathBuf,
    },
    /// Decide without running anything: `{"decision": Decision}`.
    Check {
        /// The tool's wire name.
        name: String,
        /// The raw arguments JSON (default `{}`).
        args: Option<String>,
        #[command(flatten)]
        record: replay::RecordArgs,
    },
    /// Re-decide recorded calls (`--record FILE --record-arguments`) under
    /// this host's policy (`--policy NEW.json`) and print what would change:
    /// `{"changes", "summary", "unchanged", "notReplayable", …}`.
    Replay {
        /// A JSON Lines file of decision records.
        records: PathBuf,
    },
    /// MCP: serve this host's tools, or list what configured servers offer.
    Mcp {
        #[command(subcommand)]
        command: mcp::McpCommand,
    },
    /// Agent Skills: validate a folder, or render its catalog.
    Skills {
        #[command(subcommand)]
        command: skills::SkillsCommand,
    },
    /// API documents: validate one, or print the tool compiled from it.
    Openapi {
        #[command(subcommand)]
        command: openapi::OpenapiCommand,
    },
    /// A guided walk through what the crates can do (offline, no setup).
    Demo {
        /// Print prose instead of JSON.
        #[arg(long)]
        text: bool,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Mode {
    /// Policies apply as written; unknown tools ask.
    Manual,
    /// Listed `identifier/apiName` keys run unless something says always/deny.
    AllowList,
    /// Everything short of `always` runs.
    AutoRun,
    /// Nobody is there: short of `always` runs, what needs a human is blocked.
    Headless,
}

impl From<Mode> for tool_approval::ApprovalMode {
    fn from(mode: Mode) -> Self {
        match mode {
            Mode::Manual => Self::Manual,
            Mode::AllowList => Self::AllowList,
            Mode::AutoRun => Self::AutoRun,
            Mode::Headless => Self::Headless,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// Tool manifests as stored (camelCase).
    Manifest,
    /// OpenAI Chat Completions `tools`.
    Openai,
    /// OpenAI Responses `tools`.
    OpenaiResponses,
    /// Anthropic Messages `tools`.
    Anthropic,
}

/// A failure of the command itself (not of a tool call).
#[derive(Debug)]
pub enum Failure {
    /// Bad command line: exit 2.
    Usage(String),
    /// A source could not be loaded: exit 1.
    Source(String),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            use clap::error::ErrorKind;
            if matches!(
                error.kind(),
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
            ) {
                let _ = error.print();
                return ExitCode::SUCCESS;
            }
            return fail(&Failure::Usage(error.render().to_string()));
        }
    };
    if let Err(failure) = trace_file::install() {
        return fail(&failure);
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            return fail(&Failure::Source(format!(
                "cannot start the async runtime: {error}"
            )));
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(Value::String(text)) => emit(&text),
        Ok(value) => {
            let text = serde_json::to_string_pretty(&value).unwrap_or_else(|_| value.to_string());
            emit(&format!("{text}\n"))
        }
        Err(failure) => fail(&failure),
    }
}

/// Writes the command's document to stdout. A reader that went away
/// (`toolhost … | head`) ends the command quietly, as other Unix tools do.
fn emit(text: &str) -> ExitCode {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            let message = format!("cannot write stdout: {e}");
            report(&json!({"error": {"kind": "io", "message": message}}));
            ExitCode::from(1)
        }
    }
}

fn fail(failure: &Failure) -> ExitCode {
    let (kind, message, code) = match failure {
        Failure::Usage(message) => ("usage", message, 2),
        Failure::Source(message) => ("source", message, 1),
    };
    report(&json!({"error": {"kind": kind, "message": message.trim_end()}}));
    ExitCode::from(code)
}

/// Writes one JSON line to stderr. Unlike `eprintln!`, which panics when
/// stderr is a pipe nobody reads any more (`toolhost … 2>&1 | head`), a
/// failed write is ignored: the exit code still says what happened.
pub fn report(line: &Value) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

async fn run(mut cli: Cli) -> Result<Value, Failure> {
    let cwd = match cli.cwd {
        Some(dir) => dir,
        None => std::env::current_dir()
            .map_err(|e| Failure::Usage(format!("cannot read the current directory: {e}")))?,
    };
    let cwd = std::fs::canonicalize(&cwd)
        .map_err(|e| Failure::Usage(format!("--cwd {}: {e}", cwd.display())))?;
    if !cwd.is_dir() {
        return Err(Failure::Usage(format!(
            "--cwd {}: not a directory",
            cwd.display()
        )));
    }
    // The workspace's own configuration, where the command builds a host:
    // reported, and used only once the workspace is trusted.
    let builds_host = matches!(
        cli.command,
        Command::Tools { .. }
            | Command::Call { .. }
            | Command::Check { .. }
            | Command::Resume { .. }
            | Command::Replay { .. }
            | Command::Mcp { .. }
    );
    let mut workspace = None;
    if builds_host || cli.trust_workspace || cli.distrust_workspace {
        let flags = workspace::TrustFlags {
            trust: cli.trust_workspace,
            distrust: cli.distrust_workspace,
        };
        let mut config = workspace::WorkspaceConfig::open(&cwd, flags)?;
        if builds_host {
            config.apply(&mut cli.policy, &mut cli.mcp_config, &mut cli.skills);
        }
        workspace = Some(config);
    }
    let report = |instructions: bool| workspace.as_ref().and_then(|w| w.report(instructions));
    let policy = host::PolicyOptions {
        file: cli.policy,
        mode: cli.mode.map(Into::into),
        sandbox: sandbox::SandboxChoice {
            arg: cli.sandbox,
            allow_network: cli.allow_network,
            allow_domains: cli.allow_domain,
        },
    };
    let facts = session::HostFacts {
        headless: policy.mode == Some(tool_approval::ApprovalMode::Headless),
        command_network: policy.sandbox.allow_network || !policy.sandbox.allow_domains.is_empty(),
    };
    let mcp_options = mcp::McpOptions {
        stdio: cli.mcp_stdio,
        http: cli.mcp_http,
        config: cli.mcp_config,
        allow_hosts: cli.allow_host.clone(),
        oauth: cli.mcp_oauth,
        oauth_client_id: cli.mcp_oauth_client_id,
        oauth_client_metadata_url: cli.mcp_oauth_client_metadata_url,
        oauth_dpop: cli.mcp_oauth_dpop,
    };
    let state = pending::StateOptions {
        key_file: cli.key_file,
        ledger_redis: cli.ledger_redis,
    };
    let openapi_options = openapi::OpenApiOptions {
        files: cli.openapi,
        allow_hosts: cli.allow_host,
        server: cli.server,
        secrets: cli.openapi_secret,
        credentials_file: cli.openapi_credentials,
    };
    match cli.command {
        Command::Tools {
            format,
            search,
            limit,
            defer_over,
        } => {
            let mut host = Host::new(&cwd, &policy)?;
            let reports = mcp::attach(&mut host, &mcp_options).await?;
            let skill_findings = skills::attach(&mut host, &cli.skills)?;
            openapi::attach(&mut host, &openapi_options)?;
            let mut out = match (search, defer_over) {
                (Some(query), _) => tool_search::search(&host.offered(), &query, limit)?,
                (None, Some(chars)) => {
                    let provider = match format {
                        Format::Openai => tool_core::ProviderFormat::OpenAiChat,
                        Format::OpenaiResponses => tool_core::ProviderFormat::OpenAiResponses,
                        Format::Anthropic => tool_core::ProviderFormat::Anthropic,
                        Format::Manifest => {
                            return Err(Failure::Usage(
                                "--defer-over needs --format openai, openai-responses or anthropic"
                                    .into(),
                            ));
                        }
                    };
                    tool_search::deferred(&host.offered(), provider, chars)?
                }
                (None, None) => json!({ "tools": host.tools(format) }),
            };
            let loaded = match &cli.session {
                Some(path) => Some(session::SessionFile::load(path, facts)?),
                None => None,
            };
            let map = session::capability_map(loaded.as_ref().map(|s| s.settings()), facts);
            out["capabilities"] = host.capabilities(&map);
            if let Some(file) = &loaded {
                let pins = host.with_session(std::sync::Arc::clone(file.session()));
                file.save()?;
                out["session"] = file.summary(&pins);
            }
            if !skill_findings.is_empty() {
                out["skills"] = json!({ "findings": skill_findings });
            }
            if let Some(findings) = host.policy_findings() {
                out["policy"] = findings;
            }
            if !reports.is_empty() {
                out["mcp"] = json!(reports);
            }
            if let Some(report) = report(true) {
                out["workspace"] = report;
            }
            Ok(out)
        }
        Command::Call {
            name,
            args,
            approve,
            pending,
            record,
        } => {
            let mut host = Host::new(&cwd, &policy)?;
            mcp::attach(&mut host, &mcp_options).await?;
            skills::attach(&mut host, &cli.skills)?;
            openapi::attach(&mut host, &openapi_options)?;
            let loaded = match &cli.session {
                Some(path) => Some(session::SessionFile::load(path, facts)?),
                None => None,
            };
            let mut pins = tool_core::taint::PinReport::default();
            if let Some(file) = &loaded {
                file.session().begin_turn();
                for text in &cli.user_said {
                    file.session().user_said(text);
                }
                pins = host.with_session(std::sync::Arc::clone(file.session()));
            }
            if let Some(path) = pending {
                let args = args.as_deref().unwrap_or("");
                let file = loaded.as_ref();
                let mut out =
                    pending::call(host, &policy, &state, &cwd, &name, args, &path, file).await?;
                if let Some(file) = file {
                    file.save()?;
                    out["session"] = file.summary(&pins);
                }
                if let Some(report) = report(false) {
                    out["workspace"] = report;
                }
                return Ok(out);
            }
            let called = host
                .call(&name, args.as_deref().unwrap_or(""), approve)
                .await;
            let fingerprint = host.policy_fingerprint();
            let raw = args.as_deref().unwrap_or("");
            replay::write(&record, &host, &name, raw, &called.decision, &fingerprint)?;
            let mut out = json!({
                "decision": host::decision_json(&called.decision),
                "output": called.output,
            });
            if let Some(findings) = host.policy_findings() {
                out["policy"] = findings;
            }
            if let Some(file) = &loaded {
                file.save()?;
                out["session"] = file.summary(&pins);
            }
            if let Some(report) = report(false) {
                out["workspace"] = report;
            }
            Ok(out)
        }
        Command::Resume {
            file,
            answer,
            always,
        } => {
            let mut host = Host::new(&cwd, &policy)?;
            mcp::attach(&mut host, &mcp_options).await?;
            skills::attach(&mut host, &cli.skills)?;
            openapi::attach(&mut host, &openapi_options)?;
            let loaded = match &cli.session {
                Some(path) => Some(session::SessionFile::load(path, facts)?),
                None => None,
            };
            let mut pins = tool_core::taint::PinReport::default();
            if let Some(file) = &loaded {
                // A resumed call continues the turn it was asked in: no
                // new turn, so per-turn quotas keep counting.
                for text in &cli.user_said {
                    file.session().user_said(text);
                }
                pins = host.with_session(std::sync::Arc::clone(file.session()));
            }
            let session = loaded.as_ref();
            let mut out =
                pending::resume(host, &policy, &state, &cwd, &file, answer, always, session)
                    .await?;
            if let Some(file) = session {
                file.save()?;
                out["session"] = file.summary(&pins);
            }
            if let Some(report) = report(false) {
                out["workspace"] = report;
            }
            Ok(out)
        }
        Command::Pending { file } => {
            let loaded = match &cli.session {
                Some(path) => Some(session::SessionFile::load(path, facts)?),
                None => None,
            };
            pending::show(&policy, &state, &cwd, &file, loaded.as_ref()).await
        }
        Command::Check { name, args, record } => {
            let mut host = Host::new(&cwd, &policy)?;
            mcp::attach(&mut host, &mcp_options).await?;
            skills::attach(&mut host, &cli.skills)?;
            openapi::attach(&mut host, &openapi_options)?;
            let raw = args.as_deref().unwrap_or("");
            let decision = host.check(&name, raw);
            let fingerprint = host.policy_fingerprint();
            replay::write(&record, &host, &name, raw, &decision, &fingerprint)?;
            let mut out = json!({ "decision": host::decision_json(&decision) });
            if let Some(findings) = host.policy_findings() {
                out["policy"] = findings;
            }
            if let Some(report) = report(false) {
                out["workspace"] = report;
            }
            Ok(out)
        }
        Command::Replay { records } => {
            let mut host = Host::new(&cwd, &policy)?;
            mcp::attach(&mut host, &mcp_options).await?;
            skills::attach(&mut host, &cli.skills)?;
            openapi::attach(&mut host, &openapi_options)?;
            replay::replay(&host, &records)
        }
        Command::Mcp { command } => {
            let sources = mcp::Sources {
                skills: &cli.skills,
                openapi: &openapi_options,
            };
            mcp::run(command, &cwd, &policy, &mcp_options, sources).await
        }
        Command::Skills { command } => skills::run(command),
        Command::Openapi { command } => openapi::run(command, &openapi_options),
        Command::Demo { text } => demo::run(text).await,
    }
}
