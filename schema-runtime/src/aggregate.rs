//! Aggregates: per-group counts of another entity's items.
//!
//! A spec keeps them one of two ways. `maintained_by: transaction`: every
//! write of a counted item through the repository updates its group's
//! counter in the same transaction (the functions here). `maintained_by:
//! stream`: a DynamoDB Streams handler turns item changes into
//! [`CounterChange`]s ([`count_changes`]) and applies them ([`apply`]).

use std::collections::HashMap;

use crate::error::Error;
use crate::ops::{self, TableInfo, Update};
use crate::sdk::types::{AttributeValue, Delete, Put, TransactWriteItem};
use crate::sdk::Client;
use crate::trace::Call;
use crate::{Entity, Item};

/// An aggregate entity's counter attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counter {
    /// The aggregate entity.
    pub entity: &'static str,
    /// The entity-type attribute and the aggregate's value, written with
    /// each counter item (none when the table tells entities by their keys).
    pub marker: Option<(&'static str, &'static str)>,
    /// Its integer count attribute.
    pub count_attribute: &'static str,
    /// The recount the lock holds pending for it, if any (see [`Recount`]).
    pub recount: Option<Recount>,
    /// The count's declared rule (its `min..=max`): a change that would
    /// leave it is refused, never stored.
    pub rule: &'static crate::codec::Store,
}

/// A recount of an aggregate that exists beside live counter updates.
///
/// While it is pending, every write of a counted item marks the item
/// (`attribute` = `mark`), and a counter counts only marked
/// items: a write adds +1 to the new item's group and −1 to the old item's
/// group only when the old item was marked, both to the count and to a
/// shadow count (`shadow`) that started at zero. The recount job marks the
/// items no write marked yet (each counted once: the mark and the +1 are
/// one transaction, or one stream record), and sets each counter's count
/// to its shadow count once (conditional on both as read): from then on
/// both move together, so when every item is marked, every count is exact
/// — whatever the counts were before, and however the writes interleave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recount {
    /// The attribute a counted item holds the mark in (`__counted_<aggregate>`;
    /// generated attribute names begin with `__`, which a spec's attributes
    /// may not).
    pub attribute: &'static str,
    /// The mark of this recount (a counted item holding it is counted).
    pub mark: &'static str,
    /// The counter item's shadow count attribute (`__recount_<mark>`).
    pub shadow: &'static str,
}

impl Counter {
    /// Whether `item` (a counted entity's) is counted by this counter: any
    /// item, unless a recount is pending, then only the items it marked.
    pub fn counts(&self, item: &Item) -> bool {
        match self.recount {
            None => true,
            Some(recount) => recount.marked(item),
        }
    }

    /// The condition that an item's mark is as `item` shows it: what the
    /// write of a counted item holds to, so that a recount marking it in
    /// between makes the write read again instead of counting it twice.
    fn mark_as_in(&self, item: &Item) -> Option<crate::Condition> {
        let recount = self.recount?;
        Some(if recount.marked(item) {
            recount.is_marked()
        } else {
            !recount.is_marked()
        })
    }
}

impl Recount {
    /// Whether `item` holds this recount's mark.
    pub fn marked(&self, item: &Item) -> bool {
        matches!(item.get(self.attribute), Some(AttributeValue::S(m)) if m == self.mark)
    }

    /// The condition that the stored item holds this recount's mark.
    pub fn is_marked(&self) -> crate::Condition {
        crate::Condition::of(
            "=",
            self.attribute,
            vec![Ok(AttributeValue::S(self.mark.to_owned()))],
        )
    }
}

/// The group an item is counted in: the counter item's primary key, and the
/// grouping attributes with the item's values.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// The counter item's primary key.
    pub key: Item,
    /// The grouping attributes and their values.
    pub attributes: Vec<(&'static str, AttributeValue)>,
}

/// The group of a counted item; generated per counted entity.
pub type GroupOf<E> = fn(&E, &<E as Entity>::Scope) -> Result<Group, Error>;

/// How often a counted write re-reads and retries when another writer
/// changed the item between its read and its transaction.
const ATTEMPTS: usize = 10;

