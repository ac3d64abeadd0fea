//! Telling which entity an item belongs to: by an attribute that holds a
//! value per entity, or by the shape of the item's primary key.
//!
//! Tables written by other code often have no entity-type attribute; their
//! items are told apart by their keys (`USER#…` against `ORDER#…`). The
//! compiler proves that no two entities of a spec can have the same primary
//! key, with each placeholder standing for one or more characters of its
//! alphabet; [`KeyShape`] is that same language, so matching an item's key
//! against it names at most one entity.
//!
//! An item that says which entity it is (by the attribute) is believed only
//! when its keys have that entity's shapes: a tenant may write any item
//! under its own key prefix, with any entity-type attribute and any index
//! key, but never a key of a global entity, so an item that claims to be a
//! global `Plan` without a `Plan` key is refused
//! ([`DecodeProblem::ForgedEntity`]), never returned as a plan.

use crate::error::{DecodeError, DecodeProblem};
use crate::sdk::types::AttributeValue;
use crate::Item;

/// How an item is known to be of one entity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Identity {
    /// The attribute holds `value` (the entity-type attribute, or an
    /// existing discriminator such as `kind: "order"`).
    Attribute {
        /// The attribute.
        attribute: &'static str,
        /// The value items of the entity hold.
        value: &'static str,
        /// The shapes the item's primary key attributes must have.
        keys: &'static [(&'static str, KeyShape)],
    },
    /// The item's primary key attributes have these shapes.
    Key(&'static [(&'static str, KeyShape)]),
}

/// The shape of one key attribute's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyShape {
    /// A string matching the tokens, in order.
    S(&'static [Shape]),
    /// A number.
    N,
    /// Binary.
    B,
}

