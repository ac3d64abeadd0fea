//! Batches under faults: a proxy in front of the test server throttles,
//! fails, drops, delays or cuts short 20% of the requests, and nothing the
//! batches write or read is lost, duplicated or silently dropped. Each
//! scenario runs again with a proxy that applies every request and loses
//! 20% of the answers (the SDK sends the request again; a caller that gets
//! no answer at all does not know whether it was applied).

use std::collections::BTreeSet;
use std::sync::atomic::Ordering;

use singletable_runtime::sdk::types::AttributeValue;
use singletable_runtime::{DateTime, Item};
use singletable_tests::generated::{pooled_product_catalog, saas_tenant_users_orders};
use singletable_tests::{faults, server};

/// What the proxy does to the requests it faults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Throttles, fails, drops, delays or cuts them short, before the
    /// server sees them.
    Fail,
    /// Applies them and loses the answer.
    Lose,
}

async fn proxy(mode: Mode, upstream: &str, rate: f64, seed: u64) -> faults::FaultProxy {
    match mode {
        Mode::Fail => faults::start(upstream, rate, seed).await,
        Mode::Lose => faults::start_losing(upstream, rate, seed).await,
    }
    .expect("the proxy starts")
}

/// The faults of `mode` happened.
fn assert_faulted(mode: Mode, counts: &faults::Counts) {
    match mode {
        Mode::Fail => assert!(counts.throttled.load(Ordering::Relaxed) > 0),
        Mode::Lose => assert!(counts.lost.load(Ordering::Relaxed) > 0),
    }
}

/// Every product id stored for `tenant`, read directly from the server.
async fn stored_ids(repo: &pooled_product_catalog::Repository, tenant: &str) -> Vec<String> {
    let mut ids = Vec::new();
    for shard in 0..10 {
        let mut start = None;
        loop {
            let out = repo
                .client()
                .query()
                .table_name(repo.table_name())
                .key_condition_expression("#pk = :pk")
                .expression_attribute_names("#pk", "ShardID")
                .expression_attribute_values(
                    ":pk",
                    AttributeValue::S(format!("TENANT#{tenant}|S#{shard}")),
                )
                .set_exclusive_start_key(start)
                .send()
                .await
                .unwrap();
            for item in out.items.unwrap_or_default() {
                if let Some(AttributeValue::S(id)) = item.get("product_id") {
                    ids.push(id.clone());
                }
            }
            start = out.last_evaluated_key;
            if start.is_none() {
                break;
            }
        }
    }
    ids
}

#[tokio::test]
async fn ten_thousand_batched_writes_survive_a_twenty_percent_fault_rate() {
    bulk_load(Mode::Fail).await;
}

#[tokio::test]
async fn ten_thousand_batched_writes_survive_twenty_percent_lost_answers() {
    bulk_load(Mode::Lose).await;
}

async fn bulk_load(mode: Mode) {
    use pooled_product_catalog::*;
    let upstream = server::server().await.endpoint.clone();
    let direct =
        Repository::new(server::client(&upstream)).with_table_name(server::unique_table("Faults"));
    direct.create_table().await.unwrap();
    let proxy = proxy(mode, &upstream, 0.2, 42).await;
    let faulty = Repository::new(server::client(&proxy.endpoint))
        .with_table_name(direct.table_name())
        .with_retry_policy(singletable_runtime::RetryPolicy {
            concurrency: 16,
            ..Default::default()
        });
    let tenant = TenantId::new("tenant1").unwrap();
    let ids: Vec<String> = (0..10_000).map(|i| format!("sku-{i:05}")).collect();
    let mut batch = faulty.for_tenant(&tenant).import_products();
    for id in &ids {
        batch.put_product(&Product {
            product_id: id.clone(),
            name: format!("product {id}"),
            category: "tools".into(),
            price: "1.25".parse().unwrap(),
            currency: Currency::Eur,
            doc: Default::default(),
            updated_at: DateTime::from_secs(1_714_564_800),
        });
    }
    batch
        .send()
        .await
        .expect("every item written despite the faults");

    let counts = &proxy.counts;
    assert_faulted(mode, counts);
    if mode == Mode::Fail {
        assert!(counts.partial_batches.load(Ordering::Relaxed) > 0);
        assert!(counts.server_errors.load(Ordering::Relaxed) > 0);
        assert!(counts.dropped.load(Ordering::Relaxed) > 0);
    }

    // Read back without the proxy: each item once, none missing.
    let mut stored = stored_ids(&direct, "tenant1").await;
    eprintln!(
        "scenario bulk load ({mode:?}): 10,000 items in batches; {}; verified {}",
        counts.summary(),
        stored.len()
    );
    assert_eq!(stored.len(), 10_000, "nothing lost or duplicated");
    stored.sort();
    assert_eq!(stored, ids);
}

