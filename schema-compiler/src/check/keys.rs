//! Key soundness: values cannot forge key structure, entities cannot collide,
//! queries return only what they declare, range conditions sort correctly.

use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::encoding::{self};
use crate::ir::{self, IndexRef, Operation, PlaceholderKind, Segment, SortOp};

use super::{entity_tokens, pattern_tokens, show_chars};
use crate::lang::{intersects, key_syms, primary_key_tokens, witness, Candidates, Sym, Tok};

/// Why: a value containing a delimiter forges key structure and breaks parsing keys back.
///
/// Exact for the way keys are read: each placeholder of variable width up
/// to the first occurrence of the literal after it. A template is refused
/// when some value can hold an occurrence of that literal starting inside
/// it (the key is read back with a shorter value, and a `begins_with` on
/// the prefix also matches keys whose value goes on past it); also for the
/// part of the literal a query's `begins_with` ends with. A delimiter in a
/// literal before every placeholder, or one that the last placeholder may
/// hold, forges nothing.
pub fn check_delimiter_injection(spec: &ir::Spec, diags: &mut Diagnostics) {
    for entity in spec.entities.values() {
        for (_, template) in entity.templates() {
            let cuts = begins_with_cuts(spec, entity, template);
            for (i, segment) in template.segments.iter().enumerate() {
                let (Segment::Placeholder(p), Some(Segment::Literal(after))) =
                    (segment, template.segments.get(i + 1))
                else {
                    continue;
                };
                let domain = encoding::entity_placeholder_domain(spec, entity, p);
                if domain.fixed_width {
                    continue;
                }
                // The literal a key goes on with, and the parts of it that
                // `begins_with` conditions end with.
                let literals = std::iter::once(after.as_str()).chain(
                    cuts.iter()
                        .filter(|(at, _)| *at == i + 1)
                        .map(|(_, cut)| cut.as_str()),
                );
                let Some((literal, early)) = literals
                    .filter_map(|l| Some((l, crate::lang::read_too_early(&domain.alphabet, l)?)))
                    .next()
                else {
                    continue;
                };
                // The character right after the tenant is `tenant_prefix_unsafe`'s to report.
                if p.kind == PlaceholderKind::Tenant
                    && literal
                        .chars()
                        .next()
                        .is_some_and(|c| domain.alphabet.contains(c))
                {
                    continue;
                }
                diags.push(injection(
                    spec,
                    entity,
                    p,
                    template,
                    literal,
                    &domain.alphabet,
                    &early,
                ));
            }
        }
    }
}

/// The literals of `template` that a query's `begins_with` on the entity
/// ends inside of: `(segment index, the part of it the operand writes)`.
fn begins_with_cuts(
    spec: &ir::Spec,
    entity: &ir::Entity,
    template: &ir::KeyTemplate,
) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for pattern in spec.access_patterns.values() {
        let Operation::Query(q) = &pattern.operation else {
            continue;
        };
        let Some(condition) = q.sk.as_ref().filter(|c| c.op == SortOp::BeginsWith) else {
            continue;
        };
        if !q.matching.contains(&entity.name.value) {
            continue;
        }
        for operand in condition
            .operands
            .iter()
            .filter(|o| o.attribute == template.attribute)
        {
            let last = operand.segments.len().checked_sub(1);
            if let Some((last, Segment::Literal(cut))) = last.map(|l| (l, &operand.segments[l])) {
                let cuts_template = matches!(
                    template.segments.get(last),
                    Some(Segment::Literal(whole)) if whole != cut && whole.starts_with(cut.as_str())
                );
                if cuts_template && last > 0 {
                    out.push((last, cut.clone()));
                }
            }
        }
    }
    out
}

