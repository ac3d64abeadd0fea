//! DynamoDB's sort-key operators, as the soundness harness's generator and
//! oracle both evaluate them: on key text, compared as UTF-8 bytes (the
//! order of Rust's `str`), which is how DynamoDB compares string keys.

/// A sort-key operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `=`
    Equals,
    /// `begins_with`
    BeginsWith,
    /// `<`
    Lt,
    /// `<=`
    Lte,
    /// `>`
    Gt,
    /// `>=`
    Gte,
    /// `BETWEEN` (both bounds included)
    Between,
}

impl Op {
    /// Whether the sort key `sk` satisfies the operator over `operands`
    /// (two for `Between`, one otherwise).
    pub fn holds(self, sk: &str, operands: &[String]) -> bool {
        let o = |i: usize| operands.get(i).map_or("", String::as_str);
        match self {
            Op::Equals => sk == o(0),
            Op::BeginsWith => sk.starts_with(o(0)),
            Op::Lt => sk < o(0),
            Op::Lte => sk <= o(0),
            Op::Gt => sk > o(0),
            Op::Gte => sk >= o(0),
            Op::Between => o(0) <= sk && sk <= o(1),
        }
    }
}
