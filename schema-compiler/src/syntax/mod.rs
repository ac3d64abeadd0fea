//! The spec as written: `*Decl` types that mirror the YAML one to one.
//!
//! Nothing here is interpreted yet (templates are strings, references are
//! names); [`crate::resolve`] turns these into the [`crate::ir`]. Every value
//! keeps its span, unknown keys are rejected, and the JSON Schema of the
//! format (`singletable schema`) is derived from these types.

pub mod de;
mod parse;

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::source::Spanned;
use de::{shorthand_impls, NamedMap, OneOrMany, Shorthand};

pub use parse::parse_spec;

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
    pub partition_key: Spanned<KeyAttributeDecl>,
    /// The sort key attribute (a generic name such as `sk`); omit for a simple primary key.
    #[serde(default)]
    pub sort_key: Option<Spanned<KeyAttributeDecl>>,
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
    /// The partition key attribute. Required for a global index; a local index shares the table's.
    #[serde(default)]
    pub partition_key: Option<Spanned<KeyAttributeDecl>>,
    /// The sort key attribute.
    #[serde(default)]
    pub sort_key: Option<Spanned<KeyAttributeDecl>>,
    /// `all` (default), `keys_only`, or a list of attributes to include.
    #[serde(default)]
    pub projection: Option<Spanned<ProjectionDecl>>,
    /// Provisioned read capacity of a global index.
    #[serde(default)]
    pub read_capacity: Option<Spanned<u64>>,
    /// Provisioned write capacity of a global index.
    #[serde(default)]
    pub write_capacity: Option<Spanned<u64>>,
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

/// An entity type.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EntityDecl {
    /// What the entity is; becomes the doc comment of the generated type.
    #[serde(default)]
    pub description: Option<Spanned<String>>,
    /// `tenant` (default when the spec has a tenant): every key is under the tenant.
    /// `global`: shared by all tenants (exempt from tenant checks, listed in a note).
    #[serde(default)]
    pub scope: Option<Spanned<Scope>>,
    /// Attributes by name, with their types.
    pub attributes: NamedMap<AttributeDecl>,
    /// The primary key templates.
    pub key: Spanned<KeyTemplatesDecl>,
    /// Key templates for the secondary indexes this entity is written into, by index name.
    /// An index whose template uses an optional attribute is sparse for this entity.
    #[serde(default)]
    pub indexes: NamedMap<KeyTemplatesDecl>,
    /// Write sharding: spread writes over `count` partitions through a `<shard>` placeholder.
    #[serde(default)]
    pub shards: Option<Spanned<ShardsDecl>>,
    /// Expected peak throughput, for capacity checks.
    #[serde(default)]
    pub throughput: Option<Spanned<ThroughputDecl>>,
    /// A Number attribute used for optimistic locking: updates are conditional on it.
    #[serde(default)]
    pub version_attribute: Option<Spanned<String>>,
    /// This entity is a counter of another entity's items, grouped by attributes.
    #[serde(default)]
    pub aggregate: Option<Spanned<AggregateDecl>>,
    /// Sample items for the NoSQL Workbench model, instead of generated ones:
    /// attribute values by name (lists, maps and binary values in DynamoDB
    /// JSON, e.g. `{ M: { note: { S: hi } } }`), plus the tenant placeholder
    /// (`tenant: acme`) and, for random sharding, `shard`. `[]` shows none.
    #[serde(default)]
    pub examples: Option<Spanned<Vec<IndexMap<String, serde_json::Value>>>>,
    /// Named write conditions on the stored item: per attribute, one
    /// condition (the grammar of a query's `filter`), all of which must
    /// hold; `<name>` operands become parameters of the generated
    /// constructor (`Ticket::in_stock(quantity)`).
    #[serde(default)]
    pub conditions: NamedMap<NamedMap<FilterDecl>>,
}

/// Entity scopes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// Under one tenant.
    Tenant,
    /// Shared by every tenant.
    Global,
}

