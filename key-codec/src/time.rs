//! Datetimes as fixed-width, order-preserving text.

use crate::{push_integer, EncodeError};

/// The greatest epoch-seconds value in a key (12 digits, until year 33658).
pub const EPOCH_SECONDS_MAX: i64 = 999_999_999_999;
/// The greatest epoch-milliseconds value in a key (15 digits).
pub const EPOCH_MILLIS_MAX: i64 = 999_999_999_999_999;

const NANOS_PER_SECOND: u32 = 1_000_000_000;
const SECONDS_PER_DAY: i64 = 86_400;

/// Appends the RFC 3339 text of an instant in UTC, `secs` seconds and `nanos`
/// nanoseconds after 1970-01-01T00:00:00Z, with exactly `digits` fractional
/// digits (at most 9; the fraction is truncated, never rounded, so order is
/// kept): `2024-05-01T12:00:00.005Z`. Nothing is appended outside years 0000
/// to 9999. `nanos` of a second or more carry into the seconds.
pub fn push_rfc3339(
    out: &mut String,
    secs: i64,
    nanos: u32,
    digits: u8,
) -> Result<(), EncodeError> {
    let secs = secs
        .checked_add(i64::from(nanos / NANOS_PER_SECOND))
        .ok_or(EncodeError::YearOutOfRange)?;
    let nanos = nanos % NANOS_PER_SECOND;
    let (year, month, day) = civil_from_days(secs.div_euclid(SECONDS_PER_DAY));
    if !(0..=9999).contains(&year) {
        return Err(EncodeError::YearOutOfRange);
    }
    let second_of_day = secs.rem_euclid(SECONDS_PER_DAY) as u32;
    // Written digit by digit: this runs for every datetime in every key.
    out.reserve(30);
    push_digits(out, year as u32, 4);
    out.push('-');
    push_digits(out, month, 2);
    out.push('-');
    push_digits(out, day, 2);
    out.push('T');
    push_digits(out, second_of_day / 3600, 2);
    out.push(':');
    push_digits(out, second_of_day / 60 % 60, 2);
    out.push(':');
    push_digits(out, second_of_day % 60, 2);
    let digits = u32::from(digits.min(9));
    if digits > 0 {
        out.push('.');
        push_digits(out, nanos / 10u32.pow(9 - digits), digits);
    }
    out.push('Z');
    Ok(())
}

/// Appends `value` as exactly `width` decimal digits (its last `width`).
fn push_digits(out: &mut String, mut value: u32, width: u32) {
    let mut buf = [b'0'; 10];
    for slot in buf[..width as usize].iter_mut().rev() {
        *slot = b'0' + (value % 10) as u8;
        value /= 10;
    }
    for &b in &buf[..width as usize] {
        out.push(char::from(b));
    }
}

