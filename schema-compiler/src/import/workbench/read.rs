//! Reading a model file tolerantly into plain structs.

use serde_json::Value;

use super::Item;
use crate::ir::AttributeValue;

/// A model's tables and what was odd about it.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// `ModelName`.
    pub name: String,
    /// `ModelMetadata.Description`.
    pub description: String,
    /// The tables.
    pub tables: Vec<ModelTable>,
    /// Notes.
    pub notes: Vec<String>,
}

/// A key attribute: name and `S`, `N` or `B`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    /// Name.
    pub name: String,
    /// `S`, `N` or `B`.
    pub r#type: &'static str,
}

/// A GSI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gsi {
    /// Name.
    pub name: String,
    /// Partition key.
    pub pk: Key,
    /// Sort key.
    pub sk: Option<Key>,
    /// `ALL`, `KEYS_ONLY` or `INCLUDE`.
    pub projection: String,
    /// For `INCLUDE`.
    pub include: Vec<String>,
}

/// A facet (or the whole table, without facets).
#[derive(Debug, Clone, PartialEq)]
pub struct Facet {
    /// `FacetName`.
    pub name: String,
    /// `PartitionKeyAlias`.
    pub pk_alias: Option<String>,
    /// `SortKeyAlias`.
    pub sk_alias: Option<String>,
    /// Its items, normalized.
    pub items: Vec<Item>,
    /// `NonKeyAttributes`.
    pub declared: Vec<String>,
}

/// A table of the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelTable {
    /// `TableName`.
    pub name: String,
    /// Partition key.
    pub pk: Key,
    /// Sort key.
    pub sk: Option<Key>,
    /// `NonKeyAttributes`: name and type tag.
    pub attributes: Vec<(String, String)>,
    /// GSIs.
    pub gsis: Vec<Gsi>,
    /// Provisioned (read, write) capacity, or on demand.
    pub capacity: Option<(u64, u64)>,
    /// Facets (one made from the table's own items when it has none).
    pub facets: Vec<Facet>,
    /// Whether the facets were made up from the table's items.
    pub facetless: bool,
    /// Notes.
    pub notes: Vec<String>,
}

/// `name` as DynamoDB allows a table or index name (3–255 of
/// `[A-Za-z0-9_.-]`): other characters become `_`, a short name is padded
/// with `_`, a long one cut; a note says so.
fn dynamo_name(name: String, what: &str, notes: &mut Vec<String>) -> String {
    let mut valid: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                c
            } else {
                '_'
            }
        })
        .take(255)
        .collect();
    while valid.len() < 3 {
        valid.push('_');
    }
    if valid != name {
        notes.push(format!(
            "the {what} name {name:?} is not one DynamoDB accepts: named `{valid}`"
        ));
    }
    valid
}

fn text(v: &Value, field: &str) -> Option<String> {
    v.get(field).and_then(Value::as_str).map(str::to_owned)
}

