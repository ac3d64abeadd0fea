//! Entities and their attributes: types, rules and key encodings.

use super::*;

/// An entity type.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entity {
    /// Name (PascalCase by convention; the generated type's name).
    pub name: Spanned<String>,
    /// Description.
    pub description: Option<String>,
    /// Tenant-scoped or global.
    pub scope: Scope,
    /// Attributes in declaration order.
    pub attributes: IndexMap<String, Attribute>,
    /// Primary key templates.
    pub primary_key: EntityKey,
    /// Key templates per secondary index this entity is written into.
    pub index_keys: IndexMap<String, EntityKey>,
    /// Write sharding.
    pub shards: Option<Sharding>,
    /// Expected peak throughput.
    pub throughput: Throughput,
    /// Optimistic-locking attribute.
    pub version_attribute: Option<String>,
    /// Counter semantics, if this entity aggregates another.
    pub aggregate: Option<Aggregate>,
    /// Sample items declared in the spec (the Workbench model shows these
    /// instead of generated ones); `Some(vec![])` shows none.
    pub examples: Option<Vec<Example>>,
    /// Named write conditions on the stored item, by name: each a list of
    /// conditions that must all hold.
    pub conditions: IndexMap<String, NamedCondition>,
    /// Attributes computed from templates on every write, by stored name.
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    pub derived: IndexMap<String, KeyTemplate>,
}

impl Entity {
    /// Every key template of the entity with where it is used: `None` for
    /// the table, the index's name for an index key.
    pub fn templates(&self) -> impl Iterator<Item = (Option<&str>, &KeyTemplate)> {
        self.primary_key.templates().map(|t| (None, t)).chain(
            self.index_keys
                .iter()
                .flat_map(|(i, k)| k.templates().map(move |t| (Some(i.as_str()), t))),
        )
    }

    /// Whether the entity is the counter of an aggregate the table's stream
    /// keeps: only the stream handler writes its items.
    pub fn kept_by_stream(&self) -> bool {
        self.aggregate
            .as_ref()
            .is_some_and(|a| a.maintained_by == Maintenance::Stream)
    }

    /// The attributes the repository sets on a write, which a caller's
    /// input leaves out: the timestamps and the version attribute.
    pub fn set_by_repository(&self) -> impl Iterator<Item = &Attribute> {
        self.attributes.values().filter(|a| {
            a.timestamp.is_some() || self.version_attribute.as_deref() == Some(a.name.as_str())
        })
    }

    /// The shard count, when each item is written to a random shard (the
    /// item carries its shard number).
    pub fn random_shard(&self) -> Option<u32> {
        match &self.shards {
            Some(Sharding {
                count,
                by: ShardBy::Random,
            }) => Some(count.value),
            Some(Sharding {
                count: _,
                by: ShardBy::Hash(_),
            })
            | None => None,
        }
    }

    /// Whether the entity has an input type (`NewTicket`): callers write
    /// its items, and the repository sets some of their attributes or
    /// draws their write shard.
    pub fn has_input_type(&self) -> bool {
        !self.kept_by_stream()
            && (self.random_shard().is_some() || self.set_by_repository().next().is_some())
    }

    /// Whether `attribute` is a placeholder of the primary key (an update
    /// never changes it).
    pub fn in_primary_key(&self, attribute: &str) -> bool {
        self.primary_key
            .templates()
            .flat_map(|t| t.placeholders())
            .any(|p| p.kind == PlaceholderKind::Attribute && p.name.value == attribute)
    }

    /// The attributes the primary key's templates name, in the order they
    /// name them, each once: the fields of the entity's key type and the
    /// parameters of a get.
    pub fn key_attributes(&self) -> Vec<&Attribute> {
        let mut out: Vec<&Attribute> = Vec::new();
        for p in self.primary_key.templates().flat_map(|t| t.placeholders()) {
            if p.kind != PlaceholderKind::Attribute {
                continue;
            }
            if let Some(a) = self.attributes.get(p.name.as_str()) {
                if !out.iter().any(|o| o.name == a.name) {
                    out.push(a);
                }
            }
        }
        out
    }

