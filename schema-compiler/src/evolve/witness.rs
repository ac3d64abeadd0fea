//! Witness items: an item the old design stores (built from the same
//! samples and with the same key encodings as the Workbench export and the
//! repositories), and what the new design does with it.

use super::design::TypeDesign;
use super::diff::Versions;
use crate::emit::workbench::model::{AttributeValue, Item};
use crate::emit::workbench::samples;
use crate::ir;

/// The first sample item of `entity` under `spec`, with its sample.
fn sample(spec: &ir::Spec, entity: &ir::Entity) -> Option<(samples::Sample, Item)> {
    let tenants = spec
        .tenant
        .as_ref()
        .map(samples::sample_tenants)
        .unwrap_or_default();
    let sample = samples::samples(spec, entity, &tenants)
        .into_iter()
        .next()?;
    let item = samples::item(spec, entity, &sample);
    Some((sample, item))
}

/// `{pk: "…", sk: "…"}`: the named attributes of an item.
fn show(item: &Item, names: &[&str]) -> String {
    let parts: Vec<String> = names
        .iter()
        .filter_map(|n| Some(format!("{n}: {}", value(item.get(*n)?))))
        .collect();
    format!("{{{}}}", parts.join(", "))
}

fn value(v: &AttributeValue) -> String {
    match v {
        AttributeValue::S(s) => format!("{s:?}"),
        AttributeValue::N(n) => n.clone(),
        other => serde_json::to_string(other).unwrap_or_default(),
    }
}

fn key_names(spec: &ir::Spec) -> Vec<&str> {
    std::iter::once(spec.table.partition_key.name.as_str())
        .chain(spec.table.sort_key.as_ref().map(|k| k.name.as_str()))
        .collect()
}

/// A stored item of `entity` that the new design looks for elsewhere.
pub(super) fn moved_key(v: &Versions<'_>, entity: &str) -> Option<String> {
    let old_e = v.old_spec.entities.get(entity)?;
    let new_e = v.new_spec.entities.get(entity)?;
    let (_, old_item) = sample(v.old_spec, old_e)?;
    // The first sample of the new design has the same values (samples are
    // drawn per attribute), and its shard where the new key has one.
    let (_, new_item) = sample(v.new_spec, new_e)?;
    // Each item under its own design's key attributes (a table whose key
    // attributes changed names them differently).
    let (was, now) = (
        show(&old_item, &key_names(v.old_spec)),
        show(&new_item, &key_names(v.new_spec)),
    );
    (was != now).then(|| {
        format!("item {was}, stored under the old key, is not found by a get of the same `{entity}`: it looks up {now}")
    })
}

/// A stored item of `entity` that lacks the keys of `index`.
pub(super) fn missing_from_index(v: &Versions<'_>, entity: &str, index: &str) -> Option<String> {
    let old_e = v.old_spec.entities.get(entity)?;
    let new_e = v.new_spec.entities.get(entity)?;
    let (sample, old_item) = sample(v.old_spec, old_e)?;
    let new_item = samples::item(v.new_spec, new_e, &sample);
    let ix = v.new_spec.indexes.get(index)?;
    let index_keys: Vec<&str> = std::iter::once(ix.partition_key.name.as_str())
        .chain(ix.sort_key.as_ref().map(|k| k.name.as_str()))
        .collect();
    let keys = key_names(v.old_spec);
    Some(format!(
        "item {}, written before, has no {}: queries of `{index}` do not return it (written now, it would carry {})",
        show(&old_item, &keys),
        index_keys.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(" or "),
        show(&new_item, &index_keys)
    ))
}

/// A stored item of `entity` without `attribute` (as the old design
/// stores it), which the new design requires.
pub(super) fn without_attribute(v: &Versions<'_>, entity: &str, attribute: &str) -> Option<String> {
    let old_e = v.old_spec.entities.get(entity)?;
    let new_a = v.new_spec.entities.get(entity)?.attributes.get(attribute)?;
    let (_, old_item) = sample(v.old_spec, old_e)?;
    let stored = new_a.stored();
    if old_item.contains_key(stored) {
        return None;
    }
    let keys = key_names(v.old_spec);
    Some(format!(
        "item {} has no `{stored}`: reading it as the new `{entity}` fails with `Missing` on `{stored}`",
        show(&old_item, &keys)
    ))
}

/// A stored item of `entity` whose `attribute` holds `value` (JSON text),
/// which the new design refuses.
pub(super) fn with_value(
    v: &Versions<'_>,
    entity: &str,
    attribute: &str,
    value: &str,
) -> Option<String> {
    let old_e = v.old_spec.entities.get(entity)?;
    let (_, old_item) = sample(v.old_spec, old_e)?;
    let stored = old_e.attributes.get(attribute)?.stored();
    let keys = key_names(v.old_spec);
    let mut shown = show(&old_item, &keys);
    shown.pop();
    Some(format!(
        "item {shown}, {stored}: {value}}} meets the old rules; reading it as the new `{entity}` fails on `{stored}`"
    ))
}

/// A value (as JSON text) the old type accepts and the new one refuses,
/// where one is easy to name.
pub(super) fn violating_value(old: &TypeDesign, new: &TypeDesign) -> Option<String> {
    use TypeDesign as T;
    match (old, new) {
        (
            T::String {
                max_length: a,
                pattern: None,
                ..
            },
            T::String {
                max_length: Some(b),
                ..
            },
        ) if a.is_none_or(|a| a > *b) => Some(format!("{:?}", "x".repeat(*b as usize + 1))),
        (
            T::String { min_length: a, .. },
            T::String {
                min_length: Some(b),
                ..
            },
        ) if a.unwrap_or(0) < *b => {
            Some(format!("{:?}", "x".repeat(a.unwrap_or(1).max(1) as usize)))
        }
        (
            T::String { .. },
            T::String {
                pattern: Some(p), ..
            },
        ) => Some(format!("a value that does not match `{p}`")),
        (T::Integer { min: a0, max: a1 }, T::Integer { min: b0, max: b1 }) => {
            if b1 < a1 {
                Some((b1 + 1).to_string())
            } else if b0 > a0 {
                Some((b0 - 1).to_string())
            } else {
                None
            }
        }
        (T::Decimal { .. }, T::Decimal { .. }) | (T::Decimal { .. }, T::Integer { .. }) => {
            Some("a value outside the new bounds or scale".to_owned())
        }
        (T::String { .. }, T::Enum { values }) => Some(format!(
            "\"{}-other\"",
            values.first().map_or("value", String::as_str)
        )),
        _ => Some("a value the old type accepts".to_owned()),
    }
}
