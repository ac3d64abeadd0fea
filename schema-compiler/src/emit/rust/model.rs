//! The output model in words: every name the generated module defines, per
//! scope, and what the printers were planned to print. A snapshot of it per
//! spec shows where a generated name comes from and what a spec edit changes
//! in the module before the code is read.

use std::fmt::Write as _;

use indexmap::IndexMap;

use super::Emitter;
use crate::ir;

impl Emitter<'_> {
    /// The model, as text: names per scope, the module-private names, the
    /// key functions and domains, the rules and the access patterns'
    /// parameters with their key encodings.
    pub(super) fn describe_model(&self) -> String {
        let mut out = String::new();
        let mut scopes: IndexMap<String, Vec<String>> = IndexMap::new();
        for (scope, name, item) in self.names.claims() {
            scopes
                .entry(format!("{scope:?}"))
                .or_default()
                .push(format!("{name} <- {item:?}"));
        }
        for (scope, names) in scopes {
            let _ = writeln!(out, "names in {scope}");
            for name in names {
                let _ = writeln!(out, "  {name}");
            }
        }
        let _ = writeln!(out, "private functions");
        for (item, ident) in &self.private {
            let _ = writeln!(out, "  {ident} <- {item:?}");
        }
        let _ = writeln!(out, "keys");
        for line in self.keys.describe() {
            let _ = writeln!(out, "  {line}");
        }
        let _ = writeln!(out, "rules");
        let mut rules: IndexMap<String, Vec<String>> = IndexMap::new();
        for ((entity, path), ident) in &self.rules {
            rules
                .entry(ident.to_string())
                .or_default()
                .push(format!("{entity}.{path}"));
        }
        for (rule, users) in rules {
            let _ = writeln!(out, "  {rule} <- {}", users.join(", "));
        }
        let _ = writeln!(out, "access patterns");
        for plan in &self.patterns {
            let _ = writeln!(
                out,
                "  {} on {:?}{}",
                plan.pattern.name.as_str(),
                plan.handle,
                describe_params(&plan.params)
            );
        }
        out
    }
}

/// `: p (Entity.attribute in its key encoding), …` for a pattern's
/// parameters; nothing for none.
fn describe_params(params: &IndexMap<&str, (&ir::Entity, &ir::Attribute)>) -> String {
    let described: Vec<String> = params
        .iter()
        .map(|(param, (entity, attribute))| {
            format!(
                "{param} ({}.{} in {})",
                entity.name.as_str(),
                attribute.name.as_str(),
                attribute.key_encoding().describe()
            )
        })
        .collect();
    if described.is_empty() {
        String::new()
    } else {
        format!(": {}", described.join(", "))
    }
}

/// The output model of `spec`'s module, as text: the names each scope
/// claims, the private functions, the key functions with their
/// parameters' key encodings, the rules and their users, and the access
/// patterns' parameters.
pub fn describe_model(spec: &ir::Spec) -> String {
    Emitter::new(spec).describe_model()
}
