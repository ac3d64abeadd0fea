//! The jobs `singletable diff` plans, generic over the entity they work on;
//! generated code instantiates them (`migrations::jobs()`).
//!
//! Every write is conditional on what was read, so a job runs safely beside
//! live traffic (writers of the new design are deployed first and write the
//! new form themselves) and a page applied twice changes nothing twice.

use std::collections::HashMap;
use std::marker::PhantomData;

use futures_util::future::BoxFuture;
use futures_util::FutureExt;

use super::{Context, Job, Outcome};
use crate::identity::Identity;
use crate::sdk::types::{
    AttributeValue, Delete, Put, ReturnValuesOnConditionCheckFailure, TransactWriteItem,
};
use crate::tenant::{TenantId, TenantRules};
use crate::{Entity, Error, Item};

pub use super::recount::RecountAggregate;
pub use super::rewrite::{CopyEntity, CopyTable, FillAttribute, MoveAttribute, Purge};

/// Where a tenant-scoped entity's tenant sits in its table partition key:
/// after `literal`, up to `delimiter` (or the end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TenantAt {
    /// The table partition-key attribute.
    pub attribute: &'static str,
    /// The literal text before the tenant.
    pub literal: &'static str,
    /// The character after it, if any.
    pub delimiter: Option<char>,
}

/// A scope read back out of a stored key: what a job builds an item's new
/// keys with.
pub trait ScopeOfItem: Sized {
    /// The scope of `item`, whose tenant (if any) is `at`.
    fn of_item(item: &Item, at: Option<TenantAt>) -> Option<Self>;
}

impl ScopeOfItem for () {
    fn of_item(_: &Item, _: Option<TenantAt>) -> Option<Self> {
        Some(())
    }
}

impl<R: TenantRules> ScopeOfItem for TenantId<R> {
    fn of_item(item: &Item, at: Option<TenantAt>) -> Option<Self> {
        let at = at?;
        let AttributeValue::S(key) = item.get(at.attribute)? else {
            return None;
        };
        let rest = key.strip_prefix(at.literal)?;
        let id = match at.delimiter {
            Some(d) => rest.split(d).next()?,
            None => rest,
        };
        TenantId::new(id).ok()
    }
}

