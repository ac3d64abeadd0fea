//! Key templates from facet aliases and sample key values.

use super::{snake, Attr, Entity, Kind, Seg, Template, DELIMITERS};
use crate::import::workbench::read::Key;
use crate::ir::AttributeValue;
use std::collections::BTreeSet;

fn is_identifier(s: &str) -> bool {
    crate::resolve::is_identifier(s)
}

/// The text of a scalar value.
pub(super) fn scalar(v: &AttributeValue) -> Option<&str> {
    match v {
        AttributeValue::S(s) | AttributeValue::N(s) | AttributeValue::B(s) => Some(s),
        _ => None,
    }
}

/// Parses an alias written as a template (`TENANT#<tenant>|TICKET#<id>`).
pub(super) fn parse_alias(alias: &str) -> Option<Vec<(bool, String)>> {
    let mut out: Vec<(bool, String)> = Vec::new();
    let mut literal = String::new();
    let mut rest = alias;
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("<<") {
            literal.push('<');
            rest = after;
        } else if c == '<' {
            let close = rest.find('>')?;
            let name = &rest[1..close];
            if !is_identifier(name) {
                return None;
            }
            if !literal.is_empty() {
                out.push((false, std::mem::take(&mut literal)));
            }
            out.push((true, name.to_owned()));
            rest = &rest[close + 1..];
        } else {
            literal.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    if !literal.is_empty() {
        out.push((false, literal));
    }
    out.iter().any(|(p, _)| *p).then_some(out)
}

/// Matches `value` against alias segments; the placeholders' texts.
fn match_alias(segs: &[(bool, String)], value: &str) -> Option<Vec<String>> {
    fn go(segs: &[(bool, String)], value: &str, out: &mut Vec<String>) -> bool {
        let Some(((placeholder, text), rest)) = segs.split_first() else {
            return value.is_empty();
        };
        if !placeholder {
            return value
                .strip_prefix(text.as_str())
                .is_some_and(|v| go(rest, v, out));
        }
        for (i, _) in value.char_indices().skip(1).chain([(value.len(), ' ')]) {
            out.push(value[..i].to_owned());
            if go(rest, &value[i..], out) {
                return true;
            }
            out.pop();
        }
        false
    }
    if segs.iter().filter(|(p, _)| *p).count() > 8 {
        return None;
    }
    let mut out = Vec::new();
    go(segs, value, &mut out).then_some(out)
}

/// The delimiters keys are commonly built with, most common first: `#` and
/// `|`, else `:`, else `_`. A key's values are split at the first class all
/// of them contain (so timestamps keep their `:` when `#` delimits).
const DELIMITER_CLASSES: [&[char]; 3] = [&DELIMITERS, &[':'], &['_']];

/// The delimiter class of a key's values. A `:` between two digits is a
/// time of day (`19:18:00`), not a delimiter.
fn delimiter_class<'v>(values: impl Iterator<Item = &'v str> + Clone) -> &'static [char] {
    let clock = |v: &str| {
        let b = v.as_bytes();
        b.windows(3)
            .any(|w| w[1] == b':' && w[0].is_ascii_digit() && w[2].is_ascii_digit())
    };
    DELIMITER_CLASSES
        .into_iter()
        .find(|class| {
            values
                .clone()
                .all(|v| v.contains(*class) && !(class.contains(&':') && clock(v)))
        })
        .unwrap_or(&DELIMITERS)
}

/// Splits a key value at the delimiters of `class`: parts and the
/// delimiters between them.
fn split_at(value: &str, class: &[char]) -> (Vec<String>, Vec<char>) {
    let mut parts = vec![String::new()];
    let mut delimiters = Vec::new();
    for c in value.chars() {
        if class.contains(&c) {
            delimiters.push(c);
            parts.push(String::new());
        } else if let Some(last) = parts.last_mut() {
            last.push(c);
        }
    }
    (parts, delimiters)
}

pub(super) struct Ctx<'a> {
    pub(super) tenant: Option<&'a str>,
    pub(super) key_type: &'static str,
    /// A part all samples share is a literal even when it holds digits
    /// (`F0`): the second try, when values read as placeholders made two
    /// entities' keys meet.
    pub(super) literal_constants: bool,
}

