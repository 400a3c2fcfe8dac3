//! Which offered APIs are loaded this turn and which are only searchable,
//! and the tool list each provider receives.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::loaded::LoadedSet;
use crate::export::definition;
use crate::kinds::ToolKind;
use crate::naming::split_wire_name;
use crate::offered::OfferedTools;
use crate::provider::ProviderFormat;

/// The name of our portable search tool (no registered API has it: wire
/// names always hold `____`).
pub const TOOL_SEARCH_NAME: &str = "tool_search";

/// Characters per token assumed for each provider's tool list, the same
/// rough ratio for every JSON tool definition (an estimate: the real count
/// depends on the tokenizer and on the provider's own framing of tools).
///
/// | format | chars per token |
/// |---|---|
/// | `openai-chat` | 4.0 |
/// | `openai-responses` | 4.0 |
/// | `anthropic` | 3.5 |
pub const CHARS_PER_TOKEN: [(ProviderFormat, f64); 3] = [
    (ProviderFormat::OpenAiChat, 4.0),
    (ProviderFormat::OpenAiResponses, 4.0),
    (ProviderFormat::Anthropic, 3.5),
];

/// The estimated token count of `chars` characters of `format`'s tool list.
pub fn estimate_tokens(format: ProviderFormat, chars: usize) -> usize {
    let ratio = CHARS_PER_TOKEN
        .iter()
        .find(|(f, _)| *f == format)
        .map_or(4.0, |(_, r)| *r);
    (chars as f64 / ratio).ceil() as usize
}

/// A size limit on the loaded part of the tool list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum Budget {
    /// At most this many characters of JSON.
    Chars(usize),
    /// At most this many estimated tokens ([`estimate_tokens`]).
    Tokens(usize),
}

/// How deferred APIs are found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum SearchStyle {
    /// The provider's own tool search where it has one (Anthropic's tool
    /// search tool, OpenAI Responses' `tool_search`), deferred definitions
    /// sent with `defer_loading: true`; OpenAI Chat has none and gets the
    /// portable tool.
    #[default]
    Native,
    /// Our `tool_search` function for every provider: deferred definitions
    /// are not sent at all until a search loads them.
    Portable,
}

/// Which of Anthropic's tool search tools to offer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum AnthropicSearch {
    /// `tool_search_tool_bm25_20251119`: natural-language queries.
    #[default]
    Bm25,
    /// `tool_search_tool_regex_20251119`: the model writes a regex.
    Regex,
}

/// The host's rules for deferring, kept as data (it serialises with the
/// conversation or the host's settings).
///
/// An API is deferred when, in this order:
///
/// 1. it is listed in [`always_loaded`](Self::always_loaded) (by wire name,
///    `identifier/api` key or tool identifier): never deferred;
/// 2. a search or a call loaded it ([`LoadedSet`]): loaded;
/// 3. its manifest says so (`deferLoading` on the API): deferred;
/// 4. its tool is in [`tools`](Self::tools) (per reference, per MCP server
///    or OpenAPI document) or its kind is in [`kinds`](Self::kinds):
///    deferred;
/// 5. otherwise it is loaded while the loaded list fits the
///    [`budget`](Self::budget), in offered order, first fit; an API that
///    does not fit is deferred *by the budget* (the export report names it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
#[non_exhaustive]
pub struct DeferPolicy {
    /// Tool identifiers whose every API is deferred.
    pub tools: BTreeSet<String>,
    /// Tool kinds whose every API is deferred (all MCP tools, say).
    pub kinds: BTreeSet<ToolKind>,
    /// Wire names, `identifier/api` keys or identifiers never deferred.
    pub always_loaded: BTreeSet<String>,
    /// The size the loaded definitions may take.
    pub budget: Option<Budget>,
    /// Native or portable search.
    pub search: SearchStyle,
    /// Anthropic's variant of its search tool.
    pub anthropic: AnthropicSearch,
    /// OpenAI Responses: group each tool's APIs in a `namespace` named
    /// after the tool (native style only).
    pub namespaces: bool,
}

impl DeferPolicy {
    /// Defers every API over `budget`, first fit in offered order.
    pub fn over_budget(budget: Budget) -> Self {
        Self {
            budget: Some(budget),
            ..Self::default()
        }
    }

    /// Defers every API of tool `identifier`.
    pub fn defer_tool(mut self, identifier: impl Into<String>) -> Self {
        self.tools.insert(identifier.into());
        self
    }

    /// Keeps `name` (a wire name, `identifier/api` key or identifier) loaded.
    pub fn keep_loaded(mut self, name: impl Into<String>) -> Self {
        self.always_loaded.insert(name.into());
        self
    }

    /// Sets the search style.
    pub fn with_search(mut self, search: SearchStyle) -> Self {
        self.search = search;
        self
    }
}

/// Why an API was deferred.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum DeferReason {
    /// Its manifest marks it `deferLoading`.
    Manifest,
    /// The policy defers its tool or its kind.
    Policy,
    /// It did not fit the budget.
    Budget,
}

