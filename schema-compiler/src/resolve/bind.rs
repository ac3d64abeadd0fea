//! Binding an access pattern's parameters and literals to the placeholders of the keys it reads.

use indexmap::IndexMap;

use crate::diagnostics::{did_you_mean, Code, Diagnostic};
use crate::ir::{self, AttributeType, IndexRef, PlaceholderKind};
use crate::source::{Span, Spanned};

use super::pattern::{serving_index, KeyedPattern};
use super::unify::{Binding, Fill};
use super::Resolver;

impl Resolver<'_> {
    /// A parameter of the pattern that fills no attribute of the entities
    /// it returns has no type and no value to send.
    pub(super) fn unbound_params(
        &mut self,
        p: &KeyedPattern<'_>,
        params: &IndexMap<String, ir::Param>,
    ) {
        let templates = p.templates();
        let mut seen = std::collections::BTreeSet::new();
        for ph in templates.flat_map(|t| t.placeholders()) {
            if ph.kind != PlaceholderKind::Attribute
                || params.contains_key(&ph.name.value)
                || !seen.insert(ph.name.value.clone())
            {
                continue;
            }
            self.error(
                Diagnostic::new(
                    Code::PatternMismatch,
                    format!("parameter `<{}>` fills no attribute of the entities this pattern returns", ph.name),
                )
                .label(ph.name.span, "this parameter")
                .help("a parameter takes its type from the key placeholder it fills: spell out a returned entity's sort key up to it, or write a literal bound"),
            );
        }
    }

    pub(super) fn no_match(
        &mut self,
        p: &KeyedPattern<'_>,
        entity: Option<(&Spanned<String>, &ir::Entity)>,
        spec: &ir::Spec,
    ) {
        let broken = match entity {
            Some((name, _)) => self.broken_entities.contains(&name.value),
            None => !self.broken_entities.is_empty(),
        };
        if self.misspelled_tenant(p.pk, spec) || broken {
            return;
        }
        let index_name = match p.index {
            IndexRef::Table => "the table".to_owned(),
            IndexRef::Index(i) => format!("index `{i}`"),
        };
        let Some((name, entity)) = entity else {
            // The key shapes the index does hold, to compare with.
            let shapes: Vec<String> = spec
                .entities
                .values()
                .filter_map(|e| {
                    let keys = match p.index {
                        IndexRef::Table => Some(&e.primary_key),
                        IndexRef::Index(i) => e.index_keys.get(i),
                    }?;
                    let sk = keys
                        .sk
                        .as_ref()
                        .map(|sk| format!(", sk `{}`", sk.source.value))
                        .unwrap_or_default();
                    Some(format!("`{}` (pk `{}`{sk})", e.name, keys.pk.source.value))
                })
                .take(8)
                .collect();
            let help = if shapes.is_empty() {
                format!(
                    "no entity is written into {index_name}: add it under an entity's `indexes`"
                )
            } else {
                format!("the partition key must be a whole entity key template with placeholders filled by parameters or literals; {index_name} holds {}", shapes.join("; "))
            };
            self.error(
                Diagnostic::new(
                    Code::PatternMismatch,
                    format!("no entity's keys on {index_name} match this key condition"),
                )
                .label(p.span, "this key condition")
                .help(help),
            );
            return;
        };
        let keys = match p.index {
            IndexRef::Table => Some(&entity.primary_key),
            IndexRef::Index(i) => entity.index_keys.get(i),
        };
        let mut d = Diagnostic::new(Code::PatternMismatch, format!("entity `{name}` cannot be returned: its keys on {index_name} do not match this key condition"))
            .label(p.span, "this key condition")
            .label(name.span, "returned entity");
        if let Some(keys) = keys {
            d = d.label(
                keys.pk.source.span,
                format!("`{name}`'s partition key template"),
            );
        }
        let help = match (serving_index(p, entity, spec), keys) {
            (Some(IndexRef::Table), _) => "the table's own key serves this condition: remove `index`".to_owned(),
            (Some(IndexRef::Index(i)), _) => format!("index `{i}` serves this condition: write `index: {i}`"),
            (None, Some(keys)) => format!(
                "the partition key must fill `{}`; the sort-key condition must fit `{}`",
                keys.pk.source.value,
                keys.sk.as_ref().map_or("", |s| s.source.value.as_str())
            ),
            (None, None) => format!("entity `{name}` is not written into {index_name}: add the index under the entity's `indexes`, or query an index it is in"),
        };
        self.error(d.help(help));
    }

    /// `<tenent>` where the tenant belongs: say so, with the right name.
    fn misspelled_tenant(&mut self, pk: &ir::KeyTemplate, spec: &ir::Spec) -> bool {
        let Some(tenant) = &spec.tenant else {
            return false;
        };
        if pk.placeholders().any(|p| p.kind == PlaceholderKind::Tenant) {
            return false;
        }
        let Some(p) = pk
            .placeholders()
            .find(|p| did_you_mean(&p.name, [tenant.placeholder.as_str()]).is_some())
        else {
            return false;
        };
        self.error(
            Diagnostic::new(
                Code::UnknownPlaceholder,
                format!("unknown placeholder `<{}>`", p.name),
            )
            .label(p.name.span, "not the tenant placeholder")
            .label(tenant.placeholder.span, "tenant placeholder declared here")
            .help(format!("did you mean `{}`?", tenant.placeholder)),
        );
        true
    }

    pub(super) fn bind_params(
        &mut self,
        p: &KeyedPattern<'_>,
        returns: &[String],
        matching: &[(String, Vec<Binding>)],
        spec: &ir::Spec,
    ) -> (IndexMap<String, ir::Param>, Vec<ir::FixedValue>) {
        let mut params: IndexMap<String, ir::Param> = IndexMap::new();
        let mut fixed = Vec::new();
        let pattern_placeholders: Vec<&ir::Placeholder> =
            p.templates().flat_map(|t| t.placeholders()).collect();
        for entity_name in returns {
            let entity = &spec.entities[entity_name];
            let Some((_, bindings)) = matching.iter().find(|(m, _)| m == entity_name) else {
                continue;
            };
            for b in bindings
                .iter()
                .filter(|b| b.kind == PlaceholderKind::Attribute)
            {
                let Some(attr) = entity.attributes.get(&b.placeholder) else {
                    continue;
                };
                match &b.fill {
                    Fill::Param(name, _) => {
                        let Some(ph) = pattern_placeholders
                            .iter()
                            .find(|ph| ph.name.value == *name)
                        else {
                            continue;
                        };
                        self.bind_param(&mut params, ph, entity_name, attr, spec);
                    }
                    Fill::Literal(value) => {
                        self.check_literal(value, attr, entity_name, p.span, false);
                        fixed.push(ir::FixedValue {
                            entity: entity_name.clone(),
                            attribute: b.placeholder.clone(),
                            value: value.clone(),
                        });
                    }
                    Fill::Partial(value) => {
                        self.check_literal(value, attr, entity_name, p.span, true)
                    }
                }
            }
        }
        (params, fixed)
    }

    fn bind_param(
        &mut self,
        params: &mut IndexMap<String, ir::Param>,
        ph: &ir::Placeholder,
        entity: &str,
        attr: &ir::Attribute,
        spec: &ir::Spec,
    ) {
        let bind = (entity.to_owned(), attr.name.value.clone());
        let encoding = attr.key_encoding();
        match params.get_mut(&ph.name.value) {
            Some(existing) if existing.r#type.name() != attr.r#type.name() => {
                self.error(
                    Diagnostic::new(Code::PatternMismatch, format!("parameter `{}` would be {} and {}", ph.name, existing.r#type.article_name(), attr.r#type.article_name()))
                        .label(ph.name.span, "this parameter")
                        .label(attr.name.span, format!("`{entity}.{}`", attr.name))
                        .help("a parameter fills attributes of one type: use two parameters or align the attribute types"),
                );
            }
            Some(existing) if existing.encoding != encoding => {
                let (first_entity, first_attribute) = &existing.binds[0];
                let mut d = Diagnostic::new(
                    Code::PatternMismatch,
                    format!(
                        "parameter `{}` fills `{first_entity}.{first_attribute}`, written as {}, and `{entity}.{}`, written as {}: one value cannot match both keys",
                        ph.name,
                        existing.encoding.describe(),
                        attr.name,
                        encoding.describe()
                    ),
                )
                .label(ph.name.span, "this parameter")
                .label(attr.name.span, format!("`{entity}.{}`: {}", attr.name, encoding.describe()));
                let first = spec
                    .entities
                    .get(first_entity)
                    .and_then(|e| e.attributes.get(first_attribute));
                if let Some(first) = first.map(|a| a.name.span) {
                    d = d.label(
                        first,
                        format!(
                            "`{first_entity}.{first_attribute}`: {}",
                            existing.encoding.describe()
                        ),
                    );
                }
                self.error(d.help("give the attributes the same bounds (integers), format and precision (datetimes) and `escape` and `case` settings, or query them through two parameters"));
            }
            Some(existing) => existing.binds.push(bind),
            None => {
                params.insert(
                    ph.name.value.clone(),
                    ir::Param {
                        name: ph.name.clone(),
                        r#type: attr.r#type.clone(),
                        binds: vec![bind],
                        encoding,
                    },
                );
            }
        }
    }

    /// A literal in a key condition stands for an encoded value: it must be
    /// one the key codec can produce, or no item will ever match.
    fn check_literal(
        &mut self,
        value: &str,
        attr: &ir::Attribute,
        entity: &str,
        span: Span,
        partial: bool,
    ) {
        let Some(help) = literal_problem(value, attr, partial) else {
            return;
        };
        let what = if partial { "begin" } else { "be" };
        self.error(
            Diagnostic::new(
                Code::InvalidLiteral,
                format!(
                    "`{value}` cannot {what} a key value of `{entity}.{}`, {}",
                    attr.name,
                    attr.r#type.article_name()
                ),
            )
            .label(span, "this key condition")
            .label(attr.name.span, "attribute declared here")
            .help(help),
        );
    }
}
/// Why an encoded key value (or a prefix of one, when `partial`) cannot be `value`.
fn literal_problem(value: &str, attr: &ir::Attribute, partial: bool) -> Option<String> {
    let (ty, domain) = (&attr.r#type, crate::encoding::attribute_domain(attr));
    let fits = |text: &str| {
        if partial {
            text.starts_with(value)
        } else {
            text == value
        }
    };
    match ty {
        AttributeType::Enum { values } => {
            (!values.iter().any(|v| fits(v))).then(|| format!("use one of: {}", values.join(", ")))
        }
        AttributeType::Boolean => (!["true", "false"].iter().any(|v| fits(v)))
            .then(|| "write `true` or `false`".to_owned()),
        AttributeType::Integer { min, max } => {
            let width = domain.max_len.unwrap_or(20);
            let digits = value.chars().all(|c| c.is_ascii_digit());
            let example = crate::encoding::encode_integer(*min, *max, (*min).max(0).min(*max));
            if !digits || value.len() > width || (!partial && value.len() != width) {
                return Some(format!(
                    "integers are written zero-padded to {width} digits in keys, e.g. `{example}`"
                ));
            }
            if partial {
                return None;
            }
            let decoded =
                value
                    .parse::<i128>()
                    .ok()
                    .map(|n| if *min < 0 { n + i128::from(*min) } else { n });
            match decoded {
                Some(n) if n >= i128::from(*min) && n <= i128::from(*max) => None,
                _ => Some(format!(
                    "the value is outside the attribute's bounds {min}..={max}"
                )),
            }
        }
        _ => {
            let bad = value.chars().find(|c| !domain.alphabet.contains(*c));
            let too_long = domain.max_len.is_some_and(|m| value.len() > m);
            let too_short = !partial && domain.fixed_width && Some(value.len()) != domain.max_len;
            match (bad, too_long || too_short) {
                (Some(c), _) => Some(match attr.key_encoding().case() {
                    Some(case) => format!(
                        "`{c}` never appears in this attribute's encoded values: keys hold them in {} case",
                        case.codec().name()
                    ),
                    None => format!("`{c}` never appears in this attribute's encoded values"),
                }),
                (None, true) => Some(format!(
                    "encoded values are {} bytes long",
                    domain.max_len.unwrap_or(0)
                )),
                (None, false) => None,
            }
        }
    }
}
