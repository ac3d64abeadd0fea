use super::*;

// The encodings themselves are tested in `singletable-codec`; these
// test the adaptation: `DateTime` to seconds and nanoseconds, and codec
// errors to `ValueError`s that name the placeholder.

#[test]
fn integers_are_padded_and_errors_name_the_placeholder() {
    let mut k = String::new();
    push_integer(&mut k, -5, -10, 10, "E", "n").unwrap();
    assert_eq!(k, "05");
    let e = push_integer(&mut k, 11, -10, 10, "E", "n").unwrap_err();
    assert_eq!((e.context, e.name), ("E", "n"));
    assert_eq!(e.problem, "11 is outside -10..=10");
    assert_eq!(k, "05", "nothing appended");
}

#[test]
fn rfc3339_has_a_fixed_width() {
    let t = DateTime::from_secs_and_nanos(1_714_564_800, 5_000_000);
    assert_eq!(rfc3339(t, 3).unwrap(), "2024-05-01T12:00:00.005Z");
    assert_eq!(rfc3339(t, 0).unwrap(), "2024-05-01T12:00:00Z");
    assert_eq!(
        rfc3339(DateTime::from_secs(-1), 0).unwrap(),
        "1969-12-31T23:59:59Z"
    );
    // Half a second before the epoch: the SDK keeps nanos positive.
    assert_eq!(
        rfc3339(DateTime::from_millis(-500), 3).unwrap(),
        "1969-12-31T23:59:59.500Z"
    );
    assert_eq!(rfc3339(DateTime::from_secs(-62_167_219_201), 0), None);
    let av = datetime_to_av(t, TimeFormat::Rfc3339(3), "E", "t").unwrap();
    assert_eq!(datetime_from_av(&av, TimeFormat::Rfc3339(3)).unwrap(), t);
}

#[test]
fn datetimes_take_their_key_forms() {
    let t = DateTime::from_secs_and_nanos(1_714_564_800, 5_000_000);
    let key = |format| {
        let mut k = String::new();
        push_datetime(&mut k, t, format, "E", "t").map(|()| k)
    };
    assert_eq!(
        key(TimeFormat::Rfc3339(3)).unwrap(),
        "2024-05-01T12:00:00.005Z"
    );
    assert_eq!(key(TimeFormat::EpochSeconds).unwrap(), "001714564800");
    assert_eq!(key(TimeFormat::EpochMillis).unwrap(), "001714564800005");
    let mut k = String::new();
    let e = push_datetime(
        &mut k,
        DateTime::from_secs(-1),
        TimeFormat::EpochSeconds,
        "E",
        "t",
    )
    .unwrap_err();
    assert_eq!(e.problem, "-1 is outside 0..=999999999999");
    let far = DateTime::from_secs(i64::MAX);
    let e = push_datetime(&mut k, far, TimeFormat::Rfc3339(0), "E", "t").unwrap_err();
    assert_eq!(e.problem, "year outside 0000..=9999");
    assert!(push_datetime(&mut k, far, TimeFormat::EpochMillis, "E", "t").is_err());
    assert!(datetime_to_av(far, TimeFormat::EpochMillis, "E", "t").is_err());
    assert_eq!(k, "", "nothing appended");
    assert_eq!(
        datetime_to_av(t, TimeFormat::EpochMillis, "E", "t").unwrap(),
        AttributeValue::N("1714564800005".into())
    );
}

#[test]
fn strings_outside_the_alphabet_are_refused() {
    let domain = StrDomain {
        min_len: 1,
        max_len: Some(4),
        alphabet: &[('a', 'z')],
        ascii: ascii_bits(&[('a', 'z')]),
        escape: false,
    };
    let mut k = String::new();
    assert!(push_str(&mut k, "ab|c", &domain, "E", "id").is_err());
    assert!(push_str(&mut k, "abé", &domain, "E", "id").is_err());
    assert!(push_str(&mut k, "", &domain, "E", "id").is_err());
    assert!(push_str(&mut k, "abcde", &domain, "E", "id").is_err());
    push_str(&mut k, "abc", &domain, "E", "id").unwrap();
    assert_eq!(k, "abc");
}

