//! A table ElectroDB writes (`fixtures/pass/electrodb_task_app.yaml`),
//! against ElectroDB's own requests: `tests/data/electrodb/requests.json`
//! holds the items ElectroDB 3.9.3's puts write and the keys of its gets
//! and queries, for values in mixed case and outside ASCII
//! (`scripts/electrodb/capture` writes it; `scripts/test` checks it is
//! what ElectroDB writes today). The repository writes the same items byte
//! for byte, reads the items ElectroDB wrote, and its queries find what
//! ElectroDB's find: keys in lower case, `__edb_e__` and `__edb_v__`,
//! camelCase names. Run on both servers.

use singletable_runtime::sdk::types::AttributeValue;
use singletable_tests::generated::electrodb_task_app::*;
use singletable_tests::server;

/// ElectroDB's requests, as captured.
fn requests() -> serde_json::Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/electrodb/requests.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn text<'v>(value: &'v serde_json::Value, name: &str) -> &'v str {
    value[name]
        .as_str()
        .unwrap_or_else(|| panic!("{name} in {value}"))
}

/// An item of ElectroDB's (every value a string) as DynamoDB holds it.
fn stored(item: &serde_json::Value) -> singletable_runtime::Item {
    item.as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), AttributeValue::S(v.as_str().unwrap().to_owned())))
        .collect()
}

fn employee(given: &serde_json::Value) -> Employee {
    Employee {
        employee: text(given, "employee").into(),
        first_name: text(given, "firstName").into(),
        office: text(given, "office").into(),
        title: text(given, "title").into(),
    }
}

fn task(given: &serde_json::Value) -> Task {
    Task {
        task: text(given, "task").into(),
        project: text(given, "project").into(),
        employee: text(given, "employee").into(),
        status: text(given, "status").parse().unwrap(),
        description: given["description"].as_str().map(Into::into),
    }
}

async fn repository() -> (Repository, singletable_runtime::sdk::Client, String) {
    let client = server::client(&server::server().await.endpoint);
    let table = server::unique_table("TaskApp");
    let repo = Repository::new(client.clone()).with_table_name(table.clone());
    repo.create_table().await.unwrap();
    (repo, client, table)
}

/// Writes every item ElectroDB's puts write, as ElectroDB writes them.
async fn write_electrodb_items(
    client: &singletable_runtime::sdk::Client,
    table: &str,
    requests: &serde_json::Value,
) {
    for kind in ["employees", "tasks"] {
        for case in requests[kind].as_array().unwrap() {
            let item = stored(&case["item"]);
            server::put_raw(
                client,
                table,
                item.iter().map(|(k, v)| (k.as_str(), v.clone())).collect(),
            )
            .await;
        }
    }
}

async fn raw_get(
    client: &singletable_runtime::sdk::Client,
    table: &str,
    key: &serde_json::Value,
) -> singletable_runtime::Item {
    client
        .get_item()
        .table_name(table)
        .set_key(Some(stored(key)))
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .item
        .unwrap_or_else(|| panic!("no item at ElectroDB's key {key}"))
}

#[tokio::test]
async fn the_repository_writes_the_items_electrodb_writes() {
    let (repo, client, table) = repository().await;
    let requests = requests();
    for case in requests["employees"].as_array().unwrap() {
        repo.create_employee(&employee(&case["given"]))
            .await
            .unwrap();
        let written = raw_get(&client, &table, &case["key"]).await;
        assert_eq!(written, stored(&case["item"]), "{}", case["given"]);
    }
    for case in requests["tasks"].as_array().unwrap() {
        repo.create_task(&task(&case["given"])).await.unwrap();
        let written = raw_get(&client, &table, &case["key"]).await;
        assert_eq!(written, stored(&case["item"]), "{}", case["given"]);
    }
}

#[tokio::test]
async fn the_repository_reads_the_items_electrodb_wrote() {
    let (repo, client, table) = repository().await;
    let requests = requests();
    let cases = |name: &str| requests[name].as_array().unwrap().clone();
    write_electrodb_items(&client, &table, &requests).await;
    for case in cases("employees") {
        let given = employee(&case["given"]);
        assert_eq!(repo.employee(&given.employee).await.unwrap(), Some(given));
    }
    for case in cases("tasks") {
        let given = task(&case["given"]);
        let read = repo
            .task(&given.task, &given.project, &given.employee)
            .await;
        assert_eq!(read.unwrap(), Some(given));
    }
    // A key in lower case is found by the value in any case.
    let jane = employee(&cases("employees")[0]["given"]);
    assert_eq!(repo.employee("jdoe-42").await.unwrap(), Some(jane.clone()));
    assert_eq!(repo.employee("JDOE-42").await.unwrap(), Some(jane.clone()));
}

#[tokio::test]
async fn queries_find_what_electrodbs_queries_find() {
    let (repo, client, table) = repository().await;
    let requests = requests();
    let cases = |name: &str| requests[name].as_array().unwrap().clone();
    write_electrodb_items(&client, &table, &requests).await;
    // ElectroDB's `coworkers` for office "GW ZOO": every key in the
    // partition it names, under the prefix it names, in key order.
    let expected = |name: &str, items: &[serde_json::Value]| -> Vec<String> {
        let (pk, prefix) = (text(&requests[name], ":pk"), text(&requests[name], ":sk1"));
        let mut matching: Vec<(String, String)> = items
            .iter()
            .filter(|c| text(&c["item"], "gsi1pk") == pk)
            .filter(|c| text(&c["item"], "gsi1sk").starts_with(prefix))
            .map(|c| {
                (
                    text(&c["item"], "gsi1sk").to_owned(),
                    c["given"].to_string(),
                )
            })
            .collect();
        matching.sort();
        matching.into_iter().map(|(_, given)| given).collect()
    };
    let coworkers: Vec<String> = repo
        .coworkers("GW ZOO")
        .all()
        .await
        .unwrap()
        .iter()
        .map(|e| {
            cases("employees")
                .iter()
                .find(|c| employee(&c["given"]) == *e)
                .map(|c| c["given"].to_string())
                .unwrap()
        })
        .collect();
    assert_eq!(coworkers, expected("coworkers", &cases("employees")));
    assert_eq!(coworkers.len(), 2, "both `Gw Zoo` and `gw zoo`");
    let assigned: Vec<String> = repo
        .assigned("jdoe-42", Status::Open)
        .all()
        .await
        .unwrap()
        .iter()
        .map(|t| {
            cases("tasks")
                .iter()
                .find(|c| task(&c["given"]) == *t)
                .map(|c| c["given"].to_string())
                .unwrap()
        })
        .collect();
    assert_eq!(assigned, expected("assigned", &cases("tasks")));
    assert_eq!(assigned.len(), 1);
}
