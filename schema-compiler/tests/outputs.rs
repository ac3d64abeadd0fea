//! Every output of every spec in `schemas/`: snapshots (reviewed), the
//! Workbench model against a JSON Schema of the format and its invariants,
//! the table definition's invariants, and the Workbench round trips
//! (export → import → export of every spec; import of the real exports).

mod support;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use singletable::emit::{table, workbench};
use singletable::import::workbench::{import_workbench, normalize_value};
use singletable::ir::AttributeValue;
use singletable::{explain, ir, Compiler};
use support::{read, spec_paths, workspace_root};

fn specs() -> Vec<(String, ir::Spec)> {
    spec_paths()
        .iter()
        .map(|path| {
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            let compilation = Compiler::new().file(path).compile();
            assert!(
                !compilation.has_errors(),
                "{stem}: {:?}",
                compilation.report()
            );
            (stem, compilation.specs[0].spec.clone())
        })
        .collect()
}

/// The specs a Workbench model can hold (one without a multi-attribute
/// index key; `generate workbench` refuses the others, see below).
fn workbench_specs() -> Vec<(String, ir::Spec)> {
    specs()
        .into_iter()
        .filter(|(_, spec)| workbench::refusal(spec).is_none())
        .collect()
}

fn export(spec: &ir::Spec) -> Value {
    let model = workbench::model(spec, &workbench::Options::default());
    serde_json::to_value(model).unwrap()
}

#[test]
fn every_output_of_every_spec_is_snapshotted() {
    let specs = spec_paths();
    let mut compiler = Compiler::new();
    let mut modelled = Compiler::new();
    let mut refused = Vec::new();
    for (path, (stem, spec)) in specs.iter().zip(self::specs()) {
        compiler.file(path);
        match workbench::refusal(&spec) {
            None => {
                modelled.file(path);
            }
            Some(_) => refused.push((path, stem)),
        }
    }
    let mut files = modelled
        .generate_workbench(&workbench::Options::default())
        .unwrap();
    // A multi-attribute index key has no Workbench form: refused, by name.
    for (path, stem) in &refused {
        let error = Compiler::new()
            .file(path)
            .generate_workbench(&workbench::Options::default())
            .err()
            .unwrap_or_else(|| panic!("{stem}: a Workbench model was written"));
        assert!(
            error.to_string().contains("multi-attribute key"),
            "{stem}: {error}"
        );
    }
    files.extend(compiler.generate_table().unwrap());
    files.extend(compiler.generate_terraform().unwrap());
    files.extend(compiler.generate_docs().unwrap());
    for stem in specs
        .iter()
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
    {
        for suffix in [
            ".workbench.json",
            ".create-table.json",
            ".cloudformation.json",
            ".md",
        ] {
            if suffix == ".workbench.json" && refused.iter().any(|(_, r)| *r == stem) {
                continue;
            }
            assert!(
                files.iter().any(|f| f.name == format!("{stem}{suffix}")),
                "no {stem}{suffix}"
            );
        }
    }
    for file in &files {
        insta::assert_snapshot!(file.name.clone(), &file.contents);
    }
    for (stem, spec) in self::specs() {
        insta::assert_snapshot!(
            format!("{stem}.explain"),
            explain::render_requests(&spec, None)
        );
        // The output model of the generated Rust module: every name per
        // scope and what the printers print, before any code.
        insta::assert_snapshot!(
            format!("{stem}.model"),
            singletable::emit::rust::describe_model(&spec)
        );
    }
}

#[test]
fn outputs_are_deterministic() {
    for (stem, spec) in specs() {
        if workbench::refusal(&spec).is_none() {
            assert_eq!(export(&spec), export(&spec), "{stem}");
        }
        assert_eq!(
            table::render_table(&spec, &stem),
            table::render_table(&spec, &stem),
            "{stem}"
        );
        let once = singletable::emit::docs::render_docs(&spec, &stem, &[]);
        assert_eq!(
            once,
            singletable::emit::docs::render_docs(&spec, &stem, &[])
        );
    }
}

fn format_schema() -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(&read(
        "schema-compiler/tests/data/workbench-model.schema.json",
    ))
    .unwrap();
    jsonschema::validator_for(&schema).expect("the format schema compiles")
}

