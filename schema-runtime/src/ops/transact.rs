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

/// The steps of a canceled transaction that failed, each with its reason,
/// by the label each step's builder method gives its items (`steps` maps
/// labels to a generated step enum): empty unless `error` is
/// [`Error::TransactionCanceled`]. A reason of no listed label (another
/// transaction's) is left out.
pub fn failed_steps<'e, S: Copy>(
    error: &'e Error,
    steps: &[(&str, S)],
) -> Vec<(S, &'e crate::error::CancellationReason)> {
    let Error::TransactionCanceled(reasons) = error else {
        return Vec::new();
    };
    reasons
        .iter()
        .filter_map(|reason| {
            let (_, step) = steps.iter().find(|(label, _)| *label == reason.item)?;
            Some((*step, reason))
        })
        .collect()
}

/// What a generated transaction builder collects: the items, the label of
/// each (its builder method, named in a cancellation's reasons), what each
/// step wrote (`W`, the transaction's written enum), an idempotency token
/// and the first error met while adding items.
#[derive(Debug)]
pub struct Transaction<W> {
    items: Vec<TransactWriteItem>,
    labels: Vec<&'static str>,
    written: Vec<W>,
    token: Option<String>,
    error: Option<Error>,
}

impl<W> Default for Transaction<W> {
    fn default() -> Self {
        Transaction {
            items: Vec::new(),
            labels: Vec::new(),
            written: Vec::new(),
            token: None,
            error: None,
        }
    }
}

impl<W> Transaction<W> {
    /// Adds `item` (or keeps its error, the first one, which `send`
    /// returns before any request), labelled `label`, that writes `written`.
    pub fn push(
        &mut self,
        label: &'static str,
        item: Result<TransactWriteItem, Error>,
        written: W,
    ) {
        match item {
            Ok(item) => {
                self.items.push(item);
                self.labels.push(label);
                self.written.push(written);
            }
            Err(e) => {
                if self.error.is_none() {
                    self.error = Some(e);
                }
            }
        }
    }

    /// The idempotency token to send.
    pub fn client_request_token(&mut self, token: String) {
        self.token = Some(token);
    }

    /// Items added so far.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether no item was added.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Sends what was added as access pattern `pattern`'s transaction (at
    /// most `max` items) and returns what each step wrote, leaving the
    /// builder empty. When the server refuses or does not answer, the
    /// builder keeps what was added (and its token), so the same
    /// transaction can be sent again. An error met while adding items, or
    /// more than `max` items, fails before any request, emptying the
    /// builder; nothing added sends nothing.
    pub async fn send(
        &mut self,
        client: &Client,
        pattern: &'static str,
        max: usize,
    ) -> Result<Vec<W>, Error> {
        let items = std::mem::take(&mut self.items);
        let labels = std::mem::take(&mut self.labels);
        let written = std::mem::take(&mut self.written);
        if let Some(e) = self.error.take() {
            self.token = None;
            return Err(e);
        }
        if items.len() > max {
            self.token = None;
            return Err(Error::TooManyItems {
                pattern,
                items: items.len(),
                max,
            });
        }
        if items.is_empty() {
            return Ok(written);
        }
        let call = Call::transaction("transact_write", pattern, table_of(&items), items.len());
        let write = crate::batch::transact_write_as(&call, client, &items, self.token.clone());
        match crate::trace::within(&call, write).await {
            Ok(()) => {
                self.token = None;
                Ok(written)
            }
            Err(e) => {
                let e = e.with_item_labels(&labels);
                (self.items, self.labels, self.written) = (items, labels, written);
                Err(e)
            }
        }
    }
}

/// The table of a transaction's items (one table: the spec's), for its
/// span.
pub(crate) fn table_of(items: &[TransactWriteItem]) -> &str {
    let first = items.first().and_then(|item| {
        item.put()
            .map(|p| p.table_name())
            .or_else(|| item.update().map(|u| u.table_name()))
            .or_else(|| item.delete().map(|d| d.table_name()))
            .or_else(|| item.condition_check().map(|c| c.table_name()))
    });
    first.unwrap_or_default()
}
