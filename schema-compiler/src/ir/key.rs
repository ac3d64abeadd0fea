//! Keys: an entity's key templates, their segments and placeholders, and sharding.

use super::*;

/// The key templates of an entity on the table or on one index.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EntityKey {
    /// Partition key template (of the first attribute of a multi-attribute key).
    pub pk: KeyTemplate,
    /// Templates of a multi-attribute partition key's later attributes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub more_pk: Vec<KeyTemplate>,
    /// Sort key template (of the first attribute of a multi-attribute key).
    pub sk: Option<KeyTemplate>,
    /// Templates of a multi-attribute sort key's later attributes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub more_sk: Vec<KeyTemplate>,
    /// The entity is only in this index when every optional placeholder is
    /// present (and `when` is true).
    pub sparse: bool,
    /// A boolean attribute (by spec name): the entity is in this index
    /// only while it is true.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
}

impl EntityKey {
    /// Every key template: the partition key's parts, then the sort key's.
    pub fn templates(&self) -> impl Iterator<Item = &KeyTemplate> {
        std::iter::once(&self.pk)
            .chain(&self.more_pk)
            .chain(self.sk.as_ref())
            .chain(&self.more_sk)
    }

    /// The sort key's templates in order (the first, then the later parts).
    pub fn sort_templates(&self) -> impl Iterator<Item = &KeyTemplate> {
        self.sk.iter().chain(&self.more_sk)
    }
}

impl Entity {
    /// What the entity's writes compute besides the primary key: its index
    /// key attributes ([`Entity::computed_index_keys`], each with its
    /// index), then its derived attributes, each with its own name in the
    /// index's place (no index has it: its value is a string).
    pub fn computed_attributes(&self) -> Vec<(&str, &KeyTemplate)> {
        let mut out = self.computed_index_keys();
        out.extend(self.derived.iter().map(|(name, t)| (name.as_str(), t)));
        out
    }

    /// The index key attributes the entity's writes compute (its templates
    /// that are not the item's own attribute), with the index of each,
    /// every attribute once: one two indexes share (the tenant of two
    /// multi-attribute keys) has one template, or `key_attribute_conflict`
    /// refused the spec.
    pub fn computed_index_keys(&self) -> Vec<(&str, &KeyTemplate)> {
        let mut out: Vec<(&str, &KeyTemplate)> = Vec::new();
        for (index, key) in &self.index_keys {
            for t in key.templates().filter(|t| !t.is_natural()) {
                if !out.iter().any(|(_, o)| o.attribute == t.attribute) {
                    out.push((index, t));
                }
            }
        }
        out
    }
}

/// A parsed key template such as `TENANT#<tenant>|TICKET#<id>`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KeyTemplate {
    /// The key attribute this template fills (`pk`, `sk`, `tenant_status`).
    pub attribute: String,
    /// The template as written.
    pub source: Spanned<String>,
    /// Literals and placeholders.
    pub segments: Vec<Segment>,
    /// Whether the template is exactly one attribute placeholder whose
    /// attribute is stored under the key attribute's name (its own name,
    /// or `stored_as`): the item's own attribute is the key.
    #[serde(skip)]
    pub natural: bool,
}

impl KeyTemplate {
    /// The placeholders in order.
    pub fn placeholders(&self) -> impl Iterator<Item = &Placeholder> {
        self.segments.iter().filter_map(|s| match s {
            Segment::Placeholder(p) => Some(p),
            Segment::Literal(_) => None,
        })
    }

    /// Whether the template names `<shard>`.
    pub fn has_shard(&self) -> bool {
        self.placeholders()
            .any(|p| p.kind == PlaceholderKind::Shard)
    }

    /// The literal text before the first placeholder.
    pub fn literal_prefix(&self) -> String {
        self.segments
            .iter()
            .map_while(|s| match s {
                Segment::Literal(l) => Some(l.as_str()),
                Segment::Placeholder(_) => None,
            })
            .collect()
    }

    /// Where a template that starts with the tenant puts it: the literal
    /// text before the tenant, and what ends the tenant's segment. `None`
    /// when a placeholder other than the tenant comes first (or there is no
    /// tenant). The IAM `dynamodb:LeadingKeys` patterns and the runtime's
    /// check of the items a tenant's queries return are both built from it.
    pub fn tenant_prefix(&self) -> Option<TenantPrefix> {
        let mut literal = String::new();
        let mut segments = self.segments.iter();
        loop {
            match segments.next()? {
                Segment::Literal(l) => literal.push_str(l),
                Segment::Placeholder(p) if p.kind == PlaceholderKind::Tenant => break,
                Segment::Placeholder(_) => return None,
            }
        }
        let end = match segments.next() {
            None => TenantEnd::Key,
            Some(Segment::Literal(l)) => match l.chars().next() {
                Some(delimiter) => TenantEnd::Delimiter(delimiter),
                None => TenantEnd::Key,
            },
            Some(Segment::Placeholder(_)) => TenantEnd::Placeholder,
        };
        Some(TenantPrefix { literal, end })
    }

    /// Whether the template is exactly one attribute placeholder whose
    /// attribute is stored under the key attribute's name: the item's own
    /// attribute is the key, nothing is computed.
    pub fn is_natural(&self) -> bool {
        self.natural_attribute().is_some()
    }

    /// The attribute (by its spec name) that is the key, for a natural key.
    pub fn natural_attribute(&self) -> Option<&str> {
        match self.segments.as_slice() {
            [Segment::Placeholder(p)] if self.natural && p.kind == PlaceholderKind::Attribute => {
                Some(p.name.as_str())
            }
            _ => None,
        }
    }
}