    /// The attributes that are placeholders of the primary key: for loops
    /// over every attribute, which asking [`Entity::in_primary_key`] each
    /// time would make quadratic in a long key.
    pub fn primary_key_attributes(&self) -> std::collections::BTreeSet<&str> {
        self.primary_key
            .templates()
            .flat_map(|t| t.placeholders())
            .filter(|p| p.kind == PlaceholderKind::Attribute)
            .map(|p| p.name.value.as_str())
            .collect()
    }

    /// The fields of typed maps an update sets or removes one by one, as
    /// `(map, field)`: every field of a map attribute outside the keys.
    pub fn field_changes(&self) -> Vec<(&Attribute, &Attribute)> {
        let mut out = Vec::new();
        let keys = self.primary_key_attributes();
        for a in self.attributes.values() {
            if keys.contains(a.name.as_str()) || a.key_only {
                continue;
            }
            let AttributeType::Map {
                fields: Some(fields),
            } = &a.r#type
            else {
                continue;
            };
            out.extend(fields.values().map(|f| (a, f)));
        }
        out
    }

    /// What an update can do to attributes besides setting them: add to a
    /// counter (a required integer outside every index key, not the
    /// version), add to a set and remove from an optional one, append to a
    /// list and remove from it by index.
    pub fn element_changes(&self) -> Vec<(&Attribute, ElementChange)> {
        let index_placeholders: std::collections::BTreeSet<&str> = self
            .index_keys
            .values()
            .flat_map(|k| k.templates())
            .flat_map(|t| t.placeholders())
            .map(|p| p.name.value.as_str())
            .collect();
        let in_index_key = |a: &Attribute| index_placeholders.contains(a.name.as_str());
        let keys = self.primary_key_attributes();
        let mut out = Vec::new();
        for a in self.attributes.values() {
            if keys.contains(a.name.as_str()) || a.key_only {
                continue;
            }
            match &a.r#type {
                AttributeType::Integer { .. }
                    if !a.optional
                        && self.version_attribute.as_deref() != Some(a.name.as_str())
                        && !in_index_key(a) =>
                {
                    out.push((a, ElementChange::Add));
                }
                AttributeType::Set { .. } => {
                    out.push((a, ElementChange::SetAdd));
                    if a.optional {
                        out.push((a, ElementChange::SetRemove));
                    }
                }
                AttributeType::List { .. } => {
                    out.push((a, ElementChange::ListAppend));
                    out.push((a, ElementChange::ListRemoveAt));
                }
                _ => {}
            }
        }
        out
    }
}

/// A write condition the spec names on an entity (`conditions: { open:
/// { status: { equals: open } } }`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NamedCondition {
    /// Its name (the generated constructor's).
    pub name: Spanned<String>,
    /// What must hold, in the grammar of a query's filter: terms that all
    /// hold.
    pub conditions: Vec<crate::ir::Filter>,
}

/// A change of an attribute's elements by an update.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ElementChange {
    /// Adds to a counter (`ADD`).
    Add,
    /// Adds elements to a set (`ADD`).
    SetAdd,
    /// Removes elements from a set (`DELETE`).
    SetRemove,
    /// Appends elements to a list (`list_append`).
    ListAppend,
    /// Removes elements of a list by index (`REMOVE list[i]`).
    ListRemoveAt,
}

/// A sample item of an entity, as declared in the spec.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Example {
    /// The tenant id, for tenant-scoped entities.
    pub tenant: Option<String>,
    /// The write shard, for randomly sharded entities (computed for hash sharding).
    pub shard: Option<u32>,
    /// Attribute values; absent optional attributes are left out.
    pub values: IndexMap<String, ExampleValue>,
}

/// The value of one attribute in an [`Example`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExampleValue {
    /// Strings, enums and RFC 3339 datetimes (their stored text).
    Text(String),
    /// Integers.
    Integer(i64),
    /// Decimals, as written.
    Decimal(String),
    /// Booleans.
    Bool(bool),
    /// Datetimes: seconds since the epoch and nanoseconds.
    Time(i64, u32),
    /// Lists, maps and binary values, stored as they are.
    Stored(AttributeValue),
}