/// One part of a string key's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// This literal text.
    Lit(&'static str),
    /// One or more characters of these inclusive ranges.
    Class(&'static [(char, char)]),
    /// Exactly one character of these inclusive ranges.
    One(&'static [(char, char)]),
    /// Exactly this many characters, each of these inclusive ranges (the
    /// digits of a fixed-width number or datetime).
    Repeat(u32, &'static [(char, char)]),
}

impl Identity {
    /// The attribute and value written with every item, if the entity is
    /// told by an attribute.
    pub const fn marker(&self) -> Option<(&'static str, &'static str)> {
        match *self {
            Identity::Attribute {
                attribute, value, ..
            } => Some((attribute, value)),
            Identity::Key(_) => None,
        }
    }

    /// The shapes of the entity's primary key attributes.
    pub const fn keys(&self) -> &'static [(&'static str, KeyShape)] {
        match *self {
            Identity::Attribute { keys, .. } | Identity::Key(keys) => keys,
        }
    }

    /// Whether `item` says it is of the entity: by the attribute, or (for
    /// an entity told by its keys) by its keys.
    pub fn claims(&self, item: &Item) -> bool {
        match *self {
            Identity::Attribute {
                attribute, value, ..
            } => matches!(item.get(attribute), Some(AttributeValue::S(s)) if s == value),
            Identity::Key(keys) => keys_match(keys, item),
        }
    }

    /// Whether `item` is of the entity: it says so, and its primary key
    /// has the entity's shapes.
    pub fn matches(&self, item: &Item) -> bool {
        self.claims(item) && keys_match(self.keys(), item)
    }

    /// Checks that `item` is of `entity`: an error naming the attribute
    /// (or key) at fault otherwise. `context` names the read in errors.
    pub fn check(
        &self,
        item: &Item,
        entity: &'static str,
        context: &'static str,
    ) -> Result<(), DecodeError> {
        if self.claims(item) {
            return check_keys(self.keys(), item, entity, context);
        }
        Err(match *self {
            Identity::Attribute { attribute, .. } => match item.get(attribute) {
                Some(AttributeValue::S(found)) => DecodeError::new(
                    context,
                    attribute,
                    DecodeProblem::UnknownEntityType(found.clone()),
                ),
                Some(other) => DecodeError::new(
                    context,
                    attribute,
                    DecodeProblem::WrongType {
                        expected: "S",
                        found: crate::codec::type_name(other),
                    },
                ),
                None => DecodeError::new(context, attribute, DecodeProblem::Missing),
            },
            Identity::Key(keys) => {
                let (name, _) = keys
                    .iter()
                    .find(|(name, shape)| !item.get(*name).is_some_and(|v| shape.matches(v)))
                    .copied()
                    .unwrap_or(("", KeyShape::N));
                DecodeError::new(context, name, DecodeProblem::NotOfEntity(Some(entity)))
            }
        })
    }
}

/// Whether every key attribute of `item` named in `keys` has its shape.
fn keys_match(keys: &[(&'static str, KeyShape)], item: &Item) -> bool {
    keys.iter()
        .all(|(name, shape)| item.get(*name).is_some_and(|v| shape.matches(v)))
}

/// Checks that `item`, which says it is of `entity`, has keys of the shapes
/// `keys`: a [`DecodeProblem::ForgedEntity`] naming the first key that has
/// not (and, with the `tracing` feature, a warning event, so that a job
/// reading many items sees the forgery).
pub fn check_keys(
    keys: &[(&'static str, KeyShape)],
    item: &Item,
    entity: &'static str,
    context: &'static str,
) -> Result<(), DecodeError> {
    let Some((name, _)) = keys
        .iter()
        .find(|(name, shape)| !item.get(*name).is_some_and(|v| shape.matches(v)))
    else {
        return Ok(());
    };
    #[cfg(feature = "tracing")]
    tracing::warn!(
        target: "singletable",
        entity,
        context,
        key = *name,
        "an item claims to be of an entity whose key it does not have: refused"
    );
    Err(DecodeError::new(
        context,
        *name,
        DecodeProblem::ForgedEntity(entity),
    ))
}

impl KeyShape {
    /// Whether a stored key value has this shape.
    pub fn matches(&self, value: &AttributeValue) -> bool {
        match (self, value) {
            (KeyShape::S(shape), AttributeValue::S(s)) => string_matches(shape, s),
            (KeyShape::N, AttributeValue::N(_)) | (KeyShape::B, AttributeValue::B(_)) => true,
            _ => false,
        }
    }
}

fn in_ranges(ranges: &[(char, char)], c: char) -> bool {
    ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi)
}

/// Runs the shape as a small automaton over `text`: each state is a
/// position in the shape's characters, and whether a class there has
/// already taken a character (it may take more, or end).
fn string_matches(shape: &[Shape], text: &str) -> bool {
    // The shape flattened to single-character steps.
    #[derive(Clone, Copy)]
    enum Step {
        Char(char),
        Class(&'static [(char, char)]),
        One(&'static [(char, char)]),
    }
    let mut steps: Vec<Step> = Vec::new();
    for part in shape {
        match *part {
            Shape::Lit(l) => steps.extend(l.chars().map(Step::Char)),
            Shape::Class(r) => steps.push(Step::Class(r)),
            Shape::One(r) => steps.push(Step::One(r)),
            Shape::Repeat(n, r) => steps.extend((0..n).map(|_| Step::One(r))),
        }
    }
    let n = steps.len();
    // state (i, inside) at index i * 2 + inside
    let mut now = vec![false; (n + 1) * 2];
    let mut next = vec![false; (n + 1) * 2];
    now[0] = true;
    for c in text.chars() {
        next.iter_mut().for_each(|s| *s = false);
        let mut any = false;
        for i in 0..=n {
            for inside in [false, true] {
                if !now[i * 2 + usize::from(inside)] {
                    continue;
                }
                // Inside a class that took a character, the class may end:
                // the next step reads `c`.
                let starts: &[(usize, bool)] = if inside {
                    &[(i, true), (i + 1, false)]
                } else {
                    &[(i, false)]
                };
                for &(j, in_class) in starts {
                    let target = match (steps.get(j), in_class) {
                        (Some(Step::Char(x)), false) if *x == c => Some((j + 1, false)),
                        (Some(Step::Class(r)), _) if in_ranges(r, c) => Some((j, true)),
                        (Some(Step::One(r)), false) if in_ranges(r, c) => Some((j + 1, false)),
                        _ => None,
                    };
                    if let Some((k, inside)) = target {
                        next[k * 2 + usize::from(inside)] = true;
                        any = true;
                    }
                }
            }
        }
        if !any {
            return false;
        }
        std::mem::swap(&mut now, &mut next);
    }
    // Accept at the end, or inside the last class.
    now[n * 2] || (n > 0 && now[(n - 1) * 2 + 1] && matches!(steps[n - 1], Step::Class(_)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIGITS: &[(char, char)] = &[('0', '9')];
    const LOWER: &[(char, char)] = &[('a', 'z')];

    #[test]
    fn literals_and_classes_match_exactly() {
        let shape = [
            Shape::Lit("USER#"),
            Shape::Class(LOWER),
            Shape::Lit("|O#"),
            Shape::Class(DIGITS),
        ];
        assert!(string_matches(&shape, "USER#ann|O#42"));
        assert!(
            !string_matches(&shape, "USER#|O#42"),
            "a class takes at least one character"
        );
        assert!(!string_matches(&shape, "USER#ann|O#"));
        assert!(!string_matches(&shape, "USER#Ann|O#42"));
        assert!(!string_matches(&shape, "USER#ann|O#42x"));
        assert!(!string_matches(&shape, "ORDER#ann|O#42"));
    }

    #[test]
    fn one_takes_a_single_character() {
        let shape = [Shape::One(DIGITS), Shape::One(DIGITS), Shape::Lit("#")];
        assert!(string_matches(&shape, "07#"));
        assert!(!string_matches(&shape, "7#"));
        assert!(!string_matches(&shape, "007#"));
        // A repeat is that many single characters.
        let repeat = [Shape::Repeat(2, DIGITS), Shape::Lit("#")];
        for text in ["07#", "7#", "007#", "0a#", "99#"] {
            assert_eq!(
                string_matches(&repeat, text),
                string_matches(&shape, text),
                "{text}"
            );
        }
    }

    #[test]
    fn a_class_may_contain_the_next_literal_when_its_alphabet_does() {
        // `<a>#<b>` with `#` inside a's alphabet: the split is not unique,
        // and the automaton tries every one.
        const ANY: &[(char, char)] = &[('\0', char::MAX)];
        let shape = [Shape::Class(ANY), Shape::Lit("#"), Shape::Class(DIGITS)];
        assert!(string_matches(&shape, "a#b#12"));
        assert!(!string_matches(&shape, "a#b#"));
    }

    #[test]
    fn numbers_and_binaries_match_by_type() {
        assert!(KeyShape::N.matches(&AttributeValue::N("12".into())));
        assert!(!KeyShape::N.matches(&AttributeValue::S("12".into())));
        assert!(!KeyShape::S(&[Shape::Lit("12")]).matches(&AttributeValue::N("12".into())));
    }
}
