//! IAM policies generated from a spec: tenant isolation with
//! `dynamodb:LeadingKeys`, least privilege from the access patterns.
//!
//! For every spec, the **runtime policy** grants what the generated
//! repository does: get/put/update/delete of every entity and every access
//! pattern. Each declared role gets a policy with only its access patterns'
//! actions, each on exactly the table or indexes it is sent to (one Allow
//! statement per set of resources with the same actions and keys). In a
//! multi-tenant spec every Allow statement is conditioned on
//!
//! ```json
//! "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["TENANT#${aws:PrincipalTag/TenantId}|*"] },
//! "Null": { "dynamodb:LeadingKeys": "false" }
//! ```
//!
//! (the `Null` guard: `ForAllValues` alone holds for a request without
//! keys), with one pattern per partition-key shape: the literal prefix, the
//! tenant, the delimiter that follows it and `*` — or the exact value where
//! the key is the bare tenant segment. Resources are the table ARN and the
//! ARNs of exactly the indexes queried. Two Deny statements refuse Scan and
//! full-table PartiQL selects on the table and every index. A role that
//! lists scan access patterns (an admin role: in a multi-tenant spec it
//! lists nothing else) is allowed Scan, with no condition, on exactly the
//! table or indexes it scans, and denied it on the others. Writes to the
//! counters of aggregates the stream keeps are denied where IAM can name
//! their partitions (`DenyDerivedWrites`): only the stream handler writes
//! them, under its own policy ([`stream_policy`]).
//!
//! The **session-policy** variant has the tenant id in place of the
//! principal-tag variable, for the STS AssumeRole approach; the generated
//! Rust module embeds it as a `singletable_runtime::iam::PolicyTemplate`.

mod derived;
pub(crate) mod grants;
mod migration;
pub mod model;

pub(crate) use derived::nameable as derived_nameable;
pub use derived::stream_policy;
pub use migration::{migration_policy, CONTROL_TABLE_SUFFIX};

use crate::ir;

use grants::Grants;
pub(crate) use grants::{global_grantable, pattern_grants, starts_with_tenant};
use model::{
    escape_literal, Action, Arn, Condition, Effect, FullTableScan, IamBool, KeyPattern,
    LeadingKeys, PolicyDocument, PolicyVersion, Sid, Statement,
};

/// The managed-policy size limit, in characters without whitespace.
pub const MANAGED_POLICY_LIMIT: usize = 6_144;
/// The STS session-policy size limit, in characters.
pub const SESSION_POLICY_LIMIT: usize = 2_048;
/// The longest IAM principal tag value.
pub const MAX_TAG_VALUE_LENGTH: usize = 256;

/// The partition, region and account of the table's ARNs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AwsTarget {
    partition: String,
    region: String,
    account: String,
}

impl Default for AwsTarget {
    /// `aws`, and the placeholders `REGION` and `ACCOUNT_ID` to replace.
    fn default() -> Self {
        AwsTarget {
            partition: "aws".to_owned(),
            region: "REGION".to_owned(),
            account: "ACCOUNT_ID".to_owned(),
        }
    }
}

impl AwsTarget {
    /// A target from its parts: a partition such as `aws`, a region such
    /// as `eu-west-1` (or `*`), and a 12-digit account id (or `*`).
    pub fn new(partition: &str, region: &str, account: &str) -> Result<AwsTarget, String> {
        let word = |s: &str| {
            !s.is_empty()
                && s.len() <= 32
                && s.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        };
        if !word(partition) {
            return Err(format!(
                "`{partition}` is not an AWS partition such as `aws`"
            ));
        }
        if region != "*" && !word(region) {
            return Err(format!(
                "`{region}` is not an AWS region such as `eu-west-1`"
            ));
        }
        if account != "*" && !(account.len() == 12 && account.chars().all(|c| c.is_ascii_digit())) {
            return Err(format!("`{account}` is not a 12-digit AWS account id"));
        }
        Ok(AwsTarget {
            partition: partition.to_owned(),
            region: region.to_owned(),
            account: account.to_owned(),
        })
    }

    /// The longest parts a real table has, for worst-case size checks.
    pub(crate) fn longest() -> AwsTarget {
        AwsTarget {
            partition: "aws-us-gov".to_owned(),
            region: "ap-southeast-2".to_owned(),
            account: "123456789012".to_owned(),
        }
    }

