//! The CloudFormation template of a spec's table, from the same
//! [`create_table`] as the CreateTable JSON: an `AWS::DynamoDB::Table`, or an
//! `AWS::DynamoDB::GlobalTable` when the spec lists replicas (the settings
//! each replica holds are then written per replica, in every Region).

use serde::Serialize;
use serde_json::{json, Value};

use super::table::{
    create_table, insights_mode_name, update_continuous_backups, update_time_to_live,
    AttributeDefinition, CreateTable, IndexProjection, InsightsSpecification, KeySchemaElement,
    OnDemandThroughput, SecondaryIndex, Tag, Throughput, TimeToLiveSpecification, WarmThroughput,
};
use crate::ir;

/// A CloudFormation template with one `AWS::DynamoDB::Table`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CloudFormation {
    /// `2010-09-09`.
    #[serde(rename = "AWSTemplateFormatVersion")]
    pub format_version: &'static str,
    /// What the table is for.
    #[serde(rename = "Description")]
    pub description: String,
    /// The table resource, under `Table`.
    #[serde(rename = "Resources")]
    pub resources: Resources,
    /// The table's name and ARN, and its stream's ARN.
    #[serde(rename = "Outputs")]
    pub outputs: serde_json::Map<String, serde_json::Value>,
}

/// The resources of the template.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct Resources {
    /// The table.
    pub table: TableResource,
}

/// An `AWS::DynamoDB::Table` or `AWS::DynamoDB::GlobalTable` resource.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct TableResource {
    /// `AWS::DynamoDB::Table` or `AWS::DynamoDB::GlobalTable`.
    pub r#type: &'static str,
    /// What a stack deletion does with the table (default `Retain`).
    pub deletion_policy: &'static str,
    /// What an update that replaces the table does with the old one
    /// (default `Retain`).
    pub update_replace_policy: &'static str,
    /// Its properties.
    pub properties: Properties,
}

/// The properties of a table or of a global table.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Properties {
    /// An `AWS::DynamoDB::Table`.
    Table(Box<TableProperties>),
    /// An `AWS::DynamoDB::GlobalTable`.
    Global(Box<GlobalTableProperties>),
}

/// The properties of an `AWS::DynamoDB::Table`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct TableProperties {
    /// Table name.
    pub table_name: String,
    /// Key attributes.
    pub attribute_definitions: Vec<AttributeDefinition>,
    /// Primary key.
    pub key_schema: Vec<KeySchemaElement>,
    /// Local secondary indexes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub local_secondary_indexes: Vec<SecondaryIndex>,
    /// Global secondary indexes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub global_secondary_indexes: Vec<SecondaryIndex>,
    /// Billing mode.
    pub billing_mode: &'static str,
    /// Capacity of a provisioned table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioned_throughput: Option<Throughput>,
    /// The stream (CloudFormation takes only the view type).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_specification: Option<CfnStream>,
    /// TTL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_to_live_specification: Option<TimeToLiveSpecification>,
    /// DynamoDB refuses to delete the table while this is on.
    pub deletion_protection_enabled: bool,
    /// Point-in-time recovery.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub point_in_time_recovery_specification: Option<serde_json::Value>,
    /// Encryption with a KMS key.
    #[serde(rename = "SSESpecification", skip_serializing_if = "Option::is_none")]
    pub sse_specification: Option<serde_json::Value>,
    /// The table class.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table_class: Option<&'static str>,
    /// Tags.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<Tag>,
    /// Contributor Insights.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contributor_insights_specification: Option<InsightsSpecification>,
    /// On-demand maximum request units.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_demand_throughput: Option<OnDemandThroughput>,
    /// Warm throughput.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warm_throughput: Option<WarmThroughput>,
    /// The resource-based policy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_policy: Option<CfnResourcePolicy>,
}

/// CloudFormation's resource-based policy of a table or replica.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct CfnResourcePolicy {
    /// The policy document.
    pub policy_document: Value,
}

/// CloudFormation's stream specification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct CfnStream {
    /// The view type.
    pub stream_view_type: &'static str,
}

