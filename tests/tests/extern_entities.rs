//! A repository generated on the crate's own struct: every method takes and
//! returns it, renamed fields and all, against a real server.

use singletable_runtime::{DateTime, Entity};
use singletable_tests::extern_entities::model;
use singletable_tests::extern_entities::support_ticket::{
    Repository, Status, TenantId, Ticket, TicketKey, TicketUpdate, TicketWithCommentsItem,
};

fn ticket(id: &str, status: Status) -> model::Ticket {
    model::Ticket {
        id: id.into(),
        subject: format!("ticket {id}"),
        status,
        assignee: Some("ada".into()),
        created_at: DateTime::from_secs(1_714_564_800),
        views: 7,
    }
}

#[tokio::test]
async fn the_repository_takes_and_returns_the_crates_own_struct() {
    // The generated name is the crate's type.
    let _: fn(Ticket) -> model::Ticket = |t| t;
    let repo: Repository = singletable_runtime::testing::repository().await;
    let acme = TenantId::new("acme").unwrap();
    let t = repo.for_tenant(&acme);

    let first = ticket("T-1", Status::Open);
    t.create_ticket(&first).await.unwrap();
    t.put_ticket(&ticket("T-2", Status::Open)).await.unwrap();
    t.put_ticket(&ticket("T-3", Status::Closed)).await.unwrap();

    // Read back as the crate's struct: the skipped field is its default.
    let read = t.get_ticket(&first.key()).await.unwrap().unwrap();
    assert_eq!(
        read,
        model::Ticket {
            views: 0,
            ..first.clone()
        }
    );
    assert_eq!(first.key(), TicketKey { id: "T-1".into() });

    // Stored under the spec's names, whatever the fields are called.
    let item = first.to_item(&acme).unwrap();
    assert!(item.contains_key("title") && item.contains_key("resolver"));
    assert!(!item.contains_key("subject") && !item.contains_key("views"));

    // Queries, collections, updates and conditions use it too.
    let open: Vec<model::Ticket> = t.open_tickets().all().await.unwrap();
    let mut ids: Vec<_> = open.iter().map(|t| t.id.as_str()).collect();
    ids.sort();
    assert_eq!(ids, ["T-1", "T-2"]);
    let collection = t.ticket_with_comments("T-3").all().await.unwrap();
    assert!(
        matches!(&collection[..], [TicketWithCommentsItem::Ticket(t)] if t.status == Status::Closed)
    );
    let closed = t
        .update_ticket(&first.key(), TicketUpdate::default().status(Status::Closed))
        .await
        .unwrap();
    assert_eq!(closed.status, Status::Closed);
    assert_eq!(closed.subject, "ticket T-1");
    let refused = t
        .put_ticket_when(
            &ticket("T-2", Status::Closed),
            &Ticket::STATUS.eq(Status::Closed),
        )
        .await;
    assert!(matches!(
        refused,
        Err(singletable_runtime::Error::ConditionNotMet { .. })
    ));

    // The stream aggregate reads the group through the struct's accessors.
    let records = [singletable_runtime::aggregate::ChangeRecord {
        old: None,
        new: Some(ticket("T-9", Status::Open).to_item(&acme).unwrap()),
        ..Default::default()
    }];
    let (changes, errors) =
        singletable_tests::extern_entities::support_ticket::ticket_count_changes(&records);
    assert!(errors.is_empty());
    repo.apply_counter_changes(&changes).await.unwrap();
    let counts = t.ticket_counts_by_status().all().await.unwrap();
    assert_eq!(counts.len(), 1);
    assert_eq!((counts[0].status, counts[0].count), (Status::Open, 1));
}