    /// Markers that [`policy_pieces`] splits the policy at. They cannot occur
    /// elsewhere: names have no `$`, and key literals escape it as `${$}`.
    fn markers() -> AwsTarget {
        AwsTarget {
            partition: PARTITION_MARKER.to_owned(),
            region: REGION_MARKER.to_owned(),
            account: ACCOUNT_MARKER.to_owned(),
        }
    }

    fn arn(&self, resource: &str) -> Arn {
        Arn(format!(
            "arn:{}:dynamodb:{}:{}:{resource}",
            self.partition, self.region, self.account
        ))
    }

    /// The table's ARN.
    pub fn table_arn(&self, table: &str) -> Arn {
        self.arn(&format!("table/{table}"))
    }

    /// An index's ARN.
    pub fn index_arn(&self, table: &str, index: &str) -> Arn {
        self.arn(&format!("table/{table}/index/{index}"))
    }

    /// The ARN of the table's streams.
    pub fn stream_arn(&self, table: &str) -> Arn {
        self.arn(&format!("table/{table}/stream/*"))
    }

    /// The ARN of every index of the table (for Deny statements only).
    pub fn all_indexes_arn(&self, table: &str) -> Arn {
        self.arn(&format!("table/{table}/index/*"))
    }
}

const PARTITION_MARKER: &str = "${singletable:partition}";
const REGION_MARKER: &str = "${singletable:region}";
const ACCOUNT_MARKER: &str = "${singletable:account}";

/// How the tenant appears in `dynamodb:LeadingKeys` patterns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TenantValue {
    /// The principal-tag variable, `${aws:PrincipalTag/<tag>}` (ABAC).
    PrincipalTag,
    /// One tenant's id (a session policy).
    Id(String),
}

/// Which policy of a spec.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PolicyKind<'s> {
    /// What the generated repository does: every access pattern and entity operation.
    Runtime,
    /// One role's access patterns.
    Role(&'s ir::Role),
}

impl PolicyKind<'_> {
    /// The role's name, if any.
    pub fn role(&self) -> Option<&str> {
        match self {
            PolicyKind::Runtime => None,
            PolicyKind::Role(role) => Some(role.name.as_str()),
        }
    }
}

/// The runtime policy and one per role.
pub fn policy_kinds(spec: &ir::Spec) -> Vec<PolicyKind<'_>> {
    std::iter::once(PolicyKind::Runtime)
        .chain(spec.roles.values().map(PolicyKind::Role))
        .collect()
}

/// Builds one policy of a spec.
pub fn policy(
    spec: &ir::Spec,
    kind: PolicyKind<'_>,
    target: &AwsTarget,
    tenant: &TenantValue,
) -> PolicyDocument {
    let grants = match kind {
        PolicyKind::Runtime => Grants::runtime(spec),
        PolicyKind::Role(role) => Grants::role(spec, role),
    };
    let table = spec.table.name.as_str();
    let tenant_text = spec.tenant.as_ref().map(|t| match tenant {
        TenantValue::PrincipalTag => format!("${{aws:PrincipalTag/{}}}", t.principal_tag),
        TenantValue::Id(id) => {
            let mut out = String::new();
            escape_literal(id, &mut out);
            out
        }
    });
    let mut statement = allow_statements(spec, &grants, target, tenant_text.as_deref());
    statement.extend(global_statements(
        spec,
        &grants,
        target,
        tenant_text.as_deref(),
    ));
    // Only the stream handler writes the counters it keeps.
    statement.extend(derived::deny_statement(
        spec,
        target,
        tenant_text.as_deref(),
    ));
    let everything = vec![target.table_arn(table), target.all_indexes_arn(table)];
    let arn = |scanned: &Option<&str>| match scanned {
        None => target.table_arn(table),
        Some(index) => target.index_arn(table, index),
    };
    if !grants.scans.is_empty() {
        // A Scan carries no LeadingKeys: allowed on what the role scans,
        // with no condition, and denied everywhere else.
        statement.push(Statement {
            sid: Sid::new("Scan"),
            effect: Effect::Allow,
            action: vec![Action::Scan],
            resource: grants.scans.iter().map(arn).collect(),
            condition: Condition::default(),
        });
    }
    // An explicit Deny outweighs any Allow: deny Scan on each ARN the role
    // does not scan (every index by name, when the role scans one of them).
    let denied: Vec<Arn> = if grants.scans.is_empty() {
        everything.clone()
    } else {
        std::iter::once(None)
            .chain(spec.indexes.keys().map(|i| Some(i.as_str())))
            .filter(|t| !grants.scans.contains(t))
            .map(|t| arn(&t))
            .collect()
    };
    if !denied.is_empty() {
        statement.push(Statement {
            sid: Sid::new("DenyScan"),
            effect: Effect::Deny,
            action: vec![Action::Scan],
            resource: denied,
            condition: Condition::default(),
        });
    }
    statement.push(Statement {
        sid: Sid::new("DenyFullTablePartiQLSelect"),
        effect: Effect::Deny,
        action: vec![Action::PartiQLSelect],
        resource: everything,
        condition: Condition {
            bool: Some(FullTableScan {
                full_table_scan: IamBool::True,
            }),
            ..Condition::default()
        },
    });
    PolicyDocument {
        version: PolicyVersion::V2012_10_17,
        statement,
    }
}