/// The CloudFormation template of the spec's table, from [`create_table`].
pub fn cloudformation(spec: &ir::Spec) -> CloudFormation {
    let table = create_table(spec);
    let insights = spec
        .table
        .settings
        .contributor_insights
        .map(|mode| InsightsSpecification {
            enabled: true,
            mode: insights_mode_name(mode),
        });
    let mut outputs = serde_json::Map::new();
    let output = |value: Value, what: &str| json!({ "Description": what, "Value": value });
    outputs.insert(
        "TableName".into(),
        output(json!({ "Ref": "Table" }), "The table's name"),
    );
    outputs.insert(
        "TableArn".into(),
        output(json!({ "Fn::GetAtt": ["Table", "Arn"] }), "The table's ARN"),
    );
    if table.stream_specification.is_some() {
        outputs.insert(
            "StreamArn".into(),
            output(
                json!({ "Fn::GetAtt": ["Table", "StreamArn"] }),
                "The table stream's ARN",
            ),
        );
    }
    let description = spec
        .description
        .clone()
        .or_else(|| spec.table.description.clone())
        .unwrap_or_else(|| format!("The {} table", table.table_name));
    let (r#type, properties) = match &spec.table.settings.replicas {
        None => (
            "AWS::DynamoDB::Table",
            Properties::Table(Box::new(table_properties(spec, table, insights))),
        ),
        Some(replicas) => (
            "AWS::DynamoDB::GlobalTable",
            Properties::Global(Box::new(global_table_properties(
                spec, replicas, table, insights,
            ))),
        ),
    };
    CloudFormation {
        format_version: "2010-09-09",
        description,
        resources: Resources {
            table: TableResource {
                r#type,
                deletion_policy: spec.table.protection.deletion_policy.cloudformation(),
                update_replace_policy: spec.table.protection.update_replace_policy.cloudformation(),
                properties,
            },
        },
        outputs,
    }
}

/// The resource-based policy as CloudFormation takes it.
fn resource_policy(spec: &ir::Spec) -> Option<CfnResourcePolicy> {
    let statements = &spec.table.settings.resource_policy;
    (!statements.is_empty()).then(|| CfnResourcePolicy {
        policy_document: ir::resource_policy_document(statements),
    })
}

fn point_in_time_recovery(spec: &ir::Spec) -> Option<Value> {
    update_continuous_backups(spec).map(|b| b["PointInTimeRecoverySpecification"].clone())
}

/// The properties of an `AWS::DynamoDB::Table`.
fn table_properties(
    spec: &ir::Spec,
    table: CreateTable,
    insights: Option<InsightsSpecification>,
) -> TableProperties {
    let CreateTable {
        table_name,
        attribute_definitions,
        key_schema,
        local_secondary_indexes,
        global_secondary_indexes,
        billing_mode,
        provisioned_throughput,
        stream_specification,
        sse_specification,
        table_class,
        tags,
        on_demand_throughput,
        warm_throughput,
    } = table;
    // CloudFormation sets each global index's Contributor Insights too.
    let global_secondary_indexes = global_secondary_indexes
        .into_iter()
        .map(|mut index| {
            index.contributor_insights_specification = insights.clone();
            index
        })
        .collect();
    TableProperties {
        table_name,
        attribute_definitions,
        key_schema,
        local_secondary_indexes,
        global_secondary_indexes,
        billing_mode,
        provisioned_throughput,
        stream_specification: stream_specification.map(|s| CfnStream {
            stream_view_type: s.stream_view_type,
        }),
        time_to_live_specification: update_time_to_live(spec).map(|u| u.time_to_live_specification),
        deletion_protection_enabled: spec.table.protection.deletion_protection,
        point_in_time_recovery_specification: point_in_time_recovery(spec),
        sse_specification: sse_specification.map(|sse| {
            let mut value = json!({ "SSEEnabled": true, "SSEType": sse.sse_type });
            if let Some(key) = sse.kms_master_key_id {
                value["KMSMasterKeyId"] = Value::String(key);
            }
            value
        }),
        table_class,
        tags,
        contributor_insights_specification: insights,
        on_demand_throughput,
        warm_throughput,
        resource_policy: resource_policy(spec),
    }
}

