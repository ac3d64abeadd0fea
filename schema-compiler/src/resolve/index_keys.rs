//! An entity's index keys: declared, and implied where a natural attribute is an index's key.

use indexmap::IndexMap;

use crate::diagnostics::{did_you_mean, Code, Diagnostic};
use crate::ir::{self, PlaceholderKind, Segment};
use crate::source::Spanned;
use crate::syntax;

use super::entity::{natural_type_fits, sparse_key, KeyPlace};
use super::Resolver;

impl Resolver<'_> {
    pub(super) fn resolve_index_keys(
        &mut self,
        decl: &syntax::EntityDecl,
        entity: &ir::Entity,
        spec: &ir::Spec,
    ) -> IndexMap<String, ir::EntityKey> {
        let mut out = IndexMap::new();
        for (index_name, keys) in decl.indexes.iter() {
            let Some(index) = spec.indexes.get(&index_name.value) else {
                self.unknown_index(index_name, spec);
                continue;
            };
            let owner = format!("index `{index_name}`");
            let partition: Vec<&ir::KeyAttribute> = index.partition_parts().collect();
            let pk = match (index.kind, &keys.pk) {
                (ir::IndexKind::Global, Some(pk)) => {
                    self.resolve_part_templates(pk, &partition, entity, spec, KeyPlace::Index)
                }
                (ir::IndexKind::Global, None) => {
                    self.error(
                        Diagnostic::new(
                            Code::MissingKey,
                            format!(
                                "entity `{}` has no partition key template for {owner}",
                                entity.name
                            ),
                        )
                        .label(index_name.span, "index keys declared here")
                        .help(format!(
                            "add `pk: \"...\"` for the index's partition key `{}`",
                            index.partition_key.name
                        )),
                    );
                    continue;
                }
                (ir::IndexKind::Local, Some(pk)) => {
                    self.error(
                        Diagnostic::new(
                            Code::InvalidIndexKey,
                            format!("{owner} is local: it shares the table's partition key"),
                        )
                        .label(pk.span, "this partition key template")
                        .help("remove `pk`: the entity's table partition key is used"),
                    );
                    vec![entity.primary_key.pk.clone()]
                }
                (ir::IndexKind::Local, None) => vec![entity.primary_key.pk.clone()],
            };
            if pk.is_empty() {
                continue;
            }
            let sort: Vec<&ir::KeyAttribute> = index.sort_parts().collect();
            let sk =
                self.resolve_sort_templates(keys, &sort, entity, spec, KeyPlace::Index, &owner);
            if index.is_multi_attribute() {
                self.check_unsharded_parts(index, pk.iter().chain(&sk));
            }
            let mut key = sparse_key(pk, sk, entity, true);
            if let Some(when) = &keys.when {
                key.when = self.resolve_membership(when, &key, entity, index);
                key.sparse |= key.when.is_some();
            }
            out.insert(index_name.value.clone(), key);
        }
        out
    }

    /// DynamoDB puts an item into every index whose key attributes it has,
    /// whether or not its entity lists the index: an index keyed on the
    /// table's sort key (an inverted index), or on an attribute another
    /// index also uses, receives the items of every entity that writes
    /// those attributes. The entity's keys there are the templates that
    /// write them. One attribute written by two different templates is an
    /// error: the item holds one value, so one of the keys would be wrong.
    pub(super) fn imply_index_keys(&mut self, entity: &mut ir::Entity, spec: &ir::Spec) {
        // Every key attribute the entity writes, with the template and where it is declared.
        let mut written: IndexMap<String, (ir::KeyTemplate, String)> = IndexMap::new();
        let declared = entity
            .primary_key
            .templates()
            .map(|t| (t, "the table key".to_owned()))
            .chain(entity.index_keys.iter().flat_map(|(index, keys)| {
                keys.templates()
                    .map(move |t| (t, format!("index `{index}`")))
            }));
        for (template, place) in declared {
            match written.get(&template.attribute) {
                // Two table keys of one name are `duplicate_name`'s to report.
                Some((first, first_place))
                    if first.segments != template.segments && *first_place != place =>
                {
                    self.error(
                        Diagnostic::new(
                            Code::KeyAttributeConflict,
                            format!(
                                "entity `{}` writes key attribute `{}` twice, as `{}` for {first_place} and as `{}` for {place}",
                                entity.name, template.attribute, first.source, template.source
                            ),
                        )
                        .label(first.source.span, format!("`{}` for {first_place}", template.attribute))
                        .label(template.source.span, format!("`{}` for {place}", template.attribute))
                        .help("an item holds one value per attribute: write the same template for both, or give the index its own key attributes"),
                    );
                }
                Some(_) => {}
                None => {
                    written.insert(template.attribute.clone(), (template.clone(), place));
                }
            }
        }
        for index in spec.indexes.values() {
            if entity.index_keys.contains_key(&index.name.value) {
                continue;
            }
            // What the entity writes under a key attribute: a key template,
            // or its own attribute of that name (a natural key).
            let template = |key: &ir::KeyAttribute| match written.get(&key.name.value) {
                Some((template, _)) => Some((template.clone(), None)),
                // DynamoDB indexes the items that have the key attribute by
                // its stored name.
                None => entity
                    .attributes
                    .values()
                    .find(|a| a.stored() == key.name.value)
                    .map(|attr| {
                        let name = attr.name.clone();
                        let template = ir::KeyTemplate {
                            attribute: key.name.value.clone(),
                            source: Spanned::new(format!("<{name}>"), name.span),
                            segments: vec![Segment::Placeholder(ir::Placeholder {
                                name,
                                kind: PlaceholderKind::Attribute,
                            })],
                            natural: true,
                        };
                        (template, Some(attr))
                    }),
            };
            let mut found = Vec::new();
            for key in index.key_parts() {
                let Some((template, natural)) = template(key) else {
                    break;
                };
                if let Some(attr) = natural.filter(|a| !natural_type_fits(key.r#type, &a.r#type)) {
                    self.error(
                        Diagnostic::new(Code::PlaceholderType, format!("`{}.{}` puts every `{}` item into index `{}` (DynamoDB indexes each item that has the key attributes), but that index's key `{}` is of type {:?}: every write of a `{}` would be refused", entity.name, attr.name, entity.name, index.name, key.name, key.r#type, entity.name))
                            .label(attr.name.span, "this attribute")
                            .label(key.name.span, "the index key attribute")
                            .help("rename the attribute, or give it the index key's type"),
                    );
                }
                found.push(template);
            }
            if found.len() != index.key_parts().count() {
                continue;
            }
            let sk = found.split_off(index.partition_parts().count());
            if index.is_multi_attribute() {
                self.check_unsharded_parts(index, found.iter().chain(&sk));
            }
            let key = sparse_key(found, sk, entity, true);
            entity.index_keys.insert(index.name.value.clone(), key);
        }
    }

    /// A multi-attribute index key names no `<shard>`: a sharded query
    /// merges its shards' pages by one sort key attribute, and a
    /// multi-attribute sort key orders by several.
    fn check_unsharded_parts<'t>(
        &mut self,
        index: &ir::Index,
        templates: impl Iterator<Item = &'t ir::KeyTemplate>,
    ) {
        for template in templates.filter(|t| t.has_shard()) {
            self.error(
                Diagnostic::new(
                    Code::InvalidIndexKey,
                    format!(
                        "index `{}` has a multi-attribute key, and this template of its `{}` names `<shard>`",
                        index.name, template.attribute
                    ),
                )
                .label(template.source.span, "a sharded template")
                .help("a multi-attribute key spreads its partitions over every attribute of the partition key already: put the attribute that spreads the writes into the partition key instead of a shard"),
            );
        }
    }

    pub(super) fn unknown_index(&mut self, name: &Spanned<String>, spec: &ir::Spec) {
        let mut d = Diagnostic::new(Code::UnknownIndex, format!("no index is named `{name}`"))
            .label(name.span, "unknown index");
        d = d.help(
            match did_you_mean(name, spec.indexes.keys().map(String::as_str)) {
                Some(close) => format!("did you mean `{close}`?"),
                None if spec.indexes.is_empty() => {
                    "declare it under `indexes:` at the top level".to_owned()
                }
                None => format!(
                    "declared indexes: {}",
                    spec.indexes.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            },
        );
        self.error(d);
    }

    /// `when: <flag>` on an entity's keys of `index`: a boolean attribute
    /// of the entity, and keys the repository computes (an attribute that
    /// is itself a key part is in the index whenever the item has it).
    fn resolve_membership(
        &mut self,
        when: &Spanned<String>,
        key: &ir::EntityKey,
        entity: &ir::Entity,
        index: &ir::Index,
    ) -> Option<String> {
        let Some(flag) = entity.attributes.get(&when.value) else {
            self.report_unknown_attribute(
                when,
                format!(
                    "`when` names `{when}`, which `{}` does not have",
                    entity.name
                ),
                entity.attributes.keys().map(String::as_str),
                "name a boolean attribute of the entity",
            );
            return None;
        };
        if flag.r#type != ir::AttributeType::Boolean {
            self.error(
                Diagnostic::new(
                    Code::InvalidIndexKey,
                    format!(
                        "`when: {when}` needs a boolean: `{}.{when}` is {}",
                        entity.name,
                        flag.r#type.article_name()
                    ),
                )
                .label(when.span, "membership given here")
                .label(flag.name.span, "attribute declared here")
                .help("name a boolean attribute: the item is in the index while it is true"),
            );
            return None;
        }
        if let Some(natural) = key.templates().find(|t| t.is_natural()) {
            self.error(
                Diagnostic::new(
                    Code::InvalidIndexKey,
                    format!(
                        "`when` cannot keep `{}` out of index `{}`: its key attribute `{}` is the item's own attribute, which DynamoDB indexes whenever the item has it",
                        entity.name, index.name, natural.attribute
                    ),
                )
                .label(when.span, "membership given here")
                .label(natural.source.span, "the item's own attribute")
                .help("write the index key from a template the repository computes, or make the attribute optional and leave it out of items that are not members"),
            );
            return None;
        }
        Some(when.value.clone())
    }

    /// `derived:` attributes: a stored name of their own, and a template
    /// over the entity's attributes (optional ones make the value absent
    /// when they are), written as a string.
    pub(super) fn resolve_derived(
        &mut self,
        decl: &syntax::EntityDecl,
        entity: &ir::Entity,
        spec: &ir::Spec,
    ) -> IndexMap<String, ir::KeyTemplate> {
        let mut out = IndexMap::new();
        for (name, template) in &decl.derived.0 {
            self.check_stored_name(name, false);
            let taken = entity
                .attributes
                .values()
                .find(|a| a.stored() == name.value)
                .map(|a| format!("attribute `{}`", a.name))
                .or_else(|| {
                    spec.key_attributes()
                        .any(|k| k.name.value == name.value)
                        .then(|| "a key attribute".to_owned())
                })
                .or_else(|| {
                    entity
                        .templates()
                        .any(|(_, t)| t.attribute == name.value)
                        .then(|| "an index key the entity writes".to_owned())
                })
                .or_else(|| {
                    (spec.table.entity_type.attribute().map(|a| a.as_str()) == Some(name.as_str()))
                        .then(|| "the entity-type attribute".to_owned())
                });
            if let Some(taken) = taken {
                self.error(
                    Diagnostic::new(
                        Code::DuplicateName,
                        format!("derived attribute `{name}` is stored under the name of {taken}"),
                    )
                    .label(name.span, "derived here")
                    .help("an item holds one value per name: give the derived attribute a name of its own"),
                );
                continue;
            }
            let key = ir::KeyAttribute {
                name: name.clone(),
                r#type: ir::KeyType::String,
            };
            let template =
                self.resolve_entity_template(template, &key, entity, spec, KeyPlace::Index);
            out.insert(name.value.clone(), template);
        }
        out
    }
}
