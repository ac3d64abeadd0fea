//! Access patterns against the model: every index and entity earns its keep,
//! and every pattern can be served.

use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::ir::{self, IndexRef, Operation, PlaceholderKind, Segment, ShardBy, SortOp};
use crate::plan::{query_shards, QueryShards};

/// Why: an index nobody queries still costs a write for every item projected into it.
pub fn check_unused_indexes(spec: &ir::Spec, diags: &mut Diagnostics) {
    for index in spec.indexes.values() {
        let this = IndexRef::Index(index.name.value.clone());
        let used = spec.access_patterns.values().any(|p| match &p.operation {
            Operation::Query(q) => q.index == this,
            Operation::Scan(s) => s.index == this,
            Operation::Get { .. }
            | Operation::Transaction(_)
            | Operation::TransactGet(_)
            | Operation::Batch(_) => false,
        });
        if !used {
            diags.push(
                Diagnostic::new(Code::UnusedIndex, format!("no access pattern queries index `{}`", index.name))
                    .label(index.name.span, "unused index")
                    .help("add the access pattern it serves, or remove the index (every write into it costs capacity)"),
            );
        }
    }
}

/// Why: an entity no access pattern names is either dead or served by something unchecked.
pub fn check_unused_entities(spec: &ir::Spec, diags: &mut Diagnostics) {
    let used: std::collections::BTreeSet<&str> = spec
        .access_patterns
        .values()
        .flat_map(|p| p.named_entities())
        .collect();
    for entity in spec.entities.values() {
        if !used.contains(entity.name.as_str()) {
            diags.push(
                Diagnostic::new(Code::UnusedEntity, format!("no access pattern reads or writes entity `{}`", entity.name))
                    .label(entity.name.span, "unused entity")
                    .help("add the access patterns that use it (a `get`, a `query` returning it, a transaction or batch)"),
            );
        }
    }
}

/// Why: a randomly sharded item's shard is unknown at read time, so GetItem cannot find it.
pub fn check_sharded_gets(spec: &ir::Spec, diags: &mut Diagnostics) {
    for pattern in spec.access_patterns.values() {
        let Operation::Get { entity, .. } = &pattern.operation else {
            continue;
        };
        let Some(e) = spec.entities.get(entity) else {
            continue;
        };
        if e.shards.as_ref().is_some_and(|s| s.by == ShardBy::Random) {
            diags.push(
                Diagnostic::new(Code::ShardedGet, format!("`get` of `{entity}`, which is sharded at random"))
                    .label(pattern.name.span, "this access pattern")
                    .help("query across the shards instead (`query` with `<shard>` in the partition key), or shard by `hash(<attribute>)` so reads can compute the shard"),
            );
        }
    }
}

/// Why: a query that reads every shard sends one request per shard. When
/// its partition key names no `<shard>` and only its sort-key condition
/// does, every one of those requests reads the same partition, and an
/// item whose sort key lies in the ranges of several shards is returned
/// once for each of them. The shards' ranges are apart only for `equals`,
/// and for `begins_with` when no shard's text is a prefix of another's
/// (a non-digit follows `<shard>`, or there are at most 10 shards).
pub fn check_shard_ranges(spec: &ir::Spec, diags: &mut Diagnostics) {
    for pattern in spec.access_patterns.values() {
        let Operation::Query(q) = &pattern.operation else {
            continue;
        };
        let QueryShards::Every { count } = query_shards(spec, q) else {
            continue;
        };
        let Some(cond) = &q.sk else {
            continue;
        };
        if count < 2 || q.pk.has_shard() || !cond.operands.iter().any(ir::KeyTemplate::has_shard) {
            continue;
        }
        let apart = match cond.op {
            SortOp::Equals => true,
            SortOp::BeginsWith => cond.operands.iter().all(|o| shard_prefix_free(o, count)),
            SortOp::Between | SortOp::Lt | SortOp::Lte | SortOp::Gt | SortOp::Gte => false,
        };
        if !apart {
            let span = cond
                .operands
                .iter()
                .find(|o| o.has_shard())
                .map_or(cond.span, |o| o.source.span);
            diags.push(
                Diagnostic::new(
                    Code::ShardRangeOverlap,
                    format!(
                        "`{}` reads all {count} shards in one partition, and their sort-key ranges overlap: an item would be returned once for each shard whose range holds it",
                        pattern.name
                    ),
                )
                .label(span, "`<shard>` only in the sort-key condition")
                .help("name `<shard>` in the partition key too, compare the sort key with `equals` (or `begins_with` a prefix where a non-digit follows `<shard>`), or leave `<shard>` out of the condition"),
            );
        }
    }
}

