//! Every output of a compiled spec, for the tests that feed the compiler
//! generated specs.

use singletable::emit::iam::IamOptions;
use singletable::{emit, explain, Compilation, Compiler};

/// Every emitter and `explain` on a spec that compiled without errors. A
/// renderer may refuse with a report (a policy over IAM's size limit, a
/// Workbench model of a multi-attribute key); it may not panic.
pub fn every_output(compiler: &Compiler, compilation: &Compilation) {
    let rust = compiler.generate_rust();
    assert!(rust.is_ok_and(|files| files.len() == 1));
    let _ = compiler.generate_iam(&IamOptions::default());
    assert!(compiler.generate_table().is_ok());
    // A Workbench model cannot hold a multi-attribute index key: refused.
    let workbench = compiler.generate_workbench(&emit::workbench::Options::default());
    let refused = compilation
        .specs
        .iter()
        .any(|c| emit::workbench::refusal(&c.spec).is_some());
    assert_eq!(workbench.is_err(), refused);
    assert!(compiler.generate_docs().is_ok());
    for compiled in &compilation.specs {
        let spec = &compiled.spec;
        assert!(!explain::render_explain(spec).is_empty());
        for name in spec.access_patterns.keys() {
            let request = explain::request(spec, name);
            assert!(request.is_some(), "no request for `{name}`");
            if let Some(request) = &request {
                let _ = explain::shell_command(request);
            }
            assert!(!explain::render_requests(spec, Some(name)).is_empty());
        }
    }
}
