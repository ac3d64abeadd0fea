//! A query's `filter` → typed filter conditions.

use indexmap::IndexMap;

use crate::diagnostics::{did_you_mean, Code, Diagnostic};
use crate::ir::{self, AttributeType, FilterLiteral, FilterOp, FilterOperand, IndexRef, SetOf};
use crate::source::Spanned;
use crate::syntax::{self, Scalar};

use super::Resolver;

/// DynamoDB's limit on the operands of `IN`.
const MAX_IN_OPERANDS: usize = 100;

impl Resolver<'_> {
    /// The conditions of a query's `filter`, each on an attribute the
    /// entities it returns declare alike, stored outside every key the
    /// query reads, and carried by the index it reads.
    pub(super) fn resolve_filter(
        &mut self,
        filter: &Spanned<syntax::de::NamedMap<syntax::FilterDecl>>,
        index: &IndexRef,
        returns: &[String],
        key_params: &IndexMap<String, ir::Param>,
        spec: &ir::Spec,
    ) -> Vec<ir::FilterCondition> {
        if filter.value.0.is_empty() {
            self.error(
                Diagnostic::new(Code::InvalidValue, "the filter names no attribute")
                    .label(filter.span, "empty filter")
                    .help("give at least one attribute and its condition, or leave `filter` out"),
            );
            return Vec::new();
        }
        let taken: Vec<&str> = key_params.keys().map(String::as_str).collect();
        self.resolve_conditions(&filter.value, &taken, spec, |this, name| {
            this.filter_attribute(name, index, returns, spec)
        })
    }

    /// An entity's named write conditions (`conditions:`), each in the
    /// grammar of a filter, on the entity's stored attributes.
    pub(super) fn resolve_named_conditions(
        &mut self,
        decls: &syntax::de::NamedMap<syntax::de::NamedMap<syntax::FilterDecl>>,
        entity: &ir::Entity,
        spec: &ir::Spec,
    ) -> IndexMap<String, ir::NamedCondition> {
        let mut out = IndexMap::new();
        for (name, decl) in decls.iter() {
            let snake = name.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                && name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
            if !snake {
                self.error(
                    Diagnostic::new(
                        Code::InvalidName,
                        format!("`{name}` is not a valid condition name"),
                    )
                    .label(name.span, "condition name")
                    .help("a condition becomes a function (`Ticket::open()`): use snake_case"),
                );
                continue;
            }
            if decl.value.0.is_empty() {
                self.error(
                    Diagnostic::new(
                        Code::InvalidValue,
                        format!("condition `{name}` names no attribute"),
                    )
                    .label(name.span, "empty condition")
                    .help("give at least one attribute and its condition, as in a filter"),
                );
                continue;
            }
            let conditions = self.resolve_conditions(&decl.value, &[], spec, |this, attribute| {
                this.condition_attribute(attribute, entity)
            });
            if conditions.len() == decl.value.0.len() {
                out.insert(
                    name.value.clone(),
                    ir::NamedCondition {
                        name: name.clone(),
                        conditions,
                    },
                );
            }
        }
        out
    }

    /// The attribute a named condition names: the entity's, stored.
    fn condition_attribute<'e>(
        &mut self,
        name: &Spanned<String>,
        entity: &'e ir::Entity,
    ) -> Option<&'e ir::Attribute> {
        let Some(attribute) = entity.attributes.get(&name.value) else {
            self.report_unknown_attribute(
                name,
                format!(
                    "the condition names `{name}`, which `{}` does not have",
                    entity.name
                ),
                entity.attributes.keys().map(String::as_str),
                &format!("name an attribute of `{}`", entity.name),
            );
            return None;
        };
        if attribute.key_only {
            self.key_only_refused(name, "the condition", "the item's key already fixes it");
            return None;
        }
        Some(attribute)
    }

    /// Conditions in the filter grammar: per attribute (found by
    /// `attribute`), one operator and its operands; parameters must not be
    /// one of `taken`.
    fn resolve_conditions<'s>(
        &mut self,
        decls: &syntax::de::NamedMap<syntax::FilterDecl>,
        taken: &[&str],
        spec: &ir::Spec,
        mut attribute: impl FnMut(&mut Self, &Spanned<String>) -> Option<&'s ir::Attribute>,
    ) -> Vec<ir::FilterCondition> {
        let mut out = Vec::new();
        let mut params: Vec<String> = Vec::new();
        for (name, decl) in decls.iter() {
            let Some(attribute) = attribute(self, name) else {
                continue;
            };
            let given = operators(&decl.value);
            let [(op, operands)] = given.as_slice() else {
                let names: Vec<String> = given
                    .iter()
                    .map(|(op, _)| format!("`{}`", op_name(*op)))
                    .collect();
                let message = if names.is_empty() {
                    format!("the filter on `{name}` gives no operator")
                } else {
                    format!(
                        "the filter on `{name}` gives {} operators: {}",
                        names.len(),
                        names.join(", ")
                    )
                };
                self.error(
                    Diagnostic::new(Code::AmbiguousOperation, message)
                        .label(decl.span, "one condition per attribute")
                        .help("give exactly one of equals, not_equals, lt, lte, gt, gte, between, in, begins_with, contains, exists"),
                );
                continue;
            };
            let Some(operands) = operands else {
                let op = if *op == FilterOp::Exists {
                    "exists"
                } else {
                    op_name(*op)
                };
                self.error(
                    Diagnostic::new(
                        Code::InvalidValue,
                        format!("`{op}` in the filter on `{name}` gives no operand"),
                    )
                    .label(decl.span, "this condition")
                    .help(match op {
                        "exists" => "write `exists: true` or `exists: false`".to_owned(),
                        "between" => "write `between: [low, high]`, literals or `<parameter>`s".to_owned(),
                        "in" => "write `in: [a, b]`, literals or `<parameter>`s".to_owned(),
                        _ => format!("write `{op}: value`, a literal or a `<parameter>` of the generated method"),
                    }),
                );
                continue;
            };
            let Some(operand_type) = self.operand_type(name, *op, &attribute.r#type) else {
                continue;
            };
            let expected = match op {
                FilterOp::Exists | FilterOp::NotExists => 0..=0,
                FilterOp::Between => 2..=2,
                FilterOp::In => 1..=MAX_IN_OPERANDS,
                _ => 1..=1,
            };
            if !expected.contains(&operands.len()) {
                self.error(
                    Diagnostic::new(
                        Code::InvalidValue,
                        format!(
                            "the filter on `{name}` gives {} operand(s); `{}` takes {}",
                            operands.len(),
                            op_name(*op),
                            if expected.start() == expected.end() {
                                expected.start().to_string()
                            } else {
                                format!("{} to {}", expected.start(), expected.end())
                            }
                        ),
                    )
                    .label(decl.span, "this condition"),
                );
                continue;
            }
            let mut resolved = Vec::new();
            for operand in operands {
                if let Some(o) =
                    self.filter_operand(operand, &operand_type, taken, &mut params, spec)
                {
                    resolved.push(o);
                }
            }
            if resolved.len() != operands.len() {
                continue;
            }
            out.push(ir::FilterCondition {
                attribute: attribute.name.value.clone(),
                stored: attribute.stored().to_owned(),
                op: *op,
                operands: resolved,
                span: name.span,
            });
        }
        out
    }

    /// `unknown_attribute` for `name`, which none of `known` is: with the
    /// closest of them, else `fallback`, as help.
    pub(super) fn report_unknown_attribute<'k>(
        &mut self,
        name: &Spanned<String>,
        message: String,
        known: impl Iterator<Item = &'k str>,
        fallback: &str,
    ) {
        let help = match did_you_mean(name, known) {
            Some(close) => format!("did you mean `{close}`?"),
            None => fallback.to_owned(),
        };
        self.error(
            Diagnostic::new(Code::UnknownAttribute, message)
                .label(name.span, "unknown attribute")
                .help(help),
        );
    }

    /// `invalid_value`: `what` names `name`, a `key_only` value, which no
    /// attribute of the item holds.
    fn key_only_refused(&mut self, name: &Spanned<String>, what: &str, help: &str) {
        self.error(
            Diagnostic::new(
                Code::InvalidValue,
                format!("{what} names `{name}`, which lives only inside a key (`key_only`)"),
            )
            .label(name.span, "not a stored attribute")
            .help(help),
        );
    }

    /// The attribute a filter names: declared alike by every entity of
    /// `returns` that has it, not a key of the table or the index queried
    /// (DynamoDB refuses a filter on a key attribute), stored (not only in
    /// a key), and carried by the index.
    fn filter_attribute<'s>(
        &mut self,
        name: &Spanned<String>,
        index: &IndexRef,
        returns: &[String],
        spec: &'s ir::Spec,
    ) -> Option<&'s ir::Attribute> {
        let entities: Vec<&ir::Entity> = returns
            .iter()
            .filter_map(|e| spec.entities.get(e))
            .collect();
        let holders: Vec<(&ir::Entity, &ir::Attribute)> = entities
            .iter()
            .filter_map(|e| e.attributes.get(&name.value).map(|a| (*e, a)))
            .collect();
        let Some(&(first_entity, attribute)) = holders.first() else {
            let known = entities
                .iter()
                .flat_map(|e| e.attributes.keys().map(String::as_str));
            self.report_unknown_attribute(
                name,
                format!("the filter names `{name}`, which no entity the query returns has"),
                known,
                "filter on attributes of the entities the query returns",
            );
            return None;
        };
        if let Some((other, _)) = holders.iter().find(|(_, b)| {
            b.r#type.name() != attribute.r#type.name() || b.stored() != attribute.stored()
        }) {
            self.error(
                Diagnostic::new(
                    Code::InvalidValue,
                    format!(
                        "the filter on `{name}` is ambiguous: `{}` and `{}` declare it differently",
                        first_entity.name, other.name
                    ),
                )
                .label(name.span, "this condition")
                .help("filter on an attribute the entities declare with one type and stored name"),
            );
            return None;
        }
        let index = match index {
            IndexRef::Index(i) => spec.indexes.get(i),
            IndexRef::Table => None,
        };
        let keys = [
            Some(&spec.table.partition_key),
            spec.table.sort_key.as_ref(),
            index.map(|i| &i.partition_key),
            index.and_then(|i| i.sort_key.as_ref()),
        ];
        if let Some(key) = keys
            .into_iter()
            .flatten()
            .find(|k| k.name.value == attribute.stored())
        {
            self.error(
                Diagnostic::new(
                    Code::InvalidValue,
                    format!("the filter names `{name}`, the key attribute `{}` of what the query reads", key.name),
                )
                .label(name.span, "a key attribute")
                .help("DynamoDB filters only attributes outside the keys: narrow the key condition instead"),
            );
            return None;
        }
        if attribute.key_only {
            self.key_only_refused(name, "the filter", "narrow the key condition instead");
            return None;
        }
        let ttl = spec
            .table
            .ttl
            .as_ref()
            .is_some_and(|t| t.value == attribute.stored());
        if let Some(index) = index {
            let projected = match &index.projection {
                ir::Projection::All => true,
                ir::Projection::KeysOnly => false,
                ir::Projection::Include(names) => names
                    .iter()
                    .any(|n| *n == attribute.name.value || n == attribute.stored()),
            };
            if !projected && !ttl {
                self.error(
                    Diagnostic::new(
                        Code::IndexProjection,
                        format!("index `{}` does not project `{name}`, which the filter reads", index.name),
                    )
                    .label(name.span, "not projected")
                    .label(index.name.span, "this index's projection")
                    .help(format!("add `{name}` to the index's projection, or filter on a projected attribute")),
                );
                return None;
            }
        }
        Some(attribute)
    }

    /// The type of `op`'s operands on an attribute of type `ty`: the
    /// attribute's, or the elements' for `contains` on a set; `None` (and
    /// an error) when the operator does not apply to the type.
    fn operand_type(
        &mut self,
        name: &Spanned<String>,
        op: FilterOp,
        ty: &AttributeType,
    ) -> Option<AttributeType> {
        use AttributeType as T;
        let text = || T::String {
            min_length: None,
            max_length: None,
            pattern: None,
            alphabet: crate::ir::CharSet::any(),
        };
        let found = match (op, ty) {
            (FilterOp::Exists | FilterOp::NotExists, _) => Some(ty.clone()),
            (
                FilterOp::Equals | FilterOp::NotEquals | FilterOp::In,
                T::String { .. }
                | T::Enum { .. }
                | T::Integer { .. }
                | T::Decimal { .. }
                | T::Boolean
                | T::Datetime { .. },
            ) => Some(ty.clone()),
            (
                FilterOp::Lt | FilterOp::Lte | FilterOp::Gt | FilterOp::Gte | FilterOp::Between,
                T::String { .. } | T::Integer { .. } | T::Decimal { .. } | T::Datetime { .. },
            ) => Some(ty.clone()),
            (FilterOp::BeginsWith | FilterOp::Contains, T::String { .. }) => Some(text()),
            (FilterOp::Contains, T::Set { of: SetOf::String }) => Some(text()),
            (FilterOp::Contains, T::Set { of: SetOf::Integer }) => Some(T::Integer {
                min: i64::MIN,
                max: i64::MAX,
            }),
            (FilterOp::Contains, T::Set { of: SetOf::Decimal }) => Some(T::Decimal {
                min: None,
                max: None,
                scale: None,
            }),
            _ => None,
        };
        if found.is_none() {
            self.error(
                Diagnostic::new(
                    Code::InvalidValue,
                    format!(
                        "`{}` does not apply to `{name}`, {}",
                        op_name(op),
                        ty.article_name()
                    ),
                )
                .label(name.span, "this condition")
                .help("compare strings, numbers and datetimes; `begins_with` strings; `contains` strings and sets of strings or numbers; `exists` any attribute"),
            );
        }
        found
    }

    /// An operand: `<name>`, a parameter (not a key condition's, not the
    /// tenant, once per filter), or a literal of `ty`.
    fn filter_operand(
        &mut self,
        operand: &Spanned<Scalar>,
        ty: &AttributeType,
        taken: &[&str],
        params: &mut Vec<String>,
        spec: &ir::Spec,
    ) -> Option<FilterOperand> {
        if let Scalar::Text(text) = &operand.value {
            if let Some(name) = text.strip_prefix('<').and_then(|t| t.strip_suffix('>')) {
                let snake = name
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
                    && name
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
                let tenant = spec
                    .tenant
                    .as_ref()
                    .is_some_and(|t| t.placeholder.value == name);
                let problem = if !snake {
                    Some("a parameter becomes a method argument: use snake_case".to_owned())
                } else if tenant {
                    Some("the tenant comes from the tenant's handle, never from a filter or condition: they do not isolate tenants".to_owned())
                } else if taken.contains(&name) || params.iter().any(|p| p == name) {
                    Some(format!(
                        "`{name}` is already a parameter here: give each operand its own name"
                    ))
                } else if name.starts_with("__") {
                    Some("names starting with `__` are reserved".to_owned())
                } else {
                    None
                };
                if let Some(help) = problem {
                    self.error(
                        Diagnostic::new(
                            Code::InvalidName,
                            format!("`<{name}>` cannot be a parameter here"),
                        )
                        .label(operand.span, "this operand")
                        .help(help),
                    );
                    return None;
                }
                params.push(name.to_owned());
                return Some(FilterOperand::Param {
                    name: name.to_owned(),
                    r#type: ty.clone(),
                });
            }
        }
        match literal(&operand.value, ty) {
            Ok(l) => Some(FilterOperand::Literal(l)),
            Err(help) => {
                self.error(
                    Diagnostic::new(
                        Code::InvalidLiteral,
                        format!(
                            "the filter operand `{}` is not {}",
                            match &operand.value {
                                Scalar::Text(t) | Scalar::Number(t) => t.clone(),
                                Scalar::Bool(b) => b.to_string(),
                            },
                            ty.article_name()
                        ),
                    )
                    .label(operand.span, "this operand")
                    .help(help),
                );
                None
            }
        }
    }
}

