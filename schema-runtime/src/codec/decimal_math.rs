//! Exact arithmetic on [`Decimal`]: sums, differences and products computed
//! digit by digit, rounding to a scale, and text at a declared scale.
//!
//! A result is exact or it is `None`: DynamoDB keeps 38 significant digits
//! between 1E-130 and 1E+126, and a result outside that is refused rather
//! than rounded, as DynamoDB refuses it.

use super::Decimal;

/// A decimal as `(-1)^negative × digits × 10^exponent`, its digits most
/// significant first, without leading zeros (zero has none).
#[derive(Clone)]
struct Parts {
    negative: bool,
    digits: Vec<u8>,
    exponent: i64,
}

impl Parts {
    fn of(d: &Decimal) -> Parts {
        let text = d.as_str();
        let (negative, body) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (whole, fraction) = body.split_once('.').unwrap_or((body, ""));
        let mut digits: Vec<u8> = whole
            .bytes()
            .chain(fraction.bytes())
            .map(|b| b - b'0')
            .collect();
        let leading = digits.iter().take_while(|&&d| d == 0).count();
        digits.drain(..leading);
        Parts {
            negative,
            digits,
            exponent: -(fraction.len() as i64),
        }
    }

    /// The digits shifted left by `by` places (zeros appended).
    fn shifted(&self, by: i64) -> Vec<u8> {
        let mut digits = self.digits.clone();
        digits.extend(std::iter::repeat_n(0, by.max(0) as usize));
        digits
    }

    /// Back to a `Decimal`: `None` outside DynamoDB's numbers.
    fn decimal(&self) -> Option<Decimal> {
        if self.digits.is_empty() {
            return Some(Decimal::from(0));
        }
        let mut text = String::with_capacity(self.digits.len() + 24);
        if self.negative {
            text.push('-');
        }
        text.extend(self.digits.iter().map(|&d| char::from(b'0' + d)));
        text.push('e');
        text.push_str(&self.exponent.to_string());
        text.parse().ok()
    }
}

