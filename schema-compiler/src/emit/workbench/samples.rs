//! Sample items: values that meet every attribute's type and bounds, and
//! keys built from them exactly as the generated repositories build them:
//! with the runtime's own codec (`singletable_codec`, the encodings of
//! `crate::encoding`).

use indexmap::IndexMap;
use regex_syntax::hir::{Class, Hir, HirKind};
use singletable_codec as codec;

use super::model::{AttributeValue, Item};
use crate::ir::{self, AttributeType, DatetimeFormat, PlaceholderKind, Segment, ShardBy};

/// 2024-05-01T12:00:00Z: the first sample instant.
const BASE_SECONDS: i64 = 1_714_564_800;

/// How many sample items each entity gets per tenant (or in all, without a tenant).
pub const PER_TENANT: usize = 2;
/// Samples of an entity when the spec has no tenant.
pub const WITHOUT_TENANT: usize = 3;

/// One sample of an entity: its values, tenant and shard.
pub use crate::ir::Example as Sample;
/// The value of one attribute in a sample.
pub use crate::ir::ExampleValue as Value;

/// Two tenant ids that match the spec's tenant rules, as distinct as the rules allow.
pub fn sample_tenants(tenant: &ir::Tenant) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for hint in ["acme", "globex", "initech", "tenant1", "tenant2", "1", "2"] {
        if let Some(id) = tenant_id(tenant, hint) {
            if !out.contains(&id) {
                out.push(id);
            }
        }
        if out.len() == 2 {
            break;
        }
    }
    out
}

fn tenant_id(tenant: &ir::Tenant, hint: &str) -> Option<String> {
    let text = from_pattern(&tenant.id_pattern.value, hint)
        .unwrap_or_else(|| fill(&tenant.alphabet, hint, tenant.min_length, tenant.max_length));
    let ok = text.chars().count() >= tenant.min_length
        && tenant.max_length.is_none_or(|m| text.chars().count() <= m)
        && text.chars().all(|c| tenant.alphabet.contains(c));
    ok.then_some(text)
}

/// A string built from `hint` that matches `pattern`: literals as written,
/// classes from the hint's characters (either case) when they fit, repeats
/// as long as the hint lasts within their bounds.
pub fn from_pattern(pattern: &str, hint: &str) -> Option<String> {
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .ok()?;
    let mut out = String::new();
    let mut hint: Vec<char> = hint.chars().collect();
    hint.reverse();
    generate(&hir, &mut hint, &mut out).then_some(out)
}

fn pick(class: &Class, hint: &mut Vec<char>) -> Option<char> {
    let ranges: Vec<(char, char)> = match class {
        Class::Unicode(c) => c.iter().map(|r| (r.start(), r.end())).collect(),
        Class::Bytes(c) => c
            .iter()
            .map(|r| (char::from(r.start()), char::from(r.end())))
            .collect(),
    };
    let contains = |c: char| ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi);
    while let Some(c) = hint.pop() {
        for candidate in [c, c.to_ascii_uppercase(), c.to_ascii_lowercase()] {
            if contains(candidate) {
                return Some(candidate);
            }
        }
    }
    None
}

fn first_of(class: &Class) -> Option<char> {
    let ranges: Vec<(char, char)> = match class {
        Class::Unicode(c) => c.iter().map(|r| (r.start(), r.end())).collect(),
        Class::Bytes(c) => c
            .iter()
            .map(|r| (char::from(r.start()), char::from(r.end())))
            .collect(),
    };
    let contains = |c: char| ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi);
    ['a', 'A', '1', '0']
        .into_iter()
        .find(|&c| contains(c))
        .or_else(|| ranges.first().map(|r| r.0))
}

