//! Maps with declared fields, end to end: a typed map is a generated struct
//! stored as a DynamoDB map under its fields' stored names, read back from
//! maps other programs wrote (extra fields ignored), and every problem —
//! on write or on read — names the field it is about.

use std::collections::BTreeSet;

use futures_util::StreamExt;
use singletable_runtime::sdk::types::AttributeValue;
use singletable_runtime::{DateTime, Decimal, Error, Item};
use singletable_tests::generated::typed_maps::{
    Billing, Customer, CustomerGeo, Kind, Lines, Order, OrderKey, OrderShippingGeo, OrderUpdate,
    Repository, Shipping, TenantId,
};
use singletable_tests::server;

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.to_owned())
}

fn m(pairs: &[(&str, AttributeValue)]) -> AttributeValue {
    AttributeValue::M(item(pairs))
}

fn item(pairs: &[(&str, AttributeValue)]) -> Item {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect()
}

fn dec(v: &str) -> Decimal {
    v.parse().unwrap()
}

fn shipping() -> Shipping {
    Shipping {
        name: "Ann".into(),
        street: "1 Main St".into(),
        zip: None,
        geo: Some(OrderShippingGeo {
            lat: dec("52.52"),
            lon: dec("-13.405"),
        }),
        kind: Kind::Locker,
        delivered_at: Some(DateTime::from_secs(1_714_564_800)),
        tags: Some(BTreeSet::from(["fragile".to_owned(), "gift".to_owned()])),
        door_code: Some("4711".into()),
    }
}

fn order(id: &str) -> Order {
    Order {
        order_id: id.into(),
        shipping: shipping(),
        lines: vec![
            Lines {
                sku: "A-1".into(),
                quantity: 2,
                price: dec("9.50"),
            },
            Lines {
                sku: "B-2".into(),
                quantity: 1,
                price: dec("120"),
            },
        ],
        billing: None,
        extra: None,
    }
}

async fn repo() -> (Repository, String) {
    let client = server::client(&server::server().await.endpoint);
    let table = server::unique_table("Shop");
    let repo = Repository::new(client).with_table_name(table.clone());
    repo.create_table().await.unwrap();
    (repo, table)
}

async fn stored(repo: &Repository, table: &str, sk: &str) -> Option<Item> {
    repo.client()
        .get_item()
        .table_name(table)
        .set_key(Some(item(&[("pk", s("TENANT#acme")), ("sk", s(sk))])))
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .item
}

#[tokio::test]
async fn typed_maps_are_stored_as_maps_and_read_back() {
    let (repo, table) = repo().await;
    let tenant = TenantId::new("acme").unwrap();
    let repo_t = repo.for_tenant(&tenant);
    let order = order("A1");
    repo_t.create_order(&order).await.unwrap();
    let key = OrderKey {
        order_id: "A1".into(),
    };
    assert_eq!(repo_t.get_order(&key).await.unwrap(), Some(order.clone()));

    // The stored item: maps under the fields' stored names, the spec's
    // datetime format, numbers as numbers, absent optional fields left out.
    let raw = stored(&repo, &table, "ORDER#A1").await.unwrap();
    let AttributeValue::M(ship) = &raw["shipping"] else {
        panic!("shipping is a map: {raw:?}");
    };
    let mut names: Vec<&str> = ship.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "delivered_at",
            "door#code",
            "geo",
            "kind",
            "name",
            "street",
            "tags"
        ]
    );
    assert_eq!(ship["delivered_at"], s("2024-05-01T12:00:00Z"));
    assert_eq!(ship["kind"], s("locker"));
    assert_eq!(
        ship["geo"],
        m(&[("lat", n("52.52")), ("lon", n("-13.405"))])
    );
    assert_eq!(
        raw["lines"],
        AttributeValue::L(vec![
            m(&[("sku", s("A-1")), ("quantity", n("2")), ("price", n("9.5"))]),
            m(&[("sku", s("B-2")), ("quantity", n("1")), ("price", n("120"))]),
        ])
    );
    assert!(!raw.contains_key("billing"));

    // An update replaces a typed map as a whole, and sets an optional one.
    let billing = Billing {
        name: "Ann Corp".into(),
        street: "2 Side St".into(),
        zip: Some("10115".into()),
        geo: None,
        kind: Kind::Office,
        delivered_at: None,
        tags: None,
        door_code: None,
    };
    let mut moved = shipping();
    moved.geo = None;
    moved.street = "3 New St".into();
    repo_t
        .update_order(
            &key,
            OrderUpdate::default()
                .shipping(moved.clone())
                .billing(Some(billing.clone())),
        )
        .await
        .unwrap();
    let read = repo_t.get_order(&key).await.unwrap().unwrap();
    assert_eq!(read.shipping, moved);
    assert_eq!(read.billing, Some(billing));
    let raw = stored(&repo, &table, "ORDER#A1").await.unwrap();
    let AttributeValue::M(ship) = &raw["shipping"] else {
        panic!("shipping is a map");
    };
    assert!(!ship.contains_key("geo"), "a removed field is not kept");

    // A map in its own entity, of integers.
    let customer = Customer {
        customer_id: "c1".into(),
        geo: CustomerGeo { x: -3, y: 7 },
    };
    repo_t.create_customer(&customer).await.unwrap();
    let got = repo_t
        .get_customer(&singletable_tests::generated::typed_maps::CustomerKey {
            customer_id: "c1".into(),
        })
        .await
        .unwrap();
    assert_eq!(got, Some(customer));
}

