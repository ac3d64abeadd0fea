//! The table definition `singletable generate table` writes is the one the
//! repositories create: the CreateTable JSON reads back into exactly the
//! request `TABLE.create_table_input` builds, and every spec's table is
//! created from its JSON (and its UpdateTimeToLive JSON) on the server.

use singletable::emit::table;
use singletable_tests::generated::*;
use singletable_tests::{server, tables};

fn spec(stem: &str) -> singletable::ir::Spec {
    let path = format!("{}/../schemas/{stem}.yaml", env!("CARGO_MANIFEST_DIR"));
    let compilation = singletable::Compiler::new().file(path).compile();
    assert!(
        !compilation.has_errors(),
        "{stem}: {:?}",
        compilation.report()
    );
    compilation.specs[0].spec.clone()
}

fn create_json(stem: &str) -> serde_json::Value {
    serde_json::to_value(table::create_table(&spec(stem))).unwrap()
}

macro_rules! every_spec {
    ($check:ident) => {
        $check!(contest_votes);
        $check!(inverted_role_index);
        $check!(iot_device_reports);
        $check!(monthly_activity);
        $check!(photo_site);
        $check!(pooled_product_catalog);
        $check!(project_task_comment);
        $check!(saas_tenant_users_orders);
        $check!(shopping_cart);
        $check!(short_lived_messages);
        $check!(support_ticket);
        $check!(vertical_partitioning);
        $check!(work_queue);
    };
}

#[test]
fn the_create_table_json_is_the_request_create_table_sends() {
    let mut checked = 0;
    macro_rules! check {
        ($module:ident) => {{
            let stem = stringify!($module);
            let from_json = tables::create_table_input(&create_json(stem), "T").unwrap();
            let sent = $module::TABLE.create_table_input("T").unwrap();
            assert_eq!(from_json, sent, "{stem}");
            checked += 1;
        }};
    }
    every_spec!(check);
    let specs = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../schemas"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "yaml")
        })
        .count();
    assert_eq!(checked, specs, "every spec in schemas/ is listed");
}

#[test]
fn a_changed_definition_is_noticed() {
    let mut json = create_json("support_ticket");
    json["GlobalSecondaryIndexes"][0]["Projection"]["ProjectionType"] = "ALL".into();
    json["GlobalSecondaryIndexes"][0]["Projection"]
        .as_object_mut()
        .unwrap()
        .remove("NonKeyAttributes");
    let from_json = tables::create_table_input(&json, "T").unwrap();
    assert_ne!(
        from_json,
        support_ticket::TABLE.create_table_input("T").unwrap()
    );
}

#[tokio::test]
async fn every_table_is_created_from_its_create_table_json() {
    let client = server::client(&server::server().await.endpoint);
    macro_rules! check {
        ($module:ident) => {{
            let stem = stringify!($module);
            let spec = spec(stem);
            let create = create_json(stem);
            let ttl = table::update_time_to_live(&spec).map(|t| serde_json::to_value(t).unwrap());
            let name = server::unique_table(stem);
            tables::create_from_json(&client, &create, ttl.as_ref(), &name)
                .await
                .unwrap_or_else(|e| panic!("{stem}: {e}"));
            let described = client
                .describe_table()
                .table_name(&name)
                .send()
                .await
                .unwrap();
            let t = described.table.unwrap();
            let key: Vec<(String, String)> = t
                .key_schema()
                .iter()
                .map(|k| {
                    (
                        k.attribute_name().to_owned(),
                        k.key_type().as_str().to_owned(),
                    )
                })
                .collect();
            let expected: Vec<(String, String)> = create["KeySchema"]
                .as_array()
                .unwrap()
                .iter()
                .map(|k| {
                    (
                        k["AttributeName"].as_str().unwrap().to_owned(),
                        k["KeyType"].as_str().unwrap().to_owned(),
                    )
                })
                .collect();
            assert_eq!(key, expected, "{stem}");
            let mut indexes: Vec<String> = t
                .global_secondary_indexes()
                .iter()
                .filter_map(|i| i.index_name().map(str::to_owned))
                .chain(
                    t.local_secondary_indexes()
                        .iter()
                        .filter_map(|i| i.index_name().map(str::to_owned)),
                )
                .collect();
            indexes.sort();
            let mut declared: Vec<String> = spec.indexes.keys().cloned().collect();
            declared.sort();
            assert_eq!(indexes, declared, "{stem}");
            if let Some(ttl) = &spec.table.ttl {
                let described = client
                    .describe_time_to_live()
                    .table_name(&name)
                    .send()
                    .await
                    .unwrap();
                let attribute = described
                    .time_to_live_description()
                    .and_then(|d| d.attribute_name())
                    .map(str::to_owned);
                assert_eq!(attribute.as_deref(), Some(ttl.as_str()), "{stem}");
            }
        }};
    }
    every_spec!(check);
}
