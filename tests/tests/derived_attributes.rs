//! Derived attributes (`derived:`), from `fixtures/pass/derived_attributes.yaml`:
//! the repository stores a constant and values built from the item's
//! attributes on every write, recomputes them in an update that changes
//! their inputs, removes one whose optional input is removed, and refuses an
//! update that changes one input of several without the others. Run on
//! both servers.

use singletable_runtime::sdk::types::AttributeValue;
use singletable_runtime::Error;
use singletable_tests::generated::derived_attributes::*;
use singletable_tests::server;

/// The stored item of person `id`, as DynamoDB holds it.
async fn stored(
    client: &singletable_runtime::sdk::Client,
    table: &str,
    id: &str,
) -> singletable_runtime::Item {
    let items = server::scan_all(client, table).await.unwrap();
    items
        .into_iter()
        .find(|i| i.get("id") == Some(&server::s(id)))
        .unwrap()
}

fn text<'i>(item: &'i singletable_runtime::Item, name: &str) -> Option<&'i str> {
    match item.get(name) {
        Some(AttributeValue::S(s)) => Some(s),
        _ => None,
    }
}

#[tokio::test]
async fn derived_attributes_follow_their_inputs() {
    let client = server::client(&server::server().await.endpoint);
    let table = server::unique_table("People");
    let repo = Repository::new(client.clone()).with_table_name(table.clone());
    repo.create_table().await.unwrap();
    let jane = Person {
        id: "1".into(),
        first_name: "Jane".into(),
        last_name: "Doe".into(),
        nickname: None,
    };
    repo.create_person(&jane).await.unwrap();
    let item = stored(&client, &table, "1").await;
    assert_eq!(text(&item, "schema"), Some("2"));
    assert_eq!(text(&item, "display_name"), Some("Doe, Jane"));
    assert_eq!(text(&item, "handle"), None, "no nickname, no handle");
    // Reads give the entity's fields back; the derived values are the table's.
    assert_eq!(repo.person("1").await.unwrap(), Some(jane));

    let key = PersonKey { id: "1".into() };
    repo.update_person(&key, PersonUpdate::default().nickname(Some("jd".into())))
        .await
        .unwrap();
    assert_eq!(
        text(&stored(&client, &table, "1").await, "handle"),
        Some("@jd")
    );

    // One input of two: refused, nothing written.
    let refused = repo
        .update_person(&key, PersonUpdate::default().first_name("Janet"))
        .await;
    assert!(
        matches!(&refused, Err(Error::IncompleteUpdate { missing, .. }) if missing.contains(&"last_name")),
        "{refused:?}"
    );
    assert_eq!(
        text(&stored(&client, &table, "1").await, "display_name"),
        Some("Doe, Jane")
    );
    repo.update_person(
        &key,
        PersonUpdate::default().first_name("Janet").last_name("Roe"),
    )
    .await
    .unwrap();
    let item = stored(&client, &table, "1").await;
    assert_eq!(text(&item, "display_name"), Some("Roe, Janet"));
    assert_eq!(text(&item, "schema"), Some("2"));

    // Removing the optional input removes what is built from it.
    repo.update_person(&key, PersonUpdate::default().nickname(None))
        .await
        .unwrap();
    assert_eq!(text(&stored(&client, &table, "1").await, "handle"), None);
    assert_eq!(repo.people_by_name().all().await.unwrap().len(), 1);
}
