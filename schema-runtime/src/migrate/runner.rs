//! Running a job over a table: segments, pages, checkpoints, leases, the
//! capacity budget and retries.

use futures_util::StreamExt as _;

use std::sync::Arc;
use std::time::Duration;

use super::control::{ControlTable, SegmentState, MAX_EXAMPLES};
use super::limit::{Bucket, Limits};
use super::{Context, Counts, Job, Outcome};
use crate::batch::retry;
use crate::sdk::types::{AttributeValue, ReturnConsumedCapacity};
use crate::{Error, Item};

/// What one segment's run did.
#[derive(Debug, Clone, PartialEq)]
pub struct SegmentReport {
    /// The segment.
    pub segment: u32,
    /// The counts of this run (a resumed segment's earlier counts are in
    /// the control table).
    pub counts: Counts,
    /// Whether the segment is done.
    pub done: bool,
}

/// What `verify` found: the items the job would still change, and a few
/// of them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Remaining {
    /// Items read.
    pub scanned: u64,
    /// Items the job would still change (or that break the rules).
    pub count: u64,
    /// Some of them, by key, with why.
    pub examples: Vec<String>,
}

/// Runs a job over a table, segment by segment.
pub struct Runner<'j> {
    context: Context,
    control: ControlTable,
    job: &'j dyn Job,
    source: Option<String>,
    total: u32,
    page_size: i32,
    limits: Limits,
    owner: String,
    lease: Duration,
    attempts: u32,
    in_flight: usize,
    progress: Option<Arc<ProgressFn>>,
}

/// Where a worker is, after each page it applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// The segment.
    pub segment: u32,
    /// The job's number of segments.
    pub total_segments: u32,
    /// Pages of the segment applied so far (by any worker).
    pub page: u64,
    /// The segment's counts so far (by any worker).
    pub counts: Counts,
    /// Whether the segment is done.
    pub done: bool,
}

/// What [`Runner::on_progress`] calls.
pub type ProgressFn = dyn Fn(&Progress) + Send + Sync;

/// How many times a request that failed transiently is sent again.
const ATTEMPTS: u32 = 12;

/// Items of a page applied at once, unless [`Runner::in_flight`] says.
const ITEMS_IN_FLIGHT: usize = 64;

impl<'j> Runner<'j> {
    /// A dry run of `job` over `table`, in 16 segments of pages of 100
    /// items, with its checkpoints in `<table>__singletable`.
    pub fn new(client: crate::sdk::Client, table: impl Into<String>, job: &'j dyn Job) -> Self {
        let table = table.into();
        Runner {
            control: ControlTable::for_table(client.clone(), &table),
            context: Context {
                client,
                table,
                live: false,
            },
            job,
            source: None,
            total: 16,
            page_size: 100,
            limits: Limits::default(),
            owner: format!("worker-{:016x}", fastrand::u64(..)),
            lease: Duration::from_secs(60),
            attempts: ATTEMPTS,
            in_flight: ITEMS_IN_FLIGHT,
            progress: None,
        }
    }

    /// The table a job that reads another table (a copy) reads, instead
    /// of the one the job names: the old table under another name (a
    /// stage's, a test's).
    pub fn source_table(mut self, table: impl Into<String>) -> Self {
        self.source = Some(table.into());
        self
    }

    /// Items of a page applied at once (default 64): more hides more of
    /// the round trip to a remote table, within the capacity budget.
    pub fn in_flight(mut self, items: usize) -> Self {
        self.in_flight = items.max(1);
        self
    }

