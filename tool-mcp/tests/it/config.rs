//! Configuration parsing, validation and secrets at rest.

use serde_json::json;
use tool_mcp::{Error, McpServerConfig, McpTransport, parse_server_list};

fn field_of(value: serde_json::Value) -> (String, String) {
    match McpServerConfig::from_json(&value).unwrap_err() {
        Error::InvalidConfig { server, field, .. } => (server, field),
        other => panic!("{other}"),
    }
}

#[test]
fn camel_case_configs_parse_and_round_trip() {
    let value = json!({
        "id": "files", "name": "Files",
        "transport": {"type": "stdio", "command": "mcp-files", "args": ["--root", "."], "env": {"KEY": "v"}},
        "startupTimeoutMs": 5000, "callTimeoutMs": 60000, "updatedAt": "2026-12-01T00:00:00Z",
        "approval": {"server": "required", "tools": {"read": "never"}}
    });
    let config = McpServerConfig::from_json(&value).unwrap();
    assert!(config.enabled);
    assert_eq!(config.startup_timeout().as_millis(), 5000);
    assert_eq!(
        serde_json::to_value(&config).unwrap()["transport"]["env"]["KEY"],
        "v"
    );
    assert_eq!(
        McpServerConfig::from_json(&serde_json::to_value(&config).unwrap()).unwrap(),
        config
    );
}

#[test]
fn bad_configs_name_the_server_and_the_field() {
    let stdio =
        |command: &str| json!({"id": "s", "transport": {"type": "stdio", "command": command}});
    assert_eq!(
        field_of(stdio("  ")),
        ("s".into(), "transport.command".into())
    );
    assert_eq!(
        field_of(json!({"id": "h", "transport": {"type": "http", "url": "ftp://x/mcp"}})),
        ("h".into(), "transport.url".into())
    );
    assert_eq!(
        field_of(json!({"id": "h", "transport": {"type": "http", "url": "not a url"}})),
        ("h".into(), "transport.url".into())
    );
    assert_eq!(
        field_of(
            json!({"id": "h", "transport": {"type": "http", "url": "http://127.0.0.1/mcp",
            "headers": {"Mcp-Session-Id": "x"}}})
        ),
        ("h".into(), "transport.headers.Mcp-Session-Id".into())
    );
    assert_eq!(
        field_of(json!({"id": "w", "transport": {"type": "websocket", "url": "ws://x"}})),
        ("w".into(), "transport.type".into())
    );
    assert_eq!(
        field_of(json!({"transport": {"type": "stdio", "command": "x"}})).1,
        "id"
    );
    assert_eq!(
        field_of(json!({"id": "bad id", "transport": {"type": "stdio", "command": "x"}})).1,
        "id"
    );
    assert_eq!(
        field_of(json!({"id": "t", "transport": {"type": "stdio", "command": "x"}, "startupTimeoutMs": 5})).1,
        "startupTimeoutMs"
    );
    assert_eq!(
        field_of(json!({"id": "u", "transport": {"type": "stdio", "command": "x"}, "colour": 1})).1,
        "colour"
    );
}

#[test]
fn a_list_returns_the_good_and_every_bad_entry() {
    let text = r#"{"servers": [
        {"id": "a", "transport": {"type": "stdio", "command": "x"}},
        {"id": "b", "transport": {"type": "http", "url": "file:///etc"}},
        {"id": "a", "transport": {"type": "stdio", "command": "y"}}
    ]}"#;
    let (configs, errors) = parse_server_list(text);
    assert_eq!(configs.len(), 1);
    assert_eq!(errors.len(), 2);
    assert!(errors[1].to_string().contains("duplicate"));
    let (_, errors) = parse_server_list("[{\"id\": ");
    assert!(errors[0].to_string().contains("line 1"));
}

#[test]
fn type_errors_never_echo_a_secret_value() {
    let value =
        json!({"id": "s", "transport": {"type": "stdio", "command": "x", "env": "sk-live-123456"}});
    let error = McpServerConfig::from_json(&value).unwrap_err().to_string();
    assert!(!error.contains("sk-live-123456"), "{error}");
}

#[test]
fn sealed_secrets_refuse_to_connect() {
    let mut config = McpServerConfig::new("s", McpTransport::stdio("x", ["y"]));
    if let McpTransport::Stdio { env, .. } = &mut config.transport {
        env.insert(
            "KEY".into(),
            format!("{}00ff", tool_mcp::SEALED_PREFIX).into(),
        );
    }
    let error = config.ensure_open().unwrap_err();
    assert!(
        matches!(&error, Error::Secret { field, .. } if field == "transport.env.KEY"),
        "{error}"
    );
}

#[cfg(feature = "encryption")]
#[test]
fn secrets_seal_with_xchacha_and_a_wrong_key_fails_loudly() {
    use tool_mcp::XChaChaCipher;
    let mut config = McpServerConfig::new("h", McpTransport::http("https://127.0.0.1/mcp"));
    if let McpTransport::Http { headers, .. } = &mut config.transport {
        headers.insert("Authorization".into(), "Bearer sk-abc-123".into());
    }
    let right = XChaChaCipher::new([7u8; 32]);
    let sealed = config.seal_secrets(&right).unwrap();
    let text = serde_json::to_string(&sealed).unwrap();
    assert!(!text.contains("sk-abc-123"), "{text}");
    assert!(sealed.ensure_open().is_err());
    assert_eq!(sealed.open_secrets(&right).unwrap(), config);
    let wrong = XChaChaCipher::new([8u8; 32]);
    let error = sealed.open_secrets(&wrong).unwrap_err();
    assert!(
        matches!(&error, Error::Secret { field, .. } if field == "transport.headers.Authorization"),
        "{error}"
    );
    assert!(error.to_string().contains("wrong key"));
    // A sealed value moved to another field does not open there.
    let mut moved = sealed.clone();
    if let McpTransport::Http { headers, .. } = &mut moved.transport {
        let value = headers.remove("Authorization").unwrap();
        headers.insert("X-Api-Key".into(), value);
    }
    assert!(moved.open_secrets(&right).is_err());
}
