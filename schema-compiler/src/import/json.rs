//! JSON read strictly: `serde_json` keeps the last of two equal keys of an
//! object without a word, so a model with a key written twice would be
//! imported from half of what it says. [`duplicate_keys`] walks the text
//! once and names the first key that appears twice, with its path.

use std::collections::BTreeSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// `Err` naming the first object key that appears twice in `json`, with
/// its path (`tables[0].attributes`); `Ok` otherwise, and for text that is
/// not JSON (the caller's parse reports that).
pub fn duplicate_keys(json: &str) -> Result<(), String> {
    let mut deserializer = serde_json::Deserializer::from_str(json);
    // No recursion limit is lifted: serde_json's own (128 levels) holds.
    match (Walk {
        path: String::new(),
    })
    .deserialize(&mut deserializer)
    {
        Err(e) if e.to_string().starts_with(DUPLICATE) => Err(e
            .to_string()
            .split(" at line ")
            .next()
            .unwrap_or_default()
            .to_owned()),
        _ => Ok(()),
    }
}

const DUPLICATE: &str = "duplicate key";

/// A value at `path`, walked for its keys only.
struct Walk {
    path: String,
}

impl<'de> DeserializeSeed<'de> for Walk {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0usize;
        while seq
            .next_element_seed(Walk {
                path: format!("{}[{i}]", self.path),
            })?
            .is_some()
        {
            i += 1;
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = BTreeSet::new();
        while let Some(key) = map.next_key::<String>()? {
            let path = if self.path.is_empty() {
                key.clone()
            } else {
                format!("{}.{key}", self.path)
            };
            if !seen.insert(key.clone()) {
                let within = if self.path.is_empty() {
                    "the top-level object".to_owned()
                } else {
                    format!("`{}`", self.path)
                };
                return Err(de::Error::custom(format!(
                    "{DUPLICATE} `{key}` in {within}: JSON keeps only one of them, so the model is refused rather than read in part"
                )));
            }
            map.next_value_seed(Walk { path })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_duplicate_key_is_named_with_its_path() {
        assert_eq!(
            duplicate_keys(r#"{"a": 1, "b": [true, null, 2.5, "x"]}"#),
            Ok(())
        );
        let top = duplicate_keys(r#"{"a": 1, "a": 2}"#).unwrap_err();
        assert!(top.contains("`a` in the top-level object"), "{top}");
        let nested = duplicate_keys(r#"{"t": [{"k": {"x": 1}}, {"k": {"x": 1, "y": 2, "x": 3}}]}"#)
            .unwrap_err();
        assert!(nested.contains("`x` in `t[1].k`"), "{nested}");
        // Equal keys in different objects are not duplicates.
        assert_eq!(duplicate_keys(r#"[{"a": 1}, {"a": 2}]"#), Ok(()));
        // Text that is not JSON is the caller's parse's to report.
        assert_eq!(duplicate_keys("{"), Ok(()));
    }
}
