//! The soundness harness's spec generator, run by `build.rs`.
//!
//! Each seed gives a random spec drawn from the spec language (tenant-
//! scoped entities with composite keys over pattern-checked and escaped
//! strings, offset integers, enums and booleans; overloaded and sparse
//! global indexes, inverted indexes keyed on the table's own attributes,
//! local indexes; queries with every sort-key operator, both orders,
//! limits and small pages; a third of the tables tell entities by their
//! key shapes instead of an entity-type attribute), biased towards near-collisions: shared key
//! prefixes, literals that are prefixes of each other, enum values that
//! are prefixes of each other, one attribute name with two types. It also
//! draws the items to write and the calls to make, and encodes every key
//! a call should read with its own encoder, written from docs/spec.md
//! ("How values are written into keys"), not from the compiler.
//!
//! `build.rs` keeps the specs `check` accepts and renders, per spec, a
//! driver module (`render_driver`) that writes the items through the
//! generated repository, runs every call and hands the results and the
//! expected keys to the oracle in `singletable_tests::soundness`.

use std::fmt::Write as _;

/// A placeholder's type as the generator knows it.
#[derive(Debug, Clone, PartialEq)]
pub enum Ty {
    /// A string of the given characters, 1 to `max` long.
    Str { chars: &'static str, max: usize },
    /// A string with `escape: true`.
    Escaped,
    /// An integer in `min..=max`.
    Int { min: i64, max: i64 },
    /// An enum.
    Enum(&'static [&'static str]),
    /// A boolean.
    Bool,
    /// An RFC 3339 datetime with `digits` fractional digits (0: seconds).
    Datetime { digits: u8 },
    /// A datetime stored as epoch seconds (the TTL attribute).
    Epoch,
    /// A typed map (never in a key): a generated struct with optional
    /// fields, a datetime, a set and a nested typed map inside.
    Record,
}

/// Instants and how docs/spec.md says they are written: RFC 3339 in UTC.
const INSTANTS: [(i64, &str); 5] = [
    (0, "1970-01-01T00:00:00"),
    (951_782_400, "2000-02-29T00:00:00"),
    (1_714_564_800, "2024-05-01T12:00:00"),
    (1_714_564_801, "2024-05-01T12:00:01"),
    (4_102_444_799, "2099-12-31T23:59:59"),
];

impl Ty {
    fn yaml(&self) -> String {
        match self {
            Ty::Str { chars, max } => {
                format!("{{ type: string, pattern: \"^[{chars}]{{1,{max}}}$\" }}")
            }
            Ty::Escaped => "{ type: string, max_length: 12, escape: true }".into(),
            Ty::Int { min, max } => format!("{{ type: integer, min: {min}, max: {max} }}"),
            Ty::Enum(values) => format!("{{ type: enum, values: [{}] }}", values.join(", ")),
            Ty::Bool => "boolean".into(),
            Ty::Datetime { digits: 0 } => "{ type: datetime, precision: seconds }".into(),
            Ty::Datetime { .. } => "{ type: datetime, precision: millis }".into(),
            Ty::Epoch => "{ type: datetime, format: epoch_seconds }".into(),
            Ty::Record => "{ type: map, fields: { label: string, n: integer?, \
                at: { type: datetime, precision: seconds, optional: true }, \
                tags: { type: set, items: string, optional: true }, \
                inner: { type: map, optional: true, fields: { x: decimal } } } }"
                .into(),
        }
    }

    /// Every value the generator draws for this type, as a Rust expression
    /// and as the key text docs/spec.md says it is written as: small pools,
    /// so that keys of different items come close and the witnesses of a
    /// rejected spec can be searched exhaustively.
    fn pool(&self) -> Vec<Value> {
        match self {
            Ty::Str { chars, max } => {
                let pool: &[&str] = match *chars {
                    "a-z" => &["a", "ab", "b", "abc", "z"],
                    _ => &["a", "a1", "b0", "ab", "9", "true"],
                };
                pool.iter()
                    .map(|s| &s[..s.len().min(*max)])
                    .map(|s| Value::text(s, s.to_owned()))
                    .collect()
            }
            Ty::Escaped => ["a/b", "a b", "x#y", "a", "%", "a_b", "é", "X"]
                .iter()
                .map(|s| Value::text(s, escape(s)))
                .collect(),
            Ty::Int { min, max } => {
                let mut picks = vec![
                    *min,
                    *max,
                    (*min).max(0).min(*max),
                    min + (max - min) / 2,
                    min + 1,
                ];
                picks.dedup();
                picks
                    .into_iter()
                    .map(|n| n.clamp(*min, *max))
                    .map(|n| Value {
                        rust: format!("{n}_i64"),
                        key: encode_integer(*min, *max, n),
                    })
                    .collect()
            }
            Ty::Enum(values) => values
                .iter()
                .map(|v| Value {
                    rust: format!("{v:?}.parse().unwrap()"),
                    key: (*v).to_owned(),
                })
                .collect(),
            Ty::Bool => [false, true]
                .iter()
                .map(|b| Value {
                    rust: b.to_string(),
                    key: b.to_string(),
                })
                .collect(),
            Ty::Datetime { digits } => INSTANTS
                .iter()
                .map(|(secs, text)| {
                    let fraction = if *digits == 0 {
                        String::new()
                    } else {
                        format!(".{}", "0".repeat(usize::from(*digits)))
                    };
                    Value {
                        rust: format!("singletable_runtime::DateTime::from_secs({secs})"),
                        key: format!("{text}{fraction}Z"),
                    }
                })
                .collect(),
            // Long expired, or far in the future.
            Ty::Epoch => [1_000_000_000_i64, 4_000_000_000]
                .iter()
                .map(|secs| Value {
                    rust: format!("singletable_runtime::DateTime::from_secs({secs})"),
                    key: format!("{secs:012}"),
                })
                .collect(),
            Ty::Record => [
                r#"Info { label: "a".to_owned(), n: None, at: None, tags: None, inner: None }"#,
                r#"Info { label: "b c#".to_owned(), n: Some(-3_i64), at: Some(singletable_runtime::DateTime::from_secs(951_782_400)), tags: Some(["x".to_owned(), "y".to_owned()].into_iter().collect()), inner: Some(Inner { x: "-1.50".parse().unwrap() }) }"#,
                r#"Info { label: String::new(), n: Some(9_007_199_254_740_993_i64), at: None, tags: None, inner: Some(Inner { x: "1E+3".parse().unwrap() }) }"#,
            ]
            .iter()
            .map(|rust| Value {
                rust: (*rust).to_owned(),
                key: String::new(),
            })
            .collect(),
        }
    }

    /// One value of the pool, drawn.
    fn value(&self, rng: &mut fastrand::Rng) -> Value {
        let mut pool = self.pool();
        pool.swap_remove(rng.usize(..pool.len()))
    }
}

/// A drawn value.
#[derive(Debug, Clone)]
pub struct Value {
    /// How the driver writes it (a field or an argument).
    pub rust: String,
    /// How it is written into a key.
    pub key: String,
}

impl Value {
    fn text(s: &str, key: String) -> Value {
        Value {
            rust: format!("{s:?}.to_owned()"),
            key,
        }
    }
}

