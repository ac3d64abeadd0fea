//! The items of a TransactWriteItems and of a BatchWriteItem.

use super::*;

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
pub(super) struct ConditionParts {
    pub(super) expression: Option<String>,
    pub(super) names: Option<std::collections::HashMap<String, String>>,
    pub(super) values: Option<Item>,
    /// `ALL_OLD` when there is a condition: a transaction that fails on it
    /// reports the stored item ([`CancellationReason::stored`](crate::CancellationReason::stored)).
    pub(super) return_stored: Option<ReturnValuesOnConditionCheckFailure>,
}

/// The condition of a put of `item` ([`put_condition`]) and the caller's
/// `when`, and the stored version a versioned put expects.
pub(super) fn put_parts(
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

/// Decodes items read by a batch, skipping expired ones unless
/// `include_expired`: one result per item, so an item that does not
/// decode is an error of its own and the others still decode.
pub fn decode_batch<T>(
    items: Vec<Item>,
    table: &TableInfo<'_>,
    include_expired: bool,
    decode: crate::Decoder<T>,
) -> Vec<Result<T, Error>> {
    let now = crate::DateTime::from(std::time::SystemTime::now());
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        if !include_expired
            && table
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
