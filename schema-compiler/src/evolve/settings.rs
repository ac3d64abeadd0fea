//! Changes of how DynamoDB and CloudFormation run the table, not of what
//! it holds: deletion protection and the stack's policies, and a global
//! table's replicas.

use super::codes::ChangeCode;
use super::design::ReplicasDesign;
use super::diff::{Finding, Versions};
use crate::ir;

/// Deletion protection and the CloudFormation policies, each compared on
/// how much of the data it keeps (retain > snapshot > delete).
pub(super) fn protection_changes(v: &Versions<'_>, out: &mut Vec<Finding>) {
    let (old, new) = (v.old.table.protection, v.new.table.protection);
    let at = v.new_at();
    let keeps = |p: ir::ResourcePolicy| match p {
        ir::ResourcePolicy::Retain => 2,
        ir::ResourcePolicy::Snapshot => 1,
        ir::ResourcePolicy::Delete => 0,
    };
    let on_off = |on: bool| if on { "on" } else { "off" };
    let lowered = |policy: ir::ResourcePolicy, when: &str| match policy {
        ir::ResourcePolicy::Delete => format!("{when} now deletes the table and every item in it"),
        _ => format!("{when} now deletes the table, keeping only a snapshot to restore from"),
    };
    let settings = [
        (
            u8::from(old.deletion_protection),
            u8::from(new.deletion_protection),
            format!(
                "deletion protection changes from {} to {}",
                on_off(old.deletion_protection),
                on_off(new.deletion_protection)
            ),
            "DynamoDB no longer refuses DeleteTable".to_owned(),
        ),
        (
            keeps(old.deletion_policy),
            keeps(new.deletion_policy),
            format!(
                "the DeletionPolicy changes from {} to {}",
                old.deletion_policy.cloudformation(),
                new.deletion_policy.cloudformation()
            ),
            lowered(new.deletion_policy, "deleting the stack"),
        ),
        (
            keeps(old.update_replace_policy),
            keeps(new.update_replace_policy),
            format!(
                "the UpdateReplacePolicy changes from {} to {}",
                old.update_replace_policy.cloudformation(),
                new.update_replace_policy.cloudformation()
            ),
            lowered(
                new.update_replace_policy,
                "an update that replaces the table (a rename, a key change)",
            ),
        ),
    ];
    for (was, is, what, consequence) in settings {
        if was == is {
            continue;
        }
        let (code, message) = if is < was {
            (
                ChangeCode::ProtectionLowered,
                format!("{what}: {consequence}"),
            )
        } else {
            (
                ChangeCode::ProtectionRaised,
                format!("{what}: the table's items are kept in more cases"),
            )
        };
        out.push(Finding::new(code, &v.new.table.name, message).label(at.table(), "the table"));
    }
}

/// A table made global or regional, a consistency changed, replicas added
/// or removed: CloudFormation cannot change an `AWS::DynamoDB::Table` into
/// an `AWS::DynamoDB::GlobalTable` (or back) by its type, and a global
/// table's consistency, or a strongly consistent table's replicas, are
/// fixed when it is created.
pub(super) fn replica_changes(v: &Versions<'_>, out: &mut Vec<Finding>) {
    let (old, new) = (&v.old.table.replicas, &v.new.table.replicas);
    if old == new {
        return;
    }
    let at = v.new_at();
    let show = |r: &Option<ReplicasDesign>| match r {
        None => "one Region".to_owned(),
        Some(r) => format!(
            "{} ({}){}",
            r.regions.join(", "),
            r.consistency.name(),
            r.witness
                .as_ref()
                .map_or(String::new(), |w| format!(", witness {w}"))
        ),
    };
    let message = format!(
        "the table's replicas change from {} to {}",
        show(old),
        show(new)
    );
    let in_place = matches!((old, new), (Some(a), Some(b))
        if a.consistency == ir::Consistency::Eventual
            && b.consistency == ir::Consistency::Eventual
            && a.regions.first() == b.regions.first());
    let mut f = if in_place {
        Finding::new(ChangeCode::ReplicasChanged, &v.new.table.name, message)
    } else {
        let why = match (old, new) {
            (None, Some(_)) | (Some(_), None) => "the generated CloudFormation template changes the resource from AWS::DynamoDB::Table to AWS::DynamoDB::GlobalTable or back, which CloudFormation cannot do in place (it may delete the table): retain the table, remove it from the stack, change its replicas with UpdateTable, and import it under the new resource type",
            _ => "a global table's consistency mode, its first Region, and a strongly consistent table's replicas and witness are fixed when it is created: create the new global table beside the old one and copy the items",
        };
        let mut f = Finding::new(ChangeCode::GlobalTableChanged, &v.new.table.name, message);
        f.witness = Some(why.to_owned());
        f
    };
    f = f.label(at.table(), "the table");
    out.push(f);
}

/// A lower warm throughput: DynamoDB refuses to lower it, and Terraform
/// applies it by replacing the table (a new, empty table).
pub(super) fn warm_changes(v: &Versions<'_>, out: &mut Vec<Finding>) {
    let (Some((old_read, old_write)), new) =
        (v.old.table.warm_throughput, v.new.table.warm_throughput)
    else {
        return;
    };
    // A value no longer declared stays as deployed (Terraform and
    // CloudFormation read it back); only a lower one is a change.
    let (new_read, new_write) = new.unwrap_or((None, None));
    let lowered =
        |old: Option<u64>, new: Option<u64>| matches!((old, new), (Some(o), Some(n)) if n < o);
    if !(lowered(old_read, new_read) || lowered(old_write, new_write)) {
        return;
    }
    let show = |r: Option<u64>, w: Option<u64>| {
        format!(
            "{} reads, {} writes",
            r.map_or("default".to_owned(), |r| r.to_string()),
            w.map_or("default".to_owned(), |w| w.to_string())
        )
    };
    let mut f = Finding::new(
        ChangeCode::WarmThroughputLowered,
        &v.new.table.name,
        format!(
            "the table's warm throughput is lowered from {} to {} a second",
            show(old_read, old_write),
            show(new_read, new_write)
        ),
    )
    .label(v.new_at().table(), "the table");
    f.witness = Some("DynamoDB refuses a lower warm throughput (\"decreasing WarmThroughput is not supported\"), and Terraform applies one by destroying and creating the table: keep the deployed value in the spec".to_owned());
    out.push(f);
}
