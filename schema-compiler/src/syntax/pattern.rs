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
    /// A TransactWriteItems over the listed entities, or a TransactGetItems
    /// (`get`).
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
    /// The partition key value, a template: `TENANT#<tenant>|TICKET#<id>`;
    /// for a multi-attribute partition key, a template per attribute by
    /// name: `{ tenant_id: "<tenant>", status: "<status>" }`.
    pub pk: Spanned<PartitionValueDecl>,
    /// The sort-key condition: a template (equality) or one operator; for a
    /// multi-attribute sort key, a condition per attribute by name, from
    /// the first with no gap, only the last named not an equality:
    /// `{ priority: "<priority>", created_at: { gte: "<since>" } }`.
    #[serde(default)]
    pub sk: Option<Spanned<SortKeyDecl>>,
}

/// A query's partition-key value.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum PartitionValueDecl {
    /// A template.
    Template(String),
    /// A template per attribute of a multi-attribute partition key.
    Parts(NamedMap<String>),
}

impl<'de> Deserialize<'de> for PartitionValueDecl {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = PartitionValueDecl;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a partition key template, or a template per key attribute")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Self::Value, E> {
                Ok(PartitionValueDecl::Template(s.to_owned()))
            }
            super::de::scalars_as_text!();
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<Self::Value, A::Error> {
                NamedMap::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(PartitionValueDecl::Parts)
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for PartitionValueDecl {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "PartitionValue".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "anyOf": [
                { "type": "string" },
                { "type": "object", "additionalProperties": { "type": "string" } }
            ]
        })
    }
}

/// A query's sort-key condition: one condition on the sort key, or one per
/// attribute of a multi-attribute sort key.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SortKeyDecl {
    /// A condition on the sort key (the first attribute of a multi-attribute one).
    Condition(Box<SortConditionDecl>),
    /// A condition per attribute of a multi-attribute sort key, by name.
    Parts(NamedMap<SortConditionDecl>),
}

/// The sort-key operators, as a condition's keys name them.
pub(crate) const SORT_OPERATORS: &[&str] = &[
    "equals",
    "begins_with",
    "between",
    "lt",
    "lte",
    "gt",
    "gte",
    "<",
    "<=",
    ">",
    ">=",
];

/// A value under a key of a sort-key condition map, before it is known
/// whether the keys are operators or attribute names.
enum SortValue {
    Text(String),
    List(Vec<Spanned<String>>),
    Condition(Box<SortConditionDecl>),
}

impl<'de> Deserialize<'de> for SortValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = SortValue;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a template, a list of two templates, or one operator")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Self::Value, E> {
                Ok(SortValue::Text(s.to_owned()))
            }
            super::de::scalars_as_text!();
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(item) = seq.next_element()? {
                    out.push(item);
                }
                Ok(SortValue::List(out))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<Self::Value, A::Error> {
                SortConditionFull::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(|f| SortValue::Condition(Box::new(SortConditionDecl::from_full(f))))
            }
        }
        d.deserialize_any(V)
    }
}

impl SortKeyDecl {
    /// A condition map whose keys are all operators, or all attribute names.
    fn from_entries<E: serde::de::Error>(
        entries: Vec<(Spanned<String>, Spanned<SortValue>)>,
    ) -> Result<Self, E> {
        let operators = entries
            .iter()
            .filter(|(k, _)| SORT_OPERATORS.contains(&k.as_str()))
            .count();
        if operators == entries.len() {
            let mut c = SortConditionDecl::default();
            for (key, value) in entries {
                let span = value.span;
                let slot = match key.as_str() {
                    "equals" => &mut c.equals,
                    "begins_with" => &mut c.begins_with,
                    "lt" | "<" => &mut c.lt,
                    "lte" | "<=" => &mut c.lte,
                    "gt" | ">" => &mut c.gt,
                    "gte" | ">=" => &mut c.gte,
                    _ => {
                        let SortValue::List(list) = value.value else {
                            return Err(E::custom("`between` takes a list of two templates"));
                        };
                        c.between = Some(Spanned::new(list, span));
                        continue;
                    }
                };
                let SortValue::Text(text) = value.value else {
                    return Err(E::custom(format!("`{key}` takes one template")));
                };
                *slot = Some(Spanned::new(text, span));
            }
            return Ok(SortKeyDecl::Condition(Box::new(c)));
        }
        if operators > 0 {
            return Err(E::custom(
                "a sort-key condition is one operator, or one condition per sort key attribute by name, not both",
            ));
        }
        let mut parts = Vec::new();
        for (key, value) in entries {
            let span = value.span;
            let condition = match value.value {
                SortValue::Text(text) => SortConditionDecl {
                    equals: Some(Spanned::new(text, span)),
                    ..SortConditionDecl::default()
                },
                SortValue::Condition(c) => *c,
                SortValue::List(_) => {
                    return Err(E::custom(format!(
                        "the condition on `{key}` is a template or one operator, not a list"
                    )))
                }
            };
            parts.push((key, Spanned::new(condition, span)));
        }
        Ok(SortKeyDecl::Parts(NamedMap(parts)))
    }
}

impl<'de> Deserialize<'de> for SortKeyDecl {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = SortKeyDecl;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(
                    "a sort key template, one of { equals, begins_with, between, lt, lte, gt, gte }, or a condition per sort key attribute",
                )
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Self::Value, E> {
                Ok(SortKeyDecl::Condition(Box::new(
                    SortConditionDecl::from_str(s),
                )))
            }
            super::de::scalars_as_text!();
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                let mut entries = Vec::new();
                while let Some(key) = map.next_key::<Spanned<String>>()? {
                    entries.push((key, map.next_value::<Spanned<SortValue>>()?));
                }
                SortKeyDecl::from_entries(entries)
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for SortKeyDecl {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SortKey".into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let one = generator.subschema_for::<SortConditionDecl>();
        schemars::json_schema!({
            "anyOf": [
                one,
                { "type": "object", "additionalProperties": one }
            ]
        })
    }
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

/// A transaction over entities of one tenant: writes (TransactWriteItems),
/// or reads (`get`: TransactGetItems), never both.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TransactionDecl {
    /// Entities read together, as of one moment (TransactGetItems); a read
    /// transaction writes nothing.
    #[serde(default)]
    pub get: Option<Spanned<OneOrMany>>,
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
