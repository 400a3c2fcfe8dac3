//! The keyword search of secret redaction: every rule's keywords found in
//! one pass, ASCII case ignored, by a SIMD multi-pattern search (Teddy,
//! from `aho-corasick`'s packed searchers) over a lower-cased copy of the
//! text, one chunk at a time.
//!
//! `aho-corasick` drops its SIMD prefilters when ASCII case is ignored, and
//! a case-insensitive automaton then walks every byte (the larger part of
//! the 25 000 instructions redaction took on the taint bench's 1 KB
//! mailbox listing). The keywords are lower case, so lower-casing the text
//! (a vectorised copy) and searching it case-sensitively finds the same
//! occurrences at the same offsets, at about 6 instructions a byte.

use aho_corasick::Span;
use aho_corasick::packed::{Config, MatchKind, Searcher};

/// How many bytes of text are lower-cased and searched at once (the copy
/// stays small whatever the output's size).
const CHUNK: usize = 4096;

/// The longest keyword this search takes (a longer one, or more keywords
/// than the SIMD search holds, leaves the automaton to do it).
const MAX_KEYWORD: usize = 64;

/// Lower-case keywords, found in text of any ASCII case.
#[derive(Debug, Clone)]
pub(super) struct FoldedKeywords {
    searcher: Searcher,
    /// The longest keyword's length: chunks overlap by one byte less.
    longest: usize,
    /// Bytes per chunk ([`CHUNK`]; less in the tests, to cross many
    /// chunk edges).
    chunk: usize,
}

impl FoldedKeywords {
    /// The search for `words` (each non-empty and lower case, in pattern
    /// order), or `None` when they do not fit it: none, one longer than
    /// [`MAX_KEYWORD`], more than the SIMD search holds, or no SIMD on
    /// this machine.
    pub(super) fn new(words: &[String]) -> Option<Self> {
        let longest = words.iter().map(String::len).max()?;
        if longest > MAX_KEYWORD || words.iter().any(|w| w.is_empty()) {
            return None;
        }
        let searcher = Config::new()
            .match_kind(MatchKind::LeftmostFirst)
            .builder()
            .extend(words)
            .build()?;
        Some(Self {
            searcher,
            longest,
            chunk: CHUNK,
        })
    }

    /// The same search, `chunk` bytes at a time (tests).
    #[cfg(test)]
    pub(super) fn with_chunk(mut self, chunk: usize) -> Self {
        self.chunk = chunk.max(1);
        self
    }

    /// Calls `hit(pattern, start, end)` for keyword occurrences in `text`,
    /// earliest first and not overlapping one another, such that every
    /// occurrence not reported starts inside one reported (what the
    /// redactor's opening of overlapping keywords' rules relies on).
    /// Linear in the text's length.
    pub(super) fn each(&self, text: &[u8], hit: &mut impl FnMut(usize, usize, usize)) {
        let overlap = self.longest - 1;
        let mut folded: Vec<u8> = Vec::with_capacity(text.len().min(self.chunk) + overlap);
        // No occurrence is reported starting before `next`.
        let mut next = 0;
        let mut chunk = 0;
        while chunk < text.len() {
            // Occurrences starting in `chunk..chunk_end` are reported
            // here; each ends by `window_end`.
            let chunk_end = (chunk + self.chunk).min(text.len());
            let window_end = (chunk_end + overlap).min(text.len());
            if next < chunk_end {
                let window = text.get(chunk..window_end).unwrap_or_default();
                folded.clear();
                folded.resize(window.len(), 0);
                lower_into(&mut folded, window);
                let mut at = next - chunk;
                while at < folded.len() {
                    let Some(found) = self.searcher.find_in(&folded, Span::from(at..folded.len()))
                    else {
                        break;
                    };
                    if chunk + found.start() >= chunk_end {
                        break;
                    }
                    hit(
                        found.pattern().as_usize(),
                        chunk + found.start(),
                        chunk + found.end(),
                    );
                    // Keywords are not empty: the search moves on.
                    at = found.end().max(at + 1);
                }
                next = (chunk + at).max(chunk_end);
            }
            chunk = chunk_end;
        }
    }
}

/// `to` = `from` lower-cased (ASCII), the slices of equal length: a loop
/// the compiler turns into vector instructions wherever it is inlined
/// (an `extend` of a mapped iterator was, in one build, left a byte at a
/// time: 6 instructions a byte).
#[inline(never)]
fn lower_into(to: &mut [u8], from: &[u8]) {
    for (t, f) in to.iter_mut().zip(from) {
        *t = f.to_ascii_lowercase();
    }
}
