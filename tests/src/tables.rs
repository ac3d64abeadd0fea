//! Tables created from the CreateTable JSON that `singletable generate
//! table` writes (the file a team passes to `aws dynamodb create-table
//! --cli-input-json`), read here into the SDK's own request type.

use serde_json::Value;
use singletable_runtime::sdk;
use singletable_runtime::sdk::operation::create_table::CreateTableInput;
use singletable_runtime::sdk::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType,
    LocalSecondaryIndex, Projection, ProjectionType, ProvisionedThroughput, ScalarAttributeType,
    StreamSpecification, StreamViewType, TimeToLiveSpecification,
};

fn text<'a>(v: &'a Value, field: &str) -> Result<&'a str, String> {
    v.get(field)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("`{field}` is missing or not a string in {v}"))
}

fn list<'a>(v: &'a Value, field: &str) -> &'a [Value] {
    v.get(field)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn key_schema(v: &Value) -> Result<Vec<KeySchemaElement>, String> {
    list(v, "KeySchema")
        .iter()
        .map(|k| {
            KeySchemaElement::builder()
                .attribute_name(text(k, "AttributeName")?)
                .key_type(KeyType::from(text(k, "KeyType")?))
                .build()
                .map_err(|e| e.to_string())
        })
        .collect()
}

fn projection(v: &Value) -> Result<Projection, String> {
    let p = v.get("Projection").ok_or("an index without `Projection`")?;
    let names: Option<Vec<String>> = p.get("NonKeyAttributes").map(|n| {
        n.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    });
    Ok(Projection::builder()
        .projection_type(ProjectionType::from(text(p, "ProjectionType")?))
        .set_non_key_attributes(names)
        .build())
}

fn throughput(v: &Value) -> Result<Option<ProvisionedThroughput>, String> {
    let Some(t) = v.get("ProvisionedThroughput") else {
        return Ok(None);
    };
    let units = |f: &str| {
        t.get(f)
            .and_then(Value::as_i64)
            .ok_or_else(|| format!("`{f}` is missing"))
    };
    ProvisionedThroughput::builder()
        .read_capacity_units(units("ReadCapacityUnits")?)
        .write_capacity_units(units("WriteCapacityUnits")?)
        .build()
        .map(Some)
        .map_err(|e| e.to_string())
}

fn indexes<T>(
    v: &Value,
    field: &str,
    build: impl Fn(&Value) -> Result<T, String>,
) -> Result<Option<Vec<T>>, String> {
    let indexes = list(v, field);
    if indexes.is_empty() {
        return Ok(None);
    }
    indexes
        .iter()
        .map(build)
        .collect::<Result<_, _>>()
        .map(Some)
}

/// The SDK request of a CreateTable JSON document, for a table named `table`.
pub fn create_table_input(json: &Value, table: &str) -> Result<CreateTableInput, String> {
    let definitions = list(json, "AttributeDefinitions")
        .iter()
        .map(|d| {
            AttributeDefinition::builder()
                .attribute_name(text(d, "AttributeName")?)
                .attribute_type(ScalarAttributeType::from(text(d, "AttributeType")?))
                .build()
                .map_err(|e| e.to_string())
        })
        .collect::<Result<Vec<_>, _>>()?;
    let global = indexes(json, "GlobalSecondaryIndexes", |i| {
        GlobalSecondaryIndex::builder()
            .index_name(text(i, "IndexName")?)
            .set_key_schema(Some(key_schema(i)?))
            .projection(projection(i)?)
            .set_provisioned_throughput(throughput(i)?)
            .build()
            .map_err(|e| e.to_string())
    })?;
    let local = indexes(json, "LocalSecondaryIndexes", |i| {
        LocalSecondaryIndex::builder()
            .index_name(text(i, "IndexName")?)
            .set_key_schema(Some(key_schema(i)?))
            .projection(projection(i)?)
            .build()
            .map_err(|e| e.to_string())
    })?;
    let stream = match json.get("StreamSpecification") {
        None => None,
        Some(s) => Some(
            StreamSpecification::builder()
                .stream_enabled(s.get("StreamEnabled").and_then(Value::as_bool) == Some(true))
                .stream_view_type(StreamViewType::from(text(s, "StreamViewType")?))
                .build()
                .map_err(|e| e.to_string())?,
        ),
    };
    CreateTableInput::builder()
        .table_name(table)
        .set_attribute_definitions(Some(definitions))
        .set_key_schema(Some(key_schema(json)?))
        .set_local_secondary_indexes(local)
        .set_global_secondary_indexes(global)
        .billing_mode(BillingMode::from(text(json, "BillingMode")?))
        .set_provisioned_throughput(throughput(json)?)
        .set_stream_specification(stream)
        .build()
        .map_err(|e| e.to_string())
}

/// Creates table `table` from a CreateTable JSON document and, when given,
/// applies an UpdateTimeToLive JSON document to it; waits until it is active.
pub async fn create_from_json(
    client: &sdk::Client,
    create: &Value,
    ttl: Option<&Value>,
    table: &str,
) -> Result<(), String> {
    let input = create_table_input(create, table)?;
    client
        .create_table()
        .set_table_name(input.table_name)
        .set_attribute_definitions(input.attribute_definitions)
        .set_key_schema(input.key_schema)
        .set_local_secondary_indexes(input.local_secondary_indexes)
        .set_global_secondary_indexes(input.global_secondary_indexes)
        .set_billing_mode(input.billing_mode)
        .set_provisioned_throughput(input.provisioned_throughput)
        .set_stream_specification(input.stream_specification)
        .send()
        .await
        .map_err(|e| format!("CreateTable {table}: {e:?}"))?;
    wait_active(client, table).await?;
    if let Some(ttl) = ttl {
        let spec = ttl
            .get("TimeToLiveSpecification")
            .ok_or("no `TimeToLiveSpecification`")?;
        client
            .update_time_to_live()
            .table_name(table)
            .time_to_live_specification(
                TimeToLiveSpecification::builder()
                    .enabled(spec.get("Enabled").and_then(Value::as_bool) == Some(true))
                    .attribute_name(text(spec, "AttributeName")?)
                    .build()
                    .map_err(|e| e.to_string())?,
            )
            .send()
            .await
            .map_err(|e| format!("UpdateTimeToLive {table}: {e:?}"))?;
    }
    Ok(())
}

async fn wait_active(client: &sdk::Client, table: &str) -> Result<(), String> {
    for _ in 0..600 {
        let described = client
            .describe_table()
            .table_name(table)
            .send()
            .await
            .map_err(|e| format!("DescribeTable {table}: {e:?}"))?;
        let status = described.table.and_then(|t| t.table_status);
        if status == Some(sdk::types::TableStatus::Active) {
            return Ok(());
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    Err(format!("{table} did not become active"))
}
