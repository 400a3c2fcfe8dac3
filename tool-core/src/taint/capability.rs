//! Capabilities resolved: derived from a tool's source, overridden by the
//! host.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::capability::Capabilities;
use crate::declare::{ApiDefinition, HumanIntervention, InterventionPolicy, ToolManifest};
use crate::kinds::ToolKind;

/// Where a resolved [`Capabilities`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum CapabilitySource {
    /// The host's override for this API.
    HostApi,
    /// The host's override for the whole tool.
    HostTool,
    /// The API's own `capabilities` in its manifest.
    Declared,
    /// Derived from the tool's kind and the API's approval policy.
    Derived,
}

/// The host's word on capabilities: overrides per API and per tool, and
/// the tools it trusts as sources.
///
/// # Precedence
///
/// For one API of one tool, the first that applies:
///
/// 1. the host's override for `identifier/api` ([`set_api`](Self::set_api));
/// 2. the host's override for the tool ([`set_tool`](Self::set_tool));
/// 3. the API's own [`ApiDefinition::capabilities`];
/// 4. derived ([`derive_capabilities`]), with the tools in
///    [`trust_source`](Self::trust_source) not counted `untrusted_source`.
///
/// ```
/// use tool_core::{ApiDefinition, ToolKind, ToolManifest};
/// use tool_core::taint::{Capabilities, CapabilityMap, CapabilitySource};
/// let mut manifest = ToolManifest::new("web");
/// manifest.kind = Some(ToolKind::Mcp);
/// manifest.api.push(ApiDefinition::new("fetch", "Fetches a page."));
/// let mut map = CapabilityMap::new();
/// let (caps, from) = map.resolve(&manifest, &manifest.api[0]);
/// assert!(caps.untrusted_source && caps.egress);
/// assert_eq!(from, CapabilitySource::Derived);
/// map.set_api("web", "fetch", Capabilities::untrusted());
/// let (caps, from) = map.resolve(&manifest, &manifest.api[0]);
/// assert_eq!((caps, from), (Capabilities::untrusted(), CapabilitySource::HostApi));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CapabilityMap {
    /// `identifier/api` → capabilities.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub apis: BTreeMap<String, Capabilities>,
    /// `identifier` → capabilities of every API of the tool.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tools: BTreeMap<String, Capabilities>,
    /// Tools whose content the host trusts (its own MCP servers).
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub trusted_sources: BTreeSet<String>,
}

impl CapabilityMap {
    /// No overrides, no trusted tools.
    pub fn new() -> Self {
        Self::default()
    }

    /// Overrides the capabilities of `identifier/api`.
    pub fn set_api(&mut self, identifier: &str, api: &str, caps: Capabilities) -> &mut Self {
        self.apis.insert(format!("{identifier}/{api}"), caps);
        self
    }

    /// Overrides the capabilities of every API of `identifier`.
    pub fn set_tool(&mut self, identifier: &str, caps: Capabilities) -> &mut Self {
        self.tools.insert(identifier.to_owned(), caps);
        self
    }

    /// Trusts the content of `identifier` (derivation no longer counts it
    /// `untrusted_source`; an explicit declaration still does).
    pub fn trust_source(&mut self, identifier: &str) -> &mut Self {
        self.trusted_sources.insert(identifier.to_owned());
        self
    }

    /// The capabilities of `api` of `manifest`, and where they came from
    /// (see the precedence on [`CapabilityMap`]).
    pub fn resolve(
        &self,
        manifest: &ToolManifest,
        api: &ApiDefinition,
    ) -> (Capabilities, CapabilitySource) {
        let id = manifest.identifier.as_str();
        if !self.apis.is_empty()
            && let Some(caps) = self.apis.get(&format!("{id}/{}", api.name))
        {
            return (*caps, CapabilitySource::HostApi);
        }
        if let Some(caps) = self.tools.get(id) {
            return (*caps, CapabilitySource::HostTool);
        }
        if let Some(caps) = api.capabilities {
            return (caps, CapabilitySource::Declared);
        }
        let mut caps = derive_capabilities(manifest, api);
        if self.trusted_sources.contains(id) {
            caps.untrusted_source = false;
        }
        (caps, CapabilitySource::Derived)
    }
}