    /// Calls `report` after each page this worker applied (and committed,
    /// in a live run): for a progress bar, or counts in a service's metrics.
    pub fn on_progress(mut self, report: impl Fn(&Progress) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(report));
        self
    }

    /// Writes (otherwise a dry run: it reads, decides and counts).
    pub fn live(mut self, live: bool) -> Self {
        self.context.live = live;
        self
    }

    /// The number of segments of a job started now (a job keeps the
    /// number it started with).
    pub fn total_segments(mut self, total: u32) -> Self {
        self.total = total.clamp(1, crate::MAX_SEGMENTS);
        self
    }

    /// Items per Scan page.
    pub fn page_size(mut self, size: i32) -> Self {
        self.page_size = size.max(1);
        self
    }

    /// This worker's capacity budget.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// How long a segment stays this worker's without a checkpoint: a
    /// worker that stops holds its segments no longer than this.
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease;
        self
    }

    /// The control table.
    pub fn control_table(mut self, name: impl Into<String>) -> Self {
        self.control = ControlTable::new(self.context.client.clone(), name);
        self
    }

    /// The control table in use.
    pub fn control(&self) -> &ControlTable {
        &self.control
    }

    /// The job's segments, as the control table records them (creating it
    /// if needed).
    pub async fn status(&self) -> Result<Vec<SegmentState>, Error> {
        self.control.ensure().await?;
        self.control.segments(self.job.id()).await
    }

    /// Forgets one segment's checkpoint: it is read again from its start.
    pub async fn reset_segment(&self, segment: u32) -> Result<(), Error> {
        self.control.reset(self.job.id(), segment).await
    }

    /// Runs worker `worker` of `workers`: every segment `s ≡ worker (mod
    /// workers)`, then every other segment no worker holds, then — until
    /// the whole job is done — the segments of workers that stopped, as
    /// their leases run out. (A dry run reads its own segments only.)
    pub async fn run_worker(&self, worker: u32, workers: u32) -> Result<Vec<SegmentReport>, Error> {
        let total = self.start().await?;
        let mut reports = Vec::new();
        let segments: Vec<u32> = if self.context.live {
            order(worker, workers, total).collect()
        } else {
            order(worker, workers, total)
                .take_while(|s| s % workers.max(1) == worker % workers.max(1))
                .collect()
        };
        for segment in segments {
            if let Some(report) = self.run_segment(segment).await? {
                reports.push(report);
            }
        }
        if !self.context.live {
            return Ok(reports);
        }
        loop {
            let states = retry(self.attempts, || self.control.segments(self.job.id())).await?;
            let open: Vec<u32> = (0..total)
                .filter(|s| !states.iter().any(|state| state.segment == *s && state.done))
                .collect();
            if open.is_empty() {
                return Ok(reports);
            }
            let mut took = false;
            for segment in open {
                if let Some(report) = self.run_segment(segment).await? {
                    reports.push(report);
                    took = true;
                }
            }
            if !took {
                tokio::time::sleep((self.lease / 4).min(Duration::from_secs(1))).await;
            }
        }
    }

    /// The job's number of segments, starting the job if needed.
    async fn start(&self) -> Result<u32, Error> {
        if !self.context.live {
            return Ok(self.total);
        }
        self.control.ensure().await?;
        retry(self.attempts, || {
            self.control.start_job(self.job.id(), self.total)
        })
        .await
    }

    /// Runs one segment to its end: `None` when another worker holds it or
    /// it is done. A dry run reads the whole segment and writes nothing,
    /// not even a checkpoint.
    pub async fn run_segment(&self, segment: u32) -> Result<Option<SegmentReport>, Error> {
        let total = self.start().await?;
        if segment >= total {
            return Err(Error::Value(crate::ValueError {
                context: "migration",
                name: "segment",
                problem: format!(
                    "segment {segment} of {total}: the job has {total} segments, numbered from 0"
                ),
            }));
        }
        let mut state = if self.context.live {
            let acquired = retry(self.attempts, || {
                self.control
                    .acquire(self.job.id(), segment, &self.owner, self.lease)
            })
            .await?;
            match acquired {
                Some(state) => state,
                None => return Ok(None),
            }
        } else {
            SegmentState {
                segment,
                ..SegmentState::default()
            }
        };
        let before = state.counts;
        match self.pages(&mut state, total).await {
            Ok(()) => Ok(Some(SegmentReport {
                segment,
                counts: subtract(state.counts, before),
                done: true,
            })),
            // A worker that stalled past its lease leaves the segment to
            // the worker that took it over, which goes on from the last
            // checkpoint.
            Err(Error::LeaseLost { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Reads and applies `state`'s segment page by page to its end,
    /// committing each page; the lease is renewed while a page takes long.
    /// The next page is read while the current one is applied (its start
    /// is known once the current one is read), so a worker waits for one
    /// round trip per page less.
    async fn pages(&self, state: &mut SegmentState, total: u32) -> Result<(), Error> {
        let mut reads = Bucket::new(self.limits.max_rcu);
        let mut writes = Bucket::new(self.limits.max_wcu);
        let mut renewed = std::time::Instant::now();
        let segment = state.segment;
        let fetch = |start: Option<Item>| async move {
            retry(self.attempts, || self.page(segment, total, start.clone())).await
        };
        let mut fetched = if state.done {
            None
        } else {
            Some(fetch(state.last_key.clone()).await?)
        };
        while let Some((items, next, units)) = fetched.take() {
            reads.spend(units).await;
            let prefetch = async {
                match &next {
                    Some(start) => fetch(Some(start.clone())).await.map(Some),
                    None => Ok(None),
                }
            };
            let apply = async {
                let mut outcomes =
                    futures_util::stream::iter(items.iter().map(|item| async move {
                        let outcome =
                            retry(self.attempts, || self.job.apply(&self.context, item)).await;
                        (item, outcome)
                    }))
                    .buffer_unordered(self.in_flight);
                while let Some((item, outcome)) = outcomes.next().await {
                    let outcome = outcome?;
                    if let Outcome::Invalid(why) = &outcome {
                        if state.examples.len() < MAX_EXAMPLES {
                            state.examples.push(format!("{}: {why}", key_text(item)));
                        }
                    }
                    if outcome == Outcome::Updated {
                        writes.spend(1.0).await;
                    }
                    state.counts.add(&outcome);
                    if self.context.live && renewed.elapsed() > self.lease / 3 {
                        let (job, page) = (self.job.id(), state.page);
                        retry(self.attempts, || {
                            self.control
                                .renew(job, segment, page, &self.owner, self.lease)
                        })
                        .await?;
                        renewed = std::time::Instant::now();
                    }
                }
                Ok::<(), Error>(())
            };
            let (following, applied) = futures_util::future::join(prefetch, apply).await;
            applied?;
            state.done = next.is_none();
            state.last_key = next;
            state.page += 1;
            if self.context.live {
                let state = &*state;
                retry(self.attempts, || {
                    self.control
                        .commit(self.job.id(), state, &self.owner, self.lease)
                })
                .await?;
                renewed = std::time::Instant::now();
            }
            if let Some(report) = &self.progress {
                report(&Progress {
                    segment,
                    total_segments: total,
                    page: state.page,
                    counts: state.counts,
                    done: state.done,
                });
            }
            fetched = following?;
        }
        Ok(())
    }

    /// The table the job reads: the one [`Runner::source_table`] names,
    /// the job's own source, or the table it writes.
    fn scanned_table(&self) -> &str {
        match (&self.source, self.job.source()) {
            (Some(source), Some(_)) => source,
            (_, Some(source)) => source,
            (_, None) => &self.context.table,
        }
    }

    /// One Scan page of `segment`: its items, where the next one starts,
    /// and the read units it consumed.
    async fn page(
        &self,
        segment: u32,
        total: u32,
        start: Option<Item>,
    ) -> Result<(Vec<Item>, Option<Item>, f64), Error> {
        let output = self
            .context
            .client
            .scan()
            .table_name(self.scanned_table())
            .segment(i32::try_from(segment).unwrap_or(i32::MAX))
            .total_segments(i32::try_from(total).unwrap_or(i32::MAX))
            .limit(self.page_size)
            .set_exclusive_start_key(start)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await?;
        let units = crate::trace::units(output.consumed_capacity());
        let next = output.last_evaluated_key.filter(|k| !k.is_empty());
        Ok((output.items.unwrap_or_default(), next, units))
    }

    /// Reads the whole table (`segments` at once) and counts the items the
    /// job would still change; a verify job's own check. Writes nothing but,
    /// when none is left, the job's verified mark in the control table.
    pub async fn verify(&self, segments: u32) -> Result<Remaining, Error> {
        let segments = segments.clamp(1, crate::MAX_SEGMENTS);
        let mut all = Remaining::default();
        let scans = (0..segments).map(|segment| async move {
            let mut found = Remaining::default();
            let mut start = None;
            loop {
                let (items, next, _) = retry(self.attempts, || {
                    self.page(segment, segments, start.clone())
                })
                .await?;
                for item in &items {
                    found.scanned += 1;
                    let why = retry(self.attempts, || self.job.check(&self.context, item)).await?;
                    if let Some(why) = why {
                        found.count += 1;
                        if found.examples.len() < MAX_EXAMPLES {
                            found.examples.push(format!("{}: {why}", key_text(item)));
                        }
                    }
                }
                match next {
                    Some(key) => start = Some(key),
                    None => return Ok::<Remaining, Error>(found),
                }
            }
        });
        for found in futures_util::future::join_all(scans).await {
            let found = found?;
            all.scanned += found.scanned;
            all.count += found.count;
            let room = MAX_EXAMPLES.saturating_sub(all.examples.len());
            all.examples.extend(found.examples.into_iter().take(room));
        }
        if all.count == 0 && self.context.live {
            self.control.ensure().await?;
            self.control.mark_verified(self.job.id()).await?;
        }
        Ok(all)
    }
}

fn subtract(after: Counts, before: Counts) -> Counts {
    Counts {
        scanned: after.scanned - before.scanned.min(after.scanned),
        updated: after.updated - before.updated.min(after.updated),
        already_done: after.already_done - before.already_done.min(after.already_done),
        skipped: after.skipped - before.skipped.min(after.skipped),
        changed_concurrently: after.changed_concurrently
            - before.changed_concurrently.min(after.changed_concurrently),
        invalid: after.invalid - before.invalid.min(after.invalid),
    }
}

/// `{pk: "…", sk: "…"}`: an item's string and number attributes named
/// `pk`/`sk`-like (its first two), for examples.
fn key_text(item: &Item) -> String {
    let mut keys: Vec<(&String, &AttributeValue)> = item.iter().collect();
    keys.sort_by(|a, b| a.0.cmp(b.0));
    let shown: Vec<String> = keys
        .into_iter()
        .filter(|(k, _)| {
            k.as_str() == "pk"
                || k.as_str() == "sk"
                || k.to_ascii_lowercase().ends_with("pk")
                || k.to_ascii_lowercase().ends_with("sk")
        })
        .filter_map(|(k, v)| match v {
            AttributeValue::S(s) => Some(format!("{k}: {s:?}")),
            AttributeValue::N(n) => Some(format!("{k}: {n}")),
            _ => None,
        })
        .collect();
    format!("{{{}}}", shown.join(", "))
}

/// The order worker `worker` of `workers` takes the segments of `total`
/// in: its own (`s ≡ worker mod workers`), then the others.
fn order(worker: u32, workers: u32, total: u32) -> impl Iterator<Item = u32> {
    let workers = workers.max(1);
    let mine = worker % workers;
    let own = (mine..total).step_by(workers as usize);
    own.chain((0..total).filter(move |s| s % workers != mine))
}

#[cfg(test)]
mod tests {
    use super::order;

    #[test]
    fn workers_take_their_own_segments_by_stride_then_the_rest() {
        let (total, workers) = (10u32, 4u32);
        let firsts: Vec<Vec<u32>> = (0..workers)
            .map(|w| {
                order(w, workers, total)
                    .take_while(|s| s % workers == w)
                    .collect()
            })
            .collect();
        assert_eq!(
            firsts,
            vec![vec![0, 4, 8], vec![1, 5, 9], vec![2, 6], vec![3, 7]]
        );
        for w in 0..workers {
            let mut all: Vec<u32> = order(w, workers, total).collect();
            all.sort_unstable();
            assert_eq!(
                all,
                (0..total).collect::<Vec<_>>(),
                "worker {w} can reach every segment"
            );
        }
    }
}
