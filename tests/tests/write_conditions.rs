//! Write conditions, end to end: an update applies only when its `when`
//! condition holds on the stored item, a conditional delete only when
//! its condition does, and a condition that does not hold fails with
//! `Error::ConditionNotMet` carrying the stored item, typed — nothing is
//! written. Conditions are built from the entity's typed fields.

use singletable_runtime::{Condition, DateTime, Error};
use singletable_tests::generated::partial_reads::{
    Repository, Status, Ticket, TicketKey, TicketUpdate, TriageStep,
};
use singletable_tests::server;

fn ticket(id: &str) -> Ticket {
    Ticket {
        queue: "support".into(),
        id: id.into(),
        title: format!("printer {id} jams"),
        body: "it jams".into(),
        status: Status::Open,
        priority: 3,
        assignee: None,
        labels: Some(["hardware".to_owned()].into()),
        due_at: Some(DateTime::from_secs(1_800_000_000)),
        expires: None,
    }
}

fn key(id: &str) -> TicketKey {
    TicketKey {
        queue: "support".into(),
        id: id.into(),
    }
}

async fn repo() -> Repository {
    let client = server::client(&server::server().await.endpoint);
    let repo = Repository::new(client).with_table_name(server::unique_table("Conditions"));
    repo.create_table().await.unwrap();
    repo
}

/// The stored item a `ConditionNotMet` carries, read as a ticket.
fn stored(e: &Error) -> Ticket {
    assert!(matches!(e, Error::ConditionNotMet { .. }), "{e:?}");
    e.stored_as::<Ticket>().unwrap().unwrap()
}

#[tokio::test]
async fn updates_apply_only_when_their_condition_holds() {
    let repo = repo().await;
    repo.create_ticket(&ticket("1")).await.unwrap();

    // Close only an open ticket: once.
    let close = || {
        TicketUpdate::default()
            .status(Status::Closed)
            .when(Ticket::STATUS.eq(Status::Open))
    };
    let closed = repo.update_ticket(&key("1"), close()).await.unwrap();
    assert_eq!(closed.status, Status::Closed);
    let again = repo.update_ticket(&key("1"), close()).await.unwrap_err();
    assert_eq!(stored(&again), closed, "the error carries the stored item");
    assert!(
        again.to_string().contains("condition does not hold"),
        "{again}"
    );

    // Lower the priority while it stays at least 1 (`stock ≥ quantity`).
    let lower = |to: i64| {
        TicketUpdate::default()
            .priority(to)
            .when(Ticket::PRIORITY.ge(to + 1))
    };
    assert_eq!(
        repo.update_ticket(&key("1"), lower(2))
            .await
            .unwrap()
            .priority,
        2
    );
    assert_eq!(
        repo.update_ticket(&key("1"), lower(1))
            .await
            .unwrap()
            .priority,
        1
    );
    let floor = repo.update_ticket(&key("1"), lower(1)).await.unwrap_err();
    assert_eq!(stored(&floor).priority, 1);

    // Compound conditions over every kind of field: absent or equal, a
    // prefix, a set element, a datetime in its stored format, a range, a
    // list of values, and a negation.
    let assign = |who: &str| {
        TicketUpdate::default()
            .assignee(Some(who.to_owned()))
            .when(Ticket::ASSIGNEE.not_exists().or(Ticket::ASSIGNEE.eq("ann")))
            .when(Ticket::TITLE.begins_with("printer"))
            .when(Ticket::LABELS.contains("hardware"))
            .when(Ticket::DUE_AT.lt(DateTime::from_secs(1_900_000_000)))
            .when(Ticket::PRIORITY.between(1, 5))
            .when(Ticket::STATUS.is_in([Status::Open, Status::Closed]))
            .when(!Ticket::BODY.contains("fire"))
    };
    let ann = repo.update_ticket(&key("1"), assign("ann")).await.unwrap();
    assert_eq!(ann.assignee.as_deref(), Some("ann"));
    let bob = repo.update_ticket(&key("1"), assign("bob")).await.unwrap();
    assert_eq!(bob.assignee.as_deref(), Some("bob"));
    let taken = repo
        .update_ticket(&key("1"), assign("cy"))
        .await
        .unwrap_err();
    assert_eq!(stored(&taken).assignee.as_deref(), Some("bob"));
    let stale = TicketUpdate::default()
        .title("later")
        .when(Ticket::DUE_AT.gt(DateTime::from_secs(1_800_000_000)));
    assert_eq!(
        stored(&repo.update_ticket(&key("1"), stale).await.unwrap_err()).title,
        "printer 1 jams"
    );

    // No item: the update's own "it exists" condition fails first.
    let missing = repo.update_ticket(&key("9"), close()).await.unwrap_err();
    assert!(
        matches!(missing, Error::ConditionFailed { .. }),
        "{missing:?}"
    );

    // An operand the attribute's format cannot hold is refused before any
    // request.
    let far = TicketUpdate::default()
        .title("x")
        .when(Ticket::DUE_AT.lt(DateTime::from_secs(400_000_000_000)));
    assert!(matches!(
        repo.update_ticket(&key("1"), far).await,
        Err(Error::Value(_))
    ));
    assert_eq!(
        repo.ticket("support", "1").await.unwrap().unwrap().title,
        "printer 1 jams"
    );
}

