//! Building a [`PolicyEngine`]: step by step, or from a [`PolicyFile`].

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tool_core::{Confinement, ConfinementSupport};

use super::PolicyEngine;
use super::host_rule::{HostRule, HostRules};
use super::policy_file::{PolicyFile, check_key};
use super::remember::Memory;
use crate::audit::{Blacklist, DynamicAudit, GlobalAudit, PathScopeAudit};
use crate::error::{Error, push_pointer};
use crate::mode::ApprovalMode;
use crate::shell::ShellSyntax;

/// Builds a [`PolicyEngine`].
///
/// Defaults: [`ApprovalMode::Manual`], empty allow list, no host rules, the
/// built-in [`Blacklist`] as the only global audit, [`PathScopeAudit`]
/// registered as `pathScopeAudit`; unattended runs of calls that touch the
/// host confined to [`Confinement::workspace_write`] (no network), approved
/// asks at full access, and [`ConfinementSupport::Unknown`] (so, until the
/// host says it can confine, such runs ask, or are blocked in headless
/// mode). Later calls override earlier ones (e.g. [`mode`](Self::mode)
/// after [`policy_file`](Self::policy_file) wins over the file's mode).
#[derive(Debug)]
pub struct PolicyEngineBuilder {
    mode: ApprovalMode,
    allow_list: BTreeSet<String>,
    host_rules: BTreeMap<String, Vec<HostRule>>,
    blacklist: Option<Blacklist>,
    global_audits: Vec<Arc<dyn GlobalAudit>>,
    dynamic_audits: BTreeMap<String, Arc<dyn DynamicAudit>>,
    shell_syntax: ShellSyntax,
    confinement: Confinement,
    confine_approved: bool,
    support: ConfinementSupport,
}

impl PolicyEngine {
    /// A builder with the defaults (see [`PolicyEngineBuilder`]).
    pub fn builder() -> PolicyEngineBuilder {
        PolicyEngineBuilder::default()
    }
}

impl Default for PolicyEngine {
    /// Manual mode, the built-in blacklist, `pathScopeAudit`.
    fn default() -> Self {
        Self::builder().build_unchecked()
    }
}

impl PolicyFile {
    /// A [`PolicyEngine`] configured by this file (other settings at their defaults).
    pub fn engine(&self) -> Result<PolicyEngine, Error> {
        PolicyEngine::builder().policy_file(self).build()
    }
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
            shell_syntax: ShellSyntax::new(),
            confinement: Confinement::workspace_write(),
            confine_approved: false,
            support: ConfinementSupport::Unknown,
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

    /// Sets the host rules for one `identifier/apiName` (replacing earlier
    /// ones): [`InterventionRule`](tool_core::manifest::InterventionRule)s, or
    /// [`HostRule`]s carrying their own confinement.
    pub fn rules<I, R>(mut self, key: impl Into<String>, rules: I) -> Self
    where
        I: IntoIterator<Item = R>,
        R: Into<HostRule>,
    {
        self.host_rules
            .insert(key.into(), rules.into_iter().map(Into::into).collect());
        self
    }

    /// What a call to an API that touches the host runs under when it runs
    /// without a person having seen it (default
    /// [`Confinement::workspace_write`], no network). A host rule's own
    /// confinement replaces it for the calls that rule decides.
    pub fn confinement(mut self, confinement: Confinement) -> Self {
        self.confinement = confinement;
        self
    }

    /// Whether an approved ask keeps the default confinement (`true`) or
    /// runs at full access, since a person saw exactly that call (`false`,
    /// the default). Without confinement support, approved asks run at full
    /// access either way.
    pub fn confine_approved(mut self, keep: bool) -> Self {
        self.confine_approved = keep;
        self
    }

    /// Whether the host can enforce a confinement (default
    /// [`ConfinementSupport::Unknown`], counted as unavailable): where it
    /// cannot, a call that would run confined asks instead (headless: is
    /// blocked). tool-runtime's sandbox probe tells the host.
    pub fn confinement_support(mut self, support: ConfinementSupport) -> Self {
        self.support = support;
        self
    }

    /// Adds a host's wrappers and command options to the shell analysis
    /// (deny rules and the blacklist look through the wrappers; no prefix
    /// rule approves a command using one of the options).
    pub fn shell_syntax(mut self, syntax: ShellSyntax) -> Self {
        self.shell_syntax = syntax;
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
        if !file.shell.is_empty() {
            self.shell_syntax = file.shell.clone();
        }
        self
    }

    /// Compiles the host rules and checks the keys.
    pub fn build(self) -> Result<PolicyEngine, Error> {
        if self.blacklist.is_some() {
            // The built-in rows' examples, checked once per process.
            crate::audit::builtin_rows_checked().map_err(|message| Error::BuiltinRow {
                message: message.to_owned(),
            })?;
        }
        for (i, key) in self.allow_list.iter().enumerate() {
            check_key(key, &push_pointer("/allowList", i))?;
        }
        let mut host_rules = BTreeMap::new();
        for (key, rules) in &self.host_rules {
            let at = push_pointer("/rules", key);
            check_key(key, &at)?;
            host_rules.insert(key.clone(), HostRules::compile_at(rules, &at)?);
        }
        Ok(self.finish(host_rules))
    }

    fn build_unchecked(self) -> PolicyEngine {
        let host_rules = self
            .host_rules
            .iter()
            .filter_map(|(k, r)| HostRules::compile_at(r, "").ok().map(|s| (k.clone(), s)))
            .collect();
        self.finish(host_rules)
    }

    /// The digest of everything this builder decides by (see
    /// [`PolicyEngine::fingerprint`]).
    fn fingerprint(&self) -> String {
        let rules: serde_json::Map<String, Value> = self
            .host_rules
            .iter()
            .map(|(key, rules)| {
                let rules = rules
                    .iter()
                    .map(|r| json!({"rule": r.rule, "confinement": r.confinement}))
                    .collect();
                (key.clone(), Value::Array(rules))
            })
            .collect();
        let blacklist = self.blacklist.as_ref().map(|b| {
            let entries: Vec<Value> = b
                .entries()
                .iter()
                .map(|e| json!([e.id(), e.policy(), e.message(), e.check_text()]))
                .collect();
            json!({"home": b.home_dir().map(|h| h.to_string_lossy()), "entries": entries})
        });
        tool_core::durable::digest(&json!({
            "engine": "tool-approval",
            "version": env!("CARGO_PKG_VERSION"),
            "knowledge": env!("TOOL_APPROVAL_KNOWLEDGE"),
            "mode": format!("{:?}", self.mode),
            "allowList": self.allow_list,
            "rules": rules,
            "blacklist": blacklist,
            "globalAudits": self.global_audits.iter().map(|a| a.name()).collect::<Vec<_>>(),
            "dynamicAudits": self.dynamic_audits.keys().collect::<Vec<_>>(),
            "shell": format!("{:?}", self.shell_syntax),
            "confinement": self.confinement,
            "confineApproved": self.confine_approved,
            "support": self.support,
        }))
    }

    fn finish(self, host_rules: BTreeMap<String, HostRules>) -> PolicyEngine {
        let fingerprint = self.fingerprint();
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
            shell_syntax: self.shell_syntax,
            confinement: self.confinement,
            confine_approved: self.confine_approved,
            support: self.support,
            memory: Memory::default(),
            fingerprint,
        }
    }
}