/// docs/spec.md: every character other than ASCII letters, digits and `_`
/// becomes `%XX`, one per UTF-8 byte.
fn escape(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b == b'_' {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// docs/spec.md: `min` ≥ 0: zero-padded to the digits of `max`; otherwise
/// the value minus `min`, zero-padded to the digits of `max − min`.
fn encode_integer(min: i64, max: i64, n: i64) -> String {
    let (value, top) = if min >= 0 {
        (i128::from(n), i128::from(max))
    } else {
        (
            i128::from(n) - i128::from(min),
            i128::from(max) - i128::from(min),
        )
    };
    let width = top.to_string().len();
    format!("{value:0width$}")
}

/// FNV-1a, 64 bits, from its published definition: the hash whose value
/// modulo the shard count is the shard of `by: "hash(<attribute>)"`
/// (docs/spec.md §11), taken of the attribute's key text.
fn fnv1a(text: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// The shard of `by: "hash(<attribute>)"` for the attribute's key text.
fn hash_shard(text: &str, count: u32) -> u32 {
    u32::try_from(fnv1a(text) % u64::from(count)).unwrap_or(0)
}

/// A template segment.
#[derive(Debug, Clone, PartialEq)]
pub enum Seg {
    Lit(String),
    Tenant,
    Shard,
    Attr(String),
}

/// A key template.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Template(pub Vec<Seg>);

impl Template {
    fn yaml(&self) -> String {
        self.0
            .iter()
            .map(|s| match s {
                Seg::Lit(l) => l.clone(),
                Seg::Tenant => "<tenant>".into(),
                Seg::Shard => "<shard>".into(),
                Seg::Attr(a) => format!("<{a}>"),
            })
            .collect()
    }

    fn attrs(&self) -> impl Iterator<Item = &str> {
        self.0.iter().filter_map(|s| match s {
            Seg::Attr(a) => Some(a.as_str()),
            _ => None,
        })
    }

    /// The key text for a tenant, a shard and attribute values.
    fn encode(
        &self,
        tenant: &str,
        shard: u32,
        values: &dyn Fn(&str) -> Option<String>,
    ) -> Option<String> {
        let mut out = String::new();
        for s in &self.0 {
            match s {
                Seg::Lit(l) => out.push_str(l),
                Seg::Tenant => out.push_str(tenant),
                Seg::Shard => out.push_str(&shard.to_string()),
                Seg::Attr(a) => out.push_str(&values(a)?),
            }
        }
        Some(out)
    }

    fn sharded(&self) -> bool {
        self.0.contains(&Seg::Shard)
    }

    /// Prefixes cut right after a `#` (the forms a `begins_with` takes).
    fn delimited_prefixes(&self) -> Vec<Template> {
        let mut out = Vec::new();
        for (i, s) in self.0.iter().enumerate() {
            if let Seg::Lit(l) = s {
                for (j, c) in l.char_indices() {
                    if c == '#' || c == '|' {
                        let mut t = self.0[..i].to_vec();
                        t.push(Seg::Lit(l[..=j].to_owned()));
                        out.push(Template(t));
                    }
                }
            }
        }
        out
    }
}

/// One attribute of an entity.
#[derive(Debug, Clone)]
pub struct Attr {
    pub name: String,
    pub ty: Ty,
    pub optional: bool,
}

/// One entity.
#[derive(Debug, Clone)]
pub struct Entity {
    pub name: String,
    pub attrs: Vec<Attr>,
    pub pk: Template,
    pub sk: Template,
    /// `(index, pk, sk)`; a local index's pk is the table's.
    pub indexes: Vec<(String, Template, Template)>,
    /// Indexes of `indexes` the entity is in by the attributes it writes,
    /// without listing them.
    pub unlisted: Vec<String>,
    /// `scope: global`.
    pub global: bool,
    /// Write shards. Each item is in the shard the hash of its first
    /// partition attribute gives: by `hash(<attribute>)`, or, with
    /// `random_shards`, by `random` with the driver choosing that shard.
    pub shards: Option<u32>,
    /// `by: random`: no `get` pattern, items carry their `shard`.
    pub random_shards: bool,
    /// Has the version attribute `ver` (written by versioned upserts).
    pub versioned: bool,
}

/// An index: its name, key attribute names and whether it is local.
#[derive(Debug, Clone)]
pub struct Index {
    pub name: String,
    pub pk: String,
    pub sk: String,
    pub local: bool,
    /// The non-key attributes projected; `None`: all.
    pub projection: Option<Vec<&'static str>>,
}

pub use crate::semantics::Op;

/// How an operator is written in a spec.
fn op_yaml(op: Op) -> &'static str {
    match op {
        Op::Equals => "equals",
        Op::BeginsWith => "begins_with",
        Op::Lt => "lt",
        Op::Lte => "lte",
        Op::Gt => "gt",
        Op::Gte => "gte",
        Op::Between => "between",
    }
}

/// An access pattern.
#[derive(Debug, Clone)]
pub struct Pattern {
    pub name: String,
    /// `None`: the table.
    pub index: Option<String>,
    pub pk: Template,
    pub sk: Option<(Op, Vec<Template>)>,
    pub descending: bool,
    /// The entity whose templates the pattern's came from: its attribute types type the parameters.
    pub source: usize,
    /// It reads global entities: no tenant in its keys.
    pub global: bool,
    /// Declares `returns: <the source entity>` (otherwise `check` infers them).
    pub declares_returns: bool,
    /// `select`: attributes of the source entity, read as a partial type.
    pub select: Option<Vec<String>>,
    /// A filter on `note`: the operator, its operands, and whether they
    /// are passed as a parameter (`<probe>`, one operand) or written.
    pub filter: Option<(crate::semantics::FilterOp, Vec<String>, bool)>,
}

/// A scan access pattern of a global entity.
#[derive(Debug, Clone)]
pub struct ScanPattern {
    pub name: String,
    /// The entity scanned.
    pub entity: usize,
    /// `None`: the table; else an index of `ALL` the entity is in.
    pub index: Option<String>,
    /// A filter on `note`, as a query's.
    pub filter: Option<(crate::semantics::FilterOp, Vec<String>, bool)>,
}

/// A generated spec.
#[derive(Debug, Clone)]
pub struct Spec {
    pub seed: u64,
    /// The table's TTL attribute `exp`.
    pub ttl: bool,
    /// `entity_type: keys`: items carry no entity-type attribute, and every
    /// read tells entities apart by their primary keys' shapes.
    pub by_keys: bool,
    pub entities: Vec<Entity>,
    pub indexes: Vec<Index>,
    pub patterns: Vec<Pattern>,
    /// Scans of global entities, where items tell their entity by the
    /// entity-type attribute (the oracle reads it).
    pub scans: Vec<ScanPattern>,
}

const TENANTS: [&str; 2] = ["t1", "t10"];
const PARTITIONS: [&str; 4] = ["P#", "P#", "Q#", "PX#"];
const SORT_LITERALS: [&str; 8] = ["A", "A#", "AB#", "B#", "ITEM#", "ITEM#X#", "Z#", "PROFILE"];
const BOUND_LITERALS: [&str; 8] = [
    "A", "B", "ITEM#", "ITEM#5", "Z", "PROFILE", "A#a", "ITEM#X#",
];

/// The attribute pool, named like generated code's locals (`repo`,
/// `table`, `key`, `item`, `request`, …) so that a clash breaks the build:
/// one name keeps one type, except that `table` sometimes
/// gets other bounds (a parameter bound to attributes of two encodings).
fn pool(rng: &mut fastrand::Rng) -> Vec<(&'static str, Ty)> {
    vec![
        (
            "repo",
            Ty::Str {
                chars: "a-z",
                max: 3,
            },
        ),
        (
            "table",
            if rng.u8(..6) == 0 {
                Ty::Int { min: 0, max: 99 }
            } else {
                Ty::Int { min: 0, max: 999 }
            },
        ),
        ("key", Ty::Int { min: -50, max: 50 }),
        ("partitions", Ty::Enum(&["OPEN", "OPENED", "CLOSED"])),
        ("values", Ty::Escaped),
        (
            "item",
            Ty::Str {
                chars: "a-z0-9",
                max: 8,
            },
        ),
        ("request", Ty::Bool),
        ("scope", Ty::Datetime { digits: 0 }),
        ("client", Ty::Datetime { digits: 3 }),
    ]
}

/// An index's projection: mostly all; else keys only or a few attributes,
/// so that what a query returns must be read back out of the keys.
fn partial_projection(rng: &mut fastrand::Rng) -> Option<Vec<&'static str>> {
    match rng.u8(..4) {
        0 => Some(Vec::new()),
        1 => Some(vec!["note"]),
        _ => None,
    }
}

/// A filter on `note` (a string of `a-z`, up to 3 long, optional): an
/// operator and operands from its value pool, passed as a parameter when
/// the operator takes one operand (every other call).
fn draw_filter(rng: &mut fastrand::Rng) -> (crate::semantics::FilterOp, Vec<String>, bool) {
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
fn filter_yaml(filter: Option<&(crate::semantics::FilterOp, Vec<String>, bool)>) -> String {
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
fn filter_case(filter: Option<&(crate::semantics::FilterOp, Vec<String>, bool)>) -> String {
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
fn field_condition(field: &str, op: crate::semantics::FilterOp, operands: &[String]) -> String {
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

/// Names of generated code's locals, which a spec's names meet in the
/// bodies of generated functions.
const LOCALS: &[&str] = &[
    "item",
    "key",
    "update",
    "scope",
    "value",
    "values",
    "n",
    "index",
    "repo",
    "info",
    "request",
    "changes",
    "created",
    "now",
    "w",
    "r",
    "entity",
    "condition",
    "e",
    "v",
    "map",
    "context",
    "name",
    "s",
    "f",
    "av",
    "other",
    "label",
    "token",
    "error",
    "items",
    "keys",
    "labels",
    "page",
    "query",
    "client",
    "table",
    "options",
    "table_info",
    "decode",
    "partitions",
];

/// Draws a spec whose names are drawn from `vocabulary` (the names the
/// generated code keeps for itself, Rust's keywords and prelude names) as
/// well as from the generator's own (`E0`, `q1`, `note`).
pub fn generate(seed: u64, vocabulary: &[&str]) -> Spec {
    let mut spec = generate_plain(seed);
    name_from_vocabulary(&mut spec, vocabulary);
    spec
}

/// Renames some entities and access patterns after `vocabulary`, locals
/// and names the emitter derives from other names of the spec (`E0Key`,
/// `get_e0`, `add_to_note`, `set_info_label`, `with_timestamps`), and gives some entities
/// optional attributes so named: a name that meets a generated one must be
/// refused by `check` or compile. Drawn apart from the main sequence, so
/// that the rest of each seed's spec stays what it was.
fn name_from_vocabulary(spec: &mut Spec, vocabulary: &[&str]) {
    let mut rng = fastrand::Rng::with_seed(spec.seed ^ 0x0ca6_0b1a);
    let words: Vec<&str> = vocabulary.iter().chain(LOCALS).copied().collect();
    let identifier = |w: &str| {
        w.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !w.starts_with("__")
    };
    // Entities: a word in PascalCase, or another entity's generated type.
    let originals: Vec<String> = spec.entities.iter().map(|e| e.name.clone()).collect();
    for i in 0..spec.entities.len() {
        if rng.u8(..4) != 0 {
            continue;
        }
        let name = match rng.u8(..3) {
            0 => format!(
                "{}{}",
                originals[rng.usize(..originals.len())],
                ["Key", "Update", "Item", "Batch"][rng.usize(..4)]
            ),
            _ => pascal(words[rng.usize(..words.len())]),
        };
        if identifier(&name) && !spec.entities.iter().any(|e| e.name == name) {
            spec.entities[i].name = name;
        }
    }
    // Access patterns: a lowercase word, or an entity operation's name.
    let lowercase: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| w.chars().next().is_some_and(|c| c.is_ascii_lowercase()) && identifier(w))
        .collect();
    for i in 0..spec.patterns.len() {
        if rng.u8(..4) != 0 {
            continue;
        }
        let entity = spec.entities[rng.usize(..spec.entities.len())]
            .name
            .to_lowercase();
        let name = match rng.u8(..3) {
            0 => format!(
                "{}_{entity}{}",
                ["get", "put", "update", "delete", "create", "replace"][rng.usize(..6)],
                ["", "_when", "_item"][rng.usize(..3)]
            ),
            _ => lowercase[rng.usize(..lowercase.len())].to_owned(),
        };
        let taken = spec.patterns.iter().any(|p| p.name == name)
            || spec.scans.iter().any(|s| s.name == name)
            || spec
                .entities
                .iter()
                .any(|e| format!("get_{}", e.name.to_lowercase()) == name);
        if !taken {
            spec.patterns[i].name = name;
        }
    }
    // Attributes: optional strings named like generated members.
    for e in &mut spec.entities {
        if rng.u8(..3) != 0 {
            continue;
        }
        for _ in 0..1 + rng.usize(..2) {
            let name = match rng.u8(..5) {
                0 => {
                    let other = &e.attrs[rng.usize(..e.attrs.len())].name;
                    ["add_", "add_to_", "append_to_", "set_info_"][rng.usize(..4)].to_owned()
                        + other
                }
                // An optional attribute's `with_…` method meets the entity's
                // own `with_timestamps`, or `with_key` meets `key`'s.
                1 => ["timestamps", "key", "new"][rng.usize(..3)].to_owned(),
                _ => words[rng.usize(..words.len())].to_owned(),
            };
            if identifier(&name) && !e.attrs.iter().any(|a| a.name == name) {
                e.attrs.push(Attr {
                    name,
                    ty: Ty::Str {
                        chars: "a-z",
                        max: 3,
                    },
                    optional: true,
                });
            }
        }
    }
}

/// The Rust names the generated module gives a spec's items, as the
/// compiler's name table decides them (filled in by the build script), so
/// that the driver calls what the module defines.
#[derive(Debug, Default)]
pub struct Names {
    /// Per entity: its struct, key type and update type.
    pub types: std::collections::BTreeMap<String, [String; 3]>,
    /// Per `(entity, attribute)`: the field (also the update's setter).
    pub fields: std::collections::BTreeMap<(String, String), String>,
    /// Per `(entity, attribute)`: the field constant.
    pub consts: std::collections::BTreeMap<(String, String), String>,
    /// Per `(entity, verb)`: the repository method.
    pub ops: std::collections::BTreeMap<(String, String), String>,
    /// Per access pattern: its method.
    pub methods: std::collections::BTreeMap<String, String>,
    /// Per access pattern returning several entities: its item enum.
    pub item_enums: std::collections::BTreeMap<String, String>,
}

impl Names {
    fn get<'a, K: Ord + std::fmt::Debug>(
        map: &'a std::collections::BTreeMap<K, String>,
        key: &K,
    ) -> &'a str {
        map.get(key)
            .unwrap_or_else(|| panic!("no generated name for {key:?}"))
    }
    fn ty(&self, entity: &str) -> &str {
        &self.types[entity][0]
    }
    fn key(&self, entity: &str) -> &str {
        &self.types[entity][1]
    }
    fn update(&self, entity: &str) -> &str {
        &self.types[entity][2]
    }
    fn field(&self, entity: &str, attribute: &str) -> &str {
        Self::get(&self.fields, &(entity.to_owned(), attribute.to_owned()))
    }
    fn field_const(&self, entity: &str, attribute: &str) -> &str {
        Self::get(&self.consts, &(entity.to_owned(), attribute.to_owned()))
    }
    fn op(&self, entity: &str, verb: &str) -> &str {
        Self::get(&self.ops, &(entity.to_owned(), verb.to_owned()))
    }
    fn method(&self, pattern: &str) -> &str {
        Self::get(&self.methods, &pattern.to_owned())
    }
    fn item_enum(&self, pattern: &str) -> &str {
        Self::get(&self.item_enums, &pattern.to_owned())
    }
}

/// Draws a spec with the generator's own names.
fn generate_plain(seed: u64) -> Spec {
    let mut rng = fastrand::Rng::with_seed(seed);
    let inverted = rng.u8(..4) == 0;
    let ttl = rng.u8(..3) == 0;
    let indexes = draw_indexes(&mut rng, inverted);
    let count = 2 + rng.usize(..3);
    let mut entities = Vec::new();
    for e in 0..count {
        let entity = draw_entity(&mut rng, e, &indexes, (inverted, ttl), &entities);
        entities.push(entity);
    }

    let mut patterns = Vec::new();
    for n in 0..(3 + rng.usize(..4)) {
        patterns.push(draw_pattern(&mut rng, seed, n, &entities, &indexes));
    }
    // Drawn apart from the main sequence, so that the rest of each seed's
    // spec stays what it was.
    let by_keys = fastrand::Rng::with_seed(seed ^ 0xe7e7).u8(..3) == 0;
    let scans = if by_keys {
        Vec::new()
    } else {
        draw_scans(seed, &entities, &indexes)
    };
    Spec {
        seed,
        ttl,
        by_keys,
        entities,
        indexes,
        patterns,
        scans,
    }
}

/// The table's indexes: GSI1 (its key names any DynamoDB accepts), the
/// inverted index, GSI2 (GSI1's partition key with the table's sort key)
/// and an LSI, each drawn or not.
fn draw_indexes(rng: &mut fastrand::Rng, inverted: bool) -> Vec<Index> {
    let mut indexes = Vec::new();
    // Key attribute names are any name DynamoDB accepts.
    let (gsi_pk, gsi_sk) = [
        ("gsi1pk", "gsi1sk"),
        ("GSI1-PK", "GSI1.SK"),
        ("Status#Time", "sort key"),
        ("1pk", "é sk"),
    ][rng.usize(..4)];
    if rng.bool() {
        indexes.push(Index {
            name: "GSI1".into(),
            pk: gsi_pk.into(),
            sk: gsi_sk.into(),
            local: false,
            projection: partial_projection(rng),
        });
    }
    if inverted {
        indexes.push(Index {
            name: "Inverted".into(),
            pk: "sk".into(),
            sk: "pk".into(),
            local: false,
            projection: None,
        });
    }
    if !indexes.is_empty() && indexes[0].name == "GSI1" && rng.u8(..3) == 0 {
        indexes.push(Index {
            name: "GSI2".into(),
            pk: gsi_pk.into(),
            sk: "sk".into(),
            local: false,
            projection: None,
        });
    }
    if rng.u8(..4) == 0 {
        indexes.push(Index {
            name: "LSI1".into(),
            pk: "pk".into(),
            sk: "lsi1sk".into(),
            local: true,
            projection: partial_projection(rng),
        });
    }
    indexes
}

/// Entity `e`: its attributes from a pool, its table keys, the indexes it
/// lists (sometimes sparse) and those its keys put it in unlisted.
fn draw_entity(
    rng: &mut fastrand::Rng,
    e: usize,
    indexes: &[Index],
    (inverted, ttl): (bool, bool),
    entities: &[Entity],
) -> Entity {
    let pool = pool(rng);
    let pick = |rng: &mut fastrand::Rng| pool[rng.usize(..pool.len())].clone();
    let mut attrs: Vec<Attr> = Vec::new();
    let use_attr = |attrs: &mut Vec<Attr>, (name, ty): (&'static str, Ty), optional: bool| {
        if !attrs.iter().any(|a| a.name == name) {
            attrs.push(Attr {
                name: name.into(),
                ty,
                optional,
            });
        }
        name.to_owned()
    };
    let global = rng.u8(..5) == 0;
    let versioned = !global && rng.u8(..5) == 0;
    let shards = (!versioned && rng.u8(..6) == 0).then_some(3);
    let random_shards = shards.is_some() && rng.bool();
    let tenant = if global {
        vec![Seg::Lit("G#".into())]
    } else {
        vec![Seg::Lit("T#".into()), Seg::Tenant, Seg::Lit("|".into())]
    };
    let mut pk = tenant.clone();
    // Mostly the shared partition `P#<p>` (collections, near
    // collisions between entities); else a partition of one attribute.
    let (literal, attr) = if rng.u8(..3) > 0 {
        ("P#".to_owned(), pool[0].clone())
    } else {
        let (name, ty) = pick(rng);
        let literal = PARTITIONS[rng.usize(..PARTITIONS.len())];
        (
            format!("{}{name}#", literal.trim_end_matches('#')),
            (name, ty),
        )
    };
    pk.push(Seg::Lit(literal));
    let first = use_attr(&mut attrs, attr, false);
    pk.push(Seg::Attr(first.clone()));
    if shards.is_some() {
        pk.push(Seg::Lit("|S#".into()));
        pk.push(Seg::Shard);
    }
    let mut sk = if inverted { tenant.clone() } else { Vec::new() };
    let lit = SORT_LITERALS[rng.usize(..SORT_LITERALS.len())];
    sk.push(Seg::Lit(lit.into()));
    let holes = if lit.ends_with('#') {
        1 + rng.usize(..2)
    } else {
        rng.usize(..2)
    };
    for i in 0..holes {
        if i > 0 || !lit.ends_with('#') {
            sk.push(Seg::Lit("#".into()));
        }
        sk.push(Seg::Attr(use_attr(&mut attrs, pick(rng), false)));
    }
    let mut entity_indexes = Vec::new();
    for index in indexes {
        if index.name == "Inverted" || index.name == "GSI2" || versioned || !rng.bool() {
            continue;
        }
        // Sometimes sparse: an optional attribute only this index uses.
        let sparse = rng.u8(..3) == 0;
        let mut isk = vec![Seg::Lit(
            SORT_LITERALS[rng.usize(..SORT_LITERALS.len())].into(),
        )];
        if !matches!(isk[0], Seg::Lit(ref l) if l.ends_with('#')) {
            isk.push(Seg::Lit("#".into()));
        }
        let (name, ty) = pick(rng);
        let attr = if sparse {
            let sparse_name = format!("o{name}");
            if !attrs.iter().any(|a| a.name == sparse_name) {
                attrs.push(Attr {
                    name: sparse_name.clone(),
                    ty,
                    optional: true,
                });
            }
            sparse_name
        } else {
            use_attr(&mut attrs, (name, ty), false)
        };
        isk.push(Seg::Attr(attr));
        let ipk = if index.local {
            Template(pk.clone())
        } else {
            let mut ipk = tenant.clone();
            // Mostly the shared partition `G`, where entities meet.
            ipk.push(Seg::Lit(["S#", "G", "G", "P#"][rng.usize(..4)].into()));
            if !matches!(ipk.last(), Some(Seg::Lit(l)) if l == "G") {
                ipk.push(Seg::Attr(use_attr(&mut attrs, pick(rng), false)));
            }
            if shards.is_some() {
                ipk.push(Seg::Lit("|S#".into()));
                ipk.push(Seg::Shard);
            }
            Template(ipk)
        };
        entity_indexes.push((index.name.clone(), ipk, Template(isk)));
    }
    // Indexes keyed on attributes the entity writes anyway hold its
    // items whether or not it lists them: the inverted index (the
    // table's keys swapped), and GSI2 (GSI1's partition key with the
    // table's sort key).
    let mut unlisted = Vec::new();
    if let Some(gsi1) = entity_indexes
        .iter()
        .find(|(name, _, _)| name == "GSI1")
        .cloned()
    {
        if indexes.iter().any(|i| i.name == "GSI2") {
            entity_indexes.push(("GSI2".into(), gsi1.1, Template(sk.clone())));
            // The first entity in it lists it, the others mostly not.
            let first = !entities
                .iter()
                .any(|e: &Entity| e.indexes.iter().any(|(i, _, _)| i == "GSI2"));
            if !first && rng.u8(..4) > 0 {
                unlisted.push("GSI2".to_owned());
            }
        }
    }
    if inverted {
        entity_indexes.push((
            "Inverted".into(),
            Template(sk.clone()),
            Template(pk.clone()),
        ));
        if e > 0 && rng.u8(..4) > 0 {
            unlisted.push("Inverted".to_owned());
        }
    }
    attrs.push(Attr {
        name: "note".into(),
        ty: Ty::Str {
            chars: "a-z",
            max: 3,
        },
        optional: versioned || rng.bool(),
    });
    if versioned {
        attrs.push(Attr {
            name: "ver".into(),
            ty: Ty::Int {
                min: 1,
                max: 1_000_000,
            },
            optional: false,
        });
    }
    if rng.u8(..3) == 0 {
        attrs.push(Attr {
            name: "info".into(),
            ty: Ty::Record,
            optional: rng.bool(),
        });
    }
    if ttl && rng.bool() {
        attrs.push(Attr {
            name: "exp".into(),
            ty: Ty::Epoch,
            optional: rng.bool(),
        });
    }
    Entity {
        name: format!("E{e}"),
        attrs,
        pk: Template(pk),
        sk: Template(sk),
        indexes: entity_indexes,
        unlisted,
        global,
        shards,
        random_shards,
        versioned,
    }
}

/// Query pattern `n` of one entity: its key condition, selection and filter.
fn draw_pattern(
    rng: &mut fastrand::Rng,
    seed: u64,
    n: usize,
    entities: &[Entity],
    indexes: &[Index],
) -> Pattern {
    let source = rng.usize(..entities.len());
    let e = &entities[source];
    let choice = rng.usize(..=e.indexes.len());
    let (index, pk, sk) = match choice {
        0 => (None, e.pk.clone(), e.sk.clone()),
        i => {
            let (name, pk, sk) = &e.indexes[i - 1];
            (Some(name.clone()), pk.clone(), sk.clone())
        }
    };
    let bound = |rng: &mut fastrand::Rng| -> Template {
        match rng.u8(..3) {
            0 => sk.clone(),
            1 => {
                let prefixes = sk.delimited_prefixes();
                if prefixes.is_empty() {
                    sk.clone()
                } else {
                    prefixes[rng.usize(..prefixes.len())].clone()
                }
            }
            _ => {
                let mut t: Vec<Seg> = if sk.0.get(1) == Some(&Seg::Tenant) {
                    sk.0[..3].to_vec()
                } else {
                    Vec::new()
                };
                t.push(Seg::Lit(
                    BOUND_LITERALS[rng.usize(..BOUND_LITERALS.len())].into(),
                ));
                Template(t)
            }
        }
    };
    let cond = match rng.u8(..9) {
        0 | 1 => None,
        2 => Some((Op::Equals, vec![sk.clone()])),
        3 => {
            let prefixes = sk.delimited_prefixes();
            (!prefixes.is_empty()).then(|| {
                (
                    Op::BeginsWith,
                    vec![prefixes[rng.usize(..prefixes.len())].clone()],
                )
            })
        }
        4 => Some((Op::Lt, vec![bound(rng)])),
        5 => Some((Op::Lte, vec![bound(rng)])),
        6 => Some((Op::Gt, vec![bound(rng)])),
        7 => Some((Op::Gte, vec![bound(rng)])),
        _ => Some((Op::Between, vec![bound(rng), bound(rng)])),
    };
    // Half the table queries of an entity sharded at random name one
    // whole key per shard: the shards are read with BatchGetItem.
    // Drawn apart from the main sequence.
    let cond = if e.random_shards
        && index.is_none()
        && fastrand::Rng::with_seed(seed ^ 0xba7c_4 ^ n as u64).bool()
    {
        Some((Op::Equals, vec![sk.clone()]))
    } else {
        cond
    };
    // Drawn apart from the main sequence (see `by_keys`); only where
    // every attribute is carried (the table, or an index of `ALL`), so
    // that the selection never names what the index leaves out.
    let mut picks = fastrand::Rng::with_seed(seed ^ 0x5e1e_c7 ^ n as u64);
    let carries_all = index.as_ref().is_none_or(|i| {
        indexes
            .iter()
            .any(|x| x.name == *i && x.projection.is_none())
    });
    let select = (carries_all && picks.u8(..4) == 0).then(|| {
        let mut names: Vec<String> = e
            .attrs
            .iter()
            .filter(|_| picks.bool())
            .map(|a| a.name.clone())
            .collect();
        if names.is_empty() {
            names.extend(e.attrs.first().map(|a| a.name.clone()));
        }
        names
    });
    // A filter on `note` (every entity's, never in a key), where the
    // index carries it; drawn apart from the main sequence too.
    let carries_note = index.as_ref().is_none_or(|i| {
        indexes
            .iter()
            .any(|x| x.name == *i && x.projection.as_ref().is_none_or(|p| p.contains(&"note")))
    });
    let filter = (carries_note && picks.u8(..3) == 0).then(|| draw_filter(&mut picks));
    Pattern {
        name: format!("q{n}"),
        index,
        pk,
        sk: cond,
        descending: rng.bool(),
        source,
        global: e.global,
        declares_returns: rng.u8(..5) < 2,
        select,
        filter,
    }
}

/// Scans of the global entities, drawn apart from the main sequence: of
/// the table, or of an index that projects everything and that the entity
/// is in, some filtered on `note`.
fn draw_scans(seed: u64, entities: &[Entity], indexes: &[Index]) -> Vec<ScanPattern> {
    let mut rng = fastrand::Rng::with_seed(seed ^ 0x5ca7_7e57);
    let mut scans = Vec::new();
    for (n, (i, e)) in entities
        .iter()
        .enumerate()
        .filter(|(_, e)| e.global)
        .enumerate()
    {
        if rng.u8(..3) == 0 {
            continue;
        }
        let whole: Vec<&String> = e
            .indexes
            .iter()
            .map(|(name, _, _)| name)
            .filter(|name| {
                indexes
                    .iter()
                    .any(|x| x.name == **name && x.projection.is_none())
            })
            .collect();
        let index =
            (!whole.is_empty() && rng.bool()).then(|| whole[rng.usize(..whole.len())].clone());
        let filter = (rng.u8(..3) == 0).then(|| draw_filter(&mut rng));
        scans.push(ScanPattern {
            name: format!("s{n}"),
            entity: i,
            index,
            filter,
        });
    }
    scans
}

impl Spec {
    /// The spec as YAML.
    pub fn yaml(&self) -> String {
        let mut y = String::new();
        let _ = writeln!(y, "# soundness harness, seed {}", self.seed);
        let ttl = if self.ttl { ", ttl: exp" } else { "" };
        let by_keys = if self.by_keys {
            ", entity_type: keys"
        } else {
            ""
        };
        let _ = writeln!(
            y,
            "version: 1\ntable: {{ name: Soundness, partition_key: pk, sort_key: sk{ttl}{by_keys} }}"
        );
        y.push_str("tenant: { placeholder: tenant, id_pattern: \"^[a-z0-9]{1,12}$\" }\n");
        y.push_str("lints: { gsi_write_isolation: allow, unused_index: allow, unused_entity: allow, low_cardinality_index: allow, scan_pattern: allow }\n");
        if !self.indexes.is_empty() {
            y.push_str("indexes:\n");
            for i in &self.indexes {
                let projection = match &i.projection {
                    None => "all".to_owned(),
                    Some(names) if names.is_empty() => "keys_only".to_owned(),
                    Some(names) => format!("[{}]", names.join(", ")),
                };
                if i.local {
                    let _ = writeln!(
                        y,
                        "  {}: {{ kind: local, sort_key: {:?}, projection: {projection} }}",
                        i.name, i.sk
                    );
                } else {
                    let _ = writeln!(
                        y,
                        "  {}: {{ partition_key: {:?}, sort_key: {:?}, projection: {projection} }}",
                        i.name, i.pk, i.sk
                    );
                }
            }
        }
        y.push_str("entities:\n");
        for e in &self.entities {
            let _ = writeln!(y, "  {}:\n    attributes:", e.name);
            for a in &e.attrs {
                let ty = a.ty.yaml();
                if a.optional {
                    let inner = ty.trim_start_matches('{').trim_end_matches('}').trim();
                    let inner = if ty.starts_with('{') {
                        inner.to_owned()
                    } else {
                        format!("type: {ty}")
                    };
                    let _ = writeln!(y, "      {}: {{ {inner}, optional: true }}", a.name);
                } else {
                    let _ = writeln!(y, "      {}: {ty}", a.name);
                }
            }
            if e.global {
                y.push_str("    scope: global\n");
            }
            if let (Some(count), Some(first)) = (e.shards, e.pk.attrs().next()) {
                if e.random_shards {
                    let _ = writeln!(y, "    shards: {{ count: {count}, by: random }}");
                } else {
                    let _ = writeln!(
                        y,
                        "    shards: {{ count: {count}, by: \"hash(<{first}>)\" }}"
                    );
                }
            }
            if e.versioned {
                y.push_str("    version_attribute: ver\n");
            }
            let _ = writeln!(
                y,
                "    key: {{ pk: \"{}\", sk: \"{}\" }}",
                e.pk.yaml(),
                e.sk.yaml()
            );
            if e.indexes.len() > e.unlisted.len() {
                y.push_str("    indexes:\n");
                for (name, pk, sk) in e
                    .indexes
                    .iter()
                    .filter(|(name, _, _)| !e.unlisted.contains(name))
                {
                    let local = self.indexes.iter().any(|i| i.name == *name && i.local);
                    if local {
                        let _ = writeln!(y, "      {name}: {{ sk: \"{}\" }}", sk.yaml());
                    } else {
                        let _ = writeln!(
                            y,
                            "      {name}: {{ pk: \"{}\", sk: \"{}\" }}",
                            pk.yaml(),
                            sk.yaml()
                        );
                    }
                }
            }
        }
        y.push_str("access_patterns:\n");
        // A `get` of an entity sharded at random is `sharded_get`.
        for e in self.entities.iter().filter(|e| !e.random_shards) {
            let _ = writeln!(y, "  get_{}: {{ get: {} }}", e.name.to_lowercase(), e.name);
        }
        for p in &self.patterns {
            let _ = write!(y, "  {}:\n", p.name);
            if let Some(i) = &p.index {
                let _ = writeln!(y, "    index: {i}");
            }
            let sk = match &p.sk {
                None => String::new(),
                Some((Op::Between, ops)) => format!(
                    ", sk: {{ between: [\"{}\", \"{}\"] }}",
                    ops[0].yaml(),
                    ops[1].yaml()
                ),
                Some((op, ops)) => format!(", sk: {{ {}: \"{}\" }}", op_yaml(*op), ops[0].yaml()),
            };
            let _ = writeln!(y, "    query: {{ pk: \"{}\"{sk} }}", p.pk.yaml());
            if p.descending {
                y.push_str("    order: descending\n");
            }
            if p.declares_returns {
                let _ = writeln!(y, "    returns: {}", self.entities[p.source].name);
            }
            if let Some(select) = &p.select {
                let _ = writeln!(y, "    select: [{}]", select.join(", "));
            }
            y.push_str(&filter_yaml(p.filter.as_ref()));
        }
        for scan in &self.scans {
            let _ = writeln!(y, "  {}:", scan.name);
            let _ = writeln!(y, "    scan: {}", self.entities[scan.entity].name);
            if let Some(i) = &scan.index {
                let _ = writeln!(y, "    index: {i}");
            }
            y.push_str(&filter_yaml(scan.filter.as_ref()));
        }
        y
    }

    fn attr_type(&self, entity: usize, name: &str) -> Option<&Ty> {
        self.entities[entity]
            .attrs
            .iter()
            .find(|a| a.name == name)
            .map(|a| &a.ty)
    }
}

/// The attribute placeholders of `templates`, each once, in order.
fn attr_names<'t>(templates: impl Iterator<Item = &'t Template>) -> Vec<&'t str> {
    let mut names: Vec<&str> = Vec::new();
    for a in templates.flat_map(Template::attrs) {
        if !names.contains(&a) {
            names.push(a);
        }
    }
    names
}

