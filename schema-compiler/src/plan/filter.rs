//! A filter's or write condition's terms as DynamoDB reads them (a
//! FilterExpression with `#f{i}` names and `:f{i}_{j}` values) and as
//! people read them.

use crate::ir::{self, Filter, FilterOp as F};

use super::Plan;

/// How a rendering writes a condition's attribute and operands:
/// condition `i` (in [`Filter::conditions`]'s order), operand `j`.
trait Words {
    fn attribute(&self, i: usize, condition: &ir::FilterCondition) -> String;
    fn operand(&self, i: usize, j: usize, operand: &ir::FilterOperand) -> String;
}

/// DynamoDB's placeholders.
struct Placeholders;

impl Words for Placeholders {
    fn attribute(&self, i: usize, _: &ir::FilterCondition) -> String {
        format!("#f{i}")
    }
    fn operand(&self, i: usize, j: usize, _: &ir::FilterOperand) -> String {
        format!(":f{i}_{j}")
    }
}

/// The spec's names, literals and `<parameters>`.
struct AsWritten;

impl Words for AsWritten {
    fn attribute(&self, _: usize, condition: &ir::FilterCondition) -> String {
        condition.attribute.clone()
    }
    fn operand(&self, _: usize, _: usize, operand: &ir::FilterOperand) -> String {
        operand_text(operand, true)
    }
}

/// An operand as text: a literal string quoted when `quote`.
fn operand_text(operand: &ir::FilterOperand, quote: bool) -> String {
    match operand {
        ir::FilterOperand::Literal(ir::FilterLiteral::S(t)) if quote => format!("{t:?}"),
        ir::FilterOperand::Literal(ir::FilterLiteral::S(t) | ir::FilterLiteral::N(t)) => t.clone(),
        ir::FilterOperand::Literal(ir::FilterLiteral::Bool(b)) => b.to_string(),
        ir::FilterOperand::Param { name, .. } => format!("<{name}>"),
    }
}

/// `terms` joined by `AND`; `None` when there are none.
fn render(terms: &[Filter], words: &dyn Words) -> Option<String> {
    if terms.is_empty() {
        return None;
    }
    let mut next = 0;
    let parts: Vec<String> = terms
        .iter()
        .map(|t| term(t, true, words, &mut next))
        .collect();
    Some(parts.join(" AND "))
}

/// One term; `top` when it is one of the filter's own terms, whose
/// `BETWEEN` the runtime may skip as a whole (see [`between_text`]).
fn term(t: &Filter, top: bool, words: &dyn Words, next: &mut usize) -> String {
    match t {
        Filter::Condition(c) => {
            let i = *next;
            *next += 1;
            condition(i, c, top, words)
        }
        Filter::And(terms) | Filter::Or(terms) => {
            let joint = if matches!(t, Filter::Or(_)) {
                " OR "
            } else {
                " AND "
            };
            let parts: Vec<String> = terms.iter().map(|t| term(t, false, words, next)).collect();
            format!("({})", parts.join(joint))
        }
        Filter::Not(inner) => {
            // Parentheses around parentheses are an error to DynamoDB
            // ("redundant parentheses"): a group, or a `BETWEEN` written
            // as two comparisons, is in parentheses already; no other
            // condition begins with one.
            let text = term(inner, false, words, next);
            if text.starts_with('(') {
                format!("NOT {text}")
            } else {
                format!("NOT ({text})")
            }
        }
    }
}

/// Condition `i`.
fn condition(i: usize, c: &ir::FilterCondition, top: bool, words: &dyn Words) -> String {
    let name = words.attribute(i, c);
    let a = if c.size {
        format!("size({name})")
    } else {
        name.clone()
    };
    let v: Vec<String> = c
        .operands
        .iter()
        .enumerate()
        .map(|(j, o)| words.operand(i, j, o))
        .collect();
    let first = v.first().map_or("", String::as_str);
    match c.op {
        F::Equals => format!("{a} = {first}"),
        F::NotEquals => format!("{a} <> {first}"),
        F::Lt => format!("{a} < {first}"),
        F::Lte => format!("{a} <= {first}"),
        F::Gt => format!("{a} > {first}"),
        F::Gte => format!("{a} >= {first}"),
        F::Between => between_text(&a, first, v.get(1).map_or("", String::as_str), top),
        F::In => format!("{a} IN ({})", v.join(", ")),
        F::BeginsWith => format!("begins_with({a}, {first})"),
        F::Contains => format!("contains({a}, {first})"),
        F::Exists => format!("attribute_exists({a})"),
        F::NotExists => format!("attribute_not_exists({a})"),
        F::AttributeType => format!("attribute_type({name}, {first})"),
    }
}

/// A `BETWEEN`: DynamoDB refuses one whose bounds are reversed instead of
/// finding it false. One of the filter's own terms stays a `BETWEEN` (the
/// runtime reads nothing when its bounds are reversed: the whole filter
/// is false); one inside `AND`, `OR` or `NOT` is written as the two
/// comparisons it means, which are simply false then.
fn between_text(a: &str, low: &str, high: &str, top: bool) -> String {
    if top {
        format!("{a} BETWEEN {low} AND {high}")
    } else {
        format!("({a} >= {low} AND {a} <= {high})")
    }
}

/// The filter's own `BETWEEN` conditions, by their index in
/// [`Filter::conditions`]'s order: those the runtime checks for reversed
/// bounds.
pub fn top_level_ranges(terms: &[Filter]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut at = 0;
    for t in terms {
        if let Filter::Condition(c) = t {
            if c.op == F::Between {
                out.push(at);
            }
        }
        at += Filter::conditions(std::slice::from_ref(t)).len();
    }
    out
}

