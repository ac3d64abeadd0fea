//! Changes of entities, their keys and their attributes.

use super::codes::{ChangeCode, Class};
use super::design::{AttributeDesign, EntityDesign, KeyDesign, Part, TemplateDesign, TypeDesign};
use super::diff::{computed_keys, finding, Finding, Job, Versions};
use super::witness;

pub(super) fn entity_changes(v: &Versions<'_>, out: &mut Vec<Finding>) {
    let (at, was) = (v.new_at(), v.old_at());
    for (name, new) in &v.new.entities {
        let Some(old) = v.old.entities.get(name) else {
            out.push(
                finding(
                    ChangeCode::EntityAdded,
                    name,
                    format!("entity `{name}` is added"),
                )
                .label(at.entity(name), "the new entity"),
            );
            // A new aggregate of items already stored counts them first.
            if new
                .aggregate
                .as_ref()
                .is_some_and(|a| v.old.entities.contains_key(&a.of))
            {
                out.push(aggregate_changed(v, name));
            }
            continue;
        };
        if old.scope != new.scope {
            out.push(
                finding(ChangeCode::EntityScopeChanged, name, format!("entity `{name}` moves from {:?} to {:?} scope: its keys gain or lose the tenant", old.scope, new.scope))
                    .label(at.entity(name), "this entity")
                    .job(Job::Rekey { entity: name.clone() }),
            );
        }
        if old.discriminator != new.discriminator
            && old.discriminator.is_some()
            && new.discriminator.is_some()
        {
            out.push(
                finding(
                    ChangeCode::DiscriminatorChanged,
                    name,
                    format!(
                        "`{name}` items were marked {:?}, now {:?}: stored items keep the old mark",
                        old.discriminator.as_deref().unwrap_or_default(),
                        new.discriminator.as_deref().unwrap_or_default()
                    ),
                )
                .label(at.entity(name), "this entity")
                .job(Job::Remark {
                    entity: name.clone(),
                }),
            );
        }
        // A regrouped aggregate's counter items are derived data: the
        // recount builds the new ones, and the old ones (the old design
        // tells them, where the new design claims none) are purged, so
        // neither a fill nor a re-key of them is planned.
        if regrouped(old, new) {
            out.push(aggregate_changed(v, name).job(Job::Purge {
                entity: name.clone(),
            }));
            continue;
        }
        key_changes(v, name, old, new, out);
        index_key_changes(v, name, old, new, out);
        other_entity_changes(v, name, old, new, out);
        attribute_changes(v, name, old, new, out);
        super::derived::derived_changes(v, name, old, new, out);
    }
    for name in v.old.entities.keys() {
        if !v.new.entities.contains_key(name) {
            out.push(
                finding(ChangeCode::EntityRemoved, name, format!("entity `{name}` is removed: its stored items stay in the table, orphaned, and queries of shared collections meet them"))
                    .label(was.entity(name), "the entity deployed")
                    .job(Job::Purge { entity: name.clone() }),
            );
        }
    }
}

pub(super) fn template_changed(old: &TemplateDesign, new: &TemplateDesign) -> bool {
    old.attribute != new.attribute || old.parts != new.parts
}

fn key_changed(old: &KeyDesign, new: &KeyDesign) -> bool {
    template_changed(&old.pk, &new.pk)
        || match (&old.sk, &new.sk) {
            (Some(a), Some(b)) => template_changed(a, b),
            (None, None) => false,
            _ => true,
        }
}

/// Whether an entity's keys on an index change, leaving out the templates
/// of the table's own key attributes (a local index's partition key).
fn index_key_changed(v: &Versions<'_>, old: &KeyDesign, new: &KeyDesign) -> bool {
    let table = &v.new.table;
    let own = |t: &TemplateDesign| {
        t.attribute != table.partition_key.attribute
            && table
                .sort_key
                .as_ref()
                .is_none_or(|k| k.attribute != t.attribute)
    };
    let templates = |k: &KeyDesign| -> Vec<TemplateDesign> {
        std::iter::once(k.pk.clone())
            .chain(k.sk.clone())
            .filter(own)
            .collect()
    };
    templates(old) != templates(new) || old.when != new.when
}

