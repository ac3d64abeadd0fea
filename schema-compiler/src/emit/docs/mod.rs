//! The design document of a spec, in markdown for a design review: the
//! key schema, the entities with their key templates per index, every
//! access pattern with its request and estimated capacity, the tenant
//! isolation the IAM policy enforces, and the checker's warnings.
//!
//! Rendered with minijinja from an embedded template, strict about
//! undefined values so a misspelt field fails the tests instead of
//! printing nothing.

use minijinja::{Environment, UndefinedBehavior};
use serde::Serialize;

use super::GeneratedFile;
use crate::diagnostics::{Diagnostic, Severity};
use crate::ir::{self, BillingMode, IndexKind, PlaceholderKind, Projection, Segment};
use crate::plan;

const TEMPLATE: &str = include_str!("design.md.j2");

#[derive(Serialize)]
struct Context {
    source: String,
    description: Option<String>,
    table: TableDoc,
    indexes: Vec<IndexDoc>,
    key_columns: Vec<String>,
    entities: Vec<EntityDoc>,
    patterns: Vec<PatternDoc>,
    tenant: Option<TenantDoc>,
    warnings: Vec<WarningDoc>,
}

#[derive(Serialize)]
struct KeyDoc {
    name: String,
    r#type: &'static str,
}

#[derive(Serialize)]
struct TableDoc {
    name: String,
    partition_key: KeyDoc,
    sort_key: Option<KeyDoc>,
    entity_type_attribute: Option<String>,
    ttl: Option<String>,
    billing: String,
    stream: Option<&'static str>,
    /// The table settings, one sentence each.
    settings: Vec<String>,
}

#[derive(Serialize)]
struct IndexDoc {
    name: String,
    kind: &'static str,
    partition_key: Vec<String>,
    sort_key: Vec<String>,
    projection: String,
}

#[derive(Serialize)]
struct EntityDoc {
    name: String,
    description: Option<String>,
    /// One table cell per key column: the template in a code span, or `–`.
    cells: Vec<String>,
    notes: Vec<String>,
    attributes: Vec<AttributeDoc>,
}

#[derive(Serialize)]
struct AttributeDoc {
    name: String,
    r#type: String,
    optional: bool,
}

#[derive(Serialize)]
struct ValueDoc {
    name: String,
    value: String,
}

#[derive(Serialize)]
struct PatternDoc {
    name: String,
    description: Option<String>,
    operation: String,
    table: String,
    index: Option<String>,
    key_condition: Option<String>,
    values: Vec<ValueDoc>,
    order: Option<&'static str>,
    consistent: bool,
    entities: String,
    read_units: f64,
    write_units: f64,
}

#[derive(Serialize)]
struct TenantDoc {
    placeholder: String,
    id_pattern: String,
    principal_tag: String,
    leading_keys: Vec<String>,
    actions: String,
    global_entities: String,
}

#[derive(Serialize)]
struct WarningDoc {
    severity: String,
    code: String,
    message: String,
}

fn key_doc(k: &ir::KeyAttribute) -> KeyDoc {
    KeyDoc {
        name: k.name.value.clone(),
        r#type: k.r#type.code(),
    }
}

fn table_doc(spec: &ir::Spec) -> TableDoc {
    let t = &spec.table;
    let billing = match (
        t.billing.mode,
        t.billing.read_capacity,
        t.billing.write_capacity,
    ) {
        (BillingMode::Provisioned, Some(r), Some(w)) => {
            format!("provisioned, {r} read and {w} write capacity units")
        }
        // Provisioned without both capacities and `Unknown` are errors in
        // resolve's `resolve_billing` (`singletable::invalid_value`), so only
        // on-demand tables reach this arm.
        (BillingMode::OnDemand | BillingMode::Provisioned | BillingMode::Unknown, _, _) => {
            "on demand".to_owned()
        }
    };
    TableDoc {
        name: t.name.value.clone(),
        partition_key: key_doc(&t.partition_key),
        sort_key: t.sort_key.as_ref().map(key_doc),
        entity_type_attribute: t.entity_type.attribute().map(|a| a.value.clone()),
        ttl: t.ttl.as_ref().map(|t| t.value.clone()),
        billing,
        stream: t.stream.map(super::table::stream_view_name),
        settings: settings_doc(&t.settings),
    }
}