#[test]
fn escaped_strings_are_checked_against_their_alphabet_before_escaping() {
    let alphabet = &[('#', '#'), ('a', 'z')];
    let domain = StrDomain {
        min_len: 1,
        max_len: Some(4),
        alphabet,
        ascii: ascii_bits(alphabet),
        escape: true,
    };
    let mut k = String::new();
    let e = push_str(&mut k, "ab|", &domain, "notes", "author").unwrap_err();
    assert_eq!(e.problem, "'|' is not allowed in this key placeholder");
    assert!(push_str(&mut k, "aé", &domain, "notes", "author").is_err());
    assert_eq!(k, "", "nothing appended");
    push_str(&mut k, "a#b", &domain, "notes", "author").unwrap();
    assert_eq!(k, "a%23b");
}

fn sdk_parse(text: &str) -> Option<DateTime> {
    DateTime::from_str(text, DateTimeFormat::DateTime).ok()
}

proptest::proptest! {
    /// The codec's RFC 3339 reader gives what the SDK's parser gives, on
    /// the texts it writes and on those texts with one byte changed.
    #[test]
    fn rfc3339_reads_as_the_sdk_does(
        secs in -62_167_219_200i64..=253_402_300_799,
        nanos in 0u32..1_000_000_000,
        digits in 0u8..=9,
        at in 0usize..40,
        byte in proptest::sample::select(b"0123456789-:.TtZz+ 9".to_vec()),
    ) {
        let text = singletable_codec::rfc3339(secs, nanos, digits).unwrap();
        let av = AttributeValue::S(text.clone());
        let ours = datetime_from_av(&av, TimeFormat::Rfc3339(digits)).ok();
        proptest::prop_assert_eq!(ours, sdk_parse(&text));
        let mut bytes = text.into_bytes();
        let at = at % bytes.len();
        bytes[at] = byte;
        let changed = String::from_utf8(bytes).unwrap();
        if let Some((s, n)) = singletable_codec::parse_rfc3339(&changed) {
            proptest::prop_assert_eq!(Some(DateTime::from_secs_and_nanos(s, n)), sdk_parse(&changed), "{}", changed);
        }
    }
}

#[test]
fn ascii_bits_are_the_ascii_part_of_the_ranges() {
    let ranges = [
        ('-', '-'),
        ('0', '9'),
        ('a', 'c'),
        ('é', 'ü'),
        ('\u{7e}', '\u{10ffff}'),
    ];
    let bits = ascii_bits(&ranges);
    for c in (0u8..128).map(char::from) {
        let inside = ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi);
        assert_eq!((bits >> (c as u32)) & 1 == 1, inside, "{c:?}");
    }
    let class = AsciiClass {
        pattern: "^[a-c0-9-]{2,3}$",
        allowed: ascii_bits(&ranges[..3]),
        min: 2,
        max: Some(3),
    };
    assert!(class.matches("a-9") && class.matches("bb"));
    assert!(!class.matches("a") && !class.matches("abcd") && !class.matches("aé"));
    assert!(!class.matches("a_") && !class.matches("a\u{7f}"));
}

#[test]
fn ascii_classes_match_each_character_by_its_bit() {
    // Classes on both sides of the two words' seam ('?' is bit 63, '@'
    // bit 64) and at its ends (NUL, DEL), against every ASCII character
    // and characters past ASCII (their bytes are all 128 or more).
    let classes: [&[(char, char)]; 4] = [
        &[('?', '@')],
        &[('\0', '\0'), ('\u{7f}', '\u{7f}')],
        &[('\0', '\u{7f}')],
        &[('0', '9'), ('A', 'Z'), ('_', '_'), ('a', 'z')],
    ];
    for ranges in classes {
        let class = AsciiClass {
            pattern: "",
            allowed: ascii_bits(ranges),
            min: 1,
            max: None,
        };
        for c in (0u8..128)
            .map(char::from)
            .chain(['é', '\u{80}', '\u{ff}', '€', '😀'])
        {
            let inside = ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi);
            let text = format!("{c}{c}");
            assert_eq!(class.matches(&text), inside, "{c:?} in {ranges:?}");
        }
    }
}

#[cfg(feature = "rust_decimal")]
#[test]
fn decimals_convert_to_and_from_rust_decimal() {
    for text in [
        "0",
        "-12.345",
        "9.5",
        "100",
        "0.000001",
        "79228162514264337593543950335",
    ] {
        let ours: Decimal = text.parse().unwrap();
        let theirs = rust_decimal::Decimal::try_from(&ours).unwrap();
        assert_eq!(Decimal::from(theirs), ours, "{text}");
    }
    let zero = rust_decimal::Decimal::new(-0, 3);
    assert_eq!(Decimal::from(zero).as_str(), "0");
    assert_eq!(
        Decimal::from(rust_decimal::Decimal::new(950, 2)).as_str(),
        "9.5"
    );
    let wide: Decimal = "1.2345678901234567890123456789012345".parse().unwrap();
    assert!(rust_decimal::Decimal::try_from(&wide).is_err());
}