fn key_words(key: &KeyDesign) -> String {
    match &key.sk {
        Some(sk) => format!("`{}` / `{}`", key.pk.text, sk.text),
        None => format!("`{}`", key.pk.text),
    }
}

/// How a key changes: its templates, or, where they read the same, the
/// encodings of the values in them.
fn key_change_words(old: &KeyDesign, new: &KeyDesign) -> String {
    let (was, now) = (key_words(old), key_words(new));
    if was != now {
        return format!("from {was} to {now}");
    }
    if old.when != new.when {
        let member = |when: &Option<String>| match when {
            Some(flag) => format!("while `{flag}` is true"),
            None => "always".to_owned(),
        };
        return format!(
            "{now} reads the same, but the entity is in the index {}, was {}",
            member(&new.when),
            member(&old.when)
        );
    }
    let templates = |k: &KeyDesign| {
        std::iter::once(k.pk.clone())
            .chain(k.sk.clone())
            .collect::<Vec<_>>()
    };
    let mut changes = Vec::new();
    for (a, b) in templates(old).iter().zip(templates(new).iter()) {
        for (pa, pb) in a.parts.iter().zip(&b.parts) {
            if let (
                Part::Value {
                    attribute,
                    encoding: ea,
                },
                Part::Value { encoding: eb, .. },
            ) = (pa, pb)
            {
                if ea != eb {
                    changes.push(format!(
                        "`<{attribute}>` is written as {}, was {}",
                        eb.describe(),
                        ea.describe()
                    ));
                }
            }
        }
    }
    format!("{now} reads the same, but {}", changes.join("; "))
}

fn key_changes(
    v: &Versions<'_>,
    name: &str,
    old: &EntityDesign,
    new: &EntityDesign,
    out: &mut Vec<Finding>,
) {
    if !key_changed(&old.key, &new.key) {
        return;
    }
    let (at, was) = (v.new_at(), v.old_at());
    let changed = if template_changed(&old.key.pk, &new.key.pk) {
        &new.key.pk.attribute
    } else {
        new.key
            .sk
            .as_ref()
            .map_or(&new.key.pk.attribute, |s| &s.attribute)
    };
    let f = finding(
        ChangeCode::TableKeyChanged,
        name,
        format!(
            "`{name}`'s key changes: {}",
            key_change_words(&old.key, &new.key)
        ),
    )
    .label(
        at.template(name, None, changed),
        "stored items keep the old key",
    )
    .label(was.template(name, None, changed), "the key deployed")
    .witness(witness::moved_key(v, name))
    .job(Job::Rekey {
        entity: name.to_owned(),
    });
    out.push(f);
}

fn index_key_changes(
    v: &Versions<'_>,
    name: &str,
    old: &EntityDesign,
    new: &EntityDesign,
    out: &mut Vec<Finding>,
) {
    let (at, was) = (v.new_at(), v.old_at());
    for (index, key) in &new.indexes {
        let computed = computed_keys(v.new_spec, index).iter().any(|e| e == name);
        let backfill = Job::BackfillIndexKeys {
            entity: name.to_owned(),
            index: index.clone(),
        };
        match old.indexes.get(index) {
            None if computed => {
                let is_new_index = !v.old.indexes.contains_key(index);
                let message = if is_new_index {
                    format!("global index `{index}` is added, with keys `{name}` computes: stored `{name}` items are not in it until a job writes them")
                } else {
                    format!("`{name}` now writes into index `{index}`: its stored items are not in it until a job writes them")
                };
                out.push(
                    finding(ChangeCode::IndexComputedKeysAdded, format!("{name},{index}"), message)
                        .label(at.template(name, Some(index), &key.pk.attribute), "computed keys")
                        .witness(witness::missing_from_index(v, name, index))
                        .job(backfill),
                );
            }
            // Natural keys: DynamoDB indexes the items that have them.
            None => {}
            // A local index's partition key is the table's: what changes of
            // it is the table key's change (a re-key writes every key).
            Some(old_key) if index_key_changed(v, old_key, key) => out.push(
                finding(ChangeCode::IndexKeyChanged, format!("{name},{index}"), format!("`{name}`'s keys on index `{index}` change: {}; stored items carry the old ones", key_change_words(old_key, key)))
                    .label(at.template(name, Some(index), &key.pk.attribute), "stored items carry the old key")
                    .label(was.template(name, Some(index), &old_key.pk.attribute), "the key deployed")
                    .job(backfill),
            ),
            Some(_) => {}
        }
    }
    for index in old.indexes.keys() {
        if new.indexes.contains_key(index) || !v.new.indexes.contains_key(index) {
            continue;
        }
        out.push(
            finding(ChangeCode::EntityLeftIndex, format!("{name},{index}"), format!("`{name}` no longer writes into index `{index}`: its stored items keep their index keys and keep appearing in the index's queries"))
                .label(at.entity(name), "this entity")
                .job(Job::CleanupIndexKeys {
                    entity: name.to_owned(),
                    index: index.clone(),
                }),
        );
    }
}