#[test]
fn exported_models_validate_against_the_format_schema() {
    let validator = format_schema();
    for (stem, spec) in workbench_specs() {
        let model = export(&spec);
        let errors: Vec<String> = validator
            .iter_errors(&model)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{stem}: {errors:#?}");
    }
}

#[test]
fn the_format_schema_rejects_what_workbench_rejects() {
    let validator = format_schema();
    let (_, spec) = workbench_specs().into_iter().next().unwrap();
    let good = export(&spec);
    assert!(validator.is_valid(&good));
    let mut no_version = good.clone();
    no_version["ModelMetadata"]
        .as_object_mut()
        .unwrap()
        .remove("Version");
    assert!(!validator.is_valid(&no_version), "a model without Version");
    let mut bare_number = good.clone();
    bare_number["DataModel"][0]["TableFacets"][0]["TableData"][0]
        .as_object_mut()
        .unwrap()
        .insert("x".into(), serde_json::json!({ "N": 1 }));
    assert!(
        !validator.is_valid(&bare_number),
        "a number that is not a string"
    );
    let mut provisioned = good;
    provisioned["DataModel"][0]["BillingMode"] = "PROVISIONED".into();
    assert!(
        validator.is_valid(&provisioned)
            == provisioned["DataModel"][0]
                .get("ProvisionedCapacitySettings")
                .is_some(),
        "capacity settings exactly when provisioned"
    );
}

/// The declared type of every attribute of a table, keys included.
fn declared(table: &Value) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let keys = &table["KeyAttributes"];
    for k in ["PartitionKey", "SortKey"] {
        if let Some(k) = keys.get(k) {
            out.insert(
                k["AttributeName"].as_str().unwrap().to_owned(),
                k["AttributeType"].as_str().unwrap().to_owned(),
            );
        }
    }
    for a in table["NonKeyAttributes"].as_array().unwrap() {
        let name = a["AttributeName"].as_str().unwrap().to_owned();
        assert!(!out.contains_key(&name), "`{name}` is declared twice");
        out.insert(name, a["AttributeType"].as_str().unwrap().to_owned());
    }
    out
}

#[test]
fn exported_models_hold_the_format_invariants() {
    for (stem, spec) in workbench_specs() {
        let model = export(&spec);
        let table = &model["DataModel"][0];
        let types = declared(table);
        let pk = table["KeyAttributes"]["PartitionKey"]["AttributeName"]
            .as_str()
            .unwrap();
        let sk = table["KeyAttributes"]
            .get("SortKey")
            .map(|k| k["AttributeName"].as_str().unwrap());
        let facets = table["TableFacets"].as_array().unwrap();
        assert_eq!(
            facets.len(),
            spec.entities.len(),
            "{stem}: one facet per entity"
        );
        let mut items = 0;
        for (facet, entity) in facets.iter().zip(spec.entities.values()) {
            assert_eq!(facet["FacetName"], entity.name.as_str());
            assert_eq!(
                facet["KeyAttributeAlias"]["PartitionKeyAlias"],
                entity.primary_key.pk.source.as_str()
            );
            for item in facet["TableData"].as_array().unwrap() {
                items += 1;
                let item = item.as_object().unwrap();
                assert!(
                    item.contains_key(pk),
                    "{stem}: an item without its partition key"
                );
                if let Some(sk) = sk {
                    assert!(
                        item.contains_key(sk),
                        "{stem}: an item without its sort key"
                    );
                }
                for (name, value) in item {
                    let tag = value.as_object().unwrap().keys().next().unwrap();
                    assert_eq!(
                        types.get(name),
                        Some(tag),
                        "{stem}: `{name}` is declared with its type"
                    );
                }
                // Index keys only where the entity is written into the index.
                for index in spec
                    .indexes
                    .values()
                    .filter(|i| i.kind == ir::IndexKind::Global)
                {
                    let attribute = index.partition_key.name.as_str();
                    if item.contains_key(attribute) && attribute != pk && Some(attribute) != sk {
                        assert!(
                            entity.index_keys.contains_key(index.name.as_str())
                                || entity.attributes.contains_key(attribute),
                            "{stem}: {} carries `{attribute}` without indexing into `{}`",
                            entity.name,
                            index.name
                        );
                    }
                }
            }
        }
        assert!(
            items >= spec.entities.len() * 2,
            "{stem}: a few samples per entity"
        );
        for gsi in table["GlobalSecondaryIndexes"].as_array().unwrap() {
            for k in ["PartitionKey", "SortKey"] {
                if let Some(k) = gsi["KeyAttributes"].get(k) {
                    assert_eq!(
                        types
                            .get(k["AttributeName"].as_str().unwrap())
                            .map(String::as_str),
                        k["AttributeType"].as_str(),
                        "{stem}: GSI key types match the declarations"
                    );
                }
            }
        }
    }
}

