//! What the spec declares is enforced: every bound, scale, length and
//! pattern is checked before any request (a typed error naming the entity
//! and the attribute, nothing written), and an item another program wrote
//! that breaks one is an error of that item alone when it is read.

use futures_util::StreamExt;
use singletable_runtime::sdk::types::AttributeValue;
use singletable_runtime::{Blob, Decimal, Error, Item};
use singletable_tests::generated::declared_bounds::{
    Dims, Product, ProductKey, ProductUpdate, Repository,
};
use singletable_tests::server;

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.to_owned())
}

fn dec(v: &str) -> Decimal {
    v.parse().unwrap()
}

/// A product at every bound it may reach.
fn product(id: &str) -> Product {
    Product {
        store: "main".into(),
        id: id.into(),
        sku: "AB-0001".into(),
        on_hand: 0,
        price: dec("99999.99"),
        sizes: vec!["S".into(), "XXL".into()],
        thumbnail: Some(Blob::new(vec![0; 8])),
        note: Some("ok".into()),
        dims: Some(Dims {
            width: 500,
            unit: "cm".into(),
        }),
    }
}

async fn repo() -> (Repository, String) {
    let client = server::client(&server::server().await.endpoint);
    let table = server::unique_table("Inventory");
    let repo = Repository::new(client).with_table_name(table.clone());
    repo.create_table().await.unwrap();
    (repo, table)
}

async fn count(repo: &Repository, table: &str) -> i32 {
    repo.client()
        .scan()
        .table_name(table)
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .count
}

#[tokio::test]
async fn every_declared_bound_is_checked_before_any_request() {
    let (repo, table) = repo().await;
    repo.create_product(&product("edge")).await.unwrap();
    type Breaks = (&'static str, fn(&mut Product), &'static str);
    let cases: [Breaks; 12] = [
        ("on_hand", |p| p.on_hand = -5, "-5 is outside 0..=1000000"),
        (
            "price",
            |p| p.price = dec("-12.345"),
            "-12.345 is less than the least value 0",
        ),
        (
            "price",
            |p| p.price = dec("12.345"),
            "12.345 has 3 digits after the point, more than the 2 allowed",
        ),
        (
            "price",
            |p| p.price = dec("100000"),
            "100000 is more than the greatest value 99999.99",
        ),
        (
            "sizes",
            |p| p.sizes.clear(),
            "0 elements, fewer than the 1 required",
        ),
        (
            "sizes",
            |p| p.sizes = vec!["S".into(); 6],
            "6 elements, more than the 5 allowed",
        ),
        (
            "sizes",
            |p| p.sizes = vec!["XXXL".into()],
            "element 0: 4 bytes, more than the 3 allowed",
        ),
        (
            "sku",
            |p| p.sku = "AB-12345".into(),
            "\"AB-12345\" does not match `^[A-Z]{2}-[0-9]{4}$`",
        ),
        (
            "thumbnail",
            |p| p.thumbnail = Some(Blob::new(vec![0; 9])),
            "9 bytes, more than the 8 allowed",
        ),
        (
            "note",
            |p| p.note = Some("x".into()),
            "1 bytes, fewer than the 2 required",
        ),
        (
            "dims",
            |p| p.dims.as_mut().unwrap().width = 0,
            "field `width`: 0 is outside 1..=500",
        ),
        (
            "dims",
            |p| p.dims.as_mut().unwrap().unit = "mm".into(),
            "field `unit`: \"mm\" does not match `^(cm|in)$`",
        ),
    ];
    for (i, (attribute, breaks, problem)) in cases.into_iter().enumerate() {
        let mut p = product(&format!("p{i}"));
        breaks(&mut p);
        match repo.create_product(&p).await {
            Err(Error::Value(e)) => {
                assert_eq!(
                    (e.context, e.name, e.problem.as_str()),
                    ("Product", attribute, problem)
                );
            }
            other => panic!("{attribute}: expected a value error, got {other:?}"),
        }
        // The same value through an update of the stored item.
        let update = match attribute {
            "on_hand" => ProductUpdate::default().on_hand(p.on_hand),
            "price" => ProductUpdate::default().price(p.price.clone()),
            "sizes" => ProductUpdate::default().sizes(p.sizes.clone()),
            "sku" => ProductUpdate::default().sku(p.sku.clone()),
            "thumbnail" => ProductUpdate::default().thumbnail(p.thumbnail.clone()),
            "note" => ProductUpdate::default().note(p.note.clone()),
            _ => ProductUpdate::default().dims(p.dims.clone()),
        };
        let key = ProductKey {
            store: "main".into(),
            id: "edge".into(),
        };
        match repo.update_product(&key, update).await {
            Err(Error::Value(e)) => assert_eq!((e.name, e.problem.as_str()), (attribute, problem)),
            other => panic!("{attribute}: expected a value error, got {other:?}"),
        }
    }
    assert_eq!(
        count(&repo, &table).await,
        1,
        "only the valid product was written"
    );
    let key = ProductKey {
        store: "main".into(),
        id: "edge".into(),
    };
    assert_eq!(repo.get_product(&key).await.unwrap(), Some(product("edge")));
}

