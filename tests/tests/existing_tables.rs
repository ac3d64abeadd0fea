//! Specs that describe tables written by other code, end to end: items put
//! with plain PutItem requests (what `aws dynamodb put-item` sends) are read
//! back by the generated repositories, and what the repositories write is
//! exactly the attributes the spec declares (natural keys stored once, no
//! entity-type attribute unless the spec names one).

use std::collections::BTreeSet;

use futures_util::StreamExt;
use singletable_runtime::sdk::types::AttributeValue;

use singletable_runtime::{Blob, DecodeProblem, Error, Item};
use singletable_tests::dynamo_json::normalized;
use singletable_tests::generated::{
    existing_table_binary_keys as binary, existing_table_discriminator as discriminator,
    existing_table_key_shapes as shapes, existing_table_natural_keys as natural,
};
use singletable_tests::server;

async fn client() -> singletable_runtime::sdk::Client {
    server::client(&server::server().await.endpoint)
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.to_owned())
}

fn item(pairs: &[(&str, AttributeValue)]) -> Item {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect()
}

/// PutItem as another program would send it.
async fn put_raw(client: &singletable_runtime::sdk::Client, table: &str, item: Item) {
    client
        .put_item()
        .table_name(table)
        .set_item(Some(item))
        .send()
        .await
        .expect("a plain put");
}

async fn get_raw(client: &singletable_runtime::sdk::Client, table: &str, key: Item) -> Item {
    client
        .get_item()
        .table_name(table)
        .set_key(Some(key))
        .consistent_read(true)
        .send()
        .await
        .expect("a plain get")
        .item
        .expect("the item exists")
}

#[tokio::test]
async fn natural_keys_read_and_write_the_table_as_it_is() {
    use natural::{Repository, Score};
    let client = client().await;
    let table = server::unique_table("GameScores");
    let repo = Repository::new(client.clone()).with_table_name(table.clone());
    repo.create_table().await.unwrap();
    // Items as another program wrote them: the key attributes are the
    // items' own attributes, numbers as DynamoDB numbers, no type marker.
    let foreign = [
        ("ann", "chess", "1200", "4.25", "7"),
        ("bob", "chess", "-5", "3.5", "0"),
        ("cy", "chess", "2400", "4.75", "12"),
        ("ann", "go", "300", "2", "1"),
    ];
    for (user, game, score, rating, wins) in foreign {
        put_raw(
            &client,
            &table,
            item(&[
                ("user_id", s(user)),
                ("game_id", s(game)),
                ("top_score", n(score)),
                ("rating", n(rating)),
                ("wins", n(wins)),
            ]),
        )
        .await;
    }
    // Sets, as another program stored them (in its own element order).
    client
        .update_item()
        .table_name(&table)
        .set_key(Some(item(&[
            ("user_id", s("ann")),
            ("game_id", s("chess")),
        ])))
        .update_expression(
            "SET badges = :b, levels = :l, odds = :o, tokens = :t, #st = :st, modes = :m, rounds = :r",
        )
        .expression_attribute_values(":m", AttributeValue::L(vec![s("casual"), s("ranked")]))
        .expression_attribute_values(
            ":r",
            AttributeValue::L(vec![AttributeValue::L(vec![s("win"), s("draw")]), AttributeValue::L(vec![])]),
        )
        .expression_attribute_names("#st", "Status#Time")
        .expression_attribute_values(":st", s("ACTIVE#2024-05-01"))
        .expression_attribute_values(
            ":b",
            AttributeValue::Ss(vec!["gold".into(), "early".into()]),
        )
        .expression_attribute_values(":l", AttributeValue::Ns(vec!["10".into(), "2".into()]))
        .expression_attribute_values(":o", AttributeValue::Ns(vec!["0.5".into(), "-1.25".into()]))
        .expression_attribute_values(
            ":t",
            AttributeValue::Bs(vec![Blob::new(vec![9, 9]), Blob::new(vec![0])]),
        )
        .send()
        .await
        .unwrap();
    let ann = repo
        .score("ann", "chess")
        .await
        .unwrap()
        .expect("ann's chess score");
    assert_eq!(
        ann.badges,
        Some(BTreeSet::from(["early".to_owned(), "gold".to_owned()]))
    );
    assert_eq!(ann.levels, Some(BTreeSet::from([2, 10])));
    let odds: Vec<&str> = ann.odds.iter().flatten().map(|d| d.as_str()).collect();
    assert_eq!(odds, ["-1.25", "0.5"], "decimals in numeric order");
    assert_eq!(ann.tokens, Some(BTreeSet::from([vec![0], vec![9, 9]])));
    // An attribute name Rust cannot have, read under the spec's name.
    assert_eq!(ann.status_time.as_deref(), Some("ACTIVE#2024-05-01"));
    // Lists of enums, typed.
    use natural::{Modes, Rounds};
    assert_eq!(ann.modes, Some(vec![Modes::Casual, Modes::Ranked]));
    assert_eq!(
        ann.rounds,
        Some(vec![vec![Rounds::Win, Rounds::Draw], vec![]])
    );
    assert_eq!(
        (
            ann.top_score,
            ann.rating.as_str(),
            ann.wins,
            ann.nickname.as_deref()
        ),
        (1200, "4.25", 7, None)
    );
    let mine: Vec<Score> = repo.scores_of_user("ann").all().await.unwrap();
    assert_eq!(
        mine.iter().map(|s| s.game_id.as_str()).collect::<Vec<_>>(),
        ["chess", "go"]
    );
    number_keys_order_as_numbers(&repo).await;

    writes_back_as_stored(&client, &table, &repo, &ann).await;
}