fn other_entity_changes(
    v: &Versions<'_>,
    name: &str,
    old: &EntityDesign,
    new: &EntityDesign,
    out: &mut Vec<Finding>,
) {
    let at = v.new_at();
    if old.shards != new.shards {
        let grows_random = matches!((&old.shards, &new.shards), (Some((a, by_a)), Some((b, by_b))) if by_a == "random" && by_b == "random" && b > a);
        let f = if grows_random {
            finding(ChangeCode::ShardsAdded, name, format!("`{name}` is written to more random shards: reads scatter over all of them and still find every item"))
        } else {
            finding(ChangeCode::ShardingChanged, name, format!("`{name}`'s write shards change from {} to {}: stored items sit in shards the new design does not read", shard_words(&old.shards), shard_words(&new.shards)))
                .job(Job::Rekey { entity: name.to_owned() })
        };
        out.push(f.label(at.entity(name), "this entity"));
    }
    match (&old.version_attribute, &new.version_attribute) {
        (None, Some(a)) => {
            let mut f = finding(ChangeCode::VersionAdded, name, format!("`{name}` is versioned by `{a}`: stored items have no version until a job sets one"))
                .label(at.attribute(name, a), "the version attribute");
            // Items that always held the attribute have a version already.
            if !old.attributes.get(a).is_some_and(|o| o.required) {
                f = f.job(fill(name, a, new));
            }
            out.push(f);
        }
        (Some(a), None) => out.push(
            finding(
                ChangeCode::VersionRemoved,
                name,
                format!("`{name}` is no longer versioned by `{a}`"),
            )
            .label(at.entity(name), "this entity"),
        ),
        _ => {}
    }
    if old.aggregate != new.aggregate && new.aggregate.is_some() {
        out.push(aggregate_changed(v, name));
    }
}

/// Whether an aggregate counts other items or groups than it did.
fn regrouped(old: &EntityDesign, new: &EntityDesign) -> bool {
    match (&old.aggregate, &new.aggregate) {
        (Some(o), Some(n)) => o.of != n.of || o.group_by != n.group_by || o.count != n.count,
        _ => false,
    }
}

/// `aggregate_changed` for aggregate `name`, with its recount.
fn aggregate_changed(v: &Versions<'_>, name: &str) -> Finding {
    let old = v.old.entities.get(name).and_then(|e| e.aggregate.as_ref());
    let new = v.new.entities.get(name).and_then(|e| e.aggregate.as_ref());
    let what = match (old, new) {
        (Some(o), Some(n)) if o.of == n.of && o.group_by == n.group_by && o.count == n.count => {
            "is kept another way (transaction or stream)"
        }
        (Some(_), Some(_)) => "counts other items or groups",
        _ => "is added over items already stored",
    };
    finding(
        ChangeCode::AggregateChanged,
        name,
        format!(
            "the aggregate `{name}` {what}: its counts must be recounted from the items it counts"
        ),
    )
    .label(v.new_at().entity(name), "this aggregate")
    .job(Job::Recount {
        aggregate: name.to_owned(),
        mark: None,
    })
}

