//! A global table's replicas and the table's resource-based policy, each
//! checked against DynamoDB's rules where it is written.

use serde_json::{Map, Value};

use crate::diagnostics::{did_you_mean, Code, Diagnostic};
use crate::ir;
use crate::source::Spanned;
use crate::syntax::{self, ReplicasDecl, StatementDecl};

use super::Resolver;

/// DynamoDB's limit on a resource-based policy, whitespace included.
pub const MAX_RESOURCE_POLICY_BYTES: usize = 20 * 1024;

/// The Regions where a strongly consistent global table may be, as sets:
/// every replica and the witness of one table lie in one set.
const STRONG_REGION_SETS: [(&str, &[&str]); 3] = [
    ("US", &["us-east-1", "us-east-2", "us-west-2"]),
    (
        "EU",
        &["eu-west-1", "eu-west-2", "eu-west-3", "eu-central-1"],
    ),
    (
        "AP",
        &["ap-northeast-1", "ap-northeast-2", "ap-northeast-3"],
    ),
];

/// DynamoDB's actions a table's resource-based policy can name (tables,
/// indexes and streams), for checking action names and wildcards.
const ACTIONS: &[&str] = &[
    "BatchGetItem",
    "BatchWriteItem",
    "ConditionCheckItem",
    "CreateBackup",
    "CreateTableReplica",
    "DeleteItem",
    "DeleteResourcePolicy",
    "DeleteTable",
    "DeleteTableReplica",
    "DescribeContinuousBackups",
    "DescribeContributorInsights",
    "DescribeExport",
    "DescribeImport",
    "DescribeKinesisStreamingDestination",
    "DescribeStream",
    "DescribeTable",
    "DescribeTableReplicaAutoScaling",
    "DescribeTimeToLive",
    "DisableKinesisStreamingDestination",
    "EnableKinesisStreamingDestination",
    "ExportTableToPointInTime",
    "GetItem",
    "GetRecords",
    "GetResourcePolicy",
    "GetShardIterator",
    "ImportTable",
    "ListStreams",
    "ListTagsOfResource",
    "PartiQLDelete",
    "PartiQLInsert",
    "PartiQLSelect",
    "PartiQLUpdate",
    "PutItem",
    "PutResourcePolicy",
    "Query",
    "RestoreTableFromBackup",
    "RestoreTableToPointInTime",
    "Scan",
    "SearchVectors",
    "TagResource",
    "UntagResource",
    "UpdateContinuousBackups",
    "UpdateContributorInsights",
    "UpdateItem",
    "UpdateKinesisStreamingDestination",
    "UpdateTable",
    "UpdateTableReplicaAutoScaling",
    "UpdateTimeToLive",
];

/// `us-east-1`, `eu-central-2`, `us-gov-west-1`: lower-case words joined by
/// hyphens, two letters first and a number last.
fn is_region(name: &str) -> bool {
    let parts: Vec<&str> = name.split('-').collect();
    parts.len() >= 3
        && parts[0].len() == 2
        && parts[..parts.len() - 1]
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_lowercase()))
        && parts[parts.len() - 1].chars().all(|c| c.is_ascii_digit())
        && !parts[parts.len() - 1].is_empty()
}

/// Whether a glob with `*` and `?` matches `name`, ignoring case (IAM's
/// action names are case-insensitive).
fn glob(pattern: &str, name: &str) -> bool {
    fn go(p: &[u8], n: &[u8]) -> bool {
        match (p.first(), n.first()) {
            (None, None) => true,
            (Some(b'*'), _) => go(&p[1..], n) || (!n.is_empty() && go(p, &n[1..])),
            (Some(b'?'), Some(_)) => go(&p[1..], &n[1..]),
            (Some(a), Some(b)) if a.eq_ignore_ascii_case(b) => go(&p[1..], &n[1..]),
            _ => false,
        }
    }
    go(pattern.as_bytes(), name.as_bytes())
}

/// Whether an IAM action pattern (`dynamodb:Get*`, any case) names the
/// DynamoDB action `name` (`GetItem`).
pub(crate) fn names_action(pattern: &str, name: &str) -> bool {
    pattern
        .get(..9)
        .is_some_and(|p| p.eq_ignore_ascii_case("dynamodb:"))
        && glob(&pattern[9..], name)
}

/// The strings of a value written as one string or a list of them.
pub(crate) fn strings(value: &Value) -> Option<Vec<&str>> {
    match value {
        Value::String(s) => Some(vec![s.as_str()]),
        Value::Array(items) if !items.is_empty() => items.iter().map(Value::as_str).collect(),
        _ => None,
    }
}

