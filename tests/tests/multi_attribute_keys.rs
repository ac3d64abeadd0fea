//! Multi-attribute index keys (`schemas/work_queue.yaml`), run on the
//! server: the table is created with indexes of two partition and two sort
//! key attributes, and every access pattern on them returns exactly the
//! items a reference evaluation of DynamoDB's rules gives: every partition
//! attribute equal, sort attributes compared from the first (a number by
//! value, a datetime as its text), the items ordered by the first sort
//! attribute then the second, an item missing any key attribute absent,
//! one tenant's items only; across pages of one item, whose page keys
//! carry every key attribute. A key attribute the repository computes (the
//! tenant) is written with the key's optional attributes, or not at all.

use singletable_runtime::sdk::types::AttributeValue;
use singletable_runtime::{DateTime, PageTokens};
use singletable_tests::generated::work_queue::*;
use singletable_tests::server;

const BASE: i64 = 1_790_000_000;

/// Tasks of one tenant: statuses, priorities (9 and 10 compare as numbers,
/// not as text) and due dates, some assigned.
fn tasks(prefix: &str) -> Vec<Task> {
    let statuses = [Status::Open, Status::InProgress, Status::Done];
    let priorities = [10, 9, 0, 100, 9, 10, 2];
    let assignees = [Some("ann"), None, Some("bob"), Some("ann"), None];
    (0..21)
        .map(|i| {
            let mut task = Task::new(
                format!("{prefix}{i}"),
                format!("task {i}"),
                statuses[i % 3],
                priorities[i % priorities.len()],
                DateTime::from_secs(BASE + 3600 * ((i as i64 * 7) % 11)),
            );
            if let Some(a) = assignees[i % assignees.len()] {
                task = task.with_assignee(a);
            }
            if i % 4 == 0 {
                task = task.with_reviewer("rae");
            }
            task
        })
        .collect()
}

fn ids(tasks: &[Task]) -> Vec<String> {
    tasks.iter().map(|t| t.id.clone()).collect()
}

/// The reference: the tasks that satisfy `keep`, in the order of the sort
/// key attributes `order` gives (the tasks are drawn so that no two in one
/// partition tie, where DynamoDB's order would be unspecified).
fn expected<K: Ord>(
    all: &[Task],
    keep: impl Fn(&Task) -> bool,
    order: impl Fn(&Task) -> K,
) -> Vec<String> {
    let mut out: Vec<&Task> = all.iter().filter(|t| keep(t)).collect();
    out.sort_by_key(|t| order(t));
    assert!(
        out.windows(2).all(|w| order(w[0]) != order(w[1])),
        "the drawn tasks tie on the index's sort key"
    );
    out.into_iter().map(|t| t.id.clone()).collect()
}

/// Every item of a query, one per page, each page resumed from the last's
/// token (which carries every key attribute of the index).
async fn one_by_one(query: impl Fn() -> singletable_runtime::Query<Task>) -> Vec<String> {
    let mut token: Option<String> = None;
    let mut out = Vec::new();
    for _ in 0..100 {
        let page = query().page(1, token.as_deref()).await.unwrap();
        assert!(page.errors.is_empty(), "{:?}", page.errors);
        out.extend(ids(&page.items));
        match page.next_token {
            Some(next) => token = Some(next),
            None => return out,
        }
    }
    panic!("no end after 100 pages");
}

