//! What each access pattern compiles to: the DynamoDB request, its index,
//! key condition, and the capacity one call costs — the planner and cost
//! model that the checker, the emitters and `explain` share.

mod filter;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::encoding;
use crate::ir::{self, IndexRef, Operation, Segment, SortOp, TransactionOp};
use filter::filter_names;
pub use filter::{
    conditions_expression, conditions_text, filter_expression, filter_text, operator_count,
    top_level_ranges,
};

/// The request an access pattern compiles to.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    /// Access pattern name.
    pub name: String,
    /// Its description.
    pub description: Option<String>,
    /// `Query`, `Scan`, `GetItem`, `TransactWriteItems`, `BatchGetItem`, `BatchWriteItem`.
    pub operation: String,
    /// The table.
    pub table: String,
    /// The index, for queries on one.
    pub index: Option<String>,
    /// `#pk = :pk AND begins_with(#sk, :sk)`.
    pub key_condition: Option<String>,
    /// A query's filter: `#f0 = :f0_0 AND attribute_exists(#f1)`.
    pub filter: Option<String>,
    /// Expression attribute names.
    pub names: BTreeMap<String, String>,
    /// Expression attribute values, as templates (`TENANT#<tenant>|OPEN`).
    pub values: BTreeMap<String, String>,
    /// `false` for descending queries.
    pub scan_index_forward: bool,
    /// Strongly consistent reads.
    pub consistent_read: bool,
    /// Entity types involved.
    pub entities: Vec<String>,
    /// Estimated read capacity units per call.
    pub read_units: f64,
    /// Estimated write capacity units per call (per item for transactions and batches).
    pub write_units: f64,
}

/// Typical size in bytes of an entity's item: attributes and keys, as
/// DynamoDB counts them (stored names, values by their type's rules).
/// Where the spec gives examples (every import of a Workbench model does),
/// the mean size of the items the repository would write for them, each
/// attribute's `typical_size` standing in for its values; else an estimate
/// from the types and templates.
pub fn typical_item_size(spec: &ir::Spec, entity: &ir::Entity) -> usize {
    let declared: Vec<&ir::Attribute> = entity
        .attributes
        .values()
        .filter(|a| !a.key_only && a.typical_size.is_some())
        .collect();
    let declared_size: usize = declared
        .iter()
        .map(|a| a.stored().len() + a.typical_size.unwrap_or(0) as usize)
        .sum();
    if let Some(examples) = entity.examples.as_ref().filter(|e| !e.is_empty()) {
        let total: usize = examples
            .iter()
            .map(|e| {
                let item = crate::emit::workbench::samples::item(spec, entity, e);
                let measured = item
                    .iter()
                    .filter(|(name, _)| !declared.iter().any(|a| a.stored() == name.as_str()));
                ir::item_size(measured)
            })
            .sum();
        return total.div_ceil(examples.len()) + declared_size;
    }
    let attributes: usize = entity
        .attributes
        .values()
        .filter(|a| !a.key_only && a.typical_size.is_none())
        .map(|a| a.stored().len() + typical_value_size(a))
        .sum();
    let keys: usize = std::iter::once(&entity.primary_key)
        .chain(entity.index_keys.values())
        .flat_map(|k| k.templates())
        .filter(|t| !t.is_natural())
        .map(|t| t.attribute.len() + typical_template_size(spec, entity, t))
        .sum();
    let marker = spec
        .table
        .entity_type
        .marker(&entity.name)
        .map_or(0, |(a, v)| a.len() + v.len());
    attributes + declared_size + keys + marker
}

