//! Tenant isolation: every key a tenant can reach starts with its own tenant
//! id followed by a delimiter no tenant id contains, so one IAM
//! `dynamodb:LeadingKeys` pattern per key shape isolates tenants.

use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::ir::{self, IndexKind, Operation, PlaceholderKind, Scope, Segment};

use super::show_chars;

/// Characters an IAM principal tag value may contain besides letters, digits and spaces.
pub const PRINCIPAL_TAG_PUNCTUATION: &str = "_.:/=+-@";

/// Whether `c` can appear in an IAM principal tag value: IAM allows
/// `[\p{L}\p{Z}\p{N}_.:/=+\-@]`. Letters and numbers are within Rust's
/// alphanumerics, and every Unicode space (`\p{Z}`: U+0020, U+00A0,
/// U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000) is
/// white space, so this is a superset: a delimiter outside it is outside
/// every tag value.
pub fn is_tag_char(c: char) -> bool {
    c.is_alphanumeric() || c.is_whitespace() || PRINCIPAL_TAG_PUNCTUATION.contains(c)
}

/// Partition key templates that carry tenant data: the table's, and each
/// global index's the entity writes into.
fn tenant_partition_templates(
    spec: &ir::Spec,
) -> Vec<(&ir::Entity, Option<&str>, &ir::KeyTemplate)> {
    let mut out = Vec::new();
    for entity in spec.entities.values().filter(|e| e.scope == Scope::Tenant) {
        out.push((entity, None, &entity.primary_key.pk));
        for (index, key) in &entity.index_keys {
            if spec
                .indexes
                .get(index)
                .is_some_and(|i| i.kind == IndexKind::Global)
            {
                out.push((entity, Some(index.as_str()), &key.pk));
            }
        }
    }
    out
}

/// Why: IAM can only bound a tenant's keys if tenant ids cannot contain wildcards and are never empty.
pub fn check_tenant_id_pattern(spec: &ir::Spec, diags: &mut Diagnostics) {
    let Some(tenant) = &spec.tenant else { return };
    let wildcards: Vec<char> = ['*', '?', '$']
        .into_iter()
        .filter(|c| tenant.alphabet.contains(*c))
        .collect();
    if !wildcards.is_empty() {
        diags.push(
            Diagnostic::new(Code::TenantIdUnsafe, format!("tenant ids may contain {}, which IAM policies treat as wildcards or variables", show_chars(&wildcards)))
                .label(tenant.id_pattern.span, "tenant id pattern")
                .help("anchor the pattern and list allowed characters explicitly, e.g. `^[A-Za-z0-9_]{1,64}$`"),
        );
    }
    if tenant.min_length == 0 {
        diags.push(
            Diagnostic::new(
                Code::TenantIdUnsafe,
                "the tenant id pattern accepts an empty id",
            )
            .label(tenant.id_pattern.span, "tenant id pattern")
            .help("require at least one character, e.g. `{1,64}`"),
        );
    }
}

/// How this spec writes the start of a tenant's partition keys, for help
/// texts: the literal before the tenant placeholder and the delimiter after
/// it in the spec's own templates (the most common pair; `None` when no
/// template has one).
pub(crate) fn own_tenant_key(spec: &ir::Spec) -> Option<(String, char)> {
    let mut counts: Vec<((String, char), usize)> = Vec::new();
    for (_, _, template) in tenant_partition_templates(spec) {
        let Some(prefix) = template.tenant_prefix() else {
            continue;
        };
        let ir::TenantEnd::Delimiter(delimiter) = prefix.end else {
            continue;
        };
        if prefix.literal.is_empty() {
            continue;
        }
        let pair = (prefix.literal, delimiter);
        match counts.iter_mut().find(|(p, _)| *p == pair) {
            Some((_, n)) => *n += 1,
            None => counts.push((pair, 1)),
        }
    }
    // The most common; the first written among equals.
    counts
        .iter()
        .rev()
        .max_by_key(|(_, n)| *n)
        .map(|(p, _)| p.clone())
}

/// [`own_tenant_key`], else the usual `TENANT#` and `|`.
pub(crate) fn tenant_key_example(spec: &ir::Spec) -> (String, char) {
    own_tenant_key(spec).unwrap_or_else(|| ("TENANT#".to_owned(), '|'))
}

