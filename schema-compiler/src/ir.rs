//! The resolved model: the only thing checks and emitters see.
//!
//! Names are resolved, templates are parsed into typed segments, defaults are
//! applied. Maps keep declaration order ([`IndexMap`]), so every output is
//! deterministic. Spans ride along in [`Spanned`] fields for diagnostics but
//! do not take part in equality or serialization.

use indexmap::IndexMap;
use serde::Serialize;

use crate::source::{Span, Spanned};

pub use crate::syntax::{
    BillingMode, DatetimeFormat, IndexKind, KeyType, LintLevel, Maintenance, Order, ResourcePolicy,
    Scope, StreamView, TimePrecision,
};

/// A resolved spec.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Spec {
    /// What the table is for.
    pub description: Option<String>,
    /// The table.
    pub table: Table,
    /// The tenant, if the table is multi-tenant.
    pub tenant: Option<Tenant>,
    /// Secondary indexes by name, in declaration order.
    pub indexes: IndexMap<String, Index>,
    /// Entities by name, in declaration order.
    pub entities: IndexMap<String, Entity>,
    /// Access patterns by name, in declaration order.
    pub access_patterns: IndexMap<String, AccessPattern>,
    /// Roles by name, in declaration order.
    pub roles: IndexMap<String, Role>,
    /// Lint levels set by the spec, by diagnostic name.
    pub lints: IndexMap<String, LintLevel>,
}

impl Spec {
    /// The type of the key attribute `name` of the table or an index
    /// (`String` when no key has that name).
    pub fn key_type_of(&self, name: &str) -> KeyType {
        self.key_attributes()
            .find(|k| k.name.value == name)
            .map_or(KeyType::String, |k| k.r#type)
    }

    /// Whether `template` holds its one value as it is stored rather than
    /// as key text: a natural key (the attribute itself), and any template
    /// of a Number or Binary key attribute, which is exactly one placeholder
    /// (`<min_score>` of a Number sort key is a number, ordered as DynamoDB
    /// orders numbers, whatever the placeholder is called).
    pub fn holds_value(&self, template: &KeyTemplate) -> bool {
        template.is_natural()
            || (matches!(template.segments.as_slice(), [Segment::Placeholder(_)])
                && self.key_type_of(&template.attribute) != KeyType::String)
    }

    /// The key attributes of the table, then of each index.
    pub fn key_attributes(&self) -> impl Iterator<Item = &KeyAttribute> {
        std::iter::once(&self.table.partition_key)
            .chain(&self.table.sort_key)
            .chain(
                self.indexes
                    .values()
                    .flat_map(|i| std::iter::once(&i.partition_key).chain(&i.sort_key)),
            )
    }

    /// Whether the access pattern named `name` is a scan.
    pub fn is_scan(&self, name: &str) -> bool {
        self.access_patterns
            .get(name)
            .is_some_and(|p| matches!(p.operation, Operation::Scan(_)))
    }

    /// Whether `role` runs scans: an admin role, which IAM cannot confine
    /// to one tenant.
    pub fn is_admin_role(&self, role: &Role) -> bool {
        role.access_patterns.iter().any(|name| self.is_scan(name))
    }

    /// The partition-key templates of the access patterns that query, with
    /// their access pattern: each becomes a `dynamodb:LeadingKeys` pattern.
    pub fn query_partition_keys(&self) -> impl Iterator<Item = (&AccessPattern, &KeyTemplate)> {
        self.access_patterns
            .values()
            .filter_map(|p| match &p.operation {
                Operation::Query(q) => Some((p, &q.pk)),
                Operation::Get { .. }
                | Operation::Scan(_)
                | Operation::Transaction(_)
                | Operation::Batch(_) => None,
            })
    }
}

/// The table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Table {
    /// DynamoDB table name.
    pub name: Spanned<String>,
    /// Description.
    pub description: Option<String>,
    /// Partition key attribute.
    pub partition_key: KeyAttribute,
    /// Sort key attribute.
    pub sort_key: Option<KeyAttribute>,
    /// TTL attribute name.
    pub ttl: Option<Spanned<String>>,
    /// Billing.
    pub billing: Billing,
    /// Stream view type.
    pub stream: Option<StreamView>,
    /// How the entity of an item is told.
    pub entity_type: EntityType,
    /// What protects the table's items from infrastructure operations.
    pub protection: Protection,
}

/// What protects a table's items from being deleted by an infrastructure
/// operation: DynamoDB's deletion protection and CloudFormation's policies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Protection {
    /// DynamoDB refuses `DeleteTable` while this is on.
    pub deletion_protection: bool,
    /// CloudFormation's `DeletionPolicy`.
    pub deletion_policy: ResourcePolicy,
    /// CloudFormation's `UpdateReplacePolicy`.
    pub update_replace_policy: ResourcePolicy,
}

impl Protection {
    /// Whether these are the defaults: protected and retained.
    pub fn is_default(&self) -> bool {
        *self == Protection::default()
    }
}

impl Default for Protection {
    fn default() -> Self {
        Protection {
            deletion_protection: true,
            deletion_policy: ResourcePolicy::Retain,
            update_replace_policy: ResourcePolicy::Retain,
        }
    }
}

