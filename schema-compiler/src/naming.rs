//! Rust names for spec names.

use proc_macro2::Ident;
use std::rc::Rc;

use indexmap::IndexMap;

use crate::ir;
use crate::source::Span;

const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
    "pub", "ref", "return", "static", "struct", "trait", "true", "type", "unsafe", "use", "where",
    "while", "abstract", "become", "box", "do", "final", "macro", "override", "priv", "try",
    "typeof", "unsized", "virtual", "yield",
];

/// The hidden accessors `#[derive(Entity)]` gives a struct for attribute
/// `attribute` (reading, then setting it), which the repository of an
/// extern entity goes through. Their prefixes differ, so no attribute's
/// getter is another's setter.
pub fn field_accessors(attribute: &str) -> (String, String) {
    let name = snake(attribute);
    let name = name.trim_start_matches("r#");
    (
        format!("__singletable_get_{name}"),
        format!("__singletable_set_{name}"),
    )
}

/// `ticketCount`, `TicketCount`, `ShardID` → `ticket_count`, `ticket_count`, `shard_id`.
pub fn snake(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 2);
    let mut chars = name.chars().peekable();
    let mut prev: Option<char> = None;
    while let Some(c) = chars.next() {
        let before = prev.replace(c);
        if !c.is_ascii_alphanumeric() {
            if !out.ends_with('_') && !out.is_empty() {
                out.push('_');
            }
            continue;
        }
        if let (true, Some(prev)) = (c.is_ascii_uppercase(), before) {
            let next_lower = chars.peek().is_some_and(|n| n.is_ascii_lowercase());
            let boundary = prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next_lower);
            if boundary && !out.ends_with('_') && !out.is_empty() {
                out.push('_');
            }
        }
        out.push(c.to_ascii_lowercase());
    }
    out.truncate(out.trim_end_matches('_').len());
    match out.chars().next() {
        None => "value".to_owned(),
        Some(c) if c.is_ascii_digit() => format!("_{out}"),
        Some(_) => out,
    }
}

/// `ticket_with_comments`, `OPEN`, `in-progress` → `TicketWithComments`, `Open`, `InProgress`.
pub fn pascal(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for word in snake(name).split('_').filter(|w| !w.is_empty()) {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            out.extend(chars);
        }
    }
    match out.chars().next() {
        None => "Value".to_owned(),
        Some(c) if c.is_ascii_digit() => format!("V{out}"),
        Some(_) => out,
    }
}

/// `SCREAMING_SNAKE` for constants.
pub fn screaming(name: &str) -> String {
    snake(name).trim_start_matches('_').to_ascii_uppercase()
}

/// An identifier, raw when it is a keyword.
pub fn ident(name: &str) -> Ident {
    if matches!(name, "self" | "Self" | "super" | "crate" | "_") {
        Ident::new(&format!("{name}_"), proc_macro2::Span::call_site())
    } else if KEYWORDS.contains(&name) {
        Ident::new_raw(name, proc_macro2::Span::call_site())
    } else {
        Ident::new(name, proc_macro2::Span::call_site())
    }
}

/// The snake_case identifier of a spec name.
pub fn snake_ident(name: &str) -> Ident {
    ident(&snake(name))
}

/// The PascalCase identifier of a spec name.
pub fn pascal_ident(name: &str) -> Ident {
    ident(&pascal(name))
}

/// Methods every `Repository` has; no access pattern may take their names.
pub const REPOSITORY_METHODS: &[&str] = &[
    "new",
    "with_table_name",
    "with_retry_policy",
    "client",
    "table_name",
    "create_table",
    "for_tenant",
    "tenant",
    "apply_counter_changes",
    "transact_get",
];

/// Types and constants every generated module has.
pub const MODULE_ITEMS: &[&str] = &[
    "TABLE_NAME",
    "TABLE",
    "Tenancy",
    "TenantId",
    "Repository",
    "TenantRepository",
];

/// Names from Rust's standard prelude that generated code uses unqualified,
/// with their paths: a generated item with one of these names would shadow
/// it, and the derive imports them by path into the block it expands to.
pub const STD_NAMES: &[(&str, &str)] = &[
    ("Option", "::core::option::Option"),
    ("Some", "::core::option::Option::Some"),
    ("None", "::core::option::Option::None"),
    ("Result", "::core::result::Result"),
    ("Ok", "::core::result::Result::Ok"),
    ("Err", "::core::result::Result::Err"),
    ("String", "::std::string::String"),
    ("Vec", "::std::vec::Vec"),
    ("Clone", "::core::clone::Clone"),
    ("Default", "::core::default::Default"),
    ("From", "::core::convert::From"),
    ("Into", "::core::convert::Into"),
];

