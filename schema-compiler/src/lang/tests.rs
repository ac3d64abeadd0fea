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

fn tok() -> impl proptest::strategy::Strategy<Value = Tok> {
    use proptest::prelude::*;
    let class = |ranges: Vec<(char, char)>| Tok::Class(CharSet { ranges });
    prop_oneof![
        Just(Tok::Char('A')),
        Just(Tok::Char('B')),
        Just(Tok::Char('#')),
        Just(Tok::Char('|')),
        Just(Tok::Char('1')),
        Just(class(vec![('0', '9'), ('A', 'Z')])),
        Just(class(vec![('0', '9')])),
        Just(class(vec![('#', '#'), ('A', 'Z')])),
    ]
}

fn key() -> impl proptest::strategy::Strategy<Value = Vec<Tok>> {
    proptest::collection::vec(tok(), 0..6)
}

proptest::proptest! {
    /// The trie never drops a key that intersects: only the search decides.
    #[test]
    fn candidates_hold_every_key_that_intersects(
        items in proptest::collection::vec((key(), proptest::option::of(key())), 1..12),
        queries in proptest::collection::vec((key(), proptest::option::of((key(), proptest::bool::ANY))), 1..8),
    ) {
        let mut trie = Candidates::default();
        let parts: Vec<Vec<(&[Tok], bool)>> = items
            .iter()
            .map(|(pk, sk)| {
                std::iter::once((pk.as_slice(), false))
                    .chain(sk.as_ref().map(|sk| (sk.as_slice(), false)))
                    .collect()
            })
            .collect();
        for (id, p) in parts.iter().enumerate() {
            trie.insert(id, &key_syms(p));
        }
        for (pk, cond) in &queries {
            let q: Vec<(&[Tok], bool)> = std::iter::once((pk.as_slice(), false))
                .chain(cond.as_ref().map(|(c, prefix)| (c.as_slice(), *prefix)))
                .collect();
            let found = trie.candidates(&key_syms(&q));
            for (id, (ipk, isk)) in items.iter().enumerate() {
                let sk = match (cond, isk) {
                    (Some((c, prefix)), Some(isk)) => intersects(c, isk, *prefix),
                    _ => true,
                };
                if intersects(pk, ipk, false) && sk {
                    proptest::prop_assert!(found.contains(&id), "lost item {id}: {:?} vs {:?}", q, parts[id]);
                }
            }
        }
    }
}

/// Every string of `toks` over the alphabet `abc`, up to `max` characters.
fn strings(toks: &[Tok], max: usize) -> Vec<String> {
    fn go(toks: &[Tok], max: usize, prefix: &mut String, out: &mut Vec<String>) {
        let Some(first) = toks.first() else {
            out.push(prefix.clone());
            return;
        };
        if prefix.len() >= max {
            return;
        }
        let chars: Vec<char> = match first {
            Tok::Char(c) => vec![*c],
            Tok::Class(s) | Tok::One(s) => "abc".chars().filter(|c| contains(s, *c)).collect(),
        };
        for c in chars {
            prefix.push(c);
            go(&toks[1..], max, prefix, out);
            if matches!(first, Tok::Class(_)) {
                // The class may take more characters.
                let mut again = vec![first.clone()];
                again.extend_from_slice(&toks[1..]);
                go(&again, max, prefix, out);
            }
            prefix.pop();
        }
    }
    let mut out = Vec::new();
    go(toks, max, &mut String::new(), &mut out);
    out.sort();
    out.dedup();
    out
}

fn small_tok() -> impl proptest::strategy::Strategy<Value = Tok> {
    use proptest::prelude::*;
    let set = |r: Vec<(char, char)>| CharSet { ranges: r };
    prop_oneof![
        prop::sample::select(vec!['a', 'b', 'c']).prop_map(Tok::Char),
        prop::sample::select(vec![
            vec![('a', 'c')],
            vec![('a', 'a')],
            vec![('b', 'c')],
            vec![('a', 'a'), ('c', 'c')],
        ])
        .prop_map(move |r| Tok::Class(set(r))),
    ]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

    /// `in_range` against brute force over short strings: long enough
    /// for every witness of templates this short.
    #[test]
    fn in_range_agrees_with_brute_force(
        e in proptest::collection::vec(small_tok(), 1..4),
        lo in proptest::option::of(proptest::collection::vec(small_tok(), 1..4)),
        hi in proptest::option::of(proptest::collection::vec(small_tok(), 1..4)),
        strict_lo: bool,
        strict_hi: bool,
    ) {
        const MAX: usize = 7;
        let es = strings(&e, MAX);
        let los = lo.as_deref().map(|l| strings(l, MAX));
        let his = hi.as_deref().map(|h| strings(h, MAX));
        let above = |s: &String| los.as_ref().is_none_or(|ls| ls.iter().any(|l| if strict_lo { l < s } else { l <= s }));
        let below = |s: &String| his.as_ref().is_none_or(|hs| hs.iter().any(|h| if strict_hi { s < h } else { s <= h }));
        let brute = es.iter().any(|s| above(s) && below(s));
        let decided = in_range(
            &e,
            lo.as_deref().map(|toks| Bound { toks, strict: strict_lo }),
            hi.as_deref().map(|toks| Bound { toks, strict: strict_hi }),
        );
        proptest::prop_assert_eq!(decided, brute, "e={:?} lo={:?} hi={:?}", e, lo, hi);
    }
}

