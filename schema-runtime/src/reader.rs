//! Reading placeholder values back out of stored keys.
//!
//! Index projections may leave an attribute out of an item when its value is
//! part of a key; the key's placeholders decode back to the attribute. A key
//! template is walked left to right: literals must match, and a placeholder
//! ends at its fixed width, at the next literal (which the checker proved no
//! value of the placeholder contains), or at the end of the key.

use crate::error::{DecodeError, DecodeProblem};
use crate::sdk::types::AttributeValue;
use crate::Item;

/// Where a placeholder's text ends.
#[derive(Debug, Clone, Copy)]
pub enum Stop {
    /// It runs to the end of the key.
    End,
    /// It ends where this literal starts.
    Literal(&'static str),
    /// It has this many bytes.
    Width(usize),
}

/// One step of walking a key template: a literal to match, or a
/// placeholder's text to take.
#[derive(Debug, Clone, Copy)]
pub enum Step {
    /// The key continues with this literal.
    Literal(&'static str),
    /// A placeholder's text, ending here.
    Take(Stop),
}

/// The step matching literal text.
pub const fn lit(text: &'static str) -> Step {
    Step::Literal(text)
}

/// The step taking a placeholder's text up to the literal `text`.
pub const fn until(text: &'static str) -> Step {
    Step::Take(Stop::Literal(text))
}

/// The step taking a placeholder's text of `bytes` bytes.
pub const fn width(bytes: usize) -> Step {
    Step::Take(Stop::Width(bytes))
}

/// The step taking a placeholder's text to the end of the key.
pub const REST: Step = Step::Take(Stop::End);

/// Reads the placeholder whose [`Step::Take`] ends `steps` out of key
/// attribute `key` of `item`, to decode `attribute` of `entity`: the steps
/// before it are walked, its text is taken and decoded with `parse`.
/// Generated code keeps one table of steps per key template and passes the
/// prefix that ends at each placeholder it reads, so reading every
/// placeholder of a template costs code linear in the template.
pub fn read_placeholder<T>(
    item: &Item,
    entity: &'static str,
    key: &'static str,
    attribute: &'static str,
    steps: &[Step],
    parse: impl FnOnce(&str) -> Option<T>,
) -> Result<T, DecodeError> {
    let mut reader = KeyReader::new(item, entity, key, attribute)?;
    let Some((&Step::Take(stop), before)) = steps.split_last() else {
        return Err(reader.error("the key template has no such placeholder".to_owned()));
    };
    for step in before {
        match *step {
            Step::Literal(literal) => reader.literal(literal)?,
            Step::Take(stop) => {
                reader.take(stop)?;
            }
        }
    }
    let text = reader.take(stop)?;
    reader.parse(text, parse)
}

/// Reads a placeholder out of the first of several keys that hold it and
/// that `item` has: `sources` pairs a key attribute with the steps that end
/// at the placeholder in its template (the table's keys first, then the
/// indexes'). An item read through an index has the table's keys and that
/// index's, so whichever index it came from, the value is found.
pub fn read_placeholder_from<T>(
    item: &Item,
    entity: &'static str,
    attribute: &'static str,
    sources: &[(&'static str, &[Step])],
    parse: impl FnOnce(&str) -> Option<T>,
) -> Result<T, DecodeError> {
    read_placeholder_if_present(item, entity, attribute, sources, parse)?
        .ok_or_else(|| DecodeError::new(entity, attribute, DecodeProblem::Missing))
}

/// Like [`read_placeholder_from`] for an optional attribute: `None` when the
/// item has none of the keys that hold it (a sparse index key exists only
/// when the attribute does), so an item read through a sparse index keeps
/// the value its key holds even where the projection leaves it out.
pub fn read_placeholder_if_present<T>(
    item: &Item,
    entity: &'static str,
    attribute: &'static str,
    sources: &[(&'static str, &[Step])],
    parse: impl FnOnce(&str) -> Option<T>,
) -> Result<Option<T>, DecodeError> {
    match sources.iter().find(|(key, _)| item.contains_key(*key)) {
        Some((key, steps)) => {
            read_placeholder(item, entity, key, attribute, steps, parse).map(Some)
        }
        None => Ok(None),
    }
}

/// A cursor over one stored key.
pub struct KeyReader<'a> {
    rest: &'a str,
    entity: &'static str,
    attribute: &'static str,
    key: &'static str,
}

impl<'a> KeyReader<'a> {
    /// Reads key attribute `key` of `item` to decode `attribute` of `entity`.
    pub fn new(
        item: &'a Item,
        entity: &'static str,
        key: &'static str,
        attribute: &'static str,
    ) -> Result<Self, DecodeError> {
        match item.get(key) {
            Some(AttributeValue::S(s)) => Ok(KeyReader {
                rest: s,
                entity,
                attribute,
                key,
            }),
            Some(other) => Err(DecodeError::new(
                entity,
                key,
                DecodeProblem::WrongType {
                    expected: "S",
                    found: crate::codec::type_name(other),
                },
            )),
            None => Err(DecodeError::new(entity, attribute, DecodeProblem::Missing)),
        }
    }

    fn error(&self, why: String) -> DecodeError {
        DecodeError::new(
            self.entity,
            self.attribute,
            DecodeProblem::Invalid(format!("cannot be read from key `{}`: {why}", self.key)),
        )
    }

    /// Consumes a literal.
    pub fn literal(&mut self, literal: &str) -> Result<(), DecodeError> {
        match self.rest.strip_prefix(literal) {
            Some(rest) => {
                self.rest = rest;
                Ok(())
            }
            None => Err(self.error(format!("expected {literal:?} at {:?}", self.rest))),
        }
    }

    /// Consumes a placeholder's text.
    pub fn take(&mut self, stop: Stop) -> Result<&'a str, DecodeError> {
        let end = match stop {
            Stop::End => Some(self.rest.len()),
            Stop::Literal(l) => self.rest.find(l),
            Stop::Width(n) => Some(n).filter(|&n| self.rest.is_char_boundary(n)),
        };
        match end {
            Some(end) if end > 0 => {
                let (value, rest) = self.rest.split_at(end);
                self.rest = rest;
                Ok(value)
            }
            _ => Err(self.error(format!("no value at {:?}", self.rest))),
        }
    }

    /// Decodes placeholder text with `parse`, naming the attribute on failure.
    pub fn parse<T>(
        &self,
        text: &str,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Result<T, DecodeError> {
        parse(text).ok_or_else(|| self.error(format!("{text:?} is not a valid value")))
    }
}

/// Decodes an integer's key text (zero-padded, offset by `-min` when `min < 0`).
pub use singletable_codec::decode_integer;

/// The attributes of one item of an entity, read field by field: what a
/// generated `from_item` calls, one line per field. Errors name the entity
/// and the attribute.
#[derive(Debug, Clone, Copy)]
pub struct Fields<'a> {
    item: &'a Item,
    entity: &'static str,
}

/// A value read back and checked against the spec's rules for it.
fn checked<T: crate::Attr>(
    av: &crate::sdk::types::AttributeValue,
    how: crate::codec::Store,
) -> Result<T, crate::DecodeProblem> {
    let value = T::from_av(av)?;
    value.check(how).map_err(crate::DecodeProblem::Invalid)?;
    Ok(value)
}

/// Where a placeholder can be read back from: key attributes paired with the
/// steps that end at the placeholder in their templates.
pub type Sources<'s> = &'s [(&'static str, &'s [Step])];

impl<'a> Fields<'a> {
    /// The fields of `item`, an item of `entity`.
    pub fn new(item: &'a Item, entity: &'static str) -> Self {
        Fields { item, entity }
    }

    /// The error of attribute `name`, boxed: the readers' results stay as
    /// small as the values they carry.
    #[cold]
    fn fail(&self, name: &str, problem: DecodeProblem) -> FieldError {
        Box::new(DecodeError::new(self.entity, name, problem))
    }

    /// Attribute `name`: `None` when absent or `NULL` (the one rule of
    /// presence every reader follows).
    fn found(&self, name: &str) -> Option<&'a AttributeValue> {
        self.item
            .get(name)
            .filter(|v| !matches!(v, AttributeValue::Null(_)))
    }

    /// A required attribute read by `decode`.
    pub(crate) fn required_with<T>(
        &self,
        name: &str,
        decode: impl FnOnce(&AttributeValue) -> Result<T, DecodeProblem>,
    ) -> Result<T, FieldError> {
        match self.found(name) {
            Some(av) => decode(av).map_err(|p| self.fail(name, p)),
            None => Err(self.fail(name, DecodeProblem::Missing)),
        }
    }

    /// An optional attribute read by `decode`.
    pub(crate) fn optional_with<T>(
        &self,
        name: &str,
        decode: impl FnOnce(&AttributeValue) -> Result<T, DecodeProblem>,
    ) -> Result<Option<T>, FieldError> {
        match self.found(name) {
            Some(av) => decode(av).map(Some).map_err(|p| self.fail(name, p)),
            None => Ok(None),
        }
    }

    /// A required attribute with a `default`: an item without it (one
    /// written before the attribute was added) reads `default`.
    pub fn required_or<T: crate::Attr>(
        &self,
        name: &str,
        default: AttributeValue,
    ) -> Result<T, FieldError> {
        let av = self.found(name).unwrap_or(&default);
        T::from_av(av).map_err(|p| self.fail(name, p))
    }

    /// [`Self::required_or`] for an attribute with rules, which the
    /// default keeps too.
    pub fn checked_or<T: crate::Attr>(
        &self,
        name: &str,
        how: crate::codec::Store,
        default: AttributeValue,
    ) -> Result<T, FieldError> {
        let av = self.found(name).unwrap_or(&default);
        checked(av, how).map_err(|p| self.fail(name, p))
    }

    /// A required attribute.
    pub fn required<T: crate::Attr>(&self, name: &str) -> Result<T, FieldError> {
        self.required_with(name, T::from_av)
    }

    /// An optional attribute.
    pub fn optional<T: crate::Attr>(&self, name: &str) -> Result<Option<T>, FieldError> {
        self.optional_with(name, T::from_av)
    }

    /// A required attribute that keeps the spec's rules for it (an item
    /// written by other code may not): one that breaks them is
    /// [`DecodeProblem::Invalid`](crate::DecodeProblem::Invalid).
    pub fn checked<T: crate::Attr>(
        &self,
        name: &str,
        how: crate::codec::Store,
    ) -> Result<T, FieldError> {
        self.required_with(name, |av| checked(av, how))
    }

    /// An optional attribute that keeps the spec's rules when present.
    pub fn checked_opt<T: crate::Attr>(
        &self,
        name: &str,
        how: crate::codec::Store,
    ) -> Result<Option<T>, FieldError> {
        self.optional_with(name, |av| checked(av, how))
    }

    /// A required datetime stored in `format`.
    pub fn time(
        &self,
        name: &str,
        format: crate::TimeFormat,
    ) -> Result<crate::DateTime, FieldError> {
        self.required_with(name, |av| crate::codec::datetime_from_av(av, format))
    }

    /// An optional datetime stored in `format`.
    pub fn time_opt(
        &self,
        name: &str,
        format: crate::TimeFormat,
    ) -> Result<Option<crate::DateTime>, FieldError> {
        self.optional_with(name, |av| crate::codec::datetime_from_av(av, format))
    }

    /// A required attribute that keys hold: the attribute, or when the item
    /// lacks it (an index projection left it out), its text in the first
    /// of `sources` the item has, decoded with `parse`.
    #[inline]
    pub fn keyed<T: crate::Attr>(
        &self,
        name: &'static str,
        sources: Sources<'_>,
        parse: fn(&str) -> Option<T>,
    ) -> Result<T, FieldError> {
        match self.found(name) {
            Some(av) => T::from_av(av).map_err(|p| self.fail(name, p)),
            None => self.read_keys(name, sources, parse),
        }
    }

    /// An optional attribute that keys hold: as [`Fields::keyed`], `None`
    /// when the item has neither the attribute nor a key holding it.
    #[inline]
    pub fn keyed_opt<T: crate::Attr>(
        &self,
        name: &'static str,
        sources: Sources<'_>,
        parse: fn(&str) -> Option<T>,
    ) -> Result<Option<T>, FieldError> {
        match self.found(name) {
            Some(av) => T::from_av(av).map(Some).map_err(|p| self.fail(name, p)),
            None => self.read_keys_if_present(name, sources, parse),
        }
    }

    /// A required datetime that keys hold (see [`Fields::keyed`]).
    #[inline]
    pub fn keyed_time(
        &self,
        name: &'static str,
        format: crate::TimeFormat,
        sources: Sources<'_>,
    ) -> Result<crate::DateTime, FieldError> {
        match self.found(name) {
            Some(av) => crate::codec::datetime_from_av(av, format).map_err(|p| self.fail(name, p)),
            None => self.read_keys(name, sources, |t| time(t, format)),
        }
    }

    /// An optional datetime that keys hold (see [`Fields::keyed_opt`]).
    #[inline]
    pub fn keyed_time_opt(
        &self,
        name: &'static str,
        format: crate::TimeFormat,
        sources: Sources<'_>,
    ) -> Result<Option<crate::DateTime>, FieldError> {
        match self.found(name) {
            Some(av) => crate::codec::datetime_from_av(av, format)
                .map(Some)
                .map_err(|p| self.fail(name, p)),
            None => self.read_keys_if_present(name, sources, |t| time(t, format)),
        }
    }

    /// Attribute `name` read back from the first of `sources` the item
    /// has: the keyed readers' way when the item lacks the attribute, kept
    /// out of their way when it has it; missing when it has none of them.
    #[inline(never)]
    fn read_keys<T>(
        &self,
        name: &'static str,
        sources: Sources<'_>,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Result<T, FieldError> {
        self.read_keys_if_present(name, sources, parse)?
            .ok_or_else(|| self.fail(name, DecodeProblem::Missing))
    }

    /// As [`Fields::read_keys`], `None` when the item has none of `sources`.
    #[inline(never)]
    fn read_keys_if_present<T>(
        &self,
        name: &'static str,
        sources: Sources<'_>,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Result<Option<T>, FieldError> {
        read_placeholder_if_present(self.item, self.entity, name, sources, parse).map_err(Box::new)
    }
}

/// The error of a [`Fields`] reader: a [`DecodeError`] in a box (`?` in a
/// function returning `DecodeError` unboxes it).
pub type FieldError = Box<DecodeError>;

/// A string's key text, as stored.
pub fn text(t: &str) -> Option<String> {
    Some(t.to_owned())
}

/// A string's key text, unescaped.
pub fn escaped(t: &str) -> Option<String> {
    crate::codec::unescape(t)
}

/// An integer's key text, for an attribute whose minimum is `MIN`.
pub fn integer<const MIN: i64>(t: &str) -> Option<i64> {
    decode_integer(t, MIN)
}

/// A boolean's key text.
pub fn boolean(t: &str) -> Option<bool> {
    match t {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// An enum value's key text.
pub fn parsed<T: std::str::FromStr>(t: &str) -> Option<T> {
    t.parse().ok()
}

/// A datetime's key text in `format`.
pub fn time(t: &str, format: crate::TimeFormat) -> Option<crate::DateTime> {
    match format {
        crate::TimeFormat::Rfc3339(_) => {
            crate::DateTime::from_str(t, aws_sdk_dynamodb::primitives::DateTimeFormat::DateTime)
                .ok()
        }
        crate::TimeFormat::EpochSeconds => decode_integer(t, 0).map(crate::DateTime::from_secs),
        crate::TimeFormat::EpochMillis => decode_integer(t, 0).map(crate::DateTime::from_millis),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_placeholders_between_literals() {
        let mut item = Item::new();
        item.insert(
            "pk".into(),
            AttributeValue::S("TENANT#acme|TICKET#T-1".into()),
        );
        let mut r = KeyReader::new(&item, "Ticket", "pk", "id").unwrap();
        r.literal("TENANT#").unwrap();
        assert_eq!(r.take(Stop::Literal("|TICKET#")).unwrap(), "acme");
        r.literal("|TICKET#").unwrap();
        assert_eq!(r.take(Stop::End).unwrap(), "T-1");
        let mut r = KeyReader::new(&item, "Ticket", "pk", "id").unwrap();
        let e = r.literal("USER#").unwrap_err();
        assert_eq!(e.attribute, "id");
        assert_eq!(decode_integer("05", -10), Some(-5));
        let steps = [
            Step::Literal("TENANT#"),
            Step::Take(Stop::Literal("|TICKET#")),
            Step::Literal("|TICKET#"),
            Step::Take(Stop::End),
        ];
        let read = |n: usize| {
            read_placeholder(&item, "Ticket", "pk", "id", &steps[..n], |t| {
                Some(t.to_owned())
            })
        };
        assert_eq!(read(2).unwrap(), "acme");
        assert_eq!(read(4).unwrap(), "T-1");
        assert!(
            read(1).is_err(),
            "a prefix that does not end at a placeholder"
        );
        assert_eq!(decode_integer("-5", 0), None);
    }
}
