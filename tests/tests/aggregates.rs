//! Aggregates end to end: after a random sequence of creates, group changes
//! and deletes, both counter styles equal a recount of the table.
//!
//! `shopping_cart` keeps `CartCount` in the same transaction as each cart
//! write; `support_ticket` keeps `TicketCount` from the table's stream,
//! read here through the DynamoDB Streams API of the same server.

use std::collections::BTreeMap;

use singletable_runtime::aggregate::ChangeRecord;
use singletable_runtime::DateTime;
use singletable_tests::dice::Dice;
use singletable_tests::generated::{shopping_cart, support_ticket};
use singletable_tests::{faults, server, streams};

#[tokio::test]
async fn transaction_counters_equal_a_recount() {
    use shopping_cart::*;
    let repo = Repository::new(server::client(&server::server().await.endpoint))
        .with_table_name(server::unique_table("CartCounts"));
    repo.create_table().await.unwrap();
    let users = ["ann", "bob"];
    let statuses = [Status::Active, Status::Saved];
    let mut dice = Dice(7);
    for step in 0..150 {
        let user = users[dice.roll(2) as usize];
        let status = statuses[dice.roll(2) as usize];
        let product = format!("p{}", dice.roll(12));
        let item = CartItem {
            user_id: user.into(),
            product_id: product.clone(),
            status,
            product_name: format!("{product} at step {step}"),
            quantity: 1 + dice.roll(5) as i64,
            unit_price: "2.50".parse().unwrap(),
            added_at: DateTime::from_secs(1_714_564_800 + step),
        };
        match dice.roll(5) {
            0 => match repo.create_cart_item(&item).await {
                Ok(written) => assert_eq!(written, item, "the item as written"),
                Err(singletable_runtime::Error::ConditionFailed { .. }) => {}
                Err(e) => panic!("create: {e:?}"),
            },
            1 => {
                repo.put_cart_item(&item).await.unwrap();
            }
            2 => {
                repo.delete_cart_item(&item.key()).await.unwrap();
            }
            3 => {
                // An upsert: creates the item (counted in the group its key
                // names) or updates it in place.
                let update = CartItemUpdate::default()
                    .product_name(item.product_name.clone())
                    .quantity(item.quantity)
                    .unit_price(item.unit_price.clone())
                    .added_at(item.added_at)
                    .or_create();
                repo.update_cart_item(&item.key(), update).await.unwrap();
            }
            _ => {
                // A change that leaves the group as it is.
                let update = CartItemUpdate::default().quantity(9);
                match repo.update_cart_item(&item.key(), update).await {
                    Ok(_) | Err(singletable_runtime::Error::ConditionFailed { .. }) => {}
                    Err(e) => panic!("update: {e:?}"),
                }
            }
        }
    }
    for user in users {
        let cart = repo.whole_cart(user).all().await.unwrap();
        let counts = repo.cart_counts(user).all().await.unwrap();
        for status in statuses {
            let recount = cart.iter().filter(|i| i.status == status).count() as i64;
            let kept = counts
                .iter()
                .find(|c| c.status == status)
                .map_or(0, |c| c.item_count);
            assert_eq!(kept, recount, "{user} {status:?}");
        }
    }
}

/// A table of `support_ticket` after a random run of ticket creates,
/// status changes and deletes, with the status each ticket is left in.
struct TicketRun {
    repo: support_ticket::Repository,
    tenants: [support_ticket::TenantId; 2],
    state: BTreeMap<(usize, String), support_ticket::Status>,
    records: Vec<ChangeRecord>,
}

async fn ticket_run(table: &str) -> TicketRun {
    use support_ticket::*;
    let server = server::server().await;
    let repo = Repository::new(server::client(&server.endpoint)).with_table_name(table);
    repo.create_table().await.unwrap();
    let tenants = [TenantId::new("t1").unwrap(), TenantId::new("t10").unwrap()];
    let mut state: BTreeMap<(usize, String), Status> = BTreeMap::new();
    let mut dice = Dice(11);
    for _ in 0..120 {
        let tenant = dice.roll(2) as usize;
        let id = format!("T{}", dice.roll(15));
        let t = repo.for_tenant(&tenants[tenant]);
        let status = if dice.roll(2) == 0 {
            Status::Open
        } else {
            Status::Closed
        };
        let key = TicketKey { id: id.clone() };
        match dice.roll(3) {
            0 => {
                let ticket = Ticket {
                    id: id.clone(),
                    title: "counted".into(),
                    status,
                    resolver: None,
                    created_at: DateTime::from_secs(1_714_564_800),
                };
                if t.create_ticket(&ticket).await.is_ok() {
                    state.insert((tenant, id), status);
                }
            }
            1 => {
                if t.update_ticket(&key, TicketUpdate::default().status(status))
                    .await
                    .is_ok()
                {
                    state.insert((tenant, id), status);
                }
            }
            _ => {
                if t.delete_ticket(&key).await.unwrap().is_some() {
                    state.remove(&(tenant, id));
                }
            }
        }
    }
    let records = streams::records(&server.endpoint, table).await;
    assert!(!records.is_empty(), "the stream has records");
    TicketRun {
        repo,
        tenants,
        state,
        records,
    }
}

