//! Every numeric field of the spec format, fed the extremes.
//!
//! The fields are found by walking the format's JSON Schema
//! (`singletable::json_schema()`), so a numeric field added later is
//! covered without touching this test. Each is set, in a base spec that
//! has every section, to each of [`EXTREMES`]: compiling never panics, and
//! when no error is reported, every emitter and `explain` complete too.

mod support;

#[path = "support/outputs.rs"]
mod outputs;

use std::collections::BTreeSet;

use serde_json::{json, Value};
use singletable::{Compilation, Compiler};

/// u64::MAX, i64::MIN, the largest finite doubles of both signs, -1 and 0.
fn extremes() -> [Value; 6] {
    [
        json!(u64::MAX),
        json!(i64::MIN),
        json!(1e308),
        json!(-1e308),
        json!(-1),
        json!(0),
    ]
}

/// The numeric fields `schema-compiler/src/syntax/` had when this
/// test was written; the walk must find at least these many.
const KNOWN_NUMERIC_FIELDS: usize = 17;

/// A filter with a number at every place the grammar has one: a
/// condition and a size, alone and under `and`, `or` and `not`.
fn every_filter_shape() -> Value {
    let conditions = || json!({ "price": { "lte": 100 }, "tags": { "size": { "lte": 3 } } });
    json!({
        "price": { "lte": 100 },
        "tags": { "size": { "lte": 3 } },
        "and": [conditions()],
        "or": [conditions(), { "price": { "gt": 1 } }],
        "not": conditions(),
    })
}

/// A valid spec with every section, each numeric field written once, and
/// every attribute option in long form (YAML accepts JSON).
fn base() -> Value {
    json!({
        "version": 1,
        "description": "Every numeric field once.",
        "table": {
            "name": "Numbers",
            "partition_key": "pk",
            "sort_key": "sk",
            "ttl": "expires_at",
            "billing": { "mode": "provisioned", "read_capacity": 5, "write_capacity": 5 },
            "stream": "new_and_old_images"
        },
        "tenant": { "placeholder": "tenant", "id_pattern": "^[a-z0-9]{1,32}$", "principal_tag": "TenantId" },
        "indexes": {
            "GSI1": { "partition_key": "gsi1pk", "sort_key": "gsi1sk", "projection": "all",
                      "read_capacity": 5, "write_capacity": 5 },
            "LSI1": { "kind": "local", "sort_key": "lsi1sk", "projection": "all" }
        },
        "entities": {
            "Ticket": {
                "attributes": {
                    "id": { "type": "string", "pattern": "^[a-z0-9]{1,20}$", "min_length": 1, "max_length": 20, "typical_size": 10 },
                    "status": { "type": "enum", "values": ["OPEN", "CLOSED"] },
                    "priority": { "type": "integer", "min": 0, "max": 999 },
                    "price": { "type": "decimal", "min": 0, "max": 100000, "scale": 2 },
                    "tags": { "type": "list", "min_length": 0, "max_length": 20,
                              "items": { "type": "string", "min_length": 1, "max_length": 20, "typical_size": 5 } },
                    "amounts": { "type": "list", "items": { "type": "decimal", "min": 0, "max": 10, "scale": 2 } },
                    "thumbnail": { "type": "binary", "min_length": 1, "max_length": 1024, "optional": true },
                    "address": { "type": "map", "optional": true, "fields": {
                        "street": { "type": "string", "min_length": 1, "max_length": 100 },
                        "floor": { "type": "integer", "min": -5, "max": 200 },
                        "area": { "type": "decimal", "min": 0, "max": 1000, "scale": 2 },
                        "photo": { "type": "binary", "min_length": 1, "max_length": 1024, "optional": true },
                        "rooms": { "type": "list", "min_length": 0, "max_length": 20, "items": { "type": "string", "max_length": 20 } } } },
                    "expires_at": { "type": "datetime", "format": "epoch_seconds" },
                    "version": { "type": "integer", "min": 0 }
                },
                "key": { "pk": "TENANT#<tenant>|TICKET#<id>", "sk": "P#<priority>" },
                "indexes": {
                    "GSI1": { "pk": "TENANT#<tenant>|STATUS#<status>", "sk": "P#<priority>#<id>" },
                    "LSI1": { "sk": "S#<status>" }
                },
                "throughput": { "writes_per_second": 100, "reads_per_second": 100 },
                "version_attribute": "version",
                "conditions": { "cheap": every_filter_shape() }
            },
            "Vote": {
                "attributes": { "id": { "type": "string", "pattern": "^[a-z0-9]{1,20}$" }, "votes": { "type": "integer", "min": 0 } },
                "key": { "pk": "TENANT#<tenant>|VOTE#<id>|S#<shard>", "sk": "VOTES" },
                "shards": { "count": 4, "by": "hash(<id>)" },
                "throughput": { "writes_per_second": 1000, "reads_per_second": 100 }
            },
            "TicketCount": {
                "attributes": { "status": { "type": "enum", "values": ["OPEN", "CLOSED"] }, "count": { "type": "integer", "min": 0 } },
                "key": { "pk": "TENANT#<tenant>|AGGREGATE", "sk": "STATUS#<status>" },
                "aggregate": { "of": "Ticket", "group_by": "status", "count": "count", "maintained_by": "stream" }
            }
        },
        "access_patterns": {
            "ticket": { "get": "Ticket", "consistent_read": true, "rate": { "per_second": 10, "items": 1 } },
            "tickets_in_status": {
                "index": "GSI1",
                "query": { "pk": "TENANT#<tenant>|STATUS#<status>", "sk": { "begins_with": "P#" } },
                "returns": "Ticket",
                "filter": every_filter_shape(),
                "order": "descending",
                "rate": { "per_second": 0.5, "items": 20 }
            },
            "by_status": { "index": "LSI1", "query": { "pk": "TENANT#<tenant>|TICKET#<id>", "sk": { "equals": "S#<status>" } } },
            "close": { "transaction": { "update": "Ticket", "condition_check": "TicketCount", "max_items": 25 } },
            "votes": { "batch": { "get": "Vote", "put": "Vote" }, "rate": { "per_second": 1, "items": 4 } },
            "counts": { "query": { "pk": "TENANT#<tenant>|AGGREGATE" } }
        },
        "roles": { "reader": { "access_patterns": ["ticket", "counts"] } },
        "lints": { "gsi_write_isolation": "allow" }
    })
}

