//! Real NoSQL Workbench exports, imported, run as they are: every spec the
//! importer writes for them (see `build.rs`) checks clean and compiles, and
//! on a real server every sample item of the model — put with a plain
//! PutItem, as the application that owns the table would — is read back by
//! the generated repository (GetItem by the key it decodes) and written
//! back by it unchanged (sets compared as sets).

use std::fmt::Debug;

use singletable::emit::workbench;
use singletable_runtime::__private::ops::{self, TableInfo};
use singletable_runtime::Entity;
use singletable_tests::dynamo_json::{self, normalized};
use singletable_tests::server;

/// The spec's Workbench model (its sample items are the imported model's,
/// as `schema-compiler/tests/outputs.rs` and `import_models.rs` prove).
fn model(module: &str) -> serde_json::Value {
    let path = format!("{}/{module}.yaml", env!("OUT_DIR"));
    let compilation = singletable::Compiler::new().file(path).compile();
    assert!(
        !compilation.has_errors(),
        "{module}: {}",
        compilation.report()
    );
    let model = workbench::model(&compilation.specs[0].spec, &workbench::Options::default());
    serde_json::to_value(model).unwrap()
}

/// Puts, reads and writes back every sample item of `E`'s facet; the number
/// of items.
async fn check<E>(
    client: &singletable_runtime::sdk::Client,
    table: &TableInfo<'_>,
    model: &serde_json::Value,
) -> usize
where
    E: Entity<Scope = ()> + PartialEq + Debug,
{
    let items = facet_items(model, E::ENTITY_TYPE);
    for json in &items {
        let item = dynamo_json::item(json).unwrap();
        client
            .put_item()
            .table_name(table.name)
            .set_item(Some(item.clone()))
            .send()
            .await
            .unwrap_or_else(|e| panic!("{}: a plain put of {json}: {e:?}", E::ENTITY_TYPE));
        let entity =
            E::from_item(&item).unwrap_or_else(|e| panic!("{}: {e} in {json}", E::ENTITY_TYPE));
        let key = entity.primary_key(&()).unwrap();
        let read = ops::get::<E>(client, table, key.clone(), true)
            .await
            .unwrap_or_else(|e| panic!("{}: get {json}: {e}", E::ENTITY_TYPE));
        assert_eq!(
            read.as_ref(),
            Some(&entity),
            "{}: read back {json}",
            E::ENTITY_TYPE
        );
        let written = entity.to_item(&()).unwrap();
        assert_eq!(
            normalized(written.clone()),
            normalized(item.clone()),
            "{}: the repository writes {json} as it is",
            E::ENTITY_TYPE
        );
        ops::put(
            client,
            table,
            written,
            false,
            E::VERSION_ATTRIBUTE,
            E::ENTITY_TYPE,
        )
        .await
        .unwrap_or_else(|e| panic!("{}: put {json}: {e}", E::ENTITY_TYPE));
        let stored = client
            .get_item()
            .table_name(table.name)
            .set_key(Some(key))
            .consistent_read(true)
            .send()
            .await
            .unwrap()
            .item
            .unwrap();
        assert_eq!(
            normalized(stored),
            normalized(item),
            "{}: written back unchanged: {json}",
            E::ENTITY_TYPE
        );
    }
    items.len()
}

/// The sample items of facet `facet`; a missing facet fails the test.
fn facet_items(model: &serde_json::Value, facet: &str) -> Vec<serde_json::Value> {
    let found = model["DataModel"][0]["TableFacets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["FacetName"] == facet)
        .unwrap_or_else(|| panic!("no facet {facet}"));
    found["TableData"].as_array().cloned().unwrap_or_default()
}

macro_rules! imported {
    ($module:ident, $partition_key:expr, [$($entity:ident),*], [$(($returned:ident, $query:expr, $view:expr)),*]) => {
        #[tokio::test]
        async fn $module() {
            use singletable_tests::imported::$module as spec;
            let client = server::client(&server::server().await.endpoint);
            let name = server::unique_table("Imported");
            let repo = spec::Repository::new(client.clone()).with_table_name(name.clone());
            repo.create_table().await.unwrap();
            let table = TableInfo { name: &name, partition_key: $partition_key, ttl_attribute: None };
            let model = model(stringify!($module));
            let facets = model["DataModel"][0]["TableFacets"].as_array().unwrap();
            let expected: usize = facets.iter().map(|f| f["TableData"].as_array().unwrap().len()).sum();
            let mut checked = 0;
            $(checked += check::<spec::$entity>(&client, &table, &model).await;)*
            assert_eq!(checked, expected, "every sample item");
            // Every inferred query finds each sample item of its entity by
            // the item's own values (the part of it an index carries, when
            // the index does not carry every attribute).
            $(
                for json in facet_items(&model, <spec::$returned as Entity>::ENTITY_TYPE) {
                    let item = dynamo_json::item(&json).unwrap();
                    let e = <spec::$returned as Entity>::from_item(&item).unwrap();
                    let found = ($query)(&repo, &e).all().await.unwrap_or_else(|err| {
                        panic!("{}: {err}", stringify!($query))
                    });
                    let part = ($view)(&e);
                    assert!(found.contains(&part), "{} does not find {json}", stringify!($query));
                }
            )*
        }
    };
}

include!(concat!(env!("OUT_DIR"), "/imported_checks.rs"));

/// The five real exports and the four export shapes give at least 15 specs:
/// a missing reference folder fails here instead of testing nothing.
#[test]
fn every_model_is_imported() {
    let checks = include_str!(concat!(env!("OUT_DIR"), "/imported_checks.rs"));
    let specs = checks
        .lines()
        .filter(|l| l.starts_with("imported!("))
        .count();
    assert!(specs >= 15, "only {specs} imported specs:\n{checks}");
    for model in [
        "01_discussion",
        "02_anonlineshop",
        "05_recurringpayments",
        "08_devio",
        "10_phone",
        "leaderboard",
    ] {
        assert!(
            checks.contains(&format!("imported_{model}")),
            "{model} was not imported"
        );
    }
}
