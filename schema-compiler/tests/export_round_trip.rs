//! Export → import → export: every spec in `schemas/` and `fixtures/pass/`
//! exported as a NoSQL Workbench model imports into a spec `check`
//! accepts, whose export is the same model, byte for byte. (The same
//! property over the soundness generator's specs is
//! `tests/tests/export_round_trip.rs`.)

mod support;

use singletable::import::workbench::round_trip;

#[test]
fn every_spec_exports_imports_and_exports_the_same_bytes() {
    let mut specs = support::spec_paths();
    specs.extend(support::fixture_paths("pass"));
    let failures: Vec<String> = specs
        .iter()
        .filter_map(|path| {
            let name = path.display().to_string();
            let yaml = std::fs::read_to_string(path).expect("spec");
            // A multi-attribute index key has no Workbench form
            // (`outputs.rs` checks that export is refused).
            let compilation = singletable::Compiler::new().source(&name, &yaml).compile();
            if compilation
                .specs
                .first()
                .is_some_and(|c| singletable::emit::workbench::refusal(&c.spec).is_some())
            {
                return None;
            }
            round_trip(&name, &yaml)
                .err()
                .map(|e| format!("{name}: {e}"))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} specs do not round-trip:\n{}",
        failures.len(),
        specs.len(),
        failures.join("\n\n")
    );
}
