//! Runtime defence in depth for tenant isolation, attacked end to end: a
//! batch read answered with another tenant's items, an item written by
//! another tenant with an index key that names this tenant, and cursors of
//! another tenant, index or partition (or forged). Each attack gets a typed
//! error, and the other tenant's data is left as it was.

use std::sync::atomic::Ordering;

use futures_util::StreamExt;
use singletable_runtime::{Cursor, CursorError, DateTime, Error, ForeignReason, Item, Position};
use singletable_tests::generated::{saas_tenant_users_orders as saas, support_ticket};
use singletable_tests::server::s;
use singletable_tests::{faults, server};

fn inventory(sku: &str, on_hand: i64) -> saas::InventoryItem {
    saas::InventoryItem {
        sku: sku.into(),
        on_hand,
        reserved: 0,
        version: 1,
    }
}

async fn read_inventory(
    handle: &saas::TenantRepository<'_>,
    skus: &[&str],
) -> Result<Vec<saas::InventoryItem>, Error> {
    let mut batch = handle.inventory_items();
    for sku in skus {
        batch.get_inventory_item(&saas::InventoryItemKey { sku: (*sku).into() });
    }
    let mut items = batch.all().await?;
    items.sort_by(|a, b| a.sku.cmp(&b.sku));
    Ok(items)
}

#[tokio::test]
async fn batch_get_refuses_items_it_did_not_ask_for() {
    let upstream = server::server().await.endpoint.clone();
    let table = server::unique_table("BatchIsolation");
    let direct = saas::Repository::new(server::client(&upstream)).with_table_name(&table);
    direct.create_table().await.unwrap();
    let (t1, t2) = (
        saas::TenantId::new("t1").unwrap(),
        saas::TenantId::new("t2").unwrap(),
    );
    for (tenant, on_hand) in [(&t1, 10), (&t2, 20)] {
        for sku in ["SKU-1", "SKU-2"] {
            direct
                .for_tenant(tenant)
                .put_inventory_item(&inventory(sku, on_hand))
                .await
                .unwrap();
        }
    }
    // A server that answers tenant t1's BatchGetItem with tenant t2's keys.
    let proxy = faults::start_tampering(&upstream, "TENANT#t1|", "TENANT#t2|")
        .await
        .unwrap();
    let tampered = saas::Repository::new(server::client(&proxy.endpoint)).with_table_name(&table);

    let refused = read_inventory(&tampered.for_tenant(&t1), &["SKU-1", "SKU-2"]).await;
    match &refused {
        Err(Error::ForeignItem(e)) => {
            assert_eq!(
                (e.operation, e.attribute.as_str(), e.reason),
                ("batch_get", "pk", ForeignReason::NotRequested)
            );
            assert!(e.to_string().contains("not asked for"), "{e}");
        }
        other => panic!("expected a refused item, got {other:?}"),
    }

    // Read directly, both tenants still hold exactly their own items.
    let own = read_inventory(&direct.for_tenant(&t1), &["SKU-1", "SKU-2"]).await;
    assert_eq!(
        own.unwrap(),
        [inventory("SKU-1", 10), inventory("SKU-2", 10)]
    );
    let other = read_inventory(&direct.for_tenant(&t2), &["SKU-1", "SKU-2"]).await;
    assert_eq!(
        other.unwrap(),
        [inventory("SKU-1", 20), inventory("SKU-2", 20)]
    );
}

fn ticket(id: &str, resolver: &str) -> support_ticket::Ticket {
    support_ticket::Ticket {
        id: id.into(),
        title: format!("ticket {id}"),
        status: support_ticket::Status::Open,
        resolver: Some(resolver.into()),
        created_at: DateTime::from_secs(1_714_564_800),
    }
}

async fn tickets_table() -> (String, support_ticket::Repository) {
    let upstream = server::server().await.endpoint.clone();
    let repo = support_ticket::Repository::new(server::client(&upstream))
        .with_table_name(server::unique_table("TicketIsolation"));
    repo.create_table().await.unwrap();
    (upstream, repo)
}

