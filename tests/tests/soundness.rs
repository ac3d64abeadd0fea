//! The soundness harness (bounded slice; `scripts/soundness N` runs more):
//! random specs from `tests/soundness/gen.rs` that `check` accepts are
//! generated, compiled into this crate, and run against the server: items
//! of two tenants are written through the generated repositories, every
//! access pattern is called with drawn parameters (small pages, limits,
//! both orders), and each result (items, in order, across pages) is
//! compared with the oracle in `singletable_tests::soundness`, which
//! evaluates DynamoDB's semantics on the raw stored items.

use singletable_tests::server;
use singletable_tests::soundness_specs::{drivers, ACCEPTED, REJECTED};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accepted_specs_run_as_written() {
    let server = server::server().await;
    let client = server::client(&server.endpoint);
    let mut runs = Vec::new();
    for (seed, run) in drivers() {
        let table = server::unique_table(&format!("Soundness{seed}"));
        runs.push(run(client.clone(), table).await);
    }
    let rejected: u64 = REJECTED.iter().map(|(_, n)| n).sum();
    let items: usize = runs.iter().map(|r| r.items.len()).sum();
    let calls: usize = runs.iter().map(|r| r.queries).sum();
    let patterns = runs
        .iter()
        .map(|r| r.spec.matches("    query:").count())
        .sum::<usize>();
    let failing: Vec<_> = runs
        .iter()
        .filter(|r| !r.disagreements.is_empty())
        .collect();
    let disagreements: usize = failing.iter().map(|r| r.disagreements.len()).sum();
    println!(
        "soundness ({}): {} specs accepted, {} rejected by error code {REJECTED:?}; {patterns} patterns, {items} items, {calls} calls, {disagreements} disagreements",
        server.kind,
        ACCEPTED.len(),
        rejected
    );
    assert!(!runs.is_empty(), "the generator produced no accepted spec");
    for run in &failing {
        eprintln!("--- seed {} ---\n{}", run.seed, run.spec);
        for d in run.disagreements.iter().take(5) {
            eprintln!("  {d}");
        }
    }
    assert!(
        failing.is_empty(),
        "{disagreements} disagreements in {} spec(s)",
        failing.len()
    );
}
