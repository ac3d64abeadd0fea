//! The spec parser and checker on arbitrary bytes: a spec or diagnostics,
//! never a panic, a hang or a label outside the text.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let compilation = singletable::Compiler::new()
        .source("fuzz.yaml", text.as_ref())
        .compile();
    assert!(compilation.specs.len() == 1 || compilation.has_errors());
    for d in compilation.diagnostics.iter() {
        assert!(!d.message.is_empty());
        for label in &d.labels {
            assert!(label.span.end as usize <= text.len());
        }
    }
    let report = compilation.report();
    let _ = report.to_text();
    let _ = report.to_json();
    if !compilation.has_errors() {
        for compiled in &compilation.specs {
            let _ = singletable::emit::rust::render_rust(&compiled.spec, "fuzz.yaml");
        }
    }
});
