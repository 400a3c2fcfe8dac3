//! The outcome of a batch of calls: every output, and what succeeded.

use crate::output::ToolOutput;

/// The outputs of a batch, one per call in input order, with the partial
/// outcome spelled out: which calls succeeded, which failed.
///
/// ```
/// use tool_core::{BatchOutcome, ToolError, ToolOutput};
/// let outcome = BatchOutcome::new(vec![
///     ToolOutput::text("ok"),
///     ToolOutput::failure(ToolError::execution_failed("no")),
/// ]);
/// assert!(outcome.is_partial());
/// assert_eq!(outcome.failed().map(|(i, _)| i).collect::<Vec<_>>(), [1]);
/// assert_eq!((outcome.success_count(), outcome.failure_count()), (1, 1));
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BatchOutcome {
    outputs: Vec<ToolOutput>,
}

impl BatchOutcome {
    /// Wraps outputs (input order).
    pub fn new(outputs: Vec<ToolOutput>) -> Self {
        Self { outputs }
    }

    /// Every output, in input order.
    pub fn outputs(&self) -> &[ToolOutput] {
        &self.outputs
    }

    /// The outputs, to hand to [`ProviderFormat::tool_results`](crate::ProviderFormat::tool_results).
    pub fn into_outputs(self) -> Vec<ToolOutput> {
        self.outputs
    }

    /// `(index, output)` of each call that succeeded.
    pub fn succeeded(&self) -> impl Iterator<Item = (usize, &ToolOutput)> {
        self.outputs
            .iter()
            .enumerate()
            .filter(|(_, o)| o.is_success())
    }

    /// `(index, output)` of each call that failed.
    pub fn failed(&self) -> impl Iterator<Item = (usize, &ToolOutput)> {
        self.outputs
            .iter()
            .enumerate()
            .filter(|(_, o)| !o.is_success())
    }

    /// How many calls succeeded.
    pub fn success_count(&self) -> usize {
        self.succeeded().count()
    }

    /// How many calls failed.
    pub fn failure_count(&self) -> usize {
        self.outputs.len() - self.success_count()
    }

    /// Whether every call succeeded (true for an empty batch).
    pub fn is_complete(&self) -> bool {
        self.failure_count() == 0
    }

    /// Whether some calls succeeded and some failed.
    pub fn is_partial(&self) -> bool {
        let ok = self.success_count();
        ok > 0 && ok < self.outputs.len()
    }
}
