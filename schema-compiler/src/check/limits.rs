//! DynamoDB limits and capacity: index counts, key and item sizes, TTL,
//! transactions, and partition throughput against declared rates.

use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::encoding;
use crate::ir::{self, AttributeType, IndexKind, Operation, PlaceholderKind, Scope, Segment};

/// Most global secondary indexes per table.
pub const MAX_GSIS: usize = 20;
/// Most local secondary indexes per table.
pub const MAX_LSIS: usize = 5;
/// Largest partition key value, bytes.
pub const MAX_PARTITION_KEY: usize = 2048;
/// Largest sort key value, bytes.
pub const MAX_SORT_KEY: usize = 1024;
/// Largest item, bytes.
pub const MAX_ITEM: usize = 400 * 1024;
/// Most items in one transaction.
pub const MAX_TRANSACTION_ITEMS: u32 = 100;
/// Write units one partition serves per second.
pub const PARTITION_WCU: u64 = 1000;
/// Strongly consistent read units one partition serves per second.
pub const PARTITION_RCU: u64 = 3000;

/// Why: DynamoDB rejects a CreateTable with more indexes than its limits.
pub fn check_index_count(spec: &ir::Spec, diags: &mut Diagnostics) {
    for (kind, limit) in [(IndexKind::Global, MAX_GSIS), (IndexKind::Local, MAX_LSIS)] {
        let indexes: Vec<&ir::Index> = spec.indexes.values().filter(|i| i.kind == kind).collect();
        if indexes.len() > limit {
            let name = if kind == IndexKind::Global {
                "global"
            } else {
                "local"
            };
            diags.push(
                Diagnostic::new(Code::TooManyIndexes, format!("{} {name} secondary indexes; DynamoDB allows {limit}", indexes.len()))
                    .label(indexes[limit].name.span, format!("index number {}", limit + 1))
                    .help("overload indexes: let several entities write different key shapes into one generic index (`GSI1PK`/`GSI1SK`)"),
            );
        }
    }
}

/// Worst-case bytes of a template, or the first unbounded placeholder.
fn template_size<'t>(
    spec: &ir::Spec,
    entity: &ir::Entity,
    t: &'t ir::KeyTemplate,
) -> Result<usize, &'t ir::Placeholder> {
    let mut size = 0;
    for seg in &t.segments {
        match seg {
            Segment::Literal(l) => size += l.len(),
            Segment::Placeholder(p) => {
                let domain = encoding::entity_placeholder_domain(spec, entity, p);
                // Non-ASCII alphabets take up to 4 bytes a character.
                let per_char = if domain.alphabet.ranges.iter().all(|&(_, hi)| hi.is_ascii()) {
                    1
                } else {
                    4
                };
                match domain.max_len {
                    Some(max)
                        if p.kind == PlaceholderKind::Attribute
                            && matches!(
                                entity.attributes.get(&p.name.value).map(|a| &a.r#type),
                                Some(AttributeType::String { .. })
                            ) =>
                    {
                        size = size.saturating_add(max)
                    }
                    Some(max) => size = size.saturating_add(max.saturating_mul(per_char)),
                    None => return Err(p),
                }
            }
        }
    }
    Ok(size)
}

/// Why: a key over 2,048 bytes (partition) or 1,024 bytes (sort) is rejected at write time.
pub fn check_key_sizes(spec: &ir::Spec, diags: &mut Diagnostics) {
    for entity in spec.entities.values() {
        for (_, key) in std::iter::once((None, &entity.primary_key))
            .chain(entity.index_keys.iter().map(|(i, k)| (Some(i), k)))
        {
            for (template, limit) in [
                (Some(&key.pk), MAX_PARTITION_KEY),
                (key.sk.as_ref(), MAX_SORT_KEY),
            ] {
                let Some(template) = template else { continue };
                if template.is_natural() {
                    continue;
                }
                match template_size(spec, entity, template) {
                    Ok(size) if size > limit => diags.push(
                        Diagnostic::new(Code::KeyTooLarge, format!("`{}`'s key `{}` can be {size} bytes; DynamoDB allows {limit}", entity.name, template.source.value))
                            .label(template.source.span, "this template")
                            .help("lower the max_length of the placeholders' attributes"),
                    ),
                    Ok(_) => {}
                    Err(p) => diags.push(
                        Diagnostic::new(Code::KeySizeUnbounded, format!("`<{}>` has no length bound, so `{}`'s key size is unbounded", p.name, entity.name))
                            .label(p.name.span, "unbounded placeholder")
                            .help(format!("give `{}` a `max_length` (or a `pattern` with a bounded repetition) so keys stay within {limit} bytes", p.name)),
                    ),
                }
            }
        }
    }
}

