//! Datetimes: their stored formats, in keys and as attributes.

use super::*;

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
