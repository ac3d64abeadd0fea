//! Inferring entities, attributes and key templates from facets.

mod entity;
mod keys;

pub(super) use entity::*;

use std::collections::BTreeSet;

use indexmap::IndexMap;

use super::read::{Facet, Key, ModelTable};
use crate::ir::AttributeValue;
use keys::{parse_alias, scalar, Ctx};

/// Characters that split key values into parts.
pub(super) const DELIMITERS: [char; 2] = ['#', '|'];

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

/// Typed maps nest at most this deep; deeper maps stay untyped.
const RECORD_DEPTH: usize = 8;
/// A map with more distinct names than this is a dictionary, not a record.
const RECORD_FIELDS: usize = 64;

/// The shape the maps (or the lists of maps) in `values` agree on: two
/// maps at least, every name's values of one DynamoDB type, no `NULL`
/// inside (it would not be written back); `None` when they do not agree,
/// which leaves them untyped.
pub(super) fn shape_of(values: &[&AttributeValue], depth: usize) -> Option<Shape> {
    if values.is_empty() || depth > RECORD_DEPTH {
        return None;
    }
    if values.iter().all(|v| matches!(v, AttributeValue::L(_))) {
        let elements: Vec<&AttributeValue> = values
            .iter()
            .flat_map(|v| match v {
                AttributeValue::L(l) => l.as_slice(),
                _ => &[],
            })
            .collect();
        if !elements.iter().all(|e| matches!(e, AttributeValue::M(_))) {
            return None;
        }
        return match shape_of(&elements, depth + 1)? {
            record @ Shape::Record(_) => Some(Shape::ListOf(Box::new(record))),
            _ => None,
        };
    }
    let maps: Vec<&IndexMap<String, AttributeValue>> = values
        .iter()
        .map(|v| match v {
            AttributeValue::M(m) => Some(m),
            _ => None,
        })
        .collect::<Option<_>>()?;
    let mut names: Vec<&String> = Vec::new();
    for map in &maps {
        for name in map.keys() {
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    // One map says nothing of which names are fields and which are data
    // (a dictionary): a record needs two maps that agree. A field the spec
    // does not declare would be dropped by a write back.
    if maps.len() < 2 || names.is_empty() || names.len() > RECORD_FIELDS {
        return None;
    }
    let mut fields: Vec<Field> = Vec::with_capacity(names.len());
    for name in names {
        let present: Vec<&AttributeValue> = maps.iter().filter_map(|m| m.get(name)).collect();
        let tag = present[0].type_name();
        if tag == "NULL" || present.iter().any(|v| v.type_name() != tag) {
            return None;
        }
        let shape = match tag {
            "M" => shape_of(&present, depth + 1).unwrap_or(Shape::Of(Kind::Map)),
            "L" => shape_of(&present, depth + 1).unwrap_or(Shape::Of(Kind::List)),
            _ => Shape::Of(kind_of(&present, None)),
        };
        if has_null(&present) {
            return None;
        }
        // A name that is no identifier, or whose Rust field another field
        // takes, gets a spec name of its own and keeps its stored name.
        let taken = |n: &str| {
            fields
                .iter()
                .any(|f| crate::naming::snake(&f.name) == crate::naming::snake(n))
        };
        let (spec_name, stored_as) =
            if is_identifier(name) && !name.starts_with("__") && !taken(name) {
                (name.clone(), None)
            } else {
                let base = snake(name);
                let mut candidate = base.clone();
                let mut n = 2;
                while taken(&candidate) {
                    candidate = format!("{base}_{n}");
                    n += 1;
                }
                (candidate, Some(name.clone()))
            };
        fields.push(Field {
            name: spec_name,
            stored_as,
            shape,
            optional: present.len() < maps.len(),
        });
    }
    Some(Shape::Record(fields))
}

/// Whether a `NULL` is anywhere in `values`.
fn has_null(values: &[&AttributeValue]) -> bool {
    values.iter().any(|v| match v {
        AttributeValue::Null(_) => true,
        AttributeValue::L(l) => has_null(&l.iter().collect::<Vec<_>>()),
        AttributeValue::M(m) => has_null(&m.values().collect::<Vec<_>>()),
        _ => false,
    })
}

/// Everything inferred about a table.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Inferred {
    /// The tenant placeholder and the ids seen.
    pub tenant: Option<(String, Vec<String>)>,
    /// The attribute every item names its entity in.
    pub entity_type_attribute: Option<String>,
    /// Entities whose value in that attribute is not their name.
    pub entity_type_values: Vec<(String, String)>,
    /// Entities.
    pub entities: Vec<Entity>,
    /// What could not be inferred.
    pub notes: Vec<String>,
}

/// At most this many distinct words make a key string an enum.
const ENUM_WORDS: usize = 16;

/// Key strings whose samples take a few words (`OPEN`, `CLOSED`) read as
/// enums of those words: a Workbench model does not record enums, and as
/// strings of their letters they may meet another entity's literal
/// (`S#<status>` and `S#CLOSE`).
pub fn key_strings_as_enums(inferred: &mut Inferred) {
    let word = |w: &str| {
        let mut chars = w.chars();
        chars.next().is_some_and(|c| c.is_ascii_alphabetic())
            && w.len() <= 64
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    };
    for e in &mut inferred.entities {
        for a in e.attrs.values_mut() {
            if a.kind != Kind::String || a.escaped || a.key_texts.is_empty() {
                continue;
            }
            let mut words: Vec<String> = Vec::new();
            for t in &a.key_texts {
                if !words.contains(t) {
                    words.push(t.clone());
                }
            }
            if words.len() <= ENUM_WORDS && words.iter().all(|w| word(w)) {
                a.words = Some(words);
            }
        }
    }
}

fn is_identifier(s: &str) -> bool {
    crate::resolve::is_identifier(s)
}

/// `SubId` → `sub_id`, `GSI1-PK` → `gsi1_pk`.
pub(super) fn snake(s: &str) -> String {
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

/// Whether string index key `key` holds, in every item of `facet` that
/// has it, the value of one other string attribute (the same one each
/// time, not a key): a key computed as `<that attribute>`, not an
/// attribute of its own. (Numbers coincide too often to tell.)
fn copies_an_attribute(facet: &Facet, key: &str, table_keys: &[&str]) -> bool {
    let mut holders = facet.items.iter().filter(|i| i.contains_key(key));
    let Some(first) = holders.next() else {
        return false;
    };
    let value = text(first.get(key));
    let mut candidates: Vec<&String> = first
        .iter()
        .filter(|(name, v)| {
            name.as_str() != key
                && !table_keys.contains(&name.as_str())
                && value.is_some()
                && text(Some(v)) == value
        })
        .map(|(name, _)| name)
        .collect();
    for item in holders {
        let value = text(item.get(key));
        candidates.retain(|name| text(item.get(name.as_str())) == value);
    }
    !candidates.is_empty()
}

/// A string value's text.
fn text(v: Option<&AttributeValue>) -> Option<&str> {
    match v {
        Some(AttributeValue::S(s)) => Some(s.as_str()),
        _ => None,
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

/// The kind of an attribute from its values (or its declared type):
/// numbers are integers only when every value is one, written canonically.
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
        "SS" => Kind::Set(crate::ir::SetOf::String),
        "BS" => Kind::Set(crate::ir::SetOf::Binary),
        "NS" => {
            let integers = values.iter().all(|v| match v {
                AttributeValue::Ns(ns) => ns
                    .iter()
                    .all(|n| n.parse::<i64>().is_ok_and(|i| i.to_string() == *n)),
                _ => false,
            });
            Kind::Set(if integers {
                crate::ir::SetOf::Integer
            } else {
                crate::ir::SetOf::Decimal
            })
        }
        "L" => Kind::List,
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
    // A key attribute is never the marker, even when it is constant per
    // facet (a sort key `METADATA`).
    let keys: Vec<&str> = table.key_attributes().map(|k| k.name.as_str()).collect();
    // One kind of item has no discriminator: a constant attribute there is
    // data (`Category: "Amazon Web Services"`), unless it is named like one.
    let several = table.facets.len() > 1;
    let mut candidates: Vec<&String> = first
        .keys()
        .filter(|k| {
            is_identifier(k)
                && !keys.contains(&k.as_str())
                && (several || super::read::is_discriminator_name(k))
        })
        .collect();
    // Attributes named like discriminators first (a `status` that happens
    // to differ per facet is data).
    candidates.sort_by_key(|k| !super::read::is_discriminator_name(k));
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
                    .all(|v| !v.is_empty() && names.insert(entity_name(v)))
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
    (eta, literal_constants): (Option<&str>, bool),
) -> Entity {
    let tenant = inferred.tenant.as_ref().map(|(t, _)| t.clone());
    let name = match eta.and_then(|a| match facet.items.first()?.get(a)? {
        AttributeValue::S(s) => Some(s.clone()),
        _ => None,
    }) {
        Some(value) => {
            // The modeler's facet name when it is one a spec can use and
            // names the discriminator's value (`Customer` for `customer`,
            // as a singletable export writes them); else one made of the
            // value (a facet may be named anything).
            let name = if is_identifier(&facet.name) && snake(&facet.name) == snake(&value) {
                facet.name.clone()
            } else {
                entity_name(&value)
            };
            if name != value {
                inferred.entity_type_values.push((name.clone(), value));
            }
            name
        }
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
    // Index keys whose values are composite are computed from templates;
    // the others are the entity's own attributes, indexed as they are
    // (under a spec name of their own, `stored_as` the key's, when the
    // key's name is no identifier).
    let computed: Vec<&str> = table
        .gsis
        .iter()
        .flat_map(|g| std::iter::once(&g.pk).chain(&g.sk))
        .map(|k| k.name.as_str())
        .filter(|k| !table_keys.contains(k))
        .filter(|k| {
            let composite = table.facets.iter().flat_map(|f| &f.items).any(|i| {
                i.get(*k)
                    .and_then(scalar)
                    .is_some_and(|v| v.contains(DELIMITERS))
            });
            composite || copies_an_attribute(facet, k, &table_keys)
        })
        .collect();
    let renamed = facet_attributes(&mut e, table, facet, &table_keys, &computed, eta);
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
                            || renamed.contains_key(*k)
                            || e.attrs.contains_key(*k))
                })
                .map(|(k, v)| (renamed.get(k).unwrap_or(k).clone(), v.clone()))
                .collect(),
        })
        .collect();
    let all: Vec<usize> = (0..e.examples.len()).collect();
    let ctx = |key_type| Ctx {
        tenant: tenant.as_deref(),
        key_type,
        literal_constants,
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
        index_templates(&mut e, table, g, &all, &ctx);
    }
    e.drop_unused_synthetic();
    e.naturalize(table);
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

