//! After a resolution error, the checks still judge the rest of the spec,
//! and what they say about it is what they would say without the error:
//! for every reference spec and every entity in it, an unknown type put
//! into that entity brings the `unknown_type` error and otherwise only
//! findings the intact spec has too (no finding caused by leaving the
//! broken entity out), and the findings about the other entities are not
//! lost when the intact spec has any.

mod support;

use std::collections::BTreeSet;

use singletable::diagnostics::{Code, Severity};
use singletable::ir::PlaceholderKind;
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

/// The codes of a spec's errors, in report order.
fn errors(name: &str, text: &str) -> Vec<Code> {
    Compiler::new()
        .source(name, text)
        .compile()
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.code)
        .collect()
}

/// A misspelt placeholder in any key template of any entity of every
/// reference spec and passing fixture is one error, `unknown_placeholder`: the access patterns
/// that read the entity, written right, are not told to change too.
#[test]
fn a_misspelt_key_placeholder_is_one_error() {
    let mut tried = 0;
    let pass = support::fixture_paths("pass");
    for path in support::spec_paths().into_iter().chain(pass) {
        let text = std::fs::read_to_string(&path).expect("read spec");
        let name = path.display().to_string();
        let compiled = Compiler::new().source(name.clone(), text.clone()).compile();
        if compiled.diagnostics.has_errors() {
            continue;
        }
        let spec = &compiled.specs[0].spec;
        for entity in spec.entities.values() {
            for (_, template) in entity.templates() {
                let Some(ph) = template
                    .placeholders()
                    .find(|p| p.kind == PlaceholderKind::Attribute)
                else {
                    continue;
                };
                // A template written inline holds the placeholder as `<name>`.
                let whole = format!("<{}>", ph.name.value);
                let at = ph.name.span.start as usize + 1;
                if text.get(at - 1..ph.name.span.end as usize) != Some(whole.as_str()) {
                    continue;
                }
                let broken = format!("{}zq{}", &text[..at], &text[at..]);
                assert_eq!(
                    errors(&name, &broken),
                    vec![Code::UnknownPlaceholder],
                    "{name}: `<zq{}>` in `{}`'s key `{}`",
                    ph.name.value,
                    entity.name,
                    template.source.value
                );
                tried += 1;
            }
        }
    }
    assert!(tried > 100, "only {tried} misspelt placeholders tried");
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
            // One root cause, one error: the attribute read as an untyped
            // map is not also "a map, which cannot be part of a key", and a
            // pattern over the entity is not told to change.
            assert_eq!(
                errors(&name, &broken),
                vec![Code::UnknownType],
                "{name} with `{}.{}` of an unknown type",
                entity.name,
                attribute.name
            );
            for (code, message) in found.iter().filter(|(c, _)| *c != Code::UnknownType) {
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
