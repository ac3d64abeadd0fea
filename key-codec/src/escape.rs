//! Percent-escaped strings.

/// Upper-case hex digits, so each byte has one encoding.
const HEX: &[u8; 16] = b"0123456789ABCDEF";

/// Whether a byte is written as itself: ASCII letters, digits and `_`.
fn is_plain(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Appends `value` to `out`, percent-encoding every byte that is not an ASCII
/// letter, digit or `_` as `%XX` (upper-case hex).
pub fn push_escaped(out: &mut String, value: &str) {
    for b in value.bytes() {
        if is_plain(b) {
            out.push(char::from(b));
        } else {
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
        }
    }
}

/// The [`push_escaped`] encoding of `value` as a new string.
pub fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    push_escaped(&mut out, value);
    out
}

/// The value of a hex digit (either case).
fn hex_digit(b: u8) -> Option<u8> {
    char::from(b)
        .to_digit(16)
        .and_then(|d| u8::try_from(d).ok())
}

/// Reverses [`push_escaped`]; `None` when `text` is not a valid encoding: a
/// `%` not followed by two hex digits, or bytes that are not UTF-8.
pub fn unescape(text: &str) -> Option<String> {
    let mut bytes = Vec::with_capacity(text.len());
    let mut rest = text.as_bytes();
    while let Some((&b, tail)) = rest.split_first() {
        if b == b'%' {
            let (&[hi, lo], tail) = tail.split_first_chunk::<2>()?;
            bytes.push(hex_digit(hi)? << 4 | hex_digit(lo)?);
            rest = tail;
        } else {
            bytes.push(b);
            rest = tail;
        }
    }
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_round_trips() {
        let mut k = String::new();
        push_escaped(&mut k, "a|b#c%d é");
        assert_eq!(k, "a%7Cb%23c%25d%20%C3%A9");
        assert_eq!(unescape(&k).unwrap(), "a|b#c%d é");
        assert_eq!(escape("Az09_"), "Az09_");
        assert_eq!(escape("-"), "%2D");
    }

    #[test]
    fn invalid_encodings_are_refused() {
        assert_eq!(unescape("%G0"), None);
        assert_eq!(unescape("%4"), None);
        assert_eq!(unescape("%"), None);
        // `from_str_radix` would read `+F` as 15: a sign is not a hex digit.
        assert_eq!(unescape("%+F"), None);
        // A lone continuation byte is not UTF-8.
        assert_eq!(unescape("%80"), None);
        assert_eq!(unescape("%c3%a9").as_deref(), Some("é"));
    }
}
