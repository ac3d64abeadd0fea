//! The `Entity` trait and the item-reading helpers generated code calls.

use crate::codec::Attr;
use crate::error::{DecodeError, DecodeProblem, ValueError};
use crate::identity::{check_keys, Identity, KeyShape};
use crate::reader::Fields;
use crate::sdk::types::AttributeValue;
use crate::Item;

/// The shapes of an entity's keys on each index it writes: `(index,
/// [(key attribute, shape)])`.
pub type IndexKeys = &'static [(&'static str, &'static [(&'static str, KeyShape)])];

/// An entity of a spec: how its items are keyed, written and read.
///
/// Implemented by generated code and by `#[derive(Entity)]`.
pub trait Entity: Sized {
    /// The entity's name, as the spec writes it (errors name it).
    const ENTITY_TYPE: &'static str;

    /// How an item of this entity is told from the items of others.
    const IDENTITY: Identity;

    /// The shapes of the entity's keys on each index it writes, by index:
    /// an item read through an index is of the entity only when its index
    /// keys have them too.
    const INDEX_KEYS: IndexKeys = &[];

    /// The attribute holding the item's version, for an entity written with
    /// optimistic locking: a put applies only when the stored version is
    /// one below the item's.
    const VERSION_ATTRIBUTE: Option<&'static str> = None;

    /// The marks of the aggregate recounts pending for this entity's
    /// items, as `(attribute, mark)`: every write of an item stores them
    /// (see [`Recount`](crate::aggregate::Recount)).
    const COUNTED: &'static [(&'static str, &'static str)] = &[];

    /// What keys are built from besides the entity's own attributes: the
    /// spec's `TenantId` for tenant-scoped entities, `()` otherwise.
    type Scope;

    /// The primary key attributes of this entity's item.
    fn primary_key(&self, scope: &Self::Scope) -> Result<Item, ValueError>;

    /// The whole item: attributes, entity type, primary key and the keys of
    /// every index whose placeholders are all present.
    fn to_item(&self, scope: &Self::Scope) -> Result<Item, ValueError>;

    /// Reads an item back; errors name the attribute at fault.
    fn from_item(item: &Item) -> Result<Self, DecodeError>;
}

/// Some of an entity's attributes: what an access pattern reads when its
/// index does not project every attribute, or when it `select`s them.
///
/// Implemented by generated code (`TicketsByStatusItem`).
pub trait Partial: Sized {
    /// The entity it is part of: its items are told by its
    /// [`Entity::IDENTITY`].
    type Of: Entity;

    /// Reads the attributes from an item; errors name the attribute at
    /// fault.
    fn from_item(item: &Item) -> Result<Self, DecodeError>;
}

// The readers below are those of [`Fields`] (one rule of presence: absent
// or `NULL` is none), with the error unboxed.

/// Reads a required attribute.
pub fn required<T: Attr>(item: &Item, entity: &'static str, name: &str) -> Result<T, DecodeError> {
    Ok(Fields::new(item, entity).required(name)?)
}

/// Reads an optional attribute; absent and `NULL` both read as `None`.
pub fn optional<T: Attr>(
    item: &Item,
    entity: &'static str,
    name: &str,
) -> Result<Option<T>, DecodeError> {
    Ok(Fields::new(item, entity).optional(name)?)
}

/// Reads an attribute with a custom decoder (datetimes with a format).
pub fn required_with<T>(
    item: &Item,
    entity: &'static str,
    name: &str,
    decode: impl FnOnce(&AttributeValue) -> Result<T, DecodeProblem>,
) -> Result<T, DecodeError> {
    Ok(Fields::new(item, entity).required_with(name, decode)?)
}

/// Reads an optional attribute with a custom decoder.
pub fn optional_with<T>(
    item: &Item,
    entity: &'static str,
    name: &str,
    decode: impl FnOnce(&AttributeValue) -> Result<T, DecodeProblem>,
) -> Result<Option<T>, DecodeError> {
    Ok(Fields::new(item, entity).optional_with(name, decode)?)
}