#[tokio::test]
async fn deletes_apply_only_when_their_condition_holds() {
    let repo = repo().await;
    repo.create_ticket(&ticket("1")).await.unwrap();

    // Only an existing item: deleting nothing is an error, not `None`.
    let nothing = repo
        .delete_ticket_when(&key("9"), &Condition::item_exists())
        .await
        .unwrap_err();
    assert!(
        matches!(nothing, Error::ConditionNotMet { stored: None, .. }),
        "{nothing:?}"
    );
    assert!(nothing.stored_as::<Ticket>().is_none());

    // Only a closed ticket: this one is open, and stays.
    let open = repo
        .delete_ticket_when(&key("1"), &Ticket::STATUS.eq(Status::Closed))
        .await
        .unwrap_err();
    assert_eq!(stored(&open), ticket("1"));
    assert!(repo.ticket("support", "1").await.unwrap().is_some());

    let deleted = repo
        .delete_ticket_when(
            &key("1"),
            &Condition::item_exists().and(Ticket::STATUS.eq(Status::Open)),
        )
        .await
        .unwrap();
    assert_eq!(deleted, Some(ticket("1")));
    assert!(repo.ticket("support", "1").await.unwrap().is_none());
}

/// The spec's named conditions (`conditions:` of `Ticket`) are typed
/// constructors over the same fields: `Ticket::open()`,
/// `Ticket::at_least(least)`, `Ticket::assignable(taken_by)`,
/// `Ticket::due_before(before)`.
#[tokio::test]
async fn conditions_the_spec_names_are_typed_constructors() {
    let repo = repo().await;
    repo.create_ticket(&ticket("1")).await.unwrap();
    let close = || {
        TicketUpdate::default()
            .status(Status::Closed)
            .when(Ticket::open())
    };
    repo.update_ticket(&key("1"), close()).await.unwrap();
    let again = repo.update_ticket(&key("1"), close()).await.unwrap_err();
    assert_eq!(stored(&again).status, Status::Closed);

    let raise = |least: i64| {
        TicketUpdate::default()
            .title("urgent")
            .when(Ticket::at_least(least))
    };
    assert!(repo.update_ticket(&key("1"), raise(4)).await.is_err());
    assert_eq!(
        repo.update_ticket(&key("1"), raise(3)).await.unwrap().title,
        "urgent"
    );

    let assign = |who: &str, unless: &str| {
        TicketUpdate::default()
            .assignee(Some(who.to_owned()))
            .when(Ticket::assignable(unless))
    };
    // No assignee yet: `<>` holds for an absent attribute.
    repo.update_ticket(&key("1"), assign("ann", "ann"))
        .await
        .unwrap();
    let taken = repo
        .update_ticket(&key("1"), assign("bob", "ann"))
        .await
        .unwrap_err();
    assert_eq!(stored(&taken).assignee.as_deref(), Some("ann"));

    let due = DateTime::from_secs(1_800_000_000);
    let early = repo
        .delete_ticket_when(&key("1"), &Ticket::due_before(due))
        .await
        .unwrap_err();
    assert_eq!(stored(&early).due_at, Some(due));
    let deleted = repo
        .delete_ticket_when(
            &key("1"),
            &Ticket::due_before(DateTime::from_secs(1_800_000_001)),
        )
        .await
        .unwrap();
    assert_eq!(deleted.map(|t| t.title), Some("urgent".to_owned()));
}

/// A put replaces the item only when its condition holds on the stored
/// one; on no item, a condition on its attributes does not hold.
#[tokio::test]
async fn puts_apply_only_when_their_condition_holds() {
    let repo = repo().await;
    let mut first = ticket("1");
    let none = repo
        .put_ticket_when(&first, &Ticket::open())
        .await
        .unwrap_err();
    assert!(
        matches!(none, Error::ConditionNotMet { stored: None, .. }),
        "{none:?}"
    );
    assert!(repo.ticket("support", "1").await.unwrap().is_none());
    repo.put_ticket(&first).await.unwrap();

    // Replace an open ticket: once it is closed, no longer.
    first.status = Status::Closed;
    repo.put_ticket_when(&first, &Ticket::open()).await.unwrap();
    let mut later = first.clone();
    later.title = "reopened".into();
    later.status = Status::Open;
    let refused = repo
        .put_ticket_when(&later, &Ticket::open())
        .await
        .unwrap_err();
    assert_eq!(stored(&refused), first);
    assert_eq!(repo.ticket("support", "1").await.unwrap(), Some(first));
}

