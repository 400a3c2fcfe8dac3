//! The deferred APIs loaded so far in a conversation, as data.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Error;
use crate::naming::WIRE_SEPARATOR;
use crate::provider::ProviderFormat;

/// Wire names of deferred APIs a search (ours or the provider's) or a call
/// has loaded. Carried from turn to turn by the host and stored with the
/// conversation: it serialises as a sorted list of names.
///
/// ```
/// use tool_core::search::LoadedSet;
/// let mut loaded = LoadedSet::default();
/// loaded.insert("github____listIssues");
/// let stored = serde_json::to_string(&loaded)?;
/// assert_eq!(stored, r#"["github____listIssues"]"#);
/// let back: LoadedSet = serde_json::from_str(&stored)?;
/// assert!(back.contains("github____listIssues"));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct LoadedSet {
    names: BTreeSet<String>,
}

/// One search the provider ran on its side, read from its answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ProviderSearch {
    /// The search call's id (`server_tool_use` id, `tool_search_call` call id).
    pub id: Option<String>,
    /// The wire names the search returned.
    pub found: Vec<String>,
}

impl LoadedSet {
    /// Whether `wire_name` is loaded.
    pub fn contains(&self, wire_name: &str) -> bool {
        self.names.contains(wire_name)
    }

    /// Marks `wire_name` loaded; `true` when it was not before.
    pub fn insert(&mut self, wire_name: impl Into<String>) -> bool {
        self.names.insert(wire_name.into())
    }

    /// Forgets `wire_name` (a tool that was removed, say).
    pub fn remove(&mut self, wire_name: &str) -> bool {
        self.names.remove(wire_name)
    }

    /// The loaded names, sorted.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.names.iter().map(String::as_str)
    }

    /// Number of loaded names.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether nothing is loaded.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Reads the provider-side searches in a provider's answer and marks
    /// what they found loaded; returns the searches.
    ///
    /// - Anthropic: `tool_search_tool_result` blocks whose content is a
    ///   `tool_search_tool_search_result` with `tool_references`
    ///   (`{"type": "tool_reference", "tool_name"}`); an error result
    ///   (`tool_search_tool_result_error`) finds nothing.
    /// - OpenAI Responses: `tool_search_output` items whose `tools` are the
    ///   loaded definitions (functions, or namespaces of functions named
    ///   `namespace____name` on our side).
    /// - OpenAI Chat has no provider-side search: always empty.
    ///
    /// A block of these types with a missing or mistyped field is an
    /// [`Error::ProviderMessage`] naming where.
    pub fn absorb(
        &mut self,
        format: ProviderFormat,
        answer: &Value,
    ) -> Result<Vec<ProviderSearch>, Error> {
        let searches = provider_searches(format, answer)?;
        for search in &searches {
            for name in &search.found {
                self.names.insert(name.clone());
            }
        }
        Ok(searches)
    }
}

impl FromIterator<String> for LoadedSet {
    fn from_iter<T: IntoIterator<Item = String>>(iter: T) -> Self {
        Self {
            names: iter.into_iter().collect(),
        }
    }
}

/// The provider-side searches in a provider's answer (see [`LoadedSet::absorb`]).
pub fn provider_searches(
    format: ProviderFormat,
    answer: &Value,
) -> Result<Vec<ProviderSearch>, Error> {
    match format {
        ProviderFormat::Anthropic => anthropic(answer),
        ProviderFormat::OpenAiResponses => responses(answer),
        _ => Ok(Vec::new()),
    }
}

fn items<'a>(
    format: ProviderFormat,
    answer: &'a Value,
    key: &str,
) -> Result<(&'a [Value], String), Error> {
    match answer {
        Value::Array(items) => Ok((items, String::new())),
        Value::Object(map) => match map.get(key) {
            None | Some(Value::Null) => Ok((&[], String::new())),
            Some(Value::Array(items)) => Ok((items, format!("/{key}"))),
            Some(other) => Err(format.problem(
                &format!("/{key}"),
                format!(
                    "`{key}` must be an array, got {}",
                    crate::declare::json_kind(other)
                ),
            )),
        },
        other => Err(format.problem(
            "",
            format!(
                "expected an object or an array, got {}",
                crate::declare::json_kind(other)
            ),
        )),
    }
}