/// The table settings as sentences of the design document.
fn settings_doc(s: &ir::TableSettings) -> Vec<String> {
    let units = |u: &ir::UnitsPerSecond| {
        let part = |v: Option<crate::source::Spanned<u64>>, what: &str| {
            v.map(|v| format!("{} {what}", v.value))
        };
        [part(u.read, "reads"), part(u.write, "writes")]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" and ")
    };
    let mut out = Vec::new();
    if let Some(days) = s.point_in_time_recovery {
        out.push(format!("Point-in-time recovery: {days} days."));
    }
    match &s.encryption {
        ir::Encryption::AwsOwned => {}
        ir::Encryption::AwsManaged => {
            out.push("Encrypted with the AWS managed key `alias/aws/dynamodb`.".to_owned())
        }
        ir::Encryption::Customer(key) => {
            out.push(format!("Encrypted with the customer managed key `{key}`."))
        }
    }
    if let Some(class) = s.table_class {
        out.push(format!(
            "Table class: {}.",
            super::table::table_class_name(class)
        ));
    }
    if let Some(mode) = s.contributor_insights {
        out.push(format!(
            "Contributor Insights: {} (table and global indexes).",
            super::table::insights_mode_name(mode)
        ));
    }
    if let Some(max) = &s.max_throughput {
        out.push(format!(
            "On-demand maximum: {} request units per second.",
            units(max)
        ));
    }
    match (&s.warm_throughput, s.warm_from_rates) {
        (Some(warm), None) => out.push(format!(
            "Warm throughput: {} units per second.",
            units(warm)
        )),
        (Some(warm), Some(_)) => out.push(format!(
            "Warm throughput: {} units per second, what the declared rates need.",
            units(warm)
        )),
        (None, Some(_)) => out.push(
            "Warm throughput: the declared rates need no more than a new table serves warm."
                .to_owned(),
        ),
        (None, None) => {}
    }
    if let Some(r) = &s.replicas {
        let consistency = r.consistency.value.name();
        let witness = r
            .witness
            .as_ref()
            .map_or(String::new(), |w| format!(", witness in {w}"));
        out.push(format!(
            "Global table: replicas in {} ({consistency} consistency{witness}); created in {}.",
            r.regions.join(", "),
            r.home()
        ));
    }
    if !s.resource_policy.is_empty() {
        let statements: Vec<String> = s
            .resource_policy
            .iter()
            .map(|st| {
                let text = |k: &str| st.get(k).map(|v| v.to_string()).unwrap_or_default();
                let action = if st.contains_key("Action") {
                    text("Action")
                } else {
                    format!("all but {}", text("NotAction"))
                };
                format!("{} {action}", text("Effect").trim_matches('"'))
            })
            .collect();
        out.push(format!("Resource-based policy: {}.", statements.join("; ")));
    }
    if !s.tags.is_empty() {
        let tags: Vec<String> = s
            .tags
            .iter()
            .map(|(k, v)| format!("`{k}` = `{v}`"))
            .collect();
        out.push(format!("Tags: {}.", tags.join(", ")));
    }
    out
}

fn index_doc(i: &ir::Index) -> IndexDoc {
    IndexDoc {
        name: i.name.value.clone(),
        kind: match i.kind {
            IndexKind::Global => "global",
            IndexKind::Local => "local",
        },
        partition_key: i.partition_parts().map(|k| k.name.value.clone()).collect(),
        sort_key: i.sort_parts().map(|k| k.name.value.clone()).collect(),
        projection: match &i.projection {
            Projection::All => "all attributes".to_owned(),
            Projection::KeysOnly => "keys only".to_owned(),
            Projection::Include(names) => format!("keys and {}", names.join(", ")),
        },
    }
}

/// A column of the entities' key table: one key attribute of the table
/// or of an index.
struct KeyColumn {
    /// The index (`None`: the table).
    index: Option<String>,
    /// The key attribute.
    attribute: String,
    /// Where the column's template is among an entity's keys there
    /// ([`ir::EntityKey::templates`]).
    position: usize,
    /// A partition key attribute (else a sort key attribute).
    partition: bool,
}