/// A transaction item adding `delta` to the counter of `group` (creating
/// the counter item, with the group's attributes, when there is none).
pub fn counter_update(
    table: &TableInfo<'_>,
    counter: &Counter,
    group: &Group,
    delta: i64,
) -> Result<TransactWriteItem, Error> {
    let update = add_to(counter, group, delta)?;
    ops::transact_update(table, group.key.clone(), update, counter.entity)
}

/// The update adding `delta` to `group`'s counter, creating it (with the
/// group's attributes) when there is none, as `add_<count>` adds: only
/// while the count stays in its declared range.
fn add_to(counter: &Counter, group: &Group, delta: i64) -> Result<Update, Error> {
    let mut update = Update {
        set: group.attributes.clone(),
        upsert: true,
        entity: counter.entity,
        marker: counter.marker,
        ..Update::default()
    };
    // A pending recount's shadow count moves with the count. Until the
    // recount switches a counter its count is not yet one to bound.
    let rule = match counter.recount {
        Some(recount) => {
            update
                .add
                .push((recount.shadow, AttributeValue::N(delta.to_string())));
            crate::codec::Store::Plain
        }
        None => *counter.rule,
    };
    update.add_to(counter.count_attribute, Some(delta), false, rule)?;
    Ok(update)
}

/// Adds the counter updates that move one item from `old` to `new`: none
/// when the group is the same. An old item the counter does not count yet
/// (`counted` false: a pending recount has not marked it) is only added.
fn move_count(
    table: &TableInfo<'_>,
    counter: &Counter,
    (old, counted): (&Group, bool),
    new: &Group,
    items: &mut Vec<TransactWriteItem>,
) -> Result<(), Error> {
    if !counted {
        items.push(counter_update(table, counter, new, 1)?);
    } else if old.key != new.key {
        items.push(counter_update(table, counter, old, -1)?);
        items.push(counter_update(table, counter, new, 1)?);
    }
    Ok(())
}

