//! Property tests (run in CI): the narrow parser on generated documents,
//! and the SSRF guard on every spelling of random IPv4 addresses.

use std::net::Ipv4Addr;

use proptest::prelude::*;
use serde_json::{Value, json};
use tool_openapi::{SsrfGuard, classify, compile_manifest, validate_narrow};

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(|n| json!(n)),
        "[a-z{}/ ._-]{0,12}".prop_map(Value::String),
        prop_oneof![
            Just("str"),
            Just("int"),
            Just("path"),
            Just("query"),
            Just("get"),
            Just("post")
        ]
        .prop_map(|s| Value::String(s.to_owned())),
    ];
    leaf.prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("name".to_owned()),
                    Just("in".to_owned()),
                    Just("type".to_owned()),
                    Just("required".to_owned()),
                    Just("operationId".to_owned()),
                    Just("parameters".to_owned()),
                    Just("description".to_owned()),
                    "[a-z/{}]{1,6}",
                ],
                inner,
                0..5
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn parameter() -> impl Strategy<Value = Value> {
    (
        "[a-z]{1,3}",
        prop_oneof![
            Just("path"),
            Just("query"),
            Just("header"),
            Just("cookie"),
            Just("request_body"),
            Just("body")
        ],
        prop_oneof![
            Just("str"),
            Just("int"),
            Just("float"),
            Just("bool"),
            Just("string")
        ],
        prop::option::of(any::<bool>()),
    )
        .prop_map(|(name, location, kind, required)| {
            let mut p = json!({"name": name, "in": location, "type": kind});
            if let Some(r) = required {
                p["required"] = json!(r);
            }
            p
        })
}

fn narrow_document() -> impl Strategy<Value = Value> {
    let operation = (
        prop::option::of("[a-zA-Z]{1,4}"),
        prop::collection::vec(parameter(), 0..4),
    )
        .prop_map(|(id, params)| {
            let mut op = json!({"description": "d", "parameters": params});
            if let Some(id) = id {
                op["operationId"] = json!(id);
            }
            op
        });
    let methods = prop::collection::btree_map(
        prop_oneof![Just("get"), Just("post"), Just("delete"), Just("options")],
        operation,
        1..3,
    );
    let paths = prop::collection::btree_map(
        prop_oneof![Just("/a"), Just("/a/{a}"), Just("/b/{b}/{c}"), Just("x")],
        methods,
        1..3,
    );
    (
        prop_oneof![Just("https://api.example.com"), Just("ftp://x"), Just("")],
        paths,
    )
        .prop_map(|(server, paths)| json!({"server": server, "description": "d", "paths": paths}))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        let v = validate_narrow(&text);
        prop_assert_eq!(v.document.is_some(), v.errors.is_empty());
    }

    #[test]
    fn arbitrary_json_never_panics_and_every_error_has_a_pointer(value in json_value()) {
        let v = validate_narrow(&value.to_string());
        prop_assert_eq!(v.document.is_some(), v.errors.is_empty());
        for error in &v.errors {
            prop_assert!(error.pointer.is_empty() || error.pointer.starts_with('/'));
            prop_assert!(!error.message.is_empty());
        }
    }

    #[test]
    fn generated_documents_validate_or_explain_and_valid_ones_compile(doc in narrow_document()) {
        let v = validate_narrow(&doc.to_string());
        match v.document {
            Some(document) => {
                let manifest = compile_manifest(&document, "p").unwrap();
                prop_assert_eq!(manifest.api.len(), document.operations.len());
                for api in &manifest.api {
                    tool_core::pipeline::CompiledSchema::compile(&api.parameters).unwrap();
                }
            }
            None => prop_assert!(!v.errors.is_empty()),
        }
    }

    #[test]
    fn every_spelling_of_an_ipv4_address_is_judged_alike(n in any::<u32>()) {
        let ip = Ipv4Addr::from(n);
        let guard = SsrfGuard::default();
        let expected = classify(ip.into());
        let [a, b, c, d] = ip.octets();
        for spelling in [
            ip.to_string(),
            n.to_string(),
            format!("0x{n:x}"),
            format!("0{n:o}"),
            format!("{a}.{}", (u32::from(b) << 16) | (u32::from(c) << 8) | u32::from(d)),
            format!("0x{a:x}.0x{b:x}.0x{c:x}.0x{d:x}"),
            format!("0{a:o}.0{b:o}.0{c:o}.0{d:o}"),
            format!("[::ffff:{ip}]"),
        ] {
            let result = guard.check_url(&format!("http://{spelling}/"));
            match expected {
                Some(class) => {
                    let blocked = result.expect_err(&spelling);
                    prop_assert_eq!(blocked.class(), Some(class), "{}", spelling);
                }
                None => prop_assert!(result.is_ok(), "{} should pass", spelling),
            }
        }
    }
}