/// Index and range reads of the natural-key table compare number keys as
/// numbers, decimals too.
async fn number_keys_order_as_numbers(repo: &natural::Repository) {
    // Number index keys sort numerically, negative numbers included.
    let board: Vec<(String, i64)> = repo
        .leaderboard("chess", -10)
        .all()
        .await
        .unwrap()
        .into_iter()
        .map(|s| (s.user_id, s.top_score))
        .collect();
    assert_eq!(
        board,
        [
            ("cy".into(), 2400),
            ("ann".into(), 1200),
            ("bob".into(), -5)
        ]
    );
    let above: Vec<i64> = repo
        .leaderboard("chess", 1200)
        .all()
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.top_score)
        .collect();
    assert_eq!(above, [2400, 1200]);
    // A number key's range compares numbers: -10 ..= 1500, and a range
    // whose bounds are reversed is empty (DynamoDB refuses to be asked).
    let between = |low, high| {
        let repo = &repo;
        async move {
            repo.scores_between("chess", low, high)
                .all()
                .await
                .unwrap()
                .into_iter()
                .map(|s| s.top_score)
                .collect::<Vec<i64>>()
        }
    };
    assert_eq!(between(-10, 1500).await, [1200, -5]);
    assert_eq!(between(1500, -10).await, Vec::<i64>::new());
    assert_eq!(between(1200, 1200).await, [1200]);
    // A decimal number key: 4.75 > 4.25 > 3.5 as numbers.
    let rated: Vec<String> = repo
        .best_rated("chess")
        .all()
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.rating.as_str().to_owned())
        .collect();
    assert_eq!(rated, ["4.75", "4.25", "3.5"]);
}

