//! The jobs that rewrite attributes, delete the items of a removed entity
//! and copy a table: moved and filled attributes, a changed entity-type
//! value, purges and copies. Like the key jobs ([`super::jobs`]) every
//! write is conditional on what was read, so a page applied twice changes
//! nothing twice and a write racing live traffic never overwrites it.

use std::marker::PhantomData;

use futures_util::future::BoxFuture;
use futures_util::FutureExt;

use super::jobs::{primary_key, read, rebuilt, set_keys, ScopeOfItem, TenantAt};
use super::{Context, Job, Outcome};
use crate::codec::Attr;
use crate::identity::Identity;
use crate::sdk::types::{AttributeValue, ReturnValuesOnConditionCheckFailure};
use crate::{Entity, Error, Field, Item};

/// Moves the value of every stored item of `E` from the stored attribute
/// `from` to `to` (an attribute whose stored name changed): one
/// `UpdateItem` per item, `SET to = value REMOVE from`, conditional on
/// `from` still holding the value read and `to` holding what was read
/// (absent, or a value new code wrote, which is kept).
pub struct MoveAttribute<E> {
    id: &'static str,
    from: &'static str,
    to: &'static str,
    entity: PhantomData<fn() -> E>,
}

impl<E> MoveAttribute<E> {
    /// The job `id`, moving stored attribute `from` to `to`.
    pub const fn new(id: &'static str, from: &'static str, to: &'static str) -> Self {
        MoveAttribute {
            id,
            from,
            to,
            entity: PhantomData,
        }
    }
}

impl<E: Entity> Job for MoveAttribute<E> {
    fn id(&self) -> &str {
        self.id
    }

    fn description(&self) -> String {
        format!(
            "moves `{}` to `{}` in every stored {}",
            self.from,
            self.to,
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
            let Some(old) = item.get(self.from) else {
                return Ok(Outcome::AlreadyDone);
            };
            if !context.live {
                return Ok(Outcome::Updated);
            }
            // A value new code wrote under the new name wins over the old.
            let value = item.get(self.to).unwrap_or(old).clone();
            let wanted: Item = [(self.to.to_owned(), value)].into();
            let key = primary_key(E::IDENTITY.keys(), item);
            set_keys(context, key, &[self.from, self.to], item, &wanted).await
        }
        .boxed()
    }

    fn remaining(&self, item: &Item) -> Option<String> {
        (E::IDENTITY.matches(item) && item.contains_key(self.from))
            .then(|| format!("still holds `{}`", self.from))
    }
}

/// What a [`FillAttribute`] sets an item's attribute to: the value, `None`
/// to leave the item, or why the item cannot be filled.
type Decide = dyn Fn(&Item) -> Result<Option<AttributeValue>, String> + Send + Sync;

/// Sets one stored attribute of every stored item of `E` that needs it: a
/// required attribute added (the value a function gives for the item), a
/// version attribute added (its first value), or the entity-type value of
/// items the old design marked otherwise. One `UpdateItem` per item,
/// conditional on the attribute holding what was read.
pub struct FillAttribute<E> {
    id: &'static str,
    attribute: &'static str,
    recognise: Identity,
    decide: Box<Decide>,
    entity: PhantomData<fn() -> E>,
}

impl<E: Entity> FillAttribute<E> {
    /// The job `id`: every stored `E` that lacks the stored attribute
    /// `attribute` gets `value(item)` (`Ok(None)` leaves the item; `Err`
    /// lists it as invalid, with the reason).
    pub fn new(
        id: &'static str,
        attribute: &'static str,
        value: impl Fn(&Item) -> Result<Option<AttributeValue>, String> + Send + Sync + 'static,
    ) -> Self {
        FillAttribute {
            id,
            attribute,
            recognise: E::IDENTITY,
            decide: Box::new(move |item: &Item| {
                if item.contains_key(attribute) {
                    Ok(None)
                } else {
                    value(item)
                }
            }),
            entity: PhantomData,
        }
    }

