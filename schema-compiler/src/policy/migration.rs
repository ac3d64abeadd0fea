//! The policy of a migration job's role (`<stem>.migration.iam.json`):
//! what `singletable_runtime::migrate`'s jobs send, on the table and its
//! control table, and nothing else.
//!
//! - Scan of the table itself (never an index, never a PartiQL select);
//! - UpdateItem of the table, naming only its key attributes and the key
//!   attributes of its indexes (`ForAllValues:StringEquals` on
//!   `dynamodb:Attributes`): what backfilling and cleaning index keys write;
//! - PutItem, DeleteItem and ConditionCheckItem of the table, the
//!   transaction that re-keys an item (it moves the item whole, with the
//!   attributes of designs the spec no longer names, so these name no
//!   attribute list);
//! - on the control table (`<table>__singletable`): CreateTable,
//!   DescribeTable, Query, UpdateItem and DeleteItem, for the segment
//!   checkpoints and leases.
//!
//! No statement names an index, so the role can read no index and no
//! other table.

use crate::ir;

use super::model::{
    Action, AttributeNames, Condition, Effect, PolicyDocument, PolicyVersion, Sid, Statement,
};
use super::AwsTarget;

/// The suffix of the control table's name after the table's.
pub const CONTROL_TABLE_SUFFIX: &str = "__singletable";

/// The policy of a role that runs the spec's migration jobs.
pub fn migration_policy(spec: &ir::Spec, target: &AwsTarget) -> PolicyDocument {
    let table = spec.table.name.as_str();
    let control = format!("{table}{CONTROL_TABLE_SUFFIX}");
    let mut keys: Vec<String> = Vec::new();
    for key in spec.key_attributes() {
        if !keys.contains(&key.name.value) {
            keys.push(key.name.value.clone());
        }
    }
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
            on_table("ScanTable", vec![Action::Scan], Condition::default()),
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
                vec![
                    Action::PutItem,
                    Action::DeleteItem,
                    Action::ConditionCheckItem,
                ],
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
