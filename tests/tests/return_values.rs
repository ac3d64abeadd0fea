//! Writes that say what they did: an update returns the item as it left
//! it (so a counter hands out numbers no other caller gets), a delete
//! returns the item it deleted — for plain entities (DynamoDB's `ALL_NEW`
//! and `ALL_OLD`) and for entities counted in a transaction.

use futures_util::future::join_all;
use singletable_runtime::DateTime;
use singletable_tests::generated::sequence_numbers::{Repo, RepoKey, RepoUpdate, Repository};
use singletable_tests::generated::shopping_cart;
use singletable_tests::server;

fn key() -> RepoKey {
    RepoKey {
        owner: "octo".into(),
        name: "hello".into(),
    }
}

#[tokio::test]
async fn twenty_concurrent_allocations_get_twenty_distinct_numbers() {
    let repo = Repository::new(server::client(&server::server().await.endpoint))
        .with_table_name(server::unique_table("CodeHost"));
    repo.create_table().await.unwrap();
    // The first allocation creates the counter.
    let first = repo
        .update_repo(
            &key(),
            RepoUpdate::default()
                .add_issue_count(1)
                .add_view_count(0)
                .or_create(),
        )
        .await
        .unwrap();
    assert_eq!(first.issue_count, 1);
    let key = key();
    let allocations =
        join_all((0..20).map(|_| repo.update_repo(&key, RepoUpdate::default().add_issue_count(1))))
            .await;
    let mut numbers: Vec<i64> = allocations
        .into_iter()
        .map(|r| r.expect("an allocation").issue_count)
        .collect();
    numbers.sort_unstable();
    assert_eq!(numbers, (2..=21).collect::<Vec<_>>());
    // The rest of the item comes back too: the attribute set, and the keys.
    let described = repo
        .update_repo(&key, RepoUpdate::default().description(Some("hi".into())))
        .await
        .unwrap();
    assert_eq!(
        described,
        Repo {
            owner: "octo".into(),
            name: "hello".into(),
            issue_count: 21,
            view_count: 0,
            description: Some("hi".into()),
        }
    );
    // A delete returns what it deleted; a second finds nothing.
    assert_eq!(repo.delete_repo(&key).await.unwrap(), Some(described));
    assert_eq!(repo.delete_repo(&key).await.unwrap(), None);
}

#[tokio::test]
async fn writes_of_an_entity_counted_in_a_transaction_return_the_item() {
    use shopping_cart::{CartItem, CartItemUpdate, Repository, Status};
    let repo = Repository::new(server::client(&server::server().await.endpoint))
        .with_table_name(server::unique_table("Carts"));
    repo.create_table().await.unwrap();
    let item = CartItem {
        user_id: "ann".into(),
        product_id: "p1".into(),
        status: Status::Active,
        product_name: "Tea".into(),
        quantity: 1,
        unit_price: "2.50".parse().unwrap(),
        added_at: DateTime::from_secs(1_714_564_800),
    };
    repo.create_cart_item(&item).await.unwrap();
    let updated = repo
        .update_cart_item(&item.key(), CartItemUpdate::default().add_quantity(2))
        .await
        .unwrap();
    assert_eq!(updated.quantity, 3);
    assert_eq!(
        Some(&updated),
        repo.get_cart_item(&item.key()).await.unwrap().as_ref()
    );
    assert_eq!(
        repo.delete_cart_item(&item.key()).await.unwrap(),
        Some(updated)
    );
    assert_eq!(repo.delete_cart_item(&item.key()).await.unwrap(), None);
}

/// `replace_` writes like `put_` and returns the item it replaced.
#[tokio::test]
async fn replace_returns_the_item_it_replaced() {
    let repo = Repository::new(server::client(&server::server().await.endpoint))
        .with_table_name(server::unique_table("Replace"));
    repo.create_table().await.unwrap();
    let first = Repo {
        owner: "octo".into(),
        name: "hello".into(),
        issue_count: 1,
        view_count: 0,
        description: None,
    };
    assert_eq!(repo.replace_repo(&first).await.unwrap(), None);
    let second = Repo {
        issue_count: 2,
        description: Some("two".into()),
        ..first.clone()
    };
    assert_eq!(repo.replace_repo(&second).await.unwrap(), Some(first));
    assert_eq!(repo.get_repo(&key()).await.unwrap(), Some(second));
}

/// A replace whose answer was lost and that the SDK sent again finds the
/// item it writes: what the first attempt replaced is unknown, and it says
/// so (`AlreadyAsWritten`) instead of returning its own item as the one it
/// replaced.
#[tokio::test]
async fn a_replace_sent_again_does_not_report_its_own_item_as_replaced() {
    use singletable_runtime::Error;
    use singletable_tests::faults;
    let upstream = server::server().await.endpoint.clone();
    let direct = Repository::new(server::client(&upstream))
        .with_table_name(server::unique_table("LostReplace"));
    direct.create_table().await.unwrap();
    let proxy = faults::start_losing(&upstream, 0.3, 31).await.unwrap();
    let lossy =
        Repository::new(server::client(&proxy.endpoint)).with_table_name(direct.table_name());
    let (mut replaced, mut as_written, mut unknown) = (0, 0, 0);
    let mut previous: Option<Repo> = None;
    for i in 0..30 {
        let item = Repo {
            owner: "octo".into(),
            name: "hello".into(),
            issue_count: i,
            view_count: 0,
            description: None,
        };
        match lossy.replace_repo(&item).await {
            Ok(old) => {
                assert_eq!(old, previous, "replace {i}");
                replaced += 1;
            }
            Err(Error::AlreadyAsWritten { operation, .. }) => {
                assert_eq!(operation, "replace");
                as_written += 1;
            }
            Err(Error::Service(_)) => unknown += 1,
            Err(e) => panic!("replace {i}: {e:?}"),
        }
        assert_eq!(direct.get_repo(&key()).await.unwrap().as_ref(), Some(&item));
        previous = Some(item);
    }
    eprintln!(
        "lost answers, replaces: {}; replaced {replaced}, already as written {as_written}, unknown {unknown}",
        proxy.counts.summary()
    );
    assert!(as_written > 0, "some replace was sent again");
}
