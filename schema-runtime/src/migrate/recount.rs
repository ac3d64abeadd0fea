//! The recount of an aggregate (`aggregate_changed`): exact beside live
//! counter updates, with no second pass.
//!
//! While the recount is pending, writes mark the counted items they write
//! and counters count only marked items, in their count and in a shadow
//! count that started at zero ([`Recount`]). One scan then does the rest:
//! each counted item no write marked yet is marked and counted once, and
//! each counter item has its count set to its shadow count once. Both
//! steps are exact at any time and in any order — after a counter's
//! switch its count and shadow count move together — so when every item
//! is marked, every count is the number of items in its group.

use std::marker::PhantomData;

use futures_util::future::BoxFuture;
use futures_util::FutureExt;

use super::jobs::{primary_key, read};
use super::{Context, Job, Outcome};
use crate::aggregate::{Counter, Group, Recount};
use crate::ops::TableInfo;
use crate::sdk::types::{AttributeValue, ReturnValuesOnConditionCheckFailure, TransactWriteItem};
use crate::{Entity, Error, Item};

/// How often a counter's switch reads again after live updates changed it
/// between its read and its write.
const ATTEMPTS: usize = 20;

/// Recounts aggregate `A`'s counters of `E`'s items.
pub struct RecountAggregate<E, A> {
    id: &'static str,
    counter: Counter,
    group_of: fn(&Item, &E) -> Result<Group, Error>,
    transactional: bool,
    entities: PhantomData<fn() -> (E, A)>,
}

impl<E, A> RecountAggregate<E, A> {
    /// The job `id`, recounting `counter` (which must hold its pending
    /// [`Recount`]); `group_of` finds a stored item's group (reading the
    /// tenant out of its key). `transactional`: the repository keeps the
    /// counts in its write transactions, and so does this job; otherwise
    /// the table's stream handler counts the items this job marks.
    pub const fn new(
        id: &'static str,
        counter: Counter,
        group_of: fn(&Item, &E) -> Result<Group, Error>,
        transactional: bool,
    ) -> Self {
        RecountAggregate {
            id,
            counter,
            group_of,
            transactional,
            entities: PhantomData,
        }
    }
}

/// What one stored item is to the recount.
enum Found {
    /// A counted item not marked yet.
    Unmarked,
    /// A counted item already marked.
    Marked,
    /// A counter item whose count is not its shadow count yet.
    Unswitched,
    /// A counter item already switched.
    Switched,
    /// Anything else.
    Other,
}

impl<E: Entity, A: Entity> RecountAggregate<E, A> {
    fn recount(&self) -> Option<Recount> {
        self.counter.recount
    }

    fn find(&self, item: &Item) -> Found {
        let Some(recount) = self.recount() else {
            return Found::Other;
        };
        if E::IDENTITY.matches(item) {
            if self.counter.counts(item) {
                Found::Marked
            } else {
                Found::Unmarked
            }
        } else if A::IDENTITY.matches(item) {
            if switched(item, self.counter.count_attribute, recount.shadow) {
                Found::Switched
            } else {
                Found::Unswitched
            }
        } else {
            Found::Other
        }
    }

