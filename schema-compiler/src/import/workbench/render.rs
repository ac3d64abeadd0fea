//! Writing an inferred table as a spec.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::infer::{Attr, Entity, Inferred, Kind, Seg, Shape, Template};
use super::read::{Key, ModelTable};
use crate::import::yaml;
use crate::ir::AttributeValue;

fn template(t: &Template, tenant: &str) -> String {
    t.segs
        .iter()
        .map(|s| match s {
            Seg::Lit(l) => l.replace('<', "<<"),
            Seg::Tenant => format!("<{tenant}>"),
            Seg::Shard => "<shard>".to_owned(),
            Seg::Attr(a) => format!("<{a}>"),
        })
        .collect()
}

fn key_decl(k: &Key) -> String {
    let ty = match k.r#type {
        "N" => "number",
        "B" => "binary",
        _ => "string",
    };
    format!("{{ name: {}, type: {ty} }}", yaml::string(&k.name))
}

/// A character class of the characters seen, without the delimiters of
/// the templates the attribute is in.
fn pattern(a: &Attr) -> String {
    let mut chars: BTreeSet<char> = BTreeSet::new();
    for t in &a.key_texts {
        chars.extend(t.chars());
    }
    // `_` too is a delimiter where a template is split at it (`ORDER_<id>_LINE_<n>`).
    let mut class = String::from("A-Za-z0-9");
    if !a.delimiters.contains(&'_') {
        class.push('_');
    }
    for c in chars {
        // The delimiters of the templates it is in stay out; a placeholder
        // holding a whole key admits every character its values have.
        if c.is_ascii_alphanumeric() || c == '_' || a.delimiters.contains(&c) {
            continue;
        }
        if regex_syntax::is_meta_character(c) {
            class.push('\\');
        }
        class.push(c);
    }
    let longest = a
        .key_texts
        .iter()
        .map(|t| t.chars().count())
        .max()
        .unwrap_or(0);
    format!("^[{class}]{{1,{}}}$", (longest * 2).max(64))
}

fn type_name(kind: Kind) -> &'static str {
    match kind {
        Kind::String => "string",
        Kind::Integer => "integer",
        Kind::Decimal => "decimal",
        Kind::Boolean => "boolean",
        Kind::Map => "map",
        Kind::List => "list",
        Kind::Binary => "binary",
        Kind::Set(_) => "set",
    }
}

/// The options after `type:` that say what a shape holds: a set's items,
/// a typed map's fields, a list's elements.
fn shape_options(shape: &Shape) -> Vec<String> {
    match shape {
        Shape::Of(Kind::Set(of)) => vec![format!("items: {}", of.name())],
        Shape::Of(_) => Vec::new(),
        Shape::Record(fields) => {
            let fields: Vec<String> = fields
                .iter()
                .map(|f| {
                    let mut options = vec![format!("type: {}", shape_type(&f.shape))];
                    options.extend(shape_options(&f.shape));
                    if f.optional {
                        options.push("optional: true".into());
                    }
                    if let Some(stored) = &f.stored_as {
                        options.push(format!("stored_as: {}", yaml::string(stored)));
                    }
                    format!("{}: {{ {} }}", yaml::key(&f.name), options.join(", "))
                })
                .collect();
            vec![format!("fields: {{ {} }}", fields.join(", "))]
        }
        Shape::ListOf(inner) => {
            let mut options = vec![format!("type: {}", shape_type(inner))];
            options.extend(shape_options(inner));
            vec![format!("items: {{ {} }}", options.join(", "))]
        }
    }
}

fn shape_type(shape: &Shape) -> &'static str {
    match shape {
        Shape::Of(kind) => type_name(*kind),
        Shape::Record(_) => "map",
        Shape::ListOf(_) => "list",
    }
}