/// `attribute_exists(#pk) AND #g0 = :g0 AND …`: the item is still there,
/// still in `group`, and (while a recount is pending) marked as `old` is.
fn still_in(
    table: &TableInfo<'_>,
    counter: &Counter,
    group: &Group,
    old: &Item,
) -> (String, HashMap<String, String>, Option<Item>) {
    let mut names = HashMap::from([("#pk".to_owned(), table.partition_key.to_owned())]);
    let mut values = Item::new();
    let mut expression = "attribute_exists(#pk)".to_owned();
    for (i, (name, value)) in group.attributes.iter().enumerate() {
        names.insert(format!("#g{i}"), (*name).to_owned());
        values.insert(format!(":g{i}"), value.clone());
        expression.push_str(&format!(" AND #g{i} = :g{i}"));
    }
    if let Some(mark) = counter.mark_as_in(old) {
        let rendered = mark.render(table.partition_key, &mut names, &mut values);
        expression.push_str(&format!(" AND {rendered}"));
    }
    (expression, names, (!values.is_empty()).then_some(values))
}

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
    let call = Call::item("create", E::ENTITY_TYPE, table.name);
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
        match crate::batch::transact_write_as(&call, client, vec![put, count], None).await {
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
    let call = Call::item("put", E::ENTITY_TYPE, table.name);
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
            match crate::batch::transact_write_as(&call, client, items, None).await {
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
    let call = Call::item("delete", E::ENTITY_TYPE, table.name);
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
            match crate::batch::transact_write_as(&call, client, items, None).await {
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
    let call = Call::item("update", E::ENTITY_TYPE, table.name);
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
                match crate::batch::transact_write_as(&call, client, vec![put, count], token.take())
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
            match crate::batch::transact_write_as(&call, client, items, token.take()).await {
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

/// One change of an item, as a DynamoDB Streams record carries it: the
/// image before (absent for an insert) and after (absent for a removal),
/// and which record it is.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChangeRecord {
    /// `OldImage`.
    pub old: Option<Item>,
    /// `NewImage`.
    pub new: Option<Item>,
    /// Which stream record this is; with it, [`apply`] applies the record
    /// once however often it is delivered. `None` for a change made up by
    /// hand, which is applied each time.
    pub id: Option<RecordId>,
    /// The record's `SequenceNumber` in its shard: what a Lambda partial
    /// batch response names ([`settle`]).
    pub sequence_number: Option<String>,
}

/// A stream record's identity: what the stream delivers again, unchanged,
/// when a batch is redelivered.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RecordId {
    /// `eventID`: globally unique per record.
    pub event_id: String,
    /// `ApproximateCreationDateTime`, in seconds since the Unix epoch: when
    /// the record's mark may be forgotten (the stream keeps records for 24
    /// hours).
    pub created: i64,
}

impl RecordId {
    /// The mark a counter item keeps of an applied record:
    /// `<hours since the epoch>:<eventID>`.
    fn mark(&self) -> String {
        format!("{}:{}", self.created.div_euclid(3600), self.event_id)
    }
}

/// The counter item's string set of the records applied to it in the last
/// [`RETAINED_HOURS`]: generated attribute names begin with `__`, which a
/// spec's attributes may not.
pub const APPLIED_ATTRIBUTE: &str = "__applied";

/// How long a counter remembers a record it applied: the stream keeps a
/// record for 24 hours, so no redelivery comes later than that (one hour
/// more for clock skew between records).
pub const RETAINED_HOURS: i64 = 25;

/// How many records one counter update marks: 50 `NOT contains(…)` terms
/// stay well within DynamoDB's 4 KB expression limit.
const MARKS_PER_UPDATE: usize = 50;

/// What to add to one counter.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CounterChange {
    /// The counter.
    pub counter: Counter,
    /// Its group (the counter item's key and attributes).
    pub group: Group,
    /// The amount to add (negative to subtract): the sum of `records`'
    /// parts, and of the records without an identity.
    pub delta: i64,
    /// The identified stream records this change is made of, each with its
    /// part of `delta` (records that left the group as it was are not
    /// here).
    pub records: Vec<(RecordId, i64)>,
}

/// The counter changes of `records` for items of entity `E`: +1 for the
/// new image's group, −1 for the old image's, netted per counter (each
/// identified record keeps its own part, so [`apply`] can apply it once).
/// Images of other entities are skipped; an image of `E` that does not
/// decode is an error naming the attribute, and the other records are
/// still counted. `group_of` takes the image (it reads the tenant from the
/// item's key).
pub fn count_changes<E: Entity>(
    records: &[ChangeRecord],
    counter: &Counter,
    group_of: fn(&Item, &E) -> Result<Group, Error>,
) -> (Vec<CounterChange>, Vec<Error>) {
    let mut changes: Vec<CounterChange> = Vec::new();
    let mut errors = Vec::new();
    for record in records {
        let mut parts: Vec<(Group, i64)> = Vec::new();
        for (image, delta) in [(&record.old, -1), (&record.new, 1)] {
            // An image that says it is of `E` without `E`'s key is a
            // forgery: an error, never counted.
            // While a recount is pending, only marked images count.
            let Some(item) = image
                .as_ref()
                .filter(|i| E::IDENTITY.claims(i) && counter.counts(i))
            else {
                continue;
            };
            let group = crate::entity::claimed::<E>(item, E::ENTITY_TYPE, None)
                .map_err(Error::from)
                .and_then(|value| group_of(item, &value));
            match group {
                Ok(group) => match parts.iter_mut().find(|(g, _)| g.key == group.key) {
                    Some((_, d)) => *d += delta,
                    None => parts.push((group, delta)),
                },
                Err(e) => errors.push(e),
            }
        }
        for (group, delta) in parts.into_iter().filter(|(_, d)| *d != 0) {
            let change = match changes.iter_mut().find(|c| c.group.key == group.key) {
                Some(change) => change,
                None => {
                    changes.push(CounterChange {
                        counter: *counter,
                        group,
                        delta: 0,
                        records: Vec::new(),
                    });
                    changes.last_mut().expect("a change was just pushed")
                }
            };
            change.delta += delta;
            if let Some(id) = &record.id {
                change.records.push((id.clone(), delta));
            }
        }
    }
    // A change that nets to nothing is still applied when it is made of
    // identified records: their marks keep a later redelivery of some of
    // them from counting them alone.
    changes.retain(|c| c.delta != 0 || !c.records.is_empty());
    (changes, errors)
}

/// Applies counter changes, one UpdateItem each (ADD, creating the counter
/// item when there is none). A change's identified records are applied
/// once: the counter item keeps a mark of each record it applied (in
/// [`APPLIED_ATTRIBUTE`], for [`RETAINED_HOURS`]) and the update applies
/// only the records it holds no mark of — so a batch Lambda delivers again
/// (whole, split, or from a failed record on), or an update whose answer
/// was lost and that the SDK sent again, counts each record once.
///
/// Each counter is applied on its own: a counter that cannot be updated
/// (its item was written by other code with a count that is not a number,
/// say) stops no other. Every change is tried; the ones that failed come
/// back in [`Error::Counters`], each with its error, and the rest are
/// applied — so when the stream delivers the batch again, the others are
/// already marked and count nothing twice.
pub async fn apply(
    client: &Client,
    table: &TableInfo<'_>,
    changes: &[CounterChange],
) -> Result<(), Error> {
    let mut failed = Vec::new();
    for change in changes {
        if let Err(error) = apply_change(client, table, change).await {
            #[cfg(feature = "tracing")]
            tracing::warn!(
                counter = change.counter.entity,
                error = %error,
                "a counter change failed; the other counters are applied"
            );
            failed.push(CounterFailure {
                change: change.clone(),
                error,
            });
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Error::Counters(failed))
    }
}

/// A counter change [`apply`] could not make, and why.
#[derive(Debug)]
#[non_exhaustive]
pub struct CounterFailure {
    /// The change (its counter item's key is `change.group.key`).
    pub change: CounterChange,
    /// Why it failed.
    pub error: Error,
}

/// The operation of the refusal of a change that would take a count out of
/// its declared range.
const RANGE_REFUSAL: &str = "apply counter changes (the count would leave its declared range)";

/// What a stream handler tells Lambda after [`apply`]: a partial batch
/// response (`ReportBatchItemFailures` on the event source mapping) and the
/// changes to report.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Settlement {
    /// The `SequenceNumber` to deliver the batch again from: the earliest
    /// record of a change that failed for a reason that may pass
    /// (throttling, an answer that never came). Lambda retries from it;
    /// every change already applied is marked and counts nothing twice.
    /// `None`: the batch is done.
    pub retry_from: Option<String>,
    /// The changes refused for good: a counter item that cannot be updated
    /// (other code wrote it with a count that is not a number, say) or a
    /// count that would leave its declared range. Delivered again, they
    /// would fail again and hold back every later record of the shard and
    /// every tenant's counters in it; so they are the caller's to report
    /// (a log, a queue), and the batch goes on.
    pub refused: Vec<CounterFailure>,
}

