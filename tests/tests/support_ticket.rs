//! The support-ticket repository end to end: all six access patterns of the
//! reference, for two tenants, against a real DynamoDB-compatible server.

use futures_util::StreamExt;
use singletable_runtime::sdk::types::AttributeValue;
use singletable_runtime::{DateTime, Error};
use singletable_tests::generated::support_ticket::*;
use singletable_tests::server;
use singletable_tests::server::put_stored;

async fn repository() -> Repository {
    let server = server::server().await;
    let repo = Repository::new(server::client(&server.endpoint))
        .with_table_name(server::unique_table("SupportTicket"));
    repo.create_table().await.expect("create the table");
    repo
}

fn tenant(id: &str) -> TenantId {
    TenantId::new(id).expect("a valid tenant id")
}

fn ticket(id: &str, status: Status, resolver: Option<&str>) -> Ticket {
    Ticket {
        id: id.to_owned(),
        title: format!("ticket {id}"),
        status,
        resolver: resolver.map(str::to_owned),
        created_at: DateTime::from_secs(1_714_564_800),
    }
}

fn comment(ticket_id: &str, id: &str, at: i64) -> Comment {
    Comment {
        ticket_id: ticket_id.to_owned(),
        id: id.to_owned(),
        author: "alice".into(),
        body: format!("comment {id}"),
        created_at: DateTime::from_secs(at),
    }
}

/// Writes the same-named items for both tenants, so any leak shows.
async fn seed(repo: &Repository, tenant: &TenantId) {
    let t = repo.for_tenant(tenant);
    t.put_ticket(&ticket("T1", Status::Open, Some("bob")))
        .await
        .unwrap();
    t.put_ticket(&ticket("T2", Status::Open, None))
        .await
        .unwrap();
    t.put_ticket(&ticket("T3", Status::Closed, Some("bob")))
        .await
        .unwrap();
    t.put_ticket(&ticket("T4", Status::Open, Some("carol")))
        .await
        .unwrap();
    for (i, at) in [(1, 1_714_564_801), (2, 1_714_564_802)] {
        t.put_comment(&comment("T1", &format!("C{i}-{}", tenant.as_str()), at))
            .await
            .unwrap();
    }
    // Counters the stream handler would have written.
    for (status, count) in [(Status::Open, 3), (Status::Closed, 1)] {
        let counter = TicketCount { status, count };
        put_stored(repo.client(), repo.table_name(), &counter, tenant).await;
    }
}

fn ids(tickets: &[Ticket]) -> Vec<&str> {
    let mut ids: Vec<&str> = tickets.iter().map(|t| t.id.as_str()).collect();
    ids.sort_unstable();
    ids
}

#[tokio::test]
async fn the_six_access_patterns_return_exactly_the_tenants_items() {
    let repo = repository().await;
    let (a, b) = (tenant("acme"), tenant("acme_b"));
    seed(&repo, &a).await;
    seed(&repo, &b).await;
    let t = repo.for_tenant(&a);

    let collection = t.ticket_with_comments("T1").all().await.unwrap();
    assert_eq!(collection.len(), 3, "{collection:?}");
    assert!(matches!(&collection[0], TicketWithCommentsItem::Comment(c) if c.id == "C1-acme"));
    assert!(matches!(&collection[1], TicketWithCommentsItem::Comment(c) if c.id == "C2-acme"));
    assert!(matches!(&collection[2], TicketWithCommentsItem::Ticket(x) if x.id == "T1"));

    let summary = t.ticket_summary("T1").all().await.unwrap();
    assert_eq!(summary, vec![ticket("T1", Status::Open, Some("bob"))]);

    // Sparse GSI1: T2 has no resolver, so it is not an open ticket there.
    assert_eq!(ids(&t.open_tickets().all().await.unwrap()), ["T1", "T4"]);
    assert_eq!(
        ids(&t.open_tickets_for_resolver("bob").all().await.unwrap()),
        ["T1"]
    );

    let mut close = t.close_tickets();
    for id in ["T1", "T4"] {
        close.update_ticket(
            &TicketKey { id: id.into() },
            TicketUpdate::default().status(Status::Closed),
        );
    }
    close.send().await.unwrap();
    assert!(t.open_tickets().all().await.unwrap().is_empty());
    let closed = t
        .get_ticket(&TicketKey { id: "T4".into() })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(closed.status, Status::Closed);

    let counts = t.ticket_counts_by_status().all().await.unwrap();
    assert_eq!(counts.len(), 2);
    assert_eq!(
        counts[0],
        TicketCount {
            status: Status::Closed,
            count: 1
        }
    );

    // Tenant B saw none of this.
    let other = repo.for_tenant(&b);
    assert_eq!(
        ids(&other.open_tickets().all().await.unwrap()),
        ["T1", "T4"]
    );
    let comments = other.ticket_with_comments("T1").all().await.unwrap();
    assert!(comments.iter().all(|i| match i {
        TicketWithCommentsItem::Comment(c) => c.id.ends_with("acme_b"),
        TicketWithCommentsItem::Ticket(_) => true,
    }));
}

