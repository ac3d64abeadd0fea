//! Migration jobs: the throughput of the generated backfill job of the
//! evolution test's second design (`backfill-ticket-gsi2`: a Scan page by
//! page, one conditional UpdateItem per ticket, a checkpoint per page)
//! against the bulk loader (`batch_write`: BatchWriteItem of 25, several
//! requests at once) writing the same 10,000 tickets, and the job on four
//! workers against one. Every variant runs on a fresh table of the same
//! items, on the embedded dynoxide server (or `DYNAMODB_ENDPOINT`) and
//! through a proxy that adds a 5 ms round trip (what a remote DynamoDB
//! has), in alternating rounds. Writes `migrate.json` to the results
//! directory.

use std::time::{Duration, Instant};

use serde_json::json;
use singletable_benches::{results, rounds};
use singletable_runtime::migrate::{Job, Runner};
use singletable_runtime::sdk::Client;
use singletable_runtime::{DateTime, Entity, RetryPolicy};
use singletable_tests::evolution::{v1, v2};
use singletable_tests::server;

const ITEMS: usize = 10_000;
const JOB: &str = "backfill-ticket-gsi2";

/// 10,000 tickets of the first design, as put requests.
fn requests() -> Vec<singletable_runtime::sdk::types::WriteRequest> {
    let tenants = ["acme", "globex", "initech", "umbrella"];
    (0..ITEMS)
        .map(|n| {
            let scope = v1::TenantId::new(tenants[n % tenants.len()]).expect("a tenant id");
            let ticket = v1::Ticket {
                id: format!("t-{n:05}"),
                title: format!("ticket {n}"),
                status: if n % 3 == 0 {
                    v1::Status::Closed
                } else {
                    v1::Status::Open
                },
                created_at: DateTime::from_secs(1_700_000_000 + n as i64 * 60),
            };
            singletable_runtime::__private::ops::put_request(
                ticket.to_item(&scope).expect("an item"),
            )
            .expect("a put request")
        })
        .collect()
}

/// A fresh table of the second design; `None` when it cannot be made.
async fn fresh_table(client: &Client) -> Result<String, String> {
    let name = server::unique_table("Migrate");
    v2::TABLE
        .create(client, &name)
        .await
        .map_err(|e| e.to_string())?;
    Ok(name)
}

/// Loads the tickets into `table` with the bulk loader: seconds.
async fn load(client: &Client, table: &str) -> Result<f64, String> {
    let start = Instant::now();
    singletable_runtime::batch_write(client, table, requests(), RetryPolicy::default())
        .await
        .map_err(|e| e.to_string())?;
    Ok(start.elapsed().as_secs_f64())
}

/// Runs the backfill over `table` on `workers` workers at once (each its
/// own runner, as separate processes would be): seconds.
async fn job(client: &Client, table: &str, workers: u32) -> Result<f64, String> {
    let jobs = v2::migrations::jobs();
    let job: &dyn Job = jobs
        .iter()
        .find(|j| j.id() == JOB)
        .map(AsRef::as_ref)
        .ok_or_else(|| format!("no job {JOB}"))?;
    // The control table and the job's segments exist before the clock
    // starts, as they do for every worker but the first of a real run.
    let runner = || Runner::new(client.clone(), table, job).live(true);
    runner()
        .control()
        .ensure()
        .await
        .map_err(|e| e.to_string())?;
    let start = Instant::now();
    let runs = (0..workers).map(|w| {
        let runner = runner();
        async move { runner.run_worker(w, workers).await }
    });
    let reports = futures_util::future::try_join_all(runs)
        .await
        .map_err(|e| e.to_string())?;
    let elapsed = start.elapsed().as_secs_f64();
    let updated: u64 = reports.iter().flatten().map(|r| r.counts.updated).sum();
    if updated != ITEMS as u64 {
        return Err(format!("the job updated {updated} of {ITEMS} tickets"));
    }
    Ok(elapsed)
}

async fn drop_tables(client: &Client, table: &str) {
    for name in [table.to_owned(), format!("{table}__singletable")] {
        let _ = client.delete_table().table_name(name).send().await;
    }
}

/// One round on `client`'s server: the bulk load, then the job on one and
/// on four workers (each on its own freshly loaded table), in the order
/// `first_four` says.
async fn round(client: &Client, first_four: bool) -> Result<(f64, f64, f64), String> {
    let mut times = [0.0; 2];
    let mut loaded = Vec::new();
    let order: [u32; 2] = if first_four { [4, 1] } else { [1, 4] };
    for workers in order {
        let table = fresh_table(client).await?;
        loaded.push(load(client, &table).await?);
        times[usize::from(workers == 4)] = job(client, &table, workers).await?;
        drop_tables(client, &table).await;
    }
    let load_s = loaded.iter().sum::<f64>() / loaded.len() as f64;
    Ok((load_s, times[0], times[1]))
}

async fn run(rounds: usize) -> Result<serde_json::Value, String> {
    let server = server::server().await;
    let proxy =
        singletable_tests::faults::start_with_latency(&server.endpoint, Duration::from_millis(5))
            .await
            .map_err(|e| e.to_string())?;
    let mut out = serde_json::Map::new();
    for (name, endpoint) in [("local", &server.endpoint), ("remote", &proxy.endpoint)] {
        let client = server::client(endpoint);
        let (mut bulk, mut one, mut four) = (Vec::new(), Vec::new(), Vec::new());
        for r in 0..rounds {
            let (b, o, f) = round(&client, r % 2 == 1).await?;
            eprintln!("{name} round {r}: bulk load {b:.2} s, job on 1 worker {o:.2} s, on 4 workers {f:.2} s");
            bulk.push(b);
            one.push(o);
            four.push(f);
        }
        out.insert(
            name.to_owned(),
            rounds::summarize(
                &format!("migrate_{name}"),
                &[
                    ("bulk_load".to_owned(), bulk),
                    ("job_1_worker".to_owned(), one.clone()),
                    ("job_4_workers".to_owned(), four.clone()),
                ],
            ),
        );
        out.insert(
            format!("{name}_4_over_1"),
            rounds::summarize(
                &format!("migrate_{name}_workers"),
                &[
                    ("job_1_worker".to_owned(), one),
                    ("job_4_workers".to_owned(), four),
                ],
            ),
        );
    }
    out.insert("server".into(), json!(server.kind));
    out.insert("items".into(), json!(ITEMS));
    Ok(serde_json::Value::Object(out))
}

fn main() {
    results::run_rounds("migrate", "migration benchmark", 3, run);
}
