//! PutItem and DeleteItem: conditions, and whether a lost answer's write was the caller's own.

use super::*;

/// The condition of a put: none; the item must not exist (`create`); or,
/// for a versioned entity, the stored version must be one below the item's
/// (or there must be no item).
pub(super) struct PutCondition {
    pub(super) expression: &'static str,
    pub(super) names: std::collections::HashMap<String, String>,
    pub(super) values: Option<Item>,
    /// The stored version a versioned put expects.
    pub(super) expected: Option<i64>,
}

pub(super) fn put_condition(
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
    let call = Call::item(how.operation(), "", entity, table.name);
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
pub(super) struct Attempts(std::sync::Arc<std::sync::atomic::AtomicU32>);

impl Attempts {
    /// Whether the request was sent more than once.
    pub(super) fn retried(&self) -> bool {
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

pub(super) fn same_value(a: &AttributeValue, b: &AttributeValue) -> bool {
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
pub(super) fn versioned(error: Error, expected: Option<i64>) -> Error {
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
    let call = Call::item("delete", "", entity, table.name);
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
