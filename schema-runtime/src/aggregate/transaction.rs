//! `maintained_by: transaction`: each write of a counted item and its group's counter change in one transaction.

use super::*;
use crate::sdk::types::{Delete, Put};
use crate::sdk::Client;
use crate::trace::Call;
use ops::read_consistent as read;

/// Whether a transaction failed because its first item's condition did not
/// hold (another writer changed the item since it was read).
fn lost_race(error: &Error) -> bool {
    matches!(error, Error::TransactionCanceled(reasons)
        if reasons.iter().any(|r| r.index == 0 && r.code == "ConditionalCheckFailed"))
}

/// Creates `item` and counts it, atomically; [`Error::ConditionFailed`]
/// when it exists.
pub async fn create<E: Entity>(
    client: &Client,
    table: &TableInfo<'_>,
    item: &E,
    scope: &E::Scope,
    counter: &Counter,
    group_of: GroupOf<E>,
) -> Result<(), Error> {
    let call = Call::item("create", "", E::ENTITY_TYPE, table.name);
    crate::trace::within(&call, async {
        let put = ops::transact_put(
            table,
            item.to_item(scope)?,
            true,
            None,
            E::ENTITY_TYPE,
            None,
        )?;
        let count = counter_update(table, counter, &group_of(item, scope)?, 1)?;
        match crate::batch::transact_write_as(&call, client, &[put, count], None).await {
            Err(e) if lost_race(&e) => Err(Error::ConditionFailed {
                entity: E::ENTITY_TYPE,
                operation: "create",
            }),
            other => other,
        }
    })
    .await
}

/// Writes `item`, replacing any item with its key, and moves the count from
/// the old item's group to the new one's, atomically.
pub async fn put<E: Entity>(
    client: &Client,
    table: &TableInfo<'_>,
    item: &E,
    scope: &E::Scope,
    counter: &Counter,
    group_of: GroupOf<E>,
) -> Result<(), Error> {
    let call = Call::item("put", "", E::ENTITY_TYPE, table.name);
    crate::trace::within(&call, async {
        let new_group = group_of(item, scope)?;
        for _ in 0..ATTEMPTS {
            let new_item = item.to_item(scope)?;
            let old = read(&call, client, table, item.primary_key(scope)?).await?;
            let mut items = Vec::new();
            match old {
                None => {
                    items.push(ops::transact_put(
                        table,
                        new_item,
                        true,
                        None,
                        E::ENTITY_TYPE,
                        None,
                    )?);
                    items.push(counter_update(table, counter, &new_group, 1)?);
                }
                Some(old) => {
                    let old_group = group_of(&E::from_item(&old)?, scope)?;
                    let (condition, names, values) = still_in(table, counter, &old_group, &old);
                    let put = Put::builder()
                        .table_name(table.name)
                        .set_item(Some(new_item))
                        .condition_expression(condition)
                        .set_expression_attribute_names(Some(names))
                        .set_expression_attribute_values(values)
                        .build()?;
                    items.push(TransactWriteItem::builder().put(put).build());
                    let counted = counter.counts(&old);
                    move_count(
                        table,
                        counter,
                        (&old_group, counted),
                        &new_group,
                        &mut items,
                    )?;
                }
            }
            match crate::batch::transact_write_as(&call, client, &items, None).await {
                Err(e) if lost_race(&e) => continue,
                other => return other,
            }
        }
        Err(Error::ConditionFailed {
            entity: E::ENTITY_TYPE,
            operation: "put",
        })
    })
    .await
}

