//! [`Attr`]: attribute values to and from their Rust types, checked against their rules.

use super::*;

/// The text of a string value; any other type is
/// [`DecodeProblem::WrongType`].
pub fn expect_s(av: &AttributeValue) -> Result<&str, DecodeProblem> {
    match av {
        AttributeValue::S(s) => Ok(s),
        other => Err(wrong_type("S", other)),
    }
}

/// The DynamoDB type name of a value (`S`, `N`, `BOOL`, …).
pub fn type_name(av: &AttributeValue) -> &'static str {
    match av {
        AttributeValue::S(_) => "S",
        AttributeValue::N(_) => "N",
        AttributeValue::B(_) => "B",
        AttributeValue::Bool(_) => "BOOL",
        AttributeValue::Null(_) => "NULL",
        AttributeValue::L(_) => "L",
        AttributeValue::M(_) => "M",
        AttributeValue::Ss(_) => "SS",
        AttributeValue::Ns(_) => "NS",
        AttributeValue::Bs(_) => "BS",
        _ => "unknown",
    }
}

pub(super) fn wrong_type(expected: &'static str, found: &AttributeValue) -> DecodeProblem {
    DecodeProblem::WrongType {
        expected,
        found: type_name(found),
    }
}

/// A Rust type stored as one DynamoDB attribute value.
pub trait Attr: Sized {
    /// The value to store.
    fn to_av(&self) -> AttributeValue;
    /// The value read back.
    fn from_av(av: &AttributeValue) -> Result<Self, DecodeProblem>;
    /// Whether the value keeps the spec's rules for it (a string's lengths
    /// and pattern, an integer's range, a decimal's bounds and scale, a
    /// list's lengths and its elements' rules); why not, as the rest of a
    /// sentence about the value.
    fn check(&self, how: Store) -> Result<(), String> {
        let _ = how;
        Ok(())
    }
    /// The value to store under the spec's rules for it ([`Attr::check`],
    /// and a datetime's format); `name` of `context` in errors.
    fn store(
        &self,
        how: Store,
        context: &'static str,
        name: &'static str,
    ) -> Result<AttributeValue, ValueError> {
        self.check(how)
            .map_err(|problem| value_error(context, name, problem))?;
        Ok(self.to_av())
    }
}

/// A string pattern (the spec's regular expression), compiled on first use.
pub struct Pattern {
    source: &'static str,
    regex: std::sync::OnceLock<Result<regex::Regex, String>>,
}

impl Pattern {
    /// The pattern of `source`.
    pub const fn new(source: &'static str) -> Self {
        Pattern {
            source,
            regex: std::sync::OnceLock::new(),
        }
    }

    /// The regular expression as written in the spec.
    pub fn source(&self) -> &'static str {
        self.source
    }

    /// Whether `text` matches; an error when the pattern does not compile.
    pub fn is_match(&self, text: &str) -> Result<bool, String> {
        let regex = self.regex.get_or_init(|| {
            regex::Regex::new(self.source)
                .map_err(|e| format!("the pattern `{}` does not compile: {e}", self.source))
        });
        match regex {
            Ok(regex) => Ok(regex.is_match(text)),
            Err(e) => Err(e.clone()),
        }
    }
}

impl std::fmt::Debug for Pattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Pattern").field(&self.source).finish()
    }
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

impl Eq for Pattern {}

/// A pattern that is one class of ASCII characters repeated between two
/// lengths, anchored at both ends (`^[a-z0-9._-]{1,64}$`): the compiler
/// turns such patterns into this, and a value matches it exactly when it
/// matches the regular expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AsciiClass {
    /// The regular expression as written in the spec.
    pub pattern: &'static str,
    /// Bit `c` is set when ASCII character `c` is in the class.
    pub allowed: u128,
    /// Least number of characters.
    pub min: usize,
    /// Greatest number of characters.
    pub max: Option<usize>,
}

impl AsciiClass {
    /// Whether `text` matches the pattern.
    pub fn matches(&self, text: &str) -> bool {
        let bytes = text.as_bytes();
        // The class as two 64-bit words: a byte picks its word by its
        // seventh bit (none for a byte past ASCII) and its bit by the rest,
        // where a shift of the `u128` by the byte costs several instructions.
        let words = [self.allowed as u64, (self.allowed >> 64) as u64];
        bytes.len() >= self.min
            && self.max.is_none_or(|max| bytes.len() <= max)
            && bytes.iter().all(|&b| {
                words
                    .get(usize::from(b >> 6))
                    .is_some_and(|word| (word >> (b & 63)) & 1 == 1)
            })
    }
}

