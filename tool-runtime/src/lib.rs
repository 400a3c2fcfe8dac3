//! `tool-runtime`: being built; nothing here pretends to work yet.
#![deny(missing_docs)]
