//! The handler on events shaped as Lambda delivers them: the ticket counts
//! equal a recount of the tickets, also when Lambda delivers a batch again
//! whole or from its middle, and a counter item other code broke is
//! reported while every other counter of the batch is applied and the
//! batch goes on.

use std::collections::BTreeMap;

use lambda_runtime::{Context, LambdaEvent};
use lambda_stream::support_ticket::{Repository, Status, TenantId, Ticket};
use lambda_stream::{handle, Outcome};
use singletable_runtime::serde_support::Adapt;
use singletable_runtime::{DateTime, Entity, Item};

fn ticket(id: &str, status: Status) -> Ticket {
    Ticket {
        id: id.into(),
        title: format!("ticket {id}"),
        status,
        resolver: Some("ada".into()),
        created_at: DateTime::from_secs(1_714_564_800),
    }
}

fn image(item: &Item) -> serde_json::Value {
    item.ser(serde_json::value::Serializer).unwrap()
}

/// A stream record as Lambda delivers it.
fn record(n: usize, name: &str, old: Option<&Item>, new: Option<&Item>) -> serde_json::Value {
    let created = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let key = new.or(old).unwrap();
    let mut change = serde_json::json!({
        "ApproximateCreationDateTime": created,
        "Keys": { "pk": image(key)["pk"], "sk": image(key)["sk"] },
        "SequenceNumber": format!("{:021}", 100 + n),
        "SizeBytes": 100,
        "StreamViewType": "NEW_AND_OLD_IMAGES",
    });
    if let Some(old) = old {
        change["OldImage"] = image(old);
    }
    if let Some(new) = new {
        change["NewImage"] = image(new);
    }
    serde_json::json!({
        "eventID": format!("event-{n}"),
        "eventName": name,
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "awsRegion": "us-east-1",
        "dynamodb": change,
        "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/SupportTicket/stream/2024-05-01T00:00:00.000",
    })
}

fn event(records: &[serde_json::Value]) -> LambdaEvent<aws_lambda_events::event::dynamodb::Event> {
    let payload = serde_json::from_value(serde_json::json!({ "Records": records }))
        .expect("a DynamoDB Streams event");
    LambdaEvent::new(payload, Context::default())
}

async fn counts(repo: &Repository, tenant: &TenantId) -> BTreeMap<&'static str, i64> {
    repo.for_tenant(tenant)
        .ticket_counts_by_status()
        .all()
        .await
        .unwrap()
        .into_iter()
        .map(|c| (c.status.as_str(), c.count))
        .collect()
}

#[tokio::test]
async fn counts_follow_the_stream_once_per_record() {
    let repo: Repository = singletable_runtime::testing::repository().await;
    let acme = TenantId::new("acme").unwrap();
    let globex = TenantId::new("globex").unwrap();

    // Inserts: acme 6 open, globex 3 open; then acme closes 2 of them.
    let mut records = Vec::new();
    for i in 0..6 {
        let item = ticket(&format!("a{i}"), Status::Open)
            .to_item(&acme)
            .unwrap();
        records.push(record(records.len(), "INSERT", None, Some(&item)));
    }
    for i in 0..3 {
        let item = ticket(&format!("g{i}"), Status::Open)
            .to_item(&globex)
            .unwrap();
        records.push(record(records.len(), "INSERT", None, Some(&item)));
    }
    for i in 0..2 {
        let old = ticket(&format!("a{i}"), Status::Open)
            .to_item(&acme)
            .unwrap();
        let new = ticket(&format!("a{i}"), Status::Closed)
            .to_item(&acme)
            .unwrap();
        records.push(record(records.len(), "MODIFY", Some(&old), Some(&new)));
    }

    let outcome = handle(&repo, event(&records)).await.unwrap();
    assert_eq!(
        outcome,
        Outcome {
            records: 11,
            changes: 3,
            ..Outcome::default()
        }
    );
    assert!(outcome.response().batch_item_failures.is_empty());
    let expected_acme = BTreeMap::from([("CLOSED", 2), ("OPEN", 4)]);
    let expected_globex = BTreeMap::from([("OPEN", 3)]);
    assert_eq!(counts(&repo, &acme).await, expected_acme);
    assert_eq!(counts(&repo, &globex).await, expected_globex);

    // Lambda delivers the batch again (the invocation timed out after
    // writing), and then its second half once more (a split batch).
    handle(&repo, event(&records)).await.unwrap();
    handle(&repo, event(&records[5..])).await.unwrap();
    assert_eq!(counts(&repo, &acme).await, expected_acme);
    assert_eq!(counts(&repo, &globex).await, expected_globex);

    // A record of another entity is skipped; an image that does not decode
    // is reported and not counted; a new record still is.
    let mut broken = ticket("a9", Status::Open).to_item(&acme).unwrap();
    broken.insert(
        "status".into(),
        singletable_runtime::sdk::types::AttributeValue::S("LOST".into()),
    );
    let fresh = ticket("a7", Status::Open).to_item(&acme).unwrap();
    let later = [
        record(100, "INSERT", None, Some(&broken)),
        record(101, "INSERT", None, Some(&fresh)),
    ];
    let outcome = handle(&repo, event(&later)).await.unwrap();
    assert_eq!(outcome.undecodable, 1);
    assert_eq!(
        counts(&repo, &acme).await,
        BTreeMap::from([("CLOSED", 2), ("OPEN", 5)])
    );
}

#[tokio::test]
async fn a_broken_counter_is_reported_and_holds_back_no_other() {
    let repo: Repository = singletable_runtime::testing::repository().await;
    let acme = TenantId::new("acme").unwrap();
    let evil = TenantId::new("evil").unwrap();
    // Code other than the handler broke evil's OPEN counter: its count is
    // not a number, so no update of it can succeed.
    let mut broken = lambda_stream::support_ticket::TicketCount {
        status: Status::Open,
        count: 0,
    }
    .to_item(&evil)
    .unwrap();
    broken.insert(
        "count".into(),
        singletable_runtime::sdk::types::AttributeValue::S("many".into()),
    );
    repo.client()
        .put_item()
        .table_name(repo.table_name())
        .set_item(Some(broken))
        .send()
        .await
        .unwrap();

    let mut records = Vec::new();
    for (i, tenant) in [&evil, &acme, &acme, &evil, &acme].into_iter().enumerate() {
        let item = ticket(&format!("t{i}"), Status::Open)
            .to_item(tenant)
            .unwrap();
        records.push(record(records.len(), "INSERT", None, Some(&item)));
    }
    let outcome = handle(&repo, event(&records)).await.unwrap();
    assert_eq!(outcome.refused, 1, "{outcome:?}");
    assert_eq!(outcome.retry_from, None, "a refusal is not retried");
    assert!(outcome.response().batch_item_failures.is_empty());
    assert_eq!(counts(&repo, &acme).await, BTreeMap::from([("OPEN", 3)]));

    // Delivered again, the batch counts nothing twice and reports again.
    let again = handle(&repo, event(&records)).await.unwrap();
    assert_eq!(again.refused, 1);
    assert_eq!(counts(&repo, &acme).await, BTreeMap::from([("OPEN", 3)]));
}