/// The spec's rules for storing one attribute's value, beyond its type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Store {
    /// As it is.
    Plain,
    /// A string of this many bytes at least, and at most.
    Length(usize, Option<usize>),
    /// A string of this many bytes at least, at most, matching `pattern`.
    Text {
        /// Least length in bytes.
        min: usize,
        /// Greatest length in bytes.
        max: Option<usize>,
        /// The regular expression every value matches.
        pattern: &'static Pattern,
    },
    /// As [`Store::Text`] for a pattern that is one class of ASCII
    /// characters repeated (`^[A-Za-z0-9_-]{1,36}$`): checked in one pass
    /// over the bytes, without a regular expression.
    Class {
        /// Least length in bytes.
        min: usize,
        /// Greatest length in bytes.
        max: Option<usize>,
        /// The pattern, as a class.
        class: &'static AsciiClass,
    },
    /// A datetime in this format.
    Time(TimeFormat),
    /// An integer in `min..=max`.
    Integer {
        /// Least value.
        min: i64,
        /// Greatest value.
        max: i64,
    },
    /// A decimal within bounds (as written in the spec), with at most
    /// `scale` digits after the point.
    Decimal {
        /// Least value.
        min: Option<&'static str>,
        /// Greatest value.
        max: Option<&'static str>,
        /// Digits after the point.
        scale: Option<u32>,
    },
    /// A list of this many elements at least, and at most, each stored
    /// under `items`.
    List {
        /// Least number of elements.
        min: usize,
        /// Greatest number of elements.
        max: Option<usize>,
        /// The elements' rules.
        items: Option<&'static Store>,
    },
    /// Bytes: this many at least, and at most.
    Bytes(usize, Option<usize>),
}

/// A count of `unit` within `min..=max`.
#[inline]
fn check_count(count: usize, min: usize, max: Option<usize>, unit: &str) -> Result<(), String> {
    if count < min || max.is_some_and(|max| count > max) {
        return Err(count_outside(count, min, max, unit));
    }
    Ok(())
}

/// Why a count is outside `min..=max`: out of the checks' way, which every
/// value read back or written passes through.
#[cold]
#[inline(never)]
fn count_outside(count: usize, min: usize, max: Option<usize>, unit: &str) -> String {
    match max {
        Some(max) if count > max => format!("{count} {unit}, more than the {max} allowed"),
        _ => format!("{count} {unit}, fewer than the {min} required"),
    }
}

/// Why `text` breaks its pattern (as [`count_outside`], out of the way).
#[cold]
#[inline(never)]
fn no_match(text: &str, pattern: &str) -> String {
    format!("{text:?} does not match `{pattern}`")
}

impl Attr for String {
    fn to_av(&self) -> AttributeValue {
        AttributeValue::S(self.clone())
    }
    fn check(&self, how: Store) -> Result<(), String> {
        match how {
            Store::Length(min, max) => check_count(self.len(), min, max, "bytes"),
            Store::Text { min, max, pattern } => {
                check_count(self.len(), min, max, "bytes")?;
                if pattern.is_match(self)? {
                    Ok(())
                } else {
                    Err(no_match(self, pattern.source()))
                }
            }
            Store::Class { min, max, class } => {
                check_count(self.len(), min, max, "bytes")?;
                if class.matches(self) {
                    Ok(())
                } else {
                    Err(no_match(self, class.pattern))
                }
            }
            _ => Ok(()),
        }
    }
    fn from_av(av: &AttributeValue) -> Result<Self, DecodeProblem> {
        expect_s(av).map(str::to_owned)
    }
}

impl Attr for i64 {
    fn to_av(&self) -> AttributeValue {
        AttributeValue::N(self.to_string())
    }
    fn check(&self, how: Store) -> Result<(), String> {
        match how {
            Store::Integer { min, max } if !(min..=max).contains(self) => {
                Err(format!("{self} is outside {min}..={max}"))
            }
            _ => Ok(()),
        }
    }
    fn from_av(av: &AttributeValue) -> Result<Self, DecodeProblem> {
        match av {
            AttributeValue::N(n) => n
                .parse()
                .map_err(|_| DecodeProblem::Invalid(format!("{n:?} is not a 64-bit integer"))),
            other => Err(wrong_type("N", other)),
        }
    }
}

impl Attr for bool {
    fn to_av(&self) -> AttributeValue {
        AttributeValue::Bool(*self)
    }
    fn from_av(av: &AttributeValue) -> Result<Self, DecodeProblem> {
        match av {
            AttributeValue::Bool(b) => Ok(*b),
            other => Err(wrong_type("BOOL", other)),
        }
    }
}

