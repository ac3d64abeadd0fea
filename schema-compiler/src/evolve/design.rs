//! The design as stored data sees it: what two versions of a spec are
//! compared on, and what the lock records.
//!
//! A [`Design`] keeps what decides the bytes items are stored with and the
//! API and policies generated for them — stored attribute names, types and
//! bounds, key templates with each placeholder's encoding, index keys and
//! projections, sharding, the entity-type attribute, access patterns and
//! roles — and leaves out what does not (descriptions, examples, rates,
//! lint levels). Its canonical JSON (keys sorted, no whitespace) hashed
//! with SHA-256 is the design's identity: two specs that differ only in
//! comments, order or descriptions have the same hash.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::ir::{
    self, DatetimeFormat, IndexKind, KeyEncoding, KeyType, Maintenance, Scope, StreamView,
    TimePrecision,
};

/// The version of the design format; a change of it is a change of every
/// hash, so it changes only with a migration of the lock.
pub const FORMAT: u32 = 1;

/// A resolved design, canonical and comparable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Design {
    /// [`FORMAT`].
    pub format: u32,
    /// The table.
    pub table: TableDesign,
    /// The tenant, for a multi-tenant table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant: Option<TenantDesign>,
    /// Secondary indexes by name.
    #[serde(default)]
    pub indexes: BTreeMap<String, IndexDesign>,
    /// Entities by name.
    #[serde(default)]
    pub entities: BTreeMap<String, EntityDesign>,
    /// Access patterns by name.
    #[serde(default)]
    pub access_patterns: BTreeMap<String, PatternDesign>,
    /// Roles by name: the access patterns each lists.
    #[serde(default)]
    pub roles: BTreeMap<String, Vec<String>>,
}

/// The table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableDesign {
    /// Its name.
    pub name: String,
    /// The partition key attribute.
    pub partition_key: KeyDef,
    /// The sort key attribute.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sort_key: Option<KeyDef>,
    /// The TTL attribute.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<String>,
    /// The stream's view.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<StreamView>,
    /// The attribute that tells an item's entity; `None`: its keys do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entity_type: Option<String>,
    /// Deletion protection and the CloudFormation policies.
    #[serde(default, skip_serializing_if = "ir::Protection::is_default")]
    pub protection: ir::Protection,
    /// The replicas of a global table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<ReplicasDesign>,
    /// The table's warm throughput, reads and writes per second (DynamoDB
    /// never lowers it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warm_throughput: Option<(Option<u64>, Option<u64>)>,
}

/// A global table's replicas, as deployed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplicasDesign {
    /// The Regions holding a replica, the table's own first.
    pub regions: Vec<String>,
    /// How they agree.
    pub consistency: ir::Consistency,
    /// The witness Region of a strongly consistent table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub witness: Option<String>,
}

/// A key attribute of the table or an index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyDef {
    /// Its name.
    pub attribute: String,
    /// Its DynamoDB type.
    #[serde(rename = "type")]
    pub r#type: KeyType,
}

/// The tenant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TenantDesign {
    /// The placeholder that carries it.
    pub placeholder: String,
    /// The pattern every tenant id matches.
    pub id_pattern: String,
    /// The principal tag IAM policies read it from.
    pub principal_tag: String,
}

/// A secondary index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexDesign {
    /// Global or local.
    pub kind: IndexKind,
    /// Its partition key attribute.
    pub partition_key: KeyDef,
    /// Its sort key attribute.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sort_key: Option<KeyDef>,
    /// `all`, `keys_only`, or the non-key attributes it carries.
    pub projection: ProjectionDesign,
}

/// What an index carries besides the keys.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProjectionDesign {
    /// Every attribute.
    All,
    /// The keys only.
    KeysOnly,
    /// These attributes.
    Include(Vec<String>),
}

/// An entity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntityDesign {
    /// The value of the entity-type attribute its items carry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discriminator: Option<String>,
    /// Tenant-scoped or global.
    pub scope: Scope,
    /// Attributes by name.
    pub attributes: BTreeMap<String, AttributeDesign>,
    /// The primary key.
    pub key: KeyDesign,
    /// Its keys on each index it writes.
    #[serde(default)]
    pub indexes: BTreeMap<String, KeyDesign>,
    /// Write sharding: `(count, "random" | "hash(<attribute>)")`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shards: Option<(u32, String)>,
    /// The version attribute (optimistic locking).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version_attribute: Option<String>,
    /// The aggregate it keeps: `(of, group_by, count, maintained_by)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aggregate: Option<AggregateDesign>,
    /// Derived attributes, by stored name: the templates writes fill.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub derived: BTreeMap<String, TemplateDesign>,
}

