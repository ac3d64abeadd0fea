//! `maintained_by: stream`: item changes read from a DynamoDB stream become counter changes, applied once each.

use super::*;
use crate::sdk::Client;

/// One change of an item, as a DynamoDB Streams record carries it: the
/// image before (absent for an insert) and after (absent for a removal),
/// and which record it is.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChangeRecord {
    /// `OldImage`.
    pub old: Option<Item>,
    /// `NewImage`.
    pub new: Option<Item>,
    /// Which stream record this is; with it, [`apply`] applies the record
    /// once however often it is delivered. `None` for a change made up by
    /// hand, which is applied each time.
    pub id: Option<RecordId>,
    /// The record's `SequenceNumber` in its shard: what a Lambda partial
    /// batch response names ([`settle`]).
    pub sequence_number: Option<String>,
}

/// A stream record's identity: what the stream delivers again, unchanged,
/// when a batch is redelivered.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RecordId {
    /// `eventID`: globally unique per record.
    pub event_id: String,
    /// `ApproximateCreationDateTime`, in seconds since the Unix epoch: when
    /// the record's mark may be forgotten (the stream keeps records for 24
    /// hours).
    pub created: i64,
}

impl RecordId {
    /// The mark a counter item keeps of an applied record:
    /// `<hours since the epoch>:<eventID>`.
    fn mark(&self) -> String {
        format!("{}:{}", self.created.div_euclid(3600), self.event_id)
    }
}

/// The counter item's string set of the records applied to it in the last
/// [`RETAINED_HOURS`]: generated attribute names begin with `__`, which a
/// spec's attributes may not.
pub const APPLIED_ATTRIBUTE: &str = "__applied";

/// How long a counter remembers a record it applied: the stream keeps a
/// record for 24 hours, so no redelivery comes later than that (one hour
/// more for clock skew between records).
pub const RETAINED_HOURS: i64 = 25;

/// How many records one counter update marks: 50 `NOT contains(…)` terms
/// stay well within DynamoDB's 4 KB expression limit.
const MARKS_PER_UPDATE: usize = 50;

/// What to add to one counter.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CounterChange {
    /// The counter.
    pub counter: Counter,
    /// Its group (the counter item's key and attributes).
    pub group: Group,
    /// The amount to add (negative to subtract): the sum of `records`'
    /// parts, and of the records without an identity.
    pub delta: i64,
    /// The identified stream records this change is made of, each with its
    /// part of `delta` (records that left the group as it was are not
    /// here).
    pub records: Vec<(RecordId, i64)>,
}

/// The counter changes of `records` for items of entity `E`: +1 for the
/// new image's group, −1 for the old image's, netted per counter (each
/// identified record keeps its own part, so [`apply`] can apply it once).
/// Images of other entities are skipped; an image of `E` that does not
/// decode is an error naming the attribute, and the other records are
/// still counted. `group_of` takes the image (it reads the tenant from the
/// item's key).
pub fn count_changes<E: Entity>(
    records: &[ChangeRecord],
    counter: &Counter,
    group_of: fn(&Item, &E) -> Result<Group, Error>,
) -> (Vec<CounterChange>, Vec<Error>) {
    let mut changes: Vec<CounterChange> = Vec::new();
    let mut errors = Vec::new();
    for record in records {
        let mut parts: Vec<(Group, i64)> = Vec::new();
        for (image, delta) in [(&record.old, -1), (&record.new, 1)] {
            // An image that says it is of `E` without `E`'s key is a
            // forgery: an error, never counted.
            // While a recount is pending, only marked images count.
            let Some(item) = image
                .as_ref()
                .filter(|i| E::IDENTITY.claims(i) && counter.counts(i))
            else {
                continue;
            };
            let group = crate::entity::claimed::<E>(item, E::ENTITY_TYPE, None)
                .map_err(Error::from)
                .and_then(|value| group_of(item, &value));
            match group {
                Ok(group) => match parts.iter_mut().find(|(g, _)| g.key == group.key) {
                    Some((_, d)) => *d += delta,
                    None => parts.push((group, delta)),
                },
                Err(e) => errors.push(e),
            }
        }
        for (group, delta) in parts.into_iter().filter(|(_, d)| *d != 0) {
            let change = match changes.iter_mut().find(|c| c.group.key == group.key) {
                Some(change) => change,
                None => {
                    changes.push(CounterChange {
                        counter: *counter,
                        group,
                        delta: 0,
                        records: Vec::new(),
                    });
                    changes.last_mut().expect("a change was just pushed")
                }
            };
            change.delta += delta;
            if let Some(id) = &record.id {
                change.records.push((id.clone(), delta));
            }
        }
    }
    // A change that nets to nothing is still applied when it is made of
    // identified records: their marks keep a later redelivery of some of
    // them from counting them alone.
    changes.retain(|c| c.delta != 0 || !c.records.is_empty());
    (changes, errors)
}

