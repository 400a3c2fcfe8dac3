//! Size and time bounds of the import: shared `$defs`, the tool size
//! budget (never a silent loss), the operation filter applied before any
//! schema is built; on synthetic documents shaped like the worst public
//! ones and on the GitHub REST description.

use std::path::PathBuf;

use serde_json::{Value, json};
use tool_openapi::{
    DEFAULT_MAX_TOOL_CHARS, ImportOptions, Method, api_definition, compile_manifest,
    import_openapi, import_value,
};

use crate::common::synthetic;
use crate::setup;

/// The size a model receives for one operation (its API definition's JSON).
fn tool_size(op: &tool_openapi::Operation) -> usize {
    serde_json::to_string(&api_definition(op)).unwrap().len()
}

#[test]
fn a_docusign_shaped_document_fits_every_tool_to_the_budget_and_says_what_it_cut() {
    let document = synthetic::Shape::docusign_like().document();
    let import = import_value(&document, &ImportOptions::new()).unwrap();
    assert!(import.failures.is_empty(), "{:?}", import.failures.first());
    assert!(import.document.operations.len() > 300);
    assert!(!import.shortened.is_empty());
    for op in &import.document.operations {
        let size = tool_size(op);
        // The budget counts schema and description; the API definition adds
        // its name and a few keys around them.
        let announced = import
            .shortened
            .iter()
            .find(|s| s.operation_id == op.operation_id);
        assert!(
            size <= DEFAULT_MAX_TOOL_CHARS + 400 || announced.is_some_and(|s| !s.fits()),
            "{} is {size} bytes, unannounced",
            op.operation_id
        );
    }
    for cost in &import.shortened {
        assert!(cost.before > cost.budget);
        assert!(cost.fits(), "{}", cost.summary());
        // Said once, where the operation is.
        let warning = import
            .warnings
            .iter()
            .find(|w| w.pointer == cost.pointer && w.message.contains("over the tool budget"))
            .unwrap_or_else(|| panic!("no warning for {}", cost.operation_id));
        assert!(warning.message.contains(&cost.before.to_string()));
        if !cost.cut_definitions.is_empty() {
            assert!(warning.message.contains(&cost.cut_definitions[0]));
            // A cut definition is `{}`: it accepts anything, never refuses a call.
            let op = import.document.operation(&cost.operation_id).unwrap();
            assert_eq!(op.definitions[&cost.cut_definitions[0]], json!({}));
        }
    }
    // Everything still compiles into one manifest.
    compile_manifest(&import.document, "docusign").unwrap();
}

#[test]
fn shortened_tools_share_their_definitions_without_descriptions_and_own_only_what_they_cut() {
    let document = synthetic::Shape::docusign_like().document();
    let import = import_value(&document, &ImportOptions::new()).unwrap();
    let shortened: Vec<&tool_openapi::Operation> = import
        .shortened
        .iter()
        .map(|cost| import.document.operation(&cost.operation_id).unwrap())
        .collect();
    assert!(shortened.len() > 10);
    // One set for every shortened tool that still reaches definitions
    // whole, and not the set of the tools within their budget.
    let plain = shortened
        .iter()
        .map(|op| &op.shared_definitions)
        .find(|defs| !defs.is_empty())
        .unwrap();
    let whole = import
        .document
        .operations
        .iter()
        .filter(|op| {
            !import
                .shortened
                .iter()
                .any(|s| s.operation_id == op.operation_id)
        })
        .map(|op| &op.shared_definitions)
        .find(|defs| !defs.is_empty())
        .unwrap();
    assert!(!plain.same_as(whole));
    for (name, definition) in plain.iter() {
        let mut described = false;
        fn walk(value: &Value, found: &mut bool) {
            match value {
                Value::Object(map) => {
                    *found |= map.get("description").is_some_and(Value::is_string)
                        && map.contains_key("type");
                    map.values().for_each(|v| walk(v, found));
                }
                Value::Array(items) => items.iter().for_each(|v| walk(v, found)),
                _ => {}
            }
        }
        walk(definition, &mut described);
        assert!(!described, "{name} keeps a description");
    }
    for op in &shortened {
        assert!(op.shared_definitions.is_empty() || op.shared_definitions.same_as(plain));
        // Of its own, only `{}` for what it cut.
        assert!(
            op.definitions.values().all(|d| *d == json!({})),
            "{}",
            op.operation_id
        );
        // Written out, every definition its schema points at is there.
        let schema = tool_openapi::parameters_schema(op);
        let text = schema.to_string();
        for name in schema["$defs"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(n, _)| n)
        {
            assert!(text.contains(&format!("#/$defs/{name}")), "{name}");
        }
    }
}

