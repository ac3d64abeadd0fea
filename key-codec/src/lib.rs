//! The key encodings of singletable, in one place.
//!
//! A key template such as `TENANT#{tenant}|ORDER#{placed_at}#{id}` is filled
//! with placeholder values written in fixed encodings. The schema compiler
//! reasons about those encodings (which characters a key can contain, whether
//! text order is value order) and writes sample keys for NoSQL Workbench; the
//! runtime crate writes and reads them in every request. Both call this
//! crate, so the encodings the checker proves things about are the ones that
//! reach the table. It has no dependencies: the runtime adapts the AWS SDK's
//! `DateTime` to seconds and nanoseconds itself.
//!
//! # Escaped strings
//!
//! A string attribute with `escape: true` is percent-encoded: every character
//! other than an ASCII letter, digit or `_` becomes `%XX` per UTF-8 byte
//! (upper-case hex), so the encoded text never contains a delimiter such as
//! `#` or `|` (and `%` only as the escape itself).
//!
//! ```
//! use singletable_codec::{escape, unescape};
//!
//! assert_eq!(escape("a|b é"), "a%7Cb%20%C3%A9");
//! assert_eq!(unescape("a%7Cb%20%C3%A9").as_deref(), Some("a|b é"));
//! assert_eq!(unescape("%G0"), None);
//! ```
//!
//! # Integers
//!
//! An integer between `min` and `max` is written as decimal digits,
//! zero-padded to the width of the range and offset by `-min` when `min` is
//! negative, so every value has the same length and text order is numeric
//! order.
//!
//! ```
//! use singletable_codec::{decode_integer, encode_integer, integer_width};
//!
//! assert_eq!(integer_width(0, 999), 3);
//! assert_eq!(encode_integer(7, 0, 999).unwrap(), "007");
//! // -10..=10 is stored as 0..=20: -5 becomes 5, padded to two digits.
//! assert_eq!(encode_integer(-5, -10, 10).unwrap(), "05");
//! assert_eq!(decode_integer("05", -10), Some(-5));
//! assert!(encode_integer(11, -10, 10).is_err());
//! ```
//!
//! # Datetimes
//!
//! RFC 3339 datetimes are written in UTC with a fixed number of fractional
//! digits (0, 3, 6 or 9), so they have a fixed width and sort in time order,
//! for years 0000 to 9999. Epoch datetimes are integers from 0: seconds
//! padded to 12 digits, milliseconds to 15.
//!
//! ```
//! use singletable_codec::{epoch_millis, epoch_millis_text, epoch_seconds_text, rfc3339};
//!
//! let (secs, nanos) = (1_714_564_800, 5_000_000);
//! assert_eq!(rfc3339(secs, nanos, 3).unwrap(), "2024-05-01T12:00:00.005Z");
//! assert_eq!(rfc3339(secs, nanos, 0).unwrap(), "2024-05-01T12:00:00Z");
//! assert_eq!(epoch_seconds_text(secs).unwrap(), "001714564800");
//! let millis = epoch_millis(secs, nanos).unwrap();
//! assert_eq!(epoch_millis_text(millis).unwrap(), "001714564800005");
//! ```
//!
//! # Key casing
//!
//! A string attribute with `case: lower` (or `upper`) is written into keys in
//! that case, with Unicode's default case mapping (JavaScript's
//! `toLowerCase`, which ElectroDB applies to its keys). The value itself is
//! stored as given; a folded key cannot be read back.
//!
//! ```
//! use singletable_codec::Case;
//!
//! assert_eq!(Case::Lower.fold("JDoe-42"), "jdoe-42");
//! assert_eq!(Case::Upper.fold("straße"), "STRASSE");
//! ```
//!
//! # Shards
//!
//! A hash-sharded item's shard is FNV-1a (64-bit) of its attribute's key
//! text, modulo the shard count. The values are stable across releases:
//! changing them would move every stored item.
//!
//! ```
//! use singletable_codec::hash_shard;
//!
//! assert_eq!(hash_shard("acme", 10), 7);
//! ```

mod case;
mod decimal;
mod error;
mod escape;
mod integer;
mod shard;
mod time;

pub use case::Case;
pub use decimal::compare_decimal;
pub use error::EncodeError;
pub use escape::{escape, push_escaped, unescape};
pub use integer::{decode_integer, encode_integer, integer_width, push_integer};
pub use shard::hash_shard;
pub use time::{
    civil_from_days, days_from_civil, epoch_millis, epoch_millis_text, epoch_seconds_text,
    parse_rfc3339, push_epoch_millis, push_epoch_seconds, push_rfc3339, rfc3339, EPOCH_MILLIS_MAX,
    EPOCH_SECONDS_MAX,
};