fn attribute(name: &str, a: &Attr, examples_max: Option<i64>) -> String {
    let mut fields = Vec::new();
    match &a.words {
        // A key string of a few words: an enum of them.
        Some(words) => {
            let values: Vec<String> = words.iter().map(|w| yaml::string(w)).collect();
            fields.push(format!("type: enum, values: [{}]", values.join(", ")));
        }
        None => fields.push(format!("type: {}", type_name(a.kind))),
    }
    match &a.shape {
        Some(shape) => fields.extend(shape_options(shape)),
        None => fields.extend(shape_options(&Shape::Of(a.kind))),
    }
    // An escaped value may hold anything: its key texts are escaped ones.
    if a.kind == Kind::String && !a.key_texts.is_empty() && !a.escaped && a.words.is_none() {
        fields.push(format!("pattern: {}", yaml::string(&pattern(a))));
    }
    if let (Kind::Integer, Some(w)) = (a.kind, a.width) {
        // Keys hold `value - min` in `w` digits: `min` and `max` span them.
        let min = a.min.unwrap_or(0);
        let span = 10i64.checked_pow(w as u32).map_or(i64::MAX, |m| m - 1);
        let max = min.saturating_add(span);
        if examples_max.is_none_or(|m| m <= max) {
            fields.push(format!("min: {min}, max: {max}"));
        }
    }
    if a.escaped {
        fields.push("escape: true".into());
    }
    if a.optional {
        fields.push("optional: true".into());
    }
    // Made up to hold a part of a key: the items do not have it.
    if a.synthetic {
        fields.push("key_only: true".into());
    }
    if let Some(stored) = &a.stored_as {
        fields.push(format!("stored_as: {}", yaml::string(stored)));
    }
    format!("      {}: {{ {} }}\n", yaml::key(name), fields.join(", "))
}

fn example_value(a: Option<&Attr>, v: &AttributeValue) -> String {
    match (a.map(|a| a.kind), v) {
        (Some(Kind::Integer), AttributeValue::N(n)) => n.clone(),
        (_, AttributeValue::S(s)) | (_, AttributeValue::N(s)) => yaml::string(s),
        (_, AttributeValue::Bool(b)) => b.to_string(),
        (_, other) => {
            serde_json::to_value(other).map_or_else(|_| "null".to_owned(), |j| yaml::value(&j))
        }
    }
}

fn entity(out: &mut String, e: &Entity, tenant: Option<&str>) {
    let _ = writeln!(out, "  {}:", yaml::key(&e.name));
    if tenant.is_some() && !e.scoped {
        out.push_str("    scope: global\n");
    }
    out.push_str("    attributes:\n");
    if e.attrs.is_empty() {
        out.push_str("      {}\n");
    }
    for (name, a) in &e.attrs {
        let max = e
            .examples
            .iter()
            .filter_map(|x| match x.values.get(name) {
                Some(AttributeValue::N(n)) => n.parse::<i64>().ok(),
                _ => None,
            })
            .max();
        out.push_str(&attribute(name, a, max));
    }
    let t = tenant.unwrap_or("tenant");
    for c in std::iter::once(&e.pk)
        .chain(&e.sk)
        .filter_map(|t| t.comment.as_ref())
    {
        let _ = writeln!(out, "    # {c}");
    }
    let sk =
        e.sk.as_ref()
            .map(|s| format!(", sk: {}", yaml::string(&template(s, t))))
            .unwrap_or_default();
    let _ = writeln!(
        out,
        "    key: {{ pk: {}{sk} }}",
        yaml::string(&template(&e.pk, t))
    );
    if !e.indexes.is_empty() {
        out.push_str("    indexes:\n");
        for (index, (pk, sk)) in &e.indexes {
            for c in std::iter::once(pk)
                .chain(sk)
                .filter_map(|t| t.comment.as_ref())
            {
                let _ = writeln!(out, "      # {c}");
            }
            let sk = sk
                .as_ref()
                .map(|s| format!(", sk: {}", yaml::string(&template(s, t))))
                .unwrap_or_default();
            let when = e
                .members
                .get(index)
                .map(|flag| format!(", when: {}", yaml::key(flag)))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "      {}: {{ pk: {}{sk}{when} }}",
                yaml::key(index),
                yaml::string(&template(pk, t))
            );
        }
    }
    if let Some(count) = e.shards {
        let _ = writeln!(out, "    # The shard count is not part of the model: check it.\n    shards: {{ count: {count}, by: random }}");
    }
    if e.examples.is_empty() {
        out.push_str("    examples: []\n");
        return;
    }
    out.push_str("    examples:\n");
    for x in &e.examples {
        let mut fields = Vec::new();
        if let Some(id) = &x.tenant {
            fields.push(format!("{}: {}", yaml::key(t), yaml::string(id)));
        }
        if let Some(s) = x.shard {
            fields.push(format!("shard: {s}"));
        }
        for (name, v) in &x.values {
            fields.push(format!(
                "{}: {}",
                yaml::key(name),
                example_value(e.attrs.get(name), v)
            ));
        }
        let _ = writeln!(out, "      - {{ {} }}", fields.join(", "));
    }
}

