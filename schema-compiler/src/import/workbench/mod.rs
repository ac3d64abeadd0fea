//! NoSQL Workbench models to starting specs.
//!
//! Reads any version of the format (the 2019 preview without `Version`,
//! 1.0, 2.0, 3.0) and the non-canonical values real files contain
//! (`{"N": 1}`, bare list elements). The input is untrusted: nothing here
//! panics on any JSON, and whatever cannot be inferred is reported as a
//! note and marked with a comment in the spec.
//!
//! Each table becomes one spec. Each facet becomes an entity (a table
//! without facets becomes one entity); its sample items become the
//! entity's `examples`, so exporting the spec shows the same items. Key
//! templates come from the facets' key aliases when those are templates
//! that reproduce every sample key, else from the sample keys themselves
//! (constant parts become literals, varying parts placeholders named after
//! the attribute holding the same value, or after the alias), else a plain
//! placeholder with a comment.

mod infer;
mod read;
mod render;

use indexmap::IndexMap;

pub use read::{normalize_value, read_model, ModelTable};
use read::{read_model_with, Model};

/// The specs made from one model.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    /// One spec per table.
    pub specs: Vec<ImportedSpec>,
    /// Notes about the model as a whole.
    pub notes: Vec<String>,
}

/// One table's spec.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedSpec {
    /// The table name.
    pub table: String,
    /// `<table>.yaml`, made safe as a file name.
    pub file_name: String,
    /// The spec.
    pub yaml: String,
    /// What could not be inferred (also marked in the spec).
    pub notes: Vec<String>,
}

/// Exports a spec (its file name and text) as a Workbench model, imports
/// that model, and exports the spec imported: `Ok` when it checks clean
/// and its model is the first, byte for byte; else what differs (the
/// first lines, and the spec imported).
pub fn round_trip(name: &str, yaml: &str) -> Result<(), String> {
    let export = |name: &str, yaml: &str| -> Result<String, String> {
        let compilation = crate::Compiler::new().source(name, yaml).compile();
        if compilation.has_errors() {
            return Err(format!(
                "{name} does not check:\n{}\n{yaml}",
                compilation.report()
            ));
        }
        let ir = &compilation.specs[0].spec;
        if let Some(refusal) = crate::emit::workbench::refusal(ir) {
            return Err(format!(
                "{name} has no Workbench model: {}",
                refusal.message
            ));
        }
        let model = crate::emit::workbench::model(ir, &crate::emit::workbench::Options::default());
        serde_json::to_string_pretty(&model).map_err(|e| e.to_string())
    };
    let first = export(name, yaml)?;
    let imported = import_workbench(&first)?;
    let [spec] = imported.specs.as_slice() else {
        return Err(format!("{} specs imported", imported.specs.len()));
    };
    let second = export(&spec.file_name, &spec.yaml)?;
    if first == second {
        return Ok(());
    }
    let diff: Vec<String> = first
        .lines()
        .zip(second.lines())
        .enumerate()
        .filter(|(_, (a, b))| a != b)
        .take(3)
        .map(|(i, (a, b))| format!("line {}: {a}\n       != {b}", i + 1))
        .collect();
    Err(format!(
        "the second export differs:\n{}\n{}",
        diff.join("\n"),
        spec.yaml
    ))
}

/// Reads a Workbench model (JSON text) and makes one spec per table.
pub fn import_workbench(json: &str) -> Result<Imported, String> {
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("not JSON: {e}"))?;
    super::json::duplicate_keys(json)?;
    let model = read_model(&value)?;
    let mut notes = model.notes.clone();
    if model.tables.is_empty() {
        notes.push("the model has no tables".into());
    }
    // The same model read without discriminators, when a table needs it.
    let mut plain: Option<Result<Model, String>> = None;
    let mut specs = Vec::with_capacity(model.tables.len());
    for (i, table) in model.tables.iter().enumerate() {
        let file_name = format!("{}.yaml", file_stem(&table.name));
        let (mut table, mut trial) = (table, table_spec(&model, table, &file_name));
        // An attribute named like a discriminator may be data: split by the
        // keys instead when that makes fewer entities' keys meet.
        if trial.collisions() > 0 {
            let plain = plain.get_or_insert_with(|| read_model_with(&value, false));
            if let Some(other) = plain.as_ref().ok().and_then(|m| m.tables.get(i)) {
                let again = table_spec(&model, other, &file_name);
                if again.collisions() < trial.collisions() {
                    (table, trial) = (other, again);
                }
            }
        }
        let mut notes = table.notes.clone();
        notes.extend(trial.inferred.notes.iter().cloned());
        let candidates = render::candidate_patterns(&trial.inferred);
        let base = trial.errors.len();
        let yaml = with_patterns(&file_name, trial.spec, base, candidates);
        specs.push(ImportedSpec {
            table: table.name.clone(),
            file_name,
            yaml,
            notes,
        });
    }
    Ok(Imported { specs, notes })
}