#[test]
fn decimals_order_as_numbers() {
    let sorted = [
        "-100", "-2", "-1.5", "-0.05", "0", "0.045", "0.45", "0.5", "1", "9.99", "10", "100.5",
    ];
    let parsed: Vec<Decimal> = sorted.iter().map(|s| s.parse().unwrap()).collect();
    for (i, a) in parsed.iter().enumerate() {
        for (j, b) in parsed.iter().enumerate() {
            assert_eq!(a.cmp(b), i.cmp(&j), "{a} against {b}");
        }
    }
}

#[test]
fn sets_refuse_empty_and_read_their_own_type() {
    use std::collections::BTreeSet;
    let empty: BTreeSet<String> = BTreeSet::new();
    assert!(empty.store(Store::Plain, "E", "tags").is_err());
    let tags: BTreeSet<String> = ["b".into(), "a".into()].into();
    let stored = tags.store(Store::Plain, "E", "tags").unwrap();
    assert_eq!(stored, AttributeValue::Ss(vec!["a".into(), "b".into()]));
    assert_eq!(BTreeSet::<String>::from_av(&stored).unwrap(), tags);
    assert!(BTreeSet::<String>::from_av(&AttributeValue::L(vec![])).is_err());
    let numbers = AttributeValue::Ns(vec!["10".into(), "-2".into(), "1.50".into()]);
    let decimals = BTreeSet::<Decimal>::from_av(&numbers).unwrap();
    assert_eq!(
        decimals.iter().map(Decimal::as_str).collect::<Vec<_>>(),
        ["-2", "1.5", "10"]
    );
    assert!(
        BTreeSet::<i64>::from_av(&numbers).is_err(),
        "1.50 is no integer"
    );
    let bytes = AttributeValue::Bs(vec![Blob::new(vec![2]), Blob::new(vec![1])]);
    assert_eq!(
        BTreeSet::<Vec<u8>>::from_av(&bytes).unwrap(),
        [vec![1], vec![2]].into()
    );
}

#[test]
fn decimals_are_validated() {
    for ok in ["0", "-1.5", "1e10", ".5", "5.", "+2E-3"] {
        assert!(ok.parse::<Decimal>().is_ok(), "{ok}");
    }
    for bad in ["", ".", "1.2.3", "e5", "1e", "abc", "--1", "1e-", "1e+x"] {
        assert!(bad.parse::<Decimal>().is_err(), "{bad}");
    }
}

#[test]
fn decimals_take_dynamodbs_canonical_form() {
    for (text, canonical) in [
        ("9.50", "9.5"),
        ("009.500", "9.5"),
        ("-0.0", "0"),
        ("+2E-3", "0.002"),
        ("1e10", "10000000000"),
        ("12.5e1", "125"),
        (".5", "0.5"),
        ("5.", "5"),
        ("-0.00120", "-0.0012"),
        ("100", "100"),
    ] {
        assert_eq!(
            text.parse::<Decimal>().unwrap().as_str(),
            canonical,
            "{text}"
        );
    }
    assert_eq!(
        "9.50".parse::<Decimal>().unwrap(),
        "9.5".parse::<Decimal>().unwrap()
    );
    // DynamoDB's limits: 38 significant digits, 1E-130 up to below 1E+126.
    assert!("1e125".parse::<Decimal>().is_ok());
    assert!("1e126".parse::<Decimal>().is_err());
    assert!("1e-130".parse::<Decimal>().is_ok());
    assert!("1e-131".parse::<Decimal>().is_err());
    assert!("1e99999999999999999999999".parse::<Decimal>().is_err());
    assert!("12345678901234567890123456789012345678"
        .parse::<Decimal>()
        .is_ok());
    assert!("123456789012345678901234567890123456789"
        .parse::<Decimal>()
        .is_err());
    assert!("0e99999999999999999999".parse::<Decimal>().is_ok());
}

#[test]
fn decode_errors_name_the_type() {
    let e = i64::from_av(&AttributeValue::S("x".into())).unwrap_err();
    assert_eq!(
        e,
        DecodeProblem::WrongType {
            expected: "N",
            found: "S"
        }
    );
    assert!(i64::from_av(&AttributeValue::N("1.5".into())).is_err());
}