/// One step of a path into a spec, as the schema describes it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Seg {
    Key(String),
    /// Any key of a map of names (`entities`, `attributes`, ...).
    AnyKey,
    /// Any element of a list.
    Item,
}

/// A numeric field: where it is, and which struct and property declare it.
#[derive(Debug, Clone)]
struct Field {
    path: Vec<Seg>,
    definition: String,
    property: String,
}

/// Every integer or number property reachable from the schema's root,
/// following `$ref`s (a recursive definition, such as a list's `items`,
/// is entered twice, so its fields appear both at the top and nested).
fn numeric_fields(schema: &Value) -> Vec<Field> {
    let mut out = Vec::new();
    walk(
        schema,
        schema,
        &mut Vec::new(),
        &mut vec!["SpecDecl".to_owned()],
        &mut out,
    );
    out
}

fn walk(
    root: &Value,
    node: &Value,
    path: &mut Vec<Seg>,
    defs: &mut Vec<String>,
    out: &mut Vec<Field>,
) {
    if let Some(reference) = node.get("$ref").and_then(Value::as_str) {
        let name = reference.rsplit('/').next().unwrap_or(reference).to_owned();
        if defs.iter().filter(|d| **d == name).count() >= 2 {
            return;
        }
        let target = root
            .pointer(reference.trim_start_matches('#'))
            .unwrap_or_else(|| panic!("unresolved $ref {reference}"));
        defs.push(name);
        walk(root, target, path, defs, out);
        defs.pop();
    }
    if is_numeric(node) {
        if let Some(Seg::Key(property)) = path.last() {
            out.push(Field {
                path: path.clone(),
                definition: defs.last().cloned().unwrap_or_default(),
                property: property.clone(),
            });
        }
    }
    if let Some(properties) = node.get("properties").and_then(Value::as_object) {
        for (name, schema) in properties {
            path.push(Seg::Key(name.clone()));
            walk(root, schema, path, defs, out);
            path.pop();
        }
    }
    let nested = [("additionalProperties", Seg::AnyKey), ("items", Seg::Item)];
    for (keyword, seg) in nested {
        if let Some(schema) = node.get(keyword).filter(|s| s.is_object()) {
            path.push(seg);
            walk(root, schema, path, defs, out);
            path.pop();
        }
    }
    for keyword in ["anyOf", "oneOf", "allOf"] {
        for schema in node
            .get(keyword)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            walk(root, schema, path, defs, out);
        }
    }
}

