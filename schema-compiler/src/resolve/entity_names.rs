//! An entity's declared names: reserved and stored names, timestamps and key-only attributes.

use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{self, PlaceholderKind};
use crate::syntax;

use super::{Resolver, SHARD_PLACEHOLDER};

impl Resolver<'_> {
    /// Key attributes, the entity-type marker and placeholder names cannot be entity attributes,
    /// except a key attribute filled by a template that is exactly that
    /// attribute (a natural key).
    pub(super) fn check_reserved_names(&mut self, entity: &ir::Entity, spec: &ir::Spec) {
        let table = &spec.table;
        let natural = |template: Option<&ir::KeyTemplate>| template.is_some_and(|t| t.is_natural());
        let mut reserved: Vec<(&str, &str)> = Vec::new();
        if !natural(Some(&entity.primary_key.pk)) {
            reserved.push((
                table.partition_key.name.as_str(),
                "the table's partition key",
            ));
        }
        if let Some(attribute) = table.entity_type.attribute() {
            reserved.push((attribute.as_str(), "the entity-type attribute"));
        }
        if let Some(sk) = &table.sort_key {
            if !natural(entity.primary_key.sk.as_ref()) {
                reserved.push((sk.name.as_str(), "the table's sort key"));
            }
        }
        if let Some(t) = &spec.tenant {
            reserved.push((t.placeholder.as_str(), "the tenant placeholder"));
        }
        if entity.shards.is_some() {
            reserved.push((SHARD_PLACEHOLDER, "the shard placeholder"));
        }
        for attr in entity.attributes.values() {
            if let Some((_, what)) = reserved.iter().find(|(n, _)| *n == attr.name.value) {
                self.error(
                    Diagnostic::new(
                        Code::ReservedName,
                        format!("attribute `{}` has the name of {what}", attr.name),
                    )
                    .label(attr.name.span, "this attribute")
                    .help(if what.starts_with("the table's") {
                        format!("rename the attribute, or make it the key itself: a key template of exactly `<{}>`", attr.name)
                    } else {
                        "rename the attribute; key attributes are computed from the templates".to_owned()
                    }),
                );
            }
        }
        self.check_stored_names(entity, spec);
        self.check_timestamps(entity);
        for (index_name, key) in &entity.index_keys {
            for template in key.templates() {
                let clash = entity.attributes.get(&template.attribute);
                if let Some(attr) = clash.filter(|_| !template.is_natural()) {
                    self.error(
                        Diagnostic::new(Code::KeyAttributeConflict, format!("index `{index_name}` writes key attribute `{}`, which is also an attribute of `{}`", template.attribute, entity.name))
                            .label(template.source.span, "this template computes the key")
                            .label(attr.name.span, "the entity's own attribute")
                            .help(format!("make the template exactly `<{}>` to index the attribute itself, or rename the attribute", template.attribute)),
                    );
                }
            }
        }
    }

    /// A timestamp changes on every write it names, so it is never part of
    /// a key (the item would move, or leave its index entry stale), and an
    /// entity has at most one of each kind.
    fn check_timestamps(&mut self, entity: &ir::Entity) {
        let mut seen: Vec<(&crate::syntax::Timestamp, &ir::Attribute)> = Vec::new();
        for attr in entity.attributes.values() {
            let Some(kind) = &attr.timestamp else {
                continue;
            };
            let in_key = std::iter::once(&entity.primary_key)
                .chain(entity.index_keys.values())
                .flat_map(|k| k.templates())
                .any(|t| t.placeholders().any(|p| p.name.value == attr.name.value));
            if in_key {
                self.error(
                    Diagnostic::new(
                        Code::InvalidAttribute,
                        format!("timestamp `{}` is part of a key", attr.name),
                    )
                    .label(attr.name.span, "set on every write")
                    .help("a key built from a time that changes on writes would move the item; key the item on a datetime the caller sets"),
                );
            }
            if let Some((_, first)) = seen.iter().find(|(k, _)| *k == kind) {
                self.error(
                    Diagnostic::new(
                        Code::DuplicateName,
                        format!(
                            "`{}` and `{}` are both `{}` timestamps of `{}`",
                            first.name,
                            attr.name,
                            match kind {
                                crate::syntax::Timestamp::Created => "created",
                                crate::syntax::Timestamp::Updated => "updated",
                            },
                            entity.name
                        ),
                    )
                    .label(attr.name.span, "second")
                    .label(first.name.span, "first")
                    .help("keep one: both would hold the same time"),
                );
            }
            seen.push((kind, attr));
        }
    }

    /// Names given with `stored_as` are the item's attribute names: distinct
    /// from each other and from every other attribute's, and not a key
    /// attribute or the entity-type attribute. A natural key is stored
    /// under the key's name, so it takes no `stored_as`.
    fn check_stored_names(&mut self, entity: &ir::Entity, spec: &ir::Spec) {
        let keys: Vec<&str> = spec
            .key_attributes()
            .map(|k| k.name.as_str())
            .chain(spec.table.entity_type.attribute().map(|a| a.as_str()))
            .collect();
        // By stored name: linear in the attributes, however many.
        let mut seen: std::collections::BTreeMap<&str, &ir::Attribute> =
            std::collections::BTreeMap::new();
        for attr in entity.attributes.values() {
            let stored = attr.stored();
            if let Some(other) = seen.get(stored) {
                self.error(
                    Diagnostic::new(
                        Code::DuplicateName,
                        format!(
                            "attributes `{}` and `{}` are both stored as `{stored}`",
                            other.name, attr.name
                        ),
                    )
                    .label(attr.name.span, "second")
                    .label(other.name.span, "first")
                    .help(
                        "an item holds one value per attribute name: store each under its own name",
                    ),
                );
            }
            seen.entry(stored).or_insert(attr);
            if attr.stored_as.is_none() {
                continue;
            }
            // A natural key is stored under the key's name, whatever else
            // `stored_as` says.
            let natural = std::iter::once(&entity.primary_key)
                .chain(entity.index_keys.values())
                .flat_map(|k| k.templates())
                .any(|t| {
                    t.natural_attribute() == Some(attr.name.as_str()) && t.attribute != stored
                });
            let own_key = std::iter::once(&entity.primary_key)
                .chain(entity.index_keys.values())
                .flat_map(|k| k.templates())
                .any(|t| {
                    t.natural_attribute() == Some(attr.name.as_str()) && t.attribute == stored
                });
            // Where a stream-kept counter records the stream records it applied.
            let applied = stored == "__applied";
            if natural || (keys.contains(&stored) && !own_key) || applied {
                self.error(
                    Diagnostic::new(
                        Code::ReservedName,
                        if natural {
                            format!("attribute `{}` is a natural key, stored under the key's name: it cannot be stored as `{stored}`", attr.name)
                        } else if applied {
                            format!("attribute `{}` would be stored as `__applied`, where a stream-kept counter records the stream records it applied", attr.name)
                        } else {
                            format!("attribute `{}` would be stored as `{stored}`, a key attribute or the entity-type attribute", attr.name)
                        },
                    )
                    .label(attr.name.span, "this attribute")
                    .help("remove `stored_as`, or give it the attribute's own name in the table"),
                );
            }
        }
    }

    /// A `default` stands in for an attribute an item lacks; an attribute
    /// written into a key is never missing from an item that has the key,
    /// and the key is built from it.
    pub(super) fn check_defaults(&mut self, entity: &ir::Entity, decl: &syntax::EntityDecl) {
        for (name, attr_decl) in decl.attributes.iter() {
            let Some(default) = &attr_decl.default else {
                continue;
            };
            let key = std::iter::once(&entity.primary_key)
                .chain(entity.index_keys.values())
                .flat_map(|k| k.templates())
                .find(|t| {
                    t.natural_attribute() == Some(name.as_str())
                        || t.placeholders().any(|p| {
                            p.kind == PlaceholderKind::Attribute && p.name.value == name.value
                        })
                });
            if let Some(key) = key {
                self.error(
                    Diagnostic::new(
                        Code::InvalidAttribute,
                        format!("`{name}` cannot have a `default`: it is part of the key `{}`", key.attribute),
                    )
                    .label(default.span, "`default` given here")
                    .label(key.source.span, "this key")
                    .help("remove `default`: an item's keys are built from the attribute, so an item that has the key has the value"),
                );
            }
        }
    }

    /// A `key_only` attribute is read back out of a key, so it must be a
    /// placeholder of a computed key template that an item has whenever it
    /// has the attribute: the primary key, or an index key whose other
    /// placeholders are required.
    pub(super) fn check_key_only(
        &mut self,
        entity: &ir::Entity,
        decl: &syntax::EntityDecl,
        spec: &ir::Spec,
    ) {
        let required = |p: &ir::Placeholder| {
            p.kind != PlaceholderKind::Attribute
                || entity
                    .attributes
                    .get(&p.name.value)
                    .is_some_and(|a| !a.optional)
        };
        for (name, attr_decl) in decl.attributes.iter() {
            let Some(flag) = attr_decl.key_only.as_ref().filter(|k| k.value) else {
                continue;
            };
            let in_key = std::iter::once(&entity.primary_key)
                .chain(entity.index_keys.values())
                .flat_map(|k| k.templates())
                .any(|t| {
                    // Every other placeholder is required: the key is
                    // there whenever the attribute is.
                    !t.is_natural()
                        && spec.key_type_of(&t.attribute) == ir::KeyType::String
                        && t.placeholders()
                            .filter(|p| p.name.value != name.value)
                            .all(required)
                        && t.placeholders().any(|p| {
                            p.kind == PlaceholderKind::Attribute && p.name.value == name.value
                        })
                });
            if !in_key {
                let natural = entity
                    .primary_key
                    .templates()
                    .any(|t| t.natural_attribute() == Some(name.as_str()));
                self.error(
                    Diagnostic::new(
                        Code::InvalidAttribute,
                        format!("`key_only` attribute `{name}` is in no key that items with it always have"),
                    )
                    .label(flag.span, "key only")
                    .label(entity.primary_key.pk.source.span, "the primary key")
                    .help(if natural {
                        "a natural key is the attribute itself, stored as the key: remove `key_only`"
                    } else {
                        "a key_only attribute is read back out of a string key the item has whenever it has the attribute (the primary key, or an index key whose other placeholders are required): put it in such a key, or remove `key_only`"
                    }),
                );
            }
        }
    }
}
