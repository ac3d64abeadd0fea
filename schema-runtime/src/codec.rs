//! The key codec and attribute conversions.
//!
//! Key placeholders are encoded so that the checker's proofs hold at run
//! time: strings are checked against their attribute's alphabet and length
//! (or percent-encoded when the spec says `escape`), integers are zero-padded
//! to a fixed width (offset by `-min` when `min < 0`) so text order is
//! numeric order, and datetimes have a fixed width too.
//!
//! The encodings themselves live in `singletable_codec`, which the compiler
//! calls too (its checks and Workbench samples); this module adapts the
//! SDK's `DateTime` to seconds and nanoseconds and names the placeholder in
//! every error.

use crate::error::{DecodeProblem, ValueError};
use crate::sdk::primitives::{Blob, DateTime, DateTimeFormat};
use crate::sdk::types::AttributeValue;
use crate::Item;

/// What a string placeholder may hold, as the spec declares it.
#[derive(Debug, Clone, Copy)]
pub struct StrDomain {
    /// Least length in bytes (before escaping).
    pub min_len: usize,
    /// Greatest length in bytes (before escaping).
    pub max_len: Option<usize>,
    /// Allowed characters as inclusive ranges; ignored when `escape` is set.
    pub alphabet: &'static [(char, char)],
    /// The ASCII characters of `alphabet` as bits (bit `c` for character
    /// `c`): a value of these alone is checked a byte at a time.
    pub ascii: u128,
    /// Percent-encode everything but ASCII letters, digits and `_`.
    pub escape: bool,
}

/// The ASCII characters of `ranges` as bits (bit `c` for character `c`),
/// for [`StrDomain::ascii`] and [`AsciiClass::allowed`].
pub const fn ascii_bits(ranges: &[(char, char)]) -> u128 {
    let mut bits = 0u128;
    let mut i = 0;
    while i < ranges.len() {
        let (lo, hi) = ranges[i];
        let mut c = lo as u32;
        while c <= hi as u32 && c < 128 {
            bits |= 1 << c;
            c += 1;
        }
        i += 1;
    }
    bits
}

fn value_error(context: &'static str, name: &'static str, problem: String) -> ValueError {
    ValueError {
        context,
        name,
        problem,
    }
}

/// Appends a string placeholder to `key`.
pub fn push_str(
    key: &mut String,
    value: &str,
    domain: &StrDomain,
    context: &'static str,
    name: &'static str,
) -> Result<(), ValueError> {
    check_length(value, domain.min_len.max(1), domain.max_len, context, name)?;
    if domain.escape {
        push_escaped(key, value);
        return Ok(());
    }
    let ascii = |b: u8| b < 128 && (domain.ascii >> b) & 1 == 1;
    if value.bytes().all(ascii) {
        key.push_str(value);
        return Ok(());
    }
    if let Some(c) = value
        .chars()
        .find(|&c| !domain.alphabet.iter().any(|&(lo, hi)| lo <= c && c <= hi))
    {
        return Err(value_error(
            context,
            name,
            format!("{c:?} is not allowed in this key placeholder"),
        ));
    }
    key.push_str(value);
    Ok(())
}

/// Checks the byte length of a string value.
pub fn check_length(
    value: &str,
    min: usize,
    max: Option<usize>,
    context: &'static str,
    name: &'static str,
) -> Result<(), ValueError> {
    if value.len() < min {
        return Err(value_error(
            context,
            name,
            format!("{} bytes, fewer than the {min} required", value.len()),
        ));
    }
    match max {
        Some(max) if value.len() > max => Err(value_error(
            context,
            name,
            format!("{} bytes, more than the {max} allowed", value.len()),
        )),
        _ => Ok(()),
    }
}

pub use singletable_codec::{hash_shard, push_escaped, unescape};

