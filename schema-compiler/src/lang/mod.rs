//! Key templates as languages: can two templates produce the same string?
//!
//! A template is a sequence of literal characters and placeholders, each
//! placeholder one or more characters of its domain's alphabet. Two such
//! sequences intersect when some string matches both; a breadth-first search
//! over pairs of positions decides it exactly (lengths beyond "at least one"
//! are not modelled, which can only over-report).

use crate::encoding::{self, Domain};
use crate::ir::{self, CharSet, Segment};

/// The tokens of a template, each placeholder a class of its domain's alphabet.
pub fn template_tokens(
    template: &ir::KeyTemplate,
    domain: impl Fn(&ir::Placeholder) -> Domain,
) -> Vec<Tok> {
    let mut out = Vec::new();
    for seg in &template.segments {
        match seg {
            Segment::Literal(l) => out.extend(l.chars().map(Tok::Char)),
            Segment::Placeholder(p) => out.extend(placeholder_tokens(domain(p))),
        }
    }
    out
}

/// The tokens of one placeholder's values: a fixed format position by
/// position, any other as one class of its alphabet.
fn placeholder_tokens(domain: Domain) -> Vec<Tok> {
    match domain.positions {
        Some(positions) => positions
            .into_iter()
            .map(|set| match set.ranges.as_slice() {
                [(lo, hi)] if lo == hi => Tok::Char(*lo),
                _ => Tok::One(set),
            })
            .collect(),
        None => vec![Tok::Class(domain.alphabet)],
    }
}

/// How many token sequences [`word_tokens`] writes out per template, at most.
pub const WORD_SEQUENCES: usize = 64;

/// A template's language as a union of token sequences in which each word
/// placeholder (an enum's or a boolean's: `words` gives its words) is one
/// of its words, literally: exact where [`template_tokens`] widens a word
/// to one or more of its letters (`OPEN`/`CLOSED` as `[CDELNOPS]+`, which
/// holds `CLOSE`). Past [`WORD_SEQUENCES`] sequences the remaining word
/// placeholders keep their class.
pub fn word_tokens(
    template: &ir::KeyTemplate,
    domain: impl Fn(&ir::Placeholder) -> Domain,
    words: impl Fn(&ir::Placeholder) -> Option<Vec<String>>,
) -> Vec<Vec<Tok>> {
    let mut out: Vec<Vec<Tok>> = vec![Vec::new()];
    for seg in &template.segments {
        match seg {
            Segment::Literal(l) => {
                for seq in &mut out {
                    seq.extend(l.chars().map(Tok::Char));
                }
            }
            Segment::Placeholder(p) => match words(p) {
                Some(words) if !words.is_empty() && out.len() * words.len() <= WORD_SEQUENCES => {
                    out = out
                        .iter()
                        .flat_map(|seq| {
                            words.iter().map(move |w| {
                                let mut seq = seq.clone();
                                seq.extend(w.chars().map(Tok::Char));
                                seq
                            })
                        })
                        .collect();
                }
                _ => {
                    let tokens = placeholder_tokens(domain(p));
                    for seq in &mut out {
                        seq.extend(tokens.iter().cloned());
                    }
                }
            },
        }
    }
    out
}

/// The words an entity's placeholder stands for, when it is an enum or a
/// boolean attribute written into the key as its word.
pub fn placeholder_words(entity: &ir::Entity, p: &ir::Placeholder) -> Option<Vec<String>> {
    if p.kind != ir::PlaceholderKind::Attribute {
        return None;
    }
    let attribute = entity.attributes.get(p.name.as_str())?;
    match &attribute.r#type {
        ir::AttributeType::Enum { values } => Some(values.clone()),
        ir::AttributeType::Boolean => Some(vec!["true".to_owned(), "false".to_owned()]),
        _ => None,
    }
}

/// [`primary_key_tokens`], each word placeholder one of its words
/// ([`word_tokens`]).
pub fn primary_key_word_tokens(
    spec: &ir::Spec,
    entity: &ir::Entity,
    template: &ir::KeyTemplate,
) -> Vec<Vec<Tok>> {
    match spec.key_type_of(&template.attribute) {
        ir::KeyType::String => word_tokens(
            template,
            |p| encoding::entity_placeholder_domain(spec, entity, p),
            |p| placeholder_words(entity, p),
        ),
        ir::KeyType::Number | ir::KeyType::Binary => vec![vec![Tok::Class(CharSet::any())]],
    }
}

