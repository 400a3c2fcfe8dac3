//! One problem of a tool manifest, with where it is.

/// One problem of a manifest: where (JSON pointer into the manifest), in
/// which API, and what.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ManifestProblem {
    /// JSON pointer of the field (`/api/2/parameters/type`).
    pub pointer: String,
    /// The API's name, when the problem is inside one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for ManifestProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "at {}", self.pointer)?;
        if let Some(api) = &self.api {
            write!(f, " (api `{api}`)")?;
        }
        write!(f, ": {}", self.message)
    }
}
