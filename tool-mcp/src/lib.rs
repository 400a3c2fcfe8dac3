//! Placeholder crate of the tool-layer family: `tool-mcp` has no functionality
//! yet. It exists so the workspace shows the architecture; its issue fills it.
//! Nothing here pretends to work.
#![deny(missing_docs)]
