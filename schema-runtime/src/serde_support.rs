//! serde for generated types (feature `serde`).
//!
//! A build script that asks for it (`Compiler::serde`) gets entities, keys,
//! partial entities, typed maps, collections and enums that derive
//! `Serialize` and `Deserialize` through this crate's serde (no serde
//! dependency of your own is needed): names as stored (or a rename rule),
//! enum values as stored. Values of the SDK's types, which have no serde
//! support of their own, go through [`Adapt`]: a `DateTime` is an RFC 3339
//! string, a `Blob` and each element of a binary set a base64 string, and
//! an untyped map or list holds DynamoDB JSON (`{"S": "…"}`), which keeps
//! every type apart. A [`Decimal`] is its exact decimal
//! string, written with the scale its attribute declares (`"120.00"` for
//! `scale: 2`, through [`Scale`]).

use std::collections::BTreeSet;
use std::fmt;

use base64::Engine as _;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};

use crate::sdk::primitives::{Blob, DateTime, DateTimeFormat};
use crate::sdk::types::AttributeValue;
use crate::{Decimal, Item};

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

impl Serialize for Decimal {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for Decimal {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Decimal;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a decimal number as a string")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Decimal, E> {
                v.parse().map_err(E::custom)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Decimal, E> {
                Ok(Decimal::from(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Decimal, E> {
                v.to_string().parse().map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

/// A value holding decimals that serializes them at a declared scale
/// (`scale: 2` writes `120` as `"120.00"`): a decimal, an optional one, or
/// a list of them. Reading accepts any decimal text or JSON integer.
pub trait Scaled {
    /// Writes the value with every decimal at `scale` digits or more.
    fn serialize_scaled<S: Serializer>(&self, scale: u32, s: S) -> Result<S::Ok, S::Error>;
}

impl Scaled for Decimal {
    fn serialize_scaled<S: Serializer>(&self, scale: u32, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string_with_scale(scale))
    }
}

/// One value of a [`Scaled`] container, at the container's scale.
struct AtScale<'a, T>(&'a T, u32);

impl<T: Scaled> Serialize for AtScale<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize_scaled(self.1, s)
    }
}

impl<T: Scaled> Scaled for Option<T> {
    fn serialize_scaled<S: Serializer>(&self, scale: u32, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Some(value) => s.serialize_some(&AtScale(value, scale)),
            None => s.serialize_none(),
        }
    }
}

impl<T: Scaled> Scaled for Vec<T> {
    fn serialize_scaled<S: Serializer>(&self, scale: u32, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.len()))?;
        for value in self {
            seq.serialize_element(&AtScale(value, scale))?;
        }
        seq.end()
    }
}

/// `#[serde(serialize_with = "…::Scale::<2>::serialize")]` of a field
/// whose decimals the spec declares with `scale: 2`.
pub struct Scale<const DIGITS: u32>;

impl<const DIGITS: u32> Scale<DIGITS> {
    /// Serializes `value` with its decimals at `DIGITS` digits after the point.
    pub fn serialize<T: Scaled, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
        value.serialize_scaled(DIGITS, s)
    }
}

/// serde for a value type without serde support of its own; the
/// generated code names it as `#[serde(with = "…::adapt")]`.
pub trait Adapt: Sized {
    /// Writes the value.
    fn ser<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error>;
    /// Reads the value.
    fn de<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error>;
}

/// `#[serde(with = "adapt")]` of any [`Adapt`] type.
pub mod adapt {
    use super::*;

    /// Serializes `value` as [`Adapt`] says.
    pub fn serialize<T: Adapt, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
        value.ser(s)
    }

    /// Deserializes a value as [`Adapt`] says.
    pub fn deserialize<'de, T: Adapt, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
        T::de(d)
    }
}

/// Serializes an [`Adapt`] value through `Serialize`.
struct Ser<'a, T>(&'a T);

impl<T: Adapt> Serialize for Ser<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.ser(s)
    }
}

/// Deserializes an [`Adapt`] value through `Deserialize`.
struct De<T>(T);

impl<'de, T: Adapt> Deserialize<'de> for De<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        T::de(d).map(De)
    }
}

