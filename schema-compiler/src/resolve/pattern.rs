//! Access pattern declarations → typed operations.

use indexmap::IndexMap;

use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{self, IndexRef, PlaceholderKind, Segment};
use crate::source::{Span, Spanned};
use crate::syntax::{self, de::NamedMap, de::OneOrMany};
use crate::template::RawSegment;

use super::unify::{match_template, Binding};
use super::{text, Resolver, SHARD_PLACEHOLDER};

/// What a pattern's rules report about an entity that lost a placeholder
/// or an attribute to an error in its declaration.
const PATTERN_FOLLOW_ON: &[Code] = &[
    Code::PatternMismatch,
    Code::UnknownAttribute,
    Code::PlaceholderType,
];

impl Resolver<'_> {
    pub(super) fn resolve_patterns(
        &mut self,
        decls: &NamedMap<syntax::AccessPatternDecl>,
        spec: &ir::Spec,
    ) -> IndexMap<String, ir::AccessPattern> {
        let mut out = IndexMap::new();
        for (name, decl) in decls.iter() {
            let before = self.diags.len();
            let resolved = self.resolve_pattern(name, decl, spec);
            // A pattern over an entity whose declaration had errors is
            // matched against what was left of it: that it does not match,
            // or that a filter or `select` names an attribute it lost, is a
            // follow-on of the entity's error, written right in the pattern.
            if self.reads_broken_entity(decl) {
                self.diags.drop_since(before, PATTERN_FOLLOW_ON);
            }
            if let Some(p) = resolved {
                out.insert(name.value.clone(), p);
            }
        }
        out
    }

    /// Whether the pattern may read an entity whose declaration had errors:
    /// one it returns, or any when it does not say what it returns.
    fn reads_broken_entity(&self, decl: &syntax::AccessPatternDecl) -> bool {
        if self.broken_entities.is_empty() {
            return false;
        }
        let named = decl
            .returns
            .iter()
            .flat_map(|r| r.value.0.iter())
            .chain(decl.get.iter())
            .chain(decl.scan.iter());
        let mut named = named.peekable();
        if named.peek().is_none() {
            // A query that infers what it returns, a transaction or a batch.
            return decl.query.is_some();
        }
        named.any(|n| self.broken_entities.contains(&n.value))
    }

    fn resolve_pattern(
        &mut self,
        name: &Spanned<String>,
        decl: &Spanned<syntax::AccessPatternDecl>,
        spec: &ir::Spec,
    ) -> Option<ir::AccessPattern> {
        let snake = name.chars().next().is_some_and(|c| c.is_ascii_lowercase())
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if !snake {
            self.error(
                Diagnostic::new(Code::InvalidName, format!("`{name}` is not a valid access pattern name"))
                    .label(name.span, "access pattern name")
                    .help("access patterns become methods: use snake_case (lowercase letters, digits, `_`)"),
            );
        }
        let operation = self.resolve_operation(name, decl, spec)?;
        let rate = decl.rate.as_ref().map(|r| {
            let calls = r.per_second.value;
            if !(calls > 0.0 && calls <= super::bounds::CALLS_PER_SECOND) {
                self.error(
                    Diagnostic::new(
                        Code::InvalidBounds,
                        format!(
                            "a rate must be a positive number of calls per second, at most {:e}",
                            super::bounds::CALLS_PER_SECOND
                        ),
                    )
                    .label(r.per_second.span, "rate")
                    .help("write e.g. `rate: { per_second: 50 }`"),
                );
            }
            ir::Rate {
                per_second: calls.clamp(0.0, super::bounds::CALLS_PER_SECOND),
                items: r.items.as_ref().map_or(1, |i| {
                    self.at_most(
                        i,
                        super::bounds::ITEMS_PER_CALL,
                        "items per call",
                        "a call reads or writes at most this many items",
                    )
                }),
            }
        });
        let (select, partials) = self.resolve_reads(decl, &operation, spec);
        Some(ir::AccessPattern {
            name: name.clone(),
            description: text(&decl.description),
            operation,
            select,
            partials,
            rate,
        })
    }

    fn resolve_operation(
        &mut self,
        name: &Spanned<String>,
        decl: &Spanned<syntax::AccessPatternDecl>,
        spec: &ir::Spec,
    ) -> Option<ir::Operation> {
        let given: Vec<(&str, Span)> = [
            ("get", decl.get.as_ref().map(|v| v.span)),
            ("query", decl.query.as_ref().map(|v| v.span)),
            ("scan", decl.scan.as_ref().map(|v| v.span)),
            ("transaction", decl.transaction.as_ref().map(|v| v.span)),
            ("batch", decl.batch.as_ref().map(|v| v.span)),
        ]
        .into_iter()
        .filter_map(|(n, s)| s.map(|s| (n, s)))
        .collect();
        if given.len() != 1 {
            let mut d = Diagnostic::new(
                Code::AmbiguousOperation,
                if given.is_empty() {
                    format!("access pattern `{name}` declares no operation")
                } else {
                    format!(
                        "access pattern `{name}` declares {} operations",
                        given.len()
                    )
                },
            )
            .label(name.span, "this access pattern");
            for (op, span) in &given {
                d = d.label(*span, format!("`{op}`"));
            }
            self.error(
                d.help("give exactly one of `get`, `query`, `scan`, `transaction`, `batch`"),
            );
            return None;
        }
        self.check_query_only_options(decl);
        if let Some(entity) = &decl.get {
            return self.resolve_get(entity, decl, spec);
        }
        if let Some(query) = &decl.query {
            return self
                .resolve_query(query, decl, spec)
                .map(|q| ir::Operation::Query(Box::new(q)));
        }
        if let Some(entity) = &decl.scan {
            return self
                .resolve_scan(entity, decl, spec)
                .map(|s| ir::Operation::Scan(Box::new(s)));
        }
        if let Some(tx) = &decl.transaction {
            return self.resolve_transaction(tx, spec);
        }
        decl.batch
            .as_ref()
            .and_then(|b| self.resolve_batch(b, spec))
            .map(ir::Operation::Batch)
    }

    /// What a get or query reads of each entity: `select`'s attributes,
    /// or those its index carries when it does not carry them all (see
    /// [`ir::AccessPattern::partials`]).
    fn resolve_reads(
        &mut self,
        decl: &syntax::AccessPatternDecl,
        operation: &ir::Operation,
        spec: &ir::Spec,
    ) -> (Option<Vec<String>>, IndexMap<String, Vec<String>>) {
        let (names, index): (Vec<&String>, Option<&ir::Index>) = match operation {
            ir::Operation::Get { entity, .. } => (vec![entity], None),
            ir::Operation::Query(q) => (
                q.returns.iter().collect(),
                match &q.index {
                    IndexRef::Index(i) => spec.indexes.get(i),
                    IndexRef::Table => None,
                },
            ),
            ir::Operation::Scan(_)
            | ir::Operation::Transaction(_)
            | ir::Operation::TransactGet(_)
            | ir::Operation::Batch(_) => {
                if let Some(select) = &decl.select {
                    self.error(
                        Diagnostic::new(
                            Code::InvalidValue,
                            "`select` only applies to a get or a query",
                        )
                        .label(select.span, "`select` given here")
                        .help(
                            "remove it: scans, transactions and batches read or write whole items",
                        ),
                    );
                }
                return (None, IndexMap::new());
            }
        };
        let entities: Vec<&ir::Entity> =
            names.iter().filter_map(|n| spec.entities.get(*n)).collect();
        let carried =
            |e: &ir::Entity, a: &ir::Attribute| index.is_none_or(|i| index_carries(spec, i, e, a));
        let mut partials = IndexMap::new();
        let Some(select) = &decl.select else {
            for e in entities {
                if e.attributes.values().all(|a| carried(e, a)) {
                    continue;
                }
                let view = e
                    .attributes
                    .values()
                    .filter(|a| carried(e, a))
                    .map(|a| a.name.value.clone())
                    .collect();
                partials.insert(e.name.value.clone(), view);
            }
            return (None, partials);
        };
        if select.value.is_empty() {
            self.error(
                Diagnostic::new(Code::InvalidValue, "`select` names no attribute")
                    .label(select.span, "empty `select`")
                    .help("list the attributes to read, or remove `select` to read whole items"),
            );
        }
        let mut selected: Vec<String> = Vec::new();
        for name in &select.value {
            let holders: Vec<&&ir::Entity> = entities
                .iter()
                .filter(|e| e.attributes.contains_key(&name.value))
                .collect();
            if holders.is_empty() {
                let known = entities
                    .iter()
                    .flat_map(|e| e.attributes.keys().map(String::as_str));
                self.report_unknown_attribute(
                    name,
                    format!("`select` names `{name}`, which no entity it reads has"),
                    known,
                    "name attributes of the entities it reads",
                );
                continue;
            }
            for e in holders {
                let a = &e.attributes[&name.value];
                if let Some(i) = index.filter(|_| !carried(e, a)) {
                    self.error(
                        Diagnostic::new(
                            Code::IndexProjection,
                            format!(
                                "index `{}` does not carry `{name}` of `{}`, which `select` reads",
                                i.name, e.name
                            ),
                        )
                        .label(name.span, "not projected")
                        .label(i.name.span, "this index's projection")
                        .help(format!(
                            "add `{name}` to the index's projection, or leave it out of `select`"
                        )),
                    );
                }
            }
            if !selected.contains(&name.value) {
                selected.push(name.value.clone());
            }
        }
        for e in entities {
            let view = e
                .attributes
                .keys()
                .filter(|a| selected.contains(a))
                .cloned()
                .collect();
            partials.insert(e.name.value.clone(), view);
        }
        (Some(selected), partials)
    }

    fn check_query_only_options(&mut self, decl: &syntax::AccessPatternDecl) {
        let reads = decl.query.is_some() || decl.get.is_some() || decl.scan.is_some();
        if let (false, Some(c)) = (reads, &decl.consistent_read) {
            self.error(
                Diagnostic::new(
                    Code::InvalidValue,
                    "`consistent_read` only applies to a get, a query or a scan",
                )
                .label(c.span, "`consistent_read` given here")
                .help(
                    "remove it: transactions and batch writes have no read consistency to choose",
                ),
            );
        }
        if decl.query.is_some() {
            return;
        }
        // A scan reads an index and filters; what it returns is its entity.
        let scan = decl.scan.is_some();
        // `index` and `filter` apply to queries and scans, the rest to queries.
        let options = [
            (
                "index",
                decl.index.as_ref().filter(|_| !scan).map(|v| v.span),
                true,
            ),
            (
                "filter",
                decl.filter.as_ref().filter(|_| !scan).map(|v| v.span),
                true,
            ),
            ("returns", decl.returns.as_ref().map(|v| v.span), false),
            ("order", decl.order.as_ref().map(|v| v.span), false),
        ];
        for (option, span, scans_too) in options {
            if let Some(span) = span {
                let (applies, make) = if scans_too {
                    ("a query or a scan", "a `query` or a `scan`")
                } else {
                    ("a query", "a `query`")
                };
                self.error(
                    Diagnostic::new(
                        Code::InvalidValue,
                        format!("`{option}` only applies to {applies}"),
                    )
                    .label(span, format!("`{option}` given here"))
                    .help(format!(
                        "remove `{option}`, or make this access pattern {make}"
                    )),
                );
            }
        }
    }

    pub(super) fn entity<'s>(
        &mut self,
        name: &Spanned<String>,
        spec: &'s ir::Spec,
    ) -> Option<&'s ir::Entity> {
        let found = spec.entities.get(&name.value);
        if found.is_none() {
            self.unknown_entity(name, spec.entities.keys());
        }
        found
    }

    fn resolve_get(
        &mut self,
        entity: &Spanned<String>,
        decl: &syntax::AccessPatternDecl,
        spec: &ir::Spec,
    ) -> Option<ir::Operation> {
        self.entity(entity, spec)?;
        Some(ir::Operation::Get {
            entity: entity.value.clone(),
            consistent_read: decl.consistent_read.as_ref().is_some_and(|c| c.value),
        })
    }

    fn resolve_scan(
        &mut self,
        entity: &Spanned<String>,
        decl: &syntax::AccessPatternDecl,
        spec: &ir::Spec,
    ) -> Option<ir::Scan> {
        let e = self.entity(entity, spec)?;
        let (index, _, _) = self.resolve_index_ref(decl, spec)?;
        self.check_consistent_index(&index, decl, spec);
        if let IndexRef::Index(i) = &index {
            let index_decl = &spec.indexes[i];
            if index.keys_of(e).is_none() {
                self.error(
                    Diagnostic::new(
                        Code::UnknownIndex,
                        format!("`{}` is not written into index `{i}`", e.name),
                    )
                    .label(entity.span, "scanned for this entity")
                    .label(index_decl.name.span, "index declared here")
                    .help(format!(
                        "give `{}` keys for `{i}`, or scan the table",
                        e.name
                    )),
                );
                return None;
            }
            let missing = e
                .attributes
                .values()
                .find(|a| !index_carries(spec, index_decl, e, a));
            if let Some(a) = missing {
                self.error(
                    Diagnostic::new(
                        Code::IndexProjection,
                        format!(
                            "index `{i}` does not carry `{}` of `{}`, which a scan returns whole",
                            a.name, e.name
                        ),
                    )
                    .label(entity.span, "scanned for this entity")
                    .label(index_decl.name.span, "this index's projection")
                    .help(format!(
                        "project `{}` into `{i}`, or scan the table",
                        a.name
                    )),
                );
            }
        }
        if let (Some(tenant), ir::Scope::Tenant) = (&spec.tenant, e.scope) {
            self.error(
                Diagnostic::new(
                    Code::TenantScan,
                    format!(
                        "a scan of `{}` would read the items of every tenant",
                        e.name
                    ),
                )
                .label(entity.span, "a tenant-scoped entity")
                .help(format!(
                    "scan only global entities (`scope: global`); read a tenant's items with a query whose partition key starts with `<{}>`",
                    tenant.placeholder
                )),
            );
            return None;
        }
        let returns = [entity.value.clone()];
        let filter = decl
            .filter
            .as_ref()
            .map(|f| self.resolve_filter(f, &index, &returns, &IndexMap::new(), spec))
            .unwrap_or_default();
        Some(ir::Scan {
            index,
            entity: entity.value.clone(),
            consistent_read: decl.consistent_read.as_ref().is_some_and(|c| c.value),
            filter,
        })
    }

    /// Global secondary indexes read eventually consistent only.
    fn check_consistent_index(
        &mut self,
        index: &IndexRef,
        decl: &syntax::AccessPatternDecl,
        spec: &ir::Spec,
    ) {
        if let (IndexRef::Index(i), Some(c)) = (index, &decl.consistent_read) {
            if c.value && spec.indexes[i].kind == ir::IndexKind::Global {
                self.error(
                    Diagnostic::new(
                        Code::InvalidValue,
                        "global secondary indexes only support eventually consistent reads",
                    )
                    .label(c.span, "consistent_read")
                    .help("remove `consistent_read`, or read the table or a local index"),
                );
            }
        }
    }

    fn resolve_query(
        &mut self,
        query: &Spanned<syntax::QueryDecl>,
        decl: &syntax::AccessPatternDecl,
        spec: &ir::Spec,
    ) -> Option<ir::Query> {
        let (index, partition, sort) = self.resolve_index_ref(decl, spec)?;
        self.check_consistent_index(&index, decl, spec);
        let mut pks = self.resolve_partition_value(&query.pk, &index, &partition, spec)?;
        let (sk_prefix, sk) = match &query.sk {
            Some(sk) => self.resolve_sort_key(sk, &index, &sort, spec)?,
            None => (Vec::new(), None),
        };
        let pk = pks.remove(0);
        let keyed = KeyedPattern {
            index: &index,
            pk: &pk,
            more_pk: &pks,
            sk_prefix: &sk_prefix,
            sk: sk.as_ref(),
            span: query.pk.span,
        };
        let matching = match keyed.sk {
            Some(cond) if cond.op.is_range() => self.entities_in_range(&keyed, cond, spec),
            _ => self.matching_entities(&keyed, spec),
        };
        let returns = self.resolve_returns(decl, &keyed, &matching, spec);
        let (params, fixed) = self.bind_params(&keyed, &returns, &matching, spec);
        if !returns.is_empty() {
            self.unbound_params(&keyed, &params);
        }
        let filter = match &decl.filter {
            Some(f) => self.resolve_filter(f, &index, &returns, &params, spec),
            None => Vec::new(),
        };
        Some(ir::Query {
            index,
            pk,
            more_pk: pks,
            sk_prefix,
            sk,
            returns_declared: decl.returns.is_some(),
            returns,
            matching: matching.into_iter().map(|(e, _)| e).collect(),
            params,
            fixed,
            order: decl
                .order
                .as_ref()
                .map_or(ir::Order::Ascending, |o| o.value),
            consistent_read: decl.consistent_read.as_ref().is_some_and(|c| c.value),
            filter,
        })
    }

    /// The table or index a pattern reads, with the attributes of its
    /// partition key and of its sort key, in order.
    fn resolve_index_ref(
        &mut self,
        decl: &syntax::AccessPatternDecl,
        spec: &ir::Spec,
    ) -> Option<(IndexRef, Vec<ir::KeyAttribute>, Vec<ir::KeyAttribute>)> {
        match &decl.index {
            None => Some((
                IndexRef::Table,
                vec![spec.table.partition_key.clone()],
                spec.table.sort_key.iter().cloned().collect(),
            )),
            Some(name) => match spec.indexes.get(&name.value) {
                Some(index) => Some((
                    IndexRef::Index(name.value.clone()),
                    index.partition_parts().cloned().collect(),
                    index.sort_parts().cloned().collect(),
                )),
                None => {
                    self.unknown_index(name, spec);
                    None
                }
            },
        }
    }

    /// A template in an access pattern: the tenant and shard are recognized,
    /// every other placeholder is a parameter.
    pub(super) fn resolve_pattern_template(
        &mut self,
        source: &Spanned<String>,
        key: &ir::KeyAttribute,
        spec: &ir::Spec,
    ) -> Option<ir::KeyTemplate> {
        let raw = self.parse_raw_template(source);
        if raw.is_empty() {
            return None;
        }
        let tenant = spec.tenant.as_ref().map(|t| t.placeholder.value.as_str());
        let segments: Vec<Segment> = raw
            .into_iter()
            .map(|seg| match seg {
                RawSegment::Literal(l) => Segment::Literal(l),
                RawSegment::Placeholder(name) => {
                    if name.starts_with("__") {
                        self.error(
                            Diagnostic::new(Code::InvalidName, format!("placeholder `<{name}>` begins with `__`, which generated code keeps for its own names"))
                                .label(name.span, "this placeholder")
                                .help("name the parameter without the leading `__`"),
                        );
                    }
                    let kind = if Some(name.value.as_str()) == tenant {
                        PlaceholderKind::Tenant
                    } else if name.value == SHARD_PLACEHOLDER {
                        PlaceholderKind::Shard
                    } else {
                        PlaceholderKind::Attribute
                    };
                    Segment::Placeholder(ir::Placeholder { name, kind })
                }
            })
            .collect();
        // One placeholder naming the key attribute, or an attribute some
        // entity stores under the key attribute's name: the value itself.
        let natural = match segments.as_slice() {
            [Segment::Placeholder(p)] if p.kind == PlaceholderKind::Attribute => {
                p.name.value == key.name.value
                    || spec.entities.values().any(|e| {
                        e.attributes
                            .get(&p.name.value)
                            .is_some_and(|a| a.stored() == key.name.value)
                    })
            }
            _ => false,
        };
        Some(ir::KeyTemplate {
            attribute: key.name.value.clone(),
            source: source.clone(),
            segments,
            natural,
        })
    }

    /// Every entity whose keys on the queried index satisfy the condition, with the bindings.
    fn matching_entities(
        &mut self,
        p: &KeyedPattern<'_>,
        spec: &ir::Spec,
    ) -> Vec<(String, Vec<Binding>)> {
        self.pk_matches(p, spec)
            .into_iter()
            .filter_map(|(i, _)| {
                let (name, entity) = spec.entities.get_index(i)?;
                Some((name.clone(), match_entity(p, entity)?))
            })
            .collect()
    }

    /// The entities (by position) whose partition key on the index the
    /// pattern's partition key fills, with the bindings.
    pub(super) fn pk_matches(
        &mut self,
        p: &KeyedPattern<'_>,
        spec: &ir::Spec,
    ) -> Vec<(usize, Vec<Binding>)> {
        self.file_leads(spec);
        let Some(leads) = self.leads.get(p.index) else {
            return Vec::new();
        };
        leads
            .candidates(p.pk)
            .into_iter()
            .filter_map(|i| {
                let (_, entity) = spec.entities.get_index(i)?;
                Some((i, p.match_equalities(p.index.keys_of(entity)?)?))
            })
            .collect()
    }

    /// Files every entity's partition keys by their leads, once.
    fn file_leads(&mut self, spec: &ir::Spec) {
        if !self.leads.is_empty() {
            return;
        }
        for (i, entity) in spec.entities.values().enumerate() {
            let all = std::iter::once((IndexRef::Table, &entity.primary_key)).chain(
                entity
                    .index_keys
                    .iter()
                    .map(|(index, keys)| (IndexRef::Index(index.clone()), keys)),
            );
            for (index, keys) in all {
                self.leads.entry(index).or_default().insert(i, &keys.pk);
            }
        }
    }

    fn resolve_returns(
        &mut self,
        decl: &syntax::AccessPatternDecl,
        p: &KeyedPattern<'_>,
        matching: &[(String, Vec<Binding>)],
        spec: &ir::Spec,
    ) -> Vec<String> {
        let Some(returns) = &decl.returns else {
            if matching.is_empty() {
                self.no_match(p, None, spec);
            }
            return matching.iter().map(|(n, _)| n.clone()).collect();
        };
        let OneOrMany(names) = &returns.value;
        let mut out = Vec::new();
        for name in names {
            let Some(entity) = self.entity(name, spec) else {
                continue;
            };
            if matching.iter().any(|(m, _)| *m == name.value) {
                out.push(name.value.clone());
            } else {
                self.no_match(p, Some((name, entity)), spec);
            }
        }
        out
    }
}