    fn table<'c>(&self, context: &'c Context) -> TableInfo<'c> {
        TableInfo {
            name: &context.table,
            partition_key: E::IDENTITY.keys().first().map_or("pk", |(k, _)| *k),
            ttl_attribute: None,
        }
    }

    /// Marks `item` and (in a transaction) counts it, conditional on its
    /// group and mark as read: a live write that changed it in between
    /// marked and counted it itself.
    async fn mark(&self, context: &Context, item: &Item) -> Result<Outcome, Error> {
        let Some(recount) = self.recount() else {
            return Ok(Outcome::Skipped);
        };
        let group = match E::from_item(item)
            .map_err(Error::from)
            .and_then(|value| (self.group_of)(item, &value))
        {
            Ok(group) => group,
            Err(e) => return Ok(Outcome::Invalid(e.to_string())),
        };
        let table = self.table(context);
        let update = crate::ops::Update {
            set: vec![(
                recount.attribute,
                AttributeValue::S(recount.mark.to_owned()),
            )],
            expect: group.attributes.clone(),
            when: Some(!recount.is_marked()),
            entity: E::ENTITY_TYPE,
            plain: true,
            ..crate::ops::Update::default()
        };
        let key = primary_key(E::IDENTITY.keys(), item);
        if self.transactional {
            let items: Vec<TransactWriteItem> = vec![
                crate::ops::transact_update(&table, key, update, E::ENTITY_TYPE)?,
                crate::aggregate::counter_update(&table, &self.counter, &group, 1)?,
            ];
            // No token needed: sent again, the mark's condition fails and
            // nothing is counted twice.
            return match crate::transact_write(&context.client, items, None).await {
                Ok(()) => Ok(Outcome::Updated),
                Err(Error::TransactionCanceled(reasons))
                    if reasons
                        .iter()
                        .any(|r| r.index == 0 && r.is_condition_failed()) =>
                {
                    Ok(self.after_refusal(context, item).await?)
                }
                Err(e) => Err(e),
            };
        }
        match crate::ops::update(&context.client, &table, key, update, E::ENTITY_TYPE).await {
            // Applied: at once, or by an attempt whose answer was lost.
            Ok(_) | Err(Error::AlreadyAsWritten { .. }) => Ok(Outcome::Updated),
            Err(Error::ConditionNotMet { .. } | Error::ConditionFailed { .. }) => {
                Ok(self.after_refusal(context, item).await?)
            }
            Err(e) => Err(e),
        }
    }

    /// After a refused mark: done when the item is marked now (an attempt
    /// whose answer was lost, or a live write, counted it), otherwise
    /// changed concurrently (a live write moved or deleted it).
    async fn after_refusal(&self, context: &Context, item: &Item) -> Result<Outcome, Error> {
        let key = primary_key(E::IDENTITY.keys(), item);
        let stored = read(context, key).await?;
        Ok(match stored {
            Some(stored) if self.counter.counts(&stored) => Outcome::AlreadyDone,
            _ => Outcome::ChangedConcurrently,
        })
    }

    /// Sets the counter item's count to its shadow count, conditional on
    /// both as read; reads again while live updates change them.
    async fn switch(&self, context: &Context, item: &Item) -> Result<Outcome, Error> {
        let Some(recount) = self.recount() else {
            return Ok(Outcome::Skipped);
        };
        let count = self.counter.count_attribute;
        let key = primary_key(A::IDENTITY.keys(), item);
        let mut current = item.clone();
        for attempt in 0..ATTEMPTS {
            if attempt > 0 {
                match read(context, key.clone()).await? {
                    Some(stored) => current = stored,
                    None => return Ok(Outcome::ChangedConcurrently),
                }
            }
            if switched(&current, count, recount.shadow) {
                return Ok(if attempt == 0 {
                    Outcome::AlreadyDone
                } else {
                    Outcome::Updated
                });
            }
            let shadow = current
                .get(recount.shadow)
                .cloned()
                .unwrap_or_else(|| AttributeValue::N("0".to_owned()));
            let mut names = std::collections::HashMap::from([
                ("#c".to_owned(), count.to_owned()),
                ("#s".to_owned(), recount.shadow.to_owned()),
            ]);
            let mut values = std::collections::HashMap::from([(":s".to_owned(), shadow)]);
            let mut condition = vec![match current.get(recount.shadow) {
                Some(_) => "#s = :s",
                None => "attribute_not_exists(#s)",
            }];
            match current.get(count) {
                Some(c) => {
                    values.insert(":c".to_owned(), c.clone());
                    condition.push("#c = :c");
                }
                None => condition.push("attribute_not_exists(#c)"),
            }
            if let Some(first) = key.keys().next() {
                names.insert("#pk".to_owned(), first.clone());
                condition.push("attribute_exists(#pk)");
            }
            let result = context
                .client
                .update_item()
                .table_name(&context.table)
                .set_key(Some(key.clone()))
                .update_expression("SET #c = :s")
                .condition_expression(condition.join(" AND "))
                .set_expression_attribute_names(Some(names))
                .set_expression_attribute_values(Some(values))
                .return_values_on_condition_check_failure(
                    ReturnValuesOnConditionCheckFailure::AllOld,
                )
                .send()
                .await
                .map_err(Error::from);
            match result {
                Ok(_) => return Ok(Outcome::Updated),
                Err(e) if e.service_code() == Some("ConditionalCheckFailedException") => {}
                Err(e) => return Err(e),
            }
        }
        Err(Error::ConditionFailed {
            entity: A::ENTITY_TYPE,
            operation: "recount",
        })
    }
}

