//! What a policy grants: the actions of its access patterns (and, for the
//! tenant runtime, of the generated entity operations), the indexes they
//! query, and the partition-key templates they reach.

use std::collections::BTreeSet;

use crate::ir::{self, IndexRef, Operation, Segment, TransactionOp};

use super::model::Action;

/// What one policy grants on one resource: the table (`index: None`) or
/// one index. Actions are granted per resource, so a role that gets items
/// from the table and queries an index may not query the table.
#[derive(Debug)]
pub(crate) struct TargetGrants<'s> {
    /// The index, or `None` for the table.
    pub index: Option<&'s str>,
    /// Actions, in [`Action`] order.
    pub actions: BTreeSet<Action>,
    /// Partition-key templates reached, first use first, each once.
    pub keys: Vec<&'s ir::KeyTemplate>,
    /// The segments of `keys`, to keep each once.
    seen: BTreeSet<&'s [Segment]>,
}

/// The actions and partition-key templates of one policy, per resource.
#[derive(Debug, Default)]
pub(crate) struct Grants<'s> {
    /// The table first, then the indexes in the spec's order; only those
    /// granted something. In a multi-tenant spec, keys that start with
    /// the tenant.
    pub targets: Vec<TargetGrants<'s>>,
    /// In a multi-tenant spec, the keys of global entities a role's access
    /// patterns reach, per resource: granted by their own patterns, where
    /// no tenant's key can match them ([`global_grantable`]).
    pub globals: Vec<TargetGrants<'s>>,
    /// What a role scans: the table (`None`) or an index, each once; the
    /// runtime policy never scans.
    pub scans: Vec<Option<&'s str>>,
}

/// Whether a template's first placeholder is the tenant, so that a
/// `dynamodb:LeadingKeys` pattern can confine it to one tenant.
pub(crate) fn starts_with_tenant(template: &ir::KeyTemplate) -> bool {
    template.tenant_prefix().is_some()
}

impl<'s> Grants<'s> {
    /// Everything the generated tenant (or table) repository can do: every
    /// access pattern, and get/put/create/update/delete of every entity
    /// (get only, of the counters the stream keeps).
    pub fn runtime(spec: &'s ir::Spec) -> Grants<'s> {
        let mut grants = Grants::default();
        let tenant = spec.tenant.is_some();
        for entity in spec.entities.values() {
            // The counters the stream keeps are only read: the stream
            // handler writes them.
            let writes: &[Action] = match entity.kept_by_stream() {
                true => &[],
                false => &[Action::PutItem, Action::UpdateItem, Action::DeleteItem],
            };
            for &action in std::iter::once(&Action::GetItem).chain(writes) {
                grants.grant(action, None, &entity.primary_key.pk, tenant);
            }
        }
        for pattern in spec.access_patterns.values() {
            grants.grant_pattern(spec, pattern, tenant, false);
        }
        grants.order_indexes(spec);
        grants
    }

    /// The access patterns of one role.
    pub fn role(spec: &'s ir::Spec, role: &ir::Role) -> Grants<'s> {
        // The description is for people; the policy follows from the patterns.
        let ir::Role {
            name: _,
            description: _,
            access_patterns,
        } = role;
        let mut grants = Grants::default();
        let tenant = spec.tenant.is_some();
        for name in access_patterns {
            if let Some(pattern) = spec.access_patterns.get(&name.value) {
                grants.grant_pattern(spec, pattern, tenant, tenant);
                if let Operation::Scan(scan) = &pattern.operation {
                    let target = match &scan.index {
                        IndexRef::Table => None,
                        IndexRef::Index(i) => Some(i.as_str()),
                    };
                    if !grants.scans.contains(&target) {
                        grants.scans.push(target);
                    }
                }
            }
        }
        grants.order_indexes(spec);
        grants
    }

    /// Grants what `pattern` sends; with `globals` (a role in a
    /// multi-tenant spec), the global entities' keys it reaches too.
    fn grant_pattern(
        &mut self,
        spec: &'s ir::Spec,
        pattern: &'s ir::AccessPattern,
        tenant: bool,
        globals: bool,
    ) {
        for (action, index, template) in pattern_grants(spec, pattern) {
            if globals && global_grantable(spec, index, template) {
                add_to(&mut self.globals, action, index, template);
            } else {
                self.grant(action, index, template, tenant);
            }
        }
    }

    /// Grants `action` on the table (or `index`) for keys of `template`.
    /// In a multi-tenant spec, keys that do not start with the tenant are
    /// never granted: no tenant pattern could confine them.
    fn grant(
        &mut self,
        action: Action,
        index: Option<&'s str>,
        template: &'s ir::KeyTemplate,
        tenant: bool,
    ) {
        if tenant && !starts_with_tenant(template) {
            return;
        }
        add_to(&mut self.targets, action, index, template);
    }

    /// [`Grants::globals`], each resource's keys joined by the tenant keys
    /// granted there every action of the global ones.
    pub fn globals_with_tenant_keys(&self) -> Vec<TargetGrants<'s>> {
        self.globals
            .iter()
            .map(|global| {
                let mut joined = TargetGrants {
                    index: global.index,
                    actions: global.actions.clone(),
                    keys: global.keys.clone(),
                    seen: global.seen.clone(),
                };
                let tenant = self
                    .targets
                    .iter()
                    .find(|t| t.index == global.index && t.actions.is_superset(&global.actions));
                for key in tenant.into_iter().flat_map(|t| &t.keys) {
                    if joined.seen.insert(&key.segments) {
                        joined.keys.push(key);
                    }
                }
                joined
            })
            .collect()
    }

    /// The table first, then the indexes in the spec's order.
    fn order_indexes(&mut self, spec: &ir::Spec) {
        for targets in [&mut self.targets, &mut self.globals] {
            targets.sort_by_key(|t| {
                t.index.map_or(0, |name| {
                    1 + spec.indexes.get_index_of(name).unwrap_or(usize::MAX - 1)
                })
            });
        }
    }
}

/// Grants `action` on the table (or `index`) for keys of `template`.
fn add_to<'s>(
    targets: &mut Vec<TargetGrants<'s>>,
    action: Action,
    index: Option<&'s str>,
    template: &'s ir::KeyTemplate,
) {
    let at = match targets.iter().position(|t| t.index == index) {
        Some(at) => at,
        None => {
            targets.push(TargetGrants {
                index,
                actions: BTreeSet::new(),
                keys: Vec::new(),
                seen: BTreeSet::new(),
            });
            targets.len() - 1
        }
    };
    let target = &mut targets[at];
    target.actions.insert(action);
    if target.seen.insert(&template.segments) {
        target.keys.push(template);
    }
}

