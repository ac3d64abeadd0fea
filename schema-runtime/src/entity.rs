//! The `Entity` trait and the item-reading helpers generated code calls.

use crate::codec::Attr;
use crate::error::{DecodeError, DecodeProblem, ValueError};
use crate::identity::Identity;
use crate::reader::Fields;
use crate::sdk::types::AttributeValue;
use crate::Item;

/// An entity of a spec: how its items are keyed, written and read.
///
/// Implemented by generated code and by `#[derive(Entity)]`.
pub trait Entity: Sized {
    /// The entity's name, as the spec writes it (errors name it).
    const ENTITY_TYPE: &'static str;

    /// How an item of this entity is told from the items of others.
    const IDENTITY: Identity;

    /// The attribute holding the item's version, for an entity written with
    /// optimistic locking: a put applies only when the stored version is
    /// one below the item's.
    const VERSION_ATTRIBUTE: Option<&'static str> = None;

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

/// Decodes an item of a query that returns one entity: it must be of `E`
/// ([`Entity::IDENTITY`]; `context`, the access pattern, names the query in
/// errors).
pub fn decode_as<E: Entity>(item: &Item, context: &'static str) -> Decoded<E> {
    E::IDENTITY.check(item, E::ENTITY_TYPE, context)?;
    E::from_item(item).map(Some)
}

/// Decodes an item of a scan, which meets every entity's items: those of
/// `E` ([`Entity::IDENTITY`]), and `None` for the rest.
pub fn decode_if<E: Entity>(item: &Item) -> Decoded<E> {
    if !E::IDENTITY.matches(item) {
        return Ok(None);
    }
    E::from_item(item).map(Some)
}

/// [`decode_as`] for a query that reads one entity in part: the item must
/// be of `P::Of`.
pub fn decode_partial_as<P: Partial>(item: &Item, context: &'static str) -> Decoded<P> {
    let of = <P::Of as Entity>::IDENTITY;
    of.check(item, <P::Of as Entity>::ENTITY_TYPE, context)?;
    P::from_item(item).map(Some)
}
