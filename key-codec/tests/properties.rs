//! Properties of the key encodings: escaped strings round trip and contain no
//! delimiter, integers and datetimes round trip, keep a fixed width and sort
//! in value order, shards are in range.

use proptest::prelude::*;
use singletable_codec::{
    decode_integer, encode_integer, epoch_millis_text, epoch_seconds_text, escape, hash_shard,
    integer_width, rfc3339, unescape, EPOCH_MILLIS_MAX, EPOCH_SECONDS_MAX,
};

/// Integer bounds, with the extremes of `i64` drawn often.
fn bounds() -> impl Strategy<Value = (i64, i64)> {
    let end = prop_oneof![
        Just(i64::MIN),
        Just(i64::MAX),
        Just(0i64),
        Just(-1i64),
        -1000i64..1000,
        any::<i64>(),
    ];
    (end.clone(), end).prop_map(|(a, b)| (a.min(b), a.max(b)))
}

/// Bounds and two values within them.
fn bounded_pair() -> impl Strategy<Value = (i64, i64, i64, i64)> {
    bounds().prop_flat_map(|(min, max)| {
        // Drawn by hand: proptest's `min..=max` cannot take all of `i64`.
        let count = (i128::from(max) - i128::from(min) + 1) as u128;
        let within = any::<u64>().prop_map(move |r| {
            let value = i128::from(min) + (u128::from(r) % count) as i128;
            i64::try_from(value).expect("min + (r mod count) is within min..=max")
        });
        let value = prop_oneof![Just(min), Just(max), within];
        (Just(min), Just(max), value.clone(), value)
    })
}

/// Seconds within RFC 3339's years 0000 to 9999.
const FIRST_SECOND: i64 = -62_167_219_200;
const LAST_SECOND: i64 = 253_402_300_799;

proptest! {
    #[test]
    fn escaping_round_trips(value in any::<String>()) {
        prop_assert_eq!(unescape(&escape(&value)), Some(value));
    }

    #[test]
    fn escaped_text_holds_no_delimiter(value in any::<String>()) {
        let text = escape(&value);
        prop_assert!(
            text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '%'),
            "{text:?}"
        );
        // Each `%` starts an escape of two upper-case hex digits, so a `%`
        // of the value never shows as itself.
        for (i, _) in text.match_indices('%') {
            let hex = &text.as_bytes()[i + 1..i + 3];
            prop_assert!(hex.iter().all(|b| b.is_ascii_digit() || (b'A'..=b'F').contains(b)), "{text:?}");
        }
    }

    #[test]
    fn escaping_is_injective(a in any::<String>(), b in any::<String>()) {
        prop_assert_eq!(escape(&a) == escape(&b), a == b);
    }

    #[test]
    fn unescape_accepts_only_what_it_can_decode(text in "[A-Za-z0-9_%]{0,12}") {
        if let Some(value) = unescape(&text) {
            // Canonical text (upper-case hex, plain bytes kept) comes back unchanged.
            let again = escape(&value);
            prop_assert_eq!(unescape(&again), Some(value));
        }
    }

    #[test]
    fn integers_round_trip_with_a_fixed_width((min, max, value, _) in bounded_pair()) {
        let text = encode_integer(value, min, max).unwrap();
        prop_assert_eq!(text.len(), integer_width(min, max));
        prop_assert!(text.bytes().all(|b| b.is_ascii_digit()));
        prop_assert_eq!(decode_integer(&text, min), Some(value));
    }

    #[test]
    fn integer_text_order_is_numeric_order((min, max, a, b) in bounded_pair()) {
        let (ta, tb) = (encode_integer(a, min, max).unwrap(), encode_integer(b, min, max).unwrap());
        prop_assert_eq!(ta.cmp(&tb), a.cmp(&b));
    }

    #[test]
    fn integers_out_of_bounds_are_refused((min, max) in bounds(), value in any::<i64>()) {
        prop_assert_eq!(encode_integer(value, min, max).is_ok(), (min..=max).contains(&value));
    }

    #[test]
    fn rfc3339_keeps_order_and_width(
        digits in prop_oneof![Just(0u8), Just(3), Just(6), Just(9)],
        a in (FIRST_SECOND..=LAST_SECOND, 0u32..1_000_000_000),
        b in (FIRST_SECOND..=LAST_SECOND, 0u32..1_000_000_000),
    ) {
        let (ta, tb) = (rfc3339(a.0, a.1, digits).unwrap(), rfc3339(b.0, b.1, digits).unwrap());
        let width = 20 + if digits == 0 { 0 } else { usize::from(digits) + 1 };
        prop_assert_eq!(ta.len(), width);
        prop_assert_eq!(tb.len(), width);
        // Truncated fractions: order is kept, equal text within one tick.
        let tick = 10u32.pow(9 - u32::from(digits));
        let (ka, kb) = ((a.0, a.1 / tick), (b.0, b.1 / tick));
        prop_assert_eq!(ta.cmp(&tb), ka.cmp(&kb));
    }

    #[test]
    fn rfc3339_refuses_years_past_four_digits(secs in any::<i64>(), nanos in 0u32..1_000_000_000) {
        prop_assert_eq!(rfc3339(secs, nanos, 3).is_ok(), (FIRST_SECOND..=LAST_SECOND).contains(&secs));
    }

    #[test]
    fn epoch_keys_keep_order_and_width(a in 0..=EPOCH_SECONDS_MAX, b in 0..=EPOCH_SECONDS_MAX) {
        let (ta, tb) = (epoch_seconds_text(a).unwrap(), epoch_seconds_text(b).unwrap());
        prop_assert_eq!((ta.len(), tb.len()), (12, 12));
        prop_assert_eq!(ta.cmp(&tb), a.cmp(&b));
        let (ma, mb) = (epoch_millis_text(a).unwrap(), epoch_millis_text(b.min(EPOCH_MILLIS_MAX)).unwrap());
        prop_assert_eq!((ma.len(), mb.len()), (15, 15));
    }

    #[test]
    fn shards_are_below_the_count(text in any::<String>(), count in 0u32..1000) {
        prop_assert!(hash_shard(&text, count) < count.max(1));
    }
}
