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

/// Steps the grammar (tree-sitter) may take for one line, all its scripts
/// together, whatever the line's length: about 5 ms of parsing in release
/// (tree-sitter takes some 16 us per hundred operations on shell text), or
/// some 10 KiB of text that is not plain, which leaves the rest of the
/// analysis room under 10 ms (at 48 Ki steps, 3 000 git alias definitions
/// took 11.5 ms). Plain lines of any length take
/// the fast path and never pay this; past it the rest of the line is not
/// read and it names `limits/step-budget` (asks; a deny rule that the
/// unread text holds then asks instead of blocking).
pub(crate) const GRAMMAR_STEPS: usize = 32 * 1024;

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

    /// The grammar's budget of a line (see [`GRAMMAR_STEPS`]).
    pub(crate) fn for_grammar() -> Self {
        Self {
            left: GRAMMAR_STEPS,
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
