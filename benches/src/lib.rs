//! Criterion benches of the tool-layer crates; see `benches/`.

// The README's code blocks compile and run as doc tests of this crate (it
// depends on every crate of the family).
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
