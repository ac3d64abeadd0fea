//! Single-item operations shared by every generated entity.

use crate::entity::Entity;
use crate::error::Error;
use crate::sdk::types::ReturnConsumedCapacity;
use crate::sdk::types::{
    AttributeValue, ConditionCheck, Delete, DeleteRequest, Put, PutRequest,
    ReturnValuesOnConditionCheckFailure, TransactWriteItem, Update as SdkUpdate, WriteRequest,
};
use crate::sdk::Client;
use crate::trace::Call;
use crate::Item;

mod read;
mod transact;
mod update;
mod update_write;
mod write;

pub use read::*;
pub use transact::*;
pub use update::*;
pub use update_write::*;
pub use write::*;

/// Where items live: the table and its fixed attribute names.
#[derive(Debug, Clone, Copy)]
pub struct TableInfo<'a> {
    /// Table name.
    pub name: &'a str,
    /// Partition key attribute.
    pub partition_key: &'static str,
    /// TTL attribute, if the table has one.
    pub ttl_attribute: Option<&'static str>,
}

/// A fresh client request token: 32 random hexadecimal digits.
pub fn request_token() -> String {
    format!("{:016x}{:016x}", fastrand::u64(..), fastrand::u64(..))
}

/// The placeholders of a projection's attributes: `#a0`, `#a1`, ….
pub(crate) fn projection_names<'p>(
    projection: &'p [&'p str],
) -> impl Iterator<Item = (String, String)> + 'p {
    projection
        .iter()
        .enumerate()
        .map(|(i, name)| (format!("#a{i}"), (*name).to_owned()))
}

/// `#a0, #a1, …` for a projection's attributes; `None` when empty.
pub(crate) fn projection_expression(projection: &[&str]) -> Option<String> {
    if projection.is_empty() {
        return None;
    }
    let placeholders: Vec<String> = (0..projection.len()).map(|i| format!("#a{i}")).collect();
    Some(placeholders.join(", "))
}