#[test]
fn ranges_reach_past_their_prefix() {
    // `gt: LIKE#<x>` reaches `POST#…` and `PROFILE`; `lte: REPO#<o>` reaches `ISSUE#…`.
    let x = || alnum();
    let like: Vec<Tok> = lit("LIKE#").into_iter().chain([x()]).collect();
    let post: Vec<Tok> = lit("POST#").into_iter().chain([x()]).collect();
    fn above(toks: &[Tok]) -> Option<Bound<'_>> {
        Some(Bound { toks, strict: true })
    }
    assert!(in_range(&post, above(&like), None));
    assert!(in_range(&lit("PROFILE"), above(&like), None));
    assert!(!in_range(&lit("ALBUM"), above(&like), None));
    let repo: Vec<Tok> = lit("REPO#").into_iter().chain([x()]).collect();
    let issue: Vec<Tok> = lit("ISSUE#").into_iter().chain([x()]).collect();
    fn upto(toks: &[Tok]) -> Option<Bound<'_>> {
        Some(Bound {
            toks,
            strict: false,
        })
    }
    assert!(in_range(&issue, None, upto(&repo)));
    assert!(in_range(&repo, None, upto(&repo)));
    assert!(!in_range(&lit("STAR#1"), None, upto(&repo)));
    // A proper prefix sorts first: `A` < `A#…`, so `lt: A` holds nothing of `A#<x>`.
    let a_hash: Vec<Tok> = lit("A#").into_iter().chain([x()]).collect();
    assert!(!in_range(
        &a_hash,
        None,
        Some(Bound {
            toks: &lit("A"),
            strict: false
        })
    ));
    assert!(in_range(
        &lit("A"),
        None,
        Some(Bound {
            toks: &a_hash,
            strict: true
        })
    ));
}

#[test]
fn candidates_skip_keys_apart_after_a_run() {
    let key = |entity: &str| {
        let mut k = lit("TENANT#");
        k.push(alnum());
        k.extend(lit(&format!("|{entity}#")));
        k.push(alnum());
        k
    };
    let keys: Vec<Vec<Tok>> = ["E1", "E2", "E12"].iter().map(|e| key(e)).collect();
    let mut trie = Candidates::default();
    for (id, k) in keys.iter().enumerate() {
        trie.insert(id, &key_syms(&[(k.as_slice(), false)]));
    }
    assert_eq!(trie.candidates(&key_syms(&[(&keys[0], false)])), vec![0]);
    // A begins_with of `TENANT#<tenant>|E1` reaches `E1#…` and `E12#…`.
    let mut prefix = lit("TENANT#");
    prefix.push(alnum());
    prefix.extend(lit("|E1"));
    assert_eq!(trie.candidates(&key_syms(&[(&prefix, true)])), vec![0, 2]);
}

/// Brute force: a value of up to 5 characters of `class` and a rest of up
/// to 3 after `literal`, with the first occurrence of `literal` starting
/// inside the value.
fn brute_read_too_early(class: &CharSet, literal: &str, chars: &[char]) -> bool {
    let words = |max: usize| {
        let mut all: Vec<String> = vec![String::new()];
        let mut last: Vec<String> = vec![String::new()];
        for _ in 0..max {
            last = last
                .iter()
                .flat_map(|w| chars.iter().map(move |c| format!("{w}{c}")))
                .collect();
            all.extend(last.iter().cloned());
        }
        all
    };
    let values: Vec<String> = words(5)
        .into_iter()
        .filter(|v| !v.is_empty() && v.chars().all(|c| contains(class, c)))
        .collect();
    let rests = words(3);
    values.iter().any(|v| {
        rests.iter().any(|rest| {
            let text = format!("{v}{literal}{rest}");
            text.find(literal).is_some_and(|at| at < v.len())
        })
    })
}

#[test]
fn read_too_early_agrees_with_brute_force() {
    // A fixed xorshift sequence: the same cases every run.
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        usize::try_from(state % n as u64).unwrap_or(0)
    };
    let chars = ['a', '#', '-'];
    let sets = [
        CharSet {
            ranges: vec![('a', 'a')],
        },
        CharSet {
            ranges: vec![('#', '#'), ('a', 'a')],
        },
        CharSet {
            ranges: vec![('-', '-'), ('a', 'a')],
        },
        CharSet {
            ranges: vec![('#', '#'), ('-', '-'), ('a', 'a')],
        },
    ];
    for _ in 0..400 {
        let class = &sets[next(sets.len())];
        let literal: String = (0..1 + next(4)).map(|_| chars[next(chars.len())]).collect();
        let found = read_too_early(class, &literal);
        let brute = brute_read_too_early(class, &literal, &chars);
        assert_eq!(
            found.is_some(),
            brute,
            "{class:?} before {literal:?}: {found:?}"
        );
        if let Some(early) = found {
            assert!(early
                .text
                .find(&literal)
                .is_some_and(|at| at < early.value.len()));
            assert!(early.value.chars().all(|c| contains(class, c)));
        }
    }
}

