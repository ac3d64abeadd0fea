//! Access patterns as written: queries, scans, filters, transactions, batches and roles.

use super::*;

/// An access pattern: exactly one of `get`, `query`, `scan`, `transaction`, `batch`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AccessPatternDecl {
    /// The requirement, e.g. "As a user, I want to get a single ticket and all comments."
    #[serde(default)]
    pub description: Option<Spanned<String>>,
    /// The index queried (default: the table).
    #[serde(default)]
    pub index: Option<Spanned<String>>,
    /// GetItem of one entity by its full primary key.
    #[serde(default)]
    pub get: Option<Spanned<String>>,
    /// A Query with an equality on the partition key and an optional sort-key condition.
    #[serde(default)]
    pub query: Option<Spanned<QueryDecl>>,
    /// A Scan of the table (or `index`) returning the items of one entity:
    /// for global data read by an admin role, never through a tenant's
    /// handle.
    #[serde(default)]
    pub scan: Option<Spanned<String>>,
    /// A TransactWriteItems over the listed entities.
    #[serde(default)]
    pub transaction: Option<Spanned<TransactionDecl>>,
    /// BatchGetItem / BatchWriteItem over the listed entities.
    #[serde(default)]
    pub batch: Option<Spanned<BatchDecl>>,
    /// The entity types a query returns (inferred from the key templates when omitted).
    #[serde(default)]
    pub returns: Option<Spanned<OneOrMany>>,
    /// `ascending` (default) or `descending` sort-key order.
    #[serde(default)]
    pub order: Option<Spanned<Order>>,
    /// Strongly consistent reads (table and local indexes only).
    #[serde(default)]
    pub consistent_read: Option<Spanned<bool>>,
    /// The attributes a get or query reads (a ProjectionExpression): the
    /// method returns a partial type holding exactly them.
    #[serde(default)]
    pub select: Option<Spanned<Vec<Spanned<String>>>>,
    /// A query's or scan's filter: per attribute, one condition on it, and
    /// `and`, `or`, `not` over filters; all entries must hold (a
    /// FilterExpression, applied after the key condition has read the
    /// items).
    #[serde(default)]
    pub filter: Option<Spanned<FilterMap>>,
    /// Expected request rate, for capacity and cost figures.
    #[serde(default)]
    pub rate: Option<Spanned<RateDecl>>,
}

/// A YAML scalar as written: text, a number or a boolean.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Scalar {
    /// A string.
    Text(String),
    /// A number, as written.
    Number(#[schemars(with = "f64")] String),
    /// A boolean.
    Bool(bool),
}

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Scalar;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string, a number or a boolean")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Scalar, E> {
                Ok(Scalar::Text(v.to_owned()))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Scalar, E> {
                Ok(Scalar::Number(v.to_string()))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Scalar, E> {
                Ok(Scalar::Number(v.to_string()))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Scalar, E> {
                Ok(Scalar::Number(v.to_string()))
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Scalar, E> {
                Ok(Scalar::Bool(v))
            }
        }
        d.deserialize_any(V)
    }
}

/// A query's key condition.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QueryDecl {
    /// The partition key value, a template: `TENANT#<tenant>|TICKET#<id>`.
    pub pk: Spanned<String>,
    /// The sort-key condition: a template (equality) or one operator.
    #[serde(default)]
    pub sk: Option<Spanned<SortConditionDecl>>,
}

/// A sort-key condition: a template (shorthand for `equals`) or exactly one operator.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct SortConditionDecl {
    /// `sk = :v`
    pub equals: Option<Spanned<String>>,
    /// `begins_with(sk, :v)`
    pub begins_with: Option<Spanned<String>>,
    /// `sk BETWEEN :a AND :b`
    pub between: Option<Spanned<Vec<Spanned<String>>>>,
    /// `sk < :v`
    pub lt: Option<Spanned<String>>,
    /// `sk <= :v`
    pub lte: Option<Spanned<String>>,
    /// `sk > :v`
    pub gt: Option<Spanned<String>>,
    /// `sk >= :v`
    pub gte: Option<Spanned<String>>,
}

