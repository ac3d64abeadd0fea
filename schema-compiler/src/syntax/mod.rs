//! The spec as written: `*Decl` types that mirror the YAML one to one.
//!
//! Nothing here is interpreted yet (templates are strings, references are
//! names); [`crate::resolve`] turns these into the [`crate::ir`]. Every value
//! keeps its span, unknown keys are rejected, and the JSON Schema of the
//! format (`singletable schema`) is derived from these types.

pub mod de;
mod entity;
mod filter;
mod parse;
mod pattern;
mod settings;

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::source::Spanned;
use de::{shorthand_impls, NamedMap, OneOrMany, Parts, Shorthand};

pub use entity::*;
pub use filter::*;
pub use parse::parse_spec;
pub use pattern::*;
pub use settings::*;

/// A whole spec file.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    title = "singletable spec",
    description = "An Amazon DynamoDB single-table design: the table, its tenant, indexes, entities and access patterns."
)]
pub struct SpecDecl {
    /// The spec format version. Always `1`.
    pub version: Spanned<u32>,
    /// What the table is for.
    #[serde(default)]
    pub description: Option<Spanned<String>>,
    /// The table: name, key attribute names, TTL, billing.
    pub table: Spanned<TableDecl>,
    /// The tenant: how tenant ids look and how IAM names them. Without it, every entity is global.
    #[serde(default)]
    pub tenant: Option<Spanned<TenantDecl>>,
    /// Secondary indexes (global and local) by name.
    #[serde(default)]
    pub indexes: NamedMap<IndexDecl>,
    /// Entity types stored in the table, by name.
    pub entities: NamedMap<EntityDecl>,
    /// The access patterns the table serves, by name (snake_case: each becomes a method).
    #[serde(default)]
    pub access_patterns: NamedMap<AccessPatternDecl>,
    /// Roles by name (snake_case): each gets its own IAM policy granting only
    /// the actions of its access patterns, e.g.
    /// `roles: { tenant_admin: { access_patterns: [ticket_counts_by_status] } }`.
    #[serde(default)]
    pub roles: NamedMap<RoleDecl>,
    /// Lint levels by diagnostic name (`allow`, `warn`, `deny`) for checks whose
    /// default is a warning or note, e.g. `lints: { unused_index: allow }`.
    #[serde(default)]
    pub lints: NamedMap<LintLevel>,
}

/// What to do with a lint's findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LintLevel {
    /// Do not report.
    Allow,
    /// Report as a warning.
    Warn,
    /// Report as an error.
    Deny,
}