/// The primary key attributes of `item`: those `keys` names.
pub(super) fn primary_key(keys: &[(&'static str, crate::KeyShape)], item: &Item) -> Item {
    keys.iter()
        .filter_map(|(name, _)| Some(((*name).to_owned(), item.get(*name)?.clone())))
        .collect()
}

/// The item at `key` in the context's table, read consistently.
pub(super) async fn read(context: &Context, key: Item) -> Result<Option<Item>, Error> {
    let output = context
        .client
        .get_item()
        .table_name(&context.table)
        .set_key(Some(key))
        .consistent_read(true)
        .send()
        .await?;
    Ok(output.item.filter(|item| !item.is_empty()))
}

/// Reads `item` as `E` with its scope and builds the item `E` writes
/// today; an `Invalid` outcome when it cannot.
pub(super) fn rebuilt<E: Entity>(item: &Item, tenant: Option<TenantAt>) -> Result<Item, Outcome>
where
    E::Scope: ScopeOfItem,
{
    let value = E::from_item(item).map_err(|e| Outcome::Invalid(e.to_string()))?;
    let scope = E::Scope::of_item(item, tenant)
        .ok_or_else(|| Outcome::Invalid("its key holds no valid tenant id".to_owned()))?;
    value
        .to_item(&scope)
        .map_err(|e| Outcome::Invalid(e.to_string()))
}

/// `UpdateItem` of the index key attributes `keys` of `item` (at `key`) to
/// `wanted` (absent: removed), conditional on the item existing and those
/// attributes holding what was read.
pub(super) async fn set_keys(
    context: &Context,
    key: Item,
    keys: &[&'static str],
    item: &Item,
    wanted: &Item,
) -> Result<Outcome, Error> {
    let (mut set, mut remove, mut conditions) = (Vec::new(), Vec::new(), Vec::new());
    let mut names = HashMap::new();
    let mut values = HashMap::new();
    if let Some(first) = key.keys().next() {
        names.insert("#pk".to_owned(), first.clone());
        conditions.push("attribute_exists(#pk)".to_owned());
    }
    for (i, k) in keys.iter().enumerate() {
        names.insert(format!("#k{i}"), (*k).to_owned());
        match wanted.get(*k) {
            Some(v) => {
                set.push(format!("#k{i} = :k{i}"));
                values.insert(format!(":k{i}"), v.clone());
            }
            None => remove.push(format!("#k{i}")),
        }
        match item.get(*k) {
            Some(v) => {
                conditions.push(format!("#k{i} = :o{i}"));
                values.insert(format!(":o{i}"), v.clone());
            }
            None => conditions.push(format!("attribute_not_exists(#k{i})")),
        }
    }
    let mut expression = String::new();
    if !set.is_empty() {
        expression.push_str(&format!("SET {}", set.join(", ")));
    }
    if !remove.is_empty() {
        expression.push_str(&format!(" REMOVE {}", remove.join(", ")));
    }
    let result = context
        .client
        .update_item()
        .table_name(&context.table)
        .set_key(Some(key))
        .update_expression(expression.trim())
        .condition_expression(conditions.join(" AND "))
        .set_expression_attribute_names(Some(names))
        .set_expression_attribute_values((!values.is_empty()).then_some(values))
        .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
        .send()
        .await;
    match result {
        Ok(_) => Ok(Outcome::Updated),
        Err(crate::sdk::error::SdkError::ServiceError(service)) => match service.err() {
            crate::sdk::operation::update_item::UpdateItemError::ConditionalCheckFailedException(c) => {
                // Written already (an attempt whose answer was lost), or
                // changed by another writer.
                let done = c.item.as_ref().is_some_and(|stored| {
                    keys.iter().all(|k| stored.get(*k) == wanted.get(*k))
                });
                Ok(if done { Outcome::AlreadyDone } else { Outcome::ChangedConcurrently })
            }
            _ => Err(Error::from(crate::sdk::error::SdkError::ServiceError(service))),
        },
        Err(e) => Err(Error::from(e)),
    }
}

/// Writes the keys of an index into every stored item of `E` that lacks
/// them or holds others (a new index with computed keys, an entity newly
/// in an index, a changed index key template).
pub struct BackfillIndexKeys<E> {
    id: &'static str,
    index: &'static str,
    keys: &'static [&'static str],
    tenant: Option<TenantAt>,
    /// The attributes are derived ones (`derived:`), not an index's keys.
    derived: bool,
    entity: PhantomData<fn() -> E>,
}

impl<E> BackfillIndexKeys<E> {
    /// The job `id`, writing the key attributes `keys` of `index`; the
    /// tenant of a tenant-scoped entity is read from its key at `tenant`.
    pub const fn new(
        id: &'static str,
        index: &'static str,
        keys: &'static [&'static str],
        tenant: Option<TenantAt>,
    ) -> Self {
        BackfillIndexKeys {
            id,
            index,
            keys,
            tenant,
            derived: false,
            entity: PhantomData,
        }
    }

    /// The job `id`, writing the derived attribute `attribute` (one name)
    /// as the entity's writes compute it; the tenant as for [`Self::new`].
    pub const fn derived(
        id: &'static str,
        attribute: &'static [&'static str; 1],
        tenant: Option<TenantAt>,
    ) -> Self {
        BackfillIndexKeys {
            id,
            index: attribute[0],
            keys: attribute,
            tenant,
            derived: true,
            entity: PhantomData,
        }
    }

    /// What `item` must hold, when it is an `E` that needs the job.
    fn wanted(&self, item: &Item) -> Result<Option<Item>, Outcome>
    where
        E: Entity,
        E::Scope: ScopeOfItem,
    {
        if !E::IDENTITY.matches(item) {
            return Ok(None);
        }
        let full = rebuilt::<E>(item, self.tenant)?;
        let wanted: Item = self
            .keys
            .iter()
            .filter_map(|k| Some(((*k).to_owned(), full.get(*k)?.clone())))
            .collect();
        let same = self.keys.iter().all(|k| item.get(*k) == wanted.get(*k));
        Ok((!same).then_some(wanted))
    }
}

impl<E: Entity> Job for BackfillIndexKeys<E>
where
    E::Scope: ScopeOfItem,
{
    fn id(&self) -> &str {
        self.id
    }

    fn description(&self) -> String {
        if self.derived {
            return format!(
                "writes the derived attribute `{}` into every stored {}",
                self.index,
                E::ENTITY_TYPE
            );
        }
        format!(
            "writes index `{}`'s keys into every stored {}",
            self.index,
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
            let wanted = match self.wanted(item) {
                Ok(Some(wanted)) => wanted,
                Ok(None) if E::IDENTITY.matches(item) => return Ok(Outcome::AlreadyDone),
                Ok(None) => return Ok(Outcome::Skipped),
                Err(outcome) => return Ok(outcome),
            };
            if !context.live {
                return Ok(Outcome::Updated);
            }
            let key = primary_key(E::IDENTITY.keys(), item);
            set_keys(context, key, self.keys, item, &wanted).await
        }
        .boxed()
    }

    fn remaining(&self, item: &Item) -> Option<String> {
        match self.wanted(item) {
            Ok(Some(_)) if self.derived => {
                Some(format!("lacks the derived attribute `{}`", self.index))
            }
            Ok(Some(_)) => Some(format!("lacks index `{}`'s keys", self.index)),
            Ok(None) => None,
            Err(Outcome::Invalid(why)) => Some(why),
            Err(_) => None,
        }
    }
}