fn attribute_changes(
    v: &Versions<'_>,
    entity: &str,
    old: &EntityDesign,
    new: &EntityDesign,
    out: &mut Vec<Finding>,
) {
    let (at, was) = (v.new_at(), v.old_at());
    for (name, a) in &new.attributes {
        let subject = format!("{entity}.{name}");
        match old.attributes.get(name) {
            None => {
                // Renamed in the spec only: the same stored name.
                if let Some((old_name, _)) = old
                    .attributes
                    .iter()
                    .find(|(n, o)| o.stored == a.stored && !new.attributes.contains_key(*n))
                {
                    out.push(
                        finding(ChangeCode::AttributeRenamed, subject, format!("`{entity}.{old_name}` is renamed `{name}` in the spec; items keep storing `{}`", a.stored))
                            .label(at.attribute(entity, name), "the new name"),
                    );
                    continue;
                }
                let with_default = a.default.as_ref().map(|d| {
                    format!("required with a default: stored items without it read `{d}`")
                });
                let (code, what) = if let Some(what) = &with_default {
                    (ChangeCode::AttributeAddedOptional, what.as_str())
                } else if a.required {
                    (
                        ChangeCode::AttributeAddedRequired,
                        "required: stored items without it no longer decode until it is filled",
                    )
                } else {
                    (
                        ChangeCode::AttributeAddedOptional,
                        "optional: stored items read it as absent",
                    )
                };
                let mut f = finding(code, subject, format!("`{entity}.{name}` is added, {what}"))
                    .label(at.attribute(entity, name), "the new attribute");
                if a.required && with_default.is_none() {
                    f = f
                        .witness(witness::without_attribute(v, entity, name))
                        .job(fill(entity, name, new));
                }
                out.push(f);
            }
            Some(o) => changed_attribute(v, entity, name, o, a, out),
        }
    }
    for (name, a) in &old.attributes {
        if new.attributes.contains_key(name)
            || new.attributes.values().any(|n| n.stored == a.stored)
        {
            continue;
        }
        out.push(
            finding(ChangeCode::AttributeRemoved, format!("{entity}.{name}"), format!("`{entity}.{name}` is removed: stored items keep `{}`, and readers built from the old spec that require it fail on items written without it", a.stored))
                .label(was.attribute(entity, name), "the attribute deployed"),
        );
    }
}

