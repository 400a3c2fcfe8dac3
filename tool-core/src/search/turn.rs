//! A host's deferral state across turns: the index, the policy, the loaded set.

use serde::Deserialize;
use serde_json::{Value, json};

use super::defer::{DeferPolicy, DeferredExport, SearchStyle, TOOL_SEARCH_NAME, export};
use super::index::{SearchHit, SearchIndex, SyncReport};
use super::loaded::{LoadedSet, ProviderSearch};
use crate::context::ToolContext;
use crate::error::Error;
use crate::invoke::{Invoker, ToolCall};
use crate::offered::OfferedTools;
use crate::output::{ErrorCode, ToolError, ToolOutput};
use crate::provider::ProviderFormat;

/// Matches a search returns when the model gives no `limit`.
pub const DEFAULT_SEARCH_LIMIT: usize = 5;
/// Most matches one search returns.
pub const MAX_SEARCH_LIMIT: usize = 20;

/// Deferred tool definitions and tool search for one conversation.
///
/// Holds the [`SearchIndex`] (brought up to date with each turn's
/// [`OfferedTools`] by [`sync`](Self::sync)), the host's [`DeferPolicy`]
/// and the [`LoadedSet`] (store it with the conversation:
/// [`loaded`](Self::loaded), [`with_loaded`](Self::with_loaded)).
///
/// Each turn:
///
/// 1. [`sync`](Self::sync) the turn's offer, then [`export`](Self::export)
///    the tool list (loaded definitions, deferred ones marked for the
///    provider's own search or left out for ours, and the search tool) and
///    add [`system_note`](Self::system_note) to the system message;
/// 2. with the provider's answer, [`absorb`](Self::absorb) its own searches
///    (Anthropic `tool_reference`s, Responses `tool_search_output`) and run
///    the calls with [`run_calls`](Self::run_calls): our `tool_search`
///    calls are answered here (and what they found is loaded for the next
///    turn), every other call goes through the [`Invoker`]. A call of a
///    deferred API that was never loaded still runs (its definition is
///    offered, only not shown); its output says so and the API is loaded
///    from then on.
///
/// ```
/// use tool_core::prelude::*;
/// use tool_core::search::{DeferPolicy, ToolSearch};
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let mut registry = ToolRegistry::new();
/// registry.register(
///     ToolBuilder::new("weather")
///         .api(ApiDefinition::new("forecast", "Weather forecast for a city.").deferred(), |_, _| async {
///             Ok(ToolOutput::text("rain"))
///         })
///         .build()?,
/// )?;
/// let ctx = ToolContext::new();
/// let offered = registry.offer(&ctx);
/// let mut search = ToolSearch::new(DeferPolicy::default().with_search(tool_core::search::SearchStyle::Portable));
/// search.sync(&offered);
///
/// // Turn 1: only the search tool is offered; the model searches.
/// let tools = search.export(&offered, ProviderFormat::OpenAiChat).tools;
/// assert_eq!(tools.len(), 1);
/// assert_eq!(tools[0]["function"]["name"], "tool_search");
/// let calls = [ToolCall::new("tool_search", r#"{"query":"weather forecast"}"#)];
/// let outputs = search.run_calls(&Invoker::default(), &offered, ProviderFormat::OpenAiChat, &calls, &ctx).await;
/// assert!(outputs[0].content.contains("weather____forecast"));
///
/// // Turn 2: the found tool is loaded and called.
/// let tools = search.export(&offered, ProviderFormat::OpenAiChat).tools;
/// assert_eq!(tools[0]["function"]["name"], "weather____forecast");
/// let calls = [ToolCall::new("weather____forecast", "{}")];
/// let outputs = search.run_calls(&Invoker::default(), &offered, ProviderFormat::OpenAiChat, &calls, &ctx).await;
/// assert_eq!(outputs[0].content, "rain");
/// # Ok::<(), tool_core::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Default)]
pub struct ToolSearch {
    index: SearchIndex,
    policy: DeferPolicy,
    loaded: LoadedSet,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SearchArgs {
    query: String,
    #[serde(default)]
    limit: Option<usize>,
}

impl ToolSearch {
    /// Deferral under `policy`, nothing loaded yet.
    pub fn new(policy: DeferPolicy) -> Self {
        Self {
            index: SearchIndex::new(),
            policy,
            loaded: LoadedSet::default(),
        }
    }

    /// Continues a stored conversation: `loaded` is what earlier turns loaded.
    pub fn with_loaded(mut self, loaded: LoadedSet) -> Self {
        self.loaded = loaded;
        self
    }

    /// What is loaded so far (store it with the conversation).
    pub fn loaded(&self) -> &LoadedSet {
        &self.loaded
    }

    /// The policy.
    pub fn policy(&self) -> &DeferPolicy {
        &self.policy
    }

    /// The index.
    pub fn index(&self) -> &SearchIndex {
        &self.index
    }

    /// Brings the index to this turn's offer (only changed tools are indexed again).
    pub fn sync(&mut self, offered: &OfferedTools) -> SyncReport {
        self.index.sync(offered)
    }

    /// The tool list for `format`, with its size report.
    pub fn export(&self, offered: &OfferedTools, format: ProviderFormat) -> DeferredExport {
        export(offered, &self.policy, &self.loaded, format)
    }

