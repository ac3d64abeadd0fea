//! Validated tenant ids.

use std::fmt;
use std::marker::PhantomData;

/// What a spec allows in a tenant id. Generated code implements it on a
/// marker type per spec, so a tenant id validated for one spec cannot be used
/// with another spec's repository.
pub trait TenantRules {
    /// Least length in characters (at least 1).
    const MIN_LENGTH: usize;
    /// Greatest length in characters.
    const MAX_LENGTH: usize;
    /// The characters a tenant id may contain, as inclusive ranges.
    const ALPHABET: &'static [(char, char)];
}

/// Why a tenant id was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum InvalidTenantId {
    /// The id is empty.
    Empty,
    /// The id is longer than the spec allows.
    TooLong {
        /// Length of the id in characters.
        length: usize,
        /// The greatest length allowed.
        max: usize,
    },
    /// The id is shorter than the spec allows.
    TooShort {
        /// Length of the id in characters.
        length: usize,
        /// The least length allowed.
        min: usize,
    },
    /// The id contains a character outside the spec's tenant alphabet, an IAM
    /// wildcard (`*`, `?`, `$`) or a control character.
    Character {
        /// The character.
        character: char,
        /// Its position in characters.
        position: usize,
    },
}

impl fmt::Display for InvalidTenantId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InvalidTenantId::Empty => f.write_str("tenant id is empty"),
            InvalidTenantId::TooLong { length, max } => {
                write!(f, "tenant id has {length} characters, more than the {max} allowed")
            }
            InvalidTenantId::TooShort { length, min } => {
                write!(f, "tenant id has {length} characters, fewer than the {min} required")
            }
            InvalidTenantId::Character {
                character,
                position,
            } => write!(
                f,
                "tenant id contains {character:?} at position {position}, which tenant ids may not contain"
            ),
        }
    }
}

impl std::error::Error for InvalidTenantId {}

/// A tenant id checked against the spec's tenant rules `R`.
///
/// Keys built for two different valid tenant ids never share a partition:
/// the checker proves that the character after the tenant in every key
/// template is one no tenant id can contain, and this type enforces that
/// alphabet at construction.
pub struct TenantId<R> {
    id: String,
    rules: PhantomData<fn() -> R>,
}

impl<R: TenantRules> TenantId<R> {
    /// Checks `id` against the spec's tenant alphabet and length.
    pub fn new(id: impl Into<String>) -> Result<Self, InvalidTenantId> {
        let id = id.into();
        validate::<R>(&id)?;
        Ok(TenantId {
            id,
            rules: PhantomData,
        })
    }

    /// The id.
    pub fn as_str(&self) -> &str {
        &self.id
    }
}

/// Whether two tenant rules are the same (length bounds and alphabet). The
/// derive asserts it at compile time when a struct names its tenancy, so a
/// `TenantId` of the generated module fits a derived struct only when both
/// come from the same tenant rules.
pub const fn same_tenant_rules<A: TenantRules, B: TenantRules>() -> bool {
    if A::MIN_LENGTH != B::MIN_LENGTH || A::MAX_LENGTH != B::MAX_LENGTH {
        return false;
    }
    let (a, b) = (A::ALPHABET, B::ALPHABET);
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i].0 as u32 != b[i].0 as u32 || a[i].1 as u32 != b[i].1 as u32 {
            return false;
        }
        i += 1;
    }
    true
}

fn validate<R: TenantRules>(id: &str) -> Result<(), InvalidTenantId> {
    if id.is_empty() {
        return Err(InvalidTenantId::Empty);
    }
    for (position, character) in id.chars().enumerate() {
        let allowed = !matches!(character, '*' | '?' | '$')
            && !character.is_control()
            && R::ALPHABET
                .iter()
                .any(|&(lo, hi)| lo <= character && character <= hi);
        if !allowed {
            return Err(InvalidTenantId::Character {
                character,
                position,
            });
        }
    }
    let length = id.chars().count();
    if length > R::MAX_LENGTH {
        return Err(InvalidTenantId::TooLong {
            length,
            max: R::MAX_LENGTH,
        });
    }
    if length < R::MIN_LENGTH {
        return Err(InvalidTenantId::TooShort {
            length,
            min: R::MIN_LENGTH,
        });
    }
    Ok(())
}

impl<R> Clone for TenantId<R> {
    fn clone(&self) -> Self {
        TenantId {
            id: self.id.clone(),
            rules: PhantomData,
        }
    }
}

impl<R> PartialEq for TenantId<R> {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl<R> Eq for TenantId<R> {}

impl<R> fmt::Debug for TenantId<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("TenantId").field(&self.id).finish()
    }
}

impl<R> fmt::Display for TenantId<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.id)
    }
}

impl<R: TenantRules> std::str::FromStr for TenantId<R> {
    type Err = InvalidTenantId;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        TenantId::new(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Rules;
    impl TenantRules for Rules {
        const MIN_LENGTH: usize = 1;
        const MAX_LENGTH: usize = 8;
        const ALPHABET: &'static [(char, char)] = &[('0', '9'), ('A', 'Z'), ('_', '_'), ('a', 'z')];
    }

    #[test]
    fn accepts_the_alphabet_and_refuses_the_rest() {
        assert_eq!(TenantId::<Rules>::new("acme_1").unwrap().as_str(), "acme_1");
        assert_eq!(
            TenantId::<Rules>::new("").unwrap_err(),
            InvalidTenantId::Empty
        );
        for (id, character, position) in [("a|b", '|', 1), ("a*", '*', 1), ("é", 'é', 0)] {
            assert_eq!(
                TenantId::<Rules>::new(id).unwrap_err(),
                InvalidTenantId::Character {
                    character,
                    position
                }
            );
        }
        assert_eq!(
            TenantId::<Rules>::new("abcdefghi").unwrap_err(),
            InvalidTenantId::TooLong { length: 9, max: 8 }
        );
    }

    #[test]
    fn same_rules_compare_bounds_and_alphabet() {
        assert!(same_tenant_rules::<Rules, Rules>());
        assert!(!same_tenant_rules::<Rules, Wide>());
    }

    struct Wide;
    impl TenantRules for Wide {
        const MIN_LENGTH: usize = 2;
        const MAX_LENGTH: usize = 64;
        const ALPHABET: &'static [(char, char)] = &[('\0', char::MAX)];
    }

    #[test]
    fn wildcards_and_control_characters_are_refused_whatever_the_alphabet() {
        for id in ["a*", "a?", "a$", "a\n", "a\u{7f}"] {
            assert!(TenantId::<Wide>::new(id).is_err(), "{id:?}");
        }
        assert_eq!(
            TenantId::<Wide>::new("a").unwrap_err(),
            InvalidTenantId::TooShort { length: 1, min: 2 }
        );
    }
}
