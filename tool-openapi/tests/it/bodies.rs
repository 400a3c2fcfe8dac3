//! Request bodies other than JSON, and responses that are not JSON,
//! against a real HTTP server on 127.0.0.1 (axum, started here).

use std::net::SocketAddr;

use axum::Router;
use axum::body::{Bytes, to_bytes};
use axum::extract::Request;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use tool_core::{
    Confinement, ContentPart, Invoker, ProviderFormat, ToolCall, ToolContext, ToolOutput,
    ToolRegistry, manifest::NameRules,
};
use tool_openapi::{ImportOptions, OpenApiTool, SsrfGuard, SsrfPolicy, import_value};

async fn start() -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let router = Router::new()
        .route("/form", post(form))
        .route("/upload", post(upload))
        .route("/upload-encoded", post(upload))
        .route("/raw", post(raw))
        .route("/raw-file", post(raw))
        .route("/analyze", post(raw))
        .route("/multipart-text", post(upload))
        .route("/vendor", post(raw))
        .route("/typed", post(raw))
        .route("/typed-xml", post(raw))
        .route("/typed-narrow", post(raw))
        .route("/optional-body", post(raw))
        .route("/required-body", post(raw))
        .route("/redirect-upload", post(redirect_upload))
        .route("/image", get(image))
        .route("/pdf", get(pdf))
        .route("/zip", get(zip))
        .route("/xml", get(xml))
        .route("/text", get(text));
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    addr
}

/// The pairs as the server's form decoder reads them.
async fn form(
    headers: HeaderMap,
    axum::Form(pairs): axum::Form<Vec<(String, String)>>,
) -> Response {
    axum::Json(json!({"contentType": content_type(&headers), "pairs": pairs})).into_response()
}

/// The parts of a multipart body, split by the boundary its header names.
async fn upload(headers: HeaderMap, body: Bytes) -> Response {
    let content_type = content_type(&headers);
    let Some(boundary) = content_type.split("boundary=").nth(1) else {
        return (StatusCode::BAD_REQUEST, "no boundary").into_response();
    };
    let delimiter = format!("--{boundary}");
    let text = String::from_utf8_lossy(&body).into_owned();
    let Some(rest) = text.strip_suffix(&format!("{delimiter}--\r\n")) else {
        return (StatusCode::BAD_REQUEST, "no closing delimiter").into_response();
    };
    let mut parts = Vec::new();
    for chunk in rest.split(&format!("{delimiter}\r\n")).skip(1) {
        let (head, content) = chunk.split_once("\r\n\r\n").unwrap();
        let content = content.strip_suffix("\r\n").unwrap();
        let field = |key: &str| {
            head.split(&format!("{key}=\""))
                .nth(1)
                .and_then(|v| v.split('"').next())
        };
        let part_type = head.lines().find_map(|l| l.strip_prefix("Content-Type: "));
        let mut part = json!({"name": field("; name"), "filename": field("filename"),
            "contentType": part_type, "content": content});
        // Any other part header, by name (only when there is one).
        let others: serde_json::Map<String, Value> = head
            .lines()
            .filter_map(|l| l.split_once(": "))
            .filter(|(k, _)| {
                !k.eq_ignore_ascii_case("content-type")
                    && !k.eq_ignore_ascii_case("content-disposition")
            })
            .map(|(k, v)| (k.to_owned(), json!(v)))
            .collect();
        if !others.is_empty() {
            part["headers"] = Value::Object(others);
        }
        parts.push(part);
    }
    axum::Json(json!({"parts": parts})).into_response()
}

async fn raw(headers: HeaderMap, body: Bytes) -> Response {
    let all: Vec<&str> = headers
        .get_all(header::CONTENT_TYPE)
        .iter()
        .map(|v| v.to_str().unwrap_or("?"))
        .collect();
    axum::Json(json!({
        "contentType": content_type(&headers), "contentTypes": all, "bytes": body.to_vec()
    }))
    .into_response()
}

async fn redirect_upload(request: Request) -> Response {
    let _ = to_bytes(request.into_body(), 1 << 20).await;
    (
        StatusCode::TEMPORARY_REDIRECT,
        [(header::LOCATION, "http://10.0.0.1/upload")],
    )
        .into_response()
}

async fn image() -> Response {
    (
        [(header::CONTENT_TYPE, "image/png")],
        vec![0x89, b'P', b'N', b'G', 0, 0, 0xff],
    )
        .into_response()
}

