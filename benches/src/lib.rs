//! Criterion benches of the tool-layer crates; see `benches/`.
