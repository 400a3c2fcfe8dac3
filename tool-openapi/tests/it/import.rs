//! Importing real OpenAPI documents: the petstores written here (3.0 YAML,
//! 3.1 JSON) and the GitHub REST description from npm `@octokit/openapi`.

use std::collections::HashSet;
use std::path::PathBuf;

use serde_json::{Value, json};
use tool_core::{
    HumanIntervention, InterventionPolicy, Tool, ToolContext, ToolRegistry,
    assembly::{Assembler, ToolReference},
    export::is_provider_safe,
    manifest::NameRules,
};
use tool_openapi::{
    Credentials, DocumentKind, Error, ImportOptions, Location, OpenApiProvider, OpenApiTool,
    SchemeKind, SsrfGuard, SsrfPolicy, compile_manifest, import_batch, import_openapi,
    load_document,
};

use crate::{common, setup};

fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn petstore_30_yaml_imports_with_every_kind_of_ref() {
    let import = import_openapi(&fixture("petstore-3.0.yaml"), &ImportOptions::new()).unwrap();
    let doc = &import.document;
    assert_eq!(
        doc.server, "https://pets.example.com/v1",
        "server variables' defaults"
    );
    assert_eq!(doc.title.as_deref(), Some("Petstore"));
    let ids: Vec<&str> = doc
        .operations
        .iter()
        .map(|o| o.operation_id.as_str())
        .collect();
    assert_eq!(
        ids,
        [
            "listPets",
            "pets_create_pet",
            "get_pets_id",
            "updatePet",
            "deletePet",
            "uploadPhoto",
            "placeOrder",
            "listPets_2"
        ]
    );
    // The multipart upload imports: its file is a workspace path.
    let upload = doc.operation("uploadPhoto").unwrap();
    assert_eq!(
        upload.body_format.as_ref().unwrap().kind,
        tool_openapi::BodyKind::Multipart
    );
    let file = upload.parameters.iter().find(|p| p.name == "file").unwrap();
    assert!(file.file);
    assert_eq!(
        tool_core::approval::ArgRole::of(&file.schema),
        Some(tool_core::approval::ArgRole::Path)
    );

    // Failures are per operation, with pointers; the rest imported.
    let failed: Vec<(&str, &str)> = import
        .failures
        .iter()
        .map(|f| (f.pointer.as_str(), f.message.as_str()))
        .collect();
    assert_eq!(failed.len(), 1, "{failed:#?}");
    assert_eq!(failed[0].0, "/paths/~1store~1broken/get");
    assert!(failed[0].1.contains("DoesNotExist"), "{}", failed[0].1);

    // Renames and generated ids are warnings.
    let warning = |needle: &str| import.warnings.iter().any(|w| w.message.contains(needle));
    assert!(warning(
        "operationId `pets/create pet` is imported as `pets_create_pet`"
    ));
    assert!(warning("no operationId: generated `get_pets_id`"));
    assert!(warning(
        "operationId `listPets` is imported as `listPets_2`"
    ));
    assert!(warning("header parameter `Accept` is ignored"));

    // Parameters keep real schemas; $ref'd parameters resolve.
    let list = doc.operation("listPets").unwrap();
    assert_eq!(
        list.description,
        "List all pets\n\nReturns pets, a page at a time."
    );
    assert_eq!(list.parameters.len(), 2);
    assert_eq!(list.parameters[0].name, "limit");
    assert_eq!(
        *list.parameters[0].schema,
        json!({"type": "integer", "format": "int32", "maximum": 100, "default": 20})
    );
    assert_eq!(
        list.parameters[1].schema["items"]["enum"],
        json!(["available", "pending", "sold"])
    );
    assert_eq!(list.security, ["api_key"], "root security applies");

    // Path-level parameters, 3.0 dialect rewritten.
    let get = doc.operation("get_pets_id").unwrap();
    assert_eq!(get.parameters[0].location, Location::Path);
    assert_eq!(
        *get.parameters[0].schema,
        json!({"type": "integer", "format": "int64", "exclusiveMinimum": 0})
    );
    assert_eq!(get.parameters[1].schema["type"], json!(["string", "null"]));

    // A $ref'd request body: properties become arguments, recursion goes to $defs.
    let create = doc.operation("pets_create_pet").unwrap();
    let args: Vec<&str> = create
        .parameters
        .iter()
        .map(|p| p.argument_name())
        .collect();
    assert_eq!(args, ["name", "tag", "category", "friends"]);
    assert!(create.parameters[0].required);
    assert_eq!(
        create.parameters[2].schema["properties"]["parent"],
        json!({"$ref": "#/$defs/Category"})
    );
    // The definitions it reaches are the document's, held once and added
    // to its arguments schema.
    assert!(create.definitions.is_empty());
    let schema = tool_openapi::parameters_schema(create);
    let defs = schema["$defs"].as_object().unwrap();
    assert!(defs.contains_key("Category"));
    assert!(defs.contains_key("NewPet") || defs.contains_key("Pet"));
    assert!(create.shared_definitions.get("Category").is_some());

    // A body property clashing with the path parameter is renamed.
    let update = doc.operation("updatePet").unwrap();
    let clash = update
        .parameters
        .iter()
        .find(|p| p.name == "id" && p.location == Location::RequestBody)
        .unwrap();
    assert_eq!(clash.argument_name(), "body_id");
    assert!(clash.required);
    assert_eq!(update.security, ["bearer"]);

    // A non-object body is one `body` argument.
    let order = doc.operation("placeOrder").unwrap();
    assert_eq!(order.parameters[0].location, Location::Body);
    assert_eq!(order.parameters[0].schema["type"], "array");

    // Security schemes.
    let kinds: Vec<(&str, &SchemeKind)> = doc
        .security_schemes
        .iter()
        .map(|s| (s.name.as_str(), &s.kind))
        .collect();
    assert_eq!(kinds.len(), 3);
    assert!(matches!(kinds[0].1, SchemeKind::ApiKey { parameter, .. } if parameter == "X-API-Key"));

    // It compiles: every schema is valid, approvals default by method.
    let manifest = compile_manifest(doc, "petstore").unwrap();
    assert_eq!(
        manifest.api("deletePet").unwrap().human_intervention,
        Some(HumanIntervention::Policy(InterventionPolicy::Required))
    );
    assert_eq!(
        manifest.api("listPets").unwrap().human_intervention,
        Some(HumanIntervention::Policy(InterventionPolicy::Never))
    );
    assert_eq!(
        manifest.api("updatePet").unwrap().parameters["required"],
        json!(["id", "name", "body_id"])
    );
}