/// A DynamoDB attribute value in DynamoDB JSON (`{"S": "…"}`, `{"N": "12"}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub enum AttributeValue {
    /// String.
    S(String),
    /// Number, as text.
    N(String),
    /// Binary, base64.
    B(String),
    /// Boolean.
    #[serde(rename = "BOOL")]
    Bool(bool),
    /// Null.
    #[serde(rename = "NULL")]
    Null(bool),
    /// Map.
    M(IndexMap<String, AttributeValue>),
    /// List.
    L(Vec<AttributeValue>),
    /// String set.
    #[serde(rename = "SS")]
    Ss(Vec<String>),
    /// Number set.
    #[serde(rename = "NS")]
    Ns(Vec<String>),
    /// Binary set.
    #[serde(rename = "BS")]
    Bs(Vec<String>),
}

impl AttributeValue {
    /// Its size in an item as DynamoDB counts it ("Item sizes and
    /// formats"): a string's UTF-8 bytes, a binary's bytes, a number one
    /// byte per two significant digits and one more, a boolean or null one
    /// byte, a list or map three bytes and one per element (and a map's
    /// keys), a set the sum of its elements.
    pub fn size(&self) -> usize {
        match self {
            AttributeValue::S(s) => s.len(),
            AttributeValue::N(n) => number_size(n),
            AttributeValue::B(b) => base64_len(b),
            AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
            AttributeValue::M(m) => {
                3 + m.iter().map(|(k, v)| 1 + k.len() + v.size()).sum::<usize>()
            }
            AttributeValue::L(l) => 3 + l.iter().map(|v| 1 + v.size()).sum::<usize>(),
            AttributeValue::Ss(s) => s.iter().map(String::len).sum(),
            AttributeValue::Ns(n) => n.iter().map(|n| number_size(n)).sum(),
            AttributeValue::Bs(b) => b.iter().map(|b| base64_len(b)).sum(),
        }
    }

    /// The type's tag: `S`, `N`, `BOOL`, …
    pub fn type_name(&self) -> &'static str {
        match self {
            AttributeValue::S(_) => "S",
            AttributeValue::N(_) => "N",
            AttributeValue::B(_) => "B",
            AttributeValue::Bool(_) => "BOOL",
            AttributeValue::Null(_) => "NULL",
            AttributeValue::M(_) => "M",
            AttributeValue::L(_) => "L",
            AttributeValue::Ss(_) => "SS",
            AttributeValue::Ns(_) => "NS",
            AttributeValue::Bs(_) => "BS",
        }
    }
}

/// An attribute of an entity.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Attribute {
    /// Name.
    pub name: Spanned<String>,
    /// Type and bounds.
    pub r#type: AttributeType,
    /// May be absent.
    pub optional: bool,
    /// Description.
    pub description: Option<String>,
    /// Typical size in bytes, for capacity estimates.
    pub typical_size: Option<u64>,
    /// In keys, `%` and delimiter characters are percent-encoded.
    pub escape: bool,
    /// In keys, the value is written in this letter case.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub case: Option<crate::syntax::KeyCase>,
    /// Kept only inside the primary key: read back out of it, never written
    /// as an attribute of its own.
    pub key_only: bool,
    /// The attribute's name in the table, when it is not `name`.
    pub stored_as: Option<String>,
    /// A datetime the repository sets on the writes this names.
    pub timestamp: Option<crate::syntax::Timestamp>,
    /// Counters and lists: updates that change it relative to the stored
    /// value are sent as plain UpdateItems (applied twice when an answer
    /// is lost and the request sent again) instead of exactly once.
    pub at_least_once: bool,
    /// The value an item without the attribute reads as, as stored.
    pub default: Option<crate::ir::FilterLiteral>,
}

impl Attribute {
    /// The attribute's name in the table's items.
    pub fn stored(&self) -> &str {
        self.stored_as.as_deref().unwrap_or(&self.name.value)
    }