/// Why: LeadingKeys matches key prefixes, so a tenant's keys must start with its tenant segment.
pub fn check_tenant_prefix(spec: &ir::Spec, diags: &mut Diagnostics) {
    let Some(tenant) = &spec.tenant else { return };
    let own = own_tenant_key(spec);
    let (literal, delimiter) = own.clone().unwrap_or_else(|| tenant_key_example(spec));
    let like = if own.is_some() {
        "as this spec's other keys do:"
    } else {
        "e.g."
    };
    for (entity, index, template) in tenant_partition_templates(spec) {
        if template.tenant_prefix().is_some() {
            continue;
        }
        let (message, help) = match index {
            None => (
                format!("partition key of tenant-scoped entity `{}` does not begin with the tenant", entity.name),
                format!("begin the template with the tenant and a delimiter, {like} `{literal}<{}>{delimiter}...`, or declare the entity `scope: global`", tenant.placeholder),
            ),
            Some(index) => (
                format!("index `{index}` partition key of tenant-scoped entity `{}` does not begin with the tenant", entity.name),
                format!("IAM `dynamodb:LeadingKeys` cannot isolate queries on `{index}` unless its partition key starts with the tenant: write `{literal}<{}>{delimiter}...`", tenant.placeholder),
            ),
        };
        diags.push(
            Diagnostic::new(Code::TenantPrefixMissing, message)
                .label(template.source.span, "this partition key template")
                .label(tenant.placeholder.span, "tenant placeholder declared here")
                .help(help),
        );
    }
}

/// Why: without a delimiter after the tenant, `TENANT#1*` also matches tenant `10`.
pub fn check_tenant_delimiter(spec: &ir::Spec, diags: &mut Diagnostics) {
    let Some(tenant) = &spec.tenant else { return };
    let entities = tenant_partition_templates(spec)
        .into_iter()
        .map(|(entity, _, template)| (format!("entity `{}`", entity.name), template));
    let queries = spec
        .query_partition_keys()
        .map(|(p, pk)| (format!("access pattern `{}`", p.name), pk));
    for (owner, template) in entities.chain(queries) {
        let Some(i) = template.segments.iter().position(
            |s| matches!(s, Segment::Placeholder(p) if p.kind == PlaceholderKind::Tenant),
        ) else {
            continue;
        };
        let Segment::Placeholder(p) = &template.segments[i] else {
            continue;
        };
        if let Some(message) = delimiter_problem(tenant, &template.segments[i + 1..]) {
            diags.push(
                Diagnostic::new(Code::TenantPrefixUnsafe, format!("{owner}: {message}"))
                    .label(p.name.span, "the tenant segment ends here")
                    .label(tenant.id_pattern.span, "tenant ids match this pattern")
                    .help("follow the tenant with `#` or `|`, characters that neither tenant ids nor IAM tags contain"),
            );
        }
    }
}

/// What is wrong with what follows the tenant in a key template, if anything.
fn delimiter_problem(tenant: &ir::Tenant, after: &[Segment]) -> Option<String> {
    match after.first() {
        None => None,
        Some(Segment::Placeholder(next)) => Some(format!("`<{}>` directly follows the tenant, so one tenant's keys are a prefix of another's", next.name)),
        Some(Segment::Literal(l)) => l.chars().next().and_then(|c| {
            let shard = matches!(after.get(1), Some(Segment::Placeholder(s)) if s.kind == PlaceholderKind::Shard) && l.chars().count() == 1;
            let what = if shard { "shard suffix" } else { "delimiter" };
            let shown = super::show_chars(&[c]);
            let c = if c.is_ascii_graphic() { c.to_string() } else { c.escape_unicode().to_string() };
            if l.starts_with(char::is_alphanumeric) {
                Some(format!("no delimiter follows the tenant (`{l}` starts with the letter or digit `{c}`): the IAM prefix for tenant `1` (`…1*`) also matches tenant `12`"))
            } else if l.starts_with(|c| tenant.alphabet.contains(c)) {
                Some(format!("tenant ids may contain {shown}, the {what} after the tenant: the IAM pattern for tenant `1` (`…1{c}*`) also matches tenant `1{c}2`"))
            } else if l.starts_with(is_tag_char) {
                Some(format!("{shown} after the tenant can appear in IAM principal tag values (letters, digits, Unicode spaces and `_.:/=+-@`): a principal tagged `1{c}2` would match keys under tenant `1`'s prefix"))
            } else {
                None
            }
        }),
    }
}