#[test]
fn petstore_31_json_imports() {
    let loaded = load_document(&fixture("petstore-3.1.json"), &ImportOptions::new()).unwrap();
    assert_eq!(loaded.kind, DocumentKind::OpenApi31);
    let import = loaded.import;
    let doc = &import.document;
    assert_eq!(doc.server, "https://pets.example.com/v2");
    let ids: Vec<&str> = doc
        .operations
        .iter()
        .map(|o| o.operation_id.as_str())
        .collect();
    assert_eq!(ids, ["listPets", "createPet", "showPetById", "plantTree"]);
    assert_eq!(import.failures.len(), 1);
    assert!(import.failures[0].message.contains("outside this document"));
    let list = doc.operation("listPets").unwrap();
    assert_eq!(
        list.parameters[0].schema["type"],
        json!(["integer", "null"])
    );
    assert_eq!(list.parameters[1].location, Location::Cookie);
    assert_eq!(list.security, ["token"]);
    let create = doc.operation("createPet").unwrap();
    assert_eq!(
        *create.parameters[1].schema,
        json!({"enum": ["dog", "cat", null]})
    );
    assert_eq!(
        *create.parameters[3].schema,
        json!({"type": "number", "exclusiveMinimum": 0})
    );
    // A recursive body via `+json`, with the sibling description kept.
    let tree = doc.operation("plantTree").unwrap();
    assert_eq!(tree.parameters[1].name, "children");
    assert_eq!(
        tree.parameters[1].schema["items"],
        json!({"$ref": "#/$defs/Node"})
    );
    assert!(
        import
            .warnings
            .iter()
            .any(|w| w.message.contains("mutualTLS"))
    );
    compile_manifest(doc, "petstore31").unwrap();
}

#[test]
fn filters_select_by_tag_and_operation() {
    let text = fixture("petstore-3.0.yaml");
    let import = import_openapi(&text, &ImportOptions::new().tag("store")).unwrap();
    let ids: Vec<&str> = import
        .document
        .operations
        .iter()
        .map(|o| o.operation_id.as_str())
        .collect();
    assert_eq!(ids, ["placeOrder", "listPets"]);
    assert_eq!(import.filtered_out, 6);
    let import = import_openapi(
        &text,
        &ImportOptions::new().operations(["deletePet", "pets_create_pet", "GET /pets/{id}"]),
    )
    .unwrap();
    let ids: Vec<&str> = import
        .document
        .operations
        .iter()
        .map(|o| o.operation_id.as_str())
        .collect();
    assert_eq!(ids, ["pets_create_pet", "get_pets_id", "deletePet"]);
    let nothing = import_openapi(&text, &ImportOptions::new().tag("nope")).unwrap_err();
    assert!(
        matches!(nothing, Error::NothingImported { .. }),
        "{nothing}"
    );
}