/// Settles a batch of `records` after [`apply`]`(…)` returned `outcome`.
/// Failures that may pass become [`Settlement::retry_from`], the earliest
/// sequence number of their records; failures that would recur become
/// [`Settlement::refused`]. An error that is not a counter's, or a
/// failure that may pass whose records have no identity or sequence number
/// (Lambda could not redeliver just them), or a failure that is neither
/// (access denied, attempts spent against another writer) is returned:
/// fail the invocation, and Lambda delivers the whole batch again.
pub fn settle(records: &[ChangeRecord], outcome: Result<(), Error>) -> Result<Settlement, Error> {
    let failed = match outcome {
        Ok(()) => return Ok(Settlement::default()),
        Err(Error::Counters(failed)) => failed,
        Err(other) => return Err(other),
    };
    // Refused for good: the count would leave its range, or the counter
    // item's data cannot take the update (a count that is not a number,
    // marks that are not a string set). Anything else — a refusal of the
    // credentials, a missing table, attempts spent against another writer —
    // is no verdict on the data: it fails the invocation unless it may pass.
    let for_good = |e: &Error| {
        matches!(e, Error::ConditionFailed { operation, .. } if *operation == RANGE_REFUSAL)
            || e.service_code() == Some("ValidationException")
    };
    let (refused, others): (Vec<_>, Vec<_>) = failed.into_iter().partition(|f| for_good(&f.error));
    if others.iter().any(|f| !f.error.is_transient()) {
        return Err(Error::Counters(others));
    }
    let transient = others;
    // Sequence numbers are decimal digits: the shorter is the earlier.
    fn order<'a>(n: &&'a str) -> (usize, &'a str) {
        (n.len(), n)
    }
    let earliest: Option<Vec<&str>> = transient
        .iter()
        .map(|failure| {
            let change = &failure.change;
            let identified: i64 = change.records.iter().map(|(_, d)| d).sum();
            if identified != change.delta {
                // A part of the change no record identifies.
                return None;
            }
            change
                .records
                .iter()
                .map(|(id, _)| {
                    records
                        .iter()
                        .find(|r| r.id.as_ref() == Some(id))
                        .and_then(|r| r.sequence_number.as_deref())
                })
                .collect::<Option<Vec<&str>>>()?
                .into_iter()
                .min_by_key(order)
        })
        .collect();
    match earliest {
        Some(earliest) => Ok(Settlement {
            retry_from: earliest.into_iter().min_by_key(order).map(str::to_owned),
            refused,
        }),
        None => Err(Error::Counters(transient)),
    }
}