#[tokio::test]
async fn batched_reads_find_every_item_under_a_fifty_percent_fault_rate() {
    batched_reads(Mode::Fail, 0.5).await;
}

#[tokio::test]
async fn batched_reads_find_every_item_when_twenty_percent_of_answers_are_lost() {
    batched_reads(Mode::Lose, 0.2).await;
}

async fn batched_reads(mode: Mode, rate: f64) {
    use saas_tenant_users_orders::*;
    let upstream = server::server().await.endpoint.clone();
    let direct = Repository::new(server::client(&upstream))
        .with_table_name(server::unique_table("FaultReads"));
    direct.create_table().await.unwrap();
    let tenant = TenantId::new("reads").unwrap();
    let t = direct.for_tenant(&tenant);
    for i in 0..600 {
        t.put_inventory_item(&InventoryItem {
            sku: format!("SKU-{i:04}"),
            on_hand: i,
            reserved: 0,
            version: 0,
        })
        .await
        .unwrap();
    }
    // Half the requests fail, so even six chunks meet every kind of fault.
    let proxy = proxy(mode, &upstream, rate, 7).await;
    let faulty =
        Repository::new(server::client(&proxy.endpoint)).with_table_name(direct.table_name());
    let mut get = faulty.for_tenant(&tenant).inventory_items();
    for i in 0..600 {
        get.get_inventory_item(&InventoryItemKey {
            sku: format!("SKU-{i:04}"),
        });
    }
    let items = get.all().await.expect("every key read despite the faults");
    eprintln!(
        "scenario batched reads ({mode:?}, {rate}): 600 keys; {}; verified {}",
        proxy.counts.summary(),
        items.len()
    );
    let skus: BTreeSet<String> = items.iter().map(|i| i.sku.clone()).collect();
    assert_eq!(items.len(), 600, "no item twice");
    assert_eq!(skus.len(), 600);
    assert!(items
        .iter()
        .all(|i| i.on_hand == i.sku[4..].parse::<i64>().unwrap()));
    match mode {
        Mode::Fail => assert!(proxy.counts.partial_batches.load(Ordering::Relaxed) > 0),
        Mode::Lose => assert_faulted(mode, &proxy.counts),
    }
    assert!(proxy.counts.requests.load(Ordering::Relaxed) > 6);
}

/// Retries `op` on errors the service may not repeat (throttling, 5xx,
/// dropped connections surface as `Error::Service`), counting them: every
/// failure reaches the caller as a typed error, never silence.
async fn with_retries<T, F, Fut>(failures: &mut u32, mut op: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, singletable_runtime::Error>>,
{
    loop {
        match op().await {
            Ok(value) => return value,
            Err(singletable_runtime::Error::Service(_)) => *failures += 1,
            Err(other) => panic!("an error a retry cannot fix: {other:?}"),
        }
    }
}

#[tokio::test]
async fn counters_with_optimistic_locking_stay_exact_under_faults() {
    optimistic_locking(Mode::Fail).await;
}

#[tokio::test]
async fn counters_with_optimistic_locking_stay_exact_when_answers_are_lost() {
    optimistic_locking(Mode::Lose).await;
}

/// Eight writers take units from one item with optimistic locking. When
/// the proxy fails requests before the server sees them, a writer re-reads
/// after any failure. When it loses answers, a failure may hide an applied
/// update, and eight writers that read one version write identical values,
/// so no writer can tell its own lost write from another's: each update is
/// `idempotent()` and sent again, as the same value, until an answer comes
/// (applied once by its client request token); only a version conflict
/// sends a writer back to read.
async fn optimistic_locking(mode: Mode) {
    use saas_tenant_users_orders::*;
    let upstream = server::server().await.endpoint.clone();
    let direct = Repository::new(server::client(&upstream))
        .with_table_name(server::unique_table("FaultLocks"));
    direct.create_table().await.unwrap();
    let tenant = TenantId::new("locks").unwrap();
    let key = InventoryItemKey {
        sku: "SKU-1".into(),
    };
    direct
        .for_tenant(&tenant)
        .put_inventory_item(&InventoryItem {
            sku: "SKU-1".into(),
            on_hand: 1_000,
            reserved: 0,
            version: 0,
        })
        .await
        .unwrap();
    let proxy = proxy(mode, &upstream, 0.2, 99).await;
    let writers = (0..8).map(|w| {
        let repo =
            Repository::new(server::client(&proxy.endpoint)).with_table_name(direct.table_name());
        let tenant = tenant.clone();
        let key = key.clone();
        tokio::spawn(async move {
            let t = repo.for_tenant(&tenant);
            let (mut failures, mut conflicts) = (0u32, 0u32);
            for _ in 0..10 {
                'read: loop {
                    let current = with_retries(&mut failures, || t.get_inventory_item(&key))
                        .await
                        .expect("the item exists");
                    let mut update = InventoryItemUpdate::default()
                        .on_hand(current.on_hand - 1)
                        .reserved(current.reserved + 1)
                        .version(current.version + 1);
                    if mode == Mode::Lose {
                        update = update.idempotent();
                    }
                    loop {
                        match t.update_inventory_item(&key, update.clone()).await {
                            Ok(_) => break 'read,
                            Err(singletable_runtime::Error::VersionConflict { .. }) => {
                                conflicts += 1
                            }
                            // The proxy that fails requests never applies
                            // one, so values found as written are another
                            // writer's.
                            Err(singletable_runtime::Error::AlreadyAsWritten { .. })
                                if mode == Mode::Fail =>
                            {
                                conflicts += 1
                            }
                            Err(singletable_runtime::Error::Service(_)) => {
                                failures += 1;
                                if mode == Mode::Lose {
                                    continue;
                                }
                            }
                            Err(other) => panic!("writer {w}: {other:?}"),
                        }
                        continue 'read;
                    }
                }
            }
            (failures, conflicts)
        })
    });
    let (mut failures, mut conflicts) = (0, 0);
    for writer in writers.collect::<Vec<_>>() {
        let (f, c) = writer.await.unwrap();
        failures += f;
        conflicts += c;
    }
    // Read back without the proxy: 80 decrements, each applied once.
    let last = direct
        .for_tenant(&tenant)
        .get_inventory_item(&key)
        .await
        .unwrap()
        .unwrap();
    eprintln!(
        "scenario optimistic locking ({mode:?}): 8 writers x 10 updates; {}; errors reported and retried {failures}, version conflicts {conflicts}; verified on_hand {} version {}",
        proxy.counts.summary(),
        last.on_hand,
        last.version
    );
    assert_eq!((last.on_hand, last.reserved, last.version), (920, 80, 80));
    assert_faulted(mode, &proxy.counts);
}