/// The entity type stored in `attribute`, for collection decoding.
pub fn entity_type<'a>(
    item: &'a Item,
    attribute: &str,
    context: &'static str,
) -> Result<&'a str, DecodeError> {
    match item.get(attribute) {
        Some(AttributeValue::S(s)) => Ok(s),
        Some(other) => Err(DecodeError::new(
            context,
            attribute,
            DecodeProblem::WrongType {
                expected: "S",
                found: crate::codec::type_name(other),
            },
        )),
        None => Err(DecodeError::new(context, attribute, DecodeProblem::Missing)),
    }
}

/// What a query's decoder gives for one item: the item, `None` to skip it,
/// or the error naming the attribute at fault.
pub type Decoded<T> = Result<Option<T>, DecodeError>;

/// Checks that `item`, which says it is of `E`, has `E`'s keys: its
/// primary key, and its keys on `index` when it was read through one.
fn check_claim<E: Entity>(
    item: &Item,
    context: &'static str,
    index: Option<&'static str>,
) -> Result<(), DecodeError> {
    check_keys(E::IDENTITY.keys(), item, E::ENTITY_TYPE, context)?;
    let on_index = index.and_then(|i| E::INDEX_KEYS.iter().find(|(name, _)| *name == i));
    match on_index {
        Some((_, keys)) => check_keys(keys, item, E::ENTITY_TYPE, context),
        None => Ok(()),
    }
}

/// Decodes an item of a query that returns one entity, read from the table
/// or `index`: it must be of `E` ([`Entity::IDENTITY`], with `E`'s keys;
/// `context`, the access pattern, names the query in errors).
pub fn decode_as<E: Entity>(
    item: &Item,
    context: &'static str,
    index: Option<&'static str>,
) -> Decoded<E> {
    E::IDENTITY.check(item, E::ENTITY_TYPE, context)?;
    decode_claimed(item, context, index)
}

/// Decodes an item that says it is of `E` (its entity-type attribute named
/// `E`, in a query returning several entities): refused as a forgery
/// unless its keys are `E`'s.
pub fn decode_claimed<E: Entity>(
    item: &Item,
    context: &'static str,
    index: Option<&'static str>,
) -> Decoded<E> {
    claimed(item, context, index).map(Some)
}

/// [`decode_claimed`], the item itself.
pub(crate) fn claimed<E: Entity>(
    item: &Item,
    context: &'static str,
    index: Option<&'static str>,
) -> Result<E, DecodeError> {
    check_claim::<E>(item, context, index)?;
    E::from_item(item)
}

/// [`decode_claimed`] for an entity read in part.
pub fn decode_partial_claimed<P: Partial>(
    item: &Item,
    context: &'static str,
    index: Option<&'static str>,
) -> Decoded<P> {
    check_claim::<P::Of>(item, context, index)?;
    P::from_item(item).map(Some)
}

/// Decodes an item of a scan of the table or `index`, which meets every
/// entity's items: those of `E` ([`Entity::IDENTITY`]), `None` for the
/// rest, and an error for an item that says it is of `E` without `E`'s
/// keys (a forgery a scan job must see, not skip).
pub fn decode_if<E: Entity>(item: &Item, index: Option<&'static str>) -> Decoded<E> {
    if !E::IDENTITY.claims(item) {
        return Ok(None);
    }
    decode_claimed(item, E::ENTITY_TYPE, index)
}

/// [`decode_as`] for a query that reads one entity in part: the item must
/// be of `P::Of`.
pub fn decode_partial_as<P: Partial>(
    item: &Item,
    context: &'static str,
    index: Option<&'static str>,
) -> Decoded<P> {
    let of = <P::Of as Entity>::IDENTITY;
    of.check(item, <P::Of as Entity>::ENTITY_TYPE, context)?;
    decode_partial_claimed(item, context, index)
}
