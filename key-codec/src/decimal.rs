//! Decimal numbers written as text (`-12.50`, `1e308`), compared exactly:
//! the order DynamoDB gives Numbers, without the rounding of `f64`.

use std::cmp::Ordering;

/// A decimal as sign, significant digits and the power of ten of the
/// first digit's place plus one (`12.5` is `+`, `125`, `2`).
struct Parts {
    negative: bool,
    digits: Vec<u8>,
    point: i64,
}

fn parse(text: &str) -> Option<Parts> {
    let (negative, rest) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(at) => (&rest[..at], Some(&rest[at + 1..])),
        None => (rest, None),
    };
    let exponent: i64 = match exponent {
        None => 0,
        Some(e) => {
            let (sign, digits) = match e.as_bytes().first()? {
                b'-' => (-1, &e[1..]),
                b'+' => (1, &e[1..]),
                _ => (1, e),
            };
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            // Past any digit count a text can hold: saturate.
            sign * digits
                .parse::<i64>()
                .unwrap_or(i64::MAX / 4)
                .min(i64::MAX / 4)
        }
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if whole.is_empty() && fraction.is_empty()
        || !whole
            .bytes()
            .chain(fraction.bytes())
            .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let all: Vec<u8> = whole
        .bytes()
        .chain(fraction.bytes())
        .map(|b| b - b'0')
        .collect();
    let leading = all.iter().take_while(|d| **d == 0).count();
    let mut digits = all[leading..].to_vec();
    while digits.last() == Some(&0) {
        digits.pop();
    }
    let point = whole.len() as i64 - leading as i64 + exponent;
    Some(Parts {
        negative: negative && !digits.is_empty(),
        digits,
        point,
    })
}

/// `a` against `b` as numbers; `None` when either is not a decimal
/// number (digits with an optional sign, point and exponent).
pub fn compare_decimal(a: &str, b: &str) -> Option<Ordering> {
    let (a, b) = (parse(a)?, parse(b)?);
    let magnitude = |x: &Parts, y: &Parts| match (x.digits.is_empty(), y.digits.is_empty()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (false, false) => x.point.cmp(&y.point).then_with(|| x.digits.cmp(&y.digits)),
    };
    Some(match (a.negative, b.negative) {
        (false, false) => magnitude(&a, &b),
        (true, true) => magnitude(&b, &a),
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn compares_what_f64_rounds_together() {
        assert_eq!(
            compare_decimal("0.1", "0.10000000000000001"),
            Some(Ordering::Less)
        );
        assert_eq!(
            compare_decimal("100000.005", "100000.00500"),
            Some(Ordering::Equal)
        );
        assert_eq!(compare_decimal("-0", "0.000"), Some(Ordering::Equal));
        assert_eq!(compare_decimal("1e308", "99999"), Some(Ordering::Greater));
        assert_eq!(compare_decimal("-1e-3", "-0.0011"), Some(Ordering::Greater));
        assert_eq!(compare_decimal("12.5", "1.25E1"), Some(Ordering::Equal));
        assert_eq!(compare_decimal("1.", "x"), None);
        assert_eq!(compare_decimal("", "1"), None);
        assert_eq!(compare_decimal("1e", "1"), None);
    }

    proptest! {
        /// On numbers `f64` holds exactly (integers and halves), the
        /// order is `f64`'s, however they are written.
        #[test]
        fn agrees_with_f64_where_it_is_exact(a in -1_000_000i64..1_000_000, b in -1_000_000i64..1_000_000, zeros in 0usize..4) {
            let (x, y) = (a as f64 / 2.0, b as f64 / 2.0);
            let written = |v: f64| format!("{v:.1}{}", "0".repeat(zeros));
            prop_assert_eq!(compare_decimal(&written(x), &written(y)), x.partial_cmp(&y));
            prop_assert_eq!(compare_decimal(&format!("{x:e}"), &written(y)), x.partial_cmp(&y));
        }
    }
}