/// How the entity of an item read back is told.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EntityType {
    /// An attribute holds a value per entity, written with every item.
    Attribute {
        /// The attribute.
        name: Spanned<String>,
        /// The stored value by entity name, for entities whose value is
        /// not their name.
        values: IndexMap<String, String>,
    },
    /// The shape of the primary key: no two entities' primary keys can be
    /// equal (the checker proves it), so the key tells the entity and no
    /// attribute is written.
    Keys,
}

impl EntityType {
    /// The attribute holding the entity type, if items carry one.
    pub fn attribute(&self) -> Option<&Spanned<String>> {
        match self {
            EntityType::Attribute { name, .. } => Some(name),
            EntityType::Keys => None,
        }
    }

    /// The attribute and value an item of `entity` carries, if any.
    pub fn marker<'a>(&'a self, entity: &'a str) -> Option<(&'a str, &'a str)> {
        self.attribute()
            .map(|name| (name.as_str(), self.value_of(entity)))
    }

    /// The value stored for `entity` in the entity-type attribute.
    pub fn value_of<'a>(&'a self, entity: &'a str) -> &'a str {
        match self {
            EntityType::Attribute { values, .. } => {
                values.get(entity).map_or(entity, String::as_str)
            }
            EntityType::Keys => entity,
        }
    }
}

/// A key attribute of the table or an index.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KeyAttribute {
    /// Attribute name.
    pub name: Spanned<String>,
    /// DynamoDB scalar type.
    pub r#type: KeyType,
}

/// Billing mode and capacity.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Billing {
    /// The mode.
    pub mode: BillingMode,
    /// Provisioned read capacity units.
    pub read_capacity: Option<u64>,
    /// Provisioned write capacity units.
    pub write_capacity: Option<u64>,
}

/// The tenant.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tenant {
    /// Placeholder name in templates.
    pub placeholder: Spanned<String>,
    /// Regular expression tenant ids match.
    pub id_pattern: Spanned<String>,
    /// The characters a tenant id may contain.
    pub alphabet: CharSet,
    /// Least length in characters.
    pub min_length: usize,
    /// Greatest length in characters, if bounded.
    pub max_length: Option<usize>,
    /// IAM principal tag carrying the tenant id.
    pub principal_tag: Spanned<String>,
}

/// A set of characters, as sorted, non-overlapping inclusive ranges.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Default)]
pub struct CharSet {
    /// The ranges.
    pub ranges: Vec<(char, char)>,
}

impl CharSet {
    /// Every character.
    pub fn any() -> CharSet {
        CharSet {
            ranges: vec![('\0', char::MAX)],
        }
    }

    /// Whether `c` is in the set.
    pub fn contains(&self, c: char) -> bool {
        self.ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi)
    }

    /// Whether the set holds every character.
    pub fn is_any(&self) -> bool {
        self.ranges == [('\0', char::MAX)]
    }
}

/// A secondary index.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Index {
    /// Index name.
    pub name: Spanned<String>,
    /// Global or local.
    pub kind: IndexKind,
    /// Description.
    pub description: Option<String>,
    /// Partition key attribute (the table's for a local index).
    pub partition_key: KeyAttribute,
    /// Sort key attribute.
    pub sort_key: Option<KeyAttribute>,
    /// Projected attributes.
    pub projection: Projection,
    /// Provisioned read capacity (global indexes).
    pub read_capacity: Option<u64>,
    /// Provisioned write capacity (global indexes).
    pub write_capacity: Option<u64>,
}

/// Which attributes an index carries.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Projection {
    /// Every attribute.
    All,
    /// Only the table and index keys.
    KeysOnly,
    /// The keys plus these attributes.
    Include(Vec<String>),
}

/// An entity type.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entity {
    /// Name (PascalCase by convention; the generated type's name).
    pub name: Spanned<String>,
    /// Description.
    pub description: Option<String>,
    /// Tenant-scoped or global.
    pub scope: Scope,
    /// Attributes in declaration order.
    pub attributes: IndexMap<String, Attribute>,
    /// Primary key templates.
    pub primary_key: EntityKey,
    /// Key templates per secondary index this entity is written into.
    pub index_keys: IndexMap<String, EntityKey>,
    /// Write sharding.
    pub shards: Option<Sharding>,
    /// Expected peak throughput.
    pub throughput: Throughput,
    /// Optimistic-locking attribute.
    pub version_attribute: Option<String>,
    /// Counter semantics, if this entity aggregates another.
    pub aggregate: Option<Aggregate>,
    /// Sample items declared in the spec (the Workbench model shows these
    /// instead of generated ones); `Some(vec![])` shows none.
    pub examples: Option<Vec<Example>>,
    /// Named write conditions on the stored item, by name: each a list of
    /// conditions that must all hold.
    pub conditions: IndexMap<String, NamedCondition>,
}

/// A write condition the spec names on an entity (`conditions: { open:
/// { status: { equals: open } } }`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NamedCondition {
    /// Its name (the generated constructor's).
    pub name: Spanned<String>,
    /// What must hold, in the grammar of a query's filter.
    pub conditions: Vec<FilterCondition>,
}

impl Entity {
    /// Whether the entity is the counter of an aggregate the table's stream
    /// keeps: only the stream handler writes its items.
    pub fn kept_by_stream(&self) -> bool {
        self.aggregate
            .as_ref()
            .is_some_and(|a| a.maintained_by == Maintenance::Stream)
    }