/// Column headings: `pk`, `sk`, then each index's key attributes (every
/// attribute of a multi-attribute key).
fn key_columns(spec: &ir::Spec) -> Vec<KeyColumn> {
    let column =
        |index: Option<&ir::Index>, key: &ir::KeyAttribute, position, partition| KeyColumn {
            index: index.map(|i| i.name.value.clone()),
            attribute: key.name.value.clone(),
            position,
            partition,
        };
    let mut out = vec![column(None, &spec.table.partition_key, 0, true)];
    if let Some(sk) = &spec.table.sort_key {
        out.push(column(None, sk, 1, false));
    }
    for i in spec.indexes.values() {
        let partition = i.partition_parts().count();
        if i.kind == IndexKind::Global {
            for (n, k) in i.partition_parts().enumerate() {
                out.push(column(Some(i), k, n, true));
            }
        }
        for (n, k) in i.sort_parts().enumerate() {
            out.push(column(Some(i), k, partition + n, false));
        }
    }
    out
}

fn type_name(a: &ir::Attribute) -> String {
    a.describe_type()
}

fn entity_doc(spec: &ir::Spec, e: &ir::Entity, columns: &[KeyColumn]) -> EntityDoc {
    let cells = columns
        .iter()
        .map(|c| {
            let key = match &c.index {
                None => Some(&e.primary_key),
                Some(i) => e.index_keys.get(i),
            };
            let template = key
                .and_then(|key| key.templates().nth(c.position))
                .map(|t| t.source.value.clone());
            // GitHub tables split cells at `|`, even inside code spans.
            template.map_or_else(
                || "–".to_owned(),
                |t| format!("`{}`", t.replace('|', "\\|")),
            )
        })
        .collect();
    let mut notes = Vec::new();
    if spec.tenant.is_some() && e.scope == ir::Scope::Global {
        notes.push("Global: shared by every tenant.".to_owned());
    }
    for (index, key) in &e.index_keys {
        if key.sparse {
            notes.push(format!("Sparse in `{index}`: only items with every optional attribute of its key are indexed."));
        }
    }
    if let Some(s) = &e.shards {
        let by = match &s.by {
            ir::ShardBy::Random => "a random shard".to_owned(),
            ir::ShardBy::Hash(a) => format!("a hash of `{a}`"),
        };
        notes.push(format!(
            "Write-sharded over {} partitions by {by}.",
            s.count.value
        ));
    }
    if let Some(v) = &e.version_attribute {
        notes.push(format!("Optimistic locking on `{v}`."));
    }
    if let Some(a) = &e.aggregate {
        notes.push(format!(
            "Counts `{}` items by {}.",
            a.of,
            a.group_by.join(", ")
        ));
    }
    EntityDoc {
        name: e.name.value.clone(),
        description: e.description.clone(),
        cells,
        notes,
        attributes: e
            .attributes
            .values()
            .map(|a| AttributeDoc {
                name: a.name.value.clone(),
                r#type: type_name(a),
                optional: a.optional,
            })
            .collect(),
    }
}

fn pattern_doc(plan: plan::Plan, order: Option<&'static str>) -> PatternDoc {
    PatternDoc {
        values: plan
            .values
            .iter()
            .map(|(name, value)| ValueDoc {
                name: name.clone(),
                value: value.clone(),
            })
            .collect(),
        entities: plan.entities.join(", "),
        name: plan.name,
        description: plan.description,
        operation: plan.operation,
        table: plan.table,
        index: plan.index,
        key_condition: plan.key_condition.map(|c| {
            plan.names
                .iter()
                .fold(c, |c, (placeholder, name)| c.replace(placeholder, name))
        }),
        order,
        consistent: plan.consistent_read,
        read_units: plan.read_units,
        write_units: plan.write_units,
    }
}

/// The `dynamodb:LeadingKeys` patterns of the tenant's partition keys:
/// each template up to the delimiter after the tenant, then `*`.
fn leading_keys(spec: &ir::Spec, tenant: &ir::Tenant) -> Vec<String> {
    let variable = format!("${{aws:PrincipalTag/{}}}", tenant.principal_tag);
    let mut out: Vec<String> = Vec::new();
    let tenant_entities = spec
        .entities
        .values()
        .filter(|e| e.scope == ir::Scope::Tenant);
    for e in tenant_entities {
        for key in std::iter::once(&e.primary_key).chain(e.index_keys.values()) {
            let mut prefix = String::new();
            let mut seen_tenant = false;
            for segment in &key.pk.segments {
                match segment {
                    Segment::Literal(l) if seen_tenant => {
                        prefix.extend(l.chars().next());
                        break;
                    }
                    Segment::Literal(l) => prefix.push_str(l),
                    Segment::Placeholder(p) if p.kind == PlaceholderKind::Tenant => {
                        prefix.push_str(&variable);
                        seen_tenant = true;
                    }
                    Segment::Placeholder(_) => break,
                }
            }
            if seen_tenant {
                prefix.push('*');
                if !out.contains(&prefix) {
                    out.push(prefix);
                }
            }
        }
    }
    out
}