#[tokio::test]
async fn maps_other_programs_wrote_are_read_and_problems_name_the_field() {
    let (repo, table) = repo().await;
    let tenant = TenantId::new("acme").unwrap();
    let repo_t = repo.for_tenant(&tenant);
    let put = |sk: &str, shipping: AttributeValue, lines: AttributeValue| {
        repo.client()
            .put_item()
            .table_name(&table)
            .set_item(Some(item(&[
                ("pk", s("TENANT#acme")),
                ("sk", s(sk)),
                ("entity_type", s("Order")),
                ("order_id", s(sk.trim_start_matches("ORDER#"))),
                ("shipping", shipping),
                ("lines", lines),
            ])))
            .send()
    };
    let line = m(&[
        ("sku", s("C-3")),
        ("quantity", n("4")),
        ("price", n("0.99")),
    ]);
    // A field the spec does not declare is ignored; an RFC 3339 time of any
    // precision is read; NULL reads as an absent optional field.
    let good = m(&[
        ("name", s("Bo")),
        ("street", s("5 Elm")),
        ("kind", s("home")),
        ("zip", AttributeValue::Null(true)),
        ("delivered_at", s("2024-05-01T12:00:00.250Z")),
        ("note", s("leave at the door")),
    ]);
    put("ORDER#B1", good, AttributeValue::L(vec![line.clone()]))
        .await
        .unwrap();
    let bad_geo = m(&[
        ("name", s("Cy")),
        ("street", s("6 Oak")),
        ("kind", s("home")),
        ("geo", m(&[("lat", s("north")), ("lon", n("1"))])),
    ]);
    put("ORDER#B2", bad_geo, AttributeValue::L(vec![line.clone()]))
        .await
        .unwrap();
    let bad_line = m(&[
        ("name", s("Di")),
        ("street", s("7 Ash")),
        ("kind", s("home")),
    ]);
    let no_sku = m(&[("quantity", n("1")), ("price", n("1"))]);
    put("ORDER#B3", bad_line, AttributeValue::L(vec![line, no_sku]))
        .await
        .unwrap();

    let results: Vec<Result<Order, Error>> = repo_t.orders().items().collect().await;
    assert_eq!(results.len(), 3);
    let b1 = results[0].as_ref().expect("the good item decodes");
    assert_eq!(b1.shipping.zip, None);
    assert_eq!(
        b1.shipping.delivered_at,
        Some(DateTime::from_millis(1_714_564_800_250))
    );
    assert_eq!(b1.lines[0].price, dec("0.99"));
    match &results[1] {
        Err(Error::Decode(e)) => {
            assert_eq!(e.attribute, "shipping");
            assert_eq!(
                e.to_string(),
                "cannot decode Order: attribute `shipping` is invalid: field `geo` is invalid: field `lat` is of type S, expected N"
            );
        }
        other => panic!("expected a decode error, got {other:?}"),
    }
    match &results[2] {
        Err(Error::Decode(e)) => {
            assert_eq!(
                e.to_string(),
                "cannot decode Order: attribute `lines` is invalid: element 1 is invalid: field `sku` is missing"
            );
        }
        other => panic!("expected a decode error, got {other:?}"),
    }

    // Written back, the good item keeps its declared fields (and only them).
    let mut b1 = b1.clone();
    b1.shipping.street = "5 Elm St".into();
    repo_t.put_order(&b1).await.unwrap();
    let raw = stored(&repo, &table, "ORDER#B1").await.unwrap();
    let AttributeValue::M(ship) = &raw["shipping"] else {
        panic!("shipping is a map");
    };
    assert_eq!(ship["street"], s("5 Elm St"));
    assert_eq!(ship["delivered_at"], s("2024-05-01T12:00:00Z"));
}

