//! Snapshots of the resolved IR of every spec in `schemas/`, and determinism.

mod support;

use singletable::Compiler;
use support::{spec_paths, workspace_root};

#[test]
fn ir_of_every_spec() {
    for path in spec_paths() {
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("utf-8 name")
            .to_owned();
        let text = std::fs::read_to_string(&path).expect("read spec");
        let compilation = Compiler::new()
            .source(format!("schemas/{stem}.yaml"), text)
            .compile();
        assert!(!compilation.has_errors(), "{:?}", compilation.report());
        let spec = &compilation.specs[0].spec;
        insta::assert_json_snapshot!(format!("ir_{stem}"), spec);
    }
}

#[test]
fn resolution_is_deterministic() {
    for path in spec_paths() {
        let once = Compiler::new().file(&path).compile();
        let twice = Compiler::new().file(&path).compile();
        let a = serde_json::to_string(&once.specs[0].spec).expect("serialize");
        let b = serde_json::to_string(&twice.specs[0].spec).expect("serialize");
        assert_eq!(a, b, "{}", path.display());
    }
}

#[test]
fn support_ticket_resolves_what_the_reference_describes() {
    let compilation = Compiler::new()
        .file(workspace_root().join("schemas/support_ticket.yaml"))
        .compile();
    let spec = &compilation.specs[0].spec;
    let ticket = &spec.entities["Ticket"];
    assert!(
        ticket.index_keys["GSI1"].sparse,
        "resolver is optional, so GSI1 is sparse for tickets"
    );
    assert!(ticket.index_keys["GSI1"]
        .sk
        .as_ref()
        .is_some_and(|sk| sk.is_natural()));
    let singletable::ir::Operation::Query(q) =
        &spec.access_patterns["ticket_with_comments"].operation
    else {
        panic!("ticket_with_comments is a query");
    };
    assert_eq!(q.returns, ["Ticket", "Comment"]);
    // `<id>` fills Ticket.id and Comment.ticket_id.
    assert_eq!(
        q.params["id"].binds,
        [
            ("Ticket".to_owned(), "id".to_owned()),
            ("Comment".to_owned(), "ticket_id".to_owned())
        ]
    );
    let singletable::ir::Operation::Query(q) = &spec.access_patterns["open_tickets"].operation
    else {
        panic!("open_tickets is a query");
    };
    assert_eq!(q.fixed.len(), 1);
    assert_eq!(
        (q.fixed[0].attribute.as_str(), q.fixed[0].value.as_str()),
        ("status", "OPEN")
    );
}
