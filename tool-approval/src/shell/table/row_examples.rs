//! The one reader of the option rows' examples (test builds): every row
//! file lists command lines with how each must read, and checks them
//! through `Invocation::read`, the reader every other reader uses.

use super::Effect;

/// How an example must read.
#[cfg(test)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reads {
    /// Every option listed, none with an effect.
    Harmless,
    /// An option the rows do not list.
    Unknown,
    /// A listed option with this effect.
    Does(Effect),
}

/// How `line` reads through the reader every other reader uses
/// (`Invocation::read`): the rows' examples are checked by it.
#[cfg(test)]
pub(crate) fn reads(line: &str) -> Reads {
    let words: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
    let inv = super::Invocation::read(&words, &[]);
    if let Some(effect) = inv.options.iter().find_map(|o| o.effect) {
        return Reads::Does(effect);
    }
    if inv.unknown.is_some() {
        return Reads::Unknown;
    }
    Reads::Harmless
}

/// The examples that do not read as they say, each with how it read.
#[cfg(test)]
pub(crate) fn misread(examples: &[(&str, Reads)]) -> Vec<String> {
    examples
        .iter()
        .filter(|(line, want)| reads(line) != *want)
        .map(|(line, want)| format!("{line}: want {want:?}, read {:?}", reads(line)))
        .collect()
}