#[test]
fn sparse_indexes_show_items_in_and_out_of_them() {
    let (_, spec) = workbench_specs()
        .into_iter()
        .find(|(s, _)| s == "support_ticket")
        .unwrap();
    let model = export(&spec);
    let tickets = model["DataModel"][0]["TableFacets"][0]["TableData"]
        .as_array()
        .unwrap()
        .clone();
    let with = tickets
        .iter()
        .filter(|t| t.get("resolver").is_some())
        .count();
    assert!(
        with > 0 && with < tickets.len(),
        "some tickets have a resolver (GSI1 sort key), some do not"
    );
    let tenants: BTreeSet<&str> = tickets
        .iter()
        .map(|t| t["pk"]["S"].as_str().unwrap().split('|').next().unwrap())
        .collect();
    assert_eq!(tenants, BTreeSet::from(["TENANT#acme", "TENANT#globex"]));
}

#[test]
fn create_table_defines_exactly_the_key_attributes() {
    for (stem, spec) in specs() {
        let def = table::create_table(&spec);
        let mut keys: BTreeSet<String> = def
            .key_schema
            .iter()
            .map(|k| k.attribute_name.clone())
            .collect();
        for i in def
            .global_secondary_indexes
            .iter()
            .chain(&def.local_secondary_indexes)
        {
            keys.extend(i.key_schema.iter().map(|k| k.attribute_name.clone()));
        }
        let defined: BTreeSet<String> = def
            .attribute_definitions
            .iter()
            .map(|d| d.attribute_name.clone())
            .collect();
        assert_eq!(defined, keys, "{stem}");
        assert_eq!(
            def.attribute_definitions.len(),
            keys.len(),
            "{stem}: each defined once"
        );
        assert_eq!(
            def.billing_mode == "PROVISIONED",
            def.provisioned_throughput.is_some(),
            "{stem}"
        );
        assert_eq!(
            table::update_time_to_live(&spec).is_some(),
            spec.table.ttl.is_some(),
            "{stem}"
        );
    }
}

/// DynamoDB refuses an `INCLUDE` projection of no attributes: a
/// `keys_only` index of a table whose keys tell the entity (no entity-type
/// attribute) and without TTL stays `KEYS_ONLY`; every `INCLUDE` of every
/// spec and pass fixture names at least one attribute.
#[test]
fn index_projections_are_ones_dynamodb_accepts() {
    let keys_only = r#"
version: 1
table: { name: Scores, partition_key: user_id, sort_key: game_id, entity_type: keys }
indexes:
  by_game: { partition_key: game_id, sort_key: user_id, projection: keys_only }
entities:
  Score:
    attributes: { user_id: string, game_id: string, wins: integer }
    key: { pk: "<user_id>", sk: "<game_id>" }
access_patterns:
  score: { get: Score }
"#;
    let compilation = Compiler::new()
        .source("keys_only.yaml", keys_only)
        .compile();
    assert!(!compilation.has_errors(), "{}", compilation.report());
    let def = table::create_table(&compilation.specs[0].spec);
    let index = &def.global_secondary_indexes[0];
    assert_eq!(index.projection.projection_type, "KEYS_ONLY");
    assert!(index.projection.non_key_attributes.is_empty());
    let paths = spec_paths()
        .into_iter()
        .chain(support::fixture_paths("pass"));
    for path in paths {
        let compilation = Compiler::new().file(&path).compile();
        let Some(spec) = compilation.specs.first() else {
            continue;
        };
        let def = table::create_table(&spec.spec);
        for i in def
            .global_secondary_indexes
            .iter()
            .chain(&def.local_secondary_indexes)
        {
            assert!(
                i.projection.projection_type != "INCLUDE"
                    || !i.projection.non_key_attributes.is_empty(),
                "{}: {} is an INCLUDE of nothing",
                path.display(),
                i.index_name
            );
        }
    }
}