/// The repository writes an item of the natural-key table back as it was
/// stored, and refuses what the table cannot hold.
async fn writes_back_as_stored(
    client: &singletable_runtime::sdk::Client,
    table: &str,
    repo: &natural::Repository,
    ann: &natural::Score,
) {
    use natural::{Score, ScoreKey, ScoreUpdate};
    let key = |u: &str, g: &str| ScoreKey {
        user_id: u.into(),
        game_id: g.into(),
    };
    // The repository writes the same item back byte for byte: the natural
    // keys once, under their own names, and nothing the spec does not declare.
    let before = get_raw(
        client,
        table,
        item(&[("user_id", s("ann")), ("game_id", s("chess"))]),
    )
    .await;
    repo.put_score(ann).await.unwrap();
    let after = get_raw(
        client,
        table,
        item(&[("user_id", s("ann")), ("game_id", s("chess"))]),
    )
    .await;
    assert_eq!(
        normalized(after),
        normalized(before),
        "a read item is written back unchanged (sets compared as sets)"
    );
    // DynamoDB stores no empty set: refused before any request.
    let mut empty = ann.clone();
    empty.badges = Some(BTreeSet::new());
    match repo.put_score(&empty).await {
        Err(Error::Value(e)) => assert_eq!(e.name, "badges"),
        other => panic!("expected a value error naming badges, got {other:?}"),
    }

    let dee = Score {
        user_id: "dee".into(),
        game_id: "go".into(),
        top_score: 10,
        rating: "1.5".parse().unwrap(),
        wins: 2,
        nickname: Some("D".into()),
        badges: None,
        levels: None,
        odds: None,
        tokens: None,
        status_time: Some("NEW#2024-06-01".into()),
        modes: None,
        rounds: None,
    };
    repo.create_score(&dee).await.unwrap();
    let stored = get_raw(
        client,
        table,
        item(&[("user_id", s("dee")), ("game_id", s("go"))]),
    )
    .await;
    let mut names: Vec<&str> = stored.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "Status#Time",
            "game_id",
            "nickname",
            "rating",
            "top_score",
            "user_id",
            "wins"
        ]
    );
    assert_eq!(stored["top_score"], n("10"));
    assert!(
        matches!(
            repo.create_score(&dee).await,
            Err(Error::ConditionFailed { .. })
        ),
        "create refuses an existing natural key"
    );
    // An update leaves the key attributes alone (DynamoDB refuses to set them).
    repo.update_score(
        &key("dee", "go"),
        ScoreUpdate::default().wins(3).top_score(99),
    )
    .await
    .unwrap();
    let updated = repo.score("dee", "go").await.unwrap().unwrap();
    assert_eq!((updated.wins, updated.top_score), (3, 99));
    let stored = get_raw(
        client,
        table,
        item(&[("user_id", s("dee")), ("game_id", s("go"))]),
    )
    .await;
    assert_eq!(
        stored.len(),
        7,
        "no attribute added by the update: {stored:?}"
    );
    repo.update_score(&key("dee", "go"), ScoreUpdate::default().status_time(None))
        .await
        .unwrap();
    let stored = get_raw(
        client,
        table,
        item(&[("user_id", s("dee")), ("game_id", s("go"))]),
    )
    .await;
    assert!(
        !stored.contains_key("Status#Time"),
        "removed under its stored name: {stored:?}"
    );
    assert!(repo
        .delete_score(&key("dee", "go"))
        .await
        .unwrap()
        .is_some());
    // A natural key is written as it is: its attribute's pattern applies.
    let mut bad = repo.get_score(&key("ann", "chess")).await.unwrap().unwrap();
    bad.user_id = "Ann!".into();
    match repo.create_score(&bad).await {
        Err(Error::Value(e)) => assert_eq!((e.context, e.name), ("Score", "user_id")),
        other => panic!("expected a value error, got {other:?}"),
    }
}

#[tokio::test]
async fn key_shapes_tell_entities_without_a_type_attribute() {
    use shapes::{Customer, CustomerWithOrdersItem, Order, OrderKey, Repository};
    let client = client().await;
    let table = server::unique_table("Shop");
    let repo = Repository::new(client.clone()).with_table_name(table.clone());
    repo.create_table().await.unwrap();
    put_raw(
        &client,
        &table,
        item(&[
            ("PK", s("CUSTOMER#c1")),
            ("SK", s("PROFILE")),
            ("customer_id", s("c1")),
            ("name", s("Cleo")),
        ]),
    )
    .await;
    for (id, total) in [("1", "10.5"), ("2", "99.99")] {
        put_raw(
            &client,
            &table,
            item(&[
                ("PK", s("CUSTOMER#c1")),
                ("SK", s(&format!("ORDER#{id}"))),
                ("customer_id", s("c1")),
                ("order_id", s(id)),
                ("total", n(total)),
            ]),
        )
        .await;
    }
    let all = repo.customer_with_orders("c1").all().await.unwrap();
    assert!(
        matches!(&all[..], [
        CustomerWithOrdersItem::Order(Order { order_id: a, .. }),
        CustomerWithOrdersItem::Order(Order { order_id: b, .. }),
        CustomerWithOrdersItem::Customer(Customer { name, .. }),
    ] if a == "1" && b == "2" && name == "Cleo"),
        "{all:?}"
    );

    // What the repository writes carries no entity-type attribute.
    let order = Order {
        customer_id: "c1".into(),
        order_id: "3".into(),
        total: "1".parse().unwrap(),
    };
    repo.create_order(&order).await.unwrap();
    let stored = get_raw(
        &client,
        &table,
        item(&[("PK", s("CUSTOMER#c1")), ("SK", s("ORDER#3"))]),
    )
    .await;
    let mut names: Vec<&str> = stored.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(names, ["PK", "SK", "customer_id", "order_id", "total"]);
    let got = repo
        .get_order(&OrderKey {
            customer_id: "c1".into(),
            order_id: "3".into(),
        })
        .await
        .unwrap();
    assert_eq!(got, Some(order));

    // An item whose key is no entity's (another program's `NOTE#…`) is an
    // error of its own; the other items still decode.
    put_raw(
        &client,
        &table,
        item(&[
            ("PK", s("CUSTOMER#c1")),
            ("SK", s("NOTE#1")),
            ("text", s("call back")),
        ]),
    )
    .await;
    let results: Vec<Result<CustomerWithOrdersItem, Error>> =
        repo.customer_with_orders("c1").items().collect().await;
    let (good, bad): (Vec<_>, Vec<_>) = results.into_iter().partition(Result::is_ok);
    assert_eq!(good.len(), 4);
    match &bad[..] {
        [Err(Error::Decode(e))] => {
            assert_eq!(e.problem, DecodeProblem::NotOfEntity(None), "{e}");
            assert_eq!(e.attribute, "PK");
        }
        other => panic!("expected one decode error, got {other:?}"),
    }
}