#[tokio::test]
async fn what_a_field_does_not_allow_is_refused_before_any_request() {
    let (repo, table) = repo().await;
    let tenant = TenantId::new("acme").unwrap();
    let repo_t = repo.for_tenant(&tenant);
    let mut long = order("C1");
    long.shipping.street = "x".repeat(101);
    match repo_t.create_order(&long).await {
        Err(Error::Value(e)) => {
            assert_eq!((e.context, e.name), ("Order", "shipping"));
            assert_eq!(
                e.problem,
                "field `street`: 101 bytes, more than the 100 allowed"
            );
        }
        other => panic!("expected a value error, got {other:?}"),
    }
    let mut empty = order("C1");
    empty.shipping.tags = Some(BTreeSet::new());
    match repo_t.create_order(&empty).await {
        Err(Error::Value(e)) => {
            assert_eq!(e.name, "shipping");
            assert!(
                e.problem
                    .starts_with("field `tags`: DynamoDB stores no empty set"),
                "{e}"
            );
        }
        other => panic!("expected a value error, got {other:?}"),
    }
    let mut far = order("C1");
    far.shipping.delivered_at = Some(DateTime::from_secs(400_000_000_000));
    match repo_t
        .update_order(
            &OrderKey {
                order_id: "C1".into(),
            },
            OrderUpdate::default().shipping(far.shipping),
        )
        .await
    {
        Err(Error::Value(e)) => {
            assert_eq!(e.name, "shipping");
            assert!(e.problem.starts_with("field `delivered_at`:"), "{e}");
        }
        other => panic!("expected a value error, got {other:?}"),
    }
    assert_eq!(
        stored(&repo, &table, "ORDER#C1").await,
        None,
        "nothing was written"
    );
}

/// An update sets or removes fields of a typed map one by one, leaving its
/// other fields as they are (a field's rules checked, its stored name
/// used); a map that is not there fails the update, and a map set as a
/// whole and by field in one update is refused before any request.
#[tokio::test]
async fn updates_set_and_remove_single_fields_of_a_map() {
    let (repo, table) = repo().await;
    let tenant = TenantId::new("acme").unwrap();
    let repo_t = repo.for_tenant(&tenant);
    let key = OrderKey {
        order_id: "F1".into(),
    };
    repo_t.create_order(&order("F1")).await.unwrap();
    let read = repo_t
        .update_order(
            &key,
            OrderUpdate::default()
                .set_shipping_street("9 Field St")
                .set_shipping_zip(Some("10999".into()))
                .set_shipping_door_code(None)
                .set_shipping_kind(Kind::Office)
                .set_shipping_geo(Some(OrderShippingGeo {
                    lat: dec("1.5"),
                    lon: dec("2"),
                })),
        )
        .await
        .unwrap();
    let mut expected = shipping();
    expected.street = "9 Field St".into();
    expected.zip = Some("10999".into());
    expected.door_code = None;
    expected.kind = Kind::Office;
    expected.geo = Some(OrderShippingGeo {
        lat: dec("1.5"),
        lon: dec("2"),
    });
    assert_eq!(read.shipping, expected);
    let raw = stored(&repo, &table, "ORDER#F1").await.unwrap();
    let AttributeValue::M(ship) = &raw["shipping"] else {
        panic!("shipping is a map");
    };
    assert!(
        !ship.contains_key("door#code"),
        "removed under its stored name"
    );
    assert_eq!(ship["kind"], s("office"));
    let AttributeValue::Ss(tags) = &ship["tags"] else {
        panic!("tags are a string set");
    };
    let tags: BTreeSet<&str> = tags.iter().map(String::as_str).collect();
    assert_eq!(tags, BTreeSet::from(["fragile", "gift"]), "left as it was");

    // The field's rules: `street` is at most 100 characters.
    let refused = repo_t
        .update_order(
            &key,
            OrderUpdate::default().set_shipping_street("x".repeat(101)),
        )
        .await
        .unwrap_err();
    let Error::Value(e) = &refused else {
        panic!("{refused:?}")
    };
    assert!(e.to_string().contains("street"), "{e}");
    // Both the map and a field of it: refused before any request.
    let both = repo_t
        .update_order(
            &key,
            OrderUpdate::default()
                .shipping(shipping())
                .set_shipping_street("y"),
        )
        .await
        .unwrap_err();
    assert!(matches!(both, Error::Value(_)), "{both:?}");
    // `billing` is optional and absent: its fields cannot be set alone.
    let absent = repo_t
        .update_order(&key, OrderUpdate::default().set_billing_name("Ann"))
        .await
        .unwrap_err();
    assert!(
        matches!(absent, Error::ConditionFailed { .. }),
        "{absent:?}"
    );
    assert_eq!(
        repo_t.get_order(&key).await.unwrap().unwrap().shipping,
        expected
    );
}