/// The table.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TableDecl {
    /// The DynamoDB table name.
    pub name: Spanned<String>,
    /// What the table is for.
    #[serde(default)]
    pub description: Option<Spanned<String>>,
    /// The partition key attribute (a generic name such as `pk`).
    pub partition_key: Spanned<Parts<KeyAttributeDecl>>,
    /// The sort key attribute (a generic name such as `sk`); omit for a simple primary key.
    #[serde(default)]
    pub sort_key: Option<Spanned<Parts<KeyAttributeDecl>>>,
    /// The TTL attribute: a Number of epoch seconds after which DynamoDB may delete the item.
    #[serde(default)]
    pub ttl: Option<Spanned<String>>,
    /// `on_demand` (default) or provisioned capacity.
    #[serde(default)]
    pub billing: Option<Spanned<BillingDecl>>,
    /// DynamoDB Streams view type, if the table has a stream.
    #[serde(default)]
    pub stream: Option<Spanned<StreamView>>,
    /// The attribute that records each item's entity type (default
    /// `entity_type`); the short form of `entity_type: { attribute: … }`.
    #[serde(default)]
    pub entity_type_attribute: Option<Spanned<String>>,
    /// How an item's entity is told: `keys` (by the shape of its primary
    /// key, no attribute written), or `{ attribute, values }` (an attribute
    /// holding a value per entity, by default the entity's name).
    #[serde(default)]
    pub entity_type: Option<Spanned<EntityTypeDecl>>,
    /// DynamoDB deletion protection: `DeleteTable` is refused while it is
    /// on (default `true`).
    #[serde(default)]
    pub deletion_protection: Option<Spanned<bool>>,
    /// What CloudFormation does with the table when the stack deletes it
    /// (`DeletionPolicy`; default `retain`).
    #[serde(default)]
    pub deletion_policy: Option<Spanned<ResourcePolicy>>,
    /// What CloudFormation does with the old table when an update replaces
    /// it (`UpdateReplacePolicy`; default `retain`).
    #[serde(default)]
    pub update_replace_policy: Option<Spanned<ResourcePolicy>>,
    /// Point-in-time recovery, as the days it reaches back (1 to 35); off
    /// when absent.
    #[serde(default)]
    pub point_in_time_recovery: Option<Spanned<u64>>,
    /// Encryption at rest with a KMS key: `aws_managed` (the account's
    /// `alias/aws/dynamodb`), or a customer managed key's ARN, id or alias.
    /// Absent: DynamoDB's own key (AWS owned).
    #[serde(default)]
    pub kms_key: Option<Spanned<String>>,
    /// `standard` (default) or `standard_infrequent_access`.
    #[serde(default)]
    pub table_class: Option<Spanned<TableClass>>,
    /// Tags on the table (up to 50; keys 1 to 128 characters, values up to
    /// 256, no `aws:` prefix).
    #[serde(default)]
    pub tags: NamedMap<String>,
    /// CloudWatch Contributor Insights on the table and its global indexes:
    /// `accessed_and_throttled_keys` or `throttled_keys`.
    #[serde(default)]
    pub contributor_insights: Option<Spanned<InsightsMode>>,
    /// The most request units per second an on-demand table may consume.
    #[serde(default)]
    pub max_throughput: Option<Spanned<UnitsDecl>>,
    /// The units per second the table serves at once, without warming up:
    /// `{ read, write }`, or `rates` (what the declared rates need).
    #[serde(default)]
    pub warm_throughput: Option<Spanned<WarmDecl>>,
    /// Replicas in other Regions: a global table.
    #[serde(default)]
    pub replicas: Option<Spanned<ReplicasDecl>>,
    /// The table's resource-based policy: IAM statements about who may do
    /// what to the table and its indexes (at most 20 KB).
    #[serde(default)]
    pub resource_policy: Option<Spanned<Vec<Spanned<StatementDecl>>>>,
}

/// Request or capacity units per second, for reads and for writes.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UnitsDecl {
    /// Read units per second.
    #[serde(default)]
    pub read: Option<Spanned<u64>>,
    /// Write units per second.
    #[serde(default)]
    pub write: Option<Spanned<u64>>,
}

/// DynamoDB's table classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TableClass {
    /// `STANDARD`.
    Standard,
    /// `STANDARD_INFREQUENT_ACCESS`: cheaper storage, dearer requests.
    StandardInfrequentAccess,
}

/// What Contributor Insights records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum InsightsMode {
    /// The most accessed and the most throttled keys.
    AccessedAndThrottledKeys,
    /// The most throttled keys only.
    ThrottledKeys,
}

/// What CloudFormation does with a table it deletes or replaces.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Deserialize,
    Serialize,
    JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ResourcePolicy {
    /// Keep the table and its items (`Retain`).
    #[default]
    Retain,
    /// Keep a backup of the table, then delete it (`Snapshot`).
    Snapshot,
    /// Delete the table and every item in it (`Delete`).
    Delete,
}

impl ResourcePolicy {
    /// CloudFormation's name for it.
    pub fn cloudformation(self) -> &'static str {
        match self {
            ResourcePolicy::Retain => "Retain",
            ResourcePolicy::Snapshot => "Snapshot",
            ResourcePolicy::Delete => "Delete",
        }
    }
}

/// How an item's entity is told: `keys`, or `{ attribute, values }`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EntityTypeDecl {
    /// The short form as written (`keys`).
    pub by: Option<Spanned<String>>,
    /// The attribute holding the entity type.
    pub attribute: Option<Spanned<String>>,
    /// The value stored for each entity (default: the entity's name).
    pub values: NamedMap<String>,
}

