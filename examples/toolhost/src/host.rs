//! How a host assembles the crates: one registry, one context, one policy
//! engine, one pipeline. Every command goes through the same path.

use std::path::Path;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use tool_approval::{ApprovalMode, CallRef, Decision, PolicyEngine, PolicyFile};
use tool_core::{
    Invoker, OfferedTools, ToolCall, ToolContext, ToolOutput, ToolRegistry, approval::ApproveAll,
    export::split_wire_name, pipeline::parse_arguments,
};
use tool_runtime::{LocalComputer, local_system_tool};

use crate::{Failure, Format, builtin};

/// Approval settings from the command line.
#[derive(Debug, Default, Clone)]
pub struct PolicyOptions {
    /// `--policy FILE`.
    pub file: Option<std::path::PathBuf>,
    /// `--mode` (overrides the file's mode).
    pub mode: Option<ApprovalMode>,
    /// `--sandbox`, `--allow-network` and `--allow-domain`.
    pub sandbox: crate::sandbox::SandboxChoice,
}

/// The reference host's state for one command.
pub struct Host {
    registry: ToolRegistry,
    ctx: ToolContext,
    invoker: Invoker,
    engine: Arc<PolicyEngine>,
    /// The computer behind `local-system` (same sandbox for skill scripts).
    computer: LocalComputer,
    /// The taint session of `--session`, when there is one.
    session: Option<Arc<tool_core::taint::Session>>,
    /// What the policy file says that is valid but unsafe
    /// (`PolicyFile::findings`), as `{"pointer", "id", "message"}`.
    policy_findings: Vec<Value>,
}

/// What `call` did: the decision, and the output when there is one.
pub struct Called {
    /// The approval decision.
    pub decision: Decision,
    /// The output; `None` when the call needs approval and `--approve` was not given.
    pub output: Option<ToolOutput>,
}

impl Host {
    /// Registers the tools with `cwd` as their working directory and loads the policy.
    pub fn new(cwd: &Path, policy: &PolicyOptions) -> Result<Self, Failure> {
        // Foreign names: MCP servers (`--mcp-*`) bring tools named elsewhere.
        let mut registry =
            ToolRegistry::new().with_name_rules(tool_core::manifest::NameRules::Foreign);
        let internal = |e: tool_core::Error| Failure::Source(format!("builtin tool: {e}"));
        registry
            .register(builtin::calculator::tool().map_err(internal)?)
            .map_err(internal)?;
        registry
            .register(builtin::clock::tool().map_err(internal)?)
            .map_err(internal)?;
        let computer = LocalComputer::new(crate::sandbox::local_config(&policy.sandbox));
        registry
            .register(local_system_tool(computer.clone()))
            .map_err(internal)?;
        let file = match &policy.file {
            Some(path) => PolicyFile::load(path)
                .map_err(|e| Failure::Source(format!("--policy {}: {e}", path.display())))?,
            None => PolicyFile::default(),
        };
        let policy_findings = file
            .findings()
            .into_iter()
            .map(|f| json!({"pointer": f.pointer, "id": f.id, "message": f.message}))
            .collect();
        let mut builder = PolicyEngine::builder()
            .policy_file(&file)
            .confinement(policy.sandbox.unattended())
            .confine_approved(policy.sandbox.confine_approved())
            .confinement_support(crate::sandbox::support());
        if let Some(mode) = policy.mode {
            builder = builder.mode(mode);
        }
        if policy.mode.or(file.mode).unwrap_or_default() == ApprovalMode::Headless {
            builder = builder.global_audit(crate::script_audit::headless_scripts_audit());
        }
        let engine = Arc::new(
            builder
                .build()
                .map_err(|e| Failure::Source(format!("policy: {e}")))?,
        );
        Ok(Self {
            registry,
            ctx: ToolContext::new().with_cwd(cwd),
            // The engine is the pipeline's gate: every call is decided, and
            // runs under the confinement its decision names.
            invoker: Invoker::default().with_gate(engine.clone()),
            engine,
            computer,
            session: None,
            policy_findings,
        })
    }

    /// The policy file's findings (`PolicyFile::findings`: a full-access
    /// rule over a program that runs the workspace's code), as
    /// `{"findings": [{"pointer", "id", "message"}]}`; `None` when there
    /// are none (the output then has no `policy` field).
    pub fn policy_findings(&self) -> Option<Value> {
        (!self.policy_findings.is_empty()).then(|| json!({ "findings": self.policy_findings }))
    }

    /// The local computer of `local-system` (one process manager, one
    /// sandbox policy), for other tools that run commands on it.
    pub fn computer(&self) -> &LocalComputer {
        &self.computer
    }

    /// Keeps `session`'s ledger and judges every call against it: the
    /// pipeline's gate becomes the taint gate over the policy engine.
    /// Checks the offered tools against the session's pins; returns the
    /// report.
    pub fn with_session(
        &mut self,
        session: Arc<tool_core::taint::Session>,
    ) -> tool_core::taint::PinReport {
        let gate = tool_core::taint::TaintGate::new(self.engine.clone(), Arc::clone(&session));
        self.invoker = Invoker::default()
            .with_gate(Arc::new(gate))
            .with_session(Arc::clone(&session));
        let report = session.check_pins(&self.registry.offer(&self.ctx));
        self.session = Some(session);
        report
    }

