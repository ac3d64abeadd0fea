//! A design that changes over stored data, end to end (`tests/evolution/`):
//! 10,000 items written with v1; v2 adds an index with computed keys,
//! tightens a bound, adds an enum value and an optional attribute, and moves
//! comments to a new key. Its lock holds three jobs pending (verify the
//! tickets, backfill the index, re-key the comments), and the access
//! patterns that depend on them wait. The jobs run as 4 separate worker
//! processes through a proxy that faults 20% of the requests (half of them
//! applied with their answers lost); one worker is killed halfway and its
//! segments taken over. Afterwards every v2 access pattern returns exactly
//! the v1 data, nothing is left to do, and a second run changes nothing. A
//! reader built from v1 reads what v2 writes.

use std::collections::BTreeMap;
use std::process::Stdio;
use std::time::Duration;

use singletable_runtime::sdk::types::{
    AttributeDefinition, CreateGlobalSecondaryIndexAction, GlobalSecondaryIndexUpdate,
    KeySchemaElement, KeyType, Projection, ProjectionType, ScalarAttributeType,
};
use singletable_runtime::{DateTime, Entity, Error};
use singletable_tests::evolution::{v1, v2};
use singletable_tests::{faults, server};

const TENANTS: [&str; 2] = ["acme", "globex"];
/// Tickets per tenant; each has one comment: 2 × 2,500 × 2 = 10,000 items.
const TICKETS: usize = 2_500;

/// The v1 data, as the v2 patterns must return it.
#[derive(Debug, Default)]
struct Written {
    /// Per tenant: ticket id → (title, status, created_at seconds).
    tickets: BTreeMap<String, BTreeMap<String, (String, String, i64)>>,
    /// Per tenant: ticket id → (comment id, body).
    comments: BTreeMap<String, BTreeMap<String, (String, String)>>,
}

async fn write_v1(client: &singletable_runtime::sdk::Client, table: &str) -> Written {
    let mut written = Written::default();
    let mut requests = Vec::new();
    for tenant in TENANTS {
        let scope = v1::TenantId::new(tenant).unwrap();
        for n in 0..TICKETS {
            let id = format!("t-{n:05}");
            let status = if n % 3 == 0 {
                v1::Status::Closed
            } else {
                v1::Status::Open
            };
            let created = 1_700_000_000 + (n as i64) * 60;
            let ticket = v1::Ticket {
                id: id.clone(),
                title: format!("ticket {n} of {tenant}"),
                status,
                created_at: DateTime::from_secs(created),
            };
            let comment = v1::Comment {
                ticket_id: id.clone(),
                id: format!("c-{n:05}"),
                body: format!("comment on {n}"),
            };
            requests.push(
                singletable_runtime::__private::ops::put_request(ticket.to_item(&scope).unwrap())
                    .unwrap(),
            );
            requests.push(
                singletable_runtime::__private::ops::put_request(comment.to_item(&scope).unwrap())
                    .unwrap(),
            );
            written
                .tickets
                .entry(tenant.to_owned())
                .or_default()
                .insert(
                    id.clone(),
                    (ticket.title.clone(), status.as_str().to_owned(), created),
                );
            written
                .comments
                .entry(tenant.to_owned())
                .or_default()
                .insert(id, (comment.id, comment.body));
        }
    }
    assert_eq!(requests.len(), 10_000);
    singletable_runtime::batch_write(
        client,
        table,
        requests,
        singletable_runtime::RetryPolicy::default(),
    )
    .await
    .unwrap();
    written
}

