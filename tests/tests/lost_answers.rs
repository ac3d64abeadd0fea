//! Requests the server applies and whose answers are lost (the connection
//! is cut after the write; the SDK retries): what the caller is told is
//! true. A `create` sent again that finds the item it writes, or a
//! versioned update that finds its own values at its new version, reports
//! `Error::AlreadyAsWritten` (its own lost write, or an identical one), not
//! "already exists" or a conflict with itself. A call whose every attempt
//! lost its answer is a transport error — an unknown outcome.

use saas_tenant_users_orders::*;
use singletable_runtime::Error;
use singletable_tests::generated::saas_tenant_users_orders;
use singletable_tests::{faults, server};

fn item(i: i64) -> InventoryItem {
    InventoryItem {
        sku: format!("SKU-{i:04}"),
        on_hand: i,
        reserved: 0,
        version: 0,
    }
}

/// A transport failure after the SDK's retries: the outcome is unknown.
fn unknown_outcome(e: &Error) -> bool {
    matches!(e, Error::Service(_))
}

#[tokio::test]
async fn creates_and_versioned_updates_are_told_the_truth_when_answers_are_lost() {
    let upstream = server::server().await.endpoint.clone();
    let direct = Repository::new(server::client(&upstream))
        .with_table_name(server::unique_table("LostAnswers"));
    direct.create_table().await.unwrap();
    let tenant = TenantId::new("lost").unwrap();
    let proxy = faults::start_losing(&upstream, 0.3, 11).await.unwrap();
    let lossy =
        Repository::new(server::client(&proxy.endpoint)).with_table_name(direct.table_name());
    let t = lossy.for_tenant(&tenant);
    let d = direct.for_tenant(&tenant);

    let (mut created, mut as_written, mut unknown) = (0, 0, 0);
    for i in 0..40 {
        match t.create_inventory_item(&item(i)).await {
            Ok(written) => {
                assert_eq!(written, item(i), "the item as written");
                created += 1
            }
            Err(Error::AlreadyAsWritten { .. }) => as_written += 1,
            Err(e) if unknown_outcome(&e) => unknown += 1,
            Err(e) => panic!("create {i}: a false answer: {e:?}"),
        }
        // Reported or not, the item is stored exactly once, as written.
        let stored = d.get_inventory_item(&item(i).key()).await.unwrap();
        assert_eq!(stored, Some(item(i)), "create {i}");
    }
    // An identical item another writer created is a conflict: only a
    // request the SDK sent again may find its own item.
    assert!(matches!(
        d.create_inventory_item(&item(0)).await,
        Err(Error::ConditionFailed { .. })
    ));
    // An item that exists with other values is still a conflict.
    let mut other = item(0);
    other.on_hand = 999;
    assert!(matches!(
        t.create_inventory_item(&other).await,
        Err(Error::ConditionFailed { .. }) | Err(Error::Service(_))
    ));

    let key = item(1).key();
    let mut version = 0;
    let mut updates = 0;
    for step in 1..=20 {
        let update = InventoryItemUpdate::default()
            .on_hand(step)
            .version(version + 1);
        match t.update_inventory_item(&key, update).await {
            Ok(got) => {
                updates += 1;
                assert_eq!((got.version, got.on_hand), (version + 1, step));
                version = got.version;
            }
            // One writer: the values found are this update's.
            Err(Error::AlreadyAsWritten { .. }) => {
                updates += 1;
                version += 1;
            }
            Err(e) if unknown_outcome(&e) => {
                // Unknown: read what is stored and go on from there.
                version = d.get_inventory_item(&key).await.unwrap().unwrap().version;
            }
            Err(e) => panic!("update {step}: a false answer: {e:?}"),
        }
        assert_eq!(
            d.get_inventory_item(&key).await.unwrap().unwrap().version,
            version
        );
    }
    eprintln!(
        "lost answers: {}; creates reported {created}, already as written {as_written}, unknown {unknown}; versioned updates applied {updates} of 20",
        proxy.counts.summary()
    );
    assert!(proxy.counts.lost.load(std::sync::atomic::Ordering::Relaxed) > 8);
}