/// Adds the facet's attributes (all but the table keys, the computed
/// index keys and the entity-type attribute) to `e`, each with its kind,
/// shape and optionality; returns the names in the table that have another
/// spec name, with that name.
fn facet_attributes(
    e: &mut Entity,
    table: &ModelTable,
    facet: &Facet,
    table_keys: &[&str],
    computed: &[&str],
    eta: Option<&str>,
) -> IndexMap<String, String> {
    // Names in the table → spec names, where they differ.
    let mut renamed: IndexMap<String, String> = IndexMap::new();
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
        // A name that is no identifier (`Status#Time`), or whose field
        // another attribute already takes, gets a spec name of its own and
        // keeps its name in the table.
        let field = crate::naming::snake(n);
        let clash = e.attrs.keys().any(|a| crate::naming::snake(a) == field);
        let spec_name = if is_identifier(n) && !clash && !n.starts_with("__") {
            n.clone()
        } else {
            // An index key stored as it is (`Total Amount`) reserves its
            // own name only: its snake form is free unless an attribute
            // takes it.
            let own = snake(n);
            let name = if e.reserved.contains(n)
                && is_identifier(&own)
                && !e.attrs.keys().any(|a| crate::naming::snake(a) == own)
                && !e.reserved.contains(&own)
            {
                own
            } else {
                e.fresh(&own)
            };
            renamed.insert(n.clone(), name.clone());
            name
        };
        let values: Vec<&AttributeValue> = facet
            .items
            .iter()
            .filter_map(|i| i.get(n))
            .filter(|v| !matches!(v, AttributeValue::Null(_)))
            .collect();
        let declared = table
            .attributes
            .iter()
            .find(|(a, _)| a == n)
            .map(|(_, t)| t.as_str());
        let kind = kind_of(&values, declared);
        e.add_attr(&spec_name, kind, false);
        if let Some(a) = e.attrs.get_mut(&spec_name) {
            if matches!(kind, Kind::Map | Kind::List) && !has_null(&values) {
                a.shape = shape_of(&values, 1);
            }
            if spec_name != *n {
                a.stored_as = Some(n.clone());
            }
            if values.len() < facet.items.len() || facet.items.is_empty() {
                a.optional = true;
            }
        }
    }
    renamed
}