/// The value pool of each name, typed as `entity`'s attribute of that name.
fn pools(names: &[&str], entity: &Entity) -> Vec<Vec<Value>> {
    names
        .iter()
        .map(|n| {
            entity
                .attrs
                .iter()
                .find(|a| a.name == *n)
                .map_or_else(Vec::new, |a| a.ty.pool())
        })
        .collect()
}

/// Every choice of one value from each pool (as indexes), in order: an
/// odometer over the pools' sizes. None when a pool is empty.
fn combinations(pools: &[Vec<Value>]) -> impl Iterator<Item = Vec<usize>> + '_ {
    let mut next = (!pools.iter().any(Vec::is_empty)).then(|| vec![0; pools.len()]);
    std::iter::from_fn(move || {
        let current = next.take()?;
        let mut advanced = current.clone();
        for (i, pool) in pools.iter().enumerate() {
            advanced[i] += 1;
            if advanced[i] < pool.len() {
                next = Some(advanced);
                break;
            }
            advanced[i] = 0;
        }
        Some(current)
    })
}

/// The key text of each name for one combination.
fn lookup<'a>(
    names: &'a [&str],
    pools: &'a [Vec<Value>],
    choice: &'a [usize],
) -> impl Fn(&str) -> Option<String> + 'a {
    move |n| {
        names
            .iter()
            .position(|m| *m == n)
            .map(|i| pools[i][choice[i]].key.clone())
    }
}