/// A model's tables with their keys, GSIs, facets (aliases, attributes,
/// items as sets) and declared attributes, for comparison.
fn shape(model: &Value) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    for t in model["DataModel"].as_array().unwrap() {
        let facets: BTreeMap<String, Value> = t["TableFacets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                let items: BTreeSet<String> = f["TableData"].as_array().unwrap().iter().map(|i| i.to_string()).collect();
                let attributes: BTreeSet<&str> = f["NonKeyAttributes"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
                (
                    f["FacetName"].as_str().unwrap().to_owned(),
                    serde_json::json!({ "alias": f["KeyAttributeAlias"], "items": items, "attributes": attributes }),
                )
            })
            .collect();
        out.insert(
            t["TableName"].as_str().unwrap().to_owned(),
            serde_json::json!({
                "keys": t["KeyAttributes"],
                "attributes": declared(t),
                "gsis": t["GlobalSecondaryIndexes"],
                "billing": t["BillingMode"],
                "capacity": t.get("ProvisionedCapacitySettings"),
                "facets": facets,
            }),
        );
    }
    out
}

fn import_and_compile(json: &str) -> Vec<(ir::Spec, String)> {
    let imported = import_workbench(json).expect("the model imports");
    imported
        .specs
        .into_iter()
        .map(|s| {
            let compilation = Compiler::new()
                .source(s.file_name.clone(), s.yaml.clone())
                .compile();
            assert!(
                !compilation.has_errors(),
                "{}:\n{}\n{:?}",
                s.file_name,
                s.yaml,
                compilation.report()
            );
            (compilation.specs[0].spec.clone(), s.yaml)
        })
        .collect()
}

#[test]
fn export_import_export_is_stable_for_every_spec() {
    for (stem, spec) in workbench_specs() {
        let first = export(&spec);
        let imported = import_and_compile(&first.to_string());
        assert_eq!(imported.len(), 1, "{stem}");
        let second = export(&imported[0].0);
        assert_eq!(
            shape(&first),
            shape(&second),
            "{stem}: the re-exported model differs\n{}",
            imported[0].1
        );
    }
}

fn reference_models() -> Vec<(String, String)> {
    // The real exports, unmodified, with their sources in SOURCES.md there.
    let dir = workspace_root().join("schema-compiler/tests/data/workbench-exports");
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    out.sort();
    assert_eq!(out.len(), 5, "the five real exports");
    out
}

/// `exported` is `original` with each value normalized (docs/import.md):
/// the same attributes, no more, with the same values.
fn same_item(
    exported: &serde_json::Map<String, Value>,
    original: &serde_json::Map<String, Value>,
) -> bool {
    exported.len() == original.len()
        && original.iter().all(|(name, value)| {
            let normalized = normalize_value(value).map(|v| serde_json::to_value(v).unwrap());
            exported.get(name) == normalized.as_ref()
        })
}