/// An attribute: a type name (`string`, `integer?` for optional) or the long form.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct AttributeDecl {
    /// The type name.
    pub r#type: Spanned<String>,
    /// The attribute may be absent.
    pub optional: Option<Spanned<bool>>,
    /// What it means.
    pub description: Option<Spanned<String>>,
    /// Strings, binary and lists: the least length.
    pub min_length: Option<Spanned<u64>>,
    /// Strings, binary and lists: the greatest length (bytes for strings and binary).
    pub max_length: Option<Spanned<u64>>,
    /// Strings: a regular expression every value matches (its alphabet is used by key checks).
    pub pattern: Option<Spanned<String>>,
    /// Numbers: the least value.
    pub min: Option<Spanned<serde_json::Number>>,
    /// Numbers: the greatest value.
    pub max: Option<Spanned<serde_json::Number>>,
    /// Decimals: digits after the point.
    pub scale: Option<Spanned<u32>>,
    /// Enums: the values.
    pub values: Option<Vec<Spanned<String>>>,
    /// Lists: the element type.
    pub items: Option<Box<Spanned<AttributeDecl>>>,
    /// Maps: the declared fields (a record); without, any keys and values.
    pub fields: Option<NamedMap<AttributeDecl>>,
    /// Datetimes: how the value is stored (`rfc3339` default, `epoch_seconds`, `epoch_millis`).
    pub format: Option<Spanned<DatetimeFormat>>,
    /// Datetimes: fractional digits of the RFC 3339 form (`seconds`, `millis` default, `micros`, `nanos`).
    pub precision: Option<Spanned<TimePrecision>>,
    /// Typical size in bytes, for capacity estimates.
    pub typical_size: Option<Spanned<u64>>,
    /// Strings in keys: percent-encode `%` and every delimiter character, so
    /// any value is safe in a key template and decodes back exactly.
    pub escape: Option<Spanned<bool>>,
    /// The value lives only inside the primary key (an existing table's
    /// key part): read back out of the key, never written as an attribute.
    pub key_only: Option<Spanned<bool>>,
    /// The attribute's name in the table when it is not the spec's name
    /// (any name DynamoDB accepts: `Status#Time`, `follower#`).
    pub stored_as: Option<Spanned<String>>,
    /// A datetime the repository sets: `created` (on create and put),
    /// `updated` (on every write).
    pub timestamp: Option<Spanned<Timestamp>>,
    /// Counters and lists: updates that add to it, append to it or remove
    /// from it by index are sent as plain UpdateItems, which an answer
    /// lost and sent again applies twice, instead of exactly once.
    pub at_least_once: Option<Spanned<bool>>,
}

/// Which writes set a timestamp attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Timestamp {
    /// The time the item was created or put (an update that creates it
    /// sets it too; other updates keep it).
    Created,
    /// The time of the item's latest write: create, put or update.
    Updated,
}