/// An aggregate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AggregateDesign {
    /// The counted entity.
    pub of: String,
    /// The grouping attributes.
    pub group_by: Vec<String>,
    /// The count attribute.
    pub count: String,
    /// How it is kept.
    pub maintained_by: Maintenance,
}

/// An attribute.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttributeDesign {
    /// The name items store it under.
    pub stored: String,
    /// Its type and bounds.
    #[serde(rename = "type")]
    pub r#type: TypeDesign,
    /// Items must have it.
    pub required: bool,
    /// Kept in the key only.
    #[serde(default, skip_serializing_if = "is_false")]
    pub key_only: bool,
    /// What items without it read (`default:`), as stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A type with the bounds every stored value meets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TypeDesign {
    /// A string.
    String {
        /// Least length in bytes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min_length: Option<u64>,
        /// Greatest length in bytes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_length: Option<u64>,
        /// The pattern values match.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pattern: Option<String>,
    },
    /// An integer.
    Integer {
        /// Least value.
        min: i64,
        /// Greatest value.
        max: i64,
    },
    /// A decimal.
    Decimal {
        /// Least value.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min: Option<String>,
        /// Greatest value.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max: Option<String>,
        /// Digits after the point.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        scale: Option<u32>,
    },
    /// A boolean.
    Boolean,
    /// A datetime in a stored format.
    Datetime {
        /// The format.
        format: DatetimeFormat,
        /// The RFC 3339 form's fractional digits.
        precision: TimePrecision,
    },
    /// One of these words.
    Enum {
        /// The values.
        values: Vec<String>,
    },
    /// A list.
    List {
        /// The element type.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        items: Option<Box<TypeDesign>>,
        /// Least length.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min_length: Option<u64>,
        /// Greatest length.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_length: Option<u64>,
    },
    /// A map, with declared fields or untyped.
    Map {
        /// The declared fields by name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fields: Option<BTreeMap<String, AttributeDesign>>,
    },
    /// A set of `of` (`string`, `integer`, `decimal`, `binary`).
    Set {
        /// What it holds.
        of: String,
    },
    /// Bytes.
    Binary {
        /// Least length.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min_length: Option<u64>,
        /// Greatest length.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_length: Option<u64>,
    },
}

impl TypeDesign {
    /// The DynamoDB type its values are stored as.
    pub fn stored_type(&self) -> &'static str {
        match self {
            TypeDesign::String { .. } | TypeDesign::Enum { .. } => "S",
            TypeDesign::Integer { .. } | TypeDesign::Decimal { .. } => "N",
            TypeDesign::Boolean => "BOOL",
            TypeDesign::Datetime { format, .. } => match format {
                DatetimeFormat::Rfc3339 => "S",
                DatetimeFormat::EpochSeconds | DatetimeFormat::EpochMillis => "N",
            },
            TypeDesign::List { .. } => "L",
            TypeDesign::Map { .. } => "M",
            TypeDesign::Set { of } => match of.as_str() {
                "string" => "SS",
                "binary" => "BS",
                _ => "NS",
            },
            TypeDesign::Binary { .. } => "B",
        }
    }

    /// The type's name as the spec writes it.
    pub fn name(&self) -> &'static str {
        match self {
            TypeDesign::String { .. } => "string",
            TypeDesign::Integer { .. } => "integer",
            TypeDesign::Decimal { .. } => "decimal",
            TypeDesign::Boolean => "boolean",
            TypeDesign::Datetime { .. } => "datetime",
            TypeDesign::Enum { .. } => "enum",
            TypeDesign::List { .. } => "list",
            TypeDesign::Map { .. } => "map",
            TypeDesign::Set { .. } => "set",
            TypeDesign::Binary { .. } => "binary",
        }
    }
}