impl Attr for Blob {
    fn to_av(&self) -> AttributeValue {
        AttributeValue::B(self.clone())
    }
    fn check(&self, how: Store) -> Result<(), String> {
        match how {
            Store::Bytes(min, max) => check_count(self.as_ref().len(), min, max, "bytes"),
            _ => Ok(()),
        }
    }
    fn from_av(av: &AttributeValue) -> Result<Self, DecodeProblem> {
        match av {
            AttributeValue::B(b) => Ok(b.clone()),
            other => Err(wrong_type("B", other)),
        }
    }
}

impl Attr for DateTime {
    fn to_av(&self) -> AttributeValue {
        AttributeValue::N(self.secs().to_string())
    }
    fn store(
        &self,
        how: Store,
        context: &'static str,
        name: &'static str,
    ) -> Result<AttributeValue, ValueError> {
        match how {
            Store::Time(format) => datetime_to_av(*self, format, context, name),
            _ => Ok(self.to_av()),
        }
    }
    fn from_av(av: &AttributeValue) -> Result<Self, DecodeProblem> {
        datetime_from_av(av, TimeFormat::EpochSeconds)
    }
}

impl Attr for AttributeValue {
    fn to_av(&self) -> AttributeValue {
        self.clone()
    }
    fn from_av(av: &AttributeValue) -> Result<Self, DecodeProblem> {
        Ok(av.clone())
    }
}

impl Attr for Item {
    fn to_av(&self) -> AttributeValue {
        AttributeValue::M(self.clone())
    }
    fn from_av(av: &AttributeValue) -> Result<Self, DecodeProblem> {
        match av {
            AttributeValue::M(m) => Ok(m.clone()),
            other => Err(wrong_type("M", other)),
        }
    }
}

impl<T: Attr> Attr for Vec<T> {
    fn to_av(&self) -> AttributeValue {
        AttributeValue::L(self.iter().map(Attr::to_av).collect())
    }
    fn from_av(av: &AttributeValue) -> Result<Self, DecodeProblem> {
        match av {
            AttributeValue::L(items) => items
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    T::from_av(v).map_err(|p| DecodeProblem::Invalid(format!("element {i} {p}")))
                })
                .collect(),
            other => Err(wrong_type("L", other)),
        }
    }
    fn check(&self, how: Store) -> Result<(), String> {
        let Store::List { min, max, items } = how else {
            return Ok(());
        };
        check_count(self.len(), min, max, "elements")?;
        let items = items.copied().unwrap_or(Store::Plain);
        self.iter()
            .enumerate()
            .try_for_each(|(i, e)| e.check(items).map_err(|why| format!("element {i}: {why}")))
    }
    /// Each element under the elements' rules, and its own type's (a typed
    /// map's fields).
    fn store(
        &self,
        how: Store,
        context: &'static str,
        name: &'static str,
    ) -> Result<AttributeValue, ValueError> {
        let items = match how {
            Store::List { min, max, items } => {
                check_count(self.len(), min, max, "elements")
                    .map_err(|problem| value_error(context, name, problem))?;
                items.copied().unwrap_or(Store::Plain)
            }
            _ => Store::Plain,
        };
        let mut elements = Vec::with_capacity(self.len());
        for (i, element) in self.iter().enumerate() {
            elements.push(
                element
                    .store(items, context, name)
                    .map_err(|e| e.within(format_args!("element {i}")))?,
            );
        }
        Ok(AttributeValue::L(elements))
    }
}

/// Checks a value already in its stored form (a natural key's) against
/// the spec's rules for it, as [`Attr::check`] does for the typed value.
pub fn check_value(
    av: &AttributeValue,
    how: Store,
    context: &'static str,
    name: &'static str,
) -> Result<(), ValueError> {
    fn typed<T: Attr>(av: &AttributeValue, how: Store) -> Result<(), String> {
        T::from_av(av)
            .map_err(|p| p.to_string())
            .and_then(|v| v.check(how))
    }
    let checked = match how {
        Store::Length(..) | Store::Text { .. } | Store::Class { .. } => typed::<String>(av, how),
        Store::Integer { .. } => typed::<i64>(av, how),
        Store::Decimal { .. } => typed::<Decimal>(av, how),
        Store::Bytes(..) => typed::<Blob>(av, how),
        Store::Plain | Store::Time(_) | Store::List { .. } => Ok(()),
    };
    checked.map_err(|problem| value_error(context, name, problem))
}