    /// [`FillAttribute::new`] with a typed value for `field`, stored as the
    /// field is; a value the field's rules refuse is listed as invalid.
    pub fn typed<T: Attr + 'static>(
        id: &'static str,
        field: Field<T>,
        value: impl Fn(&Item) -> Option<T> + Send + Sync + 'static,
    ) -> Self {
        let attribute = field.name();
        Self::new(id, attribute, move |item| {
            let Some(value) = value(item) else {
                return Ok(None);
            };
            let stored = field.to_stored(&value).map_err(|e| e.to_string())?;
            let mut filled = item.clone();
            filled.insert(attribute.to_owned(), stored.clone());
            // The field's own rules, as a read checks them (another
            // attribute a later job fixes does not count).
            match E::from_item(&filled) {
                Err(e) if e.attribute == attribute => Err(e.to_string()),
                _ => Ok(Some(stored)),
            }
        })
    }

    /// The job `id`: every item the old design marked as `E` (`old`: its
    /// identity then) gets the entity-type value `E` writes today.
    pub fn remark(id: &'static str, old: Identity) -> Self {
        let (attribute, value) = E::IDENTITY.marker().unwrap_or(("", ""));
        FillAttribute {
            id,
            attribute,
            recognise: old,
            decide: Box::new(move |_: &Item| Ok(Some(AttributeValue::S(value.to_owned())))),
            entity: PhantomData,
        }
    }

    /// The value `item` must get, when it is an item the job changes.
    fn wanted(&self, item: &Item) -> Result<Option<AttributeValue>, String> {
        if self.attribute.is_empty() || !self.recognise.matches(item) {
            return Ok(None);
        }
        Ok((self.decide)(item)?.filter(|v| item.get(self.attribute) != Some(v)))
    }
}

impl<E: Entity> Job for FillAttribute<E> {
    fn id(&self) -> &str {
        self.id
    }

    fn description(&self) -> String {
        format!(
            "sets `{}` in every stored {} that needs it",
            self.attribute,
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
            let value = match self.wanted(item) {
                Ok(Some(value)) => value,
                Ok(None) if self.recognise.matches(item) || E::IDENTITY.matches(item) => {
                    return Ok(Outcome::AlreadyDone)
                }
                Ok(None) => return Ok(Outcome::Skipped),
                Err(why) => return Ok(Outcome::Invalid(why)),
            };
            if !context.live {
                return Ok(Outcome::Updated);
            }
            let wanted: Item = [(self.attribute.to_owned(), value)].into();
            let key = primary_key(self.recognise.keys(), item);
            set_keys(context, key, &[self.attribute], item, &wanted).await
        }
        .boxed()
    }

    fn remaining(&self, item: &Item) -> Option<String> {
        match self.wanted(item) {
            Ok(Some(_)) => Some(format!("`{}` is not set", self.attribute)),
            Ok(None) => None,
            Err(why) => Some(why),
        }
    }
}

/// Compares at most this many attributes of an item a purge deletes; past
/// it, the keys and the entity-type value alone.
const MAX_COMPARED: usize = 32;

/// Deletes every stored item of an entity the design removed (or the old
/// counter items of a regrouped aggregate), as the old design tells them
/// (`old`), and never an item that is an entity of the current design by
/// its marker and its keys (a regrouped aggregate's new counters say they
/// are of the same entity as its old ones; their keys tell them apart).
/// Each `DeleteItem` is conditional on the item still holding what was
/// read, so an item changed meanwhile stays.
pub struct Purge {
    id: &'static str,
    entity: &'static str,
    old: Identity,
    current: &'static [Identity],
}

impl Purge {
    /// The job `id`, deleting the items of the removed `entity` (`old`:
    /// its identity); `current` are the identities of today's entities.
    pub const fn new(
        id: &'static str,
        entity: &'static str,
        old: Identity,
        current: &'static [Identity],
    ) -> Self {
        Purge {
            id,
            entity,
            old,
            current,
        }
    }

    fn purged(&self, item: &Item) -> bool {
        self.old.matches(item) && !self.current.iter().any(|i| i.matches(item))
    }