/// Appends an integer placeholder: zero-padded to the width of the range,
/// offset by `-min` when `min` is negative.
pub fn push_integer(
    key: &mut String,
    value: i64,
    min: i64,
    max: i64,
    context: &'static str,
    name: &'static str,
) -> Result<(), ValueError> {
    singletable_codec::push_integer(key, value, min, max)
        .map_err(|e| value_error(context, name, e.to_string()))
}

/// Appends an enum value's word: refused when it is empty, the word of a
/// value this build does not know (an enum's `UnknownValue`, read from an
/// item a newer design wrote), which has no key of its own.
pub fn push_word(
    key: &mut String,
    word: &str,
    context: &'static str,
    name: &'static str,
) -> Result<(), ValueError> {
    if word.is_empty() {
        return Err(value_error(context, name, UNKNOWN_VALUE.to_owned()));
    }
    key.push_str(word);
    Ok(())
}

/// Why an enum's `UnknownValue` cannot be written.
pub const UNKNOWN_VALUE: &str =
    "is a value this build does not know (read from an item a newer design wrote): it cannot be written";

/// An enum value's word, or the refusal of `UnknownValue` (whose word is
/// empty) in a key or a condition.
pub fn known_word(
    word: &'static str,
    context: &'static str,
    name: &'static str,
) -> Result<&'static str, ValueError> {
    if word.is_empty() {
        Err(value_error(context, name, UNKNOWN_VALUE.to_owned()))
    } else {
        Ok(word)
    }
}

/// How a datetime is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TimeFormat {
    /// RFC 3339 in UTC with this many fractional digits (0, 3, 6 or 9).
    Rfc3339(u8),
    /// Seconds since the Unix epoch (12 digits in keys).
    EpochSeconds,
    /// Milliseconds since the Unix epoch (15 digits in keys).
    EpochMillis,
}

/// The time now, as precise as `format` stores it (so the value written
/// and the value read back are equal).
pub fn now(format: TimeFormat) -> DateTime {
    at_precision(DateTime::from(std::time::SystemTime::now()), format)
}

/// `time` as the attribute `name` stores it, in `format` (a condition's or
/// a filter's operand); an error when the format cannot hold it.
pub fn store_time(
    time: &DateTime,
    format: TimeFormat,
    context: &'static str,
    name: &'static str,
) -> Result<AttributeValue, ValueError> {
    Attr::store(time, Store::Time(format), context, name)
}

/// `time` as precise as `format` stores it.
pub fn at_precision(time: DateTime, format: TimeFormat) -> DateTime {
    let nanos = time.subsec_nanos();
    let kept = match format {
        TimeFormat::Rfc3339(0) | TimeFormat::EpochSeconds => 0,
        TimeFormat::Rfc3339(3) | TimeFormat::EpochMillis => nanos - nanos % 1_000_000,
        TimeFormat::Rfc3339(6) => nanos - nanos % 1_000,
        TimeFormat::Rfc3339(_) => nanos,
    };
    DateTime::from_secs_and_nanos(time.secs(), kept)
}

/// Appends a datetime placeholder in its fixed-width key form.
pub fn push_datetime(
    key: &mut String,
    value: DateTime,
    format: TimeFormat,
    context: &'static str,
    name: &'static str,
) -> Result<(), ValueError> {
    let pushed = match format {
        TimeFormat::Rfc3339(digits) => {
            singletable_codec::push_rfc3339(key, value.secs(), value.subsec_nanos(), digits)
        }
        TimeFormat::EpochSeconds => singletable_codec::push_epoch_seconds(key, value.secs()),
        TimeFormat::EpochMillis => {
            singletable_codec::push_epoch_millis(key, epoch_millis(value, context, name)?)
        }
    };
    pushed.map_err(|e| value_error(context, name, e.to_string()))
}

/// RFC 3339 in UTC with exactly `digits` fractional digits; `None` outside
/// years 0000 to 9999.
pub fn rfc3339(value: DateTime, digits: u8) -> Option<String> {
    singletable_codec::rfc3339(value.secs(), value.subsec_nanos(), digits).ok()
}

