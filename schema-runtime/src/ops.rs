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

/// A partial update: attributes to set and attributes to remove.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Update {
    /// Attributes set.
    pub set: Vec<(&'static str, AttributeValue)>,
    /// Attributes removed.
    pub remove: Vec<&'static str>,
    /// Numbers added to (counters; a missing attribute counts as 0), and
    /// elements added to sets (DynamoDB's `ADD`).
    pub add: Vec<(&'static str, AttributeValue)>,
    /// Elements removed from sets (DynamoDB's `DELETE`; a set left empty
    /// is removed).
    pub delete: Vec<(&'static str, AttributeValue)>,
    /// Elements appended to lists (a missing list counts as empty).
    pub append: Vec<(&'static str, AttributeValue)>,
    /// Elements removed from lists, by index (`REMOVE list[i]`), each only
    /// when the element there is the one expected (a condition of the
    /// update: else `Error::ConditionNotMet` with the stored item).
    pub remove_at: Vec<(&'static str, usize, AttributeValue)>,
    /// Optimistic locking: the version attribute and the version the stored
    /// item must have for the update to apply.
    pub expect_version: Option<(&'static str, i64)>,
    /// Create the item when there is none (counters); otherwise the update
    /// requires the item to exist.
    pub upsert: bool,
    /// Attributes the stored item must hold with these values for the
    /// update to apply.
    pub expect: Vec<(&'static str, AttributeValue)>,
    /// The entity updated, named in errors.
    pub entity: &'static str,
    /// The entity-type attribute and the entity's value, written with the
    /// update (none when the table tells entities by their keys).
    pub marker: Option<(&'static str, &'static str)>,
    /// Bounds the stored value (or a list's size) must be within for the
    /// update to keep the declared ones: checked by DynamoDB with the write,
    /// as `Error::ConditionFailed` when they do not hold.
    pub bounds: Vec<Bound>,
    /// Attributes set only when the item does not hold them yet (a
    /// `created` timestamp of an update that may create the item).
    pub set_if_absent: Vec<(&'static str, AttributeValue)>,
    /// Apply once: as a transaction with this client request token, which
    /// DynamoDB applies once however often it is sent within ten minutes.
    pub idempotency_token: Option<String>,
    /// The caller's condition on the stored item (`when`): the update
    /// applies only when it holds, else `Error::ConditionNotMet` with the
    /// stored item.
    pub when: Option<crate::Condition>,
    /// Counters and lists whose changes are sent at least once (a plain
    /// UpdateItem) rather than exactly once (the spec's `at_least_once`).
    pub at_least_once: &'static [&'static str],
    /// Sent as a plain UpdateItem whatever it changes: the caller makes it
    /// exact itself (a stream counter's marks of the records it applied).
    pub plain: bool,
    /// Fields of maps set (`Some`) or removed (`None`) one by one, by the
    /// map's and the field's stored names (`SET #m.#f = :v`, `REMOVE
    /// #m.#f`): the map must be there (`attribute_exists`), else the update
    /// fails with `Error::ConditionFailed`.
    pub fields: Vec<(&'static str, &'static str, Option<AttributeValue>)>,
}

/// A bound on the stored value an update changes relative to itself (a
/// counter's `ADD`, a list's appends and removals): what it must be before
/// the update for the declared bounds to hold after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// A number in `min..=max`, or absent when `absent` is allowed.
    Value {
        /// The attribute.
        name: &'static str,
        /// Least value before the update.
        min: i64,
        /// Greatest value before the update.
        max: i64,
        /// Whether the attribute may be absent.
        absent: bool,
    },
    /// A list of `min..=max` elements, or absent (an empty list) when
    /// `absent` is allowed.
    Size {
        /// The attribute.
        name: &'static str,
        /// Least size before the update.
        min: i64,
        /// Greatest size before the update.
        max: i64,
        /// Whether the attribute may be absent.
        absent: bool,
    },
}

/// A fresh client request token: 32 random hexadecimal digits.
pub fn request_token() -> String {
    format!("{:016x}{:016x}", fastrand::u64(..), fastrand::u64(..))
}

/// What every generated update carries beside its changes: whether it may
/// create the item, its idempotency token, the caller's condition on the
/// stored item and, for an entity with timestamps, the moment they were
/// fixed. Its builder methods are [`update_methods!`](crate::__update_methods).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UpdateOptions {
    /// Create the item when there is none (`or_create()`).
    pub or_create: bool,
    /// Apply once, with this client request token (`idempotent()`).
    pub idempotency_token: Option<String>,
    /// The caller's condition on the stored item (`when`).
    pub when: Option<crate::Condition>,
    /// When the update's timestamps were fixed: with its idempotency token,
    /// so that sending it again writes the same values.
    pub stamped_at: Option<crate::DateTime>,
}

impl UpdateOptions {
    /// Sets the idempotency token; with `stamp`, the update's timestamps
    /// are fixed now too.
    pub fn set_token(&mut self, token: String, stamp: bool) {
        self.idempotency_token = Some(token);
        if stamp {
            self.stamped_at = Some(crate::DateTime::from(std::time::SystemTime::now()));
        }
    }

    /// Adds a condition: every condition given must hold.
    pub fn and_when(&mut self, condition: crate::Condition) {
        self.when = Some(match self.when.take() {
            Some(first) => first.and(condition),
            None => condition,
        });
    }

    /// The moment the update's timestamps take: the one fixed with its
    /// token, else now.
    pub fn now(&self) -> crate::DateTime {
        self.stamped_at
            .unwrap_or_else(|| crate::DateTime::from(std::time::SystemTime::now()))
    }

    /// Hands the token and the condition to `update`.
    pub fn apply_to(&self, update: &mut Update) {
        update.idempotency_token.clone_from(&self.idempotency_token);
        update.when.clone_from(&self.when);
    }
}

/// The builder methods every generated update has (`or_create`,
/// `idempotent`, `idempotency_token`, `when`), on its
/// `__options: UpdateOptions` field; `true` when the entity has timestamps
/// (fixed with the idempotency token). Written once here rather than in
/// every generated update.
#[doc(hidden)]
#[macro_export]
macro_rules! __update_methods {
    ($stamp:literal) => {
        /// Create the item when there is none, from its key and what this
        /// update sets (counters start at 0); without it the update fails
        /// with `Error::ConditionFailed` when there is no item. With a
        /// version attribute, as a versioned put: the item is created
        /// when there is none, and otherwise updated only from the
        /// version before the one set (`Error::VersionConflict`).
        pub fn or_create(mut self) -> Self {
            self.__options.or_create = true;
            self
        }

        /// Apply this update once, even when its answer is lost and the
        /// request is sent again (a counter counts once): it runs as a
        /// transaction with a client request token, fixed now, so this
        /// value sent again within ten minutes is applied once. The item
        /// returned is read right after and may show later writes.
        pub fn idempotent(self) -> Self {
            self.idempotency_token($crate::ops::request_token())
        }

        /// [`Self::idempotent`] with the caller's own token (at most 36
        /// characters), to send the same update again after an error.
        pub fn idempotency_token(mut self, token: impl Into<String>) -> Self {
            self.__options.set_token(token.into(), $stamp);
            self
        }

        /// Apply the update only when `condition` holds on the stored
        /// item (`Ticket::STATUS.eq(Status::Open)`); else it fails with
        /// `Error::ConditionNotMet`, which carries the stored item. Called
        /// again, both conditions must hold.
        pub fn when(mut self, condition: $crate::Condition) -> Self {
            self.__options.and_when(condition);
            self
        }
    };
}

impl Update {
    /// An update of an item of `E`; with `upsert`, it may create it.
    pub fn of<E: Entity>(upsert: bool) -> Self {
        Update {
            entity: E::ENTITY_TYPE,
            marker: E::IDENTITY.marker(),
            upsert,
            // A pending recount counts the items every write marks.
            set: E::COUNTED
                .iter()
                .map(|(attribute, mark)| (*attribute, AttributeValue::S((*mark).to_owned())))
                .collect(),
            ..Update::default()
        }
    }

    /// Whether the update changes a value relative to what is stored (adds
    /// to a counter, appends to a list or removes from it by index) in a
    /// way sent twice would apply twice, for an attribute not declared
    /// `at_least_once`: it is then applied exactly once, as a transaction
    /// with a client request token.
    pub fn needs_once(&self) -> bool {
        if self.plain {
            return false;
        }
        let once = |name: &&'static str| !self.at_least_once.contains(name);
        self.add
            .iter()
            .any(|(name, v)| matches!(v, AttributeValue::N(_)) && once(name))
            || self.append.iter().any(|(name, _)| once(name))
            || self.remove_at.iter().any(|(name, _, _)| once(name))
    }

    /// Sets an attribute when a value was given.
    pub fn put<T: crate::Attr>(
        &mut self,
        name: &'static str,
        value: &Option<T>,
        how: crate::codec::Store,
    ) -> Result<(), crate::ValueError> {
        if let Some(value) = value {
            self.set.push((name, value.store(how, self.entity, name)?));
        }
        Ok(())
    }

    /// Sets an optional attribute given `Some(value)`, removes it given
    /// `Some(None)`.
    pub fn put_opt<T: crate::Attr>(
        &mut self,
        name: &'static str,
        value: &Option<Option<T>>,
        how: crate::codec::Store,
    ) -> Result<(), crate::ValueError> {
        match value {
            Some(Some(value)) => self.set.push((name, value.store(how, self.entity, name)?)),
            Some(None) => self.remove.push(name),
            None => {}
        }
        Ok(())
    }

    /// Sets the field `field` of the map `map` when a value was given
    /// (`Some(Some(v))`, or `Some(v)` for a required field) and removes it
    /// given `Some(None)`; `how` is the field's rule; a map also set as a
    /// whole by this update is an error.
    pub fn put_field<T: crate::Attr>(
        &mut self,
        (map, field): (&'static str, &'static str),
        value: Option<Option<&T>>,
        how: crate::codec::Store,
        also_set: bool,
    ) -> Result<(), crate::ValueError> {
        let Some(value) = value else { return Ok(()) };
        if also_set {
            return Err(crate::ValueError {
                context: self.entity,
                name: map,
                problem: format!("set the map or its field `{field}`, not both in one update"),
            });
        }
        let stored = value
            .map(|v| crate::codec::store_field(v, how, field, self.entity, map))
            .transpose()?;
        self.fields.push((map, field, stored));
        Ok(())
    }

    /// Sets an attribute to `value`.
    pub fn put_value<T: crate::Attr>(
        &mut self,
        name: &'static str,
        value: &T,
        how: crate::codec::Store,
    ) -> Result<(), crate::ValueError> {
        self.set.push((name, value.store(how, self.entity, name)?));
        Ok(())
    }

    /// Sets a key attribute to its encoded value.
    pub fn key(&mut self, name: &'static str, value: AttributeValue) {
        self.set.push((name, value));
    }

    /// Adds to a counter when a number was given; with the counter's
    /// declared range (`how`), the update applies only when the sum stays in
    /// it (a missing counter counts as 0), and an attribute also set by this
    /// update is an error.
    pub fn add_to(
        &mut self,
        name: &'static str,
        n: Option<i64>,
        also_set: bool,
        how: crate::codec::Store,
    ) -> Result<(), crate::ValueError> {
        let Some(n) = n else { return Ok(()) };
        self.only_change(name, also_set)?;
        self.add.push((name, AttributeValue::N(n.to_string())));
        if let crate::codec::Store::Integer { min, max } = how {
            if min != i64::MIN || max != i64::MAX {
                let (lo, hi) = (min.saturating_sub(n), max.saturating_sub(n));
                if lo > hi {
                    return Err(crate::ValueError {
                        context: self.entity,
                        name,
                        problem: format!("adding {n} leaves {min}..={max} whatever the value"),
                    });
                }
                self.bounds.push(Bound::Value {
                    name,
                    min: lo,
                    max: hi,
                    absent: (min..=max).contains(&n),
                });
            }
        }
        Ok(())
    }

    /// Adds elements to a set and removes others, when any were given;
    /// an attribute also set by this update is an error, as DynamoDB
    /// refuses two changes of one attribute.
    pub fn change_set<T: crate::codec::SetElement>(
        &mut self,
        name: &'static str,
        added: &std::collections::BTreeSet<T>,
        removed: &std::collections::BTreeSet<T>,
        also_set: bool,
    ) -> Result<(), crate::ValueError> {
        if added.is_empty() && removed.is_empty() {
            return Ok(());
        }
        self.only_change(name, also_set)?;
        if !added.is_empty() && !removed.is_empty() {
            return Err(crate::ValueError {
                context: self.entity,
                name,
                problem: "add to a set and remove from it in separate updates".to_owned(),
            });
        }
        if !added.is_empty() {
            self.add.push((name, T::to_set(added)));
        }
        if !removed.is_empty() {
            self.delete.push((name, T::to_set(removed)));
        }
        Ok(())
    }

    /// Appends elements to a list and removes others by index, each
    /// removal only when the element at its index is the one given, when
    /// any were given (see [`Update::change_set`]).
    pub fn change_list<T: crate::Attr>(
        &mut self,
        name: &'static str,
        appended: &[T],
        removed_at: &std::collections::BTreeMap<usize, T>,
        also_set: bool,
        how: crate::codec::Store,
    ) -> Result<(), crate::ValueError> {
        if appended.is_empty() && removed_at.is_empty() {
            return Ok(());
        }
        self.only_change(name, also_set)?;
        if !appended.is_empty() && !removed_at.is_empty() {
            return Err(crate::ValueError {
                context: self.entity,
                name,
                problem: "append to a list and remove from it in separate updates".to_owned(),
            });
        }
        if let crate::codec::Store::List { min, max, .. } = how {
            let (min, max) = (min as i64, max.map_or(i64::MAX, |m| m as i64));
            let (added, removed) = (appended.len() as i64, removed_at.len() as i64);
            if added > 0 && max != i64::MAX {
                self.bounds.push(Bound::Size {
                    name,
                    min: 0,
                    max: max - added,
                    absent: added <= max,
                });
            }
            if removed > 0 && min > 0 {
                self.bounds.push(Bound::Size {
                    name,
                    min: min.saturating_add(removed),
                    max: i64::MAX,
                    absent: false,
                });
            }
        }
        let items = match how {
            crate::codec::Store::List { items, .. } => {
                items.copied().unwrap_or(crate::codec::Store::Plain)
            }
            _ => crate::codec::Store::Plain,
        };
        if !appended.is_empty() {
            let mut elements = Vec::with_capacity(appended.len());
            for (i, e) in appended.iter().enumerate() {
                elements.push(
                    e.store(items, self.entity, name)
                        .map_err(|e| e.within(format_args!("appended element {i}")))?,
                );
            }
            self.append.push((name, AttributeValue::L(elements)));
        }
        // Highest index first: each removal leaves the lower ones in place.
        for (&i, expected) in removed_at.iter().rev() {
            let expected = expected
                .store(items, self.entity, name)
                .map_err(|e| e.within(format_args!("the element expected at {i}")))?;
            self.remove_at.push((name, i, expected));
        }
        Ok(())
    }

    fn only_change(&self, name: &'static str, also_set: bool) -> Result<(), crate::ValueError> {
        if also_set {
            return Err(crate::ValueError {
                context: self.entity,
                name,
                problem: "set the attribute or change its elements, not both in one update"
                    .to_owned(),
            });
        }
        Ok(())
    }
}

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
    let call = Call::item("get", E::ENTITY_TYPE, table.name);
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
pub async fn get_partial<P: crate::Partial>(
    client: &Client,
    table: &TableInfo<'_>,
    key: Item,
    consistent_read: bool,
    projection: &[&str],
) -> Result<Option<P>, Error> {
    let call = Call::item("get", <P::Of as Entity>::ENTITY_TYPE, table.name);
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

/// The condition of a put: none; the item must not exist (`create`); or,
/// for a versioned entity, the stored version must be one below the item's
/// (or there must be no item).
struct PutCondition {
    expression: &'static str,
    names: std::collections::HashMap<String, String>,
    values: Option<Item>,
    /// The stored version a versioned put expects.
    expected: Option<i64>,
}

fn put_condition(
    table: &TableInfo<'_>,
    item: &Item,
    create: bool,
    version: Option<&'static str>,
    entity: &'static str,
) -> Result<Option<PutCondition>, Error> {
    if create {
        return Ok(Some(PutCondition {
            expression: "attribute_not_exists(#pk)",
            names: names(&[("#pk", table.partition_key)]),
            values: None,
            expected: None,
        }));
    }
    let Some(attribute) = version else {
        return Ok(None);
    };
    let new = match item.get(attribute) {
        Some(AttributeValue::N(n)) => n.parse::<i64>().ok(),
        _ => None,
    };
    let Some(new) = new else {
        return Err(Error::Value(crate::ValueError {
            context: entity,
            name: attribute,
            problem: "the version attribute must be an integer".to_owned(),
        }));
    };
    let expected = new.checked_sub(1).ok_or_else(|| {
        Error::Value(crate::ValueError {
            context: entity,
            name: attribute,
            problem: "the version cannot go below its minimum".to_owned(),
        })
    })?;
    let mut values = Item::new();
    values.insert(":prev".to_owned(), AttributeValue::N(expected.to_string()));
    Ok(Some(PutCondition {
        expression: "attribute_not_exists(#pk) OR #ver = :prev",
        names: names(&[("#pk", table.partition_key), ("#ver", attribute)]),
        values: Some(values),
        expected: Some(expected),
    }))
}

/// PutItem; with `create`, fails with [`Error::ConditionFailed`] when the
/// item exists. For an entity with a `version` attribute, the item carries
/// its new version and the put applies only when the stored version is one
/// below it (or there is no item); otherwise [`Error::VersionConflict`].
pub async fn put(
    client: &Client,
    table: &TableInfo<'_>,
    item: Item,
    create: bool,
    version: Option<&'static str>,
    entity: &'static str,
) -> Result<(), Error> {
    let how = if create {
        PutMode::Create
    } else {
        PutMode::Put
    };
    put_with(client, table, item, how, version, entity).await?;
    Ok(())
}

/// [`put`] (not a create) applied only when `when` holds on the stored
/// item (and, for a versioned entity, the version is the one before);
/// otherwise [`Error::ConditionNotMet`] with the stored item (`None` when
/// there is none).
pub async fn put_when(
    client: &Client,
    table: &TableInfo<'_>,
    item: Item,
    version: Option<&'static str>,
    entity: &'static str,
    when: &crate::Condition,
) -> Result<(), Error> {
    put_with(client, table, item, PutMode::When(when), version, entity).await?;
    Ok(())
}

/// [`put`] that returns the item it replaced (`ALL_OLD`; `None` when there
/// was none). When the SDK sent the request again and the item replaced is
/// the very item this put writes, what the first attempt replaced cannot
/// be known: [`Error::AlreadyAsWritten`] (the item is stored as asked).
pub async fn replace(
    client: &Client,
    table: &TableInfo<'_>,
    item: Item,
    version: Option<&'static str>,
    entity: &'static str,
) -> Result<Option<Item>, Error> {
    put_with(client, table, item, PutMode::Replace, version, entity).await
}

/// What a [`put_with`] asks of the stored item, and what it returns.
#[derive(Clone, Copy)]
enum PutMode<'c> {
    /// Replace any item (a versioned one only at the version before).
    Put,
    /// Only where there is no item.
    Create,
    /// Only where the condition holds on the stored item.
    When(&'c crate::Condition),
    /// As `Put`, returning the item replaced.
    Replace,
}

impl PutMode<'_> {
    fn operation(self) -> &'static str {
        match self {
            PutMode::Create => "create",
            PutMode::Replace => "replace",
            PutMode::Put | PutMode::When(_) => "put",
        }
    }
}

async fn put_with(
    client: &Client,
    table: &TableInfo<'_>,
    item: Item,
    how: PutMode<'_>,
    version: Option<&'static str>,
    entity: &'static str,
) -> Result<Option<Item>, Error> {
    let call = Call::item(how.operation(), entity, table.name);
    crate::trace::within(&call, async {
        let create = matches!(how, PutMode::Create);
        let when = match how {
            PutMode::When(when) => Some(when),
            _ => None,
        };
        let (condition, expected) = put_parts(table, &item, create, version, entity, when)?;
        let mut request = client
            .put_item()
            .table_name(table.name)
            .set_item(Some(item))
            .set_condition_expression(condition.expression)
            .set_expression_attribute_names(condition.names)
            .set_expression_attribute_values(condition.values);
        let replace = matches!(how, PutMode::Replace);
        if replace {
            request = request.return_values(crate::sdk::types::ReturnValue::AllOld);
        }
        let operation = how.operation();
        // The item written, to recognise it when a conditional put (or one
        // that returns what it replaced) is retried.
        let conditional = request.get_condition_expression().is_some();
        let written = (conditional || replace)
            .then(|| request.get_item().clone())
            .flatten();
        let attempts = Attempts::default();
        let request = request.return_consumed_capacity(ReturnConsumedCapacity::Total);
        // Attempts are counted only where a retry can be recognised (the
        // interceptor costs a per-request configuration layer).
        let result = if written.is_some() {
            request
                .return_values_on_condition_check_failure(
                    ReturnValuesOnConditionCheckFailure::AllOld,
                )
                .customize()
                .interceptor(attempts.clone())
                .send()
                .await
        } else {
            request.send().await
        };
        match result {
            Ok(output) => {
                call.capacity(crate::trace::units(output.consumed_capacity()));
                let old = output.attributes.filter(|old| !old.is_empty());
                if let (Some(old), Some(written), true) = (&old, &written, attempts.retried()) {
                    if same_item(old, written) {
                        return Err(Error::AlreadyAsWritten { entity, operation });
                    }
                }
                Ok(old)
            }
            Err(e) => {
                // The SDK sent the request again and the condition failed on
                // the very item this put writes: the earlier attempt wrote it
                // (its answer lost), or another writer wrote the same — not a
                // conflict, and not known to be this call's. (On a first
                // attempt, an identical item is another writer's: a conflict.)
                let stored = match e.as_service_error() {
                    Some(
                        crate::sdk::operation::put_item::PutItemError::ConditionalCheckFailedException(
                            c,
                        ),
                    ) => c.item(),
                    _ => None,
                };
                if let (Some(stored), Some(written), true) =
                    (stored, written.as_ref(), attempts.retried())
                {
                    if same_item(stored, written) {
                        return Err(Error::AlreadyAsWritten { entity, operation });
                    }
                }
                let failed = e
                    .as_service_error()
                    .is_some_and(|s| s.is_conditional_check_failed_exception());
                if when.is_some() && failed {
                    return Err(Error::ConditionNotMet {
                        entity,
                        operation,
                        stored: stored.cloned().map(Box::new),
                    });
                }
                Err(versioned(
                    crate::write_error(e, entity, operation),
                    expected,
                ))
            }
        }
    })
    .await
}

/// Counts the attempts of one request (the SDK's retries included).
#[derive(Debug, Clone, Default)]
struct Attempts(std::sync::Arc<std::sync::atomic::AtomicU32>);

impl Attempts {
    /// Whether the request was sent more than once.
    fn retried(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Relaxed) > 1
    }
}

impl crate::sdk::config::Intercept for Attempts {
    fn name(&self) -> &'static str {
        "singletable attempt counter"
    }

    fn read_before_attempt(
        &self,
        _: &crate::sdk::config::interceptors::BeforeTransmitInterceptorContextRef<'_>,
        _: &crate::sdk::config::RuntimeComponents,
        _: &mut crate::sdk::config::ConfigBag,
    ) -> Result<(), crate::sdk::error::BoxError> {
        self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }
}

/// Whether two items are the same as DynamoDB stores them: sets compare
/// as sets (DynamoDB keeps no element order), numbers by value.
pub fn same_item(a: &Item, b: &Item) -> bool {
    a.len() == b.len()
        && a.iter()
            .all(|(name, value)| b.get(name).is_some_and(|other| same_value(value, other)))
}

fn same_value(a: &AttributeValue, b: &AttributeValue) -> bool {
    fn same_set<T: Ord + Clone>(a: &[T], b: &[T]) -> bool {
        let mut a = a.to_vec();
        let mut b = b.to_vec();
        a.sort();
        b.sort();
        a == b
    }
    fn same_number(a: &str, b: &str) -> bool {
        match (a.parse::<crate::Decimal>(), b.parse::<crate::Decimal>()) {
            (Ok(a), Ok(b)) => a == b,
            _ => a == b,
        }
    }
    match (a, b) {
        (AttributeValue::N(a), AttributeValue::N(b)) => same_number(a, b),
        (AttributeValue::Ss(a), AttributeValue::Ss(b)) => same_set(a, b),
        (AttributeValue::Ns(a), AttributeValue::Ns(b)) => {
            let parse = |v: &[String]| -> Option<Vec<crate::Decimal>> {
                v.iter().map(|n| n.parse().ok()).collect()
            };
            match (parse(a), parse(b)) {
                (Some(a), Some(b)) => same_set(&a, &b),
                _ => same_set(a, b),
            }
        }
        (AttributeValue::Bs(a), AttributeValue::Bs(b)) => {
            let bytes = |v: &[crate::Blob]| -> Vec<Vec<u8>> {
                v.iter().map(|b| b.as_ref().to_vec()).collect()
            };
            same_set(&bytes(a), &bytes(b))
        }
        (AttributeValue::L(a), AttributeValue::L(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_value(x, y))
        }
        (AttributeValue::M(a), AttributeValue::M(b)) => same_item(a, b),
        (a, b) => a == b,
    }
}

/// A failed condition of a versioned write is a version conflict.
fn versioned(error: Error, expected: Option<i64>) -> Error {
    match (error, expected) {
        (Error::ConditionFailed { entity, operation }, Some(expected)) => Error::VersionConflict {
            entity,
            operation,
            expected,
        },
        (error, _) => error,
    }
}

/// DeleteItem of an item of `entity`, when `condition` (if any) holds on
/// it; returns the item deleted, as it was (`None` when there was none).
///
/// When the SDK sent the request more than once and the last attempt found
/// nothing to delete, an earlier attempt may have deleted the item and lost
/// its answer: "there was none" would be false, and what was deleted cannot
/// be known. The item is absent, as the call asks:
/// [`Error::AlreadyAsWritten`]. A condition that does not hold is
/// [`Error::ConditionNotMet`] with the stored item.
pub async fn delete(
    client: &Client,
    table: &TableInfo<'_>,
    key: Item,
    entity: &'static str,
    condition: Option<&crate::Condition>,
) -> Result<Option<Item>, Error> {
    let call = Call::item("delete", entity, table.name);
    crate::trace::within(&call, async {
        let attempts = Attempts::default();
        let mut request = client
            .delete_item()
            .table_name(table.name)
            .set_key(Some(key))
            .return_values(crate::sdk::types::ReturnValue::AllOld);
        if let Some(condition) = condition {
            condition.check()?;
            let (mut names, mut values) = (std::collections::HashMap::new(), Item::new());
            let expression = condition.render(table.partition_key, &mut names, &mut values);
            request = request
                .condition_expression(expression)
                .set_expression_attribute_names(Some(names))
                .set_expression_attribute_values((!values.is_empty()).then_some(values))
                .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
        }
        let result = request
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .customize()
            .interceptor(attempts.clone())
            .send()
            .await;
        let output = match result {
            Ok(output) => {
                call.capacity(crate::trace::units(output.consumed_capacity()));
                output
            }
            Err(e) => {
                let stored = match e.as_service_error() {
                    Some(
                        crate::sdk::operation::delete_item::DeleteItemError::ConditionalCheckFailedException(c),
                    ) => Some(c.item().cloned()),
                    _ => None,
                };
                return Err(match stored {
                    // Sent again, and the item is gone: an earlier attempt may
                    // have deleted it (its condition held then).
                    Some(None) if attempts.retried() => Error::AlreadyAsWritten {
                        entity,
                        operation: "delete",
                    },
                    Some(stored) => Error::ConditionNotMet {
                        entity,
                        operation: "delete",
                        stored: stored.map(Box::new),
                    },
                    None => Error::from(e),
                });
            }
        };
        match output.attributes.filter(|a| !a.is_empty()) {
            Some(item) => Ok(Some(item)),
            None if attempts.retried() => Err(Error::AlreadyAsWritten {
                entity,
                operation: "delete",
            }),
            None => Ok(None),
        }
    })
    .await
}

struct UpdateExpression {
    expression: String,
    condition: String,
    names: std::collections::HashMap<String, String>,
    values: Item,
    expected: Option<i64>,
}

fn update_expression(update: Update, table: &TableInfo<'_>) -> UpdateExpression {
    let mut names = names(&[("#pk", table.partition_key)]);
    let mut values = Item::new();
    let mut sets = Vec::new();
    if let Some((attribute, value)) = update.marker {
        names.insert("#et".to_owned(), attribute.to_owned());
        values.insert(":et".to_owned(), AttributeValue::S(value.to_owned()));
        sets.push("#et = :et".to_owned());
    }
    for (i, (name, value)) in update.set.into_iter().enumerate() {
        names.insert(format!("#s{i}"), name.to_owned());
        values.insert(format!(":s{i}"), value);
        sets.push(format!("#s{i} = :s{i}"));
    }
    let mut conditions = Vec::new();
    if !update.upsert {
        conditions.push("attribute_exists(#pk)".to_owned());
    }
    for (i, (name, value)) in update.expect.into_iter().enumerate() {
        names.insert(format!("#x{i}"), name.to_owned());
        values.insert(format!(":x{i}"), value);
        conditions.push(format!("#x{i} = :x{i}"));
    }
    for (i, bound) in update.bounds.iter().enumerate() {
        let (name, min, max, absent, size) = match *bound {
            Bound::Value {
                name,
                min,
                max,
                absent,
            } => (name, min, max, absent, false),
            Bound::Size {
                name,
                min,
                max,
                absent,
            } => (name, min, max, absent, true),
        };
        names.insert(format!("#b{i}"), name.to_owned());
        let subject = if size {
            format!("size(#b{i})")
        } else {
            format!("#b{i}")
        };
        let mut parts = Vec::new();
        if min != i64::MIN && !(size && min <= 0) {
            values.insert(format!(":bl{i}"), AttributeValue::N(min.to_string()));
            parts.push(format!("{subject} >= :bl{i}"));
        }
        if max != i64::MAX {
            values.insert(format!(":bh{i}"), AttributeValue::N(max.to_string()));
            parts.push(format!("{subject} <= :bh{i}"));
        }
        let within = if parts.is_empty() {
            format!("attribute_exists(#b{i})")
        } else {
            parts.join(" AND ")
        };
        conditions.push(if absent {
            format!("(attribute_not_exists(#b{i}) OR ({within}))")
        } else {
            format!("({within})")
        });
    }
    if let Some(when) = &update.when {
        conditions.push(when.render(table.partition_key, &mut names, &mut values));
    }
    if let Some((attribute, expected)) = update.expect_version {
        names.insert("#ver".to_owned(), attribute.to_owned());
        values.insert(":prev".to_owned(), AttributeValue::N(expected.to_string()));
        conditions.push(if update.upsert {
            // As a versioned put: create the item, or update the version read.
            "(attribute_not_exists(#pk) OR #ver = :prev)".to_owned()
        } else {
            "#ver = :prev".to_owned()
        });
    }
    for (i, (name, value)) in update.set_if_absent.into_iter().enumerate() {
        names.insert(format!("#n{i}"), name.to_owned());
        values.insert(format!(":n{i}"), value);
        sets.push(format!("#n{i} = if_not_exists(#n{i}, :n{i})"));
    }
    for (i, (name, value)) in update.append.into_iter().enumerate() {
        names.insert(format!("#l{i}"), name.to_owned());
        values.insert(format!(":l{i}"), value);
        values.insert(":empty".to_owned(), AttributeValue::L(Vec::new()));
        sets.push(format!(
            "#l{i} = list_append(if_not_exists(#l{i}, :empty), :l{i})"
        ));
    }
    // Fields of maps: one name per map, which must be there.
    let mut maps: Vec<&'static str> = Vec::new();
    let mut field_removes = Vec::new();
    for (i, (map, field, value)) in update.fields.into_iter().enumerate() {
        let m = match maps.iter().position(|x| *x == map) {
            Some(m) => m,
            None => {
                maps.push(map);
                names.insert(format!("#m{}", maps.len() - 1), map.to_owned());
                conditions.push(format!("attribute_exists(#m{})", maps.len() - 1));
                maps.len() - 1
            }
        };
        names.insert(format!("#mf{i}"), field.to_owned());
        match value {
            Some(value) => {
                values.insert(format!(":mf{i}"), value);
                sets.push(format!("#m{m}.#mf{i} = :mf{i}"));
            }
            None => field_removes.push(format!("#m{m}.#mf{i}")),
        }
    }
    let mut expression = if sets.is_empty() {
        String::new()
    } else {
        format!("SET {}", sets.join(", "))
    };
    if !update.add.is_empty() {
        let adds: Vec<String> = update
            .add
            .into_iter()
            .enumerate()
            .map(|(i, (name, value))| {
                names.insert(format!("#a{i}"), name.to_owned());
                values.insert(format!(":a{i}"), value);
                format!("#a{i} :a{i}")
            })
            .collect();
        expression.push_str(if expression.is_empty() {
            "ADD "
        } else {
            " ADD "
        });
        expression.push_str(&adds.join(", "));
    }
    if !update.delete.is_empty() {
        let deletes: Vec<String> = update
            .delete
            .into_iter()
            .enumerate()
            .map(|(i, (name, value))| {
                names.insert(format!("#d{i}"), name.to_owned());
                values.insert(format!(":d{i}"), value);
                format!("#d{i} :d{i}")
            })
            .collect();
        expression.push_str(if expression.is_empty() {
            "DELETE "
        } else {
            " DELETE "
        });
        expression.push_str(&deletes.join(", "));
    }
    if !update.remove.is_empty() || !update.remove_at.is_empty() || !field_removes.is_empty() {
        let mut removes: Vec<String> = update
            .remove
            .iter()
            .enumerate()
            .map(|(i, name)| {
                names.insert(format!("#r{i}"), (*name).to_owned());
                format!("#r{i}")
            })
            .collect();
        for (i, (name, index, expected)) in update.remove_at.iter().enumerate() {
            names.insert(format!("#ri{i}"), (*name).to_owned());
            removes.push(format!("#ri{i}[{index}]"));
            values.insert(format!(":ri{i}"), expected.clone());
            conditions.push(format!("#ri{i}[{index}] = :ri{i}"));
        }
        removes.extend(field_removes);
        expression.push_str(if expression.is_empty() {
            "REMOVE "
        } else {
            " REMOVE "
        });
        expression.push_str(&removes.join(", "));
    }
    if !conditions.iter().any(|c| c.contains("#pk")) {
        // DynamoDB refuses a name no expression uses: an upsert's own
        // conditions (expected values, a version) may not name the key.
        names.remove("#pk");
    }
    UpdateExpression {
        expression,
        condition: conditions.join(" AND "),
        names,
        values,
        expected: update.expect_version.map(|(_, v)| v),
    }
}

/// Whether an update that may create its item (`or_create()`) sets every
/// required attribute, as a put would: `set` pairs each required attribute
/// with whether the update sets it. Fails before any request, naming the
/// first one missing.
pub fn creatable(entity: &'static str, set: &[(&'static str, bool)]) -> Result<(), Error> {
    match set.iter().find(|(_, is_set)| !is_set) {
        None => Ok(()),
        Some((attribute, _)) => Err(Error::Value(crate::ValueError {
            context: entity,
            name: attribute,
            problem: format!(
                "or_create() may create the `{entity}`: set `{attribute}` (every required attribute)"
            ),
        })),
    }
}