/// Why: a query over tenant data that does not name the tenant cannot be confined to one tenant.
pub fn check_pattern_binds_tenant(spec: &ir::Spec, diags: &mut Diagnostics) {
    let Some(tenant) = &spec.tenant else { return };
    for pattern in spec.access_patterns.values() {
        let Operation::Query(q) = &pattern.operation else {
            continue;
        };
        let scoped = q.returns.iter().any(|e| {
            spec.entities
                .get(e)
                .is_some_and(|e| e.scope == Scope::Tenant)
        });
        let binds =
            q.pk.placeholders()
                .any(|p| p.kind == PlaceholderKind::Tenant);
        if scoped && !binds {
            diags.push(
                Diagnostic::new(Code::PatternTenantUnbound, format!("access pattern `{}` reads tenant data without binding the tenant", pattern.name))
                    .label(q.pk.source.span, "this partition key condition")
                    .label(tenant.placeholder.span, "tenant placeholder declared here")
                    .help(format!("include `<{}>` in the partition key condition, as the entities' key templates do", tenant.placeholder)),
            );
        }
    }
}

/// Why: on writes IAM sees only the table key, so a wrong index key is stopped by code, not IAM.
pub fn check_gsi_write_isolation(spec: &ir::Spec, diags: &mut Diagnostics) {
    if spec.tenant.is_none() {
        return;
    }
    for index in spec
        .indexes
        .values()
        .filter(|i| i.kind == IndexKind::Global)
    {
        let writers: Vec<&str> = spec
            .entities
            .values()
            .filter(|e| e.scope == Scope::Tenant && e.index_keys.contains_key(&index.name.value))
            .map(|e| e.name.as_str())
            .collect();
        if writers.is_empty() {
            continue;
        }
        diags.push(
            Diagnostic::new(Code::GsiWriteIsolation, format!("IAM cannot stop a write whose `{}` key names another tenant", index.name))
                .label(index.name.span, format!("written by {}", writers.join(", ")))
                .help("dynamodb:LeadingKeys checks only the table's partition key on writes; the generated repositories build every index key from the handle's tenant, and hand-written writers must do the same (acknowledge with `lints: { gsi_write_isolation: allow }`)"),
        );
    }
}