async fn apply_change(
    client: &Client,
    table: &TableInfo<'_>,
    change: &CounterChange,
) -> Result<(), Error> {
    let unidentified = change.delta - change.records.iter().map(|(_, d)| d).sum::<i64>();
    if unidentified != 0 || change.records.is_empty() {
        let update = add_to(&change.counter, &change.group, unidentified)?;
        let key = change.group.key.clone();
        ops::update(client, table, key, update, change.counter.entity).await?;
    }
    let newest = change.records.iter().map(|(id, _)| id.created).max();
    for chunk in change.records.chunks(MARKS_PER_UPDATE) {
        let stored = apply_once(client, table, change, chunk).await?;
        if let Some(newest) = newest {
            forget_old_marks(client, table, change, &stored, newest).await?;
        }
    }
    Ok(())
}

/// Adds the parts of `records` the counter holds no mark of, with their
/// marks, and returns the counter item as left. Another writer may mark
/// some of them between a refusal and the next attempt (the same batch
/// handled twice at once): each attempt drops what the refusal showed.
async fn apply_once(
    client: &Client,
    table: &TableInfo<'_>,
    change: &CounterChange,
    records: &[(RecordId, i64)],
) -> Result<Item, Error> {
    // A record delivered twice in one batch is one record.
    let mut pending: Vec<(String, i64)> = Vec::new();
    for (id, delta) in records {
        let mark = id.mark();
        if !pending.iter().any(|(m, _)| *m == mark) {
            pending.push((mark, *delta));
        }
    }
    for _ in 0..ATTEMPTS {
        if pending.is_empty() {
            return Ok(Item::new());
        }
        let marks: Vec<String> = pending.iter().map(|(m, _)| m.clone()).collect();
        let unmarked = marks
            .iter()
            .map(|m| {
                let held = crate::Condition::of(
                    "contains",
                    APPLIED_ATTRIBUTE,
                    vec![Ok(AttributeValue::S(m.clone()))],
                );
                !held
            })
            .reduce(crate::Condition::and)
            .expect("pending is not empty");
        let delta = pending.iter().map(|(_, d)| d).sum();
        let mut update = add_to(&change.counter, &change.group, delta)?;
        update
            .add
            .push((APPLIED_ATTRIBUTE, AttributeValue::Ss(marks)));
        update.when = Some(unmarked);
        // The marks make it exact: a plain UpdateItem, not a transaction.
        update.plain = true;
        let key = change.group.key.clone();
        match ops::update(client, table, key, update, change.counter.entity).await {
            Ok(item) => return Ok(item),
            Err(Error::ConditionNotMet { stored, .. }) => {
                let held = stored.as_deref().map(applied_marks).unwrap_or_default();
                let before = pending.len();
                pending.retain(|(m, _)| !held.contains(m));
                // Refused with none of its records applied: the count
                // would leave its declared range.
                if pending.len() == before {
                    return Err(Error::ConditionFailed {
                        entity: change.counter.entity,
                        operation: RANGE_REFUSAL,
                    });
                }
            }
            Err(e) => return Err(e),
        }
    }
    Err(Error::ConditionFailed {
        entity: change.counter.entity,
        operation: "apply counter changes",
    })
}

/// The marks a counter item holds.
fn applied_marks(item: &Item) -> Vec<String> {
    match item.get(APPLIED_ATTRIBUTE) {
        Some(AttributeValue::Ss(marks)) => marks.clone(),
        _ => Vec::new(),
    }
}

