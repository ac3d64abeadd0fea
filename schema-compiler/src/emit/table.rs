//! The table definition: CreateTable input for
//! `aws dynamodb create-table --cli-input-json`, the UpdateTimeToLive input
//! that enables TTL, and a CloudFormation `AWS::DynamoDB::Table` template.
//!
//! [`create_table`] is the one table definition of a spec: the JSON files
//! are rendered from it, and so is the `TABLE` constant of the generated
//! Rust (which `Repository::create_table` sends), so the two cannot differ.

use serde::Serialize;

use super::GeneratedFile;
use crate::ir::{self, BillingMode, IndexKind, Projection, StreamView};

/// A CreateTable request (the `--cli-input-json` shape).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct CreateTable {
    /// Table name.
    pub table_name: String,
    /// Exactly the key attributes of the table and its indexes.
    pub attribute_definitions: Vec<AttributeDefinition>,
    /// The table's primary key.
    pub key_schema: Vec<KeySchemaElement>,
    /// Local secondary indexes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub local_secondary_indexes: Vec<SecondaryIndex>,
    /// Global secondary indexes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub global_secondary_indexes: Vec<SecondaryIndex>,
    /// `PAY_PER_REQUEST` or `PROVISIONED`.
    pub billing_mode: &'static str,
    /// Capacity of a provisioned table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioned_throughput: Option<Throughput>,
    /// The stream, when the spec enables one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_specification: Option<StreamSpecification>,
    /// Encryption with a KMS key (absent: DynamoDB's own key).
    #[serde(rename = "SSESpecification", skip_serializing_if = "Option::is_none")]
    pub sse_specification: Option<SseSpecification>,
    /// `STANDARD` or `STANDARD_INFREQUENT_ACCESS`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table_class: Option<&'static str>,
    /// Tags.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<Tag>,
    /// On-demand maximum request units.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_demand_throughput: Option<OnDemandThroughput>,
    /// Warm throughput.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warm_throughput: Option<WarmThroughput>,
}

/// CreateTable's encryption settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SseSpecification {
    /// Always `true` when present.
    #[serde(rename = "Enabled")]
    pub enabled: bool,
    /// Always `KMS`.
    #[serde(rename = "SSEType")]
    pub sse_type: &'static str,
    /// A customer managed key (absent: the AWS managed key).
    #[serde(rename = "KMSMasterKeyId", skip_serializing_if = "Option::is_none")]
    pub kms_master_key_id: Option<String>,
}

/// A tag.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct Tag {
    /// Key.
    pub key: String,
    /// Value.
    pub value: String,
}

/// On-demand maximum request units per second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct OnDemandThroughput {
    /// Reads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_read_request_units: Option<u64>,
    /// Writes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_write_request_units: Option<u64>,
}

/// Warm throughput in units per second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct WarmThroughput {
    /// Reads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_units_per_second: Option<u64>,
    /// Writes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_units_per_second: Option<u64>,
}

/// A key attribute and its scalar type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct AttributeDefinition {
    /// Name.
    pub attribute_name: String,
    /// `S`, `N` or `B`.
    pub attribute_type: &'static str,
}

/// One element of a key schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct KeySchemaElement {
    /// Name.
    pub attribute_name: String,
    /// `HASH` or `RANGE`.
    pub key_type: &'static str,
}

/// A global or local secondary index.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct SecondaryIndex {
    /// Name.
    pub index_name: String,
    /// Its key.
    pub key_schema: Vec<KeySchemaElement>,
    /// The attributes it carries.
    pub projection: IndexProjection,
    /// Capacity of a global index of a provisioned table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioned_throughput: Option<Throughput>,
    /// On-demand maximum request units of a global index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_demand_throughput: Option<OnDemandThroughput>,
    /// Warm throughput of a global index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warm_throughput: Option<WarmThroughput>,
    /// Contributor Insights of a global index (CloudFormation only; the
    /// API sets it with UpdateContributorInsights).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contributor_insights_specification: Option<InsightsSpecification>,
}

/// CloudFormation's Contributor Insights settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct InsightsSpecification {
    /// Always `true` when present.
    pub enabled: bool,
    /// `ACCESSED_AND_THROTTLED_KEYS` or `THROTTLED_KEYS`.
    pub mode: &'static str,
}

/// DynamoDB's name for a table class.
pub fn table_class_name(class: ir::TableClass) -> &'static str {
    match class {
        ir::TableClass::Standard => "STANDARD",
        ir::TableClass::StandardInfrequentAccess => "STANDARD_INFREQUENT_ACCESS",
    }
}

