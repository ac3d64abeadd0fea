//! Timestamps the repository sets: `created` on create and put (and an
//! update that creates the item), `updated` on every write — entity
//! operations, transactions and batches — as precise as they are stored,
//! so the item returned is the item read back.

use singletable_runtime::DateTime;
use singletable_tests::generated::sequence_numbers::{
    Issue, IssueKey, IssueUpdate, OpenIssueStep, OpenIssueWritten, RepoKey, RepoUpdate, Repository,
};
use singletable_tests::{close_to_now, server};

fn issue(number: i64) -> Issue {
    Issue {
        owner: "octo".into(),
        name: "hello".into(),
        number,
        title: format!("issue {number}"),
        // Whatever the caller passes, the repository sets them.
        opened_at: DateTime::from_secs(0),
        changed_at: DateTime::from_secs(0),
    }
}

#[tokio::test]
async fn the_repository_sets_timestamps_on_every_write() {
    let repo = Repository::new(server::client(&server::server().await.endpoint))
        .with_table_name(server::unique_table("CodeHost"));
    repo.create_table().await.unwrap();

    let created = repo.create_issue(&issue(1)).await.unwrap();
    assert!(close_to_now(created.opened_at), "{created:?}");
    assert!(close_to_now(created.changed_at));
    assert_eq!(
        created.opened_at.to_millis().unwrap(),
        created.changed_at.to_millis().unwrap(),
        "one time for the whole write"
    );
    assert_eq!(
        repo.get_issue(&created.key()).await.unwrap(),
        Some(created.clone())
    );

    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let updated = repo
        .update_issue(&created.key(), IssueUpdate::default().title("renamed"))
        .await
        .unwrap();
    assert_eq!(
        updated.opened_at, created.opened_at,
        "an update keeps `created`"
    );
    assert!(
        updated.changed_at > created.changed_at,
        "an update moves `updated`"
    );
    assert_eq!(
        repo.get_issue(&created.key()).await.unwrap(),
        Some(updated.clone())
    );

    // An update that creates the item sets `created` too; one that does
    // not, leaves it.
    let key = IssueKey {
        owner: "octo".into(),
        name: "hello".into(),
        number: 2,
    };
    let upserted = repo
        .update_issue(&key, IssueUpdate::default().title("new").or_create())
        .await
        .unwrap();
    assert!(close_to_now(upserted.opened_at));
    let again = repo
        .update_issue(&key, IssueUpdate::default().title("again").or_create())
        .await
        .unwrap();
    assert_eq!(again.opened_at, upserted.opened_at);

    // A transaction and a batch stamp their items too.
    repo.update_repo(
        &RepoKey {
            owner: "octo".into(),
            name: "hello".into(),
        },
        RepoUpdate::default()
            .add_issue_count(0)
            .add_view_count(0)
            .or_create(),
    )
    .await
    .unwrap();
    // One expression adds the steps and sends them; `send` returns what
    // each step wrote, the created issue as stored (timestamps set).
    let repo_key = RepoKey {
        owner: "octo".into(),
        name: "hello".into(),
    };
    let written = repo
        .open_issue()
        .create_issue(&issue(3))
        .update_repo(&repo_key, RepoUpdate::default().add_issue_count(1))
        .send()
        .await
        .unwrap();
    let [OpenIssueWritten::CreateIssue(opened), OpenIssueWritten::UpdateRepo(counted)] =
        written.as_slice()
    else {
        panic!("one written value per step, in order: {written:?}");
    };
    assert!(close_to_now(opened.opened_at), "{opened:?}");
    assert_eq!(counted, &repo_key);
    assert_eq!(
        repo.get_issue(&opened.key()).await.unwrap().as_ref(),
        Some(opened),
        "the item returned is the item stored"
    );

    // The same create again: the transaction is canceled, and the failed
    // step is told by its typed name, not a string. The builder keeps its
    // steps, so it can be sent again as it was.
    let mut again = repo.open_issue();
    let refused = again
        .create_issue(&issue(3))
        .update_repo(&repo_key, RepoUpdate::default().add_issue_count(1))
        .send()
        .await
        .unwrap_err();
    let failed = OpenIssueStep::failed(&refused);
    assert_eq!(failed.len(), 1, "{refused:?}");
    let (step, reason) = failed[0];
    assert_eq!(step, OpenIssueStep::CreateIssue);
    assert!(reason.is_condition_failed(), "{reason:?}");
    assert_eq!((reason.index, again.len()), (0, 2));
    assert!(OpenIssueStep::failed(&singletable_runtime::Error::Pending {
        pattern: "open_issue",
        job: "none"
    })
    .is_empty());
    // An empty transaction sends nothing.
    assert!(repo.open_issue().send().await.unwrap().is_empty());
    let mut import = repo.import_issues();
    import.put_issue(&issue(4));
    import.send().await.unwrap();
    for number in [3, 4] {
        let stored = repo.get_issue(&issue(number).key()).await.unwrap().unwrap();
        assert!(close_to_now(stored.opened_at), "{stored:?}");
        assert!(close_to_now(stored.changed_at), "{stored:?}");
    }
}
