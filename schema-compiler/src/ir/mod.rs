//! The resolved model: the only thing checks and emitters see.
//!
//! Names are resolved, templates are parsed into typed segments, defaults are
//! applied. Maps keep declaration order ([`IndexMap`]), so every output is
//! deterministic. Spans ride along in [`Spanned`] fields for diagnostics but
//! do not take part in equality or serialization.

use indexmap::IndexMap;
use serde::Serialize;

use crate::source::{Span, Spanned};

mod entity;
mod key;
mod pattern;

pub use entity::*;
pub use key::*;
pub use pattern::*;

pub use crate::syntax::{
    BillingMode, Consistency, DatetimeFormat, IndexKind, InsightsMode, KeyType, LintLevel,
    Maintenance, Order, ResourcePolicy, Scope, StreamView, TableClass, TimePrecision,
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

    /// The type of key attribute `attribute` of the table (`index`
    /// `None`) or of `index` (`String` when it has no key of that name).
    pub fn key_type(&self, index: Option<&str>, attribute: &str) -> KeyType {
        let found = match index.and_then(|i| self.indexes.get(i)) {
            Some(i) => i.key_parts().find(|k| k.name.as_str() == attribute),
            None => self.table.keys().find(|k| k.name.as_str() == attribute),
        };
        found.map_or(KeyType::String, |k| k.r#type)
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
        self.table
            .keys()
            .chain(self.indexes.values().flat_map(|i| i.key_parts()))
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
                | Operation::TransactGet(_)
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
    /// How DynamoDB runs the table: recovery, encryption, class, tags,
    /// insights and throughput limits.
    pub settings: TableSettings,
}

impl Table {
    /// The table's key attributes: the partition key, then the sort key.
    pub fn keys(&self) -> impl Iterator<Item = &KeyAttribute> {
        std::iter::once(&self.partition_key).chain(&self.sort_key)
    }

    /// Whether `attribute` is one of the table's key attributes.
    pub fn is_key(&self, attribute: &str) -> bool {
        self.keys().any(|k| k.name.value == attribute)
    }
}

/// Settings of how DynamoDB runs a table, not of what it holds.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TableSettings {
    /// Point-in-time recovery's period in days (1 to 35); off when `None`.
    pub point_in_time_recovery: Option<u64>,
    /// Encryption at rest.
    pub encryption: Encryption,
    /// The table class (`None`: DynamoDB's default, standard).
    pub table_class: Option<TableClass>,
    /// Tags, in the order written.
    pub tags: Vec<(String, String)>,
    /// Contributor Insights (table and global indexes).
    pub contributor_insights: Option<InsightsMode>,
    /// On-demand maximum request units per second.
    pub max_throughput: Option<UnitsPerSecond>,
    /// Warm throughput in units per second.
    pub warm_throughput: Option<UnitsPerSecond>,
    /// Where the spec asks for warm throughput derived from the declared
    /// rates (`warm_throughput: rates`); `warm_throughput` is what they need.
    #[serde(skip)]
    pub warm_from_rates: Option<Spanned<()>>,
    /// Replicas in other Regions: a global table.
    pub replicas: Option<Replicas>,
    /// The resource-based policy's statements in IAM's JSON shape; a
    /// statement without `Resource` is about the table and its indexes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub resource_policy: Vec<serde_json::Map<String, serde_json::Value>>,
}

/// The resource-based policy document of `statements`: a statement
/// without `Resource` is about the resource the policy is attached to
/// (`*`: the table and its indexes).
pub fn resource_policy_document(
    statements: &[serde_json::Map<String, serde_json::Value>],
) -> serde_json::Value {
    let statements: Vec<serde_json::Value> = statements
        .iter()
        .map(|s| {
            let mut s = s.clone();
            if !s.contains_key("Resource") {
                // After the action, as IAM writes a statement.
                let mut ordered = serde_json::Map::new();
                for (k, v) in s {
                    let condition = k == "Condition";
                    if condition {
                        ordered.insert("Resource".into(), "*".into());
                    }
                    ordered.insert(k, v);
                }
                if !ordered.contains_key("Resource") {
                    ordered.insert("Resource".into(), "*".into());
                }
                s = ordered;
            }
            serde_json::Value::Object(s)
        })
        .collect();
    serde_json::json!({ "Version": "2012-10-17", "Statement": statements })
}

/// A global table's replicas.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Replicas {
    /// The Regions holding a replica; the first is where the table is
    /// created.
    pub regions: Vec<String>,
    /// How the replicas agree (spanned where the spec says it, or the
    /// replicas).
    pub consistency: Spanned<Consistency>,
    /// The witness Region of a strongly consistent table with two replicas.
    pub witness: Option<String>,
}