/// How big an export is and what it left out.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ExportReport {
    /// The provider format.
    pub format: &'static str,
    /// APIs whose full definitions the model sees this turn.
    pub loaded: usize,
    /// APIs only searchable this turn.
    pub deferred: usize,
    /// Characters of the whole `tools` array sent (with native search this
    /// includes the deferred definitions the provider holds back).
    pub chars_sent: usize,
    /// Characters of what enters the model's context up front: the loaded
    /// definitions and the search tool, and with OpenAI Responses' native
    /// search the name and description of each deferred function (or of
    /// each namespace), which that API shows before any search.
    pub chars_in_context: usize,
    /// [`chars_in_context`](Self::chars_in_context) as estimated tokens.
    pub tokens_in_context: usize,
    /// Characters of the same offer exported without deferral.
    pub chars_without_deferral: usize,
    /// [`chars_without_deferral`](Self::chars_without_deferral) as estimated tokens.
    pub tokens_without_deferral: usize,
    /// Wire names deferred by the budget (not by manifest or policy).
    pub deferred_by_budget: Vec<String>,
}

/// A tool list with deferral, and its report.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct DeferredExport {
    /// The provider's `tools` array.
    pub tools: Vec<Value>,
    /// Sizes and what was deferred.
    pub report: ExportReport,
    /// The wire names deferred this turn, with why.
    pub deferred: BTreeMap<String, DeferReason>,
}

/// One API's place in this turn.
pub(crate) struct Placement<'a> {
    pub(crate) wire: &'a str,
    pub(crate) deferred: Option<DeferReason>,
    pub(crate) definition: Value,
    pub(crate) chars: usize,
}

/// Where every offered API stands this turn under `policy` in `format`.
pub(crate) fn place<'a>(
    offered: &'a OfferedTools,
    policy: &DeferPolicy,
    loaded: &LoadedSet,
    format: ProviderFormat,
    search_tool_chars: usize,
) -> Vec<Placement<'a>> {
    let mut placements = Vec::with_capacity(offered.api_count());
    for (tool, wire, api) in offered.all_apis() {
        let manifest = tool.manifest();
        let key = format!("{}/{}", manifest.identifier, api.name);
        let always = policy.always_loaded.contains(wire)
            || policy.always_loaded.contains(&key)
            || policy.always_loaded.contains(&manifest.identifier);
        let deferred = if always || loaded.contains(wire) {
            None
        } else if api.defer_loading {
            Some(DeferReason::Manifest)
        } else if policy.tools.contains(&manifest.identifier)
            || manifest.kind.is_some_and(|k| policy.kinds.contains(&k))
        {
            Some(DeferReason::Policy)
        } else {
            None
        };
        let definition = definition(format, tool, wire, api);
        let chars = definition.to_string().len();
        placements.push(Placement {
            wire,
            deferred,
            definition,
            chars,
        });
    }
    if let Some(budget) = policy.budget {
        let limit = match budget {
            Budget::Chars(chars) => chars,
            Budget::Tokens(tokens) => {
                let ratio = CHARS_PER_TOKEN
                    .iter()
                    .find(|(f, _)| *f == format)
                    .map_or(4.0, |(_, r)| *r);
                (tokens as f64 * ratio) as usize
            }
        };
        // Loaded for a reason (always, searched, or simply undeferred ones
        // that must stay) first: everything not deferred and exempt.
        let exempt = |p: &Placement<'_>| {
            policy.always_loaded.contains(p.wire)
                || loaded.contains(p.wire)
                || split_wire_name(p.wire).is_some_and(|(id, api)| {
                    policy.always_loaded.contains(id)
                        || policy.always_loaded.contains(&format!("{id}/{api}"))
                })
        };
        let mut used: usize = placements
            .iter()
            .filter(|p| p.deferred.is_none() && exempt(p))
            .map(|p| p.chars + 1)
            .sum();
        let mut any_deferred = placements.iter().any(|p| p.deferred.is_some());
        if any_deferred {
            used += search_tool_chars;
        }
        for p in placements.iter_mut() {
            if p.deferred.is_some() || exempt(p) {
                continue;
            }
            let search = if any_deferred { 0 } else { search_tool_chars };
            if used + p.chars + 1 + search <= limit {
                used += p.chars + 1;
            } else {
                p.deferred = Some(DeferReason::Budget);
                if !any_deferred {
                    any_deferred = true;
                    used += search_tool_chars;
                }
            }
        }
    }
    placements
}

