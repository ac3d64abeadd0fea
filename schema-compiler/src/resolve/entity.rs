//! Entity declarations → entities with typed key templates.

use indexmap::IndexMap;

use crate::diagnostics::{did_you_mean, Code, Diagnostic};
use crate::ir::{self, AttributeType, PlaceholderKind, Segment};
use crate::source::{Span, Spanned};
use crate::syntax::{self, de::NamedMap};
use crate::template::{parse_template, RawSegment, TemplateSpans};

use super::{is_identifier, or_span, text, Resolver, SHARD_PLACEHOLDER};

/// Where a template is used: decides which placeholders are allowed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum KeyPlace {
    Primary,
    Index,
}

/// What an entity's rules report about key templates that lost a placeholder.
const ENTITY_FOLLOW_ON: &[Code] = &[
    Code::KeyAttributeConflict,
    Code::ReservedName,
    Code::PlaceholderType,
];

impl Resolver<'_> {
    pub(super) fn resolve_entities(
        &mut self,
        decls: &NamedMap<syntax::EntityDecl>,
        spec: &ir::Spec,
    ) -> IndexMap<String, ir::Entity> {
        let mut out = IndexMap::new();
        for (name, decl) in decls.iter() {
            let before = self.diags.len();
            let untyped = self.untyped.len();
            let entity = self.resolve_entity(name, decl, spec);
            // A placeholder or type that is not there leaves a key template
            // without it: what the entity's other rules then say about the
            // template (a key attribute written twice, a natural key lost, a
            // template of the wrong type) is the same error again.
            if self.untyped.len() > untyped {
                self.broken_entities.insert(name.value.clone());
            }
            let lost = self
                .diags
                .iter()
                .skip(before)
                .any(|d| matches!(d.code, Code::UnknownPlaceholder | Code::UnknownType));
            if lost {
                self.diags.drop_since(before, ENTITY_FOLLOW_ON);
            }
            out.insert(name.value.clone(), entity);
        }
        for (name, decl) in decls.iter() {
            if let Some(aggregate) = &decl.aggregate {
                let resolved = self.resolve_aggregate(name, aggregate, &out);
                if let Some(entity) = out.get_mut(&name.value) {
                    entity.aggregate = resolved;
                }
            }
        }
        out
    }

    fn resolve_entity(
        &mut self,
        name: &Spanned<String>,
        decl: &Spanned<syntax::EntityDecl>,
        spec: &ir::Spec,
    ) -> ir::Entity {
        if !is_identifier(name) {
            self.error(
                Diagnostic::new(Code::InvalidName, format!("`{name}` is not a valid entity name"))
                    .label(name.span, "entity name")
                    .help("entity names become Rust types: use letters and digits, starting with a letter (PascalCase)"),
            );
        }
        let scope = self.resolve_scope(decl, spec);
        let mut attributes = IndexMap::new();
        for (attr_name, attr) in decl.attributes.iter() {
            self.check_attribute_name(attr_name);
            attributes.insert(
                attr_name.value.clone(),
                self.resolve_attribute(attr_name, attr),
            );
        }
        let shards = decl
            .shards
            .as_ref()
            .and_then(|s| self.resolve_shards(s, &attributes));
        let mut entity = ir::Entity {
            name: name.clone(),
            description: text(&decl.description),
            scope,
            attributes,
            primary_key: ir::EntityKey {
                pk: empty_template(),
                more_pk: Vec::new(),
                sk: None,
                more_sk: Vec::new(),
                sparse: false,
                when: None,
            },
            index_keys: IndexMap::new(),
            shards,
            throughput: decl
                .throughput
                .as_ref()
                .map_or_else(ir::Throughput::default, |t| ir::Throughput {
                    writes_per_second: self.per_second(&t.writes_per_second),
                    reads_per_second: self.per_second(&t.reads_per_second),
                }),
            version_attribute: None,
            aggregate: None,
            examples: None,
            conditions: IndexMap::new(),
            derived: IndexMap::new(),
        };
        entity.primary_key = self.resolve_primary_key(&decl.key, &entity, spec);
        entity.index_keys = self.resolve_index_keys(decl, &entity, spec);
        self.imply_index_keys(&mut entity, spec);
        entity.derived = self.resolve_derived(decl, &entity, spec);
        self.check_reserved_names(&entity, spec);
        self.check_key_only(&entity, decl, spec);
        self.check_defaults(&entity, decl);
        self.check_shard_placeholder(&entity, decl);
        entity.version_attribute = self.resolve_version(decl, &entity);
        entity.examples = decl
            .examples
            .as_ref()
            .map(|examples| self.resolve_examples(examples, &entity, spec));
        entity.conditions = self.resolve_named_conditions(&decl.conditions, &entity, spec);
        entity
    }

    fn resolve_scope(&mut self, decl: &syntax::EntityDecl, spec: &ir::Spec) -> ir::Scope {
        match (&decl.scope, &spec.tenant) {
            (Some(s), None) if s.value == ir::Scope::Tenant => {
                self.error(
                    Diagnostic::new(Code::TenantUndeclared, "a tenant-scoped entity needs a `tenant` section")
                        .label(s.span, "scope: tenant")
                        .help("declare `tenant: { placeholder: tenant, id_pattern: \"^[A-Za-z0-9_]{1,64}$\", principal_tag: TenantId }`"),
                );
                ir::Scope::Tenant
            }
            (Some(s), _) => s.value,
            (None, Some(_)) => ir::Scope::Tenant,
            (None, None) => ir::Scope::Global,
        }
    }

    fn per_second(&mut self, value: &Option<Spanned<u64>>) -> Option<Spanned<u64>> {
        value.as_ref().map(|v| {
            let bounded = self.at_most(
                v,
                super::bounds::UNITS_PER_SECOND,
                "throughput",
                "more requests per second than any table serves",
            );
            Spanned::new(bounded, v.span)
        })
    }

    fn resolve_shards(
        &mut self,
        decl: &Spanned<syntax::ShardsDecl>,
        attributes: &IndexMap<String, ir::Attribute>,
    ) -> Option<ir::Sharding> {
        if decl.count.value < 2 {
            self.error(
                Diagnostic::new(
                    Code::InvalidBounds,
                    format!("{} shard(s) spread nothing", decl.count.value),
                )
                .label(decl.count.span, "shard count")
                .help("use at least 2 shards, or remove `shards`"),
            );
        }
        let by = decl.by.trim();
        let by = if by == "random" {
            ir::ShardBy::Random
        } else if let Some(inner) = by.strip_prefix("hash(").and_then(|r| r.strip_suffix(')')) {
            let attr = inner.trim().trim_start_matches('<').trim_end_matches('>');
            if attributes.contains_key(attr) {
                ir::ShardBy::Hash(attr.to_owned())
            } else {
                let mut d = Diagnostic::new(
                    Code::UnknownAttribute,
                    format!("shard hash attribute `{attr}` is not an attribute of this entity"),
                )
                .label(decl.by.span, "hashed attribute");
                d = d.help(
                    match did_you_mean(attr, attributes.keys().map(String::as_str)) {
                        Some(close) => format!("did you mean `{close}`?"),
                        None => "name one of the entity's attributes: `by: hash(<attribute>)`"
                            .to_owned(),
                    },
                );
                self.error(d);
                // Reported; resolve the rest as if sharded at random, so the
                // `<shard>` placeholder does not cause errors of its own.
                ir::ShardBy::Random
            }
        } else {
            self.error(
                Diagnostic::new(Code::InvalidValue, format!("unknown shard strategy `{by}`"))
                    .label(decl.by.span, "shard strategy")
                    .help("write `random` or `hash(<attribute>)`"),
            );
            ir::ShardBy::Random
        };
        let count = self.at_most(
            &decl.count,
            super::bounds::SHARDS,
            "shard count",
            "every query reads every shard",
        );
        Some(ir::Sharding {
            count: Spanned::new(count, decl.count.span),
            by,
        })
    }

    fn resolve_primary_key(
        &mut self,
        decl: &Spanned<syntax::KeyTemplatesDecl>,
        entity: &ir::Entity,
        spec: &ir::Spec,
    ) -> ir::EntityKey {
        let table = &spec.table;
        let pk = match &decl.pk {
            Some(pk) => self
                .resolve_part_templates(
                    pk,
                    &[&table.partition_key],
                    entity,
                    spec,
                    KeyPlace::Primary,
                )
                .pop()
                .unwrap_or_else(empty_template),
            None => {
                self.error(
                    Diagnostic::new(
                        Code::MissingKey,
                        format!("entity `{}` has no partition key template", entity.name),
                    )
                    .label(decl.span, "key declared here")
                    .help(format!(
                        "add `pk: \"...\"` for the table's partition key `{}`",
                        table.partition_key.name
                    )),
                );
                empty_template()
            }
        };
        let sort: Vec<&ir::KeyAttribute> = table.sort_key.iter().collect();
        let sk =
            self.resolve_sort_templates(decl, &sort, entity, spec, KeyPlace::Primary, "the table");
        if let Some(when) = &decl.when {
            self.error(
                Diagnostic::new(
                    Code::InvalidValue,
                    "`when` applies to an entity's index keys, not its table key",
                )
                .label(when.span, "`when` given here")
                .help("every item is in the table: remove `when`, or give it to an index the entity is written into"),
            );
        }
        sparse_key(vec![pk], sk, entity, false)
    }

    /// The templates of the sort key attributes `parts` of the table or an
    /// index (`owner`), one per attribute, in order.
    pub(super) fn resolve_sort_templates(
        &mut self,
        decl: &Spanned<syntax::KeyTemplatesDecl>,
        parts: &[&ir::KeyAttribute],
        entity: &ir::Entity,
        spec: &ir::Spec,
        place: KeyPlace,
        owner: &str,
    ) -> Vec<ir::KeyTemplate> {
        match (&decl.sk, parts.first()) {
            (Some(sk), Some(_)) => self.resolve_part_templates(sk, parts, entity, spec, place),
            (None, Some(key)) => {
                self.error(
                    Diagnostic::new(
                        Code::MissingKey,
                        format!(
                            "entity `{}` has no sort key template for {owner}",
                            entity.name
                        ),
                    )
                    .label(decl.span, "keys declared here")
                    .help(format!(
                        "{owner} has the sort key `{}`: add `sk: \"...\"`",
                        key.name
                    )),
                );
                Vec::new()
            }
            (Some(sk), None) => {
                self.error(
                    Diagnostic::new(Code::MissingKey, format!("{owner} has no sort key"))
                        .label(sk.span, "this sort key template")
                        .help(format!("remove `sk`, or declare a sort key on {owner}")),
                );
                Vec::new()
            }
            (None, None) => Vec::new(),
        }
    }

    /// One template per key attribute of `parts` (a partition or sort key
    /// of one or, on a global index, up to four attributes), in order. A
    /// count that differs is an error, and gives no templates.
    pub(super) fn resolve_part_templates(
        &mut self,
        decl: &Spanned<syntax::de::Parts<String>>,
        parts: &[&ir::KeyAttribute],
        entity: &ir::Entity,
        spec: &ir::Spec,
        place: KeyPlace,
    ) -> Vec<ir::KeyTemplate> {
        if decl.len() != parts.len() {
            let names = parts
                .iter()
                .map(|p| format!("`{}`", p.name))
                .collect::<Vec<_>>()
                .join(", ");
            let help = if parts.len() == 1 {
                format!("the key attribute {names} is one attribute: write one template (multi-attribute keys are for global secondary indexes only)")
            } else {
                format!(
                    "write one template per key attribute ({names}), in order: `[\"<{}>\", ...]`",
                    parts[0].name
                )
            };
            self.error(
                Diagnostic::new(
                    Code::InvalidIndexKey,
                    format!(
                        "entity `{}` gives {} template(s) for a key of {} attribute(s)",
                        entity.name,
                        decl.len(),
                        parts.len()
                    ),
                )
                .label(decl.span, "these templates")
                .help(help),
            );
            return Vec::new();
        }
        decl.iter()
            .zip(parts)
            .map(|(template, key)| {
                let source = or_span(template, decl.span);
                self.resolve_entity_template(&source, key, entity, spec, place)
            })
            .collect()
    }

    pub(super) fn resolve_entity_template(
        &mut self,
        source: &Spanned<String>,
        key: &ir::KeyAttribute,
        entity: &ir::Entity,
        spec: &ir::Spec,
        place: KeyPlace,
    ) -> ir::KeyTemplate {
        let errors_before = self.diags.count(crate::diagnostics::Severity::Error);
        let raw = self.parse_raw_template(source);
        // A natural key stores the attribute as it is (under its own name
        // or its `stored_as`), so a number key may be a decimal attribute.
        let natural = matches!(raw.as_slice(), [RawSegment::Placeholder(n)]
            if entity.attributes.get(&n.value).map_or(n.value == key.name.value, |a| a.stored() == key.name.value));
        let mut segments = Vec::with_capacity(raw.len());
        for seg in raw {
            match seg {
                RawSegment::Literal(l) => segments.push(Segment::Literal(l)),
                RawSegment::Placeholder(name) => {
                    if let Some(kind) =
                        self.bind_entity_placeholder(&name, entity, spec, place, natural)
                    {
                        segments.push(Segment::Placeholder(ir::Placeholder { name, kind }));
                    }
                }
            }
        }
        if self.diags.count(crate::diagnostics::Severity::Error) > errors_before {
            self.broken_entities.insert(entity.name.value.clone());
        }
        let template = ir::KeyTemplate {
            attribute: key.name.value.clone(),
            source: source.clone(),
            segments,
            natural,
        };
        self.check_key_type(&template, key, entity);
        template
    }

    pub(super) fn parse_raw_template(&mut self, source: &Spanned<String>) -> Vec<RawSegment> {
        let spans = TemplateSpans::new(self.sources, source);
        match parse_template(source, spans) {
            Ok(raw) => raw,
            Err(errors) => {
                for e in errors {
                    self.error(
                        Diagnostic::new(Code::TemplateSyntax, e.message)
                            .label(e.span, "here")
                            .help("placeholders are `<name>`; write `<<` for a literal `<`"),
                    );
                }
                Vec::new()
            }
        }
    }

    /// What `<name>` in an entity template refers to, reporting what is wrong.
    fn bind_entity_placeholder(
        &mut self,
        name: &Spanned<String>,
        entity: &ir::Entity,
        spec: &ir::Spec,
        place: KeyPlace,
        natural: bool,
    ) -> Option<PlaceholderKind> {
        if let Some(attr) = entity.attributes.get(&name.value) {
            self.check_placeholder_attribute(name, attr, place, natural);
            return Some(PlaceholderKind::Attribute);
        }
        if spec
            .tenant
            .as_ref()
            .is_some_and(|t| t.placeholder.value == name.value)
        {
            return Some(PlaceholderKind::Tenant);
        }
        if name.value == SHARD_PLACEHOLDER && entity.shards.is_some() {
            return Some(PlaceholderKind::Shard);
        }
        self.unknown_placeholder(name, entity, spec);
        None
    }

    fn check_placeholder_attribute(
        &mut self,
        name: &Spanned<String>,
        attr: &ir::Attribute,
        place: KeyPlace,
        natural: bool,
    ) {
        // A natural key stores the attribute as it is: a decimal as a
        // number key, bytes as a binary key.
        let natural_only = natural
            && matches!(
                attr.r#type,
                AttributeType::Decimal { .. } | AttributeType::Binary { .. }
            );
        let untyped = self.untyped.contains(&attr.name.span);
        if !attr.r#type.is_key_compatible() && !natural_only && !untyped {
            self.error(
                Diagnostic::new(Code::PlaceholderType, format!("`{name}` is {}, which cannot be part of a key", attr.r#type.article_name()))
                    .label(name.span, "this placeholder")
                    .label(attr.name.span, "attribute declared here")
                    .help(if matches!(attr.r#type, AttributeType::Decimal { .. }) {
                        "key placeholders must be string, integer, datetime, enum or boolean attributes; a decimal can only be a number key by itself (a natural key: `<price>` for a key named `price`)"
                    } else {
                        "key placeholders must be string, integer, datetime, enum or boolean attributes"
                    }),
            );
        }
        if attr.optional && place == KeyPlace::Primary {
            self.error(
                Diagnostic::new(Code::OptionalInPrimaryKey, format!("optional attribute `{name}` is in the primary key"))
                    .label(name.span, "this placeholder")
                    .label(attr.name.span, "declared optional here")
                    .help("every item needs its full primary key: make the attribute required, or use it only in an index key (which makes the index sparse)"),
            );
        }
    }

    fn unknown_placeholder(
        &mut self,
        name: &Spanned<String>,
        entity: &ir::Entity,
        spec: &ir::Spec,
    ) {
        if spec.tenant.is_none() && name.to_ascii_lowercase().contains("tenant") {
            self.error(
                Diagnostic::new(Code::TenantUndeclared, format!("`<{name}>` looks like a tenant placeholder, but the spec declares no tenant"))
                    .label(name.span, "this placeholder")
                    .help(format!("declare `tenant: {{ placeholder: {name} }}` at the top level, or add an attribute `{name}`")),
            );
            return;
        }
        if name.value == SHARD_PLACEHOLDER {
            self.error(
                Diagnostic::new(Code::ShardPlaceholder, format!("`<{SHARD_PLACEHOLDER}>` is used but entity `{}` declares no shards", entity.name))
                    .label(name.span, "shard placeholder")
                    .help("add `shards: { count: 10, by: random }` to the entity, or remove the placeholder"),
            );
            return;
        }
        let tenant = spec.tenant.as_ref().map(|t| t.placeholder.value.as_str());
        let shard = entity.shards.as_ref().map(|_| SHARD_PLACEHOLDER);
        let candidates = entity
            .attributes
            .keys()
            .map(String::as_str)
            .chain(tenant)
            .chain(shard);
        let mut d = Diagnostic::new(
            Code::UnknownPlaceholder,
            format!("unknown placeholder `<{name}>`"),
        )
        .label(name.span, "not an attribute of this entity");
        d = d.help(match did_you_mean(name, candidates) {
            Some(close) => format!("did you mean `{close}`?"),
            None => format!("declare an attribute `{name}` on entity `{}`", entity.name),
        });
        self.error(d);
    }

    /// Number keys hold exactly one integer; binary keys cannot be templated.
    fn check_key_type(
        &mut self,
        template: &ir::KeyTemplate,
        key: &ir::KeyAttribute,
        entity: &ir::Entity,
    ) {
        let natural = template
            .natural_attribute()
            .and_then(|name| entity.attributes.get(name));
        let ok = match (key.r#type, natural.map(|a| &a.r#type)) {
            // The item's own attribute is the key: its DynamoDB type must be the key's.
            (key_type, Some(t)) => natural_type_fits(key_type, t),
            (ir::KeyType::String, None) => true,
            (ir::KeyType::Number, None) => matches!(template.segments.as_slice(),
                [Segment::Placeholder(p)] if p.kind == PlaceholderKind::Shard || entity.attributes.get(&p.name.value).is_some_and(|a| matches!(a.r#type, AttributeType::Integer { .. }))),
            (ir::KeyType::Binary, None) => template.segments.is_empty(),
        };
        if !ok {
            self.error(
                Diagnostic::new(Code::PlaceholderType, format!("key attribute `{}` is of type {:?}, but this template does not produce one", key.name, key.r#type))
                    .label(template.source.span, "this template")
                    .help("a string key takes a template (or, as a natural key, a string, enum or RFC 3339 datetime attribute); a number key exactly one integer or epoch datetime placeholder, e.g. `<year>` (or, as a natural key, an integer, decimal or epoch datetime attribute); a binary key only a binary attribute of the same name"),
            );
        }
    }

    fn check_shard_placeholder(&mut self, entity: &ir::Entity, decl: &syntax::EntityDecl) {
        let Some(shards) = &decl.shards else { return };
        let count = entity
            .primary_key
            .pk
            .placeholders()
            .filter(|p| p.kind == PlaceholderKind::Shard)
            .count();
        if count != 1 && !entity.primary_key.pk.segments.is_empty() {
            self.error(
                Diagnostic::new(Code::ShardPlaceholder, format!("entity `{}` is sharded, so its partition key needs `<{SHARD_PLACEHOLDER}>` once", entity.name))
                    .label(entity.primary_key.pk.source.span, "this partition key template")
                    .label(shards.span, "shards declared here")
                    .help(if count == 0 {
                        format!("append a shard suffix behind a delimiter, e.g. `...|S#<{SHARD_PLACEHOLDER}>`")
                    } else {
                        format!("keep exactly one `<{SHARD_PLACEHOLDER}>` in the partition key")
                    }),
            );
        }
    }

    fn resolve_version(
        &mut self,
        decl: &syntax::EntityDecl,
        entity: &ir::Entity,
    ) -> Option<String> {
        let name = decl.version_attribute.as_ref()?;
        match entity.attributes.get(&name.value) {
            Some(a) if matches!(a.r#type, AttributeType::Integer { .. }) && !a.optional => {
                Some(name.value.clone())
            }
            Some(a) => {
                self.error(
                    Diagnostic::new(
                        Code::InvalidAttribute,
                        format!("version attribute `{name}` must be a required integer"),
                    )
                    .label(name.span, "version attribute")
                    .label(a.name.span, "declared here")
                    .help("declare it as `integer` (not optional)"),
                );
                None
            }
            None => {
                self.unknown_attribute(name, entity);
                None
            }
        }
    }

    pub(super) fn unknown_attribute(&mut self, name: &Spanned<String>, entity: &ir::Entity) {
        self.report_unknown_attribute(
            name,
            format!("entity `{}` has no attribute `{name}`", entity.name),
            entity.attributes.keys().map(String::as_str),
            &format!("declare `{name}` under the entity's attributes"),
        );
    }

    fn resolve_aggregate(
        &mut self,
        name: &Spanned<String>,
        decl: &Spanned<syntax::AggregateDecl>,
        entities: &IndexMap<String, ir::Entity>,
    ) -> Option<ir::Aggregate> {
        let this = entities.get(&name.value)?;
        let Some(of) = entities.get(&decl.of.value) else {
            self.unknown_entity(&decl.of, entities.keys());
            return None;
        };
        for g in &decl.group_by.0 {
            for e in [this, of] {
                if !e.attributes.contains_key(&g.value) {
                    self.unknown_attribute(g, e);
                }
            }
        }
        match this.attributes.get(&decl.count.value) {
            Some(a) if matches!(a.r#type, AttributeType::Integer { .. }) => {}
            Some(a) => self.error(
                Diagnostic::new(
                    Code::InvalidAttribute,
                    format!("count attribute `{}` must be an integer", decl.count),
                )
                .label(decl.count.span, "count attribute")
                .label(a.name.span, "declared here")
                .help("declare it as `integer`"),
            ),
            None => self.unknown_attribute(&decl.count, this),
        }
        Some(ir::Aggregate {
            of: decl.of.value.clone(),
            group_by: decl.group_by.0.iter().map(|g| g.value.clone()).collect(),
            count: decl.count.value.clone(),
            maintained_by: decl.maintained_by.value,
        })
    }

    pub(super) fn unknown_entity<'n>(
        &mut self,
        name: &Spanned<String>,
        known: impl Iterator<Item = &'n String> + Clone,
    ) {
        let mut d = Diagnostic::new(Code::UnknownEntity, format!("no entity is named `{name}`"))
            .label(name.span, "unknown entity");
        d = d.help(
            match did_you_mean(name, known.clone().map(String::as_str)) {
                Some(close) => format!("did you mean `{close}`?"),
                None => format!(
                    "declared entities: {}",
                    known.cloned().collect::<Vec<_>>().join(", ")
                ),
            },
        );
        self.error(d);
    }
}

/// Whether an attribute stored as `ty` can be a key of type `key` as it is.
pub(super) fn natural_type_fits(key: ir::KeyType, ty: &AttributeType) -> bool {
    match key {
        ir::KeyType::String => matches!(
            ty,
            AttributeType::String { .. }
                | AttributeType::Enum { .. }
                | AttributeType::Datetime {
                    format: ir::DatetimeFormat::Rfc3339,
                    ..
                }
        ),
        ir::KeyType::Number => matches!(
            ty,
            AttributeType::Integer { .. }
                | AttributeType::Decimal { .. }
                | AttributeType::Datetime {
                    format: ir::DatetimeFormat::EpochSeconds | ir::DatetimeFormat::EpochMillis,
                    ..
                }
        ),
        ir::KeyType::Binary => matches!(ty, AttributeType::Binary { .. }),
    }
}

/// An entity's keys from the templates of its partition key's and sort
/// key's attributes (`pk` has at least one): in an index (`index`), sparse
/// when an optional attribute fills a placeholder.
pub(super) fn sparse_key(
    pk: Vec<ir::KeyTemplate>,
    sk: Vec<ir::KeyTemplate>,
    entity: &ir::Entity,
    index: bool,
) -> ir::EntityKey {
    let mut pk = pk.into_iter();
    let mut sk = sk.into_iter();
    let mut key = ir::EntityKey {
        pk: pk.next().unwrap_or_else(empty_template),
        more_pk: pk.collect(),
        sk: sk.next(),
        more_sk: sk.collect(),
        sparse: false,
        when: None,
    };
    if !index {
        return key;
    }
    let sparse = key.templates().flat_map(|t| t.placeholders()).any(|p| {
        p.kind == PlaceholderKind::Attribute
            && entity
                .attributes
                .get(&p.name.value)
                .is_some_and(|a| a.optional)
    });
    key.sparse = sparse;
    key
}

fn empty_template() -> ir::KeyTemplate {
    ir::KeyTemplate {
        natural: false,
        attribute: String::new(),
        source: Spanned::new(String::new(), Span::DUMMY),
        segments: Vec::new(),
    }
}
