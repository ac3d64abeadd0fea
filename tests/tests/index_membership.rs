//! Sparse indexes whose membership is a boolean (`when:`), from
//! `fixtures/pass/index_membership_by_flag.yaml`: an item is in the index
//! exactly while its flag is true — written so, moved in and out by
//! updates, and an update that changes a key input without the flag is
//! refused before any request. Run on both servers.

use singletable_runtime::Error;
use singletable_tests::generated::index_membership_by_flag::*;
use singletable_tests::server;

fn ticket(id: &str, open: bool, priority: i64) -> Ticket {
    Ticket {
        id: id.into(),
        title: format!("ticket {id}"),
        open,
        priority,
    }
}

async fn repository() -> (Repository, singletable_runtime::sdk::Client, String) {
    let client = server::client(&server::server().await.endpoint);
    let table = server::unique_table("Helpdesk");
    let repo = Repository::new(client.clone()).with_table_name(table.clone());
    repo.create_table().await.unwrap();
    (repo, client, table)
}

/// The ids of the tickets the `Open` index holds, in its order.
async fn open_ids(t: &TenantRepository<'_>) -> Vec<String> {
    let open = t.open_tickets().all().await.unwrap();
    open.into_iter().map(|t| t.id).collect()
}

/// How many stored items carry `attribute` (an index key).
async fn holding(client: &singletable_runtime::sdk::Client, table: &str, attribute: &str) -> usize {
    let items = server::scan_all(client, table).await.unwrap();
    items.iter().filter(|i| i.contains_key(attribute)).count()
}

#[tokio::test]
async fn a_ticket_is_in_the_index_exactly_while_it_is_open() {
    let (repo, client, table) = repository().await;
    let acme = TenantId::new("acme").unwrap();
    let t = repo.for_tenant(&acme);
    t.put_ticket(&ticket("a", true, 2)).await.unwrap();
    t.put_ticket(&ticket("b", false, 1)).await.unwrap();
    t.put_ticket(&ticket("c", true, 1)).await.unwrap();
    assert_eq!(open_ids(&t).await, ["c", "a"]);
    // The closed ticket has no index key at all.
    assert_eq!(holding(&client, &table, "open_pk").await, 2);
    assert_eq!(holding(&client, &table, "open_sk").await, 2);

    // Closing leaves the index; the item keeps its other attributes.
    let key = |id: &str| TicketKey { id: id.into() };
    let closed = t
        .update_ticket(&key("a"), TicketUpdate::default().open(false))
        .await
        .unwrap();
    assert_eq!(closed, ticket("a", false, 2));
    assert_eq!(open_ids(&t).await, ["c"]);
    assert_eq!(holding(&client, &table, "open_sk").await, 1);

    // Reopening needs every input of the key: the priority too.
    let refused = t
        .update_ticket(&key("b"), TicketUpdate::default().open(true))
        .await;
    assert!(
        matches!(&refused, Err(Error::IncompleteUpdate { key_attribute: "open_sk", missing, .. }) if missing.contains(&"priority")),
        "{refused:?}"
    );
    assert_eq!(open_ids(&t).await, ["c"]);
    t.update_ticket(&key("b"), TicketUpdate::default().open(true).priority(3))
        .await
        .unwrap();
    assert_eq!(open_ids(&t).await, ["c", "b"]);

    // A new priority without the flag: whether the ticket is in the index
    // is not known, so the update is refused and nothing is written.
    let refused = t
        .update_ticket(&key("c"), TicketUpdate::default().priority(5))
        .await;
    assert!(
        matches!(refused, Err(Error::IncompleteUpdate { .. })),
        "{refused:?}"
    );
    assert_eq!(t.ticket("c").await.unwrap(), Some(ticket("c", true, 1)));
    // With it, the ticket moves within the index.
    t.update_ticket(&key("c"), TicketUpdate::default().priority(5).open(true))
        .await
        .unwrap();
    assert_eq!(open_ids(&t).await, ["b", "c"]);
    // An update of no key input leaves the index as it is.
    t.update_ticket(&key("c"), TicketUpdate::default().title("renamed"))
        .await
        .unwrap();
    assert_eq!(open_ids(&t).await, ["b", "c"]);
}

#[tokio::test]
async fn an_optional_flag_is_a_member_only_when_true() {
    let (repo, client, table) = repository().await;
    let acme = TenantId::new("acme").unwrap();
    let t = repo.for_tenant(&acme);
    let message = |seq: i64, flagged: Option<bool>| Message {
        ticket: "a".into(),
        seq,
        body: format!("message {seq}"),
        flagged,
    };
    t.put_message(&message(1, None)).await.unwrap();
    t.put_message(&message(2, Some(false))).await.unwrap();
    t.put_message(&message(3, Some(true))).await.unwrap();
    let seqs = |items: Vec<FlaggedItem>| items.into_iter().map(|i| i.seq).collect::<Vec<_>>();
    assert_eq!(seqs(t.flagged().all().await.unwrap()), [3]);
    assert_eq!(holding(&client, &table, "flagged_pk").await, 1);
    let key = |seq: i64| MessageKey {
        ticket: "a".into(),
        seq,
    };
    t.update_message(&key(1), MessageUpdate::default().flagged(Some(true)))
        .await
        .unwrap();
    assert_eq!(seqs(t.flagged().all().await.unwrap()), [1, 3]);
    // Removing the flag (`None`) leaves the index, as `false` does.
    t.update_message(&key(3), MessageUpdate::default().flagged(None))
        .await
        .unwrap();
    assert_eq!(seqs(t.flagged().all().await.unwrap()), [1]);
    assert_eq!(holding(&client, &table, "flagged_sk").await, 1);
}