async fn pdf() -> Response {
    (
        [
            (header::CONTENT_TYPE, "application/pdf"),
            (
                header::CONTENT_DISPOSITION,
                "attachment; filename=\"invoice-7.pdf\"",
            ),
        ],
        b"%PDF-1.7\n\x00\xff".to_vec(),
    )
        .into_response()
}

async fn zip() -> Response {
    (
        [(header::CONTENT_TYPE, "application/zip")],
        vec![b'P', b'K', 3, 4, 0, 0xff],
    )
        .into_response()
}

async fn xml() -> Response {
    (
        [(header::CONTENT_TYPE, "application/xml")],
        "<ok>{\"not\": \"json\"}</ok>",
    )
        .into_response()
}

async fn text() -> Response {
    ([(header::CONTENT_TYPE, "text/plain")], "42").into_response()
}

fn content_type(headers: &HeaderMap) -> String {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned()
}

fn document(addr: SocketAddr) -> Value {
    let binary = json!({"type": "string", "format": "binary"});
    json!({
        "openapi": "3.0.3",
        "info": {"title": "Bodies", "version": "1"},
        "servers": [{"url": format!("http://{addr}")}],
        "paths": {
            "/form": {"post": {"operationId": "form", "requestBody": {"required": true, "content": {
                "application/x-www-form-urlencoded": {
                    "schema": {"type": "object", "required": ["amount"], "properties": {
                        "amount": {"type": "integer"},
                        "currency": {"type": "string"},
                        "tags": {"type": "array", "items": {"type": "string"}},
                        "metadata": {"type": "object", "additionalProperties": {"type": "string"}},
                        "ids": {"type": "array", "items": {"type": "integer"}}}},
                    "encoding": {"metadata": {"style": "deepObject"}, "ids": {"explode": false}}}}}}},
            "/upload": {"post": {"operationId": "upload", "requestBody": {"content": {
                "multipart/form-data": {
                    "schema": {"type": "object", "properties": {
                        "title": {"type": "string"},
                        "meta": {"type": "object", "properties": {"k": {"type": "string"}}},
                        "file": binary,
                        "extra": {"type": "array", "items": binary}}},
                    "encoding": {"file": {"contentType": "text/csv"}}}}}}},
            "/upload-encoded": {"post": {"operationId": "uploadEncoded", "requestBody": {"content": {
                "multipart/form-data": {
                    "schema": {"type": "object", "properties": {
                        "title": {"type": "string"},
                        "meta": {"type": "object", "properties": {"k": {"type": "string"}}},
                        "tags": {"type": "array", "items": {"type": "string"}},
                        "count": {"type": "integer"},
                        "file": binary}},
                    "encoding": {
                        "title": {"contentType": "text/markdown", "headers": {
                            "X-Rate-Limit": {"schema": {"type": "integer", "const": 5}},
                            "X-Lang": {"schema": {"type": "string", "enum": ["en"]}},
                            "X-Trace": {"required": true, "schema": {"type": "string"}},
                            "Content-Type": {"schema": {"type": "string", "default": "text/html"}}}},
                        "meta": {"contentType": "application/vnd.acme+json"},
                        "tags": {"contentType": "text/plain", "headers": {
                            "X-Item": {"schema": {"type": "boolean", "default": true}}}},
                        "count": {"contentType": "image/png, image/jpeg"},
                        "file": {"contentType": "image/png", "headers": {
                            "X-Checksum": {"schema": {"type": "string", "default": "abc"}}}}}}}}}},
            "/raw": {"post": {"operationId": "sendXml", "requestBody": {"required": true, "content": {
                "application/xml": {"schema": {"type": "object", "properties": {"a": {"type": "string"}}}}}}}},
            "/raw-file": {"post": {"operationId": "sendFile", "requestBody": {"required": true, "content": {
                "application/octet-stream": {"schema": binary}}}}},
            "/redirect-upload": {"post": {"operationId": "redirected", "requestBody": {"content": {
                "multipart/form-data": {"schema": {"type": "object", "properties": {"file": binary}}}}}}},
            "/analyze": {"post": {"operationId": "analyzeImageInStream", "requestBody": {"required": true, "content": {
                "multipart/form-data": {"schema": binary},
                "application/octet-stream": {"schema": binary}}}}},
            "/multipart-text": {"post": {"operationId": "multipartText", "requestBody": {"required": true, "content": {
                "multipart/form-data": {"schema": {"type": "string"}}}}}},
            "/vendor": {"post": {"operationId": "vendor", "requestBody": {"content": {
                "application/vnd.docker.distribution.manifest.v2+json": {"schema": {"type": "object", "properties": {
                    "schemaVersion": {"type": "integer"}}}}}}}},
            "/optional-body": {"post": {"operationId": "optionalBody", "parameters": [
                {"name": "lang", "in": "query", "schema": {"type": "string"}}],
                "requestBody": {"content": {"application/json": {"schema": {
                    "type": "object", "required": ["txnId"], "properties": {
                        "txnId": {"type": "string"}, "format": {"type": "string"}}}}}}}},
            "/required-body": {"post": {"operationId": "requiredBody", "requestBody": {"required": true, "content": {
                "application/json": {"schema": {"type": "object", "required": ["id"], "properties": {
                    "id": {"type": "string", "readOnly": true},
                    "description": {"type": "string"}}}}}}}},
            "/image": {"get": {"operationId": "image"}},
            "/pdf": {"get": {"operationId": "pdf"}},
            "/zip": {"get": {"operationId": "zip"}},
            "/xml": {"get": {"operationId": "xml"}},
            "/text": {"get": {"operationId": "text"}}
        }
    })
}