fn generate(hir: &Hir, hint: &mut Vec<char>, out: &mut String) -> bool {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => true,
        HirKind::Literal(lit) => match std::str::from_utf8(&lit.0) {
            Ok(text) => {
                out.push_str(text);
                true
            }
            Err(_) => false,
        },
        HirKind::Class(class) => match pick(class, hint).or_else(|| first_of(class)) {
            Some(c) => {
                out.push(c);
                true
            }
            None => false,
        },
        HirKind::Repetition(rep) => {
            let max = rep.max.unwrap_or(u32::MAX).min(64);
            let mut count = 0;
            while count < rep.min.max(1).min(max) || (count < max && !hint.is_empty()) {
                if let HirKind::Class(class) = rep.sub.kind() {
                    // Take from the hint only while it fits; fill up to the minimum.
                    match pick(class, hint) {
                        Some(c) => out.push(c),
                        None if count < rep.min => match first_of(class) {
                            Some(c) => out.push(c),
                            None => return false,
                        },
                        None => break,
                    }
                } else if !generate(&rep.sub, hint, out) {
                    return false;
                }
                count += 1;
                if rep.min == 0 && count >= 1 && hint.is_empty() {
                    break;
                }
            }
            true
        }
        HirKind::Capture(c) => generate(&c.sub, hint, out),
        HirKind::Concat(parts) => parts.iter().all(|p| generate(p, hint, out)),
        HirKind::Alternation(parts) => parts.first().is_some_and(|p| generate(p, hint, out)),
    }
}

/// A string of `alphabet` from `hint`, between `min` and `max` characters.
fn fill(alphabet: &ir::CharSet, hint: &str, min: usize, max: Option<usize>) -> String {
    let mut out: String = hint
        .chars()
        .filter_map(|c| {
            [c, c.to_ascii_uppercase(), c.to_ascii_lowercase()]
                .into_iter()
                .find(|v| alphabet.contains(*v))
        })
        .collect();
    if let Some(max) = max {
        out = out.chars().take(max).collect();
    }
    let filler = ['a', 'A', '1', '0']
        .into_iter()
        .find(|&c| alphabet.contains(c))
        .or_else(|| alphabet.ranges.first().map(|r| r.0))
        .unwrap_or('a');
    while out.chars().count() < min.max(1) {
        out.push(filler);
    }
    out
}

/// A sample value of `attribute` for sample number `n` (0-based).
pub fn sample_value(entity: &ir::Entity, attribute: &ir::Attribute, n: usize) -> Value {
    let name = attribute.name.as_str();
    match &attribute.r#type {
        AttributeType::String {
            min_length,
            max_length,
            pattern,
            alphabet,
        } => {
            let hint = string_hint(entity, name, n);
            let text = pattern
                .as_deref()
                .and_then(|p| from_pattern(p, &hint))
                .unwrap_or_else(|| {
                    fill(
                        alphabet,
                        &hint,
                        min_length.unwrap_or(1) as usize,
                        max_length.map(|m| m as usize),
                    )
                });
            Value::Text(text)
        }
        AttributeType::Integer { min, max } => {
            let wanted = if *min <= 0 && *max >= 1 {
                1 + n as i64
            } else {
                min.saturating_add(n as i64)
            };
            Value::Integer(wanted.clamp(*min, *max))
        }
        AttributeType::Decimal { min, max, scale } => Value::Decimal(decimal(
            n,
            min.as_deref(),
            max.as_deref(),
            scale.unwrap_or(2),
        )),
        // Both values among the samples that have it: every one for a
        // required boolean, every other one for an optional boolean.
        AttributeType::Boolean if attribute.optional => Value::Bool(n.is_multiple_of(4)),
        AttributeType::Boolean => Value::Bool(n % 2 == 1),
        AttributeType::Datetime { .. } => Value::Time(BASE_SECONDS + 3_600 * n as i64, 0),
        AttributeType::Enum { values } => Value::Text(
            values
                .get(n % values.len().max(1))
                .cloned()
                .unwrap_or_default(),
        ),
        AttributeType::List {
            items,
            min_length,
            max_length,
        } => {
            // Two elements show a list; a list of lists shows one (or its
            // least), so nested lists stay linear in their depth.
            let shown = if matches!(items.as_deref(), Some(AttributeType::List { .. })) {
                1
            } else {
                2
            };
            let count = shown
                .max(min_length.unwrap_or(0))
                .min(max_length.unwrap_or(u64::MAX)) as usize;
            let element = |i: usize| match items.as_deref() {
                Some(t) => {
                    let a = ir::Attribute {
                        r#type: t.clone(),
                        optional: false,
                        ..attribute.clone()
                    };
                    stored(&a, &sample_value(entity, &a, n + i))
                }
                None => AttributeValue::S(format!("{name}-{}", i + 1)),
            };
            Value::Stored(AttributeValue::L((0..count).map(element).collect()))
        }
        // Every declared field (optional ones in every other sample), each
        // as its type stores it.
        AttributeType::Map {
            fields: Some(fields),
        } => Value::Stored(AttributeValue::M(
            fields
                .values()
                .filter(|f| !f.optional || n.is_multiple_of(2))
                .map(|f| {
                    (
                        f.stored().to_owned(),
                        stored(f, &sample_value(entity, f, n)),
                    )
                })
                .collect(),
        )),
        AttributeType::Map { fields: None } => {
            let mut map = IndexMap::new();
            map.insert(
                "note".to_owned(),
                AttributeValue::S(format!("sample {}", n + 1)),
            );
            Value::Stored(AttributeValue::M(map))
        }
        AttributeType::Binary { .. } => Value::Stored(AttributeValue::B(base64(
            format!("{name}-{}", n + 1).as_bytes(),
        ))),
        AttributeType::Set { of } => Value::Stored(set_sample(name, *of, n)),
    }
}