/// Removes the marks of records created more than [`RETAINED_HOURS`]
/// before `newest` (the newest record applied), which no redelivery can
/// bring again, so a counter item holds about a day of marks.
async fn forget_old_marks(
    client: &Client,
    table: &TableInfo<'_>,
    change: &CounterChange,
    item: &Item,
    newest: i64,
) -> Result<(), Error> {
    let cutoff = newest.div_euclid(3600) - RETAINED_HOURS;
    let old: Vec<String> = applied_marks(item)
        .into_iter()
        .filter(|m| {
            m.split_once(':')
                .and_then(|(hour, _)| hour.parse::<i64>().ok())
                .is_none_or(|hour| hour < cutoff)
        })
        .collect();
    if old.is_empty() {
        return Ok(());
    }
    let update = Update {
        delete: vec![(APPLIED_ATTRIBUTE, AttributeValue::Ss(old))],
        entity: change.counter.entity,
        ..Update::default()
    };
    let key = change.group.key.clone();
    ops::update(client, table, key, update, change.counter.entity).await?;
    Ok(())
}

#[cfg(test)]
mod settle_tests {
    use super::*;

    const COUNTER: Counter = Counter {
        entity: "TicketCount",
        marker: None,
        count_attribute: "count",
        recount: None,
        rule: &crate::codec::Store::Integer {
            min: 0,
            max: i64::MAX,
        },
    };

    fn record(n: u32) -> ChangeRecord {
        ChangeRecord {
            id: Some(RecordId {
                event_id: format!("e{n}"),
                created: 1_700_000_000,
            }),
            sequence_number: Some(n.to_string()),
            ..ChangeRecord::default()
        }
    }

    fn failure(parts: &[u32], unidentified: i64, transient: bool) -> CounterFailure {
        let error = match transient {
            true => Error::Unprocessed {
                writes: Vec::new(),
                keys: Vec::new(),
                cause: None,
            },
            false => Error::ConditionFailed {
                entity: "TicketCount",
                operation: RANGE_REFUSAL,
            },
        };
        failed_with(parts, unidentified, error)
    }

    fn failed_with(parts: &[u32], unidentified: i64, error: Error) -> CounterFailure {
        let records: Vec<(RecordId, i64)> = parts
            .iter()
            .map(|n| (record(*n).id.expect("an id"), 1))
            .collect();
        CounterFailure {
            change: CounterChange {
                counter: COUNTER,
                group: Group {
                    key: Item::new(),
                    attributes: Vec::new(),
                },
                delta: records.len() as i64 + unidentified,
                records,
            },
            error,
        }
    }

    #[test]
    fn a_batch_is_retried_from_the_earliest_record_that_may_pass() {
        let records: Vec<ChangeRecord> = [9, 10, 11, 100].map(record).to_vec();
        let outcome = Err(Error::Counters(vec![
            failure(&[100, 11], 0, true),
            failure(&[10], 0, false),
            failure(&[9, 100], 0, true),
        ]));
        let settled = settle(&records, outcome).expect("settled");
        // `9` before `100` and `11`: numbers, not text.
        assert_eq!(settled.retry_from.as_deref(), Some("9"));
        assert_eq!(settled.refused.len(), 1, "the refused change is reported");
        assert!(!settled.refused[0].error.is_transient());
    }

    #[test]
    fn refusals_alone_let_the_batch_go_on() {
        let records: Vec<ChangeRecord> = [1, 2].map(record).to_vec();
        let outcome = Err(Error::Counters(vec![failure(&[2], 0, false)]));
        let settled = settle(&records, outcome).expect("settled");
        assert_eq!(settled.retry_from, None);
        assert_eq!(settled.refused.len(), 1);
        assert!(settle(&records, Ok(()))
            .expect("settled")
            .refused
            .is_empty());
    }

