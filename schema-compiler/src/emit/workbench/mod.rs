//! The NoSQL Workbench model of a spec: the table with its keys, every
//! attribute once with its DynamoDB type, the GSIs with their projections,
//! billing, and one facet per entity whose key labels are the entity's key
//! templates and whose sample items are built the way the generated
//! repositories build items (same key encodings, sparse index keys only
//! where present).
//!
//! Local secondary indexes, TTL and streams are not part of the format:
//! `singletable generate table` carries them. An LSI's sort key attribute
//! is listed with the other attributes, so sample items that carry it stay
//! consistent.

pub mod model;
pub mod samples;

use indexmap::IndexMap;

use self::model::{
    AttributeDefinition, DataAccess, Facet, GlobalSecondaryIndex, KeyAttributeAlias, KeyAttributes,
    Metadata, Model, Projection, ProvisionedCapacitySettings, ProvisionedThroughput, Table,
};
use super::GeneratedFile;
use crate::ir::{self, BillingMode, IndexKind};

/// Settings of an export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// `DateCreated` and `DateLastModified`, in seconds since the epoch (UTC).
    pub date: i64,
    /// `Author`.
    pub author: String,
}

impl Default for Options {
    /// 2025-01-01 00:00 UTC and no author: the same bytes on every run.
    fn default() -> Self {
        Options {
            date: 1_735_689_600,
            author: String::new(),
        }
    }
}

/// A date in Workbench's own style: `Jan 02, 2025, 03:04 PM` (UTC).
pub fn workbench_date(secs: i64) -> String {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let (year, month, day) = samples::civil_from_days(secs.div_euclid(86_400));
    let minute_of_day = secs.rem_euclid(86_400) / 60;
    let (hour, minute) = (minute_of_day / 60, minute_of_day % 60);
    let (hour12, meridiem) = match hour {
        0 => (12, "AM"),
        1..=11 => (hour, "AM"),
        12 => (12, "PM"),
        _ => (hour - 12, "PM"),
    };
    let month = MONTHS[(month as usize).saturating_sub(1).min(11)];
    format!("{month} {day:02}, {year}, {hour12:02}:{minute:02} {meridiem}")
}

fn key_definition(k: &ir::KeyAttribute) -> AttributeDefinition {
    AttributeDefinition {
        attribute_name: k.name.value.clone(),
        attribute_type: k.r#type.code(),
    }
}

fn key_attributes(pk: &ir::KeyAttribute, sk: Option<&ir::KeyAttribute>) -> KeyAttributes {
    KeyAttributes {
        partition_key: key_definition(pk),
        sort_key: sk.map(key_definition),
    }
}

/// Every attribute any item can have other than the table's keys, each
/// once, in order of first use: global index key attributes, the
/// entity-type attribute, then each entity's attributes and its local
/// index keys (the format has no local indexes: their keys are
/// attributes of the items that carry them, so an import reads them back
/// as such and exports them in the same place).
fn non_key_attributes(spec: &ir::Spec) -> Vec<AttributeDefinition> {
    let table_keys: Vec<&str> = spec.table.keys().map(|k| k.name.as_str()).collect();
    let mut out: Vec<AttributeDefinition> = Vec::new();
    let mut add = |name: &str, attribute_type: &'static str| {
        if !table_keys.contains(&name) && !out.iter().any(|d| d.attribute_name == name) {
            out.push(AttributeDefinition {
                attribute_name: name.to_owned(),
                attribute_type,
            });
        }
    };
    let global = spec.indexes.values().filter(|i| i.kind != IndexKind::Local);
    for index in global {
        for k in std::iter::once(&index.partition_key).chain(&index.sort_key) {
            add(k.name.as_str(), k.r#type.code());
        }
    }
    if let Some(attribute) = spec.table.entity_type.attribute() {
        add(attribute.as_str(), "S");
    }
    for entity in spec.entities.values() {
        for a in entity.attributes.values().filter(|a| !a.key_only) {
            add(a.stored(), a.r#type.dynamo_type());
        }
        for name in entity.derived.keys() {
            add(name, "S");
        }
        for (index, t) in local_keys(spec, entity) {
            add(
                &t.attribute,
                spec.key_type(Some(index), &t.attribute).code(),
            );
        }
    }
    out
}

/// An entity's computed local index keys, with their index's name.
pub(super) fn local_keys<'s>(
    spec: &'s ir::Spec,
    entity: &'s ir::Entity,
) -> impl Iterator<Item = (&'s String, &'s ir::KeyTemplate)> {
    entity.index_keys.iter().flat_map(move |(index, key)| {
        let local = spec
            .indexes
            .get(index)
            .is_some_and(|i| i.kind == IndexKind::Local);
        key.templates()
            .filter(move |t| local && !t.is_natural())
            .map(move |t| (index, t))
    })
}

fn gsi(spec: &ir::Spec, index: &ir::Index) -> GlobalSecondaryIndex {
    let projection = super::table::index_projection(spec, &index.projection);
    GlobalSecondaryIndex {
        index_name: index.name.value.clone(),
        key_attributes: key_attributes(&index.partition_key, index.sort_key.as_ref()),
        projection: Projection {
            projection_type: projection.projection_type,
            non_key_attributes: (projection.projection_type == "INCLUDE")
                .then_some(projection.non_key_attributes),
        },
    }
}

