//! Batches under faults: a proxy in front of the test server throttles,
//! fails, drops, delays or cuts short 20% of the requests, and nothing the
//! batches write or read is lost, duplicated or silently dropped.

use std::collections::BTreeSet;
use std::sync::atomic::Ordering;

use schema_runtime::sdk::types::AttributeValue;
use schema_runtime::DateTime;
use singletable_tests::generated::{pooled_product_catalog, saas_tenant_users_orders};
use singletable_tests::{faults, server};

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
    use pooled_product_catalog::*;
    let upstream = server::server().await.endpoint.clone();
    let direct =
        Repository::new(server::client(&upstream)).with_table_name(server::unique_table("Faults"));
    direct.create_table().await.unwrap();
    let proxy = faults::start(&upstream, 0.2, 42).await.unwrap();
    let faulty = Repository::new(server::client(&proxy.endpoint))
        .with_table_name(direct.table_name())
        .with_retry_policy(schema_runtime::RetryPolicy {
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
    assert!(counts.partial_batches.load(Ordering::Relaxed) > 0);
    assert!(counts.throttled.load(Ordering::Relaxed) > 0);
    assert!(counts.server_errors.load(Ordering::Relaxed) > 0);
    assert!(counts.dropped.load(Ordering::Relaxed) > 0);

    // Read back without the proxy: each item once, none missing.
    let mut stored = stored_ids(&direct, "tenant1").await;
    assert_eq!(stored.len(), 10_000, "nothing lost or duplicated");
    stored.sort();
    assert_eq!(stored, ids);
}

#[tokio::test]
async fn batched_reads_find_every_item_under_a_fifty_percent_fault_rate() {
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
    let proxy = faults::start(&upstream, 0.5, 7).await.unwrap();
    let faulty =
        Repository::new(server::client(&proxy.endpoint)).with_table_name(direct.table_name());
    let mut get = faulty.for_tenant(&tenant).inventory_items();
    for i in 0..600 {
        get.get_inventory_item(&InventoryItemKey {
            sku: format!("SKU-{i:04}"),
        });
    }
    let items = get.send().await.expect("every key read despite the faults");
    let skus: BTreeSet<String> = items.iter().map(|i| i.sku.clone()).collect();
    assert_eq!(items.len(), 600, "no item twice");
    assert_eq!(skus.len(), 600);
    assert!(items
        .iter()
        .all(|i| i.on_hand == i.sku[4..].parse::<i64>().unwrap()));
    assert!(proxy.counts.partial_batches.load(Ordering::Relaxed) > 0);
    assert!(proxy.counts.requests.load(Ordering::Relaxed) > 6);
}
