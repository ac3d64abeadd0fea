//! Errors of generated repositories.

use std::fmt;

use crate::tenant::InvalidTenantId;
use crate::Item;

/// Why an item read from the table could not be turned into an entity.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DecodeError {
    /// The entity being decoded (or the access pattern, for an item whose
    /// entity type is unknown).
    pub entity: &'static str,
    /// The attribute at fault.
    pub attribute: String,
    /// What is wrong with it.
    pub problem: DecodeProblem,
}

/// What is wrong with an attribute of a stored item.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeProblem {
    /// A required attribute is absent.
    Missing,
    /// The attribute has another DynamoDB type.
    WrongType {
        /// The expected DynamoDB type (`S`, `N`, `BOOL`, …).
        expected: &'static str,
        /// The stored DynamoDB type.
        found: &'static str,
    },
    /// The attribute has the right type but an invalid value.
    Invalid(String),
    /// The entity-type attribute names an entity this pattern does not return.
    UnknownEntityType(String),
    /// The key does not have the shape of this entity's keys (for tables
    /// whose keys tell the entity), or of any entity the read returns
    /// (`None`).
    NotOfEntity(Option<&'static str>),
    /// The item says it is of this entity (its entity-type attribute or
    /// discriminator), but this key does not have the entity's shape: an
    /// item written to look like one, for instance by a tenant under its
    /// own key prefix. It is never returned as the entity.
    ForgedEntity(&'static str),
}

/// What `?` does with a [`reader::Fields`](crate::reader::Fields) error in
/// a function returning `DecodeError`.
impl From<Box<DecodeError>> for DecodeError {
    fn from(boxed: Box<DecodeError>) -> Self {
        *boxed
    }
}

impl DecodeError {
    /// A decode error for `attribute` of `entity`.
    pub fn new(entity: &'static str, attribute: impl Into<String>, problem: DecodeProblem) -> Self {
        DecodeError {
            entity,
            attribute: attribute.into(),
            problem,
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let DecodeError {
            entity,
            attribute,
            problem,
        } = self;
        write!(
            f,
            "cannot decode {entity}: attribute `{attribute}` {problem}"
        )
    }
}

/// The problem as the rest of a sentence about the attribute: `is missing`,
/// `is of type S, expected N`.
impl fmt::Display for DecodeProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeProblem::Missing => f.write_str("is missing"),
            DecodeProblem::WrongType { expected, found } => {
                write!(f, "is of type {found}, expected {expected}")
            }
            DecodeProblem::Invalid(why) => write!(f, "is invalid: {why}"),
            DecodeProblem::UnknownEntityType(name) => {
                write!(f, "names entity type {name:?}, which is not expected here")
            }
            DecodeProblem::NotOfEntity(Some(entity)) => {
                write!(f, "does not have the shape of a {entity} key")
            }
            DecodeProblem::NotOfEntity(None) => {
                f.write_str("has the shape of no key this read returns")
            }
            DecodeProblem::ForgedEntity(entity) => write!(
                f,
                "does not have the shape of a {entity} key, although the item says it is a {entity}: refused as a forgery"
            ),
        }
    }
}

impl std::error::Error for DecodeError {}

/// A value that cannot be written into a key or an attribute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueError {
    /// The entity or access pattern.
    pub context: &'static str,
    /// The attribute or parameter.
    pub name: &'static str,
    /// Why.
    pub problem: String,
}

impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid `{}` for {}: {}",
            self.name, self.context, self.problem
        )
    }
}

impl std::error::Error for ValueError {}

impl ValueError {
    /// The error of a map's field `field`, as an error of the map: the
    /// problem names the field (`field `zip`: 12 bytes, more than …`).
    pub fn in_field(self, field: &str) -> ValueError {
        self.within(format_args!("field `{field}`"))
    }

    /// The error of a part of the value (`element 3`), as an error of the
    /// value: the problem names the part.
    pub fn within(self, part: impl fmt::Display) -> ValueError {
        ValueError {
            problem: format!("{part}: {}", self.problem),
            ..self
        }
    }
}

/// An item the table returned that the handle did not ask for, refused
/// before it is decoded. The keys a handle builds already name its tenant
/// (and IAM confines its requests), so this means an item written with
/// another tenant's keys by other code, or a server or proxy that answers
/// with other items: defence in depth.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ForeignItem {
    /// The operation that read it: `get`, `query`, `batch_get`, `transact_get`.
    pub operation: &'static str,
    /// The key attribute at fault. Its value is not reported: it may be
    /// another tenant's data.
    pub attribute: String,
    /// Why it was refused.
    pub reason: ForeignReason,
}