impl Adapt for DateTime {
    fn ser<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let text = self
            .fmt(DateTimeFormat::DateTime)
            .map_err(serde::ser::Error::custom)?;
        s.serialize_str(&text)
    }
    fn de<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        DateTime::from_str(&text, DateTimeFormat::DateTime).map_err(de::Error::custom)
    }
}

impl Adapt for Blob {
    fn ser<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&B64.encode(self.as_ref()))
    }
    fn de<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        B64.decode(text).map(Blob::new).map_err(de::Error::custom)
    }
}

impl<T: Adapt> Adapt for Option<T> {
    fn ser<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Some(v) => s.serialize_some(&Ser(v)),
            None => s.serialize_none(),
        }
    }
    fn de<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Option::<De<T>>::deserialize(d)?.map(|De(v)| v))
    }
}

impl<T: Adapt> Adapt for Vec<T> {
    fn ser<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.len()))?;
        for v in self {
            seq.serialize_element(&Ser(v))?;
        }
        seq.end()
    }
    fn de<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Vec::<De<T>>::deserialize(d)?
            .into_iter()
            .map(|De(v)| v)
            .collect())
    }
}

/// A binary set: base64 strings.
impl Adapt for BTreeSet<Vec<u8>> {
    fn ser<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter().map(|b| B64.encode(b)))
    }
    fn de<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<String>::deserialize(d)?
            .into_iter()
            .map(|t| B64.decode(t).map_err(de::Error::custom))
            .collect()
    }
}

/// An untyped map: attribute name → DynamoDB JSON.
impl Adapt for Item {
    fn ser<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut names: Vec<&String> = self.keys().collect();
        names.sort_unstable();
        let mut map = s.serialize_map(Some(self.len()))?;
        for name in names {
            map.serialize_entry(name, &Ser(&self[name]))?;
        }
        map.end()
    }
    fn de<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(
            std::collections::BTreeMap::<String, De<AttributeValue>>::deserialize(d)?
                .into_iter()
                .map(|(k, De(v))| (k, v))
                .collect(),
        )
    }
}