    /// Whether `attribute` is a placeholder of the primary key (an update
    /// never changes it).
    pub fn in_primary_key(&self, attribute: &str) -> bool {
        self.primary_key
            .templates()
            .flat_map(|t| t.placeholders())
            .any(|p| p.kind == PlaceholderKind::Attribute && p.name.value == attribute)
    }

    /// The attributes that are placeholders of the primary key: for loops
    /// over every attribute, which asking [`Entity::in_primary_key`] each
    /// time would make quadratic in a long key.
    pub fn primary_key_attributes(&self) -> std::collections::BTreeSet<&str> {
        self.primary_key
            .templates()
            .flat_map(|t| t.placeholders())
            .filter(|p| p.kind == PlaceholderKind::Attribute)
            .map(|p| p.name.value.as_str())
            .collect()
    }

    /// The fields of typed maps an update sets or removes one by one, as
    /// `(map, field)`: every field of a map attribute outside the keys.
    pub fn field_changes(&self) -> Vec<(&Attribute, &Attribute)> {
        let mut out = Vec::new();
        let keys = self.primary_key_attributes();
        for a in self.attributes.values() {
            if keys.contains(a.name.as_str()) || a.key_only {
                continue;
            }
            let AttributeType::Map {
                fields: Some(fields),
            } = &a.r#type
            else {
                continue;
            };
            out.extend(fields.values().map(|f| (a, f)));
        }
        out
    }

    /// What an update can do to attributes besides setting them: add to a
    /// counter (a required integer outside every index key, not the
    /// version), add to a set and remove from an optional one, append to a
    /// list and remove from it by index.
    pub fn element_changes(&self) -> Vec<(&Attribute, ElementChange)> {
        let index_placeholders: std::collections::BTreeSet<&str> = self
            .index_keys
            .values()
            .flat_map(|k| k.templates())
            .flat_map(|t| t.placeholders())
            .map(|p| p.name.value.as_str())
            .collect();
        let in_index_key = |a: &Attribute| index_placeholders.contains(a.name.as_str());
        let keys = self.primary_key_attributes();
        let mut out = Vec::new();
        for a in self.attributes.values() {
            if keys.contains(a.name.as_str()) || a.key_only {
                continue;
            }
            match &a.r#type {
                AttributeType::Integer { .. }
                    if !a.optional
                        && self.version_attribute.as_deref() != Some(a.name.as_str())
                        && !in_index_key(a) =>
                {
                    out.push((a, ElementChange::Add));
                }
                AttributeType::Set { .. } => {
                    out.push((a, ElementChange::SetAdd));
                    if a.optional {
                        out.push((a, ElementChange::SetRemove));
                    }
                }
                AttributeType::List { .. } => {
                    out.push((a, ElementChange::ListAppend));
                    out.push((a, ElementChange::ListRemoveAt));
                }
                _ => {}
            }
        }
        out
    }
}

/// A change of an attribute's elements by an update.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ElementChange {
    /// Adds to a counter (`ADD`).
    Add,
    /// Adds elements to a set (`ADD`).
    SetAdd,
    /// Removes elements from a set (`DELETE`).
    SetRemove,
    /// Appends elements to a list (`list_append`).
    ListAppend,
    /// Removes elements of a list by index (`REMOVE list[i]`).
    ListRemoveAt,
}

/// A sample item of an entity, as declared in the spec.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Example {
    /// The tenant id, for tenant-scoped entities.
    pub tenant: Option<String>,
    /// The write shard, for randomly sharded entities (computed for hash sharding).
    pub shard: Option<u32>,
    /// Attribute values; absent optional attributes are left out.
    pub values: IndexMap<String, ExampleValue>,
}

/// The value of one attribute in an [`Example`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExampleValue {
    /// Strings, enums and RFC 3339 datetimes (their stored text).
    Text(String),
    /// Integers.
    Integer(i64),
    /// Decimals, as written.
    Decimal(String),
    /// Booleans.
    Bool(bool),
    /// Datetimes: seconds since the epoch and nanoseconds.
    Time(i64, u32),
    /// Lists, maps and binary values, stored as they are.
    Stored(AttributeValue),
}

/// A DynamoDB attribute value in DynamoDB JSON (`{"S": "…"}`, `{"N": "12"}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub enum AttributeValue {
    /// String.
    S(String),
    /// Number, as text.
    N(String),
    /// Binary, base64.
    B(String),
    /// Boolean.
    #[serde(rename = "BOOL")]
    Bool(bool),
    /// Null.
    #[serde(rename = "NULL")]
    Null(bool),
    /// Map.
    M(IndexMap<String, AttributeValue>),
    /// List.
    L(Vec<AttributeValue>),
    /// String set.
    #[serde(rename = "SS")]
    Ss(Vec<String>),
    /// Number set.
    #[serde(rename = "NS")]
    Ns(Vec<String>),
    /// Binary set.
    #[serde(rename = "BS")]
    Bs(Vec<String>),
}

impl AttributeValue {
    /// The type's tag: `S`, `N`, `BOOL`, …
    pub fn type_name(&self) -> &'static str {
        match self {
            AttributeValue::S(_) => "S",
            AttributeValue::N(_) => "N",
            AttributeValue::B(_) => "B",
            AttributeValue::Bool(_) => "BOOL",
            AttributeValue::Null(_) => "NULL",
            AttributeValue::M(_) => "M",
            AttributeValue::L(_) => "L",
            AttributeValue::Ss(_) => "SS",
            AttributeValue::Ns(_) => "NS",
            AttributeValue::Bs(_) => "BS",
        }
    }
}

