//! UpdateItem: the update expression, the write and its recognition after a lost answer.

use super::*;

pub(super) struct UpdateExpression {
    pub(super) expression: String,
    pub(super) condition: String,
    pub(super) names: std::collections::HashMap<String, String>,
    pub(super) values: Item,
    pub(super) expected: Option<i64>,
}

pub(super) fn update_expression(update: Update, table: &TableInfo<'_>) -> UpdateExpression {
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
        conditions.push(bound_condition(i, bound, &mut names, &mut values));
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
        push_clause(&mut expression, "ADD", &adds);
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
        push_clause(&mut expression, "DELETE", &deletes);
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
        push_clause(&mut expression, "REMOVE", &removes);
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

/// The condition that keeps a value (or a list's or set's size) in its
/// declared range; an absent attribute passes where the rule allows it.
fn bound_condition(
    i: usize,
    bound: &Bound,
    names: &mut std::collections::HashMap<String, String>,
    values: &mut Item,
) -> String {
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
    if absent {
        format!("(attribute_not_exists(#b{i}) OR ({within}))")
    } else {
        format!("({within})")
    }
}

/// Appends one clause (`ADD a, b`) to an update expression.
fn push_clause(expression: &mut String, keyword: &str, parts: &[String]) {
    if !expression.is_empty() {
        expression.push(' ');
    }
    expression.push_str(keyword);
    expression.push(' ');
    expression.push_str(&parts.join(", "));
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
    let call = Call::item("update", "", entity, table.name);
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
        crate::batch::transact_write_as(
            call,
            client,
            std::slice::from_ref(&item),
            Some(token.clone()),
        )
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