/// Applies counter changes, one UpdateItem each (ADD, creating the counter
/// item when there is none). A change's identified records are applied
/// once: the counter item keeps a mark of each record it applied (in
/// [`APPLIED_ATTRIBUTE`], for [`RETAINED_HOURS`]) and the update applies
/// only the records it holds no mark of — so a batch Lambda delivers again
/// (whole, split, or from a failed record on), or an update whose answer
/// was lost and that the SDK sent again, counts each record once.
///
/// Each counter is applied on its own: a counter that cannot be updated
/// (its item was written by other code with a count that is not a number,
/// say) stops no other. Every change is tried; the ones that failed come
/// back in [`Error::Counters`], each with its error, and the rest are
/// applied — so when the stream delivers the batch again, the others are
/// already marked and count nothing twice.
pub async fn apply(
    client: &Client,
    table: &TableInfo<'_>,
    changes: &[CounterChange],
) -> Result<(), Error> {
    let mut failed = Vec::new();
    for change in changes {
        if let Err(error) = apply_change(client, table, change).await {
            #[cfg(feature = "tracing")]
            tracing::warn!(
                counter = change.counter.entity,
                error = %error,
                "a counter change failed; the other counters are applied"
            );
            failed.push(CounterFailure {
                change: change.clone(),
                error,
            });
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Error::Counters(failed))
    }
}

/// A counter change [`apply`] could not make, and why.
#[derive(Debug)]
#[non_exhaustive]
pub struct CounterFailure {
    /// The change (its counter item's key is `change.group.key`).
    pub change: CounterChange,
    /// Why it failed.
    pub error: Error,
}

/// The operation of the refusal of a change that would take a count out of
/// its declared range.
pub(super) const RANGE_REFUSAL: &str =
    "apply counter changes (the count would leave its declared range)";

/// What a stream handler tells Lambda after [`apply`]: a partial batch
/// response (`ReportBatchItemFailures` on the event source mapping) and the
/// changes to report.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Settlement {
    /// The `SequenceNumber` to deliver the batch again from: the earliest
    /// record of a change that failed for a reason that may pass
    /// (throttling, an answer that never came). Lambda retries from it;
    /// every change already applied is marked and counts nothing twice.
    /// `None`: the batch is done.
    pub retry_from: Option<String>,
    /// The changes refused for good: a counter item that cannot be updated
    /// (other code wrote it with a count that is not a number, say) or a
    /// count that would leave its declared range. Delivered again, they
    /// would fail again and hold back every later record of the shard and
    /// every tenant's counters in it; so they are the caller's to report
    /// (a log, a queue), and the batch goes on.
    pub refused: Vec<CounterFailure>,
}

/// Settles a batch of `records` after [`apply`]`(…)` returned `outcome`.
/// Failures that may pass become [`Settlement::retry_from`], the earliest
/// sequence number of their records; failures that would recur become
/// [`Settlement::refused`]. An error that is not a counter's, or a
/// failure that may pass whose records have no identity or sequence number
/// (Lambda could not redeliver just them), or a failure that is neither
/// (access denied, attempts spent against another writer) is returned:
/// fail the invocation, and Lambda delivers the whole batch again.
pub fn settle(records: &[ChangeRecord], outcome: Result<(), Error>) -> Result<Settlement, Error> {
    let failed = match outcome {
        Ok(()) => return Ok(Settlement::default()),
        Err(Error::Counters(failed)) => failed,
        Err(other) => return Err(other),
    };
    // Refused for good: the count would leave its range, or the counter
    // item's data cannot take the update (a count that is not a number,
    // marks that are not a string set). Anything else — a refusal of the
    // credentials, a missing table, attempts spent against another writer —
    // is no verdict on the data: it fails the invocation unless it may pass.
    let for_good = |e: &Error| {
        matches!(e, Error::ConditionFailed { operation, .. } if *operation == RANGE_REFUSAL)
            || e.service_code() == Some("ValidationException")
    };
    let (refused, others): (Vec<_>, Vec<_>) = failed.into_iter().partition(|f| for_good(&f.error));
    if others.iter().any(|f| !f.error.is_transient()) {
        return Err(Error::Counters(others));
    }
    let transient = others;
    // Sequence numbers are decimal digits: the shorter is the earlier.
    fn order<'a>(n: &&'a str) -> (usize, &'a str) {
        (n.len(), n)
    }
    let earliest: Option<Vec<&str>> = transient
        .iter()
        .map(|failure| {
            let change = &failure.change;
            let identified: i64 = change.records.iter().map(|(_, d)| d).sum();
            if identified != change.delta {
                // A part of the change no record identifies.
                return None;
            }
            change
                .records
                .iter()
                .map(|(id, _)| {
                    records
                        .iter()
                        .find(|r| r.id.as_ref() == Some(id))
                        .and_then(|r| r.sequence_number.as_deref())
                })
                .collect::<Option<Vec<&str>>>()?
                .into_iter()
                .min_by_key(order)
        })
        .collect();
    match earliest {
        Some(earliest) => Ok(Settlement {
            retry_from: earliest.into_iter().min_by_key(order).map(str::to_owned),
            refused,
        }),
        None => Err(Error::Counters(transient)),
    }
}