fn actions(spec: &ir::Spec) -> String {
    let mut out: Vec<&str> = Vec::new();
    for p in spec.access_patterns.values() {
        let names: &[&str] = match &p.operation {
            ir::Operation::Get { .. } => &["GetItem"],
            ir::Operation::Query(_) => &["Query"],
            ir::Operation::Scan(_) => &["Scan"],
            ir::Operation::Transaction(_) => &["TransactWriteItems"],
            ir::Operation::TransactGet(_) => &["TransactGetItems"],
            ir::Operation::Batch(b) => {
                match (b.get.is_empty(), b.put.is_empty() && b.delete.is_empty()) {
                    (false, true) => &["BatchGetItem"],
                    (true, _) => &["BatchWriteItem"],
                    (false, false) => &["BatchGetItem", "BatchWriteItem"],
                }
            }
        };
        for n in names {
            if !out.contains(n) {
                out.push(n);
            }
        }
    }
    if out.is_empty() {
        "none".to_owned()
    } else {
        out.iter()
            .map(|a| format!("`dynamodb:{a}`"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn context(spec: &ir::Spec, stem: &str, diagnostics: &[&Diagnostic]) -> Context {
    let columns = key_columns(spec);
    let plans = plan::plans(spec);
    let patterns = spec
        .access_patterns
        .values()
        .zip(plans)
        .map(|(p, plan)| {
            let order = match &p.operation {
                ir::Operation::Query(q) if q.order == ir::Order::Descending => Some("descending"),
                ir::Operation::Query(_)
                | ir::Operation::Get { .. }
                | ir::Operation::Scan(_)
                | ir::Operation::Transaction(_)
                | ir::Operation::TransactGet(_)
                | ir::Operation::Batch(_) => None,
            };
            pattern_doc(plan, order)
        })
        .collect();
    Context {
        source: format!("{stem}.yaml"),
        description: spec.description.clone(),
        table: table_doc(spec),
        indexes: spec.indexes.values().map(index_doc).collect(),
        key_columns: columns
            .iter()
            .map(|c| {
                let role = if c.partition { "PK" } else { "SK" };
                let attribute = &c.attribute;
                match &c.index {
                    None => format!("{role} (`{attribute}`)"),
                    Some(i) => format!("{i} {role} (`{attribute}`)"),
                }
            })
            .collect(),
        entities: spec
            .entities
            .values()
            .map(|e| entity_doc(spec, e, &columns))
            .collect(),
        patterns,
        tenant: spec.tenant.as_ref().map(|t| TenantDoc {
            placeholder: t.placeholder.value.clone(),
            id_pattern: t.id_pattern.value.clone(),
            principal_tag: t.principal_tag.value.clone(),
            leading_keys: leading_keys(spec, t),
            actions: actions(spec),
            global_entities: spec
                .entities
                .values()
                .filter(|e| e.scope == ir::Scope::Global)
                .map(|e| e.name.value.clone())
                .collect::<Vec<_>>()
                .join(", "),
        }),
        warnings: diagnostics
            .iter()
            .filter(|d| d.severity != Severity::Error)
            .map(|d| WarningDoc {
                severity: d.severity.to_string(),
                code: d.code.to_string(),
                message: d.message.clone(),
            })
            .collect(),
    }
}

/// `<stem>.md`: the design document of a spec; `diagnostics` are the
/// spec's warnings and notes.
pub fn render_docs(spec: &ir::Spec, stem: &str, diagnostics: &[&Diagnostic]) -> GeneratedFile {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    let contents = env
        .render_str(TEMPLATE, context(spec, stem, diagnostics))
        .expect("invariant: the embedded docs template renders every spec");
    GeneratedFile {
        name: format!("{stem}.md"),
        contents,
    }
}