fn tenant_pattern(ids: &[String]) -> &'static str {
    let fits = |extra: &str| {
        ids.iter().all(|id| {
            !id.is_empty()
                && id.len() <= 64
                && id
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || extra.contains(c))
        })
    };
    if fits("") {
        "^[A-Za-z0-9_]{1,64}$"
    } else {
        "^[A-Za-z0-9_-]{1,64}$"
    }
}

/// The one attribute indexes project that no facet writing into them
/// has: a TTL attribute, which items hold only when they expire and the
/// format has no field for (a singletable export projects it with every
/// `INCLUDE`, so that reads can hide expired items). `None` when there is
/// no such name, or more than one.
fn projected_ttl(table: &ModelTable) -> Option<String> {
    let mut unknown: Vec<&String> = Vec::new();
    for g in &table.gsis {
        let in_index: Vec<&super::read::Facet> = table
            .facets
            .iter()
            .filter(|f| f.items.iter().any(|i| i.contains_key(&g.pk.name)))
            .collect();
        for name in &g.include {
            let held = in_index.iter().any(|f| {
                f.declared.iter().any(|d| d == name) || f.items.iter().any(|i| i.contains_key(name))
            });
            let key = table.pk.name == *name || table.sk.as_ref().is_some_and(|k| k.name == *name);
            if !held && !key {
                unknown.push(name);
            }
        }
    }
    unknown.sort();
    unknown.dedup();
    match unknown.as_slice() {
        [one] => Some((*one).clone()),
        _ => None,
    }
}

