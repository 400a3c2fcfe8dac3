//! The result of one call: compact text for the model, structured state for a UI.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What one call produced. Every call yields exactly one of these.
///
/// `content` is what the model reads; `state` is the full structured value a
/// UI renders; a failed call has `success: false` and an [`ToolError`] with a
/// stable machine code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolOutput {
    /// Compact text for the model.
    pub content: String,
    /// Full structured value for a UI.
    #[serde(default)]
    pub state: Option<Value>,
    /// Whether the call did what was asked.
    pub success: bool,
    /// Why it did not, when it did not.
    #[serde(default)]
    pub error: Option<ToolError>,
}

impl ToolOutput {
    /// A successful output with text content and no state.
    pub fn text(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            state: None,
            success: true,
            error: None,
        }
    }

    /// A successful output with content and state.
    pub fn with_state(content: impl Into<String>, state: Value) -> Self {
        Self {
            content: content.into(),
            state: Some(state),
            success: true,
            error: None,
        }
    }

    /// A failed output whose content is the error's message.
    pub fn failure(error: ToolError) -> Self {
        Self {
            content: error.message.clone(),
            state: None,
            success: false,
            error: Some(error),
        }
    }

    /// Replaces the state, keeping everything else.
    pub fn state(mut self, state: Value) -> Self {
        self.state = Some(state);
        self
    }

    /// The error code, if the call failed with one.
    pub fn error_code(&self) -> Option<&ErrorCode> {
        self.error.as_ref().map(|e| &e.code)
    }

    /// Whether the call succeeded: `success` set *and* no error. Prefer this
    /// to reading the field on outputs that did not come through the
    /// [`Invoker`](crate::Invoker) (which normalises them).
    pub fn is_success(&self) -> bool {
        self.success && self.error.is_none()
    }

    /// The error, when the call failed.
    pub fn error(&self) -> Option<&ToolError> {
        self.error.as_ref()
    }

    /// Whether `success` and `error` agree (success without error, or
    /// failure with one).
    pub fn is_consistent(&self) -> bool {
        self.success == self.error.is_none()
    }

    /// Makes `success` and `error` agree; the [`Invoker`](crate::Invoker)
    /// applies this to every output, so the fields can be trusted downstream.
    ///
    /// 1. An error present means the call failed: `success` becomes `false`.
    /// 2. `success: false` without an error gets an `execution_failed` error
    ///    whose message is the content (or, for empty content, a generic
    ///    message that then also becomes the content).
    ///
    /// ```
    /// use tool_core::{ToolError, ToolOutput};
    /// let mut out = ToolOutput::text("done");
    /// out.error = Some(ToolError::execution_failed("disk full"));
    /// let out = out.normalized();
    /// assert!(!out.success && out.is_consistent());
    ///
    /// let mut out = ToolOutput::text("could not reach the printer");
    /// out.success = false;
    /// let out = out.normalized();
    /// assert_eq!(out.error_code().unwrap(), "execution_failed");
    /// assert_eq!(out.error().unwrap().message, "could not reach the printer");
    /// ```
    pub fn normalized(mut self) -> Self {
        if self.error.is_some() {
            self.success = false;
        } else if !self.success {
            if self.content.trim().is_empty() {
                self.content = "The tool reported a failure without saying why.".to_owned();
            }
            self.error = Some(ToolError::execution_failed(self.content.clone()));
        }
        self
    }
}

impl From<ToolError> for ToolOutput {
    fn from(error: ToolError) -> Self {
        Self::failure(error)
    }
}

/// A typed, serialisable failure of a call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ToolError {
    /// Stable machine code, see [`ErrorCode`].
    pub code: ErrorCode,
    /// Human- and model-readable explanation, ideally saying what to do next.
    pub message: String,
    /// Structured details (the offending input, its location, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

impl ToolError {
    /// An error with a code and a message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            details: None,
        }
    }

    /// An `execution_failed` error: the tool ran and could not do the job.
    pub fn execution_failed(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::EXECUTION_FAILED, message)
    }

    /// Attaches structured details.
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    /// An `executor_panic` error for a panic caught while `what` ran (the
    /// payload of `catch_unwind` or of a panicked task's `JoinError`): the
    /// message is `"{what}: {the panic's text}"`.
    ///
    /// ```
    /// let payload = std::panic::catch_unwind(|| panic!("index out of range")).unwrap_err();
    /// let error = tool_core::ToolError::from_panic("`files/read` crashed", payload.as_ref());
    /// assert_eq!(error.code, tool_core::ErrorCode::EXECUTOR_PANIC);
    /// assert_eq!(error.message, "`files/read` crashed: index out of range");
    /// ```
    pub fn from_panic(what: impl std::fmt::Display, payload: &(dyn std::any::Any + Send)) -> Self {
        let text = if let Some(s) = payload.downcast_ref::<&str>() {
            s
        } else if let Some(s) = payload.downcast_ref::<String>() {
            s.as_str()
        } else {
            "the tool panicked"
        };
        Self::new(ErrorCode::EXECUTOR_PANIC, format!("{what}: {text}"))
    }
}