/// The tokens of an entity's key template.
pub fn entity_tokens(spec: &ir::Spec, entity: &ir::Entity, template: &ir::KeyTemplate) -> Vec<Tok> {
    template_tokens(template, |p| {
        encoding::entity_placeholder_domain(spec, entity, p)
    })
}

/// The tokens of an entity's primary-key template as the item stores it:
/// a number or binary table key is one class of any characters (its
/// stored text is not the key encoding's), so two entities' number keys
/// always meet. `key_collision` decides disjointness on these, and the
/// runtime tells entities apart by the same language
/// (`Identity::Key`).
pub fn primary_key_tokens(
    spec: &ir::Spec,
    entity: &ir::Entity,
    template: &ir::KeyTemplate,
) -> Vec<Tok> {
    match spec.key_type_of(&template.attribute) {
        ir::KeyType::String => entity_tokens(spec, entity, template),
        ir::KeyType::Number | ir::KeyType::Binary => vec![Tok::Class(CharSet::any())],
    }
}

/// One position of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok {
    /// A literal character.
    Char(char),
    /// One or more characters of the set.
    Class(CharSet),
    /// Exactly one character of the set.
    One(CharSet),
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
        Some(Tok::One(set)) if !inside => Some((Label::Set(set), (i + 1, false))),
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

/// A string that matches both `a` and `b` (with `a_prefix`, a string that
/// `a` matches and whose continuation `b` matches), the shortest there is,
/// its characters chosen to be readable where a class leaves the choice.
/// `None` exactly when [`intersects`] is false.
pub fn witness(a: &[Tok], b: &[Tok], a_prefix: bool) -> Option<String> {
    let width_b = (b.len() + 1) * 2;
    let index = |(ia, xa): State, (ib, xb): State| {
        (ia * 2 + usize::from(xa)) * width_b + ib * 2 + usize::from(xb)
    };
    // Breadth first, each pair of states with the pair it was reached from
    // and the character read on the way.
    let mut from: Vec<Option<(usize, char)>> = vec![None; (a.len() + 1) * 2 * width_b];
    let mut seen = vec![false; from.len()];
    let start = ((0, false), (0, false));
    seen[index(start.0, start.1)] = true;
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some((sa, sb)) = queue.pop_front() {
        let slot = index(sa, sb);
        if accepting(a, sa) && (a_prefix || accepting(b, sb)) {
            let mut out = Vec::new();
            let mut at = slot;
            while let Some((prev, c)) = from[at] {
                out.push(c);
                at = prev;
            }
            return Some(out.into_iter().rev().collect());
        }
        let (Some((la, na)), Some((lb, nb))) = (step(a, sa), step(b, sb)) else {
            continue;
        };
        let Some(c) = common_char(la, lb) else {
            continue;
        };
        let (next_a, count_a) = closure(a, na);
        let (next_b, count_b) = closure(b, nb);
        for ca in &next_a[..count_a] {
            for cb in &next_b[..count_b] {
                let next = index(*ca, *cb);
                if !seen[next] {
                    seen[next] = true;
                    from[next] = Some((slot, c));
                    queue.push_back((*ca, *cb));
                }
            }
        }
    }
    None
}

/// A character both labels read, readable where there is a choice.
fn common_char(a: Label<'_>, b: Label<'_>) -> Option<char> {
    match (a, b) {
        (Label::Char(x), Label::Char(y)) => (x == y).then_some(x),
        (Label::Char(c), Label::Set(s)) | (Label::Set(s), Label::Char(c)) => {
            contains(s, c).then_some(c)
        }
        (Label::Set(s), Label::Set(t)) => {
            let both = |c: char| contains(s, c) && contains(t, c);
            ('a'..='z')
                .chain('0'..='9')
                .chain('A'..='Z')
                .find(|&c| both(c))
                .or_else(|| {
                    s.ranges.iter().find_map(|&(alo, ahi)| {
                        t.ranges.iter().find_map(|&(blo, bhi)| {
                            let lo = alo.max(blo);
                            (lo <= ahi.min(bhi)).then_some(lo)
                        })
                    })
                })
        }
    }
}