impl TableSettings {
    /// Whether the table is a global table with multi-Region strong
    /// consistency, which serves no transaction.
    pub fn strongly_consistent(&self) -> bool {
        self.replicas
            .as_ref()
            .is_some_and(|r| r.consistency.value == Consistency::Strong)
    }
}

impl Replicas {
    /// The Region where the table is created (the stack's, the provider's).
    pub fn home(&self) -> &str {
        &self.regions[0]
    }
}

/// Units per second for reads and writes, each when declared.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct UnitsPerSecond {
    /// Read units per second, where the spec says.
    pub read: Option<Spanned<u64>>,
    /// Write units per second, where the spec says.
    pub write: Option<Spanned<u64>>,
}

/// Which key encrypts a table at rest.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Encryption {
    /// DynamoDB's own key, at no charge (DynamoDB's default).
    #[default]
    AwsOwned,
    /// The account's AWS managed key, `alias/aws/dynamodb`.
    AwsManaged,
    /// A customer managed key: its ARN, id or alias.
    Customer(String),
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
    /// Partition key attribute (the table's for a local index); the first
    /// of a multi-attribute partition key.
    pub partition_key: KeyAttribute,
    /// A multi-attribute partition key's second to fourth attributes, in
    /// order (global indexes only; DynamoDB hashes every part together).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub more_partition_keys: Vec<KeyAttribute>,
    /// Sort key attribute; the first of a multi-attribute sort key.
    pub sort_key: Option<KeyAttribute>,
    /// A multi-attribute sort key's second to fourth attributes, in order:
    /// items sort by the first, then the second, and so on.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub more_sort_keys: Vec<KeyAttribute>,
    /// Projected attributes.
    pub projection: Projection,
    /// Provisioned read capacity (global indexes).
    pub read_capacity: Option<u64>,
    /// Provisioned write capacity (global indexes).
    pub write_capacity: Option<u64>,
    /// On-demand maximum request units per second (global indexes).
    pub max_throughput: Option<UnitsPerSecond>,
    /// Warm throughput in units per second (global indexes).
    pub warm_throughput: Option<UnitsPerSecond>,
    /// Where the spec asks for the index's warm throughput derived from the
    /// declared rates.
    #[serde(skip)]
    pub warm_from_rates: Option<Spanned<()>>,
}

impl Index {
    /// The partition key's attributes, in order (one unless the key is
    /// multi-attribute).
    pub fn partition_parts(&self) -> impl Iterator<Item = &KeyAttribute> {
        std::iter::once(&self.partition_key).chain(&self.more_partition_keys)
    }

    /// The sort key's attributes, in order (none, one, or up to four).
    pub fn sort_parts(&self) -> impl Iterator<Item = &KeyAttribute> {
        self.sort_key.iter().chain(&self.more_sort_keys)
    }

    /// Every key attribute of the index: the partition parts, then the sort parts.
    pub fn key_parts(&self) -> impl Iterator<Item = &KeyAttribute> {
        self.partition_parts().chain(self.sort_parts())
    }

    /// Whether the partition or sort key has more than one attribute.
    pub fn is_multi_attribute(&self) -> bool {
        !self.more_partition_keys.is_empty() || !self.more_sort_keys.is_empty()
    }
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
