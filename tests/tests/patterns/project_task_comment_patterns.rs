use super::*;
use project_task_comment::*;

// Comment ids are ULIDs.
const C1: &str = "01HZ0000000000000000000001";
const C2: &str = "01HZ0000000000000000000002";

fn project(tenant: &str, id: &str, name: &str) -> Project {
    Project {
        project_id: id.into(),
        name: format!("{name} ({tenant})"),
        name_key: name.to_lowercase(),
        created_at: DateTime::from_secs(1_700_000_000),
    }
}

fn task(project: &str, id: &str, assignee: Option<&str>, due: Option<i64>) -> Task {
    Task {
        project_id: project.into(),
        task_id: id.into(),
        title: format!("{project}/{id}"),
        status: Status::Todo,
        assignee_id: assignee.map(str::to_owned),
        due_at: due.map(DateTime::from_secs),
        version: 0,
    }
}

fn comment(tenant: &str, project: &str, task: &str, id: &str) -> Comment {
    Comment {
        project_id: project.into(),
        task_id: task.into(),
        comment_id: id.into(),
        author_id: "ann".into(),
        body: format!("{tenant} says hi"),
        created_at: DateTime::from_secs(1_700_000_100),
    }
}

#[tokio::test]
async fn every_pattern_returns_only_the_tenants_items() {
    let repo = Repository::new(client().await).with_table_name(server::unique_table("Projects"));
    repo.create_table().await.unwrap();
    let (a, b) = (
        TenantId::new("org-a").unwrap(),
        TenantId::new("org-b").unwrap(),
    );
    for tenant in [&a, &b] {
        let t = repo.for_tenant(tenant);
        let name = tenant.as_str();
        t.put_project(&project(name, "p1", "Zeta")).await.unwrap();
        t.put_project(&project(name, "p2", "Alpha")).await.unwrap();
        t.put_task(&task("p1", "t1", Some("ann"), Some(1_800_000_000)))
            .await
            .unwrap();
        t.put_task(&task("p1", "t2", Some("ann"), Some(1_900_000_000)))
            .await
            .unwrap();
        t.put_task(&task("p1", "t3", Some("ann"), None))
            .await
            .unwrap();
        t.put_task(&task("p2", "t1", None, Some(1_800_000_000)))
            .await
            .unwrap();
        for c in [C1, C2] {
            t.put_comment(&comment(name, "p1", "t1", c)).await.unwrap();
        }
    }
    let t = repo.for_tenant(&a);
    let c = |id| comment("org-a", "p1", "t1", id);
    assert_eq!(
        t.project_tree().all().await.unwrap(),
        vec![
            ProjectTreeItem::Project(project("org-a", "p1", "Zeta")),
            ProjectTreeItem::Task(task("p1", "t1", Some("ann"), Some(1_800_000_000))),
            ProjectTreeItem::Comment(c(C1)),
            ProjectTreeItem::Comment(c(C2)),
            ProjectTreeItem::Task(task("p1", "t2", Some("ann"), Some(1_900_000_000))),
            ProjectTreeItem::Task(task("p1", "t3", Some("ann"), None)),
            ProjectTreeItem::Project(project("org-a", "p2", "Alpha")),
            ProjectTreeItem::Task(task("p2", "t1", None, Some(1_800_000_000))),
        ]
    );
    // By name: Alpha before Zeta.
    assert_eq!(
        t.projects().all().await.unwrap(),
        vec![
            project("org-a", "p2", "Alpha"),
            project("org-a", "p1", "Zeta")
        ]
    );
    assert_eq!(
        t.project("p1").await.unwrap(),
        Some(project("org-a", "p1", "Zeta"))
    );
    assert_eq!(t.project_tasks("p1").all().await.unwrap().len(), 5);
    assert_eq!(
        t.project_tasks("p2").all().await.unwrap(),
        vec![ProjectTasksItem::Task(task(
            "p2",
            "t1",
            None,
            Some(1_800_000_000)
        ))]
    );
    let key = TaskKey {
        project_id: "p1".into(),
        task_id: "t2".into(),
    };
    assert_eq!(
        t.task(&key.project_id, &key.task_id).await.unwrap(),
        Some(task("p1", "t2", Some("ann"), Some(1_900_000_000)))
    );
    assert_eq!(
        t.task_comments("p1", "t1").all().await.unwrap(),
        vec![c(C1), c(C2)]
    );
    // GSI2 is sparse: only tasks with both an assignee and a due date.
    assert_eq!(
        t.my_tasks_due("ann", DateTime::from_secs(1_850_000_000))
            .all()
            .await
            .unwrap(),
        vec![task("p1", "t1", Some("ann"), Some(1_800_000_000))]
    );
    assert_eq!(
        t.my_tasks_due("ann", DateTime::from_secs(2_000_000_000))
            .all()
            .await
            .unwrap()
            .len(),
        2
    );

    // delete_task: the task and its comments, atomically.
    let mut delete = t.delete_task();
    delete.delete_task(&TaskKey {
        project_id: "p1".into(),
        task_id: "t1".into(),
    });
    for id in [C1, C2] {
        delete.delete_comment(&CommentKey {
            project_id: "p1".into(),
            task_id: "t1".into(),
            comment_id: id.into(),
        });
    }
    delete.send().await.unwrap();
    assert_eq!(t.project_tasks("p1").all().await.unwrap().len(), 2);
    assert_eq!(
        repo.for_tenant(&b)
            .project_tasks("p1")
            .all()
            .await
            .unwrap()
            .len(),
        5
    );
}
