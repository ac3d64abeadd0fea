//! Inferring entities, attributes and key templates from facets.

use std::collections::BTreeSet;

use indexmap::IndexMap;

use super::read::{Facet, Key, ModelTable};
use crate::ir::AttributeValue;

/// Characters that split key values into parts.
const DELIMITERS: [char; 2] = ['#', '|'];

/// A piece of an inferred template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seg {
    /// Fixed text.
    Lit(String),
    /// The tenant placeholder.
    Tenant,
    /// The shard placeholder.
    Shard,
    /// An attribute placeholder.
    Attr(String),
}

/// An inferred key template.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Template {
    /// Its pieces.
    pub segs: Vec<Seg>,
    /// Why it is only a guess, when it is.
    pub comment: Option<String>,
}

/// Attribute kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `string`.
    String,
    /// `integer`.
    Integer,
    /// `decimal`.
    Decimal,
    /// `boolean`.
    Boolean,
    /// `map`.
    Map,
    /// `list`.
    List,
    /// `binary`.
    Binary,
}

/// An inferred attribute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attr {
    /// Its kind.
    pub kind: Kind,
    /// Absent from some items.
    pub optional: bool,
    /// Texts it takes inside composite keys (for a pattern).
    pub key_texts: Vec<String>,
    /// Delimiters of the templates it appears in.
    pub delimiters: BTreeSet<char>,
    /// Digits it is padded to inside keys (integers).
    pub width: Option<usize>,
    /// Made up to hold a part of a key.
    pub synthetic: bool,
}

/// A sample item as an example.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Example {
    /// Tenant id.
    pub tenant: Option<String>,
    /// Shard.
    pub shard: Option<u32>,
    /// Attribute values.
    pub values: IndexMap<String, AttributeValue>,
}

/// An inferred entity.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Entity {
    /// Name.
    pub name: String,
    /// Under the tenant.
    pub scoped: bool,
    /// Attributes.
    pub attrs: IndexMap<String, Attr>,
    /// Partition key template.
    pub pk: Template,
    /// Sort key template.
    pub sk: Option<Template>,
    /// Index key templates.
    pub indexes: IndexMap<String, (Template, Option<Template>)>,
    /// Shard count, when the keys carry `<shard>`.
    pub shards: Option<u32>,
    /// The samples.
    pub examples: Vec<Example>,
    /// Names no new attribute may take: key attributes, the entity-type
    /// attribute, the tenant and shard placeholders.
    pub reserved: Vec<String>,
}

/// Everything inferred about a table.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Inferred {
    /// The tenant placeholder and the ids seen.
    pub tenant: Option<(String, Vec<String>)>,
    /// The attribute every item names its entity in.
    pub entity_type_attribute: Option<String>,
    /// Entities.
    pub entities: Vec<Entity>,
    /// What could not be inferred.
    pub notes: Vec<String>,
}

fn is_identifier(s: &str) -> bool {
    crate::resolve::is_identifier(s)
}

