//! Item-size estimates against items: the typical size `check` and the
//! capacity estimates use, compared with the mean size of the items the
//! Workbench export holds for each entity, measured here from the exported
//! JSON by DynamoDB's rules ("Item sizes and formats"), independently of
//! the compiler's own measure.
//!
//! For every import of a real or generated Workbench model the items are
//! the model's own (its sample data become the spec's examples): the
//! estimate is within 20% of them. For the specs of `schemas/` and
//! `fixtures/pass/`, whose samples are generated from the types (short
//! values), the type-based estimate is never more than 20% below them: it
//! errs towards more write units, not fewer. Its spread is printed.

mod support;

use serde_json::Value;
use singletable::emit::workbench;
use singletable::import::workbench::import_workbench;
use singletable::{explain, ir, Compiler};
use support::{spec_paths, workspace_root};

/// A number's size: one byte per two significant digits, and one.
fn number(text: &str) -> usize {
    let mantissa = text.split(['e', 'E']).next().unwrap_or_default();
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let significant = digits.trim_start_matches('0').trim_end_matches('0').len();
    significant.max(1).div_ceil(2) + 1
}

fn base64(text: &str) -> usize {
    let padding = text.bytes().rev().take_while(|b| *b == b'=').count();
    (text.len() * 3 / 4).saturating_sub(padding)
}

/// The size of one attribute value in the Workbench's JSON (`{"S": "x"}`).
fn value_size(value: &Value) -> usize {
    let Some((tag, inner)) = value.as_object().and_then(|o| o.iter().next()) else {
        return 0;
    };
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let items = || inner.as_array().cloned().unwrap_or_default();
    match tag.as_str() {
        "S" => text(inner).len(),
        "N" => number(&text(inner)),
        "B" => base64(&text(inner)),
        "BOOL" | "NULL" => 1,
        "L" => 3 + items().iter().map(|v| 1 + value_size(v)).sum::<usize>(),
        "M" => {
            3 + inner
                .as_object()
                .map(|m| m.iter().map(|(k, v)| 1 + k.len() + value_size(v)).sum())
                .unwrap_or(0)
        }
        "SS" => items().iter().map(|v| text(v).len()).sum(),
        "NS" => items().iter().map(|v| number(&text(v))).sum(),
        "BS" => items().iter().map(|v| base64(&text(v))).sum(),
        other => panic!("unknown attribute type {other}"),
    }
}

fn item_size(item: &Value) -> usize {
    item.as_object()
        .into_iter()
        .flatten()
        .map(|(name, v)| name.len() + value_size(v))
        .sum()
}

/// `(entity, estimate, mean size of its exported items)` for every entity
/// with items in the export of `spec`.
fn estimates(spec: &ir::Spec) -> Vec<(String, usize, f64)> {
    let model =
        serde_json::to_value(workbench::model(spec, &workbench::Options::default())).unwrap();
    let mut out = Vec::new();
    for facet in model["DataModel"][0]["TableFacets"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let name = facet["FacetName"].as_str().unwrap_or_default();
        let items = facet["TableData"].as_array().cloned().unwrap_or_default();
        let Some(entity) = spec.entities.get(name) else {
            continue;
        };
        if items.is_empty() {
            continue;
        }
        let mean = items.iter().map(item_size).sum::<usize>() as f64 / items.len() as f64;
        out.push((
            name.to_owned(),
            explain::typical_item_size(spec, entity),
            mean,
        ));
    }
    out
}

/// Every Workbench model in the repository: the real exports and the
/// shapes taken from real files.
fn models() -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for dir in ["workbench-exports", "workbench"] {
        let dir = workspace_root()
            .join("schema-compiler/tests/data")
            .join(dir);
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "json") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn estimates_of_imported_models_are_within_a_fifth_of_their_items() {
    let mut checked = 0;
    let mut off = Vec::new();
    for file in models() {
        let json = std::fs::read_to_string(&file).unwrap();
        let imported =
            import_workbench(&json).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for spec in &imported.specs {
            let compilation = Compiler::new()
                .source(spec.file_name.clone(), spec.yaml.clone())
                .compile();
            let compiled = compilation
                .specs
                .first()
                .unwrap_or_else(|| panic!("{}: {}", spec.file_name, compilation.report()));
            for (entity, estimate, mean) in estimates(&compiled.spec) {
                checked += 1;
                let ratio = estimate as f64 / mean;
                if !(0.8..=1.2).contains(&ratio) {
                    off.push(format!(
                        "{} {entity}: estimated {estimate} B, items {mean:.0} B",
                        file.file_name().unwrap().to_string_lossy()
                    ));
                }
            }
        }
    }
    eprintln!("{checked} imported entities measured");
    assert!(checked > 20, "only {checked} entities measured");
    assert!(
        off.is_empty(),
        "{} of {checked} estimates are off by more than 20%:\n{}",
        off.len(),
        off.join("\n")
    );
}

#[test]
fn estimates_from_types_stay_near_the_generated_samples() {
    let mut ratios = Vec::new();
    let mut far = Vec::new();
    let fixtures = workspace_root().join("fixtures/pass");
    let mut paths = spec_paths();
    paths.extend(
        std::fs::read_dir(&fixtures)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "yaml")),
    );
    for path in paths {
        let compilation = Compiler::new().file(&path).compile();
        let Some(compiled) = compilation.specs.first() else {
            continue;
        };
        for (entity, estimate, mean) in estimates(&compiled.spec) {
            let ratio = estimate as f64 / mean;
            ratios.push(ratio);
            if ratio < 0.8 {
                far.push(format!(
                    "{} {entity}: estimated {estimate} B, samples {mean:.0} B",
                    path.file_name().unwrap().to_string_lossy()
                ));
            }
        }
    }
    ratios.sort_by(f64::total_cmp);
    let within = ratios.iter().filter(|r| (0.8..=1.2).contains(*r)).count();
    eprintln!(
        "{within} of {} type-based estimates within 20% of the generated samples; ratios from {:.2} to {:.2}, median {:.2}",
        ratios.len(),
        ratios[0],
        ratios[ratios.len() - 1],
        ratios[ratios.len() / 2]
    );
    assert!(
        far.is_empty(),
        "estimates below the generated samples by more than 20%:\n{}",
        far.join("\n")
    );
}