/// An attribute of an entity.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Attribute {
    /// Name.
    pub name: Spanned<String>,
    /// Type and bounds.
    pub r#type: AttributeType,
    /// May be absent.
    pub optional: bool,
    /// Description.
    pub description: Option<String>,
    /// Typical size in bytes, for capacity estimates.
    pub typical_size: Option<u64>,
    /// In keys, `%` and delimiter characters are percent-encoded.
    pub escape: bool,
    /// Kept only inside the primary key: read back out of it, never written
    /// as an attribute of its own.
    pub key_only: bool,
    /// The attribute's name in the table, when it is not `name`.
    pub stored_as: Option<String>,
    /// A datetime the repository sets on the writes this names.
    pub timestamp: Option<crate::syntax::Timestamp>,
    /// Counters and lists: updates that change it relative to the stored
    /// value are sent as plain UpdateItems (applied twice when an answer
    /// is lost and the request sent again) instead of exactly once.
    pub at_least_once: bool,
}

impl Attribute {
    /// The attribute's name in the table's items.
    pub fn stored(&self) -> &str {
        self.stored_as.as_deref().unwrap_or(&self.name.value)
    }

    /// How a value of this attribute is written into a key.
    pub fn key_encoding(&self) -> KeyEncoding {
        match &self.r#type {
            AttributeType::String { .. } if self.escape => KeyEncoding::Escaped,
            AttributeType::String { .. } => KeyEncoding::Text,
            AttributeType::Integer { min, max } => KeyEncoding::integer(*min, *max),
            AttributeType::Datetime { format, precision } => KeyEncoding::Datetime {
                format: *format,
                precision: (*format == DatetimeFormat::Rfc3339).then_some(*precision),
            },
            AttributeType::Enum { .. } | AttributeType::Boolean => KeyEncoding::Word,
            AttributeType::Decimal { .. }
            | AttributeType::List { .. }
            | AttributeType::Map { .. }
            | AttributeType::Set { .. }
            | AttributeType::Binary { .. } => KeyEncoding::None,
        }
    }

    /// The type as people read it (`integer 0..=9`).
    pub fn describe_type(&self) -> String {
        match &self.r#type {
            AttributeType::Enum { values } => format!("enum ({})", values.join(", ")),
            AttributeType::Integer { min, max } if *min != i64::MIN || *max != i64::MAX => {
                format!("integer {min}..={max}")
            }
            AttributeType::String {
                pattern: Some(p), ..
            } => format!("string `{p}`"),
            AttributeType::String {
                max_length: Some(m),
                ..
            } => format!("string, at most {m} bytes"),
            other @ (AttributeType::String { .. }
            | AttributeType::Integer { .. }
            | AttributeType::Decimal { .. }
            | AttributeType::Boolean
            | AttributeType::Datetime { .. }
            | AttributeType::List { .. }
            | AttributeType::Map { .. }
            | AttributeType::Binary { .. }) => other.name().to_owned(),
            AttributeType::Set { of } => format!("set of {}s", of.name()),
        }
    }
}

/// How a placeholder's value is written into a key: values meet in a key
/// only when they are written the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum KeyEncoding {
    /// The string as it is.
    Text,
    /// The string with `%` and every delimiter percent-encoded.
    Escaped,
    /// Decimal digits zero-padded to `width`, after adding `offset` (the
    /// negated least value, when it is negative), so text order is numeric order.
    Integer {
        /// Digits.
        width: usize,
        /// Added to the value before it is written.
        offset: u64,
    },
    /// A timestamp: RFC 3339 in UTC with `precision`'s fractional digits,
    /// or zero-padded epoch seconds or milliseconds.
    Datetime {
        /// The form.
        format: DatetimeFormat,
        /// Fractional digits of the RFC 3339 form.
        precision: Option<TimePrecision>,
    },
    /// An enum value or a boolean, as its word.
    Word,
    /// The type cannot be part of a key (reported by the checker).
    None,
}

impl KeyEncoding {
    /// The encoding of an integer between `min` and `max`.
    pub fn integer(min: i64, max: i64) -> KeyEncoding {
        KeyEncoding::Integer {
            width: KeyEncoding::integer_width(min, max),
            offset: if min < 0 { min.unsigned_abs() } else { 0 },
        }
    }

    /// The digits of an integer between `min` and `max` in a key (the
    /// runtime's rule, from `singletable_codec`).
    pub fn integer_width(min: i64, max: i64) -> usize {
        singletable_codec::integer_width(min, max)
    }

    /// The encoding as people read it: `text`, `integers padded to 3 digits`.
    pub fn describe(&self) -> String {
        match self {
            KeyEncoding::Text => "plain text".to_owned(),
            KeyEncoding::Escaped => "percent-escaped text".to_owned(),
            KeyEncoding::Integer { width, offset: 0 } => {
                format!("integers padded to {width} digits")
            }
            KeyEncoding::Integer { width, offset } => {
                format!("integers plus {offset}, padded to {width} digits")
            }
            KeyEncoding::Datetime { format, precision } => {
                let form = match format {
                    DatetimeFormat::Rfc3339 => "RFC 3339 timestamps",
                    DatetimeFormat::EpochSeconds => "epoch seconds",
                    DatetimeFormat::EpochMillis => "epoch milliseconds",
                };
                match precision {
                    Some(p) => format!("{form} with {} precision", format!("{p:?}").to_lowercase()),
                    None => form.to_owned(),
                }
            }
            KeyEncoding::Word => "words".to_owned(),
            KeyEncoding::None => "no key encoding".to_owned(),
        }
    }
}

