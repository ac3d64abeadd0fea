//! The keys the oracle judges: every partition key a tenant's id, a template's literals or another tenant could make.

use super::*;

pub(super) fn is_tag_char(c: char) -> bool {
    c.is_alphanumeric() || c.is_whitespace() || TAG_PUNCTUATION.contains(c)
}

/// Every partition-key template of the spec: entities' on the table and
/// indexes, and access patterns' query keys.
fn partition_templates(spec: &ir::Spec) -> Vec<&ir::KeyTemplate> {
    let entities = spec.entities.values().flat_map(|e| {
        std::iter::once(&e.primary_key.pk).chain(e.index_keys.values().map(|k| &k.pk))
    });
    let queries = spec
        .access_patterns
        .values()
        .filter_map(|p| match &p.operation {
            Operation::Query(q) => Some(&q.pk),
            _ => None,
        });
    entities.chain(queries).collect()
}

/// Literal text of the templates that a tenant id might be made to
/// reproduce: each template's text before its first placeholder, and
/// every literal segment.
fn literal_texts(spec: &ir::Spec) -> Vec<String> {
    let mut out = Vec::new();
    for template in partition_templates(spec) {
        out.push(template.literal_prefix());
        if let Some(prefix) = template.tenant_prefix() {
            out.push(prefix.literal);
        }
        for segment in &template.segments {
            if let ir::Segment::Literal(l) = segment {
                out.push(l.clone());
            }
        }
    }
    out
}

/// The adversarial tenant ids of a spec, valid ones only, first found first.
pub(super) fn tenant_ids(spec: &ir::Spec, global_keys: &[Key]) -> Vec<String> {
    let tenant = spec.tenant.as_ref().expect("only specs with a tenant");
    let pattern = Regex::new(&tenant.id_pattern.value).expect("the compiler accepted the pattern");
    let base = samples::sample_tenants(tenant);
    let first = base.first().cloned().unwrap_or_else(|| "a".to_owned());
    let second = base.get(1).cloned().unwrap_or_else(|| first.clone());
    let in_alphabet = |c: char| tenant.alphabet.contains(c) && is_tag_char(c);
    let mut ids: Vec<String> = base.clone();
    // Prefixes and extensions of one another: `a`, `ac`, `acm`, `acme`, `acmex`.
    let chars: Vec<char> = first.chars().collect();
    ids.extend((1..chars.len()).map(|n| chars[..n].iter().collect()));
    ids.extend([format!("{first}x"), first.repeat(2), first.to_uppercase()]);
    ids.extend(["1", "10"].map(String::from));
    // Text another template puts where this one puts the tenant: for
    // `TENANT#<tenant>` beside `TENANT#archived<tenant>` or a global
    // `TENANT#ADMIN|…`, the ids `archived…` and `ADMIN`.
    let mut texts = literal_texts(spec);
    texts.extend(global_keys.iter().map(|k| k.value.clone()));
    let prefixes: BTreeSet<String> = partition_templates(spec)
        .iter()
        .filter_map(|t| t.tenant_prefix().map(|p| p.literal))
        .collect();
    for text in &texts {
        // Words of the literal text, split where the tenant alphabet ends.
        for word in text
            .split(|c: char| !in_alphabet(c))
            .filter(|w| !w.is_empty())
        {
            ids.extend([word.to_owned(), format!("{first}{word}")]);
        }
        for rest in prefixes
            .iter()
            .filter_map(|p| text.strip_prefix(p.as_str()))
        {
            let run: String = rest.chars().take_while(|&c| in_alphabet(c)).collect();
            if !run.is_empty() {
                ids.extend(base.iter().map(|b| format!("{run}{b}")));
                ids.push(run);
            }
        }
    }
    // Spaces and tag punctuation the tenant alphabet allows: one at a
    // time, and all of them in one id.
    let specials: String = UNICODE_SPACES
        .into_iter()
        .chain(" ".chars())
        .chain(TAG_PUNCTUATION.chars())
        .filter(|&c| in_alphabet(c))
        .collect();
    ids.extend(specials.chars().map(|c| format!("{first}{c}{second}")));
    ids.push(format!("{first}{specials}{second}"));
    let longest = tenant.max_length.unwrap_or(MAX_TAG).min(MAX_TAG);
    let long: String = first.chars().cycle().take(longest).collect();
    ids.extend([long.clone(), long.chars().take(longest - 1).collect()]);
    let mut seen = BTreeSet::new();
    ids.retain(|id| acceptable(tenant, &pattern, id) && seen.insert(id.clone()));
    ids
}

fn key_text(value: AttributeValue) -> Option<String> {
    match value {
        AttributeValue::S(s) | AttributeValue::N(s) | AttributeValue::B(s) => Some(s),
        _ => None,
    }
}

/// The partition keys of every entity for each of `tenants` (one item
/// each), and of every global entity, on the table and on every index.
/// Equal values on one place are one key.
pub(super) fn partition_keys(spec: &ir::Spec, tenants: &[String]) -> Vec<Key> {
    let mut keys: BTreeMap<(Place, String), Key> = BTreeMap::new();
    for entity in spec.entities.values() {
        let all = samples::samples(spec, entity, tenants);
        // The first sample of each tenant has every optional attribute, so
        // it is in every sparse index.
        let step = if entity.scope == Scope::Tenant {
            samples::PER_TENANT
        } else {
            1
        };
        for sample in all.iter().step_by(step) {
            let places = std::iter::once((Place::Table, None, &entity.primary_key)).chain(
                entity
                    .index_keys
                    .iter()
                    .map(|(i, k)| (Place::Index(i.clone()), Some(i), k)),
            );
            for (place, index, entity_key) in places {
                let key_type = spec.key_type(index.map(String::as_str), &entity_key.pk.attribute);
                let Some(value) =
                    samples::key_value(entity, &entity_key.pk, key_type, sample).and_then(key_text)
                else {
                    continue;
                };
                let key = keys
                    .entry((place.clone(), value.clone()))
                    .or_insert_with(|| Key {
                        place,
                        value,
                        owner: sample.tenant.clone(),
                        entities: BTreeSet::new(),
                    });
                assert_eq!(
                    key.owner, sample.tenant,
                    "`{}` is the key of two owners: a key collision the checker missed",
                    key.value
                );
                key.entities.insert(entity.name.value.clone());
            }
        }
    }
    keys.into_values().collect()
}

pub(super) fn place_of(index: &IndexRef) -> Place {
    match index {
        IndexRef::Table => Place::Table,
        IndexRef::Index(name) => Place::Index(name.clone()),
    }
}
