//! Access pattern declarations → typed operations.

use indexmap::IndexMap;

use crate::diagnostics::{did_you_mean, Code, Diagnostic};
use crate::ir::{self, AttributeType, IndexRef, PlaceholderKind, Segment};
use crate::source::{Span, Spanned};
use crate::syntax::{self, de::NamedMap, de::OneOrMany};
use crate::template::RawSegment;

use super::unify::{match_template, Binding, Fill};
use super::{text, Resolver, SHARD_PLACEHOLDER};

impl Resolver<'_> {
    pub(super) fn resolve_patterns(
        &mut self,
        decls: &NamedMap<syntax::AccessPatternDecl>,
        spec: &ir::Spec,
    ) -> IndexMap<String, ir::AccessPattern> {
        let mut out = IndexMap::new();
        for (name, decl) in decls.iter() {
            if let Some(p) = self.resolve_pattern(name, decl, spec) {
                out.insert(name.value.clone(), p);
            }
        }
        out
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
            return self
                .resolve_transaction(tx, spec)
                .map(ir::Operation::Transaction);
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
            ir::Operation::Scan(_) | ir::Operation::Transaction(_) | ir::Operation::Batch(_) => {
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
        let options = [
            (
                "index",
                decl.index.as_ref().filter(|_| !scan).map(|v| v.span),
            ),
            (
                "filter",
                decl.filter.as_ref().filter(|_| !scan).map(|v| v.span),
            ),
            ("returns", decl.returns.as_ref().map(|v| v.span)),
            ("order", decl.order.as_ref().map(|v| v.span)),
        ];
        for (option, span) in options {
            if let Some(span) = span {
                self.error(
                    Diagnostic::new(
                        Code::InvalidValue,
                        format!("`{option}` only applies to a query"),
                    )
                    .label(span, format!("`{option}` given here"))
                    .help(format!(
                        "remove `{option}`, or make this access pattern a `query`"
                    )),
                );
            }
        }
    }

    fn entity<'s>(&mut self, name: &Spanned<String>, spec: &'s ir::Spec) -> Option<&'s ir::Entity> {
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
        let (index, _) = self.resolve_index_ref(decl, spec)?;
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
        let (index, key) = self.resolve_index_ref(decl, spec)?;
        self.check_consistent_index(&index, decl, spec);
        let pk = self.resolve_pattern_template(&query.pk, &key.0, spec)?;
        let sk = match &query.sk {
            Some(sk) => Some(self.resolve_sort_condition(sk, key.1.as_ref(), spec)?),
            None => None,
        };
        let keyed = KeyedPattern {
            index: &index,
            pk: &pk,
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

    fn resolve_index_ref(
        &mut self,
        decl: &syntax::AccessPatternDecl,
        spec: &ir::Spec,
    ) -> Option<(IndexRef, (ir::KeyAttribute, Option<ir::KeyAttribute>))> {
        match &decl.index {
            None => Some((
                IndexRef::Table,
                (
                    spec.table.partition_key.clone(),
                    spec.table.sort_key.clone(),
                ),
            )),
            Some(name) => match spec.indexes.get(&name.value) {
                Some(index) => Some((
                    IndexRef::Index(name.value.clone()),
                    (index.partition_key.clone(), index.sort_key.clone()),
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
    fn resolve_pattern_template(
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

    fn resolve_sort_condition(
        &mut self,
        decl: &Spanned<syntax::SortConditionDecl>,
        key: Option<&ir::KeyAttribute>,
        spec: &ir::Spec,
    ) -> Option<ir::SortCondition> {
        let Some(key) = key else {
            self.error(
                Diagnostic::new(
                    Code::NoSortKey,
                    "a sort-key condition on a table or index without a sort key",
                )
                .label(decl.span, "this condition")
                .help("remove `sk`, or query an index that has a sort key"),
            );
            return None;
        };
        let single =
            |op, v: &Option<Spanned<String>>| v.as_ref().map(|v| (op, vec![v.clone()], v.span));
        let mut given: Vec<(ir::SortOp, Vec<Spanned<String>>, Span)> = [
            single(ir::SortOp::Equals, &decl.equals),
            single(ir::SortOp::BeginsWith, &decl.begins_with),
            single(ir::SortOp::Lt, &decl.lt),
            single(ir::SortOp::Lte, &decl.lte),
            single(ir::SortOp::Gt, &decl.gt),
            single(ir::SortOp::Gte, &decl.gte),
            decl.between
                .as_ref()
                .map(|b| (ir::SortOp::Between, b.value.clone(), b.span)),
        ]
        .into_iter()
        .flatten()
        .collect();
        if given.len() != 1 {
            self.error(
                Diagnostic::new(
                    Code::AmbiguousOperation,
                    format!(
                        "a sort-key condition needs exactly one operator, found {}",
                        given.len()
                    ),
                )
                .label(decl.span, "this condition")
                .help("write one of `equals`, `begins_with`, `between`, `lt`, `lte`, `gt`, `gte`"),
            );
            return None;
        }
        let (op, operands, span) = given.remove(0);
        if op == ir::SortOp::Between && operands.len() != 2 {
            self.error(
                Diagnostic::new(
                    Code::InvalidValue,
                    format!("`between` takes two templates, found {}", operands.len()),
                )
                .label(span, "between")
                .help("write `between: [\"<from>\", \"<to>\"]`"),
            );
            return None;
        }
        let operands = operands
            .iter()
            .map(|o| self.resolve_pattern_template(o, key, spec))
            .collect::<Option<Vec<_>>>()?;
        Some(ir::SortCondition {
            op,
            operands,
            span: decl.span,
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

    /// Every entity whose items a range condition (`lt`, `lte`, `gt`, `gte`,
    /// `between`) can return: its partition key matches, and some sort key
    /// it writes lies between the bounds in DynamoDB's byte order, whether
    /// or not it begins like the operand. `gt: "LIKE#<x>"` also returns the
    /// `POST#…` and `PROFILE` items of the partition; `lte: "REPO#<o>#<r>"`
    /// also returns `ISSUE#…`. An operand's parameters take their type
    /// from the entities whose sort key spells the operand out.
    fn entities_in_range(
        &mut self,
        p: &KeyedPattern<'_>,
        cond: &ir::SortCondition,
        spec: &ir::Spec,
    ) -> Vec<(String, Vec<Binding>)> {
        let candidates = self.pk_matches(p, spec);
        // Each entity's sort-key bindings: the parameters its sort key
        // spells out (literal text of a bound fixes nothing).
        let spelled = |entity: &ir::Entity, sk: &ir::KeyTemplate| -> Vec<Binding> {
            cond.operands
                .iter()
                .filter_map(|o| match_template(o, sk, true))
                .flatten()
                .filter(|b| matches!(b.fill, Fill::Param(..)))
                .filter(|b| entity.attributes.contains_key(&b.placeholder))
                .collect()
        };
        let mut domains: IndexMap<String, crate::encoding::Domain> = IndexMap::new();
        for (i, _) in &candidates {
            let entity = &spec.entities[*i];
            let Some(sk) = p.index.keys_of(entity).and_then(|k| k.sk.as_ref()) else {
                continue;
            };
            for b in spelled(entity, sk) {
                let (Fill::Param(name, _), Some(attr)) =
                    (&b.fill, entity.attributes.get(&b.placeholder))
                else {
                    continue;
                };
                domains.entry(name.clone()).or_insert_with(|| {
                    crate::encoding::type_domain(
                        &attr.r#type,
                        attr.key_encoding() == ir::KeyEncoding::Escaped,
                    )
                });
            }
        }
        let any = || crate::encoding::type_domain(&AttributeType::ANY, false);
        let operand_domain = |ph: &ir::Placeholder| match ph.kind {
            PlaceholderKind::Tenant => spec
                .tenant
                .as_ref()
                .map_or_else(any, crate::encoding::tenant_domain),
            PlaceholderKind::Shard => crate::encoding::shard_domain(u32::MAX),
            PlaceholderKind::Attribute => domains.get(&ph.name.value).cloned().unwrap_or_else(any),
        };
        candidates
            .into_iter()
            .filter_map(|(i, mut bindings)| {
                let (name, entity) = spec.entities.get_index(i)?;
                let sk = p.index.keys_of(entity)?.sk.as_ref()?;
                let holds = crate::lang::condition_holds(
                    sk,
                    &|ph| crate::encoding::entity_placeholder_domain(spec, entity, ph),
                    cond.op,
                    &cond.operands,
                    &operand_domain,
                );
                if !holds {
                    return None;
                }
                bindings.extend(spelled(entity, sk));
                Some((name.clone(), bindings))
            })
            .collect()
    }

    /// The entities (by position) whose partition key on the index the
    /// pattern's partition key fills, with the bindings.
    fn pk_matches(&mut self, p: &KeyedPattern<'_>, spec: &ir::Spec) -> Vec<(usize, Vec<Binding>)> {
        self.file_leads(spec);
        let Some(leads) = self.leads.get(p.index) else {
            return Vec::new();
        };
        leads
            .candidates(p.pk)
            .into_iter()
            .filter_map(|i| {
                let (_, entity) = spec.entities.get_index(i)?;
                let keys = p.index.keys_of(entity)?;
                Some((i, match_template(p.pk, &keys.pk, false)?))
            })
            .collect()
    }

    /// A parameter of the pattern that fills no attribute of the entities
    /// it returns has no type and no value to send.
    fn unbound_params(&mut self, p: &KeyedPattern<'_>, params: &IndexMap<String, ir::Param>) {
        let templates = std::iter::once(p.pk).chain(p.sk.iter().flat_map(|s| s.operands.iter()));
        let mut seen = std::collections::BTreeSet::new();
        for ph in templates.flat_map(|t| t.placeholders()) {
            if ph.kind != PlaceholderKind::Attribute
                || params.contains_key(&ph.name.value)
                || !seen.insert(ph.name.value.clone())
            {
                continue;
            }
            self.error(
                Diagnostic::new(
                    Code::PatternMismatch,
                    format!("parameter `<{}>` fills no attribute of the entities this pattern returns", ph.name),
                )
                .label(ph.name.span, "this parameter")
                .help("a parameter takes its type from the key placeholder it fills: spell out a returned entity's sort key up to it, or write a literal bound"),
            );
        }
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

    fn no_match(
        &mut self,
        p: &KeyedPattern<'_>,
        entity: Option<(&Spanned<String>, &ir::Entity)>,
        spec: &ir::Spec,
    ) {
        let broken = match entity {
            Some((name, _)) => self.broken_entities.contains(&name.value),
            None => !self.broken_entities.is_empty(),
        };
        if self.misspelled_tenant(p.pk, spec) || broken {
            return;
        }
        let index_name = match p.index {
            IndexRef::Table => "the table".to_owned(),
            IndexRef::Index(i) => format!("index `{i}`"),
        };
        let Some((name, entity)) = entity else {
            self.error(
                Diagnostic::new(Code::PatternMismatch, format!("no entity's keys on {index_name} match this key condition"))
                    .label(p.span, "this key condition")
                    .help("the partition key must be a whole entity key template with placeholders filled by parameters or literals; check the literals and delimiters"),
            );
            return;
        };
        let keys = match p.index {
            IndexRef::Table => Some(&entity.primary_key),
            IndexRef::Index(i) => entity.index_keys.get(i),
        };
        let mut d = Diagnostic::new(Code::PatternMismatch, format!("entity `{name}` cannot be returned: its keys on {index_name} do not match this key condition"))
            .label(p.span, "this key condition")
            .label(name.span, "returned entity");
        if let Some(keys) = keys {
            d = d.label(
                keys.pk.source.span,
                format!("`{name}`'s partition key template"),
            );
        }
        let help = match (serving_index(p, entity, spec), keys) {
            (Some(IndexRef::Table), _) => "the table's own key serves this condition: remove `index`".to_owned(),
            (Some(IndexRef::Index(i)), _) => format!("index `{i}` serves this condition: write `index: {i}`"),
            (None, Some(keys)) => format!(
                "the partition key must fill `{}`; the sort-key condition must fit `{}`",
                keys.pk.source.value,
                keys.sk.as_ref().map_or("", |s| s.source.value.as_str())
            ),
            (None, None) => format!("entity `{name}` is not written into {index_name}: add the index under the entity's `indexes`, or query an index it is in"),
        };
        self.error(d.help(help));
    }

    /// `<tenent>` where the tenant belongs: say so, with the right name.
    fn misspelled_tenant(&mut self, pk: &ir::KeyTemplate, spec: &ir::Spec) -> bool {
        let Some(tenant) = &spec.tenant else {
            return false;
        };
        if pk.placeholders().any(|p| p.kind == PlaceholderKind::Tenant) {
            return false;
        }
        let Some(p) = pk
            .placeholders()
            .find(|p| did_you_mean(&p.name, [tenant.placeholder.as_str()]).is_some())
        else {
            return false;
        };
        self.error(
            Diagnostic::new(
                Code::UnknownPlaceholder,
                format!("unknown placeholder `<{}>`", p.name),
            )
            .label(p.name.span, "not the tenant placeholder")
            .label(tenant.placeholder.span, "tenant placeholder declared here")
            .help(format!("did you mean `{}`?", tenant.placeholder)),
        );
        true
    }

    fn bind_params(
        &mut self,
        p: &KeyedPattern<'_>,
        returns: &[String],
        matching: &[(String, Vec<Binding>)],
        spec: &ir::Spec,
    ) -> (IndexMap<String, ir::Param>, Vec<ir::FixedValue>) {
        let mut params: IndexMap<String, ir::Param> = IndexMap::new();
        let mut fixed = Vec::new();
        let pattern_placeholders: Vec<&ir::Placeholder> = std::iter::once(p.pk)
            .chain(p.sk.iter().flat_map(|s| s.operands.iter()))
            .flat_map(|t| t.placeholders())
            .collect();
        for entity_name in returns {
            let entity = &spec.entities[entity_name];
            let Some((_, bindings)) = matching.iter().find(|(m, _)| m == entity_name) else {
                continue;
            };
            for b in bindings
                .iter()
                .filter(|b| b.kind == PlaceholderKind::Attribute)
            {
                let Some(attr) = entity.attributes.get(&b.placeholder) else {
                    continue;
                };
                match &b.fill {
                    Fill::Param(name, _) => {
                        let Some(ph) = pattern_placeholders
                            .iter()
                            .find(|ph| ph.name.value == *name)
                        else {
                            continue;
                        };
                        self.bind_param(&mut params, ph, entity_name, attr, spec);
                    }
                    Fill::Literal(value) => {
                        self.check_literal(value, attr, entity_name, p.span, false);
                        fixed.push(ir::FixedValue {
                            entity: entity_name.clone(),
                            attribute: b.placeholder.clone(),
                            value: value.clone(),
                        });
                    }
                    Fill::Partial(value) => {
                        self.check_literal(value, attr, entity_name, p.span, true)
                    }
                }
            }
        }
        (params, fixed)
    }

    fn bind_param(
        &mut self,
        params: &mut IndexMap<String, ir::Param>,
        ph: &ir::Placeholder,
        entity: &str,
        attr: &ir::Attribute,
        spec: &ir::Spec,
    ) {
        let bind = (entity.to_owned(), attr.name.value.clone());
        let encoding = attr.key_encoding();
        match params.get_mut(&ph.name.value) {
            Some(existing) if existing.r#type.name() != attr.r#type.name() => {
                self.error(
                    Diagnostic::new(Code::PatternMismatch, format!("parameter `{}` would be {} and {}", ph.name, existing.r#type.article_name(), attr.r#type.article_name()))
                        .label(ph.name.span, "this parameter")
                        .label(attr.name.span, format!("`{entity}.{}`", attr.name))
                        .help("a parameter fills attributes of one type: use two parameters or align the attribute types"),
                );
            }
            Some(existing) if existing.encoding != encoding => {
                let (first_entity, first_attribute) = &existing.binds[0];
                let mut d = Diagnostic::new(
                    Code::PatternMismatch,
                    format!(
                        "parameter `{}` fills `{first_entity}.{first_attribute}`, written as {}, and `{entity}.{}`, written as {}: one value cannot match both keys",
                        ph.name,
                        existing.encoding.describe(),
                        attr.name,
                        encoding.describe()
                    ),
                )
                .label(ph.name.span, "this parameter")
                .label(attr.name.span, format!("`{entity}.{}`: {}", attr.name, encoding.describe()));
                let first = spec
                    .entities
                    .get(first_entity)
                    .and_then(|e| e.attributes.get(first_attribute));
                if let Some(first) = first.map(|a| a.name.span) {
                    d = d.label(
                        first,
                        format!(
                            "`{first_entity}.{first_attribute}`: {}",
                            existing.encoding.describe()
                        ),
                    );
                }
                self.error(d.help("give the attributes the same bounds (integers), format and precision (datetimes) and `escape` setting, or query them through two parameters"));
            }
            Some(existing) => existing.binds.push(bind),
            None => {
                params.insert(
                    ph.name.value.clone(),
                    ir::Param {
                        name: ph.name.clone(),
                        r#type: attr.r#type.clone(),
                        binds: vec![bind],
                        encoding,
                    },
                );
            }
        }
    }

    /// A literal in a key condition stands for an encoded value: it must be
    /// one the key codec can produce, or no item will ever match.
    fn check_literal(
        &mut self,
        value: &str,
        attr: &ir::Attribute,
        entity: &str,
        span: Span,
        partial: bool,
    ) {
        let Some(help) = literal_problem(value, &attr.r#type, attr.escape, partial) else {
            return;
        };
        let what = if partial { "begin" } else { "be" };
        self.error(
            Diagnostic::new(
                Code::InvalidLiteral,
                format!(
                    "`{value}` cannot {what} a key value of `{entity}.{}`, {}",
                    attr.name,
                    attr.r#type.article_name()
                ),
            )
            .label(span, "this key condition")
            .label(attr.name.span, "attribute declared here")
            .help(help),
        );
    }

    fn resolve_transaction(
        &mut self,
        decl: &Spanned<syntax::TransactionDecl>,
        spec: &ir::Spec,
    ) -> Option<ir::Transaction> {
        use ir::TransactionOp as Op;
        let lists = [
            (Op::Put, &decl.put),
            (Op::Create, &decl.create),
            (Op::Update, &decl.update),
            (Op::Delete, &decl.delete),
            (Op::ConditionCheck, &decl.condition_check),
        ];
        let mut items = Vec::new();
        for (op, list) in lists {
            for name in list.iter().flat_map(|l| l.value.0.iter()) {
                if self.entity(name, spec).is_some() {
                    items.push((op, name.value.clone()));
                }
            }
        }
        for (_, list) in &lists {
            if let Some(list) = list.as_ref().filter(|l| l.value.0.is_empty()) {
                self.error(
                    Diagnostic::new(Code::AmbiguousOperation, "an empty list of entities")
                        .label(list.span, "empty list")
                        .help("name at least one entity, or remove the key"),
                );
            }
        }
        if items.is_empty() && lists.iter().all(|(_, l)| l.is_none()) {
            self.error(
                Diagnostic::new(Code::AmbiguousOperation, "a transaction names no entities")
                    .label(decl.span, "this transaction")
                    .help("list entities under `put`, `create`, `update`, `delete` or `condition_check`"),
            );
            return None;
        }
        let max_items = decl
            .max_items
            .unwrap_or_else(|| Spanned::new(100, decl.span));
        Some(ir::Transaction { items, max_items })
    }

    fn resolve_batch(
        &mut self,
        decl: &Spanned<syntax::BatchDecl>,
        spec: &ir::Spec,
    ) -> Option<ir::Batch> {
        let mut names = |list: &Option<Spanned<OneOrMany>>| -> Vec<String> {
            list.iter()
                .flat_map(|l| l.value.0.iter())
                .filter(|n| self.entity(n, spec).is_some())
                .map(|n| n.value.clone())
                .collect()
        };
        let batch = ir::Batch {
            get: names(&decl.get),
            put: names(&decl.put),
            delete: names(&decl.delete),
        };
        if decl.get.is_none() && decl.put.is_none() && decl.delete.is_none() {
            self.error(
                Diagnostic::new(Code::AmbiguousOperation, "a batch names no entities")
                    .label(decl.span, "this batch")
                    .help("list entities under `get`, `put` or `delete`"),
            );
            return None;
        }
        Some(batch)
    }
}

/// A query's key condition on its index.
#[derive(Clone, Copy)]
struct KeyedPattern<'a> {
    index: &'a IndexRef,
    pk: &'a ir::KeyTemplate,
    sk: Option<&'a ir::SortCondition>,
    span: Span,
}

/// Another index (or the table) whose keys for `entity` satisfy the same condition.
fn serving_index(p: &KeyedPattern<'_>, entity: &ir::Entity, spec: &ir::Spec) -> Option<IndexRef> {
    std::iter::once(IndexRef::Table)
        .chain(spec.indexes.keys().map(|i| IndexRef::Index(i.clone())))
        .filter(|i| i != p.index)
        .find(|i| match_entity(&KeyedPattern { index: i, ..*p }, entity).is_some())
}

/// The bindings if `entity`'s keys on the index satisfy the condition.
fn match_entity(p: &KeyedPattern<'_>, entity: &ir::Entity) -> Option<Vec<Binding>> {
    let keys = p.index.keys_of(entity)?;
    let mut bindings = match_template(p.pk, &keys.pk, false)?;
    if let Some(cond) = p.sk {
        let entity_sk = keys.sk.as_ref()?;
        let prefix = cond.op != ir::SortOp::Equals;
        for operand in &cond.operands {
            bindings.extend(match_template(operand, entity_sk, prefix)?);
        }
    }
    Some(bindings)
}

/// Why an encoded key value (or a prefix of one, when `partial`) cannot be `value`.
fn literal_problem(value: &str, ty: &AttributeType, escape: bool, partial: bool) -> Option<String> {
    let domain = crate::encoding::type_domain(ty, escape);
    let fits = |text: &str| {
        if partial {
            text.starts_with(value)
        } else {
            text == value
        }
    };
    match ty {
        AttributeType::Enum { values } => {
            (!values.iter().any(|v| fits(v))).then(|| format!("use one of: {}", values.join(", ")))
        }
        AttributeType::Boolean => (!["true", "false"].iter().any(|v| fits(v)))
            .then(|| "write `true` or `false`".to_owned()),
        AttributeType::Integer { min, max } => {
            let width = domain.max_len.unwrap_or(20);
            let digits = value.chars().all(|c| c.is_ascii_digit());
            let example = crate::encoding::encode_integer(*min, *max, (*min).max(0).min(*max));
            if !digits || value.len() > width || (!partial && value.len() != width) {
                return Some(format!(
                    "integers are written zero-padded to {width} digits in keys, e.g. `{example}`"
                ));
            }
            if partial {
                return None;
            }
            let decoded =
                value
                    .parse::<i128>()
                    .ok()
                    .map(|n| if *min < 0 { n + i128::from(*min) } else { n });
            match decoded {
                Some(n) if n >= i128::from(*min) && n <= i128::from(*max) => None,
                _ => Some(format!(
                    "the value is outside the attribute's bounds {min}..={max}"
                )),
            }
        }
        _ => {
            let bad = value.chars().find(|c| !domain.alphabet.contains(*c));
            let too_long = domain.max_len.is_some_and(|m| value.len() > m);
            let too_short = !partial && domain.fixed_width && Some(value.len()) != domain.max_len;
            match (bad, too_long || too_short) {
                (Some(c), _) => Some(format!(
                    "`{c}` never appears in this attribute's encoded values"
                )),
                (None, true) => Some(format!(
                    "encoded values are {} bytes long",
                    domain.max_len.unwrap_or(0)
                )),
                (None, false) => None,
            }
        }
    }
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
    let keys = [
        Some(&spec.table.partition_key),
        spec.table.sort_key.as_ref(),
        Some(&index.partition_key),
        index.sort_key.as_ref(),
    ];
    let is_key = keys
        .into_iter()
        .flatten()
        .any(|k| k.name.value == attribute.stored());
    let in_templates = entity
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
