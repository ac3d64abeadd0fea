//! The jobs that rewrite stored items, end to end (`tests/evolution/rewrite/`):
//! v1 writes notes with one tag each and legacy items into table `Rewrite`;
//! v2 renames the table (copy), stores `body` as `text` (move), adds a
//! required `priority` (filled with values the test chooses) and a version
//! attribute `rev` (filled with its first value), marks tags `label`
//! instead of `tag` (re-mark) and removes `Legacy` (purge). The jobs run in
//! the plan's order, two workers each, through a proxy that faults 20% of
//! the requests (half of them applied with their answers lost), beside a
//! writer of the new design. Afterwards every v2 access pattern returns the
//! v1 data in its new form, nothing is left to do, and a second run changes
//! nothing.

use singletable_runtime::migrate::{Counts, Job, Runner};
use singletable_runtime::sdk::types::AttributeValue;
use singletable_runtime::Error;
use singletable_tests::evolution::rewrite::{v1, v2};
use singletable_tests::{faults, migration, server};

const NOTES: usize = 150;
const LEGACY: usize = 60;

fn body(i: usize) -> String {
    format!("note {i} says {}", "x".repeat(i % 7))
}

/// The priority the test fills in: from the stored body, 1 to 5.
fn priority(item: &singletable_runtime::Item) -> Option<i64> {
    match item.get("body").or_else(|| item.get("text")) {
        Some(AttributeValue::S(b)) => Some(i64::try_from(b.len() % 5).unwrap_or(0) + 1),
        _ => None,
    }
}

