//! How placeholder values are written into keys, as far as checks need it:
//! which characters an encoded value may contain, how long it can be, and
//! whether string order equals value order.
//!
//! The encodings (implemented once, in `singletable_codec`, which the
//! runtime key codec and the Workbench samples call):
//! - strings as written, or percent-encoded when the attribute sets `escape`
//!   (every character other than ASCII letters, digits and `_` becomes `%XX`
//!   per UTF-8 byte);
//! - integers as zero-padded decimal digits, offset by `-min` when `min < 0`,
//!   to the width of the largest value, so string order is numeric order;
//! - RFC 3339 datetimes in UTC with a fixed number of fractional digits
//!   (`2024-05-01T12:00:00.000Z`); epoch datetimes as zero-padded integers
//!   (12 digits for seconds, 15 for milliseconds);
//! - enums and booleans as their words; shards as decimal numbers.

use crate::ir::{self, AttributeType, CharSet, DatetimeFormat, PlaceholderKind, TimePrecision};

/// What an encoded placeholder value can look like.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Domain {
    /// Characters the encoded value may contain.
    pub alphabet: CharSet,
    /// Least encoded length in bytes (at least 1: key placeholders are never empty).
    pub min_len: usize,
    /// Greatest encoded length in bytes, when bounded.
    pub max_len: Option<usize>,
    /// The encoding percent-escapes delimiters.
    pub escaped: bool,
    /// String order of encoded values equals the order of the values.
    pub ordered: bool,
    /// Every encoded value has the same length.
    pub fixed_width: bool,
    /// For fixed formats (integers, datetimes, small shard numbers): the
    /// characters each position may hold, so that key languages know that
    /// `2024-05-01T12:00:00Z` has a `-` in its fifth place and is never `1`.
    pub positions: Option<Vec<CharSet>>,
}

fn chars(s: &str) -> CharSet {
    let mut ranges: Vec<(char, char)> = s.chars().map(|c| (c, c)).collect();
    ranges.sort_unstable();
    ranges.dedup();
    CharSet { ranges }
}

fn digits() -> CharSet {
    CharSet {
        ranges: vec![('0', '9')],
    }
}

/// Decimal digits needed for `n`.
pub fn width(n: u128) -> usize {
    n.checked_ilog10().map_or(1, |l| l as usize + 1)
}

/// The key encoding of an integer with these bounds: zero-padded, offset by
/// `-min` when `min` is negative, so text order is numeric order (the
/// runtime's encoding, from `singletable_codec`). A value outside the bounds
/// has no key encoding and is written as plain decimal.
pub fn encode_integer(min: i64, max: i64, value: i64) -> String {
    singletable_codec::encode_integer(value, min, max).unwrap_or_else(|_| value.to_string())
}

/// The encoded width of an integer with these bounds.
pub fn integer_width(min: i64, max: i64) -> usize {
    ir::KeyEncoding::integer_width(min, max)
}

fn fixed(alphabet: CharSet, len: usize, ordered: bool) -> Domain {
    Domain {
        positions: Some(vec![alphabet.clone(); len]),
        alphabet,
        min_len: len,
        max_len: Some(len),
        escaped: false,
        ordered,
        fixed_width: true,
    }
}

/// The positions of a fixed format: `d` a digit, any other character itself.
fn format_positions(format: &str) -> Vec<CharSet> {
    format
        .chars()
        .map(|c| {
            if c == 'd' {
                digits()
            } else {
                chars(&c.to_string())
            }
        })
        .collect()
}

/// A fixed-format type, as [`fixed_domain`] keys it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fixed {
    Integer(i64, i64),
    Rfc3339(TimePrecision),
    EpochSeconds,
    EpochMillis,
}

/// Fixed formats built lately, per thread: a large spec asks for the same
/// few (its datetimes, its integers' bounds) thousands of times, and each
/// is a character set per position.
const FIXED_CACHE_SIZE: usize = 64;

