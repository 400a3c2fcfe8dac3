//! Parameter serialisation, cell by cell: style × explode × location ×
//! type, each checked as it arrives at the echo server. The expected wire
//! forms are the OpenAPI 3.1.1 specification's style examples for
//! `color` = `"blue"`, `["blue", "black", "brown"]` and
//! `{"R": 100, "G": 200, "B": 150}`.

use serde_json::{Value, json};
use tool_core::{Invoker, ToolCall, ToolContext, ToolRegistry, manifest::NameRules};
use tool_openapi::{ImportOptions, OpenApiTool, SsrfGuard, SsrfPolicy, import_openapi};

use crate::common;

/// One cell: where, which style and explode, the value, what arrives.
struct Cell {
    location: &'static str,
    style: &'static str,
    explode: bool,
    value: Value,
    /// The path segment, the query, the header value or the cookie line.
    wire: Option<&'static str>,
    required: bool,
    /// `allowEmptyValue: true` (query only).
    allow_empty: bool,
}

fn string() -> Value {
    json!("blue")
}
fn array() -> Value {
    json!(["blue", "black", "brown"])
}
fn object() -> Value {
    json!({"R": 100, "G": 200, "B": 150})
}

fn cell(
    location: &'static str,
    style: &'static str,
    explode: bool,
    value: Value,
    wire: &'static str,
) -> Cell {
    Cell {
        location,
        style,
        explode,
        value,
        wire: Some(wire),
        required: false,
        allow_empty: false,
    }
}