/// The long form of [`SortConditionDecl`].
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SortConditionFull {
    /// `sk = :v`
    #[serde(default)]
    pub equals: Option<Spanned<String>>,
    /// `begins_with(sk, :v)`
    #[serde(default)]
    pub begins_with: Option<Spanned<String>>,
    /// `sk BETWEEN :a AND :b`: two templates.
    #[serde(default)]
    pub between: Option<Spanned<Vec<Spanned<String>>>>,
    /// `sk < :v`
    #[serde(default, alias = "<")]
    pub lt: Option<Spanned<String>>,
    /// `sk <= :v`
    #[serde(default, alias = "<=")]
    pub lte: Option<Spanned<String>>,
    /// `sk > :v`
    #[serde(default, alias = ">")]
    pub gt: Option<Spanned<String>>,
    /// `sk >= :v`
    #[serde(default, alias = ">=")]
    pub gte: Option<Spanned<String>>,
}

impl Shorthand for SortConditionDecl {
    type Full = SortConditionFull;
    const EXPECTING: &'static str =
        "a sort key template or one of { equals, begins_with, between, lt, lte, gt, gte }";
    fn from_str(s: &str) -> Self {
        SortConditionDecl {
            equals: Some(Spanned::dummy(s.to_owned())),
            ..SortConditionDecl::default()
        }
    }
    fn from_full(f: SortConditionFull) -> Self {
        SortConditionDecl {
            equals: f.equals,
            begins_with: f.begins_with,
            between: f.between,
            lt: f.lt,
            lte: f.lte,
            gt: f.gt,
            gte: f.gte,
        }
    }
}

/// Sort order of query results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// Ascending sort key (DynamoDB's default).
    Ascending,
    /// Descending sort key (`ScanIndexForward = false`).
    Descending,
}

/// A write transaction over entities of one tenant.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TransactionDecl {
    /// Entities put unconditionally.
    #[serde(default)]
    pub put: Option<Spanned<OneOrMany>>,
    /// Entities created (put on condition that the item does not exist).
    #[serde(default)]
    pub create: Option<Spanned<OneOrMany>>,
    /// Entities updated.
    #[serde(default)]
    pub update: Option<Spanned<OneOrMany>>,
    /// Entities deleted.
    #[serde(default)]
    pub delete: Option<Spanned<OneOrMany>>,
    /// Entities whose condition is checked without writing them.
    #[serde(default)]
    pub condition_check: Option<Spanned<OneOrMany>>,
    /// The most items one call may carry (at most 100, DynamoDB's limit; default 100).
    #[serde(default)]
    pub max_items: Option<Spanned<u32>>,
}

/// A batch over entities of one tenant.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BatchDecl {
    /// Entities read with BatchGetItem (100 keys per call).
    #[serde(default)]
    pub get: Option<Spanned<OneOrMany>>,
    /// Entities written with BatchWriteItem puts (25 items per call).
    #[serde(default)]
    pub put: Option<Spanned<OneOrMany>>,
    /// Entities deleted with BatchWriteItem deletes.
    #[serde(default)]
    pub delete: Option<Spanned<OneOrMany>>,
}

/// A role: one kind of principal and the access patterns it may run.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RoleDecl {
    /// Who holds the role, e.g. "A tenant's administrator: reads aggregates, never writes tickets."
    #[serde(default)]
    pub description: Option<Spanned<String>>,
    /// The access patterns the role may run, by name. Its IAM policy grants
    /// their actions and indexes only (no entity reads or writes besides them).
    pub access_patterns: Spanned<OneOrMany>,
}

/// Expected rate of an access pattern.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RateDecl {
    /// Calls per second at peak.
    pub per_second: Spanned<f64>,
    /// Items a call typically reads or writes (default 1).
    #[serde(default)]
    pub items: Option<Spanned<u64>>,
}
