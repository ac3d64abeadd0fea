//! Access patterns: queries, scans, filters, transactions and batches.

use super::*;

/// An access pattern.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AccessPattern {
    /// Name (snake_case; the generated method's name).
    pub name: Spanned<String>,
    /// The requirement it serves.
    pub description: Option<String>,
    /// What it does.
    pub operation: Operation,
    /// The attributes a get or query reads, by spec name, when it names
    /// them (`select`): every other attribute is left out of the request.
    pub select: Option<Vec<String>>,
    /// The entities it reads in part, with the attributes (spec names) of
    /// their partial types: those `select` names, or, on an index that
    /// does not project every attribute, those the index carries
    /// (projected, or held by the table's or the index's keys).
    pub partials: IndexMap<String, Vec<String>>,
    /// Expected rate.
    pub rate: Option<Rate>,
}

impl AccessPattern {
    /// The entities the access pattern names: the one it gets, those a
    /// query returns, those a transaction or batch writes or reads.
    pub fn named_entities(&self) -> Vec<&str> {
        match &self.operation {
            Operation::Get { entity, .. } => vec![entity.as_str()],
            Operation::Query(q) => q.returns.iter().map(String::as_str).collect(),
            Operation::Scan(s) => vec![s.entity.as_str()],
            Operation::Transaction(t) => t.items.iter().map(|(_, e)| e.as_str()).collect(),
            Operation::TransactGet(t) => t.entities.iter().map(String::as_str).collect(),
            Operation::Batch(b) => b
                .get
                .iter()
                .chain(&b.put)
                .chain(&b.delete)
                .map(String::as_str)
                .collect(),
        }
    }
}

/// The DynamoDB operation of an access pattern.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Operation {
    /// GetItem of one entity by its full primary key.
    Get {
        /// The entity.
        entity: String,
        /// Strongly consistent.
        consistent_read: bool,
    },
    /// Query.
    Query(Box<Query>),
    /// Scan.
    Scan(Box<Scan>),
    /// TransactWriteItems.
    Transaction(Transaction),
    /// TransactGetItems: items of the listed entities read as of one moment.
    TransactGet(TransactGet),
    /// BatchGetItem / BatchWriteItem.
    Batch(Batch),
}

/// Where a query runs.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IndexRef {
    /// The base table.
    Table,
    /// A secondary index by name.
    Index(String),
}

impl IndexRef {
    /// An entity's keys where this points: its primary key on the table,
    /// its keys for the index if it is written into it.
    pub fn keys_of<'e>(&self, entity: &'e Entity) -> Option<&'e EntityKey> {
        match self {
            IndexRef::Table => Some(&entity.primary_key),
            IndexRef::Index(i) => entity.index_keys.get(i),
        }
    }
}

/// A Query access pattern.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Query {
    /// Table or index.
    pub index: IndexRef,
    /// Partition key value template (equality); of the first attribute of a
    /// multi-attribute partition key.
    pub pk: KeyTemplate,
    /// The equalities on a multi-attribute partition key's later attributes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub more_pk: Vec<KeyTemplate>,
    /// The equalities on a multi-attribute sort key's attributes before the
    /// one `sk` names (none, or a gap-free run from the first).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sk_prefix: Vec<KeyTemplate>,
    /// Sort key condition: on the sort key, or on the last attribute of a
    /// multi-attribute sort key the query names.
    pub sk: Option<SortCondition>,
    /// Entity types returned, in declaration order of the entities.
    pub returns: Vec<String>,
    /// Whether `returns` was written in the spec (otherwise inferred).
    pub returns_declared: bool,
    /// Every entity whose keys on this index match the key condition.
    pub matching: Vec<String>,
    /// Parameters: placeholders other than the tenant and shard, typed by the entities they bind to.
    pub params: IndexMap<String, Param>,
    /// Entity attributes fixed by literals in the key condition (entity, attribute, value).
    pub fixed: Vec<FixedValue>,
    /// Sort order.
    pub order: Order,
    /// Strongly consistent.
    pub consistent_read: bool,
    /// The filter: terms that must all hold for an item to be returned (a
    /// FilterExpression, applied after the key condition has read the
    /// items).
    pub filter: Vec<Filter>,
}