/// The keys an entity's items can have over the value pools (optional
/// attributes present): per item, the table's `(pk, sk)` and each index's
/// `(index, pk, sk)`. At most `cap` items.
fn item_keys(e: &Entity, tenant: &str, cap: usize) -> Vec<Vec<(Option<String>, String, String)>> {
    let templates = [&e.pk, &e.sk]
        .into_iter()
        .chain(e.indexes.iter().flat_map(|(_, pk, sk)| [pk, sk]));
    let names = attr_names(templates);
    let pools = pools(&names, e);
    combinations(&pools)
        .take(cap)
        .flat_map(|choice| {
            // An item sharded at random may be written to any shard: one
            // possible item per shard.
            let first = {
                let lookup = lookup(&names, &pools, &choice);
                e.pk.attrs().next().and_then(|a| lookup(a))
            };
            let shards: Vec<u32> = match (e.shards, first) {
                (Some(count), _) if e.random_shards => (0..count).collect(),
                (Some(count), Some(v)) => {
                    vec![hash_shard(&v, count)]
                }
                _ => vec![0],
            };
            shards.into_iter().map(move |shard| (choice.clone(), shard))
        })
        .map(|(choice, shard)| {
            let lookup = lookup(&names, &pools, &choice);
            let key = |pk: &Template, sk: &Template| {
                Some((
                    pk.encode(tenant, shard, &lookup)?,
                    sk.encode(tenant, shard, &lookup)?,
                ))
            };
            let table = key(&e.pk, &e.sk).map(|(pk, sk)| (None, pk, sk));
            let indexes = e.indexes.iter().filter_map(|(index, pk, sk)| {
                key(pk, sk).map(|(pk, sk)| (Some(index.clone()), pk, sk))
            });
            table.into_iter().chain(indexes).collect()
        })
        .collect()
}

