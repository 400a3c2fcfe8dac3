//! The policy engine: run, ask or block for each call of a batch.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::str::FromStr;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use tool_core::{
    DynamicIntervention, HumanIntervention, InterventionPolicy, InterventionRule, ToolContext,
};

use crate::audit::{AuditInput, AuditVerdict, DynamicAudit, GlobalAudit};
use crate::blacklist::Blacklist;
use crate::call::CallRef;
use crate::decision::{Action, Decision, Evaluation, Level, Reason};
use crate::error::{Error, push_pointer};
use crate::path_scope::PathScopeAudit;
use crate::policy_file::{PolicyFile, check_key};
use crate::rules::RuleSet;
use crate::shell::MAX_COMMAND_BYTES;

use InterventionPolicy::{Always, Deny, Never, Required};

/// How much the host trusts calls.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ApprovalMode {
    /// Policies apply as written; unknown tools ask. The default.
    #[default]
    Manual,
    /// Like manual, but listed `identifier/apiName` keys run unless something says `always`/`deny`.
    AllowList,
    /// Everything short of `always` runs.
    AutoRun,
    /// Nobody is watching: everything short of `always` runs, and what would
    /// need a human is blocked.
    Headless,
}

impl ApprovalMode {
    /// The mode's spelling (`manual`, `allow-list`, `auto-run`, `headless`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Manual => "manual",
            Self::AllowList => "allow-list",
            Self::AutoRun => "auto-run",
            Self::Headless => "headless",
        }
    }
}

impl std::fmt::Display for ApprovalMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ApprovalMode {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "manual" => Ok(Self::Manual),
            "allow-list" => Ok(Self::AllowList),
            "auto-run" => Ok(Self::AutoRun),
            "headless" => Ok(Self::Headless),
            other => Err(Error::invalid(
                "/mode",
                &serde_json::Value::String(other.to_owned()),
                "unknown mode, expected one of manual, allow-list, auto-run, headless",
            )),
        }
    }
}

/// Decides run / ask / block for tool calls. Pure and synchronous: it never
/// executes a tool. Cheap to share (`Arc`) across threads.
///
/// # Precedence
///
/// For each call:
///
/// 1. Every global audit runs (the built-in [`Blacklist`] unless replaced);
///    the strictest finding is kept.
/// 2. The call's own policy: the API-level config, else the tool-level one
///    (API level shadows tool level). A dynamic config runs the audit its
///    `type` names. Host rules for `identifier/apiName` (a policy file)
///    replace the tool author's static policy or rules for that API; a
///    dynamic audit still runs beside them. A rule list where nothing
///    matches asks (`required`).
/// 3. The strictest of 1 and 2 applies: `deny` blocks; `always` asks
///    (blocks in headless mode). A dynamic `never` never hides a global hit.
/// 4. Otherwise the mode decides: auto-run and headless run everything; in
///    manual and allow-list modes an unknown tool (or an API its manifest
///    does not define) asks, an allow-listed key
///    runs (allow-list mode), `required` asks, `never` runs, and an API with
///    no policy at all runs.
#[derive(Debug)]
pub struct PolicyEngine {
    mode: ApprovalMode,
    allow_list: BTreeSet<String>,
    host_rules: BTreeMap<String, RuleSet>,
    global_audits: Vec<Arc<dyn GlobalAudit>>,
    dynamic_audits: BTreeMap<String, Arc<dyn DynamicAudit>>,
    manifest_rules: Mutex<HashMap<String, Result<Arc<RuleSet>, String>>>,
}

impl Default for PolicyEngine {
    /// Manual mode, the built-in blacklist, `pathScopeAudit`.
    fn default() -> Self {
        Self::builder().build_unchecked()
    }
}

/// Size of the cache of compiled manifest rule lists.
const RULE_CACHE_SIZE: usize = 256;

impl PolicyEngine {
    /// A builder with the defaults (see [`PolicyEngineBuilder`]).
    pub fn builder() -> PolicyEngineBuilder {
        PolicyEngineBuilder::default()
    }

    /// The approval mode.
    pub fn mode(&self) -> ApprovalMode {
        self.mode
    }