/// Attribute types with their bounds.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AttributeType {
    /// UTF-8 string.
    String {
        /// Least length in bytes.
        min_length: Option<u64>,
        /// Greatest length in bytes.
        max_length: Option<u64>,
        /// Regular expression values match.
        pattern: Option<String>,
        /// Characters values may contain (every character without a pattern).
        alphabet: CharSet,
    },
    /// 64-bit signed integer.
    Integer {
        /// Least value.
        min: i64,
        /// Greatest value.
        max: i64,
    },
    /// Decimal number (exact, stored as a DynamoDB Number).
    Decimal {
        /// Least value, as written.
        min: Option<String>,
        /// Greatest value, as written.
        max: Option<String>,
        /// Digits after the point.
        scale: Option<u32>,
    },
    /// true or false.
    Boolean,
    /// A UTC point in time.
    Datetime {
        /// Storage format.
        format: DatetimeFormat,
        /// Fractional digits of the RFC 3339 form.
        precision: TimePrecision,
    },
    /// One of a fixed set of words.
    Enum {
        /// The values, in declaration order.
        values: Vec<String>,
    },
    /// A list.
    List {
        /// Element type, if declared.
        items: Option<Box<AttributeType>>,
        /// Least number of elements.
        min_length: Option<u64>,
        /// Greatest number of elements.
        max_length: Option<u64>,
    },
    /// A map: with declared `fields`, a record (a generated struct); without,
    /// string keys and any values.
    Map {
        /// The declared fields, in declaration order (their `name`s are the
        /// spec's; `stored_as` names them in the stored map).
        fields: Option<IndexMap<String, Attribute>>,
    },
    /// A DynamoDB set (`SS`, `NS` or `BS`): distinct values, never empty.
    Set {
        /// What it holds.
        of: SetOf,
    },
    /// Bytes.
    Binary {
        /// Least length.
        min_length: Option<u64>,
        /// Greatest length.
        max_length: Option<u64>,
    },
}

/// The values a set holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SetOf {
    /// Strings (`SS`).
    String,
    /// Integers (`NS`).
    Integer,
    /// Decimals (`NS`).
    Decimal,
    /// Bytes (`BS`).
    Binary,
}

impl SetOf {
    /// The DynamoDB type tag of the set.
    pub fn tag(self) -> &'static str {
        match self {
            SetOf::String => "SS",
            SetOf::Integer | SetOf::Decimal => "NS",
            SetOf::Binary => "BS",
        }
    }

    /// The element type's name as written in specs.
    pub fn name(self) -> &'static str {
        match self {
            SetOf::String => "string",
            SetOf::Integer => "integer",
            SetOf::Decimal => "decimal",
            SetOf::Binary => "binary",
        }
    }
}

/// `"an integer"`, `"a string"`: a type name with its article.
pub fn with_article(name: &str) -> String {
    let article = if name.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {name}")
}

impl AttributeType {
    /// A type whose values are anything: the untyped map.
    pub const ANY: AttributeType = AttributeType::Map { fields: None };

    /// The declared fields of a typed map, or of the typed-map elements of
    /// a list (of lists, …): the type has a generated struct.
    pub fn record_fields(&self) -> Option<&IndexMap<String, Attribute>> {
        match self {
            AttributeType::Map { fields } => fields.as_ref(),
            AttributeType::List {
                items: Some(items), ..
            } => items.record_fields(),
            _ => None,
        }
    }

    /// Whether a stored value (DynamoDB JSON) is of this type: its type
    /// tag, an enum's values, and through lists and typed maps (every
    /// required field present) the same for what they hold; the error
    /// names the path to the value at fault.
    pub fn check_stored(&self, av: &AttributeValue) -> Result<(), String> {
        let expected = match self {
            AttributeType::String { .. } | AttributeType::Enum { .. } => "S",
            AttributeType::Datetime { format, .. } => match format {
                DatetimeFormat::Rfc3339 => "S",
                DatetimeFormat::EpochSeconds | DatetimeFormat::EpochMillis => "N",
            },
            AttributeType::Integer { .. } | AttributeType::Decimal { .. } => "N",
            AttributeType::Boolean => "BOOL",
            AttributeType::List { .. } => "L",
            AttributeType::Map { .. } => "M",
            AttributeType::Set { of } => of.tag(),
            AttributeType::Binary { .. } => "B",
        };
        if av.type_name() != expected {
            return Err(format!("is {}, expected {expected}", av.type_name()));
        }
        match (self, av) {
            (AttributeType::Enum { values }, AttributeValue::S(text)) if !values.contains(text) => {
                Err(format!("is `{text}`, not one of {}", values.join(", ")))
            }
            (
                AttributeType::List {
                    items: Some(items), ..
                },
                AttributeValue::L(elements),
            ) => elements.iter().enumerate().try_for_each(|(i, e)| {
                items
                    .check_stored(e)
                    .map_err(|why| format!("element {i} {why}"))
            }),
            (
                AttributeType::Map {
                    fields: Some(fields),
                },
                AttributeValue::M(map),
            ) => fields.values().try_for_each(|f| match map.get(f.stored()) {
                None | Some(AttributeValue::Null(_)) if f.optional => Ok(()),
                None => Err(format!("has no field `{}`", f.stored())),
                Some(value) => f
                    .r#type
                    .check_stored(value)
                    .map_err(|why| format!("field `{}` {why}", f.stored())),
            }),
            _ => Ok(()),
        }
    }