/// One value in DynamoDB JSON: `{"S": "x"}`, `{"N": "1"}`, `{"B": base64}`,
/// `{"BOOL": true}`, `{"NULL": true}`, `{"M": {…}}`, `{"L": […]}`,
/// `{"SS": […]}`, `{"NS": […]}`, `{"BS": [base64, …]}`.
impl Adapt for AttributeValue {
    fn ser<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(1))?;
        match self {
            AttributeValue::S(v) => map.serialize_entry("S", v)?,
            AttributeValue::N(v) => map.serialize_entry("N", v)?,
            AttributeValue::B(v) => map.serialize_entry("B", &B64.encode(v.as_ref()))?,
            AttributeValue::Bool(v) => map.serialize_entry("BOOL", v)?,
            AttributeValue::Null(v) => map.serialize_entry("NULL", v)?,
            AttributeValue::M(v) => map.serialize_entry("M", &Ser(v))?,
            AttributeValue::L(v) => map.serialize_entry("L", &Ser(v))?,
            AttributeValue::Ss(v) => map.serialize_entry("SS", v)?,
            AttributeValue::Ns(v) => map.serialize_entry("NS", v)?,
            AttributeValue::Bs(v) => {
                let texts: Vec<String> = v.iter().map(|b| B64.encode(b.as_ref())).collect();
                map.serialize_entry("BS", &texts)?
            }
            other => {
                return Err(serde::ser::Error::custom(format!(
                    "an attribute value of a type this version does not know: {other:?}"
                )))
            }
        }
        map.end()
    }
    fn de<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = AttributeValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a DynamoDB JSON value such as {\"S\": \"text\"}")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AttributeValue, A::Error> {
                let Some(kind) = map.next_key::<String>()? else {
                    return Err(de::Error::invalid_length(0, &self));
                };
                let blob = |t: String| B64.decode(t).map(Blob::new).map_err(de::Error::custom);
                let value = match kind.as_str() {
                    "S" => AttributeValue::S(map.next_value()?),
                    "N" => {
                        let n: String = map.next_value()?;
                        n.parse::<Decimal>().map_err(de::Error::custom)?;
                        AttributeValue::N(n)
                    }
                    "B" => AttributeValue::B(blob(map.next_value()?)?),
                    "BOOL" => AttributeValue::Bool(map.next_value()?),
                    "NULL" => AttributeValue::Null(map.next_value()?),
                    "M" => AttributeValue::M(map.next_value::<De<Item>>()?.0),
                    "L" => AttributeValue::L(map.next_value::<De<Vec<AttributeValue>>>()?.0),
                    "SS" => AttributeValue::Ss(map.next_value()?),
                    "NS" => AttributeValue::Ns(map.next_value()?),
                    "BS" => AttributeValue::Bs(
                        map.next_value::<Vec<String>>()?
                            .into_iter()
                            .map(blob)
                            .collect::<Result<_, _>>()?,
                    ),
                    other => {
                        return Err(de::Error::unknown_variant(
                            other,
                            &["S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"],
                        ))
                    }
                };
                if map.next_key::<de::IgnoredAny>()?.is_some() {
                    return Err(de::Error::custom("a DynamoDB JSON value has one type"));
                }
                Ok(value)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<AttributeValue, A::Error> {
                Err(de::Error::invalid_type(de::Unexpected::Seq, &self))
            }
        }
        d.deserialize_map(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Holder {
        #[serde(with = "adapt")]
        at: DateTime,
        #[serde(with = "adapt", default)]
        maybe: Option<Blob>,
        #[serde(with = "adapt")]
        doc: Item,
        #[serde(with = "adapt")]
        sets: BTreeSet<Vec<u8>>,
        price: Decimal,
    }

    #[test]
    fn values_round_trip_through_json() {
        let doc = Item::from([
            ("a".to_owned(), AttributeValue::S("x".into())),
            ("n".to_owned(), AttributeValue::N("-1.50".into())),
            (
                "l".to_owned(),
                AttributeValue::L(vec![
                    AttributeValue::Bool(true),
                    AttributeValue::Null(true),
                    AttributeValue::Bs(vec![Blob::new([1, 2])]),
                    AttributeValue::Ns(vec!["1".into()]),
                    AttributeValue::Ss(vec!["s".into()]),
                    AttributeValue::M(Item::from([(
                        "b".to_owned(),
                        AttributeValue::B(Blob::new([0, 255])),
                    )])),
                ]),
            ),
        ]);
        let h = Holder {
            at: DateTime::from_millis(1_714_564_800_123),
            maybe: Some(Blob::new(*b"hi")),
            doc,
            sets: BTreeSet::from([vec![1], vec![2, 3]]),
            price: "12.30".parse().unwrap(),
        };
        let json = serde_json::to_string(&h).unwrap();
        assert!(
            json.contains(r#""at":"2024-05-01T12:00:00.123Z""#),
            "{json}"
        );
        assert!(json.contains(r#""a":{"S":"x"}"#), "{json}");
        assert!(json.contains(r#""price":"12.3""#), "{json}");
        let back: Holder = serde_json::from_str(&json).unwrap();
        assert_eq!(back, h);
        let none: Holder =
            serde_json::from_str(r#"{"at":"2024-05-01T12:00:00Z","doc":{},"sets":[],"price":"1"}"#)
                .unwrap();
        assert_eq!(none.maybe, None);
        for bad in [
            r#"{"at":"yesterday","doc":{},"sets":[],"price":"1"}"#,
            r#"{"at":"2024-05-01T12:00:00Z","doc":{"a":{"S":"x","N":"1"}},"sets":[],"price":"1"}"#,
            r#"{"at":"2024-05-01T12:00:00Z","doc":{"a":{"N":"one"}},"sets":[],"price":"1"}"#,
            r#"{"at":"2024-05-01T12:00:00Z","doc":{"a":{"X":"1"}},"sets":[],"price":"1"}"#,
            r#"{"at":"2024-05-01T12:00:00Z","doc":{},"sets":["%%"],"price":"1"}"#,
            r#"{"at":"2024-05-01T12:00:00Z","doc":{},"sets":[],"price":"1e999999999"}"#,
        ] {
            assert!(serde_json::from_str::<Holder>(bad).is_err(), "{bad}");
        }
    }
}