/// Why an item was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ForeignReason {
    /// Its table partition key is not under the querying tenant's prefix:
    /// another tenant's item, e.g. one whose index key names this tenant.
    OtherTenant,
    /// Its partition key is not the partition queried.
    OtherPartition,
    /// Its key is none of the keys asked for.
    NotRequested,
}

impl fmt::Display for ForeignItem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ForeignItem {
            operation,
            attribute,
            reason,
        } = self;
        write!(f, "{operation} refused an item ")?;
        match reason {
            ForeignReason::OtherTenant => write!(
                f,
                "of another tenant: its `{attribute}` is not under this tenant's prefix"
            ),
            ForeignReason::OtherPartition => write!(
                f,
                "outside the partition queried: its `{attribute}` differs"
            ),
            ForeignReason::NotRequested => write!(
                f,
                "that was not asked for: its `{attribute}` differs from every key requested"
            ),
        }
    }
}

impl std::error::Error for ForeignItem {}

/// Why a query refused the cursor it was given
/// ([`Query::starting_after`](crate::Query::starting_after)); no request was sent.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CursorError {
    /// The cursor has another number of partitions than the query: a
    /// cursor of another query, or of a shard count that changed.
    Partitions {
        /// Partitions in the cursor.
        cursor: usize,
        /// Partitions the query reads.
        query: usize,
    },
    /// A position has not exactly the key attributes of the table or index
    /// queried (a cursor of another index): `attribute` is missing or extra.
    Attributes {
        /// The partition (shard) of the position.
        partition: usize,
        /// The attribute.
        attribute: String,
    },
    /// A position's table partition key is not the querying tenant's.
    OtherTenant {
        /// The partition (shard) of the position.
        partition: usize,
        /// The table's partition-key attribute.
        attribute: &'static str,
    },
    /// A position is in another partition than the one queried.
    OtherPartition {
        /// The partition (shard) of the position.
        partition: usize,
        /// The partition-key attribute queried.
        attribute: &'static str,
    },
}

impl fmt::Display for CursorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("cursor refused: ")?;
        match self {
            CursorError::Partitions { cursor, query } => write!(
                f,
                "it has {cursor} partitions, the query {query} (a cursor of another query?)"
            ),
            CursorError::Attributes {
                partition,
                attribute,
            } => write!(
                f,
                "position {partition} has not the key attributes of the table or index queried (`{attribute}`)"
            ),
            CursorError::OtherTenant {
                partition,
                attribute,
            } => write!(
                f,
                "position {partition} is another tenant's (its `{attribute}` is not under this tenant's prefix)"
            ),
            CursorError::OtherPartition {
                partition,
                attribute,
            } => write!(
                f,
                "position {partition} is outside the partition queried (its `{attribute}` differs)"
            ),
        }
    }
}

impl std::error::Error for CursorError {}

/// Why one item of a canceled transaction failed.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CancellationReason {
    /// Position of the item in the transaction.
    pub index: usize,
    /// Which item that is: the builder method that added it
    /// (`update_ticket`, `check_user`, …); empty when not known.
    pub item: &'static str,
    /// DynamoDB's reason code (`ConditionalCheckFailed`, `TransactionConflict`, …).
    pub code: String,
    /// DynamoDB's message, if any.
    pub message: Option<String>,
    /// The stored item a failed condition was evaluated on (`None` when
    /// there was none, or the item had no condition): read it typed with
    /// [`CancellationReason::stored_as`].
    pub stored: Option<Box<Item>>,
}

impl CancellationReason {
    /// Whether the item's condition did not hold.
    pub fn is_condition_failed(&self) -> bool {
        self.code == "ConditionalCheckFailed"
    }

    /// The stored item the failed condition was evaluated on, read as `E`.
    pub fn stored_as<E: crate::Entity>(&self) -> Option<Result<E, DecodeError>> {
        self.stored.as_deref().map(E::from_item)
    }
}