/// The properties of an `AWS::DynamoDB::GlobalTable`: the table's
/// definition once, and what each replica holds in its own Region.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct GlobalTableProperties {
    /// Table name (the same in every Region).
    pub table_name: String,
    /// Key attributes.
    pub attribute_definitions: Vec<AttributeDefinition>,
    /// Primary key.
    pub key_schema: Vec<KeySchemaElement>,
    /// Local secondary indexes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub local_secondary_indexes: Vec<SecondaryIndex>,
    /// Global secondary indexes, with their write settings.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub global_secondary_indexes: Vec<GlobalTableIndex>,
    /// Billing mode.
    pub billing_mode: &'static str,
    /// Write capacity of a provisioned global table: auto scaling held at
    /// the declared capacity.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_provisioned_throughput_settings: Option<Value>,
    /// On-demand maximum write request units.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_on_demand_throughput_settings: Option<Value>,
    /// Warm throughput.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warm_throughput: Option<WarmThroughput>,
    /// The stream.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_specification: Option<CfnStream>,
    /// TTL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_to_live_specification: Option<TimeToLiveSpecification>,
    /// Encryption with a KMS key (each replica names its key).
    #[serde(rename = "SSESpecification", skip_serializing_if = "Option::is_none")]
    pub sse_specification: Option<Value>,
    /// `STRONG` for multi-Region strong consistency.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub multi_region_consistency: Option<&'static str>,
    /// The witness of a strongly consistent table with two replicas.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub global_table_witnesses: Vec<Value>,
    /// One replica per Region, the table's own Region first.
    pub replicas: Vec<Replica>,
}

/// A global index of a global table.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct GlobalTableIndex {
    /// Name.
    pub index_name: String,
    /// Its key.
    pub key_schema: Vec<KeySchemaElement>,
    /// The attributes it carries.
    pub projection: IndexProjection,
    /// Warm throughput.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warm_throughput: Option<WarmThroughput>,
    /// Write capacity on a provisioned table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_provisioned_throughput_settings: Option<Value>,
    /// On-demand maximum write request units.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_on_demand_throughput_settings: Option<Value>,
}

/// One replica of a global table and the settings it holds in its Region.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct Replica {
    /// The Region.
    pub region: String,
    /// DynamoDB refuses to delete the replica while this is on.
    pub deletion_protection_enabled: bool,
    /// Point-in-time recovery.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub point_in_time_recovery_specification: Option<Value>,
    /// The replica's KMS key.
    #[serde(rename = "SSESpecification", skip_serializing_if = "Option::is_none")]
    pub sse_specification: Option<Value>,
    /// The table class.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table_class: Option<&'static str>,
    /// Tags.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<Tag>,
    /// Contributor Insights.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contributor_insights_specification: Option<InsightsSpecification>,
    /// Provisioned read capacity.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_provisioned_throughput_settings: Option<Value>,
    /// On-demand maximum read request units.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_on_demand_throughput_settings: Option<Value>,
    /// Each global index's read settings and Contributor Insights here.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub global_secondary_indexes: Vec<Value>,
    /// The resource-based policy of this replica.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_policy: Option<CfnResourcePolicy>,
}

/// A global table's write capacity: auto scaling held at `units`.
fn fixed_writes(units: u64) -> Value {
    json!({ "WriteCapacityAutoScalingSettings": {
        "MinCapacity": units,
        "MaxCapacity": units,
        "TargetTrackingScalingPolicyConfiguration": { "TargetValue": 70 },
    } })
}

fn max_writes(t: Option<OnDemandThroughput>) -> Option<Value> {
    let units = t?.max_write_request_units?;
    Some(json!({ "MaxWriteRequestUnits": units }))
}

fn max_reads(t: Option<OnDemandThroughput>) -> Option<Value> {
    let units = t?.max_read_request_units?;
    Some(json!({ "MaxReadRequestUnits": units }))
}

fn reads(t: Option<Throughput>) -> Option<Value> {
    t.map(|t| json!({ "ReadCapacityUnits": t.read_capacity_units }))
}