thread_local! {
    static FIXED_CACHE: std::cell::RefCell<Vec<(Fixed, Domain)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// The domain of a fixed-format type.
fn fixed_domain(key: Fixed) -> Domain {
    if let Some(hit) =
        FIXED_CACHE.with_borrow(|c| c.iter().find(|(k, _)| *k == key).map(|(_, d)| d.clone()))
    {
        return hit;
    }
    let domain = match key {
        Fixed::Integer(min, max) => fixed(digits(), integer_width(min, max), true),
        Fixed::Rfc3339(precision) => {
            let fraction = match precision {
                TimePrecision::Seconds => 0,
                TimePrecision::Millis => 4,
                TimePrecision::Micros => 7,
                TimePrecision::Nanos => 10,
            };
            let fraction = match fraction {
                0 => String::new(),
                n => format!(".{}", "d".repeat(n - 1)),
            };
            let positions = format_positions(&format!("dddd-dd-ddTdd:dd:dd{fraction}Z"));
            Domain {
                positions: Some(positions),
                ..fixed(chars("0123456789-:.TZ"), 20 + fraction.len(), true)
            }
        }
        Fixed::EpochSeconds => fixed(digits(), 12, true),
        Fixed::EpochMillis => fixed(digits(), 15, true),
    };
    FIXED_CACHE.with_borrow_mut(|c| {
        if c.len() >= FIXED_CACHE_SIZE {
            c.clear();
        }
        c.push((key, domain.clone()));
    });
    domain
}

/// The domain of a value of `ty` in a key; `escape` is the attribute's flag.
pub fn type_domain(ty: &AttributeType, escape: bool) -> Domain {
    match ty {
        AttributeType::String {
            min_length,
            max_length,
            pattern,
            alphabet,
        } => {
            let pattern_max = pattern.as_deref().and_then(crate::alphabet::max_length);
            let max = match (max_length.map(|m| m as usize), pattern_max) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            let (alphabet, max) = if escape {
                let mut set = chars("%_");
                set.ranges.extend([('0', '9'), ('A', 'Z'), ('a', 'z')]);
                set.ranges.sort_unstable();
                (set, max.map(|m| m * 3))
            } else {
                (alphabet.clone(), max)
            };
            Domain {
                positions: None,
                alphabet,
                min_len: min_length.unwrap_or(1).max(1) as usize,
                max_len: max,
                escaped: escape,
                ordered: !escape,
                fixed_width: false,
            }
        }
        AttributeType::Integer { min, max } => fixed_domain(Fixed::Integer(*min, *max)),
        AttributeType::Datetime { format, precision } => fixed_domain(match format {
            DatetimeFormat::Rfc3339 => Fixed::Rfc3339(*precision),
            DatetimeFormat::EpochSeconds => Fixed::EpochSeconds,
            DatetimeFormat::EpochMillis => Fixed::EpochMillis,
        }),
        AttributeType::Enum { values } => Domain {
            positions: None,
            alphabet: chars(&values.concat()),
            min_len: values.iter().map(String::len).min().unwrap_or(1).max(1),
            max_len: values.iter().map(String::len).max(),
            escaped: false,
            ordered: false,
            fixed_width: values.windows(2).all(|w| w[0].len() == w[1].len()),
        },
        AttributeType::Boolean => Domain {
            positions: None,
            alphabet: chars("truefals"),
            min_len: 4,
            max_len: Some(5),
            escaped: false,
            ordered: false,
            fixed_width: false,
        },
        _ => Domain {
            positions: None,
            alphabet: CharSet::any(),
            min_len: 1,
            max_len: None,
            escaped: false,
            ordered: false,
            fixed_width: false,
        },
    }
}

/// The domain of a value of `ty` written into keys in `encoding`: its
/// type's domain, in one letter case and escaped as the encoding says (an
/// escaped value is folded first, so its domain is the escape's).
pub fn key_domain(ty: &AttributeType, encoding: ir::KeyEncoding) -> Domain {
    let domain = type_domain(ty, encoding.is_escaped());
    match encoding.case() {
        Some(case) if !encoding.is_escaped() => cased(domain, case.codec()),
        _ => domain,
    }
}

/// The domain of an attribute's values in keys.
pub fn attribute_domain(attribute: &ir::Attribute) -> Domain {
    key_domain(&attribute.r#type, attribute.key_encoding())
}

/// A string domain in one letter case: the alphabet is the case's image of
/// the value's (a character the case changes is replaced by what it
/// becomes), and text order is no longer value order. Outside ASCII a
/// character's image can be up to three times as long, or (the Kelvin sign
/// `K` becomes `k`) a third as long.
fn cased(domain: Domain, case: singletable_codec::Case) -> Domain {
    let ascii = domain.alphabet.ranges.iter().all(|&(_, hi)| hi.is_ascii());
    let (min_len, max_len) = if ascii {
        (domain.min_len, domain.max_len)
    } else {
        (
            domain.min_len.div_ceil(3).max(1),
            domain.max_len.map(|m| m * 3),
        )
    };
    Domain {
        alphabet: fold_alphabet(&domain.alphabet, case),
        min_len,
        max_len,
        ordered: false,
        positions: None,
        fixed_width: domain.fixed_width && ascii,
        ..domain
    }
}

/// Every character a case changes, with what it becomes, in order.
fn case_changes(case: singletable_codec::Case) -> &'static [(char, Vec<char>)] {
    use std::sync::OnceLock;
    static LOWER: OnceLock<Vec<(char, Vec<char>)>> = OnceLock::new();
    static UPPER: OnceLock<Vec<(char, Vec<char>)>> = OnceLock::new();
    let cell = match case {
        singletable_codec::Case::Lower => &LOWER,
        singletable_codec::Case::Upper => &UPPER,
    };
    cell.get_or_init(|| {
        ('\0'..=char::MAX)
            .filter_map(|c| {
                let image: Vec<char> = case.fold_char(c).collect();
                let mut image = if image == [c] { return None } else { image };
                // Σ at the end of a word lower-cases to ς.
                if case == singletable_codec::Case::Lower && c == 'Σ' {
                    image.push('ς');
                }
                Some((c, image))
            })
            .collect()
    })
}

/// The characters of values of `set` once written in `case`: exact for
/// ASCII (where delimiters are), a superset beyond it (a non-ASCII letter
/// the case changes stays in, so the set keeps few ranges: the runtime's
/// shape checks and the generated code hold it).
pub fn fold_alphabet(set: &CharSet, case: singletable_codec::Case) -> CharSet {
    let changes = case_changes(case);
    let mut ranges: Vec<(char, char)> = Vec::new();
    let mut images: Vec<char> = Vec::new();
    for &(lo, hi) in &set.ranges {
        let first = changes.partition_point(|(c, _)| *c < lo);
        let mut start = Some(lo);
        for (c, image) in changes[first..].iter().take_while(|(c, _)| *c <= hi) {
            images.extend(image);
            if !c.is_ascii() {
                continue;
            }
            if let Some(s) = start.filter(|s| s < c) {
                ranges.push((s, char::from_u32(*c as u32 - 1).unwrap_or(s)));
            }
            start = char::from_u32(*c as u32 + 1).filter(|n| *n <= hi);
        }
        if let Some(s) = start {
            ranges.push((s, hi));
        }
    }
    ranges.extend(images.into_iter().map(|c| (c, c)));
    ranges.sort_unstable();
    let mut merged: Vec<(char, char)> = Vec::with_capacity(ranges.len());
    for (lo, hi) in ranges {
        match merged.last_mut() {
            Some(last) if lo as u32 <= last.1 as u32 + 1 => last.1 = last.1.max(hi),
            _ => merged.push((lo, hi)),
        }
    }
    CharSet { ranges: merged }
}

/// The domain of the tenant placeholder.
pub fn tenant_domain(tenant: &ir::Tenant) -> Domain {
    Domain {
        positions: None,
        alphabet: tenant.alphabet.clone(),
        min_len: tenant.min_length.max(1),
        max_len: tenant.max_length,
        escaped: false,
        ordered: true,
        fixed_width: false,
    }
}

/// The domain of the shard placeholder for `count` shards.
pub fn shard_domain(count: u32) -> Domain {
    Domain {
        positions: (count <= 10).then(|| vec![digits()]),
        alphabet: digits(),
        min_len: 1,
        max_len: Some(width(u128::from(count.saturating_sub(1)))),
        escaped: false,
        ordered: false,
        fixed_width: count <= 10,
    }
}

/// The domain of a placeholder of an entity's key template.
pub fn entity_placeholder_domain(
    spec: &ir::Spec,
    entity: &ir::Entity,
    p: &ir::Placeholder,
) -> Domain {
    match p.kind {
        PlaceholderKind::Tenant => spec
            .tenant
            .as_ref()
            .map_or_else(|| type_domain(&AttributeType::ANY, false), tenant_domain),
        PlaceholderKind::Shard => shard_domain(entity.shards.as_ref().map_or(1, |s| s.count.value)),
        PlaceholderKind::Attribute => match entity.attributes.get(&p.name.value) {
            Some(a) => attribute_domain(a),
            None => type_domain(&AttributeType::ANY, false),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_width_covers_the_range() {
        assert_eq!(integer_width(0, 999), 3);
        assert_eq!(integer_width(-5, 5), 2);
        assert_eq!(integer_width(i64::MIN, i64::MAX), 20);
        assert_eq!(integer_width(0, 0), 1);
    }

    #[test]
    fn rfc3339_millis_is_24_characters() {
        let d = type_domain(
            &AttributeType::Datetime {
                format: DatetimeFormat::Rfc3339,
                precision: TimePrecision::Millis,
            },
            false,
        );
        assert_eq!(d.max_len, Some("2024-05-01T12:00:00.000Z".len()));
        assert!(!d.alphabet.contains('#'));
    }

    #[test]
    fn a_folded_alphabet_holds_every_folded_value() {
        use singletable_codec::Case;
        let sets = [
            CharSet::any(),
            CharSet {
                ranges: vec![('A', 'Z'), ('a', 'f')],
            },
            CharSet {
                ranges: vec![('-', '-'), ('0', '9'), ('A', 'Z')],
            },
            CharSet {
                ranges: vec![('\u{370}', '\u{3ff}'), ('\u{2126}', '\u{212b}')],
            },
        ];
        for set in &sets {
            for case in [Case::Lower, Case::Upper] {
                let folded = fold_alphabet(set, case);
                for &(lo, hi) in &set.ranges {
                    for c in (lo..=hi).step_by(7).chain([lo, hi]) {
                        for f in case.fold(&format!("{c}{c}")).chars() {
                            assert!(folded.contains(f), "{f:?} ({c:?}, {case:?})");
                        }
                    }
                }
            }
        }
        let upper = fold_alphabet(&sets[2], Case::Lower);
        assert_eq!(upper.ranges, vec![('-', '-'), ('0', '9'), ('a', 'z')]);
        let mixed = fold_alphabet(&sets[1], Case::Upper);
        assert_eq!(mixed.ranges, vec![('A', 'Z')]);
        // The Kelvin sign lower-cases to an ASCII k.
        assert!(fold_alphabet(&sets[3], Case::Lower).contains('k'));
    }

    #[test]
    fn escaped_strings_contain_no_delimiters_but_percent() {
        let ty = AttributeType::String {
            min_length: None,
            max_length: Some(10),
            pattern: None,
            alphabet: CharSet::any(),
        };
        let d = type_domain(&ty, true);
        assert!(!d.alphabet.contains('#') && !d.alphabet.contains('|') && d.alphabet.contains('%'));
        assert_eq!(d.max_len, Some(30));
    }
}
