//! Export → import → export over generated designs: every spec of the
//! soundness generator that `check` accepts (`tests/soundness/gen.rs`:
//! tenants, global entities, sparse and projected indexes, shards,
//! versions, TTL, typed maps, names from the emitter's vocabulary) exported
//! as a NoSQL Workbench model imports into a spec `check` accepts, whose
//! export is the same model, byte for byte. A spec with a multi-attribute
//! index key has no Workbench model (the format holds one attribute per
//! key): its export is refused, by name.

use singletable::import::workbench::round_trip;
use singletable_tests::soundness_specs::ACCEPTED;

#[test]
fn generated_specs_export_import_and_export_the_same_bytes() {
    let mut failures = Vec::new();
    for seed in ACCEPTED {
        let path = std::path::Path::new(env!("OUT_DIR")).join(format!("soundness_{seed}.yaml"));
        let yaml = std::fs::read_to_string(&path).expect("the build script wrote every spec");
        let name = format!("soundness_{seed}.yaml");
        let compilation = singletable::Compiler::new().source(&name, &yaml).compile();
        if let Some(refusal) = compilation
            .specs
            .first()
            .and_then(|c| singletable::emit::workbench::refusal(&c.spec))
        {
            assert!(refusal.message.contains("multi-attribute"), "{name}");
            continue;
        }
        if let Err(e) = round_trip(&name, &yaml) {
            failures.push(format!("seed {seed}: {e}"));
        }
    }
    assert!(!ACCEPTED.is_empty(), "no generated spec was accepted");
    assert!(
        failures.is_empty(),
        "{} of {} generated specs do not round-trip:\n{}",
        failures.len(),
        ACCEPTED.len(),
        failures.join("\n\n")
    );
}