    /// The type's name with its article: `an integer`, `a string`.
    pub fn article_name(&self) -> String {
        with_article(self.name())
    }

    /// The type's name as written in specs.
    pub fn name(&self) -> &'static str {
        match self {
            AttributeType::String { .. } => "string",
            AttributeType::Integer { .. } => "integer",
            AttributeType::Decimal { .. } => "decimal",
            AttributeType::Boolean => "boolean",
            AttributeType::Datetime { .. } => "datetime",
            AttributeType::Enum { .. } => "enum",
            AttributeType::List { .. } => "list",
            AttributeType::Map { .. } => "map",
            AttributeType::Set { .. } => "set",
            AttributeType::Binary { .. } => "binary",
        }
    }

    /// The values of an enum, or of the enum elements of a list (of lists,
    /// …): the type has a generated enum (`Vec<Size>` for a list of sizes).
    pub fn enum_values(&self) -> Option<&Vec<String>> {
        match self {
            AttributeType::Enum { values } => Some(values),
            AttributeType::List {
                items: Some(items), ..
            } => items.enum_values(),
            _ => None,
        }
    }

    /// Whether a value of this type can be encoded into a key template.
    pub fn is_key_compatible(&self) -> bool {
        matches!(
            self,
            AttributeType::String { .. }
                | AttributeType::Integer { .. }
                | AttributeType::Datetime { .. }
                | AttributeType::Enum { .. }
                | AttributeType::Boolean
        )
    }
}

/// The key templates of an entity on the table or on one index.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EntityKey {
    /// Partition key template.
    pub pk: KeyTemplate,
    /// Sort key template.
    pub sk: Option<KeyTemplate>,
    /// The entity is only in this index when every optional placeholder is present.
    pub sparse: bool,
}

impl EntityKey {
    /// The partition and sort key templates.
    pub fn templates(&self) -> impl Iterator<Item = &KeyTemplate> {
        std::iter::once(&self.pk).chain(self.sk.as_ref())
    }
}

/// A parsed key template such as `TENANT#<tenant>|TICKET#<id>`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KeyTemplate {
    /// The key attribute this template fills (`pk`, `sk`, `tenant_status`).
    pub attribute: String,
    /// The template as written.
    pub source: Spanned<String>,
    /// Literals and placeholders.
    pub segments: Vec<Segment>,
    /// Whether the template is exactly one attribute placeholder whose
    /// attribute is stored under the key attribute's name (its own name,
    /// or `stored_as`): the item's own attribute is the key.
    #[serde(skip)]
    pub natural: bool,
}

impl KeyTemplate {
    /// The placeholders in order.
    pub fn placeholders(&self) -> impl Iterator<Item = &Placeholder> {
        self.segments.iter().filter_map(|s| match s {
            Segment::Placeholder(p) => Some(p),
            Segment::Literal(_) => None,
        })
    }

    /// Whether the template names `<shard>`.
    pub fn has_shard(&self) -> bool {
        self.placeholders()
            .any(|p| p.kind == PlaceholderKind::Shard)
    }

    /// The literal text before the first placeholder.
    pub fn literal_prefix(&self) -> String {
        self.segments
            .iter()
            .map_while(|s| match s {
                Segment::Literal(l) => Some(l.as_str()),
                Segment::Placeholder(_) => None,
            })
            .collect()
    }

    /// Where a template that starts with the tenant puts it: the literal
    /// text before the tenant, and what ends the tenant's segment. `None`
    /// when a placeholder other than the tenant comes first (or there is no
    /// tenant). The IAM `dynamodb:LeadingKeys` patterns and the runtime's
    /// check of the items a tenant's queries return are both built from it.
    pub fn tenant_prefix(&self) -> Option<TenantPrefix> {
        let mut literal = String::new();
        let mut segments = self.segments.iter();
        loop {
            match segments.next()? {
                Segment::Literal(l) => literal.push_str(l),
                Segment::Placeholder(p) if p.kind == PlaceholderKind::Tenant => break,
                Segment::Placeholder(_) => return None,
            }
        }
        let end = match segments.next() {
            None => TenantEnd::Key,
            Some(Segment::Literal(l)) => match l.chars().next() {
                Some(delimiter) => TenantEnd::Delimiter(delimiter),
                None => TenantEnd::Key,
            },
            Some(Segment::Placeholder(_)) => TenantEnd::Placeholder,
        };
        Some(TenantPrefix { literal, end })
    }

    /// Whether the template is exactly one attribute placeholder whose
    /// attribute is stored under the key attribute's name: the item's own
    /// attribute is the key, nothing is computed.
    pub fn is_natural(&self) -> bool {
        self.natural_attribute().is_some()
    }

    /// The attribute (by its spec name) that is the key, for a natural key.
    pub fn natural_attribute(&self) -> Option<&str> {
        match self.segments.as_slice() {
            [Segment::Placeholder(p)] if self.natural && p.kind == PlaceholderKind::Attribute => {
                Some(p.name.as_str())
            }
            _ => None,
        }
    }
}