/// The export of `offered` in `format` under `policy`, given what is loaded.
pub(crate) fn export(
    offered: &OfferedTools,
    policy: &DeferPolicy,
    loaded: &LoadedSet,
    format: ProviderFormat,
) -> DeferredExport {
    let native = policy.search == SearchStyle::Native && format != ProviderFormat::OpenAiChat;
    let search_tool = |searchable: usize| {
        if native {
            native_search_tool(format, policy)
        } else {
            portable_search_tool(format, searchable)
        }
    };
    let search_chars = search_tool(offered.api_count()).to_string().len();
    let placements = place(offered, policy, loaded, format, search_chars + 1);
    let chars_without_deferral: usize = placements.iter().map(|p| p.chars + 1).sum::<usize>() + 1;
    let deferred: BTreeMap<String, DeferReason> = placements
        .iter()
        .filter_map(|p| p.deferred.map(|r| (p.wire.to_owned(), r)))
        .collect();
    let deferred_by_budget = placements
        .iter()
        .filter(|p| p.deferred == Some(DeferReason::Budget))
        .map(|p| p.wire.to_owned())
        .collect();
    let mut tools = Vec::with_capacity(placements.len() + 1);
    let mut chars_in_context = 1;
    let namespaces = native && policy.namespaces && format == ProviderFormat::OpenAiResponses;
    let mut groups: Vec<(String, Vec<Value>)> = Vec::new();
    for p in placements {
        let is_deferred = p.deferred.is_some();
        if is_deferred && !native {
            continue;
        }
        if !is_deferred {
            chars_in_context += p.chars + 1;
        } else if native && format == ProviderFormat::OpenAiResponses && !namespaces {
            // Responses shows a deferred function's name and description up
            // front; only its parameters wait for the search.
            let visible = json!({"name": p.wire, "description": p.definition["description"]});
            chars_in_context += visible.to_string().len() + 1;
        }
        let mut definition = p.definition;
        if is_deferred {
            definition["defer_loading"] = Value::Bool(true);
        }
        if namespaces && let Some((namespace, api)) = split_wire_name(p.wire) {
            definition["name"] = Value::String(api.to_owned());
            match groups.last_mut() {
                Some((name, members)) if name == namespace => members.push(definition),
                _ => groups.push((namespace.to_owned(), vec![definition])),
            }
            continue;
        }
        tools.push(definition);
    }
    for (name, members) in groups {
        let description = offered
            .get(&name)
            .and_then(|t| t.manifest().meta.description.clone())
            .unwrap_or_else(|| format!("The APIs of {name}."));
        // A namespace shows its name and description up front, and its
        // loaded members in full (counted above).
        let visible = json!({"type": "namespace", "name": name, "description": description});
        chars_in_context += visible.to_string().len() + 1;
        tools.push(json!({
            "type": "namespace",
            "name": name,
            "description": description,
            "tools": members,
        }));
    }
    if !deferred.is_empty() {
        let search_tool = search_tool(deferred.len());
        chars_in_context += search_tool.to_string().len() + 1;
        tools.push(search_tool);
    }
    let chars_sent = Value::Array(tools.clone()).to_string().len();
    if native && !deferred.is_empty() {
        // What the provider puts in context: the sent list less the deferred definitions.
        chars_in_context = chars_in_context.min(chars_sent);
    }
    let report = ExportReport {
        format: format.as_str(),
        loaded: offered.api_count() - deferred.len(),
        deferred: deferred.len(),
        chars_sent,
        chars_in_context,
        tokens_in_context: estimate_tokens(format, chars_in_context),
        chars_without_deferral,
        tokens_without_deferral: estimate_tokens(format, chars_without_deferral),
        deferred_by_budget,
    };
    DeferredExport {
        tools,
        report,
        deferred,
    }
}

fn native_search_tool(format: ProviderFormat, policy: &DeferPolicy) -> Value {
    match format {
        ProviderFormat::Anthropic => match policy.anthropic {
            AnthropicSearch::Bm25 => json!({
                "type": "tool_search_tool_bm25_20251119",
                "name": "tool_search_tool_bm25",
            }),
            AnthropicSearch::Regex => json!({
                "type": "tool_search_tool_regex_20251119",
                "name": "tool_search_tool_regex",
            }),
        },
        _ => json!({"type": "tool_search"}),
    }
}

/// The description of our portable search tool.
fn portable_description(searchable: usize) -> String {
    format!(
        "Searches {searchable} more tools not listed here. Say in a few words what you need \
         (\"list open pull requests\"); returns the best matches by name with a one-line \
         description. Call a found tool by name from your next turn."
    )
}

fn portable_search_tool(format: ProviderFormat, searchable: usize) -> Value {
    let parameters = json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What the tool should do, in a few words."},
            "limit": {"type": "integer", "minimum": 1, "maximum": 20, "description": "How many matches to return (default 5)."}
        },
        "required": ["query"],
        "additionalProperties": false,
    });
    let description = portable_description(searchable);
    match format {
        ProviderFormat::OpenAiChat => json!({
            "type": "function",
            "function": {"name": TOOL_SEARCH_NAME, "description": description, "parameters": parameters}
        }),
        // `limit` is optional, so the schema is not a strict one.
        ProviderFormat::OpenAiResponses => json!({
            "type": "function", "name": TOOL_SEARCH_NAME, "description": description,
            "parameters": parameters, "strict": false
        }),
        ProviderFormat::Anthropic => json!({
            "name": TOOL_SEARCH_NAME, "description": description, "input_schema": parameters
        }),
    }
}