/// A query's key condition on its index.
#[derive(Clone, Copy)]
pub(super) struct KeyedPattern<'a> {
    pub(super) index: &'a IndexRef,
    pub(super) pk: &'a ir::KeyTemplate,
    /// Equalities on a multi-attribute partition key's later attributes.
    pub(super) more_pk: &'a [ir::KeyTemplate],
    /// Equalities on a multi-attribute sort key's attributes before `sk`'s.
    pub(super) sk_prefix: &'a [ir::KeyTemplate],
    pub(super) sk: Option<&'a ir::SortCondition>,
    pub(super) span: Span,
}

/// Another index (or the table) whose keys for `entity` satisfy the same condition.
pub(super) fn serving_index(
    p: &KeyedPattern<'_>,
    entity: &ir::Entity,
    spec: &ir::Spec,
) -> Option<IndexRef> {
    std::iter::once(IndexRef::Table)
        .chain(spec.indexes.keys().map(|i| IndexRef::Index(i.clone())))
        .filter(|i| i != p.index)
        .find(|i| match_entity(&KeyedPattern { index: i, ..*p }, entity).is_some())
}

/// The bindings if `entity`'s keys on the index satisfy the condition.
fn match_entity(p: &KeyedPattern<'_>, entity: &ir::Entity) -> Option<Vec<Binding>> {
    let keys = p.index.keys_of(entity)?;
    let mut bindings = p.match_equalities(keys)?;
    if let Some(cond) = p.sk {
        let entity_sk = p.condition_template(keys)?;
        let prefix = cond.op != ir::SortOp::Equals;
        for operand in &cond.operands {
            bindings.extend(match_template(operand, entity_sk, prefix)?);
        }
    }
    Some(bindings)
}