/// Whether a counter item's count equals its shadow count (absent is 0):
/// from then on both move together.
fn switched(item: &Item, count: &str, shadow: &str) -> bool {
    let number = |name: &str| match item.get(name) {
        None => Some(0_i128),
        Some(AttributeValue::N(n)) => n.parse::<i128>().ok(),
        Some(_) => None,
    };
    matches!((number(count), number(shadow)), (Some(c), Some(s)) if c == s)
}

impl<E: Entity, A: Entity> Job for RecountAggregate<E, A> {
    fn id(&self) -> &str {
        self.id
    }

    fn description(&self) -> String {
        format!(
            "recounts every {} counter of {} items",
            A::ENTITY_TYPE,
            E::ENTITY_TYPE
        )
    }

    fn writes(&self) -> bool {
        true
    }

    fn apply<'a>(
        &'a self,
        context: &'a Context,
        item: &'a Item,
    ) -> BoxFuture<'a, Result<Outcome, Error>> {
        async move {
            match self.find(item) {
                Found::Other => Ok(Outcome::Skipped),
                Found::Marked | Found::Switched => Ok(Outcome::AlreadyDone),
                Found::Unmarked | Found::Unswitched if !context.live => Ok(Outcome::Updated),
                Found::Unmarked => self.mark(context, item).await,
                Found::Unswitched => self.switch(context, item).await,
            }
        }
        .boxed()
    }

    fn remaining(&self, item: &Item) -> Option<String> {
        match self.find(item) {
            Found::Unmarked => Some("not counted by the recount yet".to_owned()),
            Found::Unswitched => Some("its count is not the recount's yet".to_owned()),
            Found::Marked | Found::Switched | Found::Other => None,
        }
    }
}

#[cfg(test)]
mod tests {
    //! The recount's arithmetic over every interleaving proptest draws:
    //! live writes (marking what they write, counting only marked items),
    //! the job's marks and switches, and a stream that applies the counter
    //! changes late and in any order. Whatever the counters held before,
    //! once every item is marked, every switch made and every change
    //! applied, each count is the number of items in its group.

    use std::collections::BTreeMap;

    use proptest::prelude::*;

    use super::switched;
    use crate::aggregate::{Counter, Recount};
    use crate::sdk::types::AttributeValue;
    use crate::Item;

    const COUNTER: Counter = Counter {
        entity: "TicketCount",
        marker: None,
        count_attribute: "count",
        recount: Some(Recount {
            attribute: "__counted_TicketCount",
            mark: "1.abcdef12",
            shadow: "__recount_1.abcdef12",
        }),
        rule: &crate::codec::Store::Integer {
            min: 0,
            max: i64::MAX,
        },
    };