#[test]
fn bad_documents_are_typed_errors_with_locations() {
    let e = import_openapi("openapi: 3.0.0\npaths: [\n", &ImportOptions::new()).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Syntax {
                format: "YAML",
                line: 2..,
                ..
            }
        ),
        "{e:?}"
    );
    let e = import_openapi("{\"openapi\": ", &ImportOptions::new()).unwrap_err();
    assert!(matches!(e, Error::Syntax { format: "JSON", .. }), "{e:?}");
    let e = import_openapi(r#"{"swagger": "2.0"}"#, &ImportOptions::new()).unwrap_err();
    assert_eq!(e.problems()[0].pointer, "/swagger");
    let e = import_openapi(
        r#"{"openapi": "4.0.0", "paths": {}}"#,
        &ImportOptions::new(),
    )
    .unwrap_err();
    assert_eq!(e.problems()[0].pointer, "/openapi");
    let e = import_openapi(
        r#"{"openapi": "3.0.0", "servers": [{"url": "ftp://x.test"}], "paths": {}}"#,
        &ImportOptions::new(),
    )
    .unwrap_err();
    assert_eq!(e.problems()[0].pointer, "/servers/0/url");
    assert!(e.to_string().contains("scheme `ftp`"), "{e}");
    let e = import_openapi("x", &ImportOptions::new().max_bytes(0)).unwrap_err();
    assert!(matches!(e, Error::TooLarge { .. }));
    // A recursive path-item $ref loop does not hang.
    let looped = r##"{"openapi": "3.1.0", "servers": [{"url": "https://x.test"}], "paths": {
        "/a": {"$ref": "#/paths/~1b"}, "/b": {"$ref": "#/paths/~1a"},
        "/c": {"get": {"operationId": "c", "responses": {}}}}}"##;
    let import = import_openapi(looped, &ImportOptions::new()).unwrap();
    assert_eq!(import.document.operations.len(), 1);
    assert_eq!(import.failures.len(), 2);
}

#[test]
fn batch_import_returns_loaded_and_failed() {
    let petstore = fixture("petstore-3.0.yaml");
    let narrow = common::narrow_doc("127.0.0.1:1".parse().unwrap());
    let batch = import_batch(
        [
            ("petstore", petstore.as_str()),
            ("broken", "{"),
            ("narrow", narrow.as_str()),
            ("empty", "{}"),
        ],
        &ImportOptions::new(),
    );
    let loaded: Vec<&str> = batch.loaded.iter().map(|(n, _)| n.as_str()).collect();
    let failed: Vec<&str> = batch.failed.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(loaded, ["petstore", "narrow"]);
    assert_eq!(failed, ["broken", "empty"]);
    assert_eq!(batch.loaded[1].1.kind, DocumentKind::Narrow);
    assert_eq!(
        batch.failed[1].1.problems().len(),
        3,
        "narrow validation reports every problem"
    );
}

