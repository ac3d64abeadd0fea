//! A query's `filter` → typed filter conditions.

use indexmap::IndexMap;

use crate::diagnostics::{did_you_mean, Code, Diagnostic};
use crate::ir::{self, AttributeType, FilterOp, IndexRef};
use crate::source::Spanned;
use crate::syntax;

use super::filter_operands::{given_name, op_name, operators, Given};
use super::Resolver;

/// DynamoDB's limit on the operands of `IN`.
const MAX_IN_OPERANDS: usize = 100;

/// DynamoDB's limit on the operators and functions of one expression.
const MAX_OPERATORS: usize = 300;

/// DynamoDB's limit on the length of one expression.
const MAX_EXPRESSION_BYTES: usize = 4096;

/// DynamoDB's data types, as `attribute_type` names them.
pub(super) const DYNAMODB_TYPES: [&str; 10] =
    ["S", "N", "B", "BOOL", "NULL", "L", "M", "SS", "NS", "BS"];

/// What a filter's terms are resolved with: the parameter names taken (a
/// key condition's) and given so far, the spec, and how an attribute name
/// is found (a query's returned entities, or a condition's entity).
pub(super) struct Terms<'a, 's, R> {
    pub(super) taken: Vec<&'a str>,
    pub(super) params: Vec<String>,
    pub(super) spec: &'s ir::Spec,
    pub(super) attribute: &'a mut dyn FnMut(&mut R, &Spanned<String>) -> Option<&'s ir::Attribute>,
}