#[tokio::test]
async fn conflicting_transactions_apply_exactly_once_under_faults() {
    conflicting_transactions(Mode::Fail).await;
}

#[tokio::test]
async fn conflicting_transactions_apply_exactly_once_when_answers_are_lost() {
    conflicting_transactions(Mode::Lose).await;
}

/// Four buyers place orders in transactions that conflict on the stock.
/// A transaction that got no answer may have been applied: the buyer sends
/// the same transaction (same client request token) again until one comes,
/// which DynamoDB answers with success when the first was applied; a
/// canceled one sends the buyer back to read.
async fn conflicting_transactions(mode: Mode) {
    use saas_tenant_users_orders::*;
    let upstream = server::server().await.endpoint.clone();
    let direct =
        Repository::new(server::client(&upstream)).with_table_name(server::unique_table("FaultTx"));
    direct.create_table().await.unwrap();
    let tenant = TenantId::new("orders").unwrap();
    let key = InventoryItemKey {
        sku: "SKU-1".into(),
    };
    direct
        .for_tenant(&tenant)
        .put_inventory_item(&InventoryItem {
            sku: "SKU-1".into(),
            on_hand: 100,
            reserved: 0,
            version: 0,
        })
        .await
        .unwrap();
    let proxy = proxy(mode, &upstream, 0.2, 5).await;
    let run = direct
        .table_name()
        .trim_start_matches("FaultTx-")
        .to_owned();
    // Four buyers place five orders each; every order takes one unit in the
    // same transaction, so they conflict on the inventory item.
    let buyers = (0..4).map(|b| {
        let repo =
            Repository::new(server::client(&proxy.endpoint)).with_table_name(direct.table_name());
        let tenant = tenant.clone();
        let key = key.clone();
        let run = run.clone();
        tokio::spawn(async move {
            let t = repo.for_tenant(&tenant);
            let mut failures = 0u32;
            for n in 0..5 {
                let order_id = format!("o-{b}-{n}");
                'read: loop {
                    let current = with_retries(&mut failures, || t.get_inventory_item(&key))
                        .await
                        .expect("the item exists");
                    let order = Order {
                        order_id: order_id.clone(),
                        user_id: format!("buyer-{b}"),
                        status: Status::Pending,
                        total: "1".parse().unwrap(),
                        currency: Currency::Eur,
                        lines: vec![Item::new()],
                        created_at: DateTime::from_secs(1_714_564_800),
                    };
                    // Unique to this run: DynamoDB keeps a token ten minutes,
                    // and a token sent with other items is refused.
                    let token = format!("{run}-{order_id}-{}", current.version);
                    let mut resent = 0;
                    loop {
                        let mut place = t.place_order();
                        place
                            .create_order(&order)
                            .update_inventory_item(
                                &key,
                                InventoryItemUpdate::default()
                                    .on_hand(current.on_hand - 1)
                                    .version(current.version + 1),
                            )
                            .client_request_token(token.clone());
                        match place.send().await {
                            Ok(_) => break 'read,
                            // Another buyer's transaction won: re-read.
                            Err(singletable_runtime::Error::TransactionCanceled(_)) => {
                                failures += 1
                            }
                            // No answer: sent again as it was.
                            Err(singletable_runtime::Error::Service(e)) => {
                                failures += 1;
                                resent += 1;
                                assert!(
                                    resent < 50,
                                    "buyer {b}: no answer after {resent} sends: {e:?}"
                                );
                                continue;
                            }
                            Err(other) => panic!("buyer {b}: {other:?}"),
                        }
                        continue 'read;
                    }
                }
            }
            failures
        })
    });
    let mut failures = 0;
    for buyer in buyers.collect::<Vec<_>>() {
        failures += buyer.await.unwrap();
    }
    let t = direct.for_tenant(&tenant);
    let orders = t.orders().all().await.unwrap();
    let last = t.get_inventory_item(&key).await.unwrap().unwrap();
    eprintln!(
        "scenario transactions ({mode:?}): 4 buyers x 5 orders; {}; canceled or failed and retried {failures}; verified {} orders, on_hand {}",
        proxy.counts.summary(),
        orders.len(),
        last.on_hand
    );
    assert_eq!(orders.len(), 20, "every order once");
    assert_eq!((last.on_hand, last.version), (80, 20));
    assert_faulted(mode, &proxy.counts);
}