    #[test]
    fn a_failure_no_record_pins_fails_the_whole_batch() {
        let records: Vec<ChangeRecord> = [1, 2].map(record).to_vec();
        // A part of the change with no record identity.
        let outcome = Err(Error::Counters(vec![failure(&[1], 1, true)]));
        assert!(matches!(settle(&records, outcome), Err(Error::Counters(f)) if f.len() == 1));
        // A record without a sequence number.
        let mut unnumbered = records.clone();
        unnumbered[0].sequence_number = None;
        let outcome = Err(Error::Counters(vec![failure(&[1], 0, true)]));
        assert!(settle(&unnumbered, outcome).is_err());
        // An error that is not a counter's.
        let outcome = Err(Error::ConditionFailed {
            entity: "TicketCount",
            operation: "x",
        });
        assert!(settle(&records, outcome).is_err());
        // Attempts spent against another writer: no verdict on the data,
        // so never dropped as refused.
        let spent = Error::ConditionFailed {
            entity: "TicketCount",
            operation: "apply counter changes",
        };
        let outcome = Err(Error::Counters(vec![failed_with(&[1], 0, spent)]));
        assert!(settle(&records, outcome).is_err());
    }
}

#[cfg(feature = "streams")]
mod streams {
    use super::{ChangeRecord, RecordId};
    use crate::error::{DecodeError, DecodeProblem};
    use crate::sdk::types::AttributeValue;
    use crate::{Blob, Item};
    use aws_sdk_dynamodbstreams::types::{AttributeValue as StreamValue, Record};

    /// A Streams attribute value as the DynamoDB SDK's; `None` for a type
    /// this crate does not know.
    fn value(v: StreamValue) -> Option<AttributeValue> {
        Some(match v {
            StreamValue::S(s) => AttributeValue::S(s),
            StreamValue::N(n) => AttributeValue::N(n),
            StreamValue::B(b) => AttributeValue::B(Blob::new(b.into_inner())),
            StreamValue::Bool(b) => AttributeValue::Bool(b),
            StreamValue::Null(n) => AttributeValue::Null(n),
            StreamValue::Ss(v) => AttributeValue::Ss(v),
            StreamValue::Ns(v) => AttributeValue::Ns(v),
            StreamValue::Bs(v) => {
                AttributeValue::Bs(v.into_iter().map(|b| Blob::new(b.into_inner())).collect())
            }
            StreamValue::L(v) => {
                AttributeValue::L(v.into_iter().map(value).collect::<Option<_>>()?)
            }
            StreamValue::M(m) => AttributeValue::M(
                m.into_iter()
                    .map(|(k, v)| Some((k, value(v)?)))
                    .collect::<Option<_>>()?,
            ),
            _ => return None,
        })
    }

    fn image(m: std::collections::HashMap<String, StreamValue>) -> Result<Item, DecodeError> {
        m.into_iter()
            .map(|(k, v)| match value(v) {
                Some(v) => Ok((k, v)),
                None => Err(DecodeError::new(
                    "stream record",
                    k,
                    DecodeProblem::Invalid("an attribute type this version does not know".into()),
                )),
            })
            .collect()
    }

    /// A record read from the DynamoDB Streams API.
    impl TryFrom<Record> for ChangeRecord {
        type Error = DecodeError;
        fn try_from(record: Record) -> Result<Self, DecodeError> {
            let (old, new, created, sequence_number) = match record.dynamodb {
                Some(stream) => (
                    stream.old_image,
                    stream.new_image,
                    stream.approximate_creation_date_time.map(|t| t.secs()),
                    stream.sequence_number,
                ),
                None => (None, None, None, None),
            };
            let id = match (record.event_id, created) {
                (Some(event_id), Some(created)) => Some(RecordId { event_id, created }),
                _ => None,
            };
            Ok(ChangeRecord {
                old: old.map(image).transpose()?,
                new: new.map(image).transpose()?,
                id,
                sequence_number,
            })
        }
    }
}

#[cfg(feature = "lambda")]
mod lambda {
    use super::{ChangeRecord, RecordId};
    use crate::sdk::types::AttributeValue;
    use crate::{Blob, Item};
    use aws_lambda_events::event::dynamodb::{Event, EventRecord};
    use serde_dynamo::AttributeValue as LambdaValue;

    fn value(v: LambdaValue) -> AttributeValue {
        match v {
            LambdaValue::N(n) => AttributeValue::N(n),
            LambdaValue::S(s) => AttributeValue::S(s),
            LambdaValue::Bool(b) => AttributeValue::Bool(b),
            LambdaValue::B(b) => AttributeValue::B(Blob::new(b)),
            LambdaValue::Null(n) => AttributeValue::Null(n),
            LambdaValue::M(m) => {
                AttributeValue::M(m.into_iter().map(|(k, v)| (k, value(v))).collect())
            }
            LambdaValue::L(l) => AttributeValue::L(l.into_iter().map(value).collect()),
            LambdaValue::Ss(v) => AttributeValue::Ss(v),
            LambdaValue::Ns(v) => AttributeValue::Ns(v),
            LambdaValue::Bs(v) => AttributeValue::Bs(v.into_iter().map(Blob::new).collect()),
        }
    }