/// A counter counts once per update value, even when answers are lost: an
/// update that adds to a counter runs as a transaction with a client
/// request token drawn when the value is made (or given with
/// `idempotent()`), so the SDK's retries and the caller's own resending of
/// the same value apply once. A counter declared `at_least_once` is a plain
/// UpdateItem, which a resent request applies again.
#[tokio::test]
async fn counters_count_once_when_answers_are_lost() {
    use singletable_tests::generated::sequence_numbers::{RepoKey, RepoUpdate, Repository};
    let upstream = server::server().await.endpoint.clone();
    let direct = Repository::new(server::client(&upstream))
        .with_table_name(server::unique_table("LostCounts"));
    direct.create_table().await.unwrap();
    let proxy = faults::start_losing(&upstream, 0.3, 5).await.unwrap();
    let lossy =
        Repository::new(server::client(&proxy.endpoint)).with_table_name(direct.table_name());
    let key = |name: &str| RepoKey {
        owner: "octo".into(),
        name: name.into(),
    };
    let counts = |name: &'static str| {
        let direct = &direct;
        async move {
            direct
                .get_repo(&key(name))
                .await
                .unwrap()
                .map_or((0, 0), |r| (r.issue_count, r.view_count))
        }
    };
    for name in ["token", "default"] {
        direct
            .update_repo(
                &key(name),
                RepoUpdate::default()
                    .add_issue_count(0)
                    .add_view_count(0)
                    .or_create(),
            )
            .await
            .unwrap();
    }
    let mut resent = 0;
    for _ in 0..20 {
        for (name, update) in [
            (
                "token",
                RepoUpdate::default().add_issue_count(1).idempotent(),
            ),
            ("default", RepoUpdate::default().add_view_count(1)),
        ] {
            // Until an answer arrives, send the same update value again.
            while let Err(e) = lossy.update_repo(&key(name), update.clone()).await {
                assert!(matches!(e, Error::Service(_)), "{e:?}");
                resent += 1;
            }
        }
        let _ = lossy
            .update_repo(&key("default"), RepoUpdate::default().add_issue_count(1))
            .await;
    }
    let (token, _) = counts("token").await;
    // `issue_count` is declared `at_least_once` (an allocator), `view_count` is not.
    let (views, default) = counts("default").await;
    eprintln!(
        "lost answers, counters: {}; counted {token} with idempotent(), {default} by default after 20 calls each ({resent} resent by the caller); at-least-once counter {views}",
        proxy.counts.summary()
    );
    // Twenty exactly-once increments at once: transactions on one item
    // that DynamoDB cancels for conflicting are sent again, none lost.
    let (one, token_key) = (RepoUpdate::default().add_view_count(1), key("token"));
    let concurrent = (0..20).map(|_| direct.update_repo(&token_key, one.clone()));
    let results = futures_util::future::join_all(concurrent).await;
    assert!(results.iter().all(Result::is_ok), "{results:?}");
    assert_eq!(counts("token").await.1, 20, "20 concurrent increments");
    assert_eq!(token, 20, "each idempotent() call counted once");
    assert_eq!(default, 20, "each update value counted once, by default");
    assert!(
        views >= 20 - 3,
        "an at-least-once counter may count twice: {views}"
    );
}

/// A delete whose answer was lost is retried by the SDK and finds nothing
/// left: it reports `Error::AlreadyAsWritten` (the item is gone, as asked;
/// this call's earlier attempt or another writer deleted it), never "there
/// was none". A delete that was answered returns the item it deleted.
#[tokio::test]
async fn deletes_are_told_the_truth_when_answers_are_lost() {
    let upstream = server::server().await.endpoint.clone();
    let direct = Repository::new(server::client(&upstream))
        .with_table_name(server::unique_table("LostDeletes"));
    direct.create_table().await.unwrap();
    let tenant = TenantId::new("lost").unwrap();
    let d = direct.for_tenant(&tenant);
    for i in 0..40 {
        d.create_inventory_item(&item(i)).await.unwrap();
    }
    let proxy = faults::start_losing(&upstream, 0.3, 17).await.unwrap();
    let lossy =
        Repository::new(server::client(&proxy.endpoint)).with_table_name(direct.table_name());
    let t = lossy.for_tenant(&tenant);

    let (mut deleted, mut as_written, mut unknown) = (0, 0, 0);
    for i in 0..40 {
        match t.delete_inventory_item(&item(i).key()).await {
            Ok(Some(old)) => {
                assert_eq!(old, item(i), "delete {i} returns the item it deleted");
                deleted += 1;
            }
            Err(Error::AlreadyAsWritten { operation, .. }) => {
                assert_eq!(operation, "delete");
                as_written += 1;
            }
            Err(e) if unknown_outcome(&e) => unknown += 1,
            // Every item existed: "there was none" would be false.
            other => panic!("delete {i}: a false answer: {other:?}"),
        }
        assert_eq!(d.get_inventory_item(&item(i).key()).await.unwrap(), None);
    }
    // Answered on its first attempt, a delete of nothing is `None`.
    assert_eq!(d.delete_inventory_item(&item(0).key()).await.unwrap(), None);
    eprintln!(
        "lost answers, deletes: {}; deleted {deleted}, already as written {as_written}, unknown {unknown}",
        proxy.counts.summary()
    );
    assert!(as_written > 0, "no delete met its own lost answer");
}