#[tokio::test]
async fn imported_credentials_are_sent_and_never_shown() {
    let addr = common::start().await;
    let spec = json!({
        "openapi": "3.1.0",
        "info": {"title": "Echo", "version": "1"},
        "servers": [{"url": "https://echo.example.com"}],
        "paths": {
            "/h": {"get": {"operationId": "header", "security": [{"key": []}], "responses": {}}},
            "/q": {"get": {"operationId": "query", "security": [{"qkey": []}],
                "parameters": [{"name": "x", "in": "query", "schema": {"type": "integer"}}], "responses": {}}},
            "/c": {"get": {"operationId": "cookie", "security": [{"ckey": []}], "responses": {}}},
            "/b": {"post": {"operationId": "bearer", "security": [{"bearer": []}], "responses": {},
                "requestBody": {"content": {"application/json": {"schema": {"type": "object", "properties": {"n": {"type": "integer"}}}}}}}},
            "/basic": {"get": {"operationId": "basic", "security": [{"basic": []}], "responses": {}}}
        },
        "components": {"securitySchemes": {
            "key": {"type": "apiKey", "in": "header", "name": "X-Key"},
            "qkey": {"type": "apiKey", "in": "query", "name": "api_key"},
            "ckey": {"type": "apiKey", "in": "cookie", "name": "sid"},
            "bearer": {"type": "http", "scheme": "bearer"},
            "basic": {"type": "http", "scheme": "basic"}
        }}
    })
    .to_string();
    let import = import_openapi(
        &spec,
        &ImportOptions::new().server(format!("http://{addr}")),
    )
    .unwrap();
    let credentials = Credentials::new()
        .token("key", "hdr-secret-1")
        .token("qkey", "query-secret-2")
        .token("ckey", "cookie-secret-3")
        .token("bearer", "bearer-secret-4")
        .basic("basic", "user", "basic-secret-5");
    let guard = SsrfGuard::new(SsrfPolicy::default().allow("127.0.0.1").unwrap());
    let tool = OpenApiTool::builder(import.document, "echo")
        .credentials(credentials)
        .guard(guard)
        .build()
        .unwrap();
    let ctx = ToolContext::new();
    let manifest = serde_json::to_string(tool.manifest()).unwrap();
    for api in ["header", "query", "cookie", "bearer", "basic"] {
        let out = tool.call(api, json!({"x": 3, "n": 1}), &ctx).await.unwrap();
        let everything = serde_json::to_string(&out).unwrap();
        for secret in [
            "hdr-secret-1",
            "query-secret-2",
            "cookie-secret-3",
            "bearer-secret-4",
            "basic-secret-5",
            "dXNlcjpiYXNpYy1zZWNyZXQtNQ",
        ] {
            assert!(!everything.contains(secret), "{api}: {everything}");
            assert!(!manifest.contains(secret));
        }
        assert!(
            everything.contains("[redacted]"),
            "{api}: the echo carried the secret: {everything}"
        );
    }
    let out = tool.call("bearer", json!({"n": 1}), &ctx).await.unwrap();
    let body = common::body_of(&out);
    assert_eq!(
        body["body"],
        "[redacted]".replace("[redacted]", r#"{"n":1}"#)
    );
    assert_eq!(body["headers"]["authorization"], "Bearer [redacted]");
    let out = tool.call("query", json!({"x": 3}), &ctx).await.unwrap();
    assert_eq!(common::body_of(&out)["query"], "x=3&api_key=[redacted]");
}

#[tokio::test]
async fn parameters_sharing_a_name_in_different_places_are_distinct_arguments() {
    // Trello's /tokens/{token} takes the path `token` and a query `token`;
    // SendGrid's lists do the same. Both are sent, each where it belongs.
    let addr = common::start().await;
    let spec = json!({
        "openapi": "3.0.3",
        "info": {"title": "T", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": {"/tokens/{token}": {
            "parameters": [{"name": "token", "in": "path", "required": true, "schema": {"type": "string"}}],
            "get": {"operationId": "read", "responses": {"200": {"description": "ok"}},
                "parameters": [
                    {"name": "token", "in": "query", "required": true, "schema": {"type": "string"}},
                    {"name": "token", "in": "header", "schema": {"type": "string"}}
                ]}
        }}
    })
    .to_string();
    let import = import_openapi(
        &spec,
        &ImportOptions::new().server(format!("http://{addr}")),
    )
    .unwrap();
    assert!(import.failures.is_empty(), "{:?}", import.failures);
    let op = import.document.operation("read").unwrap();
    let arguments: Vec<&str> = op.parameters.iter().map(|p| p.argument_name()).collect();
    assert_eq!(arguments, ["token", "query_token", "header_token"]);
    assert!(
        import
            .warnings
            .iter()
            .any(|w| w.message.contains("its argument is `query_token`")),
        "{:?}",
        import.warnings
    );
    let guard = SsrfGuard::new(SsrfPolicy::default().allow("127.0.0.1").unwrap());
    let tool = OpenApiTool::builder(import.document, "t")
        .guard(guard)
        .build()
        .unwrap();
    let out = tool
        .call(
            "read",
            json!({"token": "in-path", "query_token": "in-query", "header_token": "in-header"}),
            &ToolContext::new(),
        )
        .await
        .unwrap();
    let echo = common::body_of(&out);
    assert_eq!(echo["path"], "/tokens/in-path");
    assert_eq!(echo["query"], "token=in-query");
    assert_eq!(echo["headers"]["token"], "in-header");
    // Each is required as its parameter says.
    let required = &tool.manifest().api("read").unwrap().parameters["required"];
    assert_eq!(required, &json!(["token", "query_token"]));
}

