//! What a migration job costs: capacity units, dollars at on-demand prices,
//! and time under a per-worker write budget, from the spec's typical item
//! sizes (`crate::plan::typical_item_size`) and a count the user gives.

use serde::Serialize;

use super::Job;
use crate::ir;
use crate::plan::{read_units, typical_item_size, write_units};

/// US East (N. Virginia) on-demand price of a million write request units,
/// standard table class (from 1 November 2024).
pub const DOLLARS_PER_MILLION_WRITES: f64 = 0.625;
/// The same for a million read request units.
pub const DOLLARS_PER_MILLION_READS: f64 = 0.125;

/// What the user knows of the table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Volume {
    /// Items the job scans: every item of the table.
    pub table_items: u64,
    /// Of them, items of the job's entity (what it writes or checks).
    pub entity_items: u64,
    /// Workers, for the time estimate.
    pub workers: u32,
    /// Each worker's write budget in WCU per second (`--max-wcu`), if any.
    pub max_wcu: Option<f64>,
    /// Each worker's read budget in RCU per second (`--max-rcu`), if any.
    pub max_rcu: Option<f64>,
}

/// The estimate of one job.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimate {
    /// The typical size of the job's items in bytes.
    pub item_bytes: usize,
    /// Read units of the scan (eventually consistent, per 4 KB).
    pub read_units: f64,
    /// Write units of the job's writes.
    pub write_units: f64,
    /// At on-demand prices.
    pub dollars: f64,
    /// Seconds under the per-worker budgets, when one is given.
    pub seconds: Option<f64>,
}

/// Estimates `job` over `volume`; `None` when the job's entity is not in
/// `spec`.
pub fn estimate(spec: &ir::Spec, job: &Job, volume: &Volume) -> Option<Estimate> {
    let entity = spec.entities.get(job.entity()?)?;
    let item_bytes = typical_item_size(spec, entity);
    // A Scan consumes by the bytes it reads, not per item: every item of
    // the table (estimated at this entity's size), eventually consistent.
    let scanned = volume
        .table_items
        .saturating_mul(u64::try_from(item_bytes).unwrap_or(u64::MAX));
    let read = read_units(usize::try_from(scanned).unwrap_or(usize::MAX), false);
    let per_item = write_units(item_bytes);
    let writes = volume.entity_items as f64
        * match job {
            Job::BackfillIndexKeys { .. }
            | Job::BackfillDerived { .. }
            | Job::CleanupIndexKeys { .. }
            | Job::MoveAttribute { .. }
            | Job::FillAttribute { .. }
            | Job::Remark { .. }
            | Job::Purge { .. }
            | Job::CopyTable { .. }
            | Job::CopyEntity { .. } => per_item,
            // A transaction's Put and Delete each cost twice their units;
            // a recount's mark and counter update too (at most).
            Job::Rekey { .. } | Job::Recount { .. } => 4.0 * per_item,
            Job::VerifyItems { .. } => 0.0,
        };
    let dollars =
        read / 1e6 * DOLLARS_PER_MILLION_READS + writes / 1e6 * DOLLARS_PER_MILLION_WRITES;
    let workers = f64::from(volume.workers.max(1));
    let bound = |units: f64, budget: Option<f64>| budget.map(|b| units / (b * workers));
    // The slower of the two budgets; a job that writes nothing is bound
    // by its reads alone.
    let reading = bound(read, volume.max_rcu);
    let seconds = if writes > 0.0 {
        bound(writes, volume.max_wcu).map(|w| w.max(reading.unwrap_or(0.0)))
    } else {
        reading
    };
    Some(Estimate {
        item_bytes,
        read_units: read,
        write_units: writes,
        dollars,
        seconds,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Compiler;

    #[test]
    fn units_follow_dynamodb_rounding_and_workers_divide_time() {
        let yaml = "version: 1\ntable: { name: Things, partition_key: pk, sort_key: sk }\nentities:\n  A:\n    attributes: { id: { type: string, pattern: \"^[a-z]{1,8}$\" }, body: { type: string, typical_size: 3000 } }\n    key: { pk: \"A#<id>\", sk: A }\naccess_patterns:\n  a: { get: A }\n";
        let c = Compiler::new().source("s.yaml", yaml).compile();
        assert!(!c.has_errors(), "{:?}", c.report());
        let spec = &c.specs[0].spec;
        let volume = Volume {
            table_items: 10_000,
            entity_items: 10_000,
            workers: 1,
            max_wcu: Some(100.0),
            max_rcu: None,
        };
        let backfill = Job::BackfillIndexKeys {
            entity: "A".into(),
            index: "I".into(),
        };
        let e = estimate(spec, &backfill, &volume).expect("A is in the spec");
        assert!(
            e.item_bytes > 3000 && e.item_bytes < 4096,
            "{}",
            e.item_bytes
        );
        // ~3 KB items: 3 write units each; the scan reads ~30 MB at 8 KB per unit.
        assert_eq!(e.write_units, 30_000.0);
        assert!((e.read_units - e.item_bytes as f64 * 10_000.0 / 8192.0).abs() < 1.0);
        assert_eq!(e.seconds, Some(300.0));
        let four = estimate(
            spec,
            &backfill,
            &Volume {
                workers: 4,
                ..volume
            },
        )
        .expect("estimate");
        assert_eq!(four.seconds, Some(75.0));
        let rekey = estimate(spec, &Job::Rekey { entity: "A".into() }, &volume).expect("estimate");
        assert_eq!(rekey.write_units, 4.0 * e.write_units);
        let verify =
            estimate(spec, &Job::VerifyItems { entity: "A".into() }, &volume).expect("estimate");
        assert_eq!((verify.write_units, verify.seconds), (0.0, None));
        assert!(estimate(spec, &Job::VerifyItems { entity: "B".into() }, &volume).is_none());
    }
}
