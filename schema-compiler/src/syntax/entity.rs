//! Entities as written: attributes, key templates, shards, throughput and aggregates.

use super::*;

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
    /// Named write conditions on the stored item, each in the grammar of a
    /// query's `filter` (per attribute, one condition; `and`, `or`, `not`),
    /// all of whose entries must hold; `<name>` operands become parameters
    /// of the generated constructor (`Ticket::in_stock(quantity)`).
    #[serde(default)]
    pub conditions: NamedMap<FilterMap>,
    /// Attributes the repository computes and stores on every write, by
    /// their name in the table: a constant (`__edb_v__: "1"`) or a template
    /// over the entity's attributes, written as keys are
    /// (`"<last_name>, <first_name>"`). They are not fields of the
    /// generated type; updates recompute them when an input changes.
    #[serde(default)]
    pub derived: NamedMap<String>,
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
    /// Strings in keys: written in this letter case (`lower`, `upper`).
    pub case: Option<Spanned<KeyCase>>,
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
    /// Required scalars: the value an item without the attribute reads as.
    pub default: Option<Spanned<Scalar>>,
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
    /// Strings in keys: every key holds the value in this letter case,
    /// `lower` or `upper` (Unicode's default case mapping, as ElectroDB's
    /// `casing` writes keys); the attribute itself keeps the value as
    /// given. Keys then tell values apart only up to case, and the value
    /// is never read back out of a key (not `key_only`, not a natural key).
    #[serde(default)]
    pub case: Option<Spanned<KeyCase>>,
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
    /// Required strings, enums, integers, decimals and booleans: the value
    /// a stored item that lacks the attribute reads as (one written before
    /// the attribute was added). Writes always store the field's value.
    /// It keeps the attribute's rules; not on key parts or timestamps.
    #[serde(default)]
    pub default: Option<Spanned<Scalar>>,
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
            case: f.case,
            key_only: f.key_only,
            stored_as: f.stored_as,
            timestamp: f.timestamp,
            at_least_once: f.at_least_once,
            default: f.default,
        }
    }
}

/// The letter case of a string's value in keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum KeyCase {
    /// Lower case (`JDoe` → `jdoe`).
    Lower,
    /// Upper case (`JDoe` → `JDOE`).
    Upper,
}

impl KeyCase {
    /// The codec's case.
    pub fn codec(self) -> singletable_codec::Case {
        match self {
            KeyCase::Lower => singletable_codec::Case::Lower,
            KeyCase::Upper => singletable_codec::Case::Upper,
        }
    }
}

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
    /// Partition key template, e.g. `TENANT#<tenant>|TICKET#<id>`; a list of
    /// one per attribute for a multi-attribute index key. Omitted for local
    /// indexes.
    #[serde(default)]
    pub pk: Option<Spanned<Parts<String>>>,
    /// Sort key template, e.g. `COMMENT#<created_at>#<id>`; a list of one
    /// per attribute for a multi-attribute index key.
    #[serde(default)]
    pub sk: Option<Spanned<Parts<String>>>,
    /// Indexes: a boolean attribute of the entity; the item is in the
    /// index while it is `true` (its index keys are written then, and
    /// removed when it turns `false` or, optional, is removed).
    #[serde(default)]
    pub when: Option<Spanned<String>>,
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