    /// How a value of this attribute is written into a key.
    pub fn key_encoding(&self) -> KeyEncoding {
        match &self.r#type {
            AttributeType::String { .. } => match self.case {
                Some(case) => KeyEncoding::Cased {
                    case,
                    escaped: self.escape,
                },
                None if self.escape => KeyEncoding::Escaped,
                None => KeyEncoding::Text,
            },
            AttributeType::Integer { min, max } => KeyEncoding::integer(*min, *max),
            AttributeType::Datetime { format, precision } => KeyEncoding::Datetime {
                format: *format,
                precision: (*format == DatetimeFormat::Rfc3339).then_some(*precision),
            },
            AttributeType::Enum { .. } | AttributeType::Boolean => KeyEncoding::Word,
            AttributeType::Decimal { .. }
            | AttributeType::List { .. }
            | AttributeType::Map { .. }
            | AttributeType::Set { .. }
            | AttributeType::Binary { .. } => KeyEncoding::None,
        }
    }

    /// The type as people read it (`integer 0..=9`).
    pub fn describe_type(&self) -> String {
        match &self.r#type {
            AttributeType::Enum { values } => format!("enum ({})", values.join(", ")),
            AttributeType::Integer { min, max } if *min != i64::MIN || *max != i64::MAX => {
                format!("integer {min}..={max}")
            }
            AttributeType::String {
                pattern: Some(p), ..
            } => format!("string `{p}`"),
            AttributeType::String {
                max_length: Some(m),
                ..
            } => format!("string, at most {m} bytes"),
            AttributeType::Decimal { min, max, scale }
                if min.is_some() || max.is_some() || scale.is_some() =>
            {
                let mut text = "decimal".to_owned();
                match (min, max) {
                    (None, None) => {}
                    (Some(lo), None) => text.push_str(&format!(" {lo}..")),
                    (lo, Some(hi)) => {
                        text.push_str(&format!(" {}..={hi}", lo.as_deref().unwrap_or("")));
                    }
                }
                match scale {
                    Some(1) => text.push_str(", 1 digit after the point"),
                    Some(scale) => text.push_str(&format!(", {scale} digits after the point")),
                    None => {}
                }
                text
            }
            other @ (AttributeType::String { .. }
            | AttributeType::Integer { .. }
            | AttributeType::Decimal { .. }
            | AttributeType::Boolean
            | AttributeType::Datetime { .. }
            | AttributeType::List { .. }
            | AttributeType::Map { .. }
            | AttributeType::Binary { .. }) => other.name().to_owned(),
            AttributeType::Set { of } => format!("set of {}s", of.name()),
        }
    }
}

/// Attribute types with their bounds.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AttributeType {
    /// UTF-8 string.
    String {
        /// Least length in bytes.
        min_length: Option<u64>,
        /// Greatest length in bytes.
        max_length: Option<u64>,
        /// Regular expression values match.
        pattern: Option<String>,
        /// Characters values may contain (every character without a pattern).
        alphabet: CharSet,
    },
    /// 64-bit signed integer.
    Integer {
        /// Least value.
        min: i64,
        /// Greatest value.
        max: i64,
    },
    /// Decimal number (exact, stored as a DynamoDB Number).
    Decimal {
        /// Least value, as written.
        min: Option<String>,
        /// Greatest value, as written.
        max: Option<String>,
        /// Digits after the point.
        scale: Option<u32>,
    },
    /// true or false.
    Boolean,
    /// A UTC point in time.
    Datetime {
        /// Storage format.
        format: DatetimeFormat,
        /// Fractional digits of the RFC 3339 form.
        precision: TimePrecision,
    },
    /// One of a fixed set of words.
    Enum {
        /// The values, in declaration order.
        values: Vec<String>,
    },
    /// A list.
    List {
        /// Element type, if declared.
        items: Option<Box<AttributeType>>,
        /// Least number of elements.
        min_length: Option<u64>,
        /// Greatest number of elements.
        max_length: Option<u64>,
    },
    /// A map: with declared `fields`, a record (a generated struct); without,
    /// string keys and any values.
    Map {
        /// The declared fields, in declaration order (their `name`s are the
        /// spec's; `stored_as` names them in the stored map).
        fields: Option<IndexMap<String, Attribute>>,
    },
    /// A DynamoDB set (`SS`, `NS` or `BS`): distinct values, never empty.
    Set {
        /// What it holds.
        of: SetOf,
    },
    /// Bytes.
    Binary {
        /// Least length.
        min_length: Option<u64>,
        /// Greatest length.
        max_length: Option<u64>,
    },
}