/// DynamoDB's name for a Contributor Insights mode.
pub fn insights_mode_name(mode: ir::InsightsMode) -> &'static str {
    match mode {
        ir::InsightsMode::AccessedAndThrottledKeys => "ACCESSED_AND_THROTTLED_KEYS",
        ir::InsightsMode::ThrottledKeys => "THROTTLED_KEYS",
    }
}

fn on_demand(units: Option<ir::UnitsPerSecond>) -> Option<OnDemandThroughput> {
    units.map(|u| OnDemandThroughput {
        max_read_request_units: u.read.map(|r| r.value),
        max_write_request_units: u.write.map(|w| w.value),
    })
}

fn warm(units: Option<ir::UnitsPerSecond>) -> Option<WarmThroughput> {
    units.map(|u| WarmThroughput {
        read_units_per_second: u.read.map(|r| r.value),
        write_units_per_second: u.write.map(|w| w.value),
    })
}

/// An index projection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct IndexProjection {
    /// `ALL`, `KEYS_ONLY` or `INCLUDE`.
    pub projection_type: &'static str,
    /// For `INCLUDE`: the non-key attributes, sorted.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub non_key_attributes: Vec<String>,
}

/// Provisioned capacity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct Throughput {
    /// Read capacity units.
    pub read_capacity_units: u64,
    /// Write capacity units.
    pub write_capacity_units: u64,
}

/// A stream specification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct StreamSpecification {
    /// Always `true` when present.
    pub stream_enabled: bool,
    /// `NEW_IMAGE`, `OLD_IMAGE`, `NEW_AND_OLD_IMAGES` or `KEYS_ONLY`.
    pub stream_view_type: &'static str,
}

/// An UpdateTimeToLive request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct UpdateTimeToLive {
    /// Table name.
    pub table_name: String,
    /// The TTL attribute.
    pub time_to_live_specification: TimeToLiveSpecification,
}

/// TTL settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct TimeToLiveSpecification {
    /// Always `true`.
    pub enabled: bool,
    /// The epoch-seconds Number attribute.
    pub attribute_name: String,
}

/// The stream view type as DynamoDB spells it.
pub fn stream_view_name(view: StreamView) -> &'static str {
    match view {
        StreamView::NewImage => "NEW_IMAGE",
        StreamView::OldImage => "OLD_IMAGE",
        StreamView::NewAndOldImages => "NEW_AND_OLD_IMAGES",
        StreamView::KeysOnly => "KEYS_ONLY",
    }
}

/// A key schema: every partition key attribute (`HASH`), then every sort
/// key attribute (`RANGE`), in order; several of each for a
/// multi-attribute index key.
fn key_schema<'k>(
    partition: impl IntoIterator<Item = &'k ir::KeyAttribute>,
    sort: impl IntoIterator<Item = &'k ir::KeyAttribute>,
) -> Vec<KeySchemaElement> {
    let element = |key: &ir::KeyAttribute, key_type| KeySchemaElement {
        attribute_name: key.name.value.clone(),
        key_type,
    };
    partition
        .into_iter()
        .map(|k| element(k, "HASH"))
        .chain(sort.into_iter().map(|k| element(k, "RANGE")))
        .collect()
}

/// The projection an index is created with. Items read through an index
/// are decoded by their entity type and skipped once their TTL has passed,
/// so a `KEYS_ONLY` or `INCLUDE` projection also carries the entity-type
/// and TTL attributes (a `KEYS_ONLY` index becomes `INCLUDE` of those).
pub fn index_projection(spec: &ir::Spec, projection: &Projection) -> IndexProjection {
    let names: &[String] = match projection {
        Projection::All => {
            return IndexProjection {
                projection_type: "ALL",
                non_key_attributes: Vec::new(),
            }
        }
        Projection::KeysOnly => &[],
        Projection::Include(names) => names,
    };
    // The table's names for them: an attribute's stored name.
    let mut attributes: Vec<String> = names
        .iter()
        .map(|n| {
            spec.entities
                .values()
                .find_map(|e| e.attributes.get(n).map(|a| a.stored().to_owned()))
                .unwrap_or_else(|| n.clone())
        })
        .collect();
    attributes.extend(spec.table.entity_type.attribute().map(|a| a.value.clone()));
    attributes.extend(spec.table.ttl.as_ref().map(|t| t.value.clone()));
    attributes.sort();
    attributes.dedup();
    // Nothing to add (a table whose keys tell the entity, without TTL):
    // DynamoDB refuses an `INCLUDE` of no attributes.
    if attributes.is_empty() {
        return IndexProjection {
            projection_type: "KEYS_ONLY",
            non_key_attributes: Vec::new(),
        };
    }
    IndexProjection {
        projection_type: "INCLUDE",
        non_key_attributes: attributes,
    }
}

