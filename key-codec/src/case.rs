//! Key casing: a value written into keys in one letter case, as ElectroDB
//! writes its keys (`casing: "lower"`, its default).

use std::borrow::Cow;

/// The letter case a value takes in keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Case {
    /// Lower case: Unicode's default lower-casing (`str::to_lowercase`,
    /// which is JavaScript's `toLowerCase`), so `JDoe` is written `jdoe`.
    Lower,
    /// Upper case: Unicode's default upper-casing (`str::to_uppercase`), so
    /// `straße` is written `STRASSE`.
    Upper,
}

impl Case {
    /// The value in this case; borrowed when it already is.
    pub fn fold(self, value: &str) -> Cow<'_, str> {
        let already = match self {
            Case::Lower => value.bytes().all(|b| !b.is_ascii_uppercase()),
            Case::Upper => value.bytes().all(|b| !b.is_ascii_lowercase()),
        };
        if already && value.is_ascii() {
            return Cow::Borrowed(value);
        }
        Cow::Owned(match self {
            Case::Lower => value.to_lowercase(),
            Case::Upper => value.to_uppercase(),
        })
    }

    /// What one character becomes (one to three characters).
    pub fn fold_char(self, c: char) -> impl Iterator<Item = char> {
        let (lower, upper) = match self {
            Case::Lower => (Some(c.to_lowercase()), None),
            Case::Upper => (None, Some(c.to_uppercase())),
        };
        lower
            .into_iter()
            .flatten()
            .chain(upper.into_iter().flatten())
    }

    /// The case's name in a spec: `lower` or `upper`.
    pub fn name(self) -> &'static str {
        match self {
            Case::Lower => "lower",
            Case::Upper => "upper",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn folds_like_javascript() {
        assert_eq!(Case::Lower.fold("JDoe-42"), "jdoe-42");
        assert_eq!(Case::Lower.fold("gw zoo"), "gw zoo");
        assert!(matches!(Case::Lower.fold("gw zoo"), Cow::Borrowed(_)));
        assert_eq!(Case::Upper.fold("straße"), "STRASSE");
        // A final sigma lower-cases to ς, as JavaScript's toLowerCase does.
        assert_eq!(Case::Lower.fold("ΟΔΟΣ"), "\u{3bf}\u{3b4}\u{3bf}\u{3c2}");
        assert_eq!(Case::Lower.fold("İ").len(), 3);
    }

    proptest! {
        #[test]
        fn folding_a_string_folds_each_character_or_keeps_its_characters(s in "\\PC{0,12}") {
            for case in [Case::Lower, Case::Upper] {
                let folded = case.fold(&s);
                // Every character of the folded text is the fold of some
                // character of the value (what the checker's alphabet of a
                // cased placeholder holds), apart from the final sigma,
                // which both foldings' images contain as σ's context form.
                let image: String = s.chars().flat_map(|c| case.fold_char(c)).collect();
                prop_assert_eq!(folded.chars().count(), image.chars().count());
                for c in folded.chars() {
                    prop_assert!(image.contains(c) || c == 'ς', "{c:?} of {folded:?}");
                }
                prop_assert!(folded.len() <= 3 * s.len());
            }
        }
    }
}
