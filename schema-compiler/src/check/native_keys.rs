//! Native keys: a global index whose key templates only concatenate
//! attributes the entity stores anyway could key on those attributes
//! themselves (a multi-attribute key), with no synthetic attribute.

use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::ir::{self, IndexKind, IndexRef, Operation, PlaceholderKind, Segment, SortOp};
use crate::resolve::MAX_KEY_PARTS;

/// A global index written by one entity, whose every key template is
/// literals around placeholders of attributes the entity stores (and the
/// tenant, first), at most four each, and whose queries bind whole
/// attributes: a note with the multi-attribute key that would replace it,
/// and what that saves.
pub fn check_native_keys(spec: &ir::Spec, diags: &mut Diagnostics) {
    for index in spec.indexes.values() {
        if index.kind != IndexKind::Global || index.is_multi_attribute() {
            continue;
        }
        let writers: Vec<(&ir::Entity, &ir::EntityKey)> = spec
            .entities
            .values()
            .filter_map(|e| Some((e, e.index_keys.get(&index.name.value)?)))
            .collect();
        // An index the entity is in only while a boolean is true needs
        // keys the repository can leave out: its own attributes cannot.
        let [(entity, key)] = writers.as_slice() else {
            continue;
        };
        if key.when.is_some() {
            continue;
        }
        let synthetic: Vec<&ir::KeyTemplate> =
            key.templates().filter(|t| !t.is_natural()).collect();
        if synthetic.is_empty() || synthetic.iter().any(|t| spec.table.is_key(&t.attribute)) {
            continue;
        }
        let Some(pk) = parts(spec, entity, &key.pk, true) else {
            continue;
        };
        let sk = match &key.sk {
            Some(t) => match parts(spec, entity, t, false) {
                Some(p) => p,
                None => continue,
            },
            None => Vec::new(),
        };
        if !queries_bind_whole_attributes(spec, &index.name.value, key) {
            continue;
        }
        let tenant_attribute = tenant_attribute(entity);
        let list = |parts: &[String]| {
            let names: Vec<String> = parts
                .iter()
                .map(|p| {
                    if p.is_empty() {
                        tenant_attribute.clone()
                    } else {
                        p.clone()
                    }
                })
                .collect();
            match names.as_slice() {
                [one] => one.clone(),
                _ => format!("[{}]", names.join(", ")),
            }
        };
        let templates = |parts: &[String]| {
            let names: Vec<String> = parts
                .iter()
                .map(|p| {
                    let name = if p.is_empty() { "tenant" } else { p.as_str() };
                    format!("\"<{name}>\"")
                })
                .collect();
            match names.as_slice() {
                [one] => one.clone(),
                _ => format!("[{}]", names.join(", ")),
            }
        };
        let keys = if sk.is_empty() {
            format!("`partition_key: {}`", list(&pk))
        } else {
            format!("`partition_key: {}`, `sort_key: {}`", list(&pk), list(&sk))
        };
        let dropped: Vec<String> = synthetic
            .iter()
            .map(|t| format!("`{}`", t.attribute))
            .collect();
        // The attributes an update may change: not those of the primary key.
        let in_primary_key = |name: &str| {
            entity
                .primary_key
                .templates()
                .flat_map(|t| t.placeholders())
                .any(|p| {
                    entity
                        .attributes
                        .get(&p.name.value)
                        .is_some_and(|a| a.stored() == name)
                })
        };
        let components: Vec<String> = pk
            .iter()
            .chain(&sk)
            .filter(|p| !p.is_empty() && !in_primary_key(p))
            .map(|p| format!("`{p}`"))
            .collect();
        let moves = if components.is_empty() {
            String::new()
        } else {
            format!(
                ", and an update of {} alone moves the item without rewriting a concatenated key",
                components.join(" or ")
            )
        };
        let written = if sk.is_empty() {
            format!("`pk: {}`", templates(&pk))
        } else {
            format!("`pk: {}, sk: {}`", templates(&pk), templates(&sk))
        };
        diags.push(
            Diagnostic::new(
                Code::NativeKey,
                format!(
                    "index `{}` could key on `{}`'s own attributes: {keys}",
                    index.name, entity.name
                ),
            )
            .label(index.name.span, "its keys only concatenate stored attributes")
            .help(format!(
                "a multi-attribute key drops the synthetic {} ({} bytes in every item and index entry), needs no backfill when the index is added to a table with items{moves}; the entity writes {written}, and queries bind each attribute by name",
                dropped.join(" and "),
                if dropped.len() == 1 { "its" } else { "their" },
            )),
        );
    }
}