/// A value's typical size by its type: strings and binaries up to 64
/// bytes, numbers by the digits their bounds allow (a 64-bit range, 8
/// bytes), datetimes as their format writes them.
fn typical_value_size(a: &ir::Attribute) -> usize {
    let digits = |n: i64| {
        n.unsigned_abs()
            .checked_ilog10()
            .map_or(1, |d| d as usize + 1)
    };
    match &a.r#type {
        ir::AttributeType::String { .. } => encoding::type_domain(&a.r#type, false)
            .max_len
            .unwrap_or(64)
            .min(64),
        ir::AttributeType::Integer { min, max } => {
            if *min == i64::MIN || *max == i64::MAX {
                8
            } else {
                digits(*min).max(digits(*max)).div_ceil(2) + 1
            }
        }
        ir::AttributeType::Decimal { .. } => 8,
        ir::AttributeType::Boolean => 1,
        ir::AttributeType::Datetime { format, .. } => match format {
            ir::DatetimeFormat::EpochSeconds => ir::number_size("1714564800"),
            ir::DatetimeFormat::EpochMillis => ir::number_size("1714564800123"),
            // Stored as written into keys: one fixed width per precision.
            ir::DatetimeFormat::Rfc3339 => encoding::type_domain(&a.r#type, false).min_len,
        },
        ir::AttributeType::Enum { values } => values.iter().map(String::len).max().unwrap_or(0),
        ir::AttributeType::Binary { max_length, .. } => {
            max_length.map_or(64, |m| (m as usize).min(64))
        }
        ir::AttributeType::List { .. }
        | ir::AttributeType::Map { .. }
        | ir::AttributeType::Set { .. } => 64,
    }
}

fn typical_template_size(spec: &ir::Spec, entity: &ir::Entity, t: &ir::KeyTemplate) -> usize {
    t.segments
        .iter()
        .map(|s| match s {
            Segment::Literal(l) => l.len(),
            Segment::Placeholder(p) => {
                let d = encoding::entity_placeholder_domain(spec, entity, p);
                d.max_len.unwrap_or(32).min(32)
            }
        })
        .sum()
}

/// The read units per second a query's declared rate needs: its items of
/// the largest typical size it returns, half a unit per 4 KB read
/// eventually consistent, a whole one consistent.
pub(crate) fn query_read_units(spec: &ir::Spec, q: &ir::Query, rate: &ir::Rate) -> f64 {
    let largest = q
        .returns
        .iter()
        .filter_map(|e| spec.entities.get(e))
        .map(|e| typical_item_size(spec, e))
        .max()
        .unwrap_or(0);
    let bytes = largest.saturating_mul(usize::try_from(rate.items).unwrap_or(usize::MAX).max(1));
    let per_call = bytes.div_ceil(4096).max(1) as f64 * if q.consistent_read { 1.0 } else { 0.5 };
    rate.per_second * per_call
}

/// Read and write units per second.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Units {
    /// Read units per second.
    pub reads: f64,
    /// Write units per second.
    pub writes: f64,
}

/// The units per second the spec's declared rates need of the table:
/// each entity's `throughput` (a write unit per KB of its typical item, half
/// a read unit per 4 KB read eventually consistent) and each query's `rate`.
pub(crate) fn declared_units(spec: &ir::Spec) -> Units {
    let mut units = Units::default();
    for entity in spec.entities.values() {
        let size = typical_item_size(spec, entity);
        if let Some(w) = entity.throughput.writes_per_second {
            units.writes += w.value as f64 * size.div_ceil(1024).max(1) as f64;
        }
        if let Some(r) = entity.throughput.reads_per_second {
            units.reads += r.value as f64 * size.div_ceil(4096).max(1) as f64 * 0.5;
        }
    }
    for pattern in spec.access_patterns.values() {
        let (Operation::Query(q), Some(rate)) = (&pattern.operation, &pattern.rate) else {
            continue;
        };
        units.reads += query_read_units(spec, q, rate);
    }
    units
}

