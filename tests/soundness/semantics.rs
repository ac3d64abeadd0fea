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

/// A filter operator on a string attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterOp {
    /// `=`
    Equals,
    /// `<>`
    NotEquals,
    /// `<`
    Lt,
    /// `>=`
    Gte,
    /// `BETWEEN` (both bounds included)
    Between,
    /// `IN`
    In,
    /// `begins_with`
    BeginsWith,
    /// `contains` (a substring)
    Contains,
    /// `attribute_exists`
    Exists,
    /// `attribute_not_exists`
    NotExists,
}

impl FilterOp {
    /// How the operator is written in a spec, with its operands (YAML).
    pub fn yaml(self, operands: &[String]) -> String {
        let one = || operands.first().cloned().unwrap_or_default();
        let list = || {
            format!(
                "[{}]",
                operands
                    .iter()
                    .map(|o| format!("\"{o}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        match self {
            FilterOp::Equals => format!("{{ equals: \"{}\" }}", one()),
            FilterOp::NotEquals => format!("{{ not_equals: \"{}\" }}", one()),
            FilterOp::Lt => format!("{{ lt: \"{}\" }}", one()),
            FilterOp::Gte => format!("{{ gte: \"{}\" }}", one()),
            FilterOp::Between => format!("{{ between: {} }}", list()),
            FilterOp::In => format!("{{ in: {} }}", list()),
            FilterOp::BeginsWith => format!("{{ begins_with: \"{}\" }}", one()),
            FilterOp::Contains => format!("{{ contains: \"{}\" }}", one()),
            FilterOp::Exists => "{ exists: true }".to_owned(),
            FilterOp::NotExists => "{ exists: false }".to_owned(),
        }
    }

    /// Whether an item whose string attribute is `value` (`None`: absent)
    /// passes the filter: a comparison with an absent attribute is false,
    /// except `<>`, which an absent attribute satisfies.
    pub fn holds(self, value: Option<&str>, operands: &[String]) -> bool {
        let o = |i: usize| operands.get(i).map_or("", String::as_str);
        match (self, value) {
            (FilterOp::Exists, v) => v.is_some(),
            (FilterOp::NotExists, v) => v.is_none(),
            (FilterOp::NotEquals, None) => true,
            (_, None) => false,
            (FilterOp::Equals, Some(v)) => v == o(0),
            (FilterOp::NotEquals, Some(v)) => v != o(0),
            (FilterOp::Lt, Some(v)) => v < o(0),
            (FilterOp::Gte, Some(v)) => v >= o(0),
            (FilterOp::Between, Some(v)) => o(0) <= v && v <= o(1),
            (FilterOp::In, Some(v)) => operands.iter().any(|o| o == v),
            (FilterOp::BeginsWith, Some(v)) => v.starts_with(o(0)),
            (FilterOp::Contains, Some(v)) => v.contains(o(0)),
        }
    }
}