fn injection(
    spec: &ir::Spec,
    entity: &ir::Entity,
    p: &ir::Placeholder,
    template: &ir::KeyTemplate,
    literal: &str,
    alphabet: &ir::CharSet,
    early: &crate::lang::ReadTooEarly,
) -> Diagnostic {
    // A witness pair: a value led by another character of its alphabet, and
    // the shorter value its key is read back as.
    let lead = ('a'..='z')
        .chain('0'..='9')
        .chain('A'..='Z')
        .find(|c| alphabet.contains(*c) && !literal.starts_with(*c));
    let (long, short) = match lead {
        Some(c) => (format!("{c}{}", early.value), c.to_string()),
        None => (early.value.clone(), String::new()),
    };
    let bad: Vec<char> = literal.chars().take(1).collect();
    let d = Diagnostic::new(
        Code::DelimiterInjection,
        format!(
            "values of `<{}>` may contain {}, a delimiter of `{}`: `<{}>` = `{long}` is read back as `{short}` (a key is read up to the first `{literal}` after it), and a `begins_with` on `…{short}{literal}` also matches it",
            p.name,
            show_chars(&bad),
            template.source.value,
            p.name,
        ),
    )
    .label(p.name.span, "this placeholder");
    match p.kind {
        PlaceholderKind::Tenant => {
            let tenant = spec
                .tenant
                .as_ref()
                .expect("a tenant placeholder implies a tenant section");
            d.label(tenant.id_pattern.span, "tenant id pattern")
                .help("exclude the delimiters from the tenant id_pattern (tenant ids cannot be escaped: IAM sees them verbatim)")
        }
        _ => {
            let attr = entity.attributes.get(&p.name.value);
            let d = match attr {
                Some(a) => d.label(a.name.span, "attribute declared here"),
                None => d,
            };
            let help = match attr.map(|a| &a.r#type) {
                Some(ir::AttributeType::String { .. }) => format!(
                    "give `{}` a `pattern` that excludes {} (e.g. `^[A-Za-z0-9_]+$`), or set `escape: true` to percent-encode them",
                    p.name,
                    show_chars(&bad)
                ),
                _ => format!("use delimiters that `{}` values cannot contain, such as `#` or `|`", p.name),
            };
            d.help(help)
        }
    }
}

/// Why: `<a><b>` cannot be split back into `a` and `b` unless `a` has a fixed width.
pub fn check_ambiguous_templates(spec: &ir::Spec, diags: &mut Diagnostics) {
    for entity in spec.entities.values() {
        for (_, template) in entity.templates() {
            for pair in template.segments.windows(2) {
                let [Segment::Placeholder(a), Segment::Placeholder(b)] = pair else {
                    continue;
                };
                if encoding::entity_placeholder_domain(spec, entity, a).fixed_width {
                    continue;
                }
                diags.push(
                    Diagnostic::new(Code::AmbiguousTemplate, format!("`<{}>` is directly followed by `<{}>`: keys cannot be split back into values", a.name, b.name))
                        .label(a.name.span, "variable-width placeholder")
                        .label(b.name.span, "next placeholder")
                        .help(format!("put a delimiter between them, e.g. `<{}>#<{}>`", a.name, b.name)),
                );
            }
        }
    }
}

/// Why: two entities with the same primary key overwrite each other's items.
pub fn check_key_collisions(spec: &ir::Spec, diags: &mut Diagnostics) {
    let entities: Vec<&ir::Entity> = spec.entities.values().collect();
    // Each template's language once, not once per pair.
    let keys: Vec<(Vec<Tok>, Option<Vec<Tok>>)> = entities
        .iter()
        .map(|e| {
            (
                primary_key_tokens(spec, e, &e.primary_key.pk),
                e.primary_key
                    .sk
                    .as_ref()
                    .map(|sk| primary_key_tokens(spec, e, sk)),
            )
        })
        .collect();
    let syms: Vec<Vec<Sym>> = keys
        .iter()
        .map(|(pk, sk)| entity_syms(pk, sk.as_deref()))
        .collect();
    let mut trie = Candidates::default();
    for (i, s) in syms.iter().enumerate() {
        trie.insert(i, s);
    }
    for (i, a) in entities.iter().enumerate() {
        for j in trie.candidates(&syms[i]) {
            if j <= i || !primary_keys_intersect(&keys[i], &keys[j]) {
                continue;
            }
            let b = entities[j];
            // The keys meet with each enum or boolean as one of its words
            // (not only as a run of its letters), or not at all. Where the
            // key's shape tells the entity (`entity_type: keys`), reads
            // match shapes of classes, so the classes must not meet.
            let by_shape = spec.table.entity_type == ir::EntityType::Keys;
            let (key_a, key_b, message) = match word_collision(spec, a, b) {
                Some((key_a, key_b)) => (key_a, key_b, "can produce the same primary key"),
                None if by_shape => (
                    keys[i].clone(),
                    keys[j].clone(),
                    "cannot be told apart by the shapes of their keys (`entity_type: keys` reads an enum or boolean as a run of its letters)",
                ),
                None => continue,
            };
            let (span_a, span_b) = (key_span(&a.primary_key), key_span(&b.primary_key));
            let example = collision_example(spec, &key_a, &key_b)
                .map(|key| format!(", such as {key}"))
                .unwrap_or_default();
            diags.push(
                Diagnostic::new(Code::KeyCollision, format!("entities `{}` and `{}` {message}{example}", a.name, b.name))
                    .label(span_b, format!("`{}`'s key", b.name))
                    .label(span_a, format!("`{}`'s key", a.name))
                    .help(if spec.table.partition_key.r#type == ir::KeyType::String {
                        format!(
                            "give each entity its own literal in the key, e.g. `{}#…` for `{}` and `{}#…` for `{}`, or narrow the placeholders' patterns",
                            crate::naming::screaming(&a.name),
                            a.name,
                            crate::naming::screaming(&b.name),
                            b.name
                        )
                    } else {
                        format!(
                            "a number or binary key holds the value alone, whatever its range: give each entity a sort key of its own, or key the table on strings with a literal per entity (`{}#<…>`)",
                            crate::naming::screaming(&a.name)
                        )
                    }),
            );
        }
    }
}