/// The spec of one table.
pub fn render_spec(
    model: &str,
    description: &str,
    table: &ModelTable,
    inferred: &Inferred,
) -> String {
    let mut out = String::from("# yaml-language-server: $schema=./singletable.schema.json\n#\n");
    let _ = writeln!(
        out,
        "# Imported from the NoSQL Workbench model {} (table {}): a starting point.\n# Add the access patterns, tighten the attribute types (datetimes, enums,\n# bounds) and check the key templates marked below.",
        yaml::string(model),
        yaml::string(&table.name)
    );
    for note in &table.notes {
        let _ = writeln!(out, "# Note: {note}");
    }
    out.push_str("version: 1\n");
    if !description.trim().is_empty() {
        let _ = writeln!(out, "description: {}", yaml::string(description.trim()));
    }
    out.push_str("table:\n");
    let _ = writeln!(out, "  name: {}", yaml::string(&table.name));
    let _ = writeln!(out, "  partition_key: {}", key_decl(&table.pk));
    if let Some(sk) = &table.sk {
        let _ = writeln!(out, "  sort_key: {}", key_decl(sk));
    }
    match table.capacity {
        Some((r, w)) => {
            let _ = writeln!(
                out,
                "  billing: {{ mode: provisioned, read_capacity: {r}, write_capacity: {w} }}"
            );
        }
        None => out.push_str("  billing: on_demand\n"),
    }
    let ttl = projected_ttl(table);
    if let Some(ttl) = &ttl {
        let _ = writeln!(
            out,
            "  # `{ttl}` is projected by an index, but no item or facet has it: the\n  # table's TTL attribute, which the format does not record. Check it.\n  ttl: {}",
            yaml::string(ttl)
        );
    }
    match &inferred.entity_type_attribute {
        Some(eta) if inferred.entity_type_values.is_empty() => {
            let _ = writeln!(out, "  entity_type_attribute: {}", yaml::string(eta));
        }
        Some(eta) => {
            let values: Vec<String> = inferred
                .entity_type_values
                .iter()
                .map(|(entity, value)| format!("{}: {}", yaml::key(entity), yaml::string(value)))
                .collect();
            let _ = writeln!(
                out,
                "  entity_type: {{ attribute: {}, values: {{ {} }} }}",
                yaml::string(eta),
                values.join(", ")
            );
        }
        None => out.push_str(
            "  # The items carry no entity-type attribute: their keys tell the entity.\n  entity_type: keys\n",
        ),
    }
    let tenant = inferred.tenant.as_ref().map(|(t, _)| t.as_str());
    if let Some((placeholder, ids)) = &inferred.tenant {
        out.push_str("# The tenant: keys of every facet started with this placeholder.\ntenant:\n");
        let _ = writeln!(out, "  placeholder: {}", yaml::string(placeholder));
        let _ = writeln!(out, "  id_pattern: {}", yaml::string(tenant_pattern(ids)));
        out.push_str("  principal_tag: TenantId\n");
    }
    if !table.gsis.is_empty() {
        out.push_str("indexes:\n");
        let table_keys: Vec<&str> = std::iter::once(table.pk.name.as_str())
            .chain(table.sk.as_ref().map(|k| k.name.as_str()))
            .chain(table.gsis.iter().flat_map(|g| {
                std::iter::once(g.pk.name.as_str()).chain(g.sk.as_ref().map(|k| k.name.as_str()))
            }))
            .chain(inferred.entity_type_attribute.as_deref())
            .chain(["entity_type"])
            .collect();
        for g in &table.gsis {
            let projection = match g.projection.as_str() {
                "KEYS_ONLY" => "keys_only".to_owned(),
                "INCLUDE" => {
                    let names: Vec<String> = g
                        .include
                        .iter()
                        // The TTL attribute is projected with every
                        // `INCLUDE` (reads hide expired items by it).
                        .filter(|n| !table_keys.contains(&n.as_str()) && Some(*n) != ttl.as_ref())
                        .map(|n| yaml::string(n))
                        .collect();
                    if names.is_empty() {
                        "keys_only".to_owned()
                    } else {
                        format!("[{}]", names.join(", "))
                    }
                }
                _ => "all".to_owned(),
            };
            let sk =
                g.sk.as_ref()
                    .map(|k| format!(", sort_key: {}", key_decl(k)))
                    .unwrap_or_default();
            // The model keeps no capacity per index: the table's applies.
            let capacity = table
                .capacity
                .map(|(r, w)| format!(", read_capacity: {r}, write_capacity: {w}"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "  {}: {{ partition_key: {}{sk}, projection: {projection}{capacity} }}",
                yaml::key(&g.name),
                key_decl(&g.pk)
            );
        }
    }
    out.push_str("entities:\n");
    for e in &inferred.entities {
        entity(&mut out, e, tenant);
    }
    out
}

/// Access patterns an imported table surely has, one YAML entry each: a
/// get per entity, a query of each entity's partition (narrowed to its
/// sort-key prefix), and a query per index it is in. The importer keeps
/// those `check` accepts.
pub fn candidate_patterns(inferred: &Inferred) -> Vec<String> {
    let tenant = inferred
        .tenant
        .as_ref()
        .map_or("tenant", |(t, _)| t.as_str());
    let prefix = |t: &Template| -> String {
        t.segs
            .iter()
            .map_while(|s| match s {
                Seg::Lit(l) => Some(l.replace('<', "<<")),
                _ => None,
            })
            .collect()
    };
    let query = |pk: &Template, sk: Option<&Template>| {
        let condition = sk
            .map(prefix)
            .filter(|p| !p.is_empty())
            .map(|p| format!(", sk: {{ begins_with: {} }}", yaml::string(&p)))
            .unwrap_or_default();
        format!(
            "{{ pk: {}{condition} }}",
            yaml::string(&template(pk, tenant))
        )
    };
    let mut out = Vec::new();
    for e in &inferred.entities {
        let name = super::infer::snake(&e.name);
        let entity = yaml::key(&e.name);
        out.push(format!(
            "  {name}:\n    description: \"As a reader of the table, I want one `{}` by its key.\"\n    get: {entity}\n",
            e.name
        ));
        if e.sk.is_some()
            && e.pk
                .segs
                .iter()
                .any(|s| matches!(s, Seg::Attr(_) | Seg::Tenant))
        {
            out.push(format!(
                "  {name}_in_partition:\n    description: \"As a reader of the table, I want the `{}` items of one partition.\"\n    query: {}\n    returns: {entity}\n",
                e.name,
                query(&e.pk, e.sk.as_ref())
            ));
        }
        for (index, (pk, sk)) in &e.indexes {
            out.push(format!(
                "  {name}_by_{}:\n    description: \"As a reader of the table, I want the `{}` items of one `{index}` partition.\"\n    index: {}\n    query: {}\n    returns: {entity}\n",
                super::infer::snake(index),
                e.name,
                yaml::key(index),
                query(pk, sk.as_ref())
            ));
        }
    }
    out
}