/// Why: a tenant may write any item under its own prefix, with any
/// entity-type attribute and any index key, so a read of global entities
/// from an index or a table scan meets items that claim to be them.
pub fn check_global_reads(spec: &ir::Spec, diags: &mut Diagnostics) {
    if spec.tenant.is_none() || !spec.entities.values().any(|e| e.scope == Scope::Tenant) {
        return;
    }
    for pattern in spec.access_patterns.values() {
        let (index, read, what) = match &pattern.operation {
            ir::Operation::Query(q) => match &q.index {
                ir::IndexRef::Index(i) => (i.as_str(), q.returns.clone(), "index"),
                ir::IndexRef::Table => continue,
            },
            ir::Operation::Scan(s) => match &s.index {
                ir::IndexRef::Index(i) => (i.as_str(), vec![s.entity.clone()], "index"),
                ir::IndexRef::Table => ("", vec![s.entity.clone()], "table"),
            },
            ir::Operation::Get { .. }
            | ir::Operation::Transaction(_)
            | ir::Operation::TransactGet(_)
            | ir::Operation::Batch(_) => continue,
        };
        let globals: Vec<&str> = read
            .iter()
            .filter(|e| {
                spec.entities
                    .get(*e)
                    .is_some_and(|e| e.scope == Scope::Global)
            })
            .map(String::as_str)
            .collect();
        if globals.is_empty()
            || spec
                .indexes
                .get(index)
                .is_some_and(|i| i.kind == IndexKind::Local)
        {
            continue;
        }
        let (place, reader) = match what {
            "table" => (
                "a scan of the table".to_owned(),
                "code scanning the table".to_owned(),
            ),
            _ => (
                format!("index `{index}`"),
                format!("code reading index `{index}`"),
            ),
        };
        diags.push(
            Diagnostic::new(
                Code::GlobalReadTenantWritable,
                format!(
                    "`{}` reads global {} items from {place}, which any tenant can write items into",
                    pattern.name,
                    globals
                        .iter()
                        .map(|g| format!("`{g}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
            .label(pattern.name.span, "reads global entities")
            .help(format!(
                "a tenant can write an item under its own prefix that says it is a {} and carries any index key; the generated reads refuse an item whose keys are not the entity's (`DecodeProblem::ForgedEntity`), and {reader} by hand must check key shapes too (acknowledge with `lints: {{ global_read_tenant_writable: allow }}`)",
                globals[0]
            )),
        );
    }
}

/// Why: global entities are deliberately outside tenant isolation; say which.
pub fn check_global_entities(spec: &ir::Spec, diags: &mut Diagnostics) {
    if spec.tenant.is_none() {
        return;
    }
    let globals: Vec<&ir::Entity> = spec
        .entities
        .values()
        .filter(|e| e.scope == Scope::Global)
        .collect();
    if let Some(first) = globals.first() {
        let names: Vec<&str> = globals.iter().map(|e| e.name.as_str()).collect();
        let mut d = Diagnostic::new(
            Code::GlobalEntities,
            format!(
                "entities shared by all tenants, exempt from tenant checks: {}",
                names.join(", ")
            ),
        )
        .label(first.name.span, "declared `scope: global`");
        for e in &globals[1..] {
            d = d.label(e.name.span, "declared `scope: global`");
        }
        diags.push(
            d.help("the runtime policy never grants these keys; a role is granted them, by their own pattern, for the access patterns it lists"),
        );
    }
}

/// Why: only the stream handler writes the counters the stream keeps; a
/// write of the application's would be counted over, and the policies deny
/// it where IAM can name the counters' partitions.
pub fn check_derived_writes(spec: &ir::Spec, diags: &mut Diagnostics) {
    let writes = |pattern: &ir::AccessPattern| -> Vec<String> {
        match &pattern.operation {
            ir::Operation::Transaction(t) => t
                .items
                .iter()
                .filter(|(op, _)| *op != ir::TransactionOp::ConditionCheck)
                .map(|(_, e)| e.clone())
                .collect(),
            ir::Operation::Batch(b) => b.put.iter().chain(&b.delete).cloned().collect(),
            ir::Operation::Get { .. }
            | ir::Operation::Query(_)
            | ir::Operation::Scan(_)
            | ir::Operation::TransactGet(_) => Vec::new(),
        }
    };
    for pattern in spec.access_patterns.values() {
        let mut written = writes(pattern);
        written.sort();
        written.dedup();
        for name in written {
            if !spec
                .entities
                .get(&name)
                .is_some_and(ir::Entity::kept_by_stream)
            {
                continue;
            }
            diags.push(
                Diagnostic::new(
                    Code::DerivedWrite,
                    format!("`{}` writes `{name}`, whose counts the table's stream keeps", pattern.name),
                )
                .label(pattern.name.span, "writes derived data")
                .help(format!(
                    "only the stream handler (`apply_counter_changes`) writes `{name}`: write the items it counts, or keep the aggregate with `maintained_by: transaction`"
                )),
            );
        }
    }
    if spec.tenant.is_none() {
        return;
    }
    for counter in spec.entities.values().filter(|e| e.kept_by_stream()) {
        if crate::policy::derived_nameable(spec, counter) {
            continue;
        }
        diags.push(
            Diagnostic::new(
                Code::DerivedDataTenantWritable,
                format!(
                    "tenants can write `{}` items: IAM cannot tell their partitions from another entity's",
                    counter.name
                ),
            )
            .label(counter.primary_key.pk.source.span, "shares its partitions")
            .help("give the counter a partition of its own (a literal no other partition key has at that place, such as `TENANT#<tenant>|COUNTS`) so the policies can deny tenants writes to it; the stream handler applies each counter on its own, so a counter a tenant breaks holds back no other"),
        );
    }
}