/// A witness that two entities write the same primary key, searched over
/// the value pools: what makes a `key_collision` real.
pub fn collision_witness(spec: &Spec) -> Option<String> {
    let keys: Vec<Vec<(String, String)>> = spec
        .entities
        .iter()
        .map(|e| {
            item_keys(e, TENANTS[0], 20_000)
                .into_iter()
                .filter_map(|k| {
                    k.into_iter()
                        .find(|(i, _, _)| i.is_none())
                        .map(|(_, pk, sk)| (pk, sk))
                })
                .collect()
        })
        .collect();
    for (a, ka) in keys.iter().enumerate() {
        let set: std::collections::HashSet<&(String, String)> = ka.iter().collect();
        for (b, kb) in keys.iter().enumerate().skip(a + 1) {
            if let Some(k) = kb.iter().find(|k| set.contains(k)) {
                return Some(format!(
                    "{} and {} both write {k:?}",
                    spec.entities[a].name, spec.entities[b].name
                ));
            }
        }
    }
    None
}

/// A witness that a pattern declaring its returns reads an item of an
/// entity it does not declare, searched over the value pools (parameters
/// typed as the declared entity's attributes): what makes a
/// `key_space_overlap` real.
pub fn overlap_witness(spec: &Spec) -> Option<String> {
    for p in spec.patterns.iter().filter(|p| p.declares_returns) {
        let source = &spec.entities[p.source];
        let names =
            attr_names(std::iter::once(&p.pk).chain(p.sk.iter().flat_map(|(_, ops)| ops.iter())));
        let pools = pools(&names, source);
        // The other entities' keys on the pattern's index, by partition.
        let mut partitions: std::collections::HashMap<String, Vec<(usize, String)>> =
            Default::default();
        for (i, e) in spec.entities.iter().enumerate() {
            if i == p.source || e.global != p.global {
                continue;
            }
            for keys in item_keys(e, TENANTS[0], 20_000) {
                for (index, pk, sk) in keys {
                    if index == p.index {
                        partitions.entry(pk).or_default().push((i, sk));
                    }
                }
            }
        }
        for choice in combinations(&pools) {
            let lookup = lookup(&names, &pools, &choice);
            for shard in 0..source.shards.unwrap_or(1) {
                let Some(pk) = p.pk.encode(TENANTS[0], shard, &lookup) else {
                    continue;
                };
                let operands: Option<Vec<String>> =
                    p.sk.as_ref().map_or(Some(Vec::new()), |(_, ops)| {
                        ops.iter()
                            .map(|o| o.encode(TENANTS[0], shard, &lookup))
                            .collect()
                    });
                let Some(operands) = operands else { continue };
                for (entity, sk) in partitions.get(&pk).into_iter().flatten() {
                    if p.sk.as_ref().is_none_or(|(op, _)| op.holds(sk, &operands)) {
                        return Some(format!(
                            "{} reads {} item ({pk:?}, {sk:?})",
                            p.name, spec.entities[*entity].name
                        ));
                    }
                }
            }
        }
    }
    None
}