/// An update with a condition of its own (`when`) and no version, sent
/// again after its answer was lost, finds its condition false on the item
/// it wrote itself: it is told `AlreadyAsWritten`, not `ConditionNotMet`
/// with its own write as "the stored item".
#[tokio::test]
async fn conditional_updates_recognise_their_own_write_when_answers_are_lost() {
    use singletable_runtime::DateTime;
    use singletable_tests::generated::partial_reads::{
        Repository, Status, Ticket, TicketKey, TicketUpdate,
    };
    let upstream = server::server().await.endpoint.clone();
    let direct = Repository::new(server::client(&upstream))
        .with_table_name(server::unique_table("LostConditional"));
    direct.create_table().await.unwrap();
    let proxy = faults::start_losing(&upstream, 0.3, 17).await.unwrap();
    let lossy =
        Repository::new(server::client(&proxy.endpoint)).with_table_name(direct.table_name());
    let (mut closed, mut as_written, mut unknown) = (0, 0, 0);
    for i in 0..40 {
        let ticket = Ticket {
            queue: "support".into(),
            id: format!("{i}"),
            title: format!("printer {i} jams"),
            body: "it jams".into(),
            status: Status::Open,
            priority: 3,
            assignee: None,
            labels: None,
            due_at: Some(DateTime::from_secs(1_800_000_000)),
            expires: None,
        };
        direct.create_ticket(&ticket).await.unwrap();
        let key = TicketKey {
            queue: "support".into(),
            id: format!("{i}"),
        };
        let close = TicketUpdate::default()
            .status(Status::Closed)
            .when(Ticket::STATUS.eq(Status::Open));
        let told_done = match lossy.update_ticket(&key, close).await {
            Ok(got) => {
                assert_eq!(got.status, Status::Closed);
                closed += 1;
                true
            }
            Err(Error::AlreadyAsWritten { .. }) => {
                as_written += 1;
                true
            }
            Err(e) if unknown_outcome(&e) => {
                unknown += 1;
                false
            }
            Err(e) => panic!("update {i}: a false answer: {e:?}"),
        };
        if told_done {
            // Told done: it is.
            let stored = direct.get_ticket(&key).await.unwrap().unwrap();
            assert_eq!(stored.status, Status::Closed, "update {i}");
        }
    }
    println!("{closed} applied, {as_written} already as written, {unknown} unknown");
    assert!(as_written > 0, "some answers were lost after the write");
    assert_eq!(closed + as_written + unknown, 40);
}

/// Appending to a list and removing from it by index change it relative to
/// what is stored: sent again after a lost answer they would apply twice
/// (`[a,b,c,d]` minus the element at 0, twice, is `[c,d]`). They are
/// applied once, each update value with its own client request token, and
/// a removal names the element it expects at its index.
#[tokio::test]
async fn list_changes_apply_once_when_answers_are_lost() {
    use singletable_tests::generated::existing_table_natural_keys::{
        Modes, Repository, Score, ScoreKey, ScoreUpdate,
    };
    let upstream = server::server().await.endpoint.clone();
    let direct = Repository::new(server::client(&upstream))
        .with_table_name(server::unique_table("LostLists"));
    direct.create_table().await.unwrap();
    let proxy = faults::start_losing(&upstream, 0.3, 23).await.unwrap();
    let lossy =
        Repository::new(server::client(&proxy.endpoint)).with_table_name(direct.table_name());
    let key = ScoreKey {
        user_id: "ann".into(),
        game_id: "chess".into(),
    };
    direct
        .create_score(&Score::new(
            "ann",
            "chess",
            10,
            "4.5".parse::<singletable_runtime::Decimal>().unwrap(),
            1,
        ))
        .await
        .unwrap();
    let mut expected: Vec<Modes> = Vec::new();
    let mut resent = 0;
    for i in 0..16 {
        let mode = if i % 3 == 0 {
            Modes::Casual
        } else {
            Modes::Ranked
        };
        let append = ScoreUpdate::default().append_to_modes([mode]);
        while let Err(e) = lossy.update_score(&key, append.clone()).await {
            assert!(matches!(e, Error::Service(_)), "{e:?}");
            resent += 1;
        }
        expected.push(mode);
    }
    for _ in 0..10 {
        let head = expected[0];
        let remove = ScoreUpdate::default().remove_from_modes_at(0, head);
        while let Err(e) = lossy.update_score(&key, remove.clone()).await {
            assert!(matches!(e, Error::Service(_)), "{e:?}");
            resent += 1;
        }
        expected.remove(0);
    }
    let stored = direct.get_score(&key).await.unwrap().unwrap();
    eprintln!(
        "lost answers, lists: {}; {resent} resent by the caller",
        proxy.counts.summary()
    );
    assert_eq!(stored.modes, Some(expected), "every change applied once");
    assert!(proxy.counts.lost.load(std::sync::atomic::Ordering::Relaxed) > 3);
}