#[tokio::test]
async fn create_is_conditional_and_update_needs_an_item() {
    let repo = repository().await;
    let a = tenant("acme");
    let t = repo.for_tenant(&a);
    let item = ticket("T9", Status::Open, None);
    t.create_ticket(&item).await.unwrap();
    let again = t.create_ticket(&ticket("T9", Status::Closed, None)).await;
    assert!(
        matches!(
            again,
            Err(Error::ConditionFailed {
                entity: "Ticket",
                operation: "create"
            })
        ),
        "{again:?}"
    );
    assert_eq!(t.get_ticket(&item.key()).await.unwrap(), Some(item.clone()));
    // The same id in another tenant is another item.
    repo.for_tenant(&tenant("other"))
        .create_ticket(&item)
        .await
        .unwrap();

    let missing = t
        .update_ticket(
            &TicketKey { id: "nope".into() },
            TicketUpdate::default().title("x"),
        )
        .await;
    assert!(
        matches!(
            missing,
            Err(Error::ConditionFailed {
                operation: "update",
                ..
            })
        ),
        "{missing:?}"
    );
    // A delete returns the item as it was; a second finds none.
    let stored = t.get_ticket(&item.key()).await.unwrap();
    assert!(stored.is_some());
    assert_eq!(t.delete_ticket(&item.key()).await.unwrap(), stored);
    assert_eq!(t.delete_ticket(&item.key()).await.unwrap(), None);
}

#[tokio::test]
async fn sparse_index_membership_follows_updates() {
    let repo = repository().await;
    let a = tenant("acme");
    let t = repo.for_tenant(&a);
    let key = TicketKey { id: "S1".into() };
    t.put_ticket(&ticket("S1", Status::Open, None))
        .await
        .unwrap();
    assert!(t.open_tickets().all().await.unwrap().is_empty());

    t.update_ticket(&key, TicketUpdate::default().resolver(Some("dave".into())))
        .await
        .unwrap();
    assert_eq!(
        ids(&t.open_tickets_for_resolver("dave").all().await.unwrap()),
        ["S1"]
    );

    t.update_ticket(&key, TicketUpdate::default().resolver(None))
        .await
        .unwrap();
    assert!(t.open_tickets().all().await.unwrap().is_empty());
    let stored = t.get_ticket(&key).await.unwrap().unwrap();
    assert_eq!(stored.resolver, None);
}