/// The operators a condition gives, with their operands (`None` for an
/// operator written with no value, as in `equals:`).
fn operators(decl: &syntax::FilterDecl) -> Vec<(FilterOp, Option<Vec<Spanned<Scalar>>>)> {
    let one = |v: &syntax::Operand<Scalar>| {
        v.as_ref()
            .map(|v| v.value.clone().map(|o| vec![Spanned::new(o, v.span)]))
    };
    let many = |v: &syntax::Operand<Vec<Spanned<Scalar>>>| v.as_ref().map(|v| v.value.clone());
    let exists = decl.exists.as_ref().map(|e| match e.value {
        Some(true) => (FilterOp::Exists, Some(Vec::new())),
        Some(false) => (FilterOp::NotExists, Some(Vec::new())),
        None => (FilterOp::Exists, None),
    });
    [
        (FilterOp::Equals, one(&decl.equals)),
        (FilterOp::NotEquals, one(&decl.not_equals)),
        (FilterOp::Lt, one(&decl.lt)),
        (FilterOp::Lte, one(&decl.lte)),
        (FilterOp::Gt, one(&decl.gt)),
        (FilterOp::Gte, one(&decl.gte)),
        (FilterOp::Between, many(&decl.between)),
        (FilterOp::In, many(&decl.is_in)),
        (FilterOp::BeginsWith, one(&decl.begins_with)),
        (FilterOp::Contains, one(&decl.contains)),
    ]
    .into_iter()
    .filter_map(|(op, operands)| operands.map(|o| (op, o)))
    .chain(exists)
    .collect()
}

