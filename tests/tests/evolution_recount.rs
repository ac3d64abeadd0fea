//! Recounting aggregates end to end (`tests/evolution/recount/`): v1 stores
//! tickets and notes, counted by nothing; v2 counts tickets per status in
//! each write's transaction and notes per topic from the table's stream,
//! and its lock holds a recount of each pending. A counter a former design
//! left holds a wrong count. The recount jobs run on three workers through
//! a proxy that faults 20% of the requests (half of them applied with
//! their answers lost) while a writer of v2 creates, changes and deletes
//! tickets and notes; the stream's records are applied afterwards, as a
//! lagging stream Lambda would. Then every counter is the number of items
//! in its group, `verify` finds nothing left, and a second run changes
//! nothing.

use std::collections::BTreeMap;

use singletable_runtime::migrate::{Counts, Job, Runner};
use singletable_runtime::sdk::types::AttributeValue;
use singletable_runtime::Error;
use singletable_tests::dice::Dice;
use singletable_tests::evolution::recount::{v1, v2};
use singletable_tests::server::put_stored;
use singletable_tests::{faults, migration, server, streams};

const TENANTS: [&str; 3] = ["t1", "t2", "t3"];
/// Tickets and notes v1 stores per tenant.
const STORED: u64 = 60;
/// Writes of the live v2 writer.
const LIVE_WRITES: usize = 240;

fn v1_status(n: u64) -> v1::Status {
    [v1::Status::Open, v1::Status::Pending, v1::Status::Closed][n as usize % 3]
}

fn v2_status(n: u64) -> v2::Status {
    [v2::Status::Open, v2::Status::Pending, v2::Status::Closed][n as usize % 3]
}

/// Runs `job` on three workers at once and sums their counts.
async fn run(
    client: &singletable_runtime::sdk::Client,
    table: &str,
    job: &dyn Job,
    control: &str,
) -> Counts {
    let runner = || {
        Runner::new(client.clone(), table, job)
            .control_table(control)
            .total_segments(6)
            .page_size(20)
            .live(true)
    };
    migration::run_workers(job.id(), vec![runner(), runner(), runner()]).await
}

/// The writer of v2: creates, changes the group of, and deletes tickets
/// and notes (ids past the stored ones too), through the repository.
async fn live_writer(repo: v2::Repository) -> usize {
    let mut dice = Dice(97);
    let mut applied = 0;
    for _ in 0..LIVE_WRITES {
        let tenant = v2::TenantId::new(TENANTS[dice.roll(3) as usize]).unwrap();
        let t = repo.for_tenant(&tenant);
        let id = format!("i-{}", dice.roll(STORED + 20));
        let done = match (dice.roll(2), dice.roll(3)) {
            (0, 0) => t
                .create_ticket(&v2::Ticket {
                    id,
                    status: v2_status(dice.roll(3)),
                })
                .await
                .is_ok(),
            (0, 1) => t
                .update_ticket(
                    &v2::TicketKey { id },
                    v2::TicketUpdate::default().status(v2_status(dice.roll(3))),
                )
                .await
                .is_ok(),
            (0, _) => t
                .delete_ticket(&v2::TicketKey { id })
                .await
                .unwrap()
                .is_some(),
            (_, 0) => t
                .put_note(&v2::Note {
                    id,
                    topic: if dice.roll(2) == 0 {
                        v2::Topic::Billing
                    } else {
                        v2::Topic::Shipping
                    },
                })
                .await
                .is_ok(),
            (_, 1) => t
                .update_note(
                    &v2::NoteKey { id },
                    v2::NoteUpdate::default().topic(v2::Topic::Shipping),
                )
                .await
                .is_ok(),
            (_, _) => t.delete_note(&v2::NoteKey { id }).await.is_ok(),
        };
        applied += usize::from(done);
    }
    applied
}

/// `(tenant, "TICKETS#<status>" or "NOTES#<topic>")` → the number of items
/// in the group, from a scan of the table.
async fn truth(
    client: &singletable_runtime::sdk::Client,
    table: &str,
) -> BTreeMap<(String, String), i64> {
    let mut out = BTreeMap::new();
    for item in server::scan_all(client, table).await.unwrap() {
        let text = |name: &str| match item.get(name) {
            Some(AttributeValue::S(s)) => s.clone(),
            _ => String::new(),
        };
        let (pk, sk) = (text("pk"), text("sk"));
        let tenant = pk
            .strip_prefix("TENANT#")
            .and_then(|rest| rest.split('|').next())
            .unwrap_or_default()
            .to_owned();
        let group = match sk.as_str() {
            "TICKET" => format!("TICKETS#{}", text("status")),
            "NOTE" => format!("NOTES#{}", text("topic")),
            _ => continue,
        };
        *out.entry((tenant, group)).or_insert(0) += 1;
    }
    out
}