#[test]
fn without_a_budget_nothing_is_shortened_and_definitions_are_shared_by_name() {
    let mut shape = synthetic::Shape::docusign_like();
    shape.paths = 12;
    let document = shape.document();
    let import = import_value(&document, &ImportOptions::new().max_tool_chars(usize::MAX)).unwrap();
    assert!(import.shortened.is_empty());
    // The same component is the same definition, under the same name, in
    // every operation reaching it: held once for the document, and written
    // into each arguments schema reaching it.
    let schemas: Vec<Value> = import
        .document
        .operations
        .iter()
        .map(tool_openapi::parameters_schema)
        .collect();
    let mut seen: std::collections::HashMap<&str, &Value> = Default::default();
    let mut shared = 0;
    for schema in &schemas {
        for (name, value) in schema["$defs"].as_object().into_iter().flatten() {
            match seen.get(name.as_str()) {
                Some(previous) => {
                    assert_eq!(*previous, value, "{name}");
                    shared += 1;
                }
                None => {
                    seen.insert(name, value);
                }
            }
        }
    }
    assert!(shared > 0);
    let first = import
        .document
        .operations
        .iter()
        .map(|op| &op.shared_definitions)
        .find(|shared| !shared.is_empty())
        .unwrap();
    for op in &import.document.operations {
        assert!(op.definitions.is_empty(), "{}", op.operation_id);
        assert!(
            op.shared_definitions.is_empty() || op.shared_definitions.same_as(first),
            "one set of definitions for the document"
        );
    }
}

#[test]
fn properties_named_like_data_keywords_keep_their_definitions() {
    // Microsoft Graph's crossTenantAccessPolicy has a property `default`
    // pointing at a definition; it was left out of the operation's $defs
    // (the walk took the property name for the `default` keyword) and the
    // operation failed to compile.
    let large = |tag: &str| {
        let mut properties = serde_json::Map::new();
        for n in 0..40 {
            properties.insert(
                format!("{tag}{n}"),
                json!({"type": "string", "description": "Long enough not to be copied in place."}),
            );
        }
        json!({"type": "object", "properties": properties})
    };
    let document = json!({
        "openapi": "3.0.3",
        "info": {"title": "t", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": {"/policies": {"patch": {
            "operationId": "update",
            "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Root"}}}},
            "responses": {"204": {"description": "ok"}}
        }}},
        "components": {"schemas": {
            "Root": {"type": "object", "properties": {"policy": {"$ref": "#/components/schemas/Policy"}}},
            "Policy": {"type": "object", "properties": {
                "default": {"$ref": "#/components/schemas/Default"},
                "enum": {"type": "array", "items": {"$ref": "#/components/schemas/Other"}},
                "example": {"$ref": "#/components/schemas/Third"}
            }},
            "Default": large("d"),
            "Other": large("o"),
            "Third": large("t")
        }}
    });
    let import = import_value(&document, &ImportOptions::new().max_tool_chars(usize::MAX)).unwrap();
    assert!(import.failures.is_empty(), "{:?}", import.failures);
    let op = import.document.operation("update").unwrap();
    let schema = tool_openapi::parameters_schema(op);
    let names: Vec<&str> = schema["$defs"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(names, ["Default", "Other", "Third"]);
    assert_eq!(
        op.parameters[0].schema["properties"]["default"],
        json!({"$ref": "#/$defs/Default"})
    );
}

