//! The Workbench importer on models nobody wrote for it: a generator draws
//! tables as other people build them (natural keys of strings and numbers,
//! composite keys with `#`, `|`, `:` or `_`, constant sort keys such as
//! `METADATA`, one sample or many, facets or none, a discriminator attribute
//! or none, GSIs keyed on attributes or on computed keys, sets, maps, lists,
//! booleans, decimals, optional attributes), and every model must import
//! into specs `check` accepts whose export gives back the same tables and
//! exactly the same items. The examples from real exports live in
//! `tests/data/workbench/`, one file each.

mod support;

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};
use singletable::emit::workbench;
use singletable::import::workbench::{import_workbench, normalize_value};
use singletable::Compiler;

/// A small deterministic generator (xorshift), so that a failing seed
/// reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, in_n: usize) -> bool {
        self.below(in_n) == 0
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

/// How one kind of item fills a key attribute.
#[derive(Clone, Debug)]
enum Shape {
    /// The whole value is the item's id (a natural key).
    Whole,
    /// `PREFIX<d><id>`.
    Prefixed(&'static str, char),
    /// `PREFIX<d><id><d>SECOND<d><n>`.
    Two(&'static str, char, &'static str),
    /// A constant.
    Constant(&'static str),
}

const PREFIXES: [&str; 6] = ["USER", "ORDER", "ITEM", "GAME", "c", "p"];
const SECONDS: [&str; 3] = ["LINE", "V", "SKU"];
const CONSTANTS: [&str; 4] = ["METADATA", "PROFILE", "#META", "A"];
const DELIMITERS: [char; 4] = ['#', '|', ':', '_'];
const ATTRIBUTE_NAMES: [&str; 23] = [
    "name",
    "Email",
    "createdAt",
    "total",
    "active",
    "tags",
    "scores",
    "rates",
    "blobs",
    "address",
    "lines",
    "note",
    "Status#Time",
    "follower#",
    "created_at",
    "first name",
    // Another library's name, Rust keywords (`type` named like a
    // discriminator, but data), names no identifier starts with, a
    // non-ASCII name, and values nested as deep as DynamoDB allows.
    "__edb_e__",
    "type",
    "self",
    "1abc",
    "é",
    "a.b",
    "deep",
];

fn value_of(rng: &mut Rng, name: &str, n: usize) -> Value {
    match name {
        "name" | "Email" | "note" | "Status#Time" | "follower#" | "first name" | "__edb_e__"
        | "type" | "self" | "1abc" | "é" | "a.b" => json!({ "S": format!("{name} {n}") }),
        "deep" => {
            let mut v = json!({ "S": format!("bottom {n}") });
            for _ in 0..31 {
                v = json!({ "M": { "inner": v } });
            }
            v
        }
        "created_at" => json!({ "N": format!("{}", 1_700_000_000 + n) }),
        "createdAt" => json!({ "S": format!("2024-05-0{}T12:00:00Z", 1 + n % 9) }),
        "total" => json!({ "N": *rng.pick(&["12.5", "3", "-7.25", "100"]) }),
        "active" => json!({ "BOOL": n.is_multiple_of(2) }),
        "tags" => json!({ "SS": ["a", format!("t{n}")] }),
        "scores" => json!({ "NS": ["1", format!("{}", 10 + n)] }),
        "rates" => json!({ "NS": ["0.5", format!("1.{}", 1 + n)] }),
        "blobs" => json!({ "BS": ["AAE=", "AgM="] }),
        "address" => record(rng, n, 0),
        "lines" if rng.chance(2) => {
            let count = rng.below(3);
            json!({ "L": (0..count).map(|i| record(rng, n + i, 1)).collect::<Vec<_>>() })
        }
        _ => json!({ "L": [{ "S": "x" }, { "N": format!("{n}") }] }),
    }
}

/// A map that is sometimes a record (its samples agree on their fields,
/// some optional, some named as no identifier, nested, in lists) and
/// sometimes not (a field's type differs between samples, a `NULL`
/// inside, an empty map), so the importer's typed-map inference meets both.
fn record(rng: &mut Rng, n: usize, depth: usize) -> Value {
    let mut m = serde_json::Map::new();
    m.insert("city".into(), json!({ "S": format!("city {n}") }));
    if rng.chance(2) {
        m.insert("zip-code".into(), json!({ "S": format!("{}", 10_000 + n) }));
    }
    if rng.chance(3) {
        m.insert("floor".into(), json!({ "N": format!("{}", n % 7) }));
    }
    if rng.chance(4) {
        m.insert("tags".into(), json!({ "SS": ["a", format!("t{n}")] }));
    }
    if rng.chance(5) {
        // Sometimes a number, sometimes a string: no one type.
        let v = if rng.chance(2) {
            json!({ "N": "1" })
        } else {
            json!({ "S": "one" })
        };
        m.insert("mixed".into(), v);
    }
    if rng.chance(8) {
        m.insert("gone".into(), json!({ "NULL": true }));
    }
    if depth < 2 && rng.chance(3) {
        m.insert("geo".into(), record(rng, n, depth + 1));
    }
    if rng.chance(12) {
        m.clear();
    }
    json!({ "M": m })
}

fn key_value(shape: &Shape, id: &str, n: usize) -> String {
    match shape {
        Shape::Whole => id.to_owned(),
        Shape::Prefixed(p, d) => format!("{p}{d}{id}"),
        Shape::Two(p, d, s) => format!("{p}{d}{id}{d}{s}{d}{n}"),
        Shape::Constant(c) => (*c).to_owned(),
    }
}

/// An item's discriminator (`type`) and the attributes its GSI is keyed
/// on: computed keys, an owner, or a number under a name that is no
/// identifier; some items lack them (a sparse index).
fn index_and_type_values(
    item: &mut Map<String, Value>,
    (gsi, discriminator): (usize, bool),
    (k, n): (usize, usize),
    (prefix, d): (&str, char),
    id: &str,
) {
    if discriminator {
        let kind = ["order line", "customer", "item"]
            .get(k)
            .map_or_else(|| format!("kind {k}"), |k| (*k).to_owned());
        item.insert("type".into(), json!({ "S": kind }));
    }
    match gsi {
        1 if n % 3 != 2 => {
            item.insert(
                "GSI1PK".into(),
                json!({ "S": format!("{prefix}{d}STATUS{d}{}", n % 2) }),
            );
            item.insert(
                "GSI1SK".into(),
                json!({ "S": format!("2024-05-0{}T12:00:00Z{d}{id}", 1 + n) }),
            );
        }
        2 => {
            item.insert("owner".into(), json!({ "S": format!("owner{}", n % 2) }));
        }
        3 if n % 3 != 1 => {
            item.insert(
                "Total Amount".into(),
                json!({ "N": format!("{}", n * 13 % 7) }),
            );
        }
        _ => {}
    }
}

/// One random model: a table, a few kinds of item, their samples.
fn model(seed: u64) -> Value {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let (pk_name, sk_name) = *rng.pick(&[
        ("PK", "SK"),
        ("pk", "sk"),
        ("userId", "gameId"),
        ("id", "createdAt"),
        ("tenant_id", "sort"),
        // Key attributes named as no identifier.
        ("Status#Time", "sort key"),
        ("GSI1-PK", "1sk"),
    ]);
    let has_sk = !rng.chance(4);
    // A table keyed on bytes (one kind of item, a natural binary key).
    let binary_pk = rng.chance(8);
    let number_sk = has_sk && rng.chance(4);
    // A binary or number key is the item's own attribute (a natural key),
    // whatever its name: `Status#Time` as a number is `status_time`,
    // stored as `Status#Time`.
    let kinds = if binary_pk { 1 } else { 1 + rng.below(3) };
    let facets = rng.chance(3) || kinds == 1;
    let discriminator = !facets && rng.chance(2);
    // A GSI: keyed on computed keys (`GSI1PK`: `STATUS#<n>`), or on an
    // attribute of the items (`owner`), sparse when some items lack it, or
    // on a number attribute whose name is no identifier (`Total Amount`).
    let gsi = rng.below(4);
    let mut facet_list = Vec::new();
    let mut used_prefixes = Vec::new();
    let mut all_items = Vec::new();
    for k in 0..kinds {
        // Distinct kinds differ in a literal, so their keys cannot meet.
        let prefix = loop {
            let p = *rng.pick(&PREFIXES);
            if !used_prefixes.contains(&p) {
                used_prefixes.push(p);
                break p;
            }
        };
        let d = *rng.pick(&DELIMITERS);
        let pk_shape = if kinds == 1 && rng.chance(2) {
            Shape::Whole
        } else {
            Shape::Prefixed(prefix, d)
        };
        let constant = CONSTANTS[rng.below(CONSTANTS.len())];
        let second = SECONDS[rng.below(SECONDS.len())];
        let sk_shape = if number_sk {
            Shape::Whole
        } else {
            match rng.below(3) {
                0 if kinds == 1 => Shape::Constant(constant),
                0 | 1 => Shape::Prefixed(prefix, d),
                _ => Shape::Two(prefix, d, second),
            }
        };
        let attributes: Vec<&str> = ATTRIBUTE_NAMES
            .iter()
            .copied()
            .filter(|_| rng.chance(3))
            .filter(|a| *a != pk_name && *a != sk_name)
            .collect();
        let optional: Vec<&str> = attributes
            .iter()
            .copied()
            .filter(|_| rng.chance(4))
            .collect();
        let count = 1 + rng.below(4);
        let mut items = Vec::new();
        for n in 0..count {
            let id = match &pk_shape {
                Shape::Whole if rng.chance(2) => format!("u{}x{}", seed % 1000, n),
                _ => format!("{}{}", 100 + k, n),
            };
            let mut item = Map::new();
            if binary_pk {
                // Base64 of a few bytes that differ per item.
                let b64 = ["AAE=", "AgM=", "BAU=", "BgcI"][n % 4];
                item.insert(pk_name.into(), json!({ "B": b64 }));
            } else {
                item.insert(pk_name.into(), json!({ "S": key_value(&pk_shape, &id, n) }));
            }
            if has_sk {
                let sk = if number_sk {
                    json!({ "N": format!("{}", n * 7 + k) })
                } else {
                    json!({ "S": key_value(&sk_shape, &format!("{}", 900 + n), n) })
                };
                item.insert(sk_name.into(), sk);
            }
            index_and_type_values(&mut item, (gsi, discriminator), (k, n), (prefix, d), &id);
            for a in &attributes {
                if optional.contains(a) && n % 2 == 1 {
                    continue;
                }
                item.insert((*a).to_owned(), value_of(&mut rng, a, n));
            }
            items.push(Value::Object(item));
        }
        all_items.extend(items.iter().cloned());
        facet_list.push(json!({
            "FacetName": format!("{}{}", prefix, k),
            "KeyAttributeAlias": { "PartitionKeyAlias": pk_name, "SortKeyAlias": sk_name },
            "TableData": items,
            "NonKeyAttributes": attributes,
        }));
    }
    let pk_type = if binary_pk { "B" } else { "S" };
    let mut keys =
        json!({ "PartitionKey": { "AttributeName": pk_name, "AttributeType": pk_type } });
    if has_sk {
        keys["SortKey"] = json!({
            "AttributeName": sk_name,
            "AttributeType": if number_sk { "N" } else { "S" },
        });
    }
    let mut table = json!({
        "TableName": format!("Table{}", seed % 97),
        "KeyAttributes": keys,
        "BillingMode": "PAY_PER_REQUEST",
    });
    match gsi {
        1 => {
            table["GlobalSecondaryIndexes"] = json!([{
                "IndexName": "GSI1",
                "KeyAttributes": {
                    "PartitionKey": { "AttributeName": "GSI1PK", "AttributeType": "S" },
                    "SortKey": { "AttributeName": "GSI1SK", "AttributeType": "S" },
                },
                "Projection": { "ProjectionType": "ALL" },
            }]);
        }
        2 => {
            table["GlobalSecondaryIndexes"] = json!([{
                "IndexName": "ByOwner",
                "KeyAttributes": { "PartitionKey": { "AttributeName": "owner", "AttributeType": "S" } },
                "Projection": { "ProjectionType": "KEYS_ONLY" },
            }]);
        }
        3 => {
            table["GlobalSecondaryIndexes"] = json!([{
                "IndexName": "by total",
                "KeyAttributes": { "PartitionKey": { "AttributeName": "Total Amount", "AttributeType": "N" } },
                "Projection": { "ProjectionType": "ALL" },
            }]);
        }
        _ => {}
    }
    if facets {
        table["TableFacets"] = Value::Array(facet_list);
    } else {
        table["TableData"] = Value::Array(all_items);
    }
    json!({
        "ModelName": "generated",
        "ModelMetadata": { "Author": "", "DateCreated": "", "DateLastModified": "", "Description": "", "AWSService": "Amazon DynamoDB", "Version": "3.0" },
        "DataModel": [table],
    })
}

/// Imports `model`; every spec checks clean, and its export holds the same
/// key schema and exactly the model's items (normalized as the docs say).
/// The number of typed maps (`fields:`) the specs declare.
fn round_trip(model: &Value) -> Result<usize, String> {
    let imported = import_workbench(&model.to_string())?;
    let typed_maps = imported
        .specs
        .iter()
        .map(|s| s.yaml.matches("fields:").count())
        .sum();
    let mut exported_items: Vec<Map<String, Value>> = Vec::new();
    for spec in &imported.specs {
        let compilation = Compiler::new()
            .source(spec.file_name.clone(), spec.yaml.clone())
            .compile();
        if compilation.has_errors() {
            return Err(format!("{}\n{}", spec.yaml, compilation.report()));
        }
        let ir = &compilation.specs[0].spec;
        let exported = serde_json::to_value(workbench::model(ir, &workbench::Options::default()))
            .map_err(|e| e.to_string())?;
        let table = &exported["DataModel"][0];
        let original = &model["DataModel"][0];
        if table["KeyAttributes"] != original["KeyAttributes"] {
            return Err(format!("key schema differs:\n{}", spec.yaml));
        }
        for facet in table["TableFacets"].as_array().into_iter().flatten() {
            for item in facet["TableData"].as_array().into_iter().flatten() {
                exported_items.push(item.as_object().cloned().unwrap_or_default());
            }
        }
        // The generated Rust compiles as far as the emitter can tell: it
        // prints without a `compile_error!`.
        let generated = std::panic::catch_unwind(|| {
            Compiler::new()
                .source(spec.file_name.clone(), spec.yaml.clone())
                .generate_rust()
        });
        let rust = match generated {
            Ok(rust) => rust.map_err(|e| e.to_string())?,
            Err(_) => return Err(format!("generating Rust panicked:\n{}", spec.yaml)),
        };
        if rust.iter().any(|f| f.contents.contains("compile_error")) {
            return Err(format!(
                "the generated Rust has a compile_error!:\n{}",
                spec.yaml
            ));
        }
    }
    let original_items: Vec<Map<String, Value>> = {
        let t = &model["DataModel"][0];
        match t.get("TableFacets").and_then(Value::as_array) {
            Some(facets) => facets
                .iter()
                .flat_map(|f| f["TableData"].as_array().cloned().unwrap_or_default())
                .filter_map(|i| i.as_object().cloned())
                .collect(),
            None => t["TableData"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|i| i.as_object().cloned())
                .collect(),
        }
    };
    let normalize = |item: &Map<String, Value>| -> BTreeMap<String, Value> {
        item.iter()
            .map(|(k, v)| {
                let n = normalize_value(v).map(|v| serde_json::to_value(v).unwrap());
                (k.clone(), n.unwrap_or(Value::Null))
            })
            .collect()
    };
    let mut want: Vec<BTreeMap<String, Value>> = original_items.iter().map(normalize).collect();
    let mut got: Vec<BTreeMap<String, Value>> = exported_items
        .iter()
        .map(|i| i.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .collect();
    let key = |m: &BTreeMap<String, Value>| serde_json::to_string(m).unwrap();
    want.sort_by_key(key);
    got.sort_by_key(key);
    if want != got {
        let specs: Vec<&str> = imported.specs.iter().map(|s| s.yaml.as_str()).collect();
        return Err(format!(
            "the exported items are not the model's:\nwant {}\ngot  {}\n{}",
            serde_json::to_string(&want).unwrap(),
            serde_json::to_string(&got).unwrap(),
            specs.join("\n---\n")
        ));
    }
    Ok(typed_maps)
}

/// Seeds `IMPORT_MODELS_SEED..+IMPORT_MODELS` (default `0..300`); the
/// long run is `scripts/fuzz`'s.
#[test]
fn generated_models_import_check_and_round_trip() {
    let number = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (count, first) = (
        number("IMPORT_MODELS", 300),
        number("IMPORT_MODELS_SEED", 0),
    );
    let mut failures = Vec::new();
    let mut typed_maps = 0;
    for seed in first..first + count {
        let m = model(seed);
        match round_trip(&m) {
            Ok(n) => typed_maps += n,
            Err(e) => failures.push(format!("seed {seed}: {e}\nmodel: {m}")),
        }
    }
    // The generator's maps agree on their fields often enough that typed
    // maps are inferred, and disagree often enough that some are not.
    assert!(
        count < 50 || typed_maps > 0,
        "no typed map inferred from {count} models"
    );
    // Each failure's first error, then the first failure whole.
    let firsts: Vec<String> = failures
        .iter()
        .map(|f| {
            let seed = f.split(':').next().unwrap_or_default();
            let error = f
                .lines()
                .find(|l| {
                    l.contains("error[") || l.contains("differs") || l.contains("not the model")
                })
                .unwrap_or("");
            format!("{seed}: {error}")
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {count} generated models failed:\n{}\nthe first:\n{}",
        failures.len(),
        firsts.join("\n"),
        failures[0]
    );
}

#[test]
fn real_export_shapes_import_check_and_round_trip() {
    let dir = support::workspace_root().join("schema-compiler/tests/data/workbench");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for file in files {
        let model: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        if let Err(e) = round_trip(&model) {
            panic!("{}: {e}", file.display());
        }
    }
}

/// A key written twice in one object of a real export is refused, naming
/// the key and the object's path: serde_json would keep the last silently.
#[test]
fn a_key_written_twice_is_refused_with_its_path() {
    let path = support::workspace_root()
        .join("schema-compiler/tests/data/workbench-exports/02_AnOnlineShop_facets_v1.0.json");
    let text = std::fs::read_to_string(&path).expect("the export");
    assert!(import_workbench(&text).is_ok());
    let twice = text.replacen(
        "\"PartitionKey\": {\n          \"AttributeName\": \"PK\",",
        "\"PartitionKey\": {\n          \"AttributeName\": \"PK\",\n          \"AttributeName\": \"Other\",",
        1,
    );
    assert_ne!(twice, text, "the export changed");
    let error = import_workbench(&twice).expect_err("refused");
    assert!(
        error.contains("`AttributeName` in `DataModel[0].KeyAttributes.PartitionKey`"),
        "{error}"
    );
}

/// A model of 300 facets, each keyed `K<k>#<id>` (a literal with digits,
/// which reads as a value all of a facet's samples share, until the keys
/// of two facets would meet): the import checks clean and round-trips.
/// (The importer checks its candidate access patterns together, not one
/// compile each: this took 102 s before, 0.7 s after, in a debug build.)
#[test]
fn three_hundred_facets_import_check_and_round_trip() {
    let facets: Vec<Value> = (0..300)
        .map(|k| {
            let items: Vec<Value> = (0..2)
                .map(|n| {
                    json!({
                        "PK": { "S": format!("K{k}#{n}") },
                        "SK": { "S": "META" },
                        "title": { "S": format!("title {k} {n}") },
                    })
                })
                .collect();
            json!({
                "FacetName": format!("Kind{k}"),
                "KeyAttributeAlias": { "PartitionKeyAlias": "PK", "SortKeyAlias": "SK" },
                "TableData": items,
                "NonKeyAttributes": ["title"],
            })
        })
        .collect();
    let model = json!({
        "ModelName": "wide",
        "ModelMetadata": { "Author": "", "DateCreated": "", "DateLastModified": "", "Description": "", "AWSService": "Amazon DynamoDB", "Version": "3.0" },
        "DataModel": [{
            "TableName": "T",
            "KeyAttributes": {
                "PartitionKey": { "AttributeName": "PK", "AttributeType": "S" },
                "SortKey": { "AttributeName": "SK", "AttributeType": "S" },
            },
            "BillingMode": "PAY_PER_REQUEST",
            "TableFacets": facets,
        }],
    });
    if let Err(e) = round_trip(&model) {
        panic!("{}", e.chars().take(4000).collect::<String>());
    }
}
