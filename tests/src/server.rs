//! The DynamoDB-compatible server the tests run against: Amazon's DynamoDB
//! Local when `DYNAMODB_ENDPOINT` names one (the test script starts it), or
//! an embedded dynoxide server on 127.0.0.1 otherwise — the runtime's
//! `testing` helper, which users' tests call too.

use singletable_runtime::sdk;
pub use singletable_runtime::testing::Server;

/// The server of this test process: `DYNAMODB_ENDPOINT` if set, else an
/// embedded dynoxide. Panics (failing the test, never skipping it) when
/// neither is available.
pub async fn server() -> Server {
    singletable_runtime::testing::server()
        .unwrap_or_else(|e| panic!("cannot start the embedded dynoxide server: {e}"))
}

/// An SDK client for `endpoint` with static local credentials.
pub fn client(endpoint: &str) -> sdk::Client {
    singletable_runtime::testing::client(endpoint)
}

/// A table name no other test of this process uses.
pub fn unique_table(prefix: &str) -> String {
    singletable_runtime::testing::unique_table_name(prefix)
}

/// An SDK client for `endpoint` whose own retries back off briefly (the
/// SDK's standard first backoff is a second): for callers that retry what
/// fails transiently themselves, such as migration jobs through the fault
/// proxy.
pub fn client_with_short_backoff(endpoint: &str) -> sdk::Client {
    let config = client(endpoint)
        .config()
        .to_builder()
        .retry_config(
            sdk::config::retry::RetryConfig::standard()
                .with_initial_backoff(std::time::Duration::from_millis(20)),
        )
        .build();
    sdk::Client::from_conf(config)
}

/// Every item of `table`, read consistently, page by page.
pub async fn scan_all(
    client: &singletable_runtime::sdk::Client,
    table: &str,
) -> Result<Vec<singletable_runtime::Item>, singletable_runtime::Error> {
    let mut items = Vec::new();
    let mut start = None;
    loop {
        let page = client
            .scan()
            .table_name(table)
            .consistent_read(true)
            .set_exclusive_start_key(start)
            .send()
            .await
            .map_err(singletable_runtime::Error::from)?;
        items.extend(page.items().iter().cloned());
        start = page.last_evaluated_key;
        if start.is_none() {
            return Ok(items);
        }
    }
}

/// Puts `item` as another writer would, attribute by attribute, with no
/// check: foreign, broken or earlier designs' items.
pub async fn put_raw(
    client: &sdk::Client,
    table: &str,
    item: Vec<(&str, sdk::types::AttributeValue)>,
) {
    client
        .put_item()
        .table_name(table)
        .set_item(Some(
            item.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
        ))
        .send()
        .await
        .expect("PutItem");
}

/// A string attribute value.
pub fn s(text: &str) -> sdk::types::AttributeValue {
    sdk::types::AttributeValue::S(text.to_owned())
}

/// Writes `item` as the repository stores it, with a plain PutItem: what
/// code other than the generated repository does (the stream handler's
/// counters, an earlier design's items, an operator's repair).
pub async fn put_stored<E: singletable_runtime::Entity>(
    client: &sdk::Client,
    table: &str,
    item: &E,
    scope: &E::Scope,
) {
    let item = item.to_item(scope).expect("the item encodes");
    client
        .put_item()
        .table_name(table)
        .set_item(Some(item))
        .send()
        .await
        .expect("PutItem");
}