#[tokio::test]
async fn scatter_gather_queries_return_everything_once_under_faults() {
    scatter_gather(Mode::Fail).await;
}

#[tokio::test]
async fn scatter_gather_queries_return_everything_once_when_answers_are_lost() {
    scatter_gather(Mode::Lose).await;
}

async fn scatter_gather(mode: Mode) {
    use pooled_product_catalog::*;
    let upstream = server::server().await.endpoint.clone();
    let direct = Repository::new(server::client(&upstream))
        .with_table_name(server::unique_table("FaultScatter"));
    direct.create_table().await.unwrap();
    let tenant = TenantId::new("tenant1").unwrap();
    let ids: Vec<String> = (0..500).map(|i| format!("sku-{i:04}")).collect();
    let mut batch = direct.for_tenant(&tenant).import_products();
    for id in &ids {
        batch.put_product(&Product {
            product_id: id.clone(),
            name: "p".into(),
            category: "tools".into(),
            price: "1".parse().unwrap(),
            currency: Currency::Eur,
            doc: Default::default(),
            updated_at: DateTime::from_secs(1_714_564_800),
        });
    }
    batch.send().await.unwrap();
    let proxy = proxy(mode, &upstream, 0.2, 3).await;
    let faulty =
        Repository::new(server::client(&proxy.endpoint)).with_table_name(direct.table_name());
    let t = faulty.for_tenant(&tenant);
    let mut failures = 0;
    // Page by page with the cursor, retrying a failed page from the last
    // good cursor: every item once, in order.
    let mut got = Vec::new();
    let mut cursor: Option<singletable_runtime::Cursor> = None;
    loop {
        let mut query = t.tenant_products().page_size(40).limit(60);
        if let Some(c) = cursor.clone() {
            query = query.starting_after(c);
        }
        let mut pages = Box::pin(query.pages());
        let mut done = true;
        let mut batch_items = Vec::new();
        let mut next = None;
        let mut failed = false;
        while let Some(page) = futures_util::StreamExt::next(&mut pages).await {
            match page {
                Ok(page) => {
                    batch_items.extend(page.items.into_iter().map(|p| p.product_id));
                    next = page.next;
                }
                Err(singletable_runtime::Error::Service(_)) => {
                    failures += 1;
                    failed = true;
                    break;
                }
                Err(other) => panic!("{other:?}"),
            }
        }
        if failed {
            continue;
        }
        got.extend(batch_items);
        if let Some(c) = next {
            cursor = Some(c);
            done = false;
        }
        if done {
            break;
        }
    }
    eprintln!(
        "scenario scatter-gather ({mode:?}): 500 items over 10 shards, pages of 40; {}; failed calls retried {failures}; verified {}",
        proxy.counts.summary(),
        got.len()
    );
    assert_eq!(got, ids, "after {failures} failed calls");
    assert!(proxy.counts.requests.load(Ordering::Relaxed) > 10);
    if mode == Mode::Lose {
        assert_faulted(mode, &proxy.counts);
    }
}