/// A partition key and a sort key of each entity, with every enum and
/// boolean placeholder one of its words, that both entities can write.
#[allow(clippy::type_complexity)]
fn word_collision(
    spec: &ir::Spec,
    a: &ir::Entity,
    b: &ir::Entity,
) -> Option<((Vec<Tok>, Option<Vec<Tok>>), (Vec<Tok>, Option<Vec<Tok>>))> {
    let words =
        |e: &ir::Entity, t: &ir::KeyTemplate| crate::lang::primary_key_word_tokens(spec, e, t);
    let meeting = |x: Vec<Vec<Tok>>, y: Vec<Vec<Tok>>| {
        x.iter().find_map(|p| {
            y.iter()
                .find(|q| intersects(p, q, false))
                .map(|q| (p.clone(), q.clone()))
        })
    };
    let (pk_a, pk_b) = meeting(words(a, &a.primary_key.pk), words(b, &b.primary_key.pk))?;
    match (&a.primary_key.sk, &b.primary_key.sk) {
        (Some(sa), Some(sb)) => {
            let (sk_a, sk_b) = meeting(words(a, sa), words(b, sb))?;
            Some(((pk_a, Some(sk_a)), (pk_b, Some(sk_b))))
        }
        _ => Some(((pk_a, None), (pk_b, None))),
    }
}

/// The trie symbols of an entity's key: both attributes matched whole.
fn entity_syms<'t>(pk: &'t [Tok], sk: Option<&'t [Tok]>) -> Vec<Sym<'t>> {
    let mut parts = vec![(pk, false)];
    parts.extend(sk.map(|sk| (sk, false)));
    key_syms(&parts)
}

/// Where to point for an entity's key: the sort key, which tells entities
/// apart, or the partition key when there is none.
fn key_span(key: &ir::EntityKey) -> crate::source::Span {
    key.sk.as_ref().unwrap_or(&key.pk).source.span
}