/// Two values of a set (out of line: `sample_value` recurses through
/// nested lists, so its frame stays small).
fn set_sample(name: &str, of: ir::SetOf, n: usize) -> AttributeValue {
    match of {
        ir::SetOf::String => {
            AttributeValue::Ss((1..=2).map(|i| format!("{name}-{}", n + i)).collect())
        }
        ir::SetOf::Integer | ir::SetOf::Decimal => {
            AttributeValue::Ns((1..=2).map(|i| (n + i).to_string()).collect())
        }
        ir::SetOf::Binary => AttributeValue::Bs(
            (1..=2)
                .map(|i| base64(format!("{name}-{}", n + i).as_bytes()))
                .collect(),
        ),
    }
}

fn string_hint(entity: &ir::Entity, name: &str, n: usize) -> String {
    let base = if name == "id" || name.ends_with("_id") {
        let stem = name.trim_end_matches("_id").trim_end_matches("id");
        if stem.is_empty() {
            entity.name.to_ascii_lowercase()
        } else {
            stem.replace('_', "-")
        }
    } else {
        name.replace('_', "-")
    };
    format!("{base}-{}", n + 1)
}

fn decimal(n: usize, min: Option<&str>, max: Option<&str>, scale: u32) -> String {
    let bound = |b: Option<&str>| b.and_then(|b| b.parse::<f64>().ok());
    let mut whole = 10 + n as i64;
    if let Some(max) = bound(max) {
        if whole as f64 > max {
            whole = max.floor() as i64;
        }
    }
    if let Some(min) = bound(min) {
        if (whole as f64) < min {
            whole = min.ceil() as i64;
        }
    }
    // DynamoDB's canonical text: no trailing zeros (it stores 10.50 as
    // 10.5), and within the bounds.
    let half = whole as f64 + 0.5;
    if scale == 0 || bound(max).is_some_and(|max| half > max) {
        whole.to_string()
    } else {
        format!("{whole}.5")
    }
}

/// Standard base64 with padding (how DynamoDB JSON writes binary values).
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Year, month and day of a count of days since 1970-01-01.
pub use singletable_codec::civil_from_days;

fn fraction_digits(precision: ir::TimePrecision) -> u8 {
    match precision {
        ir::TimePrecision::Seconds => 0,
        ir::TimePrecision::Millis => 3,
        ir::TimePrecision::Micros => 6,
        ir::TimePrecision::Nanos => 9,
    }
}

/// The stored attribute value of `value` for `attribute` (what the
/// repository writes for the attribute itself).
pub fn stored(attribute: &ir::Attribute, value: &Value) -> AttributeValue {
    match (value, &attribute.r#type) {
        (Value::Time(secs, nanos), AttributeType::Datetime { format, precision }) => match format {
            DatetimeFormat::Rfc3339 => AttributeValue::S(
                codec::rfc3339(*secs, *nanos, fraction_digits(*precision)).unwrap_or_default(),
            ),
            DatetimeFormat::EpochSeconds => AttributeValue::N(secs.to_string()),
            DatetimeFormat::EpochMillis => AttributeValue::N(
                codec::epoch_millis(*secs, *nanos).map_or_else(String::new, |m| m.to_string()),
            ),
        },
        (Value::Text(t), _) => AttributeValue::S(t.clone()),
        (Value::Integer(i), _) => AttributeValue::N(i.to_string()),
        (Value::Decimal(d), _) => AttributeValue::N(d.clone()),
        (Value::Bool(b), _) => AttributeValue::Bool(*b),
        (Value::Time(secs, _), _) => AttributeValue::N(secs.to_string()),
        (Value::Stored(av), _) => av.clone(),
    }
}

