//! The tool catalog of one server, as discovery found it.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tool_core::manifest::{ApiHints, TaskSupport};

/// One remote tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpCatalogTool {
    /// The remote name, exactly as the server spells it.
    pub name: String,
    /// Human title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments.
    pub input_schema: Value,
    /// JSON Schema of `structuredContent`, when the server declares one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// The MCP annotations object (`readOnlyHint`, `destructiveHint`, …) as sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
    /// The tool's icons as sent (`[{"src", "mimeType"?, "sizes"?, "theme"?}]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Value>,
    /// The tool's `_meta` object as sent.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
    /// The tool's `execution` object as sent (`{"taskSupport": …}`), read
    /// from the raw answer (see the stdio and HTTP transports); `None` when
    /// absent or when the answer came as plain JSON over HTTP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<Value>,
}

impl McpCatalogTool {
    fn hint(&self, name: &str) -> Option<bool> {
        self.annotations.as_ref()?.get(name)?.as_bool()
    }

    /// `annotations.readOnlyHint`.
    pub fn read_only_hint(&self) -> Option<bool> {
        self.hint("readOnlyHint")
    }

    /// `annotations.destructiveHint`.
    pub fn destructive_hint(&self) -> Option<bool> {
        self.hint("destructiveHint")
    }

    /// The effect hints the annotations state (`readOnlyHint`,
    /// `destructiveHint`, `idempotentHint`, `openWorldHint`); a hint that
    /// is absent or not a boolean stays unstated.
    pub fn hints(&self) -> ApiHints {
        let mut hints = ApiHints::default();
        hints.read_only = self.hint("readOnlyHint");
        hints.destructive = self.hint("destructiveHint");
        hints.idempotent = self.hint("idempotentHint");
        hints.open_world = self.hint("openWorldHint");
        hints
    }

    /// `execution.taskSupport`, when it is one of the words the spec
    /// defines (`forbidden`, `optional`, `required`).
    pub fn task_support(&self) -> Option<TaskSupport> {
        let word = self.execution.as_ref()?.get("taskSupport")?.clone();
        serde_json::from_value(word).ok()
    }

    pub(crate) fn from_remote(tool: rmcp::model::Tool) -> Self {
        Self {
            name: tool.name.into_owned(),
            title: tool.title,
            description: tool.description.map(|d| d.into_owned()),
            input_schema: Value::Object((*tool.input_schema).clone()),
            output_schema: tool.output_schema.map(|s| Value::Object((*s).clone())),
            annotations: tool
                .annotations
                .and_then(|a| serde_json::to_value(a).ok())
                .filter(|a| a.as_object().is_some_and(|o| !o.is_empty())),
            icons: tool
                .icons
                .filter(|icons| !icons.is_empty())
                .and_then(|icons| serde_json::to_value(icons).ok()),
            meta: tool
                .meta
                .and_then(|meta| serde_json::to_value(meta).ok())
                .filter(|m| m.as_object().is_some_and(|o| !o.is_empty())),
            execution: None,
        }
    }
}

/// Every tool one server offers, with the configuration version it was listed under.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpCatalog {
    /// The server id.
    pub server: String,
    /// The configuration's `updatedAt` when the list was taken.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
    /// The server's own name (from the handshake).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_name: Option<String>,
    /// The server's instructions for the model (from the handshake).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// How many `tools/list` pages were read.
    pub pages: usize,
    /// The tools, in the server's order.
    pub tools: Vec<McpCatalogTool>,
}

impl McpCatalog {
    /// The tool called `name`.
    pub fn tool(&self, name: &str) -> Option<&McpCatalogTool> {
        self.tools.iter().find(|t| t.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::McpCatalogTool;
    use serde_json::json;
    use tool_core::manifest::{ApiHints, TaskSupport};

    #[test]
    fn every_field_of_a_listed_tool_is_kept() {
        let listed: rmcp::model::Tool = serde_json::from_value(json!({
            "name": "read", "title": "Read", "description": "Reads.",
            "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
            "annotations": {"readOnlyHint": true, "openWorldHint": false},
            "icons": [{"src": "https://example.invalid/read.png", "mimeType": "image/png"}],
            "_meta": {"vendor/rank": 3}
        }))
        .unwrap();
        let kept = McpCatalogTool::from_remote(listed);
        assert_eq!(kept.title.as_deref(), Some("Read"));
        assert_eq!(
            kept.output_schema.as_ref().unwrap()["properties"]["text"]["type"],
            "string"
        );
        assert_eq!(kept.annotations.as_ref().unwrap()["openWorldHint"], false);
        assert_eq!(kept.icons.as_ref().unwrap()[0]["mimeType"], "image/png");
        assert_eq!(kept.meta.as_ref().unwrap()["vendor/rank"], 3);
        let hints = kept.hints();
        assert_eq!(
            (hints.read_only, hints.open_world),
            (Some(true), Some(false))
        );
        assert_eq!((hints.destructive, hints.idempotent), (None, None));
        assert_eq!(kept.task_support(), None);
    }

    #[test]
    fn task_support_is_read_from_the_listed_execution_and_odd_words_are_unstated() {
        let mut tool = McpCatalogTool::from_remote(
            serde_json::from_value(json!({"name": "t", "inputSchema": {"type": "object"}}))
                .unwrap(),
        );
        for (execution, expected) in [
            (
                json!({"taskSupport": "required"}),
                Some(TaskSupport::Required),
            ),
            (
                json!({"taskSupport": "optional"}),
                Some(TaskSupport::Optional),
            ),
            (
                json!({"taskSupport": "forbidden"}),
                Some(TaskSupport::Forbidden),
            ),
            (json!({"taskSupport": "sometimes"}), None),
            (json!({"taskSupport": 1}), None),
            (json!({}), None),
        ] {
            tool.execution = Some(execution.clone());
            assert_eq!(tool.task_support(), expected, "{execution}");
        }
        // A hint that is not a boolean stays unstated.
        tool.annotations = Some(json!({"readOnlyHint": "yes", "idempotentHint": true}));
        assert_eq!(tool.hints(), ApiHints::default().idempotent(true));
    }
}