#[tokio::test]
async fn the_provider_assembles_api_references() {
    let addr = common::start().await;
    let (doc, _) = tool_openapi::parse_narrow(&common::narrow_doc(addr)).unwrap();
    let mut provider = OpenApiProvider::new(SsrfGuard::new(
        SsrfPolicy::default().allow("127.0.0.1").unwrap(),
    ))
    .unwrap();
    provider.add("local", doc);
    let assembler = Assembler::new().with_provider(provider);
    let references = [
        ToolReference::new("api", "local", "*")
            .with_params(json!({"approval": {"echoGet": "always"}})),
        ToolReference::new("api", "local", "status"),
        ToolReference::new("api", "nope", "*"),
        ToolReference::new("api", "local", "noSuchOperation"),
        ToolReference::new("api", "local", "*").with_params(json!({"colour": "red"})),
    ];
    let assembly = assembler.assemble(&references).await;
    assert_eq!(assembly.tools.len(), 2);
    assert_eq!(assembly.failures.len(), 3, "{:?}", assembly.failures);
    let whole = &assembly.tools[0].1;
    assert_eq!(whole.manifest().identifier, "local");
    assert_eq!(
        whole.manifest().api("echoGet").unwrap().human_intervention,
        Some(HumanIntervention::Policy(InterventionPolicy::Always))
    );
    let single = &assembly.tools[1].1;
    assert_eq!(single.manifest().identifier, "local.status");
    assert_eq!(single.manifest().api.len(), 1);
    let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
    for (_, tool) in assembly.tools {
        registry.register_arc(tool).unwrap();
    }
    let out = registry
        .get("local")
        .unwrap()
        .call("status", json!({"code": 200}), &ToolContext::new())
        .await
        .unwrap();
    assert!(out.success);
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
fn the_github_description_imports_every_operation_or_reports_it() {
    let text = github_description();
    let value: Value = serde_json::from_str(&text).unwrap();
    let total: usize = value["paths"]
        .as_object()
        .unwrap()
        .values()
        .map(|item| {
            [
                "get", "put", "post", "delete", "options", "head", "patch", "trace",
            ]
            .iter()
            .filter(|m| item.get(**m).is_some())
            .count()
        })
        .sum();
    assert!(total > 1_000, "{total}");
    let import = import_openapi(&text, &ImportOptions::new()).unwrap();
    assert_eq!(
        import.document.operations.len() + import.failures.len(),
        total,
        "every operation imports or is reported"
    );
    eprintln!(
        "github: {} imported, {} failed, {} warnings",
        import.document.operations.len(),
        import.failures.len(),
        import.warnings.len()
    );
    for failure in &import.failures {
        eprintln!("  {failure}");
    }
    let ids: HashSet<&str> = import
        .document
        .operations
        .iter()
        .map(|o| o.operation_id.as_str())
        .collect();
    assert_eq!(
        ids.len(),
        import.document.operations.len(),
        "ids are unique"
    );
    // Every name the model sees is valid and resolves back.
    let tool = OpenApiTool::builder(import.document.clone(), "github")
        .build()
        .unwrap();
    let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
    registry.register(tool).unwrap();
    let offered = registry.offer(&ToolContext::new());
    let tools = offered.openai_chat_tools();
    assert_eq!(tools.len(), import.document.operations.len());
    let mut wire = HashSet::new();
    for tool in &tools {
        let name = tool["function"]["name"].as_str().unwrap();
        assert!(is_provider_safe(name), "{name}");
        assert!(wire.insert(name.to_owned()), "duplicate wire name {name}");
        offered.resolve(name).unwrap();
    }
    // Filters keep a model's choice small.
    let repos = import_openapi(&text, &ImportOptions::new().tag("issues")).unwrap();
    assert!(repos.document.operations.len() < 100);
    assert!(repos.filtered_out > 1_000);
}

#[test]
fn ecma_patterns_that_do_not_compile_are_repaired_and_reported() {
    let doc = json!({"openapi": "3.0.3", "info": {"title": "AWS-like", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": {"/tag": {"post": {"operationId": "tag", "requestBody": {"content": {"application/json": {
            "schema": {"type": "object", "properties": {
                "value": {"type": "string", "pattern": "^[^\\p\\{C\\}]*\\+$"},
                "odd": {"type": "string", "pattern": "a{\\e"}}}}}}}}}});
    let import = tool_openapi::import_value(&doc, &ImportOptions::new()).unwrap();
    assert!(import.failures.is_empty(), "{:?}", import.failures);
    let messages: Vec<&str> = import.warnings.iter().map(|w| w.message.as_str()).collect();
    assert!(
        messages
            .iter()
            .any(|m| m.contains(r"checked as `^[^\p{C}]*\+$`")
                && m.contains("/properties/value/pattern")),
        "{messages:#?}"
    );
    assert!(
        messages.iter().any(|m| m.contains(r"checked as `a\{e`")),
        "{messages:#?}"
    );
    // The repaired pattern means what the document meant.
    let tool = tool_openapi::OpenApiTool::builder(import.document, "aws")
        .build()
        .unwrap();
    let schema = tool_core::pipeline::CompiledSchema::compile(
        &tool_core::Tool::manifest(&tool).api[0].parameters,
    )
    .unwrap();
    assert!(schema.is_valid(&json!({"value": "apple+"})));
    assert!(!schema.is_valid(&json!({"value": "a\u{7}+"})));
}

