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
use crate::sdk::types::{AttributeValue, TransactWriteItem};
use crate::{Entity, Item};

#[cfg(feature = "lambda")]
mod lambda;
#[cfg(test)]
mod settle_tests;
mod stream;
#[cfg(feature = "streams")]
mod streams;
mod transaction;

pub use stream::*;
pub use transaction::*;

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
