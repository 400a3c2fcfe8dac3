//! The narrow protocol: every validation error with its pointer and message,
//! normalisation with warnings, compilation and approval defaults.

use serde_json::{Value, json};
use tool_core::{HumanIntervention, InterventionPolicy, pipeline::Violation};
use tool_openapi::{Location, Method, compile_manifest, validate_narrow};

fn doc(paths: Value) -> String {
    json!({"server": "https://api.example.com/v1", "description": "Test API.", "paths": paths})
        .to_string()
}

fn errors(text: &str) -> Vec<Violation> {
    let validation = validate_narrow(text);
    assert!(validation.document.is_none() || validation.errors.is_empty());
    validation.errors
}

/// Asserts that exactly one error sits at `pointer` and its message contains `message`.
fn has_error(errors: &[Violation], pointer: &str, message: &str) {
    let at: Vec<&Violation> = errors.iter().filter(|e| e.pointer == pointer).collect();
    assert_eq!(at.len(), 1, "one error at {pointer:?}, got {errors:#?}");
    assert!(
        at[0].message.contains(message),
        "message at {pointer:?} should contain {message:?}: {:?}",
        at[0].message
    );
}

fn op(params: Value) -> Value {
    json!({"/items/{id}": {"get": {"operationId": "getItem", "description": "d", "parameters": params}}})
}

#[test]
fn not_json_and_not_an_object() {
    let e = errors("{\"server\": ");
    has_error(&e, "", "not JSON");
    assert!(e[0].message.contains("line 1"), "{:?}", e[0].message);
    has_error(&errors("[1, 2]"), "", "must be a JSON object, got an array");
    has_error(&errors("\"x\""), "", "must be a JSON object, got a string");
}