/// Worst-case bytes of a value, when bounded.
fn max_value_size(a: &ir::Attribute) -> Option<usize> {
    match &a.r#type {
        AttributeType::String { .. } => encoding::type_domain(&a.r#type, false).max_len,
        AttributeType::Integer { .. } | AttributeType::Decimal { .. } => Some(21),
        AttributeType::Boolean => Some(1),
        AttributeType::Datetime { .. } => Some(30),
        AttributeType::Enum { values } => values.iter().map(String::len).max(),
        AttributeType::Binary { max_length, .. } => max_length.map(|m| m as usize),
        AttributeType::List { .. } | AttributeType::Map { .. } | AttributeType::Set { .. } => None,
    }
}

/// Why: items over 400 KB are rejected; each started KB of an item is another write unit.
pub fn check_item_sizes(spec: &ir::Spec, diags: &mut Diagnostics) {
    for entity in spec.entities.values() {
        let keys: usize = std::iter::once(&entity.primary_key)
            .chain(entity.index_keys.values())
            .flat_map(|k| k.templates())
            .map(|t| t.attribute.len() + template_size(spec, entity, t).unwrap_or(64))
            .sum::<usize>()
            + spec
                .table
                .entity_type
                .marker(&entity.name)
                .map_or(0, |(a, v)| a.len() + v.len());
        let worst = entity.attributes.values().try_fold(keys, |w, a| {
            Some(w.saturating_add(a.name.len() + max_value_size(a)?))
        });
        if let Some(worst) = worst.filter(|w| *w > MAX_ITEM) {
            diags.push(
                Diagnostic::new(Code::ItemTooLarge, format!("a `{}` item can be {worst} bytes; DynamoDB allows {MAX_ITEM}", entity.name))
                    .label(entity.name.span, "this entity")
                    .help("lower the attributes' max_length, or split the entity (vertical partitioning) and keep large objects in S3"),
            );
        } else if crate::plan::typical_item_size(spec, entity) > 1024 {
            let typical = crate::plan::typical_item_size(spec, entity);
            diags.push(
                Diagnostic::new(Code::ItemOverOneKb, format!("a typical `{}` item is about {typical} bytes: each write costs {} write units", entity.name, typical.div_ceil(1024)))
                    .label(entity.name.span, "this entity")
                    .help("keep frequently written items under 1 KB: move large, rarely changed attributes to their own item"),
            );
        }
    }
}

/// Why: DynamoDB's TTL only acts on a Number of epoch seconds; anything else never expires.
pub fn check_ttl(spec: &ir::Spec, diags: &mut Diagnostics) {
    let Some(ttl) = &spec.table.ttl else { return };
    for entity in spec.entities.values() {
        let Some(attr) = entity.attributes.get(&ttl.value) else {
            continue;
        };
        let ok = matches!(
            attr.r#type,
            AttributeType::Integer { .. }
                | AttributeType::Datetime {
                    format: ir::DatetimeFormat::EpochSeconds,
                    ..
                }
        );
        if !ok {
            diags.push(
                Diagnostic::new(
                    Code::TtlAttribute,
                    format!(
                        "TTL attribute `{}` of `{}` is {}, not a Number of epoch seconds",
                        ttl,
                        entity.name,
                        attr.r#type.article_name()
                    ),
                )
                .label(attr.name.span, "this attribute")
                .label(ttl.span, "the table's TTL attribute")
                .help("declare it as `{ type: datetime, format: epoch_seconds }`"),
            );
        }
    }
}