/// The long form of [`AttributeDecl`].
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AttributeFull {
    /// One of `string`, `integer`, `decimal`, `boolean`, `datetime`, `enum`, `list`, `map`, `set`, `binary`.
    pub r#type: Spanned<String>,
    /// The attribute may be absent (default false).
    #[serde(default)]
    pub optional: Option<Spanned<bool>>,
    /// What it means.
    #[serde(default)]
    pub description: Option<Spanned<String>>,
    /// Strings, binary and lists: the least length.
    #[serde(default)]
    pub min_length: Option<Spanned<u64>>,
    /// Strings, binary and lists: the greatest length (bytes for strings and binary).
    #[serde(default)]
    pub max_length: Option<Spanned<u64>>,
    /// Strings: a regular expression every value matches.
    #[serde(default)]
    pub pattern: Option<Spanned<String>>,
    /// Numbers: the least value.
    #[serde(default)]
    pub min: Option<Spanned<serde_json::Number>>,
    /// Numbers: the greatest value.
    #[serde(default)]
    pub max: Option<Spanned<serde_json::Number>>,
    /// Decimals: digits after the point.
    #[serde(default)]
    pub scale: Option<Spanned<u32>>,
    /// Enums: the values.
    #[serde(default)]
    pub values: Option<Vec<Spanned<String>>>,
    /// Lists: the element type.
    #[serde(default)]
    pub items: Option<Box<Spanned<AttributeDecl>>>,
    /// Maps: the declared fields, by name, each typed like an attribute (a
    /// generated struct); without `fields`, a map holds any keys and values.
    #[serde(default)]
    pub fields: Option<NamedMap<AttributeDecl>>,
    /// Datetimes: `rfc3339` (default), `epoch_seconds` or `epoch_millis`.
    #[serde(default)]
    pub format: Option<Spanned<DatetimeFormat>>,
    /// Datetimes in RFC 3339: `seconds`, `millis` (default), `micros` or `nanos`.
    #[serde(default)]
    pub precision: Option<Spanned<TimePrecision>>,
    /// Typical size in bytes, for capacity estimates.
    #[serde(default)]
    pub typical_size: Option<Spanned<u64>>,
    /// Strings in keys: percent-encode `%` and every delimiter character, so
    /// any value is safe in a key template and decodes back exactly.
    #[serde(default)]
    pub escape: Option<Spanned<bool>>,
    /// The value lives only inside the primary key (an existing table's key
    /// part): read back out of the key, never written as an attribute of its own.
    #[serde(default)]
    pub key_only: Option<Spanned<bool>>,
    /// The attribute's name in the table when it is not the spec's name
    /// (any name DynamoDB accepts: `Status#Time`, `follower#`); the spec,
    /// templates and the Rust field use the spec's name.
    #[serde(default)]
    pub stored_as: Option<Spanned<String>>,
    /// A `datetime` the repository sets to the time of the write:
    /// `created` on create and put (and an update that creates the item),
    /// `updated` on every write. Required, never part of a key, and not
    /// set by callers (the update type has no setter for it).
    #[serde(default)]
    pub timestamp: Option<Spanned<Timestamp>>,
    /// Counters (required integers) and lists: an update that adds to it,
    /// appends to it or removes from it by index is applied exactly once by
    /// default, as a transaction with a client request token (twice the
    /// write units, and a consistent read of the item after it).
    /// `at_least_once: true` sends it as a plain UpdateItem instead (half
    /// the cost), which applies it twice when its answer is lost and the
    /// request sent again.
    #[serde(default)]
    pub at_least_once: Option<Spanned<bool>>,
}

impl Shorthand for AttributeDecl {
    type Full = AttributeFull;
    const EXPECTING: &'static str = "a type name (`string`, `integer?`, ...) or { type, ... }";
    fn from_str(s: &str) -> Self {
        let (ty, optional) = match s.strip_suffix('?') {
            Some(ty) => (ty, Some(Spanned::dummy(true))),
            None => (s, None),
        };
        AttributeDecl {
            r#type: Spanned::dummy(ty.to_owned()),
            optional,
            ..AttributeDecl::default()
        }
    }
    fn from_full(f: AttributeFull) -> Self {
        AttributeDecl {
            r#type: f.r#type,
            optional: f.optional,
            description: f.description,
            min_length: f.min_length,
            max_length: f.max_length,
            pattern: f.pattern,
            min: f.min,
            max: f.max,
            scale: f.scale,
            values: f.values,
            items: f.items,
            fields: f.fields,
            format: f.format,
            precision: f.precision,
            typical_size: f.typical_size,
            escape: f.escape,
            key_only: f.key_only,
            stored_as: f.stored_as,
            timestamp: f.timestamp,
            at_least_once: f.at_least_once,
        }
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

/// How a datetime is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DatetimeFormat {
    /// RFC 3339 in UTC with fixed precision, a String: sorts as it reads.
    Rfc3339,
    /// Seconds since the Unix epoch, a Number (the format TTL needs).
    EpochSeconds,
    /// Milliseconds since the Unix epoch, a Number.
    EpochMillis,
}

/// Fractional-second digits of an RFC 3339 datetime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TimePrecision {
    /// No fraction.
    Seconds,
    /// Three digits.
    Millis,
    /// Six digits.
    Micros,
    /// Nine digits.
    Nanos,
}

