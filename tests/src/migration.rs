//! A migration job run on several workers at once, as separate processes
//! would run it.

use singletable_runtime::migrate::{Counts, Runner};

/// Runs worker `i` of `runners.len()` on each runner (of job `job`) at
/// once and sums the counts of their segments; panics when a worker fails
/// or leaves a segment not done.
pub async fn run_workers(job: &str, runners: Vec<Runner<'_>>) -> Counts {
    let workers = u32::try_from(runners.len()).expect("a few workers");
    let reports = futures_util::future::join_all(
        runners
            .iter()
            .zip(0..)
            .map(|(runner, i)| runner.run_worker(i, workers)),
    )
    .await;
    let mut counts = Counts::default();
    for report in reports
        .into_iter()
        .flat_map(|r| r.unwrap_or_else(|e| panic!("{job}: {e:?}")))
    {
        assert!(report.done, "{job}: segment {} not done", report.segment);
        counts = counts.plus(report.counts);
    }
    counts
}