    async fn delete(&self, context: &Context, item: &Item) -> Result<Outcome, Error> {
        let key = primary_key(self.old.keys(), item);
        let mut names = std::collections::HashMap::new();
        let mut values = std::collections::HashMap::new();
        let mut conditions = Vec::new();
        let scalar = |v: &AttributeValue| {
            matches!(
                v,
                AttributeValue::S(_)
                    | AttributeValue::N(_)
                    | AttributeValue::B(_)
                    | AttributeValue::Bool(_)
            )
        };
        let mut compared: Vec<(&String, &AttributeValue)> = item
            .iter()
            .filter(|(name, v)| scalar(v) || key.contains_key(*name))
            .collect();
        compared.sort_by(|a, b| a.0.cmp(b.0));
        if compared.len() > MAX_COMPARED {
            let marker = self.old.marker().map(|(a, _)| a);
            compared.retain(|(name, _)| key.contains_key(*name) || Some(name.as_str()) == marker);
        }
        for (i, (name, value)) in compared.into_iter().enumerate() {
            names.insert(format!("#a{i}"), name.clone());
            values.insert(format!(":a{i}"), value.clone());
            conditions.push(format!("#a{i} = :a{i}"));
        }
        let result = context
            .client
            .delete_item()
            .table_name(&context.table)
            .set_key(Some(key))
            .condition_expression(conditions.join(" AND "))
            .set_expression_attribute_names(Some(names))
            .set_expression_attribute_values(Some(values))
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .send()
            .await;
        match result {
            Ok(_) => Ok(Outcome::Updated),
            Err(crate::sdk::error::SdkError::ServiceError(service)) => match service.err() {
                crate::sdk::operation::delete_item::DeleteItemError::ConditionalCheckFailedException(c) => {
                    // Gone already (an attempt whose answer was lost), or
                    // changed by another writer, which keeps it.
                    Ok(if c.item.is_none() {
                        Outcome::AlreadyDone
                    } else {
                        Outcome::ChangedConcurrently
                    })
                }
                _ => Err(Error::from(crate::sdk::error::SdkError::ServiceError(service))),
            },
            Err(e) => Err(Error::from(e)),
        }
    }
}

impl Job for Purge {
    fn id(&self) -> &str {
        self.id
    }

    fn description(&self) -> String {
        format!(
            "deletes every stored {}, an entity the design no longer has",
            self.entity
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
            if !self.purged(item) {
                return Ok(Outcome::Skipped);
            }
            if !context.live {
                return Ok(Outcome::Updated);
            }
            self.delete(context, item).await
        }
        .boxed()
    }

    fn remaining(&self, item: &Item) -> Option<String> {
        self.purged(item)
            .then(|| format!("a {} is still stored", self.entity))
    }
}

/// Copies every item of the table `from` (the old design's, renamed) into
/// the context's table: one `PutItem` per item, only where its key is
/// free (an item new code wrote there is newer and stays). Items of
/// entities the design removed stay behind.
pub struct CopyTable {
    id: &'static str,
    from: &'static str,
    keys: &'static [&'static str],
    removed: &'static [Identity],
}

impl CopyTable {
    /// The job `id`, copying out of table `from`, whose key attributes
    /// (the same as the target's) are `keys`; `removed` tells the items of
    /// entities the design no longer has, which are not copied.
    pub const fn new(
        id: &'static str,
        from: &'static str,
        keys: &'static [&'static str],
        removed: &'static [Identity],
    ) -> Self {
        CopyTable {
            id,
            from,
            keys,
            removed,
        }
    }

    fn copied(&self, item: &Item) -> bool {
        !self.removed.iter().any(|i| i.matches(item))
    }

    fn key(&self, item: &Item) -> Item {
        self.keys
            .iter()
            .filter_map(|k| Some(((*k).to_owned(), item.get(*k)?.clone())))
            .collect()
    }
}

impl Job for CopyTable {
    fn id(&self) -> &str {
        self.id
    }

    fn description(&self) -> String {
        format!("copies every item of table `{}`", self.from)
    }

    fn writes(&self) -> bool {
        true
    }

    fn source(&self) -> Option<&str> {
        Some(self.from)
    }

    fn apply<'a>(
        &'a self,
        context: &'a Context,
        item: &'a Item,
    ) -> BoxFuture<'a, Result<Outcome, Error>> {
        async move {
            if !self.copied(item) {
                return Ok(Outcome::Skipped);
            }
            if !context.live {
                return Ok(Outcome::Updated);
            }
            let first = self.keys.first().copied().unwrap_or("pk");
            put_if_free(context, item.clone(), first).await
        }
        .boxed()
    }

    fn remaining(&self, _: &Item) -> Option<String> {
        None
    }

    fn check<'a>(
        &'a self,
        context: &'a Context,
        item: &'a Item,
    ) -> BoxFuture<'a, Result<Option<String>, Error>> {
        async move {
            if !self.copied(item) {
                return Ok(None);
            }
            missing_from_target(context, self.key(item)).await
        }
        .boxed()
    }
}

