//! Matching an access pattern's key condition against an entity's key template.
//!
//! `TENANT#<tenant>|OPEN` matches `TENANT#<tenant>|<status>` with `status`
//! fixed to `OPEN`; `TENANT#<tenant>|TICKET#<id>` matches
//! `TENANT#<tenant>|TICKET#<ticket_id>` with the parameter `id` filling
//! `ticket_id`. A prefix match (for `begins_with` and range conditions) may
//! stop anywhere in the entity's template, even inside a placeholder.

use crate::ir::{KeyTemplate, Placeholder, PlaceholderKind, Segment};

/// What fills one placeholder of the entity's template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fill {
    /// A placeholder of the pattern (a parameter, the tenant or the shard).
    Param(String, PlaceholderKind),
    /// Literal text of the pattern: the whole value.
    Literal(String),
    /// Literal text of the pattern that ends inside the placeholder: a prefix of the value.
    Partial(String),
}

/// One entity placeholder and what fills it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    /// The entity template's placeholder name.
    pub placeholder: String,
    /// Its kind.
    pub kind: PlaceholderKind,
    /// What fills it.
    pub fill: Fill,
}

#[derive(Clone, Copy)]
enum Tok<'a> {
    Char(char),
    Hole(&'a Placeholder),
}

fn tokens(template: &KeyTemplate) -> Vec<Tok<'_>> {
    let mut out = Vec::new();
    for seg in &template.segments {
        match seg {
            Segment::Literal(l) => out.extend(l.chars().map(Tok::Char)),
            Segment::Placeholder(p) => out.push(Tok::Hole(p)),
        }
    }
    out
}

/// Matches `pattern` against `entity`; `prefix` allows the pattern to end early.
pub fn match_template(
    pattern: &KeyTemplate,
    entity: &KeyTemplate,
    prefix: bool,
) -> Option<Vec<Binding>> {
    let q = tokens(pattern);
    let e = tokens(entity);
    let mut acc = Vec::new();
    step(&q, &e, prefix, &mut acc).then_some(acc)
}

fn step(q: &[Tok<'_>], e: &[Tok<'_>], prefix: bool, acc: &mut Vec<Binding>) -> bool {
    let Some(first) = e.first() else {
        return q.is_empty();
    };
    if q.is_empty() {
        return prefix;
    }
    match (first, q[0]) {
        (Tok::Char(a), Tok::Char(b)) => *a == b && step(&q[1..], &e[1..], prefix, acc),
        (Tok::Char(_), Tok::Hole(_)) => false,
        (Tok::Hole(h), Tok::Hole(p)) => {
            if h.kind != p.kind {
                return false;
            }
            acc.push(Binding {
                placeholder: h.name.value.clone(),
                kind: h.kind,
                fill: Fill::Param(p.name.value.clone(), p.kind),
            });
            step(&q[1..], &e[1..], prefix, acc) || {
                acc.pop();
                false
            }
        }
        (Tok::Hole(h), Tok::Char(_)) => fill_with_literal(h, q, e, prefix, acc),
    }
}