/// Milliseconds since the epoch, as the codec counts them.
fn epoch_millis(
    value: DateTime,
    context: &'static str,
    name: &'static str,
) -> Result<i64, ValueError> {
    singletable_codec::epoch_millis(value.secs(), value.subsec_nanos()).ok_or_else(|| {
        value_error(
            context,
            name,
            "milliseconds since the epoch overflow 64 bits".into(),
        )
    })
}

/// A datetime as a stored attribute.
pub fn datetime_to_av(
    value: DateTime,
    format: TimeFormat,
    context: &'static str,
    name: &'static str,
) -> Result<AttributeValue, ValueError> {
    match format {
        TimeFormat::Rfc3339(digits) => rfc3339(value, digits)
            .map(AttributeValue::S)
            .ok_or_else(|| value_error(context, name, "year outside 0000..=9999".into())),
        TimeFormat::EpochSeconds => Ok(AttributeValue::N(value.secs().to_string())),
        TimeFormat::EpochMillis => {
            epoch_millis(value, context, name).map(|m| AttributeValue::N(m.to_string()))
        }
    }
}

/// A stored datetime attribute; RFC 3339 accepts any fractional precision.
pub fn datetime_from_av(
    av: &AttributeValue,
    format: TimeFormat,
) -> Result<DateTime, DecodeProblem> {
    match format {
        TimeFormat::Rfc3339(_) => {
            let text = expect_s(av)?;
            // The form the codec writes is read directly; any other the
            // SDK's parser reads (or refuses) as before.
            if let Some((secs, nanos)) = singletable_codec::parse_rfc3339(text) {
                return Ok(DateTime::from_secs_and_nanos(secs, nanos));
            }
            DateTime::from_str(text, DateTimeFormat::DateTime)
                .map_err(|e| DecodeProblem::Invalid(e.to_string()))
        }
        TimeFormat::EpochSeconds => Ok(DateTime::from_secs(i64::from_av(av)?)),
        TimeFormat::EpochMillis => Ok(DateTime::from_millis(i64::from_av(av)?)),
    }
}

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

fn wrong_type(expected: &'static str, found: &AttributeValue) -> DecodeProblem {
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

/// An exact decimal number, kept as text in the canonical form DynamoDB
/// stores (`9.50` and `9.5E0` are both `9.5`), so a value compares equal to
/// itself after a round trip through the table.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Decimal(String);

impl Decimal {
    /// The number's canonical text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// DynamoDB numbers: up to 38 significant digits, magnitudes from 1E-130 to
/// below 1E+126.
const MAX_DIGITS: usize = 38;
const MAX_POINT: i64 = 126;
const MIN_POINT: i64 = -129;

impl std::str::FromStr for Decimal {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let invalid = || format!("{s:?} is not a decimal number");
        let (negative, body) = match s.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, s.strip_prefix('+').unwrap_or(s)),
        };
        let (mantissa, exponent) = match body.split_once(['e', 'E']) {
            Some((m, e)) => {
                let digits = e.strip_prefix(['-', '+']).unwrap_or(e);
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(invalid());
                }
                // Saturate: anything this large is out of range below.
                let e: i64 = e.parse().unwrap_or(if e.starts_with('-') {
                    i64::MIN / 2
                } else {
                    i64::MAX / 2
                });
                (m, e)
            }
            None => (body, 0),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
        if (int.is_empty() && frac.is_empty()) || !digits(int) || !digits(frac) {
            return Err(invalid());
        }
        // The significant digits, and where the point sits among them.
        let all = format!("{int}{frac}");
        let leading = all.len() - all.trim_start_matches('0').len();
        let significant = all.trim_start_matches('0').trim_end_matches('0');
        if significant.is_empty() {
            return Ok(Decimal("0".to_owned()));
        }
        if significant.len() > MAX_DIGITS {
            return Err(format!(
                "{s:?} has more than {MAX_DIGITS} significant digits"
            ));
        }
        let point = (int.len() as i64 - leading as i64).saturating_add(exponent);
        if !(MIN_POINT..=MAX_POINT).contains(&point) {
            return Err(format!("{s:?} is outside DynamoDB's number range"));
        }
        let mut text = String::with_capacity(significant.len() + 8);
        if negative {
            text.push('-');
        }
        let len = significant.len() as i64;
        if point <= 0 {
            text.push_str("0.");
            text.extend(std::iter::repeat_n('0', (-point) as usize));
            text.push_str(significant);
        } else if point >= len {
            text.push_str(significant);
            text.extend(std::iter::repeat_n('0', (point - len) as usize));
        } else {
            let (whole, fraction) = significant.split_at(point as usize);
            text.push_str(whole);
            text.push('.');
            text.push_str(fraction);
        }
        Ok(Decimal(text))
    }
}