/// Copies every stored item of `E` out of the table `from` (the old
/// design's, renamed, with other key attributes) into the context's table,
/// as `E` writes it today: its new keys, index keys and all. One `PutItem`
/// per item, only where its new key is free (an item new code wrote there
/// is newer and stays).
pub struct CopyEntity<E> {
    id: &'static str,
    from: &'static str,
    old: Identity,
    old_tenant: Option<TenantAt>,
    entity: PhantomData<fn() -> E>,
}

impl<E> CopyEntity<E> {
    /// The job `id`, copying out of table `from` the items `old` (the old
    /// design's identity of `E`) tells, whose tenant is at `old_tenant`.
    pub const fn new(
        id: &'static str,
        from: &'static str,
        old: Identity,
        old_tenant: Option<TenantAt>,
    ) -> Self {
        CopyEntity {
            id,
            from,
            old,
            old_tenant,
            entity: PhantomData,
        }
    }
}

impl<E: Entity> Job for CopyEntity<E>
where
    E::Scope: ScopeOfItem,
{
    fn id(&self) -> &str {
        self.id
    }

    fn description(&self) -> String {
        format!(
            "copies every stored {} of table `{}` under its new keys",
            E::ENTITY_TYPE,
            self.from
        )
    }

    fn writes(&self) -> bool {
        true
    }

    fn source(&self) -> Option<&str> {
        Some(self.from)
    }

    fn apply<'a>(
        &'a self,
        context: &'a Context,
        item: &'a Item,
    ) -> BoxFuture<'a, Result<Outcome, Error>> {
        async move {
            if !self.old.matches(item) {
                return Ok(Outcome::Skipped);
            }
            let new_item = match rebuilt::<E>(item, self.old_tenant) {
                Ok(new_item) => new_item,
                Err(outcome) => return Ok(outcome),
            };
            if !context.live {
                return Ok(Outcome::Updated);
            }
            let first = E::IDENTITY.keys().first().map_or("pk", |(k, _)| *k);
            put_if_free(context, new_item, first).await
        }
        .boxed()
    }

    fn remaining(&self, _: &Item) -> Option<String> {
        None
    }

    fn check<'a>(
        &'a self,
        context: &'a Context,
        item: &'a Item,
    ) -> BoxFuture<'a, Result<Option<String>, Error>> {
        async move {
            if !self.old.matches(item) {
                return Ok(None);
            }
            let new_item = match rebuilt::<E>(item, self.old_tenant) {
                Ok(new_item) => new_item,
                Err(Outcome::Invalid(why)) => return Ok(Some(why)),
                Err(_) => return Ok(None),
            };
            missing_from_target(context, primary_key(E::IDENTITY.keys(), &new_item)).await
        }
        .boxed()
    }
}

/// What a copy's `verify` counts: why the item at `key` is not in the
/// context's table (read consistently), or `None` when it is.
async fn missing_from_target(context: &Context, key: Item) -> Result<Option<String>, Error> {
    let found = read(context, key).await?;
    Ok(found
        .is_none()
        .then(|| format!("not in table `{}`", context.table)))
}

/// `PutItem` of `item` into the context's table only where no item has its
/// key (`first`: its first key attribute). An item there already is this
/// very item (an attempt whose answer was lost: `AlreadyDone`) or one new
/// code wrote since, which wins (`ChangedConcurrently`).
async fn put_if_free(context: &Context, item: Item, first: &str) -> Result<Outcome, Error> {
    let result = context
        .client
        .put_item()
        .table_name(&context.table)
        .set_item(Some(item.clone()))
        .condition_expression("attribute_not_exists(#k)")
        .expression_attribute_names("#k", first)
        .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
        .send()
        .await;
    match result {
        Ok(_) => Ok(Outcome::Updated),
        Err(crate::sdk::error::SdkError::ServiceError(service)) => match service.err() {
            crate::sdk::operation::put_item::PutItemError::ConditionalCheckFailedException(c) => {
                Ok(if c.item.as_ref() == Some(&item) {
                    Outcome::AlreadyDone
                } else {
                    Outcome::ChangedConcurrently
                })
            }
            _ => Err(Error::from(crate::sdk::error::SdkError::ServiceError(
                service,
            ))),
        },
        Err(e) => Err(Error::from(e)),
    }
}