/// Why: a query that reads every shard sends one Query per shard, each
/// billed at least half a read unit even when it matches nothing, and the
/// runtime runs 32 of them at a time (`Query::concurrency`): beyond that a
/// call takes several rounds of requests before its first page.
pub fn check_fan_out(spec: &ir::Spec, diags: &mut Diagnostics) {
    /// Requests the runtime sends at once by default.
    const AT_ONCE: u32 = 32;
    for pattern in spec.access_patterns.values() {
        let Operation::Query(q) = &pattern.operation else {
            continue;
        };
        let QueryShards::Every { count } = query_shards(spec, q) else {
            continue;
        };
        if count <= AT_ONCE {
            continue;
        }
        let units = f64::from(count) * if q.consistent_read { 1.0 } else { 0.5 };
        let span = std::iter::once(&q.pk)
            .chain(q.sk.iter().flat_map(|c| &c.operands))
            .find(|t| t.has_shard())
            .map_or(q.pk.source.span, |t| t.source.span);
        diags.push(
            Diagnostic::new(
                Code::QueryFanOut,
                format!(
                    "`{}` reads all {count} shards: {count} Query requests per call, at least {units} read units even when nothing matches, in {} rounds of {AT_ONCE} at a time",
                    pattern.name,
                    count.div_ceil(AT_ONCE)
                ),
            )
            .label(span, "every shard is read")
            .label(pattern.name.span, "this access pattern")
            .help("bind the shard through a parameter hashed like the entity's `shards: { by: hash(<attribute>) }` so one request reads one shard, use fewer shards (what the write rate needs, `shard_capacity` tells), or acknowledge with `lints: { query_fan_out: allow }`"),
        );
    }
}

/// Whether the prefixes `template` gives for the shards `0..count` are
/// apart: no shard's text is a prefix of another's where it ends.
fn shard_prefix_free(template: &ir::KeyTemplate, count: u32) -> bool {
    let at = template
        .segments
        .iter()
        .position(|s| matches!(s, Segment::Placeholder(p) if p.kind == PlaceholderKind::Shard));
    match at.map(|i| template.segments.get(i + 1)) {
        None => true,
        Some(None) => count <= 10,
        Some(Some(Segment::Literal(l))) => l.chars().next().is_some_and(|c| !c.is_ascii_digit()),
        Some(Some(Segment::Placeholder(_))) => false,
    }
}