/// Reads a typed map (a record of declared fields) with `read`, which takes
/// its fields through a [`crate::reader::Fields`] reader; a field's problem
/// becomes the map's, naming the field.
pub fn record<T>(
    av: &AttributeValue,
    ty: &'static str,
    read: impl FnOnce(&crate::reader::Fields<'_>) -> Result<T, crate::DecodeError>,
) -> Result<T, DecodeProblem> {
    match av {
        AttributeValue::M(map) => read(&crate::reader::Fields::new(map, ty))
            .map_err(|e| DecodeProblem::Invalid(format!("field `{}` {}", e.attribute, e.problem))),
        other => Err(wrong_type("M", other)),
    }
}

/// A map's field under its rules: `value` stored as `how` says, an error
/// naming the field.
pub fn store_field<T: Attr>(
    value: &T,
    how: Store,
    field: &str,
    context: &'static str,
    name: &'static str,
) -> Result<AttributeValue, ValueError> {
    value
        .store(how, context, name)
        .map_err(|e| e.in_field(field))
}

/// A DynamoDB set: distinct values, never empty (DynamoDB stores no empty
/// set: an optional set attribute is absent instead).
fn check_set(len: usize, context: &'static str, name: &'static str) -> Result<(), ValueError> {
    if len == 0 {
        return Err(ValueError {
            context,
            name,
            problem:
                "DynamoDB stores no empty set: leave the attribute out (make it optional) instead"
                    .to_owned(),
        });
    }
    Ok(())
}

fn set_element<T>(i: usize, parsed: Result<T, String>) -> Result<T, DecodeProblem> {
    parsed.map_err(|why| DecodeProblem::Invalid(format!("element {i}: {why}")))
}

/// A value DynamoDB keeps in a set: strings (`SS`), numbers (`NS`) or
/// bytes (`BS`). A `BTreeSet` of one is an [`Attr`].
pub trait SetElement: Ord + Sized {
    /// The set as stored.
    fn to_set(set: &std::collections::BTreeSet<Self>) -> AttributeValue;
    /// The set read back.
    fn from_set(av: &AttributeValue) -> Result<std::collections::BTreeSet<Self>, DecodeProblem>;
}

impl<T: SetElement> Attr for std::collections::BTreeSet<T> {
    fn to_av(&self) -> AttributeValue {
        T::to_set(self)
    }
    fn from_av(av: &AttributeValue) -> Result<Self, DecodeProblem> {
        T::from_set(av)
    }
    fn store(
        &self,
        _: Store,
        context: &'static str,
        name: &'static str,
    ) -> Result<AttributeValue, ValueError> {
        check_set(self.len(), context, name)?;
        Ok(self.to_av())
    }
}

/// The elements of a number set, each parsed by `parse`.
pub(super) fn number_set<T: Ord>(
    av: &AttributeValue,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<std::collections::BTreeSet<T>, DecodeProblem> {
    match av {
        AttributeValue::Ns(values) => values
            .iter()
            .enumerate()
            .map(|(i, n)| set_element(i, parse(n)))
            .collect(),
        other => Err(wrong_type("NS", other)),
    }
}

impl SetElement for String {
    fn to_set(set: &std::collections::BTreeSet<Self>) -> AttributeValue {
        AttributeValue::Ss(set.iter().cloned().collect())
    }
    fn from_set(av: &AttributeValue) -> Result<std::collections::BTreeSet<Self>, DecodeProblem> {
        match av {
            AttributeValue::Ss(values) => Ok(values.iter().cloned().collect()),
            other => Err(wrong_type("SS", other)),
        }
    }
}

impl SetElement for i64 {
    fn to_set(set: &std::collections::BTreeSet<Self>) -> AttributeValue {
        AttributeValue::Ns(set.iter().map(i64::to_string).collect())
    }
    fn from_set(av: &AttributeValue) -> Result<std::collections::BTreeSet<Self>, DecodeProblem> {
        number_set(av, |n| {
            n.parse::<i64>()
                .map_err(|_| format!("{n:?} is not an integer"))
        })
    }
}

impl SetElement for Vec<u8> {
    fn to_set(set: &std::collections::BTreeSet<Self>) -> AttributeValue {
        AttributeValue::Bs(set.iter().map(|b| Blob::new(b.clone())).collect())
    }
    fn from_set(av: &AttributeValue) -> Result<std::collections::BTreeSet<Self>, DecodeProblem> {
        match av {
            AttributeValue::Bs(values) => Ok(values.iter().map(|b| b.as_ref().to_vec()).collect()),
            other => Err(wrong_type("BS", other)),
        }
    }
}
