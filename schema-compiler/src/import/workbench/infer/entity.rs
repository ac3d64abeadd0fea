//! An inferred entity's attributes, keys and examples, as the spec will name them.

use super::*;

/// An inferred entity.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Entity {
    /// Name.
    pub name: String,
    /// Under the tenant.
    pub scoped: bool,
    /// Attributes.
    pub attrs: IndexMap<String, Attr>,
    /// Partition key template.
    pub pk: Template,
    /// Sort key template.
    pub sk: Option<Template>,
    /// Index key templates.
    pub indexes: IndexMap<String, (Template, Option<Template>)>,
    /// Indexes the entity is in only while a boolean attribute is true
    /// (`when`), by index: the attribute.
    pub members: IndexMap<String, String>,
    /// Shard count, when the keys carry `<shard>`.
    pub shards: Option<u32>,
    /// The samples.
    pub examples: Vec<Example>,
    /// Names no new attribute may take: key attributes, the entity-type
    /// attribute, the tenant and shard placeholders.
    pub reserved: Vec<String>,
}

impl Entity {
    /// A table key whose template is one placeholder made up to hold the
    /// whole value is the item's own attribute: a natural key, stored once
    /// under the key's name, as the table stores it. (A placeholder bound to
    /// an attribute the items really have is left alone: the table keeps a
    /// copy of it in the key.)
    pub(super) fn naturalize(&mut self, table: &ModelTable) {
        let keys = std::iter::once(&table.pk).chain(table.sk.as_ref());
        for key in keys {
            let template = if key.name == table.pk.name {
                &self.pk
            } else {
                match &self.sk {
                    Some(sk) => sk,
                    None => continue,
                }
            };
            let [Seg::Attr(made)] = template.segs.as_slice() else {
                continue;
            };
            let made = made.clone();
            let synthetic = self.attrs.get(&made).is_some_and(|a| a.synthetic);
            // A key name that is no identifier (`Order Id`) names the
            // attribute `order_id`, stored as the key's name.
            let (name, stored_as) = if is_identifier(&key.name) && !key.name.starts_with("__") {
                (key.name.clone(), None)
            } else {
                // The key's own name is no field's: its snake form is free
                // unless another attribute takes it.
                let base = snake(&key.name);
                let taken = self
                    .attrs
                    .keys()
                    .any(|a| *a != made && crate::naming::snake(a) == base);
                let name = if taken { self.fresh(&base) } else { base };
                (name, Some(key.name.clone()))
            };
            if !synthetic || (name != made && self.attrs.contains_key(&name)) {
                continue;
            }
            // The key's name must be free as a field too: an attribute that
            // takes it (`created_at` beside a key `createdAt`) moves to a
            // spec name of its own, keeping its name in the table.
            let field = crate::naming::snake(&name);
            let clashing: Vec<String> = self
                .attrs
                .keys()
                .filter(|a| **a != made && crate::naming::snake(a) == field)
                .cloned()
                .collect();
            // An index keyed on that attribute keeps it under its name.
            let index_key = |name: &str| {
                table
                    .gsis
                    .iter()
                    .any(|g| g.pk.name == name || g.sk.as_ref().is_some_and(|k| k.name == name))
            };
            if clashing.iter().any(|a| index_key(a)) {
                continue;
            }
            for other in clashing {
                let spec_name = self.fresh(&format!("{field}_attribute"));
                self.rename_attr(&other, &spec_name);
            }
            self.rename_attr(&made, &name);
            // A number placeholder of a string index key keeps the width its
            // texts there have; as the key itself it has none.
            let in_index = self.indexes.values().any(|(pk, sk)| {
                std::iter::once(pk)
                    .chain(sk)
                    .any(|t| t.segs.contains(&Seg::Attr(name.clone())))
            });
            if let Some(attr) = self.attrs.get_mut(&name) {
                attr.synthetic = false;
                attr.stored_as = stored_as;
                if !in_index {
                    attr.width = None;
                }
            }
            if key.r#type == "N" {
                let values: Vec<&AttributeValue> = self
                    .examples
                    .iter()
                    .filter_map(|x| x.values.get(&name))
                    .collect();
                let kind = kind_of(&values, Some("N"));
                if let Some(attr) = self.attrs.get_mut(&name) {
                    attr.kind = kind;
                }
            }
            // The key is the attribute itself: nothing left to guess.
            let natural = |t: &Template| t.segs == [Seg::Attr(name.clone())];
            if natural(&self.pk) {
                self.pk.comment = None;
            }
            if let Some(sk) = self.sk.as_mut().filter(|sk| natural(sk)) {
                sk.comment = None;
            }
        }
        // A made-up attribute is read back out of a string key; one that
        // only a number key holds is stored as an attribute after all.
        let in_string_key = |name: &str| {
            let key_type = |key: &str| {
                table
                    .key_attributes()
                    .find(|k| k.name == key)
                    .map_or("S", |k| k.r#type)
            };
            let table_keys = std::iter::once((table.pk.name.as_str(), Some(&self.pk))).chain(
                table
                    .sk
                    .as_ref()
                    .map(|k| (k.name.as_str(), self.sk.as_ref())),
            );
            let index_keys = table.gsis.iter().filter_map(|g| {
                let (pk, sk) = self.indexes.get(&g.name)?;
                Some(
                    std::iter::once((g.pk.name.as_str(), Some(pk)))
                        .chain(g.sk.as_ref().map(|k| (k.name.as_str(), sk.as_ref()))),
                )
            });
            table_keys.chain(index_keys.flatten()).any(|(k, t)| {
                key_type(k) == "S"
                    && t.is_some_and(|t| t.segs.contains(&Seg::Attr(name.to_owned())))
            })
        };
        let number_only: Vec<String> = self
            .attrs
            .iter()
            .filter(|(n, a)| a.synthetic && !in_string_key(n))
            .map(|(n, _)| n.clone())
            .collect();
        for name in number_only {
            if let Some(a) = self.attrs.get_mut(&name) {
                a.synthetic = false;
            }
        }
    }