fn is_numeric(node: &Value) -> bool {
    let numeric = |t: &Value| matches!(t.as_str(), Some("integer" | "number"));
    match node.get("type") {
        Some(Value::Array(types)) => types.iter().any(numeric),
        Some(t) => numeric(t),
        None => false,
    }
}

/// A concrete place in the base spec: keys and list indexes.
#[derive(Debug, Clone)]
enum Step {
    Key(String),
    Index(usize),
}

/// How much of a place the base spec already has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Fit {
    /// The field itself is written there.
    Written,
    /// Its object is there; the field is added.
    Parent,
    /// Objects on the way are created (a field in a section the base lacks).
    Created,
}

/// Every place in `spec` that `path` can name, with how well it fits.
fn places(spec: &Value, path: &[Seg], at: &mut Vec<Step>, out: &mut Vec<(Vec<Step>, Fit)>) {
    let Some((first, rest)) = path.split_first() else {
        out.push((at.clone(), Fit::Written));
        return;
    };
    match first {
        Seg::Key(key) => match spec.get(key) {
            Some(value) => {
                at.push(Step::Key(key.clone()));
                places(value, rest, at, out);
                at.pop();
            }
            None if spec.is_object() && rest.iter().all(|s| matches!(s, Seg::Key(_))) => {
                let mut steps = at.clone();
                steps.extend(path.iter().map(|s| match s {
                    Seg::Key(k) => Step::Key(k.clone()),
                    _ => unreachable!("only keys remain"),
                }));
                out.push((
                    steps,
                    if rest.is_empty() {
                        Fit::Parent
                    } else {
                        Fit::Created
                    },
                ));
            }
            None => {}
        },
        Seg::AnyKey => {
            for (key, value) in spec.as_object().into_iter().flatten() {
                at.push(Step::Key(key.clone()));
                places(value, rest, at, out);
                at.pop();
            }
        }
        Seg::Item => {
            for (i, value) in spec.as_array().into_iter().flatten().enumerate() {
                at.push(Step::Index(i));
                places(value, rest, at, out);
                at.pop();
            }
        }
    }
}

/// The places a field is tried at: every place that already writes it,
/// else every object it can be added to, else the first it can be created at.
fn best_places(spec: &Value, field: &Field) -> Vec<Vec<Step>> {
    let mut all = Vec::new();
    places(spec, &field.path, &mut Vec::new(), &mut all);
    let Some(best) = all.iter().map(|(_, fit)| *fit).min() else {
        return Vec::new();
    };
    let chosen = all
        .into_iter()
        .filter(|(_, fit)| *fit == best)
        .map(|(steps, _)| steps);
    match best {
        Fit::Created => chosen.take(1).collect(),
        Fit::Written | Fit::Parent => chosen.collect(),
    }
}

/// `spec` with `value` written at `steps`, creating objects on the way.
fn with_value(spec: &Value, steps: &[Step], value: Value) -> Value {
    let mut spec = spec.clone();
    let mut node = &mut spec;
    for step in steps {
        node = match step {
            Step::Key(key) => node
                .as_object_mut()
                .expect("a place found in the base spec is an object")
                .entry(key.clone())
                .or_insert_with(|| json!({})),
            Step::Index(i) => &mut node[*i],
        };
    }
    *node = value;
    spec
}

