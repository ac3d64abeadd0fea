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

mod attr;
mod decimal;
mod decimal_math;
#[cfg(test)]
mod tests;
mod time;
mod writer;

pub use attr::*;
pub use decimal::*;
pub use time::*;
pub use writer::*;

/// What a string placeholder may hold, as the spec declares it.
#[derive(Debug, Clone, Copy)]
pub struct StrDomain {
    /// Least length in bytes (before escaping).
    pub min_len: usize,
    /// Greatest length in bytes (before escaping).
    pub max_len: Option<usize>,
    /// Allowed characters as inclusive ranges (of the value before escaping).
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
    // The value meets its alphabet whether it is escaped or not: an
    // escaped query parameter is checked as a written value is.
    let ascii = |b: u8| b < 128 && (domain.ascii >> b) & 1 == 1;
    if !value.bytes().all(ascii) {
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
    }
    if domain.escape {
        push_escaped(key, value);
    } else {
        key.push_str(value);
    }
    Ok(())
}

/// Appends a string value to a key in one letter case: checked as
/// [`push_str`] checks it (the value as given meets its domain), then
/// folded, then escaped when the domain says.
pub fn push_cased(
    key: &mut String,
    value: &str,
    domain: &StrDomain,
    case: Case,
    context: &'static str,
    name: &'static str,
) -> Result<(), ValueError> {
    let start = key.len();
    push_str(key, value, domain, context, name)?;
    // Folded first, then escaped: escaping writes every character but
    // ASCII letters, digits and `_` as upper-case hex.
    if let std::borrow::Cow::Owned(folded) = case.fold(value) {
        key.truncate(start);
        if domain.escape {
            push_escaped(key, &folded);
        } else {
            key.push_str(&folded);
        }
    }
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

pub use singletable_codec::{hash_shard, push_escaped, unescape, Case};

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

/// The refusal of a value whose type has no key encoding (a decimal, a
/// list, a map, a set, bytes) where a key template places it.
pub fn not_in_key(context: &'static str, name: &'static str) -> ValueError {
    value_error(
        context,
        name,
        "has no key encoding: it cannot be part of a key".to_owned(),
    )
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