impl Query {
    /// Every template of the key condition: the partition key's (each
    /// attribute's), the sort key prefix's, the sort condition's operands.
    pub fn templates(&self) -> impl Iterator<Item = &KeyTemplate> {
        std::iter::once(&self.pk)
            .chain(&self.more_pk)
            .chain(&self.sk_prefix)
            .chain(self.sk.iter().flat_map(|c| &c.operands))
    }
}

/// A Scan access pattern: every item of the table or an index, of which
/// it returns those of one entity (global data, in a spec with a tenant).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scan {
    /// Table or index.
    pub index: IndexRef,
    /// The entity returned; items of other entities are skipped.
    pub entity: String,
    /// Strongly consistent.
    pub consistent_read: bool,
    /// The filter: terms that must all hold for an item to be returned (a
    /// FilterExpression).
    pub filter: Vec<Filter>,
}

/// A term of a filter or write condition: a condition on one attribute, or
/// `AND`, `OR`, `NOT` over terms. A filter is a list of terms that must all
/// hold.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Filter {
    /// Every term holds.
    And(Vec<Filter>),
    /// At least one term holds.
    Or(Vec<Filter>),
    /// The term does not hold.
    Not(Box<Filter>),
    /// A condition on one attribute.
    #[serde(untagged)]
    Condition(FilterCondition),
}

impl Filter {
    /// `terms` that all hold, written without a group DynamoDB would call
    /// redundant parentheses: an `AND` inside an `AND` (and an `OR` inside
    /// an `OR`) joins its parent, a group of one term is that term, and
    /// `NOT NOT a` is `a` (DynamoDB's logic has two values).
    pub fn normalize(terms: Vec<Filter>) -> Vec<Filter> {
        let mut out = Vec::new();
        for t in terms {
            match t.normalized() {
                Filter::And(inner) => out.extend(inner),
                other => out.push(other),
            }
        }
        out
    }

    fn normalized(self) -> Filter {
        let group = |terms: Vec<Filter>, or: bool| {
            let mut out = Vec::new();
            for t in terms {
                match (t.normalized(), or) {
                    (Filter::Or(inner), true) | (Filter::And(inner), false) => out.extend(inner),
                    (other, _) => out.push(other),
                }
            }
            match (out.len(), or) {
                (1, _) => out.remove(0),
                (_, true) => Filter::Or(out),
                (_, false) => Filter::And(out),
            }
        };
        match self {
            Filter::And(terms) => group(terms, false),
            Filter::Or(terms) => group(terms, true),
            Filter::Not(inner) => match inner.normalized() {
                Filter::Not(twice) => *twice,
                other => Filter::Not(Box::new(other)),
            },
            c @ Filter::Condition(_) => c,
        }
    }

    /// The conditions of `terms`, in the order written: condition `i` of
    /// this order is the one whose attribute a request names `#f{i}`.
    pub fn conditions(terms: &[Filter]) -> Vec<&FilterCondition> {
        fn walk<'f>(term: &'f Filter, out: &mut Vec<&'f FilterCondition>) {
            match term {
                Filter::Condition(c) => out.push(c),
                Filter::And(terms) | Filter::Or(terms) => {
                    for t in terms {
                        walk(t, out);
                    }
                }
                Filter::Not(t) => walk(t, out),
            }
        }
        let mut out = Vec::new();
        for t in terms {
            walk(t, &mut out);
        }
        out
    }
}

/// One condition of a filter: an operator on an attribute, or on its size.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FilterCondition {
    /// The attribute, by spec name.
    pub attribute: String,
    /// Its stored name.
    pub stored: String,
    /// The operator compares `size(a)` (a string's or binary's length in
    /// bytes, a collection's element count), not the value.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub size: bool,
    /// The operator.
    pub op: FilterOp,
    /// The operands: none (`exists`), one, two (`between`) or several (`in`).
    pub operands: Vec<FilterOperand>,
    /// Where it was written.
    #[serde(skip)]
    pub span: Span,
}