fn changed_attribute(
    v: &Versions<'_>,
    entity: &str,
    name: &str,
    old: &AttributeDesign,
    new: &AttributeDesign,
    out: &mut Vec<Finding>,
) {
    let (at, was) = (v.new_at(), v.old_at());
    let subject = format!("{entity}.{name}");
    let span = at.attribute(entity, name);
    let Some(new_entity) = v.new.entities.get(entity) else {
        return;
    };
    if old.stored != new.stored {
        out.push(
            finding(ChangeCode::StoredNameChanged, &subject, format!("`{entity}.{name}` is stored as `{}`, was `{}`: stored items hold the value under the old name", new.stored, old.stored))
                .label(span, "the new stored name")
                .witness(witness::without_attribute(v, entity, name))
                .job(Job::MoveAttribute {
                    entity: entity.to_owned(),
                    from: old.stored.clone(),
                    to: new.stored.clone(),
                }),
        );
    }
    if old.required != new.required {
        let f = if new.required {
            finding(
                ChangeCode::MadeRequired,
                &subject,
                format!(
                    "`{entity}.{name}` becomes required: stored items without it no longer decode"
                ),
            )
            .witness(witness::without_attribute(v, entity, name))
            .job(fill(entity, name, new_entity))
        } else {
            finding(ChangeCode::MadeOptional, &subject, format!("`{entity}.{name}` becomes optional: its field becomes an `Option`, and readers built from the old spec fail on items written without it"))
        };
        out.push(f.label(span, "this attribute"));
    }
    if new.required && old.required {
        out.extend(default_change(entity, name, old, new).map(|f| f.label(span, "this attribute")));
    }
    if old.r#type == new.r#type {
        return;
    }
    if old.r#type.stored_type() != new.r#type.stored_type() {
        out.push(
            finding(
                ChangeCode::StoredTypeChanged,
                &subject,
                format!(
                    "`{entity}.{name}` is stored as {}, was {}: stored values no longer decode",
                    new.r#type.stored_type(),
                    old.r#type.stored_type()
                ),
            )
            .label(span, "the new type")
            .label(was.attribute(entity, name), "the type deployed"),
        );
        return;
    }
    out.extend(type_changes(v, entity, name, &old.r#type, &new.r#type));
}

/// A required attribute's `default:` added, changed or removed: what
/// stored items without the attribute read.
fn default_change(
    entity: &str,
    name: &str,
    old: &AttributeDesign,
    new: &AttributeDesign,
) -> Option<Finding> {
    let subject = format!("{entity}.{name}");
    // Items stored without the attribute get the old default, so they keep
    // what they meant.
    let fill = || Job::FillAttribute {
        entity: entity.to_owned(),
        attribute: name.to_owned(),
        value: None,
    };
    Some(match (&old.default, &new.default) {
        (None, None) => return None,
        (Some(was), Some(d)) if was == d => return None,
        (None, Some(d)) => finding(
            ChangeCode::DefaultAdded,
            &subject,
            format!("`{entity}.{name}` gains the default `{d}`: stored items without it read `{d}` instead of failing to decode"),
        ),
        (Some(was), Some(d)) => finding(
            ChangeCode::DefaultChanged,
            &subject,
            format!("`{entity}.{name}`'s default becomes `{d}`, was `{was}`: stored items without it read `{d}` where they read `{was}`"),
        )
        .witness(Some(format!("an item of `{entity}` stored without `{}` reads `{name}: {was}` through a reader built from the old spec and `{name}: {d}` through the new one; fill it with `{was}` to keep what it meant", old.stored)))
        .job(fill()),
        (Some(was), None) => finding(
            ChangeCode::DefaultChanged,
            &subject,
            format!("`{entity}.{name}` loses its default `{was}`: stored items without it no longer decode"),
        )
        .witness(Some(format!("an item of `{entity}` stored without `{}` reads `{name}: {was}` through a reader built from the old spec and fails to decode through the new one; fill it with `{was}` to keep what it meant", old.stored)))
        .job(fill()),
    })
}

/// The changes of a type that keeps its DynamoDB type: enum values,
/// bounds, and kinds that widen or narrow (integer and decimal, enum and
/// string).
fn type_changes(
    v: &Versions<'_>,
    entity: &str,
    name: &str,
    old: &TypeDesign,
    new: &TypeDesign,
) -> Vec<Finding> {
    let at = v.new_at();
    let subject = format!("{entity}.{name}");
    let span = at.attribute(entity, name);
    let verify = Job::VerifyItems {
        entity: entity.to_owned(),
    };
    let mut out = Vec::new();
    if let (TypeDesign::Enum { values: a }, TypeDesign::Enum { values: b }) = (old, new) {
        let added: Vec<&String> = b.iter().filter(|x| !a.contains(x)).collect();
        let removed: Vec<&String> = a.iter().filter(|x| !b.contains(x)).collect();
        if let Some(first) = added.first() {
            out.push(
                finding(ChangeCode::EnumValueAdded, &subject, format!("`{entity}.{name}` gains {}", words(&added)))
                    .label(span, "this attribute")
                    .witness(Some(format!("an item a new writer stores with `{name}: \"{first}\"` is read by a reader built from the old spec as `UnknownValue`, not an error (and refused if it writes it back)"))),
            );
        }
        if let Some(first) = removed.first() {
            out.push(
                finding(
                    ChangeCode::EnumValueRemoved,
                    &subject,
                    format!(
                        "`{entity}.{name}` loses {}: stored items holding it read as `UnknownValue` and cannot be written back until rewritten",
                        words(&removed)
                    ),
                )
                .label(span, "this attribute")
                .witness(
                    witness::with_value(v, entity, name, &format!("\"{first}\""))
                        .map(|w| w.replace("fails on", "reads `UnknownValue` in")),
                ),
            );
        }
        return out;
    }
    let (code, message) = match bound_change(old, new) {
        BoundChange::Tightened(why) => (ChangeCode::BoundTightened, format!("`{entity}.{name}`'s bounds are tightened ({why}): stored values may break them")),
        BoundChange::Loosened(why) => (ChangeCode::BoundLoosened, format!("`{entity}.{name}`'s bounds are loosened ({why}): readers built from the old spec refuse the new values")),
        BoundChange::Widened => (ChangeCode::TypeWidened, format!("`{entity}.{name}` becomes {} (was {}): every stored value still fits", new.name(), old.name())),
        BoundChange::Narrowed => (ChangeCode::TypeNarrowed, format!("`{entity}.{name}` becomes {} (was {}): stored values may not fit", new.name(), old.name())),
    };
    let mut f = finding(code, &subject, message).label(span, "this attribute");
    if matches!(code, ChangeCode::BoundTightened | ChangeCode::TypeNarrowed) {
        let example = witness::violating_value(old, new);
        f = f.witness(example.and_then(|value| witness::with_value(v, entity, name, &value)));
        if f.witness.is_none() && code == ChangeCode::BoundTightened {
            // No stored value can break it after all: a witness decides.
            f.class = Class::Compatible;
        }
        f = f.job(verify);
    }
    out.push(f);
    out
}

fn shard_words(shards: &Option<(u32, String)>) -> String {
    match shards {
        Some((count, by)) => format!("{count} shards by {by}"),
        None => "none".to_owned(),
    }
}

fn words(values: &[&String]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| format!("`{v}`")).collect();
    match quoted.len() {
        1 => format!("the value {}", quoted[0]),
        _ => format!("the values {}", quoted.join(", ")),
    }
}