/// The capabilities the source of a tool implies, when neither the API
/// nor the host says.
///
/// | tool | `reads_private` | `untrusted_source` | `egress` |
/// |---|---|---|---|
/// | `touches_host` (local files, commands, scripts) | yes | no | no |
/// | `mcp` | no | yes | unless read-only (policy `never`, which tool-mcp gives `readOnlyHint` tools) |
/// | `api` (OpenAPI) | no | yes (responses) | unless its policy is `never` (GET and HEAD by default) |
/// | anything else | no | no | no |
///
/// A host whose confinement gives commands network, or whose tools read
/// mail or databases, says so with a [`CapabilityMap`] override: the table
/// only knows what the manifest carries.
pub fn derive_capabilities(manifest: &ToolManifest, api: &ApiDefinition) -> Capabilities {
    let policy = manifest.intervention_for(&api.name);
    let read_only = matches!(
        policy,
        Some(HumanIntervention::Policy(InterventionPolicy::Never))
    );
    let mut caps = Capabilities::NONE;
    if api.touches_host {
        caps.reads_private = true;
    }
    match manifest.kind {
        Some(ToolKind::Mcp) | Some(ToolKind::Api) => {
            caps.untrusted_source = true;
            caps.egress = !read_only;
        }
        _ => {}
    }
    caps
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(kind: Option<ToolKind>, policy: Option<InterventionPolicy>) -> ToolManifest {
        let mut m = ToolManifest::new("t");
        m.kind = kind;
        let mut api = ApiDefinition::new("a", "d");
        if let Some(p) = policy {
            api = api.with_intervention(HumanIntervention::Policy(p));
        }
        m.api.push(api);
        m
    }

    #[test]
    fn derivation_follows_the_table() {
        let cases = [
            (
                Some(ToolKind::Mcp),
                Some(InterventionPolicy::Never),
                "untrusted_source",
            ),
            (
                Some(ToolKind::Mcp),
                Some(InterventionPolicy::Required),
                "untrusted_source,egress",
            ),
            (Some(ToolKind::Mcp), None, "untrusted_source,egress"),
            (
                Some(ToolKind::Api),
                Some(InterventionPolicy::Never),
                "untrusted_source",
            ),
            (
                Some(ToolKind::Api),
                Some(InterventionPolicy::Required),
                "untrusted_source,egress",
            ),
            (Some(ToolKind::Builtin), None, "none"),
            (None, None, "none"),
        ];
        for (kind, policy, want) in cases {
            let m = manifest(kind, policy);
            assert_eq!(
                derive_capabilities(&m, &m.api[0]).to_string(),
                want,
                "{kind:?} {policy:?}"
            );
        }
        let mut m = manifest(Some(ToolKind::Builtin), None);
        m.api[0].touches_host = true;
        assert_eq!(
            derive_capabilities(&m, &m.api[0]),
            Capabilities::private_read()
        );
    }

    #[test]
    fn precedence_is_host_api_then_host_tool_then_declared_then_derived() {
        let mut m = manifest(Some(ToolKind::Mcp), None);
        m.api[0].capabilities = Some(Capabilities::private_read());
        let mut map = CapabilityMap::new();
        assert_eq!(map.resolve(&m, &m.api[0]).1, CapabilitySource::Declared);
        map.set_tool("t", Capabilities::egress());
        assert_eq!(
            map.resolve(&m, &m.api[0]),
            (Capabilities::egress(), CapabilitySource::HostTool)
        );
        map.set_api("t", "a", Capabilities::NONE);
        assert_eq!(
            map.resolve(&m, &m.api[0]),
            (Capabilities::NONE, CapabilitySource::HostApi)
        );
    }

    #[test]
    fn a_trusted_source_is_not_untrusted_when_derived_only() {
        let mut m = manifest(Some(ToolKind::Mcp), None);
        let mut map = CapabilityMap::new();
        map.trust_source("t");
        assert_eq!(map.resolve(&m, &m.api[0]).0, Capabilities::egress());
        m.api[0].capabilities = Some(Capabilities::untrusted());
        assert_eq!(map.resolve(&m, &m.api[0]).0, Capabilities::untrusted());
    }

    #[test]
    fn capabilities_round_trip_and_reject_unknown_shapes() {
        let caps = Capabilities::private_read().union(Capabilities::egress());
        let text = serde_json::to_string(&caps).unwrap();
        assert_eq!(text, r#"{"readsPrivate":true,"egress":true}"#);
        assert_eq!(serde_json::from_str::<Capabilities>(&text).unwrap(), caps);
        assert!(serde_json::from_str::<Capabilities>(r#"{"egress":"yes"}"#).is_err());
    }
}
