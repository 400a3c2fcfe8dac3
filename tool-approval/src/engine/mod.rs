//! The policy engine: run, ask or block for each call of a batch, and the
//! two ways to configure it, [`PolicyEngineBuilder`] and [`PolicyFile`].

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use tool_core::{
    ApiDefinition, Confinement, ConfinementSupport, HumanIntervention, InterventionPolicy,
    ToolContext,
    manifest::{DynamicIntervention, InterventionRule},
};

use crate::audit::{AuditInput, AuditVerdict, DynamicAudit, GlobalAudit};
use crate::call::CallRef;
use crate::call::facts::CallFacts;
use crate::decision::{Decision, Evaluation, Level, Reason};
use crate::mode::{self, ApprovalMode, Finding, Source, Standing, Wall};
use crate::policy::{RuleHit, RuleSet};
use crate::shell::{Hazard, MAX_COMMAND_BYTES, ShellSyntax};

mod builder;
mod gate;
mod host_rule;
mod json_fields;
mod policy_file;
mod policy_findings;
pub(crate) mod policy_shell;
pub(crate) mod remember;

pub use builder::PolicyEngineBuilder;
pub use host_rule::HostRule;
use host_rule::HostRules;
pub use policy_file::{MAX_POLICY_FILE_BYTES, PolicyFile};
pub use policy_findings::{FULL_ACCESS_RUNS_WORKSPACE_CODE, PolicyFinding};
use remember::Memory;
pub use remember::{EXACT_ONLY, MAX_SUBCOMMAND_WORDS};

use InterventionPolicy::Required;