/// The spec's name of an operator.
pub(crate) fn op_name(op: FilterOp) -> &'static str {
    match op {
        FilterOp::Equals => "equals",
        FilterOp::NotEquals => "not_equals",
        FilterOp::Lt => "lt",
        FilterOp::Lte => "lte",
        FilterOp::Gt => "gt",
        FilterOp::Gte => "gte",
        FilterOp::Between => "between",
        FilterOp::In => "in",
        FilterOp::BeginsWith => "begins_with",
        FilterOp::Contains => "contains",
        FilterOp::Exists | FilterOp::NotExists => "exists",
    }
}

/// A default value as DynamoDB stores a value of `ty`, keeping its rules:
/// a scalar's type, a string's lengths and pattern, an integer's bounds, a
/// decimal's bounds and scale; why not, when it does not.
pub(super) fn default_literal(value: &Scalar, ty: &AttributeType) -> Result<FilterLiteral, String> {
    use AttributeType as T;
    let literal = match (ty, value) {
        // A decimal quoted keeps its digits (`"0.00"`; YAML reads 0.00 as 0).
        (T::Decimal { .. }, Scalar::Text(t)) if t.parse::<f64>().is_ok_and(f64::is_finite) => {
            FilterLiteral::N(t.clone())
        }
        (
            T::String { .. } | T::Enum { .. } | T::Integer { .. } | T::Decimal { .. } | T::Boolean,
            _,
        ) => literal(value, ty)?,
        _ => {
            return Err(format!(
                "a default is a string, an enum value, a number or a boolean; {} has none",
                ty.article_name()
            ))
        }
    };
    match (ty, &literal) {
        (
            T::String {
                min_length,
                max_length,
                pattern,
                ..
            },
            FilterLiteral::S(text),
        ) => {
            let len = text.len() as u64;
            if min_length.is_some_and(|m| len < m) || max_length.is_some_and(|m| len > m) {
                return Err(format!(
                    "`{text}` is {len} bytes long, outside the attribute's lengths"
                ));
            }
            if let Some(pattern) = pattern {
                let matches = regex::Regex::new(pattern).is_ok_and(|re| re.is_match(text));
                if !matches {
                    return Err(format!("`{text}` does not match `{pattern}`"));
                }
            }
        }
        (T::Integer { min, max }, FilterLiteral::N(n)) => {
            let v: i64 = n.parse().map_err(|_| format!("`{n}` is not an integer"))?;
            if v < *min || v > *max {
                return Err(format!("{v} is outside {min}..={max}"));
            }
        }
        (T::Decimal { min, max, scale }, FilterLiteral::N(n)) => {
            let digits = n.split_once('.').map_or(0, |(_, f)| f.len()) as u32;
            if scale.is_some_and(|s| digits > s) {
                return Err(format!(
                    "`{n}` has {digits} digits after the point; the scale is {}",
                    scale.unwrap_or(0)
                ));
            }
            let value: f64 = n.parse().map_err(|_| format!("`{n}` is not a number"))?;
            let below = min
                .as_deref()
                .and_then(|m| m.parse::<f64>().ok())
                .is_some_and(|m| value < m);
            let above = max
                .as_deref()
                .and_then(|m| m.parse::<f64>().ok())
                .is_some_and(|m| value > m);
            if below || above {
                return Err(format!("`{n}` is outside the attribute's bounds"));
            }
        }
        _ => {}
    }
    Ok(literal)
}

