//! A filter's operands: the types its operators compare, parameters,
//! literals as DynamoDB stores them, and the operators as written.

use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{self, AttributeType, FilterLiteral, FilterOp, FilterOperand, SetOf};
use crate::source::Spanned;
use crate::syntax::{self, Scalar};

use super::filter::{Terms, DYNAMODB_TYPES};
use super::Resolver;

impl Resolver<'_> {
    /// The type of a size's operands: a non-negative integer, for the
    /// comparisons; `None` (and an error) for another operator.
    pub(super) fn size_operand_type(
        &mut self,
        name: &Spanned<String>,
        op: FilterOp,
    ) -> Option<AttributeType> {
        match op {
            FilterOp::Equals
            | FilterOp::NotEquals
            | FilterOp::Lt
            | FilterOp::Lte
            | FilterOp::Gt
            | FilterOp::Gte
            | FilterOp::Between
            | FilterOp::In => Some(AttributeType::Integer {
                min: 0,
                max: i64::MAX,
            }),
            _ => {
                self.error(
                    Diagnostic::new(
                        Code::InvalidValue,
                        format!(
                            "`{}` does not apply to the size of `{name}`, a number",
                            op_name(op)
                        ),
                    )
                    .label(name.span, "this condition")
                    .help(
                        "compare a size with equals, not_equals, lt, lte, gt, gte, between or in",
                    ),
                );
                None
            }
        }
    }

    /// `attribute_type`'s operand: one of DynamoDB's type names, the one
    /// the attribute is stored as (no other type could be read back).
    pub(super) fn type_operand(
        &mut self,
        name: &Spanned<String>,
        operand: &Spanned<Scalar>,
        attribute: &ir::Attribute,
    ) -> Option<FilterOperand> {
        let stored = attribute.r#type.dynamo_type();
        let written = match &operand.value {
            Scalar::Text(t) => t.as_str(),
            Scalar::Number(_) | Scalar::Bool(_) => "",
        };
        if written == stored {
            return Some(FilterOperand::Literal(FilterLiteral::S(stored.to_owned())));
        }
        let message = if DYNAMODB_TYPES.contains(&written) {
            format!(
                "`{name}` is stored as `{stored}`: `attribute_type: {written}` holds for no item the repository can read"
            )
        } else {
            format!(
                "`attribute_type` names a DynamoDB type; `{}` is none",
                operand_text(&operand.value)
            )
        };
        self.error(
            Diagnostic::new(Code::InvalidLiteral, message)
                .label(operand.span, "this operand")
                .help(format!(
                    "write `attribute_type: {stored}` (items whose `{name}` another writer stored with another type fail it), or `exists` to test presence; the types are {}",
                    DYNAMODB_TYPES.join(", ")
                )),
        );
        None
    }

    /// The type of `op`'s operands on an attribute of type `ty`: the
    /// attribute's, or the elements' for `contains` on a set; `None` (and
    /// an error) when the operator does not apply to the type.
    pub(super) fn operand_type(
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
            (FilterOp::AttributeType, _) => Some(text()),
            (FilterOp::BeginsWith | FilterOp::Contains, T::String { .. }) => Some(text()),
            (
                FilterOp::Contains,
                T::List {
                    items: Some(item), ..
                },
            ) if matches!(
                **item,
                T::String { .. }
                    | T::Enum { .. }
                    | T::Integer { .. }
                    | T::Decimal { .. }
                    | T::Boolean
            ) =>
            {
                Some((**item).clone())
            }
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
                .help("compare strings, numbers and datetimes; `begins_with` strings; `contains` strings, sets, and lists of declared scalar items; `size` strings, binaries and collections; `exists` and `attribute_type` any attribute"),
            );
        }
        found
    }

    /// An operand: `<name>`, a parameter (not a key condition's, not the
    /// tenant, once per filter), or a literal of `ty`.
    pub(super) fn filter_operand(
        &mut self,
        operand: &Spanned<Scalar>,
        ty: &AttributeType,
        terms: &mut Terms<'_, '_, Self>,
    ) -> Option<FilterOperand> {
        let (taken, params, spec) = (&terms.taken, &mut terms.params, terms.spec);
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
                            operand_text(&operand.value),
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

/// An operator a condition gives: one of the filter grammar's, or
/// `size` with the condition on the size.
pub(super) enum Given<'d> {
    Op(FilterOp),
    /// The condition on the size (`None` when `size:` gives none), and
    /// where it is written.
    Size(Option<&'d syntax::FilterDecl>, crate::source::Span),
}

/// The operators a condition gives, with their operands (`None` for an
/// operator written with no value, as in `equals:`).
pub(super) fn operators(
    decl: &syntax::FilterDecl,
) -> Vec<(Given<'_>, Option<Vec<Spanned<Scalar>>>)> {
    let one = |v: &syntax::Operand<Scalar>| {
        v.as_ref()
            .map(|v| v.value.clone().map(|o| vec![Spanned::new(o, v.span)]))
    };
    let many = |v: &syntax::Operand<Vec<Spanned<Scalar>>>| v.as_ref().map(|v| v.value.clone());
    let exists = decl.exists.as_ref().map(|e| match e.value {
        Some(true) => (Given::Op(FilterOp::Exists), Some(Vec::new())),
        Some(false) => (Given::Op(FilterOp::NotExists), Some(Vec::new())),
        None => (Given::Op(FilterOp::Exists), None),
    });
    let attribute_type = decl.attribute_type.as_ref().map(|t| {
        let operand = t
            .value
            .clone()
            .map(|text| vec![Spanned::new(Scalar::Text(text), t.span)]);
        (Given::Op(FilterOp::AttributeType), operand)
    });
    let size = decl
        .size
        .as_ref()
        .map(|s| (Given::Size(s.value.as_deref(), s.span), Some(Vec::new())));
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
    .filter_map(|(op, operands)| operands.map(|o| (Given::Op(op), o)))
    .chain(exists)
    .chain(attribute_type)
    .chain(size)
    .collect()
}

/// How the spec writes a given operator.
pub(super) fn given_name(given: &Given<'_>) -> &'static str {
    match given {
        Given::Op(op) => op_name(*op),
        Given::Size(..) => "size",
    }
}

/// A scalar operand as written.
fn operand_text(value: &Scalar) -> String {
    match value {
        Scalar::Text(t) | Scalar::Number(t) => t.clone(),
        Scalar::Bool(b) => b.to_string(),
    }
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
        FilterOp::AttributeType => "attribute_type",
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
            let against = |bound: &Option<String>| {
                bound
                    .as_deref()
                    .and_then(|b| singletable_codec::compare_decimal(n, b))
            };
            let below = against(min) == Some(std::cmp::Ordering::Less);
            let above = against(max) == Some(std::cmp::Ordering::Greater);
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
