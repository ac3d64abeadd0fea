//! The NoSQL Workbench data-model format (Version 3.0), as typed serde
//! structs. Field names and shapes follow the format facts gathered from
//! real exports: top level `ModelName`, `ModelMetadata`, `DataModel[]`; per
//! table its keys, attributes, facets, GSIs, `DataAccess`,
//! `SampleDataFormats` and billing.

use indexmap::IndexMap;
use serde::Serialize;

/// A whole model file.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct Model {
    /// The model's name.
    pub model_name: String,
    /// Author, dates, description, service and format version.
    pub model_metadata: Metadata,
    /// The tables.
    pub data_model: Vec<Table>,
}

/// `ModelMetadata`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct Metadata {
    /// Author.
    pub author: String,
    /// `Jan 02, 2025, 03:04 PM`.
    pub date_created: String,
    /// Same style.
    pub date_last_modified: String,
    /// Free text.
    pub description: String,
    /// Always `Amazon DynamoDB`.
    #[serde(rename = "AWSService")]
    pub aws_service: &'static str,
    /// Always `3.0`.
    pub version: &'static str,
}

/// One table of the model.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct Table {
    /// Table name.
    pub table_name: String,
    /// Partition and sort key.
    pub key_attributes: KeyAttributes,
    /// Every other attribute any item has, each once.
    pub non_key_attributes: Vec<AttributeDefinition>,
    /// One facet per entity.
    pub table_facets: Vec<Facet>,
    /// Global secondary indexes.
    pub global_secondary_indexes: Vec<GlobalSecondaryIndex>,
    /// Always `{"MySql": {}}`.
    pub data_access: DataAccess,
    /// Sample-data generators per attribute (none: items are given).
    pub sample_data_formats: IndexMap<String, serde_json::Value>,
    /// `PAY_PER_REQUEST` or `PROVISIONED`.
    pub billing_mode: &'static str,
    /// Present exactly when provisioned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioned_capacity_settings: Option<ProvisionedCapacitySettings>,
}

/// `KeyAttributes` of a table or GSI.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct KeyAttributes {
    /// Partition key.
    pub partition_key: AttributeDefinition,
    /// Sort key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sort_key: Option<AttributeDefinition>,
}

/// An attribute and its DynamoDB type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct AttributeDefinition {
    /// Name.
    pub attribute_name: String,
    /// `S`, `N`, `B`, `BOOL`, `M`, `L`, …
    pub attribute_type: &'static str,
}

/// A global secondary index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct GlobalSecondaryIndex {
    /// Name.
    pub index_name: String,
    /// Its keys.
    pub key_attributes: KeyAttributes,
    /// Its projection.
    pub projection: Projection,
}

/// A GSI projection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct Projection {
    /// `ALL`, `KEYS_ONLY` or `INCLUDE`.
    pub projection_type: &'static str,
    /// For `INCLUDE`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub non_key_attributes: Option<Vec<String>>,
}

/// A facet: one entity type's view of the table.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct Facet {
    /// The entity name.
    pub facet_name: String,
    /// The key templates, shown as key labels.
    pub key_attribute_alias: KeyAttributeAlias,
    /// Sample items.
    pub table_data: Vec<Item>,
    /// The non-key attributes of this entity's items.
    pub non_key_attributes: Vec<String>,
    /// Always `{"MySql": {}}`.
    pub data_access: DataAccess,
}

/// Key labels of a facet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct KeyAttributeAlias {
    /// Partition key label.
    pub partition_key_alias: String,
    /// Sort key label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sort_key_alias: Option<String>,
}

/// `{"MySql": {}}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DataAccess {
    /// Always empty.
    #[serde(rename = "MySql")]
    pub my_sql: Empty,
}

/// `{}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Empty {}

/// Capacity of a provisioned table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ProvisionedCapacitySettings {
    /// Read and write units.
    pub provisioned_throughput: ProvisionedThroughput,
}

/// Read and write units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ProvisionedThroughput {
    /// Read capacity units.
    pub read_capacity_units: u64,
    /// Write capacity units.
    pub write_capacity_units: u64,
}

/// An item in DynamoDB JSON.
pub type Item = IndexMap<String, AttributeValue>;

pub use crate::ir::AttributeValue;
