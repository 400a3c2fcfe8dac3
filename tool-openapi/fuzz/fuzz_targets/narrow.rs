//! The narrow parser on arbitrary text: never panics; a valid document
//! compiles, round-trips through its stored form, and re-validates.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_openapi::{ApiDocument, compile_manifest, validate_narrow};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let validation = validate_narrow(text);
    assert_eq!(validation.document.is_some(), validation.errors.is_empty());
    if let Some(document) = validation.document {
        let manifest = compile_manifest(&document, "fuzz");
        assert!(
            manifest.is_ok(),
            "a valid narrow document must compile: {manifest:?}"
        );
        let stored = serde_json::to_string(&document).unwrap();
        let back: ApiDocument = serde_json::from_str(&stored).unwrap();
        assert_eq!(back, document);
    }
});