fn facet(spec: &ir::Spec, entity: &ir::Entity, tenants: &[String]) -> Facet {
    let table_data: Vec<model::Item> = match &entity.examples {
        Some(examples) => examples
            .iter()
            .map(|e| samples::item(spec, entity, e))
            .collect(),
        None => samples::samples(spec, entity, tenants)
            .iter()
            .map(|s| samples::item(spec, entity, s))
            .collect(),
    };
    let table_keys: Vec<&str> = spec.table.keys().map(|k| k.name.as_str()).collect();
    let mut non_key: Vec<String> = Vec::new();
    let mut add = |name: &str| {
        if !table_keys.contains(&name) && !non_key.iter().any(|n| n == name) {
            non_key.push(name.to_owned());
        }
    };
    if let Some(attribute) = spec.table.entity_type.attribute() {
        add(attribute.as_str());
    }
    for a in entity.attributes.values().filter(|a| !a.key_only) {
        add(a.stored());
    }
    for name in entity.derived.keys() {
        add(name);
    }
    for (_, t) in local_keys(spec, entity) {
        add(&t.attribute);
    }
    for key in entity.index_keys.values() {
        for t in key.templates() {
            add(&t.attribute);
        }
    }
    Facet {
        facet_name: entity.name.value.clone(),
        key_attribute_alias: KeyAttributeAlias {
            partition_key_alias: entity.primary_key.pk.source.value.clone(),
            sort_key_alias: entity
                .primary_key
                .sk
                .as_ref()
                .map(|t| t.source.value.clone()),
        },
        table_data,
        non_key_attributes: non_key,
        data_access: DataAccess::default(),
    }
}

/// The sample tenants of a spec (none without a tenant).
pub fn sample_tenants(spec: &ir::Spec) -> Vec<String> {
    spec.tenant
        .as_ref()
        .map(samples::sample_tenants)
        .unwrap_or_default()
}

/// The Workbench model of a spec.
pub fn model(spec: &ir::Spec, options: &Options) -> Model {
    let table = &spec.table;
    let tenants = sample_tenants(spec);
    let date = workbench_date(options.date);
    let provisioned = table.billing.mode == BillingMode::Provisioned;
    let capacity = match (table.billing.read_capacity, table.billing.write_capacity) {
        (Some(read), Some(write)) if provisioned => Some(ProvisionedCapacitySettings {
            provisioned_throughput: ProvisionedThroughput {
                read_capacity_units: read,
                write_capacity_units: write,
            },
        }),
        _ => None,
    };
    Model {
        model_name: table.name.value.clone(),
        model_metadata: Metadata {
            author: options.author.clone(),
            date_created: date.clone(),
            date_last_modified: date,
            description: spec
                .description
                .clone()
                .or_else(|| table.description.clone())
                .unwrap_or_default(),
            aws_service: "Amazon DynamoDB",
            version: "3.0",
        },
        data_model: vec![Table {
            table_name: table.name.value.clone(),
            key_attributes: key_attributes(&table.partition_key, table.sort_key.as_ref()),
            non_key_attributes: non_key_attributes(spec),
            table_facets: spec
                .entities
                .values()
                .map(|e| facet(spec, e, &tenants))
                .collect(),
            global_secondary_indexes: spec
                .indexes
                .values()
                .filter(|i| i.kind == IndexKind::Global)
                .map(|i| gsi(spec, i))
                .collect(),
            data_access: DataAccess::default(),
            sample_data_formats: IndexMap::new(),
            billing_mode: if provisioned {
                "PROVISIONED"
            } else {
                "PAY_PER_REQUEST"
            },
            provisioned_capacity_settings: capacity,
        }],
    }
}

/// Why `spec` has no Workbench model, if it has none: a multi-attribute
/// index key, which the model format cannot hold (an index there has one
/// partition key and one sort key attribute).
pub fn refusal(spec: &ir::Spec) -> Option<crate::diagnostics::Diagnostic> {
    let index = spec.indexes.values().find(|i| i.is_multi_attribute())?;
    Some(
        crate::diagnostics::Diagnostic::new(
            crate::diagnostics::Code::InvalidValue,
            format!(
                "index `{}` has a multi-attribute key, which a NoSQL Workbench model cannot hold",
                index.name
            ),
        )
        .label(index.name.span, "a multi-attribute key")
        .help("a Workbench model's index has one partition key and one sort key attribute: the table definition, CloudFormation and Terraform outputs carry every attribute"),
    )
}

/// `<stem>.workbench.json`.
pub fn render_workbench(spec: &ir::Spec, stem: &str, options: &Options) -> GeneratedFile {
    GeneratedFile {
        name: format!("{stem}.workbench.json"),
        contents: super::table::to_json(&model(spec, options)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_in_workbench_style() {
        assert_eq!(workbench_date(1_735_689_600), "Jan 01, 2025, 12:00 AM");
        assert_eq!(workbench_date(1_567_684_200), "Sep 05, 2019, 11:50 AM");
        assert_eq!(workbench_date(1_575_232_920), "Dec 01, 2019, 08:42 PM");
    }
}
