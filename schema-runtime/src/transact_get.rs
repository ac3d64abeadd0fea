//! TransactGetItems: a consistent snapshot of up to 100 items, typed.

use std::marker::PhantomData;

use crate::entity::Entity;
use crate::error::{Error, ValueError};
use crate::ops::TableInfo;
use crate::sdk::error::SdkError;
use crate::sdk::operation::transact_get_items::TransactGetItemsError;
use crate::sdk::types::{Get, TransactGetItem};
use crate::sdk::Client;
use crate::Item;

/// TransactGetItems' limit.
pub const MAX_TRANSACT_GET: usize = 100;

/// The key of an entity's item; generated for every `…Key` type.
pub trait EntityKey {
    /// The entity whose key this is.
    type Entity: Entity;

    /// The key attributes.
    fn to_key_item(&self, scope: &<Self::Entity as Entity>::Scope) -> Result<Item, ValueError>;
}

/// Where one item of a [`TransactGet`] will be in its result.
#[derive(Debug)]
pub struct Slot<E> {
    index: usize,
    entity: PhantomData<fn() -> E>,
}

impl<E> Clone for Slot<E> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E> Copy for Slot<E> {}

/// Reads items of any entities of one scope (a tenant, or the table's
/// global entities) in one TransactGetItems call: all as of one moment.
#[derive(Debug)]
pub struct TransactGet<'a, S> {
    client: &'a Client,
    table: TableInfo<'a>,
    scope: &'a S,
    keys: Vec<Item>,
    error: Option<Error>,
    pattern: &'static str,
}

impl<'a, S> TransactGet<'a, S> {
    /// A read of `table` for `scope`; generated handles call this.
    pub fn new(client: &'a Client, table: TableInfo<'a>, scope: &'a S) -> Self {
        Self::for_pattern(client, table, scope, "transact_get")
    }

    /// The read of a declared access pattern, named `pattern` in its
    /// errors and traces.
    pub fn for_pattern(
        client: &'a Client,
        table: TableInfo<'a>,
        scope: &'a S,
        pattern: &'static str,
    ) -> Self {
        TransactGet {
            client,
            table,
            scope,
            keys: Vec::new(),
            error: None,
            pattern,
        }
    }

    /// Adds the item at `key`; its value is in the result at the slot returned.
    pub fn get<K>(&mut self, key: &K) -> Slot<K::Entity>
    where
        K: EntityKey,
        K::Entity: Entity<Scope = S>,
    {
        let index = self.keys.len();
        match key.to_key_item(self.scope) {
            Ok(item) => self.keys.push(item),
            Err(e) => {
                self.keys.push(Item::new());
                self.error.get_or_insert(Error::Value(e));
            }
        }
        Slot {
            index,
            entity: PhantomData,
        }
    }

    /// Items added so far.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether no item was added.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Reads every item at once. More than 100 items are refused before any
    /// request.
    pub async fn send(self) -> Result<TransactGetResult, Error> {
        if let Some(e) = self.error {
            return Err(e);
        }
        if self.keys.len() > MAX_TRANSACT_GET {
            return Err(Error::TooManyItems {
                pattern: self.pattern,
                items: self.keys.len(),
                max: MAX_TRANSACT_GET,
            });
        }
        if self.keys.is_empty() {
            return Ok(TransactGetResult {
                keys: Vec::new(),
                items: Vec::new(),
                ttl_attribute: self.table.ttl_attribute,
                pattern: self.pattern,
            });
        }
        let mut gets = Vec::with_capacity(self.keys.len());
        for key in &self.keys {
            let get = Get::builder()
                .table_name(self.table.name)
                .set_key(Some(key.clone()))
                .build()?;
            gets.push(TransactGetItem::builder().get(get).build());
        }
        let call = crate::trace::Call::transaction(self.pattern, "", self.table.name, gets.len());
        let request = self
            .client
            .transact_get_items()
            .set_transact_items(Some(gets))
            .return_consumed_capacity(crate::sdk::types::ReturnConsumedCapacity::Total)
            .send();
        let output = match crate::trace::within(&call, request).await {
            Ok(output) => {
                call.capacity(crate::trace::total_units(output.consumed_capacity()));
                output
            }
            Err(SdkError::ServiceError(e)) => {
                if let TransactGetItemsError::TransactionCanceledException(canceled) = e.err() {
                    return Err(Error::TransactionCanceled(
                        crate::batch::cancellation_reasons(canceled.cancellation_reasons()),
                    ));
                }
                return Err(Error::from(SdkError::ServiceError(e)));
            }
            Err(e) => return Err(Error::from(e)),
        };
        let items = output
            .responses
            .unwrap_or_default()
            .into_iter()
            .map(|r| r.item.filter(|i| !i.is_empty()))
            .collect();
        Ok(TransactGetResult {
            keys: self.keys,
            items,
            ttl_attribute: self.table.ttl_attribute,
            pattern: self.pattern,
        })
    }
}

/// What a [`TransactGet`] read, by slot.
#[derive(Debug)]
pub struct TransactGetResult {
    keys: Vec<Item>,
    items: Vec<Option<Item>>,
    ttl_attribute: Option<&'static str>,
    pattern: &'static str,
}

impl TransactGetResult {
    /// The item at `slot`: `None` when there is none (or its TTL has
    /// passed); an error when it does not decode, or is not the item asked
    /// for ([`Error::ForeignItem`]).
    pub fn get<E: Entity>(&self, slot: Slot<E>) -> Result<Option<E>, Error> {
        let Some(Some(item)) = self.items.get(slot.index) else {
            return Ok(None);
        };
        // Defence in depth: the item must have the key asked for (the
        // tenant is part of it), whatever returned it.
        if let Some(key) = self.keys.get(slot.index) {
            crate::isolation::check_requested(item, std::slice::from_ref(key), self.pattern)?;
        }
        if let Some(ttl) = self.ttl_attribute {
            let now = crate::DateTime::from(std::time::SystemTime::now());
            if crate::codec::is_expired(item, ttl, now) {
                return Ok(None);
            }
        }
        E::from_item(item).map(Some).map_err(Error::Decode)
    }
}