/// Whether some string of `sk` (an entity's sort key) satisfies a sort-key
/// condition with operator `op` over operands of languages `operands`.
pub fn satisfies(sk: &[Tok], op: ir::SortOp, operands: &[Vec<Tok>]) -> bool {
    let bound = |i: usize, strict: bool| {
        operands.get(i).map(|toks| Bound {
            toks: toks.as_slice(),
            strict,
        })
    };
    let first = operands.first().map_or(&[][..], Vec::as_slice);
    match op {
        ir::SortOp::Equals => intersects(first, sk, false),
        ir::SortOp::BeginsWith => intersects(first, sk, true),
        ir::SortOp::Lt => in_range(sk, None, bound(0, true)),
        ir::SortOp::Lte => in_range(sk, None, bound(0, false)),
        ir::SortOp::Gt => in_range(sk, bound(0, true), None),
        ir::SortOp::Gte => in_range(sk, bound(0, false), None),
        ir::SortOp::Between => in_range(sk, bound(0, false), bound(1, false)),
    }
}

/// Whether an entity's sort key (`sk`, its placeholders' domains from
/// `entity_domain`) satisfies a sort-key condition `op` over `operands`
/// (their placeholders' domains from `operand_domain`) for some values.
///
/// Within one query every key holds the same tenant. Where the sort key and
/// every operand begin with the same literal, the tenant and the same
/// delimiter after it, their order cannot depend on which tenant it is, so
/// the tenant is one fixed character in all of them; elsewhere it ranges
/// over its alphabet on each side.
pub fn condition_holds(
    sk: &ir::KeyTemplate,
    entity_domain: &dyn Fn(&ir::Placeholder) -> Domain,
    op: ir::SortOp,
    operands: &[ir::KeyTemplate],
    operand_domain: &dyn Fn(&ir::Placeholder) -> Domain,
) -> bool {
    let lead = sk.tenant_prefix();
    let tied = matches!(&lead, Some(l) if matches!(l.end, ir::TenantEnd::Delimiter(_)))
        && operands.iter().all(|o| o.tenant_prefix() == lead);
    let fixed_tenant = || Domain {
        positions: Some(vec![CharSet {
            ranges: vec![('\u{1}', '\u{1}')],
        }]),
        ..encoding::type_domain(&ir::AttributeType::ANY, false)
    };
    let tie = |domain: &dyn Fn(&ir::Placeholder) -> Domain, p: &ir::Placeholder| {
        if tied && p.kind == ir::PlaceholderKind::Tenant {
            fixed_tenant()
        } else {
            domain(p)
        }
    };
    let sk_tokens = template_tokens(sk, |p| tie(entity_domain, p));
    let operand_tokens: Vec<Vec<Tok>> = operands
        .iter()
        .map(|o| template_tokens(o, |p| tie(operand_domain, p)))
        .collect();
    satisfies(&sk_tokens, op, &operand_tokens)
}

/// One bound of a range condition on a sort key: the strings of the
/// operand's language, and whether the bound itself is excluded (`lt`, `gt`).
#[derive(Debug, Clone, Copy)]
pub struct Bound<'a> {
    /// The operand's tokens, its parameters ranging over their domains.
    pub toks: &'a [Tok],
    /// `true` for `lt` and `gt`, `false` for `lte`, `gte` and `between`.
    pub strict: bool,
}

/// Where a string being built stands against one bound: still equal to a
/// prefix of some string of the bound (at that state), or already decided
/// in its favour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Side {
    Equal(State),
    Decided,
}