/// What the importer makes of `table`, and its spec without access
/// patterns: values all of a facet's samples share read as placeholders,
/// unless that makes two entities' keys meet (then they are literals).
fn table_spec(model: &Model, table: &ModelTable, file_name: &str) -> Trial {
    let trial = |literal_constants, words| {
        let mut inferred = infer::infer_table(table, literal_constants);
        if words {
            infer::key_strings_as_enums(&mut inferred);
        }
        let spec = render::render_spec(&model.name, &model.description, table, &inferred);
        let errors = check_errors(file_name, &spec);
        Trial {
            inferred,
            spec,
            errors,
        }
    };
    let mut best = trial(false, false);
    // Fewer collisions with constants as literals, then with key strings
    // of a few words as enums of them.
    for (literal_constants, words) in [(true, false), (false, true), (true, true)] {
        if best.collisions() == 0 {
            break;
        }
        let other = trial(literal_constants, words);
        if other.collisions() < best.collisions() {
            best = other;
        }
    }
    best
}

/// A spec the importer made (without access patterns), and the errors
/// `check` finds in it.
struct Trial {
    inferred: infer::Inferred,
    spec: String,
    errors: Vec<(crate::diagnostics::Code, Labels)>,
}

impl Trial {
    /// The number of `key_collision` errors.
    fn collisions(&self) -> usize {
        self.errors
            .iter()
            .filter(|(code, _)| *code == crate::diagnostics::Code::KeyCollision)
            .count()
    }
}

/// The byte ranges an error's labels point at.
type Labels = Vec<(usize, usize)>;

/// The errors `check` finds in `yaml`, each with its code and the byte
/// ranges its labels point at.
fn check_errors(file_name: &str, yaml: &str) -> Vec<(crate::diagnostics::Code, Labels)> {
    crate::Compiler::new()
        .source(file_name.to_owned(), yaml.to_owned())
        .compile()
        .diagnostics
        .iter()
        .filter(|d| d.severity == crate::diagnostics::Severity::Error)
        .map(|d| {
            let labels = d.labels.iter();
            let labels = labels.map(|l| (l.span.start as usize, l.span.end as usize));
            (d.code, labels.collect())
        })
        .collect()
}

/// The spec with each candidate access pattern `check` accepts: a pattern
/// that adds an error (a query that could return entities of other shapes,
/// a parameter bound to attributes of different types) is left out, so the
/// importer never writes a spec its own checker rejects.
///
/// All candidates are checked together, and those an error points into are
/// dropped, until no candidate adds an error: a few compiles of the spec,
/// not one per candidate (which made a model of hundreds of facets take
/// minutes). An error that points into no candidate is found by trying them
/// one at a time. `base` is the number of errors of `spec` alone.
fn with_patterns(file_name: &str, spec: String, base: usize, candidates: Vec<String>) -> String {
    let note = "# access_patterns: the model does not record them. Those below are the ones every\n# table has (a get per entity, a query per partition and per index); add the\n# queries the application makes.\n";
    let head = format!("{spec}{note}access_patterns:\n");
    // The errors of `yaml`, each with the byte ranges its labels point at.
    let errors = |yaml: &str| -> Vec<Labels> {
        check_errors(file_name, yaml)
            .into_iter()
            .map(|(_, labels)| labels)
            .collect()
    };
    let mut kept = candidates;
    loop {
        let mut yaml = head.clone();
        let mut ranges = Vec::with_capacity(kept.len());
        for candidate in &kept {
            let start = yaml.len();
            yaml.push_str(candidate);
            ranges.push((start, yaml.len()));
        }
        let found = errors(&yaml);
        if found.len() <= base {
            break;
        }
        let blamed: Vec<bool> = ranges
            .iter()
            .map(|(start, end)| {
                found
                    .iter()
                    .flatten()
                    .any(|(s, e)| s < end && *e > *start || (s == e && s >= start && s < end))
            })
            .collect();
        if !blamed.contains(&true) {
            kept = one_at_a_time(&head, kept, base, &errors);
            break;
        }
        let mut i = 0;
        kept.retain(|_| {
            i += 1;
            !blamed[i - 1]
        });
    }
    if kept.is_empty() {
        format!("{spec}{note}")
    } else {
        format!("{head}{}", kept.concat())
    }
}

/// The candidates that add no error, tried one at a time after the
/// patterns kept so far (the slow path, for errors no candidate's lines
/// show).
fn one_at_a_time(
    head: &str,
    candidates: Vec<String>,
    base: usize,
    errors: &dyn Fn(&str) -> Vec<Labels>,
) -> Vec<String> {
    let mut kept: Vec<String> = Vec::new();
    for candidate in candidates {
        let yaml = format!("{head}{}{candidate}", kept.concat());
        if errors(&yaml).len() <= base {
            kept.push(candidate);
        }
    }
    kept
}

fn file_stem(name: &str) -> String {
    let stem: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    if stem.is_empty() {
        "table".to_owned()
    } else {
        stem
    }
}

/// An ordered map of items' attributes.
pub type Item = IndexMap<String, crate::ir::AttributeValue>;