impl TicketRun {
    /// Each tenant's counters, and the count of its tickets by status.
    async fn counts(&self) -> Vec<(i64, i64)> {
        use support_ticket::Status;
        let mut out = Vec::new();
        for (i, tenant) in self.tenants.iter().enumerate() {
            let counts = self
                .repo
                .for_tenant(tenant)
                .ticket_counts_by_status()
                .all()
                .await
                .unwrap();
            for status in [Status::Open, Status::Closed] {
                let recount = self
                    .state
                    .iter()
                    .filter(|((t, _), s)| *t == i && **s == status)
                    .count() as i64;
                let kept = counts
                    .iter()
                    .find(|c| c.status == status)
                    .map_or(0, |c| c.count);
                out.push((kept, recount));
            }
        }
        out
    }

    async fn assert_counts(&self) {
        for (kept, recount) in self.counts().await {
            assert_eq!(kept, recount);
        }
    }
}

#[tokio::test]
async fn stream_counters_equal_a_recount() {
    let run = ticket_run(&server::unique_table("TicketCounts")).await;
    assert!(
        run.records.iter().all(|r| r.id.is_some()),
        "records name themselves"
    );
    let (changes, errors) = support_ticket::ticket_count_changes(&run.records);
    assert!(errors.is_empty(), "{errors:?}");
    run.repo.apply_counter_changes(&changes).await.unwrap();
    run.assert_counts().await;
}

/// Lambda delivers a batch again when its handler fails: whole, split in
/// halves (`BisectBatchOnFunctionError`), or from the failed record on
/// (`ReportBatchItemFailures`); and an update whose answer is lost is sent
/// again by the SDK. Each record still counts once: here every batch of
/// ten is applied through a proxy that loses 20% of answers, redelivered
/// until it succeeds, then delivered again whole, by halves and from its
/// middle on.
#[tokio::test]
async fn redelivered_stream_batches_count_once() {
    use support_ticket::{ticket_count_changes, Repository};
    let run = ticket_run(&server::unique_table("Redelivered")).await;
    let upstream = server::server().await.endpoint.clone();
    let proxy = faults::start_losing(&upstream, 0.2, 23).await.unwrap();
    let lossy =
        Repository::new(server::client(&proxy.endpoint)).with_table_name(run.repo.table_name());
    let handle = |batch: &[ChangeRecord]| {
        let (changes, errors) = ticket_count_changes(batch);
        assert!(errors.is_empty(), "{errors:?}");
        let lossy = &lossy;
        async move { lossy.apply_counter_changes(&changes).await }
    };
    let (mut failed, mut deliveries) = (0, 0);
    for batch in run.records.chunks(10) {
        let half = batch.len() / 2;
        let mut redeliveries = vec![batch, &batch[..half], &batch[half..], &batch[half..]];
        redeliveries.insert(0, batch);
        for delivery in redeliveries {
            // A failed handler: Lambda delivers the batch again.
            let mut attempts = 0;
            loop {
                deliveries += 1;
                match handle(delivery).await {
                    Ok(()) => break,
                    Err(singletable_runtime::Error::Service(_)) if attempts < 20 => {
                        failed += 1;
                        attempts += 1;
                    }
                    Err(e) => panic!("apply: {e:?}"),
                }
            }
        }
    }
    eprintln!(
        "redelivered stream batches: {} records, {deliveries} deliveries ({failed} failed and sent again); {}",
        run.records.len(),
        proxy.counts.summary()
    );
    assert!(proxy.counts.lost.load(std::sync::atomic::Ordering::Relaxed) > 10);
    run.assert_counts().await;

    // The control: the same deliveries of records that do not name
    // themselves count twice.
    let anonymous: Vec<ChangeRecord> = run
        .records
        .iter()
        .map(|r| ChangeRecord {
            id: None,
            ..r.clone()
        })
        .collect();
    let (changes, _) = ticket_count_changes(&anonymous[..anonymous.len() / 2]);
    run.repo.apply_counter_changes(&changes).await.unwrap();
    let (changes, _) = ticket_count_changes(&run.records[..run.records.len() / 2]);
    run.repo.apply_counter_changes(&changes).await.unwrap();
    let counts = run.counts().await;
    assert!(
        counts.iter().any(|(kept, recount)| kept != recount),
        "records without an identity are counted again: {counts:?}"
    );
}