struct Fixture {
    registry: ToolRegistry,
    workspace: tempfile::TempDir,
}

async fn setup() -> Fixture {
    let addr = start().await;
    let import = import_value(&document(addr), &ImportOptions::new()).unwrap();
    assert!(import.failures.is_empty(), "{:?}", import.failures);
    let workspace = tempfile::tempdir().unwrap();
    std::fs::write(workspace.path().join("report.csv"), "a,b\n1,2\n").unwrap();
    std::fs::write(workspace.path().join("blob.bin"), [0u8, 1, 2, 255, 13, 10]).unwrap();
    let guard = SsrfGuard::new(SsrfPolicy::default().allow("127.0.0.1").unwrap());
    let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
    OpenApiTool::builder(import.document, "bodies")
        .guard(guard)
        .workspace(workspace.path())
        .max_upload_bytes(1024)
        .register(&mut registry)
        .unwrap();
    Fixture {
        registry,
        workspace,
    }
}

async fn call(fixture: &Fixture, api: &str, args: Value) -> ToolOutput {
    call_in(fixture, api, args, &ToolContext::new()).await
}

async fn call_in(fixture: &Fixture, api: &str, args: Value, ctx: &ToolContext) -> ToolOutput {
    Invoker::default()
        .invoke_in(
            &fixture.registry,
            &ToolCall::new(format!("bodies____{api}"), args.to_string()),
            ctx,
        )
        .await
}

fn body(out: &ToolOutput) -> &Value {
    assert!(out.success, "{out:?}");
    &out.state.as_ref().unwrap()["body"]
}

#[tokio::test]
async fn form_bodies_are_decoded_by_the_server_with_their_encoding_styles() {
    let fixture = setup().await;
    let out = call(
        &fixture,
        "form",
        json!({"amount": 500, "currency": "eur & co", "tags": ["a", "b"],
               "metadata": {"order": "7"}, "ids": [1, 2]}),
    )
    .await;
    let body = body(&out);
    assert_eq!(body["contentType"], "application/x-www-form-urlencoded");
    assert_eq!(
        body["pairs"],
        json!([
            ["amount", "500"],
            ["currency", "eur & co"],
            ["tags", "a"],
            ["tags", "b"],
            ["metadata[order]", "7"],
            ["ids", "1,2"]
        ])
    );
}