/// The magnitude `a` compared with `b`, both without leading zeros.
fn compare(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

fn trim(mut digits: Vec<u8>) -> Vec<u8> {
    let leading = digits.iter().take_while(|&&d| d == 0).count();
    digits.drain(..leading);
    digits
}

fn add_magnitudes(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(a.len().max(b.len()) + 1);
    let (mut i, mut j, mut carry) = (a.len(), b.len(), 0u8);
    while i > 0 || j > 0 || carry > 0 {
        let mut sum = carry;
        if i > 0 {
            i -= 1;
            sum += a[i];
        }
        if j > 0 {
            j -= 1;
            sum += b[j];
        }
        out.push(sum % 10);
        carry = sum / 10;
    }
    out.reverse();
    trim(out)
}

/// `a - b` for magnitudes with `a >= b`.
fn sub_magnitudes(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(a.len());
    let (mut j, mut borrow) = (b.len(), 0i8);
    for i in (0..a.len()).rev() {
        let mut digit = a[i] as i8 - borrow;
        if j > 0 {
            j -= 1;
            digit -= b[j] as i8;
        }
        borrow = i8::from(digit < 0);
        out.push((digit + 10 * borrow) as u8);
    }
    out.reverse();
    trim(out)
}

fn mul_magnitudes(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = vec![0u32; a.len() + b.len()];
    for (i, &x) in a.iter().enumerate().rev() {
        for (j, &y) in b.iter().enumerate().rev() {
            out[i + j + 1] += u32::from(x) * u32::from(y);
        }
    }
    for k in (1..out.len()).rev() {
        out[k - 1] += out[k] / 10;
        out[k] %= 10;
    }
    trim(out.into_iter().map(|d| d as u8).collect())
}

fn sum(a: &Decimal, b: &Decimal, negate_b: bool) -> Option<Decimal> {
    let (x, mut y) = (Parts::of(a), Parts::of(b));
    y.negative ^= negate_b;
    let exponent = x.exponent.min(y.exponent);
    let (xd, yd) = (
        x.shifted(x.exponent - exponent),
        y.shifted(y.exponent - exponent),
    );
    let (xd, yd) = (trim(xd), trim(yd));
    let (negative, digits) = if x.negative == y.negative {
        (x.negative, add_magnitudes(&xd, &yd))
    } else if compare(&xd, &yd).is_ge() {
        (x.negative, sub_magnitudes(&xd, &yd))
    } else {
        (y.negative, sub_magnitudes(&yd, &xd))
    };
    Parts {
        negative,
        digits,
        exponent,
    }
    .decimal()
}

impl Decimal {
    /// `coefficient × 10^-scale`, as `rust_decimal::Decimal::new` reads it:
    /// `Decimal::new(12050, 2)` is `120.5`. `None` outside DynamoDB's numbers.
    pub fn new(coefficient: i64, scale: u32) -> Option<Decimal> {
        format!("{coefficient}e-{scale}").parse().ok()
    }

    /// `self + other`, exactly; `None` when the sum has more than 38
    /// significant digits or is outside DynamoDB's range.
    pub fn checked_add(&self, other: &Decimal) -> Option<Decimal> {
        sum(self, other, false)
    }

    /// `self - other`, exactly; `None` as for [`checked_add`](Self::checked_add).
    pub fn checked_sub(&self, other: &Decimal) -> Option<Decimal> {
        sum(self, other, true)
    }

    /// `self × other`, exactly; `None` as for [`checked_add`](Self::checked_add).
    pub fn checked_mul(&self, other: &Decimal) -> Option<Decimal> {
        let (x, y) = (Parts::of(self), Parts::of(other));
        Parts {
            negative: x.negative != y.negative,
            digits: mul_magnitudes(&x.digits, &y.digits),
            exponent: x.exponent + y.exponent,
        }
        .decimal()
    }

    /// Whether the number is below zero.
    pub fn is_negative(&self) -> bool {
        self.as_str().starts_with('-')
    }

    /// The number of digits after the point (`120.5` has 1, `120` none).
    pub fn scale(&self) -> u32 {
        self.as_str()
            .split_once('.')
            .map_or(0, |(_, f)| f.len() as u32)
    }

    /// The number rounded to `scale` digits after the point, half to even
    /// (banker's rounding, as `rust_decimal`'s `round_dp`): `2.345` to 2
    /// digits is `2.34`, `2.355` is `2.36`. `None` only when rounding up
    /// leaves DynamoDB's range.
    pub fn round_to(&self, scale: u32) -> Option<Decimal> {
        let parts = Parts::of(self);
        let drop = -parts.exponent - i64::from(scale);
        if drop <= 0 {
            return Some(self.clone());
        }
        let drop = drop as usize;
        let digits = &parts.digits;
        if drop > digits.len() {
            // Every digit is below half a unit of the last place kept.
            return Some(Decimal::from(0));
        }
        let (kept, dropped) = digits.split_at(digits.len() - drop);
        let half = dropped[0].cmp(&5).then_with(|| {
            if dropped[1..].iter().any(|&d| d != 0) {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        });
        let odd = kept.last().is_some_and(|d| d % 2 == 1);
        let up = half.is_gt() || (half.is_eq() && odd);
        let kept = if up {
            add_magnitudes(kept, &[1])
        } else {
            trim(kept.to_vec())
        };
        Parts {
            negative: parts.negative,
            digits: kept,
            exponent: parts.exponent + drop as i64,
        }
        .decimal()
    }

    /// The number's text with at least `scale` digits after the point, as
    /// a price declared with `scale: 2` is shown: `120` is `"120.00"`,
    /// `9.5` is `"9.50"`. A number with more digits keeps them all.
    pub fn to_string_with_scale(&self, scale: u32) -> String {
        let text = self.as_str();
        let has = self.scale();
        if has >= scale {
            return text.to_owned();
        }
        let mut out = String::with_capacity(text.len() + scale as usize + 1);
        out.push_str(text);
        if has == 0 {
            out.push('.');
        }
        out.extend(std::iter::repeat_n('0', (scale - has) as usize));
        out
    }
}

/// `-self`, exact.
impl std::ops::Neg for &Decimal {
    type Output = Decimal;
    fn neg(self) -> Decimal {
        match self.as_str().strip_prefix('-') {
            Some(magnitude) => Decimal::canonical(magnitude.to_owned()),
            None if self.as_str() == "0" => self.clone(),
            None => Decimal::canonical(format!("-{}", self.as_str())),
        }
    }
}

/// `-self`, exact.
impl std::ops::Neg for Decimal {
    type Output = Decimal;
    fn neg(self) -> Decimal {
        -&self
    }
}

impl std::iter::Sum<Decimal> for Option<Decimal> {
    /// The exact sum; `None` when any partial sum leaves DynamoDB's numbers.
    fn sum<I: Iterator<Item = Decimal>>(mut iter: I) -> Option<Decimal> {
        iter.try_fold(Decimal::from(0), |total, d| total.checked_add(&d))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn d(text: &str) -> Decimal {
        text.parse().unwrap()
    }

    #[test]
    fn sums_differences_and_products_are_exact() {
        assert_eq!(d("0.1").checked_add(&d("0.2")), Some(d("0.3")));
        assert_eq!(d("120").checked_sub(&d("120.5")), Some(d("-0.5")));
        assert_eq!(d("-1.5").checked_mul(&d("-2")), Some(d("3")));
        assert_eq!(d("19.99").checked_mul(&d("3")), Some(d("59.97")));
        assert_eq!(d("5").checked_sub(&d("5")), Some(d("0")));
        assert_eq!(d("1e125").checked_mul(&d("10")), None);
        // 39 significant digits: not a DynamoDB number.
        let wide = "1".repeat(38);
        assert_eq!(d(&wide).checked_add(&d("0.1")), None);
        assert_eq!(d("1e100").checked_add(&d("-1e100")), Some(d("0")));
        assert_eq!(-d("2.5"), d("-2.5"));
        assert_eq!(-&d("-2.5"), d("2.5"));
        assert_eq!(-d("0"), d("0"));
        assert_eq!(Decimal::new(12050, 2), Some(d("120.5")));
        assert_eq!(Decimal::new(-7, 0), Some(d("-7")));
    }

    #[test]
    fn rounding_is_half_to_even() {
        assert_eq!(d("2.345").round_to(2), Some(d("2.34")));
        assert_eq!(d("2.355").round_to(2), Some(d("2.36")));
        assert_eq!(d("2.3451").round_to(2), Some(d("2.35")));
        assert_eq!(d("-2.345").round_to(2), Some(d("-2.34")));
        assert_eq!(d("9.995").round_to(2), Some(d("10")));
        assert_eq!(d("0.004").round_to(2), Some(d("0")));
        assert_eq!(d("1.5").round_to(0), Some(d("2")));
        assert_eq!(d("120").round_to(2), Some(d("120")));
    }

    #[test]
    fn text_at_a_scale_pads_and_never_cuts() {
        assert_eq!(d("120").to_string_with_scale(2), "120.00");
        assert_eq!(d("9.5").to_string_with_scale(2), "9.50");
        assert_eq!(d("-0.5").to_string_with_scale(1), "-0.5");
        assert_eq!(d("1.234").to_string_with_scale(2), "1.234");
        assert_eq!(d("7").to_string_with_scale(0), "7");
        // The padded text is the same number.
        assert_eq!(d(&d("120").to_string_with_scale(2)), d("120"));
    }

    /// Small exact decimals as (coefficient, scale), compared with i128
    /// arithmetic on a common scale.
    fn small() -> impl Strategy<Value = (i64, u32)> {
        (-10_000_000_000i64..10_000_000_000, 0u32..12)
    }

    fn exact(coefficient: i128, scale: u32) -> Decimal {
        format!("{coefficient}e-{scale}").parse().unwrap()
    }

    proptest! {
        #[test]
        fn arithmetic_agrees_with_integers((a, sa) in small(), (b, sb) in small()) {
            let (x, y) = (Decimal::new(a, sa).unwrap(), Decimal::new(b, sb).unwrap());
            let s = sa.max(sb);
            let (ai, bi) = (a as i128 * 10i128.pow(s - sa), b as i128 * 10i128.pow(s - sb));
            prop_assert_eq!(x.checked_add(&y), Some(exact(ai + bi, s)));
            prop_assert_eq!(x.checked_sub(&y), Some(exact(ai - bi, s)));
            prop_assert_eq!(x.checked_mul(&y), Some(exact(a as i128 * b as i128, sa + sb)));
            prop_assert_eq!(x.checked_add(&y).unwrap().checked_sub(&y), Some(x.clone()));
            prop_assert_eq!(x.checked_add(&y).unwrap().cmp(&x), y.cmp(&Decimal::from(0)));
        }

        #[test]
        fn rounding_lands_within_half_a_unit((a, sa) in small(), scale in 0u32..12) {
            let x = Decimal::new(a, sa).unwrap();
            let r = x.round_to(scale).unwrap();
            prop_assert!(r.scale() <= scale);
            let error = x.checked_sub(&r).unwrap();
            let error = if error.is_negative() { -error } else { error };
            let half = Decimal::new(5, scale + 1).unwrap();
            prop_assert!(error <= half, "{} rounded to {} is {}", x, scale, r);
            prop_assert_eq!(r.to_string_with_scale(scale).parse::<Decimal>().unwrap(), r);
        }
    }
}
