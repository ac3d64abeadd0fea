//! The control table: one item per job and one per segment, with the
//! segment's checkpoint (the last key read, the counts) and its lease.
//!
//! Every write here is conditional on the worker's lease and on the page
//! number it moves from, so a checkpoint sent again after a lost answer
//! finds its own write and goes on, and a worker whose lease another took
//! stops instead of moving the segment back.

use std::collections::HashMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::Counts;
use crate::sdk::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType, ReturnValue,
    ReturnValuesOnConditionCheckFailure, ScalarAttributeType,
};
use crate::sdk::Client;
use crate::{Error, Item};

/// Where one segment of a job stands.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SegmentState {
    /// The segment.
    pub segment: u32,
    /// Every item of it was read and applied.
    pub done: bool,
    /// The key of the last item read, where the next page starts.
    pub last_key: Option<Item>,
    /// The counts so far.
    pub counts: Counts,
    /// How many pages were committed.
    pub page: u64,
    /// The worker holding the lease.
    pub owner: Option<String>,
    /// When the lease ends, in milliseconds since the epoch.
    pub lease_until: u64,
    /// A few items that break the new rules, named by key, with why.
    pub examples: Vec<String>,
}

/// The most invalid items a segment lists.
pub(crate) const MAX_EXAMPLES: usize = 10;

/// A job's checkpoints, in a table of its own beside the table the job
/// reads (`<table>__singletable` by default), so that they take no
/// capacity, no tenant key prefix and no scan of the table itself.
#[derive(Debug, Clone)]
pub struct ControlTable {
    client: Client,
    name: String,
}

pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn s(text: impl Into<String>) -> AttributeValue {
    AttributeValue::S(text.into())
}

fn n(number: u64) -> AttributeValue {
    AttributeValue::N(number.to_string())
}

fn number(item: &Item, name: &str) -> u64 {
    match item.get(name) {
        Some(AttributeValue::N(v)) => v.parse().unwrap_or(0),
        _ => 0,
    }
}

impl ControlTable {
    /// The control table `name`.
    pub fn new(client: Client, name: impl Into<String>) -> Self {
        ControlTable {
            client,
            name: name.into(),
        }
    }