fn cells() -> Vec<Cell> {
    let mut cells = vec![
        // path × simple / label / matrix
        cell("path", "simple", false, string(), "blue"),
        cell("path", "simple", false, array(), "blue,black,brown"),
        cell("path", "simple", false, object(), "R,100,G,200,B,150"),
        cell("path", "simple", true, string(), "blue"),
        cell("path", "simple", true, array(), "blue,black,brown"),
        cell("path", "simple", true, object(), "R=100,G=200,B=150"),
        cell("path", "label", false, string(), ".blue"),
        cell("path", "label", false, array(), ".blue,black,brown"),
        cell("path", "label", false, object(), ".R,100,G,200,B,150"),
        cell("path", "label", true, string(), ".blue"),
        cell("path", "label", true, array(), ".blue.black.brown"),
        cell("path", "label", true, object(), ".R=100.G=200.B=150"),
        cell("path", "matrix", false, string(), ";color=blue"),
        cell("path", "matrix", false, array(), ";color=blue,black,brown"),
        cell(
            "path",
            "matrix",
            false,
            object(),
            ";color=R,100,G,200,B,150",
        ),
        cell("path", "matrix", true, string(), ";color=blue"),
        cell(
            "path",
            "matrix",
            true,
            array(),
            ";color=blue;color=black;color=brown",
        ),
        cell("path", "matrix", true, object(), ";R=100;G=200;B=150"),
        // query × form / spaceDelimited / pipeDelimited / deepObject
        cell("query", "form", false, string(), "color=blue"),
        cell("query", "form", false, array(), "color=blue,black,brown"),
        cell("query", "form", false, object(), "color=R,100,G,200,B,150"),
        cell("query", "form", true, string(), "color=blue"),
        cell(
            "query",
            "form",
            true,
            array(),
            "color=blue&color=black&color=brown",
        ),
        cell("query", "form", true, object(), "R=100&G=200&B=150"),
        cell("query", "spaceDelimited", false, string(), "color=blue"),
        cell(
            "query",
            "spaceDelimited",
            false,
            array(),
            "color=blue%20black%20brown",
        ),
        cell(
            "query",
            "spaceDelimited",
            false,
            object(),
            "color=R%20100%20G%20200%20B%20150",
        ),
        cell(
            "query",
            "spaceDelimited",
            true,
            array(),
            "color=blue&color=black&color=brown",
        ),
        cell("query", "pipeDelimited", false, string(), "color=blue"),
        cell(
            "query",
            "pipeDelimited",
            false,
            array(),
            "color=blue|black|brown",
        ),
        cell(
            "query",
            "pipeDelimited",
            false,
            object(),
            "color=R|100|G|200|B|150",
        ),
        cell(
            "query",
            "pipeDelimited",
            true,
            array(),
            "color=blue&color=black&color=brown",
        ),
        cell(
            "query",
            "deepObject",
            true,
            object(),
            "color[R]=100&color[G]=200&color[B]=150",
        ),
        cell(
            "query",
            "deepObject",
            true,
            json!({"a": {"b": "x y"}}),
            "color[a][b]=x%20y",
        ),
        // header × simple
        cell("header", "simple", false, string(), "blue"),
        cell("header", "simple", false, array(), "blue,black,brown"),
        cell("header", "simple", false, object(), "R,100,G,200,B,150"),
        cell("header", "simple", true, string(), "blue"),
        cell("header", "simple", true, array(), "blue,black,brown"),
        cell("header", "simple", true, object(), "R=100,G=200,B=150"),
        // cookie × form
        cell("cookie", "form", false, string(), "color=blue"),
        cell("cookie", "form", false, array(), "color=blue,black,brown"),
        cell("cookie", "form", false, object(), "color=R,100,G,200,B,150"),
        cell("cookie", "form", true, string(), "color=blue"),
        cell(
            "cookie",
            "form",
            true,
            array(),
            "color=blue; color=black; color=brown",
        ),
        cell("cookie", "form", true, object(), "R=100; G=200; B=150"),
        // empty values: `color=` as the style says
        cell("query", "form", false, json!([]), "color="),
        cell("query", "pipeDelimited", false, json!([]), "color="),
        cell("cookie", "form", false, json!(""), "color="),
        // encoding: a value's delimiters are encoded, the style's are not
        cell(
            "path",
            "simple",
            false,
            json!(["a,b", "c/d"]),
            "a%2Cb,c%2Fd",
        ),
        cell(
            "query",
            "form",
            false,
            json!(["a,b", "c&d"]),
            "color=a%2Cb,c%26d",
        ),
        cell("query", "form", true, json!({"k y": "v&w"}), "k%20y=v%26w"),
        cell("cookie", "form", false, json!("a b;c"), "color=a%20b%3Bc"),
    ];
    // A required empty array not exploded is sent as `color=`; an
    // optional exploded one is not sent; a required exploded one is `color=`.
    cells.push(Cell {
        required: true,
        ..cell("query", "form", false, json!([]), "color=")
    });
    cells.push(Cell {
        wire: None,
        ..cell("query", "form", true, json!([]), "")
    });
    cells.push(Cell {
        required: true,
        ..cell("query", "form", true, json!([]), "color=")
    });
    // An empty query string: `color=` where the document allows it
    // (`allowEmptyValue`), or the parameter is required and its schema
    // lists `""`; an optional one without `allowEmptyValue` is not sent.
    cells.push(Cell {
        allow_empty: true,
        ..cell("query", "form", false, json!(""), "color=")
    });
    cells.push(Cell {
        allow_empty: true,
        required: true,
        ..cell("query", "form", true, json!(""), "color=")
    });
    cells.push(Cell {
        wire: None,
        ..cell("query", "form", false, json!(""), "")
    });
    cells.push(Cell {
        wire: None,
        ..cell("query", "form", true, json!(""), "")
    });
    cells
}

fn schema_of(value: &Value) -> Value {
    match value {
        Value::Array(_) => json!({"type": "array", "items": {}}),
        Value::Object(_) => json!({"type": "object"}),
        _ => json!({"type": "string"}),
    }
}

fn document(addr: std::net::SocketAddr, cells: &[Cell]) -> String {
    let mut paths = serde_json::Map::new();
    for (index, cell) in cells.iter().enumerate() {
        let name = if cell.location == "header" {
            "X-Color"
        } else {
            "color"
        };
        let path = if cell.location == "path" {
            format!("/cell/{index}/{{color}}")
        } else {
            format!("/cell/{index}")
        };
        paths.insert(
            path,
            json!({"get": {
                "operationId": format!("c{index}"),
                "parameters": [{
                    "name": name, "in": cell.location, "style": cell.style,
                    "explode": cell.explode, "required": cell.required || cell.location == "path",
                    "allowEmptyValue": cell.allow_empty,
                    "schema": schema_of(&cell.value)
                }],
                "responses": {"200": {"description": "ok"}}
            }}),
        );
    }
    json!({
        "openapi": "3.1.0",
        "info": {"title": "Styles", "version": "1"},
        "servers": [{"url": format!("http://{addr}")}],
        "paths": paths
    })
    .to_string()
}