/// A literal operand as DynamoDB stores a value of `ty`; the help text
/// when it is not one.
fn literal(value: &Scalar, ty: &AttributeType) -> Result<FilterLiteral, String> {
    use AttributeType as T;
    match (ty, value) {
        (T::String { .. }, Scalar::Text(t)) => Ok(FilterLiteral::S(t.clone())),
        (T::String { .. }, _) => Err("write a string literal in quotes".to_owned()),
        (T::Enum { values }, Scalar::Text(t)) if values.contains(t) => Ok(FilterLiteral::S(t.clone())),
        (T::Enum { values }, _) => Err(format!("write one of {}", values.join(", "))),
        (T::Integer { .. }, Scalar::Number(n)) if n.parse::<i64>().is_ok() => {
            Ok(FilterLiteral::N(n.clone()))
        }
        (T::Integer { .. }, _) => Err("write an integer".to_owned()),
        (T::Decimal { .. }, Scalar::Number(n)) if n.parse::<f64>().is_ok_and(f64::is_finite) => {
            Ok(FilterLiteral::N(n.clone()))
        }
        (T::Decimal { .. }, _) => Err("write a number".to_owned()),
        (T::Boolean, Scalar::Bool(b)) => Ok(FilterLiteral::Bool(*b)),
        (T::Boolean, _) => Err("write true or false".to_owned()),
        _ => Err("compare this type with a parameter (`<name>`), which the repository encodes as the attribute is stored".to_owned()),
    }
}