/// Decides run / ask / block for tool calls. Pure and synchronous: it never
/// executes a tool. Cheap to share (`Arc`) across threads.
///
/// # Precedence
///
/// For each call, the engine first builds the call's facts once (its path
/// and shell-command arguments, each command parsed once); then:
///
/// 1. **Limits**: a command too long or too deeply nested to analyse gives a
///    `limits/…` finding (`required`: ask, or block in headless mode).
/// 2. **Global audits** run (the built-in [`Blacklist`](crate::Blacklist)
///    unless replaced); the strictest finding is kept.
/// 3. **The call's own policy**: the API-level config, else the tool-level
///    one (API level shadows tool level). A dynamic config runs the audit
///    its `type` names (a flag is a *dynamic* finding; a pass gives the
///    config's `default`). Host rules for `identifier/apiName` (a policy
///    file) replace the tool author's static policy or rules for that API;
///    a dynamic audit still runs beside them. A rule list where nothing
///    matches asks (`required`). A deny or `always` rule that only *might*
///    match text the parser could not read gives a `limits/unparsed-text`
///    finding (ask) instead of blocking.
/// 4. **Remembered approvals** ("always" from a person, see
///    [below](#remembered-approvals)) rank like a listed key: they let a static `required` or
///    an unknown-tool ask run, never an audit finding, a limit, `always` or
///    `deny`.
/// 5. The strictest finding applies, and **the mode** decides what to do
///    with it: see the table in [`ApprovalMode`]. Modes exempt only static `required` policies,
///    never an audit finding or a limit.
/// 6. **Confinement**: every `run` of a call to an API that touches the
///    host (or is unknown) gets the engine's default confinement
///    ([`PolicyEngineBuilder::confinement`], workspace-write without
///    network) unless the deciding host rule sets its own; an `ask` carries
///    what it runs under once approved (full access, or the default with
///    [`PolicyEngineBuilder::confine_approved`]). Where the host's
///    [`ConfinementSupport`] is not available, a confined `run` asks
///    instead (headless: is blocked) under `confinement/unavailable`. See
///    the confinement column in [`ApprovalMode`].
///
/// # As a gate
///
/// `PolicyEngine` implements [`tool_core::Gate`]: build the invoker with
/// `Invoker::default().with_gate(Arc::new(engine)).with_asker(asker)` and
/// every batch is decided as [`evaluate`](Self::evaluate) decides it, each
/// [`Decision`] mapped to a [`GateDecision`](tool_core::GateDecision)
/// (`rule` and `message` from its reason, `confinement` as decided,
/// `details` the decision serialised). An approval with "always"
/// ([`Gate::remember`](tool_core::Gate::remember)) is remembered for the
/// engine's lifetime (see [below](#remembered-approvals)).
///
/// ```
/// use std::sync::Arc;
/// use tool_approval::{ApprovalMode, PolicyEngine};
/// use tool_core::{
///     ApiDefinition, Confinement, ConfinementSupport, Invoker, ToolBuilder, ToolCall,
///     ToolContext, ToolOutput, ToolRegistry,
/// };
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let mut registry = ToolRegistry::new();
/// registry.register(ToolBuilder::new("disk")
///     .api(ApiDefinition::new("clean", "Clean the build.").touching_host(), |_, ctx| async move {
///         // The tool applies what it is given.
///         let under = ctx.extension::<Confinement>().map_or("none", |c| c.name());
///         Ok(ToolOutput::text(format!("cleaned under {under}")))
///     })
///     .build()?)?;
/// let ctx = ToolContext::new();
/// let offered = registry.offer(&ctx);
///
/// let engine = PolicyEngine::builder()
///     .mode(ApprovalMode::AutoRun)
///     .confinement_support(ConfinementSupport::Available { mechanism: "landlock+seccomp".into() })
///     .build()?;
/// let invoker = Invoker::default().with_gate(Arc::new(engine));
/// let out = invoker.invoke(&offered, &ToolCall::new("disk____clean", ""), &ctx).await;
/// assert_eq!(out.content, "cleaned under workspace_write");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # }).unwrap();
/// ```
///
/// # Remembered approvals
///
/// What a person approved with "always" is kept for the engine's lifetime
/// ([`Gate::remember`](tool_core::Gate::remember), [`remember_call`](Self::remember_call)):
///
/// | approved call | remembered as | approves later |
/// |---|---|---|
/// | no shell-command argument | its `identifier/apiName` key | any call to that key without a shell command |
/// | `git add src/a.rs` (a plain command) | a `never` rule `git add:*` on the parameter | `git add -A`, not `git add . && rm -rf ~` (every part must match) |
/// | `git add a && cargo test` | one prefix rule per part (`git add:*`, `cargo test:*`) | those parts, alone or together |
/// | `rm -rf build`, `python x.py` (a program of [`EXACT_ONLY`]) | that exact command text | only that text again |
/// | a nested command, a redirect, an assignment, a computed word | nothing | (asks again) |
///
/// A prefix is the program and up to [`MAX_SUBCOMMAND_WORDS`] following
/// words that read as subcommands (lowercase letters, digits, `-`, `_`;
/// not an option, a path or a value). A remembered approval ranks like a
/// listed key: audits, limits, `always` and `deny` rules still come first,
/// and the calls it lets through run confined like any unattended call.
#[derive(Debug)]
pub struct PolicyEngine {
    mode: ApprovalMode,
    allow_list: BTreeSet<String>,
    host_rules: BTreeMap<String, HostRules>,
    global_audits: Vec<Arc<dyn GlobalAudit>>,
    dynamic_audits: BTreeMap<String, Arc<dyn DynamicAudit>>,
    manifest_rules: Mutex<RuleCache>,
    shell_syntax: ShellSyntax,
    confinement: Confinement,
    confine_approved: bool,
    support: ConfinementSupport,
    memory: Memory,
    /// See [`PolicyEngine::fingerprint`].
    fingerprint: String,
}

/// Compiled manifest rule lists, keyed by where the list lives and checked
/// by equality (a manifest dropped and another allocated at the same
/// address is compiled afresh).
type RuleCache = HashMap<(usize, usize), (Vec<InterventionRule>, Result<Arc<RuleSet>, String>)>;

/// Size of the cache of compiled manifest rule lists.
const RULE_CACHE_SIZE: usize = 256;

impl PolicyEngine {
    /// The approval mode.
    pub fn mode(&self) -> ApprovalMode {
        self.mode
    }