/// UpdateItem of an existing item; fails with [`Error::ConditionFailed`] when
/// there is none. Returns the item as the update left it (`ALL_NEW`).
pub async fn update(
    client: &Client,
    table: &TableInfo<'_>,
    key: Item,
    update: Update,
    entity: &'static str,
) -> Result<Item, Error> {
    let call = Call::item("update", entity, table.name);
    crate::trace::within(&call, async {
        if let Some(when) = &update.when {
            when.check()?;
        }
        // A change that would apply twice when sent again is sent once.
        let token = update
            .idempotency_token
            .clone()
            .or_else(|| update.needs_once().then(request_token));
        if let Some(token) = token {
            return update_once(&call, client, table, key, update, entity, token).await;
        }
        let conditional = update.when.is_some();
        let removals = update.remove_at.clone();
        let own = OwnWrite::of(&update);
        let attempts = Attempts::default();
        let UpdateExpression {
            expression,
            condition,
            names,
            values,
            expected,
        } = update_expression(update, table);
        let result = client
            .update_item()
            .table_name(table.name)
            .set_key(Some(key))
            .set_update_expression((!expression.is_empty()).then_some(expression))
            .set_condition_expression((!condition.is_empty()).then_some(condition))
            .set_expression_attribute_names((!names.is_empty()).then_some(names))
            .set_expression_attribute_values((!values.is_empty()).then_some(values))
            .return_values(crate::sdk::types::ReturnValue::AllNew)
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .customize()
            .interceptor(attempts.clone())
            .send()
            .await;
        match result {
            Ok(output) => {
                call.capacity(crate::trace::units(output.consumed_capacity()));
                Ok(output.attributes.unwrap_or_default())
            }
            Err(e) => {
                // A versioned or conditional update sent again whose
                // condition failed on an item that already holds every value
                // this update sets, none it removes (and, versioned, its new
                // version): the earlier attempt applied it (its answer lost),
                // or another writer wrote the same.
                let stored = match e.as_service_error() {
                    Some(crate::sdk::operation::update_item::UpdateItemError::ConditionalCheckFailedException(c)) => c.item(),
                    _ => None,
                };
                if let (Some(stored), Some(check), true) = (stored, own.as_ref(), attempts.retried()) {
                    if check.applied_in(stored) {
                        return Err(Error::AlreadyAsWritten {
                            entity,
                            operation: "update",
                        });
                    }
                }
                if let Some(not_met) = not_met(entity, conditional, &removals, stored, expected) {
                    return Err(not_met);
                }
                Err(versioned(crate::write_error(e, entity, "update"), expected))
            }
        }
    })
    .await
}

