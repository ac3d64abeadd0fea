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
        self.holds_by(sk, operands, |a, b| a.cmp(b))
    }

    /// [`Op::holds`] with the key attribute's order `cmp` (a number's by
    /// value); `begins_with` is on the text.
    pub fn holds_by(
        self,
        sk: &str,
        operands: &[String],
        cmp: impl Fn(&str, &str) -> std::cmp::Ordering,
    ) -> bool {
        let o = |i: usize| operands.get(i).map_or("", String::as_str);
        match self {
            Op::Equals => cmp(sk, o(0)).is_eq(),
            Op::BeginsWith => sk.starts_with(o(0)),
            Op::Lt => cmp(sk, o(0)).is_lt(),
            Op::Lte => cmp(sk, o(0)).is_le(),
            Op::Gt => cmp(sk, o(0)).is_gt(),
            Op::Gte => cmp(sk, o(0)).is_ge(),
            Op::Between => cmp(o(0), sk).is_le() && cmp(sk, o(1)).is_le(),
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

/// A filter drawn on `note` (an optional string): conditions on its value
/// or its size, combined with `AND`, `OR` and `NOT`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Filter {
    /// `note <op> operands`.
    Note {
        /// The operator.
        op: FilterOp,
        /// Its operands.
        operands: Vec<String>,
        /// Its one operand is passed as a parameter of the method.
        param: bool,
    },
    /// `size(note) <op> operands`.
    Size {
        /// A comparison, `BETWEEN` or `IN`.
        op: FilterOp,
        /// Its operands.
        operands: Vec<u32>,
        /// Its one operand is passed as a parameter of the method.
        param: bool,
    },
    /// Every term holds.
    And(Vec<Filter>),
    /// At least one term holds.
    Or(Vec<Filter>),
    /// The term does not hold.
    Not(Box<Filter>),
}

impl Filter {
    /// Whether an item whose `note` is `value` (`None`: absent) passes:
    /// a comparison of the size of an absent attribute is false.
    pub fn holds(&self, value: Option<&str>) -> bool {
        match self {
            Filter::Note { op, operands, .. } => op.holds(value, operands),
            Filter::Size { op, operands, .. } => {
                let Some(v) = value else {
                    return false;
                };
                let size = v.len() as u32;
                let o = |i: usize| operands.get(i).copied().unwrap_or(0);
                match op {
                    FilterOp::Equals => size == o(0),
                    FilterOp::NotEquals => size != o(0),
                    FilterOp::Lt => size < o(0),
                    FilterOp::Gte => size >= o(0),
                    FilterOp::Between => o(0) <= size && size <= o(1),
                    FilterOp::In => operands.contains(&size),
                    FilterOp::BeginsWith
                    | FilterOp::Contains
                    | FilterOp::Exists
                    | FilterOp::NotExists => false,
                }
            }
            Filter::And(terms) => terms.iter().all(|t| t.holds(value)),
            Filter::Or(terms) => terms.iter().any(|t| t.holds(value)),
            Filter::Not(term) => !term.holds(value),
        }
    }

    /// The filter as a spec writes it (a YAML flow map), its parameters
    /// named `probe`, `probe_1`, … and their values (Rust literals)
    /// appended to `args` in the order the map writes them, which is the
    /// order of the generated method's parameters.
    pub fn yaml(&self, args: &mut Vec<String>) -> String {
        match self {
            Filter::And(terms) => map(terms, args),
            other => map(std::slice::from_ref(other), args),
        }
    }

    /// The filter as Rust code building it (the harness's `Case`).
    pub fn code(&self) -> String {
        let list = |terms: &[Filter]| {
            terms
                .iter()
                .map(Filter::code)
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            Filter::Note {
                op,
                operands,
                param,
            } => format!(
                "crate::soundness::Filter::Note {{ op: crate::soundness::FilterOp::{op:?}, operands: vec![{}], param: {param} }}",
                operands
                    .iter()
                    .map(|o| format!("{o:?}.into()"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Filter::Size {
                op,
                operands,
                param,
            } => format!(
                "crate::soundness::Filter::Size {{ op: crate::soundness::FilterOp::{op:?}, operands: vec!{operands:?}, param: {param} }}"
            ),
            Filter::And(terms) => format!("crate::soundness::Filter::And(vec![{}])", list(terms)),
            Filter::Or(terms) => format!("crate::soundness::Filter::Or(vec![{}])", list(terms)),
            Filter::Not(term) => format!("crate::soundness::Filter::Not(Box::new({}))", term.code()),
        }
    }
}

/// Terms that all hold, as one YAML flow map: one entry on `note`, one
/// `or`, one `not`, and the rest under `and` (a map has each key once).
fn map(terms: &[Filter], args: &mut Vec<String>) -> String {
    let mut note = None;
    let mut or = None;
    let mut not = None;
    let mut and = Vec::new();
    for t in terms {
        match t {
            Filter::Note { .. } | Filter::Size { .. } if note.is_none() => note = Some(t),
            Filter::Or(_) if or.is_none() => or = Some(t),
            Filter::Not(_) if not.is_none() => not = Some(t),
            _ => and.push(t),
        }
    }
    let mut entries = Vec::new();
    if let Some(t) = note {
        entries.push(format!("note: {}", condition(t, args)));
    }
    if let Some(Filter::Or(alternatives)) = or {
        let items: Vec<String> = alternatives.iter().map(|a| a.yaml(args)).collect();
        entries.push(format!("or: [{}]", items.join(", ")));
    }
    if let Some(Filter::Not(term)) = not {
        entries.push(format!("not: {}", term.yaml(args)));
    }
    if !and.is_empty() {
        let items: Vec<String> = and.iter().map(|t| t.yaml(args)).collect();
        entries.push(format!("and: [{}]", items.join(", ")));
    }
    format!("{{ {} }}", entries.join(", "))
}

/// A condition on `note` as its YAML value; a parameter named after how
/// many came before it.
fn condition(t: &Filter, args: &mut Vec<String>) -> String {
    let name = || {
        let n = args.len();
        if n == 0 {
            "<probe>".to_owned()
        } else {
            format!("<probe_{n}>")
        }
    };
    match t {
        Filter::Note {
            op,
            operands,
            param,
        } => {
            if *param {
                let written = op.yaml(&[name()]);
                args.push(format!("{:?}", operands[0]));
                written
            } else {
                op.yaml(operands)
            }
        }
        Filter::Size {
            op,
            operands,
            param,
        } => {
            let written: Vec<String> = if *param {
                let n = name();
                args.push(operands[0].to_string());
                vec![n]
            } else {
                operands.iter().map(u32::to_string).collect()
            };
            format!("{{ size: {} }}", op.yaml(&written).replace('"', ""))
        }
        Filter::And(_) | Filter::Or(_) | Filter::Not(_) => String::new(),
    }
}
