//! Which calls are dispatched to a client executor: a pure function of the
//! manifest and the host's configuration.

use tool_core::{ToolManifest, manifest::Executor};

/// What the host knows about where tools can run.
///
/// Default: no device gateway, no client connected.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RoutingConfig {
    /// A device gateway is configured: client tools go through it (a
    /// remote-device proxy), not through reverse dispatch.
    pub device_gateway: bool,
    /// A client executor is connected to this server now.
    pub client_connected: bool,
}

/// Where a call goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// Run it in the server process.
    Server,
    /// Dispatch it to the client executor and wait for the result.
    Client,
    /// Hand it to the device gateway's proxy.
    DeviceGateway,
}

/// Decides where calls of the tool described by `manifest` go.
///
/// 1. A tool whose `executors` does not include `client` runs on the
///    server (an absent list means server only).
/// 2. With a device gateway configured, client tools go to the gateway.
/// 3. Otherwise a client tool is dispatched to the client when one is
///    connected, and also when the tool cannot run on the server at all
///    (then the dispatch reports `channel_unavailable` rather than running
///    it in the wrong place).
/// 4. A tool that can run on both sides runs on the server while no client
///    is connected.
///
/// ```
/// use tool_core::{ToolManifest, manifest::Executor};
/// use tool_dispatch::{Route, RoutingConfig, route};
/// let mut manifest = ToolManifest::new("local-system");
/// manifest.executors = Some(vec![Executor::Client]);
/// let standalone = RoutingConfig { device_gateway: false, client_connected: true };
/// assert_eq!(route(&manifest, &standalone), Route::Client);
/// let gateway = RoutingConfig { device_gateway: true, ..standalone };
/// assert_eq!(route(&manifest, &gateway), Route::DeviceGateway);
/// ```
pub fn route(manifest: &ToolManifest, config: &RoutingConfig) -> Route {
    let executors = manifest.executors();
    if !executors.contains(&Executor::Client) {
        return Route::Server;
    }
    if config.device_gateway {
        return Route::DeviceGateway;
    }
    if config.client_connected || !executors.contains(&Executor::Server) {
        Route::Client
    } else {
        Route::Server
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(executors: Option<Vec<Executor>>) -> ToolManifest {
        let mut m = ToolManifest::new("t");
        m.executors = executors;
        m
    }

    #[test]
    fn every_combination_routes_as_documented() {
        use Executor::{Client, Server};
        let cases = [
            // executors, gateway, connected, expected
            (None, false, false, Route::Server),
            (None, true, true, Route::Server),
            (Some(vec![Server]), false, true, Route::Server),
            (Some(vec![]), false, true, Route::Server),
            (Some(vec![Client]), false, true, Route::Client),
            (Some(vec![Client]), false, false, Route::Client),
            (Some(vec![Client]), true, true, Route::DeviceGateway),
            (Some(vec![Client]), true, false, Route::DeviceGateway),
            (Some(vec![Client, Server]), false, true, Route::Client),
            (Some(vec![Server, Client]), false, false, Route::Server),
            (
                Some(vec![Client, Server]),
                true,
                false,
                Route::DeviceGateway,
            ),
        ];
        for (executors, device_gateway, client_connected, expected) in cases {
            let config = RoutingConfig {
                device_gateway,
                client_connected,
            };
            assert_eq!(
                route(&manifest(executors.clone()), &config),
                expected,
                "{executors:?} {config:?}"
            );
        }
    }

    #[test]
    fn the_local_system_tool_goes_to_a_connected_client_without_a_gateway() {
        let manifest = tool_runtime::manifest();
        let connected = RoutingConfig {
            device_gateway: false,
            client_connected: true,
        };
        assert_eq!(route(&manifest, &connected), Route::Client);
        assert_eq!(route(&manifest, &RoutingConfig::default()), Route::Server);
    }
}