/// The key a replica in `region` is encrypted with: an alias or the AWS
/// managed key as written; a multi-Region key's ARN in that Region.
pub fn replica_key(key: &str, region: &str) -> String {
    let mut fields: Vec<&str> = key.splitn(6, ':').collect();
    let multi_region = key
        .rsplit('/')
        .next()
        .is_some_and(|id| id.starts_with("mrk-"));
    if fields.len() == 6 && fields[0] == "arn" && multi_region {
        fields[3] = region;
        return fields.join(":");
    }
    key.to_owned()
}

/// The properties of an `AWS::DynamoDB::GlobalTable`.
fn global_table_properties(
    spec: &ir::Spec,
    replicas: &ir::Replicas,
    table: CreateTable,
    insights: Option<InsightsSpecification>,
) -> GlobalTableProperties {
    let CreateTable {
        table_name,
        attribute_definitions,
        key_schema,
        local_secondary_indexes,
        global_secondary_indexes,
        billing_mode,
        provisioned_throughput,
        stream_specification,
        sse_specification,
        table_class,
        tags,
        on_demand_throughput,
        warm_throughput,
    } = table;
    let replica_indexes: Vec<Value> = global_secondary_indexes
        .iter()
        .filter_map(|index| {
            let mut value = json!({ "IndexName": index.index_name });
            let settings = [
                (
                    "ContributorInsightsSpecification",
                    insights.as_ref().map(|i| json!(i)),
                ),
                (
                    "ReadOnDemandThroughputSettings",
                    max_reads(index.on_demand_throughput),
                ),
                (
                    "ReadProvisionedThroughputSettings",
                    reads(index.provisioned_throughput),
                ),
            ];
            let mut any = false;
            for (name, setting) in settings {
                if let Some(setting) = setting {
                    value[name] = setting;
                    any = true;
                }
            }
            any.then_some(value)
        })
        .collect();
    let key = sse_specification
        .as_ref()
        .and_then(|s| s.kms_master_key_id.clone());
    let replicas_out = replicas
        .regions
        .iter()
        .map(|region| Replica {
            region: region.clone(),
            deletion_protection_enabled: spec.table.protection.deletion_protection,
            point_in_time_recovery_specification: point_in_time_recovery(spec),
            sse_specification: key
                .as_ref()
                .map(|k| json!({ "KMSMasterKeyId": replica_key(k, region) })),
            table_class,
            tags: tags.clone(),
            contributor_insights_specification: insights.clone(),
            read_provisioned_throughput_settings: reads(provisioned_throughput),
            read_on_demand_throughput_settings: max_reads(on_demand_throughput),
            global_secondary_indexes: replica_indexes.clone(),
            resource_policy: resource_policy(spec),
        })
        .collect();
    GlobalTableProperties {
        table_name,
        attribute_definitions,
        key_schema,
        local_secondary_indexes,
        global_secondary_indexes: global_secondary_indexes
            .into_iter()
            .map(|index| GlobalTableIndex {
                index_name: index.index_name,
                key_schema: index.key_schema,
                projection: index.projection,
                warm_throughput: index.warm_throughput,
                write_provisioned_throughput_settings: index
                    .provisioned_throughput
                    .map(|t| fixed_writes(t.write_capacity_units)),
                write_on_demand_throughput_settings: max_writes(index.on_demand_throughput),
            })
            .collect(),
        billing_mode,
        write_provisioned_throughput_settings: provisioned_throughput
            .map(|t| fixed_writes(t.write_capacity_units)),
        write_on_demand_throughput_settings: max_writes(on_demand_throughput),
        warm_throughput,
        stream_specification: stream_specification.map(|s| CfnStream {
            stream_view_type: s.stream_view_type,
        }),
        time_to_live_specification: update_time_to_live(spec).map(|u| u.time_to_live_specification),
        sse_specification: sse_specification
            .map(|s| json!({ "SSEEnabled": true, "SSEType": s.sse_type })),
        multi_region_consistency: (replicas.consistency.value == ir::Consistency::Strong)
            .then_some("STRONG"),
        global_table_witnesses: replicas
            .witness
            .iter()
            .map(|region| json!({ "Region": region }))
            .collect(),
        replicas: replicas_out,
    }
}