/// The start of a key template up to the end of its tenant segment:
/// `TENANT#<tenant>|…` is the literal `TENANT#`, the tenant, and the
/// delimiter `|`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TenantPrefix {
    /// The literal text before the tenant.
    pub literal: String,
    /// What follows the tenant.
    pub end: TenantEnd,
}

/// What follows the tenant in a key template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TenantEnd {
    /// Nothing: the tenant ends the key.
    Key,
    /// A literal starting with this character (which the checker proves no
    /// tenant id contains).
    Delimiter(char),
    /// Another placeholder (`tenant_prefix_unsafe`): the tenant's end cannot be told.
    Placeholder,
}

/// A piece of a key template.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Segment {
    /// Fixed text.
    Literal(String),
    /// A value filled in at run time.
    Placeholder(Placeholder),
}

/// A `<name>` in a template.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Placeholder {
    /// The name between the angle brackets (span: the whole `<name>`).
    pub name: Spanned<String>,
    /// What the name refers to.
    pub kind: PlaceholderKind,
}

/// What a placeholder stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PlaceholderKind {
    /// The tenant id.
    Tenant,
    /// The write shard number.
    Shard,
    /// An attribute of the entity (in entity templates) or a parameter (in access patterns).
    Attribute,
}

/// Write sharding of an entity.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sharding {
    /// Number of shards.
    pub count: Spanned<u32>,
    /// How writes pick a shard.
    pub by: ShardBy,
}

/// How writes pick a shard.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ShardBy {
    /// At random; reads scatter over every shard.
    Random,
    /// A stable hash of this attribute; point reads compute the shard.
    Hash(String),
}

/// Expected peak throughput.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Throughput {
    /// Writes per second.
    pub writes_per_second: Option<Spanned<u64>>,
    /// Reads per second.
    pub reads_per_second: Option<Spanned<u64>>,
}

/// An entity that counts another entity's items.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Aggregate {
    /// The counted entity.
    pub of: String,
    /// Grouping attributes (present on both entities).
    pub group_by: Vec<String>,
    /// This entity's integer count attribute.
    pub count: String,
    /// How the count is kept current.
    pub maintained_by: Maintenance,
}

/// An access pattern.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AccessPattern {
    /// Name (snake_case; the generated method's name).
    pub name: Spanned<String>,
    /// The requirement it serves.
    pub description: Option<String>,
    /// What it does.
    pub operation: Operation,
    /// The attributes a get or query reads, by spec name, when it names
    /// them (`select`): every other attribute is left out of the request.
    pub select: Option<Vec<String>>,
    /// The entities it reads in part, with the attributes (spec names) of
    /// their partial types: those `select` names, or, on an index that
    /// does not project every attribute, those the index carries
    /// (projected, or held by the table's or the index's keys).
    pub partials: IndexMap<String, Vec<String>>,
    /// Expected rate.
    pub rate: Option<Rate>,
}

impl AccessPattern {
    /// The entities the access pattern names: the one it gets, those a
    /// query returns, those a transaction or batch writes or reads.
    pub fn named_entities(&self) -> Vec<&str> {
        match &self.operation {
            Operation::Get { entity, .. } => vec![entity.as_str()],
            Operation::Query(q) => q.returns.iter().map(String::as_str).collect(),
            Operation::Scan(s) => vec![s.entity.as_str()],
            Operation::Transaction(t) => t.items.iter().map(|(_, e)| e.as_str()).collect(),
            Operation::Batch(b) => b
                .get
                .iter()
                .chain(&b.put)
                .chain(&b.delete)
                .map(String::as_str)
                .collect(),
        }
    }
}

/// The DynamoDB operation of an access pattern.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Operation {
    /// GetItem of one entity by its full primary key.
    Get {
        /// The entity.
        entity: String,
        /// Strongly consistent.
        consistent_read: bool,
    },
    /// Query.
    Query(Box<Query>),
    /// Scan.
    Scan(Box<Scan>),
    /// TransactWriteItems.
    Transaction(Transaction),
    /// BatchGetItem / BatchWriteItem.
    Batch(Batch),
}

/// Where a query runs.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IndexRef {
    /// The base table.
    Table,
    /// A secondary index by name.
    Index(String),
}

impl IndexRef {
    /// An entity's keys where this points: its primary key on the table,
    /// its keys for the index if it is written into it.
    pub fn keys_of<'e>(&self, entity: &'e Entity) -> Option<&'e EntityKey> {
        match self {
            IndexRef::Table => Some(&entity.primary_key),
            IndexRef::Index(i) => entity.index_keys.get(i),
        }
    }
}

/// A Query access pattern.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Query {
    /// Table or index.
    pub index: IndexRef,
    /// Partition key value template (equality).
    pub pk: KeyTemplate,
    /// Sort key condition.
    pub sk: Option<SortCondition>,
    /// Entity types returned, in declaration order of the entities.
    pub returns: Vec<String>,
    /// Whether `returns` was written in the spec (otherwise inferred).
    pub returns_declared: bool,
    /// Every entity whose keys on this index match the key condition.
    pub matching: Vec<String>,
    /// Parameters: placeholders other than the tenant and shard, typed by the entities they bind to.
    pub params: IndexMap<String, Param>,
    /// Entity attributes fixed by literals in the key condition (entity, attribute, value).
    pub fixed: Vec<FixedValue>,
    /// Sort order.
    pub order: Order,
    /// Strongly consistent.
    pub consistent_read: bool,
    /// The filter: conditions on attributes that must all hold for an item
    /// to be returned (a FilterExpression, applied after the key condition
    /// has read the items).
    pub filter: Vec<FilterCondition>,
}