/// Deletes the item at `key` and uncounts it, atomically; returns the item
/// as read before the delete (`None` when there was none), which the
/// delete's condition keeps in the same group.
pub async fn delete<E: Entity>(
    client: &Client,
    table: &TableInfo<'_>,
    key: Item,
    scope: &E::Scope,
    counter: &Counter,
    group_of: GroupOf<E>,
) -> Result<Option<E>, Error> {
    let call = Call::item("delete", "", E::ENTITY_TYPE, table.name);
    crate::trace::within(&call, async {
        for _ in 0..ATTEMPTS {
            let Some(old) = read(&call, client, table, key.clone()).await? else {
                return Ok(None);
            };
            let old_entity = E::from_item(&old)?;
            let old_group = group_of(&old_entity, scope)?;
            let (condition, names, values) = still_in(table, counter, &old_group, &old);
            let delete = Delete::builder()
                .table_name(table.name)
                .set_key(Some(key.clone()))
                .condition_expression(condition)
                .set_expression_attribute_names(Some(names))
                .set_expression_attribute_values(values)
                .build()?;
            let mut items = vec![TransactWriteItem::builder().delete(delete).build()];
            if counter.counts(&old) {
                items.push(counter_update(table, counter, &old_group, -1)?);
            }
            match crate::batch::transact_write_as(&call, client, &items, None).await {
                Err(e) if lost_race(&e) => continue,
                Err(e) => return Err(e),
                Ok(()) => return Ok(Some(old_entity)),
            }
        }
        Err(Error::ConditionFailed {
            entity: E::ENTITY_TYPE,
            operation: "delete",
        })
    })
    .await
}

/// Applies `update` to the item at `key`; when it changes the item's group,
/// moves the count in the same transaction. [`Error::ConditionFailed`] when
/// there is no item. Returns the item as the update made it from the item
/// it read (a transaction returns no values; its condition keeps the
/// item's group, not its other attributes, as read).
pub async fn update<E: Entity>(
    client: &Client,
    table: &TableInfo<'_>,
    key: Item,
    update: Update,
    scope: &E::Scope,
    counter: &Counter,
    group_of: GroupOf<E>,
) -> Result<E, Error> {
    let call = Call::item("update", "", E::ENTITY_TYPE, table.name);
    crate::trace::within(&call, async {
        // An idempotent update sends its token with the first attempt; an
        // attempt that lost a race was not applied, so the next takes a new one.
        let mut token = update.idempotency_token.clone();
        for attempt in 0..ATTEMPTS {
            if attempt > 0 && update.idempotency_token.is_some() {
                token = Some(ops::request_token());
            }
            let old = read(&call, client, table, key.clone()).await?;
            // A field of a map the item does not have cannot be set alone: as
            // the uncounted update's `attribute_exists`, before any write.
            let has_maps = |item: &Item| {
                update
                    .fields
                    .iter()
                    .all(|(map, _, _)| matches!(item.get(*map), Some(AttributeValue::M(_))))
            };
            if !old.as_ref().is_some_and(has_maps) && !update.fields.is_empty() {
                return Err(Error::ConditionFailed {
                    entity: E::ENTITY_TYPE,
                    operation: "update",
                });
            }
            let Some(old) = old else {
                if !update.upsert {
                    return Err(Error::ConditionFailed {
                        entity: E::ENTITY_TYPE,
                        operation: "update",
                    });
                }
                // `or_create()` and no item: create the key with the update
                // applied (it must be a whole item) and count it, as `create`
                // does; when another writer created it meanwhile, update that.
                let created = E::from_item(&applied(key.clone(), &update))?;
                let put = ops::transact_put(
                    table,
                    created.to_item(scope)?,
                    true,
                    None,
                    E::ENTITY_TYPE,
                    None,
                )?;
                let count = counter_update(table, counter, &group_of(&created, scope)?, 1)?;
                match crate::batch::transact_write_as(&call, client, &[put, count], token.take())
                    .await
                {
                    Err(e) if lost_race(&e) => continue,
                    other => return other.map(|()| created),
                }
            };
            let old_group = group_of(&E::from_item(&old)?, scope)?;
            let counted = counter.counts(&old);
            let mut conditioned = update.clone();
            if let Some(mark) = counter.mark_as_in(&old) {
                conditioned.when = Some(match conditioned.when.take() {
                    Some(when) => when.and(mark),
                    None => mark,
                });
            }
            let new_entity = E::from_item(&applied(old, &update))?;
            let new_group = group_of(&new_entity, scope)?;
            conditioned
                .expect
                .extend(old_group.attributes.iter().cloned());
            let mut items = vec![ops::transact_update(
                table,
                key.clone(),
                conditioned,
                E::ENTITY_TYPE,
            )?];
            move_count(
                table,
                counter,
                (&old_group, counted),
                &new_group,
                &mut items,
            )?;
            match crate::batch::transact_write_as(&call, client, &items, token.take()).await {
                Err(e) if lost_race(&e) => continue,
                other => return other.map(|()| new_entity),
            }
        }
        Err(Error::ConditionFailed {
            entity: E::ENTITY_TYPE,
            operation: "update",
        })
    })
    .await
}

