//! The client half (feature `client`): MCP servers as agent tools.
//!
//! - Configuration: [`config`] (what a host stores per server), [`secret`]
//!   and [`cipher`] (secrets redacted, sealed at rest), [`policy`]
//!   (approval defaults from annotations).
//! - Talking to a server: [`manager`] (one live session per
//!   configuration, discovery, reconnects) with its [`options`] and [`slot`]
//!   (one server's live session and cached catalog), [`session`] (the handshake or
//!   `server/discover`), [`stdio`] with [`line_id`] and [`stderr`] (our
//!   own stdio transport), [`listed_execution`] (what rmcp drops from a
//!   listing), [`http`] (the SSRF guard), [`oauth`] with [`dpop`],
//!   [`remote_talk`] (what the server sends during a call),
//!   [`remote_rounds`] and [`remote_pending`] (multi-round-trip questions,
//!   answered here or kept in the durable turn), [`remote_tasks`] (a call
//!   the server made a task, followed to its end) and [`remote_tasks_2025`]
//!   (the same for a 2025-11-25 server's task tools), [`task_handle`] and
//!   [`task_control`] (a task as data: started, looked at, waited for and
//!   cancelled by handle, in any process), [`abandon`] (the server told
//!   when a caller goes away), [`elicit`].
//! - Tools out of it: [`catalog`] (what a server offers), [`tool`] (a
//!   server as one tool), [`provider`] and [`live`] (loading every server
//!   into a registry and keeping it in step), [`remote_library`]
//!   (resources and prompts), [`remote_skills`] (skills, SEP-2640) and
//!   `skill_source` (those skills as a tool-skills source, feature
//!   `skills`).

pub(crate) mod abandon;
pub(crate) mod catalog;
pub(crate) mod cipher;
pub(crate) mod config;
pub(crate) mod dpop;
pub(crate) mod elicit;
pub(crate) mod http;
pub(crate) mod line_id;
pub(crate) mod listed_execution;
pub(crate) mod live;
pub(crate) mod manager;
pub(crate) mod oauth;
pub(crate) mod oauth_jwt;
pub(crate) mod options;
pub(crate) mod policy;
pub(crate) mod provider;
pub(crate) mod remote_library;
pub(crate) mod remote_pending;
pub(crate) mod remote_rounds;
pub(crate) mod remote_skills;
pub(crate) mod remote_talk;
pub(crate) mod remote_tasks;
pub(crate) mod remote_tasks_2025;
pub(crate) mod secret;
pub(crate) mod session;
#[cfg(feature = "skills")]
pub(crate) mod skill_source;
pub(crate) mod slot;
pub(crate) mod stderr;
pub(crate) mod stdio;
pub(crate) mod task_control;
pub(crate) mod task_handle;
pub(crate) mod timeouts;
pub(crate) mod tool;