/// The repository method for entity operation `verb` (`get`, `put`, …) on
/// `entity`: `get_ticket`, or `get_ticket_item` when an access pattern is
/// already called `get_ticket`.
pub fn entity_op(spec: &ir::Spec, verb: &str, entity: &str) -> String {
    let method = format!("{verb}_{}", snake(entity));
    // Access pattern names are snake_case already (the resolver insists).
    if spec.access_patterns.contains_key(&method) {
        format!("{method}_item")
    } else {
        method
    }
}

/// `delete_ticket_when`: the conditional delete of an entity.
pub fn delete_when(spec: &ir::Spec, entity: &str) -> String {
    format!("{}_when", entity_op(spec, "delete", entity))
}

/// `put_ticket_when`: the conditional put of an entity.
pub fn put_when(spec: &ir::Spec, entity: &str) -> String {
    format!("{}_when", entity_op(spec, "put", entity))
}

/// `STATUS`: the typed field constant of an attribute (`Ticket::STATUS`),
/// for write conditions.
pub fn field_const(attribute: &str) -> String {
    snake(attribute).to_uppercase()
}

/// The verbs of the entity operations every repository offers.
pub const ENTITY_OPS: &[&str] = &["get", "put", "create", "update", "delete", "replace"];

/// `close_tickets` → `CloseTicketsTransaction` / `CloseTicketsBatch`.
pub fn builder_type(pattern: &ir::AccessPattern) -> Option<String> {
    let suffix = match pattern.operation {
        ir::Operation::Transaction(_) => "Transaction",
        ir::Operation::Batch(_) => "Batch",
        _ => return None,
    };
    Some(format!("{}{suffix}", pascal(pattern.name.as_str())))
}

/// `ticket_with_comments` → `TicketWithCommentsItem`, for queries returning
/// more than one entity.
pub fn item_enum(pattern: &ir::AccessPattern) -> Option<String> {
    match &pattern.operation {
        ir::Operation::Query(q) if q.returns.len() > 1 => {
            Some(format!("{}Item", pascal(pattern.name.as_str())))
        }
        _ => None,
    }
}

/// The partial types of an access pattern that reads entities in part
/// ([`ir::AccessPattern::partials`]), by entity: `ticket_titles` →
/// `TicketTitlesItem` when it reads one entity, `TicketTitlesTicket`,
/// `TicketTitlesComment`, … (the variants of `TicketTitlesItem`) when it
/// reads several.
pub fn partial_types(pattern: &ir::AccessPattern) -> IndexMap<&str, String> {
    if pattern.partials.is_empty() {
        return IndexMap::new();
    }
    let several = pattern.named_entities().len() > 1;
    let base = pascal(pattern.name.as_str());
    pattern
        .partials
        .keys()
        .map(|e| {
            let name = if several {
                format!("{base}{}", pascal(e))
            } else {
                format!("{base}Item")
            };
            (e.as_str(), name)
        })
        .collect()
}

/// One name the emitter generates, with the spec name it comes from.
#[derive(Debug, Clone)]
pub struct GeneratedName {
    /// The Rust name.
    pub name: String,
    /// What in the spec it is made from, for messages.
    pub origin: String,
    /// That thing's span in the spec.
    pub span: Span,
    /// The name is the generated code's own (`Repository`, `tenant()`, …).
    pub builtin: bool,
}

/// What a generated name comes from, written out only when it clashes.
type Origin<'a> = Box<dyn Fn() -> String + 'a>;

/// A generated name while [`clashes`] looks for clashes: scopes shared,
/// the origin not yet written.
struct Candidate<'a> {
    /// Where the name lives: `the module`, `struct Ticket`, `enum Status`, …
    scope: Rc<str>,
    name: String,
    origin: Origin<'a>,
    span: Span,
}

impl Candidate<'_> {
    fn named(&self) -> GeneratedName {
        GeneratedName {
            name: self.name.clone(),
            origin: (self.origin)(),
            span: self.span,
            builtin: false,
        }
    }
}