/// The long form of [`EntityTypeDecl`].
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EntityTypeFull {
    /// The attribute holding the entity type.
    pub attribute: Spanned<String>,
    /// The value stored for each entity, by entity name (default: the entity's name).
    #[serde(default)]
    pub values: NamedMap<String>,
}

impl Shorthand for EntityTypeDecl {
    type Full = EntityTypeFull;
    const EXPECTING: &'static str = "`keys` or { attribute, values }";
    fn from_str(s: &str) -> Self {
        EntityTypeDecl {
            by: Some(Spanned::dummy(s.to_owned())),
            attribute: None,
            values: NamedMap::default(),
        }
    }
    fn from_full(full: EntityTypeFull) -> Self {
        EntityTypeDecl {
            by: None,
            attribute: Some(full.attribute),
            values: full.values,
        }
    }
}
shorthand_impls!(
    EntityTypeDecl,
    "EntityType",
    json!({ "type": "string", "enum": ["keys"] })
);

/// A key attribute: a name (`pk`) or a name with a DynamoDB scalar type.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KeyAttributeDecl {
    /// The attribute name.
    pub name: Spanned<String>,
    /// `string` (default), `number` or `binary`.
    pub r#type: Option<Spanned<KeyType>>,
}

/// The long form of [`KeyAttributeDecl`].
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KeyAttributeFull {
    /// The attribute name.
    pub name: Spanned<String>,
    /// `string` (default), `number` or `binary`.
    #[serde(default)]
    pub r#type: Option<Spanned<KeyType>>,
}

impl Shorthand for KeyAttributeDecl {
    type Full = KeyAttributeFull;
    const EXPECTING: &'static str = "an attribute name or { name, type }";
    fn from_str(s: &str) -> Self {
        KeyAttributeDecl {
            name: Spanned::dummy(s.to_owned()),
            r#type: None,
        }
    }
    fn from_full(full: KeyAttributeFull) -> Self {
        KeyAttributeDecl {
            name: full.name,
            r#type: full.r#type,
        }
    }
}
shorthand_impls!(
    KeyAttributeDecl,
    "KeyAttribute",
    json!({ "type": "string" })
);

/// DynamoDB scalar types a key attribute can have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum KeyType {
    /// `S`
    String,
    /// `N`
    Number,
    /// `B`
    Binary,
}

impl KeyType {
    /// `S`, `N` or `B`, as DynamoDB spells the type.
    pub fn code(self) -> &'static str {
        match self {
            KeyType::String => "S",
            KeyType::Number => "N",
            KeyType::Binary => "B",
        }
    }
}

/// Billing: `on_demand`, or `{ mode: provisioned, read_capacity, write_capacity }`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BillingDecl {
    /// The mode.
    pub mode: Spanned<BillingMode>,
    /// Provisioned read capacity units.
    pub read_capacity: Option<Spanned<u64>>,
    /// Provisioned write capacity units.
    pub write_capacity: Option<Spanned<u64>>,
}

/// The long form of [`BillingDecl`].
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BillingFull {
    /// The mode.
    pub mode: Spanned<BillingMode>,
    /// Provisioned read capacity units.
    #[serde(default)]
    pub read_capacity: Option<Spanned<u64>>,
    /// Provisioned write capacity units.
    #[serde(default)]
    pub write_capacity: Option<Spanned<u64>>,
}

impl Shorthand for BillingDecl {
    type Full = BillingFull;
    const EXPECTING: &'static str =
        "`on_demand`, `provisioned` or { mode, read_capacity, write_capacity }";
    fn from_str(s: &str) -> Self {
        let mode = match s {
            "provisioned" => BillingMode::Provisioned,
            "on_demand" => BillingMode::OnDemand,
            _ => BillingMode::Unknown,
        };
        BillingDecl {
            mode: Spanned::dummy(mode),
            read_capacity: None,
            write_capacity: None,
        }
    }
    fn from_full(full: BillingFull) -> Self {
        BillingDecl {
            mode: full.mode,
            read_capacity: full.read_capacity,
            write_capacity: full.write_capacity,
        }
    }
}
shorthand_impls!(
    BillingDecl,
    "Billing",
    json!({ "enum": ["on_demand", "provisioned"] })
);