/// `item` with `update` applied, as DynamoDB would store it (an `ADD` to
/// a missing number stores the number added).
fn applied(mut item: Item, update: &Update) -> Item {
    for (name, value) in &update.set {
        item.insert((*name).to_owned(), value.clone());
    }
    for (name, value) in &update.set_if_absent {
        item.entry((*name).to_owned())
            .or_insert_with(|| value.clone());
    }
    for name in &update.remove {
        item.remove(*name);
    }
    for (name, value) in &update.add {
        let sum = match (item.get(*name), value) {
            (Some(AttributeValue::N(old)), AttributeValue::N(add)) => old
                .parse::<i64>()
                .ok()
                .zip(add.parse::<i64>().ok())
                .map(|(a, b)| AttributeValue::N(a.saturating_add(b).to_string())),
            _ => None,
        };
        let set_union = match (item.get(*name), value) {
            (Some(AttributeValue::Ss(old)), AttributeValue::Ss(add)) => {
                Some(AttributeValue::Ss(union(old, add)))
            }
            (Some(AttributeValue::Ns(old)), AttributeValue::Ns(add)) => {
                Some(AttributeValue::Ns(union(old, add)))
            }
            (Some(AttributeValue::Bs(old)), AttributeValue::Bs(add)) => {
                Some(AttributeValue::Bs(union(old, add)))
            }
            _ => None,
        };
        item.insert(
            (*name).to_owned(),
            sum.or(set_union).unwrap_or_else(|| value.clone()),
        );
    }
    for (name, value) in &update.delete {
        let left = match (item.get(*name), value) {
            (Some(AttributeValue::Ss(old)), AttributeValue::Ss(gone)) => {
                Some(AttributeValue::Ss(without(old, gone))).filter(|v| !is_empty_set(v))
            }
            (Some(AttributeValue::Ns(old)), AttributeValue::Ns(gone)) => {
                Some(AttributeValue::Ns(without(old, gone))).filter(|v| !is_empty_set(v))
            }
            (Some(AttributeValue::Bs(old)), AttributeValue::Bs(gone)) => {
                Some(AttributeValue::Bs(without(old, gone))).filter(|v| !is_empty_set(v))
            }
            (old, _) => old.cloned(),
        };
        match left {
            Some(left) => item.insert((*name).to_owned(), left),
            None => item.remove(*name),
        };
    }
    for (name, value) in &update.append {
        let mut list = match item.remove(*name) {
            Some(AttributeValue::L(old)) => old,
            _ => Vec::new(),
        };
        if let AttributeValue::L(more) = value {
            list.extend(more.iter().cloned());
        }
        item.insert((*name).to_owned(), AttributeValue::L(list));
    }
    for (name, index, _) in &update.remove_at {
        if let Some(AttributeValue::L(list)) = item.get_mut(*name) {
            if *index < list.len() {
                list.remove(*index);
            }
        }
    }
    for (map, field, value) in &update.fields {
        if let Some(AttributeValue::M(fields)) = item.get_mut(*map) {
            match value {
                Some(value) => fields.insert((*field).to_owned(), value.clone()),
                None => fields.remove(*field),
            };
        }
    }
    item
}

fn union<T: Clone + PartialEq>(old: &[T], add: &[T]) -> Vec<T> {
    let mut out = old.to_vec();
    out.extend(add.iter().filter(|v| !old.contains(v)).cloned());
    out
}

fn without<T: Clone + PartialEq>(old: &[T], gone: &[T]) -> Vec<T> {
    old.iter().filter(|v| !gone.contains(v)).cloned().collect()
}

fn is_empty_set(v: &AttributeValue) -> bool {
    match v {
        AttributeValue::Ss(s) | AttributeValue::Ns(s) => s.is_empty(),
        AttributeValue::Bs(s) => s.is_empty(),
        _ => false,
    }
}