/// A stable, machine-readable error code (`snake_case`).
///
/// The codes the pipeline itself produces are associated constants; capability
/// crates define their own with [`ErrorCode::new`] (for example
/// `file_not_found`), and a code never changes meaning once published.
///
/// | code | meaning |
/// |---|---|
/// | `tool_not_found` | the name names no offered tool |
/// | `unknown_api` | the tool exists but has no such API (or hides it here) |
/// | `ambiguous_tool_name` | a bare API name matches several offered tools |
/// | `truncated_arguments` | the arguments JSON was cut off |
/// | `invalid_arguments_json` | the arguments are not JSON (or not an object) |
/// | `invalid_arguments` | the arguments violate the API's schema |
/// | `timeout` | the call ran past its time budget |
/// | `cancelled` | the host cancelled the call |
/// | `executor_panic` | the tool panicked |
/// | `execution_failed` | the tool ran and reported a failure |
/// | `blocked_by_security_privacy` | approval blocked the call; it never ran ([`ToolOutput::blocked`]) |
/// | `declined_by_user` | a person declined the call; it never ran ([`ToolOutput::declined`]) |
/// | `approval_required` | the call needs a person and none could be asked ([`ToolOutput::approval_required`]) |
/// | `confinement_refused` | the call's confinement refused an operation |
/// | `approval_stale` | a resumed answer no longer fits its call (arguments, manifest, policy, scope or expiry); it did not run |
/// | `approval_used` | a resumed approval was already used; it did not run again |
/// | `approval_interrupted` | a resumed approval was claimed by a process that never started the call; not run again |
/// | `approval_ledger_unavailable` | the use-once ledger could not be reached; the call did not run |
/// | `input_required` | the tool asks questions before it can finish |
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ErrorCode(Cow<'static, str>);

impl ErrorCode {
    /// The name names no offered tool.
    pub const TOOL_NOT_FOUND: Self = Self::from_static("tool_not_found");
    /// The tool exists but has no such API in this context.
    pub const UNKNOWN_API: Self = Self::from_static("unknown_api");
    /// A bare API name matches more than one offered tool.
    pub const AMBIGUOUS_TOOL_NAME: Self = Self::from_static("ambiguous_tool_name");
    /// The arguments JSON was cut off (unbalanced brackets or an open string).
    pub const TRUNCATED_ARGUMENTS: Self = Self::from_static("truncated_arguments");
    /// The arguments are not valid JSON, or not a JSON object.
    pub const INVALID_ARGUMENTS_JSON: Self = Self::from_static("invalid_arguments_json");
    /// The arguments violate the API's JSON Schema.
    pub const INVALID_ARGUMENTS: Self = Self::from_static("invalid_arguments");
    /// The API's arguments schema cannot be compiled, so no call can be
    /// checked: a [checked](crate::pipeline::CompiledSchema::checked) schema whose
    /// compilation on first use failed. The tool was not run.
    pub const SCHEMA_UNUSABLE: Self = Self::from_static("schema_unusable");
    /// The call ran past its time budget.
    pub const TIMEOUT: Self = Self::from_static("timeout");
    /// The call was cancelled by the host.
    pub const CANCELLED: Self = Self::from_static("cancelled");
    /// The tool panicked.
    pub const EXECUTOR_PANIC: Self = Self::from_static("executor_panic");
    /// The tool ran and reported a failure.
    pub const EXECUTION_FAILED: Self = Self::from_static("execution_failed");
    /// Approval blocked the call (headless mode, a `deny` policy, the
    /// blacklist); the call never ran. Produced by `tool-approval`.
    pub const BLOCKED_BY_SECURITY_PRIVACY: Self = Self::from_static("blocked_by_security_privacy");
    /// A person was asked and declined the call; it never ran.
    pub const DECLINED_BY_USER: Self = Self::from_static("declined_by_user");
    /// The call needs a person's approval and no one could be asked (no
    /// asker, or no answer before the deadline); it never ran.
    pub const APPROVAL_REQUIRED: Self = Self::from_static("approval_required");
    /// The call's confinement refused an operation (a write outside the
    /// writable roots, a protected or secret path).
    pub const CONFINEMENT_REFUSED: Self = Self::from_static("confinement_refused");

    /// A resumed approval or answer no longer fits its call: the arguments,
    /// the tool's manifest, the gate's policy or the host's scope changed,
    /// or it expired. The call did not run; `details.part` names what
    /// changed (see `tool_core::durable`).
    pub const APPROVAL_STALE: Self = Self::from_static("approval_stale");
    /// A resumed approval was already used (another resume ran or settled
    /// the call); it did not run again.
    pub const APPROVAL_USED: Self = Self::from_static("approval_used");
    /// A resumed approval was claimed by another resume that has not
    /// recorded the call as started (starting it now, or crashed in
    /// between); not run here.
    pub const APPROVAL_INTERRUPTED: Self = Self::from_static("approval_interrupted");
    /// The use-once ledger could not be reached; the approved call did not
    /// run.
    pub const APPROVAL_LEDGER_UNAVAILABLE: Self = Self::from_static("approval_ledger_unavailable");
    /// The tool needs answers to its questions before it can finish (see
    /// `ToolOutput::input_required`); a durable turn keeps it pending.
    pub const INPUT_REQUIRED: Self = Self::from_static("input_required");

    /// A code known at compile time.
    pub const fn from_static(code: &'static str) -> Self {
        Self(Cow::Borrowed(code))
    }

    /// A code made at run time (for example read from a remote executor).
    pub fn new(code: impl Into<Cow<'static, str>>) -> Self {
        Self(code.into())
    }

    /// The code as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<str> for ErrorCode {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for ErrorCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}