#[tokio::test]
async fn multipart_uploads_workspace_files_beside_text_and_json_parts() {
    let fixture = setup().await;
    let manifest = fixture.registry.get("bodies").unwrap().manifest().clone();
    let upload = manifest.api.iter().find(|a| a.name == "upload").unwrap();
    let role = |schema: &Value| tool_core::approval::ArgRole::of(schema);
    assert_eq!(
        role(&upload.parameters["properties"]["file"]),
        Some(tool_core::approval::ArgRole::Path)
    );
    assert_eq!(
        role(&upload.parameters["properties"]["extra"]["items"]),
        Some(tool_core::approval::ArgRole::Path)
    );
    assert_eq!(upload.parameters["properties"]["file"]["x-role"], "path");
    let out = call(
        &fixture,
        "upload",
        json!({"title": "Q3", "meta": {"k": "v"}, "file": "report.csv", "extra": ["blob.bin", "report.csv"]}),
    )
    .await;
    let parts = &body(&out)["parts"];
    assert_eq!(
        parts[0],
        json!({"name": "title", "filename": null, "contentType": null, "content": "Q3"})
    );
    assert_eq!(parts[1]["contentType"], "application/json");
    assert_eq!(parts[1]["content"], r#"{"k":"v"}"#);
    assert_eq!(
        parts[2],
        json!({"name": "file", "filename": "report.csv", "contentType": "text/csv", "content": "a,b\n1,2\n"})
    );
    assert_eq!(parts[3]["filename"], "blob.bin");
    assert_eq!(parts[3]["contentType"], "application/octet-stream");
    assert_eq!(parts[4]["filename"], "report.csv");
    assert_eq!(parts.as_array().unwrap().len(), 5);
}

/// Each part carries its field's `encoding`: the `contentType` and the
/// part headers whose value the document fixes, checked as the server
/// splits the parts.
#[tokio::test]
async fn multipart_parts_carry_their_encoding_content_type_and_headers() {
    let addr = start().await;
    let import = import_value(&document(addr), &ImportOptions::new()).unwrap();
    let warned = |needle: &str| {
        import
            .warnings
            .iter()
            .any(|w| w.to_string().contains(needle))
    };
    assert!(
        warned("part header `X-Trace` has no value"),
        "{:?}",
        import.warnings
    );
    assert!(
        warned("part header `Content-Type` is ignored"),
        "{:?}",
        import.warnings
    );
    let fixture = setup().await;
    let out = call(
        &fixture,
        "uploadEncoded",
        json!({"title": "# Q3", "meta": {"k": "v"}, "tags": ["a", "b"], "count": 2, "file": "report.csv"}),
    )
    .await;
    let parts = &body(&out)["parts"];
    assert_eq!(
        parts[0],
        json!({"name": "title", "filename": null, "contentType": "text/markdown", "content": "# Q3",
            "headers": {"X-Lang": "en", "X-Rate-Limit": "5"}}),
        "{parts}"
    );
    assert_eq!(parts[1]["contentType"], "application/vnd.acme+json");
    assert_eq!(parts[1]["content"], r#"{"k":"v"}"#);
    assert!(parts[1].get("headers").is_none(), "{parts}");
    for (index, item) in [(2, "a"), (3, "b")] {
        assert_eq!(
            parts[index],
            json!({"name": "tags", "filename": null, "contentType": null, "content": item,
                "headers": {"X-Item": "true"}}),
            "{parts}"
        );
    }
    // A list of types names none to send.
    assert_eq!(
        parts[4],
        json!({"name": "count", "filename": null, "contentType": null, "content": "2"}),
        "{parts}"
    );
    assert_eq!(
        parts[5],
        json!({"name": "file", "filename": "report.csv", "contentType": "image/png",
            "content": "a,b\n1,2\n", "headers": {"X-Checksum": "abc"}}),
        "{parts}"
    );
    assert_eq!(parts.as_array().unwrap().len(), 6);
}

#[tokio::test]
async fn file_arguments_outside_the_workspace_missing_or_too_large_send_nothing() {
    let fixture = setup().await;
    let outside = fixture.workspace.path().parent().unwrap().join("x");
    for (path, code) in [
        ("../escape.txt", "file_unreadable"),
        (outside.to_str().unwrap(), "file_unreadable"),
        ("missing.csv", "file_unreadable"),
    ] {
        let out = call(&fixture, "upload", json!({"file": path})).await;
        assert_eq!(out.error_code().unwrap(), code, "{path}: {out:?}");
    }
    std::fs::write(
        fixture
            .workspace
            .path()
            .parent()
            .unwrap()
            .join("secret-upload"),
        "s",
    )
    .unwrap();
    let out = call(&fixture, "upload", json!({"file": "../secret-upload"})).await;
    assert_eq!(out.error_code().unwrap(), "file_refused", "{out:?}");
    assert!(
        out.content.contains("outside the workspace"),
        "{}",
        out.content
    );
    std::fs::write(fixture.workspace.path().join("big.bin"), vec![7u8; 2048]).unwrap();
    let out = call(&fixture, "sendFile", json!({"body": "big.bin"})).await;
    assert_eq!(out.error_code().unwrap(), "file_unreadable");
    assert!(
        out.content.contains("upload limit of 1024"),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn text_and_binary_bodies_are_sent_as_given_with_their_media_type() {
    let fixture = setup().await;
    let out = call(&fixture, "sendXml", json!({"body": "<a>1 &amp; 2</a>"})).await;
    let xml = body(&out);
    assert_eq!(xml["contentType"], "application/xml");
    assert_eq!(xml["bytes"], json!(b"<a>1 &amp; 2</a>".to_vec()));
    let out = call(&fixture, "sendFile", json!({"body": "blob.bin"})).await;
    let file = body(&out);
    assert_eq!(file["contentType"], "application/octet-stream");
    assert_eq!(file["bytes"], json!([0, 1, 2, 255, 13, 10]));
}

#[tokio::test]
async fn an_upload_redirected_to_a_private_address_is_blocked() {
    let fixture = setup().await;
    let out = call(&fixture, "redirected", json!({"file": "report.csv"})).await;
    assert_eq!(out.error_code().unwrap(), "ssrf_blocked", "{out:?}");
    assert!(out.content.contains("10.0.0.1"), "{}", out.content);
}

#[tokio::test]
async fn text_responses_that_are_not_json_come_back_as_text() {
    let fixture = setup().await;
    let out = call(&fixture, "xml", json!({})).await;
    assert_eq!(body(&out), &json!("<ok>{\"not\": \"json\"}</ok>"));
    assert_eq!(out.content, "<ok>{\"not\": \"json\"}</ok>");
    let out = call(&fixture, "text", json!({})).await;
    assert_eq!(
        body(&out),
        &json!("42"),
        "text/plain stays text, not the number 42"
    );
}

#[tokio::test]
async fn an_image_response_reaches_the_model_as_an_image_part() {
    let fixture = setup().await;
    let out = call(&fixture, "image", json!({})).await;
    let image = body(&out);
    assert_eq!(image["kind"], "image");
    assert_eq!(image["contentType"], "image/png");
    assert_eq!(image["bytes"], 7);
    assert_eq!(out.content, "[image: image/png, 7 bytes]");
    assert_eq!(
        out.parts(),
        vec![ContentPart::image_base64("image/png", "iVBORwAA/w==")]
    );
    // The provider exports carry it to the model.
    let mut call = ToolCall::new("bodies____image", "{}");
    call.ensure_id();
    for format in [ProviderFormat::Anthropic, ProviderFormat::OpenAiChat] {
        let messages = format
            .tool_results(std::slice::from_ref(&call), std::slice::from_ref(&out))
            .unwrap();
        let text = serde_json::to_string(&messages).unwrap();
        assert!(text.contains("iVBORwAA/w=="), "{format:?}: {text}");
    }
}

#[tokio::test]
async fn a_pdf_response_is_a_file_part_named_by_its_disposition() {
    let fixture = setup().await;
    let out = call(&fixture, "pdf", json!({})).await;
    assert_eq!(body(&out)["name"], "invoice-7.pdf");
    assert_eq!(
        out.content,
        "[file: invoice-7.pdf, application/pdf, 11 bytes]"
    );
    let parts = out.parts();
    assert!(
        matches!(&parts[..], [ContentPart::File { mime_type, name: Some(name), data: Some(_), .. }]
            if mime_type == "application/pdf" && name == "invoice-7.pdf"),
        "{parts:?}"
    );
}

#[tokio::test]
async fn other_binary_responses_are_a_summary_with_the_binary_response_code() {
    let fixture = setup().await;
    let out = call(&fixture, "zip", json!({})).await;
    assert!(out.success, "a binary answer is not a failure: {out:?}");
    assert!(
        out.content
            .starts_with("binary_response: 6 bytes of application/zip"),
        "{}",
        out.content
    );
    assert!(!out.has_parts());
    let zip = body(&out);
    assert_eq!(zip["code"], tool_openapi::codes::BINARY_RESPONSE.as_str());
    assert_eq!(zip["base64"], "UEsDBAD/");
    assert_eq!(zip["bytes"], 6);
}

#[tokio::test]
async fn file_operations_touch_the_host_and_confined_calls_never_read_secrets() {
    let fixture = setup().await;
    let manifest = fixture.registry.get("bodies").unwrap().manifest().clone();
    let touching: Vec<&str> = manifest
        .api
        .iter()
        .filter(|a| a.touches_host)
        .map(|a| a.name.as_str())
        .collect();
    assert_eq!(
        touching,
        [
            "upload",
            "uploadEncoded",
            "sendFile",
            "redirected",
            "analyzeImageInStream"
        ]
    );

    let dir = fixture.workspace.path();
    std::fs::write(dir.join(".env"), "TOKEN=s3cr3t\n").unwrap();
    std::fs::write(dir.join("deploy.key"), "-----BEGIN KEY-----").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.join(".env"), dir.join("notes.txt")).unwrap();
    for confinement in [Confinement::read_only(), Confinement::workspace_write()] {
        let ctx = ToolContext::new().with_extension(confinement.clone());
        let mut cases = vec![
            ("upload", json!({"file": ".env"})),
            (
                "upload",
                json!({"file": "report.csv", "extra": ["deploy.key"]}),
            ),
            ("sendFile", json!({"body": ".env"})),
        ];
        if cfg!(unix) {
            // Reached through a link: judged on what is read.
            cases.push(("sendFile", json!({"body": "notes.txt"})));
        }
        for (api, args) in cases {
            let out = call_in(&fixture, api, args.clone(), &ctx).await;
            assert_eq!(
                out.error_code().unwrap(),
                "confinement_refused",
                "{api} {args} under {confinement:?}: {out:?}"
            );
            assert!(out.content.contains("secret"), "{}", out.content);
            assert!(out.content.contains("Nothing was sent"), "{}", out.content);
            assert!(!out.content.contains("s3cr3t"));
        }
        // Ordinary workspace files still go.
        let out = call_in(&fixture, "upload", json!({"file": "report.csv"}), &ctx).await;
        assert!(out.success, "{out:?}");
    }
    // Unconfined (full access, or no confinement at all): the workspace
    // rule alone applies.
    for ctx in [
        ToolContext::new(),
        ToolContext::new().with_extension(Confinement::FullAccess),
    ] {
        let out = call_in(&fixture, "sendFile", json!({"body": ".env"}), &ctx).await;
        assert!(out.success, "{out:?}");
    }
}

#[tokio::test]
async fn a_multipart_body_that_is_not_an_object_goes_as_the_offered_octet_stream() {
    let fixture = setup().await;
    let out = call(
        &fixture,
        "analyzeImageInStream",
        json!({"body": "blob.bin"}),
    )
    .await;
    let sent = body(&out);
    assert_eq!(sent["contentType"], "application/octet-stream");
    assert_eq!(sent["bytes"], json!([0, 1, 2, 255, 13, 10]));
}

#[tokio::test]
async fn a_multipart_body_with_no_other_type_is_still_framed_with_a_boundary() {
    let fixture = setup().await;
    let out = call(&fixture, "multipartText", json!({"body": "hello"})).await;
    let sent = body(&out);
    assert_eq!(sent["parts"][0]["name"], "body", "{sent}");
    assert_eq!(sent["parts"][0]["content"], "hello", "{sent}");
}

/// One `Content-Type` arrives, the body's declared media type, whatever
/// the provider's headers or the document's header parameters say.
#[tokio::test]
async fn the_body_media_type_is_the_only_content_type_sent() {
    let addr = start().await;
    let content_type_param = json!([{"name": "Content-Type", "in": "header", "required": true,
        "schema": {"type": "string", "enum": ["application/x-tar"]}}]);
    let document = json!({
        "openapi": "3.0.3",
        "info": {"title": "Typed", "version": "1"},
        "servers": [{"url": format!("http://{addr}")}],
        "paths": {
            "/typed": {"post": {"operationId": "typed", "parameters": content_type_param,
                "requestBody": {"content": {"application/json": {"schema": {
                    "type": "object", "properties": {"a": {"type": "string"}}}}}}}},
            "/typed-xml": {"post": {"operationId": "typedXml", "parameters": content_type_param,
                "requestBody": {"required": true, "content": {"application/xml": {"schema": {
                    "type": "object", "properties": {"a": {"type": "string"}}}}}}}}
        }
    });
    let import = import_value(&document, &ImportOptions::new()).unwrap();
    assert!(
        import
            .warnings
            .iter()
            .any(|w| w.to_string().contains("`Content-Type` is ignored")),
        "{:?}",
        import.warnings
    );
    let narrow = json!({
        "server": format!("http://{addr}"), "description": "d",
        "paths": {"/typed-narrow": {"post": {"operationId": "typedNarrow", "parameters": [
            {"name": "Content-Type", "in": "header", "type": "str"},
            {"name": "a", "in": "request_body", "type": "str"}]}}}
    });
    let (narrow, _) = tool_openapi::parse_narrow(&narrow.to_string()).unwrap();
    let guard = SsrfGuard::new(SsrfPolicy::default().allow("127.0.0.1").unwrap());
    let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
    for (document, name) in [(import.document, "typed"), (narrow, "narrow")] {
        OpenApiTool::builder(document, name)
            .guard(guard.clone())
            .header("Content-Type", "text/plain")
            .unwrap()
            .register(&mut registry)
            .unwrap();
    }
    for (api, args, expected) in [
        ("typed____typed", json!({"a": "x"}), "application/json"),
        (
            "typed____typedXml",
            json!({"body": "<a>x</a>"}),
            "application/xml",
        ),
        (
            "narrow____typedNarrow",
            json!({"Content-Type": "application/x-tar", "a": "x"}),
            "application/json",
        ),
    ] {
        let out = Invoker::default()
            .invoke_in(
                &registry,
                &ToolCall::new(api, args.to_string()),
                &ToolContext::new(),
            )
            .await;
        let sent = body(&out);
        assert_eq!(sent["contentTypes"], json!([expected]), "{api}: {sent}");
    }
}

#[tokio::test]
async fn a_vendor_json_body_is_sent_with_its_own_media_type() {
    let fixture = setup().await;
    let out = call(&fixture, "vendor", json!({"schemaVersion": 2})).await;
    let sent = body(&out);
    assert_eq!(
        sent["contentType"],
        "application/vnd.docker.distribution.manifest.v2+json"
    );
    let bytes: Vec<u8> = serde_json::from_value(sent["bytes"].clone()).unwrap();
    assert_eq!(
        serde_json::from_slice::<Value>(&bytes).unwrap(),
        json!({"schemaVersion": 2})
    );
}

#[tokio::test]
async fn an_optional_body_given_needs_its_required_properties() {
    let fixture = setup().await;
    let api = fixture
        .registry
        .get("bodies")
        .unwrap()
        .manifest()
        .api
        .iter()
        .find(|a| a.name == "optionalBody")
        .unwrap()
        .parameters_schema()
        .into_owned();
    assert_eq!(
        api["dependentRequired"],
        json!({"format": ["txnId"]}),
        "{api}"
    );
    assert!(
        api.get("required").is_none(),
        "the body stays optional: {api}"
    );
    // A body missing `txnId` is refused before anything is sent.
    let out = call(&fixture, "optionalBody", json!({"format": "pdf"})).await;
    assert_eq!(out.error_code().unwrap(), "invalid_arguments", "{out:?}");
    assert!(out.content.contains("txnId"), "{}", out.content);
    // No body at all is fine; so is a body with it.
    let out = call(&fixture, "optionalBody", json!({"lang": "en"})).await;
    assert_eq!(body(&out)["bytes"], json!([]));
    let out = call(
        &fixture,
        "optionalBody",
        json!({"format": "pdf", "txnId": "t1"}),
    )
    .await;
    let bytes: Vec<u8> = serde_json::from_value(body(&out)["bytes"].clone()).unwrap();
    assert_eq!(
        serde_json::from_slice::<Value>(&bytes).unwrap(),
        json!({"txnId": "t1", "format": "pdf"})
    );
}

#[tokio::test]
async fn a_required_body_whose_schema_requires_nothing_is_sent_as_an_empty_object() {
    let fixture = setup().await;
    // Its one required property is read-only: the server's, never an argument.
    let schema = fixture
        .registry
        .get("bodies")
        .unwrap()
        .manifest()
        .api
        .iter()
        .find(|a| a.name == "requiredBody")
        .unwrap()
        .parameters_schema()
        .into_owned();
    assert!(schema["properties"].get("id").is_none(), "{schema}");
    assert!(schema.get("required").is_none(), "{schema}");
    let out = call(&fixture, "requiredBody", json!({})).await;
    let sent = body(&out);
    assert_eq!(sent["contentType"], "application/json");
    assert_eq!(sent["bytes"], json!(b"{}".to_vec()));
}