/// The units per second the declared rates need of the table itself
/// (`on: Table`: every entity's writes and reads, and the table's queries)
/// or of one index (the writes of the entities written into it, and its
/// queries).
pub(crate) fn declared_units_on(spec: &ir::Spec, on: &IndexRef) -> Units {
    let mut units = Units::default();
    for entity in spec.entities.values() {
        if on.keys_of(entity).is_none() {
            continue;
        }
        let size = typical_item_size(spec, entity);
        if let Some(w) = entity.throughput.writes_per_second {
            units.writes += w.value as f64 * size.div_ceil(1024).max(1) as f64;
        }
        if let (IndexRef::Table, Some(r)) = (on, entity.throughput.reads_per_second) {
            units.reads += r.value as f64 * size.div_ceil(4096).max(1) as f64 * 0.5;
        }
    }
    for pattern in spec.access_patterns.values() {
        let (Operation::Query(q), Some(rate)) = (&pattern.operation, &pattern.rate) else {
            continue;
        };
        if q.index == *on {
            units.reads += query_read_units(spec, q, rate);
        }
    }
    units
}

pub(crate) fn read_units(bytes: usize, consistent: bool) -> f64 {
    let units = bytes.div_ceil(4096).max(1) as f64;
    if consistent {
        units
    } else {
        units / 2.0
    }
}

pub(crate) fn write_units(bytes: usize) -> f64 {
    bytes.div_ceil(1024).max(1) as f64
}

/// The plans of every access pattern, in declaration order.
pub fn plans(spec: &ir::Spec) -> Vec<Plan> {
    spec.access_patterns
        .values()
        .map(|p| plan(spec, p))
        .collect()
}

fn size_of(spec: &ir::Spec, entity: &str) -> usize {
    spec.entities
        .get(entity)
        .map_or(0, |e| typical_item_size(spec, e))
}

pub(crate) fn plan(spec: &ir::Spec, pattern: &ir::AccessPattern) -> Plan {
    let mut plan = Plan {
        name: pattern.name.value.clone(),
        description: pattern.description.clone(),
        operation: String::new(),
        table: spec.table.name.value.clone(),
        index: None,
        key_condition: None,
        filter: None,
        names: BTreeMap::new(),
        values: BTreeMap::new(),
        scan_index_forward: true,
        consistent_read: false,
        entities: Vec::new(),
        read_units: 0.0,
        write_units: 0.0,
    };
    let items = pattern.rate.as_ref().map_or(1, |r| r.items) as usize;
    match &pattern.operation {
        Operation::Get {
            entity,
            consistent_read,
        } => {
            plan.operation = "GetItem".into();
            plan.consistent_read = *consistent_read;
            plan.entities = vec![entity.clone()];
            if let Some(e) = spec.entities.get(entity) {
                plan.names
                    .insert("#pk".into(), spec.table.partition_key.name.value.clone());
                plan.values
                    .insert(":pk".into(), e.primary_key.pk.source.value.clone());
                if let (Some(sk), Some(t)) = (&spec.table.sort_key, &e.primary_key.sk) {
                    plan.names.insert("#sk".into(), sk.name.value.clone());
                    plan.values.insert(":sk".into(), t.source.value.clone());
                }
            }
            plan.read_units = read_units(size_of(spec, entity), *consistent_read);
        }
        Operation::Query(q) => query_plan(spec, q, items, &mut plan),
        Operation::Scan(scan) => {
            plan.operation = "Scan".into();
            plan.index = match &scan.index {
                IndexRef::Table => None,
                IndexRef::Index(i) => Some(i.clone()),
            };
            plan.consistent_read = scan.consistent_read;
            plan.entities = vec![scan.entity.clone()];
            plan.filter = conditions_expression(&scan.filter);
            filter_names(&scan.filter, &mut plan);
            // Each page reads up to 1 MB of the table or index, whatever
            // the call keeps.
            plan.read_units = read_units(1 << 20, scan.consistent_read);
        }
        Operation::Transaction(t) => {
            plan.operation = "TransactWriteItems".into();
            plan.entities = t
                .items
                .iter()
                .map(|(op, e)| format!("{} {e}", op_name(*op)))
                .collect();
            let largest = t
                .items
                .iter()
                .map(|(_, e)| size_of(spec, e))
                .max()
                .unwrap_or(0);
            // Transactional writes cost two write units per KB per item.
            plan.write_units = 2.0 * write_units(largest);
        }
        Operation::TransactGet(t) => {
            plan.operation = "TransactGetItems".into();
            plan.entities = t.entities.iter().map(|e| format!("Get {e}")).collect();
            let largest = t
                .entities
                .iter()
                .map(|e| size_of(spec, e))
                .max()
                .unwrap_or(0);
            // Transactional reads cost two read units per 4 KB per item.
            plan.read_units = 2.0 * read_units(largest, true);
        }
        Operation::Batch(b) => {
            plan.operation = if b.get.is_empty() {
                "BatchWriteItem".into()
            } else if b.put.is_empty() && b.delete.is_empty() {
                "BatchGetItem".into()
            } else {
                "BatchGetItem + BatchWriteItem".into()
            };
            plan.entities = b
                .get
                .iter()
                .chain(&b.put)
                .chain(&b.delete)
                .cloned()
                .collect();
            plan.read_units = b
                .get
                .iter()
                .map(|e| read_units(size_of(spec, e), false))
                .fold(0.0, f64::max);
            plan.write_units = b
                .put
                .iter()
                .chain(&b.delete)
                .map(|e| write_units(size_of(spec, e)))
                .fold(0.0, f64::max);
        }
    }
    plan
}