/// The infrastructure step of the plan: the new index, created on the
/// table, as UpdateTable does.
async fn create_gsi2(client: &singletable_runtime::sdk::Client, table: &str) {
    let key = |name: &str, kind| {
        KeySchemaElement::builder()
            .attribute_name(name)
            .key_type(kind)
            .build()
            .unwrap()
    };
    let def = |name: &str| {
        AttributeDefinition::builder()
            .attribute_name(name)
            .attribute_type(ScalarAttributeType::S)
            .build()
            .unwrap()
    };
    let create = CreateGlobalSecondaryIndexAction::builder()
        .index_name("GSI2")
        .key_schema(key("gsi2pk", KeyType::Hash))
        .key_schema(key("gsi2sk", KeyType::Range))
        .projection(
            Projection::builder()
                .projection_type(ProjectionType::All)
                .build(),
        )
        .build()
        .unwrap();
    client
        .update_table()
        .table_name(table)
        .attribute_definitions(def("gsi2pk"))
        .attribute_definitions(def("gsi2sk"))
        .global_secondary_index_updates(
            GlobalSecondaryIndexUpdate::builder().create(create).build(),
        )
        .send()
        .await
        .unwrap();
    for _ in 0..600 {
        let description = client
            .describe_table()
            .table_name(table)
            .send()
            .await
            .unwrap();
        let active = description
            .table
            .and_then(|t| t.global_secondary_indexes)
            .unwrap_or_default()
            .iter()
            .any(|i| {
                i.index_name() == Some("GSI2")
                    && i.index_status()
                        == Some(&singletable_runtime::sdk::types::IndexStatus::Active)
            });
        if active {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("GSI2 did not become active");
}

/// The worker binary, run with `args` against `endpoint`.
fn worker(endpoint: &str, args: &[&str]) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_evolution_worker"));
    command
        .args(args)
        .env("DYNAMODB_ENDPOINT", endpoint)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    command
}

/// Runs `job` with 4 worker processes through `endpoint`; kills worker 0
/// after `kill_after` when given, and waits for the others (which take its
/// segments over when its lease runs out).
async fn run_job(
    endpoint: &str,
    table: &str,
    control: &str,
    job: &str,
    kill_after: Option<Duration>,
) -> String {
    let mut children = Vec::new();
    for i in 0..4 {
        let index = i.to_string();
        let args = [
            "run",
            job,
            "--worker",
            &index,
            "--workers",
            "4",
            "--total-segments",
            "8",
            "--page-size",
            "50",
            "--lease-seconds",
            "3",
            "--table",
            table,
            "--control-table",
            control,
            "--live",
        ];
        children.push(worker(endpoint, &args).spawn().unwrap());
    }
    if let Some(after) = kill_after {
        tokio::time::sleep(after).await;
        children[0].start_kill().unwrap();
    }
    let mut output = String::new();
    for (i, child) in children.into_iter().enumerate() {
        let out = child.wait_with_output().await.unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        if i == 0 && kill_after.is_some() {
            output.push_str(&format!("worker 0 killed: {text}\n"));
            continue;
        }
        assert!(out.status.success(), "worker {i} of {job} failed: {text}");
        output.push_str(&text);
    }
    output
}

/// `status`/`verify` of a job, directly on the server: exit status and output.
async fn check(
    endpoint: &str,
    table: &str,
    control: &str,
    command: &str,
    job: &str,
) -> (bool, String) {
    let out = worker(
        endpoint,
        &[
            command,
            job,
            "--table",
            table,
            "--control-table",
            control,
            "--live",
        ],
    )
    .output()
    .await
    .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// Every v2 access pattern returns exactly what v1 wrote.
async fn assert_same_data(repo: &v2::Repository, written: &Written) {
    for tenant in TENANTS {
        let t = repo.for_tenant(&v2::TenantId::new(tenant).unwrap());
        let expected = &written.tickets[tenant];
        // The new index: every ticket once, newest first.
        let recent = t.recent_tickets().page_size(500).all().await.unwrap();
        assert_eq!(recent.len(), expected.len(), "{tenant}: recent_tickets");
        let mut newest = i64::MAX;
        for ticket in &recent {
            let (title, status, created) = &expected[&ticket.id];
            assert_eq!(
                (&ticket.title, ticket.status.as_str()),
                (title, status.as_str())
            );
            assert_eq!(ticket.created_at.secs(), *created);
            assert!(*created <= newest, "descending order");
            newest = *created;
        }
        // By status, through the old index.
        let closed = t.tickets_by_status(v2::Status::Closed).all().await.unwrap();
        assert_eq!(
            closed.len(),
            expected.values().filter(|(_, s, _)| s == "CLOSED").count()
        );
        // Each ticket with its comment, at the comment's new key (a sample).
        for id in expected.keys().step_by(97) {
            let items = t.ticket_with_comments(id).all().await.unwrap();
            let (comment_id, body) = &written.comments[tenant][id];
            let comments: Vec<(String, String)> = items
                .iter()
                .filter_map(|i| match i {
                    v2::TicketWithCommentsItem::Comment(c) => Some((c.id.clone(), c.body.clone())),
                    v2::TicketWithCommentsItem::Ticket(_) => None,
                })
                .collect();
            assert_eq!(
                comments,
                vec![(comment_id.clone(), body.clone())],
                "{tenant}/{id}"
            );
            assert_eq!(
                items.len(),
                2,
                "{tenant}/{id}: the ticket and its one comment"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_design_change_migrates_ten_thousand_items_on_four_workers() {
    let started = std::time::Instant::now();
    let upstream = server::server().await.endpoint.clone();
    let client = server::client(&upstream);
    let table = server::unique_table("Evolution");
    let control = format!("{table}__control");
    let old = v1::Repository::new(client.clone()).with_table_name(&table);
    old.create_table().await.unwrap();
    let written = write_v1(&client, &table).await;
    eprintln!("10,000 items written: {:?}", started.elapsed());
    create_gsi2(&client, &table).await;

    // v2 deployed: the patterns that depend on pending jobs wait.
    let repo = v2::Repository::new(client.clone()).with_table_name(&table);
    let t = repo.for_tenant(&v2::TenantId::new("acme").unwrap());
    match t.recent_tickets().all().await {
        Err(Error::Pending { job, .. }) => assert_eq!(job, "backfill-ticket-gsi2"),
        other => panic!("recent_tickets before its backfill: {other:?}"),
    }
    assert!(matches!(
        t.ticket_with_comments("t-00001").all().await,
        Err(Error::Pending { .. })
    ));
    let ticket = t.ticket("t-00001").await.unwrap().unwrap();
    assert_eq!(
        ticket.title, "ticket 1 of acme",
        "patterns no job touches read as before"
    );
    // Read anyway: the index is empty for old items, comments are at their old keys.
    let early = repo.clone().allow_pending();
    let t_early = early.for_tenant(&v2::TenantId::new("acme").unwrap());
    assert!(t_early.recent_tickets().all().await.unwrap().is_empty());

    // The jobs, through a proxy that faults 20% (half answered lost).
    let proxy = faults::start_mixed(&upstream, 0.2, 36).await.unwrap();
    let jobs_started = std::time::Instant::now();
    let verify_out = run_job(&proxy.endpoint, &table, &control, "verify-ticket", None).await;
    eprintln!("verify-ticket: {:?}", jobs_started.elapsed());
    assert!(verify_out.contains("0 invalid"), "{verify_out}");
    let backfill_out = run_job(
        &proxy.endpoint,
        &table,
        &control,
        "backfill-ticket-gsi2",
        Some(Duration::from_millis(700)),
    )
    .await;
    eprintln!("backfill-ticket-gsi2: {:?}", jobs_started.elapsed());
    let rekey_out = run_job(&proxy.endpoint, &table, &control, "rekey-comment", None).await;
    eprintln!("rekey-comment: {:?}", jobs_started.elapsed());
    eprintln!(
        "proxy: {}\nbackfill:\n{backfill_out}\nrekey:\n{rekey_out}",
        proxy.counts.summary()
    );
    for job in ["verify-ticket", "backfill-ticket-gsi2", "rekey-comment"] {
        let (done, status) = check(&upstream, &table, &control, "status", job).await;
        assert!(done, "{job}: every segment done:\n{status}");
        let (clean, verify) = check(&upstream, &table, &control, "verify", job).await;
        assert!(clean, "{job}: verify finds nothing left:\n{verify}");
        assert!(
            verify.contains("10000 item(s) read, 0 left"),
            "{job}: {verify}"
        );
    }
    eprintln!("verified: {:?}", started.elapsed());
    assert_same_data(&repo.clone().allow_pending(), &written).await;
    eprintln!("same data: {:?}", started.elapsed());

    // A second run over a fresh control table changes nothing.
    for job in ["backfill-ticket-gsi2", "rekey-comment"] {
        let again = run_job(&upstream, &table, &format!("{control}2"), job, None).await;
        assert!(again.contains(" 0 updated"), "{job} again: {again}");
    }

    // A reader built from v1 reads what v2 writes: a new attribute and a
    // new enum value.
    t.put_ticket(&v2::Ticket {
        id: "t-new".into(),
        title: "written by v2".into(),
        status: v2::Status::Reopened,
        created_at: DateTime::from_secs(1_800_000_000),
        priority: Some(2),
    })
    .await
    .unwrap();
    let old_reader = old.for_tenant(&v1::TenantId::new("acme").unwrap());
    let read = old_reader.ticket("t-new").await.unwrap().unwrap();
    assert_eq!(read.title, "written by v2");
    assert_eq!(read.status, v1::Status::UnknownValue);
    // What it cannot represent, it refuses to write back (never silently).
    assert!(old_reader.put_ticket(&read).await.is_err());
}

/// One line of code builds a ticket under both designs: `new` takes the
/// required attributes, and v2's added optional attribute is `None` until
/// `with_priority` sets it. Built with struct literals, the same code would
/// not compile against v2 (`missing field priority`).
#[test]
fn code_that_builds_items_with_new_survives_an_added_optional_attribute() {
    macro_rules! ticket {
        ($m:ident) => {
            $m::Ticket::new(
                "t-1",
                "a title",
                $m::Status::Open,
                DateTime::from_secs(1_700_000_000),
            )
        };
    }
    let (old, new) = (ticket!(v1), ticket!(v2));
    assert_eq!((old.id.as_str(), old.title.as_str()), ("t-1", "a title"));
    assert_eq!((new.id.as_str(), new.priority), ("t-1", None));
    assert_eq!(new.with_priority(3).priority, Some(3));
}
