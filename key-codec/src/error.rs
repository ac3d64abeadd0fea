//! Why a value has no key encoding.

use std::fmt;

/// A value that cannot be written into a key.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EncodeError {
    /// An integer outside its declared bounds.
    OutOfRange {
        /// The value.
        value: i64,
        /// The least value allowed.
        min: i64,
        /// The greatest value allowed.
        max: i64,
    },
    /// A datetime outside years 0000 to 9999 (RFC 3339 has four year digits).
    YearOutOfRange,
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodeError::OutOfRange { value, min, max } => {
                write!(f, "{value} is outside {min}..={max}")
            }
            EncodeError::YearOutOfRange => f.write_str("year outside 0000..=9999"),
        }
    }
}

impl std::error::Error for EncodeError {}
