//! Runs the agent example's binary against its fixtures (server-everything
//! installed by `.ci/setup.d/30-mcp.sh`) and reads what reached the model in
//! each provider format.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../../../.ci/fixtures.rs"]
mod setup;

use std::process::Command;

use serde_json::Value;

/// One tool call as the model saw it: its id and name, its result's text
/// and the result's non-text blocks.
#[derive(Debug)]
struct Seen {
    id: String,
    name: String,
    text: String,
    blocks: Vec<Value>,
}

fn run_agent() -> Value {
    setup::ensure("30-mcp.sh");
    let out = Command::new(env!("CARGO_BIN_EXE_agent")).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "agent failed: {stderr}");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"))
}

/// Every call of an OpenAI Chat conversation with its `tool` message, and
/// the `user` attachment messages that follow them.
fn openai_calls(messages: &[Value]) -> Vec<Seen> {
    let mut seen: Vec<Seen> = Vec::new();
    for message in messages {
        match message["role"].as_str().unwrap() {
            "assistant" => seen.extend(message["tool_calls"].as_array().unwrap().iter().map(
                |call| Seen {
                    id: call["id"].as_str().unwrap().to_owned(),
                    name: call["function"]["name"].as_str().unwrap().to_owned(),
                    text: String::new(),
                    blocks: Vec::new(),
                },
            )),
            "tool" => {
                let id = message["tool_call_id"].as_str().unwrap();
                let call = seen.iter_mut().find(|s| s.id == id).unwrap();
                call.text = message["content"].as_str().unwrap().to_owned();
            }
            "user" => {
                let parts = message["content"].as_array().unwrap();
                let header = parts[0]["text"].as_str().unwrap();
                let id = header.trim_start_matches("Attachments of tool call ");
                let id = id.trim_end_matches(':');
                let owner = seen.iter_mut().find(|s| s.id == id);
                let owner =
                    owner.unwrap_or_else(|| panic!("attachments of an unknown call: {header}"));
                owner.blocks.extend(parts[1..].iter().cloned());
            }
            role => panic!("unexpected role {role}"),
        }
    }
    seen
}

/// Every call of an Anthropic conversation with its `tool_result` block.
fn anthropic_calls(messages: &[Value]) -> Vec<Seen> {
    let mut seen: Vec<Seen> = Vec::new();
    for message in messages {
        for block in message["content"].as_array().unwrap() {
            match block["type"].as_str().unwrap() {
                "tool_use" => {
                    seen.push(Seen {
                        id: block["id"].as_str().unwrap().to_owned(),
                        name: block["name"].as_str().unwrap().to_owned(),
                        text: String::new(),
                        blocks: Vec::new(),
                    });
                }
                "tool_result" => {
                    let id = block["tool_use_id"].as_str().unwrap();
                    let call = seen.iter_mut().find(|s| s.id == id).unwrap();
                    match &block["content"] {
                        Value::String(text) => call.text = text.clone(),
                        Value::Array(parts) => {
                            for part in parts {
                                if part["type"] == "text" {
                                    call.text.push_str(part["text"].as_str().unwrap());
                                } else {
                                    call.blocks.push(part.clone());
                                }
                            }
                        }
                        other => panic!("tool_result content {other}"),
                    }
                }
                other => panic!("unexpected block {other}"),
            }
        }
    }
    seen
}

#[test]
fn the_scripted_agent_reaches_every_kind_of_tool_in_both_provider_formats() {
    let conversations = run_agent();
    let formats = [
        ("openai-chat", openai_calls as fn(&[Value]) -> Vec<Seen>),
        ("anthropic", anthropic_calls),
    ];
    for (format, read) in formats {
        let body = &conversations[format];
        // The tools went out in the provider's shape, one per API of each kind.
        let names: Vec<&str> = body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                t["function"]["name"]
                    .as_str()
                    .or(t["name"].as_str())
                    .unwrap()
            })
            .collect();
        for name in [
            "units____convert",
            "local-system____readFile",
            "weather____forecast",
            "skills____activateSkill",
            "everything____get-tiny-image",
        ] {
            assert!(names.contains(&name), "{format}: {name} not in {names:?}");
        }
        // The skills catalog and local-system's guidance reach the model.
        let system = body["system"].as_str().unwrap();
        assert!(system.contains("unit-conversion"), "{format}: {system}");
        assert!(system.contains("local-system"), "{format}: {system}");

        let seen = read(body["messages"].as_array().unwrap());
        let names: Vec<&str> = seen.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "units____convert",
                "units____convert",
                "skills____activateSkill",
                "local-system____readFile",
                "local-system____writeFile",
                "weather____forecast",
                "everything____echo",
                "everything____get-tiny-image",
                "local-system____readFile",
            ],
            "{format}: exactly one result per call, in order"
        );
        let text = |i: usize| seen[i].text.as_str();
        assert!(
            text(0).contains("did you mean `km`?"),
            "{format}: {}",
            text(0)
        );
        assert_eq!(text(1), "6.21", "{format}");
        assert!(
            text(2).starts_with("<skill_content name=\"unit-conversion\""),
            "{format}: {}",
            text(2)
        );
        assert!(
            text(3).contains("buy milk\ncall Ada"),
            "{format}: {}",
            text(3)
        );
        assert!(
            text(4).contains("declined") && text(4).contains("not outside the project"),
            "{format}: {}",
            text(4)
        );
        // The answer came from the local server, through the SSRF guard.
        assert!(
            text(5).contains("Oslo") && text(5).contains("light rain"),
            "{format}: {}",
            text(5)
        );
        assert_eq!(text(6), "Echo: hello from the agent", "{format}");
        assert!(
            text(7).contains("[image: image/png"),
            "{format}: {}",
            text(7)
        );
        // The declined write never ran.
        assert!(text(8).contains("does not exist"), "{format}: {}", text(8));

        // The image itself reaches the model, in the format's own shape.
        let image = seen[7].blocks.first();
        let data = match format {
            "openai-chat" => image.and_then(|b| b["image_url"]["url"].as_str()),
            _ => image.and_then(|b| {
                assert_eq!(b["source"]["media_type"], "image/png");
                b["source"]["data"].as_str()
            }),
        };
        let data = data.unwrap_or_else(|| panic!("{format}: no image block in {seen:?}"));
        assert!(
            data.trim_start_matches("data:image/png;base64,")
                .starts_with("iVBORw0KGgo"),
            "{format}: not a PNG: {}",
            &data[..data.len().min(60)]
        );
        assert!(
            seen.iter()
                .enumerate()
                .all(|(i, s)| i == 7 || s.blocks.is_empty()),
            "{format}: only the image call has attachments"
        );
    }
}