/// How a type's accepted values change, its DynamoDB type kept.
enum BoundChange {
    Tightened(String),
    Loosened(String),
    Widened,
    Narrowed,
}

fn bound_change(old: &TypeDesign, new: &TypeDesign) -> BoundChange {
    use TypeDesign as T;
    let lower = |a: Option<u64>, b: Option<u64>| b.unwrap_or(0) > a.unwrap_or(0);
    let upper = |a: Option<u64>, b: Option<u64>| b.unwrap_or(u64::MAX) < a.unwrap_or(u64::MAX);
    let tighter: Option<String> = match (old, new) {
        (
            T::String {
                min_length: a0,
                max_length: a1,
                pattern: ap,
            },
            T::String {
                min_length: b0,
                max_length: b1,
                pattern: bp,
            },
        ) => {
            if lower(*a0, *b0) {
                Some(format!(
                    "min_length {} > {}",
                    b0.unwrap_or(0),
                    a0.unwrap_or(0)
                ))
            } else if upper(*a1, *b1) {
                Some(format!(
                    "max_length {} < {}",
                    b1.unwrap_or(0),
                    a1.map_or("none".into(), |m| m.to_string())
                ))
            } else if ap != bp && bp.is_some() {
                Some(format!("pattern `{}`", bp.as_deref().unwrap_or_default()))
            } else {
                None
            }
        }
        (T::Integer { min: a0, max: a1 }, T::Integer { min: b0, max: b1 }) => {
            if b0 > a0 {
                Some(format!("min {b0} > {a0}"))
            } else if b1 < a1 {
                Some(format!("max {b1} < {a1}"))
            } else {
                None
            }
        }
        (
            T::Decimal {
                min: a0,
                max: a1,
                scale: a2,
            },
            T::Decimal {
                min: b0,
                max: b1,
                scale: b2,
            },
        ) => {
            // A missing bound is no bound; bounds compare exactly.
            let tighter =
                |new: &Option<String>, old: &Option<String>, by: std::cmp::Ordering| match (
                    new.as_deref(),
                    old.as_deref(),
                ) {
                    (Some(_), None) => true,
                    (Some(n), Some(o)) => singletable_codec::compare_decimal(n, o) == Some(by),
                    (None, _) => false,
                };
            if tighter(b0, a0, std::cmp::Ordering::Greater) {
                Some(format!("min {}", b0.as_deref().unwrap_or_default()))
            } else if tighter(b1, a1, std::cmp::Ordering::Less) {
                Some(format!("max {}", b1.as_deref().unwrap_or_default()))
            } else if b2.unwrap_or(u32::MAX) < a2.unwrap_or(u32::MAX) {
                Some(format!("scale {}", b2.unwrap_or(0)))
            } else {
                None
            }
        }
        (
            T::List {
                min_length: a0,
                max_length: a1,
                ..
            },
            T::List {
                min_length: b0,
                max_length: b1,
                ..
            },
        ) => {
            if lower(*a0, *b0) || upper(*a1, *b1) {
                Some("list length".to_owned())
            } else if old != new {
                Some("element type".to_owned())
            } else {
                None
            }
        }
        (
            T::Binary {
                min_length: a0,
                max_length: a1,
            },
            T::Binary {
                min_length: b0,
                max_length: b1,
            },
        ) => (lower(*a0, *b0) || upper(*a1, *b1)).then(|| "length".to_owned()),
        (T::Datetime { .. }, T::Datetime { .. }) => None,
        (T::Integer { .. }, T::Decimal { .. }) | (T::Enum { .. }, T::String { .. }) => {
            return BoundChange::Widened
        }
        (T::Decimal { .. }, T::Integer { .. }) | (T::String { .. }, T::Enum { .. }) => {
            return BoundChange::Narrowed
        }
        _ => Some("type".to_owned()),
    };
    match tighter {
        Some(why) => BoundChange::Tightened(why),
        None => BoundChange::Loosened(format!("{} as declared now", new.name())),
    }
}

