//! Filters: drawn on `note`, written as YAML, as the oracle's case and as a typed write condition.

use crate::semantics::{Filter, FilterOp as F};

/// A filter on `note` (a string of `a-z`, up to 3 long, optional): half
/// the time one condition, else `AND`, `OR` and `NOT` over conditions on
/// its value and its size, two levels deep. A condition's operands come
/// from a value pool; one operand is passed as a parameter every other
/// time.
pub(super) fn draw_filter(rng: &mut fastrand::Rng) -> Filter {
    if rng.bool() {
        draw_note(rng)
    } else {
        draw_tree(rng, 2)
    }
}

fn draw_tree(rng: &mut fastrand::Rng, depth: u8) -> Filter {
    let pick = if depth == 0 { 0 } else { rng.u8(..6) };
    let terms = |rng: &mut fastrand::Rng| {
        (0..2 + rng.usize(..2))
            .map(|_| draw_tree(rng, depth - 1))
            .collect()
    };
    match pick {
        0 | 1 => draw_note(rng),
        2 => draw_size(rng),
        3 => Filter::And(terms(rng)),
        4 => Filter::Or(terms(rng)),
        _ => Filter::Not(Box::new(draw_tree(rng, depth - 1))),
    }
}

/// A condition on `note`'s value.
fn draw_note(rng: &mut fastrand::Rng) -> Filter {
    const VALUES: [&str; 6] = ["a", "ab", "b", "abc", "z", "c"];
    let value = |rng: &mut fastrand::Rng| VALUES[rng.usize(..VALUES.len())].to_owned();
    let op = [
        F::Equals,
        F::NotEquals,
        F::Lt,
        F::Gte,
        F::Between,
        F::In,
        F::BeginsWith,
        F::Contains,
        F::Exists,
        F::NotExists,
    ][rng.usize(..10)];
    let operands = match op {
        F::Exists | F::NotExists => Vec::new(),
        // Reversed bounds included: the range is then empty.
        F::Between => vec![value(rng), value(rng)],
        F::In => (0..1 + rng.usize(..3)).map(|_| value(rng)).collect(),
        _ => vec![value(rng)],
    };
    let param = operands.len() == 1 && rng.bool();
    Filter::Note {
        op,
        operands,
        param,
    }
}

/// A comparison of `note`'s size (0 to 3 bytes when present).
fn draw_size(rng: &mut fastrand::Rng) -> Filter {
    let op = [F::Equals, F::Lt, F::Gte, F::Between, F::In][rng.usize(..5)];
    let operands: Vec<u32> = match op {
        // Reversed bounds included.
        F::Between => vec![rng.u32(..5), rng.u32(..5)],
        F::In => (0..1 + rng.usize(..3)).map(|_| rng.u32(..5)).collect(),
        _ => vec![rng.u32(..5)],
    };
    let param = operands.len() == 1 && rng.bool();
    Filter::Size {
        op,
        operands,
        param,
    }
}

/// A drawn filter as the spec writes it, and the arguments its
/// parameters take, in the method's order.
pub(super) fn filter_yaml(filter: Option<&Filter>) -> (String, Vec<String>) {
    let Some(filter) = filter else {
        return (String::new(), Vec::new());
    };
    let mut args = Vec::new();
    let yaml = filter.yaml(&mut args);
    (format!("    filter: {yaml}\n"), args)
}

/// A drawn filter as the harness's `Case` holds it.
pub(super) fn filter_case(filter: Option<&Filter>) -> String {
    match filter {
        None => "None".to_owned(),
        Some(f) => format!("Some({})", f.code()),
    }
}

/// A write condition on `note` through its typed field `field`
/// (`E0::NOTE`): `and`, `or` and `!` over conditions on its value and size.
pub(super) fn field_condition(field: &str, filter: &Filter) -> String {
    let chain = |terms: &[Filter], join: &str| {
        let parts: Vec<String> = terms
            .iter()
            .map(|t| format!("({})", field_condition(field, t)))
            .collect();
        parts.join(&format!(".{join}"))
    };
    match filter {
        Filter::Note { op, operands, .. } => note_condition(field, *op, operands),
        Filter::Size { op, operands, .. } => {
            let o = |i: usize| operands.get(i).copied().unwrap_or(0);
            match op {
                F::Equals => format!("{field}.size().eq({})", o(0)),
                F::NotEquals => format!("{field}.size().ne({})", o(0)),
                F::Lt => format!("{field}.size().lt({})", o(0)),
                F::Gte => format!("{field}.size().ge({})", o(0)),
                F::Between => format!("{field}.size().between({}, {})", o(0), o(1)),
                // `IN` on a size: the typed API writes it as `OR`.
                _ => operands
                    .iter()
                    .map(|n| format!("{field}.size().eq({n})"))
                    .reduce(|all, next| format!("{all}.or({next})"))
                    .unwrap_or_default(),
            }
        }
        Filter::And(terms) => chain(terms, "and"),
        Filter::Or(terms) => chain(terms, "or"),
        Filter::Not(term) => format!("!({})", field_condition(field, term)),
    }
}

/// A condition on `note`'s value through its typed field.
fn note_condition(field: &str, op: F, operands: &[String]) -> String {
    let o = |i: usize| format!("{:?}", operands.get(i).map_or("", String::as_str));
    match op {
        F::Equals => format!("{field}.eq({})", o(0)),
        F::NotEquals => format!("{field}.ne({})", o(0)),
        F::Lt => format!("{field}.lt({})", o(0)),
        F::Gte => format!("{field}.ge({})", o(0)),
        F::Between => format!("{field}.between({}, {})", o(0), o(1)),
        F::In => format!(
            "{field}.is_in([{}].map(String::from))",
            operands
                .iter()
                .map(|v| format!("{v:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        F::BeginsWith => format!("{field}.begins_with({})", o(0)),
        F::Contains => format!("{field}.contains({})", o(0)),
        F::Exists => format!("{field}.exists()"),
        F::NotExists => format!("{field}.not_exists()"),
    }
}