    /// The default control table of `table`: `<table>__singletable`.
    pub fn for_table(client: Client, table: &str) -> Self {
        ControlTable::new(client, format!("{table}__singletable"))
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Creates the table (on-demand, keys `pk` and `sk`) when it does not
    /// exist, and waits until it is active.
    pub async fn ensure(&self) -> Result<(), Error> {
        let key = |name: &str, kind: KeyType| {
            KeySchemaElement::builder()
                .attribute_name(name)
                .key_type(kind)
                .build()
        };
        let def = |name: &str| {
            AttributeDefinition::builder()
                .attribute_name(name)
                .attribute_type(ScalarAttributeType::S)
                .build()
        };
        let created = self
            .client
            .create_table()
            .table_name(&self.name)
            .billing_mode(BillingMode::PayPerRequest)
            .key_schema(key("pk", KeyType::Hash)?)
            .key_schema(key("sk", KeyType::Range)?)
            .attribute_definitions(def("pk")?)
            .attribute_definitions(def("sk")?)
            .send()
            .await;
        if let Err(e) = created {
            let e = Error::from(e);
            if e.service_code() != Some("ResourceInUseException") {
                return Err(e);
            }
        }
        for _ in 0..600 {
            let status = self
                .client
                .describe_table()
                .table_name(&self.name)
                .send()
                .await?
                .table
                .and_then(|t| t.table_status);
            if status == Some(crate::sdk::types::TableStatus::Active) {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Ok(())
    }

    fn key(job: &str, sort: String) -> HashMap<String, AttributeValue> {
        HashMap::from([
            ("pk".to_owned(), s(format!("JOB#{job}"))),
            ("sk".to_owned(), s(sort)),
        ])
    }

    fn segment_key(job: &str, segment: u32) -> HashMap<String, AttributeValue> {
        Self::key(job, format!("SEG#{segment:07}"))
    }

    /// The number of segments of `job`: the one it was started with, or
    /// `total` when this starts it. Fixed for the job's life, since a
    /// segment's checkpoint is a position in that split.
    pub async fn start_job(&self, job: &str, total: u32) -> Result<u32, Error> {
        let output = self
            .client
            .update_item()
            .table_name(&self.name)
            .set_key(Some(Self::key(job, "JOB".to_owned())))
            .update_expression("SET total_segments = if_not_exists(total_segments, :t), started_at = if_not_exists(started_at, :now)")
            .expression_attribute_values(":t", n(u64::from(total)))
            .expression_attribute_values(":now", n(now_ms()))
            .return_values(ReturnValue::AllNew)
            .send()
            .await?;
        let stored = output.attributes.unwrap_or_default();
        Ok(u32::try_from(number(&stored, "total_segments")).unwrap_or(total))
    }

    /// Takes the lease of `segment` for `owner` until `lease` from now:
    /// its state, or `None` when another worker holds a live lease or the
    /// segment is done.
    pub async fn acquire(
        &self,
        job: &str,
        segment: u32,
        owner: &str,
        lease: Duration,
    ) -> Result<Option<SegmentState>, Error> {
        let now = now_ms();
        let until = now + u64::try_from(lease.as_millis()).unwrap_or(u64::MAX / 2);
        let result = self
            .client
            .update_item()
            .table_name(&self.name)
            .set_key(Some(Self::segment_key(job, segment)))
            .update_expression("SET lease_owner = :me, lease_until = :until, page = if_not_exists(page, :zero), done = if_not_exists(done, :f)")
            .condition_expression("(attribute_not_exists(lease_until) OR lease_until < :now OR lease_owner = :me) AND (attribute_not_exists(done) OR done = :f)")
            .expression_attribute_values(":me", s(owner))
            .expression_attribute_values(":until", n(until))
            .expression_attribute_values(":now", n(now))
            .expression_attribute_values(":zero", n(0))
            .expression_attribute_values(":f", AttributeValue::Bool(false))
            .return_values(ReturnValue::AllNew)
            .send()
            .await
            .map_err(Error::from);
        match result {
            Ok(output) => Ok(Some(state(segment, &output.attributes.unwrap_or_default()))),
            Err(e) if e.service_code() == Some("ConditionalCheckFailedException") => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Moves `segment`'s checkpoint from page `state.page - 1` to `state`,
    /// renewing the lease; fails with [`Error::LeaseLost`] when another
    /// worker took the segment. A commit whose answer was lost and that is
    /// sent again finds its own write, and succeeds.
    pub async fn commit(
        &self,
        job: &str,
        state: &SegmentState,
        owner: &str,
        lease: Duration,
    ) -> Result<(), Error> {
        let until = now_ms() + u64::try_from(lease.as_millis()).unwrap_or(u64::MAX / 2);
        let mut set = vec![
            "page = :next",
            "done = :done",
            "lease_until = :until",
            "scanned = :scanned",
            "updated = :updated",
            "already_done = :already",
            "skipped = :skipped",
            "changed = :changed",
            "invalid = :invalid",
            "examples = :examples",
        ];
        let c = state.counts;
        let mut request = self
            .client
            .update_item()
            .table_name(&self.name)
            .set_key(Some(Self::segment_key(job, state.segment)))
            .condition_expression("lease_owner = :me AND page = :page")
            .expression_attribute_values(":me", s(owner))
            .expression_attribute_values(":page", n(state.page.saturating_sub(1)))
            .expression_attribute_values(":next", n(state.page))
            .expression_attribute_values(":done", AttributeValue::Bool(state.done))
            .expression_attribute_values(":until", n(until))
            .expression_attribute_values(":scanned", n(c.scanned))
            .expression_attribute_values(":updated", n(c.updated))
            .expression_attribute_values(":already", n(c.already_done))
            .expression_attribute_values(":skipped", n(c.skipped))
            .expression_attribute_values(":changed", n(c.changed_concurrently))
            .expression_attribute_values(":invalid", n(c.invalid))
            .expression_attribute_values(
                ":examples",
                AttributeValue::L(state.examples.iter().map(s).collect()),
            )
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
        let expression = match &state.last_key {
            Some(key) => {
                set.push("lek = :lek");
                request =
                    request.expression_attribute_values(":lek", AttributeValue::M(key.clone()));
                format!("SET {}", set.join(", "))
            }
            None => format!("SET {} REMOVE lek", set.join(", ")),
        };
        match request.update_expression(expression).send().await {
            Ok(_) => Ok(()),
            Err(e) => {
                let stored = match &e {
                    crate::sdk::error::SdkError::ServiceError(service) => match service.err() {
                        crate::sdk::operation::update_item::UpdateItemError::ConditionalCheckFailedException(c) => c.item.clone(),
                        _ => None,
                    },
                    _ => None,
                };
                match stored {
                    // The same commit, applied by an attempt whose answer was lost.
                    Some(item)
                        if matches!(item.get("lease_owner"), Some(AttributeValue::S(o)) if o == owner)
                            && number(&item, "page") == state.page =>
                    {
                        Ok(())
                    }
                    Some(_) => Err(Error::LeaseLost {
                        job: job.to_owned(),
                        segment: state.segment,
                    }),
                    None => Err(Error::from(e)),
                }
            }
        }
    }

    /// Extends `owner`'s lease of `segment` (at page `page`) by `lease`
    /// from now, between checkpoints of a page that takes long; fails with
    /// [`Error::LeaseLost`] when another worker took the segment.
    pub async fn renew(
        &self,
        job: &str,
        segment: u32,
        page: u64,
        owner: &str,
        lease: Duration,
    ) -> Result<(), Error> {
        let until = now_ms() + u64::try_from(lease.as_millis()).unwrap_or(u64::MAX / 2);
        let result = self
            .client
            .update_item()
            .table_name(&self.name)
            .set_key(Some(Self::segment_key(job, segment)))
            .update_expression("SET lease_until = :until")
            .condition_expression("lease_owner = :me AND page = :page")
            .expression_attribute_values(":me", s(owner))
            .expression_attribute_values(":page", n(page))
            .expression_attribute_values(":until", n(until))
            .send()
            .await
            .map_err(Error::from);
        match result {
            Err(e) if e.service_code() == Some("ConditionalCheckFailedException") => {
                Err(Error::LeaseLost {
                    job: job.to_owned(),
                    segment,
                })
            }
            other => other.map(|_| ()),
        }
    }

    /// Every segment item of `job`, by segment.
    pub async fn segments(&self, job: &str) -> Result<Vec<SegmentState>, Error> {
        let mut out = Vec::new();
        let mut start: Option<HashMap<String, AttributeValue>> = None;
        loop {
            let page = self
                .client
                .query()
                .table_name(&self.name)
                .key_condition_expression("pk = :pk AND begins_with(sk, :seg)")
                .expression_attribute_values(":pk", s(format!("JOB#{job}")))
                .expression_attribute_values(":seg", s("SEG#"))
                .consistent_read(true)
                .set_exclusive_start_key(start.take())
                .send()
                .await?;
            for item in page.items.unwrap_or_default() {
                let segment = match item.get("sk") {
                    Some(AttributeValue::S(sk)) => {
                        sk.trim_start_matches("SEG#").parse().unwrap_or(0)
                    }
                    _ => 0,
                };
                out.push(state(segment, &item));
            }
            match page.last_evaluated_key.filter(|k| !k.is_empty()) {
                Some(key) => start = Some(key),
                None => break,
            }
        }
        Ok(out)
    }

    /// Forgets `segment`'s checkpoint and lease: the next run reads it
    /// from its start (its writes are idempotent).
    pub async fn reset(&self, job: &str, segment: u32) -> Result<(), Error> {
        self.client
            .delete_item()
            .table_name(&self.name)
            .set_key(Some(Self::segment_key(job, segment)))
            .send()
            .await?;
        Ok(())
    }

    /// Records that `job`'s verify found nothing left.
    pub async fn mark_verified(&self, job: &str) -> Result<(), Error> {
        self.client
            .update_item()
            .table_name(&self.name)
            .set_key(Some(Self::key(job, "JOB".to_owned())))
            .update_expression("SET verified_at = :now")
            .expression_attribute_values(":now", n(now_ms()))
            .send()
            .await?;
        Ok(())
    }
}

/// A segment's state read from its item.
fn state(segment: u32, item: &Item) -> SegmentState {
    SegmentState {
        segment,
        done: matches!(item.get("done"), Some(AttributeValue::Bool(true))),
        last_key: match item.get("lek") {
            Some(AttributeValue::M(key)) => Some(key.clone()),
            _ => None,
        },
        counts: Counts {
            scanned: number(item, "scanned"),
            updated: number(item, "updated"),
            already_done: number(item, "already_done"),
            skipped: number(item, "skipped"),
            changed_concurrently: number(item, "changed"),
            invalid: number(item, "invalid"),
        },
        page: number(item, "page"),
        owner: match item.get("lease_owner") {
            Some(AttributeValue::S(o)) => Some(o.clone()),
            _ => None,
        },
        lease_until: number(item, "lease_until"),
        examples: match item.get("examples") {
            Some(AttributeValue::L(list)) => list
                .iter()
                .filter_map(|v| match v {
                    AttributeValue::S(s) => Some(s.clone()),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        },
    }
}
