//! Exporting offered tools in each provider's request shape.

pub use crate::naming::{
    MAX_WIRE_NAME_LEN, WIRE_SEPARATOR, is_provider_safe, split_wire_name, wire_name,
};
pub use crate::strict::{StrictExport, strict_schema};
pub use crate::surface::SurfaceTable;

use serde_json::{Value, json};

use crate::declare::ApiDefinition;
use crate::offered::{OfferedTool, OfferedTools};

impl OfferedTools {
    /// OpenAI Chat Completions `tools`:
    /// `[{"type":"function","function":{"name","description","parameters"}}]`.
    pub fn openai_chat_tools(&self) -> Vec<Value> {
        self.definitions(crate::ProviderFormat::OpenAiChat)
    }

    /// OpenAI Responses `tools`:
    /// `[{"type":"function","name","description","parameters","strict"}]`.
    ///
    /// `strict` is always present (the API requires it and reads a missing
    /// one as `true`): the manifest's `provider.strict`, else `false`. For
    /// strict schemas where possible see
    /// [`openai_responses_tools_strict`](Self::openai_responses_tools_strict).
    pub fn openai_responses_tools(&self) -> Vec<Value> {
        self.definitions(crate::ProviderFormat::OpenAiResponses)
    }

    /// Anthropic Messages `tools`: `[{"name","description","input_schema"}]`.
    pub fn anthropic_tools(&self) -> Vec<Value> {
        self.definitions(crate::ProviderFormat::Anthropic)
    }

    fn definitions(&self, format: crate::ProviderFormat) -> Vec<Value> {
        self.all_apis()
            .map(|(tool, name, api)| definition(format, tool, name, api))
            .collect()
    }

    /// One system-prompt section made of the offered tools' `systemRole`s,
    /// each wrapped in a `<tool>` element naming it; `None` when no offered
    /// tool has guidance.
    pub fn system_prompt(&self) -> Option<String> {
        let sections: Vec<String> = self
            .tools()
            .iter()
            .filter_map(|tool| {
                let manifest = tool.manifest();
                let role = manifest.system_role.as_deref()?.trim();
                if role.is_empty() {
                    return None;
                }
                let title = manifest
                    .meta
                    .title
                    .as_deref()
                    .unwrap_or(&manifest.identifier);
                Some(format!(
                    "<tool identifier=\"{}\" title=\"{}\">\n{role}\n</tool>",
                    escape_attr(&manifest.identifier),
                    escape_attr(title)
                ))
            })
            .collect();
        if sections.is_empty() {
            return None;
        }
        Some(format!(
            "<tools_guide>\nThe tools below come with instructions; follow them when you use the tool.\n{}\n</tools_guide>",
            sections.join("\n")
        ))
    }
}

/// One API's definition in `format`'s request shape.
pub(crate) fn definition(
    format: crate::ProviderFormat,
    tool: &OfferedTool,
    name: &str,
    api: &ApiDefinition,
) -> Value {
    let mut definition = match format {
        crate::ProviderFormat::OpenAiChat => json!({
            "type": "function",
            "function": {
                "name": name,
                "description": description(tool, api),
                "parameters": api.parameters_schema(),
            }
        }),
        crate::ProviderFormat::OpenAiResponses => json!({
            "type": "function",
            "name": name,
            "description": description(tool, api),
            "parameters": api.parameters_schema(),
        }),
        crate::ProviderFormat::Anthropic => json!({
            "name": name,
            "description": description(tool, api),
            "input_schema": api.parameters_schema(),
        }),
    };
    // Provider metadata kept in the manifest (see `ProviderHints`).
    let hints = &api.provider;
    match format {
        crate::ProviderFormat::OpenAiChat => {
            if let Some(strict) = hints.strict {
                definition["function"]["strict"] = Value::Bool(strict);
            }
        }
        crate::ProviderFormat::OpenAiResponses => {
            // Responses requires the key (openai-python's `FunctionToolParam`)
            // and treats a missing one as `true`: say `false` unless the
            // manifest asks for strict mode.
            definition["strict"] = Value::Bool(hints.strict.unwrap_or(false));
        }
        crate::ProviderFormat::Anthropic => {
            if !api.examples.is_empty() {
                definition["input_examples"] = json!(api.examples);
            }
            if let Some(callers) = &hints.allowed_callers {
                definition["allowed_callers"] = json!(callers);
            }
            if let Some(strict) = hints.strict {
                definition["strict"] = Value::Bool(strict);
            }
        }
    }
    definition
}

/// The API's description, falling back to the tool's.
pub(crate) fn description(tool: &OfferedTool, api: &ApiDefinition) -> String {
    if !api.description.trim().is_empty() {
        return api.description.clone();
    }
    tool.manifest()
        .meta
        .description
        .clone()
        .unwrap_or_else(|| format!("{} of {}", api.name, tool.manifest().identifier))
}

fn escape_attr(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
