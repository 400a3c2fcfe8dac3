//! Remembered "always" answers as scoped, serialisable data.

use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::durable::pending::{PendingItem, Scope};
use crate::error::Error;

/// What one "always" stands for: this API with exactly these arguments,
/// within this scope. Shown to the person before they pick "always"
/// ([`describe`](Self::describe)).
///
/// It never covers a program or a tool across scopes: the scope is the
/// host's pick of keys ([`Durable::with_remember_scope`](crate::durable::Durable::with_remember_scope),
/// e.g. the workspace), and a rule with an empty scope is refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RememberedRule {
    /// The tool's identifier.
    pub tool: String,
    /// The API name.
    pub api: String,
    /// The digest of the exact arguments it covers.
    pub arguments_digest: String,
    /// A short view of those arguments, for people.
    pub arguments_preview: String,
    /// Where it applies: a call in a scope holding all these entries.
    pub scope: Scope,
    /// The gate rule that asked, when one did (for people).
    #[serde(default)]
    pub rule: Option<String>,
}

impl RememberedRule {
    /// The rule an "always" on `item` would record, with the scope
    /// narrowed to `keys` of the item's scope. Fails when `keys` is empty
    /// or names a key the item's scope does not hold.
    pub fn for_item(item: &PendingItem, keys: &[String]) -> Result<Self, Error> {
        if keys.is_empty() {
            return Err(Error::Remembered {
                message:
                    "an \"always\" needs a scope (conversation, workspace, user…): none was picked"
                        .to_owned(),
            });
        }
        let mut scope = Scope::new();
        for key in keys {
            let value = item.binding.scope.get(key).ok_or_else(|| Error::Remembered {
                message: format!(
                    "an \"always\" is scoped by `{key}`, but the turn's scope ({}) has no `{key}`",
                    item.binding.scope
                ),
            })?;
            scope = scope.with(key.clone(), value);
        }
        let mut preview = item.call.arguments.clone();
        if preview.chars().count() > 120 {
            preview = preview.chars().take(117).collect::<String>() + "…";
        }
        Ok(Self {
            tool: item.binding.tool.clone(),
            api: item.binding.api.clone(),
            arguments_digest: item.binding.arguments_digest.clone(),
            arguments_preview: preview,
            scope,
            rule: item.decision.rule.clone(),
        })
    }

    /// The rule in words, for the person about to pick "always".
    pub fn describe(&self) -> String {
        format!(
            "Run {}/{} with exactly these arguments ({}) without asking, in {}.",
            self.tool, self.api, self.arguments_preview, self.scope
        )
    }

    fn covers(&self, tool: &str, api: &str, arguments_digest: &str, scope: &Scope) -> bool {
        !self.scope.is_empty()
            && self.tool == tool
            && self.api == api
            && self.arguments_digest == arguments_digest
            && self.scope.is_within(scope)
    }
}

/// The host's remembered "always" answers: consulted by a durable turn
/// before it keeps an ask pending, exported and imported as JSON so the
/// host stores them with the user or the workspace.
///
/// ```
/// use tool_core::durable::RememberedAnswers;
/// let store = RememberedAnswers::from_json("[]")?;
/// assert!(store.rules().is_empty());
/// assert_eq!(store.to_json(), serde_json::json!([]));
/// # Ok::<(), tool_core::Error>(())
/// ```
#[derive(Debug, Default)]
pub struct RememberedAnswers {
    rules: Mutex<Vec<RememberedRule>>,
}

impl RememberedAnswers {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Loads rules exported by [`to_json`](Self::to_json); a rule with an
    /// empty scope is refused.
    pub fn from_json(text: &str) -> Result<Self, Error> {
        let rules: Vec<RememberedRule> =
            serde_json::from_str(text).map_err(|e| Error::Remembered {
                message: format!("not a list of remembered rules: {e}"),
            })?;
        if let Some(i) = rules.iter().position(|r| r.scope.is_empty()) {
            return Err(Error::Remembered {
                message: format!("rule {i} has no scope; an \"always\" is always scoped"),
            });
        }
        Ok(Self {
            rules: Mutex::new(rules),
        })
    }

    /// Every rule, as JSON.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self.rules()).unwrap_or_default()
    }

    /// Every rule.
    pub fn rules(&self) -> Vec<RememberedRule> {
        self.rules.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// Records `rule` (once).
    pub fn add(&self, rule: RememberedRule) -> Result<(), Error> {
        if rule.scope.is_empty() {
            return Err(Error::Remembered {
                message: "a rule without a scope is refused".to_owned(),
            });
        }
        let mut rules = self.rules.lock().map_err(|_| Error::Remembered {
            message: "the store's lock was poisoned".to_owned(),
        })?;
        if !rules.contains(&rule) {
            rules.push(rule);
        }
        Ok(())
    }

    /// The rule covering a call, when one does.
    pub fn find(
        &self,
        tool: &str,
        api: &str,
        arguments_digest: &str,
        scope: &Scope,
    ) -> Option<RememberedRule> {
        self.rules
            .lock()
            .ok()?
            .iter()
            .find(|r| r.covers(tool, api, arguments_digest, scope))
            .cloned()
    }
}
