//! Batches, transactions and conditional writes: chunking, retries with
//! backoff, and errors that say what failed.

use std::time::Duration;

use futures_util::stream::{self, StreamExt};

use crate::error::{CancellationReason, Error, ForeignItem};
use crate::sdk::error::{ProvideErrorMetadata, SdkError};
use crate::sdk::operation::transact_write_items::TransactWriteItemsError;
use crate::sdk::types::ReturnConsumedCapacity;
use crate::sdk::types::{KeysAndAttributes, TransactWriteItem, WriteRequest};
use crate::sdk::Client;
use crate::trace::Call;
use crate::Item;

/// BatchWriteItem's limit.
pub const MAX_BATCH_WRITE: usize = 25;
/// BatchGetItem's limit.
pub const MAX_BATCH_GET: usize = 100;
/// TransactWriteItems' limit.
pub const MAX_TRANSACTION: usize = 100;

/// How unprocessed batch items are retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Calls per chunk, the first included.
    pub max_attempts: u32,
    /// Delay before the first retry; doubled on each retry.
    pub base_delay: Duration,
    /// Upper bound of the delay.
    pub max_delay: Duration,
    /// Chunks in flight at once.
    pub concurrency: usize,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 10,
            base_delay: Duration::from_millis(25),
            max_delay: Duration::from_secs(5),
            // Measured (`scripts/bench`, the bulk load's sweep of 1 to 32):
            // through a 5 ms round trip, 10,000 items load fastest with 16
            // or 32 chunks in flight (8: 12% slower, 4: 36%); in the
            // server's own process the spread is within the noise.
            concurrency: 16,
        }
    }
}

impl RetryPolicy {
    /// The delay before retry `attempt` (1-based): exponential, with jitter
    /// between half and all of it, so concurrent writers spread out.
    pub fn delay(&self, attempt: u32) -> Duration {
        let factor = 1u32
            .checked_shl(attempt.saturating_sub(1))
            .unwrap_or(u32::MAX);
        let full = self.base_delay.saturating_mul(factor).min(self.max_delay);
        full.mul_f64(0.5 + fastrand::f64() / 2.0)
    }
}

/// Writes every request with BatchWriteItem in chunks of 25 (up to
/// `policy.concurrency` chunks at once), retrying `UnprocessedItems` and
/// transient errors (throttling, 5xx, dropped connections) with backoff.
/// Whatever is not written after the last attempt, or when a chunk fails
/// for good, is returned in [`Error::Unprocessed`], never dropped.
pub async fn batch_write(
    client: &Client,
    table: &str,
    writes: Vec<WriteRequest>,
    policy: RetryPolicy,
) -> Result<(), Error> {
    batch_write_of("", client, table, writes, policy).await
}

/// [`batch_write`] as access pattern `pattern`'s (named in its span).
pub async fn batch_write_of(
    pattern: &str,
    client: &Client,
    table: &str,
    writes: Vec<WriteRequest>,
    policy: RetryPolicy,
) -> Result<(), Error> {
    let call = Call::batch("batch_write", pattern, table, writes.len());
    crate::trace::within(&call, batch_write_in(&call, client, table, writes, policy)).await
}

async fn batch_write_in(
    call: &Call,
    client: &Client,
    table: &str,
    writes: Vec<WriteRequest>,
    policy: RetryPolicy,
) -> Result<(), Error> {
    let mut unprocessed = Vec::new();
    let mut cause = None;
    // `concurrency` chunks in flight at all times: the next starts as soon
    // as one is done.
    let mut results = stream::iter(in_chunks(writes, MAX_BATCH_WRITE))
        .map(|chunk| write_chunk(call, client, table, chunk, policy))
        .buffer_unordered(policy.concurrency.max(1));
    while let Some((left, error)) = results.next().await {
        unprocessed.extend(left);
        if cause.is_none() {
            cause = error;
        }
    }
    if unprocessed.is_empty() {
        Ok(())
    } else {
        Err(Error::Unprocessed {
            writes: unprocessed,
            keys: Vec::new(),
            cause: cause.map(Box::new),
        })
    }
}

/// `all` split into chunks of at most `size`, moved rather than copied.
fn in_chunks<T>(all: Vec<T>, size: usize) -> Vec<Vec<T>> {
    let mut chunks = Vec::with_capacity(all.len().div_ceil(size));
    let mut rest = all.into_iter().peekable();
    while rest.peek().is_some() {
        chunks.push(rest.by_ref().take(size).collect());
    }
    chunks
}

/// Whether a failed call may succeed when repeated: throttling, a server
/// error, a timeout or a connection that failed.
fn is_transient<E: ProvideErrorMetadata, R>(error: &SdkError<E, R>) -> bool {
    match error {
        SdkError::TimeoutError(_) | SdkError::DispatchFailure(_) | SdkError::ResponseError(_) => {
            true
        }
        SdkError::ServiceError(e) => matches!(
            e.err().code(),
            Some(
                "ProvisionedThroughputExceededException"
                    | "ThrottlingException"
                    | "RequestLimitExceeded"
                    | "InternalServerError"
                    | "ServiceUnavailable"
            )
        ),
        _ => false,
    }
}