/// An entity's keys on the table or an index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyDesign {
    /// The partition key's template.
    pub pk: TemplateDesign,
    /// The sort key's template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sk: Option<TemplateDesign>,
    /// The boolean attribute whose value `true` puts the entity in the index.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
}

/// A key template as stored bytes see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TemplateDesign {
    /// The key attribute it fills.
    pub attribute: String,
    /// The template as written (`TENANT#<tenant>|TICKET#<id>`).
    pub text: String,
    /// Its parts, each placeholder with how its value is written.
    pub parts: Vec<Part>,
}

/// One part of a key template.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    /// Literal text.
    Literal(String),
    /// The tenant id.
    Tenant,
    /// The write shard.
    Shard,
    /// An attribute's value, written with an encoding.
    Value {
        /// The attribute.
        attribute: String,
        /// How it is written.
        encoding: KeyEncoding,
    },
}

/// An access pattern, as clients and policies see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PatternDesign {
    /// `get`, `query`, `scan`, `transaction` or `batch`.
    pub operation: String,
    /// The index it reads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<String>,
    /// What it reads or writes, as text (`pk = TENANT#<tenant>|OPEN`,
    /// the entities).
    pub request: String,
    /// The entities it returns or writes.
    pub entities: Vec<String>,
}

impl Design {
    /// The design of a resolved spec.
    pub fn of(spec: &ir::Spec) -> Design {
        let ir::Spec {
            description: _,
            table,
            tenant,
            indexes,
            entities,
            access_patterns,
            roles,
            lints: _,
        } = spec;
        Design {
            format: FORMAT,
            table: table_design(spec, table),
            tenant: tenant.as_ref().map(|t| TenantDesign {
                placeholder: t.placeholder.value.clone(),
                id_pattern: t.id_pattern.value.clone(),
                principal_tag: t.principal_tag.value.clone(),
            }),
            indexes: indexes
                .iter()
                .map(|(name, i)| (name.clone(), index_design(i)))
                .collect(),
            entities: entities
                .iter()
                .map(|(name, e)| (name.clone(), entity_design(spec, e)))
                .collect(),
            access_patterns: access_patterns
                .iter()
                .map(|(name, p)| (name.clone(), pattern_design(p)))
                .collect(),
            roles: roles
                .iter()
                .map(|(name, r)| {
                    let patterns = r.access_patterns.iter().map(|p| p.value.clone()).collect();
                    (name.clone(), patterns)
                })
                .collect(),
        }
    }

    /// The canonical JSON: keys sorted, no whitespace.
    pub fn canonical_json(&self) -> String {
        let value = serde_json::to_value(self).expect("invariant: a design serializes");
        let mut out = String::new();
        write_canonical(&value, &mut out);
        out
    }

    /// `sha256:<hex>` of the canonical JSON.
    pub fn hash(&self) -> String {
        sha256(self.canonical_json().as_bytes())
    }
}