/// A filter operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FilterOp {
    /// `a = :v`
    Equals,
    /// `a <> :v`
    NotEquals,
    /// `a < :v`
    Lt,
    /// `a <= :v`
    Lte,
    /// `a > :v`
    Gt,
    /// `a >= :v`
    Gte,
    /// `a BETWEEN :a AND :b`
    Between,
    /// `a IN (:a, …)`
    In,
    /// `begins_with(a, :v)`
    BeginsWith,
    /// `contains(a, :v)`
    Contains,
    /// `attribute_exists(a)`
    Exists,
    /// `attribute_not_exists(a)`
    NotExists,
    /// `attribute_type(a, :t)`
    AttributeType,
}

/// A filter operand: a literal, or a parameter of the generated method.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FilterOperand {
    /// A value written in the spec, as DynamoDB stores it.
    Literal(FilterLiteral),
    /// `<name>`: a parameter of the method, of this type (the attribute's,
    /// or its elements' for `contains` on a set).
    Param {
        /// The parameter's name.
        name: String,
        /// Its type.
        r#type: AttributeType,
    },
}

/// A literal filter operand, as DynamoDB stores it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FilterLiteral {
    /// A string (`S`).
    S(String),
    /// A number (`N`), as written.
    N(String),
    /// A boolean (`BOOL`).
    Bool(bool),
}

/// A sort-key condition.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SortCondition {
    /// The operator.
    pub op: SortOp,
    /// One operand, or two for `between`.
    pub operands: Vec<KeyTemplate>,
    /// Where it was written.
    #[serde(skip)]
    pub span: Span,
}

/// Sort-key operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SortOp {
    /// `=`
    Equals,
    /// `begins_with`
    BeginsWith,
    /// `BETWEEN`
    Between,
    /// `<`
    Lt,
    /// `<=`
    Lte,
    /// `>`
    Gt,
    /// `>=`
    Gte,
}

impl SortOp {
    /// Whether the operator compares order (`lt`, `lte`, `gt`, `gte`,
    /// `between`) rather than matching a key or its prefix: its operands
    /// are bounds, not templates an entity's keys spell out.
    pub fn is_range(self) -> bool {
        match self {
            SortOp::Equals | SortOp::BeginsWith => false,
            SortOp::Between | SortOp::Lt | SortOp::Lte | SortOp::Gt | SortOp::Gte => true,
        }
    }
}

/// A typed parameter of an access pattern.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Param {
    /// Name (the generated method's argument).
    pub name: Spanned<String>,
    /// Type, taken from the entity attributes it binds to.
    pub r#type: AttributeType,
    /// `(entity, attribute)` pairs the parameter fills.
    pub binds: Vec<(String, String)>,
    /// How the parameter is written into the key: the one encoding all of
    /// its binds share.
    pub encoding: KeyEncoding,
}

/// An entity attribute fixed by a literal in an access pattern key.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FixedValue {
    /// Entity.
    pub entity: String,
    /// Attribute.
    pub attribute: String,
    /// The literal.
    pub value: String,
}

/// A transaction access pattern.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Transaction {
    /// `(operation, entity)` pairs allowed in the transaction.
    pub items: Vec<(TransactionOp, String)>,
    /// Most items per call.
    pub max_items: Spanned<u32>,
}

/// A read transaction access pattern (`transaction: { get: [...] }`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TransactGet {
    /// The entities whose items it may read, in the order written.
    pub entities: Vec<String>,
    /// Most items per call.
    pub max_items: Spanned<u32>,
}

/// Transaction item operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TransactionOp {
    /// Put.
    Put,
    /// Put if absent.
    Create,
    /// Update.
    Update,
    /// Delete.
    Delete,
    /// ConditionCheck.
    ConditionCheck,
}

/// A batch access pattern.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Batch {
    /// Entities read.
    pub get: Vec<String>,
    /// Entities put.
    pub put: Vec<String>,
    /// Entities deleted.
    pub delete: Vec<String>,
}