/// The Allow statements of what `grants` grants by key: one per set of
/// resources with the same actions and the same keys (the table apart from
/// indexes that are only queried), so no action reaches a resource it was
/// not granted on.
fn allow_statements(
    spec: &ir::Spec,
    grants: &Grants<'_>,
    target: &AwsTarget,
    tenant_text: Option<&str>,
) -> Vec<Statement> {
    let table = spec.table.name.as_str();
    let groups = group(&grants.targets, table, target, |k| {
        tenant_text.and_then(|t| key_pattern(k, t))
    });
    match spec.tenant {
        Some(_) => statements(groups, "TenantKeys", true),
        None => statements(groups, "AccessPatterns", false),
    }
}

/// The Allow statements of the global entities' keys a role reaches, in a
/// multi-tenant spec: `GlobalKeys`, each key confined to its template's
/// pattern (literal text as it is, every placeholder `*`), on exactly the
/// resources and with exactly the actions its access patterns send.
///
/// Where the tenant keys on the same resource are granted every action of
/// the statement too, the statement names their patterns as well: a request
/// that holds both (a transaction mixing a tenant's item with a global
/// one, which an evaluator may judge on all its partition keys at once)
/// is then allowed by one statement, and nothing is granted that the two
/// statements do not grant key by key.
fn global_statements(
    spec: &ir::Spec,
    grants: &Grants<'_>,
    target: &AwsTarget,
    tenant_text: Option<&str>,
) -> Vec<Statement> {
    let table = spec.table.name.as_str();
    let globals = grants.globals_with_tenant_keys();
    let groups = group(&globals, table, target, |k| match tenant_text {
        Some(tenant) if starts_with_tenant(k) => key_pattern(k, tenant),
        _ => Some(global_pattern(k)),
    });
    statements(groups, "GlobalKeys", true)
}

/// One Allow statement per group of [`group`], `base`, `base2`, …; with
/// `keyed`, conditioned on the group's `dynamodb:LeadingKeys` patterns (and
/// the `Null` guard: `ForAllValues` alone holds for a request without keys).
fn statements(
    groups: Vec<(Vec<Action>, Vec<KeyPattern>, Vec<Arn>)>,
    base: &str,
    keyed: bool,
) -> Vec<Statement> {
    groups
        .into_iter()
        .enumerate()
        .map(|(i, (action, patterns, resource))| {
            let condition = if keyed {
                Condition {
                    for_all_values_string_like: Some(LeadingKeys {
                        leading_keys: patterns,
                    }),
                    null: Some(LeadingKeys {
                        leading_keys: IamBool::False,
                    }),
                    ..Condition::default()
                }
            } else {
                Condition::default()
            };
            let sid = if i == 0 {
                base.to_owned()
            } else {
                format!("{base}{}", i + 1)
            };
            Statement {
                sid: Sid::new(&sid),
                effect: Effect::Allow,
                action,
                resource,
                condition,
            }
        })
        .collect()
}

