//! Secondary indexes: their key attributes (one, or a global index's
//! multi-attribute key of up to four partition and four sort key
//! attributes), projections and capacity.

use indexmap::IndexMap;

use crate::diagnostics::{did_you_mean, Code, Diagnostic};
use crate::ir;
use crate::source::Spanned;
use crate::syntax::{self, de::NamedMap};

use super::{text, Resolver, MAX_KEY_PARTS};

impl Resolver<'_> {
    pub(super) fn resolve_indexes(
        &mut self,
        decls: &NamedMap<syntax::IndexDecl>,
        table: &ir::Table,
    ) -> IndexMap<String, ir::Index> {
        let mut out = IndexMap::new();
        for (name, decl) in decls.iter() {
            self.check_table_name(name, "index");
            if let Some(index) = self.resolve_index(name, decl, table) {
                out.insert(name.value.clone(), index);
            }
        }
        out
    }

    fn resolve_index(
        &mut self,
        name: &Spanned<String>,
        decl: &Spanned<syntax::IndexDecl>,
        table: &ir::Table,
    ) -> Option<ir::Index> {
        let kind = decl
            .kind
            .as_ref()
            .map_or(ir::IndexKind::Global, |k| k.value);
        let mut partition_parts = Vec::new();
        let partition_key = match (kind, &decl.partition_key) {
            (ir::IndexKind::Global, Some(pk)) => {
                partition_parts = self.resolve_key_parts(name, pk, "partition")?;
                partition_parts.remove(0)
            }
            (ir::IndexKind::Global, None) => {
                self.error(
                    Diagnostic::new(
                        Code::MissingKey,
                        format!("global index `{name}` has no partition key"),
                    )
                    .label(name.span, "this index")
                    .help("add `partition_key: <attribute name>`"),
                );
                return None;
            }
            (ir::IndexKind::Local, Some(pk)) => {
                self.error(
                    Diagnostic::new(
                        Code::InvalidIndexKey,
                        format!("local index `{name}` cannot have its own partition key"),
                    )
                    .label(pk.span, "this partition key")
                    .help("a local index shares the table's partition key: remove `partition_key`"),
                );
                table.partition_key.clone()
            }
            (ir::IndexKind::Local, None) => table.partition_key.clone(),
        };
        let mut sort_parts = match &decl.sort_key {
            Some(sk) => self.resolve_key_parts(name, sk, "sort")?,
            None => Vec::new(),
        };
        if kind == ir::IndexKind::Local && sort_parts.len() > 1 {
            self.error(
                Diagnostic::new(
                    Code::InvalidIndexKey,
                    format!("local index `{name}` has a sort key of {} attributes", sort_parts.len()),
                )
                .label(decl.sort_key.as_ref().map_or(name.span, |k| k.span), "these sort key attributes")
                .help("multi-attribute keys are for global secondary indexes only: a local index takes the table's partition key and one sort key attribute; make the index global, or give it one sort key attribute"),
            );
            sort_parts.truncate(1);
        }
        self.check_distinct_parts(name, partition_parts.iter().chain(&sort_parts));
        let sort_key = (!sort_parts.is_empty()).then(|| sort_parts.remove(0));
        if kind == ir::IndexKind::Local && sort_key.is_none() {
            self.error(
                Diagnostic::new(Code::MissingKey, format!("local index `{name}` has no sort key"))
                    .label(name.span, "this index")
                    .help("a local index exists to give the table's partitions another sort key: add `sort_key`"),
            );
        }
        if kind == ir::IndexKind::Local && table.sort_key.is_none() {
            self.error(
                Diagnostic::new(
                    Code::InvalidIndexKey,
                    format!("local index `{name}` on a table without a sort key"),
                )
                .label(name.span, "this index")
                .help("DynamoDB allows local indexes only on tables with a composite primary key"),
            );
        }
        let projection = self.resolve_projection(decl.projection.as_ref());
        let (warm, warm_from_rates) = self.warm(&decl.warm_throughput);
        if let (ir::IndexKind::Local, Some(rates)) = (kind, warm_from_rates) {
            self.error(
                Diagnostic::new(
                    Code::InvalidValue,
                    "a local index has no `warm_throughput` of its own",
                )
                .label(rates.span, "warm_throughput")
                .help("a local index uses the table's throughput: set it on the table"),
            );
        }
        let capacity = [&decl.read_capacity, &decl.write_capacity];
        if let Some(c) = capacity.iter().copied().flatten().next() {
            let reason = if kind == ir::IndexKind::Local {
                Some("a local index shares the table's capacity")
            } else if table.billing.mode != ir::BillingMode::Provisioned {
                Some("the table bills on demand")
            } else {
                None
            };
            if let Some(reason) = reason {
                self.error(
                    Diagnostic::new(
                        Code::InvalidValue,
                        format!("index `{name}` sets capacity, but {reason}"),
                    )
                    .label(c.span, "capacity")
                    .help("remove read_capacity and write_capacity from the index"),
                );
            }
        } else if kind == ir::IndexKind::Global
            && table.billing.mode == ir::BillingMode::Provisioned
        {
            self.error(
                Diagnostic::new(
                    Code::InvalidValue,
                    format!("global index `{name}` of a provisioned table has no capacity"),
                )
                .label(name.span, "this index")
                .help("add `read_capacity` and `write_capacity` to the index"),
            );
        }
        Some(ir::Index {
            name: name.clone(),
            kind,
            description: text(&decl.description),
            partition_key,
            more_partition_keys: partition_parts,
            sort_key,
            more_sort_keys: sort_parts,
            projection,
            read_capacity: self.capacity(&decl.read_capacity),
            write_capacity: self.capacity(&decl.write_capacity),
            max_throughput: self.index_throughput(decl.max_throughput.as_ref(), kind, table, true),
            warm_throughput: self.index_throughput(warm.as_ref(), kind, table, false),
            warm_from_rates: warm_from_rates.filter(|_| kind == ir::IndexKind::Global),
        })
    }

    /// The attributes of an index's partition or sort key (`which`), one
    /// to four, in order; `None` (after an error) for an empty list.
    fn resolve_key_parts(
        &mut self,
        index: &Spanned<String>,
        decl: &Spanned<syntax::de::Parts<syntax::KeyAttributeDecl>>,
        which: &str,
    ) -> Option<Vec<ir::KeyAttribute>> {
        if decl.is_empty() {
            self.error(
                Diagnostic::new(
                    Code::MissingKey,
                    format!("index `{index}` lists no {which} key attribute"),
                )
                .label(decl.span, "an empty list")
                .help(format!(
                    "name one to four attributes: `{which}_key: [a, b]`"
                )),
            );
            return None;
        }
        if decl.len() > MAX_KEY_PARTS {
            self.error(
                Diagnostic::new(
                    Code::InvalidIndexKey,
                    format!(
                        "index `{index}` has a {which} key of {} attributes",
                        decl.len()
                    ),
                )
                .label(decl.span, "these attributes")
                .help(format!("DynamoDB takes at most {MAX_KEY_PARTS} {which} key attributes per global index (and {MAX_KEY_PARTS} sort key attributes): keep the first {MAX_KEY_PARTS}, and filter on the rest")),
            );
        }
        Some(
            decl.iter()
                .take(MAX_KEY_PARTS)
                .map(|part| self.resolve_key_attribute(part))
                .collect(),
        )
    }

    /// No attribute may appear twice in an index's key (DynamoDB: "The
    /// KeySchema contains multiple key attributes with the same name").
    fn check_distinct_parts<'k>(
        &mut self,
        index: &Spanned<String>,
        parts: impl Iterator<Item = &'k ir::KeyAttribute>,
    ) {
        let mut seen: Vec<&ir::KeyAttribute> = Vec::new();
        for part in parts {
            if let Some(first) = seen.iter().find(|s| s.name.value == part.name.value) {
                let d = Diagnostic::new(
                    Code::InvalidIndexKey,
                    format!("index `{index}` names key attribute `{}` twice", part.name),
                )
                .label(first.name.span, "first here")
                .label(part.name.span, "again here")
                .help("each attribute of a multi-attribute key is named once, in the partition key or the sort key");
                self.error(d);
            } else {
                seen.push(part);
            }
        }
    }

    fn resolve_projection(
        &mut self,
        decl: Option<&Spanned<syntax::ProjectionDecl>>,
    ) -> ir::Projection {
        let Some(decl) = decl else {
            return ir::Projection::All;
        };
        match &decl.value {
            syntax::ProjectionDecl::Named(n) if n == "all" => ir::Projection::All,
            syntax::ProjectionDecl::Named(n) if n == "keys_only" => ir::Projection::KeysOnly,
            syntax::ProjectionDecl::Named(n) => {
                let mut d =
                    Diagnostic::new(Code::InvalidValue, format!("unknown projection `{n}`"))
                        .label(decl.span, "not a projection");
                d = d.help(match did_you_mean(n, ["all", "keys_only"]) {
                    Some(close) => {
                        format!("did you mean `{close}`? (or list the attributes to include)")
                    }
                    None => "write `all`, `keys_only` or a list of attribute names".to_owned(),
                });
                self.error(d);
                ir::Projection::All
            }
            syntax::ProjectionDecl::Include(names) => {
                ir::Projection::Include(names.iter().map(|n| n.value.clone()).collect())
            }
        }
    }
}
