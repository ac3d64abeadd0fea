//! Grammar-aware: the fuzzer's bytes are the choices of a spec generator
//! (`schema-compiler/tests/support/grammar.rs`, shared with the
//! `grammar` test), so inputs are specs in every corner of the format:
//! every section and attribute type, every sort-key operator, numeric
//! extremes, unsafe tenant patterns, deep lists, huge enums and templates
//! of hundreds of placeholders. Each is compiled; each spec without errors
//! goes through every emitter and `explain`.
#![no_main]

#[path = "../../schema-compiler/tests/support/grammar.rs"]
mod grammar;

use libfuzzer_sys::fuzz_target;
use singletable::emit::{self, iam::IamOptions};
use singletable::{explain, Compiler};

fuzz_target!(|data: &[u8]| {
    let text = grammar::spec_from_bytes(data);
    let compilation = Compiler::new()
        .source("grammar.yaml", text.as_str())
        .compile();
    assert!(compilation.specs.len() == 1 || compilation.has_errors());
    for d in compilation.diagnostics.iter() {
        assert!(!d.message.is_empty());
        for label in d.labels.iter().filter(|l| !l.span.is_dummy()) {
            let (start, end) = (label.span.start as usize, label.span.end as usize);
            assert!(start <= end && text.get(start..end).is_some(), "{d:?}");
        }
    }
    let report = compilation.report();
    let _ = report.to_text();
    let _ = report.to_json();
    if compilation.has_errors() {
        return;
    }
    let diagnostics: Vec<_> = compilation.diagnostics.iter().collect();
    for compiled in &compilation.specs {
        let spec = &compiled.spec;
        let _ = emit::rust::render_rust(spec, "grammar.yaml");
        let _ = emit::iam::render_iam(spec, "grammar", &IamOptions::default());
        let _ = emit::table::render_table(spec, "grammar");
        let _ = emit::workbench::render_workbench(spec, "grammar", &Default::default());
        let _ = emit::docs::render_docs(spec, "grammar", &diagnostics);
        let _ = explain::render_explain(spec);
        for name in spec.access_patterns.keys() {
            assert!(
                explain::request(spec, name).is_some(),
                "no request for `{name}`"
            );
            let _ = explain::render_requests(spec, Some(name));
        }
    }
});