#[test]
fn the_budget_cuts_deepest_definitions_first_then_arguments() {
    // A chain A -> B -> C of described objects, under a tiny budget.
    let described = |next: Option<&str>| {
        let mut properties = json!({"text": {"type": "string", "description": "d".repeat(400)}});
        if let Some(next) = next {
            properties["next"] = json!({"$ref": format!("#/components/schemas/{next}")});
        }
        json!({"type": "object", "description": "x".repeat(300), "properties": properties})
    };
    let document = json!({
        "openapi": "3.0.3", "info": {"title": "T", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": {"/a": {"post": {"operationId": "post_a", "requestBody": {"content": {"application/json": {"schema":
            {"type": "object", "properties": {"a": {"$ref": "#/components/schemas/A"},
                "note": {"type": "string", "enum": (0..200).map(|i| format!("value{i}")).collect::<Vec<_>>()}}}}}},
            "responses": {"200": {"description": "ok"}}}}},
        "components": {"schemas": {"A": described(Some("B")), "B": described(Some("C")), "C": described(None)}}
    });
    let import = import_value(&document, &ImportOptions::new().max_tool_chars(1_500)).unwrap();
    let cost = &import.shortened[0];
    assert_eq!(cost.operation_id, "post_a");
    assert!(cost.descriptions_shortened > 0, "{}", cost.summary());
    assert_eq!(cost.cut_definitions, ["B"], "{}", cost.summary());
    assert_eq!(cost.dropped_definitions, 1, "C was only reached through B");
    assert_eq!(
        cost.cut_arguments,
        ["note"],
        "the optional enum goes before `a`"
    );
    let op = import.document.operation("post_a").unwrap();
    assert_eq!(op.definitions["B"], json!({}));
    assert!(!op.definitions.contains_key("C"));
    assert!(op.parameters[1].description.is_none());
    assert!(
        op.parameters[1].schema["description"]
            .as_str()
            .unwrap()
            .contains("cut to fit the tool size budget")
    );
    assert_eq!(op.parameters[1].schema["type"], "string");
    assert!(cost.fits(), "{}", cost.summary());
    assert!(tool_size(op) <= 1_500 + 200);
}

#[test]
fn a_document_over_its_budget_is_reported_with_its_largest_tools() {
    let mut shape = synthetic::Shape::docusign_like();
    shape.paths = 20;
    let import = import_value(
        &shape.document(),
        &ImportOptions::new().max_document_chars(10_000),
    )
    .unwrap();
    let warning = import
        .warnings
        .iter()
        .find(|w| w.pointer == "/paths" && w.message.contains("document budget"))
        .unwrap();
    assert!(
        warning.message.contains("the largest: things"),
        "{}",
        warning.message
    );
}