/// Key templates: `pk` and, when the table or index has a sort key, `sk`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KeyTemplatesDecl {
    /// Partition key template, e.g. `TENANT#<tenant>|TICKET#<id>`. Omitted for local indexes.
    #[serde(default)]
    pub pk: Option<Spanned<String>>,
    /// Sort key template, e.g. `COMMENT#<created_at>#<id>`.
    #[serde(default)]
    pub sk: Option<Spanned<String>>,
}

/// Write sharding.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShardsDecl {
    /// Number of shards; the `<shard>` placeholder takes values `0..count`.
    pub count: Spanned<u32>,
    /// `random` (writes pick a shard at random; reads scatter-gather) or
    /// `hash(<attribute>)` (a stable hash, so point reads compute the shard).
    pub by: Spanned<String>,
}

/// Expected peak throughput of an entity.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ThroughputDecl {
    /// Peak writes per second.
    #[serde(default)]
    pub writes_per_second: Option<Spanned<u64>>,
    /// Peak reads per second.
    #[serde(default)]
    pub reads_per_second: Option<Spanned<u64>>,
}

/// A counter entity: one item per group, counting items of another entity.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AggregateDecl {
    /// The counted entity.
    pub of: Spanned<String>,
    /// Attributes of the counted entity that pick the group (also attributes of this entity).
    #[serde(default)]
    pub group_by: OneOrMany,
    /// The integer attribute of this entity that holds the count.
    pub count: Spanned<String>,
    /// `transaction` (writes update the counter atomically) or `stream` (a DynamoDB Streams handler does).
    pub maintained_by: Spanned<Maintenance>,
}

/// How an aggregate is kept current.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Maintenance {
    /// In the same transaction as the write.
    Transaction,
    /// By a stream handler.
    Stream,
}

/// An access pattern: exactly one of `get`, `query`, `scan`, `transaction`, `batch`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AccessPatternDecl {
    /// The requirement, e.g. "As a user, I want to get a single ticket and all comments."
    #[serde(default)]
    pub description: Option<Spanned<String>>,
    /// The index queried (default: the table).
    #[serde(default)]
    pub index: Option<Spanned<String>>,
    /// GetItem of one entity by its full primary key.
    #[serde(default)]
    pub get: Option<Spanned<String>>,
    /// A Query with an equality on the partition key and an optional sort-key condition.
    #[serde(default)]
    pub query: Option<Spanned<QueryDecl>>,
    /// A Scan of the table (or `index`) returning the items of one entity:
    /// for global data read by an admin role, never through a tenant's
    /// handle.
    #[serde(default)]
    pub scan: Option<Spanned<String>>,
    /// A TransactWriteItems over the listed entities.
    #[serde(default)]
    pub transaction: Option<Spanned<TransactionDecl>>,
    /// BatchGetItem / BatchWriteItem over the listed entities.
    #[serde(default)]
    pub batch: Option<Spanned<BatchDecl>>,
    /// The entity types a query returns (inferred from the key templates when omitted).
    #[serde(default)]
    pub returns: Option<Spanned<OneOrMany>>,
    /// `ascending` (default) or `descending` sort-key order.
    #[serde(default)]
    pub order: Option<Spanned<Order>>,
    /// Strongly consistent reads (table and local indexes only).
    #[serde(default)]
    pub consistent_read: Option<Spanned<bool>>,
    /// The attributes a get or query reads (a ProjectionExpression): the
    /// method returns a partial type holding exactly them.
    #[serde(default)]
    pub select: Option<Spanned<Vec<Spanned<String>>>>,
    /// A query's filter: per attribute, one condition on it; all must hold
    /// (a FilterExpression, applied after the key condition has read the
    /// items).
    #[serde(default)]
    pub filter: Option<Spanned<NamedMap<FilterDecl>>>,
    /// Expected request rate, for capacity and cost figures.
    #[serde(default)]
    pub rate: Option<Spanned<RateDecl>>,
}

