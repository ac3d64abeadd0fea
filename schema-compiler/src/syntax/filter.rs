//! Filters as written: conditions on attributes, combined with `and`, `or`
//! and `not`; the grammar of a query's or scan's `filter` and of an
//! entity's named write conditions.

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

use super::Scalar;
use crate::source::Spanned;

/// A filter: entries that must all hold, each a condition on an attribute
/// (`status: { equals: open }`) or one of the words `and` (a list of
/// filters that all hold), `or` (a list of filters of which one holds) and
/// `not` (a filter that does not hold). In a filter these three words are
/// never attribute names.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FilterMap(pub Vec<(Spanned<String>, FilterEntry)>);

/// One entry of a [`FilterMap`].
#[derive(Debug, Clone, PartialEq)]
pub enum FilterEntry {
    /// A condition on the attribute the entry's key names.
    Attribute(Box<Spanned<FilterDecl>>),
    /// `and: [filter, …]`: every filter holds.
    And(Spanned<Vec<Spanned<FilterMap>>>),
    /// `or: [filter, …]`: at least one filter holds.
    Or(Spanned<Vec<Spanned<FilterMap>>>),
    /// `not: filter`: the filter does not hold.
    Not(Spanned<FilterMap>),
}

impl<'de> Deserialize<'de> for FilterMap {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = FilterMap;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a mapping of attributes to conditions, with `and`, `or` and `not`")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<FilterMap, A::Error> {
                let mut entries = Vec::new();
                while let Some(key) = map.next_key::<Spanned<String>>()? {
                    let entry = match key.value.as_str() {
                        "and" => FilterEntry::And(map.next_value()?),
                        "or" => FilterEntry::Or(map.next_value()?),
                        "not" => FilterEntry::Not(map.next_value()?),
                        _ => FilterEntry::Attribute(map.next_value()?),
                    };
                    entries.push((key, entry));
                }
                Ok(FilterMap(entries))
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<FilterMap, E> {
                Ok(FilterMap::default())
            }
        }
        d.deserialize_map(V)
    }
}

impl Serialize for FilterMap {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            match v {
                FilterEntry::Attribute(d) => map.serialize_entry(&k.value, &d.value)?,
                FilterEntry::And(l) | FilterEntry::Or(l) => {
                    let filters: Vec<&FilterMap> = l.value.iter().map(|f| &f.value).collect();
                    map.serialize_entry(&k.value, &filters)?;
                }
                FilterEntry::Not(f) => map.serialize_entry(&k.value, &f.value)?,
            }
        }
        map.end()
    }
}

impl JsonSchema for FilterMap {
    fn schema_name() -> Cow<'static, str> {
        "Filter".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let filter = generator.subschema_for::<FilterMap>();
        let condition = generator.subschema_for::<FilterDecl>();
        schemars::json_schema!({
            "description": "Conditions that must all hold: per attribute, one condition on it; `and`: a list of filters that all hold; `or`: a list of filters of which one holds; `not`: a filter that does not hold.",
            "type": ["object", "null"],
            "properties": {
                "and": { "type": "array", "items": filter, "minItems": 1 },
                "or": { "type": "array", "items": filter, "minItems": 1 },
                "not": filter,
            },
            "additionalProperties": condition,
        })
    }
}

/// A condition on an attribute: exactly one operator. Operands
/// are literals (typed by the attribute) or `<name>`, a parameter of the
/// generated method.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FilterDecl {
    /// `a = :v`
    #[serde(default, alias = "=", deserialize_with = "present")]
    #[schemars(with = "Option<Spanned<Scalar>>")]
    pub equals: Operand<Scalar>,
    /// `a <> :v`
    #[serde(default, alias = "<>", deserialize_with = "present")]
    #[schemars(with = "Option<Spanned<Scalar>>")]
    pub not_equals: Operand<Scalar>,
    /// `a < :v`
    #[serde(default, alias = "<", deserialize_with = "present")]
    #[schemars(with = "Option<Spanned<Scalar>>")]
    pub lt: Operand<Scalar>,
    /// `a <= :v`
    #[serde(default, alias = "<=", deserialize_with = "present")]
    #[schemars(with = "Option<Spanned<Scalar>>")]
    pub lte: Operand<Scalar>,
    /// `a > :v`
    #[serde(default, alias = ">", deserialize_with = "present")]
    #[schemars(with = "Option<Spanned<Scalar>>")]
    pub gt: Operand<Scalar>,
    /// `a >= :v`
    #[serde(default, alias = ">=", deserialize_with = "present")]
    #[schemars(with = "Option<Spanned<Scalar>>")]
    pub gte: Operand<Scalar>,
    /// `a BETWEEN :a AND :b`: two operands.
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "Option<Spanned<Vec<Spanned<Scalar>>>>")]
    pub between: Operand<Vec<Spanned<Scalar>>>,
    /// `a IN (:a, :b, …)`: one to 100 operands.
    #[serde(default, rename = "in", deserialize_with = "present")]
    #[schemars(with = "Option<Spanned<Vec<Spanned<Scalar>>>>")]
    pub is_in: Operand<Vec<Spanned<Scalar>>>,
    /// `begins_with(a, :v)` (strings).
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "Option<Spanned<Scalar>>")]
    pub begins_with: Operand<Scalar>,
    /// `contains(a, :v)`: a substring of a string, an element of a set or list.
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "Option<Spanned<Scalar>>")]
    pub contains: Operand<Scalar>,
    /// `attribute_exists(a)` (`true`) or `attribute_not_exists(a)` (`false`).
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "Option<Spanned<bool>>")]
    pub exists: Operand<bool>,
    /// `attribute_type(a, :t)`: the attribute is stored as this DynamoDB
    /// type (`S`, `N`, `B`, `BOOL`, `NULL`, `L`, `M`, `SS`, `NS`, `BS`).
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "Option<Spanned<String>>")]
    pub attribute_type: Operand<String>,
    /// `size(a)` compared: a condition whose operands are sizes (a string's
    /// or binary's length in bytes, a list's, map's or set's element
    /// count), e.g. `size: { gte: 2 }`.
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "Option<Spanned<Box<FilterDecl>>>")]
    pub size: Operand<Box<FilterDecl>>,
}

/// An operator's operand as written: `None` when the operator is absent,
/// `Some` of `None` when it is given with no value (`equals:`), so that
/// the error can say which operator lacks its operand.
pub type Operand<T> = Option<Spanned<Option<T>>>;

/// Deserializes a key that is present, also when its value is null.
fn present<'de, D, T>(d: D) -> Result<Operand<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Spanned::<Option<T>>::deserialize(d).map(Some)
}
