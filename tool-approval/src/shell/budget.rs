//! The step budget of one parse: every analysis of a command line (each
//! script parsed, including the line itself; each part recovered from text
//! that does not parse; each reading of a part through its wrappers) costs
//! steps, and the line has steps in proportion to its length. Nested
//! constructs that multiply the work (`watch watch … CMD`, scripts inside
//! scripts, wrappers that each run a script) therefore stop after linear
//! work, with [`Hazard::OverBudget`](super::Hazard::OverBudget): the engine
//! answers `limits/step-budget`, which asks, never runs.

/// Steps every line has, whatever its length (small lines with a few
/// nested scripts never reach it).
const BASE_STEPS: usize = 64 * 1024;

/// Steps per byte of the line.
const STEPS_PER_BYTE: usize = 8;

/// What is left of a line's budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct StepBudget {
    left: usize,
}

impl StepBudget {
    /// The budget of a line of `bytes` bytes.
    pub(crate) fn for_input(bytes: usize) -> Self {
        Self {
            left: BASE_STEPS.saturating_add(bytes.saturating_mul(STEPS_PER_BYTE)),
        }
    }

    /// Spends `steps`; false when fewer are left (the budget is then spent:
    /// once out, every later charge fails too).
    pub(crate) fn charge(&mut self, steps: usize) -> bool {
        match self.left.checked_sub(steps) {
            Some(left) => {
                self.left = left;
                true
            }
            None => {
                self.left = 0;
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_grows_with_the_input_and_runs_out() {
        let mut small = StepBudget::for_input(0);
        assert!(small.charge(BASE_STEPS));
        assert!(!small.charge(1));
        let mut big = StepBudget::for_input(1000);
        assert!(big.charge(BASE_STEPS + 8000));
        assert!(!big.charge(1));
    }
}