impl std::fmt::Display for Decimal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Numeric order: `-2 < -1.5 < 0 < 0.45 < 0.5 < 10`.
impl Ord for Decimal {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        // Canonical text: an optional `-`, the whole part without leading
        // zeros, and a fraction without trailing zeros, so magnitudes
        // compare by the whole part's length, then digit by digit.
        fn magnitude(text: &str) -> (usize, &str, &str) {
            let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
            let whole = if whole == "0" { "" } else { whole };
            (whole.len(), whole, fraction)
        }
        let (a_negative, a) = match self.0.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, self.0.as_str()),
        };
        let (b_negative, b) = match other.0.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, other.0.as_str()),
        };
        match (a_negative, b_negative) {
            (true, false) => std::cmp::Ordering::Less,
            (false, true) => std::cmp::Ordering::Greater,
            (false, false) => magnitude(a).cmp(&magnitude(b)),
            (true, true) => magnitude(b).cmp(&magnitude(a)),
        }
    }
}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
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
fn number_set<T: Ord>(
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

impl SetElement for Decimal {
    fn to_set(set: &std::collections::BTreeSet<Self>) -> AttributeValue {
        AttributeValue::Ns(set.iter().map(|d| d.0.clone()).collect())
    }
    fn from_set(av: &AttributeValue) -> Result<std::collections::BTreeSet<Self>, DecodeProblem> {
        number_set(av, str::parse::<Decimal>)
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

/// Every `rust_decimal` value is a DynamoDB number (at most 28 digits).
#[cfg(feature = "rust_decimal")]
impl From<rust_decimal::Decimal> for Decimal {
    fn from(d: rust_decimal::Decimal) -> Self {
        let text = d.normalize().to_string();
        // Always canonical already; parsed to keep one form of zero.
        text.parse().unwrap_or(Decimal(text))
    }
}

/// A DynamoDB number as a `rust_decimal` value: an error when it has more
/// digits than `rust_decimal` keeps (28) or is out of its range.
#[cfg(feature = "rust_decimal")]
impl TryFrom<&Decimal> for rust_decimal::Decimal {
    type Error = String;
    fn try_from(d: &Decimal) -> Result<Self, String> {
        rust_decimal::Decimal::from_str_exact(&d.0)
            .map_err(|e| format!("{} does not fit a rust_decimal::Decimal: {e}", d.0))
    }
}

impl From<i64> for Decimal {
    fn from(n: i64) -> Self {
        Decimal(n.to_string())
    }
}

impl Attr for Decimal {
    fn to_av(&self) -> AttributeValue {
        AttributeValue::N(self.0.clone())
    }
    fn check(&self, how: Store) -> Result<(), String> {
        let Store::Decimal { min, max, scale } = how else {
            return Ok(());
        };
        let bound = |b: Option<&str>| b.and_then(|b| b.parse::<Decimal>().ok());
        if let Some(min) = bound(min).filter(|min| self < min) {
            return Err(format!("{self} is less than the least value {min}"));
        }
        if let Some(max) = bound(max).filter(|max| self > max) {
            return Err(format!("{self} is more than the greatest value {max}"));
        }
        let digits = self.0.split_once('.').map_or(0, |(_, f)| f.len());
        match scale {
            Some(scale) if digits > scale as usize => Err(format!(
                "{self} has {digits} digits after the point, more than the {scale} allowed"
            )),
            _ => Ok(()),
        }
    }
    fn from_av(av: &AttributeValue) -> Result<Self, DecodeProblem> {
        match av {
            AttributeValue::N(n) => n.parse().map_err(DecodeProblem::Invalid),
            other => Err(wrong_type("N", other)),
        }
    }
}

/// Whether the item's TTL attribute (epoch seconds) lies in the past.
/// DynamoDB deletes expired items lazily, up to days later, so reads skip them.
pub fn is_expired(item: &Item, ttl_attribute: &str, now: DateTime) -> bool {
    match item.get(ttl_attribute) {
        Some(AttributeValue::N(n)) => n.parse::<f64>().is_ok_and(|t| t < now.secs() as f64),
        _ => false,
    }
}

/// A random write shard in `0..count`.
pub fn random_shard(count: u32) -> u32 {
    fastrand::u32(0..count.max(1))
}

/// Checks a shard number against the shard count.
pub fn check_shard(shard: u32, count: u32, context: &'static str) -> Result<(), ValueError> {
    if shard < count {
        Ok(())
    } else {
        Err(value_error(
            context,
            "shard",
            format!("{shard} is not below the shard count {count}"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The encodings themselves are tested in `singletable-codec`; these
    // test the adaptation: `DateTime` to seconds and nanoseconds, and codec
    // errors to `ValueError`s that name the placeholder.

    #[test]
    fn integers_are_padded_and_errors_name_the_placeholder() {
        let mut k = String::new();
        push_integer(&mut k, -5, -10, 10, "E", "n").unwrap();
        assert_eq!(k, "05");
        let e = push_integer(&mut k, 11, -10, 10, "E", "n").unwrap_err();
        assert_eq!((e.context, e.name), ("E", "n"));
        assert_eq!(e.problem, "11 is outside -10..=10");
        assert_eq!(k, "05", "nothing appended");
    }

    #[test]
    fn rfc3339_has_a_fixed_width() {
        let t = DateTime::from_secs_and_nanos(1_714_564_800, 5_000_000);
        assert_eq!(rfc3339(t, 3).unwrap(), "2024-05-01T12:00:00.005Z");
        assert_eq!(rfc3339(t, 0).unwrap(), "2024-05-01T12:00:00Z");
        assert_eq!(
            rfc3339(DateTime::from_secs(-1), 0).unwrap(),
            "1969-12-31T23:59:59Z"
        );
        // Half a second before the epoch: the SDK keeps nanos positive.
        assert_eq!(
            rfc3339(DateTime::from_millis(-500), 3).unwrap(),
            "1969-12-31T23:59:59.500Z"
        );
        assert_eq!(rfc3339(DateTime::from_secs(-62_167_219_201), 0), None);
        let av = datetime_to_av(t, TimeFormat::Rfc3339(3), "E", "t").unwrap();
        assert_eq!(datetime_from_av(&av, TimeFormat::Rfc3339(3)).unwrap(), t);
    }

    #[test]
    fn datetimes_take_their_key_forms() {
        let t = DateTime::from_secs_and_nanos(1_714_564_800, 5_000_000);
        let key = |format| {
            let mut k = String::new();
            push_datetime(&mut k, t, format, "E", "t").map(|()| k)
        };
        assert_eq!(
            key(TimeFormat::Rfc3339(3)).unwrap(),
            "2024-05-01T12:00:00.005Z"
        );
        assert_eq!(key(TimeFormat::EpochSeconds).unwrap(), "001714564800");
        assert_eq!(key(TimeFormat::EpochMillis).unwrap(), "001714564800005");
        let mut k = String::new();
        let e = push_datetime(
            &mut k,
            DateTime::from_secs(-1),
            TimeFormat::EpochSeconds,
            "E",
            "t",
        )
        .unwrap_err();
        assert_eq!(e.problem, "-1 is outside 0..=999999999999");
        let far = DateTime::from_secs(i64::MAX);
        let e = push_datetime(&mut k, far, TimeFormat::Rfc3339(0), "E", "t").unwrap_err();
        assert_eq!(e.problem, "year outside 0000..=9999");
        assert!(push_datetime(&mut k, far, TimeFormat::EpochMillis, "E", "t").is_err());
        assert!(datetime_to_av(far, TimeFormat::EpochMillis, "E", "t").is_err());
        assert_eq!(k, "", "nothing appended");
        assert_eq!(
            datetime_to_av(t, TimeFormat::EpochMillis, "E", "t").unwrap(),
            AttributeValue::N("1714564800005".into())
        );
    }

    #[test]
    fn strings_outside_the_alphabet_are_refused() {
        let domain = StrDomain {
            min_len: 1,
            max_len: Some(4),
            alphabet: &[('a', 'z')],
            ascii: ascii_bits(&[('a', 'z')]),
            escape: false,
        };
        let mut k = String::new();
        assert!(push_str(&mut k, "ab|c", &domain, "E", "id").is_err());
        assert!(push_str(&mut k, "abé", &domain, "E", "id").is_err());
        assert!(push_str(&mut k, "", &domain, "E", "id").is_err());
        assert!(push_str(&mut k, "abcde", &domain, "E", "id").is_err());
        push_str(&mut k, "abc", &domain, "E", "id").unwrap();
        assert_eq!(k, "abc");
    }

    fn sdk_parse(text: &str) -> Option<DateTime> {
        DateTime::from_str(text, DateTimeFormat::DateTime).ok()
    }

    proptest::proptest! {
        /// The codec's RFC 3339 reader gives what the SDK's parser gives, on
        /// the texts it writes and on those texts with one byte changed.
        #[test]
        fn rfc3339_reads_as_the_sdk_does(
            secs in -62_167_219_200i64..=253_402_300_799,
            nanos in 0u32..1_000_000_000,
            digits in 0u8..=9,
            at in 0usize..40,
            byte in proptest::sample::select(b"0123456789-:.TtZz+ 9".to_vec()),
        ) {
            let text = singletable_codec::rfc3339(secs, nanos, digits).unwrap();
            let av = AttributeValue::S(text.clone());
            let ours = datetime_from_av(&av, TimeFormat::Rfc3339(digits)).ok();
            proptest::prop_assert_eq!(ours, sdk_parse(&text));
            let mut bytes = text.into_bytes();
            let at = at % bytes.len();
            bytes[at] = byte;
            let changed = String::from_utf8(bytes).unwrap();
            if let Some((s, n)) = singletable_codec::parse_rfc3339(&changed) {
                proptest::prop_assert_eq!(Some(DateTime::from_secs_and_nanos(s, n)), sdk_parse(&changed), "{}", changed);
            }
        }
    }

    #[test]
    fn ascii_bits_are_the_ascii_part_of_the_ranges() {
        let ranges = [
            ('-', '-'),
            ('0', '9'),
            ('a', 'c'),
            ('é', 'ü'),
            ('\u{7e}', '\u{10ffff}'),
        ];
        let bits = ascii_bits(&ranges);
        for c in (0u8..128).map(char::from) {
            let inside = ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi);
            assert_eq!((bits >> (c as u32)) & 1 == 1, inside, "{c:?}");
        }
        let class = AsciiClass {
            pattern: "^[a-c0-9-]{2,3}$",
            allowed: ascii_bits(&ranges[..3]),
            min: 2,
            max: Some(3),
        };
        assert!(class.matches("a-9") && class.matches("bb"));
        assert!(!class.matches("a") && !class.matches("abcd") && !class.matches("aé"));
        assert!(!class.matches("a_") && !class.matches("a\u{7f}"));
    }

    #[test]
    fn ascii_classes_match_each_character_by_its_bit() {
        // Classes on both sides of the two words' seam ('?' is bit 63, '@'
        // bit 64) and at its ends (NUL, DEL), against every ASCII character
        // and characters past ASCII (their bytes are all 128 or more).
        let classes: [&[(char, char)]; 4] = [
            &[('?', '@')],
            &[('\0', '\0'), ('\u{7f}', '\u{7f}')],
            &[('\0', '\u{7f}')],
            &[('0', '9'), ('A', 'Z'), ('_', '_'), ('a', 'z')],
        ];
        for ranges in classes {
            let class = AsciiClass {
                pattern: "",
                allowed: ascii_bits(ranges),
                min: 1,
                max: None,
            };
            for c in (0u8..128)
                .map(char::from)
                .chain(['é', '\u{80}', '\u{ff}', '€', '😀'])
            {
                let inside = ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi);
                let text = format!("{c}{c}");
                assert_eq!(class.matches(&text), inside, "{c:?} in {ranges:?}");
            }
        }
    }

    #[cfg(feature = "rust_decimal")]
    #[test]
    fn decimals_convert_to_and_from_rust_decimal() {
        for text in [
            "0",
            "-12.345",
            "9.5",
            "100",
            "0.000001",
            "79228162514264337593543950335",
        ] {
            let ours: Decimal = text.parse().unwrap();
            let theirs = rust_decimal::Decimal::try_from(&ours).unwrap();
            assert_eq!(Decimal::from(theirs), ours, "{text}");
        }
        let zero = rust_decimal::Decimal::new(-0, 3);
        assert_eq!(Decimal::from(zero).as_str(), "0");
        assert_eq!(
            Decimal::from(rust_decimal::Decimal::new(950, 2)).as_str(),
            "9.5"
        );
        let wide: Decimal = "1.2345678901234567890123456789012345".parse().unwrap();
        assert!(rust_decimal::Decimal::try_from(&wide).is_err());
    }

    #[test]
    fn decimals_order_as_numbers() {
        let sorted = [
            "-100", "-2", "-1.5", "-0.05", "0", "0.045", "0.45", "0.5", "1", "9.99", "10", "100.5",
        ];
        let parsed: Vec<Decimal> = sorted.iter().map(|s| s.parse().unwrap()).collect();
        for (i, a) in parsed.iter().enumerate() {
            for (j, b) in parsed.iter().enumerate() {
                assert_eq!(a.cmp(b), i.cmp(&j), "{a} against {b}");
            }
        }
    }

    #[test]
    fn sets_refuse_empty_and_read_their_own_type() {
        use std::collections::BTreeSet;
        let empty: BTreeSet<String> = BTreeSet::new();
        assert!(empty.store(Store::Plain, "E", "tags").is_err());
        let tags: BTreeSet<String> = ["b".into(), "a".into()].into();
        let stored = tags.store(Store::Plain, "E", "tags").unwrap();
        assert_eq!(stored, AttributeValue::Ss(vec!["a".into(), "b".into()]));
        assert_eq!(BTreeSet::<String>::from_av(&stored).unwrap(), tags);
        assert!(BTreeSet::<String>::from_av(&AttributeValue::L(vec![])).is_err());
        let numbers = AttributeValue::Ns(vec!["10".into(), "-2".into(), "1.50".into()]);
        let decimals = BTreeSet::<Decimal>::from_av(&numbers).unwrap();
        assert_eq!(
            decimals.iter().map(Decimal::as_str).collect::<Vec<_>>(),
            ["-2", "1.5", "10"]
        );
        assert!(
            BTreeSet::<i64>::from_av(&numbers).is_err(),
            "1.50 is no integer"
        );
        let bytes = AttributeValue::Bs(vec![Blob::new(vec![2]), Blob::new(vec![1])]);
        assert_eq!(
            BTreeSet::<Vec<u8>>::from_av(&bytes).unwrap(),
            [vec![1], vec![2]].into()
        );
    }

    #[test]
    fn decimals_are_validated() {
        for ok in ["0", "-1.5", "1e10", ".5", "5.", "+2E-3"] {
            assert!(ok.parse::<Decimal>().is_ok(), "{ok}");
        }
        for bad in ["", ".", "1.2.3", "e5", "1e", "abc", "--1", "1e-", "1e+x"] {
            assert!(bad.parse::<Decimal>().is_err(), "{bad}");
        }
    }

    #[test]
    fn decimals_take_dynamodbs_canonical_form() {
        for (text, canonical) in [
            ("9.50", "9.5"),
            ("009.500", "9.5"),
            ("-0.0", "0"),
            ("+2E-3", "0.002"),
            ("1e10", "10000000000"),
            ("12.5e1", "125"),
            (".5", "0.5"),
            ("5.", "5"),
            ("-0.00120", "-0.0012"),
            ("100", "100"),
        ] {
            assert_eq!(
                text.parse::<Decimal>().unwrap().as_str(),
                canonical,
                "{text}"
            );
        }
        assert_eq!(
            "9.50".parse::<Decimal>().unwrap(),
            "9.5".parse::<Decimal>().unwrap()
        );
        // DynamoDB's limits: 38 significant digits, 1E-130 up to below 1E+126.
        assert!("1e125".parse::<Decimal>().is_ok());
        assert!("1e126".parse::<Decimal>().is_err());
        assert!("1e-130".parse::<Decimal>().is_ok());
        assert!("1e-131".parse::<Decimal>().is_err());
        assert!("1e99999999999999999999999".parse::<Decimal>().is_err());
        assert!("12345678901234567890123456789012345678"
            .parse::<Decimal>()
            .is_ok());
        assert!("123456789012345678901234567890123456789"
            .parse::<Decimal>()
            .is_err());
        assert!("0e99999999999999999999".parse::<Decimal>().is_ok());
    }

    #[test]
    fn decode_errors_name_the_type() {
        let e = i64::from_av(&AttributeValue::S("x".into())).unwrap_err();
        assert_eq!(
            e,
            DecodeProblem::WrongType {
                expected: "N",
                found: "S"
            }
        );
        assert!(i64::from_av(&AttributeValue::N("1.5".into())).is_err());
    }
}

/// An item being written by a generated `to_item`, one line per attribute;
/// errors name the entity and the attribute.
#[derive(Debug)]
pub struct ItemWriter {
    item: crate::Item,
    entity: &'static str,
}

impl ItemWriter {
    /// Starts from the key attributes, with room for `attributes` more.
    pub fn new(mut key: crate::Item, entity: &'static str, attributes: usize) -> Self {
        key.reserve(attributes);
        ItemWriter { item: key, entity }
    }

    /// Writes an attribute.
    pub fn put<T: Attr>(
        &mut self,
        name: &'static str,
        value: &T,
        how: Store,
    ) -> Result<(), ValueError> {
        let value = value.store(how, self.entity, name)?;
        self.item.insert(name.to_owned(), value);
        Ok(())
    }

    /// Writes an optional attribute when it has a value.
    pub fn put_opt<T: Attr>(
        &mut self,
        name: &'static str,
        value: &Option<T>,
        how: Store,
    ) -> Result<(), ValueError> {
        match value {
            Some(value) => self.put(name, value, how),
            None => Ok(()),
        }
    }

    /// Writes an attribute already encoded (the entity type, a key).
    pub fn raw(&mut self, name: &'static str, value: AttributeValue) {
        self.item.insert(name.to_owned(), value);
    }

    /// The item.
    pub fn finish(self) -> crate::Item {
        self.item
    }
}
