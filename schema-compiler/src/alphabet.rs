//! What a regular expression lets a value contain.
//!
//! Key checks need to know whether a tenant id or a string attribute can
//! contain a template's delimiter. From a pattern such as
//! `^[A-Za-z0-9_-]{1,64}$` this works out the alphabet (every character any
//! match can contain) and the length bounds. A pattern that is not anchored at
//! both ends lets values contain anything around the match, so its alphabet is
//! every character.

use regex_syntax::hir::{Class, Hir, HirKind, Look};

use crate::ir::CharSet;

/// What a pattern allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternInfo {
    /// Characters a matching value may contain.
    pub alphabet: CharSet,
    /// Least length in bytes.
    pub min_length: usize,
    /// Greatest length in bytes, if bounded.
    pub max_length: Option<usize>,
}

/// Patterns analyzed lately. A spec repeats a few patterns across many
/// attributes, and the checks ask for each attribute's domain many times.
const CACHE_SIZE: usize = 64;

/// Analyses by pattern text.
type Cache = indexmap::IndexMap<String, Result<PatternInfo, String>, foldhash::fast::RandomState>;

thread_local! {
    static CACHE: std::cell::RefCell<Cache> = std::cell::RefCell::new(Cache::default());
}

/// Analyzes a pattern; the error is the parser's message.
pub fn analyze(pattern: &str) -> Result<PatternInfo, String> {
    if let Some(hit) = CACHE.with_borrow(|c| c.get(pattern).cloned()) {
        return hit;
    }
    let info = analyze_uncached(pattern);
    CACHE.with_borrow_mut(|c| {
        if c.len() >= CACHE_SIZE {
            c.clear();
        }
        c.insert(pattern.to_owned(), info.clone());
    });
    info
}

/// A pattern's greatest length in bytes, when it parses and is bounded
/// (as [`analyze`], without copying the analysis).
pub fn max_length(pattern: &str) -> Option<usize> {
    if let Some(hit) = CACHE.with_borrow(|c| c.get(pattern).map(|i| i.as_ref().ok()?.max_length)) {
        return hit;
    }
    analyze(pattern).ok()?.max_length
}

fn analyze_uncached(pattern: &str) -> Result<PatternInfo, String> {
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .map_err(|e| {
            e.to_string()
                .lines()
                .last()
                .unwrap_or("invalid pattern")
                .trim()
                .to_owned()
        })?;
    let props = hir.properties();
    let anchored = props.look_set_prefix().contains(Look::Start)
        && props.look_set_suffix().contains(Look::End);
    if !anchored {
        return Ok(PatternInfo {
            alphabet: CharSet::any(),
            min_length: props.minimum_len().unwrap_or(0),
            max_length: None,
        });
    }
    let mut ranges = Vec::new();
    collect(&hir, &mut ranges);
    Ok(PatternInfo {
        alphabet: normalize(ranges),
        min_length: props.minimum_len().unwrap_or(0),
        max_length: props.maximum_len(),
    })
}

/// A pattern that is one class of ASCII characters repeated, anchored at
/// both ends (`^[A-Za-z0-9_-]{1,36}$`, `^[a-z]+$`): a value matches it
/// exactly when every byte is in the class and the length is within the
/// bounds, which generated code checks in one pass without a regular
/// expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsciiClass {
    /// The class's characters, all ASCII.
    pub ranges: Vec<(char, char)>,
    /// Least number of characters.
    pub min: usize,
    /// Greatest number of characters.
    pub max: Option<usize>,
}

/// The pattern as an [`AsciiClass`], when it is one.
pub fn ascii_class(pattern: &str) -> Option<AsciiClass> {
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .ok()?;
    let HirKind::Concat(parts) = hir.kind() else {
        return None;
    };
    let [start, body, end] = parts.as_slice() else {
        return None;
    };
    let anchor = |h: &Hir, look: Look| matches!(h.kind(), HirKind::Look(l) if *l == look);
    if !anchor(start, Look::Start) || !anchor(end, Look::End) {
        return None;
    }
    let (class, min, max) = match body.kind() {
        HirKind::Repetition(rep) => (&*rep.sub, rep.min as usize, rep.max.map(|m| m as usize)),
        _ => (body, 1, Some(1)),
    };
    let ranges: Vec<(char, char)> = match class.kind() {
        HirKind::Class(Class::Unicode(c)) => {
            c.ranges().iter().map(|r| (r.start(), r.end())).collect()
        }
        HirKind::Class(Class::Bytes(c)) => c
            .ranges()
            .iter()
            .map(|r| (char::from(r.start()), char::from(r.end())))
            .collect(),
        HirKind::Literal(lit) => match std::str::from_utf8(&lit.0)
            .ok()?
            .chars()
            .collect::<Vec<_>>()[..]
        {
            [c] => vec![(c, c)],
            _ => return None,
        },
        _ => return None,
    };
    ranges
        .iter()
        .all(|&(_, hi)| hi.is_ascii())
        .then_some(AsciiClass { ranges, min, max })
}

