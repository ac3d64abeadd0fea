//! Bulk load: 10,000 products through the generated batch writer
//! (`import_products`: BatchWriteItem, 25 items a request, several requests
//! at once) against 10,000 sequential `put_product` calls, on the embedded
//! dynoxide server (or `DYNAMODB_ENDPOINT`). Each round loads a fresh
//! table; the two alternate (at least 5 rounds, the ratio taken within
//! each round) so that drift on a shared machine hits both.
//! Writes `bulk.json` to the results directory.

use std::time::Instant;

use serde_json::json;
use singletable_benches::{results, rounds};
use singletable_runtime::{DateTime, RetryPolicy};
use singletable_tests::generated::pooled_product_catalog::{
    Currency, Product, Repository, TenantId,
};
use singletable_tests::server;

const ITEMS: usize = 10_000;

fn products() -> Vec<Product> {
    (0..ITEMS)
        .map(|i| Product {
            product_id: format!("sku-{i:05}"),
            name: format!("product {i}"),
            category: "tools".into(),
            price: "9.99".parse().expect("a valid decimal"),
            currency: Currency::Eur,
            doc: Default::default(),
            updated_at: DateTime::from_secs(1_714_564_800),
        })
        .collect()
}

async fn table(client: &singletable_runtime::sdk::Client) -> Result<Repository, String> {
    let repo = Repository::new(client.clone()).with_table_name(server::unique_table("Bulk"));
    repo.create_table().await.map_err(|e| e.to_string())?;
    Ok(repo)
}

/// Deletes a loaded table, so that every load starts on a server holding
/// the same data.
async fn drop_table(
    client: &singletable_runtime::sdk::Client,
    repo: &Repository,
) -> Result<(), String> {
    client
        .delete_table()
        .table_name(repo.table_name())
        .send()
        .await
        .map(drop)
        .map_err(|e| e.to_string())
}

async fn batched(
    client: &singletable_runtime::sdk::Client,
    items: &[Product],
) -> Result<f64, String> {
    batched_with(client, items, RetryPolicy::default()).await
}

async fn batched_with(
    client: &singletable_runtime::sdk::Client,
    items: &[Product],
    policy: RetryPolicy,
) -> Result<f64, String> {
    let repo = table(client).await?.with_retry_policy(policy);
    let tenant = TenantId::new("bulk").map_err(|e| e.to_string())?;
    let start = Instant::now();
    let mut batch = repo.for_tenant(&tenant).import_products();
    for p in items {
        batch.put_product(p);
    }
    batch.send().await.map_err(|e| e.to_string())?;
    let elapsed = start.elapsed().as_secs_f64();
    drop_table(client, &repo).await?;
    Ok(elapsed)
}

async fn sequential(
    client: &singletable_runtime::sdk::Client,
    items: &[Product],
) -> Result<f64, String> {
    let repo = table(client).await?;
    let tenant = TenantId::new("bulk").map_err(|e| e.to_string())?;
    let t = repo.for_tenant(&tenant);
    let start = Instant::now();
    for p in items {
        t.put_product(p).await.map_err(|e| e.to_string())?;
    }
    let elapsed = start.elapsed().as_secs_f64();
    drop_table(client, &repo).await?;
    Ok(elapsed)
}

async fn run(rounds: usize) -> Result<serde_json::Value, String> {
    let server = server::server().await;
    let client = server::client(&server.endpoint);
    let items = products();
    let (mut b, mut s) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        // Each round starts with the other variant.
        if round % 2 == 0 {
            s.push(sequential(&client, &items).await?);
            b.push(batched(&client, &items).await?);
        } else {
            b.push(batched(&client, &items).await?);
            s.push(sequential(&client, &items).await?);
        }
        eprintln!(
            "round {round}: batched {:.2} s, sequential {:.2} s",
            b[round], s[round]
        );
    }
    // The batch writer's concurrency: a load at each, on the server in
    // this process and through a proxy that adds a 5 ms round trip (what a
    // remote DynamoDB has).
    let proxy = singletable_tests::faults::start_with_latency(
        &server.endpoint,
        std::time::Duration::from_millis(5),
    )
    .await
    .map_err(|e| e.to_string())?;
    let remote = server::client(&proxy.endpoint);
    let mut sweep = Vec::new();
    for concurrency in [1, 2, 4, 8, 16, 32] {
        let policy = RetryPolicy {
            concurrency,
            ..RetryPolicy::default()
        };
        let local = batched_with(&client, &items, policy).await?;
        let far = batched_with(&remote, &items, policy).await?;
        eprintln!(
            "concurrency {concurrency}: {local:.3} s here, {far:.3} s with a 5 ms round trip"
        );
        sweep.push(json!({ "concurrency": concurrency, "local_s": local, "remote_s": far }));
    }
    let mut summary = rounds::summarize(
        "bulk",
        &[("sequential".to_owned(), s), ("batched".to_owned(), b)],
    );
    summary["server"] = json!(server.kind);
    summary["items"] = json!(ITEMS);
    summary["default_concurrency"] = json!(RetryPolicy::default().concurrency);
    summary["sweep"] = json!(sweep);
    Ok(summary)
}

fn main() {
    results::run_rounds("bulk", "bulk load", 5, run);
}