    /// What a call that runs without a person having seen it runs under.
    pub fn confinement(&self) -> &Confinement {
        &self.confinement
    }

    /// Whether the host said it can confine calls.
    pub fn confinement_support(&self) -> &ConfinementSupport {
        &self.support
    }

    /// A digest of the policy this engine decides by: its mode, allow
    /// list, host rules (with their confinements), blacklist entries and
    /// their home, other audits by name, shell syntax, confinement
    /// settings, and the version of the engine and of its knowledge tables
    /// (a digest of the crate's sources made at build). The same policy
    /// gives the same value in every process that loads it with the same
    /// build; a changed rule, mode or table gives another. Approvals a
    /// person made with "always" ([remembered approvals](Self#remembered-approvals))
    /// are not part of it: they are the policy's answers, not the policy.
    /// It is the engine's [`Gate::fingerprint`](tool_core::Gate::fingerprint),
    /// so a pending approval stored under another policy is stale.
    ///
    /// ```
    /// use tool_approval::{ApprovalMode, PolicyEngine};
    /// let a = PolicyEngine::builder().build().unwrap();
    /// let b = PolicyEngine::builder().build().unwrap();
    /// let c = PolicyEngine::builder().mode(ApprovalMode::AutoRun).build().unwrap();
    /// assert_eq!(a.fingerprint(), b.fingerprint());
    /// assert_ne!(a.fingerprint(), c.fingerprint());
    /// ```
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// Evaluates a batch; decisions come back in input order.
    pub fn evaluate(&self, calls: &[CallRef<'_>], ctx: &ToolContext) -> Evaluation {
        Evaluation::new(calls.iter().map(|c| self.evaluate_one(c, ctx)).collect())
    }

    /// Evaluates one call.
    pub fn evaluate_one(&self, call: &CallRef<'_>, ctx: &ToolContext) -> Decision {
        // The API, looked up once (its schema, settings and whether it
        // touches the host are read below).
        let api = call.manifest.and_then(|m| m.api(call.api));
        let schema = api.map(|a| &*a.parameters);
        let facts = CallFacts::build_with(call.arguments, schema, ctx.cwd(), &self.shell_syntax);
        let input = AuditInput::new(call, ctx, &facts);
        let mut top = None;
        for audit in &self.global_audits {
            if let Some(hit) = audit.audit(&input) {
                let reason = Reason::new(
                    Level::GlobalAudit,
                    Some(format!("{}/{}", audit.name(), hit.rule)),
                    hit.message,
                );
                Finding::raise(
                    &mut top,
                    Some(Finding::new(hit.policy, Source::Global, reason)),
                );
            }
        }
        let key = CallKey::of(call);
        let key = key.as_str();
        Finding::raise(&mut top, self.own_policy(call, api, &input, key));
        // Last, so that on a tie the finding that names a rule which might
        // apply is the one reported.
        Finding::raise(&mut top, limit_finding(&facts));
        Finding::raise(&mut top, unread_code_finding(&facts));
        Finding::raise(&mut top, unknown_option_finding(&facts));
        let unknown = match call.manifest {
            None => Some(format!("`{}` is not in the registry", call.identifier)),
            // A known tool, an API it does not define (`runcommand` for
            // `runCommand`): nothing vouches for it, fail closed.
            Some(_) if api.is_none() => Some(format!(
                "`{}` defines no API `{}`",
                call.identifier, call.api
            )),
            Some(_) => None,
        };
        let listed =
            (self.mode == ApprovalMode::AllowList && self.allow_list.contains(key)).then_some(key);
        let remembered = if self.memory.is_empty() {
            None
        } else {
            self.memory.recall(key, call.arguments, &facts)
        };
        let standing = Standing {
            known: unknown.as_deref().map_or(Ok(()), Err),
            listed,
            remembered: remembered.as_deref(),
        };
        // An unknown tool or API counts as touching the host: fail closed.
        let touches_host = api.is_none_or(|a| a.touches_host);
        let wall = Wall {
            touches_host,
            unattended: &self.confinement,
            confine_approved: self.confine_approved,
            // The host's statement wins; unsaid, the tool's own.
            support: match (&self.support, call.confinement_support) {
                (ConfinementSupport::Unknown, Some(tool)) => tool,
                (host, _) => host,
            },
        };
        mode::decide(self.mode, top, standing, wall)
    }

    /// Records a person's "always" for this call (see [remembered approvals](Self#remembered-approvals)).
    pub fn remember_call(&self, call: &CallRef<'_>, ctx: &ToolContext) {
        let facts =
            CallFacts::build_with(call.arguments, call.schema(), ctx.cwd(), &self.shell_syntax);
        self.memory.record(&call.key(), &facts);
    }

    /// The call's own policy: dynamic audit, host rules, static config.
    /// (`api`: the call's API, looked up by the caller.)
    fn own_policy(
        &self,
        call: &CallRef<'_>,
        api: Option<&ApiDefinition>,
        input: &AuditInput<'_>,
        key: &str,
    ) -> Option<Finding> {
        let api_config = api.and_then(|a| a.human_intervention.as_ref());
        let (config, level) = match api_config {
            Some(c) => (Some(c), Level::ApiStatic),
            None => (
                call.manifest.and_then(|m| m.human_intervention.as_ref()),
                Level::ToolLevel,
            ),
        };
        let mut result = None;
        if let Some(HumanIntervention::Dynamic { dynamic }) = config {
            let level = if level == Level::ApiStatic {
                Level::ApiDynamic
            } else {
                Level::ToolLevel
            };
            result = Some(self.run_dynamic(dynamic, level, input));
        }
        if !self.host_rules.is_empty()
            && let Some(rules) = self.host_rules.get(key)
            && let Some(hit) =
                rules
                    .set
                    .evaluate_facts(call.arguments, api.map(|a| &*a.parameters), input.facts())
        {
            // Only a sure hit of the host's own rule carries its confinement.
            let confinement = rules.confinement_of(&hit);
            let host = rule_finding(hit, Level::HostPolicy, Some(key), "the host policy rule");
            let host = if host.source == Source::Static {
                host.with_confinement(confinement)
            } else {
                host
            };
            return Finding::strictest(result, Some(host));
        }
        let static_result = match config {
            Some(HumanIntervention::Policy(p)) => Some(Finding::new(
                *p,
                Source::Static,
                Reason::new(level, None, format!("the tool sets `{p}` for this API")),
            )),
            Some(HumanIntervention::Rules(rules)) => {
                Some(self.run_manifest_rules(rules, level, input))
            }
            _ => None,
        };
        Finding::strictest(result, static_result)
    }

    fn run_dynamic(
        &self,
        dynamic: &DynamicIntervention,
        level: Level,
        input: &AuditInput<'_>,
    ) -> Finding {
        let Some(audit) = self.dynamic_audits.get(&dynamic.kind) else {
            // Nobody can judge the call: treated as a finding, so no mode skips it.
            return Finding::new(
                dynamic.policy.max(Required),
                Source::Dynamic,
                Reason::new(
                    level,
                    Some(format!("dynamic:{}", dynamic.kind)),
                    format!("no dynamic audit is registered for type `{}`", dynamic.kind),
                ),
            );
        };
        match audit.audit(input) {
            AuditVerdict::Pass => Finding::new(
                dynamic.default,
                Source::Static,
                Reason::new(
                    level,
                    Some(format!("dynamic:{}", dynamic.kind)),
                    format!("`{}` passed", dynamic.kind),
                ),
            ),
            AuditVerdict::Flag { rule, message } => Finding::new(
                dynamic.policy,
                Source::Dynamic,
                Reason::new(level, Some(format!("dynamic:{rule}")), message),
            ),
        }
    }

    fn run_manifest_rules(
        &self,
        rules: &[InterventionRule],
        level: Level,
        input: &AuditInput<'_>,
    ) -> Finding {
        let call = input.call;
        match self.compiled_manifest_rules(rules) {
            Err(message) => Finding::new(
                Required,
                Source::Static,
                Reason::new(
                    level,
                    None,
                    format!("the tool's rule list does not compile ({message}); asking"),
                ),
            ),
            Ok(set) => match set.evaluate_facts(call.arguments, call.schema(), input.facts()) {
                Some(hit) => rule_finding(hit, level, None, "the tool's rule"),
                None => Finding::new(
                    Required,
                    Source::Static,
                    Reason::new(
                        level,
                        None,
                        "no rule of the tool's rule list matched; asking",
                    ),
                ),
            },
        }
    }

    fn compiled_manifest_rules(&self, rules: &[InterventionRule]) -> Result<Arc<RuleSet>, String> {
        let key = (rules.as_ptr() as usize, rules.len());
        if let Ok(cache) = self.manifest_rules.lock()
            && let Some((stored, compiled)) = cache.get(&key)
            && stored.as_slice() == rules
        {
            return compiled.clone();
        }
        let compiled = RuleSet::compile(rules)
            .map(Arc::new)
            .map_err(|e| e.to_string());
        if let Ok(mut cache) = self.manifest_rules.lock() {
            if cache.len() >= RULE_CACHE_SIZE {
                cache.clear();
            }
            cache.insert(key, (rules.to_vec(), compiled.clone()));
        }
        compiled
    }
}

/// A rule hit as a finding. A hit that only *might* match (the command
/// could not be read) is a limit that asks, whatever the rule's policy.
fn rule_finding(hit: RuleHit, level: Level, key: Option<&str>, whose: &str) -> Finding {
    if let Some(hazard) = hit.unsure {
        let rule = match key {
            Some(key) => [key, ": ", &hit.detail].concat(),
            None => hit.detail.clone(),
        };
        let id = match hazard {
            Hazard::DynamicCommandWord => "limits/computed-word",
            other => other.limit_id().unwrap_or("limits/unparsed-text"),
        };
        return Finding::new(
            Required,
            Source::Limit,
            Reason::new(
                Level::Limits,
                Some(id.to_owned()),
                format!(
                    "the command has {} and cannot be fully analysed; {whose} {rule} (`{}`) might apply",
                    hazard.describe(),
                    hit.policy
                ),
            ),
        );
    }
    let message = [whose, " ", &hit.detail, " says `", hit.policy.as_str(), "`"].concat();
    // The rule id is the key, then the hit's detail: written into the
    // detail's own buffer (a combined approval's has room for the key).
    let mut rule = hit.detail;
    if let Some(key) = key {
        rule.insert_str(0, ": ");
        rule.insert_str(0, key);
    }
    Finding::new(
        hit.policy,
        Source::Static,
        Reason::new(level, Some(rule), message),
    )
}

/// A call's `identifier/api` key ([`CallRef::key`]), kept on the stack when
/// it is short: every decision looks it up, and most keys are a few dozen
/// bytes.
enum CallKey {
    Short([u8; CallKey::SHORT], usize),
    Long(String),
}

impl CallKey {
    const SHORT: usize = 96;

