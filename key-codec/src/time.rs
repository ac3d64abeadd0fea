//! Datetimes as fixed-width, order-preserving text.

use std::fmt::Write as _;

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
    let second_of_day = secs.rem_euclid(SECONDS_PER_DAY);
    let _ = write!(
        out,
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}",
        second_of_day / 3600,
        second_of_day / 60 % 60,
        second_of_day % 60
    );
    let digits = u32::from(digits.min(9));
    if digits > 0 {
        let fraction = nanos / 10u32.pow(9 - digits);
        let _ = write!(out, ".{fraction:0width$}", width = digits as usize);
    }
    out.push('Z');
    Ok(())
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
