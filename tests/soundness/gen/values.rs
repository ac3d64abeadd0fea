//! Attribute types, the values drawn for them, and key templates with their encoder, written from docs/spec.md ("How values are written into keys"), not from the compiler.

use std::fmt::Write as _;

/// A placeholder's type as the generator knows it.
#[derive(Debug, Clone, PartialEq)]
pub enum Ty {
    /// A string of the given characters, 1 to `max` long.
    Str { chars: &'static str, max: usize },
    /// A string with `escape: true`.
    Escaped,
    /// A string of ASCII letters and digits with `case: lower`: values
    /// that differ only in case write one key.
    Cased,
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
    pub(super) fn yaml(&self) -> String {
        match self {
            Ty::Str { chars, max } => {
                format!("{{ type: string, pattern: \"^[{chars}]{{1,{max}}}$\" }}")
            }
            Ty::Escaped => "{ type: string, max_length: 12, escape: true }".into(),
            Ty::Cased => "{ type: string, pattern: \"^[A-Za-z0-9]{1,4}$\", case: lower }".into(),
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
    pub(super) fn pool(&self) -> Vec<Value> {
        match self {
            Ty::Str { chars, max } => {
                let pool: &[&str] = match *chars {
                    "a-z" => &["a", "ab", "b", "abc", "z"],
                    "a-z#-" => &["a", "a#", "a-b", "#", "b#a", "-"],
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
            // docs/spec.md: in lower case (ASCII here).
            Ty::Cased => ["a", "A", "Ab", "aB", "z9", "Z9"]
                .iter()
                .map(|s| Value::text(s, s.to_ascii_lowercase()))
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
    pub(super) fn value(&self, rng: &mut fastrand::Rng) -> Value {
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
pub(super) fn hash_shard(text: &str, count: u32) -> u32 {
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
    pub(super) fn yaml(&self) -> String {
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

    pub(super) fn attrs(&self) -> impl Iterator<Item = &str> {
        self.0.iter().filter_map(|s| match s {
            Seg::Attr(a) => Some(a.as_str()),
            _ => None,
        })
    }

    /// The key text for a tenant, a shard and attribute values.
    pub(super) fn encode(
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

    pub(super) fn sharded(&self) -> bool {
        self.0.contains(&Seg::Shard)
    }

    /// Prefixes cut right after a `#` (the forms a `begins_with` takes).
    pub(super) fn delimited_prefixes(&self) -> Vec<Template> {
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