/// A Scan access pattern: every item of the table or an index, of which
/// it returns those of one entity (global data, in a spec with a tenant).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scan {
    /// Table or index.
    pub index: IndexRef,
    /// The entity returned; items of other entities are skipped.
    pub entity: String,
    /// Strongly consistent.
    pub consistent_read: bool,
    /// The filter: conditions on attributes that must all hold for an item
    /// to be returned (a FilterExpression).
    pub filter: Vec<FilterCondition>,
}

/// One condition of a query's filter.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FilterCondition {
    /// The attribute, by spec name.
    pub attribute: String,
    /// Its stored name.
    pub stored: String,
    /// The operator.
    pub op: FilterOp,
    /// The operands: none (`exists`), one, two (`between`) or several (`in`).
    pub operands: Vec<FilterOperand>,
    /// Where it was written.
    #[serde(skip)]
    pub span: Span,
}

/// A filter operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FilterOp {
    /// `a = :v`
    Equals,
    /// `a <> :v`
    NotEquals,
    /// `a < :v`
    Lt,
    /// `a <= :v`
    Lte,
    /// `a > :v`
    Gt,
    /// `a >= :v`
    Gte,
    /// `a BETWEEN :a AND :b`
    Between,
    /// `a IN (:a, …)`
    In,
    /// `begins_with(a, :v)`
    BeginsWith,
    /// `contains(a, :v)`
    Contains,
    /// `attribute_exists(a)`
    Exists,
    /// `attribute_not_exists(a)`
    NotExists,
}

/// A filter operand: a literal, or a parameter of the generated method.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FilterOperand {
    /// A value written in the spec, as DynamoDB stores it.
    Literal(FilterLiteral),
    /// `<name>`: a parameter of the method, of this type (the attribute's,
    /// or its elements' for `contains` on a set).
    Param {
        /// The parameter's name.
        name: String,
        /// Its type.
        r#type: AttributeType,
    },
}

/// A literal filter operand, as DynamoDB stores it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FilterLiteral {
    /// A string (`S`).
    S(String),
    /// A number (`N`), as written.
    N(String),
    /// A boolean (`BOOL`).
    Bool(bool),
}

/// A sort-key condition.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SortCondition {
    /// The operator.
    pub op: SortOp,
    /// One operand, or two for `between`.
    pub operands: Vec<KeyTemplate>,
    /// Where it was written.
    #[serde(skip)]
    pub span: Span,
}

/// Sort-key operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SortOp {
    /// `=`
    Equals,
    /// `begins_with`
    BeginsWith,
    /// `BETWEEN`
    Between,
    /// `<`
    Lt,
    /// `<=`
    Lte,
    /// `>`
    Gt,
    /// `>=`
    Gte,
}

impl SortOp {
    /// Whether the operator compares order (`lt`, `lte`, `gt`, `gte`,
    /// `between`) rather than matching a key or its prefix: its operands
    /// are bounds, not templates an entity's keys spell out.
    pub fn is_range(self) -> bool {
        match self {
            SortOp::Equals | SortOp::BeginsWith => false,
            SortOp::Between | SortOp::Lt | SortOp::Lte | SortOp::Gt | SortOp::Gte => true,
        }
    }
}

/// A typed parameter of an access pattern.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Param {
    /// Name (the generated method's argument).
    pub name: Spanned<String>,
    /// Type, taken from the entity attributes it binds to.
    pub r#type: AttributeType,
    /// `(entity, attribute)` pairs the parameter fills.
    pub binds: Vec<(String, String)>,
    /// How the parameter is written into the key: the one encoding all of
    /// its binds share.
    pub encoding: KeyEncoding,
}

/// An entity attribute fixed by a literal in an access pattern key.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FixedValue {
    /// Entity.
    pub entity: String,
    /// Attribute.
    pub attribute: String,
    /// The literal.
    pub value: String,
}

/// A transaction access pattern.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Transaction {
    /// `(operation, entity)` pairs allowed in the transaction.
    pub items: Vec<(TransactionOp, String)>,
    /// Most items per call.
    pub max_items: Spanned<u32>,
}

/// Transaction item operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TransactionOp {
    /// Put.
    Put,
    /// Put if absent.
    Create,
    /// Update.
    Update,
    /// Delete.
    Delete,
    /// ConditionCheck.
    ConditionCheck,
}

/// A batch access pattern.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Batch {
    /// Entities read.
    pub get: Vec<String>,
    /// Entities put.
    pub put: Vec<String>,
    /// Entities deleted.
    pub delete: Vec<String>,
}

/// A role: the access patterns one kind of principal may run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Role {
    /// Name (snake_case).
    pub name: Spanned<String>,
    /// Who holds the role.
    pub description: Option<String>,
    /// The access patterns it may run, in the order written, each once.
    pub access_patterns: Vec<Spanned<String>>,
}

/// Expected rate of an access pattern.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rate {
    /// Calls per second.
    pub per_second: f64,
    /// Items per call.
    pub items: u64,
}