/// A template as text: its literals, and each placeholder by name.
fn shape(template: &ir::KeyTemplate) -> Vec<(bool, &str)> {
    template
        .segments
        .iter()
        .map(|segment| match segment {
            Segment::Literal(text) => (true, text.as_str()),
            Segment::Placeholder(p) => (false, p.name.value.as_str()),
        })
        .collect()
}

/// The text of `template` before its first placeholder.
pub(crate) fn literal_prefix(template: &ir::KeyTemplate) -> String {
    let mut out = String::new();
    for segment in &template.segments {
        match segment {
            Segment::Literal(text) => out.push_str(text),
            Segment::Placeholder(_) => break,
        }
    }
    out
}

/// Whether `template`, on the table (or `index`), is a partition key of a
/// global entity that a role may be granted in a multi-tenant spec: no key
/// of a tenant-scoped entity there can match its pattern. Sound by
/// prefixes: every tenant key there starts with its template's text before
/// the tenant, every key the pattern matches with this template's text
/// before its first placeholder; when neither text is a prefix of the
/// other, the two differ at a position both keys have.
pub(crate) fn global_grantable(
    spec: &ir::Spec,
    index: Option<&str>,
    template: &ir::KeyTemplate,
) -> bool {
    // The same template as a global entity's key there (a query's key
    // condition names the entity's template again).
    let same = |key: &ir::KeyTemplate| shape(key) == shape(template);
    let global = spec.entities.values().any(|e| {
        e.scope == ir::Scope::Global
            && match index {
                None => same(&e.primary_key.pk),
                Some(i) => e.index_keys.get(i).is_some_and(|k| same(&k.pk)),
            }
    });
    if !global || starts_with_tenant(template) {
        return false;
    }
    let ours = literal_prefix(template);
    spec.entities
        .values()
        .filter(|e| e.scope == ir::Scope::Tenant)
        .filter_map(|e| match index {
            None => Some(&e.primary_key.pk),
            Some(i) => e.index_keys.get(i).map(|k| &k.pk),
        })
        .all(|tenant_key| {
            let theirs = literal_prefix(tenant_key);
            !theirs.starts_with(&ours) && !ours.starts_with(&theirs)
        })
}

/// What one access pattern needs: `(action, index queried, partition-key template)`.
pub(crate) fn pattern_grants<'s>(
    spec: &'s ir::Spec,
    pattern: &'s ir::AccessPattern,
) -> Vec<(Action, Option<&'s str>, &'s ir::KeyTemplate)> {
    let entity_pk = |name: &str| spec.entities.get(name).map(|e| &e.primary_key.pk);
    let mut out = Vec::new();
    match &pattern.operation {
        Operation::Get { entity, .. } => {
            out.extend(entity_pk(entity).map(|pk| (Action::GetItem, None, pk)));
        }
        Operation::Query(q) => {
            let index = match &q.index {
                IndexRef::Table => None,
                IndexRef::Index(name) => Some(name.as_str()),
            };
            out.push((Action::Query, index, &q.pk));
            // Every shard's one whole key, read together: the same
            // partition keys, item by item (never more than the Query reads).
            if crate::plan::reads_shards_in_batch(spec, pattern) {
                out.push((Action::BatchGetItem, None, &q.pk));
            }
        }
        // A Scan has no partition key for LeadingKeys to confine: a role's
        // scans are granted apart ([`Grants::scans`]), never by key.
        Operation::Scan(_) => {}
        Operation::Transaction(t) => {
            for (op, entity) in &t.items {
                let action = match op {
                    TransactionOp::Put | TransactionOp::Create => Action::PutItem,
                    TransactionOp::Update => Action::UpdateItem,
                    TransactionOp::Delete => Action::DeleteItem,
                    TransactionOp::ConditionCheck => Action::ConditionCheckItem,
                };
                out.extend(entity_pk(entity).map(|pk| (action, None, pk)));
            }
        }
        // TransactGetItems is authorized as a GetItem of each item.
        Operation::TransactGet(t) => {
            out.extend(
                t.entities
                    .iter()
                    .filter_map(|e| entity_pk(e))
                    .map(|pk| (Action::GetItem, None, pk)),
            );
        }
        Operation::Batch(b) => {
            let ops = [
                (Action::BatchGetItem, &b.get),
                (Action::BatchWriteItem, &b.put),
                (Action::BatchWriteItem, &b.delete),
            ];
            for (action, entities) in ops {
                out.extend(
                    entities
                        .iter()
                        .filter_map(|e| entity_pk(e))
                        .map(|pk| (action, None, pk)),
                );
            }
        }
    }
    out
}
