//! Sample items declared in a spec (`examples:`), checked against the
//! entity's attributes so the Workbench model can build their keys exactly
//! as the repositories would.

use indexmap::IndexMap;
use serde_json::Value;

use super::Resolver;
use crate::diagnostics::{Code, Diagnostic};
use crate::encoding;
use crate::ir::{self, AttributeType, ExampleValue, PlaceholderKind, ShardBy};
use crate::source::Spanned;

impl Resolver<'_> {
    pub(super) fn resolve_examples(
        &mut self,
        examples: &Spanned<Vec<IndexMap<String, Value>>>,
        entity: &ir::Entity,
        spec: &ir::Spec,
    ) -> Vec<ir::Example> {
        let span = examples.span;
        examples
            .value
            .iter()
            .enumerate()
            .filter_map(|(i, example)| {
                match resolve_example(example, entity, spec) {
                    Ok(e) => Some(e),
                    Err(problem) => {
                        self.error(
                            Diagnostic::new(
                                Code::InvalidValue,
                                format!("example {} of `{}`: {problem}", i + 1, entity.name),
                            )
                            .label(span, "examples declared here")
                            .help("give every required attribute a value of its type; lists, maps and binary values in DynamoDB JSON"),
                        );
                        None
                    }
                }
            })
            .collect()
    }
}

fn resolve_example(
    example: &IndexMap<String, Value>,
    entity: &ir::Entity,
    spec: &ir::Spec,
) -> Result<ir::Example, String> {
    let tenant_name = spec.tenant.as_ref().map(|t| t.placeholder.as_str());
    let scoped = tenant_name.is_some() && entity.scope == ir::Scope::Tenant;
    let random = matches!(entity.shards.as_ref().map(|s| &s.by), Some(ShardBy::Random));
    let mut out = ir::Example {
        tenant: None,
        shard: None,
        values: IndexMap::new(),
    };
    for (name, value) in example {
        if Some(name.as_str()) == tenant_name && scoped {
            out.tenant = Some(tenant_value(value, spec)?);
        } else if name == crate::resolve::SHARD_PLACEHOLDER && random {
            let count = entity.shards.as_ref().map_or(1, |s| s.count.value);
            let shard = value
                .as_u64()
                .filter(|s| *s < u64::from(count))
                .ok_or_else(|| format!("`shard` must be a whole number below {count}"))?;
            out.shard = Some(shard as u32);
        } else {
            let attribute = entity
                .attributes
                .get(name)
                .ok_or_else(|| format!("`{name}` is not an attribute"))?;
            out.values
                .insert(name.clone(), attribute_value(attribute, value)?);
        }
    }
    if scoped && out.tenant.is_none() {
        return Err(format!(
            "the tenant `{}` is missing",
            tenant_name.unwrap_or("tenant")
        ));
    }
    if random && out.shard.is_none() {
        return Err("`shard` is missing".into());
    }
    if let Some(a) = entity
        .attributes
        .values()
        .find(|a| !a.optional && !out.values.contains_key(a.name.as_str()))
    {
        return Err(format!("required attribute `{}` is missing", a.name));
    }
    check_key_values(entity, &out)?;
    Ok(out)
}

fn tenant_value(value: &Value, spec: &ir::Spec) -> Result<String, String> {
    let id = value.as_str().ok_or("the tenant id must be a string")?;
    let ok = spec.tenant.as_ref().is_some_and(|t| {
        let d = encoding::tenant_domain(t);
        id.len() >= d.min_len
            && d.max_len.is_none_or(|m| id.len() <= m)
            && id.chars().all(|c| d.alphabet.contains(c))
    });
    if ok {
        Ok(id.to_owned())
    } else {
        Err(format!(
            "tenant id `{id}` does not meet the tenant's id pattern"
        ))
    }
}

fn attribute_value(attribute: &ir::Attribute, value: &Value) -> Result<ExampleValue, String> {
    let name = attribute.name.as_str();
    let wrong = || {
        format!(
            "`{name}` must be {}, not `{value}`",
            attribute.r#type.article_name()
        )
    };
    Ok(match &attribute.r#type {
        AttributeType::String { .. } => {
            ExampleValue::Text(value.as_str().ok_or_else(wrong)?.to_owned())
        }
        AttributeType::Enum { values } => {
            let text = value.as_str().ok_or_else(wrong)?;
            if !values.iter().any(|v| v == text) {
                return Err(format!("`{text}` is not a value of `{name}`"));
            }
            ExampleValue::Text(text.to_owned())
        }
        AttributeType::Integer { min, max } => {
            let n = value.as_i64().ok_or_else(wrong)?;
            if n < *min || n > *max {
                return Err(format!("`{name}` = {n} is outside {min}..={max}"));
            }
            ExampleValue::Integer(n)
        }
        AttributeType::Decimal { .. } => match value {
            Value::Number(n) => ExampleValue::Decimal(n.to_string()),
            Value::String(s) if s.parse::<f64>().is_ok() => ExampleValue::Decimal(s.clone()),
            _ => return Err(wrong()),
        },
        AttributeType::Boolean => ExampleValue::Bool(value.as_bool().ok_or_else(wrong)?),
        AttributeType::Datetime { .. } => match value {
            Value::Number(n) => ExampleValue::Time(n.as_i64().ok_or_else(wrong)?, 0),
            Value::String(s) => ExampleValue::Text(s.clone()),
            _ => return Err(wrong()),
        },
        AttributeType::List { .. }
        | AttributeType::Map { .. }
        | AttributeType::Set { .. }
        | AttributeType::Binary { .. } => {
            let av: ir::AttributeValue =
                serde_json::from_value(value.clone()).map_err(|_| wrong())?;
            let expected = match &attribute.r#type {
                AttributeType::List { .. } => "L",
                AttributeType::Map { .. } => "M",
                AttributeType::Set { of } => of.tag(),
                _ => "B",
            };
            if av.type_name() != expected {
                return Err(format!("`{name}` must be DynamoDB JSON of type {expected}"));
            }
            attribute
                .r#type
                .check_stored(&av)
                .map_err(|why| format!("`{name}` {why}"))?;
            ExampleValue::Stored(av)
        }
    })
}

/// String values in keys must stay inside their key domain, or the key
/// would not read back.
fn check_key_values(entity: &ir::Entity, example: &ir::Example) -> Result<(), String> {
    let templates = std::iter::once(&entity.primary_key)
        .chain(entity.index_keys.values())
        .flat_map(|k| k.templates());
    for p in templates.flat_map(|t| t.placeholders()) {
        if p.kind != PlaceholderKind::Attribute {
            continue;
        }
        let (Some(a), Some(ExampleValue::Text(text))) = (
            entity.attributes.get(p.name.as_str()),
            example.values.get(p.name.as_str()),
        ) else {
            continue;
        };
        if !matches!(a.r#type, AttributeType::String { .. }) {
            continue;
        }
        let d = encoding::type_domain(&a.r#type, false);
        let fits = text.len() >= d.min_len
            && d.max_len.is_none_or(|m| text.len() <= m)
            && text.chars().all(|c| d.alphabet.contains(c));
        if !fits {
            return Err(format!(
                "`{}` = `{text}` cannot be written into a key: it does not meet the attribute's pattern or length",
                a.name
            ));
        }
    }
    Ok(())
}