/// What the driver needs from the compiler about one access pattern: how
/// to call it (the parameter order and the entities it returns).
#[derive(Debug, Clone)]
pub struct Call {
    pub pattern: String,
    /// Each parameter, with an `(entity, attribute)` it fills: the
    /// generator's own type for that attribute draws and encodes its values.
    pub params: Vec<(String, String, String)>,
    pub returns: Vec<String>,
    /// The entities it reads in part, with their partial types.
    pub partials: Vec<(String, String)>,
}

fn pascal(snake: &str) -> String {
    snake
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
        })
        .collect()
}

fn rust_str(s: &str) -> String {
    format!("{s:?}")
}

/// The driver module of one accepted spec.
pub fn render_driver(spec: &Spec, module: &str, calls: &[Call], names: &Names) -> String {
    let mut rng = fastrand::Rng::with_seed(spec.seed ^ 0x5eed);
    let mut d = String::new();
    let _ = writeln!(d, "pub mod {module} {{");
    let _ = writeln!(d, "    singletable_runtime::include_generated!(pub generated, concat!(env!(\"OUT_DIR\"), \"/{module}.rs\"));");
    d.push_str("    use generated::*;\n    use singletable_runtime::Entity as _;\n");
    let _ = writeln!(
        d,
        "    /// The spec.\n    pub const SPEC: &str = {};",
        rust_str(&spec.yaml())
    );
    d.push_str("    /// Writes the items and runs every call.\n");
    d.push_str("    pub async fn run(client: singletable_runtime::sdk::Client, table: String) -> crate::soundness::Run {\n");
    let _ = writeln!(
        d,
        "        let mut run = crate::soundness::Run::new({}, SPEC);",
        spec.seed
    );
    d.push_str("        let repo = Repository::new(client.clone()).with_table_name(&table);\n");
    d.push_str("        if let Err(e) = repo.create_table().await { run.failed(\"create_table\", &e); return run; }\n");
    for (t, tenant) in TENANTS.iter().enumerate() {
        let _ = writeln!(d, "        let t{t} = TenantId::new({tenant:?}).unwrap();\n        let r{t} = repo.for_tenant(&t{t});");
    }
    render_writes(spec, &mut rng, &mut d, names);
    d.push_str("        run.scan(&client, &table).await;\n");
    for call in calls {
        render_call(spec, call, &mut rng, &mut d, names);
    }
    render_scans(spec, &mut rng, &mut d, names);
    d.push_str("        run\n    }\n}\n");
    d
}