/// The resources of `targets` grouped by their actions and key patterns
/// (`pattern` of each key template, each once): one statement each.
fn group(
    targets: &[grants::TargetGrants<'_>],
    table: &str,
    target: &AwsTarget,
    pattern: impl Fn(&ir::KeyTemplate) -> Option<KeyPattern>,
) -> Vec<(Vec<Action>, Vec<KeyPattern>, Vec<Arn>)> {
    let mut groups: Vec<(Vec<Action>, Vec<KeyPattern>, Vec<Arn>)> = Vec::new();
    for granted in targets {
        let actions: Vec<Action> = granted.actions.iter().copied().collect();
        let mut patterns: Vec<KeyPattern> = Vec::new();
        for p in granted.keys.iter().filter_map(|k| pattern(k)) {
            if !patterns.contains(&p) {
                patterns.push(p);
            }
        }
        let arn = match granted.index {
            None => target.table_arn(table),
            Some(index) => target.index_arn(table, index),
        };
        match groups
            .iter_mut()
            .find(|(a, p, _)| *a == actions && *p == patterns)
        {
            Some((_, _, arns)) => arns.push(arn),
            None => groups.push((actions, patterns, vec![arn])),
        }
    }
    groups
}

/// The `dynamodb:LeadingKeys` pattern of a global entity's partition-key
/// template: its literal text escaped, each placeholder `*`.
pub(super) fn global_pattern(template: &ir::KeyTemplate) -> KeyPattern {
    let mut out = String::new();
    for segment in &template.segments {
        match segment {
            ir::Segment::Literal(text) => escape_literal(text, &mut out),
            ir::Segment::Placeholder(_) => {
                if !out.ends_with('*') {
                    out.push('*');
                }
            }
        }
    }
    KeyPattern(out)
}

/// The `dynamodb:LeadingKeys` pattern of a partition-key template that
/// starts with the tenant: the escaped literal prefix, the tenant, then the
/// delimiter after it and `*` — or nothing, when the tenant ends the key.
fn key_pattern(template: &ir::KeyTemplate, tenant: &str) -> Option<KeyPattern> {
    let ir::TenantPrefix { literal, end } = template.tenant_prefix()?;
    let mut out = String::new();
    escape_literal(&literal, &mut out);
    out.push_str(tenant);
    match end {
        ir::TenantEnd::Key => {}
        ir::TenantEnd::Delimiter(delimiter) => {
            escape_literal(&delimiter.to_string(), &mut out);
            out.push('*');
        }
        // The checker rejects a placeholder right after the tenant
        // (`tenant_prefix_unsafe`); a pattern for it is still sound.
        ir::TenantEnd::Placeholder => out.push('*'),
    }
    Some(KeyPattern(out))
}

/// The policy as indented JSON with a final newline, as written to files.
pub fn to_pretty_json(policy: &PolicyDocument) -> String {
    let mut out = serde_json::to_string_pretty(policy).expect("a policy serializes to JSON");
    out.push('\n');
    out
}

/// The policy as compact JSON, as sent to STS.
pub fn to_minified_json(policy: &PolicyDocument) -> String {
    serde_json::to_string(policy).expect("a policy serializes to JSON")
}

/// The size IAM counts against the managed-policy limit: characters other than whitespace.
pub fn managed_policy_size(policy: &PolicyDocument) -> usize {
    to_minified_json(policy)
        .chars()
        .filter(|c| !c.is_whitespace())
        .count()
}

/// The size STS counts against the session-policy limit: characters of the compact JSON.
pub fn session_policy_size(policy: &PolicyDocument) -> usize {
    to_minified_json(policy).chars().count()
}

/// A piece of a policy template: text, or a value filled in at run time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PolicyPiece {
    /// JSON text.
    Text(String),
    /// The tenant id (or the principal-tag variable).
    Tenant,
    /// The AWS partition.
    Partition,
    /// The region.
    Region,
    /// The account id.
    Account,
}

/// A policy in compact JSON, split where the tenant, partition, region and
/// account go, for `singletable_runtime::iam::PolicyTemplate`.
pub fn policy_pieces(spec: &ir::Spec, kind: PolicyKind<'_>) -> Vec<PolicyPiece> {
    let json = to_minified_json(&policy(
        spec,
        kind,
        &AwsTarget::markers(),
        &TenantValue::PrincipalTag,
    ));
    let tag_variable = spec
        .tenant
        .as_ref()
        .map(|t| format!("${{aws:PrincipalTag/{}}}", t.principal_tag));
    let mut markers: Vec<(&str, PolicyPiece)> = vec![
        (PARTITION_MARKER, PolicyPiece::Partition),
        (REGION_MARKER, PolicyPiece::Region),
        (ACCOUNT_MARKER, PolicyPiece::Account),
    ];
    if let Some(tag) = &tag_variable {
        markers.push((tag, PolicyPiece::Tenant));
    }
    let mut pieces = Vec::new();
    let mut rest = json.as_str();
    while let Some((at, marker, piece)) = markers
        .iter()
        .filter_map(|(m, p)| rest.find(m).map(|at| (at, *m, p)))
        .min_by_key(|(at, _, _)| *at)
    {
        if at > 0 {
            pieces.push(PolicyPiece::Text(rest[..at].to_owned()));
        }
        pieces.push(piece.clone());
        rest = &rest[at + marker.len()..];
    }
    if !rest.is_empty() {
        pieces.push(PolicyPiece::Text(rest.to_owned()));
    }
    pieces
}
