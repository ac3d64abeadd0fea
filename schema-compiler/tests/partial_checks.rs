//! After a resolution error, the checks still judge the rest of the spec,
//! and what they say about it is what they would say without the error:
//! for every reference spec and every entity in it, an unknown type put
//! into that entity brings the `unknown_type` error and otherwise only
//! findings the intact spec has too (no finding caused by leaving the
//! broken entity out), and the findings about the other entities are not
//! lost when the intact spec has any.

mod support;

use std::collections::BTreeSet;

use singletable::diagnostics::Code;
use singletable::Compiler;

/// The findings of a spec, but those that point into `skip` (a byte range).
fn findings(name: &str, text: &str, skip: std::ops::Range<u32>) -> BTreeSet<(Code, String)> {
    Compiler::new()
        .source(name, text)
        .compile()
        .diagnostics
        .iter()
        .filter(|d| {
            d.labels
                .first()
                .is_none_or(|l| !skip.contains(&l.span.start))
        })
        .map(|d| (d.code, d.message.clone()))
        .collect()
}

#[test]
fn checks_after_a_resolution_error_add_nothing_the_intact_spec_lacks() {
    let mut broken_specs = 0;
    let mut kept = 0;
    for path in support::spec_paths() {
        let text = std::fs::read_to_string(&path).expect("read spec");
        let name = path.display().to_string();
        let intact = findings(&name, &text, 0..0);
        let compiled = Compiler::new().source(name.clone(), text.clone()).compile();
        let spec = &compiled.specs[0].spec;
        // Where each entity's declaration begins, and where the next thing does.
        let starts: Vec<u32> = spec
            .entities
            .values()
            .map(|e| e.name.span.start)
            .chain(spec.access_patterns.values().map(|p| p.name.span.start))
            .chain(spec.roles.values().map(|r| r.name.span.start))
            .collect();
        for entity in spec.entities.values() {
            let from = entity.name.span.start;
            let to = starts
                .iter()
                .copied()
                .filter(|s| *s > from)
                .min()
                .unwrap_or(u32::MAX);
            // Give the entity's first attribute an unknown type.
            let Some(attribute) = entity.attributes.values().next() else {
                continue;
            };
            let start = attribute.name.span.start as usize;
            let end = attribute.name.span.end as usize;
            let broken = format!(
                "{}{}: timestamp\n#{}",
                &text[..start],
                &text[start..end],
                &text[end..]
            );
            // The broken entity's own errors are not compared (its span moved by
            // the edit, so skip generously to the next declaration).
            let found = findings(&name, &broken, from..to.saturating_add(64));
            assert!(
                Compiler::new()
                    .source(name.clone(), broken.clone())
                    .compile()
                    .diagnostics
                    .iter()
                    .any(|d| d.code == Code::UnknownType),
                "{name}, {}: the broken spec does not report unknown_type",
                entity.name
            );
            broken_specs += 1;
            // Errors the resolver derives from the unknown type (the attribute
            // is read as a map) are its own; the checks are what is compared.
            let derived = [
                Code::UnknownType,
                Code::PlaceholderType,
                Code::PatternMismatch,
            ];
            for (code, message) in found.iter().filter(|(c, _)| !derived.contains(c)) {
                assert!(
                    intact.contains(&(*code, message.clone())),
                    "{name} with `{}` broken reports what the intact spec does not: {code}: {message}",
                    entity.name
                );
                kept += 1;
            }
        }
    }
    assert!(broken_specs > 30, "only {broken_specs} broken specs");
    assert!(kept > 0, "no finding survives a resolution error elsewhere");
}
