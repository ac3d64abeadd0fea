//! The generated types of attributes: one enum per distinct set of enum
//! values and one struct per distinct typed map, named after the attribute.

use indexmap::IndexMap;

use crate::ir;
use crate::naming::pascal;

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

/// One generated enum or struct, with the first attribute (or typed-map
/// field) that defines it.
#[derive(Debug, Clone)]
pub(crate) struct DataType<'s> {
    /// The entity of that attribute.
    pub entity: &'s str,
    /// Its path: the attribute's name, then `.field` per typed-map level.
    pub path: String,
    /// What the type is.
    pub def: TypeDef<'s>,
    /// The attribute's description (a top-level attribute's only).
    pub description: Option<&'s str>,
}

/// Every attribute or map field with a generated type, as `(entity,
/// path)` — the path is the attribute's name, then `.field` per map level —
/// with its definition, in declaration order.
pub(crate) fn typed_paths(spec: &ir::Spec) -> Vec<((&str, String), TypeDef<'_>)> {
    fn visit<'a>(
        entity: &'a str,
        path: String,
        ty: &'a ir::AttributeType,
        out: &mut Vec<((&'a str, String), TypeDef<'a>)>,
    ) {
        let Some(def) = TypeDef::of(ty) else { return };
        out.push(((entity, path.clone()), def));
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
            visit(entity.name.as_str(), path, &attribute.r#type, &mut out);
        }
    }
    out
}

/// The type of the value at `path` (an attribute's name, then `.field`
/// per typed-map level, through lists of typed maps) of `entity`.
pub(crate) fn type_at<'a>(
    spec: &'a ir::Spec,
    entity: &str,
    path: &str,
) -> Option<&'a ir::AttributeType> {
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

/// One Rust type name per `(entity, path)` with a generated type: `Status`
/// when every `status` has the same values (or fields), `TicketStatus`
/// (`OrderAddressGeo` for a field) otherwise, and whenever the short name
/// is taken by an entity or another generated type. Paths with the same
/// definition and name share the name (and so one type).
pub(crate) fn type_names<'s>(
    spec: &'s ir::Spec,
    paths: &[((&'s str, String), TypeDef<'s>)],
) -> Vec<String> {
    let short_of = |path: &str| pascal(path.rsplit('.').next().unwrap_or(path));
    let mut by_short: IndexMap<String, Vec<TypeDef<'_>>> = IndexMap::new();
    for ((_, path), def) in paths {
        by_short.entry(short_of(path)).or_default().push(*def);
    }
    let taken = |name: &str| {
        spec.entities.keys().any(|e| pascal(e) == name)
            || ["Tenancy", "TenantId", "Repository", "TenantRepository"].contains(&name)
    };
    let mut names = Vec::with_capacity(paths.len());
    let mut defined: IndexMap<String, TypeDef<'_>> = IndexMap::new();
    for ((entity, path), def) in paths {
        let short = short_of(path);
        let shared = by_short[&short].windows(2).all(|w| w[0] == w[1]) && !taken(&short);
        let base = if shared {
            short
        } else {
            let mut name = pascal(entity);
            for segment in path.split('.') {
                name.push_str(&pascal(segment));
            }
            name
        };
        // Prefixed names can still meet (`address_geo` and `address.geo`):
        // a later, different definition takes a number.
        let mut name = base.clone();
        let mut n = 2;
        while defined.get(&name).is_some_and(|d| d != def) || (name != base && taken(&name)) {
            name = format!("{base}{n}");
            n += 1;
        }
        defined.entry(name.clone()).or_insert(*def);
        names.push(name);
    }
    names
}
