//! Derived data in policies: the counter items of stream-kept aggregates,
//! which only the stream handler writes.
//!
//! Every tenant and role policy denies writes to the partitions of those
//! counters (`DenyDerivedWrites`), where IAM can name them: when no other
//! entity's partition key can fall under the counter's pattern, so the
//! Deny refuses nothing the generated code writes. The stream handler gets
//! its own policy ([`stream_policy`]): GetItem and UpdateItem on the counters'
//! partitions of every tenant, and reading the table's stream.

use crate::ir::{self, Segment};
use crate::lang;

use super::model::{
    escape_literal, Action, Arn, Condition, Effect, IamBool, KeyPattern, LeadingKeys,
    PolicyDocument, PolicyVersion, Sid, Statement,
};
use super::AwsTarget;

/// The entities whose items only the stream handler writes: the counters
/// of aggregates kept by the stream.
fn stream_counters(spec: &ir::Spec) -> impl Iterator<Item = &ir::Entity> {
    spec.entities.values().filter(|e| e.kept_by_stream())
}

/// The writes a tenant or role never sends to a counter's partition.
const DERIVED_WRITES: [Action; 4] = [
    Action::PutItem,
    Action::UpdateItem,
    Action::DeleteItem,
    Action::BatchWriteItem,
];

/// The `dynamodb:LeadingKeys` pattern of `template`'s keys for one tenant:
/// its literal text escaped and the tenant as `tenant`, up to its first
/// other placeholder, which is `*`.
fn pattern(template: &ir::KeyTemplate, tenant: &str) -> KeyPattern {
    let mut out = String::new();
    for segment in &template.segments {
        match segment {
            Segment::Literal(text) => escape_literal(text, &mut out),
            Segment::Placeholder(p) if p.kind == ir::PlaceholderKind::Tenant => {
                out.push_str(tenant);
            }
            Segment::Placeholder(_) => {
                out.push('*');
                break;
            }
        }
    }
    KeyPattern(out)
}

/// Whether IAM can name `counter`'s partitions apart from every entity's
/// that the application writes: no such partition key (for any tenant) begins with
/// the counter template's text before its first placeholder other than the
/// tenant — or, when the tenant is its only placeholder, equals a key of
/// the counter. Sound: the Deny's pattern matches only such keys.
pub(crate) fn nameable(spec: &ir::Spec, counter: &ir::Entity) -> bool {
    let template = &counter.primary_key.pk;
    if spec.key_type_of(&template.attribute) != ir::KeyType::String {
        return false;
    }
    let cut = template.segments.iter().position(
        |s| matches!(s, Segment::Placeholder(p) if p.kind != ir::PlaceholderKind::Tenant),
    );
    let head = ir::KeyTemplate {
        segments: template.segments[..cut.unwrap_or(template.segments.len())].to_vec(),
        ..template.clone()
    };
    let ours = lang::entity_tokens(spec, counter, &head);
    // Another counter the stream keeps may share the partition: only the
    // handler writes it too.
    spec.entities
        .values()
        .filter(|e| e.name != counter.name && !e.kept_by_stream())
        .all(|other| {
            let theirs = lang::primary_key_tokens(spec, other, &other.primary_key.pk);
            !lang::intersects(&ours, &theirs, cut.is_some())
        })
}

/// The Deny statement of writes to the stream-kept counters' partitions IAM
/// can name, with the tenant as `tenant` (a principal-tag variable or an
/// id; `None` in a spec without tenants). `None` when there is none.
pub(super) fn deny_statement(
    spec: &ir::Spec,
    target: &AwsTarget,
    tenant: Option<&str>,
) -> Option<Statement> {
    let mut patterns: Vec<KeyPattern> = Vec::new();
    for counter in stream_counters(spec).filter(|c| nameable(spec, c)) {
        let p = pattern(&counter.primary_key.pk, tenant.unwrap_or("*"));
        if !patterns.contains(&p) {
            patterns.push(p);
        }
    }
    if patterns.is_empty() {
        return None;
    }
    Some(Statement {
        sid: Sid::new("DenyDerivedWrites"),
        effect: Effect::Deny,
        action: DERIVED_WRITES.to_vec(),
        resource: vec![target.table_arn(&spec.table.name)],
        condition: Condition {
            for_any_value_string_like: Some(LeadingKeys {
                leading_keys: patterns,
            }),
            ..Condition::default()
        },
    })
}

/// The stream handler's policy, `None` when no aggregate is kept by the
/// stream: GetItem and UpdateItem on the counters' partitions of every tenant (each
/// counter's key pattern, every placeholder `*`), reading the table's
/// stream, and listing streams (which IAM grants on `*` only).
pub fn stream_policy(spec: &ir::Spec, target: &AwsTarget) -> Option<PolicyDocument> {
    let mut patterns: Vec<KeyPattern> = Vec::new();
    for counter in stream_counters(spec) {
        let p = super::global_pattern(&counter.primary_key.pk);
        if !patterns.contains(&p) {
            patterns.push(p);
        }
    }
    if patterns.is_empty() {
        return None;
    }
    let table = spec.table.name.as_str();
    Some(PolicyDocument {
        version: PolicyVersion::V2012_10_17,
        statement: vec![
            Statement {
                sid: Sid::new("Counters"),
                effect: Effect::Allow,
                // An update refused by its condition reads the counter to
                // tell why.
                action: vec![Action::GetItem, Action::UpdateItem],
                resource: vec![target.table_arn(table)],
                condition: Condition {
                    for_all_values_string_like: Some(LeadingKeys {
                        leading_keys: patterns,
                    }),
                    null: Some(LeadingKeys {
                        leading_keys: IamBool::False,
                    }),
                    ..Condition::default()
                },
            },
            Statement {
                sid: Sid::new("ReadStream"),
                effect: Effect::Allow,
                action: vec![
                    Action::DescribeStream,
                    Action::GetRecords,
                    Action::GetShardIterator,
                ],
                resource: vec![target.stream_arn(table)],
                condition: Condition::default(),
            },
            Statement {
                sid: Sid::new("ListStreams"),
                effect: Effect::Allow,
                action: vec![Action::ListStreams],
                resource: vec![Arn("*".to_owned())],
                condition: Condition::default(),
            },
        ],
    })
}
