//! The part of a spec that resolution errors do not touch, so the checks
//! can still report on it: one mistake in one entity does not hide the
//! findings about every other entity.
//!
//! An entity, access pattern or role is broken when an error points inside
//! its declaration. Whatever depends on something broken goes too: an
//! access pattern that reads a broken entity, an aggregate that counts one,
//! a role that lists a removed access pattern. An error anywhere else (the
//! table, the tenant, an index) can change every key, so nothing is
//! checked then.

use crate::diagnostics::{Diagnostics, Severity};
use crate::ir::{self, Operation};
use crate::source::Span;
use crate::syntax;

/// The spec without its broken parts, or `None` when an error lies outside
/// every entity, access pattern and role.
pub fn healthy_part(
    decl: &syntax::SpecDecl,
    spec: &ir::Spec,
    diags: &Diagnostics,
) -> Option<ir::Spec> {
    let starts = starts(decl);
    let entities = extents(&decl.entities, &starts);
    let patterns = extents(&decl.access_patterns, &starts);
    let roles = extents(&decl.roles, &starts);
    let mut broken_entities = Vec::new();
    let mut broken_patterns = Vec::new();
    let mut broken_roles = Vec::new();
    for d in diags.iter().filter(|d| d.severity == Severity::Error) {
        let at = d.labels.first()?.span;
        let inside =
            |(_, s): &&(String, Span)| s.file == at.file && s.start <= at.start && at.start < s.end;
        if let Some((name, _)) = entities.iter().find(inside) {
            broken_entities.push(name.clone());
        } else if let Some((name, _)) = patterns.iter().find(inside) {
            broken_patterns.push(name.clone());
        } else if let Some((name, _)) = roles.iter().find(inside) {
            broken_roles.push(name.clone());
        } else {
            return None;
        }
    }
    let mut healthy = spec.clone();
    // Removing an entity can break what reads or counts it, so repeat until nothing changes.
    loop {
        let before = (healthy.entities.len(), healthy.access_patterns.len());
        healthy.entities.retain(|name, e| {
            !broken_entities.contains(name)
                && e.aggregate
                    .as_ref()
                    .is_none_or(|a| !broken_entities.contains(&a.of))
        });
        let removed: Vec<String> = healthy
            .access_patterns
            .values()
            .filter(|p| {
                broken_patterns.contains(&p.name.value)
                    || entities_of(p)
                        .iter()
                        .any(|e| !healthy.entities.contains_key(*e))
            })
            .map(|p| p.name.value.clone())
            .collect();
        healthy
            .access_patterns
            .retain(|name, _| !removed.contains(name));
        for name in spec.entities.keys() {
            if !healthy.entities.contains_key(name) && !broken_entities.contains(name) {
                broken_entities.push(name.clone());
            }
        }
        if before == (healthy.entities.len(), healthy.access_patterns.len()) {
            break;
        }
    }
    let patterns = &healthy.access_patterns;
    healthy.roles.retain(|name, role| {
        !broken_roles.contains(name)
            && role
                .access_patterns
                .iter()
                .all(|p| patterns.contains_key(&p.value))
    });
    Some(healthy)
}

/// Each declaration's name with its extent: from its name to where the
/// next thing declared at the same level or above begins (the parser's span
/// of a block mapping covers only its first key).
fn extents<T>(map: &syntax::de::NamedMap<T>, starts: &[u32]) -> Vec<(String, Span)> {
    map.iter()
        .map(|(name, _)| {
            let end = starts
                .iter()
                .copied()
                .filter(|s| *s > name.span.start)
                .min()
                .unwrap_or(u32::MAX);
            let span = Span {
                file: name.span.file,
                start: name.span.start,
                end,
            };
            (name.value.clone(), span)
        })
        .collect()
}

/// Where every top-level section and every declaration in one begins.
fn starts(decl: &syntax::SpecDecl) -> Vec<u32> {
    fn names<T>(map: &syntax::de::NamedMap<T>) -> impl Iterator<Item = u32> + '_ {
        map.iter().map(|(name, _)| name.span.start)
    }
    let mut out = vec![decl.version.span.start, decl.table.span.start];
    out.extend(decl.description.as_ref().map(|d| d.span.start));
    out.extend(decl.tenant.as_ref().map(|t| t.span.start));
    out.extend(names(&decl.indexes));
    out.extend(names(&decl.entities));
    out.extend(names(&decl.access_patterns));
    out.extend(names(&decl.roles));
    out.extend(names(&decl.lints));
    out
}

/// The entities an access pattern reads or writes: those it names, and
/// every entity a query can meet.
fn entities_of(pattern: &ir::AccessPattern) -> Vec<&str> {
    let mut out = pattern.named_entities();
    if let Operation::Query(q) = &pattern.operation {
        out.extend(q.matching.iter().map(String::as_str));
    }
    out
}