impl Resolver<'_> {
    pub(super) fn resolve_replicas(
        &mut self,
        decl: &Spanned<ReplicasDecl>,
        table: &syntax::TableDecl,
    ) -> ir::Replicas {
        let r = &decl.value;
        if r.regions.is_empty() {
            self.error(
                Diagnostic::new(Code::InvalidValue, "a global table with no Region")
                    .label(decl.span, "replicas")
                    .help("list the Regions that hold a replica, the table's own Region first: `regions: [us-east-1, eu-west-1]`"),
            );
        }
        for region in r.regions.iter().chain(&r.witness) {
            self.check_region(region);
        }
        self.check_distinct(r.regions.iter(), "replica Region");
        let consistency = r
            .consistency
            .unwrap_or(Spanned::new(ir::Consistency::Eventual, decl.span));
        if let Some(witness) = &r.witness {
            let problem = if consistency.value != ir::Consistency::Strong {
                Some("a witness takes part only in a strongly consistent global table: write `consistency: strong`, or remove the witness")
            } else if r.regions.iter().any(|x| x.value == witness.value) {
                Some("a witness holds no replica: name a Region without one")
            } else {
                None
            };
            if let Some(help) = problem {
                self.error(
                    Diagnostic::new(
                        Code::InvalidValue,
                        format!("`{witness}` cannot be the witness"),
                    )
                    .label(witness.span, "the witness")
                    .help(help),
                );
            }
        }
        if consistency.value == ir::Consistency::Strong {
            self.check_strong(decl);
        } else if r.regions.len() > 1
            && table.stream.as_ref().map(|s| s.value) != Some(ir::StreamView::NewAndOldImages)
        {
            self.error(
                Diagnostic::new(
                    Code::InvalidValue,
                    "replicas with eventual consistency need the table's stream of new and old images",
                )
                .label(table.stream.as_ref().map_or(decl.span, |s| s.span), "the stream")
                .help("DynamoDB replicates an eventually consistent global table through its stream: write `stream: new_and_old_images`"),
            );
        }
        if let Some(key) = &table.kms_key {
            let k = key.value.as_str();
            let regional = k != "aws_managed"
                && !k.starts_with("alias/")
                && !k.rsplit('/').next().unwrap_or(k).starts_with("mrk-");
            if regional && r.regions.len() > 1 {
                self.error(
                    Diagnostic::new(
                        Code::InvalidValue,
                        format!("KMS key `{k}` is in one Region, and the table has replicas in {}", r.regions.len()),
                    )
                    .label(key.span, "kms_key")
                    .help("each replica is encrypted in its own Region: write an alias that exists in every replica's Region (`alias/…`), a multi-Region key (`mrk-…`), or `aws_managed`"),
                );
            }
        }
        ir::Replicas {
            regions: r.regions.iter().map(|x| x.value.clone()).collect(),
            consistency,
            witness: r.witness.as_ref().map(|w| w.value.clone()),
        }
    }

    fn check_region(&mut self, region: &Spanned<String>) {
        if !is_region(&region.value) {
            self.error(
                Diagnostic::new(
                    Code::InvalidValue,
                    format!("`{region}` is not an AWS Region"),
                )
                .label(region.span, "this Region")
                .help("write a Region's code, such as `us-east-1` or `eu-central-1`"),
            );
        }
    }

    /// Multi-Region strong consistency: three replicas, or two and a
    /// witness, all in one of DynamoDB's Region sets.
    fn check_strong(&mut self, decl: &Spanned<ReplicasDecl>) {
        let r = &decl.value;
        let at = r.consistency.as_ref().map_or(decl.span, |c| c.span);
        let shape_ok = match r.witness {
            None => r.regions.len() == 3,
            Some(_) => r.regions.len() == 2,
        };
        if !shape_ok {
            self.error(
                Diagnostic::new(
                    Code::InvalidValue,
                    format!(
                        "strong consistency with {} replica(s){}",
                        r.regions.len(),
                        if r.witness.is_some() { " and a witness" } else { "" }
                    ),
                )
                .label(at, "consistency")
                .help("a strongly consistent global table has exactly three replicas, or two replicas and a `witness`"),
            );
            return;
        }
        let all: Vec<&Spanned<String>> = r.regions.iter().chain(&r.witness).collect();
        let set = STRONG_REGION_SETS
            .iter()
            .find(|(_, regions)| all.iter().all(|x| regions.contains(&x.value.as_str())));
        if set.is_none() {
            let stray = all
                .iter()
                .find(|x| {
                    !STRONG_REGION_SETS.iter().any(|(_, regions)| {
                        regions.contains(&all[0].value.as_str())
                            && regions.contains(&x.value.as_str())
                    })
                })
                .copied()
                .unwrap_or(all[0]);
            let sets: Vec<String> = STRONG_REGION_SETS
                .iter()
                .map(|(name, regions)| format!("{name}: {}", regions.join(", ")))
                .collect();
            self.error(
                Diagnostic::new(
                    Code::InvalidValue,
                    format!("`{stray}` is not in the Region set of the other replicas"),
                )
                .label(stray.span, "outside the set")
                .label(at, "strong consistency")
                .help(format!(
                    "every replica and the witness of a strongly consistent table lie in one Region set ({})",
                    sets.join("; ")
                )),
            );
        }
    }

    /// The statements of the resource-based policy, checked, in IAM's
    /// order of fields; the whole document within DynamoDB's 20 KB.
    pub(super) fn resolve_resource_policy(
        &mut self,
        decl: &Spanned<Vec<Spanned<StatementDecl>>>,
        table: &str,
    ) -> Vec<Map<String, Value>> {
        if decl.value.is_empty() {
            self.error(
                Diagnostic::new(Code::InvalidValue, "an empty resource policy")
                    .label(decl.span, "resource_policy")
                    .help("DynamoDB refuses a policy without statements: add one, or remove `resource_policy`"),
            );
            return Vec::new();
        }
        let statements: Vec<Map<String, Value>> = decl
            .value
            .iter()
            .map(|s| self.resolve_statement(s, table))
            .collect();
        let bytes = ir::resource_policy_document(&statements).to_string().len();
        if bytes > MAX_RESOURCE_POLICY_BYTES {
            self.error(
                Diagnostic::new(
                    Code::InvalidBounds,
                    format!("the resource policy is {bytes} bytes, over DynamoDB's 20 KB ({MAX_RESOURCE_POLICY_BYTES} bytes)"),
                )
                .label(decl.span, "resource_policy")
                .help("DynamoDB refuses a larger policy, whitespace included (the outputs write it without any): merge statements, or name actions with wildcards"),
            );
        }
        statements
    }

    fn resolve_statement(
        &mut self,
        decl: &Spanned<StatementDecl>,
        table: &str,
    ) -> Map<String, Value> {
        let s = &decl.value;
        if !matches!(s.effect.value.as_str(), "Allow" | "Deny") {
            self.error(
                Diagnostic::new(
                    Code::InvalidValue,
                    format!("`Effect: {}` is neither `Allow` nor `Deny`", s.effect.value),
                )
                .label(s.effect.span, "Effect")
                .help("write `Effect: Allow` or `Effect: Deny`"),
            );
        }
        let pairs = [
            (&s.principal, &s.not_principal, "Principal", "a resource-based policy says whom each statement is about: `Principal: \"*\"`, or `Principal: { AWS: <ARN> }`"),
            (&s.action, &s.not_action, "Action", "name the DynamoDB actions: `Action: dynamodb:Scan`, or a list"),
        ];
        for (one, not, field, help) in pairs {
            if one.is_some() == not.is_some() {
                self.error(
                    Diagnostic::new(
                        Code::InvalidValue,
                        format!("a statement needs exactly one of `{field}` and `Not{field}`"),
                    )
                    .label(decl.span, "this statement")
                    .help(help),
                );
            }
        }
        for value in [&s.action, &s.not_action].into_iter().flatten() {
            self.check_actions(value);
        }
        for value in [&s.principal, &s.not_principal].into_iter().flatten() {
            let ok = value.value == "*"
                || value.value.as_object().is_some_and(|m| {
                    !m.is_empty()
                        && m.iter().all(|(k, v)| {
                            matches!(k.as_str(), "AWS" | "Service" | "Federated")
                                && strings(v).is_some()
                        })
                });
            if !ok {
                self.error(
                    Diagnostic::new(Code::InvalidValue, "not a principal")
                        .label(value.span, "this principal")
                        .help("write `\"*\"`, or a map from `AWS`, `Service` or `Federated` to one name or a list"),
                );
            }
        }
        if let Some(resource) = &s.resource {
            self.check_resources(resource, table);
        }
        if let Some(condition) = &s.condition {
            let ok = condition.value.as_object().is_some_and(|m| {
                m.values()
                    .all(|v| v.as_object().is_some_and(|keys| !keys.is_empty()))
            });
            if !ok {
                self.error(
                    Diagnostic::new(Code::InvalidValue, "not a condition block")
                        .label(condition.span, "Condition")
                        .help("write IAM's shape: an operator mapping keys to values, `{ ArnNotEquals: { \"aws:PrincipalArn\": <ARN> } }`"),
                );
            }
        }
        if let Some(sid) = &s.sid {
            if sid.value.is_empty() || !sid.value.chars().all(|c| c.is_ascii_alphanumeric()) {
                self.error(
                    Diagnostic::new(
                        Code::InvalidValue,
                        format!("`Sid: {}` is not an IAM statement id", sid.value),
                    )
                    .label(sid.span, "Sid")
                    .help("a statement id is letters and digits only"),
                );
            }
        }
        let mut out = Map::new();
        let fields = [
            (
                "Sid",
                s.sid.as_ref().map(|v| Value::String(v.value.clone())),
            ),
            ("Effect", Some(Value::String(s.effect.value.clone()))),
            ("Principal", s.principal.as_ref().map(|v| v.value.clone())),
            (
                "NotPrincipal",
                s.not_principal.as_ref().map(|v| v.value.clone()),
            ),
            ("Action", s.action.as_ref().map(|v| v.value.clone())),
            ("NotAction", s.not_action.as_ref().map(|v| v.value.clone())),
            ("Resource", s.resource.as_ref().map(|v| v.value.clone())),
            ("Condition", s.condition.as_ref().map(|v| v.value.clone())),
        ];
        for (name, value) in fields {
            if let Some(value) = value {
                out.insert(name.to_owned(), value);
            }
        }
        out
    }

    fn check_actions(&mut self, value: &Spanned<Value>) {
        let Some(actions) = strings(&value.value) else {
            self.error(
                Diagnostic::new(
                    Code::InvalidValue,
                    "actions are one string or a list of strings",
                )
                .label(value.span, "these actions")
                .help("write `dynamodb:Scan`, or a list such as `[dynamodb:Scan, dynamodb:Query]`"),
            );
            return;
        };
        for action in actions {
            let name = action
                .get(..9)
                .filter(|p| p.eq_ignore_ascii_case("dynamodb:"))
                .map(|_| &action[9..]);
            let known = ACTIONS.iter().any(|a| names_action(action, a));
            if !known {
                let why = "a table's resource-based policy names DynamoDB's own actions, `dynamodb:<Action>` (wildcards allowed)";
                let help = match name.and_then(|n| did_you_mean(n, ACTIONS.iter().copied())) {
                    Some(close) => format!("did you mean `dynamodb:{close}`? ({why})"),
                    None => why.to_owned(),
                };
                self.error(
                    Diagnostic::new(
                        Code::InvalidValue,
                        format!("`{action}` names no DynamoDB action on a table"),
                    )
                    .label(value.span, "these actions")
                    .help(help),
                );
            }
        }
    }

    /// A statement's own `Resource`: the table, its indexes or its stream,
    /// by ARN (any Region and account), or `*`.
    fn check_resources(&mut self, value: &Spanned<Value>, table: &str) {
        let ok = strings(&value.value).is_some_and(|resources| {
            resources.iter().all(|r| {
                if *r == "*" {
                    return true;
                }
                let fields: Vec<&str> = r.splitn(6, ':').collect();
                let path = fields.get(5).copied().unwrap_or("");
                fields.len() == 6
                    && fields[0] == "arn"
                    && fields[2] == "dynamodb"
                    && (path == format!("table/{table}")
                        || path.starts_with(&format!("table/{table}/index/"))
                        || path.starts_with(&format!("table/{table}/stream/")))
            })
        });
        if !ok {
            self.error(
                Diagnostic::new(Code::InvalidValue, format!("a resource that is not table `{table}`, its indexes or its stream"))
                    .label(value.span, "Resource")
                    .help(format!("a table's policy is about that table: leave `Resource` out (`*`: the table and its indexes), or write `arn:aws:dynamodb:<region>:<account>:table/{table}`, with `/index/*` or `/stream/*` for those")),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_and_globs() {
        for ok in [
            "us-east-1",
            "eu-central-2",
            "us-gov-west-1",
            "ap-southeast-7",
        ] {
            assert!(is_region(ok), "{ok}");
        }
        for bad in [
            "us-east",
            "US-EAST-1",
            "useast1",
            "us--1",
            "u-east-1",
            "us-east-x",
        ] {
            assert!(!is_region(bad), "{bad}");
        }
        assert!(glob("Get*", "GetItem"));
        assert!(glob("*", "Scan"));
        assert!(glob("partiql?elect", "PartiQLSelect"));
        assert!(!glob("Get*", "Query"));
        assert!(!glob("Scans", "Scan"));
    }
}