/// Whether some string of `e` lies in the range that `lower` and `upper`
/// bound, for some strings of the bounds: DynamoDB's key comparison, which
/// is on UTF-8 bytes and so the order of code points. A string is below
/// another when it is a proper prefix of it, or when at the first place
/// they differ its character is the smaller. Each bound's placeholders
/// range on their own (in `between: [A<x>, B<x>]` the two `<x>` are not
/// tied), and lengths beyond "at least one" are not modelled: both can
/// only over-report, so an entity this keeps may be empty, never one it
/// drops may be returned.
///
/// A search over triples of states: `e`'s, and each bound's `Side`. A
/// character the string reads may equal the bound's (the bound stays
/// tracked), lie above the lower bound's or below the upper bound's
/// (that bound is decided), or contradict it (the branch dies).
pub fn in_range(e: &[Tok], lower: Option<Bound<'_>>, upper: Option<Bound<'_>>) -> bool {
    let start_side = |b: Option<Bound<'_>>| match b {
        Some(_) => Side::Equal((0, false)),
        None => Side::Decided,
    };
    let start = ((0, false), start_side(lower), start_side(upper));
    let mut seen = std::collections::BTreeSet::new();
    let mut queue = vec![start];
    while let Some(state @ (se, lo, hi)) = queue.pop() {
        if !seen.insert(state) {
            continue;
        }
        if accepting(e, se) && ends_within(lower, lo, Low) && ends_within(upper, hi, High) {
            return true;
        }
        let Some((le, ne)) = step(e, se) else {
            continue;
        };
        let e_chars = Ranges::of(le);
        let (lo_moves, lo_count) = moves(lower, lo, Low);
        let (hi_moves, hi_count) = moves(upper, hi, High);
        for (lo_next, lo_allowed) in &lo_moves[..lo_count] {
            for (hi_next, hi_allowed) in &hi_moves[..hi_count] {
                if !meet(e_chars.get(), lo_allowed.get(), hi_allowed.get()) {
                    continue;
                }
                let (next_e, count_e) = closure(e, ne);
                let (lows, low_count) = expand(lower, *lo_next);
                let (highs, high_count) = expand(upper, *hi_next);
                for ce in &next_e[..count_e] {
                    for l in &lows[..low_count] {
                        for h in &highs[..high_count] {
                            queue.push((*ce, *l, *h));
                        }
                    }
                }
            }
        }
    }
    false
}

/// Which bound a [`Side`] is kept against.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Dir {
    Low,
    High,
}
use Dir::{High, Low};

/// Whether the string, ending here, satisfies the bound.
fn ends_within(bound: Option<Bound<'_>>, side: Side, dir: Dir) -> bool {
    let (Some(b), Side::Equal(s)) = (bound, side) else {
        return true;
    };
    // Equal so far: the string equals the bound's string if that ends here
    // too; below it if the bound goes on.
    (accepting(b.toks, s) && !b.strict) || (dir == High && step(b.toks, s).is_some())
}

/// Characters a move allows, as inclusive ranges (in any order): borrowed
/// from a label's set, or one range.
#[derive(Clone, Copy)]
enum Ranges<'a> {
    Set(&'a [(char, char)]),
    One([(char, char); 1]),
}

impl<'a> Ranges<'a> {
    const ALL: Ranges<'static> = Ranges::One([('\0', char::MAX)]);