/// An entity placeholder filled by a run of the pattern's literal characters.
/// The tenant and shard are never literals in a pattern.
fn fill_with_literal(
    h: &Placeholder,
    q: &[Tok<'_>],
    e: &[Tok<'_>],
    prefix: bool,
    acc: &mut Vec<Binding>,
) -> bool {
    if h.kind != PlaceholderKind::Attribute {
        return false;
    }
    let run = q.iter().take_while(|t| matches!(t, Tok::Char(_))).count();
    let text: String = q[..run]
        .iter()
        .map(|t| match t {
            Tok::Char(c) => *c,
            Tok::Hole(_) => unreachable!("the run holds only characters"),
        })
        .collect();
    for len in 1..=run {
        let value: String = text.chars().take(len).collect();
        let rest = &q[len..];
        let partial = prefix && rest.is_empty() && len == run;
        acc.push(Binding {
            placeholder: h.name.value.clone(),
            kind: h.kind,
            fill: if partial {
                Fill::Partial(value)
            } else {
                Fill::Literal(value)
            },
        });
        if step(rest, &e[1..], prefix, acc) {
            return true;
        }
        acc.pop();
    }
    false
}

/// One position of a template as [`Leads`] sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Sym {
    Char(char),
    Tenant,
    Shard,
    /// A parameter of a pattern: no entity's lead holds one.
    Param,
    /// The end of a template.
    End,
}

/// Entity partition-key templates on one index, grouped by their lead: the
/// positions before the first attribute placeholder. A pattern's partition
/// key can only match an entity whose lead it starts with (a pattern's
/// literal text may fill an entity's attribute placeholder, but everything
/// before the first one must be the same), so [`Leads::candidates`] visits
/// the few entities that can match instead of every entity. A template
/// without attribute placeholders is its whole lead, and matches only itself.
#[derive(Debug, Default)]
pub struct Leads {
    groups: indexmap::IndexMap<Vec<Sym>, Vec<usize>>,
    /// The lengths of the leads in `groups`: the prefixes worth looking up.
    lengths: std::collections::BTreeSet<usize>,
}

impl Leads {
    /// Adds entity number `entity` with partition-key template `pk`.
    pub fn insert(&mut self, entity: usize, pk: &KeyTemplate) {
        let mut lead = Vec::new();
        for seg in &pk.segments {
            match seg {
                Segment::Literal(l) => lead.extend(l.chars().map(Sym::Char)),
                Segment::Placeholder(p) => match p.kind {
                    PlaceholderKind::Tenant => lead.push(Sym::Tenant),
                    PlaceholderKind::Shard => lead.push(Sym::Shard),
                    PlaceholderKind::Attribute => {
                        self.lengths.insert(lead.len());
                        self.groups.entry(lead).or_default().push(entity);
                        return;
                    }
                },
            }
        }
        lead.push(Sym::End);
        self.lengths.insert(lead.len());
        self.groups.entry(lead).or_default().push(entity);
    }

    /// The entities whose partition key `pk` (a pattern's) may match, in
    /// insertion order.
    pub fn candidates(&self, pk: &KeyTemplate) -> Vec<usize> {
        let mut syms = Vec::new();
        for seg in &pk.segments {
            match seg {
                Segment::Literal(l) => syms.extend(l.chars().map(Sym::Char)),
                Segment::Placeholder(p) => syms.push(match p.kind {
                    PlaceholderKind::Tenant => Sym::Tenant,
                    PlaceholderKind::Shard => Sym::Shard,
                    PlaceholderKind::Attribute => Sym::Param,
                }),
            }
        }
        syms.push(Sym::End);
        let mut out: Vec<usize> = (self.lengths.range(..=syms.len()))
            .filter_map(|&n| self.groups.get(&syms[..n]))
            .flatten()
            .copied()
            .collect();
        out.sort_unstable();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Spanned;

    fn t(s: &str, kinds: &[(&str, PlaceholderKind)]) -> KeyTemplate {
        let spans = crate::template::TemplateSpans::new(
            &crate::source::SourceMap::new(),
            &Spanned::dummy(s.to_owned()),
        );
        let raw = crate::template::parse_template(s, spans).unwrap();
        let segments: Vec<Segment> = raw
            .into_iter()
            .map(|r| match r {
                crate::template::RawSegment::Literal(l) => Segment::Literal(l),
                crate::template::RawSegment::Placeholder(n) => {
                    let kind = kinds
                        .iter()
                        .find(|(k, _)| *k == n.value)
                        .map_or(PlaceholderKind::Attribute, |(_, k)| *k);
                    Segment::Placeholder(Placeholder { name: n, kind })
                }
            })
            .collect();
        let natural =
            matches!(segments.as_slice(), [Segment::Placeholder(p)] if p.name.value == "pk");
        KeyTemplate {
            attribute: "pk".into(),
            source: Spanned::dummy(s.into()),
            segments,
            natural,
        }
    }

    const T: (&str, PlaceholderKind) = ("tenant", PlaceholderKind::Tenant);

    #[test]
    fn literal_fills_an_entity_placeholder() {
        let b = match_template(
            &t("TENANT#<tenant>|OPEN", &[T]),
            &t("TENANT#<tenant>|<status>", &[T]),
            false,
        )
        .unwrap();
        assert_eq!(b[1].fill, Fill::Literal("OPEN".into()));
    }

    #[test]
    fn parameters_may_have_other_names() {
        let b =
            match_template(&t("TICKET#<id>", &[]), &t("TICKET#<ticket_id>", &[]), false).unwrap();
        assert_eq!(b[0].placeholder, "ticket_id");
        assert_eq!(
            b[0].fill,
            Fill::Param("id".into(), PlaceholderKind::Attribute)
        );
    }

    #[test]
    fn full_match_needs_the_whole_template() {
        assert!(match_template(&t("COMMENT#", &[]), &t("COMMENT#<at>#<id>", &[]), false).is_none());
        let b =
            match_template(&t("COMMENT#2024", &[]), &t("COMMENT#<at>#<id>", &[]), true).unwrap();
        assert_eq!(b[0].fill, Fill::Partial("2024".into()));
    }

    #[test]
    fn different_literals_do_not_match() {
        assert!(match_template(&t("SUMMARY", &[]), &t("COMMENT#<id>", &[]), true).is_none());
    }

    #[test]
    fn tenant_is_never_a_literal() {
        assert!(
            match_template(&t("TENANT#1|X", &[]), &t("TENANT#<tenant>|X", &[T]), false).is_none()
        );
    }

    #[test]
    fn leads_keep_every_entity_a_pattern_can_match() {
        let entities = [
            t("TENANT#<tenant>|TICKET#<id>", &[T]),
            t("TENANT#<tenant>|COMMENT#<id>", &[T]),
            t("TENANT#<tenant>|<status>", &[T]),
            t("<owner>", &[]),
            t("TENANT#<tenant>", &[T]),
        ];
        let mut leads = Leads::default();
        for (i, e) in entities.iter().enumerate() {
            leads.insert(i, e);
        }
        let patterns = [
            t("TENANT#<tenant>|TICKET#<id>", &[T]),
            t("TENANT#<tenant>|OPEN", &[T]),
            t("TENANT#<tenant>", &[T]),
            t("ORG#<org>", &[]),
            t("<x>", &[]),
        ];
        for p in &patterns {
            let candidates = leads.candidates(p);
            for (i, e) in entities.iter().enumerate() {
                if match_template(p, e, false).is_some() {
                    assert!(
                        candidates.contains(&i),
                        "{} lost {}",
                        p.source.value,
                        e.source.value
                    );
                }
            }
        }
        assert_eq!(leads.candidates(&patterns[0]), vec![0, 2, 3]);
        assert_eq!(leads.candidates(&patterns[3]), vec![3]);
    }
}
