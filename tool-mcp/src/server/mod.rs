//! The server half (feature `server`): a tool registry served over MCP.
//!
//! - [`serve`]: [`RegistryServer`](crate::RegistryServer), its options and
//!   its transports (stdio, streamable HTTP).
//! - [`handler`]: the MCP methods it answers; [`listing`]: `tools/list`
//!   pages and cursors; [`call`]: a `tools/call` through the invoker.
//! - [`client_input`]: what a served call asks its client (a session's
//!   requests, 2026-07-28 rounds, a task's input requests); [`gate`]: who
//!   answers an approval ask; [`serve_talk`]: progress and logs to the
//!   client; [`serve_tasks`]: the tasks extension; [`served`]: resources
//!   and prompts; [`wire`]: the server as its transports run it.

pub(crate) mod call;
pub(crate) mod client_input;
pub(crate) mod gate;
pub(crate) mod handler;
pub(crate) mod http_body;
pub(crate) mod listing;
pub(crate) mod serve;
pub(crate) mod serve_talk;
pub(crate) mod serve_tasks;
pub(crate) mod served;
pub(crate) mod wire;