/// A query's FilterExpression: its terms joined by `AND`, the attribute
/// of condition `i` named `#f{i}`, its operands `:f{i}_{j}`.
pub fn filter_expression(q: &ir::Query) -> Option<String> {
    conditions_expression(&q.filter)
}

/// Terms in the filter grammar as one expression (see
/// [`filter_expression`]); `None` when there are none.
pub fn conditions_expression(terms: &[Filter]) -> Option<String> {
    render(terms, &Placeholders)
}

/// A query's filter as people read it: `status = live AND price <= <max_price>`.
pub fn filter_text(q: &ir::Query) -> Option<String> {
    conditions_text(&q.filter)
}

/// Terms in the filter grammar as people read them (see [`filter_text`]).
pub fn conditions_text(terms: &[Filter]) -> Option<String> {
    render(terms, &AsWritten)
}

/// The operators and functions of an expression of
/// [`conditions_expression`], as DynamoDB counts them against its limit of
/// 300 (a `BETWEEN`'s `AND` counted too).
pub fn operator_count(expression: &str) -> usize {
    // The expression holds only placeholders, words and operators.
    let tokens = expression
        .split(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == ',')
        .filter(|t| !t.is_empty());
    let functions = [
        "attribute_exists",
        "attribute_not_exists",
        "attribute_type",
        "begins_with",
        "contains",
        "size",
    ];
    let words = [
        "AND", "OR", "NOT", "BETWEEN", "IN", "=", "<>", "<", "<=", ">", ">=",
    ];
    tokens
        .filter(|t| functions.contains(t) || words.contains(t))
        .count()
}

/// The names and values of a filter's conditions (`#f{i}`, `:f{i}_{j}`).
pub(super) fn filter_names(terms: &[Filter], plan: &mut Plan) {
    for (i, condition) in Filter::conditions(terms).into_iter().enumerate() {
        plan.names
            .insert(format!("#f{i}"), condition.stored.clone());
        for (j, operand) in condition.operands.iter().enumerate() {
            plan.values
                .insert(format!(":f{i}_{j}"), operand_text(operand, false));
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::ir::{FilterCondition, FilterOperand};
    use crate::source::Span;

    fn condition(op: F, size: bool) -> Filter {
        let operands = match op {
            F::Exists | F::NotExists => 0,
            F::Between => 2,
            _ => 1,
        };
        Filter::Condition(FilterCondition {
            attribute: "a".into(),
            stored: "a".into(),
            size,
            op,
            operands: (0..operands)
                .map(|_| FilterOperand::Literal(ir::FilterLiteral::N("1".into())))
                .collect(),
            span: Span::default(),
        })
    }

    fn filter() -> impl Strategy<Value = Filter> {
        let leaf = (
            prop_oneof![
                Just(F::Equals),
                Just(F::Between),
                Just(F::Exists),
                Just(F::Contains)
            ],
            any::<bool>(),
        )
            .prop_map(|(op, size)| condition(op, size && op != F::Exists));
        leaf.prop_recursive(4, 24, 3, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 1..4).prop_map(Filter::And),
                prop::collection::vec(inner.clone(), 1..4).prop_map(Filter::Or),
                inner.prop_map(|t| Filter::Not(Box::new(t))),
            ]
        })
    }

    /// Whether some pair of grouping parentheses holds nothing but
    /// another pair: DynamoDB refuses it as redundant.
    fn redundant(expression: &str) -> bool {
        let bytes = expression.as_bytes();
        let close = |open: usize| {
            let mut depth = 0;
            for (i, b) in bytes.iter().enumerate().skip(open) {
                match b {
                    b'(' => depth += 1,
                    b')' => {
                        depth -= 1;
                        if depth == 0 {
                            return i;
                        }
                    }
                    _ => {}
                }
            }
            bytes.len()
        };
        (0..bytes.len()).any(|i| {
            bytes[i] == b'(' && bytes.get(i + 1) == Some(&b'(') && close(i + 1) + 1 == close(i)
        })
    }

    #[test]
    fn the_check_sees_redundant_parentheses() {
        assert!(redundant("((#f0 = :f0_0 AND #f1 = :f1_0))"));
        assert!(redundant("NOT ((#f0 >= :a AND #f0 <= :b))"));
        assert!(!redundant("(#f0 = :a OR (#f1 = :b AND #f2 = :c))"));
        assert!(!redundant("size(#f0) >= :a AND (attribute_exists(#f1))"));
    }

    proptest! {
        /// Every normalized filter is written without redundant
        /// parentheses, names its conditions in `Filter::conditions`'s
        /// order, and keeps a `BETWEEN` only among the filter's own terms.
        #[test]
        fn expressions_have_no_redundant_parentheses(terms in prop::collection::vec(filter(), 1..4)) {
            let terms = Filter::normalize(terms);
            let expression = conditions_expression(&terms).unwrap_or_default();
            prop_assert!(!redundant(&expression), "{expression}");
            let count = Filter::conditions(&terms).len();
            for i in 0..count {
                prop_assert!(expression.contains(&format!("#f{i}")), "{expression}");
            }
            prop_assert_eq!(
                expression.matches("BETWEEN").count(),
                top_level_ranges(&terms).len(),
                "{}", expression
            );
        }
    }
}