/// Why: DynamoDB reads (and bills) every item a query's key condition
/// matches before its filter drops any, and `Limit` counts the items read:
/// a filter that keeps few items costs as much as reading them all, and
/// pages may come back empty. A filter is never what isolates tenants
/// (the key condition is), so it is a cost, not a safety, question.
pub fn check_filters(spec: &ir::Spec, diags: &mut Diagnostics) {
    /// Read units of one page (1 MB) read eventually consistent.
    const PAGE_UNITS: f64 = 1024.0 / 4.0 / 2.0;
    for pattern in spec.access_patterns.values() {
        let Operation::Query(q) = &pattern.operation else {
            continue;
        };
        let conditions = ir::Filter::conditions(&q.filter);
        let Some(first) = conditions.first() else {
            continue;
        };
        // A key condition that names one whole primary key reads one item
        // at most: the filter drops nothing that costs more than it.
        let one_item = q.index == IndexRef::Table
            && (spec.table.sort_key.is_none()
                || q.sk.as_ref().is_some_and(|c| c.op == SortOp::Equals));
        if one_item {
            continue;
        }
        let mut attributes: Vec<&str> = Vec::new();
        for c in &conditions {
            if !attributes.contains(&c.attribute.as_str()) {
                attributes.push(c.attribute.as_str());
            }
        }
        let factor = if q.consistent_read { 2.0 } else { 1.0 };
        let page = PAGE_UNITS * factor;
        let rate = match &pattern.rate {
            Some(r) => format!(
                "; at the declared {} calls/s, up to {:.0} read units/s if each call reads one full page",
                r.per_second,
                r.per_second * page
            ),
            None => String::new(),
        };
        diags.push(
            Diagnostic::new(
                Code::FilterAmplification,
                format!(
                    "`{}` filters on {} after its key condition has read the items: every item the key condition matches is read and billed, kept or not",
                    pattern.name,
                    attributes.iter().map(|a| format!("`{a}`")).collect::<Vec<_>>().join(", "),
                ),
            )
            .label(first.span, "applied after the read")
            .label(pattern.name.span, "this access pattern")
            .help(format!(
                "a call reads up to 1 MB per page ({page:.0} read units{}) whatever the filter keeps, and a page may return no item{rate}. When the filter keeps a small share, give those items a key of their own (a sort-key prefix or a sparse index); acknowledge with `lints: {{ filter_amplification: allow }}` when it keeps most",
                if q.consistent_read { ", strongly consistent" } else { ", eventually consistent" }
            )),
        );
    }
}

/// Why: a scan reads, and bills, every item of its table or index, the
/// other entities' too, and IAM cannot confine the role allowed to run it
/// to some items (`dynamodb:LeadingKeys` does not apply to a Scan): the
/// role that scans a table of a multi-tenant design can read every
/// tenant's items, whatever the generated code keeps.
pub fn check_scans(spec: &ir::Spec, diags: &mut Diagnostics) {
    for pattern in spec.access_patterns.values() {
        let Operation::Scan(scan) = &pattern.operation else {
            continue;
        };
        let target = match &scan.index {
            IndexRef::Table => format!("table `{}`", spec.table.name),
            IndexRef::Index(i) => format!("index `{i}`"),
        };
        let shared = spec
            .entities
            .values()
            .filter(|e| e.name.value != scan.entity && scan.index.keys_of(e).is_some())
            .count();
        let tenant = match &spec.tenant {
            Some(_) => " The role allowed to run it (`roles:`) can read every tenant's items there with its own requests: IAM does not confine a Scan to some keys.",
            None => "",
        };
        diags.push(
            Diagnostic::new(
                Code::ScanPattern,
                format!(
                    "`{}` scans {target}: each call reads and bills every item there ({shared} other entit{} included), not only `{}`'s",
                    pattern.name,
                    if shared == 1 { "y" } else { "ies" },
                    scan.entity,
                ),
            )
            .label(pattern.name.span, "this access pattern")
            .help(format!(
                "scan for admin and batch jobs only, on an index that holds little besides what it returns (a sparse index), with segments run in parallel; serve user requests with a query.{tenant} Acknowledge with `lints: {{ scan_pattern: allow }}`"
            )),
        );
    }
}

/// Why: an INCLUDE projection naming an attribute no entity in the index has is a typo.
pub fn check_projection_names(spec: &ir::Spec, diags: &mut Diagnostics) {
    for index in spec.indexes.values() {
        let ir::Projection::Include(names) = &index.projection else {
            continue;
        };
        let writers: Vec<&ir::Entity> = spec
            .entities
            .values()
            .filter(|e| e.index_keys.contains_key(&index.name.value))
            .collect();
        for name in names {
            // A projection names an attribute by its spec name or the name
            // it is stored under.
            if writers.iter().any(|e| {
                e.attributes
                    .values()
                    .any(|a| a.name.value == *name || a.stored() == name)
            }) {
                continue;
            }
            diags.push(
                Diagnostic::new(
                    Code::UnknownAttribute,
                    format!(
                        "index `{}` projects `{name}`, which no entity in the index has",
                        index.name
                    ),
                )
                .label(index.name.span, "this index")
                .help("list attributes of the entities written into the index"),
            );
        }
    }
}