/// Runs `job` on two workers at once (`source`: the old table, for a
/// copy) and sums their counts.
async fn run(
    client: &singletable_runtime::sdk::Client,
    table: &str,
    source: &str,
    job: &dyn Job,
    control: &str,
) -> Counts {
    let runner = || {
        Runner::new(client.clone(), table, job)
            .source_table(source)
            .control_table(control)
            .total_segments(4)
            .page_size(25)
            .live(true)
    };
    migration::run_workers(job.id(), vec![runner(), runner()]).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn renamed_moved_filled_remarked_and_purged_items_end_as_the_new_design_reads_them() {
    let upstream = server::server().await.endpoint.clone();
    let client = server::client(&upstream);
    let old_table = server::unique_table("Rewrite");
    let new_table = server::unique_table("Rewrite2");
    let old = v1::Repository::new(client.clone()).with_table_name(&old_table);
    old.create_table().await.unwrap();
    for i in 0..NOTES {
        let id = format!("n-{i}");
        old.put_note(&v1::Note {
            id: id.clone(),
            body: body(i),
        })
        .await
        .unwrap();
        old.put_tag(&v1::Tag {
            note_id: id,
            name: "work".into(),
        })
        .await
        .unwrap();
    }
    for i in 0..LEGACY {
        old.put_legacy(&v1::Legacy {
            id: format!("l-{i}"),
            data: format!("legacy {i}"),
        })
        .await
        .unwrap();
    }
    let repo = v2::Repository::new(client.clone()).with_table_name(&new_table);
    repo.create_table().await.unwrap();
    // Old code still running writes legacy items into the new table (the
    // copy leaves the old table's behind; the purge deletes these).
    let old_writer = v1::Repository::new(client.clone()).with_table_name(&new_table);
    for i in 0..LEGACY {
        old_writer
            .put_legacy(&v1::Legacy {
                id: format!("l-{i}"),
                data: format!("written late {i}"),
            })
            .await
            .unwrap();
    }

    // v2 is deployed: until the copy is verified, its patterns wait.
    let key = |i: usize| v2::NoteKey {
        id: format!("n-{i}"),
    };
    assert!(matches!(
        repo.note(&key(1).id).await,
        Err(Error::Pending {
            job: "copy-from-rewrite",
            ..
        })
    ));
    // New code writes note 0 in the new form before the copy reaches it:
    // the copy keeps it.
    let written_by_v2 = v2::Note {
        id: "n-0".into(),
        body: "rewritten by v2".into(),
        priority: 5,
        rev: 1,
    };
    repo.create_note(&written_by_v2).await.unwrap();

    let proxy = faults::start_mixed(&upstream, 0.2, 41).await.unwrap();
    // The runner retries what fails transiently itself.
    let faulty = server::client_with_short_backoff(&proxy.endpoint);
    let mut jobs = v2::migrations::jobs();
    jobs.push(v2::migrations::fill_note_priority(priority));
    let ids: Vec<&str> = jobs.iter().map(|j| j.id()).collect();
    assert_eq!(
        ids,
        [
            "copy-from-rewrite",
            "move-note-text",
            "fill-note-rev",
            "remark-tag",
            "purge-legacy",
            "fill-note-priority"
        ]
    );
    let control = format!("{new_table}__control");
    let mut first_runs = Vec::new();
    for job in &jobs {
        let counts = run(&faulty, &new_table, &old_table, job.as_ref(), &control).await;
        eprintln!("{}: {counts}", job.id());
        assert_eq!(counts.invalid, 0, "{}: {counts}", job.id());
        first_runs.push(counts);
    }
    eprintln!("proxy: {}", proxy.counts.summary());
    let total = (2 * NOTES + LEGACY) as u64;
    // The copy read every old item, left the legacy ones behind, and
    // found one key taken by v2's write.
    assert_eq!(first_runs[0].scanned, total);
    assert_eq!(first_runs[0].skipped, LEGACY as u64, "{}", first_runs[0]);
    assert_eq!(first_runs[0].changed_concurrently, 1, "{}", first_runs[0]);
    assert_eq!(
        first_runs[0].updated + first_runs[0].already_done,
        (2 * NOTES - 1) as u64
    );
    // Every copied note but the one v2 wrote had its body moved and filled.
    let moved = first_runs[1].updated + first_runs[1].already_done;
    assert_eq!(moved, NOTES as u64, "{}", first_runs[1]);
    // The tags were re-marked, the legacy items deleted.
    assert_eq!(
        first_runs[3].updated + first_runs[3].already_done,
        (NOTES) as u64,
        "{}",
        first_runs[3]
    );
    assert_eq!(
        first_runs[4].updated + first_runs[4].already_done,
        LEGACY as u64,
        "{}",
        first_runs[4]
    );

    // Nothing is left to do; verifying each marks it in the control table.
    for job in &jobs {
        let runner = Runner::new(client.clone(), &new_table, job.as_ref())
            .source_table(&old_table)
            .control_table(&control)
            .live(true);
        let left = runner.verify(4).await.unwrap();
        assert_eq!(left.count, 0, "{}: {:?}", job.id(), left.examples);
    }

    // Every v2 access pattern returns the v1 data in the new form.
    let read = repo.clone().allow_pending();
    assert_eq!(read.note(&key(0).id).await.unwrap(), Some(written_by_v2));
    for i in 1..NOTES {
        let note = read.note(&key(i).id).await.unwrap().expect("the note");
        assert_eq!(note.body, body(i));
        assert_eq!(note.rev, 1);
        assert_eq!(
            Some(note.priority),
            priority(&[("body".to_owned(), AttributeValue::S(body(i)))].into())
        );
        let items = read.note_with_tags(&format!("n-{i}")).all().await.unwrap();
        assert_eq!(items.len(), 2, "note {i} and its tag: {items:?}");
        assert!(items
            .iter()
            .any(|x| matches!(x, v2::NoteWithTagsItem::Tag(t) if t.name == "work")));
    }
    let stored = server::scan_all(&client, &new_table).await.unwrap();
    assert_eq!(stored.len(), 2 * NOTES, "notes and tags, no legacy item");
    assert!(stored.iter().all(|item| !item.contains_key("body")));
    // A versioned write of the filled version applies.
    let mut note = read.note(&key(3).id).await.unwrap().unwrap();
    note.rev = 2;
    read.put_note(&note).await.unwrap();

    // A second run over a fresh control table changes nothing.
    let again = format!("{control}2");
    for job in &jobs {
        let counts = run(&client, &new_table, &old_table, job.as_ref(), &again).await;
        assert_eq!(counts.updated, 0, "{} again: {counts}", job.id());
    }
}

/// A renamed table whose key attributes changed (`tests/evolution/rekeyed/`:
/// `pk`/`sk` in `Keyed`, `PK`/`SK` in `Keyed2`): each entity is copied into
/// the new table under its new keys, tenants' notes with their tenant read
/// back out of the old key, through the fault proxy; every item once, and a
/// second run writes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_table_with_new_key_attributes_is_copied_entity_by_entity() {
    use singletable_tests::evolution::rekeyed::{v1, v2};
    let upstream = server::server().await.endpoint.clone();
    let client = server::client(&upstream);
    let (old_table, new_table) = (
        server::unique_table("Keyed"),
        server::unique_table("Keyed2"),
    );
    let old = v1::Repository::new(client.clone()).with_table_name(&old_table);
    old.create_table().await.unwrap();
    let tenants = ["acme", "globex"];
    for tenant in tenants {
        let t = old.for_tenant(&v1::TenantId::new(tenant).unwrap());
        for i in 0..60 {
            t.put_note(&v1::Note::new(
                format!("n-{i}"),
                format!("{tenant} note {i}"),
            ))
            .await
            .unwrap();
        }
    }
    for name in ["alpha", "beta", "gamma"] {
        old.put_topic(&v1::Topic::new(name, format!("about {name}")))
            .await
            .unwrap();
    }
    let repo = v2::Repository::new(client.clone()).with_table_name(&new_table);
    repo.create_table().await.unwrap();
    let acme = v2::TenantId::new("acme").unwrap();
    let key = |i: usize| v2::NoteKey {
        id: format!("n-{i}"),
    };
    assert!(matches!(
        repo.for_tenant(&acme).note(&key(1).id).await,
        Err(Error::Pending { .. })
    ));

    let proxy = faults::start_mixed(&upstream, 0.2, 43).await.unwrap();
    let faulty = server::client_with_short_backoff(&proxy.endpoint);
    let control = format!("{new_table}__control");
    let jobs = v2::migrations::jobs();
    let ids: Vec<&str> = jobs.iter().map(|j| j.id()).collect();
    assert_eq!(ids, ["copy-note-from-keyed", "copy-topic-from-keyed"]);
    let mut copied = Vec::new();
    for job in &jobs {
        let counts = run(&faulty, &new_table, &old_table, job.as_ref(), &control).await;
        eprintln!("{}: {counts}", job.id());
        assert_eq!(
            (counts.invalid, counts.changed_concurrently),
            (0, 0),
            "{counts}"
        );
        copied.push(counts.updated + counts.already_done);
    }
    assert_eq!(copied, [120, 3]);
    for job in &jobs {
        let runner = Runner::new(client.clone(), &new_table, job.as_ref())
            .source_table(&old_table)
            .control_table(&control);
        let left = runner.verify(4).await.unwrap();
        assert_eq!(left.count, 0, "{}: {:?}", job.id(), left.examples);
    }
    let read = repo.clone().allow_pending();
    for tenant in tenants {
        let t = read.for_tenant(&v2::TenantId::new(tenant).unwrap());
        for i in 0..60 {
            let note = t.note(&key(i).id).await.unwrap().expect("the note");
            assert_eq!(note.body, format!("{tenant} note {i}"));
        }
    }
    let topic = read.topic("beta").await.unwrap().expect("the topic");
    assert_eq!(topic.title, "about beta");
    let stored = server::scan_all(&client, &new_table).await.unwrap();
    assert_eq!(stored.len(), 123);
    assert!(stored
        .iter()
        .all(|i| i.contains_key("PK") && !i.contains_key("pk")));
    let again = format!("{control}2");
    for job in &jobs {
        let counts = run(&client, &new_table, &old_table, job.as_ref(), &again).await;
        assert_eq!(counts.updated, 0, "{} again: {counts}", job.id());
    }
}