fn anthropic(answer: &Value) -> Result<Vec<ProviderSearch>, Error> {
    let format = ProviderFormat::Anthropic;
    let (blocks, at) = items(format, answer, "content")?;
    let mut searches = Vec::new();
    for (index, block) in blocks.iter().enumerate() {
        if block.get("type").and_then(Value::as_str) != Some("tool_search_tool_result") {
            continue;
        }
        let pointer = format!("{at}/{index}");
        let id = block
            .get("tool_use_id")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let content = block.get("content").ok_or_else(|| {
            format.problem(&format!("{pointer}/content"), "`content` is missing".into())
        })?;
        let mut found = Vec::new();
        match content.get("type").and_then(Value::as_str) {
            Some("tool_search_tool_search_result") => {
                let references = content
                    .get("tool_references")
                    .and_then(Value::as_array)
                    .ok_or_else(|| {
                        format.problem(
                            &format!("{pointer}/content/tool_references"),
                            "`tool_references` must be an array".into(),
                        )
                    })?;
                for (r, reference) in references.iter().enumerate() {
                    let name = reference
                        .get("tool_name")
                        .and_then(Value::as_str)
                        .filter(|n| !n.is_empty())
                        .ok_or_else(|| {
                            format.problem(
                                &format!("{pointer}/content/tool_references/{r}/tool_name"),
                                "`tool_name` must be a non-empty string".into(),
                            )
                        })?;
                    found.push(name.to_owned());
                }
            }
            Some("tool_search_tool_result_error") => {}
            _ => {
                return Err(format.problem(
                    &format!("{pointer}/content/type"),
                    "expected `tool_search_tool_search_result` or `tool_search_tool_result_error`"
                        .into(),
                ));
            }
        }
        searches.push(ProviderSearch { id, found });
    }
    Ok(searches)
}

fn responses(answer: &Value) -> Result<Vec<ProviderSearch>, Error> {
    let format = ProviderFormat::OpenAiResponses;
    let (output, at) = items(format, answer, "output")?;
    let mut searches = Vec::new();
    for (index, item) in output.iter().enumerate() {
        if item.get("type").and_then(Value::as_str) != Some("tool_search_output") {
            continue;
        }
        let pointer = format!("{at}/{index}");
        let tools = item.get("tools").and_then(Value::as_array).ok_or_else(|| {
            format.problem(
                &format!("{pointer}/tools"),
                "`tools` must be an array".into(),
            )
        })?;
        let mut found = Vec::new();
        for (t, tool) in tools.iter().enumerate() {
            let name = |value: &Value, pointer: String| -> Result<String, Error> {
                value
                    .get("name")
                    .and_then(Value::as_str)
                    .filter(|n| !n.is_empty())
                    .map(str::to_owned)
                    .ok_or_else(|| {
                        format.problem(&pointer, "`name` must be a non-empty string".into())
                    })
            };
            match tool.get("type").and_then(Value::as_str) {
                Some("namespace") => {
                    let namespace = name(tool, format!("{pointer}/tools/{t}/name"))?;
                    let members = tool.get("tools").and_then(Value::as_array);
                    for (m, member) in members.into_iter().flatten().enumerate() {
                        let api = name(member, format!("{pointer}/tools/{t}/tools/{m}/name"))?;
                        found.push(format!("{namespace}{WIRE_SEPARATOR}{api}"));
                    }
                }
                _ => found.push(name(tool, format!("{pointer}/tools/{t}/name"))?),
            }
        }
        searches.push(ProviderSearch {
            id: item
                .get("call_id")
                .and_then(Value::as_str)
                .map(str::to_owned),
            found,
        });
    }
    Ok(searches)
}
