//! The records of a table's DynamoDB stream, read through the Streams API
//! of the same server (what a stream Lambda would be given).

use singletable_runtime::aggregate::ChangeRecord;

use crate::server;

/// Every record of the table's stream so far, oldest first.
pub async fn records(endpoint: &str, table: &str) -> Vec<ChangeRecord> {
    use aws_sdk_dynamodbstreams as streams;
    let config = streams::Config::builder()
        .behavior_version(streams::config::BehaviorVersion::latest())
        .region(streams::config::Region::new("us-east-1"))
        .endpoint_url(endpoint)
        .credentials_provider(streams::config::Credentials::new(
            "local", "local", None, None, "static",
        ))
        .build();
    let client = streams::Client::from_conf(config);
    let dynamodb = server::client(endpoint);
    let arn = dynamodb
        .describe_table()
        .table_name(table)
        .send()
        .await
        .unwrap()
        .table
        .and_then(|t| t.latest_stream_arn)
        .expect("the table has a stream");
    let description = client
        .describe_stream()
        .stream_arn(&arn)
        .send()
        .await
        .unwrap()
        .stream_description
        .expect("a stream description");
    let mut records = Vec::new();
    for shard in description.shards() {
        let Some(shard_id) = shard.shard_id() else {
            continue;
        };
        let mut iterator = client
            .get_shard_iterator()
            .stream_arn(&arn)
            .shard_id(shard_id)
            .shard_iterator_type(streams::types::ShardIteratorType::TrimHorizon)
            .send()
            .await
            .unwrap()
            .shard_iterator;
        while let Some(it) = iterator {
            let out = client
                .get_records()
                .shard_iterator(it)
                .send()
                .await
                .unwrap();
            let page = out.records.unwrap_or_default();
            let empty = page.is_empty();
            for record in page {
                records.push(ChangeRecord::try_from(record).unwrap());
            }
            iterator = out.next_shard_iterator;
            if empty {
                break;
            }
        }
    }
    records
}