/// A primary key both entities can write, `` `pk` = `…`, `sk` = `…` ``, the
/// shortest of each attribute (`None` when the keys do not meet, or a key
/// attribute is not a string, whose stored value is not the text matched).
fn collision_example(
    spec: &ir::Spec,
    (pk_a, sk_a): &(Vec<Tok>, Option<Vec<Tok>>),
    (pk_b, sk_b): &(Vec<Tok>, Option<Vec<Tok>>),
) -> Option<String> {
    let strings = spec.table.keys().all(|k| k.r#type == ir::KeyType::String);
    if !strings {
        return None;
    }
    let pk = witness(pk_a, pk_b, false)?;
    let mut key = format!("`{}` = `{pk}`", spec.table.partition_key.name);
    if let (Some(sa), Some(sb), Some(name)) = (sk_a, sk_b, &spec.table.sort_key) {
        let sk = witness(sa, sb, false)?;
        key.push_str(&format!(", `{}` = `{sk}`", name.name));
    }
    Some(key)
}

fn primary_keys_intersect(
    (pk_a, sk_a): &(Vec<Tok>, Option<Vec<Tok>>),
    (pk_b, sk_b): &(Vec<Tok>, Option<Vec<Tok>>),
) -> bool {
    let pk = intersects(pk_a, pk_b, false);
    match (sk_a, sk_b) {
        (Some(sa), Some(sb)) => pk && intersects(sa, sb, false),
        _ => pk,
    }
}

/// Why: a query that can return an undeclared entity type hands callers items they do not expect.
pub fn check_key_space_overlap(spec: &ir::Spec, diags: &mut Diagnostics) {
    /// An entity's key in one index (or the table), as languages.
    struct Keyed<'s> {
        entity: &'s ir::Entity,
        keys: &'s ir::EntityKey,
        pk: Vec<Tok>,
        sk: Option<Vec<Tok>>,
    }
    // Each entity key's language once per index, not once per query.
    let mut by_index: indexmap::IndexMap<Option<&str>, Vec<Keyed<'_>>> = indexmap::IndexMap::new();
    for entity in spec.entities.values() {
        let all = std::iter::once((None, &entity.primary_key))
            .chain(entity.index_keys.iter().map(|(i, k)| (Some(i.as_str()), k)));
        for (index, keys) in all {
            by_index.entry(index).or_default().push(Keyed {
                entity,
                keys,
                pk: entity_tokens(spec, entity, &keys.pk),
                sk: keys.sk.as_ref().map(|sk| entity_tokens(spec, entity, sk)),
            });
        }
    }
    // ...and filed so that a query visits only the keys it may reach.
    let tries: indexmap::IndexMap<Option<&str>, Candidates<'_>> = by_index
        .iter()
        .map(|(index, keyed)| {
            let mut trie = Candidates::default();
            for (i, k) in keyed.iter().enumerate() {
                trie.insert(i, &entity_syms(&k.pk, k.sk.as_deref()));
            }
            (*index, trie)
        })
        .collect();
    for pattern in spec.access_patterns.values() {
        let Operation::Query(q) = &pattern.operation else {
            continue;
        };
        let index = match &q.index {
            IndexRef::Table => None,
            IndexRef::Index(i) => Some(i.as_str()),
        };
        let (Some(keyed), Some(trie)) = (by_index.get(&index), tries.get(&index)) else {
            continue;
        };
        let pk = pattern_tokens(spec, q, &q.pk);
        let operands: Vec<Vec<Tok>> =
            q.sk.iter()
                .flat_map(|c| &c.operands)
                .map(|o| pattern_tokens(spec, q, o))
                .collect();
        let mut parts = vec![(pk.as_slice(), false)];
        match &q.sk {
            Some(c) if c.op == SortOp::Equals => parts.push((&operands[0], false)),
            Some(c) if c.op == SortOp::BeginsWith => parts.push((&operands[0], true)),
            // A range may reach any sort key of the partition.
            Some(_) => parts.push((&[], true)),
            None => {}
        }
        for i in trie.candidates(&key_syms(&parts)) {
            let Keyed {
                entity,
                keys,
                pk: entity_pk,
                sk: _,
            } = &keyed[i];
            if !intersects(&pk, entity_pk, false) || q.returns.contains(&entity.name.value) {
                continue;
            }
            // With each enum or boolean of the entity's partition key as one
            // of its words, not a run of its letters.
            let words = crate::lang::word_tokens(
                &keys.pk,
                |p| encoding::entity_placeholder_domain(spec, entity, p),
                |p| crate::lang::placeholder_words(entity, p),
            );
            if !words.iter().any(|w| intersects(&pk, w, false)) {
                continue;
            }
            let sk_overlaps = match (&q.sk, &keys.sk) {
                (Some(cond), Some(entity_sk)) => crate::lang::condition_holds(
                    entity_sk,
                    &|p| encoding::entity_placeholder_domain(spec, entity, p),
                    cond.op,
                    &cond.operands,
                    &|p| super::pattern_domain(spec, q, p),
                ),
                _ => true,
            };
            if sk_overlaps {
                diags.push(
                    Diagnostic::new(Code::KeySpaceOverlap, format!("access pattern `{}` can return `{}` items, which it does not declare", pattern.name, entity.name))
                        .label(q.sk.as_ref().map_or(q.pk.source.span, |c| c.span), "this key condition")
                        .label(keys.sk.as_ref().unwrap_or(&keys.pk).source.span, format!("`{}`'s key", entity.name))
                        .help(format!("add `{}` to `returns`, or narrow the sort-key condition so it cannot match `{}`'s keys", entity.name, entity.name)),
                );
            }
        }
    }
}

