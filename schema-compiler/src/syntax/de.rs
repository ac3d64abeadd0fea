//! Deserialization helpers for the spec's shorthand forms.
//!
//! Several values may be written short (`title: string`) or long
//! (`title: { type: string, max_length: 200 }`). serde's `untagged` enums
//! would accept that but drop every span inside (they buffer the input), so
//! these helpers dispatch on the YAML node kind with a visitor and hand maps
//! straight back to the YAML deserializer, which keeps spans intact.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, DeserializeOwned, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

use crate::source::Spanned;

/// `visit_bool`, `visit_i64`, `visit_u64` and `visit_f64` of a visitor that
/// reads a YAML scalar as its text: each forwards to `visit_str`.
macro_rules! scalars_as_text {
    () => {
        fn visit_bool<E: ::serde::de::Error>(self, v: bool) -> Result<Self::Value, E> {
            self.visit_str(if v { "true" } else { "false" })
        }
        fn visit_i64<E: ::serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
            self.visit_str(&v.to_string())
        }
        fn visit_u64<E: ::serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
            self.visit_str(&v.to_string())
        }
        fn visit_f64<E: ::serde::de::Error>(self, v: f64) -> Result<Self::Value, E> {
            self.visit_str(&v.to_string())
        }
    };
}
pub(crate) use scalars_as_text;

/// A type that may be written as a plain string or as a mapping.
pub trait Shorthand: Sized {
    /// The long form.
    type Full: DeserializeOwned + JsonSchema;
    /// What the error says was expected.
    const EXPECTING: &'static str;
    /// The meaning of the short form.
    fn from_str(s: &str) -> Self;
    /// The meaning of the long form.
    fn from_full(full: Self::Full) -> Self;
}

struct ShorthandVisitor<T>(PhantomData<T>);

impl<'de, T: Shorthand> Visitor<'de> for ShorthandVisitor<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(T::EXPECTING)
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<T, E> {
        Ok(T::from_str(s))
    }
    scalars_as_text!();
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        T::Full::deserialize(de::value::MapAccessDeserializer::new(map)).map(T::from_full)
    }
}

/// Deserializes a [`Shorthand`] type.
pub fn deserialize_shorthand<'de, D: Deserializer<'de>, T: Shorthand>(d: D) -> Result<T, D::Error> {
    d.deserialize_any(ShorthandVisitor(PhantomData))
}

/// The JSON Schema of a [`Shorthand`] type: a string or the long form.
pub fn shorthand_schema<T: Shorthand>(
    generator: &mut SchemaGenerator,
    string: serde_json::Value,
) -> Schema {
    let full = generator.subschema_for::<T::Full>();
    schemars::json_schema!({ "anyOf": [string, full] })
}

/// Implements `Deserialize` and `JsonSchema` for a [`Shorthand`] type.
macro_rules! shorthand_impls {
    ($ty:ty, $name:literal, $string_schema:expr) => {
        impl<'de> ::serde::Deserialize<'de> for $ty {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $crate::syntax::de::deserialize_shorthand(d)
            }
        }
        impl ::schemars::JsonSchema for $ty {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                $name.into()
            }
            fn json_schema(generator: &mut ::schemars::SchemaGenerator) -> ::schemars::Schema {
                $crate::syntax::de::shorthand_schema::<$ty>(generator, $string_schema)
            }
        }
    };
}
pub(crate) use shorthand_impls;

/// A YAML mapping from names to values, in the order written.
///
/// Duplicate keys are rejected by the YAML parser itself.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedMap<T>(pub Vec<(Spanned<String>, Spanned<T>)>);

impl<T> Default for NamedMap<T> {
    fn default() -> Self {
        NamedMap(Vec::new())
    }
}

impl<T> NamedMap<T> {
    /// The entries in written order.
    pub fn iter(&self) -> impl Iterator<Item = (&Spanned<String>, &Spanned<T>)> {
        self.0.iter().map(|(k, v)| (k, v))
    }