/// The error of every generated repository method.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A value cannot be written (bad key value, out-of-range number, …); no
    /// request was sent.
    Value(ValueError),
    /// An item read back from the table cannot be decoded.
    Decode(DecodeError),
    /// A tenant id was refused.
    Tenant(InvalidTenantId),
    /// An item the table returned was refused: another tenant's, outside
    /// the partition queried, or not asked for. It is not decoded.
    ForeignItem(ForeignItem),
    /// A query's cursor does not fit the query (another tenant's, another
    /// index's, another partition's, or forged); no request was sent.
    Cursor(CursorError),
    /// A page token was refused (altered, of another pattern, tenant or
    /// parameter set, or too old); no request was sent.
    Token(crate::token::TokenError),
    /// A page was asked for with a token, or a page token to hand out,
    /// but no keys seal them (`Repository::with_page_tokens` or
    /// [`Query::with_tokens`](crate::Query::with_tokens)); no request was
    /// sent. A configuration error of the application, not of its client.
    NoPageKeys {
        /// The access pattern.
        pattern: &'static str,
    },
    /// A conditional write failed: `create` of an item that exists, or
    /// `update` of an item that does not.
    ConditionFailed {
        /// The entity.
        entity: &'static str,
        /// The operation (`create`, `update`, …).
        operation: &'static str,
    },
    /// A write's own condition (`when`, `delete_…_if`) did not hold on the
    /// stored item, which DynamoDB returned with the failure
    /// (`ReturnValuesOnConditionCheckFailure`): read it with
    /// [`Error::stored_as`]. `None` when there was no item.
    ConditionNotMet {
        /// The entity.
        entity: &'static str,
        /// The operation (`update`, `delete`).
        operation: &'static str,
        /// The item as stored when the condition was evaluated.
        stored: Option<Box<Item>>,
    },
    /// Optimistic locking: a write of a versioned entity expected the
    /// stored version to be `expected`, and it was not (another writer got
    /// there first, or the item is gone). Read the item again and retry.
    VersionConflict {
        /// The entity.
        entity: &'static str,
        /// The operation (`put`, `update`).
        operation: &'static str,
        /// The version the write expected to find.
        expected: i64,
    },
    /// A write the SDK sent more than once (an earlier attempt failed
    /// without an answer) found the item already as it leaves it: a
    /// conditional write found it holding exactly what it writes, a delete
    /// found nothing to delete. The earlier attempt did it and its answer
    /// was lost, or another writer did the same. The item is as the call
    /// asked; whether this call made it so (and, for a delete, what the
    /// item held) cannot be known.
    AlreadyAsWritten {
        /// The entity.
        entity: &'static str,
        /// The operation (`create`, `put`, `update`, `delete`).
        operation: &'static str,
    },
    /// A transaction was canceled; one reason per item that failed.
    TransactionCanceled(Vec<CancellationReason>),
    /// A transaction has more items than the access pattern allows; no
    /// request was sent.
    TooManyItems {
        /// The access pattern.
        pattern: &'static str,
        /// Items requested.
        items: usize,
        /// The most allowed.
        max: usize,
    },
    /// A partial update changes part of an index key whose other parts are
    /// neither in the update nor in the primary key; no request was sent.
    IncompleteUpdate {
        /// The entity.
        entity: &'static str,
        /// The index key attribute that cannot be recomputed.
        key_attribute: &'static str,
        /// Attributes to add to the update.
        missing: Vec<&'static str>,
    },
    /// Batch items DynamoDB left unprocessed after every retry, returned so
    /// nothing is dropped.
    Unprocessed {
        /// Write requests not written.
        writes: Vec<crate::sdk::types::WriteRequest>,
        /// Keys not read.
        keys: Vec<Item>,
        /// The error that stopped the retries, when one did (otherwise the
        /// attempts ran out with items still unprocessed).
        cause: Option<Box<Error>>,
    },
    /// Any other error of the DynamoDB service or the SDK.
    Service(Box<crate::sdk::Error>),
    /// A migration worker lost its lease on a segment (it stalled past
    /// the lease, and another worker took the segment over): it stops, and
    /// the other goes on from the last checkpoint.
    LeaseLost {
        /// The job.
        job: String,
        /// The segment.
        segment: u32,
    },
    /// Counter changes of a stream batch that could not be applied, each
    /// with its error; every other change of the batch was applied (and
    /// marked, so a redelivery counts it once).
    Counters(Vec<crate::aggregate::CounterFailure>),
    /// An access pattern waits for a migration job the lock has not
    /// verified (as DynamoDB's own `Backfilling` for a new index): its
    /// results would be incomplete or stale until the job is done.
    /// `Repository::allow_pending` reads anyway.
    Pending {
        /// The access pattern.
        pattern: &'static str,
        /// The job it waits for.
        job: &'static str,
    },
}