#[test]
fn real_exports_import_check_and_export_back_the_same_tables_keys_gsis_and_items() {
    for (file, json) in reference_models() {
        let original: Value = serde_json::from_str(&json).unwrap();
        let specs = import_and_compile(&json);
        let exported: BTreeMap<String, Value> = specs
            .iter()
            .map(|(spec, _)| {
                let model = export(spec);
                (spec.table.name.value.clone(), model["DataModel"][0].clone())
            })
            .collect();
        let tables = original["DataModel"].as_array().unwrap();
        assert_eq!(exported.len(), tables.len(), "{file}: same tables");
        for t in tables {
            let name = t["TableName"].as_str().unwrap();
            let e = &exported[name];
            assert_eq!(
                e["KeyAttributes"], t["KeyAttributes"],
                "{file} {name}: keys"
            );
            let gsis = |v: &Value| -> BTreeMap<String, (Value, Value)> {
                v.get("GlobalSecondaryIndexes")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .map(|g| {
                                (
                                    g["IndexName"].as_str().unwrap().to_owned(),
                                    (
                                        g["KeyAttributes"].clone(),
                                        g["Projection"]["ProjectionType"].clone(),
                                    ),
                                )
                            })
                            .collect()
                    })
                    .unwrap_or_default()
            };
            assert_eq!(gsis(e), gsis(t), "{file} {name}: GSIs");
            let original_items: Vec<&Value> = match t.get("TableFacets").and_then(Value::as_array) {
                Some(facets) if !facets.is_empty() => facets
                    .iter()
                    .flat_map(|f| f["TableData"].as_array().unwrap())
                    .collect(),
                _ => t
                    .get("TableData")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().collect())
                    .unwrap_or_default(),
            };
            let exported_items: Vec<&serde_json::Map<String, Value>> = e["TableFacets"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|f| f["TableData"].as_array().unwrap())
                .map(|i| i.as_object().unwrap())
                .collect();
            assert_eq!(
                exported_items.len(),
                original_items.len(),
                "{file} {name}: item count"
            );
            for item in original_items {
                let item = item.as_object().unwrap();
                assert!(
                    exported_items.iter().any(|x| same_item(x, item)),
                    "{file} {name}: no exported item is {}\n(exported: {})",
                    Value::Object(item.clone()),
                    serde_json::to_string(&exported_items).unwrap()
                );
            }
        }
    }
}

#[test]
fn non_canonical_values_are_read() {
    let n = serde_json::json!({ "N": 1 });
    assert_eq!(normalize_value(&n), Some(AttributeValue::N("1".into())));
    let bare = serde_json::json!({ "L": ["a", 2, { "S": "c" }] });
    assert_eq!(
        normalize_value(&bare),
        Some(AttributeValue::L(vec![
            AttributeValue::S("a".into()),
            AttributeValue::N("2".into()),
            AttributeValue::S("c".into())
        ]))
    );
}

#[test]
fn malformed_models_are_errors_or_notes_never_panics() {
    for text in [
        "",
        "null",
        "[]",
        "{}",
        r#"{"DataModel": 3}"#,
        r#"{"DataModel": [1, "x", {}]}"#,
        r#"{"DataModel": [{"TableName": "T", "KeyAttributes": {"PartitionKey": {"AttributeName": "pk", "AttributeType": "Q"}}, "TableData": [1, {"pk": 5}, {"pk": {"S": ["x"]}}]}]}"#,
        r#"{"DataModel": [{"TableName": "T", "KeyAttributes": {"PartitionKey": {"AttributeName": "pk"}}, "TableFacets": [{"KeyAttributeAlias": {"PartitionKeyAlias": "<<<a"}, "TableData": [{"pk": {"S": "<x>"}}]}]}]}"#,
        r#"{"DataModel": [{"TableName": "a b", "KeyAttributes": {"PartitionKey": {"AttributeName": "p k", "AttributeType": "N"}}, "TableData": [{"p k": {"N": "01"}}, {"p k": {"N": "1e3"}}]}]}"#,
    ] {
        if let Ok(imported) = import_workbench(text) {
            for s in imported.specs {
                // Whatever came out parses as a spec (it may have errors to fix).
                let _ = Compiler::new().source("x.yaml", s.yaml).compile();
            }
        }
    }
}

#[test]
fn explain_prints_the_cli_command_of_the_reference() {
    let (_, spec) = workbench_specs()
        .into_iter()
        .find(|(s, _)| s == "support_ticket")
        .unwrap();
    let request = explain::request(&spec, "open_tickets_for_resolver").unwrap();
    let args = explain::cli_args(&request);
    assert_eq!(
        args,
        [
            "dynamodb",
            "query",
            "--table-name",
            "SupportTicket",
            "--index-name",
            "GSI1",
            "--key-condition-expression",
            "#pk = :pk AND #sk = :sk",
            "--expression-attribute-names",
            r##"{"#pk":"tenant_status","#sk":"resolver"}"##,
            "--expression-attribute-values",
            r#"{":pk":{"S":"TENANT#<tenant>|OPEN"},":sk":{"S":"<resolver>"}}"#,
            "--return-consumed-capacity",
            "TOTAL",
        ]
    );
}