    /// The value under `name`.
    pub fn get(&self, name: &str) -> Option<&Spanned<T>> {
        self.0.iter().find(|(k, _)| k.value == name).map(|(_, v)| v)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for NamedMap<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = NamedMap<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a mapping of names")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut entries = Vec::new();
                while let Some(key) = map.next_key::<Spanned<String>>()? {
                    entries.push((key, map.next_value()?));
                }
                Ok(NamedMap(entries))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(NamedMap(Vec::new()))
            }
        }
        d.deserialize_map(V(PhantomData))
    }
}

impl<T: Serialize> Serialize for NamedMap<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(&k.value, &v.value)?;
        }
        map.end()
    }
}

impl<T: JsonSchema> JsonSchema for NamedMap<T> {
    fn schema_name() -> Cow<'static, str> {
        format!("Map_of_{}", T::schema_name()).into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let value = generator.subschema_for::<T>();
        schemars::json_schema!({ "type": "object", "additionalProperties": value })
    }
}

/// One name or a list of names: `returns: Ticket` or `returns: [Ticket, Comment]`.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct OneOrMany(pub Vec<Spanned<String>>);

impl<'de> Deserialize<'de> for OneOrMany {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // A single name keeps its span by going through `Spanned`; a list's
        // elements carry their own.
        let spanned = Spanned::<OneOrManyInner>::deserialize(d)?;
        Ok(match spanned.value {
            OneOrManyInner::One(s) => OneOrMany(vec![Spanned::new(s, spanned.span)]),
            OneOrManyInner::Many(v) => OneOrMany(v),
        })
    }
}

enum OneOrManyInner {
    One(String),
    Many(Vec<Spanned<String>>),
}

impl<'de> Deserialize<'de> for OneOrManyInner {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OneOrManyInner;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a name or a list of names")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
                Ok(OneOrManyInner::One(s.to_owned()))
            }
            scalars_as_text!();
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(item) = seq.next_element()? {
                    out.push(item);
                }
                Ok(OneOrManyInner::Many(out))
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for OneOrMany {
    fn schema_name() -> Cow<'static, str> {
        "OneOrMany".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        schemars::json_schema!({
            "anyOf": [
                { "type": "string" },
                { "type": "array", "items": { "type": "string" } }
            ]
        })
    }
}

/// One value or a list of one to four: a key attribute or template, or the
/// attributes of a multi-attribute index key in order
/// (`partition_key: [tenant_id, status]`).
#[derive(Debug, Clone, PartialEq)]
pub struct Parts<T>(pub Vec<Spanned<T>>);

impl<T> Parts<T> {
    /// The first part (every written form has one, or the list is empty).
    pub fn first(&self) -> Option<&Spanned<T>> {
        self.0.first()
    }

    /// The parts in order.
    pub fn iter(&self) -> impl Iterator<Item = &Spanned<T>> {
        self.0.iter()
    }

    /// The number of parts.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the list is empty (`[]`).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Parts<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // A single value takes the span of the whole node; a list's elements
        // carry their own.
        let spanned = Spanned::<PartsInner<T>>::deserialize(d)?;
        Ok(match spanned.value {
            PartsInner::One(v) => Parts(vec![Spanned::new(v, spanned.span)]),
            PartsInner::Many(v) => Parts(v),
        })
    }
}

enum PartsInner<T> {
    One(T),
    Many(Vec<Spanned<T>>),
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for PartsInner<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = PartsInner<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("one value or a list of one to four")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
                T::deserialize(de::value::StrDeserializer::<E>::new(s)).map(PartsInner::One)
            }
            scalars_as_text!();
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(PartsInner::One)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(item) = seq.next_element()? {
                    out.push(item);
                }
                Ok(PartsInner::Many(out))
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

impl<T: Serialize> Serialize for Parts<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0.as_slice() {
            [one] => one.value.serialize(s),
            many => s.collect_seq(many.iter().map(|p| &p.value)),
        }
    }
}

impl<T: JsonSchema> JsonSchema for Parts<T> {
    fn schema_name() -> Cow<'static, str> {
        format!("Parts_of_{}", T::schema_name()).into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let one = generator.subschema_for::<T>();
        schemars::json_schema!({
            "anyOf": [
                one,
                { "type": "array", "items": one, "minItems": 1, "maxItems": 4 }
            ]
        })
    }
}
