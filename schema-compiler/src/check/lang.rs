//! Key templates as languages: can two templates produce the same string?
//!
//! A template is a sequence of literal characters and placeholders, each
//! placeholder one or more characters of its domain's alphabet. Two such
//! sequences intersect when some string matches both; a breadth-first search
//! over pairs of positions decides it exactly (lengths beyond "at least one"
//! are not modelled, which can only over-report).

use std::collections::BTreeSet;

use crate::ir::CharSet;

/// One position of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok {
    /// A literal character.
    Char(char),
    /// One or more characters of the set.
    Class(CharSet),
}

/// State: token index, and whether we are inside a class that has consumed a character.
type State = (usize, bool);

fn closure(toks: &[Tok], (i, inside): State) -> Vec<State> {
    if inside {
        vec![(i, true), (i + 1, false)]
    } else {
        vec![(i, false)]
    }
    .into_iter()
    .filter(|(j, _)| *j <= toks.len())
    .collect()
}

/// Outgoing transitions of a state: (label, next state).
fn step(toks: &[Tok], (i, inside): State) -> Vec<(CharSet, State)> {
    match toks.get(i) {
        None => Vec::new(),
        Some(Tok::Char(c)) if !inside => vec![(
            CharSet {
                ranges: vec![(*c, *c)],
            },
            (i + 1, false),
        )],
        Some(Tok::Char(_)) => Vec::new(),
        Some(Tok::Class(set)) => vec![(set.clone(), (i, true))],
    }
}

fn overlaps(a: &CharSet, b: &CharSet) -> bool {
    a.ranges
        .iter()
        .any(|&(alo, ahi)| b.ranges.iter().any(|&(blo, bhi)| alo <= bhi && blo <= ahi))
}

fn accepting(toks: &[Tok], (i, inside): State) -> bool {
    i == toks.len() && !inside
}

/// Whether some string matches both `a` and `b`. With `a_prefix`, `a` only
/// needs to match a prefix of the string (a `begins_with` condition).
pub fn intersects(a: &[Tok], b: &[Tok], a_prefix: bool) -> bool {
    let mut seen: BTreeSet<(State, State)> = BTreeSet::new();
    let mut queue: Vec<(State, State)> = Vec::new();
    for sa in closure(a, (0, false)) {
        for sb in closure(b, (0, false)) {
            queue.push((sa, sb));
        }
    }
    while let Some((sa, sb)) = queue.pop() {
        if !seen.insert((sa, sb)) {
            continue;
        }
        if accepting(a, sa) && (a_prefix || accepting(b, sb)) {
            return true;
        }
        for (la, na) in step(a, sa) {
            for (lb, nb) in step(b, sb) {
                if overlaps(&la, &lb) {
                    for ca in closure(a, na) {
                        for cb in closure(b, nb) {
                            queue.push((ca, cb));
                        }
                    }
                }
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(s: &str) -> Vec<Tok> {
        s.chars().map(Tok::Char).collect()
    }

    fn alnum() -> Tok {
        Tok::Class(CharSet {
            ranges: vec![('0', '9'), ('A', 'Z'), ('a', 'z')],
        })
    }

    fn any() -> Tok {
        Tok::Class(CharSet::any())
    }

    #[test]
    fn literals() {
        assert!(intersects(&lit("AB"), &lit("AB"), false));
        assert!(!intersects(&lit("AB"), &lit("AC"), false));
        assert!(intersects(&lit("A"), &lit("AB"), true));
        assert!(!intersects(&lit("A"), &lit("AB"), false));
    }

    #[test]
    fn classes_respect_their_alphabet() {
        let mut a = lit("T#");
        a.push(alnum());
        a.extend(lit("|X"));
        let mut b = lit("T#");
        b.push(alnum());
        b.extend(lit("|X"));
        assert!(intersects(&a, &b, false));
        // `T#<alnum>|X` vs `T#<alnum>` : the class cannot produce `|`.
        let mut c = lit("T#");
        c.push(alnum());
        assert!(!intersects(&a, &c, false));
        // ...but a class of any character can.
        let mut d = lit("T#");
        d.push(any());
        assert!(intersects(&a, &d, false));
    }

    #[test]
    fn tenant_prefix_without_delimiter_leaks() {
        // IAM pattern `TENANT#1*` vs tenant `10`'s keys: `TENANT#1` is a prefix.
        let mut key = lit("TENANT#1");
        key.push(alnum());
        assert!(intersects(&lit("TENANT#1"), &key, true));
        let mut safe = lit("TENANT#1|");
        safe.push(alnum());
        let mut other = lit("TENANT#10|");
        other.push(alnum());
        assert!(!intersects(&lit("TENANT#1|"), &other, true));
    }
}