/// The instant of an RFC 3339 text in the one form [`push_rfc3339`] writes,
/// `YYYY-MM-DDTHH:MM:SS[.fraction]Z` with 1 to 9 fractional digits, as
/// seconds and nanoseconds since the epoch; `None` for any other text (an
/// offset, a lowercase `t` or `z`, a leap second, a date that does not
/// exist), which a general parser then reads or refuses.
pub fn parse_rfc3339(text: &str) -> Option<(i64, u32)> {
    let (head, rest) = text.as_bytes().split_first_chunk::<19>()?;
    if head[4] != b'-'
        || head[7] != b'-'
        || head[10] != b'T'
        || head[13] != b':'
        || head[16] != b':'
    {
        return None;
    }
    // The two digits at `i` and `i + 1` as a number; `None` if either is
    // not a digit.
    let pair = |i: usize| {
        let (tens, ones) = (head[i].wrapping_sub(b'0'), head[i + 1].wrapping_sub(b'0'));
        (tens < 10 && ones < 10).then(|| u32::from(tens) * 10 + u32::from(ones))
    };
    let year = pair(0)? * 100 + pair(2)?;
    let (month, day) = (pair(5)?, pair(8)?);
    let (hour, minute, second) = (pair(11)?, pair(14)?, pair(17)?);
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return None;
    }
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let nanos = match rest {
        [b'Z'] => 0,
        [b'.', fraction @ .., b'Z'] if (1..=9).contains(&fraction.len()) => {
            let mut n = 0u32;
            for &c in fraction {
                let digit = u32::from(c.wrapping_sub(b'0'));
                if digit > 9 {
                    return None;
                }
                n = n * 10 + digit;
            }
            n * 10u32.pow(9 - fraction.len() as u32)
        }
        _ => return None,
    };
    let days = days_from_civil(i64::from(year), month, day);
    let secs = days * SECONDS_PER_DAY + i64::from(hour * 3600 + minute * 60 + second);
    Some((secs, nanos))
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a date in the proleptic Gregorian calendar
/// (Howard Hinnant's `days_from_civil`, the inverse of
/// [`civil_from_days`]).
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let year = year - i64::from(month <= 2);
    let era = year.div_euclid(400);
    let yoe = year.rem_euclid(400);
    let mp = i64::from((month + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The [`push_rfc3339`] text as a new string.
pub fn rfc3339(secs: i64, nanos: u32, digits: u8) -> Result<String, EncodeError> {
    let mut out = String::with_capacity(30);
    push_rfc3339(&mut out, secs, nanos, digits)?;
    Ok(out)
}

/// Year, month (1 to 12) and day (1 to 31) of a count of days since
/// 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's
/// `civil_from_days`).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    // Both are small and positive: day 1..=31, month 1..=12.
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Milliseconds since the epoch of an instant `secs` seconds and `nanos`
/// nanoseconds after it (the sub-millisecond part dropped); `None` when it
/// overflows 64 bits.
pub fn epoch_millis(secs: i64, nanos: u32) -> Option<i64> {
    secs.checked_mul(1000)?
        .checked_add(i64::from(nanos / 1_000_000))
}

/// Appends epoch seconds as a key: 12 digits, from 0 to [`EPOCH_SECONDS_MAX`].
pub fn push_epoch_seconds(out: &mut String, secs: i64) -> Result<(), EncodeError> {
    push_integer(out, secs, 0, EPOCH_SECONDS_MAX)
}

/// Appends epoch milliseconds as a key: 15 digits, from 0 to [`EPOCH_MILLIS_MAX`].
pub fn push_epoch_millis(out: &mut String, millis: i64) -> Result<(), EncodeError> {
    push_integer(out, millis, 0, EPOCH_MILLIS_MAX)
}

/// The [`push_epoch_seconds`] text as a new string.
pub fn epoch_seconds_text(secs: i64) -> Result<String, EncodeError> {
    let mut out = String::with_capacity(12);
    push_epoch_seconds(&mut out, secs)?;
    Ok(out)
}

/// The [`push_epoch_millis`] text as a new string.
pub fn epoch_millis_text(millis: i64) -> Result<String, EncodeError> {
    let mut out = String::with_capacity(15);
    push_epoch_millis(&mut out, millis)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Year 0000 to 9999.
    const FIRST: i64 = -62_167_219_200;
    const LAST: i64 = 253_402_300_799;

    proptest::proptest! {
        #[test]
        fn rfc3339_text_parses_back(secs in FIRST..=LAST, nanos in 0u32..1_000_000_000, digits in 0u8..=9) {
            let text = rfc3339(secs, nanos, digits).unwrap();
            let kept = nanos - nanos % 10u32.pow(9 - u32::from(digits));
            proptest::prop_assert_eq!(parse_rfc3339(&text), Some((secs, kept)), "{}", text);
        }

        #[test]
        fn days_round_trip(days in -800_000i64..=3_000_000) {
            let (y, m, d) = civil_from_days(days);
            proptest::prop_assert_eq!(days_from_civil(y, m, d), days);
        }
    }

    #[test]
    fn other_forms_are_left_to_a_general_parser() {
        for text in [
            "2024-05-01T12:00:00+00:00",
            "2024-05-01t12:00:00Z",
            "2024-05-01T12:00:00z",
            "2024-05-01T12:00:60Z",
            "2024-02-30T12:00:00Z",
            "2023-02-29T12:00:00Z",
            "2024-13-01T12:00:00Z",
            "2024-05-01T24:00:00Z",
            "2024-05-01T12:00:00.Z",
            "2024-05-01T12:00:00.0000000000Z",
            "2024-05-01T12:00:00",
            "+2024-05-01T12:00:00Z",
            "2024-05-01 12:00:00Z",
            "",
        ] {
            assert_eq!(parse_rfc3339(text), None, "{text}");
        }
        assert_eq!(
            parse_rfc3339("2024-02-29T00:00:00Z"),
            Some((1_709_164_800, 0))
        );
    }

    #[test]
    fn rfc3339_has_a_fixed_width() {
        let (secs, nanos) = (1_714_564_800, 5_000_000);
        assert_eq!(rfc3339(secs, nanos, 3).unwrap(), "2024-05-01T12:00:00.005Z");
        assert_eq!(rfc3339(secs, nanos, 0).unwrap(), "2024-05-01T12:00:00Z");
        assert_eq!(
            rfc3339(secs, nanos, 9).unwrap(),
            "2024-05-01T12:00:00.005000000Z"
        );
        assert_eq!(rfc3339(secs, 0, 3).unwrap(), "2024-05-01T12:00:00.000Z");
        assert_eq!(rfc3339(-1, 0, 0).unwrap(), "1969-12-31T23:59:59Z");
    }

    #[test]
    fn rfc3339_is_bounded_by_four_year_digits() {
        assert_eq!(
            rfc3339(-62_167_219_200, 0, 0).unwrap(),
            "0000-01-01T00:00:00Z"
        );
        assert_eq!(
            rfc3339(-62_167_219_201, 0, 0),
            Err(EncodeError::YearOutOfRange)
        );
        assert_eq!(
            rfc3339(253_402_300_799, 0, 0).unwrap(),
            "9999-12-31T23:59:59Z"
        );
        assert_eq!(
            rfc3339(253_402_300_800, 0, 0),
            Err(EncodeError::YearOutOfRange)
        );
        assert_eq!(
            rfc3339(i64::MAX, u32::MAX, 3),
            Err(EncodeError::YearOutOfRange)
        );
        let mut out = String::from("x");
        assert!(push_rfc3339(&mut out, i64::MIN, 0, 3).is_err());
        assert_eq!(out, "x", "nothing appended out of range");
    }

    #[test]
    fn nanos_of_a_second_or_more_carry() {
        assert_eq!(
            rfc3339(0, 1_500_000_000, 3).unwrap(),
            "1970-01-01T00:00:01.500Z"
        );
    }

    #[test]
    fn civil_dates_of_known_days() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(civil_from_days(19_844), (2024, 5, 1));
        // 2000 is a leap year, 1900 is not.
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(-25_508), (1900, 3, 1));
    }

    #[test]
    fn epochs_have_twelve_and_fifteen_digits() {
        assert_eq!(epoch_seconds_text(0).unwrap(), "000000000000");
        assert_eq!(epoch_seconds_text(EPOCH_SECONDS_MAX).unwrap().len(), 12);
        assert!(epoch_seconds_text(-1).is_err());
        assert!(epoch_seconds_text(EPOCH_SECONDS_MAX + 1).is_err());
        assert_eq!(epoch_millis_text(1).unwrap(), "000000000000001");
        assert!(epoch_millis_text(EPOCH_MILLIS_MAX + 1).is_err());
        assert_eq!(epoch_millis(1, 999_999_999), Some(1_999));
        assert_eq!(epoch_millis(-1, 500_000_000), Some(-500));
        assert_eq!(epoch_millis(i64::MAX, 0), None);
    }
}