/// An update applied once: a transaction of one item with a client request
/// token (the SDK's retries of a lost answer resend it, and DynamoDB does
/// not apply it again), then a strongly consistent read of the item, which
/// may already show a later write.
async fn update_once(
    call: &Call,
    client: &Client,
    table: &TableInfo<'_>,
    key: Item,
    update: Update,
    entity: &'static str,
    token: String,
) -> Result<Item, Error> {
    let expected = update.expect_version.map(|(_, v)| v);
    let conditional = update.when.is_some();
    let removals = update.remove_at.clone();
    let item = transact_update(table, key.clone(), update, entity)?;
    // The token makes sending it again safe: a transport failure, a
    // throttle or a 5xx after the SDK's own retries is sent again, with
    // the same token, before the outcome is reported unknown.
    let sent = crate::batch::retry(ONCE_ATTEMPTS, || {
        crate::batch::transact_write_as(call, client, vec![item.clone()], Some(token.clone()))
    })
    .await;
    match sent {
        Ok(()) => {}
        Err(Error::TransactionCanceled(reasons))
            if reasons.iter().any(|r| r.code == "ConditionalCheckFailed") =>
        {
            // The item the condition was evaluated on (the transaction
            // returns it, `ALL_OLD`), judged as an update without the token.
            let stored = reasons
                .into_iter()
                .find(|r| r.code == "ConditionalCheckFailed")
                .and_then(|r| r.stored);
            if let Some(not_met) =
                not_met(entity, conditional, &removals, stored.as_deref(), expected)
            {
                return Err(not_met);
            }
            let failed = Error::ConditionFailed {
                entity,
                operation: "update",
            };
            return Err(versioned(failed, expected));
        }
        Err(e) => return Err(e),
    }
    Ok(read_consistent(call, client, table, key)
        .await?
        .unwrap_or_default())
}