    /// The system-prompt lines telling the model that more tools exist and
    /// how to find them; `None` when nothing is deferred in `format`.
    pub fn system_note(&self, offered: &OfferedTools, format: ProviderFormat) -> Option<String> {
        let deferred = self.export(offered, format).deferred.len();
        if deferred == 0 {
            return None;
        }
        let native =
            self.policy.search == SearchStyle::Native && format != ProviderFormat::OpenAiChat;
        let how = if native {
            "use the tool search tool to find them by what they do"
        } else {
            "call `tool_search` with a few words saying what you need; the tools it finds can be called from your next turn"
        };
        Some(format!(
            "<deferred_tools>\n{deferred} more tools are available than the ones listed; {how}.\n</deferred_tools>"
        ))
    }

    /// Reads the provider's own searches in its answer (see
    /// [`LoadedSet::absorb`]) and loads what they found.
    pub fn absorb(
        &mut self,
        format: ProviderFormat,
        answer: &Value,
    ) -> Result<Vec<ProviderSearch>, Error> {
        self.loaded.absorb(format, answer)
    }

    /// Whether `call` is a call of our portable search tool.
    pub fn is_search_call(call: &ToolCall) -> bool {
        call.name == TOOL_SEARCH_NAME
    }

    /// Searches the offered APIs that are not loaded yet (`query`: words,
    /// BM25) and loads the hits.
    pub fn search_and_load(
        &mut self,
        offered: &OfferedTools,
        query: &str,
        limit: usize,
    ) -> Result<Vec<SearchHit>, Error> {
        let loaded = &self.loaded;
        let hits = self.index.query_where(
            &super::SearchQuery::Words(query.to_owned()),
            limit,
            |wire| !loaded.contains(wire) && offered.resolve(wire).is_ok(),
        )?;
        for hit in &hits {
            self.loaded.insert(hit.name.clone());
        }
        Ok(hits)
    }

    /// Answers one call of our `tool_search` tool: `{"query", "limit"?}`.
    /// Bad arguments are an `invalid_arguments` output naming the problem.
    pub fn answer(&mut self, offered: &OfferedTools, call: &ToolCall) -> ToolOutput {
        let raw = if call.arguments.trim().is_empty() {
            "{}"
        } else {
            call.arguments.as_str()
        };
        let args: SearchArgs = match serde_json::from_str(raw) {
            Ok(args) => args,
            Err(e) => {
                return ToolOutput::failure(ToolError::new(
                    ErrorCode::INVALID_ARGUMENTS,
                    format!("tool_search takes {{\"query\": string, \"limit\"?: integer}}: {e}"),
                ));
            }
        };
        let limit = args
            .limit
            .unwrap_or(DEFAULT_SEARCH_LIMIT)
            .clamp(1, MAX_SEARCH_LIMIT);
        let hits = match self.search_and_load(offered, &args.query, limit) {
            Ok(hits) => hits,
            Err(e) => {
                return ToolOutput::failure(ToolError::new(
                    ErrorCode::INVALID_ARGUMENTS,
                    e.to_string(),
                ));
            }
        };
        let content = if hits.is_empty() {
            format!(
                "No tool matches \"{}\". Try other words for what you want to do.",
                args.query
            )
        } else {
            let lines: Vec<String> = hits
                .iter()
                .map(|h| format!("- {}: {}", h.name, h.description))
                .collect();
            format!(
                "Found {} tools; their full definitions are offered from your next turn, call them by name:\n{}",
                hits.len(),
                lines.join("\n")
            )
        };
        ToolOutput::with_state(content, json!({ "results": hits }))
    }

    /// Runs one turn's calls (the model saw `format`'s export): `tool_search` calls are answered here, the
    /// others go through `invoker` as one batch. Outputs come back in call
    /// order. A call of a deferred API the model had not loaded runs like
    /// any other; its output gets a note saying so, and the API is loaded.
    pub async fn run_calls(
        &mut self,
        invoker: &Invoker,
        offered: &OfferedTools,
        format: ProviderFormat,
        calls: &[ToolCall],
        ctx: &ToolContext,
    ) -> Vec<ToolOutput> {
        let shown = self.export(offered, format).deferred;
        let mut outputs: Vec<Option<ToolOutput>> = vec![None; calls.len()];
        let mut others: Vec<(usize, ToolCall)> = Vec::new();
        for (i, call) in calls.iter().enumerate() {
            if Self::is_search_call(call) {
                outputs[i] = Some(self.answer(offered, call));
            } else {
                others.push((i, call.clone()));
            }
        }
        let batch: Vec<ToolCall> = others.iter().map(|(_, c)| c.clone()).collect();
        let ran = invoker.invoke_batch(offered, &batch, ctx).await;
        for ((i, call), mut output) in others.into_iter().zip(ran) {
            if let Ok(resolved) = offered.resolve(&call.name) {
                let wire = resolved.wire_name;
                if shown.contains_key(wire) && !self.loaded.contains(wire) {
                    output.content.push_str(&format!(
                        "\n\n(Note: `{wire}` was not loaded; it ran from its deferred definition. \
                         Its full definition is offered from your next turn.)"
                    ));
                    self.loaded.insert(wire.to_owned());
                }
            }
            outputs[i] = Some(output);
        }
        outputs
            .into_iter()
            .map(|o| {
                o.unwrap_or_else(|| {
                    ToolOutput::failure(ToolError::execution_failed("the call got no output"))
                })
            })
            .collect()
    }
}