fn collect(hir: &Hir, out: &mut Vec<(char, char)>) {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => {}
        HirKind::Literal(lit) => {
            for c in String::from_utf8_lossy(&lit.0).chars() {
                out.push((c, c));
            }
        }
        HirKind::Class(Class::Unicode(class)) => {
            out.extend(class.ranges().iter().map(|r| (r.start(), r.end())));
        }
        HirKind::Class(Class::Bytes(class)) => {
            out.extend(
                class
                    .ranges()
                    .iter()
                    .map(|r| (char::from(r.start()), char::from(r.end()))),
            );
        }
        HirKind::Repetition(rep) => collect(&rep.sub, out),
        HirKind::Capture(cap) => collect(&cap.sub, out),
        HirKind::Concat(subs) | HirKind::Alternation(subs) => {
            for sub in subs {
                collect(sub, out);
            }
        }
    }
}

fn normalize(mut ranges: Vec<(char, char)>) -> CharSet {
    ranges.sort_unstable();
    let mut merged: Vec<(char, char)> = Vec::with_capacity(ranges.len());
    for (lo, hi) in ranges {
        match merged.last_mut() {
            Some(last) if (lo as u32) <= (last.1 as u32).saturating_add(1) => {
                last.1 = last.1.max(hi);
            }
            _ => merged.push((lo, hi)),
        }
    }
    CharSet { ranges: merged }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchored_class_gives_its_alphabet_and_length() {
        let info = analyze("^[A-Za-z0-9_-]{1,64}$").unwrap();
        assert!(info.alphabet.contains('a') && info.alphabet.contains('-'));
        assert!(!info.alphabet.contains('#') && !info.alphabet.contains('|'));
        assert_eq!((info.min_length, info.max_length), (1, Some(64)));
    }

    #[test]
    fn unanchored_pattern_allows_anything() {
        let info = analyze("[a-z]+").unwrap();
        assert!(info.alphabet.is_any());
        assert_eq!(info.max_length, None);
    }

    #[test]
    fn alternation_and_literals_are_collected() {
        let info = analyze("^(ab|c.d)$").unwrap();
        // `.` matches anything but a newline.
        assert!(info.alphabet.contains('#'));
        let info = analyze("^(ab|cd)$").unwrap();
        assert!(info.alphabet.contains('d') && !info.alphabet.contains('e'));
    }

    #[test]
    fn syntax_errors_are_reported() {
        assert!(analyze("^[a-z$").is_err());
    }

    #[test]
    fn ascii_classes_are_recognised() {
        let class = ascii_class("^[A-Za-z0-9_-]{1,36}$").unwrap();
        assert_eq!((class.min, class.max), (1, Some(36)));
        assert_eq!(ascii_class("^[a-z]+$").unwrap().max, None);
        assert_eq!(ascii_class("^x$").unwrap().ranges, vec![('x', 'x')]);
        for not_one in [
            "[a-z]+",
            "^[a-z]+",
            "^[a-z]+$|^b$",
            "^[a-z][0-9]$",
            "^\\d+$",
            "^[^a]+$",
            "^é+$",
            "(?m)^[a-z]+$",
            "^ab$",
        ] {
            assert_eq!(ascii_class(not_one), None, "{not_one}");
        }
    }

    /// What the generated check does with an [`AsciiClass`]
    /// (`singletable_runtime::codec::AsciiClass::matches`): every byte an
    /// ASCII character of the class, the number of bytes within the bounds.
    fn class_matches(class: &AsciiClass, s: &str) -> bool {
        let n = s.len();
        n >= class.min
            && class.max.is_none_or(|m| n <= m)
            && s.bytes().all(|b| {
                b < 128
                    && class
                        .ranges
                        .iter()
                        .any(|&(lo, hi)| lo as u32 <= b as u32 && b as u32 <= hi as u32)
            })
    }

    proptest::proptest! {
        /// Wherever a pattern is taken as an ASCII class, the class check
        /// and the regular expression agree on every value.
        #[test]
        fn an_ascii_class_matches_as_its_regex_does(
            pattern in "\\^?(\\[\\^?([a-f0-9_.|#-]|[a-c]-[x-z]|\\\\w|\\\\d|é)+\\]|[a-z]|\\(\\?i\\)[a-c]|\\.)(\\{[0-3](,[0-5]?)?\\}|\\+|\\*|\\?)?\\$?",
            values in proptest::collection::vec("[a-fA-F0-9_.|#xyzé\n-]{0,6}", 1..20),
        ) {
            let Ok(regex) = regex::Regex::new(&pattern) else { return Ok(()) };
            if let Some(class) = ascii_class(&pattern) {
                for v in &values {
                    proptest::prop_assert_eq!(regex.is_match(v), class_matches(&class, v), "{} on {:?}", pattern, v);
                }
            }
        }
    }
}
