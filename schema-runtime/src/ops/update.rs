//! The partial update a generated `<Entity>Update` builds, and its options.

use super::*;

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
            self.idempotency_token($crate::__private::ops::request_token())
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