/// How an attribute's value is written into a key.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Written {
    /// Digits an integer is padded to.
    width: Option<usize>,
    /// A string percent-escaped (`escape: true`).
    escaped: bool,
    /// An integer offset by its negative least value (`min`).
    min: Option<i64>,
}

/// Whether `text` is how a key writes the attribute value `attr`: as
/// itself, a boolean as `true`/`false`, an integer zero-padded; and where
/// an alias names the placeholder (`named`), so that no coincidence of
/// values decides it, a string percent-escaped or an integer offset by a
/// negative least value.
fn binds(attr: Option<&AttributeValue>, text: &str, named: bool) -> Option<Written> {
    let plain = Written::default();
    match attr? {
        AttributeValue::S(s) if s == text => Some(plain),
        AttributeValue::S(s) if named && singletable_codec::escape(s) == text => Some(Written {
            escaped: true,
            ..plain
        }),
        // A boolean is written into a key as `true` or `false`.
        AttributeValue::Bool(b) if b.to_string() == text => Some(plain),
        AttributeValue::N(n) if n == text => Some(Written {
            width: Some(text.len()),
            ..plain
        }),
        AttributeValue::N(n) => {
            let value: i64 = n.parse().ok()?;
            if !text.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let stored: i64 = text.parse().ok()?;
            let min = value.checked_sub(stored)?;
            let width = Some(text.len());
            match min {
                0 => Some(Written { width, ..plain }),
                m if m < 0 && named => Some(Written {
                    width,
                    min: Some(m),
                    ..plain
                }),
                _ => None,
            }
        }
        _ => None,
    }
}

impl Entity {
    pub(super) fn add_attr(&mut self, name: &str, kind: Kind, synthetic: bool) {
        self.attrs.entry(name.to_owned()).or_insert(Attr {
            kind,
            optional: false,
            key_texts: Vec::new(),
            delimiters: BTreeSet::new(),
            width: None,
            synthetic,
            stored_as: None,
            shape: None,
            escaped: false,
            min: None,
            words: None,
        });
    }

    /// Records the texts an attribute takes in a template.
    fn note_key_use(
        &mut self,
        name: &str,
        texts: &[String],
        width: Option<usize>,
        delimiters: &[char],
    ) {
        if let Some(a) = self.attrs.get_mut(name) {
            a.key_texts.extend(texts.iter().cloned());
            a.delimiters.extend(delimiters.iter().copied());
            if a.kind == Kind::Integer {
                a.width = a.width.or(width);
            }
        }
    }

    /// Infers the template of key attribute `key` from the items that have it.
    pub(super) fn infer_key(
        &mut self,
        key: &Key,
        alias: Option<&str>,
        rows: &[usize],
        ctx: &Ctx<'_>,
    ) -> Template {
        // An alias that is the key attribute's own name (`Status#Time`) is
        // a name, not a template.
        let alias = alias.filter(|a| *a != key.name);
        let values: Vec<(usize, String)> = rows
            .iter()
            .filter_map(|&i| {
                let v = self.examples.get(i)?.values.get(&key.name)?;
                Some((i, scalar(v)?.to_owned()))
            })
            .collect();
        if values.is_empty() {
            return self.plain(key, alias, &[], "no sample item shows this key");
        }
        // An alias without placeholders that every sample key equals is
        // the key itself: a constant (`METADATA`, `$employees_1`), whatever
        // its text looks like.
        if let Some(constant) = alias.filter(|a| {
            parse_alias(a).is_none() && !a.contains('<') && values.iter().all(|(_, v)| v == a)
        }) {
            return Template {
                segs: vec![Seg::Lit(constant.to_owned())],
                comment: None,
            };
        }
        if let Some(t) = alias
            .and_then(parse_alias)
            .and_then(|segs| self.template_from_alias(&segs, &values, ctx))
        {
            return t;
        }
        if ctx.key_type == "N" {
            return self.number_key(key, alias, &values);
        }
        if ctx.key_type == "B" {
            return self.plain(
                key,
                alias,
                &values,
                "a binary key holds bytes, not a template",
            );
        }
        self.template_from_parts(key, alias, &values, ctx)
            .unwrap_or_else(|| self.plain(key, alias, &values, "the sample keys share no pattern"))
    }