// `Display` describes this layer only, so a chain printer (`{:#}` of
// anyhow, eyre's reports) shows each cause once: the wrappers of this
// crate's own errors are transparent (their text, their `source()`), a
// service error and the cause of unprocessed items are a cause of their own.
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Value(e) => e.fmt(f),
            Error::Decode(e) => e.fmt(f),
            Error::Tenant(e) => e.fmt(f),
            Error::ForeignItem(e) => e.fmt(f),
            Error::Cursor(e) => e.fmt(f),
            Error::Token(e) => e.fmt(f),
            Error::ConditionFailed { entity, operation } => {
                let why = match *operation {
                    "create" => "the item already exists",
                    "update" => "the item does not exist",
                    _ => "its condition does not hold",
                };
                write!(f, "{operation} of {entity} failed: {why}")
            }
            Error::VersionConflict {
                entity,
                operation,
                expected,
            } => write!(
                f,
                "{operation} of {entity} failed: the stored version is not {expected} (changed or deleted by another writer)"
            ),
            Error::ConditionNotMet {
                entity,
                operation,
                stored,
            } => write!(
                f,
                "{operation} of {entity} failed: its condition does not hold on the stored item{}",
                if stored.is_none() { " (there is none)" } else { "" }
            ),
            Error::AlreadyAsWritten { entity, operation } => write!(
                f,
                "{operation} of {entity}: the item is already as this call leaves it (an earlier attempt whose answer was lost made it so, or another writer did the same)"
            ),
            Error::TransactionCanceled(reasons) => {
                f.write_str("transaction canceled")?;
                for r in reasons {
                    write!(f, "; item {}", r.index)?;
                    if !r.item.is_empty() {
                        write!(f, " ({})", r.item)?;
                    }
                    write!(f, ": {}", r.code)?;
                }
                Ok(())
            }
            Error::TooManyItems {
                pattern,
                items,
                max,
            } => write!(f, "{pattern}: {items} items, more than the {max} allowed"),
            Error::NoPageKeys { pattern } => write!(
                f,
                "{pattern}: a page needs the keys that seal page tokens \
                 (Repository::with_page_tokens)"
            ),
            Error::IncompleteUpdate {
                entity,
                key_attribute,
                missing,
            } => write!(
                f,
                "update of {entity} changes index key `{key_attribute}`, which also needs {}",
                missing.join(", ")
            ),
            Error::Unprocessed {
                writes,
                keys,
                cause,
            } => {
                write!(
                    f,
                    "{} writes and {} reads left unprocessed after retries",
                    writes.len(),
                    keys.len()
                )?;
                if cause.is_some() {
                    f.write_str(" (retries stopped by an error)")?;
                }
                Ok(())
            }
            Error::Service(_) => f.write_str("DynamoDB request failed"),
            Error::LeaseLost { job, segment } => write!(
                f,
                "job {job}: another worker took over segment {segment} (this worker's lease ran out)"
            ),
            Error::Counters(failed) => {
                write!(f, "{} counter change(s) failed", failed.len())?;
                for (i, failure) in failed.iter().enumerate() {
                    let sep = if i == 0 { ": " } else { "; " };
                    write!(
                        f,
                        "{sep}{} {:?}: {}",
                        failure.change.counter.entity, failure.change.group.key, failure.error
                    )?;
                }
                Ok(())
            }
            Error::Pending { pattern, job } => write!(
                f,
                "{pattern} waits for migration job {job}, which the lock has not verified (`singletable lock --verified {job}`; `Repository::allow_pending` reads anyway)"
            ),
        }
    }
}

impl Error {
    /// The stored item a failed condition was evaluated on
    /// ([`Error::ConditionNotMet`]), read as `E`; `None` for other errors
    /// and when there was no item.
    pub fn stored_as<E: crate::Entity>(&self) -> Option<Result<E, DecodeError>> {
        match self {
            Error::ConditionNotMet {
                stored: Some(item), ..
            } => Some(E::from_item(item)),
            _ => None,
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Value(e) => e.source(),
            Error::Decode(e) => e.source(),
            Error::Tenant(e) => e.source(),
            Error::ForeignItem(e) => e.source(),
            Error::Cursor(e) => e.source(),
            Error::Token(e) => e.source(),
            Error::Service(e) => Some(&**e),
            Error::Unprocessed {
                cause: Some(cause), ..
            } => Some(&**cause),
            _ => None,
        }
    }
}

impl From<DecodeError> for Error {
    fn from(e: DecodeError) -> Self {
        Error::Decode(e)
    }
}

impl From<ValueError> for Error {
    fn from(e: ValueError) -> Self {
        Error::Value(e)
    }
}

impl From<ForeignItem> for Error {
    fn from(e: ForeignItem) -> Self {
        Error::ForeignItem(e)
    }
}