/// Transaction items take conditions too: a put, a delete and a condition
/// check apply only when theirs holds on the stored item, an update when
/// its `when` does; otherwise the whole transaction is canceled, and the
/// reason of the item at fault carries the stored item, typed.
#[tokio::test]
async fn transaction_items_apply_only_when_their_conditions_hold() {
    let repo = repo().await;
    for id in ["1", "2", "3"] {
        repo.put_ticket(&ticket(id)).await.unwrap();
    }
    let mut closed = ticket("3");
    closed.status = Status::Closed;
    repo.put_ticket(&closed).await.unwrap();

    // Every condition holds: all applied.
    let mut replaced = ticket("1");
    replaced.title = "replaced".into();
    let mut tx = repo.triage();
    tx.put_ticket_when(&replaced, &Ticket::open())
        .delete_ticket_when(&key("2"), &Ticket::open())
        .check_ticket_when(&key("3"), &!Ticket::open());
    tx.send().await.unwrap();
    assert_eq!(
        repo.ticket("support", "1").await.unwrap(),
        Some(replaced.clone())
    );
    assert_eq!(repo.ticket("support", "2").await.unwrap(), None);

    // One condition fails (ticket 3 is closed): nothing is written, and
    // the reason names the item and carries what is stored.
    let mut tx = repo.triage();
    tx.delete_ticket_when(&key("1"), &Ticket::open())
        .check_ticket_when(&key("3"), &Ticket::open());
    let refused = tx.send().await.unwrap_err();
    let failed: Vec<_> = TriageStep::failed(&refused)
        .into_iter()
        .filter(|(_, r)| r.is_condition_failed())
        .collect();
    let [(step, reason)] = failed[..] else {
        panic!("one failed condition: {refused:?}");
    };
    assert_eq!(step, TriageStep::CheckTicketWhen);
    assert_eq!(reason.item, "check_ticket_when");
    assert_eq!(reason.stored_as::<Ticket>().unwrap().unwrap(), closed);
    assert_eq!(repo.ticket("support", "1").await.unwrap(), Some(replaced));

    // An update's `when` in a transaction, and a put's condition on no
    // item (ticket 2 is gone): canceled, with no stored item.
    let mut tx = repo.triage();
    tx.update_ticket(
        &key("3"),
        TicketUpdate::default().priority(1).when(Ticket::open()),
    );
    let Err(Error::TransactionCanceled(reasons)) = tx.send().await else {
        panic!("the transaction is canceled");
    };
    assert_eq!(reasons[0].item, "update_ticket");
    assert_eq!(reasons[0].stored_as::<Ticket>().unwrap().unwrap(), closed);
    let mut tx = repo.triage();
    tx.put_ticket_when(&ticket("2"), &Ticket::open());
    let Err(Error::TransactionCanceled(reasons)) = tx.send().await else {
        panic!("the transaction is canceled");
    };
    assert!(reasons[0].is_condition_failed() && reasons[0].stored.is_none());
    assert_eq!(repo.ticket("support", "2").await.unwrap(), None);
}

/// An idempotent update (a transaction with a client token) whose own
/// condition does not hold on an item that exists is `ConditionNotMet`
/// with the stored item, as without the token; on an item that does not
/// exist it is `ConditionFailed`.
#[tokio::test]
async fn idempotent_updates_report_a_failed_condition_with_the_stored_item() {
    let repo = repo().await;
    repo.create_ticket(&ticket("1")).await.unwrap();
    let close = || {
        TicketUpdate::default()
            .status(Status::Closed)
            .when(Ticket::STATUS.eq(Status::Open))
            .idempotent()
    };
    let closed = repo.update_ticket(&key("1"), close()).await.unwrap();
    assert_eq!(closed.status, Status::Closed);
    // Another value (another token): its condition is evaluated afresh.
    let reopen_then_close = TicketUpdate::default()
        .priority(4)
        .when(Ticket::STATUS.eq(Status::Open))
        .idempotent();
    let again = repo
        .update_ticket(&key("1"), reopen_then_close)
        .await
        .unwrap_err();
    assert_eq!(stored(&again), closed, "the error carries the stored item");
    let missing = repo.update_ticket(&key("2"), close()).await.unwrap_err();
    assert!(
        matches!(missing, Error::ConditionFailed { .. }),
        "{missing:?}"
    );
}
