//! GetItem: reads by key, whole or projected.

use super::*;

/// Decodes an item read by key, checking its entity type and TTL.
pub fn decode_one<E: Entity>(item: Item, table: &TableInfo<'_>) -> Result<Option<E>, Error> {
    if let Some(ttl) = table.ttl_attribute {
        let now = crate::DateTime::from(std::time::SystemTime::now());
        if crate::codec::is_expired(&item, ttl, now) {
            return Ok(None);
        }
    }
    E::IDENTITY.check(&item, E::ENTITY_TYPE, E::ENTITY_TYPE)?;
    Ok(Some(E::from_item(&item)?))
}

/// GetItem, skipping expired items. An item with another key than the one
/// asked for is refused ([`Error::ForeignItem`]).
pub async fn get<E: Entity>(
    client: &Client,
    table: &TableInfo<'_>,
    key: Item,
    consistent_read: bool,
) -> Result<Option<E>, Error> {
    get_as("", client, table, key, consistent_read).await
}

/// [`get`] as access pattern `pattern`'s (named in the call's span).
pub async fn get_as<E: Entity>(
    pattern: &str,
    client: &Client,
    table: &TableInfo<'_>,
    key: Item,
    consistent_read: bool,
) -> Result<Option<E>, Error> {
    let call = Call::item("get", pattern, E::ENTITY_TYPE, table.name);
    crate::trace::within(&call, async {
        let output = client
            .get_item()
            .table_name(table.name)
            .set_key(Some(key.clone()))
            .consistent_read(consistent_read)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await?;
        call.capacity(crate::trace::units(output.consumed_capacity()));
        match output.item {
            Some(item) if !item.is_empty() => {
                // Defence in depth: the item must have the key asked for (the
                // tenant is part of it), whatever returned it.
                crate::isolation::check_requested(&item, std::slice::from_ref(&key), "get")?;
                decode_one(item, table)
            }
            _ => Ok(None),
        }
    })
    .await
}

/// GetItem of the attributes `projection` names (every one when empty),
/// read as the partial type `P`, skipping expired items; an item with
/// another key than the one asked for is refused ([`Error::ForeignItem`]).
/// The call's span names access pattern `pattern` (none when empty).
pub async fn get_partial<P: crate::Partial>(
    pattern: &str,
    client: &Client,
    table: &TableInfo<'_>,
    key: Item,
    consistent_read: bool,
    projection: &[&str],
) -> Result<Option<P>, Error> {
    let call = Call::item("get", pattern, <P::Of as Entity>::ENTITY_TYPE, table.name);
    crate::trace::within(&call, async {
        let names = projection_names(projection).collect::<std::collections::HashMap<_, _>>();
        let output = client
            .get_item()
            .table_name(table.name)
            .set_key(Some(key.clone()))
            .consistent_read(consistent_read)
            .set_projection_expression(projection_expression(projection))
            .set_expression_attribute_names((!names.is_empty()).then_some(names))
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await?;
        call.capacity(crate::trace::units(output.consumed_capacity()));
        let Some(item) = output.item.filter(|item| !item.is_empty()) else {
            return Ok(None);
        };
        crate::isolation::check_requested(&item, std::slice::from_ref(&key), "get")?;
        if let Some(ttl) = table.ttl_attribute {
            let now = crate::DateTime::from(std::time::SystemTime::now());
            if crate::codec::is_expired(&item, ttl, now) {
                return Ok(None);
            }
        }
        let of = <P::Of as Entity>::IDENTITY;
        let entity = <P::Of as Entity>::ENTITY_TYPE;
        of.check(&item, entity, entity)?;
        Ok(Some(P::from_item(&item)?))
    })
    .await
}