/// Whether an item of `entity` read through `index` carries `attribute`:
/// projected (the TTL attribute always is, see
/// [`crate::emit::table::index_projection`]), or a key of the table or the
/// index, or held by a placeholder of the entity's table or index keys
/// (read back out of the key).
pub(crate) fn index_carries(
    spec: &ir::Spec,
    index: &ir::Index,
    entity: &ir::Entity,
    attribute: &ir::Attribute,
) -> bool {
    if spec
        .table
        .ttl
        .as_ref()
        .is_some_and(|t| t.value == attribute.stored())
    {
        return true;
    }
    let projected = match &index.projection {
        ir::Projection::All => return true,
        ir::Projection::KeysOnly => false,
        ir::Projection::Include(names) => names
            .iter()
            .any(|n| *n == attribute.name.value || n == attribute.stored()),
    };
    let is_key = spec.table.is_key(attribute.stored())
        || index
            .key_parts()
            .any(|k| k.name.value == attribute.stored());
    // A value in one letter case in its key cannot be read back out of it.
    let in_templates = attribute.case.is_none()
        && entity
            .primary_key
            .templates()
            .chain(
                entity
                    .index_keys
                    .get(&index.name.value)
                    .into_iter()
                    .flat_map(|k| k.templates()),
            )
            .flat_map(|t| t.placeholders())
            .any(|p| p.kind == PlaceholderKind::Attribute && p.name.value == attribute.name.value);
    projected || is_key || in_templates
}
