//! Updates that change an attribute's elements: add to and remove from a
//! set (DynamoDB's `ADD`/`DELETE`), append to a list and remove from it by
//! index, each atomic on the server, checked against the declared rules
//! before any request, and refused (before any request) together with a
//! setter of the same attribute.

use std::collections::BTreeSet;

use singletable_runtime::{DateTime, Error};
use singletable_tests::generated::{existing_table_natural_keys as natural, typed_maps};
use singletable_tests::server;

fn names(values: &[&str]) -> BTreeSet<String> {
    values.iter().map(|v| (*v).to_owned()).collect()
}

#[tokio::test]
async fn sets_and_lists_change_element_by_element() {
    use natural::{Modes, Repository, Score, ScoreKey, ScoreUpdate};
    let repo = Repository::new(server::client(&server::server().await.endpoint))
        .with_table_name(server::unique_table("GameScores"));
    repo.create_table().await.unwrap();
    let key = ScoreKey {
        user_id: "ann".into(),
        game_id: "chess".into(),
    };
    repo.create_score(&Score {
        user_id: "ann".into(),
        game_id: "chess".into(),
        top_score: 10,
        rating: "4.5".parse().unwrap(),
        wins: 1,
        nickname: None,
        badges: Some(names(&["gold"])),
        levels: None,
        odds: None,
        tokens: None,
        status_time: None,
        modes: None,
        rounds: None,
    })
    .await
    .unwrap();

    let added = repo
        .update_score(
            &key,
            ScoreUpdate::default().add_to_badges(names(&["early", "gold"])),
        )
        .await
        .unwrap();
    assert_eq!(added.badges, Some(names(&["early", "gold"])));
    let added = repo
        .update_score(&key, ScoreUpdate::default().add_to_levels([3, 1]))
        .await
        .unwrap();
    assert_eq!(
        added.levels,
        Some(BTreeSet::from([1, 3])),
        "a missing set is created"
    );
    let removed = repo
        .update_score(
            &key,
            ScoreUpdate::default().remove_from_badges(names(&["gold"])),
        )
        .await
        .unwrap();
    assert_eq!(removed.badges, Some(names(&["early"])));
    let emptied = repo
        .update_score(
            &key,
            ScoreUpdate::default().remove_from_badges(names(&["early", "x"])),
        )
        .await
        .unwrap();
    assert_eq!(emptied.badges, None, "a set left empty is removed");

    let appended = repo
        .update_score(
            &key,
            ScoreUpdate::default().append_to_modes([Modes::Ranked]),
        )
        .await
        .unwrap();
    assert_eq!(
        appended.modes,
        Some(vec![Modes::Ranked]),
        "a missing list counts as empty"
    );
    let appended = repo
        .update_score(
            &key,
            ScoreUpdate::default().append_to_modes([Modes::Casual, Modes::Ranked]),
        )
        .await
        .unwrap();
    assert_eq!(
        appended.modes,
        Some(vec![Modes::Ranked, Modes::Casual, Modes::Ranked])
    );
    // A removal names the element it expects at its index: one that is
    // not there (moved by another writer, or past the end) fails the whole
    // update with the stored item, and nothing is removed.
    for (index, expected) in [(1, Modes::Ranked), (7, Modes::Casual)] {
        match repo
            .update_score(
                &key,
                ScoreUpdate::default()
                    .remove_from_modes_at(0, Modes::Ranked)
                    .remove_from_modes_at(index, expected),
            )
            .await
        {
            Err(Error::ConditionNotMet {
                stored: Some(stored),
                ..
            }) => assert_eq!(
                stored.get("modes"),
                Some(&singletable_runtime::sdk::types::AttributeValue::L(vec![
                    singletable_runtime::sdk::types::AttributeValue::S("ranked".into()),
                    singletable_runtime::sdk::types::AttributeValue::S("casual".into()),
                    singletable_runtime::sdk::types::AttributeValue::S("ranked".into()),
                ]))
            ),
            other => panic!("removing {expected:?} at {index}: {other:?}"),
        }
    }
    let cut = repo
        .update_score(
            &key,
            ScoreUpdate::default()
                .remove_from_modes_at(0, Modes::Ranked)
                .remove_from_modes_at(2, Modes::Ranked),
        )
        .await
        .unwrap();
    assert_eq!(
        cut.modes,
        Some(vec![Modes::Casual]),
        "indexes of the list as stored"
    );
    assert_eq!(repo.get_score(&key).await.unwrap(), Some(cut.clone()));

    // Two changes of one attribute in one update are refused before any
    // request (DynamoDB refuses overlapping paths).
    for update in [
        ScoreUpdate::default()
            .badges(Some(names(&["a"])))
            .add_to_badges(names(&["b"])),
        ScoreUpdate::default()
            .add_to_badges(names(&["a"]))
            .remove_from_badges(names(&["b"])),
        ScoreUpdate::default()
            .append_to_modes([Modes::Casual])
            .remove_from_modes_at(0, Modes::Casual),
        ScoreUpdate::default()
            .modes(None)
            .append_to_modes([Modes::Casual]),
    ] {
        match repo.update_score(&key, update).await {
            Err(Error::Value(e)) => assert_eq!(e.context, "Score"),
            other => panic!("expected a value error, got {other:?}"),
        }
    }
    assert_eq!(
        repo.get_score(&key).await.unwrap(),
        Some(cut),
        "nothing changed"
    );
}

#[tokio::test]
async fn appended_elements_keep_their_declared_rules() {
    use typed_maps::{Kind, Lines, Order, OrderKey, OrderUpdate, Repository, Shipping, TenantId};
    let repo = Repository::new(server::client(&server::server().await.endpoint))
        .with_table_name(server::unique_table("Shop"));
    repo.create_table().await.unwrap();
    let tenant = TenantId::new("acme").unwrap();
    let t = repo.for_tenant(&tenant);
    let line = |sku: &str, quantity: i64| Lines {
        sku: sku.into(),
        quantity,
        price: "1.50".parse().unwrap(),
    };
    t.create_order(&Order {
        order_id: "A1".into(),
        shipping: Shipping {
            name: "Ann".into(),
            street: "1 Main St".into(),
            zip: None,
            geo: None,
            kind: Kind::Home,
            delivered_at: Some(DateTime::from_secs(1_714_564_800)),
            tags: None,
            door_code: None,
        },
        lines: vec![line("A", 1)],
        billing: None,
        extra: None,
    })
    .await
    .unwrap();
    let key = OrderKey {
        order_id: "A1".into(),
    };
    let order = t
        .update_order(&key, OrderUpdate::default().append_to_lines([line("B", 2)]))
        .await
        .unwrap();
    assert_eq!(order.lines, vec![line("A", 1), line("B", 2)]);
    match t
        .update_order(&key, OrderUpdate::default().append_to_lines([line("C", 0)]))
        .await
    {
        Err(Error::Value(e)) => {
            assert_eq!(e.name, "lines");
            assert_eq!(
                e.problem,
                "appended element 0: field `quantity`: 0 is outside 1..=9223372036854775807"
            );
        }
        other => panic!("expected a value error, got {other:?}"),
    }
    assert_eq!(t.get_order(&key).await.unwrap(), Some(order));
}
