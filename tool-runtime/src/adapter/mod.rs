//! Adapters that put a computer somewhere else.
//!
//! | adapter | executor | wire |
//! |---|---|---|
//! | [`ForeignComputer`] | anything speaking another dialect (desktop IPC, device daemon) | a [`ForeignProtocol`] mapping over a [`ForeignExecutor`] |
//! | [`RemoteComputer`] | a sandbox, a device, another process | our typed JSON envelopes over any [`Transport`] |

pub mod foreign;
pub mod remote;

pub use foreign::{
    ForeignCall, ForeignComputer, ForeignExecutor, ForeignProtocol, OperationMap, serve_foreign,
};
pub use remote::{RemoteComputer, Transport, serve};