#[tokio::test]
async fn every_style_explode_location_and_type_cell_arrives_as_the_specification_writes_it() {
    let addr = common::start().await;
    let cells = cells();
    let import = import_openapi(&document(addr, &cells), &ImportOptions::new()).unwrap();
    assert!(import.failures.is_empty(), "{:?}", import.failures);
    let tool = OpenApiTool::builder(import.document, "styles")
        .guard(SsrfGuard::new(
            SsrfPolicy::default().allow("127.0.0.1").unwrap(),
        ))
        .build()
        .unwrap();
    let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
    registry.register(tool).unwrap();
    let mut wrong = Vec::new();
    for (index, cell) in cells.iter().enumerate() {
        let name = if cell.location == "header" {
            "X-Color"
        } else {
            "color"
        };
        let call = ToolCall::new(
            format!("styles____c{index}"),
            json!({ name: cell.value }).to_string(),
        );
        let out = Invoker::default()
            .invoke_in(&registry, &call, &ToolContext::new())
            .await;
        assert!(out.success, "cell {index}: {out:?}");
        let echo = common::body_of(&out);
        let arrived = match cell.location {
            "path" => echo["path"]
                .as_str()
                .and_then(|p| p.strip_prefix(&format!("/cell/{index}/")))
                .map(str::to_owned),
            "query" => echo["query"].as_str().map(str::to_owned),
            "header" => echo["headers"]["x-color"].as_str().map(str::to_owned),
            _ => echo["headers"]["cookie"].as_str().map(str::to_owned),
        };
        if arrived.as_deref() != cell.wire {
            wrong.push(format!(
                "cell {index} ({} {} explode={} {}): expected {:?}, arrived {:?}",
                cell.location, cell.style, cell.explode, cell.value, cell.wire, arrived
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[tokio::test]
async fn path_header_and_required_query_arguments_refuse_in_the_schema_what_sending_refuses() {
    let addr = common::start().await;
    let cells = vec![
        cell("path", "simple", false, string(), "blue"),
        cell("path", "simple", false, array(), "blue"),
        cell("header", "simple", false, string(), "blue"),
        // Required, no `allowEmptyValue`: an empty value is not the
        // document's.
        Cell {
            required: true,
            ..cell("query", "form", false, string(), "color=blue")
        },
    ];
    let import = import_openapi(&document(addr, &cells), &ImportOptions::new()).unwrap();
    let tool = OpenApiTool::builder(import.document, "styles")
        .guard(SsrfGuard::new(
            SsrfPolicy::default().allow("127.0.0.1").unwrap(),
        ))
        .build()
        .unwrap();
    let manifest = tool_core::Tool::manifest(&tool).clone();
    let string_schema = manifest.api[0].parameters_schema();
    assert_eq!(
        string_schema["properties"]["color"]["minLength"], 1,
        "{string_schema}"
    );
    let array_schema = manifest.api[1].parameters_schema();
    assert_eq!(
        array_schema["properties"]["color"]["minItems"], 1,
        "{array_schema}"
    );
    // A header string says what a header can carry.
    let header_schema = manifest.api[2].parameters_schema();
    assert!(
        header_schema["properties"]["X-Color"]["pattern"].is_string(),
        "{header_schema}"
    );
    let query_schema = manifest.api[3].parameters_schema();
    assert_eq!(
        query_schema["properties"]["color"]["minLength"], 1,
        "{query_schema}"
    );
    let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
    registry.register(tool).unwrap();
    for (api, name, bad) in [
        ("c0", "color", json!("")),
        ("c1", "color", json!([])),
        ("c2", "X-Color", json!("caf\u{e9}")),
        ("c2", "X-Color", json!("a\r\nInjected: 1")),
        ("c3", "color", json!("")),
    ] {
        let call = ToolCall::new(format!("styles____{api}"), json!({ name: bad }).to_string());
        let out = Invoker::default()
            .invoke_in(&registry, &call, &ToolContext::new())
            .await;
        assert_eq!(out.error_code().unwrap(), "invalid_arguments", "{out:?}");
        // Refused by the schema, before the tool: the model is told where.
        assert!(out.content.contains(name), "{}", out.content);
    }
}