    /// Evaluates a batch; decisions come back in input order.
    pub fn evaluate(&self, calls: &[CallRef<'_>], ctx: &ToolContext) -> Evaluation {
        Evaluation::new(calls.iter().map(|c| self.evaluate_one(c, ctx)).collect())
    }

    /// Evaluates one call.
    pub fn evaluate_one(&self, call: &CallRef<'_>, ctx: &ToolContext) -> Decision {
        let input = AuditInput { call, ctx };
        let mut global: Option<(InterventionPolicy, Reason)> = oversized_command(&input);
        for audit in &self.global_audits {
            if let Some(hit) = audit.audit(&input)
                && global.as_ref().is_none_or(|(p, _)| hit.policy > *p)
            {
                let reason = Reason::new(
                    Level::GlobalAudit,
                    Some(format!("{}/{}", audit.name(), hit.rule)),
                    hit.message,
                );
                global = Some((hit.policy, reason));
            }
        }
        let own = self.own_policy(call, &input);
        let top = match (global, own) {
            (Some(g), Some(o)) => Some(if o.0 > g.0 { o } else { g }),
            (g, o) => g.or(o),
        };
        self.decide(call, top)
    }

    fn decide(&self, call: &CallRef<'_>, top: Option<(InterventionPolicy, Reason)>) -> Decision {
        let decision = |action, policy, reason| Decision {
            action,
            policy,
            reason,
        };
        if let Some((policy, reason)) = &top {
            match policy {
                Deny => return decision(Action::Block, Deny, reason.clone()),
                Always if self.mode == ApprovalMode::Headless => {
                    let mut reason = reason.clone();
                    reason.message = format!(
                        "{} (needs a human; nobody is there in headless mode)",
                        reason.message
                    );
                    return decision(Action::Block, Always, reason);
                }
                Always => return decision(Action::Ask, Always, reason.clone()),
                _ => {}
            }
        }
        let policy = top.as_ref().map_or(Never, |(p, _)| *p);
        match self.mode {
            ApprovalMode::AutoRun | ApprovalMode::Headless => {
                let reason = match top {
                    Some((Never, reason)) => reason,
                    Some((_, reason)) => Reason::new(
                        Level::Mode,
                        reason.rule.clone(),
                        format!(
                            "{} mode runs `{policy}` calls without asking ({})",
                            self.mode, reason.message
                        ),
                    ),
                    None if call.manifest.is_none() => Reason::new(
                        Level::Mode,
                        None,
                        format!("{} mode runs calls to unknown tools", self.mode),
                    ),
                    None => {
                        Reason::new(Level::Default, None, "no policy is configured for this API")
                    }
                };
                decision(Action::Run, policy, reason)
            }
            ApprovalMode::Manual | ApprovalMode::AllowList => {
                let Some(manifest) = call.manifest else {
                    let reason = Reason::new(
                        Level::UnknownTool,
                        None,
                        format!("`{}` is not in the registry", call.identifier),
                    );
                    return decision(Action::Ask, policy.max(Required), reason);
                };
                if manifest.api(call.api).is_none() {
                    // A known tool, an API it does not define (`runcommand`
                    // for `runCommand`): nothing vouches for it, fail closed.
                    let reason = Reason::new(
                        Level::UnknownTool,
                        None,
                        format!("`{}` defines no API `{}`", call.identifier, call.api),
                    );
                    return decision(Action::Ask, policy.max(Required), reason);
                }
                let key = call.key();
                if self.mode == ApprovalMode::AllowList && self.allow_list.contains(&key) {
                    let reason =
                        Reason::new(Level::AllowList, Some(key), "listed in the allow list");
                    return decision(Action::Run, policy, reason);
                }
                match top {
                    Some((Never, reason)) => decision(Action::Run, Never, reason),
                    Some((p, reason)) => decision(Action::Ask, p, reason),
                    None => decision(
                        Action::Run,
                        Never,
                        Reason::new(Level::Default, None, "no policy is configured for this API"),
                    ),
                }
            }
        }
    }

    /// The call's own policy: dynamic audit, host rules, static config.
    fn own_policy(
        &self,
        call: &CallRef<'_>,
        input: &AuditInput<'_>,
    ) -> Option<(InterventionPolicy, Reason)> {
        let api_config = call
            .manifest
            .and_then(|m| m.api(call.api))
            .and_then(|a| a.human_intervention.as_ref());
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
        if let Some(rules) = self.host_rules.get(&call.key())
            && let Some(hit) = rules.evaluate_in(call.arguments, call.schema(), input.ctx.cwd())
        {
            let host = (
                hit.policy,
                Reason::new(
                    Level::HostPolicy,
                    Some(format!("{}: {}", call.key(), hit.detail)),
                    format!("the host policy rule {} says `{}`", hit.detail, hit.policy),
                ),
            );
            return Some(strictest(result, host));
        }
        let static_result = match config {
            Some(HumanIntervention::Policy(p)) => Some((
                *p,
                Reason::new(level, None, format!("the tool sets `{p}` for this API")),
            )),
            Some(HumanIntervention::Rules(rules)) => {
                Some(self.run_manifest_rules(rules, level, input))
            }
            _ => None,
        };
        match (result, static_result) {
            (Some(r), Some(s)) => Some(strictest(Some(r), s)),
            (r, s) => r.or(s),
        }
    }

    fn run_dynamic(
        &self,
        dynamic: &DynamicIntervention,
        level: Level,
        input: &AuditInput<'_>,
    ) -> (InterventionPolicy, Reason) {
        let Some(audit) = self.dynamic_audits.get(&dynamic.kind) else {
            let policy = dynamic.policy.max(Required);
            return (
                policy,
                Reason::new(
                    level,
                    Some(format!("dynamic:{}", dynamic.kind)),
                    format!("no dynamic audit is registered for type `{}`", dynamic.kind),
                ),
            );
        };
        match audit.audit(input) {
            AuditVerdict::Pass => (
                dynamic.default,
                Reason::new(
                    level,
                    Some(format!("dynamic:{}", dynamic.kind)),
                    format!("`{}` passed", dynamic.kind),
                ),
            ),
            AuditVerdict::Flag { rule, message } => (
                dynamic.policy,
                Reason::new(level, Some(format!("dynamic:{rule}")), message),
            ),
        }
    }

    fn run_manifest_rules(
        &self,
        rules: &[InterventionRule],
        level: Level,
        input: &AuditInput<'_>,
    ) -> (InterventionPolicy, Reason) {
        let call = input.call;
        let compiled = self.compiled_manifest_rules(rules);
        match compiled {
            Err(message) => (
                Required,
                Reason::new(
                    level,
                    None,
                    format!("the tool's rule list does not compile ({message}); asking"),
                ),
            ),
            Ok(set) => match set.evaluate_in(call.arguments, call.schema(), input.ctx.cwd()) {
                Some(hit) => (
                    hit.policy,
                    Reason::new(
                        level,
                        Some(hit.detail.clone()),
                        format!("the tool's rule {} says `{}`", hit.detail, hit.policy),
                    ),
                ),
                None => (
                    Required,
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
        let key = serde_json::to_string(rules).unwrap_or_default();
        if let Ok(cache) = self.manifest_rules.lock()
            && let Some(hit) = cache.get(&key)
        {
            return hit.clone();
        }
        let compiled = RuleSet::compile(rules)
            .map(Arc::new)
            .map_err(|e| e.to_string());
        if let Ok(mut cache) = self.manifest_rules.lock() {
            if cache.len() >= RULE_CACHE_SIZE {
                cache.clear();
            }
            cache.insert(key, compiled.clone());
        }
        compiled
    }
}

/// The fixed size guard: a shell command too long to parse always asks
/// (blocked in headless mode), whatever audits are configured.
fn oversized_command(input: &AuditInput<'_>) -> Option<(InterventionPolicy, Reason)> {
    let too_long = input.commands().iter().any(|found| match found.value {
        serde_json::Value::String(s) => s.len() > MAX_COMMAND_BYTES,
        other => other.to_string().len() > MAX_COMMAND_BYTES,
    });
    too_long.then(|| {
        (
            Always,
            Reason::new(
                Level::GlobalAudit,
                Some("limits/oversized-command".into()),
                format!("a shell command longer than {MAX_COMMAND_BYTES} bytes cannot be analysed"),
            ),
        )
    })
}

fn strictest(
    current: Option<(InterventionPolicy, Reason)>,
    other: (InterventionPolicy, Reason),
) -> (InterventionPolicy, Reason) {
    match current {
        Some(c) if c.0 >= other.0 => c,
        _ => other,
    }
}

/// Builds a [`PolicyEngine`].
///
/// Defaults: [`ApprovalMode::Manual`], empty allow list, no host rules, the
/// built-in [`Blacklist`] as the only global audit, and [`PathScopeAudit`]
/// registered as `pathScopeAudit`. Later calls override earlier ones
/// (e.g. [`mode`](Self::mode) after [`policy_file`](Self::policy_file) wins
/// over the file's mode).
#[derive(Debug)]
pub struct PolicyEngineBuilder {
    mode: ApprovalMode,
    allow_list: BTreeSet<String>,
    host_rules: BTreeMap<String, Vec<InterventionRule>>,
    blacklist: Option<Blacklist>,
    global_audits: Vec<Arc<dyn GlobalAudit>>,
    dynamic_audits: BTreeMap<String, Arc<dyn DynamicAudit>>,
}

impl Default for PolicyEngineBuilder {
    fn default() -> Self {
        let mut dynamic_audits: BTreeMap<String, Arc<dyn DynamicAudit>> = BTreeMap::new();
        let path_scope = PathScopeAudit::new();
        dynamic_audits.insert(path_scope.kind().to_owned(), Arc::new(path_scope));
        Self {
            mode: ApprovalMode::Manual,
            allow_list: BTreeSet::new(),
            host_rules: BTreeMap::new(),
            blacklist: Some(Blacklist::builtin()),
            global_audits: Vec::new(),
            dynamic_audits,
        }
    }
}

impl PolicyEngineBuilder {
    /// Sets the approval mode.
    pub fn mode(mut self, mode: ApprovalMode) -> Self {
        self.mode = mode;
        self
    }

    /// Adds `identifier/apiName` keys to the allow list.
    pub fn allow<I, S>(mut self, keys: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allow_list.extend(keys.into_iter().map(Into::into));
        self
    }

    /// Sets the host rules for one `identifier/apiName` (replacing earlier ones).
    pub fn rules(mut self, key: impl Into<String>, rules: Vec<InterventionRule>) -> Self {
        self.host_rules.insert(key.into(), rules);
        self
    }

    /// Replaces the blacklist (`None`: no blacklist).
    pub fn blacklist(mut self, blacklist: Option<Blacklist>) -> Self {
        self.blacklist = blacklist;
        self
    }

    /// Adds a global audit, run on every call after the blacklist.
    pub fn global_audit(mut self, audit: Arc<dyn GlobalAudit>) -> Self {
        self.global_audits.push(audit);
        self
    }

    /// Registers a dynamic audit under its [`DynamicAudit::kind`] (replacing one of that kind).
    pub fn dynamic_audit(mut self, audit: Arc<dyn DynamicAudit>) -> Self {
        self.dynamic_audits.insert(audit.kind().to_owned(), audit);
        self
    }

    /// Applies a policy file: its mode, allow list, rules and blacklist.
    pub fn policy_file(mut self, file: &PolicyFile) -> Self {
        if let Some(mode) = file.mode {
            self.mode = mode;
        }
        self.allow_list.extend(file.allow_list.iter().cloned());
        for (key, rules) in &file.rules {
            self.host_rules.insert(key.clone(), rules.clone());
        }
        self.blacklist = file.blacklist.clone();
        self
    }

    /// Compiles the host rules and checks the keys.
    pub fn build(self) -> Result<PolicyEngine, Error> {
        for (i, key) in self.allow_list.iter().enumerate() {
            check_key(key, &push_pointer("/allowList", i))?;
        }
        let mut host_rules = BTreeMap::new();
        for (key, rules) in &self.host_rules {
            let at = push_pointer("/rules", key);
            check_key(key, &at)?;
            host_rules.insert(key.clone(), RuleSet::compile_at(rules, &at)?);
        }
        Ok(self.finish(host_rules))
    }

    fn build_unchecked(self) -> PolicyEngine {
        let host_rules = self
            .host_rules
            .iter()
            .filter_map(|(k, r)| RuleSet::compile(r).ok().map(|s| (k.clone(), s)))
            .collect();
        self.finish(host_rules)
    }

    fn finish(self, host_rules: BTreeMap<String, RuleSet>) -> PolicyEngine {
        let mut global_audits: Vec<Arc<dyn GlobalAudit>> = Vec::new();
        if let Some(blacklist) = self.blacklist {
            global_audits.push(Arc::new(blacklist));
        }
        global_audits.extend(self.global_audits);
        PolicyEngine {
            mode: self.mode,
            allow_list: self.allow_list,
            host_rules,
            global_audits,
            dynamic_audits: self.dynamic_audits,
            manifest_rules: Mutex::new(HashMap::new()),
        }
    }
}