    /// A key of one placeholder holding the whole value.
    pub(super) fn plain(
        &mut self,
        key: &Key,
        alias: Option<&str>,
        values: &[(usize, String)],
        why: &str,
    ) -> Template {
        let name = self.fresh(
            &alias
                .filter(|a| !a.contains(DELIMITERS))
                .map_or_else(|| snake(&key.name), snake),
        );
        let kind = match key.r#type {
            "N" => Kind::Integer,
            "B" => Kind::Binary,
            _ => Kind::String,
        };
        self.add_attr(&name, kind, true);
        for (i, text) in values {
            if let Some(e) = self.examples.get_mut(*i) {
                let v = match kind {
                    Kind::Integer => AttributeValue::N(text.clone()),
                    Kind::Binary => AttributeValue::B(text.clone()),
                    _ => AttributeValue::S(text.clone()),
                };
                e.values.insert(name.clone(), v);
            }
        }
        let texts: Vec<String> = values.iter().map(|(_, t)| t.clone()).collect();
        let width = texts.first().map(String::len);
        self.note_key_use(&name, &texts, width, &[]);
        if !values.is_empty() && values.len() < self.examples.len() {
            if let Some(a) = self.attrs.get_mut(&name) {
                a.optional = true;
            }
        }
        Template {
            segs: vec![Seg::Attr(name)],
            comment: Some(format!(
                "{why}: a plain placeholder; write the key's real template"
            )),
        }
    }

    pub(super) fn fresh(&self, base: &str) -> String {
        let base = if base.is_empty() { "value" } else { base };
        // Names that become the same Rust field (`ProcessedDate` and
        // `processed_date`) count as taken too.
        let taken = |n: &str| {
            let field = crate::naming::snake(n);
            self.attrs
                .keys()
                .chain(&self.reserved)
                .any(|a| a == n || crate::naming::snake(a) == field)
        };
        if !taken(base) {
            return base.to_owned();
        }
        let base = format!("{base}_value");
        let mut name = base.clone();
        let mut n = 2;
        while taken(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        name
    }

    /// A number key: one integer placeholder, padded to the values' width.
    fn number_key(
        &mut self,
        key: &Key,
        alias: Option<&str>,
        values: &[(usize, String)],
    ) -> Template {
        let width = values.first().map_or(1, |(_, t)| t.len());
        let same_width = values
            .iter()
            .all(|(_, t)| t.len() == width && t.bytes().all(|b| b.is_ascii_digit()));
        if !same_width {
            return self.plain(key, alias, values, "number keys of different widths");
        }
        let existing = self.attrs.iter().find_map(|(name, a)| {
            let all = a.kind == Kind::Integer
                && values.iter().all(|(i, t)| {
                    binds(
                        self.examples.get(*i).and_then(|e| e.values.get(name)),
                        t,
                        false,
                    )
                    .is_some()
                });
            all.then(|| name.clone())
        });
        let name = match existing {
            Some(name) => name,
            None => return self.plain(key, alias, values, "no attribute holds this number"),
        };
        let texts: Vec<String> = values.iter().map(|(_, t)| t.clone()).collect();
        self.note_key_use(&name, &texts, Some(width), &[]);
        Template {
            segs: vec![Seg::Attr(name)],
            comment: None,
        }
    }

    fn template_from_alias(
        &mut self,
        segs: &[(bool, String)],
        values: &[(usize, String)],
        ctx: &Ctx<'_>,
    ) -> Option<Template> {
        let matches: Vec<Vec<String>> = values
            .iter()
            .map(|(_, v)| match_alias(segs, v))
            .collect::<Option<_>>()?;
        let delimiters: Vec<char> = segs
            .iter()
            .filter(|(p, _)| !p)
            .flat_map(|(_, t)| {
                t.chars()
                    .filter(|c| DELIMITER_CLASSES.iter().any(|class| class.contains(c)))
            })
            .collect();
        let mut out = Vec::new();
        let mut k = 0;
        for (placeholder, text) in segs {
            if !placeholder {
                out.push(Seg::Lit(text.clone()));
                continue;
            }
            let texts: Vec<String> = matches.iter().map(|m| m[k].clone()).collect();
            k += 1;
            if Some(text.as_str()) == ctx.tenant {
                for ((i, _), t) in values.iter().zip(&texts) {
                    let e = self.examples.get_mut(*i)?;
                    if e.tenant.get_or_insert_with(|| t.clone()) != t {
                        return None;
                    }
                }
                out.push(Seg::Tenant);
            } else if text == "shard" {
                for ((i, _), t) in values.iter().zip(&texts) {
                    let shard: u32 = t.parse().ok()?;
                    let e = self.examples.get_mut(*i)?;
                    if *e.shard.get_or_insert(shard) != shard {
                        return None;
                    }
                }
                out.push(Seg::Shard);
            } else {
                let width = self.bind_attr(text, values, &texts, true)?;
                self.note_key_use(text, &texts, width, &delimiters);
                out.push(Seg::Attr(text.clone()));
            }
        }
        Some(Template {
            segs: out,
            comment: None,
        })
    }

    /// Binds `name` to `texts` in the items: checks items that have it,
    /// creates it (a string) where it is new.
    fn bind_attr(
        &mut self,
        name: &str,
        values: &[(usize, String)],
        texts: &[String],
        named: bool,
    ) -> Option<Option<usize>> {
        let existing = self.attrs.contains_key(name);
        let mut width = None;
        // An offset must be the one every text, here and in other keys, shows.
        let (mut escaped, mut min) = (false, self.attrs.get(name).and_then(|a| a.min));
        for ((i, _), t) in values.iter().zip(texts) {
            let e = self.examples.get_mut(*i)?;
            match e.values.get(name) {
                Some(v) => {
                    let written = binds(Some(v), t, named)?;
                    width = written.width.or(width);
                    escaped |= written.escaped;
                    if let Some(m) = written.min {
                        if min.is_some_and(|seen| seen != m) {
                            return None;
                        }
                        min = Some(m);
                    }
                }
                None if !existing => {
                    e.values
                        .insert(name.to_owned(), AttributeValue::S(t.clone()));
                }
                None => return None,
            }
        }
        if !existing {
            self.add_attr(name, Kind::String, true);
        }
        if let Some(a) = self.attrs.get_mut(name) {
            a.escaped |= escaped;
            a.min = min;
        }
        Some(width)
    }

    fn template_from_parts(
        &mut self,
        key: &Key,
        alias: Option<&str>,
        values: &[(usize, String)],
        ctx: &Ctx<'_>,
    ) -> Option<Template> {
        let class = delimiter_class(values.iter().map(|(_, v)| v.as_str()));
        let splits: Vec<(Vec<String>, Vec<char>)> =
            values.iter().map(|(_, v)| split_at(v, class)).collect();
        let (first_parts, delimiters) = splits.first()?.clone();
        if splits
            .iter()
            .any(|(p, d)| p.len() != first_parts.len() || *d != delimiters)
        {
            return None;
        }
        let alias_names: Vec<String> = alias
            .filter(|a| parse_alias(a).is_none())
            .map(|a| {
                split_at(a, class)
                    .0
                    .iter()
                    .filter(|p| !p.is_empty())
                    .map(|p| p.to_owned())
                    .collect()
            })
            .unwrap_or_default();
        let mut segs: Vec<Seg> = Vec::new();
        let mut unnamed: Vec<(usize, Vec<String>)> = Vec::new();
        for j in 0..first_parts.len() {
            let texts: Vec<String> = splits.iter().map(|(p, _)| p[j].clone()).collect();
            if j > 0 {
                segs.push(Seg::Lit(delimiters[j - 1].to_string()));
            }
            let constant = texts.iter().all(|t| *t == texts[0]);
            // A constant word is a literal (`METADATA`, `ORDER`); a constant
            // with digits is a value all samples happen to share (`c1`,
            // `player001`), unless the alias says otherwise.
            let literal_like =
                ctx.literal_constants || !texts[0].chars().any(|c| c.is_ascii_digit());
            if texts[0].is_empty()
                || (constant && literal_like && !self.tenant_part(ctx, values, &texts))
            {
                segs.push(Seg::Lit(texts[0].clone()));
                continue;
            }
            if ctx.tenant.is_some() && self.tenant_part(ctx, values, &texts) {
                segs.push(Seg::Tenant);
                continue;
            }
            let shards = values.iter().zip(&texts).all(|((i, _), t)| {
                self.examples
                    .get(*i)
                    .and_then(|e| e.shard)
                    .is_some_and(|s| s.to_string() == *t)
            });
            if shards {
                segs.push(Seg::Shard);
                continue;
            }
            if let Some(name) = self.matching_attr(values, &texts, false) {
                let width = self.bind_attr(&name, values, &texts, false)?;
                self.note_key_use(&name, &texts, width, &delimiters);
                segs.push(Seg::Attr(name));
                continue;
            }
            unnamed.push((segs.len(), texts));
            segs.push(Seg::Lit(String::new()));
        }
        let used: Vec<String> = segs
            .iter()
            .filter_map(|s| match s {
                Seg::Attr(a) => Some(snake(a)),
                _ => None,
            })
            .collect();
        let mut free: Vec<String> = alias_names
            .iter()
            .map(|a| snake(a))
            .filter(|a| !used.contains(a) && !self.reserved.contains(a))
            .collect();
        if free.len() != unnamed.len() {
            free.clear();
        }
        for (n, (at, texts)) in unnamed.into_iter().enumerate() {
            let name = match self.matching_attr(values, &texts, true) {
                Some(name) => name,
                None => {
                    let base = free.get(n).cloned().unwrap_or_else(|| {
                        let previous =
                            (1..=at)
                                .rev()
                                .find_map(|k| match segs.get(k.checked_sub(2)?) {
                                    Some(Seg::Lit(l))
                                        if !l.is_empty() && is_identifier(&snake(l)) =>
                                    {
                                        Some(format!("{}_id", snake(l)))
                                    }
                                    _ => None,
                                });
                        previous.unwrap_or_else(|| format!("{}_part", snake(&key.name)))
                    });
                    self.fresh(&base)
                }
            };
            self.bind_attr(&name, values, &texts, false)?;
            self.note_key_use(&name, &texts, None, &delimiters);
            segs[at] = Seg::Attr(name);
        }
        Some(Template {
            segs,
            comment: None,
        })
    }

    fn tenant_part(&self, ctx: &Ctx<'_>, values: &[(usize, String)], texts: &[String]) -> bool {
        ctx.tenant.is_some()
            && values.iter().zip(texts).all(|((i, _), t)| {
                self.examples.get(*i).and_then(|e| e.tenant.as_deref()) == Some(t.as_str())
            })
    }

    /// An attribute holding `texts` in every item: original ones first,
    /// then (with `synthetic`) ones made for other keys.
    fn matching_attr(
        &self,
        values: &[(usize, String)],
        texts: &[String],
        synthetic: bool,
    ) -> Option<String> {
        self.attrs.iter().find_map(|(name, a)| {
            let fits = a.synthetic == synthetic
                && matches!(a.kind, Kind::String | Kind::Integer)
                && values.iter().zip(texts).all(|((i, _), t)| {
                    binds(
                        self.examples.get(*i).and_then(|e| e.values.get(name)),
                        t,
                        false,
                    )
                    .is_some()
                });
            fits.then(|| name.clone())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_match_keys() {
        let segs = parse_alias("TENANT#<tenant>|TICKET#<id>").unwrap();
        assert_eq!(
            match_alias(&segs, "TENANT#acme|TICKET#t-1"),
            Some(vec!["acme".to_owned(), "t-1".to_owned()])
        );
        assert_eq!(match_alias(&segs, "TENANT#acme"), None);
        assert!(parse_alias("SubId#SKU").is_none());
    }

    #[test]
    fn values_split_at_delimiters() {
        assert_eq!(
            split_at("TENANT#1|TICKET#2", &DELIMITERS),
            (
                vec!["TENANT".into(), "1".into(), "TICKET".into(), "2".into()],
                vec!['#', '|', '#']
            )
        );
    }

    #[test]
    fn keys_split_at_the_first_delimiter_class_all_values_have() {
        assert_eq!(delimiter_class(["A#1:2", "A#3"].into_iter()), &DELIMITERS);
        assert_eq!(delimiter_class(["A:1", "B:2"].into_iter()), &[':']);
        assert_eq!(delimiter_class(["u_1", "u_2"].into_iter()), &['_']);
        assert_eq!(delimiter_class(["plain", "u_2"].into_iter()), &DELIMITERS);
        assert_eq!(
            delimiter_class(["2020-06-21T19:18:00", "2020-06-21T19:20:00"].into_iter()),
            &DELIMITERS,
            "a time of day is not split"
        );
    }
}