impl AttributeType {
    /// The DynamoDB type of the attribute's stored value (`S`, `N`, `BOOL`,
    /// `L`, `M`, a set's `SS`/`NS`/`BS`, `B`).
    pub fn dynamo_type(&self) -> &'static str {
        match self {
            AttributeType::String { .. } | AttributeType::Enum { .. } => "S",
            AttributeType::Integer { .. } | AttributeType::Decimal { .. } => "N",
            AttributeType::Boolean => "BOOL",
            AttributeType::Datetime { format, .. } => match format {
                DatetimeFormat::Rfc3339 => "S",
                DatetimeFormat::EpochSeconds | DatetimeFormat::EpochMillis => "N",
            },
            AttributeType::List { .. } => "L",
            AttributeType::Map { .. } => "M",
            AttributeType::Set { of } => of.tag(),
            AttributeType::Binary { .. } => "B",
        }
    }

    /// A type whose values are anything: the untyped map.
    pub const ANY: AttributeType = AttributeType::Map { fields: None };

    /// The declared fields of a typed map, or of the typed-map elements of
    /// a list (of lists, …): the type has a generated struct.
    pub fn record_fields(&self) -> Option<&IndexMap<String, Attribute>> {
        match self {
            AttributeType::Map { fields } => fields.as_ref(),
            AttributeType::List {
                items: Some(items), ..
            } => items.record_fields(),
            _ => None,
        }
    }

    /// Whether a stored value (DynamoDB JSON) is of this type: its type
    /// tag, an enum's values, and through lists and typed maps (every
    /// required field present) the same for what they hold; the error
    /// names the path to the value at fault.
    pub fn check_stored(&self, av: &AttributeValue) -> Result<(), String> {
        let expected = match self {
            AttributeType::String { .. } | AttributeType::Enum { .. } => "S",
            AttributeType::Datetime { format, .. } => match format {
                DatetimeFormat::Rfc3339 => "S",
                DatetimeFormat::EpochSeconds | DatetimeFormat::EpochMillis => "N",
            },
            AttributeType::Integer { .. } | AttributeType::Decimal { .. } => "N",
            AttributeType::Boolean => "BOOL",
            AttributeType::List { .. } => "L",
            AttributeType::Map { .. } => "M",
            AttributeType::Set { of } => of.tag(),
            AttributeType::Binary { .. } => "B",
        };
        if av.type_name() != expected {
            return Err(format!("is {}, expected {expected}", av.type_name()));
        }
        match (self, av) {
            (AttributeType::Enum { values }, AttributeValue::S(text)) if !values.contains(text) => {
                Err(format!("is `{text}`, not one of {}", values.join(", ")))
            }
            (
                AttributeType::List {
                    items: Some(items), ..
                },
                AttributeValue::L(elements),
            ) => elements.iter().enumerate().try_for_each(|(i, e)| {
                items
                    .check_stored(e)
                    .map_err(|why| format!("element {i} {why}"))
            }),
            (
                AttributeType::Map {
                    fields: Some(fields),
                },
                AttributeValue::M(map),
            ) => fields.values().try_for_each(|f| match map.get(f.stored()) {
                None | Some(AttributeValue::Null(_)) if f.optional => Ok(()),
                None => Err(format!("has no field `{}`", f.stored())),
                Some(value) => f
                    .r#type
                    .check_stored(value)
                    .map_err(|why| format!("field `{}` {why}", f.stored())),
            }),
            _ => Ok(()),
        }
    }

    /// The type's name with its article: `an integer`, `a string`.
    pub fn article_name(&self) -> String {
        with_article(self.name())
    }

    /// The type's name as written in specs.
    pub fn name(&self) -> &'static str {
        match self {
            AttributeType::String { .. } => "string",
            AttributeType::Integer { .. } => "integer",
            AttributeType::Decimal { .. } => "decimal",
            AttributeType::Boolean => "boolean",
            AttributeType::Datetime { .. } => "datetime",
            AttributeType::Enum { .. } => "enum",
            AttributeType::List { .. } => "list",
            AttributeType::Map { .. } => "map",
            AttributeType::Set { .. } => "set",
            AttributeType::Binary { .. } => "binary",
        }
    }

    /// The values of an enum, or of the enum elements of a list (of lists,
    /// …): the type has a generated enum (`Vec<Size>` for a list of sizes).
    pub fn enum_values(&self) -> Option<&Vec<String>> {
        match self {
            AttributeType::Enum { values } => Some(values),
            AttributeType::List {
                items: Some(items), ..
            } => items.enum_values(),
            _ => None,
        }
    }

    /// The least and greatest value of an integer; every `i64` for any
    /// other type.
    pub fn integer_bounds(&self) -> (i64, i64) {
        if let AttributeType::Integer { min, max } = self {
            (*min, *max)
        } else {
            (i64::MIN, i64::MAX)
        }
    }

    /// Whether a value of this type can be encoded into a key template.
    pub fn is_key_compatible(&self) -> bool {
        matches!(
            self,
            AttributeType::String { .. }
                | AttributeType::Integer { .. }
                | AttributeType::Datetime { .. }
                | AttributeType::Enum { .. }
                | AttributeType::Boolean
        )
    }
}

