//! [`Decimal`]: a DynamoDB number kept as written, and number sets.

use super::*;

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

    /// A decimal of text already in canonical form.
    pub(super) fn canonical(text: String) -> Decimal {
        Decimal(text)
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

impl SetElement for Decimal {
    fn to_set(set: &std::collections::BTreeSet<Self>) -> AttributeValue {
        AttributeValue::Ns(set.iter().map(|d| d.0.clone()).collect())
    }
    fn from_set(av: &AttributeValue) -> Result<std::collections::BTreeSet<Self>, DecodeProblem> {
        number_set(av, str::parse::<Decimal>)
    }
}
