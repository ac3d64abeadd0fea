//! The job that writes derived attributes into stored items, end to end
//! (`tests/evolution/derived/`): v1 writes people with the derived constant
//! `schema: "1"`; v2 derives `display_name` from the names and `schema:
//! "2"`, and its lock holds `derive-person-display-name` and
//! `derive-person-schema` pending. Beside a v2 writer, the jobs run on two
//! workers each through a proxy that faults 20% of the requests (half of
//! them applied with their answers lost). Afterwards every stored person
//! holds both values as v2 computes them, nothing is left to do, and a
//! second run writes nothing. No access pattern waits for these jobs.

use singletable_runtime::migrate::{Counts, Job, Runner};
use singletable_runtime::sdk::types::AttributeValue;
use singletable_tests::evolution::derived::{v1, v2};
use singletable_tests::{faults, migration, server};

const PEOPLE: usize = 120;

fn person(i: usize) -> (String, String, String) {
    (
        format!("p-{i}"),
        format!("First{i}"),
        format!("Last{}", i % 7),
    )
}

async fn run(
    client: &singletable_runtime::sdk::Client,
    table: &str,
    job: &dyn Job,
    control: &str,
) -> Counts {
    let runner = || {
        Runner::new(client.clone(), table, job)
            .control_table(control)
            .total_segments(4)
            .page_size(25)
            .live(true)
    };
    migration::run_workers(job.id(), vec![runner(), runner()]).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn stored_items_get_the_derived_attributes_the_new_design_writes() {
    let upstream = server::server().await.endpoint.clone();
    let client = server::client(&upstream);
    let table = server::unique_table("Derived");
    let old = v1::Repository::new(client.clone()).with_table_name(&table);
    old.create_table().await.unwrap();
    for i in 0..PEOPLE {
        let (id, first_name, last_name) = person(i);
        old.put_person(&v1::Person {
            id,
            first_name,
            last_name,
        })
        .await
        .unwrap();
    }
    // v2 is deployed; reads do not wait for these jobs.
    let repo = v2::Repository::new(client.clone()).with_table_name(&table);
    assert!(repo.person("p-1").await.unwrap().is_some());
    // New code rewrites person 0 before the jobs reach it.
    repo.put_person(&v2::Person {
        id: "p-0".into(),
        first_name: "Ada".into(),
        last_name: "Lovelace".into(),
    })
    .await
    .unwrap();

    let proxy = faults::start_mixed(&upstream, 0.2, 43).await.unwrap();
    let faulty = server::client_with_short_backoff(&proxy.endpoint);
    let jobs = v2::migrations::jobs();
    let ids: Vec<&str> = jobs.iter().map(|j| j.id()).collect();
    assert_eq!(ids, ["derive-person-display-name", "derive-person-schema"]);
    let control = format!("{table}__control");
    for job in &jobs {
        let counts = run(&faulty, &table, job.as_ref(), &control).await;
        eprintln!("{}: {counts}", job.id());
        assert_eq!(counts.invalid, 0, "{}: {counts}", job.id());
        // Every person but the one v2 wrote needed the attribute.
        assert_eq!(
            counts.updated + counts.already_done,
            PEOPLE as u64,
            "{}: {counts}",
            job.id()
        );
    }
    eprintln!("proxy: {}", proxy.counts.summary());

    let items = server::scan_all(&client, &table).await.unwrap();
    assert_eq!(items.len(), PEOPLE);
    let text = |item: &singletable_runtime::Item, name: &str| match item.get(name) {
        Some(AttributeValue::S(s)) => s.clone(),
        other => panic!("{name}: {other:?}"),
    };
    for item in &items {
        let expected = format!("{}, {}", text(item, "last_name"), text(item, "first_name"));
        assert_eq!(text(item, "display_name"), expected);
        assert_eq!(text(item, "schema"), "2");
    }
    // Nothing is left, and a second run writes nothing.
    for job in &jobs {
        let runner = Runner::new(client.clone(), &table, job.as_ref())
            .control_table(&control)
            .live(true);
        let left = runner.verify(4).await.unwrap();
        assert_eq!(left.count, 0, "{}: {:?}", job.id(), left.examples);
        let again = run(&client, &table, job.as_ref(), &format!("{control}2")).await;
        assert_eq!(again.updated, 0, "{}: {again}", job.id());
    }
}