/// One chunk: the requests left unwritten, and the error that stopped it.
async fn write_chunk(
    call: &Call,
    client: &Client,
    table: &str,
    mut pending: Vec<WriteRequest>,
    policy: RetryPolicy,
) -> (Vec<WriteRequest>, Option<Error>) {
    let mut last_error = None;
    for attempt in 1..=policy.max_attempts.max(1) {
        if attempt > 1 {
            call.retry();
            tokio::time::sleep(policy.delay(attempt - 1)).await;
        }
        call.request();
        match client
            .batch_write_item()
            .request_items(table, pending.clone())
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await
        {
            Ok(output) => {
                call.capacity(crate::trace::total_units(output.consumed_capacity()));
                last_error = None;
                pending = output
                    .unprocessed_items
                    .and_then(|mut m| m.remove(table))
                    .unwrap_or_default();
                if pending.is_empty() {
                    break;
                }
            }
            Err(e) if is_transient(&e) => last_error = Some(Error::from(e)),
            Err(e) => return (pending, Some(Error::from(e))),
        }
    }
    (pending, last_error)
}

/// Reads every key with BatchGetItem in chunks of 100 (up to
/// `policy.concurrency` at once), retrying `UnprocessedKeys` and transient
/// errors; keys still unread after the last attempt are returned in
/// [`Error::Unprocessed`]. Items come back in no particular order.
///
/// Every item returned must have one of the keys asked for (the keys a
/// tenant's handle builds name its tenant): any other item fails the whole
/// read with [`Error::ForeignItem`], never silently dropped or returned.
pub async fn batch_get(
    client: &Client,
    table: &str,
    keys: Vec<Item>,
    consistent_read: bool,
    policy: RetryPolicy,
) -> Result<Vec<Item>, Error> {
    batch_get_of("", client, table, keys, consistent_read, policy).await
}

/// [`batch_get`] as access pattern `pattern`'s (named in its span).
pub async fn batch_get_of(
    pattern: &str,
    client: &Client,
    table: &str,
    keys: Vec<Item>,
    consistent_read: bool,
    policy: RetryPolicy,
) -> Result<Vec<Item>, Error> {
    let call = Call::batch("batch_get", pattern, table, keys.len());
    let read = batch_get_in(&call, client, table, keys, consistent_read, policy);
    crate::trace::within(&call, read).await
}

async fn batch_get_in(
    call: &Call,
    client: &Client,
    table: &str,
    keys: Vec<Item>,
    consistent_read: bool,
    policy: RetryPolicy,
) -> Result<Vec<Item>, Error> {
    let mut items = Vec::new();
    let mut unread = Vec::new();
    let mut cause = None;
    let mut results = stream::iter(in_chunks(keys, MAX_BATCH_GET))
        .map(|chunk| get_chunk(call, client, table, chunk, consistent_read, policy))
        .buffer_unordered(policy.concurrency.max(1));
    while let Some(result) = results.next().await {
        let (found, left, error) = result.map_err(Error::ForeignItem)?;
        items.extend(found);
        unread.extend(left);
        if cause.is_none() {
            cause = error;
        }
    }
    if unread.is_empty() {
        Ok(items)
    } else {
        Err(Error::Unprocessed {
            writes: Vec::new(),
            keys: unread,
            cause: cause.map(Box::new),
        })
    }
}

/// One chunk: the items found, the keys left unread, and the error that
/// stopped it; or the first item returned that is none of the chunk's keys.
async fn get_chunk(
    call: &Call,
    client: &Client,
    table: &str,
    mut pending: Vec<Item>,
    consistent_read: bool,
    policy: RetryPolicy,
) -> Result<(Vec<Item>, Vec<Item>, Option<Error>), ForeignItem> {
    let requested = pending.clone();
    let mut found = Vec::new();
    let mut last_error = None;
    for attempt in 1..=policy.max_attempts.max(1) {
        if attempt > 1 {
            call.retry();
            tokio::time::sleep(policy.delay(attempt - 1)).await;
        }
        call.request();
        let request = match KeysAndAttributes::builder()
            .set_keys(Some(pending.clone()))
            .consistent_read(consistent_read)
            .build()
        {
            Ok(request) => request,
            Err(e) => return Ok((found, pending, Some(Error::from(e)))),
        };
        match client
            .batch_get_item()
            .request_items(table, request)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await
        {
            Ok(output) => {
                call.capacity(crate::trace::total_units(output.consumed_capacity()));
                last_error = None;
                let items = output
                    .responses
                    .and_then(|mut m| m.remove(table))
                    .unwrap_or_default();
                for item in &items {
                    crate::isolation::check_requested(item, &requested, "batch_get")?;
                }
                found.extend(items);
                pending = output
                    .unprocessed_keys
                    .and_then(|mut m| m.remove(table))
                    .map(|k| k.keys)
                    .unwrap_or_default();
                if pending.is_empty() {
                    break;
                }
            }
            Err(e) if is_transient(&e) => last_error = Some(Error::from(e)),
            Err(e) => return Ok((found, pending, Some(Error::from(e)))),
        }
    }
    Ok((found, pending, last_error))
}

