//! Table settings written as more than a scalar: replicas in other Regions
//! (a global table), the resource-based policy, and warm throughput derived
//! from the declared rates.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::de::{shorthand_impls, Shorthand};
use super::UnitsDecl;
use crate::source::Spanned;

/// A global table: the Regions that hold a replica and how they agree.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplicasDecl {
    /// The Regions holding a replica (`us-east-1`, ...). The first is where
    /// the table is created: the CloudFormation stack's and the Terraform
    /// provider's Region.
    pub regions: Vec<Spanned<String>>,
    /// `eventual` (default: multi-Region eventual consistency) or `strong`
    /// (multi-Region strong consistency: three replicas, or two and a
    /// witness). Fixed when the global table is created.
    #[serde(default)]
    pub consistency: Option<Spanned<Consistency>>,
    /// The Region of the witness of a strongly consistent global table with
    /// two replicas: it takes part in every write and holds no replica.
    #[serde(default)]
    pub witness: Option<Spanned<String>>,
}

/// How a global table's replicas agree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Consistency {
    /// Multi-Region eventual consistency (`EVENTUAL`).
    Eventual,
    /// Multi-Region strong consistency (`STRONG`).
    Strong,
}

/// One statement of the table's resource-based policy, in IAM's own shape
/// (`Effect`, `Principal`, `Action`, `Condition`, ...). Without `Resource`
/// it is about the table and its indexes (`Resource: "*"`).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatementDecl {
    /// The statement's id.
    #[serde(rename = "Sid", default)]
    pub sid: Option<Spanned<String>>,
    /// `Allow` or `Deny`.
    #[serde(rename = "Effect")]
    pub effect: Spanned<String>,
    /// Who the statement is about: `"*"`, `{ AWS: arn }` or `{ AWS: [arns] }`.
    #[serde(rename = "Principal", default)]
    pub principal: Option<Spanned<serde_json::Value>>,
    /// Everyone but these principals.
    #[serde(rename = "NotPrincipal", default)]
    pub not_principal: Option<Spanned<serde_json::Value>>,
    /// The DynamoDB actions (`dynamodb:Scan`), one or a list.
    #[serde(rename = "Action", default)]
    pub action: Option<Spanned<serde_json::Value>>,
    /// Every DynamoDB action but these.
    #[serde(rename = "NotAction", default)]
    pub not_action: Option<Spanned<serde_json::Value>>,
    /// The table's, its indexes' or its stream's ARNs, or `*` (the default:
    /// the table and its indexes).
    #[serde(rename = "Resource", default)]
    pub resource: Option<Spanned<serde_json::Value>>,
    /// Conditions, as IAM writes them.
    #[serde(rename = "Condition", default)]
    pub condition: Option<Spanned<serde_json::Value>>,
}

impl Consistency {
    /// The mode as the spec writes it.
    pub fn name(self) -> &'static str {
        match self {
            Consistency::Eventual => "eventual",
            Consistency::Strong => "strong",
        }
    }
}

/// Warm throughput: `rates` (derived from the declared rates) or units.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum WarmDecl {
    /// Derived from the entities' `throughput` and the patterns' `rate`.
    Rates,
    /// Units per second as written.
    Units(UnitsDecl),
    /// A word that is not `rates`; resolve reports it.
    Unknown(String),
}

impl Shorthand for WarmDecl {
    type Full = UnitsDecl;
    const EXPECTING: &'static str = "`rates` or { read, write }";
    fn from_str(s: &str) -> Self {
        if s == "rates" {
            WarmDecl::Rates
        } else {
            WarmDecl::Unknown(s.to_owned())
        }
    }
    fn from_full(full: UnitsDecl) -> Self {
        WarmDecl::Units(full)
    }
}
shorthand_impls!(WarmDecl, "WarmThroughput", json!({ "enum": ["rates"] }));