/// The start of a key template up to the end of its tenant segment:
/// `TENANT#<tenant>|…` is the literal `TENANT#`, the tenant, and the
/// delimiter `|`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TenantPrefix {
    /// The literal text before the tenant.
    pub literal: String,
    /// What follows the tenant.
    pub end: TenantEnd,
}

/// What follows the tenant in a key template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TenantEnd {
    /// Nothing: the tenant ends the key.
    Key,
    /// A literal starting with this character (which the checker proves no
    /// tenant id contains).
    Delimiter(char),
    /// Another placeholder (`tenant_prefix_unsafe`): the tenant's end cannot be told.
    Placeholder,
}

/// A piece of a key template.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Segment {
    /// Fixed text.
    Literal(String),
    /// A value filled in at run time.
    Placeholder(Placeholder),
}

/// A `<name>` in a template.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Placeholder {
    /// The name between the angle brackets (span: the whole `<name>`).
    pub name: Spanned<String>,
    /// What the name refers to.
    pub kind: PlaceholderKind,
}

/// What a placeholder stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PlaceholderKind {
    /// The tenant id.
    Tenant,
    /// The write shard number.
    Shard,
    /// An attribute of the entity (in entity templates) or a parameter (in access patterns).
    Attribute,
}

/// Write sharding of an entity.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sharding {
    /// Number of shards.
    pub count: Spanned<u32>,
    /// How writes pick a shard.
    pub by: ShardBy,
}

/// How writes pick a shard.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ShardBy {
    /// At random; reads scatter over every shard.
    Random,
    /// A stable hash of this attribute; point reads compute the shard.
    Hash(String),
}

/// Expected peak throughput.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Throughput {
    /// Writes per second.
    pub writes_per_second: Option<Spanned<u64>>,
    /// Reads per second.
    pub reads_per_second: Option<Spanned<u64>>,
}

/// An entity that counts another entity's items.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Aggregate {
    /// The counted entity.
    pub of: String,
    /// Grouping attributes (present on both entities).
    pub group_by: Vec<String>,
    /// This entity's integer count attribute.
    pub count: String,
    /// How the count is kept current.
    pub maintained_by: Maintenance,
}

/// How a placeholder's value is written into a key: values meet in a key
/// only when they are written the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum KeyEncoding {
    /// The string as it is.
    Text,
    /// The string with `%` and every delimiter percent-encoded.
    Escaped,
    /// The string in one letter case, then percent-encoded when `escaped`:
    /// keys tell values apart only up to case, and are never read back.
    Cased {
        /// The letter case.
        case: crate::syntax::KeyCase,
        /// Percent-encoded after the case is applied.
        escaped: bool,
    },
    /// Decimal digits zero-padded to `width`, after adding `offset` (the
    /// negated least value, when it is negative), so text order is numeric order.
    Integer {
        /// Digits.
        width: usize,
        /// Added to the value before it is written.
        offset: u64,
    },
    /// A timestamp: RFC 3339 in UTC with `precision`'s fractional digits,
    /// or zero-padded epoch seconds or milliseconds.
    Datetime {
        /// The form.
        format: DatetimeFormat,
        /// Fractional digits of the RFC 3339 form.
        precision: Option<TimePrecision>,
    },
    /// An enum value or a boolean, as its word.
    Word,
    /// The type cannot be part of a key (reported by the checker).
    None,
}

impl KeyEncoding {
    /// The encoding of an integer between `min` and `max`.
    pub fn integer(min: i64, max: i64) -> KeyEncoding {
        KeyEncoding::Integer {
            width: KeyEncoding::integer_width(min, max),
            offset: if min < 0 { min.unsigned_abs() } else { 0 },
        }
    }

    /// The digits of an integer between `min` and `max` in a key (the
    /// runtime's rule, from `singletable_codec`).
    pub fn integer_width(min: i64, max: i64) -> usize {
        singletable_codec::integer_width(min, max)
    }

    /// Whether the encoding percent-escapes delimiters.
    pub fn is_escaped(self) -> bool {
        matches!(
            self,
            KeyEncoding::Escaped | KeyEncoding::Cased { escaped: true, .. }
        )
    }

    /// The letter case values take in keys, when one is set.
    pub fn case(self) -> Option<crate::syntax::KeyCase> {
        match self {
            KeyEncoding::Cased { case, .. } => Some(case),
            _ => None,
        }
    }

    /// The encoding as people read it: `text`, `integers padded to 3 digits`.
    pub fn describe(&self) -> String {
        match self {
            KeyEncoding::Text => "plain text".to_owned(),
            KeyEncoding::Escaped => "percent-escaped text".to_owned(),
            KeyEncoding::Cased { case, escaped } => format!(
                "{}{} text",
                if *escaped { "percent-escaped " } else { "" },
                match case {
                    crate::syntax::KeyCase::Lower => "lower-case",
                    crate::syntax::KeyCase::Upper => "upper-case",
                }
            ),
            KeyEncoding::Integer { width, offset: 0 } => {
                format!("integers padded to {width} digits")
            }
            KeyEncoding::Integer { width, offset } => {
                format!("integers plus {offset}, padded to {width} digits")
            }
            KeyEncoding::Datetime { format, precision } => {
                let form = match format {
                    DatetimeFormat::Rfc3339 => "RFC 3339 timestamps",
                    DatetimeFormat::EpochSeconds => "epoch seconds",
                    DatetimeFormat::EpochMillis => "epoch milliseconds",
                };
                match precision {
                    Some(p) => format!("{form} with {} precision", format!("{p:?}").to_lowercase()),
                    None => form.to_owned(),
                }
            }
            KeyEncoding::Word => "words".to_owned(),
            KeyEncoding::None => "no key encoding".to_owned(),
        }
    }
}