/// The driver's writes: a few items per entity and tenant, values from
/// small pools so that collections form and keys come close; versioned
/// items through `update(..).or_create()`, and sometimes a conditional
/// update of an item just written.
fn render_writes(spec: &Spec, rng: &mut fastrand::Rng, d: &mut String, names: &Names) {
    let mut versioned_keys = std::collections::BTreeSet::new();
    let mut picks = fastrand::Rng::with_seed(spec.seed ^ 0xc0d1);
    for (t, tenant) in TENANTS.iter().enumerate() {
        for e in &spec.entities {
            if e.global && t > 0 {
                continue;
            }
            let handle = if e.global {
                "repo".to_owned()
            } else {
                format!("r{t}")
            };
            let (put, update) = (names.op(&e.name, "put"), names.op(&e.name, "update"));
            let (ty, key_ty, update_ty) =
                (names.ty(&e.name), names.key(&e.name), names.update(&e.name));
            let field = |a: &str| names.field(&e.name, a);
            for _ in 0..(2 + rng.usize(..4)) {
                let values: Vec<(&Attr, Value, bool)> = e
                    .attrs
                    .iter()
                    .map(|a| (a, a.ty.value(rng), !a.optional || rng.bool()))
                    .collect();
                if e.versioned {
                    let lookup = |name: &str| {
                        values
                            .iter()
                            .find(|(a, _, _)| a.name == name)
                            .map(|(_, v, _)| v.key.clone())
                    };
                    let key = (
                        e.pk.encode(tenant, 0, &lookup),
                        e.sk.encode(tenant, 0, &lookup),
                    );
                    if !versioned_keys.insert(key) {
                        continue;
                    }
                    let in_key: Vec<&str> = e.pk.attrs().chain(e.sk.attrs()).collect();
                    let mut key_fields = String::new();
                    let mut setters = String::new();
                    for (a, v, present) in &values {
                        if in_key.contains(&a.name.as_str()) {
                            let _ = write!(key_fields, "{}: {}, ", field(&a.name), v.rust);
                        } else if a.name == "ver" {
                            let _ = write!(setters, ".{}(1_i64)", field("ver"));
                        } else if a.optional {
                            let value = if *present {
                                format!("Some({})", v.rust)
                            } else {
                                "None".into()
                            };
                            let _ = write!(setters, ".{}({value})", field(&a.name));
                        } else {
                            let _ = write!(setters, ".{}({})", field(&a.name), v.rust);
                        }
                    }
                    let _ = writeln!(d, "        run.wrote(\"{update} or_create\", {handle}.{update}(&{key_ty} {{ {key_fields}}}, {update_ty}::default(){setters}.or_create()).await);");
                    continue;
                }
                let mut fields = String::new();
                for (a, v, present) in &values {
                    if a.optional {
                        let value = if *present {
                            format!("Some({})", v.rust)
                        } else {
                            "None".into()
                        };
                        let _ = write!(fields, "{}: {value}, ", field(&a.name));
                    } else {
                        let _ = write!(fields, "{}: {}, ", field(&a.name), v.rust);
                    }
                }
                // A random-sharded item goes to the shard its hash gives,
                // where the oracle's keys expect it.
                if let (true, Some(count), Some(first)) =
                    (e.random_shards, e.shards, e.pk.attrs().next())
                {
                    let key = values
                        .iter()
                        .find(|(a, _, _)| a.name == first)
                        .map(|(_, v, _)| v.key.as_str())
                        .unwrap_or_default();
                    let _ = write!(fields, "shard: {}, ", hash_shard(key, count));
                }
                let _ = writeln!(d, "        let item = {ty} {{ {fields}}};");
                let _ = writeln!(
                    d,
                    "        run.wrote(\"{put}\", {handle}.{put}(&item).await);"
                );
                // Sometimes, a conditional update of the item just written,
                // on its `note`: drawn apart from the main sequence.
                if picks.u8(..3) == 0 {
                    let (op, operands, _) = draw_filter(&mut picks);
                    let note = values
                        .iter()
                        .find(|(a, _, _)| a.name == "note")
                        .and_then(|(_, v, present)| present.then(|| v.key.clone()));
                    let holds = op.holds(note.as_deref(), &operands);
                    let condition = field_condition(
                        &format!("{ty}::{}", names.field_const(&e.name, "note")),
                        op,
                        &operands,
                    );
                    let what = format!("{update} when {op:?} {operands:?} on {note:?}");
                    let optional = e.attrs.iter().any(|a| a.name == "note" && a.optional);
                    let set = if optional {
                        "Some(\"q\".to_owned())"
                    } else {
                        "\"q\""
                    };
                    let _ = writeln!(d, "        run.conditioned({what:?}, {holds}, {handle}.{update}(&item.key(), {update_ty}::default().{}({set}).when({condition})).await);", field("note"));
                }
            }
        }
    }
}