/// Pairs of generated names that would be the same Rust item: the second
/// of each pair with the first it clashes with.
pub fn clashes<'s>(spec: &'s ir::Spec) -> Vec<(GeneratedName, GeneratedName)> {
    let mut all: Vec<Candidate<'s>> = Vec::new();
    // The origin is written only for the names that clash.
    let mut add = |scope: &Rc<str>, name: String, origin: Origin<'s>, span: Span| {
        all.push(Candidate {
            scope: Rc::clone(scope),
            name,
            origin,
            span,
        })
    };
    let module: Rc<str> = Rc::from("the module");
    let methods: Rc<str> = Rc::from("the repository");
    for entity in spec.entities.values() {
        let name = entity.name.as_str();
        let span = entity.name.span;
        let pascal_name = pascal(name);
        for (suffix, what) in [
            ("", "struct"),
            ("Key", "key type"),
            ("Update", "update type"),
        ] {
            let origin = Box::new(move || format!("the {what} of entity `{name}`"));
            add(&module, format!("{pascal_name}{suffix}"), origin, span);
        }
        if let Some(aggregate) = &entity.aggregate {
            let of = aggregate.of.as_str();
            let origin = Box::new(move || format!("the counter of aggregate `{name}`"));
            add(
                &module,
                format!("COUNTER_{}", screaming(name)),
                origin,
                span,
            );
            let group = format!("{}_group_for_{}", snake(of), snake(name));
            if aggregate.maintained_by == ir::Maintenance::Stream {
                add(
                    &module,
                    format!("{group}_image"),
                    Box::new(move || format!("the stream image reader of aggregate `{name}`")),
                    span,
                );
                add(
                    &module,
                    format!("{}_changes", snake(name)),
                    Box::new(move || format!("the stream handler of aggregate `{name}`")),
                    span,
                );
            }
            add(
                &module,
                group,
                Box::new(move || format!("the group function of aggregate `{name}`")),
                span,
            );
        }
        for verb in ENTITY_OPS {
            let origin = Box::new(move || format!("the `{verb}` method of entity `{name}`"));
            add(&methods, entity_op(spec, verb, name), origin, span);
        }
        add(
            &methods,
            delete_when(spec, name),
            Box::new(move || format!("the conditional delete of entity `{name}`")),
            span,
        );
        add(
            &methods,
            put_when(spec, name),
            Box::new(move || format!("the conditional put of entity `{name}`")),
            span,
        );
        let functions: Rc<str> = Rc::from(format!("the functions of {pascal_name}"));
        for condition in entity.conditions.values() {
            add(
                &functions,
                snake(condition.name.as_str()),
                Box::new(move || format!("the condition `{}` of entity `{name}`", condition.name)),
                condition.name.span,
            );
        }
        // The update type's methods: a setter per attribute an update can
        // change and the element changes (its own four are reserved below).
        // (Two setters that clash are two fields that clash, reported for
        // the struct: setters are listed only where they meet another name.)
        let update: Rc<str> = Rc::from(format!("impl {pascal_name}Update"));
        let changes: Vec<(String, &ir::Attribute)> = entity
            .element_changes()
            .into_iter()
            .map(|(method, attribute, _)| (method, attribute))
            .chain(
                entity
                    .field_changes()
                    .into_iter()
                    .map(|(method, map, _)| (method, map)),
            )
            .collect();
        let own = [
            "or_create",
            "to_update",
            "idempotent",
            "idempotency_token",
            "when",
        ];
        for attribute in entity.attributes.values() {
            let setter = snake(&attribute.name);
            let meets = own.contains(&setter.as_str())
                || changes.iter().any(|(method, _)| *method == setter);
            if meets && !entity.in_primary_key(&attribute.name) && attribute.timestamp.is_none() {
                let origin = Box::new(move || {
                    format!("the setter of attribute `{}` of `{name}`", attribute.name)
                });
                add(&update, setter, origin, attribute.name.span);
            }
        }
        for (method, attribute) in changes {
            let text = method.clone();
            let origin = Box::new(move || {
                format!(
                    "the `{text}` change of attribute `{}` of `{name}`",
                    attribute.name
                )
            });
            add(&update, method, origin, attribute.name.span);
        }
        let fields: Rc<str> = Rc::from(format!("struct {pascal_name}"));
        for attribute in entity.attributes.values() {
            let origin = Box::new(move || {
                format!("the field of attribute `{}` of `{name}`", attribute.name)
            });
            add(&fields, snake(&attribute.name), origin, attribute.name.span);
        }
        if let Some(ir::Sharding {
            by: ir::ShardBy::Random,
            ..
        }) = &entity.shards
        {
            let origin = Box::new(move || format!("the shard field of `{name}`"));
            add(&fields, "shard".to_owned(), origin, span);
        }
    }
    let defs: IndexMap<(String, String), TypeDef<'_>> = typed_paths(spec).into_iter().collect();
    let mut emitted: indexmap::IndexSet<String> = indexmap::IndexSet::new();
    for (key, rust) in type_names(spec) {
        let def = defs[&key];
        let span = spec
            .entities
            .get(&key.0)
            .and_then(|e| e.attributes.get(key.1.split('.').next().unwrap_or(&key.1)))
            .map_or(Span::default(), |a| a.name.span);
        // Attributes with the same definition share one type.
        if !emitted.insert(rust.clone()) {
            continue;
        }
        let of = Rc::new(format!("attribute `{}` of `{}`", key.1, key.0));
        let kind = match def {
            TypeDef::Enum(_) => "enum",
            TypeDef::Record(_) => "struct",
        };
        let o = Rc::clone(&of);
        let origin = Box::new(move || format!("the {kind} of {o}"));
        add(&module, rust.clone(), origin, span);
        match def {
            TypeDef::Enum(values) => {
                let variants: Rc<str> = Rc::from(format!("enum {rust} of `{}`", key.0));
                for value in values {
                    let o = Rc::clone(&of);
                    let origin = Box::new(move || format!("the variant of value `{value}` of {o}"));
                    add(&variants, pascal(value), origin, span);
                }
            }
            TypeDef::Record(fields) => {
                let scope: Rc<str> = Rc::from(format!("struct {rust}"));
                for field in fields.values() {
                    let o = Rc::clone(&of);
                    let origin = Box::new(move || format!("the field `{}` of {o}", field.name));
                    add(&scope, snake(&field.name), origin, field.name.span);
                }
            }
        }
    }
    for pattern in spec.access_patterns.values() {
        let name = pattern.name.as_str();
        let span = pattern.name.span;
        add(
            &methods,
            snake(name),
            Box::new(move || format!("the method of access pattern `{name}`")),
            span,
        );
        if let Some(ty) = builder_type(pattern) {
            add(
                &module,
                ty,
                Box::new(move || format!("the builder of access pattern `{name}`")),
                span,
            );
        }
        if let Some(ty) = item_enum(pattern) {
            add(
                &module,
                ty,
                Box::new(move || format!("the item enum of access pattern `{name}`")),
                span,
            );
        }
        // A partial's fields are its entity's, whose clashes the entity's
        // struct reports.
        for (entity, ty) in partial_types(pattern) {
            add(
                &module,
                ty,
                Box::new(move || format!("the partial `{entity}` of access pattern `{name}`")),
                span,
            );
        }
    }
    let mut found: Vec<(GeneratedName, GeneratedName)> = Vec::new();
    let mut first_of: indexmap::IndexMap<(&str, &str), usize> = indexmap::IndexMap::new();
    for (i, later) in all.iter().enumerate() {
        let name = later.name.as_str();
        let reserved = match &*later.scope {
            "the module" if STD_NAMES.iter().any(|(std, _)| *std == name) => {
                Some("a name from Rust's prelude that generated code uses")
            }
            "the module" if MODULE_ITEMS.contains(&name) => {
                Some("an item every generated module defines")
            }
            "the repository" if REPOSITORY_METHODS.contains(&name) => {
                Some("a method every repository has")
            }
            scope
                if scope.starts_with("the functions of ")
                    && ["key", "with_timestamps"].contains(&name) =>
            {
                Some("a method of every entity's struct")
            }
            scope
                if scope.starts_with("impl ")
                    && [
                        "or_create",
                        "to_update",
                        "idempotent",
                        "idempotency_token",
                        "when",
                    ]
                    .contains(&name) =>
            {
                Some("a method every update type has")
            }
            _ => None,
        };
        if let Some(origin) = reserved {
            let own = GeneratedName {
                origin: origin.to_owned(),
                builtin: true,
                ..later.named()
            };
            found.push((own, later.named()));
        } else {
            match first_of.entry((&*later.scope, later.name.as_str())) {
                indexmap::map::Entry::Occupied(first) => {
                    found.push((all[*first.get()].named(), later.named()));
                }
                indexmap::map::Entry::Vacant(slot) => {
                    slot.insert(i);
                }
            }
        }
    }
    found
}