/// Billing modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BillingMode {
    /// Pay per request.
    OnDemand,
    /// Provisioned capacity.
    Provisioned,
    /// Written in short form with an unknown name; resolve reports it.
    #[serde(skip)]
    Unknown,
}

/// DynamoDB Streams view types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StreamView {
    /// `KEYS_ONLY`
    KeysOnly,
    /// `NEW_IMAGE`
    NewImage,
    /// `OLD_IMAGE`
    OldImage,
    /// `NEW_AND_OLD_IMAGES`
    NewAndOldImages,
}

/// The tenant.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TenantDecl {
    /// The placeholder name that stands for the tenant id in key templates (default `tenant`).
    #[serde(default)]
    pub placeholder: Option<Spanned<String>>,
    /// A regular expression every tenant id matches (default `^[A-Za-z0-9_-]{1,64}$`).
    /// It must exclude the key delimiters and IAM wildcards.
    #[serde(default)]
    pub id_pattern: Option<Spanned<String>>,
    /// The IAM principal tag that carries the tenant id (default `TenantId`).
    #[serde(default)]
    pub principal_tag: Option<Spanned<String>>,
    /// Notes.
    #[serde(default)]
    pub description: Option<Spanned<String>>,
}

/// A secondary index.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IndexDecl {
    /// `global` (default) or `local`.
    #[serde(default)]
    pub kind: Option<Spanned<IndexKind>>,
    /// What the index is for.
    #[serde(default)]
    pub description: Option<Spanned<String>>,
    /// The partition key attribute, or a global index's list of one to
    /// four (a multi-attribute key: `[tenant_id, status]`). Required for a
    /// global index; a local index shares the table's.
    #[serde(default)]
    pub partition_key: Option<Spanned<Parts<KeyAttributeDecl>>>,
    /// The sort key attribute, or a global index's list of one to four
    /// (items sort by the first, then the second, ...).
    #[serde(default)]
    pub sort_key: Option<Spanned<Parts<KeyAttributeDecl>>>,
    /// `all` (default), `keys_only`, or a list of attributes to include.
    #[serde(default)]
    pub projection: Option<Spanned<ProjectionDecl>>,
    /// Provisioned read capacity of a global index.
    #[serde(default)]
    pub read_capacity: Option<Spanned<u64>>,
    /// Provisioned write capacity of a global index.
    #[serde(default)]
    pub write_capacity: Option<Spanned<u64>>,
    /// The most request units per second an on-demand global index may consume.
    #[serde(default)]
    pub max_throughput: Option<Spanned<UnitsDecl>>,
    /// The units per second a global index serves at once: `{ read, write }`,
    /// or `rates` (what the declared rates need).
    #[serde(default)]
    pub warm_throughput: Option<Spanned<WarmDecl>>,
}

/// Index kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum IndexKind {
    /// A global secondary index.
    Global,
    /// A local secondary index.
    Local,
}

/// An index projection: `all`, `keys_only`, or the attributes to include.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum ProjectionDecl {
    /// `all`, `keys_only` or something else (reported by resolve).
    Named(String),
    /// `INCLUDE` these attributes.
    Include(Vec<Spanned<String>>),
}

impl<'de> Deserialize<'de> for ProjectionDecl {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = ProjectionDecl;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("`all`, `keys_only` or a list of attribute names")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Self::Value, E> {
                Ok(ProjectionDecl::Named(s.to_owned()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(item) = seq.next_element()? {
                    out.push(item);
                }
                Ok(ProjectionDecl::Include(out))
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for ProjectionDecl {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Projection".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "anyOf": [
                { "enum": ["all", "keys_only"] },
                { "type": "array", "items": { "type": "string" } }
            ]
        })
    }
}

shorthand_impls!(
    AttributeDecl,
    "Attribute",
    json!({
        "type": "string",
        "pattern": "^(string|integer|decimal|boolean|datetime|list|map|binary)\\??$"
    })
);

shorthand_impls!(
    SortConditionDecl,
    "SortCondition",
    json!({ "type": "string" })
);