/// The key text of `value` for `attribute` (what a key template holds),
/// written by the runtime's codec. Sample values meet their bounds; a value
/// without a key encoding (out of bounds, a datetime past year 9999) would
/// be empty text.
pub fn key_text(attribute: &ir::Attribute, value: &Value) -> String {
    match (value, &attribute.r#type, attribute.case) {
        (Value::Text(t), AttributeType::String { .. }, Some(case)) => {
            let folded = case.codec().fold(t);
            if attribute.escape {
                codec::escape(&folded)
            } else {
                folded.into_owned()
            }
        }
        _ => uncased_key_text(attribute, value),
    }
}

/// [`key_text`] of an attribute without a key case.
fn uncased_key_text(attribute: &ir::Attribute, value: &Value) -> String {
    match (value, &attribute.r#type) {
        (Value::Text(t), AttributeType::String { .. }) if attribute.escape => codec::escape(t),
        (Value::Integer(i), AttributeType::Integer { min, max }) => {
            codec::encode_integer(*i, *min, *max).unwrap_or_default()
        }
        (Value::Time(secs, nanos), AttributeType::Datetime { format, precision }) => {
            let text = match format {
                DatetimeFormat::Rfc3339 => {
                    codec::rfc3339(*secs, *nanos, fraction_digits(*precision)).ok()
                }
                DatetimeFormat::EpochSeconds => codec::epoch_seconds_text(*secs).ok(),
                DatetimeFormat::EpochMillis => codec::epoch_millis(*secs, *nanos)
                    .and_then(|millis| codec::epoch_millis_text(millis).ok()),
            };
            text.unwrap_or_default()
        }
        (Value::Bool(b), _) => b.to_string(),
        (Value::Text(t), _) | (Value::Decimal(t), _) => t.clone(),
        (Value::Integer(i), _) => i.to_string(),
        (Value::Time(secs, _), _) => secs.to_string(),
        (Value::Stored(_), _) => String::new(),
    }
}

/// The samples of an entity: [`PER_TENANT`] for each sample tenant, or
/// [`WITHOUT_TENANT`] without a tenant.
pub fn samples(spec: &ir::Spec, entity: &ir::Entity, tenants: &[String]) -> Vec<Sample> {
    let scoped = spec.tenant.is_some() && entity.scope == ir::Scope::Tenant;
    let slots: Vec<Option<&String>> = if scoped {
        tenants
            .iter()
            .flat_map(|t| std::iter::repeat_n(Some(t), PER_TENANT))
            .collect()
    } else {
        vec![None; WITHOUT_TENANT]
    };
    slots
        .into_iter()
        .enumerate()
        .map(|(n, tenant)| {
            let values = entity
                .attributes
                .values()
                // Optional attributes in every other sample, so sparse
                // indexes show items both in and out of them.
                .filter(|a| !a.optional || n % 2 == 0)
                .map(|a| (a.name.value.clone(), sample_value(entity, a, n)))
                .collect();
            let mut sample = Sample {
                tenant: tenant.cloned(),
                shard: None,
                values,
            };
            sample.shard = shard_of(entity, &sample, n);
            sample
        })
        .collect()
}

fn shard_of(entity: &ir::Entity, sample: &Sample, n: usize) -> Option<u32> {
    let sharding = entity.shards.as_ref()?;
    let count = sharding.count.value.max(1);
    match &sharding.by {
        ShardBy::Random => Some(n as u32 % count),
        ShardBy::Hash(attribute) => {
            let a = entity.attributes.get(attribute)?;
            let v = sample.values.get(attribute)?;
            Some(codec::hash_shard(&key_text(a, v), count))
        }
    }
}