#[test]
fn a_delimiter_the_value_cannot_start_is_never_found_early() {
    let id = CharSet {
        ranges: vec![('-', '-'), ('0', '9'), ('a', 'z')],
    };
    let with_hash = CharSet {
        ranges: vec![('#', '#'), ('a', 'z')],
    };
    // `$task-manager#employee_<employee>`: nothing follows the id.
    // `<id>#`: ids hold `-`, not `#`.
    assert_eq!(read_too_early(&id, "#"), None);
    // `<org>#USER#`: an org may hold `#` but not `U`.
    assert_eq!(read_too_early(&with_hash, "#USER#"), None);
    // `<author>#`: an author holding `#` is cut at it.
    let early = read_too_early(&with_hash, "#").unwrap();
    assert_eq!((early.value.as_str(), early.text.as_str()), ("#", "##"));
    // `<x>#a#`: `x` = `#a` is followed by `#a#`, found at 0.
    let early = read_too_early(&with_hash, "#a#").unwrap();
    assert_eq!(early.value, "#a");
}

/// A template of literals and placeholders named in `words` (each an
/// enum of those words) or `a` (a class of lowercase letters).
fn word_template(
    source: &str,
    words: &[(&str, &[&str])],
) -> (ir::KeyTemplate, Vec<(String, Vec<String>)>) {
    let mut segments = Vec::new();
    let mut rest = source;
    while let Some(start) = rest.find('<') {
        if start > 0 {
            segments.push(ir::Segment::Literal(rest[..start].to_owned()));
        }
        let end = rest[start..].find('>').unwrap() + start;
        segments.push(ir::Segment::Placeholder(ir::Placeholder {
            name: crate::source::Spanned::dummy(rest[start + 1..end].to_owned()),
            kind: ir::PlaceholderKind::Attribute,
        }));
        rest = &rest[end + 1..];
    }
    if !rest.is_empty() {
        segments.push(ir::Segment::Literal(rest.to_owned()));
    }
    let template = ir::KeyTemplate {
        attribute: "sk".into(),
        source: crate::source::Spanned::dummy(source.to_owned()),
        segments,
        natural: false,
    };
    let words = words
        .iter()
        .map(|(n, ws)| {
            (
                (*n).to_owned(),
                ws.iter().map(|w| (*w).to_owned()).collect(),
            )
        })
        .collect();
    (template, words)
}

fn word_sequences(source: &str, words: &[(&str, &[&str])]) -> Vec<Vec<Tok>> {
    let (template, words) = word_template(source, words);
    let letters = |_: &ir::Placeholder| crate::encoding::Domain {
        alphabet: CharSet {
            ranges: vec![('a', 'z')],
        },
        min_len: 1,
        max_len: None,
        escaped: false,
        ordered: true,
        fixed_width: false,
        positions: None,
    };
    word_tokens(&template, letters, |p| {
        words
            .iter()
            .find(|(n, _)| *n == p.name.value)
            .map(|(_, w)| w.clone())
    })
}

#[test]
fn word_placeholders_are_their_words_not_their_letters() {
    let status: &[&str] = &["OPEN", "CLOSED"];
    let enum_key = word_sequences("S#<status>", &[("status", status)]);
    assert_eq!(enum_key.len(), 2);
    let meets = |other: &[Tok]| enum_key.iter().any(|k| intersects(k, other, false));
    // `CLOSE` is made of the enum's letters but is none of its words.
    assert!(!meets(&lit("S#CLOSE")));
    assert!(meets(&lit("S#CLOSED")));
    // As one class of its letters, the enum would meet `CLOSE`.
    let letters = Tok::Class(CharSet {
        ranges: "CDELNOPS".chars().map(|c| (c, c)).collect(),
    });
    let mut widened = lit("S#");
    widened.push(letters);
    assert!(intersects(&widened, &lit("S#CLOSE"), false));
    // Two word placeholders: every pair of words, in order.
    let flag: &[&str] = &["true", "false"];
    let both = word_sequences("<status>#<done>#<x>", &[("status", status), ("done", flag)]);
    assert_eq!(both.len(), 4);
    let mut closed_true = lit("CLOSED#true#");
    closed_true.push(Tok::Class(CharSet {
        ranges: vec![('a', 'z')],
    }));
    assert!(both.iter().any(|k| intersects(k, &closed_true, false)));
    assert!(!both
        .iter()
        .any(|k| intersects(k, &lit("CLOSED#maybe#x"), false)));
    // Past the limit, words keep their class: still a superset.
    let many: Vec<String> = (0..WORD_SEQUENCES + 1).map(|i| format!("w{i}")).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    let wide = word_sequences("<m>", &[("m", &many)]);
    assert_eq!(wide.len(), 1);
    assert!(matches!(wide[0].as_slice(), [Tok::Class(_)]));
}