/// Why: range conditions compare text, so the encoding must sort like the values.
pub fn check_sort_order(spec: &ir::Spec, diags: &mut Diagnostics) {
    for pattern in spec.access_patterns.values() {
        let Operation::Query(q) = &pattern.operation else {
            continue;
        };
        let Some(cond) = &q.sk else { continue };
        if matches!(cond.op, SortOp::Equals | SortOp::BeginsWith) {
            continue;
        }
        // A Number key holds the value itself, which DynamoDB orders as a
        // number: only text keys compare encoded text.
        let text = cond.operands.iter().filter(|o| !spec.holds_value(o));
        for p in text.flat_map(|o| o.placeholders()) {
            let Some(param) = q.params.get(&p.name.value) else {
                continue;
            };
            let domain = super::param_domain(param);
            let digits = !domain.alphabet.ranges.is_empty()
                && domain
                    .alphabet
                    .ranges
                    .iter()
                    .all(|&(lo, hi)| '0' <= lo && hi <= '9');
            if domain.ordered && digits && domain.max_len != Some(domain.min_len) {
                diags.push(
                    Diagnostic::new(Code::SortOrder, format!("range condition over `<{}>`, a string of digits of {} to {} characters, compared as text: `\"10000\"` sorts before `\"9\"`", p.name, domain.min_len, domain.max_len.map_or("any number of".to_owned(), |m| m.to_string())))
                        .label(p.name.span, "compared as text")
                        .help(format!("make `{}` an integer (written zero-padded, so its text sorts like its value), give its values one width (`pattern: \"^[0-9]{{{}}}$\"`), or acknowledge text order with `lints: {{ sort_order: allow }}`", p.name, domain.max_len.unwrap_or(domain.min_len))),
                );
                continue;
            }
            if domain.ordered {
                continue;
            }
            diags.push(
                Diagnostic::new(Code::SortOrder, format!("range condition over `<{}>`, {} written into a text key, whose text order is not its value order", p.name, param.r#type.article_name()))
                    .label(p.name.span, "compared as text")
                    .help("a range over a text key compares key text: use an integer or datetime (encoded to sort), a Number sort key holding the value itself, or an equality/begins_with condition"),
            );
        }
    }
}

/// Why: a key compares as one text, its parts in order. In
/// `between: ["D#<from>#<low>", "D#<to>#<high>"]` the range runs over
/// `<from>`…`<to>` first; `<low>` and `<high>` cut only the items whose
/// first part is exactly `<from>` or `<to>`, and every item in between is
/// returned whatever its second part: a range on two attributes at once
/// is a key range on the first and a filter on the second.
pub fn check_range_over_parts(spec: &ir::Spec, diags: &mut Diagnostics) {
    for pattern in spec.access_patterns.values() {
        let Operation::Query(q) = &pattern.operation else {
            continue;
        };
        let Some(cond) = q.sk.as_ref().filter(|c| c.op == SortOp::Between) else {
            continue;
        };
        let [low, high] = cond.operands.as_slice() else {
            continue;
        };
        let (low, high) = (bound_parts(low, q), bound_parts(high, q));
        let pairs: Vec<_> = low.iter().zip(&high).collect();
        // The first part the bounds give by different parameters: the range runs over it.
        let Some(lead) = pairs
            .iter()
            .position(|((a, _), (b, _))| a.name.value != b.name.value)
        else {
            continue;
        };
        let later = pairs[lead + 1..]
            .iter()
            .find(|((a, pa), (b, pb))| a.name.value != b.name.value && pa.binds == pb.binds);
        let Some(((a, pa), (b, _))) = later else {
            continue;
        };
        let ((from, lead_param), (to, _)) = pairs[lead];
        let attribute = pa
            .binds
            .first()
            .map_or(a.name.value.as_str(), |(_, attr)| attr.as_str());
        let first = lead_param
            .binds
            .first()
            .map_or(from.name.value.as_str(), |(_, attr)| attr.as_str());
        diags.push(
            Diagnostic::new(
                Code::RangeOverParts,
                format!(
                    "`{}` ranges over `{first}` from `<{}>` to `<{}>`: `<{}>` and `<{}>` bound `{attribute}` only where `{first}` is exactly `<{}>` or `<{}>`; items in between are returned whatever their `{attribute}`",
                    pattern.name, from.name, to.name, a.name, b.name, from.name, to.name
                ),
            )
            .label(a.name.span, "bounds only the first")
            .label(b.name.span, "bounds only the last")
            .help(format!(
                "to keep `{attribute}` between `<{}>` and `<{}>` for every item, filter on it (`filter: {{ {attribute}: {{ between: [\"<{}>\", \"<{}>\"] }} }}`) and end the bounds at `<{}>`/`<{}>`; when the bounds are positions (from one key to another), acknowledge with `lints: {{ range_over_parts: allow }}`",
                a.name, b.name, a.name, b.name, from.name, to.name
            )),
        );
    }
}

/// A bound's placeholders that are parameters of the query, with them.
fn bound_parts<'q>(
    bound: &'q ir::KeyTemplate,
    q: &'q ir::Query,
) -> Vec<(&'q ir::Placeholder, &'q ir::Param)> {
    bound
        .placeholders()
        .filter_map(|p| q.params.get(&p.name.value).map(|param| (p, param)))
        .collect()
}

/// What follows the attribute parameter `name` binds in the sort key of an
/// entity the query reads: `(entity, Some(first character of the literal
/// after it))`, or `(entity, None)` where it ends the key.
fn what_follows<'s>(
    spec: &'s ir::Spec,
    q: &ir::Query,
    name: &str,
) -> Option<(&'s str, Option<char>)> {
    let param = q.params.get(name)?;
    param.binds.iter().find_map(|(e, a)| {
        let entity = spec.entities.get(e)?;
        let keys = match &q.index {
            IndexRef::Table => Some(&entity.primary_key),
            IndexRef::Index(i) => entity.index_keys.get(i),
        }?;
        let sk = keys.sk.as_ref()?;
        let at = sk.segments.iter().position(|s| {
            matches!(s, Segment::Placeholder(p) if p.kind == PlaceholderKind::Attribute && p.name.value == *a)
        })?;
        let next = match sk.segments.get(at + 1) {
            Some(Segment::Literal(l)) => Some(l.chars().next()),
            None => Some(None),
            // Two placeholders in a row are `ambiguous_template`'s.
            Some(Segment::Placeholder(_)) => None,
        }?;
        Some((entity.name.as_str(), next))
    })
}

