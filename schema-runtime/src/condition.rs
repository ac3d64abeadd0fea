//! Conditions on the stored item a write applies to, built from an
//! entity's typed fields: `Ticket::STATUS.eq(Status::Open)`,
//! `Product::ON_HAND.ge(quantity)`, combined with [`Condition::and`],
//! [`Condition::or`] and `!`. A write whose condition does not hold fails
//! with [`Error::ConditionNotMet`](crate::Error::ConditionNotMet), which
//! carries the stored item.

use std::collections::HashMap;
use std::marker::PhantomData;

use crate::codec::{Attr, Store, TimeFormat};
use crate::error::ValueError;
use crate::sdk::types::AttributeValue;
use crate::Item;

/// A condition on the stored item, as DynamoDB evaluates it with the write.
#[derive(Debug, Clone, PartialEq)]
pub struct Condition(Node);

/// What a comparison compares: an attribute's value, or its `size`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Operand {
    attribute: &'static str,
    size: bool,
}

impl Operand {
    fn value(attribute: &'static str) -> Operand {
        Operand {
            attribute,
            size: false,
        }
    }

    fn size(attribute: &'static str) -> Operand {
        Operand {
            attribute,
            size: true,
        }
    }

    /// The operand in an expression that names its attribute `placeholder`.
    fn render(&self, placeholder: String) -> String {
        if self.size {
            format!("size({placeholder})")
        } else {
            placeholder
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Node {
    /// `a <op> :v`
    Compare(Operand, &'static str, AttributeValue),
    /// `a BETWEEN :low AND :high`
    Between(Operand, AttributeValue, AttributeValue),
    /// `a IN (:v, …)`
    In(Operand, Vec<AttributeValue>),
    /// `f(a, :v)`: `begins_with`, `contains`, `attribute_type`
    Function(&'static str, &'static str, AttributeValue),
    /// `attribute_exists(a)` (`true`) or `attribute_not_exists(a)`
    Exists(&'static str, bool),
    /// The item exists: `attribute_exists` of the table's partition key.
    ItemExists,
    And(Box<Node>, Box<Node>),
    Or(Box<Node>, Box<Node>),
    Not(Box<Node>),
    /// An operand that could not be stored as its attribute is (a
    /// datetime outside its format's range): the write is refused.
    Invalid(ValueError),
}

impl Condition {
    /// The item exists (`attribute_exists` of the partition key): a delete
    /// or update with it fails instead of acting on nothing.
    pub fn item_exists() -> Condition {
        Condition(Node::ItemExists)
    }

    /// A condition of the filter grammar on the attribute stored as
    /// `attribute`: `kind` is `=`, `<>`, `<`, `<=`, `>`, `>=`, `BETWEEN`,
    /// `IN`, `begins_with`, `contains`, `attribute_type`, `exists` or
    /// `not_exists`. For generated code (the spec's named conditions); an
    /// operand that could not be stored refuses the condition.
    #[doc(hidden)]
    pub fn of(
        kind: &'static str,
        attribute: &'static str,
        operands: Vec<Result<AttributeValue, ValueError>>,
    ) -> Condition {
        Condition::build(kind, Operand::value(attribute), operands)
    }

    /// A comparison of the size of the attribute stored as `attribute`
    /// (`kind` is `=`, `<>`, `<`, `<=`, `>`, `>=`, `BETWEEN` or `IN`). For
    /// generated code, as [`Condition::of`].
    #[doc(hidden)]
    pub fn of_size(
        kind: &'static str,
        attribute: &'static str,
        operands: Vec<Result<AttributeValue, ValueError>>,
    ) -> Condition {
        Condition::build(kind, Operand::size(attribute), operands)
    }

    fn build(
        kind: &'static str,
        subject: Operand,
        operands: Vec<Result<AttributeValue, ValueError>>,
    ) -> Condition {
        let attribute = subject.attribute;
        let operands: Result<Vec<AttributeValue>, ValueError> = operands.into_iter().collect();
        let mut operands = match operands {
            Ok(v) => v.into_iter(),
            Err(e) => return Condition(Node::Invalid(e)),
        };
        let mut next = || operands.next().unwrap_or(AttributeValue::Null(true));
        Condition(match kind {
            "BETWEEN" => between(subject, next(), next()),
            "IN" => Node::In(subject, operands.collect()),
            "begins_with" | "contains" | "attribute_type" => {
                Node::Function(kind, attribute, next())
            }
            "exists" => Node::Exists(attribute, true),
            "not_exists" => Node::Exists(attribute, false),
            op => Node::Compare(subject, op, next()),
        })
    }

    /// Both hold.
    #[must_use]
    pub fn and(self, other: Condition) -> Condition {
        Condition(Node::And(Box::new(self.0), Box::new(other.0)))
    }

    /// Either holds.
    #[must_use]
    pub fn or(self, other: Condition) -> Condition {
        Condition(Node::Or(Box::new(self.0), Box::new(other.0)))
    }

    /// The first operand that could not be encoded, if any: a write with
    /// this condition is refused before any request.
    pub fn check(&self) -> Result<(), ValueError> {
        fn walk(node: &Node) -> Result<(), ValueError> {
            match node {
                Node::Invalid(e) => Err(e.clone()),
                Node::And(a, b) | Node::Or(a, b) => walk(a).and_then(|()| walk(b)),
                Node::Not(a) => walk(a),
                Node::Compare(..)
                | Node::Between(..)
                | Node::In(..)
                | Node::Function(..)
                | Node::Exists(..)
                | Node::ItemExists => Ok(()),
            }
        }
        walk(&self.0)
    }

    /// The condition as an expression, adding its names (`#c0`, …) and
    /// values (`:c0`, …) to a request's; `partition_key` is the table's.
    pub(crate) fn render(
        &self,
        partition_key: &str,
        names: &mut HashMap<String, String>,
        values: &mut Item,
    ) -> String {
        let mut next = 0;
        render(&self.0, partition_key, names, values, &mut next)
    }
}

impl std::ops::Not for Condition {
    type Output = Condition;
    fn not(self) -> Condition {
        Condition(Node::Not(Box::new(self.0)))
    }
}

fn render(
    node: &Node,
    partition_key: &str,
    names: &mut HashMap<String, String>,
    values: &mut Item,
    next: &mut usize,
) -> String {
    let mut name = |attribute: &str, names: &mut HashMap<String, String>| {
        let placeholder = format!("#c{}", *next);
        *next += 1;
        names.insert(placeholder.clone(), attribute.to_owned());
        placeholder
    };
    let value = |v: &AttributeValue, values: &mut Item, at: usize| {
        let placeholder = format!(":c{at}");
        values.insert(placeholder.clone(), v.clone());
        placeholder
    };
    match node {
        Node::Compare(subject, op, v) => {
            let n = subject.render(name(subject.attribute, names));
            let at = *next;
            *next += 1;
            format!("{n} {op} {}", value(v, values, at))
        }
        Node::Between(subject, low, high) => {
            let n = subject.render(name(subject.attribute, names));
            let (l, h) = (*next, *next + 1);
            *next += 2;
            format!(
                "{n} BETWEEN {} AND {}",
                value(low, values, l),
                value(high, values, h)
            )
        }
        Node::In(subject, options) => {
            let n = subject.render(name(subject.attribute, names));
            let placeholders: Vec<String> = options
                .iter()
                .map(|v| {
                    let at = *next;
                    *next += 1;
                    value(v, values, at)
                })
                .collect();
            format!("{n} IN ({})", placeholders.join(", "))
        }
        Node::Function(function, attribute, v) => {
            let n = name(attribute, names);
            let at = *next;
            *next += 1;
            format!("{function}({n}, {})", value(v, values, at))
        }
        Node::Exists(attribute, true) => format!("attribute_exists({})", name(attribute, names)),
        Node::Exists(attribute, false) => {
            format!("attribute_not_exists({})", name(attribute, names))
        }
        Node::ItemExists => format!("attribute_exists({})", name(partition_key, names)),
        Node::And(a, b) => format!(
            "({} AND {})",
            render(a, partition_key, names, values, next),
            render(b, partition_key, names, values, next)
        ),
        Node::Or(a, b) => format!(
            "({} OR {})",
            render(a, partition_key, names, values, next),
            render(b, partition_key, names, values, next)
        ),
        Node::Not(a) => format!("(NOT {})", render(a, partition_key, names, values, next)),
        // Refused by `check` before any request.
        Node::Invalid(_) => "attribute_exists(#__invalid)".to_owned(),
    }
}

/// `a BETWEEN low AND high`; with the bounds reversed, a condition that
/// never holds (DynamoDB refuses such a `BETWEEN` instead of finding the
/// range empty).
fn between(subject: Operand, low: AttributeValue, high: AttributeValue) -> Node {
    if crate::query::descending(&low, &high) {
        never(subject.attribute)
    } else {
        Node::Between(subject, low, high)
    }
}

/// A condition that holds for no item.
fn never(attribute: &'static str) -> Node {
    Node::And(
        Box::new(Node::Exists(attribute, true)),
        Box::new(Node::Exists(attribute, false)),
    )
}

/// An attribute of an entity, typed: what conditions compare it with.
/// Generated for every stored attribute (`Ticket::STATUS`); a value is
/// stored as the attribute is (a datetime in its format).
pub struct Field<T> {
    entity: &'static str,
    name: &'static str,
    format: Option<TimeFormat>,
    value: PhantomData<fn() -> T>,
}

impl<T> Clone for Field<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Field<T> {}

impl<T> std::fmt::Debug for Field<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Field({}.{})", self.entity, self.name)
    }
}

impl<T> Field<T> {
    /// The attribute stored as `name` of `entity`.
    pub const fn new(entity: &'static str, name: &'static str) -> Self {
        Field {
            entity,
            name,
            format: None,
            value: PhantomData,
        }
    }

    /// A datetime attribute stored in `format`.
    pub const fn time(entity: &'static str, name: &'static str, format: TimeFormat) -> Self {
        Field {
            entity,
            name,
            format: Some(format),
            value: PhantomData,
        }
    }

    /// The name the attribute is stored under.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The item holds the attribute.
    pub fn exists(&self) -> Condition {
        Condition(Node::Exists(self.name, true))
    }

    /// The item does not hold the attribute.
    pub fn not_exists(&self) -> Condition {
        Condition(Node::Exists(self.name, false))
    }
}

impl<T: Attr> Field<T> {
    /// `value` as the attribute stores it (a datetime in its format).
    pub fn to_stored(&self, value: &T) -> Result<AttributeValue, ValueError> {
        match self.format {
            Some(format) => value.store(Store::Time(format), self.entity, self.name),
            None => Ok(value.to_av()),
        }
    }

    fn compare(&self, op: &'static str, value: T) -> Condition {
        match self.to_stored(&value) {
            Ok(v) => Condition(Node::Compare(Operand::value(self.name), op, v)),
            Err(e) => Condition(Node::Invalid(e)),
        }
    }

    /// The attribute equals `value`.
    pub fn eq(&self, value: impl Into<T>) -> Condition {
        self.compare("=", value.into())
    }

    /// The attribute is not `value` (or is absent).
    pub fn ne(&self, value: impl Into<T>) -> Condition {
        self.compare("<>", value.into())
    }

    /// The attribute is less than `value`.
    pub fn lt(&self, value: impl Into<T>) -> Condition {
        self.compare("<", value.into())
    }

    /// The attribute is at most `value`.
    pub fn le(&self, value: impl Into<T>) -> Condition {
        self.compare("<=", value.into())
    }

    /// The attribute is greater than `value`.
    pub fn gt(&self, value: impl Into<T>) -> Condition {
        self.compare(">", value.into())
    }

    /// The attribute is at least `value`.
    pub fn ge(&self, value: impl Into<T>) -> Condition {
        self.compare(">=", value.into())
    }

    /// The attribute is within `low..=high`.
    pub fn between(&self, low: impl Into<T>, high: impl Into<T>) -> Condition {
        match (self.to_stored(&low.into()), self.to_stored(&high.into())) {
            (Ok(l), Ok(h)) => Condition(between(Operand::value(self.name), l, h)),
            (Err(e), _) | (_, Err(e)) => Condition(Node::Invalid(e)),
        }
    }

    /// The attribute is one of `values` (1 to 100 of them; none is a
    /// condition that never holds).
    pub fn is_in(&self, values: impl IntoIterator<Item = T>) -> Condition {
        let stored: Result<Vec<AttributeValue>, ValueError> =
            values.into_iter().map(|v| self.to_stored(&v)).collect();
        match stored {
            Ok(v) if v.is_empty() => Condition(never(self.name)),
            Ok(v) => Condition(Node::In(Operand::value(self.name), v)),
            Err(e) => Condition(Node::Invalid(e)),
        }
    }
}

impl Field<String> {
    /// The string starts with `prefix`.
    pub fn begins_with(&self, prefix: &str) -> Condition {
        Condition(Node::Function(
            "begins_with",
            self.name,
            AttributeValue::S(prefix.to_owned()),
        ))
    }

    /// The string contains `part`.
    pub fn contains(&self, part: &str) -> Condition {
        Condition(Node::Function(
            "contains",
            self.name,
            AttributeValue::S(part.to_owned()),
        ))
    }
}

/// A set or list: what `contains` looks for an element of.
pub trait Collection {
    /// The element type.
    type Element: Attr;
}

impl<E: Attr> Collection for std::collections::BTreeSet<E> {
    type Element = E;
}

impl<E: Attr> Collection for Vec<E> {
    type Element = E;
}

impl<C: Collection> Field<C> {
    /// The set or list holds `element`.
    pub fn contains(&self, element: impl Into<C::Element>) -> Condition {
        Condition(Node::Function(
            "contains",
            self.name,
            element.into().to_av(),
        ))
    }
}

impl<T: HasSize> Field<T> {
    /// The attribute's size (`size(a)`): a string's length in bytes, a
    /// collection's element count; compare it like a number
    /// (`Ticket::TAGS.size().ge(2)`). `eq`, `lt`, `le`, `gt`, `ge` and
    /// `between` do not hold for an absent attribute.
    pub fn size(&self) -> Size {
        Size(Operand::size(self.name))
    }
}

/// Types whose stored values DynamoDB gives a size to.
pub trait HasSize {}
impl HasSize for String {}
impl<E> HasSize for Vec<E> {}
impl<E> HasSize for std::collections::BTreeSet<E> {}
impl<K, V> HasSize for std::collections::BTreeMap<K, V> {}
impl<K, V, S> HasSize for HashMap<K, V, S> {}
impl HasSize for crate::Blob {}

/// The size of an attribute, compared in a condition (see [`Field::size`]).
#[derive(Debug, Clone, Copy)]
pub struct Size(Operand);

impl Size {
    fn compare(&self, op: &'static str, n: u64) -> Condition {
        Condition(Node::Compare(self.0, op, AttributeValue::N(n.to_string())))
    }

    /// The size is `n`.
    pub fn eq(&self, n: u64) -> Condition {
        self.compare("=", n)
    }

    /// The size is not `n`.
    pub fn ne(&self, n: u64) -> Condition {
        self.compare("<>", n)
    }

    /// The size is less than `n`.
    pub fn lt(&self, n: u64) -> Condition {
        self.compare("<", n)
    }

    /// The size is at most `n`.
    pub fn le(&self, n: u64) -> Condition {
        self.compare("<=", n)
    }

    /// The size is greater than `n`.
    pub fn gt(&self, n: u64) -> Condition {
        self.compare(">", n)
    }

    /// The size is at least `n`.
    pub fn ge(&self, n: u64) -> Condition {
        self.compare(">=", n)
    }

    /// The size is within `low..=high` (never, when `low > high`).
    pub fn between(&self, low: u64, high: u64) -> Condition {
        Condition(between(
            self.0,
            AttributeValue::N(low.to_string()),
            AttributeValue::N(high.to_string()),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_nested_conditions_with_unique_placeholders() {
        let status: Field<String> = Field::new("Ticket", "status");
        let stock: Field<i64> = Field::new("Product", "on_hand");
        let condition = status
            .eq("open")
            .and(stock.ge(3_i64).or(!stock.exists()))
            .and(Condition::item_exists());
        let (mut names, mut values) = (HashMap::new(), Item::new());
        let text = condition.render("pk", &mut names, &mut values);
        assert_eq!(
            text,
            "((#c0 = :c1 AND (#c2 >= :c3 OR (NOT attribute_exists(#c4)))) AND attribute_exists(#c5))"
        );
        assert_eq!(names["#c0"], "status");
        assert_eq!(names["#c5"], "pk");
        assert_eq!(values[":c3"], AttributeValue::N("3".into()));
        assert_eq!(values.len(), 2);
        assert!(condition.check().is_ok());
    }

    #[test]
    fn an_operand_that_cannot_be_stored_refuses_the_condition() {
        let at: Field<crate::DateTime> = Field::time("Ticket", "due", TimeFormat::Rfc3339(3));
        let far = crate::DateTime::from_secs(i64::MAX / 2);
        assert!(at.lt(far).and(at.exists()).check().is_err());
    }
}