/// Removes the keys of an index from every stored item of `E` (an entity
/// that no longer writes into the index).
pub struct CleanupIndexKeys<E> {
    id: &'static str,
    index: &'static str,
    keys: &'static [&'static str],
    entity: PhantomData<fn() -> E>,
}

impl<E> CleanupIndexKeys<E> {
    /// The job `id`, removing the key attributes `keys` of `index`.
    pub const fn new(id: &'static str, index: &'static str, keys: &'static [&'static str]) -> Self {
        CleanupIndexKeys {
            id,
            index,
            keys,
            entity: PhantomData,
        }
    }
}

impl<E: Entity> Job for CleanupIndexKeys<E> {
    fn id(&self) -> &str {
        self.id
    }

    fn description(&self) -> String {
        format!(
            "removes index `{}`'s keys from every stored {}",
            self.index,
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
            if !E::IDENTITY.matches(item) {
                return Ok(Outcome::Skipped);
            }
            if self.keys.iter().all(|k| !item.contains_key(*k)) {
                return Ok(Outcome::AlreadyDone);
            }
            if !context.live {
                return Ok(Outcome::Updated);
            }
            let key = primary_key(E::IDENTITY.keys(), item);
            set_keys(context, key, self.keys, item, &Item::new()).await
        }
        .boxed()
    }

    fn remaining(&self, item: &Item) -> Option<String> {
        (E::IDENTITY.matches(item) && self.keys.iter().any(|k| item.contains_key(*k)))
            .then(|| format!("still holds index `{}`'s keys", self.index))
    }
}

/// Reads every stored item of `E` under the new design's rules; writes
/// nothing. What breaks them is `Invalid`, listed by key.
pub struct VerifyItems<E> {
    id: &'static str,
    entity: PhantomData<fn() -> E>,
}

impl<E> VerifyItems<E> {
    /// The job `id`.
    pub const fn new(id: &'static str) -> Self {
        VerifyItems {
            id,
            entity: PhantomData,
        }
    }
}

impl<E: Entity> VerifyItems<E> {
    fn check(item: &Item) -> Outcome {
        if !E::IDENTITY.claims(item) {
            return Outcome::Skipped;
        }
        match crate::entity::claimed::<E>(item, E::ENTITY_TYPE, None) {
            Ok(_) => Outcome::AlreadyDone,
            Err(e) => Outcome::Invalid(e.to_string()),
        }
    }
}

impl<E: Entity> Job for VerifyItems<E> {
    fn id(&self) -> &str {
        self.id
    }

    fn description(&self) -> String {
        format!(
            "reads every stored {} under the new rules and lists those that break them",
            E::ENTITY_TYPE
        )
    }

    fn writes(&self) -> bool {
        false
    }

    fn apply<'a>(
        &'a self,
        _: &'a Context,
        item: &'a Item,
    ) -> BoxFuture<'a, Result<Outcome, Error>> {
        let outcome = Self::check(item);
        async move { Ok(outcome) }.boxed()
    }

    fn remaining(&self, item: &Item) -> Option<String> {
        match Self::check(item) {
            Outcome::Invalid(why) => Some(why),
            _ => None,
        }
    }
}

/// Moves every stored item of `E` from its old key to its new one: one
/// transaction per item, `Put` of the item as `E` writes it today if the
/// new key is free and `Delete` of the old item if it still says it is an
/// `E`. A transaction the SDK sends again keeps its client request token
/// and is applied once; one applied before a crash finds the old item gone.
pub struct Rekey<E> {
    id: &'static str,
    old: Identity,
    old_tenant: Option<TenantAt>,
    entity: PhantomData<fn() -> E>,
}

impl<E> Rekey<E> {
    /// The job `id`; `old` tells the items still at their old key (the old
    /// key shapes), whose tenant is at `old_tenant`.
    pub const fn new(id: &'static str, old: Identity, old_tenant: Option<TenantAt>) -> Self {
        Rekey {
            id,
            old,
            old_tenant,
            entity: PhantomData,
        }
    }
}