/// One filter condition on an attribute: exactly one operator. Operands
/// are literals (typed by the attribute) or `<name>`, a parameter of the
/// generated method.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FilterDecl {
    /// `a = :v`
    #[serde(default, alias = "=")]
    pub equals: Option<Spanned<Scalar>>,
    /// `a <> :v`
    #[serde(default, alias = "<>")]
    pub not_equals: Option<Spanned<Scalar>>,
    /// `a < :v`
    #[serde(default, alias = "<")]
    pub lt: Option<Spanned<Scalar>>,
    /// `a <= :v`
    #[serde(default, alias = "<=")]
    pub lte: Option<Spanned<Scalar>>,
    /// `a > :v`
    #[serde(default, alias = ">")]
    pub gt: Option<Spanned<Scalar>>,
    /// `a >= :v`
    #[serde(default, alias = ">=")]
    pub gte: Option<Spanned<Scalar>>,
    /// `a BETWEEN :a AND :b`: two operands.
    #[serde(default)]
    pub between: Option<Spanned<Vec<Spanned<Scalar>>>>,
    /// `a IN (:a, :b, …)`: one to 100 operands.
    #[serde(default, rename = "in")]
    pub is_in: Option<Spanned<Vec<Spanned<Scalar>>>>,
    /// `begins_with(a, :v)` (strings).
    #[serde(default)]
    pub begins_with: Option<Spanned<Scalar>>,
    /// `contains(a, :v)`: a substring of a string, an element of a set or list.
    #[serde(default)]
    pub contains: Option<Spanned<Scalar>>,
    /// `attribute_exists(a)` (`true`) or `attribute_not_exists(a)` (`false`).
    #[serde(default)]
    pub exists: Option<Spanned<bool>>,
}

/// A YAML scalar as written: text, a number or a boolean.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Scalar {
    /// A string.
    Text(String),
    /// A number, as written.
    Number(String),
    /// A boolean.
    Bool(bool),
}

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Scalar;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string, a number or a boolean")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Scalar, E> {
                Ok(Scalar::Text(v.to_owned()))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Scalar, E> {
                Ok(Scalar::Number(v.to_string()))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Scalar, E> {
                Ok(Scalar::Number(v.to_string()))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Scalar, E> {
                Ok(Scalar::Number(v.to_string()))
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Scalar, E> {
                Ok(Scalar::Bool(v))
            }
        }
        d.deserialize_any(V)
    }
}

/// A query's key condition.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QueryDecl {
    /// The partition key value, a template: `TENANT#<tenant>|TICKET#<id>`.
    pub pk: Spanned<String>,
    /// The sort-key condition: a template (equality) or one operator.
    #[serde(default)]
    pub sk: Option<Spanned<SortConditionDecl>>,
}

/// A sort-key condition: a template (shorthand for `equals`) or exactly one operator.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct SortConditionDecl {
    /// `sk = :v`
    pub equals: Option<Spanned<String>>,
    /// `begins_with(sk, :v)`
    pub begins_with: Option<Spanned<String>>,
    /// `sk BETWEEN :a AND :b`
    pub between: Option<Spanned<Vec<Spanned<String>>>>,
    /// `sk < :v`
    pub lt: Option<Spanned<String>>,
    /// `sk <= :v`
    pub lte: Option<Spanned<String>>,
    /// `sk > :v`
    pub gt: Option<Spanned<String>>,
    /// `sk >= :v`
    pub gte: Option<Spanned<String>>,
}

