//! A typed model of the IAM policy documents singletable writes: serde
//! types that serialize to exactly the JSON IAM reads, with newtypes that
//! can only hold valid (and, for key patterns, escaped) values.

use serde::{Serialize, Serializer};

/// An IAM policy document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct PolicyDocument {
    /// Always `2012-10-17`, the version that supports policy variables.
    pub version: PolicyVersion,
    /// The statements.
    pub statement: Vec<Statement>,
}

/// The policy language version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum PolicyVersion {
    /// `2012-10-17`: policy variables such as `${aws:PrincipalTag/TenantId}` work.
    #[serde(rename = "2012-10-17")]
    V2012_10_17,
}

/// One statement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct Statement {
    /// Statement id (letters and digits).
    pub sid: Sid,
    /// Allow or Deny.
    pub effect: Effect,
    /// The DynamoDB actions.
    pub action: Vec<Action>,
    /// Table and index ARNs.
    pub resource: Vec<Arn>,
    /// Conditions; omitted when there are none.
    #[serde(skip_serializing_if = "Condition::is_empty")]
    pub condition: Condition,
}

/// A statement's effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Effect {
    /// Grants.
    Allow,
    /// Refuses, whatever other policies grant.
    Deny,
}

/// A statement id: letters and digits only, as IAM requires.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Sid(String);

impl Sid {
    /// A statement id from letters and digits; other characters are dropped.
    pub fn new(text: &str) -> Sid {
        Sid(text.chars().filter(char::is_ascii_alphanumeric).collect())
    }

    /// The id.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The DynamoDB actions singletable's policies name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Action {
    /// `dynamodb:GetItem`
    GetItem,
    /// `dynamodb:BatchGetItem`
    BatchGetItem,
    /// `dynamodb:Query`
    Query,
    /// `dynamodb:PutItem` (also a transaction's Put)
    PutItem,
    /// `dynamodb:UpdateItem` (also a transaction's Update)
    UpdateItem,
    /// `dynamodb:DeleteItem` (also a transaction's Delete)
    DeleteItem,
    /// `dynamodb:BatchWriteItem`
    BatchWriteItem,
    /// `dynamodb:ConditionCheckItem` (a transaction's ConditionCheck)
    ConditionCheckItem,
    /// `dynamodb:Scan`: denied, except to a role that lists scans, on what it scans.
    Scan,
    /// `dynamodb:PartiQLSelect`: only ever denied, for full-table scans.
    PartiQLSelect,
    /// `dynamodb:CreateTable`: a migration job's control table only.
    CreateTable,
    /// `dynamodb:DescribeTable`: a migration job's control table only.
    DescribeTable,
    /// `dynamodb:DescribeStream`: the stream handler's table stream.
    DescribeStream,
    /// `dynamodb:GetRecords`: the stream handler's table stream.
    GetRecords,
    /// `dynamodb:GetShardIterator`: the stream handler's table stream.
    GetShardIterator,
    /// `dynamodb:ListStreams`: the stream handler (IAM grants it on `*` only).
    ListStreams,
}

impl Action {
    /// The action's name without the service prefix.
    pub fn name(self) -> &'static str {
        match self {
            Action::GetItem => "GetItem",
            Action::BatchGetItem => "BatchGetItem",
            Action::Query => "Query",
            Action::PutItem => "PutItem",
            Action::UpdateItem => "UpdateItem",
            Action::DeleteItem => "DeleteItem",
            Action::BatchWriteItem => "BatchWriteItem",
            Action::ConditionCheckItem => "ConditionCheckItem",
            Action::Scan => "Scan",
            Action::PartiQLSelect => "PartiQLSelect",
            Action::CreateTable => "CreateTable",
            Action::DescribeTable => "DescribeTable",
            Action::DescribeStream => "DescribeStream",
            Action::GetRecords => "GetRecords",
            Action::GetShardIterator => "GetShardIterator",
            Action::ListStreams => "ListStreams",
        }
    }
}

impl Serialize for Action {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("dynamodb:{}", self.name()))
    }
}

/// A DynamoDB table or index ARN, built by [`super::AwsTarget`] from
/// validated parts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Arn(pub(super) String);

impl Arn {
    /// The ARN.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A `dynamodb:LeadingKeys` pattern for `StringLike`: literal text with `*`,
/// `?` and `$` escaped as `${*}`, `${?}`, `${$}`, the tenant (a principal-tag
/// variable or an id) and an optional trailing `*`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct KeyPattern(pub(super) String);

impl KeyPattern {
    /// The pattern as IAM reads it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Writes `text` so that `StringLike` matches it literally.
pub fn escape_literal(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '*' => out.push_str("${*}"),
            '?' => out.push_str("${?}"),
            '$' => out.push_str("${$}"),
            c => out.push(c),
        }
    }
}

/// A statement's conditions.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Condition {
    /// Every partition key of the request matches one of the patterns.
    #[serde(
        rename = "ForAllValues:StringLike",
        skip_serializing_if = "Option::is_none"
    )]
    pub for_all_values_string_like: Option<LeadingKeys<Vec<KeyPattern>>>,
    /// Some partition key of the request matches one of the patterns (a
    /// Deny's condition).
    #[serde(
        rename = "ForAnyValue:StringLike",
        skip_serializing_if = "Option::is_none"
    )]
    pub for_any_value_string_like: Option<LeadingKeys<Vec<KeyPattern>>>,
    /// The request has partition keys at all: `ForAllValues` alone holds
    /// for a request without keys, such as a Scan.
    #[serde(rename = "Null", skip_serializing_if = "Option::is_none")]
    pub null: Option<LeadingKeys<IamBool>>,
    /// A PartiQL statement reads the whole table.
    #[serde(rename = "Bool", skip_serializing_if = "Option::is_none")]
    pub bool: Option<FullTableScan>,
    /// Every attribute the request names is one of these.
    #[serde(
        rename = "ForAllValues:StringEquals",
        skip_serializing_if = "Option::is_none"
    )]
    pub for_all_values_string_equals: Option<AttributeNames>,
}

impl Condition {
    /// Whether no condition is set.
    pub fn is_empty(&self) -> bool {
        self.for_all_values_string_like.is_none()
            && self.for_any_value_string_like.is_none()
            && self.null.is_none()
            && self.bool.is_none()
            && self.for_all_values_string_equals.is_none()
    }
}

/// `{"dynamodb:Attributes": […]}`: the top-level attribute names a request
/// may name (keys, update and condition expressions).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AttributeNames {
    /// The names.
    #[serde(rename = "dynamodb:Attributes")]
    pub attributes: Vec<String>,
}

/// `{"dynamodb:LeadingKeys": …}`
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LeadingKeys<T> {
    /// The value compared with the request's partition keys.
    #[serde(rename = "dynamodb:LeadingKeys")]
    pub leading_keys: T,
}

/// `{"dynamodb:FullTableScan": …}`
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FullTableScan {
    /// Whether the statement scans the whole table.
    #[serde(rename = "dynamodb:FullTableScan")]
    pub full_table_scan: IamBool,
}

/// `"true"` or `"false"`, as IAM writes booleans in conditions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum IamBool {
    /// `"true"`
    #[serde(rename = "true")]
    True,
    /// `"false"`
    #[serde(rename = "false")]
    False,
}