/// The value of a key template for a sample, or `None` when an optional
/// placeholder is absent (the item is not in that index).
pub fn key_value(
    entity: &ir::Entity,
    template: &ir::KeyTemplate,
    key_type: ir::KeyType,
    sample: &Sample,
) -> Option<AttributeValue> {
    if let Some(name) = template.natural_attribute() {
        let a = entity.attributes.get(name)?;
        let v = sample.values.get(name)?;
        return Some(stored(a, v));
    }
    // A number key's one placeholder is the number itself.
    if let (ir::KeyType::Number, [Segment::Placeholder(p)]) =
        (key_type, template.segments.as_slice())
    {
        return match p.kind {
            PlaceholderKind::Shard => Some(AttributeValue::N(sample.shard?.to_string())),
            PlaceholderKind::Attribute => {
                let a = entity.attributes.get(p.name.as_str())?;
                Some(stored(a, sample.values.get(p.name.as_str())?))
            }
            PlaceholderKind::Tenant => None,
        };
    }
    let mut text = String::new();
    for segment in &template.segments {
        match segment {
            Segment::Literal(l) => text.push_str(l),
            Segment::Placeholder(p) => match p.kind {
                PlaceholderKind::Tenant => text.push_str(sample.tenant.as_deref()?),
                PlaceholderKind::Shard => text.push_str(&sample.shard?.to_string()),
                PlaceholderKind::Attribute => {
                    let a = entity.attributes.get(p.name.as_str())?;
                    text.push_str(&key_text(a, sample.values.get(p.name.as_str())?));
                }
            },
        }
    }
    Some(match key_type {
        ir::KeyType::Number => AttributeValue::N(text),
        ir::KeyType::String | ir::KeyType::Binary => AttributeValue::S(text),
    })
}

/// Whether a sample is in `index`: always, unless the entity is there only
/// while a boolean is true (`when`).
fn member(entity: &ir::Entity, index: &str, sample: &Sample) -> bool {
    match entity.index_keys.get(index).and_then(|k| k.when.as_deref()) {
        Some(flag) => matches!(sample.values.get(flag), Some(Value::Bool(true))),
        None => true,
    }
}

/// The item the repository writes for a sample: primary key, entity type,
/// attributes, then the key attributes of every index whose placeholders
/// are all present (natural index keys are the attributes themselves).
pub fn item(spec: &ir::Spec, entity: &ir::Entity, sample: &Sample) -> Item {
    let mut item = Item::new();
    for t in entity.primary_key.templates() {
        let ty = spec.key_type(None, &t.attribute);
        if let Some(v) = key_value(entity, t, ty, sample) {
            item.insert(t.attribute.clone(), v);
        }
    }
    if let Some((attribute, value)) = spec.table.entity_type.marker(&entity.name) {
        item.insert(attribute.to_owned(), AttributeValue::S(value.to_owned()));
    }
    for a in entity.attributes.values().filter(|a| !a.key_only) {
        if let Some(v) = sample.values.get(a.name.as_str()) {
            item.insert(a.stored().to_owned(), stored(a, v));
        }
    }
    // Derived attributes, as the repository computes them (absent where
    // an optional input is).
    for (name, t) in &entity.derived {
        if let Some(v) = key_value(entity, t, ir::KeyType::String, sample) {
            item.insert(name.clone(), v);
        }
    }
    // Local index keys first, where an import reads them back as the
    // entity's last attributes (the format has no local indexes).
    let local = super::local_keys(spec, entity);
    let global = entity.index_keys.iter().flat_map(|(index, key)| {
        key.templates()
            .filter(|t| !t.is_natural())
            .map(move |t| (index, t))
    });
    for (index, t) in local.chain(global) {
        if item.contains_key(&t.attribute) || !member(entity, index, sample) {
            continue;
        }
        let ty = spec.key_type(Some(index), &t.attribute);
        if let Some(v) = key_value(entity, t, ty, sample) {
            item.insert(t.attribute.clone(), v);
        }
    }
    item
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_yield_matching_strings() {
        assert_eq!(
            from_pattern("^[A-Za-z0-9_-]{1,36}$", "ticket-1").as_deref(),
            Some("ticket-1")
        );
        assert_eq!(
            from_pattern("^[0-9]{4}-(0[1-9]|1[0-2])$", "month-1").as_deref(),
            Some("1111-01")
        );
        let ulid = from_pattern("^[0-9A-HJKMNP-TV-Z]{26}$", "photo-1").unwrap();
        assert_eq!(ulid.len(), 26);
        assert_eq!(
            from_pattern("^[a-z0-9]{3,32}$", "globex").as_deref(),
            Some("globex")
        );
    }

    #[test]
    fn base64_pads() {
        assert_eq!(base64(b"a"), "YQ==");
        assert_eq!(base64(b"ab"), "YWI=");
        assert_eq!(base64(b"abc"), "YWJj");
    }

    #[test]
    fn rfc3339_of_the_base_instant() {
        assert_eq!(
            codec::rfc3339(BASE_SECONDS, 0, 3).as_deref(),
            Ok("2024-05-01T12:00:00.000Z")
        );
    }
}