/// A tenant may write its own counter item (its policy allows its own
/// keys): one whose `count` is not a number makes that counter's update
/// fail. Every other counter of the batch is still applied, the failure
/// names the poisoned counter alone, and a redelivery of the batch counts
/// nothing twice: every other tenant's counters equal a recount.
#[tokio::test]
async fn a_poisoned_counter_stops_no_other_counter() {
    use singletable_runtime::sdk::types::AttributeValue;
    use support_ticket::{ticket_count_changes, Status, TicketCountKey};
    let run = ticket_run(&server::unique_table("Poisoned")).await;
    let evil = &run.tenants[1];
    let key = TicketCountKey {
        status: Status::Open,
    }
    .to_key_item(evil)
    .unwrap();
    let mut poisoned = key.clone();
    poisoned.insert("count".into(), AttributeValue::S("poison".into()));
    poisoned.insert(
        "entity_type".into(),
        AttributeValue::S("TicketCount".into()),
    );
    run.repo
        .client()
        .put_item()
        .table_name(run.repo.table_name())
        .set_item(Some(poisoned))
        .send()
        .await
        .unwrap();
    let (changes, errors) = ticket_count_changes(&run.records);
    assert!(errors.is_empty(), "{errors:?}");
    assert!(changes.len() >= 3, "counters of both tenants change");
    for delivery in 0..2 {
        match run.repo.apply_counter_changes(&changes).await {
            Err(singletable_runtime::Error::Counters(failed)) => {
                assert_eq!(failed.len(), 1, "delivery {delivery}: {failed:?}");
                assert_eq!(failed[0].change.group.key, key, "the poisoned counter");
                assert!(!failed[0].error.is_transient());
            }
            other => panic!("delivery {delivery}: {other:?}"),
        }
        // Tenant t1's two counters, and t10's CLOSED counter, are exact.
        for (tenant, status) in [(0, Status::Open), (0, Status::Closed), (1, Status::Closed)] {
            let kept = run
                .repo
                .for_tenant(&run.tenants[tenant])
                .get_ticket_count(&TicketCountKey { status })
                .await
                .unwrap()
                .map_or(0, |c| c.count);
            let recount = run
                .state
                .iter()
                .filter(|((t, _), s)| *t == tenant && **s == status)
                .count() as i64;
            assert_eq!(
                kept, recount,
                "delivery {delivery}: tenant {tenant} {status:?}"
            );
        }
    }
}

/// A counter keeps its declared range (`count: { min: 0 }`) also from the
/// stream: a change that would take it below is refused and reported, and
/// the count stays as it was (a later read decodes it), while the other
/// counters of the same call apply.
#[tokio::test]
async fn a_stream_counter_never_leaves_its_declared_range() {
    use singletable_runtime::aggregate::ChangeRecord;
    use singletable_runtime::Entity;
    use support_ticket::*;
    let server = server::server().await;
    let repo = Repository::new(server::client(&server.endpoint))
        .with_table_name(server::unique_table("Bounded"));
    repo.create_table().await.unwrap();
    let tenant = TenantId::new("t1").unwrap();
    let ticket = |id: &str, status| Ticket {
        id: id.into(),
        title: "bounded".into(),
        status,
        resolver: None,
        created_at: DateTime::from_secs(1_714_564_800),
    };
    let record = |old: Option<&Ticket>, new: Option<&Ticket>| ChangeRecord {
        old: old.map(|t| t.to_item(&tenant).unwrap()),
        new: new.map(|t| t.to_item(&tenant).unwrap()),
        ..ChangeRecord::default()
    };
    let count = |status| {
        let repo = repo.for_tenant(&tenant);
        async move {
            repo.get_ticket_count(&TicketCountKey { status })
                .await
                .unwrap()
                .map(|c| c.count)
        }
    };
    let (a, b) = (ticket("a", Status::Open), ticket("b", Status::Closed));
    // Counted in: OPEN 1, CLOSED 1.
    let (changes, _) = ticket_count_changes(&[record(None, Some(&a)), record(None, Some(&b))]);
    repo.apply_counter_changes(&changes).await.unwrap();
    // Removed twice from OPEN (a record of another run), added once more
    // to CLOSED: OPEN would be -1, so its change is refused; CLOSED applies.
    let (changes, errors) = ticket_count_changes(&[
        record(Some(&a), None),
        record(Some(&a), None),
        record(None, Some(&ticket("c", Status::Closed))),
    ]);
    assert!(errors.is_empty(), "{errors:?}");
    match repo.apply_counter_changes(&changes).await {
        Err(singletable_runtime::Error::Counters(failed)) => {
            assert_eq!(failed.len(), 1, "{failed:?}");
            let open = TicketCountKey {
                status: Status::Open,
            };
            assert_eq!(
                failed[0].change.group.key,
                open.to_key_item(&tenant).unwrap()
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        count(Status::Open).await,
        Some(1),
        "the refused change is not stored"
    );
    assert_eq!(count(Status::Closed).await, Some(2));
}
