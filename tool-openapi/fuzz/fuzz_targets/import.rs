//! The OpenAPI importer (JSON or YAML) on arbitrary text: never panics,
//! never hangs on reference loops; what imports compiles. Loading a text
//! (JSON parsed into the importer's borrowed tree) gives exactly what
//! loading its `serde_json::Value` gives: the same document, warnings and
//! failures, or the same error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_openapi::{ImportOptions, compile_manifest, load_document, load_value, parse_text};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let options = ImportOptions::new().max_bytes(1 << 20);
    let loaded = load_document(text, &options);
    if let Ok(loaded) = &loaded {
        let _ = compile_manifest(loaded.document(), "fuzz");
    }
    let through_value = parse_text(text, 1 << 20).and_then(|value| load_value(&value, &options));
    assert_eq!(loaded, through_value, "text and Value loads differ");
});