/// `Error::ConditionNotMet` with `stored`, when an unversioned update's own
/// conditions failed on an item that exists: the caller's condition
/// (`conditional`), or a removal by index whose expected element is not
/// there. `None` otherwise (no item, a version, or a declared bound).
fn not_met(
    entity: &'static str,
    conditional: bool,
    removals: &[(&'static str, usize, AttributeValue)],
    stored: Option<&Item>,
    expected: Option<i64>,
) -> Option<Error> {
    let stored = stored.filter(|_| expected.is_none())?;
    (conditional || !removals_hold(removals, stored)).then(|| Error::ConditionNotMet {
        entity,
        operation: "update",
        stored: Some(Box::new(stored.clone())),
    })
}

/// Whether `stored` holds the element each removal by index expects (else
/// the removals, not a declared bound, failed the update).
fn removals_hold(removals: &[(&'static str, usize, AttributeValue)], stored: &Item) -> bool {
    removals
        .iter()
        .all(|(name, index, expected)| match stored.get(*name) {
            Some(AttributeValue::L(list)) => list.get(*index) == Some(expected),
            _ => false,
        })
}

/// How often an update applied once is sent, with its token, before its
/// outcome is reported unknown (each time with the SDK's own retries).
const ONCE_ATTEMPTS: u32 = 4;

/// The stored item at `key`, read consistently (`None` when there is none),
/// as a part of `call`.
pub(crate) async fn read_consistent(
    call: &Call,
    client: &Client,
    table: &TableInfo<'_>,
    key: Item,
) -> Result<Option<Item>, Error> {
    let output = client
        .get_item()
        .table_name(table.name)
        .set_key(Some(key))
        .consistent_read(true)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await?;
    call.capacity(crate::trace::units(output.consumed_capacity()));
    Ok(output.item.filter(|item| !item.is_empty()))
}

/// What a versioned or conditional update writes, to recognise its own
/// write in an item.
struct OwnWrite {
    /// The version it writes, for a versioned update.
    version: Option<(&'static str, i64)>,
    set: Vec<(&'static str, AttributeValue)>,
    remove: Vec<&'static str>,
    fields: Vec<(&'static str, &'static str, Option<AttributeValue>)>,
}

impl OwnWrite {
    /// `None` for an update whose second attempt cannot fail on its own
    /// write (no version, no condition), or whose changes depend on the
    /// stored value.
    fn of(update: &Update) -> Option<OwnWrite> {
        let version = match update.expect_version {
            Some((attribute, expected)) => Some((attribute, expected.checked_add(1)?)),
            None if update.when.is_some() => None,
            None => return None,
        };
        // Changes that depend on the stored value cannot be recognised.
        if !(update.add.is_empty()
            && update.delete.is_empty()
            && update.append.is_empty()
            && update.remove_at.is_empty())
        {
            return None;
        }
        // Nothing to recognise: an update that writes nothing.
        if update.set.is_empty() && update.remove.is_empty() && update.fields.is_empty() {
            return None;
        }
        Some(OwnWrite {
            version,
            set: update.set.clone(),
            remove: update.remove.clone(),
            fields: update.fields.clone(),
        })
    }

    fn applied_in(&self, item: &Item) -> bool {
        self.version.is_none_or(|(attribute, version)| {
            item.get(attribute) == Some(&AttributeValue::N(version.to_string()))
        }) && self
            .set
            .iter()
            .all(|(name, value)| item.get(*name).is_some_and(|v| same_value(v, value)))
            && self.remove.iter().all(|name| !item.contains_key(*name))
            && self.fields.iter().all(|(map, field, value)| {
                let stored = match item.get(*map) {
                    Some(AttributeValue::M(fields)) => fields.get(*field),
                    _ => return false,
                };
                match (stored, value) {
                    (Some(stored), Some(value)) => same_value(stored, value),
                    (None, None) => true,
                    _ => false,
                }
            })
    }
}

/// A transaction item that puts (or, with `create`, creates) `item`, with
/// the same conditions as [`put`], and `when` on the stored item (a put's
/// condition; on no item, a condition on its attributes does not hold).
pub fn transact_put(
    table: &TableInfo<'_>,
    item: Item,
    create: bool,
    version: Option<&'static str>,
    entity: &'static str,
    when: Option<&crate::Condition>,
) -> Result<TransactWriteItem, Error> {
    let (condition, _) = put_parts(table, &item, create, version, entity, when)?;
    let put = Put::builder()
        .table_name(table.name)
        .set_item(Some(item))
        .set_condition_expression(condition.expression)
        .set_expression_attribute_names(condition.names)
        .set_expression_attribute_values(condition.values)
        .set_return_values_on_condition_check_failure(condition.return_stored);
    Ok(TransactWriteItem::builder().put(put.build()?).build())
}

/// A condition expression with its names and values, ready for a request
/// (`None` for what is empty, which DynamoDB refuses).
struct ConditionParts {
    expression: Option<String>,
    names: Option<std::collections::HashMap<String, String>>,
    values: Option<Item>,
    /// `ALL_OLD` when there is a condition: a transaction that fails on it
    /// reports the stored item ([`CancellationReason::stored`](crate::CancellationReason::stored)).
    return_stored: Option<ReturnValuesOnConditionCheckFailure>,
}

/// The condition of a put of `item` ([`put_condition`]) and the caller's
/// `when`, and the stored version a versioned put expects.
fn put_parts(
    table: &TableInfo<'_>,
    item: &Item,
    create: bool,
    version: Option<&'static str>,
    entity: &'static str,
    when: Option<&crate::Condition>,
) -> Result<(ConditionParts, Option<i64>), Error> {
    let (own, names, values, expected) = match put_condition(table, item, create, version, entity)?
    {
        Some(c) => (
            Some(c.expression.to_owned()),
            c.names,
            c.values.unwrap_or_default(),
            c.expected,
        ),
        None => (None, std::collections::HashMap::new(), Item::new(), None),
    };
    Ok((with_condition(own, names, values, when, table)?, expected))
}

/// `own` (the write's own condition) and the caller's `when`, both of
/// which must hold.
fn with_condition(
    own: Option<String>,
    mut names: std::collections::HashMap<String, String>,
    mut values: Item,
    when: Option<&crate::Condition>,
    table: &TableInfo<'_>,
) -> Result<ConditionParts, Error> {
    let mut expression = own;
    if let Some(when) = when {
        when.check()?;
        let text = when.render(table.partition_key, &mut names, &mut values);
        expression = Some(match expression {
            Some(own) => format!("({own}) AND {text}"),
            None => text,
        });
    }
    let conditional = expression.is_some();
    Ok(ConditionParts {
        expression,
        names: (!names.is_empty()).then_some(names),
        values: (!values.is_empty()).then_some(values),
        return_stored: conditional.then_some(ReturnValuesOnConditionCheckFailure::AllOld),
    })
}

/// A transaction item that updates an existing item.
pub fn transact_update(
    table: &TableInfo<'_>,
    key: Item,
    update: Update,
    entity: &'static str,
) -> Result<TransactWriteItem, Error> {
    if let Some(when) = &update.when {
        when.check()?;
    }
    let UpdateExpression {
        expression,
        condition,
        names,
        values,
        expected: _,
    } = update_expression(update, table);
    if expression.is_empty() {
        // Nothing to write (a table that tells entities by their keys has
        // no entity-type attribute to set): what is left is the condition.
        if condition.is_empty() {
            return Err(Error::Value(crate::ValueError {
                context: entity,
                name: "",
                problem: "the update sets, adds and removes nothing".to_owned(),
            }));
        }
        let check = ConditionCheck::builder()
            .table_name(table.name)
            .set_key(Some(key))
            .condition_expression(condition)
            .set_expression_attribute_names((!names.is_empty()).then_some(names))
            .set_expression_attribute_values((!values.is_empty()).then_some(values));
        return Ok(TransactWriteItem::builder()
            .condition_check(check.build()?)
            .build());
    }
    let return_stored =
        (!condition.is_empty()).then_some(ReturnValuesOnConditionCheckFailure::AllOld);
    let update = SdkUpdate::builder()
        .table_name(table.name)
        .set_key(Some(key))
        .update_expression(expression)
        .set_return_values_on_condition_check_failure(return_stored)
        .set_condition_expression((!condition.is_empty()).then_some(condition))
        .set_expression_attribute_names((!names.is_empty()).then_some(names))
        .set_expression_attribute_values((!values.is_empty()).then_some(values));
    Ok(TransactWriteItem::builder().update(update.build()?).build())
}

/// A transaction item that deletes an item, when `when` holds on it.
pub fn transact_delete(
    table: &TableInfo<'_>,
    key: Item,
    when: Option<&crate::Condition>,
) -> Result<TransactWriteItem, Error> {
    let condition = with_condition(None, Default::default(), Item::new(), when, table)?;
    let delete = Delete::builder()
        .table_name(table.name)
        .set_key(Some(key))
        .set_condition_expression(condition.expression)
        .set_expression_attribute_names(condition.names)
        .set_expression_attribute_values(condition.values)
        .set_return_values_on_condition_check_failure(condition.return_stored);
    Ok(TransactWriteItem::builder().delete(delete.build()?).build())
}

/// A transaction item that requires an item to exist (and `when` to hold
/// on it).
pub fn transact_check(
    table: &TableInfo<'_>,
    key: Item,
    when: Option<&crate::Condition>,
) -> Result<TransactWriteItem, Error> {
    let exists = Some("attribute_exists(#pk)".to_owned());
    let names = names(&[("#pk", table.partition_key)]);
    let condition = with_condition(exists, names, Item::new(), when, table)?;
    let check = ConditionCheck::builder()
        .table_name(table.name)
        .set_key(Some(key))
        .set_condition_expression(condition.expression)
        .set_expression_attribute_names(condition.names)
        .set_expression_attribute_values(condition.values)
        .set_return_values_on_condition_check_failure(condition.return_stored);
    Ok(TransactWriteItem::builder()
        .condition_check(check.build()?)
        .build())
}

/// A batch write request putting `item`.
pub fn put_request(item: Item) -> Result<WriteRequest, Error> {
    let put = PutRequest::builder().set_item(Some(item)).build()?;
    Ok(WriteRequest::builder().put_request(put).build())
}

/// A batch write request deleting the item at `key`.
pub fn delete_request(key: Item) -> Result<WriteRequest, Error> {
    let delete = DeleteRequest::builder().set_key(Some(key)).build()?;
    Ok(WriteRequest::builder().delete_request(delete).build())
}

/// Decodes items read by a batch, skipping expired ones: one result per
/// item, so an item that does not decode is an error of its own and the
/// others still decode.
pub fn decode_batch<T>(
    items: Vec<Item>,
    table: &TableInfo<'_>,
    decode: crate::Decoder<T>,
) -> Vec<Result<T, Error>> {
    let now = crate::DateTime::from(std::time::SystemTime::now());
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        if table
            .ttl_attribute
            .is_some_and(|ttl| crate::codec::is_expired(&item, ttl, now))
        {
            continue;
        }
        match decode(&item) {
            Ok(Some(value)) => out.push(Ok(value)),
            Ok(None) => {}
            Err(e) => out.push(Err(Error::Decode(e))),
        }
    }
    out
}

/// A table and the client that reaches it: what a repository's entity
/// operations go through, so that each generated method is one call.
#[derive(Debug, Clone, Copy)]
pub struct Table<'a> {
    /// The client.
    pub client: &'a Client,
    /// The table's name and fixed attribute names.
    pub info: TableInfo<'a>,
}

impl Table<'_> {
    /// Reads the item at `key` (eventually consistent): [`get`].
    pub async fn get<K: crate::EntityKey>(
        &self,
        key: &K,
        scope: &<K::Entity as Entity>::Scope,
    ) -> Result<Option<K::Entity>, Error> {
        get(self.client, &self.info, key.to_key_item(scope)?, false).await
    }

    /// Reads the attributes `projection` names of the item at `key`, as
    /// the partial type `P`: [`get_partial`].
    pub async fn get_partial<K: crate::EntityKey, P: crate::Partial<Of = K::Entity>>(
        &self,
        key: &K,
        scope: &<K::Entity as Entity>::Scope,
        consistent_read: bool,
        projection: &[&str],
    ) -> Result<Option<P>, Error> {
        let key = key.to_key_item(scope)?;
        get_partial(self.client, &self.info, key, consistent_read, projection).await
    }

    /// Reads the item at `key` with a strongly consistent read: [`get`].
    pub async fn get_consistent<K: crate::EntityKey>(
        &self,
        key: &K,
        scope: &<K::Entity as Entity>::Scope,
    ) -> Result<Option<K::Entity>, Error> {
        get(self.client, &self.info, key.to_key_item(scope)?, true).await
    }

    /// Writes `entity`, replacing an item with its key (for a versioned
    /// entity, only the version before it): [`put`].
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
    /// [`put_when`].
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

    /// Writes `entity` and returns the item it replaced: [`replace`].
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

    /// Writes `entity` when no item has its key: [`put`].
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

    /// Applies `changes` to the item at `key` ([`update`]) and returns the
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

    /// Deletes the item at `key` ([`delete`]) and returns it as it was
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

    /// Deletes the item at `key` when `condition` holds on it: [`delete`].
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A versioned update that sets and removes fields of a map recognises
    /// its own write (after a lost answer) by the fields too, and not an
    /// item whose fields differ.
    #[test]
    fn a_versioned_update_recognises_its_own_field_changes() {
        let s = |v: &str| AttributeValue::S(v.to_owned());
        let update = Update {
            expect_version: Some(("version", 1)),
            set: vec![("version", AttributeValue::N("2".into()))],
            fields: vec![
                ("shipping", "street", Some(s("9 Field St"))),
                ("shipping", "zip", None),
            ],
            ..Update::default()
        };
        let own = OwnWrite::of(&update).expect("a versioned update");
        let item = |street: &str, zip: Option<&str>| {
            let mut map = Item::new();
            map.insert("street".into(), s(street));
            if let Some(zip) = zip {
                map.insert("zip".into(), s(zip));
            }
            values([
                ("version", AttributeValue::N("2".into())),
                ("shipping", AttributeValue::M(map)),
            ])
        };
        assert!(own.applied_in(&item("9 Field St", None)));
        assert!(!own.applied_in(&item("1 Main St", None)), "another street");
        assert!(
            !own.applied_in(&item("9 Field St", Some("10115"))),
            "the zip is still there"
        );
        assert!(
            !own.applied_in(&values([("version", AttributeValue::N("2".into()))])),
            "no map"
        );
    }
}