impl Resolver<'_> {
    /// The terms of a query's or scan's `filter`, each condition on an
    /// attribute the entities it returns declare alike, stored outside
    /// every key the query reads, and carried by the index it reads.
    pub(super) fn resolve_filter(
        &mut self,
        filter: &Spanned<syntax::FilterMap>,
        index: &IndexRef,
        returns: &[String],
        key_params: &IndexMap<String, ir::Param>,
        spec: &ir::Spec,
    ) -> Vec<ir::Filter> {
        if filter.value.0.is_empty() {
            self.error(
                Diagnostic::new(Code::InvalidValue, "the filter names no attribute")
                    .label(filter.span, "empty filter")
                    .help("give at least one attribute and its condition, or leave `filter` out"),
            );
            return Vec::new();
        }
        let mut terms = Terms {
            taken: key_params.keys().map(String::as_str).collect(),
            params: Vec::new(),
            spec,
            attribute: &mut |this: &mut Self, name: &Spanned<String>| {
                this.filter_attribute(name, index, returns, spec)
            },
        };
        self.resolve_whole(filter, &mut terms).unwrap_or_default()
    }

    /// An entity's named write conditions (`conditions:`), each in the
    /// grammar of a filter, on the entity's stored attributes.
    pub(super) fn resolve_named_conditions(
        &mut self,
        decls: &syntax::de::NamedMap<syntax::FilterMap>,
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
            let mut terms = Terms {
                taken: Vec::new(),
                params: Vec::new(),
                spec,
                attribute: &mut |this: &mut Self, attribute: &Spanned<String>| {
                    this.condition_attribute(attribute, entity)
                },
            };
            if let Some(conditions) = self.resolve_whole(decl, &mut terms) {
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

    /// A whole filter or condition: its terms, normalized (see
    /// [`ir::Filter::normalize`]) and within DynamoDB's limits on one
    /// expression; `None` when any term is refused.
    fn resolve_whole<'s>(
        &mut self,
        map: &Spanned<syntax::FilterMap>,
        terms: &mut Terms<'_, 's, Self>,
    ) -> Option<Vec<ir::Filter>> {
        let resolved = ir::Filter::normalize(self.resolve_terms(&map.value, terms)?);
        self.check_expression_limits(&resolved, map.span);
        Some(resolved)
    }

    /// The terms of a filter map, in the order written; `None` when any
    /// of them is refused (every error reported).
    fn resolve_terms<'s>(
        &mut self,
        map: &syntax::FilterMap,
        terms: &mut Terms<'_, 's, Self>,
    ) -> Option<Vec<ir::Filter>> {
        let mut out = Vec::new();
        let mut refused = false;
        for (name, entry) in &map.0 {
            let term = match entry {
                syntax::FilterEntry::Attribute(decl) => {
                    let attribute = (terms.attribute)(self, name);
                    attribute
                        .and_then(|a| {
                            self.resolve_condition(name, a, &decl.value, decl.span, false, terms)
                        })
                        .map(ir::Filter::Condition)
                }
                syntax::FilterEntry::And(list) | syntax::FilterEntry::Or(list) => {
                    let or = matches!(entry, syntax::FilterEntry::Or(_));
                    self.resolve_alternatives(name, list, terms).map(|t| {
                        if or {
                            ir::Filter::Or(t)
                        } else {
                            ir::Filter::And(t)
                        }
                    })
                }
                syntax::FilterEntry::Not(inner) => self
                    .resolve_group(name, inner, terms)
                    .map(|t| ir::Filter::Not(Box::new(t))),
            };
            match term {
                Some(t) => out.push(t),
                None => refused = true,
            }
        }
        (!refused).then_some(out)
    }

    /// The filters of an `and` or `or` list, each one term.
    fn resolve_alternatives<'s>(
        &mut self,
        word: &Spanned<String>,
        list: &Spanned<Vec<Spanned<syntax::FilterMap>>>,
        terms: &mut Terms<'_, 's, Self>,
    ) -> Option<Vec<ir::Filter>> {
        if list.value.is_empty() {
            self.error(
                Diagnostic::new(Code::InvalidValue, format!("`{word}` lists no filter"))
                    .label(list.span, "empty list")
                    .help(format!("write `{word}: [{{ a: {{ equals: x }} }}, {{ b: {{ exists: true }} }}]`, one filter per element")),
            );
            return None;
        }
        let mut out = Vec::new();
        let mut refused = false;
        for group in &list.value {
            match self.resolve_group(word, group, terms) {
                Some(t) => out.push(t),
                None => refused = true,
            }
        }
        (!refused).then_some(out)
    }

    /// One filter under `and`, `or` or `not` as one term: the `AND` of
    /// its entries.
    fn resolve_group<'s>(
        &mut self,
        word: &Spanned<String>,
        group: &Spanned<syntax::FilterMap>,
        terms: &mut Terms<'_, 's, Self>,
    ) -> Option<ir::Filter> {
        if group.value.0.is_empty() {
            self.error(
                Diagnostic::new(
                    Code::InvalidValue,
                    format!("a filter under `{word}` names no attribute"),
                )
                .label(group.span, "empty filter")
                .help("give at least one attribute and its condition"),
            );
            return None;
        }
        // A group of one term becomes that term in `ir::Filter::normalize`.
        self.resolve_terms(&group.value, terms).map(ir::Filter::And)
    }

    /// One condition (written at `span`): exactly one operator on
    /// `attribute` (named `name`), or on its size, with its operands.
    fn resolve_condition<'s>(
        &mut self,
        name: &Spanned<String>,
        attribute: &ir::Attribute,
        decl: &syntax::FilterDecl,
        span: crate::source::Span,
        size: bool,
        terms: &mut Terms<'_, 's, Self>,
    ) -> Option<ir::FilterCondition> {
        let given = operators(decl);
        let [(op, operands)] = given.as_slice() else {
            let names: Vec<String> = given
                .iter()
                .map(|(op, _)| format!("`{}`", given_name(op)))
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
                    .label(span, "one condition per attribute")
                    .help(if size {
                        "give exactly one of equals, not_equals, lt, lte, gt, gte, between, in"
                    } else {
                        "give exactly one of equals, not_equals, lt, lte, gt, gte, between, in, begins_with, contains, exists, attribute_type, size; combine conditions on one attribute with `and`"
                    }),
            );
            return None;
        };
        let op = match op {
            Given::Op(op) => *op,
            Given::Size(inner, at) => {
                let inner = inner.map(|decl| (decl, *at));
                return self.resolve_size(name, span, attribute, inner, size, terms);
            }
        };
        let Some(operands) = operands else {
            let op_text = if op == FilterOp::Exists {
                "exists"
            } else {
                op_name(op)
            };
            self.error(
                Diagnostic::new(
                    Code::InvalidValue,
                    format!("`{op_text}` in the filter on `{name}` gives no operand"),
                )
                .label(span, "this condition")
                .help(match op_text {
                    "exists" => "write `exists: true` or `exists: false`".to_owned(),
                    "between" => "write `between: [low, high]`, literals or `<parameter>`s".to_owned(),
                    "in" => "write `in: [a, b]`, literals or `<parameter>`s".to_owned(),
                    "attribute_type" => format!("write `attribute_type: {}`", attribute.r#type.dynamo_type()),
                    _ => format!("write `{op_text}: value`, a literal or a `<parameter>` of the generated method"),
                }),
            );
            return None;
        };
        let operand_type = if size {
            self.size_operand_type(name, op)?
        } else {
            self.operand_type(name, op, &attribute.r#type)?
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
                        op_name(op),
                        if expected.start() == expected.end() {
                            expected.start().to_string()
                        } else {
                            format!("{} to {}", expected.start(), expected.end())
                        }
                    ),
                )
                .label(span, "this condition"),
            );
            return None;
        }
        let resolved: Vec<ir::FilterOperand> = if op == FilterOp::AttributeType {
            self.type_operand(name, &operands[0], attribute)
                .into_iter()
                .collect()
        } else {
            operands
                .iter()
                .filter_map(|o| self.filter_operand(o, &operand_type, terms))
                .collect()
        };
        (resolved.len() == operands.len()).then(|| ir::FilterCondition {
            attribute: attribute.name.value.clone(),
            stored: attribute.stored().to_owned(),
            size,
            op,
            operands: resolved,
            span: name.span,
        })
    }

    /// `size: { … }`: the condition inside compares the attribute's size,
    /// which DynamoDB gives strings, binaries and collections.
    fn resolve_size<'s>(
        &mut self,
        name: &Spanned<String>,
        span: crate::source::Span,
        attribute: &ir::Attribute,
        inner: Option<(&syntax::FilterDecl, crate::source::Span)>,
        nested: bool,
        terms: &mut Terms<'_, 's, Self>,
    ) -> Option<ir::FilterCondition> {
        use AttributeType as T;
        let sized = matches!(
            attribute.r#type,
            T::String { .. }
                | T::Enum { .. }
                | T::Binary { .. }
                | T::List { .. }
                | T::Map { .. }
                | T::Set { .. }
        ) || attribute.r#type.dynamo_type() == "S";
        let problem = if nested {
            Some("`size` compares a size, which has no size: write `size: { gte: 2 }`".to_owned())
        } else if !sized {
            Some(format!(
                "`size` does not apply to `{name}`, {}: DynamoDB gives a size to strings, binaries, lists, maps and sets",
                attribute.r#type.article_name()
            ))
        } else {
            None
        };
        if let Some(message) = problem {
            self.error(
                Diagnostic::new(Code::InvalidValue, message)
                    .label(span, "this condition")
                    .help("compare the value itself, or the size of a string, binary, list, map or set"),
            );
            return None;
        }
        let Some((inner, inner_span)) = inner else {
            self.error(
                Diagnostic::new(
                    Code::InvalidValue,
                    format!("`size` in the filter on `{name}` gives no comparison"),
                )
                .label(span, "this condition")
                .help("write `size: { gte: 2 }`: one of equals, not_equals, lt, lte, gt, gte, between, in"),
            );
            return None;
        };
        self.resolve_condition(name, attribute, inner, inner_span, true, terms)
    }

    /// The limits DynamoDB sets on one expression: at most 300 operators
    /// and functions, at most 4 KB of text.
    fn check_expression_limits(&mut self, terms: &[ir::Filter], span: crate::source::Span) {
        let expression = crate::plan::conditions_expression(terms).unwrap_or_default();
        let (operators, length) = (crate::plan::operator_count(&expression), expression.len());
        if operators > MAX_OPERATORS || length > MAX_EXPRESSION_BYTES {
            self.error(
                Diagnostic::new(
                    Code::InvalidValue,
                    format!("the filter has {operators} operators and functions and {length} bytes of expression; DynamoDB allows {MAX_OPERATORS} and {MAX_EXPRESSION_BYTES}"),
                )
                .label(span, "this filter")
                .help("narrow the key condition, or split the access pattern"),
            );
        }
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
}
