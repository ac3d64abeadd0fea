//! Rules about the specs compiled together: one spec per table.

use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::source::SourceMap;
use crate::CompiledSpec;

/// Why: `check` proves keys disjoint, entities told apart and tenants
/// isolated within one spec; two specs that describe one table with
/// different entities write items neither proof has seen, which the
/// other's reads may take for its own.
pub(crate) fn one_spec_per_table(
    sources: &SourceMap,
    specs: &[CompiledSpec],
    diagnostics: &mut Diagnostics,
) {
    for (i, later) in specs.iter().enumerate() {
        let name = &later.spec.table.name;
        // Two versions of one design (an entity in both: the old and the
        // new of a migration) are the lock's business; specs that share no
        // entity are two designs in one table, which nothing proves apart.
        let Some(first) = specs[..i].iter().find(|s| {
            s.spec.table.name.value == name.value
                && !s
                    .spec
                    .entities
                    .keys()
                    .any(|e| later.spec.entities.contains_key(e))
        }) else {
            continue;
        };
        let file = sources.get(first.file).map_or("", |f| f.name.as_str());
        diagnostics.push(
            Diagnostic::new(
                Code::DuplicateName,
                format!("two specs describe table `{name}` with different entities: this one and `{file}`"),
            )
            .label(name.span, "the table, also described elsewhere")
            .label(first.spec.table.name.span, "described here first")
            .help("each spec's proofs (disjoint keys, entities told apart, tenant isolation) cover only its own items: describe the table's entities in one spec, or give each spec its own table"),
        );
    }
}
