//! Transaction and batch access patterns.

use crate::diagnostics::{Code, Diagnostic};
use crate::ir;
use crate::source::Spanned;
use crate::syntax::{self, de::OneOrMany};

use super::Resolver;

impl Resolver<'_> {
    pub(super) fn resolve_transaction(
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

    pub(super) fn resolve_batch(
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