    #[derive(Debug, Clone)]
    enum Step {
        /// A live write of item `id`: to group `Some(g)`, or a delete.
        Write(u8, Option<u8>),
        /// The job marks item `id` (if it is there and unmarked).
        Mark(u8),
        /// The job switches group `g`'s counter.
        Switch(u8),
        /// The stream applies its oldest pending change (or, with `true`,
        /// its newest: deliveries are not ordered across groups).
        Deliver(bool),
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            (0..12_u8, prop::option::of(0..3_u8)).prop_map(|(i, g)| Step::Write(i, g)),
            (0..12_u8).prop_map(Step::Mark),
            (0..3_u8).prop_map(Step::Switch),
            any::<bool>().prop_map(Step::Deliver),
        ]
    }

    fn item(group: u8, marked: bool) -> Item {
        let mut item = Item::new();
        item.insert("group".to_owned(), AttributeValue::N(group.to_string()));
        if marked {
            let recount = COUNTER.recount.expect("a recount");
            item.insert(
                recount.attribute.to_owned(),
                AttributeValue::S(recount.mark.to_owned()),
            );
        }
        item
    }

    fn group_of(item: &Item) -> u8 {
        match item.get("group") {
            Some(AttributeValue::N(n)) => n.parse().expect("a group"),
            _ => unreachable!("every item has a group"),
        }
    }

    /// The model: items, counter items (as stored), and the counter
    /// changes written but not yet applied (`stream`: empty when the
    /// counts are kept in the write's transaction).
    struct Table {
        items: BTreeMap<u8, Item>,
        counters: BTreeMap<u8, Item>,
        stream: Vec<(u8, i64)>,
        transactional: bool,
    }

    impl Table {
        /// What a write of `old` → `new` adds to the counters: the rule of
        /// `aggregate::put/update/delete` and `count_changes`.
        fn changes(old: Option<&Item>, new: Option<&Item>) -> Vec<(u8, i64)> {
            let mut out = Vec::new();
            if let Some(old) = old.filter(|o| COUNTER.counts(o)) {
                out.push((group_of(old), -1));
            }
            if let Some(new) = new.filter(|n| COUNTER.counts(n)) {
                out.push((group_of(new), 1));
            }
            out
        }

        fn write(&mut self, id: u8, new: Option<Item>) {
            let old = self.items.get(&id).cloned();
            let changes = Table::changes(old.as_ref(), new.as_ref());
            match new {
                Some(new) => self.items.insert(id, new),
                None => self.items.remove(&id),
            };
            if self.transactional {
                changes.into_iter().for_each(|c| self.add(c));
            } else {
                self.stream.extend(changes);
            }
        }

        /// `add_to`: the count and the shadow count move together.
        fn add(&mut self, (group, delta): (u8, i64)) {
            let shadow = COUNTER.recount.expect("a recount").shadow;
            let counter = self.counters.entry(group).or_default();
            for name in ["count", shadow] {
                let now = match counter.get(name) {
                    Some(AttributeValue::N(n)) => n.parse::<i64>().expect("a number"),
                    _ => 0,
                };
                counter.insert(
                    name.to_owned(),
                    AttributeValue::N((now + delta).to_string()),
                );
            }
        }

        fn mark(&mut self, id: u8) {
            if let Some(old) = self.items.get(&id).filter(|i| !COUNTER.counts(i)) {
                let marked = item(group_of(old), true);
                self.write(id, Some(marked));
            }
        }

        fn switch(&mut self, group: u8) {
            let shadow = COUNTER.recount.expect("a recount").shadow;
            if let Some(counter) = self.counters.get_mut(&group) {
                if !switched(counter, "count", shadow) {
                    let value = counter
                        .get(shadow)
                        .cloned()
                        .unwrap_or_else(|| AttributeValue::N("0".to_owned()));
                    counter.insert("count".to_owned(), value);
                }
            }
        }

        fn deliver(&mut self, newest: bool) {
            if self.stream.is_empty() {
                return;
            }
            let change = if newest {
                self.stream.pop()
            } else {
                Some(self.stream.remove(0))
            };
            if let Some(change) = change {
                self.add(change);
            }
        }
    }

    proptest! {
        #[test]
        fn every_count_ends_exact(
            stored in prop::collection::btree_map(0..12_u8, 0..3_u8, 0..12),
            stale in prop::collection::btree_map(0..3_u8, -5..50_i64, 0..3),
            steps in prop::collection::vec(step(), 0..60),
            transactional in any::<bool>(),
        ) {
            let mut table = Table {
                items: stored.iter().map(|(id, g)| (*id, item(*g, false))).collect(),
                counters: stale
                    .iter()
                    .map(|(g, n)| {
                        let mut c = Item::new();
                        c.insert("count".to_owned(), AttributeValue::N(n.to_string()));
                        (*g, c)
                    })
                    .collect(),
                stream: Vec::new(),
                transactional,
            };
            for step in steps {
                match step {
                    Step::Write(id, group) => table.write(id, group.map(|g| item(g, true))),
                    Step::Mark(id) => table.mark(id),
                    Step::Switch(group) => table.switch(group),
                    Step::Deliver(newest) => table.deliver(newest),
                }
            }
            // The job's scan reaches every item and counter left.
            for id in 0..12 {
                table.mark(id);
            }
            for group in 0..3 {
                table.switch(group);
            }
            while !table.stream.is_empty() {
                table.deliver(false);
            }
            for group in 0..3_u8 {
                let items = table.items.values().filter(|i| group_of(i) == group).count();
                let count = match table.counters.get(&group).and_then(|c| c.get("count")) {
                    Some(AttributeValue::N(n)) => n.parse::<i64>().expect("a number"),
                    _ => 0,
                };
                prop_assert_eq!(count, i64::try_from(items).expect("small"), "group {}", group);
            }
        }
    }
}