fn key(v: Option<&Value>, notes: &mut Vec<String>, what: &str) -> Option<Key> {
    let v = v?;
    let name = text(v, "AttributeName")?;
    let r#type = match v.get("AttributeType").and_then(Value::as_str) {
        Some("S") | None => "S",
        Some("N") => "N",
        Some("B") => "B",
        Some(other) => {
            notes.push(format!(
                "{what} `{name}` has type {other:?}, not S, N or B: read as S"
            ));
            "S"
        }
    };
    Some(Key { name, r#type })
}

/// One DynamoDB JSON value, canonical or not: `{"N": 1}` becomes
/// `{"N": "1"}`, bare list elements and maps are typed by their JSON kind.
pub fn normalize_value(v: &Value) -> Option<AttributeValue> {
    match v {
        Value::Object(map) if map.len() == 1 => {
            let (tag, inner) = map.iter().next()?;
            let as_text = |v: &Value| match v {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                Value::Bool(b) => Some(b.to_string()),
                _ => None,
            };
            let texts =
                |v: &Value| -> Option<Vec<String>> { v.as_array()?.iter().map(as_text).collect() };
            Some(match tag.as_str() {
                "S" => AttributeValue::S(as_text(inner)?),
                "N" => AttributeValue::N(as_text(inner)?),
                "B" => AttributeValue::B(as_text(inner)?),
                "BOOL" => AttributeValue::Bool(match inner {
                    Value::Bool(b) => *b,
                    Value::String(s) => s == "true",
                    _ => return None,
                }),
                "NULL" => AttributeValue::Null(true),
                "M" => AttributeValue::M(
                    inner
                        .as_object()?
                        .iter()
                        .map(|(k, v)| Some((k.clone(), normalize_value(v)?)))
                        .collect::<Option<_>>()?,
                ),
                "L" => AttributeValue::L(
                    inner
                        .as_array()?
                        .iter()
                        .map(normalize_value)
                        .collect::<Option<_>>()?,
                ),
                "SS" => AttributeValue::Ss(texts(inner)?),
                "NS" => AttributeValue::Ns(texts(inner)?),
                "BS" => AttributeValue::Bs(texts(inner)?),
                _ => return bare(v),
            })
        }
        _ => bare(v),
    }
}

/// A value without a type tag, typed by its JSON kind.
fn bare(v: &Value) -> Option<AttributeValue> {
    Some(match v {
        Value::String(s) => AttributeValue::S(s.clone()),
        Value::Number(n) => AttributeValue::N(n.to_string()),
        Value::Bool(b) => AttributeValue::Bool(*b),
        Value::Null => AttributeValue::Null(true),
        Value::Array(items) => AttributeValue::L(items.iter().map(bare).collect::<Option<_>>()?),
        Value::Object(map) => AttributeValue::M(
            map.iter()
                .map(|(k, v)| Some((k.clone(), normalize_value(v)?)))
                .collect::<Option<_>>()?,
        ),
    })
}

fn items(v: Option<&Value>, notes: &mut Vec<String>, whose: &str) -> Vec<Item> {
    let Some(list) = v.and_then(Value::as_array) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, item) in list.iter().enumerate() {
        let Some(map) = item.as_object() else {
            notes.push(format!("{whose}: item {} is not an object: skipped", i + 1));
            continue;
        };
        let mut normalized = Item::new();
        for (name, value) in map {
            match normalize_value(value) {
                Some(v) => {
                    normalized.insert(name.clone(), v);
                }
                None => notes.push(format!(
                    "{whose}: item {}, attribute `{name}`: not a DynamoDB JSON value: left out",
                    i + 1
                )),
            }
        }
        out.push(normalized);
    }
    out
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn read_table(t: &Value, index: usize, discriminators: bool) -> Option<ModelTable> {
    let mut notes = Vec::new();
    let name = text(t, "TableName").unwrap_or_else(|| {
        notes.push("a table without `TableName`: named Table".into());
        format!("Table{}", index + 1)
    });
    let name = dynamo_name(name, "table", &mut notes);
    let keys = t.get("KeyAttributes");
    let pk = key(
        keys.and_then(|k| k.get("PartitionKey")),
        &mut notes,
        "partition key",
    )?;
    let sk = key(keys.and_then(|k| k.get("SortKey")), &mut notes, "sort key");
    let attributes: Vec<(String, String)> = t
        .get("NonKeyAttributes")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|d| {
                    Some((
                        text(d, "AttributeName")?,
                        text(d, "AttributeType").unwrap_or_else(|| "S".into()),
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    let gsis = t
        .get("GlobalSecondaryIndexes")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|g| {
                    let keys = g.get("KeyAttributes");
                    let projection = g.get("Projection");
                    Some(Gsi {
                        name: dynamo_name(text(g, "IndexName")?, "index", &mut notes),
                        pk: key(
                            keys.and_then(|k| k.get("PartitionKey")),
                            &mut notes,
                            "GSI partition key",
                        )?,
                        sk: key(
                            keys.and_then(|k| k.get("SortKey")),
                            &mut notes,
                            "GSI sort key",
                        ),
                        projection: projection
                            .and_then(|p| text(p, "ProjectionType"))
                            .unwrap_or_else(|| "ALL".into()),
                        include: strings(projection.and_then(|p| p.get("NonKeyAttributes"))),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let capacity = match t.get("BillingMode").and_then(Value::as_str) {
        Some("PROVISIONED") => {
            let throughput = t
                .get("ProvisionedCapacitySettings")
                .and_then(|s| s.get("ProvisionedThroughput"));
            let units = |f: &str| throughput.and_then(|p| p.get(f)).and_then(Value::as_u64);
            match (units("ReadCapacityUnits"), units("WriteCapacityUnits")) {
                (Some(r), Some(w)) => Some((r.max(1), w.max(1))),
                _ => {
                    notes.push(
                        "provisioned without capacity settings: 5 read and 5 write units assumed"
                            .into(),
                    );
                    Some((5, 5))
                }
            }
        }
        Some("PAY_PER_REQUEST") => None,
        other => {
            notes.push(format!(
                "billing mode {}: on demand assumed",
                other.map_or_else(|| "not given".to_owned(), |o| format!("{o:?}"))
            ));
            None
        }
    };
    let mut facets: Vec<Facet> = t
        .get("TableFacets")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .enumerate()
                .map(|(i, f)| {
                    let facet_name =
                        text(f, "FacetName").unwrap_or_else(|| format!("Facet{}", i + 1));
                    let alias = f.get("KeyAttributeAlias");
                    Facet {
                        pk_alias: alias.and_then(|a| text(a, "PartitionKeyAlias")),
                        sk_alias: alias.and_then(|a| text(a, "SortKeyAlias")),
                        items: items(
                            f.get("TableData"),
                            &mut notes,
                            &format!("facet `{facet_name}`"),
                        ),
                        declared: strings(f.get("NonKeyAttributes")),
                        name: facet_name,
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    let table_items = items(t.get("TableData"), &mut notes, &format!("table `{name}`"));
    let facetless = facets.is_empty();
    if facetless {
        let declared: Vec<String> = attributes
            .iter()
            .map(|(n, _): &(String, String)| n.clone())
            .collect();
        facets = split_facetless(
            &name,
            table_items,
            &declared,
            (&pk, sk.as_ref()),
            discriminators,
        );
    } else if !table_items.is_empty() {
        notes.push(format!(
            "{} table-level items outside any facet were left out",
            table_items.len()
        ));
    }
    Some(ModelTable {
        name,
        pk,
        sk,
        attributes,
        gsis,
        capacity,
        facets,
        facetless,
        notes,
    })
}

impl ModelTable {
    /// The key attributes of the table and of its GSIs.
    pub fn key_attributes(&self) -> impl Iterator<Item = &Key> {
        std::iter::once(&self.pk).chain(&self.sk).chain(
            self.gsis
                .iter()
                .flat_map(|g| std::iter::once(&g.pk).chain(&g.sk)),
        )
    }
}

/// Reads the model's tables.
pub fn read_model(v: &Value) -> Result<Model, String> {
    read_model_with(v, true)
}

/// Reads the model's tables; without `discriminators`, a table without
/// facets is split by its keys' literal prefixes only, never by an
/// attribute named like a discriminator (one that is data, `type: "t 7"`).
pub(super) fn read_model_with(v: &Value, discriminators: bool) -> Result<Model, String> {
    let tables = v
        .get("DataModel")
        .and_then(Value::as_array)
        .ok_or("not a NoSQL Workbench model: no `DataModel` list")?;
    let metadata = v.get("ModelMetadata");
    let mut notes = Vec::new();
    match metadata
        .and_then(|m| m.get("Version"))
        .and_then(Value::as_str)
    {
        Some("3.0") => {}
        Some(other) => notes.push(format!("model version {other}: read as 3.0")),
        None => notes.push("the model has no version (a 2019 preview export): read as 3.0".into()),
    }
    let mut out = Vec::new();
    for (i, t) in tables.iter().enumerate() {
        match read_table(t, i, discriminators) {
            Some(t) => out.push(t),
            None => notes.push(format!("table {} has no partition key: left out", i + 1)),
        }
    }
    Ok(Model {
        name: v
            .get("ModelName")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
        description: metadata
            .and_then(|m| text(m, "Description"))
            .unwrap_or_default(),
        tables: out,
        notes,
    })
}

/// The kinds of item of a table without facets: by a discriminator
/// attribute (`type`, `kind`, `entity_type`, … in every item), else by the
/// literal prefixes of their keys (`USER#…` and `ORDER#…`). One kind keeps
/// the table's name.
fn split_facetless(
    name: &str,
    items: Vec<super::Item>,
    declared: &[String],
    (pk, sk): (&Key, Option<&Key>),
    discriminators: bool,
) -> Vec<Facet> {
    let facet = |name: String, items: Vec<super::Item>| Facet {
        name,
        pk_alias: None,
        sk_alias: None,
        items,
        declared: declared.to_vec(),
    };
    let text = |item: &super::Item, attribute: &str| match item.get(attribute) {
        Some(AttributeValue::S(s)) => Some(s.clone()),
        _ => None,
    };
    let mut groups: indexmap::IndexMap<String, Vec<super::Item>> = indexmap::IndexMap::new();
    if let Some(discriminator) = discriminator(&items, pk, sk).filter(|_| discriminators) {
        for item in items {
            let kind = text(&item, &discriminator).unwrap_or_default();
            groups.entry(kind).or_default().push(item);
        }
    } else {
        for item in items {
            let pk_prefix = text(&item, &pk.name).and_then(|v| literal_prefix(&v));
            let sk_prefix = sk
                .and_then(|k| text(&item, &k.name))
                .and_then(|v| literal_prefix(&v));
            // The sort key tells the kinds of one partition apart; the
            // partition key, those of a table without a sort key.
            let kind = sk_prefix.or(pk_prefix).unwrap_or_default();
            groups.entry(kind).or_default().push(item);
        }
    }
    if groups.len() < 2 {
        let items = groups.into_values().flatten().collect();
        return vec![facet(name.to_owned(), items)];
    }
    groups
        .into_iter()
        .map(|(kind, items)| {
            // `CUSTOMER` names the entity `Customer`.
            let kind = match kind.as_str() {
                "" => name.to_owned(),
                k if k.chars().all(|c| !c.is_ascii_lowercase()) => {
                    let lower = k.to_ascii_lowercase();
                    let mut chars = lower.chars();
                    chars
                        .next()
                        .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                        .unwrap_or_default()
                }
                _ => kind,
            };
            // Each kind declares the attributes its items have, not every
            // attribute of the table.
            let mut f = facet(kind, Vec::new());
            f.declared
                .retain(|d| items.iter().any(|i| i.contains_key(d)));
            f.items = items;
            f
        })
        .collect()
}

/// Whether an attribute is named like a discriminator: `type`, `kind`,
/// `entity_type`, `__typename`, `EntityType`, …
pub(super) fn is_discriminator_name(name: &str) -> bool {
    const NAMES: [&str; 8] = [
        "type",
        "kind",
        "entitytype",
        "itemtype",
        "recordtype",
        "typename",
        "et",
        "entity",
    ];
    let folded: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    NAMES.contains(&folded.as_str())
}

/// An attribute named like a discriminator that every item holds as a string.
fn discriminator(items: &[super::Item], pk: &Key, sk: Option<&Key>) -> Option<String> {
    let first = items.first()?;
    first
        .keys()
        .filter(|k| **k != pk.name && sk.is_none_or(|s| **k != s.name))
        .find(|k| {
            is_discriminator_name(k)
                && items.iter().all(
                    |i| matches!(i.get(k.as_str()), Some(AttributeValue::S(s)) if !s.is_empty()),
                )
        })
        .cloned()
}

/// The literal start of a key value: the text before its first delimiter
/// (`#`, `|`, `:`), when that text has no digits (`USER` of `USER#42`).
fn literal_prefix(value: &str) -> Option<String> {
    let end = value.find(['#', '|', ':'])?;
    let head = &value[..end];
    (!head.is_empty() && !head.chars().any(|c| c.is_ascii_digit())).then(|| head.to_owned())
}