    fn of(call: &CallRef<'_>) -> Self {
        let (tool, api) = (call.identifier.as_bytes(), call.api.as_bytes());
        let len = tool.len() + 1 + api.len();
        let mut buf = [0u8; Self::SHORT];
        let Some(key) = buf.get_mut(..len) else {
            return Self::Long(call.key());
        };
        // (`len` is the two lengths and the `/`: the pieces fit exactly.)
        let (head, rest) = key.split_at_mut(tool.len());
        head.copy_from_slice(tool);
        if let Some((slash, tail)) = rest.split_first_mut() {
            *slash = b'/';
            tail.copy_from_slice(api);
        }
        Self::Short(buf, len)
    }

    fn as_str(&self) -> &str {
        match self {
            // Two strings and a `/`: UTF-8.
            Self::Short(buf, len) => buf
                .get(..*len)
                .and_then(|b| std::str::from_utf8(b).ok())
                .unwrap_or_default(),
            Self::Long(key) => key,
        }
    }
}

/// The fixed guard: a shell command too long, too deeply nested or not
/// valid Bash cannot be fully analysed, so it asks (blocked in headless
/// mode) whatever audits and modes say; a sure finding still wins.
fn limit_finding(facts: &CallFacts<'_>) -> Option<Finding> {
    if let Some(pointer) = &facts.args_too_deep {
        // A command or path hidden deeper than the search goes is not read.
        return Some(Finding::new(
            Required,
            Source::Limit,
            Reason::new(
                Level::Limits,
                Some("limits/too-deep".to_owned()),
                format!(
                    "the arguments nest deeper than the engine searches at {}; what is below is not analysed",
                    if pointer.is_empty() { "/" } else { pointer }
                ),
            ),
        ));
    }
    let (command, hazard) = facts.limit()?;
    let (id, message) = match hazard {
        Hazard::TooLong => (
            "limits/command-too-long",
            format!(
                "the shell command at {} is longer than {MAX_COMMAND_BYTES} bytes and is not analysed",
                command.pointer
            ),
        ),
        Hazard::TooDeep => (
            "limits/too-deep",
            format!(
                "the shell command at {} nests too deeply to be fully analysed",
                command.pointer
            ),
        ),
        Hazard::OverBudget => (
            "limits/step-budget",
            format!(
                "the shell command at {} needs more analysis than its step budget (proportional to its length) allows; the rest is not read",
                command.pointer
            ),
        ),
        Hazard::WrapperChain
        | Hazard::LinkChain
        | Hazard::AliasChain
        | Hazard::DirChain
        | Hazard::LongPipeline
        | Hazard::PartCount
        | Hazard::ScriptCount => (
            hazard.limit_id().unwrap_or("limits/too-deep"),
            format!(
                "the shell command at {} has {}; what is past that bound is not analysed",
                command.pointer,
                hazard.describe()
            ),
        ),
        Hazard::DynamicCommandWord => (
            "limits/computed-command-word",
            format!(
                "the shell command at {} runs a command word computed at run time (an expansion, a substitution or a glob), which cannot be checked",
                command.pointer
            ),
        ),
        _ => (
            "limits/unparsed-text",
            format!(
                "the shell command at {} is not valid Bash and cannot be fully analysed",
                command.pointer
            ),
        ),
    };
    Some(Finding::new(
        Required,
        Source::Limit,
        Reason::new(Level::Limits, Some(id.to_owned()), message),
    ))
}

/// Code the engine does not read (an interpreter's program, see
/// `shell::unread_code`): its own finding, which asks where a person is
/// present and runs only confined in unattended modes (see [`crate::mode`]).
fn unread_code_finding(facts: &CallFacts<'_>) -> Option<Finding> {
    let command = facts.commands.iter().find(|c| {
        c.shell
            .as_deref()
            .is_some_and(|s| s.hazards().contains(&Hazard::UnreadCode))
    })?;
    Some(Finding::new(
        Required,
        Source::Unread,
        Reason::new(
            Level::Limits,
            Some("limits/unread-code".to_owned()),
            format!(
                "the shell command at {} runs a program in a language the engine does not read (inline, from a file or on standard input)",
                command.pointer
            ),
        ),
    ))
}

/// An option the program's closed row does not list (see
/// `shell::known_rows`): no prefix rule, remembered answer or allow-list
/// entry approves it; it asks where a person is present and runs under the
/// default confinement where nobody is.
fn unknown_option_finding(facts: &CallFacts<'_>) -> Option<Finding> {
    let command = facts.commands.iter().find(|c| {
        c.shell
            .as_deref()
            .is_some_and(|s| s.hazards().contains(&Hazard::UnknownOption))
    })?;
    Some(Finding::new(
        Required,
        Source::Unlisted,
        Reason::new(
            Level::Limits,
            Some("limits/unknown-option".to_owned()),
            format!(
                "the shell command at {} gives a program an option its row in the program table does not list; what it does is not known",
                command.pointer
            ),
        ),
    ))
}
