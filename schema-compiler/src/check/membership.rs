//! Index membership by a boolean attribute (`when:`).

use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::ir;

/// Why: the item holds one value per attribute, so a key attribute that a
/// `when` index shares with another key of the entity would leave that
/// key when the flag turns false (or enter the index with it).
///
/// A `when` index's key attributes are the entity's to write or remove for
/// that index alone: not a table key attribute, and not written by the
/// entity for another index (an index on the same attribute, which
/// DynamoDB fills from the same items).
pub fn check_index_membership(spec: &ir::Spec, diags: &mut Diagnostics) {
    for entity in spec.entities.values() {
        for (index, key) in &entity.index_keys {
            let Some(flag) = &key.when else { continue };
            let shared: Vec<(&ir::KeyTemplate, String)> = key
                .templates()
                .filter_map(|t| {
                    let other = entity
                        .index_keys
                        .iter()
                        .filter(|(other, _)| *other != index)
                        .find(|(_, k)| k.templates().any(|o| o.attribute == t.attribute))
                        .map(|(other, _)| format!("index `{other}`"))
                        .or_else(|| {
                            spec.table
                                .is_key(&t.attribute)
                                .then(|| "the table".to_owned())
                        })?;
                    Some((t, other))
                })
                .collect();
            let Some((first, other)) = shared.first() else {
                continue;
            };
            let names: Vec<String> = shared
                .iter()
                .map(|(t, _)| format!("`{}`", t.attribute))
                .collect();
            let mut d = Diagnostic::new(
                Code::InvalidIndexKey,
                format!(
                    "`{}` is in index `{index}` only while `{flag}` is true, but its {} also {other}'s",
                    entity.name,
                    if names.len() == 1 {
                        format!("key attribute {} is", names[0])
                    } else {
                        format!("key attributes {} are", names.join(" and "))
                    }
                ),
            );
            for (t, _) in &shared {
                d = d.label(
                    t.source.span,
                    format!("`{}` for index `{index}`", t.attribute),
                );
            }
            diags.push(d.help(format!(
                "give index `{index}` key attributes of its own, or remove `when` (an item has one `{}`, in every index keyed on it)",
                first.attribute
            )));
        }
    }
}