/// Expression attribute names as the SDK takes them.
pub(crate) fn names(pairs: &[(&str, &str)]) -> std::collections::HashMap<String, String> {
    pairs
        .iter()
        .map(|&(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

/// A table and the client that reaches it: the typed single-item
/// operations a generated repository's entity methods go through, and the
/// way to read and write a crate's own `#[derive(Entity)]` types.
#[derive(Debug, Clone, Copy)]
pub struct Table<'a> {
    /// The client.
    pub client: &'a Client,
    /// The table's name and fixed attribute names.
    pub info: TableInfo<'a>,
}

impl Table<'_> {
    /// Reads the item at `key` (GetItem, eventually consistent).
    pub async fn get<K: crate::EntityKey>(
        &self,
        key: &K,
        scope: &<K::Entity as Entity>::Scope,
    ) -> Result<Option<K::Entity>, Error> {
        get(self.client, &self.info, key.to_key_item(scope)?, false).await
    }

    /// Reads the attributes `projection` names of the item at `key`, as
    /// the partial type `P` (GetItem with a projection).
    pub async fn get_partial<K: crate::EntityKey, P: crate::Partial<Of = K::Entity>>(
        &self,
        key: &K,
        scope: &<K::Entity as Entity>::Scope,
        consistent_read: bool,
        projection: &[&str],
    ) -> Result<Option<P>, Error> {
        let key = key.to_key_item(scope)?;
        get_partial(
            "",
            self.client,
            &self.info,
            key,
            consistent_read,
            projection,
        )
        .await
    }

    /// Reads the item at `key` with a strongly consistent read (GetItem).
    pub async fn get_consistent<K: crate::EntityKey>(
        &self,
        key: &K,
        scope: &<K::Entity as Entity>::Scope,
    ) -> Result<Option<K::Entity>, Error> {
        get(self.client, &self.info, key.to_key_item(scope)?, true).await
    }

    /// Reads, strongly consistent, the stored item that has `entity`'s
    /// primary key in `scope`: for an entity type of the crate's own
    /// (`#[derive(Entity)]`), which has no key type of its own.
    pub async fn get_item_of<E: Entity>(
        &self,
        entity: &E,
        scope: &E::Scope,
    ) -> Result<Option<E>, Error> {
        get(self.client, &self.info, entity.primary_key(scope)?, true).await
    }

    /// Writes `entity`, replacing an item with its key (for a versioned
    /// entity, only the version before it) (PutItem).
    pub async fn put<E: Entity>(&self, entity: &E, scope: &E::Scope) -> Result<(), Error> {
        let item = entity.to_item(scope)?;
        put(
            self.client,
            &self.info,
            item,
            false,
            E::VERSION_ATTRIBUTE,
            E::ENTITY_TYPE,
        )
        .await
    }

    /// Writes `entity` when `condition` holds on the stored item:
    /// (PutItem with a condition).
    pub async fn put_when<E: Entity>(
        &self,
        entity: &E,
        scope: &E::Scope,
        condition: &crate::Condition,
    ) -> Result<(), Error> {
        let item = entity.to_item(scope)?;
        let (version, name) = (E::VERSION_ATTRIBUTE, E::ENTITY_TYPE);
        put_when(self.client, &self.info, item, version, name, condition).await
    }

    /// Writes `entity` and returns the item it replaced (PutItem).
    pub async fn replace<E: Entity>(
        &self,
        entity: &E,
        scope: &E::Scope,
    ) -> Result<Option<E>, Error> {
        let item = entity.to_item(scope)?;
        let (version, name) = (E::VERSION_ATTRIBUTE, E::ENTITY_TYPE);
        match replace(self.client, &self.info, item, version, name).await? {
            Some(old) => decode_one(old, &self.info),
            None => Ok(None),
        }
    }

    /// Writes `entity` when no item has its key (PutItem), else fails with
    /// `Error::ConditionFailed`.
    pub async fn create<E: Entity>(&self, entity: &E, scope: &E::Scope) -> Result<(), Error> {
        let item = entity.to_item(scope)?;
        put(
            self.client,
            &self.info,
            item,
            true,
            E::VERSION_ATTRIBUTE,
            E::ENTITY_TYPE,
        )
        .await
    }

    /// Applies `changes` to the item at `key` (UpdateItem) and returns the
    /// item as the update left it. The update is applied even when that
    /// item does not decode ([`Error::Decode`]).
    pub async fn update<K: crate::EntityKey>(
        &self,
        key: &K,
        scope: &<K::Entity as Entity>::Scope,
        changes: Update,
    ) -> Result<K::Entity, Error> {
        let key = key.to_key_item(scope)?;
        let item = update(
            self.client,
            &self.info,
            key,
            changes,
            K::Entity::ENTITY_TYPE,
        )
        .await?;
        Ok(K::Entity::from_item(&item)?)
    }

    /// Deletes the item at `key` (DeleteItem) and returns it as it was
    /// (`None` when there was none). The item is deleted even when it does
    /// not decode ([`Error::Decode`]).
    pub async fn delete<K: crate::EntityKey>(
        &self,
        key: &K,
        scope: &<K::Entity as Entity>::Scope,
    ) -> Result<Option<K::Entity>, Error> {
        let key = key.to_key_item(scope)?;
        match delete(self.client, &self.info, key, K::Entity::ENTITY_TYPE, None).await? {
            Some(item) => Ok(Some(K::Entity::from_item(&item)?)),
            None => Ok(None),
        }
    }

    /// Deletes the item at `key` when `condition` holds on it (DeleteItem).
    pub async fn delete_if<K: crate::EntityKey>(
        &self,
        key: &K,
        scope: &<K::Entity as Entity>::Scope,
        condition: &crate::Condition,
    ) -> Result<Option<K::Entity>, Error> {
        let key = key.to_key_item(scope)?;
        let entity = K::Entity::ENTITY_TYPE;
        match delete(self.client, &self.info, key, entity, Some(condition)).await? {
            Some(item) => Ok(Some(K::Entity::from_item(&item)?)),
            None => Ok(None),
        }
    }
}

/// The expression attribute values of one partition of a query.
pub fn values<const N: usize>(pairs: [(&str, AttributeValue); N]) -> Item {
    pairs
        .into_iter()
        .map(|(name, value)| (name.to_owned(), value))
        .collect()
}