/// The long form of [`SortConditionDecl`].
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SortConditionFull {
    /// `sk = :v`
    #[serde(default)]
    pub equals: Option<Spanned<String>>,
    /// `begins_with(sk, :v)`
    #[serde(default)]
    pub begins_with: Option<Spanned<String>>,
    /// `sk BETWEEN :a AND :b`: two templates.
    #[serde(default)]
    pub between: Option<Spanned<Vec<Spanned<String>>>>,
    /// `sk < :v`
    #[serde(default, alias = "<")]
    pub lt: Option<Spanned<String>>,
    /// `sk <= :v`
    #[serde(default, alias = "<=")]
    pub lte: Option<Spanned<String>>,
    /// `sk > :v`
    #[serde(default, alias = ">")]
    pub gt: Option<Spanned<String>>,
    /// `sk >= :v`
    #[serde(default, alias = ">=")]
    pub gte: Option<Spanned<String>>,
}

impl Shorthand for SortConditionDecl {
    type Full = SortConditionFull;
    const EXPECTING: &'static str =
        "a sort key template or one of { equals, begins_with, between, lt, lte, gt, gte }";
    fn from_str(s: &str) -> Self {
        SortConditionDecl {
            equals: Some(Spanned::dummy(s.to_owned())),
            ..SortConditionDecl::default()
        }
    }
    fn from_full(f: SortConditionFull) -> Self {
        SortConditionDecl {
            equals: f.equals,
            begins_with: f.begins_with,
            between: f.between,
            lt: f.lt,
            lte: f.lte,
            gt: f.gt,
            gte: f.gte,
        }
    }
}
shorthand_impls!(
    SortConditionDecl,
    "SortCondition",
    json!({ "type": "string" })
);

/// Sort order of query results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// Ascending sort key (DynamoDB's default).
    Ascending,
    /// Descending sort key (`ScanIndexForward = false`).
    Descending,
}

/// A write transaction over entities of one tenant.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TransactionDecl {
    /// Entities put unconditionally.
    #[serde(default)]
    pub put: Option<Spanned<OneOrMany>>,
    /// Entities created (put on condition that the item does not exist).
    #[serde(default)]
    pub create: Option<Spanned<OneOrMany>>,
    /// Entities updated.
    #[serde(default)]
    pub update: Option<Spanned<OneOrMany>>,
    /// Entities deleted.
    #[serde(default)]
    pub delete: Option<Spanned<OneOrMany>>,
    /// Entities whose condition is checked without writing them.
    #[serde(default)]
    pub condition_check: Option<Spanned<OneOrMany>>,
    /// The most items one call may carry (at most 100, DynamoDB's limit; default 100).
    #[serde(default)]
    pub max_items: Option<Spanned<u32>>,
}

/// A batch over entities of one tenant.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BatchDecl {
    /// Entities read with BatchGetItem (100 keys per call).
    #[serde(default)]
    pub get: Option<Spanned<OneOrMany>>,
    /// Entities written with BatchWriteItem puts (25 items per call).
    #[serde(default)]
    pub put: Option<Spanned<OneOrMany>>,
    /// Entities deleted with BatchWriteItem deletes.
    #[serde(default)]
    pub delete: Option<Spanned<OneOrMany>>,
}

/// A role: one kind of principal and the access patterns it may run.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RoleDecl {
    /// Who holds the role, e.g. "A tenant's administrator: reads aggregates, never writes tickets."
    #[serde(default)]
    pub description: Option<Spanned<String>>,
    /// The access patterns the role may run, by name. Its IAM policy grants
    /// their actions and indexes only (no entity reads or writes besides them).
    pub access_patterns: Spanned<OneOrMany>,
}

/// Expected rate of an access pattern.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RateDecl {
    /// Calls per second at peak.
    pub per_second: Spanned<f64>,
    /// Items a call typically reads or writes (default 1).
    #[serde(default)]
    pub items: Option<Spanned<u64>>,
}
