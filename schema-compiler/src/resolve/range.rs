//! Sort-key conditions: what a range or prefix on the sort key reads.

use indexmap::IndexMap;

use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{self, AttributeType, PlaceholderKind};
use crate::source::{Span, Spanned};
use crate::syntax;

use super::pattern::KeyedPattern;
use super::unify::{match_template, Binding, Fill};
use super::Resolver;

impl Resolver<'_> {
    pub(super) fn resolve_sort_condition(
        &mut self,
        decl: &Spanned<syntax::SortConditionDecl>,
        key: Option<&ir::KeyAttribute>,
        spec: &ir::Spec,
    ) -> Option<ir::SortCondition> {
        let Some(key) = key else {
            self.no_sort_key(decl.span);
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
        if op == ir::SortOp::BeginsWith && key.r#type == ir::KeyType::Number {
            self.error(
                Diagnostic::new(
                    Code::InvalidValue,
                    format!("`begins_with` on the number key `{}`", key.name),
                )
                .label(span, "begins_with")
                .help("DynamoDB takes `begins_with` on string and binary keys only: bound a number with `between`, `lt`, `lte`, `gt` or `gte`"),
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

    /// A sort-key condition (at `span`) on a table or index without a sort key.
    pub(super) fn no_sort_key(&mut self, span: Span) {
        self.error(
            Diagnostic::new(
                Code::NoSortKey,
                "a sort-key condition on a table or index without a sort key",
            )
            .label(span, "this condition")
            .help("remove `sk`, or query an index that has a sort key"),
        );
    }

    /// Every entity whose items a range condition (`lt`, `lte`, `gt`, `gte`,
    /// `between`) can return: its partition key matches, and some sort key
    /// it writes lies between the bounds in DynamoDB's byte order, whether
    /// or not it begins like the operand. `gt: "LIKE#<x>"` also returns the
    /// `POST#…` and `PROFILE` items of the partition; `lte: "REPO#<o>#<r>"`
    /// also returns `ISSUE#…`. An operand's parameters take their type
    /// from the entities whose sort key spells the operand out.
    pub(super) fn entities_in_range(
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
            let Some(sk) = p
                .index
                .keys_of(entity)
                .and_then(|k| p.condition_template(k))
            else {
                continue;
            };
            for b in spelled(entity, sk) {
                let (Fill::Param(name, _), Some(attr)) =
                    (&b.fill, entity.attributes.get(&b.placeholder))
                else {
                    continue;
                };
                domains
                    .entry(name.clone())
                    .or_insert_with(|| crate::encoding::attribute_domain(attr));
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
                let sk = p.condition_template(p.index.keys_of(entity)?)?;
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
}