    fn of(label: Label<'a>) -> Ranges<'a> {
        match label {
            Label::Char(c) => Ranges::One([(c, c)]),
            Label::Set(s) => Ranges::Set(&s.ranges),
        }
    }

    fn get(&self) -> &[(char, char)] {
        match self {
            Ranges::Set(r) => r,
            Ranges::One(r) => r,
        }
    }
}

/// Whether some character lies in all three sets of ranges.
fn meet(a: &[(char, char)], b: &[(char, char)], c: &[(char, char)]) -> bool {
    a.iter().any(|&(alo, ahi)| {
        b.iter().any(|&(blo, bhi)| {
            let (lo, hi) = (alo.max(blo), ahi.min(bhi));
            lo <= hi && c.iter().any(|&(clo, chi)| lo.max(clo) <= hi.min(chi))
        })
    })
}

/// The bound's next sides when the string reads one more character, each
/// with the characters that move allows (at most three).
fn moves<'b>(bound: Option<Bound<'b>>, side: Side, dir: Dir) -> ([(Side, Ranges<'b>); 3], usize) {
    let mut out = [(Side::Decided, Ranges::ALL); 3];
    let (Some(b), Side::Equal(s)) = (bound, side) else {
        return (out, 1);
    };
    let mut count = 0;
    // The bound's string ended and ours goes on: ours is the greater.
    if accepting(b.toks, s) && dir == Low {
        count = 1;
    }
    if let Some((label, next)) = step(b.toks, s) {
        let chars = Ranges::of(label);
        let (Some(lowest), Some(highest)) = (
            chars.get().iter().map(|r| r.0).min(),
            chars.get().iter().map(|r| r.1).max(),
        ) else {
            return (out, count);
        };
        out[count] = (Side::Equal(next), chars);
        count += 1;
        let beyond = match dir {
            Dir::Low => char_after(lowest).map(|c| (c, char::MAX)),
            Dir::High => char_before(highest).map(|c| ('\0', c)),
        };
        if let Some(range) = beyond {
            out[count] = (Side::Decided, Ranges::One([range]));
            count += 1;
        }
    }
    (out, count)
}

/// The states a side stands for after a step (a class may go on or end).
fn expand(bound: Option<Bound<'_>>, side: Side) -> ([Side; 2], usize) {
    match (bound, side) {
        (Some(b), Side::Equal(s)) => {
            let (next, count) = closure(b.toks, s);
            ([Side::Equal(next[0]), Side::Equal(next[1])], count)
        }
        _ => ([Side::Decided; 2], 1),
    }
}

fn char_after(c: char) -> Option<char> {
    (u32::from(c) + 1..=u32::from(char::MAX)).find_map(char::from_u32)
}

fn char_before(c: char) -> Option<char> {
    (0..u32::from(c)).rev().find_map(char::from_u32)
}

/// One position of a key as [`Candidates`] compares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sym<'t> {
    /// A literal character.
    Char(char),
    /// A placeholder whose run of characters ends where the next symbol
    /// begins: it is followed by a character outside its class, or by the
    /// end of the attribute.
    Run(&'t CharSet),
    /// The end of one key attribute (the partition key before the sort key).
    End,
}

/// A key's symbols for [`Candidates`]: its attributes' tokens in order,
/// each ended by [`Sym::End`]. The symbols stop at the first placeholder
/// whose end is not fixed by the character after it (the rest could line
/// up anywhere), and after an attribute matched as a prefix (`true`: a
/// `begins_with` condition).
pub fn key_syms<'t>(parts: &[(&'t [Tok], bool)]) -> Vec<Sym<'t>> {
    let mut out = Vec::new();
    for &(toks, prefix) in parts {
        for (i, t) in toks.iter().enumerate() {
            match (t, toks.get(i + 1)) {
                (Tok::Char(c), _) => out.push(Sym::Char(*c)),
                (Tok::Class(s), Some(Tok::Char(x))) if !contains(s, *x) => out.push(Sym::Run(s)),
                (Tok::Class(s), None) if !prefix => out.push(Sym::Run(s)),
                (Tok::Class(_) | Tok::One(_), _) => return out,
            }
        }
        if prefix {
            return out;
        }
        out.push(Sym::End);
    }
    out
}

/// Keys, filed by their symbols in a trie, so that the keys another key may
/// intersect are found without visiting every key. Two keys whose symbols
/// agree up to two different characters (or a character and an end) cannot
/// intersect: every run before that point ends at the same place in both
/// (the same class, followed by the same character outside it), so the two
/// characters sit at the same place. Every other key is a candidate: those
/// whose symbols stop first, and those that meet a run where the other has
/// something else. Deciding a candidate is [`intersects`]'s job.
#[derive(Debug)]
pub struct Candidates<'t> {
    nodes: Vec<Node>,
    /// The trie's edges: (parent, symbol) to child. One table rather than
    /// one per node keeps a trie of thousands of keys small.
    edges: indexmap::IndexMap<(usize, Sym<'t>), usize, foldhash::fast::RandomState>,
}

/// No node: the end of a list of children.
const NONE: usize = usize::MAX;

#[derive(Debug)]
struct Node {
    /// The first child, and the next of the parent's children.
    first_child: usize,
    next_sibling: usize,
    /// The first child under a [`Sym::Run`], and the next such of the parent's.
    first_run: usize,
    next_run: usize,
    /// Keys whose symbols end here.
    here: Vec<usize>,
}

impl Node {
    fn new() -> Node {
        Node {
            first_child: NONE,
            next_sibling: NONE,
            first_run: NONE,
            next_run: NONE,
            here: Vec::new(),
        }
    }
}

impl Default for Candidates<'_> {
    fn default() -> Self {
        Candidates {
            nodes: vec![Node::new()],
            edges: indexmap::IndexMap::default(),
        }
    }
}

