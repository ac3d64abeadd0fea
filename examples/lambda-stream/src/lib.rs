//! A Lambda on the support-ticket table's DynamoDB stream that keeps the
//! per-status ticket counts, with the code the spec's aggregate generates.
//!
//! Each invocation turns the event's records into
//! [`ChangeRecord`]s, computes the counter changes of the `Ticket` images
//! (`ticket_count_changes`) and applies them
//! (`Repository::apply_counter_changes`), each counter on its own. The
//! counter items remember the records they applied for a day, so a batch
//! Lambda delivers again (after a failed invocation, a timeout, a split
//! batch or a partial batch response) counts nothing twice. The handler
//! settles the batch ([`settle`]):
//!
//! - a change that failed for a reason that may pass (throttling, an answer
//!   that never came) is retried: the partial batch response names its
//!   earliest record, and Lambda delivers the batch again from there
//!   (the event source mapping needs `FunctionResponseTypes:
//!   [ReportBatchItemFailures]`);
//! - a change refused for good (a counter item other code broke, a count
//!   that would leave its declared range) is reported, one JSON line on
//!   stderr each (CloudWatch Logs, where a metric filter or subscription
//!   picks it up), and the batch goes on: delivered again it would fail
//!   again and hold back every later record of the shard, every tenant's.
//!
//! The handler runs under the policy `singletable generate iam` writes for
//! it, `support_ticket.stream.iam.json`: tenants' policies deny writes to
//! the counters.

singletable_runtime::include_generated!(pub support_ticket);

use aws_lambda_events::event::dynamodb::Event;
use aws_lambda_events::event::streams::{DynamoDbBatchItemFailure, DynamoDbEventResponse};
use lambda_runtime::LambdaEvent;
use singletable_runtime::aggregate::{settle, ChangeRecord, CounterFailure};
pub use support_ticket::Repository;

/// What one invocation did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Records in the event.
    pub records: usize,
    /// Counter changes computed (after netting per counter).
    pub changes: usize,
    /// Images that did not decode (logged, not counted).
    pub undecodable: usize,
    /// Counter changes refused for good (reported, not retried).
    pub refused: usize,
    /// The record Lambda is asked to deliver the batch again from.
    pub retry_from: Option<String>,
}

impl Outcome {
    /// The partial batch response Lambda reads.
    pub fn response(&self) -> DynamoDbEventResponse {
        let mut response = DynamoDbEventResponse::default();
        if let Some(sequence) = &self.retry_from {
            let mut failure = DynamoDbBatchItemFailure::default();
            failure.item_identifier = Some(sequence.clone());
            response.batch_item_failures.push(failure);
        }
        response
    }
}

/// Handles one event of the stream. An error fails the invocation, and
/// Lambda delivers the whole batch again: only a failure that may pass and
/// that no record's sequence number can name.
pub async fn handle(
    repo: &Repository,
    event: LambdaEvent<Event>,
) -> Result<Outcome, singletable_runtime::Error> {
    let records = ChangeRecord::from_lambda_event(event.payload);
    let (changes, errors) = support_ticket::ticket_count_changes(&records);
    for e in &errors {
        // An item written by other code that does not decode: it is not
        // counted, and the rest of the batch still is.
        eprintln!("skipped a record: {e}");
    }
    let settled = settle(&records, repo.apply_counter_changes(&changes).await)?;
    for refused in &settled.refused {
        eprintln!("{}", report(refused));
    }
    Ok(Outcome {
        records: records.len(),
        changes: changes.len(),
        undecodable: errors.len(),
        refused: settled.refused.len(),
        retry_from: settled.retry_from,
    })
}

/// One JSON line for a counter change refused for good: the counter, its
/// item's key, the stream records it was made of, and why.
pub fn report(refused: &CounterFailure) -> String {
    let change = &refused.change;
    let key: std::collections::BTreeMap<&str, String> = change
        .group
        .key
        .iter()
        .map(|(name, value)| (name.as_str(), format!("{value:?}")))
        .collect();
    let records: Vec<&str> = change
        .records
        .iter()
        .map(|(id, _)| id.event_id.as_str())
        .collect();
    serde_json::json!({
        "refused_counter_change": change.counter.entity,
        "key": key,
        "delta": change.delta,
        "records": records,
        "error": refused.error.to_string(),
    })
    .to_string()
}

/// A client from the Lambda environment: the region and the role's
/// temporary credentials Lambda sets in `AWS_REGION`,
/// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`
/// (or `aws-config`'s `load_from_env`, which reads the same).
pub fn client_from_env() -> Result<singletable_runtime::sdk::Client, std::env::VarError> {
    use singletable_runtime::sdk::config::{BehaviorVersion, Credentials, Region};
    let credentials = Credentials::new(
        std::env::var("AWS_ACCESS_KEY_ID")?,
        std::env::var("AWS_SECRET_ACCESS_KEY")?,
        std::env::var("AWS_SESSION_TOKEN").ok(),
        None,
        "lambda-environment",
    );
    let mut config = singletable_runtime::sdk::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new(std::env::var("AWS_REGION")?))
        .credentials_provider(credentials);
    if let Ok(endpoint) = std::env::var("DYNAMODB_ENDPOINT") {
        config = config.endpoint_url(endpoint);
    }
    Ok(singletable_runtime::sdk::Client::from_conf(config.build()))
}