#[tokio::test]
async fn a_discriminator_attribute_maps_its_values_to_entities() {
    use discriminator::{CustomerWithOrdersItem, Order, Repository};
    let client = client().await;
    let table = server::unique_table("Shop");
    let repo = Repository::new(client.clone()).with_table_name(table.clone());
    repo.create_table().await.unwrap();
    put_raw(
        &client,
        &table,
        item(&[
            ("PK", s("CUSTOMER#c1")),
            ("SK", s("PROFILE")),
            ("kind", s("customer")),
            ("customer_id", s("c1")),
            ("name", s("Cleo")),
        ]),
    )
    .await;
    let order = Order {
        customer_id: "c1".into(),
        order_id: "7".into(),
        total: "2.5".parse().unwrap(),
    };
    repo.put_order(&order).await.unwrap();
    let stored = get_raw(
        &client,
        &table,
        item(&[("PK", s("CUSTOMER#c1")), ("SK", s("ORDER#7"))]),
    )
    .await;
    assert_eq!(
        stored["kind"],
        s("order"),
        "the spec's value, not the entity's name"
    );
    let all = repo.customer_with_orders("c1").all().await.unwrap();
    assert_eq!(all.len(), 2);
    assert!(matches!(&all[1], CustomerWithOrdersItem::Customer(c) if c.name == "Cleo"));
    // A value the spec does not map is named in the error.
    put_raw(
        &client,
        &table,
        item(&[
            ("PK", s("CUSTOMER#c1")),
            ("SK", s("ORDER#8")),
            ("kind", s("Order")),
            ("customer_id", s("c1")),
            ("order_id", s("8")),
            ("total", n("1")),
        ]),
    )
    .await;
    let results: Vec<Result<CustomerWithOrdersItem, Error>> =
        repo.customer_with_orders("c1").items().collect().await;
    let errors: Vec<String> = results
        .iter()
        .filter_map(|r| r.as_ref().err().map(ToString::to_string))
        .collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("kind") && errors[0].contains("\"Order\""),
        "{}",
        errors[0]
    );
}

#[tokio::test]
async fn binary_and_number_natural_keys() {
    use binary::{ReadingKey, Repository};
    let client = client().await;
    let table = server::unique_table("Readings");
    let repo = Repository::new(client.clone()).with_table_name(table.clone());
    repo.create_table().await.unwrap();
    let device = Blob::new((0u8..16).collect::<Vec<_>>());
    let other = Blob::new(vec![7u8; 16]);
    for (d, seq, celsius) in [
        (&device, "1", "20.5"),
        (&device, "2", "21"),
        (&device, "10", "-3.25"),
        (&other, "1", "9"),
    ] {
        put_raw(
            &client,
            &table,
            item(&[
                ("device", AttributeValue::B(d.clone())),
                ("seq", n(seq)),
                ("celsius", n(celsius)),
            ]),
        )
        .await;
    }
    let key = ReadingKey {
        device: device.clone(),
        seq: 10,
    };
    let got = repo
        .reading(&key.device, key.seq)
        .await
        .unwrap()
        .expect("the reading");
    assert_eq!((got.seq, got.celsius.as_str()), (10, "-3.25"));
    // Number sort keys order numerically: 2 before 10.
    let from_two: Vec<i64> = repo
        .readings(&device, 2)
        .all()
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.seq)
        .collect();
    assert_eq!(from_two, [2, 10]);
    // Written back as it was: the binary key as bytes, the number as a number.
    let before = get_raw(
        &client,
        &table,
        item(&[
            ("device", AttributeValue::B(device.clone())),
            ("seq", n("10")),
        ]),
    )
    .await;
    repo.put_reading(&got).await.unwrap();
    let after = get_raw(
        &client,
        &table,
        item(&[
            ("device", AttributeValue::B(device.clone())),
            ("seq", n("10")),
        ]),
    )
    .await;
    assert_eq!(after, before);
}