#[test]
fn unknown_top_level_keys_are_warnings_but_extensions_are_not() {
    let doc = json!({"openapi": "3.0.3", "info": {"title": "T", "version": "1"}, "source": "x",
        "x-origin": [], "webhooks": {},
        "servers": [{"url": "https://api.example.com"}],
        "paths": {"/a": {"get": {"operationId": "a", "responses": {}}}}});
    let import = tool_openapi::import_value(&doc, &ImportOptions::new()).unwrap();
    let pointers: Vec<&str> = import.warnings.iter().map(|w| w.pointer.as_str()).collect();
    assert_eq!(pointers, ["/source", "/webhooks"], "webhooks is 3.1 only");
}

#[test]
fn unknown_keys_below_the_top_level_are_warnings_with_their_pointers() {
    let doc = json!({"openapi": "3.0.3", "info": {"title": "T", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "components": {
            "pathItems": {},
            "x-kept": {},
            "parameters": {"Page": {"name": "page", "in": "query", "type": "integer", "x-ok": 1}},
            "requestBodies": {"Pet": {"content": {"application/json": {"schema": {"type": "object"}}}, "requird": true}},
            "responses": {"Gone": {"description": "gone", "schema": {}}}},
        "paths": {"/pets/{id}": {
            "parametres": [],
            "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}, "enum": ["a"]}],
            "get": {"operationId": "get", "consumes": ["application/json"], "x-internal": true,
                "parameters": [{"$ref": "#/components/parameters/Page"},
                               {"name": "q", "in": "query", "schema": {"type": "string"}, "format": "x"}],
                "responses": {"200": {"description": "ok", "examples": {}}, "410": {"$ref": "#/components/responses/Gone"}}},
            "post": {"operationId": "post",
                "requestBody": {"$ref": "#/components/requestBodies/Pet"},
                "responses": {}},
            "put": {"operationId": "put",
                "requestBody": {"content": {"text/plain": {"schema": {"type": "string"}}}, "mediaType": "text/plain"},
                "responses": {}}}}});
    let import = tool_openapi::import_value(&doc, &ImportOptions::new()).unwrap();
    assert!(import.failures.is_empty(), "{:?}", import.failures);
    let unknown: Vec<(&str, &str)> = import
        .warnings
        .iter()
        .filter(|w| w.message.starts_with("unknown "))
        .map(|w| (w.pointer.as_str(), w.message.split(" key ").next().unwrap()))
        .collect();
    assert_eq!(
        unknown,
        [
            ("/components/pathItems", "unknown components"),
            ("/components/parameters/Page/type", "unknown parameter"),
            (
                "/components/requestBodies/Pet/requird",
                "unknown request body"
            ),
            ("/components/responses/Gone/schema", "unknown response"),
            ("/paths/~1pets~1{id}/parametres", "unknown path item"),
            ("/paths/~1pets~1{id}/parameters/0/enum", "unknown parameter"),
            ("/paths/~1pets~1{id}/get/consumes", "unknown operation"),
            (
                "/paths/~1pets~1{id}/get/parameters/1/format",
                "unknown parameter"
            ),
            (
                "/paths/~1pets~1{id}/get/responses/200/examples",
                "unknown response"
            ),
            (
                "/paths/~1pets~1{id}/put/requestBody/mediaType",
                "unknown request body"
            ),
        ],
        "each once, at its own pointer; x- keys and $ref objects are not flagged; pathItems is 3.1 only"
    );
    // In 3.1, `pathItems` is a components key.
    let mut doc31 = doc.clone();
    doc31["openapi"] = json!("3.1.0");
    let import = tool_openapi::import_value(&doc31, &ImportOptions::new()).unwrap();
    assert!(
        !import
            .warnings
            .iter()
            .any(|w| w.pointer == "/components/pathItems")
    );
    // An operation left out by the filter is not read, nor warned about.
    let import =
        tool_openapi::import_value(&doc, &ImportOptions::new().operations(["post"])).unwrap();
    assert!(
        !import.warnings.iter().any(|w| w.pointer.contains("/get/")),
        "{:?}",
        import.warnings
    );
}

#[test]
fn bodies_without_media_types_and_unnamed_parameters_are_warnings_not_failures() {
    let doc = json!({"openapi": "3.0.3", "info": {"title": "T", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": {
            "/a": {"post": {"operationId": "a", "requestBody": {"content": {}}, "responses": {}}},
            "/b": {"delete": {"operationId": "b", "requestBody": {"required": false}, "responses": {}}},
            "/c": {"get": {"operationId": "c", "parameters": [
                {"name": "", "in": "query", "schema": {"type": "string"}},
                {"name": "q", "in": "query", "schema": {"type": "string"}}], "responses": {}}}}});
    let import = tool_openapi::import_value(&doc, &ImportOptions::new()).unwrap();
    assert!(import.failures.is_empty(), "{:?}", import.failures);
    let ops = &import.document.operations;
    assert_eq!(ops.len(), 3);
    assert!(ops[0].parameters.is_empty() && ops[1].parameters.is_empty());
    let c: Vec<&str> = ops[2].parameters.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(c, ["q"]);
    let warned: Vec<&str> = import.warnings.iter().map(|w| w.pointer.as_str()).collect();
    for pointer in [
        "/paths/~1a/post/requestBody/content",
        "/paths/~1b/delete/requestBody",
        "/paths/~1c/get/parameters/0",
    ] {
        assert!(warned.contains(&pointer), "{pointer} in {warned:?}");
    }
}

#[tokio::test]
async fn operations_with_the_same_arguments_share_one_check_and_each_validates() {
    let body = json!({"content": {"application/json": {"schema": {"type": "object",
        "required": ["n"], "properties": {"n": {"type": "integer"}}}}}});
    let repaired = json!({"content": {"application/json": {"schema": {"type": "object",
        "properties": {"value": {"type": "string", "pattern": "^[^\\p\\{C\\}]*\\+$"}}}}}});
    let doc = json!({"openapi": "3.0.3", "info": {"title": "T", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": {
            "/a": {"post": {"operationId": "a", "requestBody": body, "responses": {}}},
            "/b": {"post": {"operationId": "b", "requestBody": body, "responses": {}}},
            "/c": {"post": {"operationId": "c", "requestBody": repaired, "responses": {}}},
            "/d": {"post": {"operationId": "d", "requestBody": repaired, "responses": {}}}}});
    let import = tool_openapi::import_value(&doc, &ImportOptions::new()).unwrap();
    assert!(import.failures.is_empty(), "{:?}", import.failures);
    // A repaired schema is not shared: each operation is repaired (and told).
    let repairs: Vec<&str> = import
        .warnings
        .iter()
        .filter(|w| w.message.contains("ECMA-262"))
        .map(|w| w.pointer.as_str())
        .collect();
    assert_eq!(repairs, ["/paths/~1c/post", "/paths/~1d/post"]);
    let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
    OpenApiTool::builder(import.document, "same")
        .register(&mut registry)
        .unwrap();
    let ctx = ToolContext::new();
    for api in ["a", "b"] {
        let out = tool_core::Invoker::default()
            .invoke_in(
                &registry,
                &tool_core::ToolCall::new(format!("same____{api}"), r#"{"n": "x"}"#),
                &ctx,
            )
            .await;
        assert_eq!(
            out.error_code().unwrap(),
            "invalid_arguments",
            "{api}: {out:?}"
        );
    }
    for api in ["c", "d"] {
        let out = tool_core::Invoker::default()
            .invoke_in(
                &registry,
                &tool_core::ToolCall::new(format!("same____{api}"), r#"{"value": "a\u0007+"}"#),
                &ctx,
            )
            .await;
        assert_eq!(
            out.error_code().unwrap(),
            "invalid_arguments",
            "{api}: {out:?}"
        );
    }
}

#[tokio::test]
async fn a_schema_the_import_vouched_for_that_does_not_compile_answers_schema_unusable() {
    // `$dynamicRef` to an anchor that is nowhere meets the meta-schema (the
    // import's cheap check) but does not compile: the import keeps the
    // operation, and its first call is refused by name, never run.
    let broken = json!({"type": "string", "$dynamicRef": "#nowhere"});
    let doc = json!({"openapi": "3.1.0", "info": {"title": "T", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": {
            "/a": {"get": {"operationId": "a", "responses": {},
                "parameters": [{"name": "q", "in": "query", "schema": broken}]}},
            "/b": {"get": {"operationId": "b", "responses": {},
                "parameters": [{"name": "q", "in": "query", "schema": {"type": "string"}}]}}}});
    assert!(
        tool_core::pipeline::CompiledSchema::try_compile(&json!({"type": "object",
        "properties": {"q": broken}}))
        .is_err()
    );
    let import = tool_openapi::import_value(&doc, &ImportOptions::new()).unwrap();
    assert!(import.failures.is_empty(), "{:?}", import.failures);
    let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
    OpenApiTool::builder(import.document, "vouched")
        .register(&mut registry)
        .unwrap();
    let ctx = ToolContext::new();
    let call = |api: &str| tool_core::ToolCall::new(format!("vouched____{api}"), r#"{"q": "x"}"#);
    let out = tool_core::Invoker::default()
        .invoke_in(&registry, &call("a"), &ctx)
        .await;
    assert_eq!(out.error_code().unwrap(), "schema_unusable", "{out:?}");
    assert!(out.content.contains("not run"), "{}", out.content);
    // The other operation of the document is called (and refused by the
    // guard: 127.0.0.1 is not public), its schema compiled on this call.
    let out = tool_core::Invoker::default()
        .invoke_in(&registry, &call("b"), &ctx)
        .await;
    assert_eq!(out.error_code().unwrap(), "ssrf_blocked", "{out:?}");
}

#[test]
fn registered_tools_share_equal_argument_schemas_and_validate_as_before() {
    let top = json!({"name": "top", "in": "query", "description": "How many.",
        "schema": {"type": "integer", "minimum": 1}});
    let doc = json!({"openapi": "3.0.3", "info": {"title": "T", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": {
            "/users": {"get": {"operationId": "listUsers", "parameters": [top.clone()], "responses": {}}},
            "/groups/{id}": {"get": {"operationId": "listGroups", "parameters": [top,
                {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
                "responses": {}}}}});
    let import = tool_openapi::import_value(&doc, &ImportOptions::new()).unwrap();
    // What an API definition of each operation holds whole.
    let whole: Vec<String> = import
        .document
        .operations
        .iter()
        .map(|op| serde_json::to_string(&tool_openapi::api_definition(op)).unwrap())
        .collect();
    let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
    OpenApiTool::builder(import.document, "t")
        .register(&mut registry)
        .unwrap();
    let manifest = registry.manifests().next().unwrap().clone();
    for (api, whole) in manifest.api.iter().zip(&whole) {
        assert!(api.parameters.is_composed(), "{}", api.name);
        assert_eq!(&serde_json::to_string(api).unwrap(), whole);
    }
    assert_eq!(
        manifest.api[1].parameters["properties"]["top"],
        json!({"type": "integer", "minimum": 1, "description": "How many."})
    );
    // Validated against the whole schema, as before.
    let schema =
        tool_core::pipeline::CompiledSchema::compile(&manifest.api[1].parameters_schema()).unwrap();
    assert!(schema.is_valid(&json!({"id": "g", "top": 3})));
    assert!(!schema.is_valid(&json!({"id": "g", "top": 0})));
    assert!(!schema.is_valid(&json!({"top": 3})));
}

#[test]
fn a_body_schema_split_once_is_required_and_named_per_operation() {
    let pet = |required: bool| {
        json!({"required": required, "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/Pet"}}}})
    };
    let doc = json!({"openapi": "3.0.3", "info": {"title": "T", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "components": {"schemas": {"Pet": {"type": "object", "required": ["name"],
            "properties": {"name": {"type": "string"}, "tag": {"type": "string"}}}}},
        "paths": {
            "/pets": {"post": {"operationId": "create", "requestBody": pet(true), "responses": {}}},
            "/pets/{name}": {"patch": {"operationId": "update", "requestBody": pet(false),
                "parameters": [{"name": "name", "in": "path", "required": true,
                    "schema": {"type": "integer"}}],
                "responses": {}}}}});
    let import = tool_openapi::import_value(&doc, &ImportOptions::new()).unwrap();
    let manifest = compile_manifest(&import.document, "pets").unwrap();
    let create = manifest.api("create").unwrap();
    assert_eq!(create.parameters["required"], json!(["name"]));
    assert_eq!(
        create.parameters["properties"]["name"],
        json!({"type": "string"})
    );
    // The same split, not required, its `name` renamed beside the path's.
    let update = manifest.api("update").unwrap();
    assert_eq!(update.parameters["required"], json!(["name"]));
    let names: Vec<&String> = update.parameters["properties"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(names, ["name", "body_name", "tag"]);
    assert_eq!(
        update.parameters["properties"]["name"],
        json!({"type": "integer"})
    );
}