/// Why: a TTL attribute no entity has expires nothing.
pub fn check_ttl_used(spec: &ir::Spec, diags: &mut Diagnostics) {
    let Some(ttl) = &spec.table.ttl else { return };
    if !spec
        .entities
        .values()
        .any(|e| e.attributes.contains_key(&ttl.value))
    {
        diags.push(
            Diagnostic::new(Code::TtlUnused, format!("no entity has the TTL attribute `{ttl}`"))
                .label(ttl.span, "TTL attribute")
                .help(format!("add `{ttl}: {{ type: datetime, format: epoch_seconds, optional: true }}` to the entities that expire, or remove `ttl`")),
        );
    }
}

/// Why: DynamoDB rejects transactions over 100 items; mixing scopes blurs tenant boundaries.
pub fn check_transactions(spec: &ir::Spec, diags: &mut Diagnostics) {
    for pattern in spec.access_patterns.values() {
        let (max_items, what, split) = match &pattern.operation {
            Operation::Transaction(t) => (
                t.max_items,
                "a transaction",
                "split larger changes into several transactions",
            ),
            Operation::TransactGet(t) => (
                t.max_items,
                "a read transaction",
                "read more items in several transactions",
            ),
            _ => continue,
        };
        if max_items.value > MAX_TRANSACTION_ITEMS {
            diags.push(
                Diagnostic::new(
                    Code::TransactionLimit,
                    format!(
                        "{what} of up to {} items; DynamoDB allows {MAX_TRANSACTION_ITEMS}",
                        max_items.value
                    ),
                )
                .label(max_items.span, "max_items")
                .help(format!("lower max_items to 100 and {split}")),
            );
        }
        // A read transaction of both scopes is refused where it is resolved.
        let Operation::Transaction(t) = &pattern.operation else {
            continue;
        };
        let scopes: Vec<Scope> = t
            .items
            .iter()
            .filter_map(|(_, e)| spec.entities.get(e))
            .map(|e| e.scope)
            .collect();
        if scopes.contains(&Scope::Tenant) && scopes.contains(&Scope::Global) {
            diags.push(
                Diagnostic::new(
                    Code::TransactionScope,
                    format!(
                        "transaction `{}` mixes tenant-scoped and global entities",
                        pattern.name
                    ),
                )
                .label(pattern.name.span, "this transaction")
                .help(
                    "keep each transaction within one tenant's data; update shared data separately",
                ),
            );
        }
    }
}

/// Whether every item of a tenant shares one partition: no placeholder but the tenant.
fn single_partition(t: &ir::KeyTemplate) -> bool {
    t.placeholders().all(|p| p.kind == PlaceholderKind::Tenant)
}

fn per_tenant(spec: &ir::Spec) -> &'static str {
    if spec.tenant.is_some() {
        " per tenant"
    } else {
        ""
    }
}

/// Why: one partition serves 1,000 WCU and 3,000 RCU; more needs more partitions.
pub fn check_throughput(spec: &ir::Spec, diags: &mut Diagnostics) {
    for entity in spec.entities.values() {
        let writes = entity.throughput.writes_per_second;
        let reads = entity.throughput.reads_per_second;
        if let Some(shards) = &entity.shards {
            let mut needed = writes.map_or(0, |w| w.value.div_ceil(PARTITION_WCU));
            needed = needed.max(reads.map_or(0, |r| r.value.div_ceil(PARTITION_RCU)));
            if u64::from(shards.count.value) < needed {
                let rate = writes.or(reads).expect("a need implies a declared rate");
                diags.push(
                    Diagnostic::new(Code::ShardCapacity, format!("{} shards cannot carry the declared throughput: at least {needed} are needed", shards.count.value))
                        .label(shards.count.span, "shard count")
                        .label(rate.span, "declared rate")
                        .help(format!("raise the shard count to {needed} (1,000 writes/s and 3,000 reads/s per partition)")),
                );
            }
            continue;
        }
        if !single_partition(&entity.primary_key.pk) {
            continue;
        }
        let over = [
            (writes, PARTITION_WCU, "writes"),
            (reads, PARTITION_RCU, "reads"),
        ]
        .into_iter()
        .find_map(|(rate, limit, what)| rate.filter(|r| r.value > limit).map(|r| (r, limit, what)));
        if let Some((rate, limit, what)) = over {
            diags.push(
                Diagnostic::new(Code::HotPartition, format!("{} {what}/s of `{}` go to one partition{}, which serves {limit}", rate.value, entity.name, per_tenant(spec)))
                    .label(rate.span, "declared rate")
                    .label(entity.primary_key.pk.source.span, if spec.tenant.is_some() { "every item of a tenant has this partition key" } else { "every item has this partition key" })
                    .help(format!("shard the entity: `shards: {{ count: {}, by: random }}` with `<shard>` in the partition key", rate.value.div_ceil(limit))),
            );
        }
    }
    check_pattern_rates(spec, diags);
}