    /// Each offered API's capabilities under `map` (`toolhost tools`).
    pub fn capabilities(&self, map: &tool_core::taint::CapabilityMap) -> Value {
        crate::session::capabilities_json(&self.registry.offer(&self.ctx), map)
    }

    /// Registers more tools (e.g. from MCP servers); returns what failed to register.
    pub fn add_tools(&mut self, tools: Vec<std::sync::Arc<dyn tool_core::Tool>>) -> Vec<String> {
        tools
            .into_iter()
            .filter_map(|tool| {
                self.registry
                    .register_arc(tool)
                    .err()
                    .map(|e| e.to_string())
            })
            .collect()
    }

    /// The registry, to register tools that build into it directly
    /// (`OpenApiToolBuilder::register`).
    pub fn registry_mut(&mut self) -> &mut ToolRegistry {
        &mut self.registry
    }

    /// The registry, policy engine and context, for serving them (`toolhost mcp serve`).
    pub fn into_parts(self) -> (ToolRegistry, Arc<PolicyEngine>, ToolContext) {
        (self.registry, self.engine, self.ctx)
    }

    /// The gated pipeline (no asker): the policy engine, or with a session
    /// the taint gate over it, keeping the session's ledger.
    pub fn invoker(&self) -> &Invoker {
        &self.invoker
    }

    /// The context tools get (`--cwd`).
    pub fn context(&self) -> &ToolContext {
        &self.ctx
    }

    /// The fingerprint of the policy engine (what decision records name).
    pub fn policy_fingerprint(&self) -> String {
        self.engine.fingerprint().to_owned()
    }

    /// The offered tools of this host's context.
    pub fn offered(&self) -> tool_core::OfferedTools {
        self.registry.offer(&self.ctx)
    }

    /// The offered tools in `format`.
    pub fn tools(&self, format: Format) -> Vec<Value> {
        let offered = self.registry.offer(&self.ctx);
        match format {
            Format::Manifest => offered
                .manifests()
                .map(|m| serde_json::to_value(m).unwrap_or(Value::Null))
                .collect(),
            Format::Openai => offered.openai_chat_tools(),
            Format::OpenaiResponses => offered.openai_responses_tools(),
            Format::Anthropic => offered.anthropic_tools(),
        }
    }

    /// The approval decision for a call, without running anything.
    pub fn check(&self, name: &str, args: &str) -> Decision {
        let offered = self.registry.offer(&self.ctx);
        let call = ToolCall::new(name, args);
        match self.invoker.prepare(&offered, &call) {
            Ok(prepared) => self
                .engine
                .evaluate_one(&CallRef::from_prepared(&prepared, &offered), &self.ctx),
            Err(_) => self.decide_unprepared(&offered, name, args),
        }
    }

    /// Decides, then runs the call when the decision allows it (or when it
    /// asks and `approve` is set: `--approve` is the person's answer). The
    /// run goes through the gated pipeline, so it gets the confinement its
    /// decision names. A blocked call gets its blocked output; a call the
    /// pipeline refuses (bad name or arguments) gets the refusal.
    pub async fn call(&self, name: &str, args: &str, approve: bool) -> Called {
        let offered = self.registry.offer(&self.ctx);
        let call = ToolCall::new(name, args);
        let prepared = match self.invoker.prepare(&offered, &call) {
            Ok(prepared) => prepared,
            Err(refused) => {
                let decision = self.decide_unprepared(&offered, name, args);
                let output = decision.blocked_output().unwrap_or(refused);
                return Called {
                    decision,
                    output: Some(output),
                };
            }
        };
        let decision = self
            .engine
            .evaluate_one(&CallRef::from_prepared(&prepared, &offered), &self.ctx);
        let output = if let Some(blocked) = decision.blocked_output() {
            Some(blocked)
        } else if decision.is_run() || approve {
            // With a session, a call the engine lets run may still be held
            // by the taint gate: only `--approve` (a person) answers that.
            let invoker = if self.session.is_some() && !approve {
                self.invoker.clone()
            } else {
                self.invoker.clone().with_asker(Arc::new(ApproveAll))
            };
            Some(invoker.invoke(&offered, &call, &self.ctx).await)
        } else {
            None
        };
        Called { decision, output }
    }

    /// A decision for a call the pipeline would refuse: evaluated on what
    /// can be recovered (the name's parts, the arguments if they parse), so
    /// an unknown tool still gets the "unknown tool" treatment.
    fn decide_unprepared(&self, offered: &OfferedTools, name: &str, args: &str) -> Decision {
        let (identifier, api) = match offered.resolve(name) {
            Ok(resolved) => (resolved.identifier().to_owned(), resolved.api.name.clone()),
            Err(_) => match split_wire_name(name) {
                Some((identifier, api)) => (identifier.to_owned(), api.to_owned()),
                None => (String::new(), name.to_owned()),
            },
        };
        let arguments = Value::Object(parse_arguments(args).unwrap_or_else(|_| Map::new()));
        let call = CallRef::new(&identifier, &api, &arguments).offered_in(offered);
        self.engine.evaluate_one(&call, &self.ctx)
    }
}

/// The JSON shape of a decision: `{"action", "policy", "reason"}`.
pub fn decision_json(decision: &Decision) -> Value {
    serde_json::to_value(decision).unwrap_or_else(|e| json!({"error": e.to_string()}))
}