/// Why: `begins_with(sk, "PROJECT#p1")` also returns project `p10`'s items.
pub fn check_prefix_delimited(spec: &ir::Spec, diags: &mut Diagnostics) {
    for pattern in spec.access_patterns.values() {
        let Operation::Query(q) = &pattern.operation else {
            continue;
        };
        let Some(cond) = q.sk.as_ref().filter(|c| c.op == SortOp::BeginsWith) else {
            continue;
        };
        let Some(Segment::Placeholder(last)) = cond.operands[0].segments.last() else {
            continue;
        };
        let fixed = match last.kind {
            PlaceholderKind::Attribute => q
                .params
                .get(&last.name.value)
                .is_some_and(|p| encoding::type_domain(&p.r#type, false).fixed_width),
            PlaceholderKind::Shard | PlaceholderKind::Tenant => false,
        };
        if fixed {
            continue;
        }
        let x = &last.name;
        let help = match what_follows(spec, q, x) {
            Some((entity, Some(delimiter))) => format!("end the prefix with `{delimiter}`, which follows `<{x}>` in `{entity}`'s key (`...<{x}>{delimiter}`), so `p1` does not also match `p10`"),
            Some((entity, None)) => format!("`<{x}>` ends `{entity}`'s key, so no delimiter can close the prefix: match the whole key with an equality (`sk: \"...<{x}>\"`), give `<{x}>` one width (a `pattern` of fixed length), or acknowledge with `lints: {{ prefix_not_delimited: allow }}`"),
            None => format!("end the prefix with the delimiter that follows `<{x}>` in the entity's key (e.g. `...<{x}>#`), so `p1` does not also match `p10`"),
        };
        diags.push(
            Diagnostic::new(Code::PrefixNotDelimited, format!("`begins_with` prefix of `{}` ends in `<{}>`: a value's prefix matches longer values too", pattern.name, last.name))
                .label(last.name.span, "the prefix ends here")
                .help(help),
        );
    }
}