/// Query rates on a single-partition key: reads per second against one partition.
fn check_pattern_rates(spec: &ir::Spec, diags: &mut Diagnostics) {
    for pattern in spec.access_patterns.values() {
        let (Operation::Query(q), Some(rate)) = (&pattern.operation, &pattern.rate) else {
            continue;
        };
        if !single_partition(&q.pk) {
            continue;
        }
        // A partition serves 3,000 read units a second; an eventually
        // consistent read of 4 KB costs half a unit.
        let limit = PARTITION_RCU;
        let units = crate::plan::query_read_units(spec, q, rate);
        if units > limit as f64 {
            diags.push(
                Diagnostic::new(Code::HotPartition, format!("`{}` reads about {units:.0} units/s from one partition, which serves {limit}", pattern.name))
                    .label(q.pk.source.span, format!("one partition{}", per_tenant(spec)))
                    .help("shard the data, cache the result, or keep an aggregate item"),
            );
        }
    }
}

/// Why: DynamoDB throttles an on-demand table at its declared maximum
/// throughput, so rates the spec declares above it cannot be served.
pub fn check_max_throughput(spec: &ir::Spec, diags: &mut Diagnostics) {
    let Some(max) = spec.table.settings.max_throughput else {
        return;
    };
    let crate::plan::Units { reads, writes } = crate::plan::declared_units(spec);
    for (need, limit, what) in [(writes, max.write, "write"), (reads, max.read, "read")] {
        let Some(limit) = limit else {
            continue;
        };
        if need > limit.value as f64 {
            diags.push(
                Diagnostic::new(
                    Code::MaxThroughputBelowRates,
                    format!("the declared rates need about {need:.0} {what} request units per second, over the table's maximum of {}", limit.value),
                )
                .label(limit.span, "maximum throughput")
                .help(format!("DynamoDB throttles what goes over it: raise `max_throughput.{what}` to at least {:.0}, or lower the declared rates", need.ceil())),
            );
        }
    }
}

/// Why: a GSI partition key with few values funnels writes into few GSI partitions.
pub fn check_low_cardinality_indexes(spec: &ir::Spec, diags: &mut Diagnostics) {
    for entity in spec.entities.values() {
        let Some(writes) = entity.throughput.writes_per_second else {
            continue;
        };
        for (index, key) in &entity.index_keys {
            if spec
                .indexes
                .get(index)
                .is_none_or(|i| i.kind != IndexKind::Global)
            {
                continue;
            }
            let mut cardinality: Option<u64> = Some(1);
            for p in key
                .pk
                .placeholders()
                .filter(|p| p.kind != PlaceholderKind::Tenant)
            {
                let values = match entity.attributes.get(&p.name.value).map(|a| &a.r#type) {
                    Some(AttributeType::Enum { values }) => Some(values.len() as u64),
                    Some(AttributeType::Boolean) => Some(2),
                    _ => None,
                };
                cardinality = cardinality.zip(values).map(|(c, v)| c.saturating_mul(v));
            }
            let Some(cardinality) = cardinality else {
                continue;
            };
            if writes.value / cardinality.max(1) > PARTITION_WCU {
                diags.push(
                    Diagnostic::new(Code::LowCardinalityIndex, format!("index `{index}` partition key of `{}` has {cardinality} value(s){} for {} writes/s", entity.name, per_tenant(spec), writes.value))
                        .label(key.pk.source.span, "low-cardinality partition key")
                        .label(writes.span, "declared rate")
                        .help("add a high-cardinality attribute or a shard suffix to the index partition key, or an index write throttles the table"),
                );
            }
        }
    }
}