/// `(tenant, group)` → the counter's count, read through v2's access
/// pattern (which waits for the recounts unless `repo` allows reading).
async fn counters(repo: &v2::Repository) -> Result<BTreeMap<(String, String), i64>, Error> {
    let mut out = BTreeMap::new();
    for tenant in TENANTS {
        let id = v2::TenantId::new(tenant).unwrap();
        for item in repo.for_tenant(&id).counts().all().await? {
            let (group, count) = match item {
                v2::CountsItem::TicketCount(c) => (format!("TICKETS#{}", c.status), c.count),
                v2::CountsItem::NoteCount(c) => (format!("NOTES#{}", c.topic), c.count),
            };
            out.insert((tenant.to_owned(), group), count);
        }
    }
    Ok(out)
}

/// Every group of `truth` and of `kept`, with both numbers, where they
/// differ.
fn differences(
    truth: &BTreeMap<(String, String), i64>,
    kept: &BTreeMap<(String, String), i64>,
) -> Vec<String> {
    let groups: std::collections::BTreeSet<_> = truth.keys().chain(kept.keys()).collect();
    groups
        .into_iter()
        .filter_map(|g| {
            let (t, k) = (
                truth.get(g).copied().unwrap_or(0),
                kept.get(g).copied().unwrap_or(0),
            );
            (t != k).then(|| format!("{g:?}: {k} kept, {t} stored"))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn added_aggregates_are_recounted_exactly_beside_live_writes() {
    let upstream = server::server().await.endpoint.clone();
    let client = server::client(&upstream);
    let table = server::unique_table("Recount");
    let old = v1::Repository::new(client.clone()).with_table_name(&table);
    old.create_table().await.unwrap();
    let mut dice = Dice(5);
    for tenant in TENANTS {
        let t = old.for_tenant(&v1::TenantId::new(tenant).unwrap());
        for i in 0..STORED {
            let status = v1_status(dice.roll(3));
            t.put_ticket(&v1::Ticket {
                id: format!("i-{i}"),
                status,
            })
            .await
            .unwrap();
            let topic = if dice.roll(2) == 0 {
                v1::Topic::Billing
            } else {
                v1::Topic::Shipping
            };
            t.put_note(&v1::Note {
                id: format!("i-{i}"),
                topic,
            })
            .await
            .unwrap();
        }
    }
    // v2 is deployed; a counter an earlier design left counts 57.
    let repo = v2::Repository::new(client.clone()).with_table_name(&table);
    let t1 = v2::TenantId::new("t1").unwrap();
    let stale = v2::TicketCount {
        status: v2::Status::Open,
        count: 57,
    };
    put_stored(&client, &table, &stale, &t1).await;
    // Until the recounts are verified, the counts wait.
    assert!(matches!(
        repo.for_tenant(&t1).counts().all().await,
        Err(Error::Pending { .. })
    ));
    let read = repo.clone().allow_pending();
    let before = differences(
        &truth(&client, &table).await,
        &counters(&read).await.unwrap(),
    );
    assert!(
        !before.is_empty(),
        "the counts are wrong before the recount"
    );

    let jobs = v2::migrations::jobs();
    let ids: Vec<&str> = jobs.iter().map(|j| j.id()).collect();
    assert_eq!(ids, ["recount-ticket-count", "recount-note-count"]);
    let proxy = faults::start_mixed(&upstream, 0.2, 47).await.unwrap();
    let faulty = server::client_with_short_backoff(&proxy.endpoint);
    let control = format!("{table}__control");
    let recounts = async {
        let mut first = Vec::new();
        for job in &jobs {
            let counts = run(&faulty, &table, job.as_ref(), &control).await;
            eprintln!("{}: {counts}", job.id());
            assert_eq!(counts.invalid, 0, "{}: {counts}", job.id());
            first.push(counts);
        }
        first
    };
    let (first, live) = tokio::join!(recounts, live_writer(repo.clone()));
    eprintln!(
        "live writes applied: {live}; proxy: {}",
        proxy.counts.summary()
    );
    assert!(live > LIVE_WRITES / 4, "the live writer wrote ({live})");
    // Each job marked (or found marked) every stored item of its entity
    // and switched every counter item it met.
    for counts in &first {
        assert!(counts.updated > 0, "{counts}");
    }

    // The stream Lambda catches up: every record, once.
    let records = streams::records(&upstream, &table).await;
    let (changes, errors) = v2::note_count_changes(&records);
    assert!(errors.is_empty(), "{errors:?}");
    repo.apply_counter_changes(&changes).await.unwrap();

    let stored = truth(&client, &table).await;
    let kept = counters(&read).await.unwrap();
    let wrong = differences(&stored, &kept);
    assert!(
        wrong.is_empty(),
        "counters differ from the items: {wrong:#?}"
    );
    assert!(stored.values().sum::<i64>() > (TENANTS.len() as i64) * STORED as i64);

    // Nothing is left; a second run changes nothing.
    for job in &jobs {
        let runner = Runner::new(client.clone(), &table, job.as_ref())
            .control_table(&control)
            .live(true);
        let left = runner.verify(6).await.unwrap();
        assert_eq!(left.count, 0, "{}: {:?}", job.id(), left.examples);
        let again = run(&client, &table, job.as_ref(), &format!("{table}__again")).await;
        assert_eq!(again.updated, 0, "{}: {again}", job.id());
    }
    assert_eq!(counters(&read).await.unwrap(), kept);
}

/// A regrouped aggregate (`tests/evolution/regroup/`): v1 counts tickets
/// per status, v2 per priority. The recount builds the priority counters
/// from the stored tickets and the purge deletes the status counters, both
/// through the fault proxy on two workers; afterwards the counts are the
/// tickets per priority, no status counter is left, and `verify` finds
/// nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_regrouped_aggregate_is_rebuilt_and_its_old_counters_purged() {
    use singletable_tests::evolution::regroup::{v1, v2};
    let upstream = server::server().await.endpoint.clone();
    let client = server::client(&upstream);
    let table = server::unique_table("Regroup");
    let old = v1::Repository::new(client.clone()).with_table_name(&table);
    old.create_table().await.unwrap();
    let mut dice = Dice(13);
    let mut per_priority: BTreeMap<(String, String), i64> = BTreeMap::new();
    for tenant in TENANTS {
        let t = old.for_tenant(&v1::TenantId::new(tenant).unwrap());
        for i in 0..40 {
            let status = if dice.roll(2) == 0 {
                v1::Status::Open
            } else {
                v1::Status::Closed
            };
            let priority = if dice.roll(3) == 0 {
                v1::Priority::High
            } else {
                v1::Priority::Low
            };
            t.create_ticket(&v1::Ticket {
                id: format!("t-{i}"),
                status,
                priority,
            })
            .await
            .unwrap();
            *per_priority
                .entry((tenant.to_owned(), priority.to_string()))
                .or_insert(0) += 1;
        }
    }
    let old_counters = |items: &[singletable_runtime::Item]| {
        items
            .iter()
            .filter(
                |i| matches!(i.get("sk"), Some(AttributeValue::S(s)) if s.starts_with("TICKETS#")),
            )
            .count()
    };
    let before = server::scan_all(&client, &table).await.unwrap();
    assert_eq!(
        old_counters(&before),
        2 * TENANTS.len(),
        "v1 kept a counter per status"
    );

    let repo = v2::Repository::new(client.clone()).with_table_name(&table);
    let jobs = v2::migrations::jobs();
    let ids: Vec<&str> = jobs.iter().map(|j| j.id()).collect();
    assert_eq!(ids, ["recount-ticket-count", "purge-ticket-count"]);
    let proxy = faults::start_mixed(&upstream, 0.2, 53).await.unwrap();
    let faulty = server::client_with_short_backoff(&proxy.endpoint);
    let control = format!("{table}__control");
    for job in &jobs {
        let counts = run(&faulty, &table, job.as_ref(), &control).await;
        eprintln!("{}: {counts}", job.id());
        assert_eq!(counts.invalid, 0, "{}: {counts}", job.id());
    }
    eprintln!("proxy: {}", proxy.counts.summary());

    let after = server::scan_all(&client, &table).await.unwrap();
    assert_eq!(old_counters(&after), 0, "the status counters are purged");
    let read = repo.clone().allow_pending();
    let mut kept = BTreeMap::new();
    for tenant in TENANTS {
        let id = v2::TenantId::new(tenant).unwrap();
        for c in read.for_tenant(&id).counts().all().await.unwrap() {
            kept.insert((tenant.to_owned(), c.priority.to_string()), c.count);
        }
    }
    assert_eq!(kept, per_priority);
    for job in &jobs {
        let runner = Runner::new(client.clone(), &table, job.as_ref()).control_table(&control);
        let left = runner.verify(6).await.unwrap();
        assert_eq!(left.count, 0, "{}: {:?}", job.id(), left.examples);
    }
}