impl<E: Entity> Job for Rekey<E>
where
    E::Scope: ScopeOfItem,
{
    fn id(&self) -> &str {
        self.id
    }

    fn description(&self) -> String {
        format!("moves every stored {} to its new key", E::ENTITY_TYPE)
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
            if !self.old.matches(item) {
                let done = E::IDENTITY.matches(item);
                return Ok(if done {
                    Outcome::AlreadyDone
                } else {
                    Outcome::Skipped
                });
            }
            let new_item = match rebuilt::<E>(item, self.old_tenant) {
                Ok(new_item) => new_item,
                Err(outcome) => return Ok(outcome),
            };
            let old_key = primary_key(self.old.keys(), item);
            let new_key = primary_key(E::IDENTITY.keys(), &new_item);
            if old_key == new_key {
                return Ok(Outcome::AlreadyDone);
            }
            if !context.live {
                return Ok(Outcome::Updated);
            }
            self.move_item(context, new_item, old_key, item).await
        }
        .boxed()
    }

    fn remaining(&self, item: &Item) -> Option<String> {
        self.old
            .matches(item)
            .then(|| "still at its old key".to_owned())
    }
}

impl<E: Entity> Rekey<E> {
    async fn move_item(
        &self,
        context: &Context,
        new_item: Item,
        old_key: Item,
        old: &Item,
    ) -> Result<Outcome, Error> {
        let first = E::IDENTITY.keys().first().map_or("pk", |(k, _)| *k);
        let put = Put::builder()
            .table_name(&context.table)
            .set_item(Some(new_item))
            .condition_expression("attribute_not_exists(#k)")
            .expression_attribute_names("#k", first)
            .build()?;
        let mut conditions = vec!["attribute_exists(#k)"];
        let mut delete = Delete::builder()
            .table_name(&context.table)
            .set_key(Some(old_key.clone()))
            .expression_attribute_names("#k", first);
        if let Some((attribute, value)) = self.old.marker() {
            conditions.push("#m = :m");
            delete = delete
                .expression_attribute_names("#m", attribute)
                .expression_attribute_values(":m", AttributeValue::S(value.to_owned()));
        }
        // A versioned item moves as read, or not at all.
        if let Some(version) = E::VERSION_ATTRIBUTE.filter(|v| old.contains_key(*v)) {
            conditions.push("#v = :v");
            delete = delete
                .expression_attribute_names("#v", version)
                .expression_attribute_values(":v", old[version].clone());
        }
        let delete = delete.condition_expression(conditions.join(" AND "));
        let items = vec![
            TransactWriteItem::builder().put(put).build(),
            TransactWriteItem::builder().delete(delete.build()?).build(),
        ];
        match crate::transact_write(&context.client, items, None).await {
            Ok(()) => Ok(Outcome::Updated),
            Err(Error::TransactionCanceled(reasons)) => {
                let failed = |i: usize| {
                    reasons
                        .iter()
                        .any(|r| r.index == i && r.is_condition_failed())
                };
                match (failed(0), failed(1)) {
                    // The new item exists and the old is gone: moved before.
                    (true, true) => Ok(Outcome::AlreadyDone),
                    // The new item was written meanwhile (by new code):
                    // the old one is stale.
                    (true, false) => self.delete_old(context, old_key).await,
                    _ => Ok(Outcome::ChangedConcurrently),
                }
            }
            Err(e) => Err(e),
        }
    }

    async fn delete_old(&self, context: &Context, old_key: Item) -> Result<Outcome, Error> {
        let first = E::IDENTITY.keys().first().map_or("pk", |(k, _)| *k);
        let result = context
            .client
            .delete_item()
            .table_name(&context.table)
            .set_key(Some(old_key))
            .condition_expression("attribute_exists(#k)")
            .expression_attribute_names("#k", first)
            .send()
            .await
            .map_err(Error::from);
        match result {
            Ok(_) => Ok(Outcome::Updated),
            Err(e) if e.service_code() == Some("ConditionalCheckFailedException") => {
                Ok(Outcome::AlreadyDone)
            }
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tenant::TenantRules;

    enum Rules {}
    impl TenantRules for Rules {
        const MIN_LENGTH: usize = 1;
        const MAX_LENGTH: usize = 16;
        const ALPHABET: &'static [(char, char)] = &[('a', 'z')];
    }

    #[test]
    fn the_tenant_is_read_back_out_of_the_key() {
        let at = TenantAt {
            attribute: "pk",
            literal: "TENANT#",
            delimiter: Some('|'),
        };
        let item: Item = [("pk".to_owned(), AttributeValue::S("TENANT#acme|T#1".into()))].into();
        let tenant = TenantId::<Rules>::of_item(&item, Some(at)).expect("a tenant");
        assert_eq!(tenant.as_str(), "acme");
        let other: Item = [("pk".to_owned(), AttributeValue::S("GLOBAL#x".into()))].into();
        assert!(TenantId::<Rules>::of_item(&other, Some(at)).is_none());
        let invalid: Item = [("pk".to_owned(), AttributeValue::S("TENANT#ACME|T#1".into()))].into();
        assert!(TenantId::<Rules>::of_item(&invalid, Some(at)).is_none());
        assert!(<()>::of_item(&other, None).is_some());
    }
}