async fn apply_change(
    client: &Client,
    table: &TableInfo<'_>,
    change: &CounterChange,
) -> Result<(), Error> {
    let unidentified = change.delta - change.records.iter().map(|(_, d)| d).sum::<i64>();
    if unidentified != 0 || change.records.is_empty() {
        let update = add_to(&change.counter, &change.group, unidentified)?;
        let key = change.group.key.clone();
        ops::update(client, table, key, update, change.counter.entity).await?;
    }
    let newest = change.records.iter().map(|(id, _)| id.created).max();
    for chunk in change.records.chunks(MARKS_PER_UPDATE) {
        let stored = apply_once(client, table, change, chunk).await?;
        if let Some(newest) = newest {
            forget_old_marks(client, table, change, &stored, newest).await?;
        }
    }
    Ok(())
}

/// Adds the parts of `records` the counter holds no mark of, with their
/// marks, and returns the counter item as left. Another writer may mark
/// some of them between a refusal and the next attempt (the same batch
/// handled twice at once): each attempt drops what the refusal showed.
async fn apply_once(
    client: &Client,
    table: &TableInfo<'_>,
    change: &CounterChange,
    records: &[(RecordId, i64)],
) -> Result<Item, Error> {
    // A record delivered twice in one batch is one record.
    let mut pending: Vec<(String, i64)> = Vec::new();
    for (id, delta) in records {
        let mark = id.mark();
        if !pending.iter().any(|(m, _)| *m == mark) {
            pending.push((mark, *delta));
        }
    }
    for _ in 0..ATTEMPTS {
        if pending.is_empty() {
            return Ok(Item::new());
        }
        let marks: Vec<String> = pending.iter().map(|(m, _)| m.clone()).collect();
        let unmarked = marks
            .iter()
            .map(|m| {
                let held = crate::Condition::of(
                    "contains",
                    APPLIED_ATTRIBUTE,
                    vec![Ok(AttributeValue::S(m.clone()))],
                );
                !held
            })
            .reduce(crate::Condition::and)
            .expect("pending is not empty");
        let delta = pending.iter().map(|(_, d)| d).sum();
        let mut update = add_to(&change.counter, &change.group, delta)?;
        update
            .add
            .push((APPLIED_ATTRIBUTE, AttributeValue::Ss(marks)));
        update.when = Some(unmarked);
        // The marks make it exact: a plain UpdateItem, not a transaction.
        update.plain = true;
        let key = change.group.key.clone();
        match ops::update(client, table, key, update, change.counter.entity).await {
            Ok(item) => return Ok(item),
            Err(Error::ConditionNotMet { stored, .. }) => {
                let held = stored.as_deref().map(applied_marks).unwrap_or_default();
                let before = pending.len();
                pending.retain(|(m, _)| !held.contains(m));
                // Refused with none of its records applied: the count
                // would leave its declared range.
                if pending.len() == before {
                    return Err(Error::ConditionFailed {
                        entity: change.counter.entity,
                        operation: RANGE_REFUSAL,
                    });
                }
            }
            Err(e) => return Err(e),
        }
    }
    Err(Error::ConditionFailed {
        entity: change.counter.entity,
        operation: "apply counter changes",
    })
}

/// The marks a counter item holds.
fn applied_marks(item: &Item) -> Vec<String> {
    match item.get(APPLIED_ATTRIBUTE) {
        Some(AttributeValue::Ss(marks)) => marks.clone(),
        _ => Vec::new(),
    }
}

/// Removes the marks of records created more than [`RETAINED_HOURS`]
/// before `newest` (the newest record applied), which no redelivery can
/// bring again, so a counter item holds about a day of marks.
async fn forget_old_marks(
    client: &Client,
    table: &TableInfo<'_>,
    change: &CounterChange,
    item: &Item,
    newest: i64,
) -> Result<(), Error> {
    let cutoff = newest.div_euclid(3600) - RETAINED_HOURS;
    let old: Vec<String> = applied_marks(item)
        .into_iter()
        .filter(|m| {
            m.split_once(':')
                .and_then(|(hour, _)| hour.parse::<i64>().ok())
                .is_none_or(|hour| hour < cutoff)
        })
        .collect();
    if old.is_empty() {
        return Ok(());
    }
    let update = Update {
        delete: vec![(APPLIED_ATTRIBUTE, AttributeValue::Ss(old))],
        entity: change.counter.entity,
        ..Update::default()
    };
    let key = change.group.key.clone();
    ops::update(client, table, key, update, change.counter.entity).await?;
    Ok(())
}