/// `sha256:<hex>` of `bytes`.
pub fn sha256(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// JSON with object keys sorted at every level and no whitespace.
fn write_canonical(value: &serde_json::Value, out: &mut String) {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(&map[key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

fn key_def(k: &ir::KeyAttribute) -> KeyDef {
    KeyDef {
        attribute: k.name.value.clone(),
        r#type: k.r#type,
    }
}

fn table_design(spec: &ir::Spec, table: &ir::Table) -> TableDesign {
    let ir::Table {
        name,
        description: _,
        partition_key,
        sort_key,
        ttl,
        billing: _,
        stream,
        entity_type,
        protection,
        // How DynamoDB runs the table changes no item: not part of the design.
        settings,
    } = table;
    let _ = spec;
    TableDesign {
        name: name.value.clone(),
        partition_key: key_def(partition_key),
        sort_key: sort_key.as_ref().map(key_def),
        ttl: ttl.as_ref().map(|t| t.value.clone()),
        stream: *stream,
        entity_type: entity_type.attribute().map(|a| a.value.clone()),
        protection: *protection,
        replicas: settings.replicas.as_ref().map(|r| ReplicasDesign {
            regions: r.regions.clone(),
            consistency: r.consistency.value,
            witness: r.witness.clone(),
        }),
        warm_throughput: settings
            .warm_throughput
            .map(|w| (w.read.map(|r| r.value), w.write.map(|w| w.value))),
    }
}

fn index_design(index: &ir::Index) -> IndexDesign {
    IndexDesign {
        kind: index.kind,
        partition_key: key_def(&index.partition_key),
        sort_key: index.sort_key.as_ref().map(key_def),
        projection: match &index.projection {
            ir::Projection::All => ProjectionDesign::All,
            ir::Projection::KeysOnly => ProjectionDesign::KeysOnly,
            ir::Projection::Include(names) => {
                let mut names = names.clone();
                names.sort();
                ProjectionDesign::Include(names)
            }
        },
    }
}

fn entity_design(spec: &ir::Spec, entity: &ir::Entity) -> EntityDesign {
    let discriminator = spec
        .table
        .entity_type
        .marker(&entity.name)
        .map(|(_, value)| value.to_owned());
    EntityDesign {
        discriminator,
        scope: entity.scope,
        attributes: entity
            .attributes
            .iter()
            .map(|(name, a)| (name.clone(), attribute_design(a)))
            .collect(),
        key: key_design(entity, &entity.primary_key),
        indexes: entity
            .index_keys
            .iter()
            .map(|(i, k)| (i.clone(), key_design(entity, k)))
            .collect(),
        shards: entity.shards.as_ref().map(|s| {
            let by = match &s.by {
                ir::ShardBy::Random => "random".to_owned(),
                ir::ShardBy::Hash(a) => format!("hash(<{a}>)"),
            };
            (s.count.value, by)
        }),
        version_attribute: entity.version_attribute.clone(),
        aggregate: entity.aggregate.as_ref().map(|a| AggregateDesign {
            of: a.of.clone(),
            group_by: a.group_by.clone(),
            count: a.count.clone(),
            maintained_by: a.maintained_by,
        }),
        derived: entity
            .derived
            .iter()
            .map(|(name, t)| (name.clone(), template_design(entity, t)))
            .collect(),
    }
}

fn attribute_design(a: &ir::Attribute) -> AttributeDesign {
    AttributeDesign {
        stored: a.stored().to_owned(),
        r#type: type_design(&a.r#type),
        required: !a.optional,
        key_only: a.key_only,
        default: a.default.as_ref().map(|d| match d {
            ir::FilterLiteral::S(s) | ir::FilterLiteral::N(s) => s.clone(),
            ir::FilterLiteral::Bool(b) => b.to_string(),
        }),
    }
}

/// The design of a type (what its stored values are and must meet).
pub fn type_design(ty: &ir::AttributeType) -> TypeDesign {
    use ir::AttributeType as T;
    match ty {
        T::String {
            min_length,
            max_length,
            pattern,
            alphabet: _,
        } => TypeDesign::String {
            min_length: *min_length,
            max_length: *max_length,
            pattern: pattern.clone(),
        },
        T::Integer { min, max } => TypeDesign::Integer {
            min: *min,
            max: *max,
        },
        T::Decimal { min, max, scale } => TypeDesign::Decimal {
            min: min.clone(),
            max: max.clone(),
            scale: *scale,
        },
        T::Boolean => TypeDesign::Boolean,
        T::Datetime { format, precision } => TypeDesign::Datetime {
            format: *format,
            precision: *precision,
        },
        T::Enum { values } => TypeDesign::Enum {
            values: values.clone(),
        },
        T::List {
            items,
            min_length,
            max_length,
        } => TypeDesign::List {
            items: items.as_ref().map(|i| Box::new(type_design(i))),
            min_length: *min_length,
            max_length: *max_length,
        },
        T::Map { fields } => TypeDesign::Map {
            fields: fields.as_ref().map(|f| {
                f.iter()
                    .map(|(name, a)| (name.clone(), attribute_design(a)))
                    .collect()
            }),
        },
        T::Set { of } => TypeDesign::Set {
            of: of.name().to_owned(),
        },
        T::Binary {
            min_length,
            max_length,
        } => TypeDesign::Binary {
            min_length: *min_length,
            max_length: *max_length,
        },
    }
}

fn key_design(entity: &ir::Entity, key: &ir::EntityKey) -> KeyDesign {
    KeyDesign {
        pk: template_design(entity, &key.pk),
        sk: key.sk.as_ref().map(|t| template_design(entity, t)),
        when: key.when.clone(),
    }
}

fn template_design(entity: &ir::Entity, template: &ir::KeyTemplate) -> TemplateDesign {
    let parts = template
        .segments
        .iter()
        .map(|s| match s {
            ir::Segment::Literal(l) => Part::Literal(l.clone()),
            ir::Segment::Placeholder(p) => match p.kind {
                ir::PlaceholderKind::Tenant => Part::Tenant,
                ir::PlaceholderKind::Shard => Part::Shard,
                ir::PlaceholderKind::Attribute => Part::Value {
                    attribute: p.name.value.clone(),
                    encoding: entity
                        .attributes
                        .get(p.name.as_str())
                        .map_or(KeyEncoding::Text, ir::Attribute::key_encoding),
                },
            },
        })
        .collect();
    TemplateDesign {
        attribute: template.attribute.clone(),
        text: template.source.value.clone(),
        parts,
    }
}

fn pattern_design(pattern: &ir::AccessPattern) -> PatternDesign {
    let (operation, index, request, entities) = match &pattern.operation {
        ir::Operation::Get { entity, .. } => {
            ("get", None, format!("get {entity}"), vec![entity.clone()])
        }
        ir::Operation::Query(q) => {
            let mut request = format!("pk = {}", q.pk.source.value);
            if let Some(sk) = &q.sk {
                let operands: Vec<&str> = sk.operands.iter().map(|o| o.source.as_str()).collect();
                request.push_str(&format!(" and sk {:?} {}", sk.op, operands.join(" and ")));
            }
            let index = match &q.index {
                ir::IndexRef::Index(i) => Some(i.clone()),
                ir::IndexRef::Table => None,
            };
            ("query", index, request, q.returns.clone())
        }
        ir::Operation::Scan(s) => {
            let index = match &s.index {
                ir::IndexRef::Index(i) => Some(i.clone()),
                ir::IndexRef::Table => None,
            };
            (
                "scan",
                index,
                format!("scan {}", s.entity),
                vec![s.entity.clone()],
            )
        }
        ir::Operation::Transaction(t) => {
            let items: Vec<String> = t
                .items
                .iter()
                .map(|(op, e)| format!("{op:?} {e}"))
                .collect();
            let entities = t.items.iter().map(|(_, e)| e.clone()).collect();
            ("transaction", None, items.join(", "), entities)
        }
        ir::Operation::TransactGet(t) => (
            "transact_get",
            None,
            format!("get {:?}", t.entities),
            t.entities.clone(),
        ),
        ir::Operation::Batch(b) => {
            let entities: Vec<String> = b
                .get
                .iter()
                .chain(&b.put)
                .chain(&b.delete)
                .cloned()
                .collect();
            let request = format!("get {:?} put {:?} delete {:?}", b.get, b.put, b.delete);
            ("batch", None, request, entities)
        }
    };
    PatternDesign {
        operation: operation.to_owned(),
        index,
        request,
        entities,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Compiler;

    fn design(yaml: &str) -> Design {
        let c = Compiler::new().source("s.yaml", yaml).compile();
        assert!(!c.has_errors(), "{:?}", c.report());
        Design::of(&c.specs[0].spec)
    }

    const SPEC: &str = "version: 1\ntable: { name: Things, partition_key: pk, sort_key: sk }\nentities:\n  A:\n    description: first\n    attributes: { id: { type: string, pattern: \"^[a-z]{1,9}$\" }, n: integer }\n    key: { pk: \"A#<id>\", sk: A }\naccess_patterns:\n  a: { get: A }\n";

    #[test]
    fn cosmetic_edits_keep_the_hash() {
        let first = design(SPEC);
        let edited = SPEC.replace("description: first", "description: changed");
        assert_eq!(first.hash(), design(&edited).hash());
        assert!(first.hash().starts_with("sha256:"));
    }

    #[test]
    fn a_stored_change_changes_the_hash_and_the_json_round_trips() {
        let first = design(SPEC);
        let changed = design(&SPEC.replace("\"A#<id>\"", "\"B#<id>\""));
        assert_ne!(first.hash(), changed.hash());
        let back: Design = serde_json::from_str(&first.canonical_json()).unwrap();
        assert_eq!(back, first);
    }
}
