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

/// Reads a Workbench model (JSON text) and makes one spec per table.
pub fn import_workbench(json: &str) -> Result<Imported, String> {
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("not JSON: {e}"))?;
    super::json::duplicate_keys(json)?;
    let model = read_model(&value)?;
    let mut notes = model.notes;
    if model.tables.is_empty() {
        notes.push("the model has no tables".into());
    }
    let specs = model
        .tables
        .iter()
        .map(|table| {
            let inferred = infer::infer_table(table);
            let mut notes = table.notes.clone();
            notes.extend(inferred.notes.iter().cloned());
            let file_name = format!("{}.yaml", file_stem(&table.name));
            let spec = render::render_spec(&model.name, &model.description, table, &inferred);
            let yaml = with_patterns(&file_name, spec, render::candidate_patterns(&inferred));
            ImportedSpec {
                table: table.name.clone(),
                file_name,
                yaml,
                notes,
            }
        })
        .collect();
    Ok(Imported { specs, notes })
}

/// The spec with each candidate access pattern `check` accepts: a pattern
/// that adds an error (a query that could return entities of other shapes,
/// a parameter bound to attributes of different types) is left out, so the
/// importer never writes a spec its own checker rejects.
fn with_patterns(file_name: &str, spec: String, candidates: Vec<String>) -> String {
    let errors = |yaml: &str| {
        crate::Compiler::new()
            .source(file_name.to_owned(), yaml.to_owned())
            .compile()
            .diagnostics
            .iter()
            .filter(|d| d.severity == crate::diagnostics::Severity::Error)
            .count()
    };
    let base = errors(&spec);
    let mut kept: Vec<String> = Vec::new();
    for candidate in candidates {
        let mut trial = kept.clone();
        trial.push(candidate.clone());
        let yaml = format!("{spec}access_patterns:\n{}", trial.concat());
        if errors(&yaml) <= base {
            kept.push(candidate);
        }
    }
    let note = "# access_patterns: the model does not record them. Those below are the ones every\n# table has (a get per entity, a query per partition and per index); add the\n# queries the application makes.\n";
    if kept.is_empty() {
        format!("{spec}{note}")
    } else {
        format!("{spec}{note}access_patterns:\n{}", kept.concat())
    }
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