fn op_name(op: TransactionOp) -> &'static str {
    match op {
        TransactionOp::Put => "Put",
        TransactionOp::Create => "Put (if absent)",
        TransactionOp::Update => "Update",
        TransactionOp::Delete => "Delete",
        TransactionOp::ConditionCheck => "ConditionCheck",
    }
}

fn query_plan(spec: &ir::Spec, q: &ir::Query, items: usize, plan: &mut Plan) {
    plan.operation = "Query".into();
    plan.index = match &q.index {
        IndexRef::Table => None,
        IndexRef::Index(i) => Some(i.clone()),
    };
    plan.scan_index_forward = q.order == ir::Order::Ascending;
    plan.consistent_read = q.consistent_read;
    plan.entities = q.returns.clone();
    for (name, value, template) in key_equalities(q) {
        plan.names.insert(name, template.attribute.clone());
        plan.values.insert(value, template.source.value.clone());
    }
    if let Some(sk) = &q.sk {
        let attribute = sk
            .operands
            .first()
            .map_or_else(String::new, |o| o.attribute.clone());
        plan.names.insert("#sk".into(), attribute);
        if sk.op == SortOp::Between {
            for (i, o) in sk.operands.iter().enumerate() {
                plan.values
                    .insert(format!(":sk{i}"), o.source.value.clone());
            }
        } else if let Some(o) = sk.operands.first() {
            plan.values.insert(":sk".into(), o.source.value.clone());
        }
    }
    let condition = key_condition(q);
    plan.key_condition = Some(condition);
    plan.filter = filter_expression(q);
    filter_names(&q.filter, plan);
    let largest = q
        .returns
        .iter()
        .map(|e| size_of(spec, e))
        .max()
        .unwrap_or(0);
    plan.read_units = read_units(largest.saturating_mul(items), q.consistent_read);
}

/// The equalities of a query's key condition before its sort condition,
/// with their attribute-name and value placeholders: `#pk`/`:pk` for the
/// partition key (its first attribute), `#pk1`/`:pk1`... for a
/// multi-attribute partition key's later attributes, and `#sp0`/`:sp0`...
/// for the sort key attributes fixed before the one `#sk` names.
pub fn key_equalities(q: &ir::Query) -> Vec<(String, String, &ir::KeyTemplate)> {
    let mut out = vec![("#pk".to_owned(), ":pk".to_owned(), &q.pk)];
    for (i, t) in q.more_pk.iter().enumerate() {
        out.push((format!("#pk{}", i + 1), format!(":pk{}", i + 1), t));
    }
    for (i, t) in q.sk_prefix.iter().enumerate() {
        out.push((format!("#sp{i}"), format!(":sp{i}"), t));
    }
    out
}

