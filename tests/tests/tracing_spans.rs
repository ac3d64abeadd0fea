//! The `tracing` feature: one span per repository call, with the access
//! pattern or entity, the table, the shard fan-out, pages, items, retries
//! and the capacity consumed; the SDK's spans nest inside it.

use singletable_runtime::testing::CallRecorder;
use singletable_tests::generated::pooled_product_catalog::*;
use singletable_tests::samples::product;
use singletable_tests::server;

#[tokio::test]
async fn each_call_is_one_span_with_what_it_did() {
    let repo = Repository::new(server::client(&server::server().await.endpoint))
        .with_table_name(server::unique_table("Traced"));
    repo.create_table().await.unwrap();
    let collector = CallRecorder::default();
    let _guard = collector.install();
    let acme = TenantId::new("acme").unwrap();
    let t = repo.for_tenant(&acme);

    t.put_product(&product("p-1", "tools")).await.unwrap();
    let spans = collector.calls();
    assert_eq!(spans.len(), 1, "{spans:#?}");
    let put = &spans[0];
    assert_eq!(put.name, "singletable.item");
    assert_eq!(put.fields["operation"], "put");
    assert_eq!(put.fields["entity"], "Product");
    assert_eq!(put.fields["table"], repo.table_name());
    // The SDK's own spans of the request nest inside it.
    let all = collector.all();
    assert!(
        all.iter()
            .any(|s| s.target != "singletable" && s.parent == Some(spans[0].id)),
        "no SDK span inside the call: {all:#?}"
    );

    collector.clear();
    let mut batch = t.import_products();
    for i in 0..60 {
        batch.put_product(&product(&format!("p-{i:03}"), "tools"));
    }
    batch.send().await.unwrap();
    let spans = collector.calls();
    assert_eq!(spans.len(), 1, "{spans:#?}");
    let batch = &spans[0];
    assert_eq!(batch.name, "singletable.batch");
    assert_eq!(batch.fields["operation"], "batch_write");
    assert_eq!(batch.fields["items"], "60");
    assert_eq!(batch.fields["requests"], "3");

    // An update applied once (a transaction, then a consistent read) is
    // still one call, with the capacity of both requests.
    collector.clear();
    t.update_product(
        &ProductKey {
            product_id: "p-1".into(),
        },
        ProductUpdate::default()
            .name("renamed")
            .idempotency_token("rename-p-1"),
    )
    .await
    .unwrap();
    let spans = collector.calls();
    assert_eq!(spans.len(), 1, "{spans:#?}");
    assert_eq!(spans[0].fields["operation"], "update");
    let capacity: f64 = spans[0].fields["consumed_capacity"].parse().unwrap();
    assert!(capacity > 0.0, "{:?}", spans[0]);

    collector.clear();
    let items = t.tenant_products().page_size(7).all().await.unwrap();
    let spans = collector.calls();
    assert_eq!(
        spans.len(),
        1,
        "one span for every page and shard: {spans:#?}"
    );
    let query = &spans[0];
    assert_eq!(query.name, "singletable.query");
    assert_eq!(query.fields["pattern"], "tenant_products");
    assert_eq!(query.fields["partitions"], "10", "the shard fan-out");
    assert_eq!(query.fields["items"], items.len().to_string());
    assert!(query.fields["pages"].parse::<u32>().unwrap() >= 2);
    let capacity: f64 = query.fields["consumed_capacity"].parse().unwrap();
    assert!(capacity > 0.0, "{query:?}");

    // The capacity is on the pages too, with or without the feature.
    let page_capacity: f64 = {
        use futures_util::StreamExt;
        let pages: Vec<_> = t.tenant_products().pages().collect().await;
        pages
            .iter()
            .map(|p| p.as_ref().unwrap().consumed_capacity)
            .sum()
    };
    assert!(page_capacity > 0.0);
}
