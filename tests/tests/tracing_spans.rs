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
    assert_eq!(batch.fields["pattern"], "import_products");
    assert_eq!(batch.fields["table"], repo.table_name());
    assert_eq!(batch.fields["items"], "60");
    assert_eq!(batch.fields["requests"], "3");

    // A get through a named pattern names the pattern and the entity.
    collector.clear();
    let got = t.product("p-001").await.unwrap();
    assert!(got.is_some());
    let spans = collector.calls();
    assert_eq!(spans.len(), 1, "{spans:#?}");
    assert_eq!(spans[0].name, "singletable.item");
    assert_eq!(spans[0].fields["operation"], "get");
    assert_eq!(spans[0].fields["pattern"], "product");
    assert_eq!(spans[0].fields["entity"], "Product");
    assert_eq!(spans[0].fields["table"], repo.table_name());

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

/// Tests running in parallel each record their own calls, all of them:
/// after a call on a thread with no recorder (which, with a subscriber per
/// thread, leaves the call site cached as unheard: every recorder then saw
/// nothing), eight threads with a runtime and a recorder each, beside
/// threads making the same calls with none. And a recorder's `scope`
/// follows a task across a multi-thread runtime's workers, where a
/// recorder installed on the test's thread sees none of its calls.
#[test]
fn parallel_recorders_each_see_their_own_calls() {
    let endpoint = std::thread::spawn(|| {
        tokio::runtime::Runtime::new()
            .unwrap()
            .block_on(async { server::server().await.endpoint.clone() })
    })
    .join()
    .unwrap();
    let table = server::unique_table("TracedParallel");
    // A call on a thread with no recorder first, as another test of the
    // binary may make: `tracing` caches per call site whether anyone
    // listens, from that thread's subscriber (none).
    tokio::runtime::Runtime::new().unwrap().block_on(async {
        let repo = Repository::new(server::client(&endpoint)).with_table_name(&table);
        repo.create_table().await.unwrap();
        let tenant = TenantId::new("warm").unwrap();
        repo.for_tenant(&tenant)
            .put_product(&product("p-warm", "tools"))
            .await
            .unwrap();
    });
    const CALLS: usize = 12;
    let threads: Vec<_> = (0..12)
        .map(|n| {
            let (endpoint, table) = (endpoint.clone(), table.clone());
            std::thread::spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap();
                let recorded = n % 3 != 2;
                let collector = CallRecorder::default();
                let guard = recorded.then(|| collector.install());
                runtime.block_on(async {
                    let repo = Repository::new(server::client(&endpoint)).with_table_name(&table);
                    let tenant = TenantId::new(format!("t{n}")).unwrap();
                    let t = repo.for_tenant(&tenant);
                    for i in 0..CALLS {
                        t.put_product(&product(&format!("p-{n}-{i}"), "tools"))
                            .await
                            .unwrap();
                    }
                });
                drop(guard);
                let calls = collector.calls();
                if recorded {
                    assert_eq!(calls.len(), CALLS, "thread {n}: {calls:#?}");
                    assert!(calls.iter().all(|c| c.fields["operation"] == "put"));
                } else {
                    assert!(calls.is_empty());
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }

    // A task on a multi-thread runtime, scoped: its calls, wherever polled.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let unscoped = CallRecorder::default();
    let guard = unscoped.install();
    let (e, t) = (endpoint.clone(), table.clone());
    runtime
        .block_on(runtime.spawn(async move {
            let repo = Repository::new(server::client(&e)).with_table_name(&t);
            let tenant = TenantId::new("unscoped").unwrap();
            repo.for_tenant(&tenant)
                .put_product(&product("u-1", "toys"))
                .await
                .unwrap();
        }))
        .unwrap();
    drop(guard);
    assert!(unscoped.calls().is_empty(), "another thread's calls");
    let collector = CallRecorder::default();
    let task = collector.scope(async move {
        let repo = Repository::new(server::client(&endpoint)).with_table_name(&table);
        let tenant = TenantId::new("scoped").unwrap();
        for i in 0..CALLS {
            repo.for_tenant(&tenant)
                .put_product(&product(&format!("s-{i}"), "toys"))
                .await
                .unwrap();
        }
    });
    runtime.block_on(runtime.spawn(task)).unwrap();
    assert_eq!(collector.calls().len(), CALLS);
}

/// The case that made a subscriber per thread miss calls: a recorder is
/// installed, then another thread with none reaches a call site first
/// (here a TransactGetItems, which no other test of this binary makes) and
/// `tracing` caches that nobody listens there. The recorder must still see
/// its own call. (With `set_default` per thread, run alone, it saw none.)
#[test]
fn a_call_site_reached_first_by_a_thread_without_a_recorder_is_still_recorded() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let repo = runtime.block_on(async {
        let repo = Repository::new(server::client(&server::server().await.endpoint))
            .with_table_name(server::unique_table("TracedFirst"));
        repo.create_table().await.unwrap();
        repo
    });
    let collector = CallRecorder::default();
    let _guard = collector.install();
    let read = |repo: Repository| async move {
        let tenant = TenantId::new("acme").unwrap();
        let t = repo.for_tenant(&tenant);
        let mut tx = t.transact_get();
        let _slot = tx.get(&ProductKey {
            product_id: "p-1".into(),
        });
        tx.send().await.unwrap();
    };
    let other = repo.clone();
    std::thread::spawn(move || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(read(other));
    })
    .join()
    .unwrap();
    assert!(collector.calls().is_empty(), "another thread's call");
    runtime.block_on(read(repo));
    let calls = collector.calls();
    assert_eq!(calls.len(), 1, "{calls:#?}");
    assert_eq!(calls[0].name, "singletable.transaction");
    assert_eq!(calls[0].fields["operation"], "transact_get");
}