#[tokio::test]
async fn queries_page_through_many_items_in_both_orders() {
    let repo = repository().await;
    let a = tenant("acme");
    let t = repo.for_tenant(&a);
    t.put_ticket(&ticket("P", Status::Open, None))
        .await
        .unwrap();
    for i in 0..120 {
        t.put_comment(&comment("P", &format!("c{i:03}"), 1_714_564_800 + i))
            .await
            .unwrap();
    }
    let pages: Vec<_> = t
        .ticket_with_comments("P")
        .page_size(25)
        .pages()
        .collect()
        .await;
    assert!(pages.len() >= 5, "{} pages", pages.len());
    let items: usize = pages.iter().map(|p| p.as_ref().unwrap().items.len()).sum();
    assert_eq!(items, 121);

    let newest = t
        .ticket_with_comments("P")
        .reverse()
        .limit(3)
        .all()
        .await
        .unwrap();
    assert_eq!(newest.len(), 3);
    assert!(matches!(&newest[0], TicketWithCommentsItem::Ticket(_)));
    assert!(matches!(&newest[1], TicketWithCommentsItem::Comment(c) if c.id == "c119"));
    let limited = t
        .ticket_with_comments("P")
        .page_size(7)
        .limit(30)
        .all()
        .await
        .unwrap();
    assert_eq!(limited.len(), 30);
}

#[tokio::test]
async fn corrupted_items_are_typed_errors_and_the_good_items_still_come() {
    let repo = repository().await;
    let a = tenant("acme");
    let t = repo.for_tenant(&a);
    t.put_ticket(&ticket("B1", Status::Open, None))
        .await
        .unwrap();
    for i in 0..3 {
        t.put_comment(&comment("B1", &format!("c{i}"), 1_714_564_800 + i))
            .await
            .unwrap();
    }
    // Another tool writes a comment whose body is a number and one of an unknown type.
    let bad = |sk: &str, entity: &str| {
        repo.client()
            .put_item()
            .table_name(repo.table_name())
            .item("pk", AttributeValue::S("TENANT#acme|TICKET#B1".into()))
            .item("sk", AttributeValue::S(sk.into()))
            .item("entity_type", AttributeValue::S(entity.into()))
            .item("body", AttributeValue::N("7".into()))
            .send()
    };
    bad("COMMENT#2024-05-01T12:00:00.500Z#x", "Comment")
        .await
        .unwrap();
    bad("COMMENT#2024-05-01T12:00:00.600Z#y", "Gremlin")
        .await
        .unwrap();

    let results: Vec<_> = t.ticket_with_comments("B1").items().collect().await;
    let good = results.iter().filter(|r| r.is_ok()).count();
    assert_eq!(good, 4);
    let errors: Vec<String> = results
        .iter()
        .filter_map(|r| r.as_ref().err())
        .map(|e| match e {
            Error::Decode(d) => format!("{}.{}", d.entity, d.attribute),
            other => format!("unexpected {other}"),
        })
        .collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors.contains(&"ticket_with_comments.entity_type".to_owned()),
        "{errors:?}"
    );
    assert!(
        errors
            .iter()
            .any(|e| e == "Comment.author" || e == "Comment.body"),
        "{errors:?}"
    );
    assert!(t.ticket_with_comments("B1").all().await.is_err());
}

#[tokio::test]
async fn bad_values_never_reach_the_table() {
    let repo = repository().await;
    let a = tenant("acme");
    let t = repo.for_tenant(&a);
    let injected = t
        .put_ticket(&ticket("T1|TICKET#T2", Status::Open, None))
        .await;
    assert!(
        matches!(injected, Err(Error::Value(ref v)) if v.name == "id"),
        "{injected:?}"
    );
    let long_title = Ticket {
        title: "x".repeat(201),
        ..ticket("T1", Status::Open, None)
    };
    assert!(matches!(
        t.put_ticket(&long_title).await,
        Err(Error::Value(_))
    ));
    let query = t.ticket_summary("a#b").all().await;
    assert!(matches!(query, Err(Error::Value(_))), "{query:?}");
    assert!(TenantId::new("acme|x").is_err());
    assert!(TenantId::new("").is_err());
    assert!(TenantId::new("a*").is_err());
}