impl<'t> Candidates<'t> {
    /// Files key number `id` under its symbols.
    pub fn insert(&mut self, id: usize, syms: &[Sym<'t>]) {
        let mut node = 0;
        for sym in syms {
            node = match self.edges.get(&(node, *sym)) {
                Some(&child) => child,
                None => {
                    let child = self.nodes.len();
                    let run = matches!(sym, Sym::Run(_));
                    let mut new = Node::new();
                    let parent = &mut self.nodes[node];
                    new.next_sibling = std::mem::replace(&mut parent.first_child, child);
                    if run {
                        new.next_run = std::mem::replace(&mut parent.first_run, child);
                    }
                    self.nodes.push(new);
                    self.edges.insert((node, *sym), child);
                    child
                }
            };
        }
        self.nodes[node].here.push(id);
    }

    /// The children of `node`, or those under a run when `runs`.
    fn children(&self, node: usize, runs: bool) -> impl Iterator<Item = usize> + '_ {
        let first = if runs {
            self.nodes[node].first_run
        } else {
            self.nodes[node].first_child
        };
        std::iter::successors(Some(first).filter(|&c| c != NONE), move |&c| {
            let next = if runs {
                self.nodes[c].next_run
            } else {
                self.nodes[c].next_sibling
            };
            Some(next).filter(|&n| n != NONE)
        })
    }

    /// The keys that may intersect a key with symbols `syms`, in ascending order.
    pub fn candidates(&self, syms: &[Sym<'t>]) -> Vec<usize> {
        let mut out = Vec::new();
        let mut walk = vec![(0, syms)];
        while let Some((node, rest)) = walk.pop() {
            out.extend_from_slice(&self.nodes[node].here);
            let Some(first) = rest.first() else {
                self.children(node, false)
                    .for_each(|c| self.subtree(c, &mut out));
                continue;
            };
            let follow = self.edges.get(&(node, *first)).copied();
            match first {
                // A run against anything else proves nothing.
                Sym::Run(_) => self
                    .children(node, false)
                    .filter(|&c| Some(c) != follow)
                    .for_each(|c| self.subtree(c, &mut out)),
                // A character against a run proves nothing either.
                Sym::Char(_) | Sym::End => self
                    .children(node, true)
                    .for_each(|c| self.subtree(c, &mut out)),
            }
            if let Some(child) = follow {
                walk.push((child, &rest[1..]));
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    fn subtree(&self, node: usize, out: &mut Vec<usize>) {
        let mut stack = vec![node];
        while let Some(node) = stack.pop() {
            out.extend_from_slice(&self.nodes[node].here);
            stack.extend(self.children(node, false));
        }
    }
}

#[cfg(test)]
mod tests;

/// Where a key reader finds a literal too early: a value of a placeholder
/// (of alphabet `class`) after which the key goes on with `literal`, such
/// that the first occurrence of `literal` starts inside the value. Keys are
/// read left to right, each placeholder up to the first occurrence of the
/// literal after it (`__rt::until`), so such a value is read back cut
/// short; and a `begins_with` that ends with the literal also matches keys
/// whose value goes on past it. `None` exactly when no value of the class
/// (of any length) holds an occurrence of the literal that starts inside
/// it: the literal does not fit in the class, and no prefix of it that
/// fits is followed, within it, by a repeat of its start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadTooEarly {
    /// The value.
    pub value: String,
    /// The value and the literal, where the literal first occurs earlier.
    pub text: String,
}

/// See [`ReadTooEarly`].
pub fn read_too_early(class: &CharSet, literal: &str) -> Option<ReadTooEarly> {
    let chars: Vec<char> = literal.chars().collect();
    let n = chars.len();
    (1..=n).find_map(|k| {
        let fits = chars[..k].iter().all(|&c| contains(class, c));
        // The text `L[..k]` then `L` starts with `L` when `L` is in the
        // class whole (k = n), or `L[k..]` repeats the start of `L`.
        let repeats = k == n || chars[k..] == chars[..n - k];
        (fits && repeats).then(|| {
            let value: String = chars[..k].iter().collect();
            ReadTooEarly {
                text: format!("{value}{literal}"),
                value,
            }
        })
    })
}
