//! The policy of a migration job's role (`<stem>.migration.iam.json`):
//! what `singletable_runtime::migrate`'s jobs send, on the table and its
//! control table, and nothing else.
//!
//! - Scan of the table itself (never an index, never a PartiQL select),
//!   and of the table a pending copy reads out of;
//! - UpdateItem of the table, naming only its key attributes, the key
//!   attributes of its indexes and the attributes pending jobs move, fill,
//!   re-mark, or mark and count in a recount (`ForAllValues:StringEquals`
//!   on `dynamodb:Attributes`);
//! - PutItem, DeleteItem and ConditionCheckItem of the table, the
//!   transaction that re-keys an item, a purge's delete and a copy's put
//!   (they write items whole, with the attributes of designs the spec no
//!   longer names, so these name no attribute list); GetItem only while a
//!   copy is pending (its `verify` looks each item up in the new table) or
//!   a recount (it reads an item or counter again after a refusal);
//! - on the control table (`<table>__singletable`): CreateTable,
//!   DescribeTable, Query, UpdateItem and DeleteItem, for the segment
//!   checkpoints and leases.
//!
//! No statement names an index, so the role can read no index and no
//! other table.

use crate::evolve::Job;
use crate::ir;

use super::model::{
    Action, Arn, AttributeNames, Condition, Effect, PolicyDocument, PolicyVersion, Sid, Statement,
};
use super::AwsTarget;

/// The suffix of the control table's name after the table's.
pub const CONTROL_TABLE_SUFFIX: &str = "__singletable";

/// The policy of a role that runs the spec's migration jobs: re-keys and
/// index keys always, and the pending `jobs` that write other attributes
/// or read another table.
pub fn migration_policy(spec: &ir::Spec, target: &AwsTarget, jobs: &[Job]) -> PolicyDocument {
    let table = spec.table.name.as_str();
    let control = format!("{table}{CONTROL_TABLE_SUFFIX}");
    let needs = Needs::of(spec, target, jobs);
    let (keys, sources, reads_items) = (needs.attributes, needs.sources, needs.reads_items);
    let on_table = |sid: &str, action: Vec<Action>, condition: Condition| Statement {
        sid: Sid::new(sid),
        effect: Effect::Allow,
        action,
        resource: vec![target.table_arn(table)],
        condition,
    };
    PolicyDocument {
        version: PolicyVersion::V2012_10_17,
        statement: vec![
            Statement {
                sid: Sid::new("ScanTable"),
                effect: Effect::Allow,
                action: vec![Action::Scan],
                resource: sources,
                condition: Condition::default(),
            },
            on_table(
                "WriteIndexKeys",
                vec![Action::UpdateItem],
                Condition {
                    for_all_values_string_equals: Some(AttributeNames { attributes: keys }),
                    ..Condition::default()
                },
            ),
            on_table(
                "RekeyItems",
                if reads_items {
                    vec![
                        Action::PutItem,
                        Action::DeleteItem,
                        Action::ConditionCheckItem,
                        Action::GetItem,
                    ]
                } else {
                    vec![
                        Action::PutItem,
                        Action::DeleteItem,
                        Action::ConditionCheckItem,
                    ]
                },
                Condition::default(),
            ),
            Statement {
                sid: Sid::new("ControlTable"),
                effect: Effect::Allow,
                action: vec![
                    Action::CreateTable,
                    Action::DescribeTable,
                    Action::Query,
                    Action::UpdateItem,
                    Action::DeleteItem,
                ],
                resource: vec![target.table_arn(&control)],
                condition: Condition::default(),
            },
        ],
    }
}

/// What the pending jobs need beside re-keys and index keys.
struct Needs {
    /// The attributes UpdateItem may name: the keys, and what jobs move,
    /// fill or re-mark.
    attributes: Vec<String>,
    /// The tables scanned: the table, and those copies read.
    sources: Vec<Arn>,
    /// A job reads single items: a copy's `verify` looks items up in the
    /// table, a recount reads a counter or item again after a refusal.
    reads_items: bool,
}

impl Needs {
    fn of(spec: &ir::Spec, target: &AwsTarget, jobs: &[Job]) -> Needs {
        let mut keys: Vec<String> = Vec::new();
        let mut add = |name: &str| {
            if !keys.iter().any(|k| k == name) {
                keys.push(name.to_owned());
            }
        };
        for key in spec.key_attributes() {
            add(&key.name.value);
        }
        let mut sources = vec![target.table_arn(spec.table.name.as_str())];
        let mut reads_items = false;
        for job in jobs {
            match job {
                Job::MoveAttribute { from, to, .. } => {
                    add(from);
                    add(to);
                }
                Job::FillAttribute {
                    entity, attribute, ..
                } => {
                    if let Some(a) = spec
                        .entities
                        .get(entity.as_str())
                        .and_then(|e| e.attributes.get(attribute.as_str()))
                    {
                        add(a.stored());
                    }
                }
                Job::Remark { entity } => {
                    if let Some((attribute, _)) = spec.table.entity_type.marker(entity) {
                        add(attribute);
                    }
                }
                Job::CopyTable { from } | Job::CopyEntity { from, .. } => {
                    let arn = target.table_arn(from);
                    if !sources.contains(&arn) {
                        sources.push(arn);
                    }
                    reads_items = true;
                }
                Job::Recount { aggregate, .. } => {
                    // The mark on counted items; on counter items the
                    // count, the shadow count, and what an upsert of one
                    // sets (its group and entity-type attributes).
                    let a = spec.entities.get(aggregate.as_str());
                    if let (Some(a), Some(recount)) = (a, job.recount_attributes()) {
                        add(&recount.attribute);
                        add(&recount.shadow);
                        if let Some(spec_of) = &a.aggregate {
                            let stored = |name: &str| {
                                a.attributes
                                    .get(name)
                                    .map_or(name.to_owned(), |x| x.stored().to_owned())
                            };
                            add(&stored(&spec_of.count));
                            for g in &spec_of.group_by {
                                add(&stored(g));
                            }
                        }
                        if let Some((attribute, _)) = spec.table.entity_type.marker(&a.name) {
                            add(attribute);
                        }
                    }
                    reads_items = true;
                }
                Job::BackfillIndexKeys { .. }
                | Job::BackfillDerived { .. }
                | Job::CleanupIndexKeys { .. }
                | Job::VerifyItems { .. }
                | Job::Rekey { .. }
                | Job::Purge { .. } => {}
            }
        }
        Needs {
            attributes: keys,
            sources,
            reads_items,
        }
    }
}
