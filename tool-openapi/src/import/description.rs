//! Descriptions a model reads (of operations, parameters and bodies), cut
//! to a length a tool listing can carry.

/// The longest description kept for the model.
const MAX_DESCRIPTION_CHARS: usize = 1_000;

/// `text`, or its first characters and `…` when it is longer than
/// [`MAX_DESCRIPTION_CHARS`].
pub(crate) fn short(text: &str) -> String {
    if text.chars().count() <= MAX_DESCRIPTION_CHARS {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(MAX_DESCRIPTION_CHARS - 1).collect();
    out.push('…');
    out
}