fn throughput(read: Option<u64>, write: Option<u64>) -> Option<Throughput> {
    Some(Throughput {
        read_capacity_units: read?,
        write_capacity_units: write?,
    })
}

/// The CreateTable request of a spec: the one table definition every
/// output (JSON, CloudFormation, the generated `TABLE`) is rendered from.
pub fn create_table(spec: &ir::Spec) -> CreateTable {
    let table = &spec.table;
    let mut definitions: Vec<AttributeDefinition> = Vec::new();
    for key in spec.key_attributes() {
        if !definitions
            .iter()
            .any(|d| d.attribute_name == key.name.value)
        {
            definitions.push(AttributeDefinition {
                attribute_name: key.name.value.clone(),
                attribute_type: key.r#type.code(),
            });
        }
    }
    let provisioned = table.billing.mode == BillingMode::Provisioned;
    let table_throughput = if provisioned {
        throughput(table.billing.read_capacity, table.billing.write_capacity)
    } else {
        None
    };
    let mut global = Vec::new();
    let mut local = Vec::new();
    for index in spec.indexes.values() {
        let ir::Index {
            name,
            kind,
            description: _,
            partition_key: _,
            more_partition_keys: _,
            sort_key: _,
            more_sort_keys: _,
            projection,
            read_capacity,
            write_capacity,
            max_throughput,
            warm_throughput,
            // Derived into `warm_throughput` when the spec was resolved.
            warm_from_rates: _,
        } = index;
        let is_global = *kind == IndexKind::Global;
        let def = SecondaryIndex {
            index_name: name.value.clone(),
            key_schema: key_schema(index.partition_parts(), index.sort_parts()),
            projection: index_projection(spec, projection),
            provisioned_throughput: if is_global && provisioned {
                throughput(*read_capacity, *write_capacity).or(table_throughput)
            } else {
                None
            },
            on_demand_throughput: on_demand(*max_throughput),
            warm_throughput: warm(*warm_throughput),
            contributor_insights_specification: None,
        };
        if is_global {
            global.push(def);
        } else {
            local.push(def);
        }
    }
    CreateTable {
        table_name: table.name.value.clone(),
        attribute_definitions: definitions,
        key_schema: key_schema([&table.partition_key], &table.sort_key),
        local_secondary_indexes: local,
        global_secondary_indexes: global,
        billing_mode: if provisioned {
            "PROVISIONED"
        } else {
            "PAY_PER_REQUEST"
        },
        provisioned_throughput: table_throughput,
        stream_specification: table.stream.map(|view| StreamSpecification {
            stream_enabled: true,
            stream_view_type: stream_view_name(view),
        }),
        sse_specification: match &table.settings.encryption {
            ir::Encryption::AwsOwned => None,
            ir::Encryption::AwsManaged => Some(SseSpecification {
                enabled: true,
                sse_type: "KMS",
                kms_master_key_id: None,
            }),
            ir::Encryption::Customer(key) => Some(SseSpecification {
                enabled: true,
                sse_type: "KMS",
                kms_master_key_id: Some(key.clone()),
            }),
        },
        table_class: table.settings.table_class.map(table_class_name),
        tags: table
            .settings
            .tags
            .iter()
            .map(|(key, value)| Tag {
                key: key.clone(),
                value: value.clone(),
            })
            .collect(),
        on_demand_throughput: on_demand(table.settings.max_throughput),
        warm_throughput: warm(table.settings.warm_throughput),
    }
}

/// The UpdateContinuousBackups request that turns on point-in-time
/// recovery, if the spec asks for it.
pub fn update_continuous_backups(spec: &ir::Spec) -> Option<serde_json::Value> {
    let days = spec.table.settings.point_in_time_recovery?;
    Some(serde_json::json!({
        "TableName": spec.table.name.value,
        "PointInTimeRecoverySpecification": {
            "PointInTimeRecoveryEnabled": true,
            "RecoveryPeriodInDays": days,
        },
    }))
}