#[tokio::test]
async fn items_that_break_a_bound_are_errors_of_their_own_on_read() {
    let (repo, table) = repo().await;
    repo.create_product(&product("good")).await.unwrap();
    let stored: Item = repo
        .client()
        .get_item()
        .table_name(&table)
        .key("pk", s("STORE#main"))
        .key("sk", s("PRODUCT#good"))
        .send()
        .await
        .unwrap()
        .item
        .unwrap();
    // The same item as another program might write it, one bound broken.
    let broken: [(&str, AttributeValue, &str); 4] = [
        ("on_hand", n("-5"), "attribute `on_hand` is invalid: -5 is outside 0..=1000000"),
        ("price", n("1.005"), "attribute `price` is invalid: 1.005 has 3 digits after the point, more than the 2 allowed"),
        ("sizes", AttributeValue::L(vec![]), "attribute `sizes` is invalid: 0 elements, fewer than the 1 required"),
        ("sku", s("ab-0001"), "attribute `sku` is invalid: \"ab-0001\" does not match `^[A-Z]{2}-[0-9]{4}$`"),
    ];
    for (i, (attribute, value, _)) in broken.iter().enumerate() {
        let mut item = stored.clone();
        item.insert("sk".into(), s(&format!("PRODUCT#bad{i}")));
        item.insert("id".into(), s(&format!("bad{i}")));
        item.insert((*attribute).to_owned(), value.clone());
        repo.client()
            .put_item()
            .table_name(&table)
            .set_item(Some(item))
            .send()
            .await
            .unwrap();
    }
    let results: Vec<Result<Product, Error>> = repo.products("main").items().collect().await;
    assert_eq!(results.len(), 5, "{results:?}");
    let mut errors: Vec<String> = Vec::new();
    let mut decoded: Vec<&Product> = Vec::new();
    for result in &results {
        match result {
            Ok(p) => decoded.push(p),
            Err(Error::Decode(e)) => errors.push(e.to_string()),
            Err(other) => panic!("expected a decode error, got {other:?}"),
        }
    }
    let mut expected: Vec<String> = broken
        .iter()
        .map(|(_, _, message)| format!("cannot decode Product: {message}"))
        .collect();
    errors.sort();
    expected.sort();
    assert_eq!(errors, expected);
    assert_eq!(decoded, [&product("good")]);
}

/// A batch get gives one result per item: an item that does not decode is
/// an error of its own, and the other 49 still decode.
#[tokio::test]
async fn a_batch_get_reads_each_item_on_its_own() {
    let (repo, table) = repo().await;
    let mut keys = Vec::new();
    for i in 0..50 {
        let p = product(&format!("b{i:02}"));
        keys.push(p.key());
        repo.create_product(&p).await.unwrap();
    }
    repo.client()
        .update_item()
        .table_name(&table)
        .key("pk", s("STORE#main"))
        .key("sk", s("PRODUCT#b17"))
        .update_expression("SET on_hand = :bad")
        .expression_attribute_values(":bad", n("-1"))
        .send()
        .await
        .unwrap();
    let mut get = repo.some_products();
    for key in &keys {
        get.get_product(key);
    }
    let results = get.send().await.expect("every key read");
    assert_eq!(results.len(), 50);
    let errors: Vec<String> = results
        .iter()
        .filter_map(|r| r.as_ref().err().map(ToString::to_string))
        .collect();
    assert_eq!(
        errors,
        ["cannot decode Product: attribute `on_hand` is invalid: -1 is outside 0..=1000000"]
    );
    assert_eq!(results.iter().filter(|r| r.is_ok()).count(), 49);
    // `all()` fails on the item that does not decode.
    let mut get = repo.some_products();
    for key in &keys {
        get.get_product(key);
    }
    assert!(matches!(get.all().await, Err(Error::Decode(_))));
}

/// Changes relative to the stored value keep the declared bounds through
/// the write's condition: a counter stays in its range, a list within its
/// lengths; a counter also set in the same update is refused before any
/// request.
#[tokio::test]
async fn counters_and_element_changes_keep_their_bounds() {
    let (repo, _table) = repo().await;
    let p = product("c");
    repo.create_product(&p).await.unwrap();
    let key = p.key();
    let at_zero = repo.get_product(&key).await.unwrap().unwrap();
    assert_eq!(at_zero.on_hand, 0);
    assert!(matches!(
        repo.update_product(&key, ProductUpdate::default().add_on_hand(-5))
            .await,
        Err(Error::ConditionFailed { .. })
    ));
    let up = repo
        .update_product(&key, ProductUpdate::default().add_on_hand(7))
        .await
        .unwrap();
    assert_eq!(up.on_hand, 7);
    assert!(matches!(
        repo.update_product(&key, ProductUpdate::default().add_on_hand(1_000_000))
            .await,
        Err(Error::ConditionFailed { .. })
    ));
    match repo
        .update_product(&key, ProductUpdate::default().on_hand(3).add_on_hand(1))
        .await
    {
        Err(Error::Value(e)) => assert_eq!(e.name, "on_hand"),
        other => panic!("expected a value error, got {other:?}"),
    }
    // `sizes` holds 2 of at most 5 elements, at least 1.
    let grown = repo
        .update_product(
            &key,
            ProductUpdate::default().append_to_sizes([
                "M".to_owned(),
                "L".to_owned(),
                "XL".to_owned(),
            ]),
        )
        .await
        .unwrap();
    assert_eq!(grown.sizes.len(), 5);
    assert!(matches!(
        repo.update_product(
            &key,
            ProductUpdate::default().append_to_sizes(["S".to_owned()])
        )
        .await,
        Err(Error::ConditionFailed { .. })
    ));
    let mut shrink = ProductUpdate::default();
    for (i, size) in grown.sizes.iter().take(4).enumerate() {
        shrink = shrink.remove_from_sizes_at(i, size.clone());
    }
    let shrunk = repo.update_product(&key, shrink).await.unwrap();
    assert_eq!(shrunk.sizes, ["XL"]);
    assert!(matches!(
        repo.update_product(
            &key,
            ProductUpdate::default().remove_from_sizes_at(0, "XL".to_owned())
        )
        .await,
        Err(Error::ConditionFailed { .. })
    ));
    assert_eq!(repo.get_product(&key).await.unwrap(), Some(shrunk));
}