/// `SubId` → `sub_id`, `GSI1-PK` → `gsi1_pk`.
fn snake(s: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    for c in s.chars() {
        if c.is_ascii_uppercase() {
            if prev_lower {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
            prev_lower = false;
        } else if c.is_ascii_alphanumeric() {
            out.push(c);
            prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        } else if !out.ends_with('_') && !out.is_empty() {
            out.push('_');
            prev_lower = false;
        }
    }
    let out = out.trim_matches('_').to_owned();
    match out.chars().next() {
        None => "value".to_owned(),
        Some(c) if c.is_ascii_digit() => format!("v_{out}"),
        _ => out,
    }
}

fn entity_name(name: &str) -> String {
    if is_identifier(name) {
        return name.to_owned();
    }
    let pascal: String = snake(name)
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect();
    if pascal.is_empty() {
        "Entity".to_owned()
    } else {
        pascal
    }
}

/// The text of a scalar value.
fn scalar(v: &AttributeValue) -> Option<&str> {
    match v {
        AttributeValue::S(s) | AttributeValue::N(s) | AttributeValue::B(s) => Some(s),
        _ => None,
    }
}

/// Parses an alias written as a template (`TENANT#<tenant>|TICKET#<id>`).
fn parse_alias(alias: &str) -> Option<Vec<(bool, String)>> {
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

/// Splits a key value at the delimiters: parts and the delimiters between them.
fn split(value: &str) -> (Vec<String>, Vec<char>) {
    let mut parts = vec![String::new()];
    let mut delimiters = Vec::new();
    for c in value.chars() {
        if DELIMITERS.contains(&c) {
            delimiters.push(c);
            parts.push(String::new());
        } else if let Some(last) = parts.last_mut() {
            last.push(c);
        }
    }
    (parts, delimiters)
}

struct Ctx<'a> {
    tenant: Option<&'a str>,
    key_type: &'static str,
}

/// How a part of a key relates to an item.
fn binds(attr: Option<&AttributeValue>, text: &str) -> Option<Option<usize>> {
    match attr? {
        AttributeValue::S(s) if s == text => Some(None),
        AttributeValue::N(n) if n == text => Some(Some(text.len())),
        AttributeValue::N(n) => {
            let value: i64 = n.parse().ok()?;
            let padded: i64 = text.parse().ok()?;
            (value == padded && value >= 0 && text.bytes().all(|b| b.is_ascii_digit()))
                .then_some(Some(text.len()))
        }
        _ => None,
    }
}

impl Entity {
    fn add_attr(&mut self, name: &str, kind: Kind, synthetic: bool) {
        self.attrs.entry(name.to_owned()).or_insert(Attr {
            kind,
            optional: false,
            key_texts: Vec::new(),
            delimiters: BTreeSet::new(),
            width: None,
            synthetic,
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
    fn infer_key(
        &mut self,
        key: &Key,
        alias: Option<&str>,
        rows: &[usize],
        ctx: &Ctx<'_>,
    ) -> Template {
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
        if let Some(t) = alias
            .and_then(parse_alias)
            .and_then(|segs| self.template_from_alias(&segs, &values, ctx))
        {
            return t;
        }
        if ctx.key_type == "N" {
            return self.number_key(key, alias, &values);
        }
        self.template_from_parts(key, alias, &values, ctx)
            .unwrap_or_else(|| self.plain(key, alias, &values, "the sample keys share no pattern"))
    }

    /// A key of one placeholder holding the whole value.
    fn plain(
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
        let kind = if key.r#type == "N" {
            Kind::Integer
        } else {
            Kind::String
        };
        self.add_attr(&name, kind, true);
        for (i, text) in values {
            if let Some(e) = self.examples.get_mut(*i) {
                let v = if kind == Kind::Integer {
                    AttributeValue::N(text.clone())
                } else {
                    AttributeValue::S(text.clone())
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

    fn fresh(&self, base: &str) -> String {
        let base = if base.is_empty() { "value" } else { base };
        let taken = |n: &str| self.attrs.contains_key(n) || self.reserved.iter().any(|r| r == n);
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
                    binds(self.examples.get(*i).and_then(|e| e.values.get(name)), t).is_some()
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
            .flat_map(|(_, t)| t.chars().filter(|c| DELIMITERS.contains(c)))
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
                let width = self.bind_attr(text, values, &texts)?;
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
    ) -> Option<Option<usize>> {
        let existing = self.attrs.contains_key(name);
        let mut width = None;
        for ((i, _), t) in values.iter().zip(texts) {
            let e = self.examples.get_mut(*i)?;
            match e.values.get(name) {
                Some(v) => width = binds(Some(v), t)?.or(width),
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
        Some(width)
    }

    fn template_from_parts(
        &mut self,
        key: &Key,
        alias: Option<&str>,
        values: &[(usize, String)],
        ctx: &Ctx<'_>,
    ) -> Option<Template> {
        let splits: Vec<(Vec<String>, Vec<char>)> = values.iter().map(|(_, v)| split(v)).collect();
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
                split(a)
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
            let literal_like = !texts[0].chars().any(|c| c.is_ascii_digit()) || values.len() > 1;
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
                let width = self.bind_attr(&name, values, &texts)?;
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
            self.bind_attr(&name, values, &texts)?;
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
                    binds(self.examples.get(*i).and_then(|e| e.values.get(name)), t).is_some()
                });
            fits.then(|| name.clone())
        })
    }
}

fn kind_of(values: &[&AttributeValue], declared: Option<&str>) -> Kind {
    let tag = values
        .first()
        .map(|v| v.type_name())
        .or(declared)
        .unwrap_or("S");
    match tag {
        "N" => {
            let integers = values.iter().all(|v| match v {
                AttributeValue::N(n) => n.parse::<i64>().is_ok_and(|i| i.to_string() == *n),
                _ => false,
            });
            if integers {
                Kind::Integer
            } else {
                Kind::Decimal
            }
        }
        "BOOL" => Kind::Boolean,
        "M" => Kind::Map,
        "L" | "SS" | "NS" | "BS" => Kind::List,
        "B" => Kind::Binary,
        _ => Kind::String,
    }
}

/// The tenant placeholder: the first placeholder of the partition-key
/// aliases that no item has as an attribute, when every facet agrees.
fn find_tenant(table: &ModelTable) -> Option<String> {
    let mut found: Option<String> = None;
    for facet in &table.facets {
        let Some(segs) = facet.pk_alias.as_deref().and_then(parse_alias) else {
            continue;
        };
        let Some((_, first)) = segs.iter().find(|(p, _)| *p) else {
            continue;
        };
        if first == "shard" || facet.items.iter().any(|i| i.contains_key(first)) {
            continue;
        }
        match &found {
            Some(f) if f != first => return None,
            _ => found = Some(first.clone()),
        }
    }
    found
}

/// The attribute naming each facet's entity type, when every item has it.
fn find_entity_type(table: &ModelTable) -> Option<String> {
    let first = table.facets.first()?.items.first()?;
    let candidates = first.keys().filter(|k| is_identifier(k));
    for name in candidates {
        let mut names = BTreeSet::new();
        let ok = table.facets.iter().all(|f| {
            let values: BTreeSet<&str> = f
                .items
                .iter()
                .filter_map(|i| match i.get(name) {
                    Some(AttributeValue::S(s)) => Some(s.as_str()),
                    _ => None,
                })
                .collect();
            values.len() == 1
                && f.items.len() == f.items.iter().filter(|i| i.contains_key(name)).count()
                && values
                    .iter()
                    .all(|v| is_identifier(v) && names.insert(v.to_string()))
        });
        if ok && table.facets.iter().all(|f| !f.items.is_empty()) {
            return Some(name.clone());
        }
    }
    None
}

fn facet_entity(
    table: &ModelTable,
    facet: &Facet,
    inferred: &mut Inferred,
    eta: Option<&str>,
) -> Entity {
    let tenant = inferred.tenant.as_ref().map(|(t, _)| t.clone());
    let name = match eta.and_then(|a| match facet.items.first()?.get(a)? {
        AttributeValue::S(s) => Some(s.clone()),
        _ => None,
    }) {
        Some(n) => n,
        None => entity_name(&facet.name),
    };
    let table_keys: Vec<&str> = std::iter::once(table.pk.name.as_str())
        .chain(table.sk.as_ref().map(|k| k.name.as_str()))
        .collect();
    let reserved = table_keys
        .iter()
        .map(|k| k.to_string())
        .chain(
            table
                .gsis
                .iter()
                .flat_map(|g| std::iter::once(&g.pk).chain(&g.sk))
                .map(|k| k.name.clone()),
        )
        .chain([eta.unwrap_or("entity_type").to_owned(), "shard".to_owned()])
        .chain(tenant.clone())
        .collect();
    let mut e = Entity {
        name,
        reserved,
        ..Entity::default()
    };
    // Index keys whose values are composite (or whose names cannot be
    // attributes) are computed from templates; the others are the
    // entity's own attributes, indexed as they are.
    let computed: Vec<&str> = table
        .gsis
        .iter()
        .flat_map(|g| std::iter::once(&g.pk).chain(&g.sk))
        .map(|k| k.name.as_str())
        .filter(|k| !table_keys.contains(k))
        .filter(|k| {
            !is_identifier(k)
                || table.facets.iter().flat_map(|f| &f.items).any(|i| {
                    i.get(*k)
                        .and_then(scalar)
                        .is_some_and(|v| v.contains(DELIMITERS))
                })
        })
        .collect();
    let mut names: Vec<String> = Vec::new();
    for item in &facet.items {
        for k in item.keys() {
            if !names.contains(k) {
                names.push(k.clone());
            }
        }
    }
    for d in &facet.declared {
        if !names.contains(d) {
            names.push(d.clone());
        }
    }
    for n in &names {
        if table_keys.contains(&n.as_str())
            || computed.contains(&n.as_str())
            || Some(n.as_str()) == eta
        {
            continue;
        }
        if !is_identifier(n) {
            inferred.notes.push(format!(
                "entity `{}`: attribute `{n}` is not an identifier: left out",
                e.name
            ));
            continue;
        }
        let values: Vec<&AttributeValue> = facet
            .items
            .iter()
            .filter_map(|i| i.get(n))
            .filter(|v| !matches!(v, AttributeValue::Null(_)))
            .collect();
        if values.iter().any(|v| {
            matches!(
                v,
                AttributeValue::Ss(_) | AttributeValue::Ns(_) | AttributeValue::Bs(_)
            )
        }) {
            inferred.notes.push(format!(
                "entity `{}`: `{n}` is a set: imported as a list",
                e.name
            ));
        }
        let declared = table
            .attributes
            .iter()
            .find(|(a, _)| a == n)
            .map(|(_, t)| t.as_str());
        e.add_attr(n, kind_of(&values, declared), false);
        if values.len() < facet.items.len() || facet.items.is_empty() {
            if let Some(a) = e.attrs.get_mut(n) {
                a.optional = true;
            }
        }
    }
    e.examples = facet
        .items
        .iter()
        .map(|item| Example {
            tenant: None,
            shard: None,
            values: item
                .iter()
                .filter(|(k, v)| {
                    !matches!(v, AttributeValue::Null(_))
                        && (table_keys.contains(&k.as_str())
                            || computed.contains(&k.as_str())
                            || e.attrs.contains_key(*k))
                })
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        })
        .collect();
    let all: Vec<usize> = (0..e.examples.len()).collect();
    let ctx = |key_type| Ctx {
        tenant: tenant.as_deref(),
        key_type,
    };
    e.pk = e.infer_key(
        &table.pk,
        facet.pk_alias.as_deref(),
        &all,
        &ctx(table.pk.r#type),
    );
    e.scoped = e.pk.segs.contains(&Seg::Tenant);
    e.sk = table
        .sk
        .as_ref()
        .map(|sk| e.infer_key(sk, facet.sk_alias.as_deref(), &all, &ctx(sk.r#type)));
    for g in &table.gsis {
        let keys: Vec<&Key> = std::iter::once(&g.pk).chain(&g.sk).collect();
        let mut templates = Vec::new();
        for k in keys {
            if k.name == table.pk.name {
                templates.push(e.pk.clone());
                continue;
            }
            if Some(&k.name) == table.sk.as_ref().map(|s| &s.name) {
                templates.push(e.sk.clone().unwrap_or_default());
                continue;
            }
            let rows: Vec<usize> = all
                .iter()
                .copied()
                .filter(|&i| e.examples[i].values.contains_key(&k.name))
                .collect();
            if rows.is_empty() {
                break;
            }
            if e.attrs.contains_key(&k.name) {
                templates.push(Template {
                    segs: vec![Seg::Attr(k.name.clone())],
                    comment: None,
                });
            } else {
                let t = e.infer_key(k, None, &rows, &ctx(k.r#type));
                templates.push(t);
            }
        }
        if templates.len() == 1 + usize::from(g.sk.is_some()) {
            let mut it = templates.into_iter();
            if let Some(pk) = it.next() {
                e.indexes.insert(g.name.clone(), (pk, it.next()));
            }
        }
    }
    // Key attributes are computed from the templates, not stored as values.
    for ex in &mut e.examples {
        ex.values.retain(|k, _| e.attrs.contains_key(k));
    }
    for (name, a) in &mut e.attrs {
        if e.examples.iter().any(|x| !x.values.contains_key(name)) {
            a.optional = true;
        }
    }
    let shards = e.examples.iter().filter_map(|x| x.shard).max();
    if let Some(max) = shards {
        e.shards = Some((max + 1).max(2));
        inferred.notes.push(format!(
            "entity `{}`: the shard count is not in the model: {} assumed (one more than the highest shard seen)",
            e.name,
            (max + 1).max(2)
        ));
    }
    e
}

/// Infers the entities of a table.
pub fn infer_table(table: &ModelTable) -> Inferred {
    let mut inferred = Inferred::default();
    if let Some(t) = find_tenant(table) {
        inferred.tenant = Some((t, Vec::new()));
    }
    let eta = find_entity_type(table);
    inferred.entity_type_attribute = eta.clone();
    let mut entities: Vec<Entity> = Vec::new();
    for facet in &table.facets {
        let mut e = facet_entity(table, facet, &mut inferred, eta.as_deref());
        let base = e.name.clone();
        let mut n = 2;
        while entities.iter().any(|x| x.name == e.name) {
            e.name = format!("{base}{n}");
            n += 1;
        }
        entities.push(e);
    }
    if let Some((_, ids)) = &mut inferred.tenant {
        for e in &entities {
            for x in &e.examples {
                if let Some(t) = &x.tenant {
                    if !ids.contains(t) {
                        ids.push(t.clone());
                    }
                }
            }
        }
    }
    inferred.entities = entities;
    inferred
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
    fn names_become_snake_case() {
        assert_eq!(snake("SubId"), "sub_id");
        assert_eq!(snake("GSI1-PK"), "gsi1_pk");
        assert_eq!(snake("ProcessedDate"), "processed_date");
        assert_eq!(entity_name("warehouse item"), "WarehouseItem");
    }

    #[test]
    fn values_split_at_delimiters() {
        assert_eq!(
            split("TENANT#1|TICKET#2"),
            (
                vec!["TENANT".into(), "1".into(), "TICKET".into(), "2".into()],
                vec!['#', '|', '#']
            )
        );
    }
}