/// The key templates of index `g` for `e`, recorded when every key of
/// the index has one: a table key's own template, the attribute stored
/// under the key's name, or a template inferred from the samples.
fn index_templates<'t>(
    e: &mut Entity,
    table: &ModelTable,
    g: &super::read::Gsi,
    all: &[usize],
    ctx: &dyn Fn(&'static str) -> Ctx<'t>,
) {
    let keys: Vec<&Key> = std::iter::once(&g.pk).chain(&g.sk).collect();
    let mut templates = Vec::new();
    let mut member: Option<String> = None;
    for k in keys {
        if k.name == table.pk.name {
            templates.push(e.pk.clone());
            continue;
        }
        if Some(&k.name) == table.sk.as_ref().map(|s| &s.name) {
            templates.push(e.sk.clone().unwrap_or_default());
            continue;
        }
        // The attribute stored under the key's name, by its spec name.
        let own = match e.attrs.contains_key(&k.name) {
            true => Some(k.name.clone()),
            false => e
                .attrs
                .iter()
                .find(|(_, a)| a.stored_as.as_deref() == Some(k.name.as_str()))
                .map(|(name, _)| name.clone()),
        };
        let named = own.as_deref().unwrap_or(&k.name);
        let rows: Vec<usize> = all
            .iter()
            .copied()
            .filter(|&i| e.examples[i].values.contains_key(named))
            .collect();
        if rows.is_empty() {
            break;
        }
        if let Some(own) = own {
            templates.push(Template {
                segs: vec![Seg::Attr(own)],
                comment: None,
            });
        } else {
            let t = e.infer_key(k, None, &rows, &ctx(k.r#type));
            // The item has the key exactly when it has the template's
            // attributes (else the spec would write a key the item does
            // not have); otherwise the whole key is one optional value.
            let has = |x: &Example, t: &Template| {
                t.segs.iter().all(|s| match s {
                    Seg::Attr(a) => x.values.contains_key(a),
                    Seg::Lit(_) | Seg::Tenant | Seg::Shard => true,
                })
            };
            // A sparse key of several values would lose one of them
            // whenever another is missing: it is one value too.
            let parts = t.segs.iter().filter(|s| matches!(s, Seg::Attr(_))).count();
            let sparse = rows.len() < e.examples.len();
            let consistent = !(sparse && parts > 1)
                && e.examples
                    .iter()
                    .all(|x| x.values.contains_key(&k.name) == has(x, &t));
            // The items that have the key are exactly those whose boolean
            // is true, and every one has the template's attributes: the
            // entity is in the index while the boolean is true (`when`).
            let flag = (!consistent)
                .then(|| membership_flag(e, &k.name, &t, has))
                .flatten();
            let t = if consistent {
                t
            } else if let Some(flag) = flag {
                member = Some(flag);
                t
            } else {
                let values: Vec<(usize, String)> = rows
                    .iter()
                    .filter_map(|&i| {
                        Some((i, scalar(e.examples[i].values.get(&k.name)?)?.to_owned()))
                    })
                    .collect();
                e.plain(k, None, &values, "some items without this key have every attribute a template would build it from")
            };
            templates.push(t);
        }
    }
    if templates.len() == 1 + usize::from(g.sk.is_some()) {
        let mut it = templates.into_iter();
        if let Some(pk) = it.next() {
            e.indexes.insert(g.name.clone(), (pk, it.next()));
            if let Some(flag) = member {
                e.members.insert(g.name.clone(), flag);
            }
        }
    }
}

/// A boolean attribute that is true on exactly the examples that have the
/// key `key`, each of which has the attributes of its template `t`.
fn membership_flag(
    e: &Entity,
    key: &str,
    t: &Template,
    has: impl Fn(&Example, &Template) -> bool,
) -> Option<String> {
    let member =
        |x: &Example, flag: &str| matches!(x.values.get(flag), Some(AttributeValue::Bool(true)));
    e.attrs
        .iter()
        .filter(|(_, a)| a.kind == Kind::Boolean)
        .map(|(name, _)| name)
        .find(|flag| {
            e.examples.iter().all(|x| {
                let keyed = x.values.contains_key(key);
                keyed == member(x, flag) && (!keyed || has(x, t))
            })
        })
        .cloned()
}

/// Infers the entities of a table.
/// What the importer makes of `table`; with `literal_constants`, every key
/// part all of a facet's samples share is a literal (see [`Ctx`]).
pub fn infer_table(table: &ModelTable, literal_constants: bool) -> Inferred {
    let mut inferred = Inferred::default();
    if let Some(t) = find_tenant(table) {
        inferred.tenant = Some((t, Vec::new()));
    }
    let eta = find_entity_type(table);
    inferred.entity_type_attribute = eta.clone();
    let mut entities: Vec<Entity> = Vec::new();
    for facet in &table.facets {
        let mut e = facet_entity(
            table,
            facet,
            &mut inferred,
            (eta.as_deref(), literal_constants),
        );
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
    fn names_become_snake_case() {
        assert_eq!(snake("SubId"), "sub_id");
        assert_eq!(snake("GSI1-PK"), "gsi1_pk");
        assert_eq!(snake("ProcessedDate"), "processed_date");
        assert_eq!(entity_name("warehouse item"), "WarehouseItem");
    }
}
