//! Key templates as languages: can two templates produce the same string?
//!
//! A template is a sequence of literal characters and placeholders, each
//! placeholder one or more characters of its domain's alphabet. Two such
//! sequences intersect when some string matches both; a breadth-first search
//! over pairs of positions decides it exactly (lengths beyond "at least one"
//! are not modelled, which can only over-report).

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

/// The states a state stands for: inside a class, the class may go on or end.
fn closure(toks: &[Tok], (i, inside): State) -> ([State; 2], usize) {
    if inside && i < toks.len() {
        ([(i, true), (i + 1, false)], 2)
    } else if inside {
        ([(i, true), (i, true)], 1)
    } else {
        ([(i, false), (i, false)], 1)
    }
}

/// What a transition reads: one character, or one of a set.
#[derive(Clone, Copy)]
enum Label<'a> {
    Char(char),
    Set(&'a CharSet),
}

/// The one outgoing transition of a state, if any.
fn step(toks: &[Tok], (i, inside): State) -> Option<(Label<'_>, State)> {
    match toks.get(i) {
        Some(Tok::Char(c)) if !inside => Some((Label::Char(*c), (i + 1, false))),
        Some(Tok::Class(set)) => Some((Label::Set(set), (i, true))),
        _ => None,
    }
}

fn contains(set: &CharSet, c: char) -> bool {
    set.ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi)
}

fn overlaps(a: Label<'_>, b: Label<'_>) -> bool {
    match (a, b) {
        (Label::Char(x), Label::Char(y)) => x == y,
        (Label::Char(c), Label::Set(s)) | (Label::Set(s), Label::Char(c)) => contains(s, c),
        (Label::Set(a), Label::Set(b)) => a
            .ranges
            .iter()
            .any(|&(alo, ahi)| b.ranges.iter().any(|&(blo, bhi)| alo <= bhi && blo <= ahi)),
    }
}

fn accepting(toks: &[Tok], (i, inside): State) -> bool {
    i == toks.len() && !inside
}

/// A quick proof that no string matches both: walking both templates in
/// step while they agree (a placeholder counts as agreeing when both have
/// the same one, followed by the same delimiter it cannot contain, so it
/// ends at the same place in both), two different literal characters at
/// the same place. Keys of different entities usually differ this way
/// (`…|TICKET#…` against `…|COMMENT#…`), which spares the full search.
fn differ_early(a: &[Tok], b: &[Tok]) -> bool {
    let mut i = 0;
    loop {
        match (a.get(i), b.get(i)) {
            (Some(Tok::Char(x)), Some(Tok::Char(y))) if x != y => return true,
            (Some(Tok::Char(_)), Some(Tok::Char(_))) => i += 1,
            (Some(Tok::Class(s)), Some(Tok::Class(t))) if s == t => {
                match (a.get(i + 1), b.get(i + 1)) {
                    (Some(Tok::Char(x)), Some(Tok::Char(y))) if x == y && !contains(s, *x) => {
                        i += 1
                    }
                    _ => return false,
                }
            }
            _ => return false,
        }
    }
}

/// Whether some string matches both `a` and `b`. With `a_prefix`, `a` only
/// needs to match a prefix of the string (a `begins_with` condition).
pub fn intersects(a: &[Tok], b: &[Tok], a_prefix: bool) -> bool {
    if differ_early(a, b) {
        return false;
    }
    // Pairs of states seen, as a flat table: (position, inside) for each side.
    let width_b = (b.len() + 1) * 2;
    let index = |(ia, xa): State, (ib, xb): State| {
        (ia * 2 + usize::from(xa)) * width_b + ib * 2 + usize::from(xb)
    };
    let mut seen = vec![false; (a.len() + 1) * 2 * width_b];
    let mut queue: Vec<(State, State)> = vec![((0, false), (0, false))];
    while let Some((sa, sb)) = queue.pop() {
        let slot = index(sa, sb);
        if seen[slot] {
            continue;
        }
        seen[slot] = true;
        if accepting(a, sa) && (a_prefix || accepting(b, sb)) {
            return true;
        }
        let (Some((la, na)), Some((lb, nb))) = (step(a, sa), step(b, sb)) else {
            continue;
        };
        if overlaps(la, lb) {
            let (next_a, count_a) = closure(a, na);
            let (next_b, count_b) = closure(b, nb);
            for ca in &next_a[..count_a] {
                for cb in &next_b[..count_b] {
                    queue.push((*ca, *cb));
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
    fn the_quick_proof_agrees_with_the_search() {
        let key = |entity: &str| {
            let mut k = lit("TENANT#");
            k.push(alnum());
            k.extend(lit(&format!("|{entity}#")));
            k.push(alnum());
            k
        };
        assert!(differ_early(&key("E12"), &key("E13")));
        assert!(!intersects(&key("E12"), &key("E13"), false));
        assert!(!differ_early(&key("E12"), &key("E12")));
        assert!(intersects(&key("E12"), &key("E12"), false));
        // A class followed by a character it may contain can end anywhere:
        // no quick answer, and the search finds the overlap.
        let mut a = vec![any()];
        a.extend(lit("#X"));
        let mut b = vec![any()];
        b.extend(lit("#Y#X"));
        assert!(!differ_early(&a, &b));
        assert!(intersects(&a, &b, false));
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