#[tokio::test]
async fn multi_attribute_index_keys_read_as_dynamodb_orders_them() {
    let client = server::client(&server::server().await.endpoint);
    let repo = Repository::new(client)
        .with_table_name(server::unique_table("WorkQueue"))
        .with_page_tokens(PageTokens::new(&[7; 32]));
    repo.create_table().await.unwrap();
    let (acme, globex) = (
        TenantId::new("acme").unwrap(),
        TenantId::new("globex").unwrap(),
    );
    let (a, g) = (repo.for_tenant(&acme), repo.for_tenant(&globex));
    let all = tasks("a");
    for task in &all {
        a.put_task(task).await.unwrap();
    }
    // Another tenant's tasks with the same statuses, priorities and
    // assignees: in the same index partitions but for the tenant attribute.
    for task in tasks("g") {
        g.put_task(&task).await.unwrap();
    }
    let by_status = |t: &Task| (t.priority, t.due_at);

    for status in [Status::Open, Status::InProgress, Status::Done] {
        let want = expected(&all, |t| t.status == status, by_status);
        assert!(!want.is_empty());
        let got = ids(&a.tasks_in_status(status).all().await.unwrap());
        assert_eq!(got, want, "tasks_in_status({status:?})");
        assert_eq!(one_by_one(|| a.tasks_in_status(status)).await, want);

        for max in [0, 9, 10, 99] {
            let want = expected(&all, |t| t.status == status && t.priority <= max, by_status);
            let got = ids(&a.tasks_at_least_as_urgent(status, max).all().await.unwrap());
            assert_eq!(got, want, "tasks_at_least_as_urgent({status:?}, {max})");
        }
        for priority in [9, 10] {
            let before = DateTime::from_secs(BASE + 3600 * 5);
            let want = expected(
                &all,
                |t| t.status == status && t.priority == priority && t.due_at < before,
                by_status,
            );
            let query = || a.tasks_at_priority_due_before(status, priority, before);
            assert_eq!(ids(&query().all().await.unwrap()), want);
            assert_eq!(one_by_one(query).await, want);
        }
    }

    // The sparse index: a task without an assignee is not in it.
    let (from, to) = (
        DateTime::from_secs(BASE + 3600),
        DateTime::from_secs(BASE + 3600 * 8),
    );
    for person in ["ann", "bob", "cyd"] {
        let want = expected(
            &all,
            |t| t.assignee.as_deref() == Some(person) && t.due_at >= from && t.due_at <= to,
            |t| (t.due_at, t.id.clone()),
        );
        let query = || a.assigned_tasks_due_between(person, from, to);
        assert_eq!(ids(&query().all().await.unwrap()), want, "{person}");
        assert_eq!(one_by_one(query).await, want, "{person}");
    }

    // An update moves a task between partitions of the index (its status),
    // and removing the assignee takes it out of the sparse index.
    let moved = all
        .iter()
        .find(|t| t.status == Status::Open && t.assignee.is_some())
        .unwrap();
    a.update_task(
        &moved.key(),
        TaskUpdate::default().status(Status::Done).assignee(None),
    )
    .await
    .unwrap();
    let open = ids(&a.tasks_in_status(Status::Open).all().await.unwrap());
    let done = ids(&a.tasks_in_status(Status::Done).all().await.unwrap());
    assert!(!open.contains(&moved.id) && done.contains(&moved.id));
    let assignee = moved.assignee.as_deref().unwrap();
    let window = a
        .assigned_tasks_due_between(
            assignee,
            DateTime::from_secs(BASE),
            DateTime::from_secs(BASE + 3600 * 11),
        )
        .all()
        .await
        .unwrap();
    assert!(!ids(&window).contains(&moved.id));

    // `by_reviewer`'s tenant attribute (`TENANT#acme`) is stored exactly
    // when the task has a reviewer, and goes with it.
    let stored = |id: String| {
        let client = repo.client().clone();
        let table = repo.table_name().to_owned();
        async move {
            client
                .get_item()
                .table_name(table)
                .key("pk", AttributeValue::S(format!("TENANT#acme|TASK#{id}")))
                .key("sk", AttributeValue::S("TASK".into()))
                .send()
                .await
                .unwrap()
                .item
                .unwrap()
        }
    };
    let reviewed = |t: &Task| t.reviewer.is_some();
    for task in &all {
        let item = stored(task.id.clone()).await;
        assert_eq!(
            item.get("tenant_ref"),
            reviewed(task)
                .then(|| AttributeValue::S("TENANT#acme".into()))
                .as_ref(),
            "{}",
            task.id
        );
    }
    let to_review = |t: &TenantRepository<'_>| {
        let query = t.tasks_to_review("rae");
        async move {
            query
                .all()
                .await
                .unwrap()
                .into_iter()
                .map(|t| t.id)
                .collect::<Vec<_>>()
        }
    };
    let want = expected(&all, |t| t.reviewer.as_deref() == Some("rae"), |t| t.due_at);
    assert!(!want.is_empty());
    assert_eq!(to_review(&a).await, want);
    let unreviewed = all.iter().find(|t| !reviewed(t)).unwrap();
    a.update_task(
        &unreviewed.key(),
        TaskUpdate::default().reviewer(Some("rae".into())),
    )
    .await
    .unwrap();
    assert!(stored(unreviewed.id.clone())
        .await
        .contains_key("tenant_ref"));
    assert!(to_review(&a).await.contains(&unreviewed.id));
    a.update_task(&unreviewed.key(), TaskUpdate::default().reviewer(None))
        .await
        .unwrap();
    assert!(!stored(unreviewed.id.clone())
        .await
        .contains_key("tenant_ref"));
    assert!(!to_review(&a).await.contains(&unreviewed.id));

    // The other tenant sees its own tasks only.
    let theirs = ids(&g.tasks_in_status(Status::Open).all().await.unwrap());
    assert!(!theirs.is_empty() && theirs.iter().all(|id| id.starts_with('g')));
}
