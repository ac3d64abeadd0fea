//! The JSON Schema of the spec format is checked in as
//! `schemas/singletable.schema.json` for editors; it must match the types.

mod support;

use support::{spec_paths, workspace_root};

fn schema_text() -> String {
    let schema = singletable::json_schema();
    serde_json::to_string_pretty(&schema).expect("schema serializes") + "\n"
}

/// Fails when the checked-in schema is stale. Run with `SINGLETABLE_BLESS=1`
/// to rewrite it after changing the syntax types.
#[test]
fn checked_in_schema_is_current() {
    let path = workspace_root().join("schemas/singletable.schema.json");
    let expected = schema_text();
    if std::env::var_os("SINGLETABLE_BLESS").is_some() {
        std::fs::write(&path, &expected).expect("write schema");
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        actual == expected,
        "schemas/singletable.schema.json is stale: run `SINGLETABLE_BLESS=1 cargo test -p singletable --test json_schema`"
    );
}

fn validator() -> jsonschema::Validator {
    let schema = singletable::json_schema();
    jsonschema::validator_for(&schema).expect("the generated schema is a valid JSON Schema")
}

fn yaml_as_json(text: &str) -> serde_json::Value {
    serde_saphyr::from_str(text).expect("spec is YAML")
}

#[test]
fn every_spec_in_schemas_validates() {
    let validator = validator();
    let mut checked = 0;
    for path in spec_paths() {
        let instance = yaml_as_json(&std::fs::read_to_string(&path).expect("read spec"));
        let errors: Vec<String> = validator
            .iter_errors(&instance)
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{}: {errors:#?}", path.display());
        checked += 1;
    }
    assert!(checked >= 1, "no specs found");
}

#[test]
fn schema_rejects_unknown_fields_and_wrong_types() {
    let validator = validator();
    let good = "version: 1\ntable: { name: Tbl, partition_key: pk }\nentities:\n  A:\n    attributes: { id: string, n: { type: integer, min: 0 } }\n    key: { pk: \"A#<id>\" }\n";
    assert!(validator.is_valid(&yaml_as_json(good)));
    let unknown = good.replace("partition_key: pk", "partition_key: pk, colour: red");
    assert!(!validator.is_valid(&yaml_as_json(&unknown)));
    let wrong_type = good.replace("min: 0", "min: [0]");
    assert!(!validator.is_valid(&yaml_as_json(&wrong_type)));
    let bad_shorthand = good.replace("id: string", "id: strng");
    assert!(!validator.is_valid(&yaml_as_json(&bad_shorthand)));
}
