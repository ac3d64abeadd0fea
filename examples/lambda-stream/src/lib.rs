//! A Lambda on the support-ticket table's DynamoDB stream that keeps the
//! per-status ticket counts, with the code the spec's aggregate generates.
//!
//! Each invocation turns the event's records into
//! [`ChangeRecord`]s, computes the counter changes of the `Ticket` images
//! (`ticket_count_changes`) and applies them
//! (`Repository::apply_counter_changes`). The counter items remember the
//! records they applied for a day, so when Lambda delivers a batch again
//! (after a failed invocation, a timeout, or a split batch) nothing is
//! counted twice: the handler fails the whole invocation on an error and
//! lets Lambda retry it. Each counter is applied on its own, so a counter
//! that cannot be updated (an item another writer broke) holds back no
//! other: the error (`Error::Counters`) names only the changes that
//! failed, and the retry finds every other counter already applied.

singletable_runtime::include_generated!(pub support_ticket);

use aws_lambda_events::event::dynamodb::Event;
use lambda_runtime::LambdaEvent;
use singletable_runtime::aggregate::ChangeRecord;
pub use support_ticket::Repository;

/// What one invocation did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Records in the event.
    pub records: usize,
    /// Counter changes applied (after netting per counter).
    pub changes: usize,
    /// Images that did not decode (logged, not counted).
    pub undecodable: usize,
}

/// Handles one event of the stream.
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
    repo.apply_counter_changes(&changes).await?;
    Ok(Outcome {
        records: records.len(),
        changes: changes.len(),
        undecodable: errors.len(),
    })
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