/// The UpdateContributorInsights request that turns on Contributor
/// Insights for the table, if the spec asks for it (the API takes one
/// index per request; CloudFormation and Terraform set every global index).
pub fn update_contributor_insights(spec: &ir::Spec) -> Option<serde_json::Value> {
    let mode = spec.table.settings.contributor_insights?;
    Some(serde_json::json!({
        "TableName": spec.table.name.value,
        "ContributorInsightsAction": "ENABLE",
        "ContributorInsightsMode": insights_mode_name(mode),
    }))
}

/// The UpdateTable request that makes the table global, if the spec lists
/// replicas: one `Create` per Region but the table's own, the consistency
/// mode and the witness, in one request (as a strongly consistent table
/// needs them).
pub fn update_table_replicas(spec: &ir::Spec) -> Option<serde_json::Value> {
    let replicas = spec.table.settings.replicas.as_ref()?;
    let creates: Vec<serde_json::Value> = replicas.regions[1..]
        .iter()
        .map(|region| serde_json::json!({ "Create": { "RegionName": region } }))
        .collect();
    if creates.is_empty() {
        return None;
    }
    let mut request = serde_json::json!({
        "TableName": spec.table.name.value,
        "ReplicaUpdates": creates,
    });
    if replicas.consistency.value == ir::Consistency::Strong {
        request["MultiRegionConsistency"] = "STRONG".into();
    }
    if let Some(witness) = &replicas.witness {
        request["GlobalTableWitnessUpdates"] =
            serde_json::json!([{ "Create": { "RegionName": witness } }]);
    }
    Some(request)
}

/// The PutResourcePolicy request that attaches the spec's resource-based
/// policy (the ARN's Region and account are placeholders, as in the IAM
/// policies), written without whitespace, as DynamoDB counts its size.
pub fn put_resource_policy(spec: &ir::Spec) -> Option<serde_json::Value> {
    let statements = &spec.table.settings.resource_policy;
    if statements.is_empty() {
        return None;
    }
    Some(serde_json::json!({
        "ResourceArn": format!("arn:aws:dynamodb:REGION:ACCOUNT_ID:table/{}", spec.table.name.value),
        "Policy": ir::resource_policy_document(statements).to_string(),
    }))
}

/// The UpdateTimeToLive request enabling the spec's TTL, if it has one.
pub fn update_time_to_live(spec: &ir::Spec) -> Option<UpdateTimeToLive> {
    spec.table.ttl.as_ref().map(|ttl| UpdateTimeToLive {
        table_name: spec.table.name.value.clone(),
        time_to_live_specification: TimeToLiveSpecification {
            enabled: true,
            attribute_name: ttl.value.clone(),
        },
    })
}

/// Pretty JSON with a final newline.
pub(crate) fn to_json<T: Serialize>(value: &T) -> String {
    let mut text =
        serde_json::to_string_pretty(value).expect("invariant: these models serialize to JSON");
    text.push('\n');
    text
}

/// The table files of a spec whose file stem is `stem`:
/// `<stem>.create-table.json`, the requests that set what CreateTable does
/// not (`update-time-to-live`, `update-continuous-backups`,
/// `update-contributor-insights`, `update-table-replicas`,
/// `put-resource-policy`, each when the spec asks) and
/// `<stem>.cloudformation.json`.
pub fn render_table(spec: &ir::Spec, stem: &str) -> Vec<GeneratedFile> {
    let mut files = vec![GeneratedFile {
        name: format!("{stem}.create-table.json"),
        contents: to_json(&create_table(spec)),
    }];
    if let Some(ttl) = update_time_to_live(spec) {
        files.push(GeneratedFile {
            name: format!("{stem}.update-time-to-live.json"),
            contents: to_json(&ttl),
        });
    }
    if let Some(backups) = update_continuous_backups(spec) {
        files.push(GeneratedFile {
            name: format!("{stem}.update-continuous-backups.json"),
            contents: to_json(&backups),
        });
    }
    if let Some(insights) = update_contributor_insights(spec) {
        files.push(GeneratedFile {
            name: format!("{stem}.update-contributor-insights.json"),
            contents: to_json(&insights),
        });
    }
    if let Some(replicas) = update_table_replicas(spec) {
        files.push(GeneratedFile {
            name: format!("{stem}.update-table-replicas.json"),
            contents: to_json(&replicas),
        });
    }
    if let Some(policy) = put_resource_policy(spec) {
        files.push(GeneratedFile {
            name: format!("{stem}.put-resource-policy.json"),
            contents: to_json(&policy),
        });
    }
    files.push(GeneratedFile {
        name: format!("{stem}.cloudformation.json"),
        contents: to_json(&super::cloudformation::cloudformation(spec)),
    });
    files
}