#[test]
fn missing_and_empty_top_level_fields() {
    let e = errors("{}");
    has_error(&e, "/server", "missing `server`");
    has_error(&e, "/description", "missing `description`");
    has_error(&e, "/paths", "missing `paths`");
    assert_eq!(e.len(), 3, "every problem at once: {e:#?}");

    let e = errors(r#"{"server": " ", "description": "", "paths": {}}"#);
    has_error(&e, "/server", "`server` is empty");
    has_error(&e, "/description", "`description` is empty");
    has_error(&e, "/paths", "`paths` is empty");

    let e = errors(r#"{"server": 1, "description": [], "paths": []}"#);
    has_error(&e, "/server", "must be a string, got a number");
    has_error(&e, "/description", "must be a string, got an array");
    has_error(&e, "/paths", "got an array");
}

#[test]
fn server_must_be_an_absolute_http_url() {
    for (server, why) in [
        ("api.example.com", "relative URL"),
        ("ftp://example.com", "scheme `ftp`"),
        ("file:///etc", "scheme `file`"),
        ("https://example.com/?a=1", "no query"),
    ] {
        let text = json!({"server": server, "description": "d", "paths": op(json!([{"name":"id","in":"path","type":"str"}]))}).to_string();
        let e = errors(&text);
        has_error(&e, "/server", "must be an absolute http(s) URL");
        assert!(e[0].message.contains(why), "{server}: {:?}", e[0].message);
    }
}

#[test]
fn unsupported_methods_name_the_supported_ones() {
    let e = errors(&doc(json!({"/a": {
        "options": {"operationId": "o"},
        "GET": {"operationId": "g"},
        "head": {"operationId": "h"}
    }})));
    for method in ["options", "GET", "head"] {
        has_error(
            &e,
            &format!("/paths/~1a/{method}"),
            "supported are get, post, and put, patch, delete as an extension",
        );
    }
    assert!(e.iter().all(|x| x.message.contains('`')));
}

#[test]
fn operation_ids_missing_empty_and_duplicate() {
    let e = errors(&doc(json!({
        "/a": {"get": {"description": "d"}, "post": {"operationId": "", "description": "d"}},
        "/b": {"get": {"operationId": "same", "description": "d"}},
        "/c": {"put": {"operationId": "same", "description": "d"}}
    })));
    has_error(&e, "/paths/~1a/get/operationId", "missing `operationId`");
    has_error(&e, "/paths/~1a/post/operationId", "`operationId` is empty");
    has_error(
        &e,
        "/paths/~1c/put/operationId",
        "duplicate operationId `same` (first at /paths/~1b/get/operationId)",
    );
}

#[test]
fn parameters_must_be_a_list_of_objects() {
    let e = errors(&doc(
        json!({"/a": {"get": {"operationId": "a", "description": "d", "parameters": {"name": "x"}}}}),
    ));
    has_error(
        &e,
        "/paths/~1a/get/parameters",
        "must be a list, got an object",
    );
    let e = errors(&doc(
        json!({"/a": {"get": {"operationId": "a", "description": "d", "parameters": ["x"]}}}),
    ));
    has_error(
        &e,
        "/paths/~1a/get/parameters/0",
        "must be an object, got a string",
    );
}

#[test]
fn parameter_fields_are_checked() {
    let e = errors(&doc(op(json!([
        {"name": "id", "in": "path", "type": "str"},
        {"in": "query", "type": "str"},
        {"name": "", "in": "query", "type": "str"},
        {"name": "a", "in": "body", "type": "str"},
        {"name": "b", "in": "query", "type": "string"},
        {"name": "c", "in": "query", "type": "int", "required": "yes"},
        {"name": "d", "in": "query"},
        {"name": "e", "type": "str"},
        {"name": "f", "in": 3, "type": true}
    ]))));
    let base = "/paths/~1items~1{id}/get/parameters";
    has_error(&e, &format!("{base}/1/name"), "missing `name`");
    has_error(&e, &format!("{base}/2/name"), "`name` is empty");
    has_error(
        &e,
        &format!("{base}/3/in"),
        "`in` must be one of path, query, header, cookie, request_body, got `body`",
    );
    has_error(
        &e,
        &format!("{base}/4/type"),
        "`type` must be one of str, int, float, bool, got `string`",
    );
    has_error(
        &e,
        &format!("{base}/5/required"),
        "`required` must be true or false, got a string",
    );
    has_error(&e, &format!("{base}/6/type"), "missing `type`");
    has_error(&e, &format!("{base}/7/in"), "missing `in`");
    has_error(&e, &format!("{base}/8/in"), "got a number");
    has_error(&e, &format!("{base}/8/type"), "got a boolean");
}

#[test]
fn duplicate_parameter_names_in_one_operation() {
    let e = errors(&doc(op(json!([
        {"name": "id", "in": "path", "type": "str"},
        {"name": "q", "in": "query", "type": "str"},
        {"name": "q", "in": "header", "type": "str"}
    ]))));
    has_error(
        &e,
        "/paths/~1items~1{id}/get/parameters/2/name",
        "duplicate parameter `q` in this operation (first at /paths/~1items~1{id}/get/parameters/1)",
    );
}

#[test]
fn path_placeholders_and_path_parameters_must_agree() {
    let e = errors(&doc(json!({"/items/{id}/{rev}": {"get": {
        "operationId": "a", "description": "d",
        "parameters": [
            {"name": "id", "in": "path", "type": "str", "required": false},
            {"name": "other", "in": "path", "type": "str"}
        ]
    }}})));
    let base = "/paths/~1items~1{id}~1{rev}/get/parameters";
    has_error(
        &e,
        base,
        "the path placeholder `{rev}` has no parameter with `in: path`",
    );
    has_error(
        &e,
        &format!("{base}/1/name"),
        "path parameter `other` does not appear in the path `/items/{id}/{rev}`",
    );
    has_error(
        &e,
        &format!("{base}/0/required"),
        "a path parameter must be required",
    );
}

#[test]
fn malformed_paths_and_bodies_on_get() {
    let e = errors(&doc(json!({
        "items/{id": {"get": {"operationId": "a", "description": "d"}},
        "/b": {"get": {"operationId": "b", "description": "d", "parameters": [
            {"name": "x", "in": "request_body", "type": "str"},
            {"name": "bad header", "in": "header", "type": "str"}
        ]}},
        "/c": []
    })));
    assert!(
        e.iter()
            .any(|x| x.pointer == "/paths/items~1{id" && x.message.contains("must start with `/`"))
    );
    assert!(
        e.iter()
            .any(|x| x.pointer == "/paths/items~1{id"
                && x.message.contains("malformed path template"))
    );
    has_error(
        &e,
        "/paths/~1b/get/parameters/0/in",
        "a GET operation sends no body",
    );
    has_error(
        &e,
        "/paths/~1b/get/parameters/1/name",
        "not a valid HTTP header name",
    );
    has_error(
        &e,
        "/paths/~1c",
        "must map methods to operations, got an array",
    );
}

#[test]
fn normalisation_drops_unknown_fields_with_warnings_and_keeps_both_methods() {
    let text = json!({
        "server": "https://api.example.com",
        "description": "Pets.",
        "info": {"title": "x"},
        "paths": {"/pets/{id}": {
            "get": {"operationId": "getPet", "description": "Read.", "x-extra": 1, "parameters": [
                {"name": "id", "in": "path", "type": "int", "example": 3}
            ]},
            "delete": {"operationId": "deletePet", "parameters": [
                {"name": "id", "in": "path", "type": "int", "required": true},
                {"name": "reason", "in": "query", "type": "str"}
            ]}
        }}
    })
    .to_string();
    let validation = validate_narrow(&text);
    assert!(validation.is_ok(), "{:#?}", validation.errors);
    let pointers: Vec<&str> = validation
        .warnings
        .iter()
        .map(|w| w.pointer.as_str())
        .collect();
    assert!(pointers.contains(&"/info"));
    assert!(pointers.contains(&"/paths/~1pets~1{id}/get/x-extra"));
    assert!(pointers.contains(&"/paths/~1pets~1{id}/get/parameters/0/example"));
    assert!(pointers.contains(&"/paths/~1pets~1{id}/delete/description"));
    let document = validation.document.unwrap();
    assert_eq!(document.operations.len(), 2);
    let get = document.operation("getPet").unwrap();
    assert_eq!(get.method, Method::Get);
    assert!(
        get.parameters[0].required,
        "path parameters default to required"
    );
    let delete = document.operation("deletePet").unwrap();
    assert_eq!(delete.parameters[1].location, Location::Query);
    assert!(!delete.parameters[1].required, "required defaults to false");

    // The stored form round-trips through serde.
    let stored = serde_json::to_string(&document).unwrap();
    assert_eq!(
        serde_json::from_str::<tool_openapi::ApiDocument>(&stored).unwrap(),
        document
    );

    // Approval defaults from the method, overridable per operation.
    let manifest = compile_manifest(&document, "pets").unwrap();
    let policy = |name: &str| manifest.api(name).unwrap().human_intervention.clone();
    assert_eq!(
        policy("getPet"),
        Some(HumanIntervention::Policy(InterventionPolicy::Never))
    );
    assert_eq!(
        policy("deletePet"),
        Some(HumanIntervention::Policy(InterventionPolicy::Required))
    );
    let mut document = document;
    document.operation_mut("getPet").unwrap().human_intervention =
        Some(HumanIntervention::Policy(InterventionPolicy::Always));
    let manifest = compile_manifest(&document, "pets").unwrap();
    assert_eq!(
        manifest.api("getPet").unwrap().human_intervention,
        Some(HumanIntervention::Policy(InterventionPolicy::Always))
    );
    assert_eq!(
        manifest.api("deletePet").unwrap().parameters["required"],
        json!(["id"])
    );
}

#[test]
fn null_parameters_are_refused_at_their_pointer() {
    let v = validate_narrow(
        r#"{"server": "https://x.test", "description": "d", "paths": {"/a": {"get": {
            "operationId": "a", "description": "A.", "parameters": null}}}}"#,
    );
    assert!(!v.is_ok());
    assert_eq!(v.errors[0].pointer, "/paths/~1a/get/parameters");
    assert!(v.errors[0].message.contains("got null"), "{:?}", v.errors);
}