impl From<CursorError> for Error {
    fn from(e: CursorError) -> Self {
        Error::Cursor(e)
    }
}

impl From<crate::token::TokenError> for Error {
    fn from(e: crate::token::TokenError) -> Self {
        Error::Token(e)
    }
}

impl From<InvalidTenantId> for Error {
    fn from(e: InvalidTenantId) -> Self {
        Error::Tenant(e)
    }
}

impl<E, R> From<crate::sdk::error::SdkError<E, R>> for Error
where
    crate::sdk::Error: From<crate::sdk::error::SdkError<E, R>>,
{
    fn from(e: crate::sdk::error::SdkError<E, R>) -> Self {
        Error::Service(Box::new(crate::sdk::Error::from(e)))
    }
}

/// A request the SDK refused to build (a required field missing): the same
/// kind of failure as one the service reports.
impl From<crate::sdk::error::BuildError> for Error {
    fn from(e: crate::sdk::error::BuildError) -> Self {
        Error::Service(Box::new(crate::sdk::Error::from(e)))
    }
}

impl Error {
    /// Names the items of a canceled transaction: `labels[i]` is what added
    /// item `i`.
    pub fn with_item_labels(mut self, labels: &[&'static str]) -> Self {
        if let Error::TransactionCanceled(reasons) = &mut self {
            for reason in reasons {
                if let Some(label) = labels.get(reason.index) {
                    reason.item = label;
                }
            }
        }
        self
    }

    /// Whether this is a failed conditional write.
    pub fn is_condition_failed(&self) -> bool {
        matches!(
            self,
            Error::ConditionFailed { .. } | Error::VersionConflict { .. }
        )
    }

    /// Whether the call may succeed when sent again: throttling, a server
    /// error, or a request whose answer never came (a timeout, a dropped
    /// connection), after the SDK's own retries.
    pub fn is_transient(&self) -> bool {
        match self {
            // No error code: no answer came (a timeout, a dropped
            // connection); the SDK's retries are spent.
            Error::Service(_) => {
                self.service_code().is_none()
                    || matches!(
                        self.service_code(),
                        Some(
                            "ProvisionedThroughputExceededException"
                                | "ThrottlingException"
                                | "RequestLimitExceeded"
                                | "InternalServerError"
                                | "ServiceUnavailable"
                        )
                    )
            }
            Error::Unprocessed { .. } => true,
            Error::Counters(failed) => failed.iter().all(|f| f.error.is_transient()),
            _ => false,
        }
    }

    /// The service error code (`ConditionalCheckFailedException`, …), if any.
    pub fn service_code(&self) -> Option<&str> {
        use crate::sdk::error::ProvideErrorMetadata;
        match self {
            Error::Service(e) => e.code(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::*;

    /// Each layer's text once, the way `{:#}` of anyhow prints a chain.
    fn chain(e: &dyn std::error::Error) -> Vec<String> {
        let mut out = vec![e.to_string()];
        let mut next = e.source();
        while let Some(cause) = next {
            out.push(cause.to_string());
            next = cause.source();
        }
        out
    }

    #[test]
    fn a_chain_shows_each_cause_once() {
        let decode = Error::from(DecodeError::new("Ticket", "title", DecodeProblem::Missing));
        assert_eq!(
            chain(&decode),
            ["cannot decode Ticket: attribute `title` is missing"]
        );

        let service = crate::sdk::Error::ResourceNotFoundException(
            crate::sdk::types::error::ResourceNotFoundException::builder()
                .message("no table Tickets")
                .build(),
        );
        let e = Error::Service(Box::new(service));
        let texts = chain(&e);
        assert_eq!(texts[0], "DynamoDB request failed");
        assert!(texts[1].contains("no table Tickets"), "{texts:?}");
        assert!(
            e.source()
                .and_then(|s| s.downcast_ref::<crate::sdk::Error>())
                .is_some(),
            "the SDK's error is the source itself"
        );
        for (i, text) in texts.iter().enumerate() {
            for later in &texts[i + 1..] {
                assert!(!text.contains(later.as_str()), "{text:?} repeats {later:?}");
            }
        }

        let unprocessed = Error::Unprocessed {
            writes: Vec::new(),
            keys: Vec::new(),
            cause: Some(Box::new(e)),
        };
        let texts = chain(&unprocessed);
        assert_eq!(
            texts,
            [
                "0 writes and 0 reads left unprocessed after retries (retries stopped by an error)",
                "DynamoDB request failed",
                &texts[2],
            ]
        );
        assert!(texts[2].contains("no table Tickets"));
    }
}