#[tokio::test]
async fn an_index_query_refuses_an_item_whose_index_key_names_another_tenant() {
    use support_ticket::{TenantId, TicketKey};
    let (_, repo) = tickets_table().await;
    let (acme, evil) = (
        TenantId::new("acme").unwrap(),
        TenantId::new("evil").unwrap(),
    );
    repo.for_tenant(&acme)
        .put_ticket(&ticket("T1", "bob"))
        .await
        .unwrap();
    // Tenant evil writes in its own partition (all IAM can check on a
    // write) a ticket whose GSI1 key names tenant acme's open tickets.
    let forged: Item = [
        ("pk", s("TENANT#evil|TICKET#X1")),
        ("sk", s("SUMMARY")),
        ("entity_type", s("Ticket")),
        ("id", s("X1")),
        ("title", s("please log in at evil.example")),
        ("status", s("OPEN")),
        ("resolver", s("bob")),
        ("created_at", s("2024-05-01T12:00:00.000Z")),
        ("tenant_status", s("TENANT#acme|OPEN")),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    repo.client()
        .put_item()
        .table_name(repo.table_name())
        .set_item(Some(forged))
        .send()
        .await
        .unwrap();

    let a = repo.for_tenant(&acme);
    for results in [
        a.open_tickets().items().collect::<Vec<_>>().await,
        a.open_tickets_for_resolver("bob")
            .items()
            .collect::<Vec<_>>()
            .await,
    ] {
        let own: Vec<&str> = results
            .iter()
            .filter_map(|r| r.as_ref().ok().map(|t| t.id.as_str()))
            .collect();
        assert_eq!(own, ["T1"], "{results:?}");
        let refused: Vec<_> = results.iter().filter_map(|r| r.as_ref().err()).collect();
        assert_eq!(refused.len(), 1, "{results:?}");
        assert!(
            matches!(refused[0], Error::ForeignItem(e)
                if e.operation == "query" && e.attribute == "pk" && e.reason == ForeignReason::OtherTenant),
            "{results:?}"
        );
    }
    let all = a.open_tickets().all().await;
    assert!(matches!(all, Err(Error::ForeignItem(_))), "{all:?}");

    // Tenant acme's ticket is as it wrote it; tenant evil's item is still its own.
    assert_eq!(
        a.get_ticket(&TicketKey { id: "T1".into() }).await.unwrap(),
        Some(ticket("T1", "bob"))
    );
    let theirs = repo
        .for_tenant(&evil)
        .get_ticket(&TicketKey { id: "X1".into() })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(theirs.title, "please log in at evil.example");
}

/// The cursor after the first item of `query`.
async fn cursor_after_one<T: Send + 'static>(query: singletable_runtime::Query<T>) -> Cursor {
    let mut pages = std::pin::pin!(query.limit(1).pages());
    let page = pages.next().await.unwrap().unwrap();
    assert_eq!(page.items.len(), 1);
    page.next.expect("more items after the first")
}

fn requests(proxy: &faults::FaultProxy) -> u64 {
    proxy.counts.requests.load(Ordering::Relaxed)
}

#[tokio::test]
async fn cursors_of_another_tenant_index_or_partition_are_refused_before_any_request() {
    use support_ticket::{Comment, TenantId};
    let (upstream, repo) = tickets_table().await;
    let (acme, evil) = (
        TenantId::new("acme").unwrap(),
        TenantId::new("evil").unwrap(),
    );
    for tenant in [&acme, &evil] {
        let t = repo.for_tenant(tenant);
        for (id, resolver) in [("T1", "ann"), ("T2", "bob")] {
            t.put_ticket(&ticket(id, resolver)).await.unwrap();
        }
    }
    repo.for_tenant(&acme)
        .put_comment(&Comment {
            ticket_id: "T1".into(),
            id: "c1".into(),
            author: "ann".into(),
            body: "hello".into(),
            created_at: DateTime::from_secs(1_714_564_801),
        })
        .await
        .unwrap();
    let evils_cursor = cursor_after_one(repo.for_tenant(&evil).open_tickets()).await;
    let table_cursor = cursor_after_one(repo.for_tenant(&acme).ticket_with_comments("T1")).await;
    let forged = Cursor::from_positions(vec![Position::After(
        [
            ("pk", s("TENANT#acme|TICKET#T1")),
            ("sk", s("SUMMARY")),
            ("tenant_status", s("TENANT#evil|OPEN")),
            ("resolver", s("ann")),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect(),
    )]);

    // Tenant acme, through a proxy that counts what reaches the server.
    let proxy = faults::start(&upstream, 0.0, 0).await.unwrap();
    let counted = support_ticket::Repository::new(server::client(&proxy.endpoint))
        .with_table_name(repo.table_name());
    let a = counted.for_tenant(&acme);
    let cases = [
        (
            a.open_tickets()
                .starting_after(evils_cursor)
                .all()
                .await
                .map(|items| items.len()),
            CursorError::OtherTenant {
                partition: 0,
                attribute: "pk",
            },
        ),
        (
            a.open_tickets()
                .starting_after(table_cursor.clone())
                .all()
                .await
                .map(|items| items.len()),
            CursorError::Attributes {
                partition: 0,
                attribute: "tenant_status".into(),
            },
        ),
        (
            a.ticket_with_comments("T2")
                .starting_after(table_cursor.clone())
                .all()
                .await
                .map(|items| items.len()),
            CursorError::OtherPartition {
                partition: 0,
                attribute: "pk",
            },
        ),
        (
            a.open_tickets()
                .starting_after(forged)
                .all()
                .await
                .map(|items| items.len()),
            CursorError::OtherPartition {
                partition: 0,
                attribute: "tenant_status",
            },
        ),
    ];
    for (result, expected) in cases {
        match result {
            Err(Error::Cursor(e)) => assert_eq!(e, expected),
            other => panic!("expected {expected:?}, got {other:?}"),
        }
    }
    assert_eq!(requests(&proxy), 0, "a refused cursor sends nothing");

    // Its own cursor resumes where it left off.
    let rest = a
        .ticket_with_comments("T1")
        .starting_after(table_cursor)
        .all()
        .await
        .unwrap();
    assert_eq!(rest.len(), 1, "{rest:?}");
    assert!(requests(&proxy) > 0);
    // Tenant evil's tickets are untouched.
    let theirs: Vec<String> = repo
        .for_tenant(&evil)
        .open_tickets()
        .all()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.id)
        .collect();
    assert_eq!(theirs, ["T1", "T2"]);
}