    /// Forgets the attributes made up for key parts that no template uses
    /// any more (a template given up for a plain placeholder).
    pub(super) fn drop_unused_synthetic(&mut self) {
        let used: Vec<String> = std::iter::once(&self.pk)
            .chain(&self.sk)
            .chain(
                self.indexes
                    .values()
                    .flat_map(|(pk, sk)| std::iter::once(pk).chain(sk)),
            )
            .flat_map(|t| &t.segs)
            .filter_map(|s| match s {
                Seg::Attr(a) => Some(a.clone()),
                _ => None,
            })
            .collect();
        let unused: Vec<String> = self
            .attrs
            .iter()
            .filter(|(n, a)| a.synthetic && !used.contains(n))
            .map(|(n, _)| n.clone())
            .collect();
        for name in unused {
            self.attrs.shift_remove(&name);
            for x in &mut self.examples {
                x.values.shift_remove(&name);
            }
        }
    }

    /// Renames attribute `from` to `to` in the attributes (in place), the
    /// examples and the templates; a real attribute keeps its name in the
    /// table as `stored_as`.
    fn rename_attr(&mut self, from: &str, to: &str) {
        let Some(index) = self.attrs.get_index_of(from) else {
            return;
        };
        let Some(mut attr) = self.attrs.shift_remove(from) else {
            return;
        };
        if !attr.synthetic && attr.stored_as.is_none() {
            attr.stored_as = Some(from.to_owned());
        }
        self.attrs.insert(to.to_owned(), attr);
        let last = self.attrs.len() - 1;
        self.attrs.move_index(last, index);
        for x in &mut self.examples {
            if let Some(v) = x.values.shift_remove(from) {
                x.values.insert(to.to_owned(), v);
            }
        }
        let rename = |t: &mut Template| {
            for s in &mut t.segs {
                if *s == Seg::Attr(from.to_owned()) {
                    *s = Seg::Attr(to.to_owned());
                }
            }
        };
        rename(&mut self.pk);
        if let Some(sk) = &mut self.sk {
            rename(sk);
        }
        for (pk, sk) in self.indexes.values_mut() {
            rename(pk);
            if let Some(sk) = sk {
                rename(sk);
            }
        }
    }
}

/// An inferred attribute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attr {
    /// Its kind.
    pub kind: Kind,
    /// Absent from some items.
    pub optional: bool,
    /// Texts it takes inside composite keys (for a pattern).
    pub key_texts: Vec<String>,
    /// Delimiters of the templates it appears in.
    pub delimiters: BTreeSet<char>,
    /// Digits it is padded to inside keys (integers).
    pub width: Option<usize>,
    /// Made up to hold a part of a key.
    pub synthetic: bool,
    /// The attribute's name in the table, when it is no spec name
    /// (`Status#Time`, or a name whose field another attribute takes).
    pub stored_as: Option<String>,
    /// The declared fields of a map (or of a list's maps), when every
    /// value agrees on them.
    pub shape: Option<Shape>,
    /// Percent-escaped inside keys (`escape: true`).
    pub escaped: bool,
    /// The negative least value an integer is offset by inside keys.
    pub min: Option<i64>,
    /// A string in keys read back as an enum of these words (the texts it
    /// takes), where a string's alphabet would make keys meet.
    pub words: Option<Vec<String>>,
}

/// A sample item as an example.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Example {
    /// Tenant id.
    pub tenant: Option<String>,
    /// Shard.
    pub shard: Option<u32>,
    /// Attribute values.
    pub values: IndexMap<String, AttributeValue>,
}

/// Attribute kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `string`.
    String,
    /// `integer`.
    Integer,
    /// `decimal`.
    Decimal,
    /// `boolean`.
    Boolean,
    /// `map`.
    Map,
    /// `list`.
    List,
    /// `binary`.
    Binary,
    /// `set` of strings, integers, decimals or binaries.
    Set(crate::ir::SetOf),
}

/// What a map or list holds, when its values agree on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shape {
    /// Values of one kind (a map or list of anything, for those).
    Of(Kind),
    /// A map of declared fields.
    Record(Vec<Field>),
    /// A list of values of one shape.
    ListOf(Box<Shape>),
}

/// A field of an inferred typed map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// The spec's name.
    pub name: String,
    /// The name in the stored map, when it is no spec name.
    pub stored_as: Option<String>,
    /// What it holds.
    pub shape: Shape,
    /// Absent from some maps.
    pub optional: bool,
}
