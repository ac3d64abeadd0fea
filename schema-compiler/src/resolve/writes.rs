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
    ) -> Option<ir::Operation> {
        use ir::TransactionOp as Op;
        if let Some(get) = &decl.get {
            return self.resolve_transact_get(decl, get, spec);
        }
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
        Some(ir::Operation::Transaction(ir::Transaction {
            items,
            max_items,
        }))
    }

    /// A read transaction: `get` alone (DynamoDB reads and writes in
    /// separate transaction calls).
    fn resolve_transact_get(
        &mut self,
        decl: &Spanned<syntax::TransactionDecl>,
        get: &Spanned<OneOrMany>,
        spec: &ir::Spec,
    ) -> Option<ir::Operation> {
        let writes = [
            &decl.put,
            &decl.create,
            &decl.update,
            &decl.delete,
            &decl.condition_check,
        ];
        if let Some(write) = writes.into_iter().flatten().next() {
            self.error(
                Diagnostic::new(
                    Code::AmbiguousOperation,
                    "a transaction that reads and writes",
                )
                .label(get.span, "reads")
                .label(write.span, "writes")
                .help("DynamoDB reads (TransactGetItems) and writes (TransactWriteItems) in separate transactions: make them two access patterns"),
            );
            return None;
        }
        if get.value.0.is_empty() {
            self.error(
                Diagnostic::new(Code::AmbiguousOperation, "an empty list of entities")
                    .label(get.span, "empty list")
                    .help("name at least one entity, or remove the key"),
            );
            return None;
        }
        let mut entities: Vec<String> = Vec::new();
        let mut scopes: Vec<(ir::Scope, &Spanned<String>)> = Vec::new();
        for name in &get.value.0 {
            if let Some(entity) = self.entity(name, spec) {
                scopes.push((entity.scope, name));
                if !entities.contains(&name.value) {
                    entities.push(name.value.clone());
                }
            }
        }
        let tenant = scopes.iter().find(|(s, _)| *s == ir::Scope::Tenant);
        let global = scopes.iter().find(|(s, _)| *s == ir::Scope::Global);
        if let (Some((_, t)), Some((_, g))) = (tenant, global) {
            self.error(
                Diagnostic::new(
                    Code::InvalidValue,
                    format!("a read transaction of a tenant's `{t}` and the global `{g}`"),
                )
                .label(t.span, "a tenant's")
                .label(g.span, "global")
                .help("a read transaction runs on one handle, a tenant's or the table's: make two access patterns"),
            );
            return None;
        }
        let max_items = decl
            .max_items
            .unwrap_or_else(|| Spanned::new(100, decl.span));
        (!entities.is_empty()).then_some(ir::Operation::TransactGet(ir::TransactGet {
            entities,
            max_items,
        }))
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