/// What a generated type of an attribute is: an enum of its values or a
/// struct of a typed map's fields.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TypeDef<'a> {
    /// An enum (or a list of enums).
    Enum(&'a Vec<String>),
    /// A typed map (or a list of them).
    Record(&'a IndexMap<String, ir::Attribute>),
}

impl<'a> TypeDef<'a> {
    /// The generated type a value of `ty` holds, if any.
    pub fn of(ty: &'a ir::AttributeType) -> Option<TypeDef<'a>> {
        ty.enum_values()
            .map(TypeDef::Enum)
            .or_else(|| ty.record_fields().map(TypeDef::Record))
    }
}

/// Every attribute or map field with a generated type, as `(entity,
/// path)` — the path is the attribute's name, then `.field` per map level —
/// with its definition, in declaration order.
pub fn typed_paths(spec: &ir::Spec) -> Vec<((String, String), TypeDef<'_>)> {
    fn visit<'a>(
        entity: &str,
        path: String,
        ty: &'a ir::AttributeType,
        out: &mut Vec<((String, String), TypeDef<'a>)>,
    ) {
        let Some(def) = TypeDef::of(ty) else { return };
        out.push(((entity.to_owned(), path.clone()), def));
        if let TypeDef::Record(fields) = def {
            for field in fields.values() {
                visit(entity, format!("{path}.{}", field.name), &field.r#type, out);
            }
        }
    }
    let mut out = Vec::new();
    for entity in spec.entities.values() {
        for attribute in entity.attributes.values() {
            let path = attribute.name.value.clone();
            visit(&entity.name, path, &attribute.r#type, &mut out);
        }
    }
    out
}

/// The type of the value at `path` (an attribute's name, then `.field`
/// per typed-map level, through lists of typed maps) of `entity`.
pub fn type_at<'a>(spec: &'a ir::Spec, entity: &str, path: &str) -> Option<&'a ir::AttributeType> {
    let mut segments = path.split('.');
    let mut ty = &spec
        .entities
        .get(entity)?
        .attributes
        .get(segments.next()?)?
        .r#type;
    for segment in segments {
        ty = &ty.record_fields()?.get(segment)?.r#type;
    }
    Some(ty)
}

/// One Rust type per distinct definition of an attribute's (or a map
/// field's) name: `Status` when every `status` has the same values (or
/// fields), `TicketStatus` (`OrderAddressGeo` for a field) otherwise, and
/// whenever the short name is taken by an entity or another generated type.
pub fn type_names(spec: &ir::Spec) -> IndexMap<(String, String), String> {
    let paths = typed_paths(spec);
    let short_of = |path: &str| pascal(path.rsplit('.').next().unwrap_or(path));
    let mut by_short: IndexMap<String, Vec<TypeDef<'_>>> = IndexMap::new();
    for ((_, path), def) in &paths {
        by_short.entry(short_of(path)).or_default().push(*def);
    }
    let taken = |name: &str| {
        spec.entities.keys().any(|e| pascal(e) == name)
            || ["Tenancy", "TenantId", "Repository", "TenantRepository"].contains(&name)
    };
    let mut names = IndexMap::new();
    let mut defined: IndexMap<String, TypeDef<'_>> = IndexMap::new();
    for ((entity, path), def) in paths {
        let short = short_of(&path);
        let shared = by_short[&short].windows(2).all(|w| w[0] == w[1]) && !taken(&short);
        let base = if shared {
            short
        } else {
            let mut name = pascal(&entity);
            for segment in path.split('.') {
                name.push_str(&pascal(segment));
            }
            name
        };
        // Prefixed names can still meet (`address_geo` and `address.geo`):
        // a later, different definition takes a number.
        let mut name = base.clone();
        let mut n = 2;
        while defined.get(&name).is_some_and(|d| *d != def) || (name != base && taken(&name)) {
            name = format!("{base}{n}");
            n += 1;
        }
        defined.entry(name.clone()).or_insert(def);
        names.insert((entity, path), name);
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn std_names_are_paths_to_themselves() {
        for (name, path) in STD_NAMES {
            let path: syn::Path = syn::parse_str(path).unwrap();
            assert_eq!(path.segments.last().unwrap().ident, name);
        }
    }

    #[test]
    fn cases() {
        assert_eq!(snake("TicketCount"), "ticket_count");
        assert_eq!(snake("ShardID"), "shard_id");
        assert_eq!(snake("created_at"), "created_at");
        assert_eq!(snake("HTTPServer"), "http_server");
        assert_eq!(snake("9lives"), "_9lives");
        assert_eq!(pascal("OPEN"), "Open");
        assert_eq!(pascal("in-progress"), "InProgress");
        assert_eq!(pascal("ticket_with_comments"), "TicketWithComments");
        assert_eq!(pascal("TicketCount"), "TicketCount");
        assert_eq!(pascal("3d"), "V3d");
        assert_eq!(screaming("TicketCount"), "TICKET_COUNT");
        assert_eq!(ident("type").to_string(), "r#type");
    }
}