/// The key condition expression of a query: `#pk = :pk AND begins_with(#sk, :sk)`.
pub fn key_condition(q: &ir::Query) -> String {
    let mut condition = key_equalities(q)
        .into_iter()
        .map(|(name, value, _)| format!("{name} = {value}"))
        .collect::<Vec<_>>()
        .join(" AND ");
    if let Some(sk) = &q.sk {
        let expr = match sk.op {
            SortOp::Equals => "#sk = :sk",
            SortOp::BeginsWith => "begins_with(#sk, :sk)",
            SortOp::Between => "#sk BETWEEN :sk0 AND :sk1",
            SortOp::Lt => "#sk < :sk",
            SortOp::Lte => "#sk <= :sk",
            SortOp::Gt => "#sk > :sk",
            SortOp::Gte => "#sk >= :sk",
        };
        condition = format!("{condition} AND {expr}");
    }
    condition
}

/// How a query fills its `<shard>` placeholder.
#[derive(Debug, Clone, Copy)]
pub enum QueryShards<'s> {
    /// Its keys name no shard: one partition.
    Unsharded,
    /// A parameter bound to the entity's `shards.by` attribute picks the
    /// one shard its stable hash gives.
    Hashed {
        /// The sharded entity.
        entity: &'s ir::Entity,
        /// The attribute hashed.
        attribute: &'s ir::Attribute,
        /// The query's parameter bound to it.
        param: &'s ir::Param,
        /// The number of shards.
        count: u32,
    },
    /// Every shard is a partition of the request, and the results are merged.
    Every {
        /// The number of shards.
        count: u32,
    },
}

/// How `q` fills its `<shard>`. The shard may stand in the partition key or
/// in a sort-key condition (an inverted index's partition is the table's
/// sort key and the other way round); the count is that of the first
/// returned entity with `shards`.
pub fn query_shards<'s>(spec: &'s ir::Spec, q: &'s ir::Query) -> QueryShards<'s> {
    let mut templates = q.templates();
    if !templates.any(ir::KeyTemplate::has_shard) {
        return QueryShards::Unsharded;
    }
    let Some((entity, sharding)) = q
        .returns
        .iter()
        .filter_map(|e| spec.entities.get(e))
        .find_map(|e| e.shards.as_ref().map(|s| (e, s)))
    else {
        return QueryShards::Unsharded;
    };
    let count = sharding.count.value;
    let hashed = match &sharding.by {
        ir::ShardBy::Random => None,
        ir::ShardBy::Hash(attribute) => q
            .params
            .values()
            .find(|p| {
                p.binds
                    .iter()
                    .any(|(e, a)| e == entity.name.as_str() && a == attribute)
            })
            .and_then(|param| Some((entity.attributes.get(attribute.as_str())?, param))),
    };
    match hashed {
        Some((attribute, param)) => QueryShards::Hashed {
            entity,
            attribute,
            param,
            count,
        },
        None => QueryShards::Every { count },
    }
}

/// Whether a query access pattern reads every shard of a sharded key where
/// each shard's key condition names one whole primary key of the table
/// (`#pk = :pk AND #sk = :sk`, or `#pk = :pk` on a table without a sort
/// key), with no filter and no projection: each shard holds at most that
/// one item, and the repository reads all of them with BatchGetItem (up to
/// 100 keys a request) instead of one Query each. The IAM policies grant
/// BatchGetItem on the same partition keys for exactly these patterns.
pub fn reads_shards_in_batch(spec: &ir::Spec, pattern: &ir::AccessPattern) -> bool {
    let Operation::Query(q) = &pattern.operation else {
        return false;
    };
    let whole_key = match &q.sk {
        Some(sk) => sk.op == SortOp::Equals,
        None => spec.table.sort_key.is_none(),
    };
    q.index == IndexRef::Table
        && q.filter.is_empty()
        && pattern.select.is_none()
        && whole_key
        && matches!(query_shards(spec, q), QueryShards::Every { count } if count > 1)
}
