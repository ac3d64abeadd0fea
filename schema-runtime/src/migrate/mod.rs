//! Migration jobs: work over every item of a table, spread over any number
//! of workers, that survives crashes, lost answers and live traffic.
//!
//! A [`Job`] decides, for one item, the idempotent write a design change
//! needs ([`jobs`] has the kinds `singletable diff` plans: index keys
//! written or removed, items moved to a new key, items verified against
//! new rules). A [`Runner`] runs it over the table with DynamoDB's parallel
//! Scan: the table is split into `total_segments` segments, and worker `i`
//! of `n` takes the segments `s ≡ i (mod n)`, then any segment whose
//! worker stopped (its lease expired) — so AWS Batch array jobs,
//! Kubernetes Indexed Jobs, Step Functions Distributed Map or `n`
//! processes started by hand each run one worker, and nothing else needs
//! to coordinate. Each segment keeps a checkpoint in a control table (the
//! last key read, the counts, a lease): a page's writes happen before its
//! checkpoint moves, every write is conditional and idempotent, so a page
//! read twice after a crash changes nothing twice. A token bucket keeps the
//! consumed capacity under `--max-rcu`/`--max-wcu`.
//!
//! Generated code lists a spec's pending jobs (`migrations::jobs()`), and
//! `migrations::main` is a command line for them (see [`main`]).

mod cli;
mod control;
pub mod jobs;
mod limit;
mod recount;
mod rewrite;
mod runner;

use futures_util::future::BoxFuture;

use crate::{Error, Item};

pub use cli::main;
pub use control::{ControlTable, SegmentState};
pub use limit::Limits;
pub use runner::{Progress, ProgressFn, Remaining, Runner, SegmentReport};

/// `request`, or [`Error::Pending`] for access pattern `pattern`, which
/// waits for `job`, unless reading while jobs are pending is `allowed`
/// (generated code calls it).
pub fn gate<T>(
    request: Result<T, Error>,
    allowed: bool,
    pattern: &'static str,
    job: &'static str,
) -> Result<T, Error> {
    if allowed {
        request
    } else {
        Err(Error::Pending { pattern, job })
    }
}

/// What a job did (or, in a dry run, would do) with one item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The item was written.
    Updated,
    /// The item already is as the job leaves it (an earlier run, a replayed
    /// page, or new code did it).
    AlreadyDone,
    /// The item is not one the job changes (another entity's).
    Skipped,
    /// The item changed between the read and the write; the code that
    /// changed it writes the new form itself (writers are deployed first).
    ChangedConcurrently,
    /// The item breaks the new design's rules; why, naming the attribute.
    Invalid(String),
}

/// What a job works with: the client, the table, whether writes happen.
#[derive(Debug, Clone)]
pub struct Context {
    /// The client.
    pub client: crate::sdk::Client,
    /// The table.
    pub table: String,
    /// Write; otherwise only decide (a dry run).
    pub live: bool,
}

/// One kind of work over every item of a table.
pub trait Job: Send + Sync {
    /// The job's id, as the lock and the control table name it.
    fn id(&self) -> &str;

    /// What the job does, in one sentence.
    fn description(&self) -> String;

    /// Whether the job writes (a verify job only reads).
    fn writes(&self) -> bool;

    /// Decides and performs the write `item` needs: a conditional,
    /// idempotent write, never a blind put of what was read.
    fn apply<'a>(
        &'a self,
        context: &'a Context,
        item: &'a Item,
    ) -> BoxFuture<'a, Result<Outcome, Error>>;

    /// Whether `item` still needs the job: why, or `None`. What `verify`
    /// counts; reads only.
    fn remaining(&self, item: &Item) -> Option<String>;

    /// The table the job reads, when it is not the one it writes (a copy
    /// out of a renamed table); `None` reads the context's table.
    fn source(&self) -> Option<&str> {
        None
    }

    /// What `verify` counts for `item`: [`Job::remaining`], unless the job
    /// must read elsewhere to know (a copy reads the target table).
    fn check<'a>(
        &'a self,
        context: &'a Context,
        item: &'a Item,
    ) -> BoxFuture<'a, Result<Option<String>, Error>> {
        let _ = context;
        let remaining = self.remaining(item);
        Box::pin(async move { Ok(remaining) })
    }
}

/// The counts of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Items read.
    pub scanned: u64,
    /// Items written.
    pub updated: u64,
    /// Items already done.
    pub already_done: u64,
    /// Items of other entities.
    pub skipped: u64,
    /// Items changed concurrently.
    pub changed_concurrently: u64,
    /// Items that break the new rules.
    pub invalid: u64,
}

impl Counts {
    /// Counts one outcome.
    pub fn add(&mut self, outcome: &Outcome) {
        self.scanned += 1;
        match outcome {
            Outcome::Updated => self.updated += 1,
            Outcome::AlreadyDone => self.already_done += 1,
            Outcome::Skipped => self.skipped += 1,
            Outcome::ChangedConcurrently => self.changed_concurrently += 1,
            Outcome::Invalid(_) => self.invalid += 1,
        }
    }

    /// The sum of two counts.
    pub fn plus(self, other: Counts) -> Counts {
        Counts {
            scanned: self.scanned + other.scanned,
            updated: self.updated + other.updated,
            already_done: self.already_done + other.already_done,
            skipped: self.skipped + other.skipped,
            changed_concurrently: self.changed_concurrently + other.changed_concurrently,
            invalid: self.invalid + other.invalid,
        }
    }
}

impl std::fmt::Display for Counts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} scanned, {} updated, {} already done, {} skipped, {} changed concurrently, {} invalid",
            self.scanned, self.updated, self.already_done, self.skipped, self.changed_concurrently, self.invalid
        )
    }
}
