use super::*;

#[tokio::test]
async fn a_failed_condition_names_its_item_and_writes_nothing() {
    use inverted_role_index::*;
    let repo = Repository::new(client().await).with_table_name(server::unique_table("Tx"));
    repo.create_table().await.unwrap();
    let tenant = TenantId::new("tx").unwrap();
    let t = repo.for_tenant(&tenant);
    t.put_user(&User {
        user_id: "u1".into(),
        email: "u1@tx.example".into(),
        display_name: "u1".into(),
    })
    .await
    .unwrap();
    let mut grant = t.grant_role();
    grant
        .create_role_assignment(&RoleAssignment {
            user_id: "u1".into(),
            role: "ghost".into(),
            granted_by: "root".into(),
            granted_at: DateTime::from_secs(1_714_564_800),
        })
        .check_user(&UserKey {
            user_id: "u1".into(),
        })
        .check_role(&RoleKey {
            role: "ghost".into(),
        });
    let err = grant.send().await.unwrap_err();
    let Error::TransactionCanceled(reasons) = &err else {
        panic!("{err:?}");
    };
    assert_eq!(reasons.len(), 1, "{reasons:?}");
    assert_eq!(reasons[0].index, 2);
    assert_eq!(reasons[0].item, "check_role");
    assert_eq!(reasons[0].code, "ConditionalCheckFailed");
    assert!(err.to_string().contains("check_role"), "{err}");
    // Nothing of the transaction was written.
    assert!(t.user_roles("u1").all().await.unwrap().is_empty());
}

#[tokio::test]
async fn more_items_than_allowed_are_refused_before_any_request() {
    use support_ticket::*;
    let repo = Repository::new(client().await).with_table_name(server::unique_table("Tx101"));
    repo.create_table().await.unwrap();
    let tenant = TenantId::new("tx").unwrap();
    let t = repo.for_tenant(&tenant);
    for i in 0..101 {
        t.put_ticket(&Ticket {
            id: format!("T{i}"),
            title: "open".into(),
            status: Status::Open,
            resolver: None,
            created_at: DateTime::from_secs(1_714_564_800),
        })
        .await
        .unwrap();
    }
    let mut close = t.close_tickets();
    for i in 0..101 {
        close.update_ticket(
            &TicketKey {
                id: format!("T{i}"),
            },
            TicketUpdate::default().status(Status::Closed),
        );
    }
    assert_eq!(close.len(), 101);
    let refused = close.send().await;
    assert!(
        matches!(
            refused,
            Err(Error::TooManyItems {
                items: 101,
                max: 100,
                ..
            })
        ),
        "{refused:?}"
    );
    let still_open = t.get_ticket(&TicketKey { id: "T0".into() }).await.unwrap();
    assert_eq!(still_open.map(|x| x.status), Some(Status::Open));

    // 100 go through, atomically, with an idempotency token.
    let mut close = t.close_tickets();
    for i in 0..100 {
        close.update_ticket(
            &TicketKey {
                id: format!("T{i}"),
            },
            TicketUpdate::default().status(Status::Closed),
        );
    }
    close.client_request_token("close-100");
    close.send().await.unwrap();
    let closed = t.get_ticket(&TicketKey { id: "T99".into() }).await.unwrap();
    assert_eq!(closed.map(|x| x.status), Some(Status::Closed));
}
