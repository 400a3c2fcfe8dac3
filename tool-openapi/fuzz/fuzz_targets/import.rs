//! The OpenAPI importer (JSON or YAML) on arbitrary text: never panics,
//! never hangs on reference loops; what imports compiles.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_openapi::{ImportOptions, compile_manifest, load_document};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(loaded) = load_document(text, &ImportOptions::new().max_bytes(1 << 20)) {
        let _ = compile_manifest(&loaded.import.document, "fuzz");
    }
});
