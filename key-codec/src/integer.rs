//! Integers as fixed-width, order-preserving decimal text.

use std::fmt::Write as _;

use crate::EncodeError;

/// What is subtracted from a value before it is written: `min` when it is
/// negative, so every stored number is at least 0.
fn offset(min: i64) -> i128 {
    if min < 0 {
        i128::from(min)
    } else {
        0
    }
}

/// The number of digits of an integer between `min` and `max` in a key: the
/// width of the largest stored number (`max - min` when `min` is negative).
pub fn integer_width(min: i64, max: i64) -> usize {
    let span = (i128::from(max) - offset(min)).unsigned_abs();
    span.checked_ilog10().map_or(1, |l| l as usize + 1)
}

/// Appends the key text of `value`, an integer between `min` and `max`:
/// zero-padded to [`integer_width`], offset by `-min` when `min` is negative.
/// Nothing is appended when `value` is out of bounds.
pub fn push_integer(out: &mut String, value: i64, min: i64, max: i64) -> Result<(), EncodeError> {
    if value < min || value > max {
        return Err(EncodeError::OutOfRange { value, min, max });
    }
    let stored = i128::from(value) - offset(min);
    let width = integer_width(min, max);
    // Written straight into the key: no temporary string per placeholder.
    let _ = write!(out, "{stored:0width$}");
    Ok(())
}

/// The [`push_integer`] text of `value` as a new string.
pub fn encode_integer(value: i64, min: i64, max: i64) -> Result<String, EncodeError> {
    let mut out = String::with_capacity(20);
    push_integer(&mut out, value, min, max)?;
    Ok(out)
}

/// Reverses [`push_integer`] for an integer whose bounds start at `min`;
/// `None` when `text` is not all digits or the number is not a 64-bit
/// integer once the offset is added back.
pub fn decode_integer(text: &str, min: i64) -> Option<i64> {
    if !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let stored: i128 = text.parse().ok()?;
    i64::try_from(stored + offset(min)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_width_covers_the_range() {
        assert_eq!(integer_width(0, 999), 3);
        assert_eq!(integer_width(0, 1000), 4);
        assert_eq!(integer_width(-5, 5), 2);
        assert_eq!(integer_width(i64::MIN, i64::MAX), 20);
        assert_eq!(integer_width(0, 0), 1);
        assert_eq!(integer_width(3, 7), 1);
    }

    #[test]
    fn integers_are_padded_and_offset() {
        let mut k = String::new();
        push_integer(&mut k, 7, 0, 999).unwrap();
        assert_eq!(k, "007");
        k.clear();
        push_integer(&mut k, -5, -10, 10).unwrap();
        assert_eq!(k, "05");
        assert_eq!(
            push_integer(&mut k, 11, -10, 10),
            Err(EncodeError::OutOfRange {
                value: 11,
                min: -10,
                max: 10
            })
        );
        assert_eq!(k, "05", "nothing appended out of bounds");
        k.clear();
        push_integer(&mut k, i64::MAX, i64::MIN, i64::MAX).unwrap();
        assert_eq!(k, u64::MAX.to_string());
        assert_eq!(
            encode_integer(11, -10, 10).unwrap_err().to_string(),
            "11 is outside -10..=10"
        );
    }

    #[test]
    fn decoding_reverses_the_offset() {
        assert_eq!(decode_integer("05", -10), Some(-5));
        assert_eq!(decode_integer("007", 0), Some(7));
        assert_eq!(decode_integer("-5", 0), None);
        assert_eq!(decode_integer("+5", 0), None);
        assert_eq!(decode_integer("", 0), None);
        assert_eq!(decode_integer("99999999999999999999", 0), None);
        assert_eq!(
            decode_integer(&u64::MAX.to_string(), i64::MIN),
            Some(i64::MAX)
        );
    }
}
