//! `identifier/apiName`: the key that names one API of one tool.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::Error;
use crate::validate::is_valid_name;

/// One API of one tool, written `identifier/apiName`: the key of allow lists,
/// approval rules and policy files.
///
/// [`ApiKey::parse`] (and `FromStr`, and deserialisation) accept the written
/// form with strict names on both sides (`[A-Za-z0-9_-]+`), which is what a
/// person types in a policy file; [`ApiKey::new`] takes any pair, for tools
/// named elsewhere (an MCP server's tool names). It serialises as the
/// written form.
///
/// ```
/// use tool_core::ApiKey;
/// let key: ApiKey = "local-system/readFile".parse()?;
/// assert_eq!(key.identifier(), "local-system");
/// assert_eq!(key.api(), "readFile");
/// assert_eq!(key.to_string(), "local-system/readFile");
/// assert_eq!(serde_json::to_value(&key).unwrap(), "local-system/readFile");
/// assert!(ApiKey::parse("readFile").is_err());
/// # Ok::<(), tool_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ApiKey {
    identifier: String,
    api: String,
}

impl ApiKey {
    /// A key for any pair of names (not validated).
    pub fn new(identifier: impl Into<String>, api: impl Into<String>) -> Self {
        Self {
            identifier: identifier.into(),
            api: api.into(),
        }
    }

    /// Parses `identifier/apiName`; each side must be a strict name.
    pub fn parse(text: &str) -> Result<Self, Error> {
        let invalid = |message: &str| Error::InvalidApiKey {
            key: text.to_owned(),
            message: message.to_owned(),
        };
        let (identifier, api) = text
            .split_once('/')
            .ok_or_else(|| invalid("expected `identifier/apiName`"))?;
        if !is_valid_name(identifier) {
            return Err(invalid(
                "the identifier must be non-empty and use only A-Z, a-z, 0-9, `_` and `-`",
            ));
        }
        if !is_valid_name(api) {
            return Err(invalid(
                "the API name must be non-empty and use only A-Z, a-z, 0-9, `_` and `-`",
            ));
        }
        Ok(Self::new(identifier, api))
    }

    /// The tool identifier.
    pub fn identifier(&self) -> &str {
        &self.identifier
    }

    /// The API name.
    pub fn api(&self) -> &str {
        &self.api
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.identifier, self.api)
    }
}

impl FromStr for ApiKey {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self, Error> {
        Self::parse(text)
    }
}

impl Serialize for ApiKey {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ApiKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Self::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_keys_say_which_side_is_wrong() {
        let error = ApiKey::parse("a.b/c").unwrap_err().to_string();
        assert!(error.contains("identifier"), "{error}");
        let error = ApiKey::parse("a/").unwrap_err().to_string();
        assert!(error.contains("API name"), "{error}");
        let error = ApiKey::parse("a/b/c").unwrap_err().to_string();
        assert!(error.contains("API name"), "{error}");
        assert!(serde_json::from_str::<ApiKey>("\"nokey\"").is_err());
        let key: ApiKey = serde_json::from_str("\"t/a\"").unwrap();
        assert_eq!(key, ApiKey::new("t", "a"));
    }
}