/// The attribute a native key would hold the tenant in.
fn tenant_attribute(entity: &ir::Entity) -> String {
    ["tenant_id", "tenant_key", "tenant_of_item"]
        .into_iter()
        .find(|name| !entity.attributes.values().any(|a| a.stored() == *name))
        .unwrap_or("tenant_id")
        .to_owned()
}

/// The attributes a template concatenates, in order (the tenant as an
/// empty name, first in a partition key only): `None` unless every
/// placeholder is the tenant or an attribute the entity stores with a type
/// a key attribute holds, each once, at most four.
fn parts(
    spec: &ir::Spec,
    entity: &ir::Entity,
    template: &ir::KeyTemplate,
    partition: bool,
) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for (i, p) in template.placeholders().enumerate() {
        let name = match p.kind {
            PlaceholderKind::Tenant if partition && i == 0 => String::new(),
            PlaceholderKind::Tenant | PlaceholderKind::Shard => return None,
            PlaceholderKind::Attribute => {
                let attribute = entity.attributes.get(&p.name.value)?;
                if attribute.key_only || !stored_as_key(&attribute.r#type) {
                    return None;
                }
                attribute.stored().to_owned()
            }
        };
        if out.contains(&name) {
            return None;
        }
        out.push(name);
    }
    let tenant_scoped = spec.tenant.is_some() && entity.scope == ir::Scope::Tenant;
    if out.is_empty()
        || out.len() > MAX_KEY_PARTS
        || (partition && tenant_scoped && !out[0].is_empty())
    {
        return None;
    }
    Some(out)
}

/// Whether an attribute of this type is stored as a string or number key
/// DynamoDB can index as it is.
fn stored_as_key(ty: &ir::AttributeType) -> bool {
    use ir::AttributeType as T;
    matches!(
        ty,
        T::String { .. }
            | T::Enum { .. }
            | T::Integer { .. }
            | T::Decimal { .. }
            | T::Datetime { .. }
    )
}

/// Whether every query of the index binds whole attributes of the
/// entity's sort key: no condition, an equality, or an operand that is the
/// entity's template cut after a placeholder (the condition falls on that
/// attribute) or, for `begins_with`, after the literal that follows one.
fn queries_bind_whole_attributes(spec: &ir::Spec, index: &str, key: &ir::EntityKey) -> bool {
    spec.access_patterns.values().all(|p| {
        let Operation::Query(q) = &p.operation else {
            return true;
        };
        if q.index != IndexRef::Index(index.to_owned()) {
            return true;
        }
        let Some(cond) = &q.sk else {
            return true;
        };
        if cond.op == SortOp::Equals {
            return true;
        }
        let Some(entity_sk) = &key.sk else {
            return false;
        };
        cond.operands
            .iter()
            .all(|o| cut_at_boundary(&o.segments, &entity_sk.segments, cond.op))
    })
}

fn cut_at_boundary(operand: &[Segment], template: &[Segment], op: SortOp) -> bool {
    if operand.is_empty() || operand.len() > template.len() {
        return false;
    }
    let aligned = operand.iter().zip(template).all(|(o, t)| match (o, t) {
        (Segment::Literal(a), Segment::Literal(b)) => a == b,
        (Segment::Placeholder(_), Segment::Placeholder(_)) => true,
        _ => false,
    });
    let ends_after_placeholder = matches!(operand.last(), Some(Segment::Placeholder(_)));
    let ends_after_literal =
        operand.len() >= 2 && matches!(operand.last(), Some(Segment::Literal(_)));
    aligned && (ends_after_placeholder || (op == SortOp::BeginsWith && ends_after_literal))
}