    /// An image; Lambda delivers an absent image as an empty map.
    fn image(item: serde_dynamo::Item) -> Option<Item> {
        let map = item.into_inner();
        (!map.is_empty()).then(|| map.into_iter().map(|(k, v)| (k, value(v))).collect())
    }

    /// One record of a Lambda's DynamoDB Streams event.
    impl From<EventRecord> for ChangeRecord {
        fn from(record: EventRecord) -> Self {
            // Without its creation time (Lambda may leave it out) a record's
            // mark could never be forgotten: such a record is applied as
            // delivered.
            let created = record.change.approximate_creation_date_time.timestamp();
            let id = (!record.event_id.is_empty() && created != 0).then_some(RecordId {
                event_id: record.event_id,
                created,
            });
            ChangeRecord {
                old: image(record.change.old_image),
                new: image(record.change.new_image),
                id,
                sequence_number: record.change.sequence_number,
            }
        }
    }

    impl ChangeRecord {
        /// Every record of a Lambda's DynamoDB Streams event, in order.
        pub fn from_lambda_event(event: Event) -> Vec<ChangeRecord> {
            event.records.into_iter().map(ChangeRecord::from).collect()
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// A record as Lambda delivers it (the shape of AWS's documented example).
        #[test]
        fn lambda_records_become_change_records() {
            let json = r#"{"Records":[{"eventID":"1","eventName":"MODIFY","eventVersion":"1.1","eventSource":"aws:dynamodb","awsRegion":"us-east-1",
                "dynamodb":{"ApproximateCreationDateTime":1700000000,"Keys":{"pk":{"S":"TENANT#acme|TICKET#T1"}},
                  "NewImage":{"pk":{"S":"TENANT#acme|TICKET#T1"},"status":{"S":"CLOSED"},"n":{"N":"2"},"tags":{"L":[{"S":"a"}]}},
                  "OldImage":{"pk":{"S":"TENANT#acme|TICKET#T1"},"status":{"S":"OPEN"}},
                  "SequenceNumber":"111","SizeBytes":26,"StreamViewType":"NEW_AND_OLD_IMAGES"},
                "eventSourceARN":"arn:aws:dynamodb:us-east-1:123456789012:table/T/stream/2024"},
              {"eventID":"2","eventName":"INSERT","eventVersion":"1.1","eventSource":"aws:dynamodb","awsRegion":"us-east-1",
                "dynamodb":{"Keys":{"pk":{"S":"x"}},"NewImage":{"pk":{"S":"x"}},"SequenceNumber":"112","SizeBytes":5,"StreamViewType":"NEW_AND_OLD_IMAGES"},
                "eventSourceARN":"arn:aws:dynamodb:us-east-1:123456789012:table/T/stream/2024"}]}"#;
            let event: Event = serde_json::from_str(json).expect("a Lambda event");
            let records = ChangeRecord::from_lambda_event(event);
            assert_eq!(records.len(), 2);
            let new = records[0].new.as_ref().expect("a new image");
            assert_eq!(new.get("status"), Some(&AttributeValue::S("CLOSED".into())));
            assert_eq!(new.get("n"), Some(&AttributeValue::N("2".into())));
            assert_eq!(
                new.get("tags"),
                Some(&AttributeValue::L(vec![AttributeValue::S("a".into())]))
            );
            let old = records[0].old.as_ref().expect("an old image");
            assert_eq!(old.get("status"), Some(&AttributeValue::S("OPEN".into())));
            assert_eq!(records[1].old, None, "an insert has no old image");
            let id = RecordId {
                event_id: "1".into(),
                created: 1_700_000_000,
            };
            assert_eq!(records[0].id, Some(id));
            assert_eq!(records[1].id, None, "a record without its time");
            assert_eq!(records[0].sequence_number.as_deref(), Some("111"));
            assert_eq!(records[1].sequence_number.as_deref(), Some("112"));
        }
    }
}