#[test]
fn the_filter_runs_before_any_schema_is_built() {
    // `broken` points at nothing: built, it would fail its operation.
    let text = r##"{"openapi": "3.0.3", "info": {"title": "T", "version": "1"},
      "servers": [{"url": "https://api.example.com"}], "paths": {
      "/repos/{owner}/issues": {
        "get": {"operationId": "list", "tags": ["issues"], "parameters": [{"name": "owner", "in": "path", "required": true}], "responses": {}},
        "post": {"operationId": "create", "parameters": [{"name": "owner", "in": "path", "required": true}],
          "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Missing"}}}}, "responses": {}}},
      "/repos/{owner}/pulls": {"get": {"operationId": "pulls", "parameters": [{"name": "owner", "in": "path", "required": true}], "responses": {}}},
      "/users": {"get": {"operationId": "users", "responses": {}},
                 "delete": {"operationId": "drop", "responses": {}}}}}"##;
    let ids = |options: &ImportOptions| {
        let import = import_openapi(text, options).unwrap();
        assert!(import.failures.is_empty(), "{:?}", import.failures);
        import
            .document
            .operations
            .iter()
            .map(|o| o.operation_id.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        ids(&ImportOptions::new()
            .paths(["/repos/*/*"])
            .methods([Method::Get])),
        ["list", "pulls"]
    );
    assert_eq!(
        ids(&ImportOptions::new().methods([Method::Delete])),
        ["drop"]
    );
    assert_eq!(
        ids(&ImportOptions::new().tag("issues").paths(["/users"])),
        ["list", "users", "drop"]
    );
    assert_eq!(
        ids(&ImportOptions::new()
            .paths(["/repos/**"])
            .operations(["drop"])
            .methods([Method::Get, Method::Delete])),
        ["list", "pulls", "drop"]
    );
    // Unfiltered, the broken one fails alone.
    let all = import_openapi(text, &ImportOptions::new()).unwrap();
    assert_eq!(all.failures.len(), 1);
    assert!(all.failures[0].message.contains("points at nothing"));
}

#[test]
fn a_graph_shaped_document_filtered_imports_only_what_is_kept() {
    let text = synthetic::Shape::graph_like().text();
    assert!(text.len() > 15_000_000, "{}", text.len());
    let options = ImportOptions::new().tag("group7");
    let import = import_openapi(&text, &options).unwrap();
    let kept = import.document.operations.len();
    assert!((200..400).contains(&kept), "{kept}");
    assert!(import.filtered_out > 10_000);
    assert!(import.failures.is_empty());
    for op in &import.document.operations {
        assert!(
            tool_size(op) <= DEFAULT_MAX_TOOL_CHARS + 400,
            "{}",
            op.operation_id
        );
    }
}

/// The installed GitHub description (see `.ci/setup.d/20-openapi.sh`).
fn github_description() -> String {
    setup::ensure("20-openapi.sh");
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/npm/node_modules/@octokit/openapi/generated/api.github.com.json");
    std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (after .ci/setup.d/20-openapi.sh ran)",
            path.display()
        )
    })
}

#[test]
fn every_github_tool_fits_the_default_budget_and_path_filters_select() {
    let text = github_description();
    let import = import_openapi(&text, &ImportOptions::new()).unwrap();
    assert_eq!(import.document.operations.len(), 1_223);
    assert!(
        import.shortened.is_empty(),
        "{:?}",
        import.shortened.first()
    );
    let largest = import
        .document
        .operations
        .iter()
        .map(tool_size)
        .max()
        .unwrap();
    assert!(largest <= DEFAULT_MAX_TOOL_CHARS, "{largest}");
    let issues = import_openapi(
        &text,
        &ImportOptions::new()
            .paths(["/repos/{owner}/{repo}/issues/**"])
            .methods([Method::Get]),
    )
    .unwrap();
    let kept = issues.document.operations.len();
    assert!((5..60).contains(&kept), "{kept}");
    assert_eq!(issues.filtered_out, 1_223 - kept);
    assert!(
        issues
            .document
            .operations
            .iter()
            .all(|o| o.method == Method::Get && o.path.starts_with("/repos/{owner}/{repo}/issues/"))
    );
}

#[test]
fn validating_without_kept_compilations_gives_the_same_document_and_tools() {
    let mut shape = synthetic::Shape::docusign_like();
    shape.paths = 15;
    let document = shape.document();
    let kept = import_value(&document, &ImportOptions::new()).unwrap();
    let validated = import_value(&document, &ImportOptions::new().keep_compiled(false)).unwrap();
    assert_eq!(kept.document, validated.document);
    assert_eq!(kept.warnings, validated.warnings);
    assert_eq!(kept.shortened, validated.shortened);
    let manifest = |doc: &tool_openapi::ApiDocument| compile_manifest(doc, "d").unwrap();
    assert_eq!(manifest(&kept.document), manifest(&validated.document));
}