/// Names and key prefixes the lock reserves that `spec` uses again.
pub(super) fn reserved_reused(
    reserved: &super::lock::Reserved,
    spec: &crate::ir::Spec,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for (name, e) in &spec.entities {
        if reserved.entities.contains(name) {
            out.push(
                finding(ChangeCode::ReservedReused, name, format!("entity `{name}` was removed and its name is reserved: its old items still say they are `{name}`"))
                    .label(Some(e.name.span), "a reserved name"),
            );
        }
        for a in e.attributes.values() {
            if reserved
                .stored_attributes
                .get(name)
                .is_some_and(|r| r.iter().any(|s| s == a.stored()))
            {
                out.push(
                    finding(ChangeCode::ReservedReused, format!("{name}.{}", a.name), format!("`{name}` stores `{}` again, a name it stopped storing: old items hold an old value there", a.stored()))
                        .label(Some(a.name.span), "a reserved stored name"),
                );
            }
        }
        let template = e.primary_key.pk.source.as_str();
        if reserved
            .key_prefixes
            .values()
            .flatten()
            .any(|t| t == template)
        {
            out.push(
                finding(ChangeCode::ReservedReused, name, format!("`{name}`'s key `{template}` is one items were moved away from: old items left there would be read as new ones"))
                    .label(Some(e.primary_key.pk.source.span), "a reserved key"),
            );
        }
    }
    out
}

/// The job that fills the required attribute `name` of `entity` (new
/// design `new`) into stored items: with the least value its bounds allow
/// (at least 0) for a version attribute, whose first value the design
/// decides; with a value the user gives otherwise.
fn fill(entity: &str, name: &str, new: &EntityDesign) -> Job {
    let value = match new.attributes.get(name).map(|a| &a.r#type) {
        Some(TypeDesign::Integer { min, .. }) if new.version_attribute.as_deref() == Some(name) => {
            Some((*min).max(0))
        }
        _ => None,
    };
    Job::FillAttribute {
        entity: entity.to_owned(),
        attribute: name.to_owned(),
        value,
    }
}
