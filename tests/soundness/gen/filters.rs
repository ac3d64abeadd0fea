//! Filters: drawn on `note`, written as YAML, as the oracle's case and as a typed write condition.

/// A filter on `note` (a string of `a-z`, up to 3 long, optional): an
/// operator and operands from its value pool, passed as a parameter when
/// the operator takes one operand (every other call).
pub(super) fn draw_filter(
    rng: &mut fastrand::Rng,
) -> (crate::semantics::FilterOp, Vec<String>, bool) {
    use crate::semantics::FilterOp as F;
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
    (op, operands, param)
}

/// A drawn filter on `note` as the spec writes it (`<probe>` for a
/// parameter).
pub(super) fn filter_yaml(
    filter: Option<&(crate::semantics::FilterOp, Vec<String>, bool)>,
) -> String {
    let Some((op, operands, param)) = filter else {
        return String::new();
    };
    let operands = if *param {
        vec!["<probe>".to_owned()]
    } else {
        operands.clone()
    };
    format!("    filter:\n      note: {}\n", op.yaml(&operands))
}

/// A drawn filter as the harness's `Case` holds it.
pub(super) fn filter_case(
    filter: Option<&(crate::semantics::FilterOp, Vec<String>, bool)>,
) -> String {
    match filter {
        None => "None".to_owned(),
        Some((op, operands, _)) => format!(
            "Some((\"note\", crate::soundness::FilterOp::{op:?}, vec![{}]))",
            operands
                .iter()
                .map(|o| format!("{o:?}.into()"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// A write condition on `note` through its typed field `field` (`E0::NOTE`).
pub(super) fn field_condition(
    field: &str,
    op: crate::semantics::FilterOp,
    operands: &[String],
) -> String {
    use crate::semantics::FilterOp as F;
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