/// The values a set holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SetOf {
    /// Strings (`SS`).
    String,
    /// Integers (`NS`).
    Integer,
    /// Decimals (`NS`).
    Decimal,
    /// Bytes (`BS`).
    Binary,
}

impl SetOf {
    /// The DynamoDB type tag of the set.
    pub fn tag(self) -> &'static str {
        match self {
            SetOf::String => "SS",
            SetOf::Integer | SetOf::Decimal => "NS",
            SetOf::Binary => "BS",
        }
    }

    /// The element type's name as written in specs.
    pub fn name(self) -> &'static str {
        match self {
            SetOf::String => "string",
            SetOf::Integer => "integer",
            SetOf::Decimal => "decimal",
            SetOf::Binary => "binary",
        }
    }
}

/// `"an integer"`, `"a string"`: a type name with its article.
pub fn with_article(name: &str) -> String {
    format!("{} {name}", article(name))
}

/// The indefinite article for `word` as it is read aloud: "an" before a
/// vowel sound (`Order`, `item`, `Update`), "a" otherwise (`User`,
/// `Unit`: a "you" sound).
pub fn article(word: &str) -> &'static str {
    let lower = word.to_ascii_lowercase();
    let you = [
        "use", "usa", "usi", "usu", "uni", "uti", "ura", "uri", "uro", "uku", "ulid",
    ];
    let mut chars = lower.chars();
    match chars.next() {
        Some('a' | 'e' | 'i' | 'o') => "an",
        // `u32`, `usize`: "you".
        Some('u')
            if !you.iter().any(|y| lower.starts_with(y))
                && !chars.next().is_some_and(|c| c.is_ascii_digit()) =>
        {
            "an"
        }
        _ => "a",
    }
}

/// The size DynamoDB counts for a number written as `text`: one byte per
/// two significant digits (leading and trailing zeros trimmed), and one.
pub fn number_size(text: &str) -> usize {
    let digits: String = text
        .split(['e', 'E'])
        .next()
        .unwrap_or_default()
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    let significant = digits.trim_start_matches('0').trim_end_matches('0').len();
    significant.max(1).div_ceil(2) + 1
}

/// The number of bytes base64 `text` decodes to.
fn base64_len(text: &str) -> usize {
    let padding = text.bytes().rev().take_while(|b| *b == b'=').count();
    (text.len() * 3 / 4).saturating_sub(padding)
}

/// An item's size as DynamoDB counts it: each attribute's name and value.
pub fn item_size<'a>(item: impl IntoIterator<Item = (&'a String, &'a AttributeValue)>) -> usize {
    item.into_iter()
        .map(|(name, v)| name.len() + v.size())
        .sum()
}