/// The driver's calls of one query pattern: three, each for a tenant, with
/// drawn arguments, page size and limit, and what the oracle needs to
/// judge the answer.
fn render_call(spec: &Spec, call: &Call, rng: &mut fastrand::Rng, d: &mut String, names: &Names) {
    let Some(p) = spec.patterns.iter().find(|p| p.name == call.pattern) else {
        return;
    };
    let index = spec
        .indexes
        .iter()
        .find(|i| Some(&i.name) == p.index.as_ref());
    let (pk_attr, sk_attr) = index.map_or(("pk", "sk"), |i| (i.pk.as_str(), i.sk.as_str()));
    let source = &spec.entities[p.source];
    for _ in 0..3 {
        let t = if p.global {
            0
        } else {
            rng.usize(..TENANTS.len())
        };
        let (args, keys) = draw_args(spec, call, rng);
        let lookup = |name: &str| keys.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
        // The shards a `<shard>` of the call stands for: the hashed one
        // when the call gives the hashed attribute, else (and always
        // for random shards) every shard.
        let shards = match source.shards {
            None => vec![0],
            Some(count) if source.random_shards => (0..count).collect(),
            Some(count) => match source.pk.attrs().next().and_then(|a| lookup(a)) {
                Some(value) => {
                    vec![hash_shard(&value, count)]
                }
                None => (0..count).collect(),
            },
        };
        let sharded = p.pk.sharded()
            || p.sk
                .as_ref()
                .is_some_and(|(_, ops)| ops.iter().any(Template::sharded));
        let pk_shards = if p.pk.sharded() {
            shards.clone()
        } else {
            vec![0]
        };
        let pks: Option<Vec<String>> = pk_shards
            .iter()
            .map(|shard| p.pk.encode(TENANTS[t], *shard, &lookup))
            .collect();
        let Some(pks) = pks else {
            continue;
        };
        // One operand list per shard when a bound holds `<shard>`.
        let (op, operands): (String, Vec<Vec<String>>) = match &p.sk {
            None => ("None".to_owned(), Vec::new()),
            Some((op, ops)) => {
                let bound_shards = if ops.iter().any(Template::sharded) {
                    shards.clone()
                } else {
                    vec![0]
                };
                (
                    format!("Some(crate::soundness::Op::{op:?})"),
                    bound_shards
                        .iter()
                        .map(|shard| {
                            ops.iter()
                                .filter_map(|o| o.encode(TENANTS[t], *shard, &lookup))
                                .collect()
                        })
                        .collect(),
                )
            }
        };
        let limit = if index.is_none() && !sharded && rng.u8(..4) == 0 {
            Some(1 + rng.usize(..3))
        } else {
            None
        };
        let page = 1 + rng.usize(..3);
        let include_expired = spec.ttl && rng.bool();
        let handle = if p.global {
            "repo".to_owned()
        } else {
            format!("r{t}")
        };
        let mut args = args.clone();
        if let Some((_, operands, true)) = &p.filter {
            args.push(format!("{:?}", operands[0]));
        }
        let mut query = format!("{handle}.{}({})", names.method(&p.name), args.join(", "));
        let _ = write!(query, ".page_size({page})");
        if let Some(l) = limit {
            let _ = write!(query, ".limit({l})");
        }
        if include_expired {
            query.push_str(".include_expired()");
        }
        let scope = if p.global {
            "&()".to_owned()
        } else {
            format!("&t{t}")
        };
        let (to_item, expect) = decoders(call, p, names, &scope);
        let projected = match index.and_then(|i| i.projection.as_ref()) {
            None => "None".to_owned(),
            Some(names) => format!("Some(&{names:?})"),
        };
        let ttl = if spec.ttl && !include_expired {
            "Some(\"exp\")"
        } else {
            "None"
        };
        let filter = filter_case(p.filter.as_ref());
        let (call_fn, result) = match &expect {
            Some(expect) => ("queried_as", format!("{query}.all().await, {expect}")),
            None => ("queried", format!("{query}.all().await.map(|v| v.iter().map({to_item}).collect::<Result<Vec<_>, _>>())")),
        };
        let _ = writeln!(
            d,
            "        run.{call_fn}(crate::soundness::Case {{ pattern: {:?}, pk_attr: {pk_attr:?}, sk_attr: {sk_attr:?}, pks: vec![{}], op: {op}, operands: vec![{}], descending: {}, page_size: {page}, limit: {limit:?}, ttl: {ttl}, projected: {projected}, filter: {filter} }}, {result});",
            p.name,
            pks.iter().map(|o| format!("{o:?}.into()")).collect::<Vec<_>>().join(", "),
            operands
                .iter()
                .map(|set| format!("vec![{}]", set.iter().map(|o| format!("{o:?}.into()")).collect::<Vec<_>>().join(", ")))
                .collect::<Vec<_>>()
                .join(", "),
            p.descending,
        );
    }
}

/// A call's arguments, drawn from its parameters' attribute types, and the
/// key text each parameter stands for.
fn draw_args(
    spec: &Spec,
    call: &Call,
    rng: &mut fastrand::Rng,
) -> (Vec<String>, Vec<(String, String)>) {
    let mut args = Vec::new();
    let mut keys: Vec<(String, String)> = Vec::new();
    for (param, entity, attribute) in &call.params {
        let Some(ty) = spec
            .entities
            .iter()
            .position(|e| e.name == *entity)
            .and_then(|e| spec.attr_type(e, attribute))
        else {
            continue;
        };
        let v = ty.value(rng);
        let arg = match ty {
            Ty::Str { .. } | Ty::Escaped => v.rust.trim_end_matches(".to_owned()").to_owned(),
            Ty::Int { .. }
            | Ty::Enum(_)
            | Ty::Bool
            | Ty::Datetime { .. }
            | Ty::Epoch
            | Ty::Record => v.rust.clone(),
        };
        args.push(arg);
        keys.push((param.clone(), v.key.clone()));
    }
    (args, keys)
}

/// How the driver turns what a call returns into items (`to_item`), and
/// for a call that reads in part, how the oracle decodes a stored item to
/// what the call must return.
fn decoders(call: &Call, p: &Pattern, names: &Names, scope: &str) -> (String, Option<String>) {
    let to_item = if call.returns.len() == 1 {
        format!("|e| e.to_item({scope})")
    } else {
        let arms: Vec<String> = call
            .returns
            .iter()
            .map(|r| {
                format!(
                    "{}::{}(e) => e.to_item({scope})",
                    names.item_enum(&p.name),
                    names.ty(r)
                )
            })
            .collect();
        format!("|e| match e {{ {} }}", arms.join(", "))
    };
    // Read in part: the stored item decoded as its entity and cut
    // down to the partial type is what the call must return.
    let partial = |r: &String| call.partials.iter().find(|(e, _)| e == r).map(|(_, ty)| ty);
    let expect = match call.returns.as_slice() {
        [one] => partial(one).map(|ty| {
            format!(
                "|i| {}::from_item(i).map(|e| {ty}::from(&e))",
                names.ty(one)
            )
        }),
        several if several.iter().any(|r| partial(r).is_some()) => {
            let arms: Vec<String> = several
                .iter()
                .map(|r| {
                    let value = match partial(r) {
                        Some(ty) => format!("{ty}::from(&e)"),
                        None => "e".to_owned(),
                    };
                    let r = names.ty(r);
                    format!("if {r}::IDENTITY.matches(i) {{ return {r}::from_item(i).map(|e| {}::{r}({value})); }}", names.item_enum(&p.name))
                })
                .collect();
            Some(format!("|i| {{ {} Err(singletable_runtime::DecodeError::new(\"soundness\", \"pk\", singletable_runtime::DecodeProblem::NotOfEntity(None))) }}", arms.join(" ")))
        }
        _ => None,
    };
    (to_item, expect)
}

/// The driver's calls of the scans: all segments at once, and each
/// segment by itself, in pages of one to three items.
fn render_scans(spec: &Spec, rng: &mut fastrand::Rng, d: &mut String, names: &Names) {
    for scan in &spec.scans {
        let index = spec
            .indexes
            .iter()
            .find(|i| Some(&i.name) == scan.index.as_ref());
        let keys = match index {
            None => "None".to_owned(),
            Some(i) => format!("Some(({:?}, {:?}))", i.pk, i.sk),
        };
        let entity = &spec.entities[scan.entity].name;
        let args = match &scan.filter {
            Some((_, operands, true)) => format!("{:?}", operands[0]),
            _ => String::new(),
        };
        let filter = filter_case(scan.filter.as_ref());
        for whole in [true, false] {
            let total = 1 + rng.u32(..4);
            let page = 1 + rng.usize(..3);
            let include_expired = spec.ttl && rng.bool();
            let ttl = if spec.ttl && !include_expired {
                "Some(\"exp\")"
            } else {
                "None"
            };
            let expired = if include_expired {
                ".include_expired()"
            } else {
                ""
            };
            let case = format!(
                "crate::soundness::ScanCase {{ pattern: {:?}, entity: {entity:?}, keys: {keys}, segments: {total}, ttl: {ttl}, filter: {filter} }}",
                scan.name
            );
            let encode = "map(|v| v.iter().map(|e| e.to_item(&())).collect::<Result<Vec<_>, _>>())";
            if whole {
                let _ = writeln!(
                    d,
                    "        run.scanned({case}, repo.{}({args}).segments({total}).page_size({page}){expired}.all().await.{encode});",
                    names.method(&scan.name)
                );
            } else {
                let _ = writeln!(
                    d,
                    "        {{ let mut all = Ok(Vec::new()); for s in 0..{total} {{ match repo.{}({args}).segment(s, {total}).page_size({page}){expired}.all().await {{ Ok(v) => {{ if let Ok(a) = &mut all {{ a.extend(v); }} }} Err(e) => {{ all = Err(e); break; }} }} }} run.scanned({case}, all.{encode}); }}",
                    names.method(&scan.name)
                );
            }
        }
    }
}