/// The reasons of the items that failed in a canceled transaction (DynamoDB
/// reports `None` for the others).
pub(crate) fn cancellation_reasons(
    reasons: &[crate::sdk::types::CancellationReason],
) -> Vec<CancellationReason> {
    reasons
        .iter()
        .enumerate()
        .filter(|(_, r)| r.code().is_some_and(|c| c != "None"))
        .map(|(index, r)| CancellationReason {
            index,
            item: "",
            code: r.code().unwrap_or_default().to_owned(),
            message: r.message().map(str::to_owned),
            stored: r.item.clone().filter(|i| !i.is_empty()).map(Box::new),
        })
        .collect()
}

/// Runs TransactWriteItems; a cancellation becomes
/// [`Error::TransactionCanceled`] with the reason of each failed item.
pub async fn transact_write(
    client: &Client,
    items: Vec<TransactWriteItem>,
    client_request_token: Option<String>,
) -> Result<(), Error> {
    let call = Call::transaction(
        "transact_write",
        "",
        crate::ops::table_of(&items),
        items.len(),
    );
    let write = transact_write_as(&call, client, &items, client_request_token);
    crate::trace::within(&call, write).await
}

/// [`transact_write`] as a part of `call` (no span of its own). `items` are
/// borrowed: every attempt sends a copy, and a caller that keeps them (to
/// send the transaction again) needs no copy of its own.
pub(crate) async fn transact_write_as(
    call: &Call,
    client: &Client,
    items: &[TransactWriteItem],
    client_request_token: Option<String>,
) -> Result<(), Error> {
    let mut attempt = 0;
    loop {
        let result = client
            .transact_write_items()
            .set_transact_items(Some(items.to_vec()))
            .set_client_request_token(client_request_token.clone())
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await;
        let reasons = match result {
            Ok(output) => {
                call.capacity(crate::trace::total_units(output.consumed_capacity()));
                return Ok(());
            }
            Err(SdkError::ServiceError(e)) => match e.err() {
                TransactWriteItemsError::TransactionCanceledException(canceled) => {
                    cancellation_reasons(canceled.cancellation_reasons())
                }
                _ => return Err(Error::from(SdkError::ServiceError(e))),
            },
            Err(e) => return Err(Error::from(e)),
        };
        // Canceled only because another transaction held an item (a hot
        // counter updated exactly once by many callers): nothing was
        // applied, so it is sent again, after a jittered backoff.
        let conflict = reasons.iter().any(|r| r.code == "TransactionConflict")
            && reasons
                .iter()
                .all(|r| r.code == "TransactionConflict" || r.code == "None");
        if !conflict || attempt >= CONFLICT_ATTEMPTS {
            return Err(Error::TransactionCanceled(reasons));
        }
        attempt += 1;
        let ceiling = 10u64 << attempt.min(6);
        tokio::time::sleep(std::time::Duration::from_millis(fastrand::u64(1..=ceiling))).await;
    }
}

/// Calls `call` until it succeeds, fails for good, or has failed
/// transiently `attempts` times, backing off between attempts. Only for a
/// call that is safe to send again (a read, a conditional write, a
/// transaction with its client request token).
pub(crate) async fn retry<T, F, Fut>(attempts: u32, mut call: F) -> Result<T, Error>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, Error>>,
{
    let policy = RetryPolicy::default();
    let mut attempt = 1;
    loop {
        match call().await {
            Err(e) if e.is_transient() && attempt < attempts => {
                tokio::time::sleep(policy.delay(attempt)).await;
                attempt += 1;
            }
            other => return other,
        }
    }
}

/// How often a transaction canceled by a conflict with another one is sent
/// again.
const CONFLICT_ATTEMPTS: u32 = 8;

/// Maps a failed conditional write: `ConditionalCheckFailedException`
/// becomes [`Error::ConditionFailed`], anything else [`Error::Service`].
pub fn write_error<E, R>(
    error: SdkError<E, R>,
    entity: &'static str,
    operation: &'static str,
) -> Error
where
    E: ProvideErrorMetadata,
    crate::sdk::Error: From<SdkError<E, R>>,
{
    let condition_failed = error
        .as_service_error()
        .and_then(ProvideErrorMetadata::code)
        == Some("ConditionalCheckFailedException");
    if condition_failed {
        Error::ConditionFailed { entity, operation }
    } else {
        Error::from(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_grow_and_stay_bounded() {
        let policy = RetryPolicy::default();
        for attempt in 1..40 {
            let d = policy.delay(attempt);
            assert!(d <= policy.max_delay, "{attempt}: {d:?}");
            let full = policy
                .base_delay
                .saturating_mul(1u32.checked_shl(attempt - 1).unwrap_or(u32::MAX))
                .min(policy.max_delay);
            assert!(d >= full / 2, "{attempt}: {d:?} < {full:?}/2");
        }
    }
}
