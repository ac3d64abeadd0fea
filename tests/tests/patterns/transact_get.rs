use super::*;

#[tokio::test]
async fn items_of_several_entities_are_read_together_per_tenant() {
    use support_ticket::*;
    let repo = Repository::new(client().await).with_table_name(server::unique_table("TxGet"));
    repo.create_table().await.unwrap();
    let (a, b) = (TenantId::new("t1").unwrap(), TenantId::new("t10").unwrap());
    let ticket = |title: &str| Ticket {
        id: "T1".into(),
        title: title.into(),
        status: Status::Open,
        resolver: None,
        created_at: DateTime::from_secs(1_714_564_800),
    };
    let count = TicketCount {
        status: Status::Open,
        count: 3,
    };
    repo.for_tenant(&a)
        .put_ticket(&ticket("of t1"))
        .await
        .unwrap();
    put_stored(repo.client(), repo.table_name(), &count, &a).await;
    repo.for_tenant(&b)
        .put_ticket(&ticket("of t10"))
        .await
        .unwrap();

    let t = repo.for_tenant(&a);
    let mut read = t.transact_get();
    let first = read.get(&TicketKey { id: "T1".into() });
    let missing = read.get(&TicketKey { id: "T9".into() });
    let counted = read.get(&TicketCountKey {
        status: Status::Open,
    });
    assert_eq!(read.len(), 3);
    let got = read.send().await.unwrap();
    assert_eq!(got.get(first).unwrap(), Some(ticket("of t1")));
    assert_eq!(got.get(missing).unwrap(), None);
    assert_eq!(got.get(counted).unwrap(), Some(count));

    // Over 100 items: refused before any request.
    let mut too_many = t.transact_get();
    for i in 0..101 {
        too_many.get(&TicketKey {
            id: format!("T{i}"),
        });
    }
    assert!(matches!(
        too_many.send().await,
        Err(Error::TooManyItems { items: 101, .. })
    ));
}