fn show(steps: &[Step]) -> String {
    steps
        .iter()
        .map(|s| match s {
            Step::Key(k) => k.clone(),
            Step::Index(i) => i.to_string(),
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// The numeric fields declared in `syntax/`: `(struct, field)` for
/// every field of a struct that derives `JsonSchema` whose type is a
/// `Spanned` number. (The short forms, which do not derive it, share their
/// long forms' fields.)
fn declared_numeric_fields() -> BTreeSet<(String, String)> {
    // The declarations: every file of `src/syntax/`.
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src/syntax"));
    let source: String = support::files_with_extension(dir, "rs")
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .collect::<Vec<_>>()
        .join("\n");
    let numbers = [
        "u8",
        "u16",
        "u32",
        "u64",
        "i32",
        "i64",
        "f32",
        "f64",
        "usize",
        "serde_json::Number",
    ];
    let mut out = BTreeSet::new();
    let mut derives_schema = false;
    let mut current: Option<String> = None;
    for line in source.lines() {
        if line.starts_with("#[derive(") {
            derives_schema = line.contains("JsonSchema");
        } else if let Some(rest) = line.strip_prefix("pub struct ") {
            let name = rest
                .split(|c: char| !c.is_alphanumeric() && c != '_')
                .next()
                .unwrap_or("");
            current = derives_schema.then(|| name.to_owned());
        } else if line == "}" {
            current = None;
        } else if let (Some(strukt), Some(field)) = (&current, line.trim().strip_prefix("pub ")) {
            let Some((name, ty)) = field.split_once(": ") else {
                continue;
            };
            if numbers
                .iter()
                .any(|n| ty.contains(&format!("Spanned<{n}>")))
            {
                out.insert((strukt.clone(), name.trim_start_matches("r#").to_owned()));
            }
        }
    }
    out
}

/// Compiles `text`; when clean, renders every output. Never panics unless
/// the compiler does.
fn compile_and_render(text: &str) -> bool {
    let mut compiler = Compiler::new();
    compiler.source("numbers.yaml", text);
    let compilation = compiler.compile();
    check_labels(&compilation, text);
    let _ = compilation.report().to_text();
    if compilation.has_errors() {
        return false;
    }
    outputs::every_output(&compiler, &compilation);
    true
}

fn check_labels(compilation: &Compilation, text: &str) {
    for d in compilation.diagnostics.iter() {
        for label in d.labels.iter().filter(|l| !l.span.is_dummy()) {
            let (start, end) = (label.span.start as usize, label.span.end as usize);
            assert!(
                start <= end && text.get(start..end).is_some(),
                "label outside the text: {d:?}"
            );
        }
    }
}

#[test]
fn the_walk_finds_every_declared_numeric_field() {
    let fields = numeric_fields(&singletable::json_schema());
    let found: BTreeSet<(String, String)> = fields
        .iter()
        .map(|f| (f.definition.clone(), f.property.clone()))
        .collect();
    let declared = declared_numeric_fields();
    assert!(
        declared.len() >= KNOWN_NUMERIC_FIELDS,
        "the scan of src/syntax/ found only {declared:?}"
    );
    let missing: Vec<_> = declared.difference(&found).collect();
    assert!(
        missing.is_empty(),
        "the schema walk misses {missing:?}; found {found:?}"
    );
    assert!(found.len() >= declared.len());
}

#[test]
fn the_base_spec_is_clean() {
    let text = serde_json::to_string_pretty(&base()).expect("JSON");
    let compilation = Compiler::new()
        .source("numbers.yaml", text.as_str())
        .compile();
    assert!(!compilation.has_errors(), "{:?}", compilation.report());
    assert!(compile_and_render(&text));
}

#[test]
fn every_numeric_field_takes_every_extreme() {
    let base = base();
    let fields = numeric_fields(&singletable::json_schema());
    let (mut runs, mut accepted) = (0, 0);
    let mut lines = Vec::new();
    for field in &fields {
        let places = best_places(&base, field);
        assert!(
            !places.is_empty(),
            "no place in the base spec for {:?} ({}.{}): extend base()",
            field.path,
            field.definition,
            field.property
        );
        for steps in &places {
            let mut clean = Vec::new();
            for value in extremes() {
                let spec = with_value(&base, steps, value.clone());
                let text = serde_json::to_string_pretty(&spec).expect("JSON");
                runs += 1;
                if compile_and_render(&text) {
                    accepted += 1;
                    clean.push(value.to_string());
                }
            }
            lines.push(format!(
                "  {}: accepted [{}]",
                show(steps),
                clean.join(", ")
            ));
        }
    }
    println!(
        "{} numeric fields at {} places, {runs} specs, {accepted} without errors (rendered):",
        fields.len(),
        lines.len()
    );
    for line in &lines {
        println!("{line}");
    }
    assert!(runs >= KNOWN_NUMERIC_FIELDS * extremes().len());
}
