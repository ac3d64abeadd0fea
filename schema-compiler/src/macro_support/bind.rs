//! Binding a struct's fields to an entity's attributes, and the spec-bound mode.

use std::path::PathBuf;

use indexmap::IndexMap;
use proc_macro2::{Ident, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::ext::IdentExt as _;
use syn::LitStr;

use super::attrs::{field_attrs, FieldAttrs, StructAttrs};
use super::types::{check_type, expected_type, last_segment, option_inner};
use super::{compilation_errors, wrap, Errors};
use crate::diagnostics::did_you_mean;
use crate::emit::rust::{emit_bound_entity, Binding, BOUND_TENANCY, BOUND_TENANT_ID};
use crate::ir;
use crate::source::SourceMap;

/// A field of the derived struct with its settings.
pub(super) struct Field<'a> {
    /// The field.
    pub ident: &'a Ident,
    /// Its type.
    pub ty: &'a syn::Type,
    /// Its `#[singletable(...)]` settings.
    pub attrs: FieldAttrs,
    /// The attribute it holds: the rename, else the field's name.
    pub name: String,
}

impl<'a> Field<'a> {
    /// The field's settings; `None` for a field without a name.
    pub fn new(field: &'a syn::Field, errors: &mut Errors) -> Option<Field<'a>> {
        let ident = field.ident.as_ref()?;
        let attrs = field_attrs(&field.attrs, errors);
        let name = match &attrs.rename {
            Some(rename) => rename.value(),
            None => ident.unraw().to_string(),
        };
        Some(Field {
            ident,
            ty: &field.ty,
            attrs,
            name,
        })
    }

    /// The field's type without `Option`, and whether it is an `Option`.
    pub fn value_type(&self) -> (&'a syn::Type, bool) {
        match option_inner(self.ty) {
            Some(inner) => (inner, true),
            None => (self.ty, false),
        }
    }
}

/// The directory spec paths are relative to: `SINGLETABLE_MANIFEST_DIR` when
/// set (for test harnesses that build crates out of tree), else the crate's.
fn manifest_dir() -> PathBuf {
    std::env::var_os("SINGLETABLE_MANIFEST_DIR")
        .or_else(|| std::env::var_os("CARGO_MANIFEST_DIR"))
        .map(PathBuf::from)
        .unwrap_or_default()
}

/// Errors at the inline-only keys given with `spec`.
fn reject_inline_keys(attrs: &StructAttrs, errors: &mut Errors) {
    let inline = [&attrs.pk, &attrs.sk, &attrs.tenant, &attrs.tenant_pattern];
    for lit in inline.into_iter().flatten() {
        errors.push(syn::Error::new(
            lit.span(),
            "keys are declared by the spec: `pk`, `sk`, `tenant` and `tenant_pattern` belong to inline mode (`table = \"…\"`)",
        ));
    }
    for index in &attrs.indexes {
        errors.push(syn::Error::new(
            index.name.span(),
            "indexes are declared by the spec: `index(...)` belongs to inline mode (`table = \"…\"`)",
        ));
    }
    if let Some(shards) = &attrs.shards {
        errors.push(syn::Error::new(
            shards.span(),
            "sharding is declared by the spec: `shards` belongs to inline mode (`table = \"…\"`)",
        ));
    }
    if let Some(by) = &attrs.shard_by {
        errors.push(syn::Error::new(
            by.span(),
            "sharding is declared by the spec: `shard_by` belongs to inline mode (`table = \"…\"`)",
        ));
    }
}

/// Spec-bound mode: reads and compiles `spec`, binds the struct to its entity.
pub(super) fn spec_bound(
    input: &syn::DeriveInput,
    attrs: &StructAttrs,
    spec: &LitStr,
    fields: &[Field<'_>],
    errors: &mut Errors,
) -> Option<TokenStream> {
    reject_inline_keys(attrs, errors);
    for value in fields.iter().filter_map(|f| f.attrs.values.first()) {
        errors.push(syn::Error::new(
            value.span(),
            "enum values are declared by the spec: `values(...)` belongs to inline mode (`table = \"…\"`)",
        ));
    }
    let path = manifest_dir().join(spec.value());
    let text = match crate::source::read_input(&path) {
        Ok(text) => text,
        Err(e) => {
            errors.push(syn::Error::new(
                spec.span(),
                format!(
                    "cannot read spec `{}`: {e} (looked for {}); the path is relative to the crate's Cargo.toml",
                    spec.value(),
                    path.display()
                ),
            ));
            return None;
        }
    };
    let compilation = crate::Compiler::new().source(spec.value(), text).compile();
    if compilation.has_errors() {
        for error in compilation_errors(&compilation) {
            let at = error
                .location
                .as_deref()
                .unwrap_or(spec.value().as_str())
                .to_owned();
            errors.push(syn::Error::new(
                spec.span(),
                format!("spec error: {at}: {}", error.text),
            ));
        }
        return None;
    }
    let ir = &compilation.specs.first()?.spec;
    let entity_name = attrs
        .entity
        .as_ref()
        .map_or_else(|| input.ident.to_string(), LitStr::value);
    let Some(entity) = ir.entities.get(&entity_name) else {
        let hint = did_you_mean(&entity_name, ir.entities.keys().map(String::as_str))
            .map(|n| format!("did you mean `{n}`? "))
            .unwrap_or_default();
        let known = ir.entities.keys().cloned().collect::<Vec<_>>().join(", ");
        let message = format!(
            "spec `{}` has no entity `{entity_name}`; {hint}its entities are: {known}",
            spec.value()
        );
        let span = attrs
            .entity
            .as_ref()
            .map_or_else(|| input.ident.span(), LitStr::span);
        errors.push(syn::Error::new(span, message));
        return None;
    };
    let tracked = path.canonicalize().unwrap_or(path);
    let context = BindContext {
        input,
        spec: ir,
        entity,
        sources: &compilation.sources,
        tenancy: attrs.tenancy.as_ref(),
    };
    let tokens = context.bind(fields, errors)?;
    Some(wrap(tokens, tracked.to_str()))
}

/// What a struct is bound against.
pub(super) struct BindContext<'a> {
    /// The derive input.
    pub input: &'a syn::DeriveInput,
    /// The compiled spec.
    pub spec: &'a ir::Spec,
    /// The entity.
    pub entity: &'a ir::Entity,
    /// The spec's source, for locations in errors.
    pub sources: &'a SourceMap,
    /// `tenancy = "path"`, if given.
    pub tenancy: Option<&'a LitStr>,
}

impl BindContext<'_> {
    /// `schemas/x.yaml:12:7` of an attribute.
    fn location(&self, attribute: &ir::Attribute) -> String {
        self.sources
            .location(attribute.name.span)
            .map_or_else(String::new, |l| format!(" ({l})"))
    }

    /// Checks the fields against the entity; the emitted items, or `None`
    /// after errors.
    pub fn bind(&self, fields: &[Field<'_>], errors: &mut Errors) -> Option<TokenStream> {
        let entity = self.entity;
        let entity_name = entity.name.as_str();
        let random_shard = matches!(
            entity.shards,
            Some(ir::Sharding {
                by: ir::ShardBy::Random,
                ..
            })
        );
        let mut mapped = IndexMap::new();
        let mut defaults = Vec::new();
        let before = errors.is_empty();
        for field in fields {
            if field.attrs.skip {
                defaults.push(field.ident.clone());
            } else if random_shard && field.name == "shard" {
                if last_segment(field.ty).is_none_or(|(n, _)| n != "u32") {
                    errors.push(syn::Error::new_spanned(
                        field.ty,
                        format!("the shard field of the randomly sharded entity `{entity_name}` is a `u32`"),
                    ));
                }
            } else if let Some(attribute) = entity.attributes.get(&field.name) {
                if let Some((previous, _)) = mapped.get(attribute.name.as_str()) {
                    let previous: &&Field<'_> = previous;
                    errors.push(syn::Error::new(
                        field.ident.span(),
                        format!(
                            "attribute `{}` is already held by field `{}`",
                            field.name, previous.ident
                        ),
                    ));
                    continue;
                }
                let held = self.check_field(field, attribute, errors);
                mapped.insert(attribute.name.to_string(), (field, held));
            } else {
                self.unmapped(field, errors);
            }
        }
        for attribute in entity.attributes.values() {
            if !mapped.contains_key(attribute.name.as_str()) {
                self.missing(attribute, errors);
            }
        }
        if random_shard && !fields.iter().any(|f| f.name == "shard" && !f.attrs.skip) {
            errors.push(syn::Error::new(
                self.input.ident.span(),
                format!("entity `{entity_name}` is sharded at random: add a `pub shard: u32` field (the write shard)"),
            ));
        }
        if !before || !errors.is_empty() {
            return None;
        }
        let fields = mapped
            .into_iter()
            .map(|(name, (field, ty))| (name, (field.ident.clone(), ty)))
            .collect();
        let (scope, assertion) = self.scope(errors)?;
        let binding = Binding {
            ty: self.input.ident.clone(),
            fields,
            defaults,
            scope,
        };
        let items = emit_bound_entity(self.spec, entity, binding);
        Some(quote!(#items #assertion))
    }

    /// Checks one field's type; the value type the emitter uses.
    fn check_field(
        &self,
        field: &Field<'_>,
        attribute: &ir::Attribute,
        errors: &mut Errors,
    ) -> TokenStream {
        let (ty, is_option) = field.value_type();
        let name = attribute.name.as_str();
        let entity = self.entity.name.as_str();
        let at = self.location(attribute);
        if attribute.optional && !is_option {
            errors.push(syn::Error::new_spanned(
                field.ty,
                format!("attribute `{name}` of entity `{entity}`{at} is optional: the field must be an `Option<_>`"),
            ));
        } else if !attribute.optional && is_option {
            errors.push(syn::Error::new_spanned(
                field.ty,
                format!("attribute `{name}` of entity `{entity}`{at} is required: the field cannot be an `Option<_>` (or make the attribute `optional: true`)"),
            ));
        }
        if let Err(expected) = check_type(&attribute.r#type, ty) {
            errors.push(syn::Error::new_spanned(
                ty,
                format!(
                    "attribute `{name}` of entity `{entity}`{at} is {}: the field must be {expected}{}",
                    attribute.r#type.article_name(),
                    if attribute.optional { " (in an `Option`)" } else { "" }
                ),
            ));
        }
        ty.to_token_stream()
    }

    /// A field that holds no attribute and is not skipped.
    fn unmapped(&self, field: &Field<'_>, errors: &mut Errors) {
        let entity = self.entity.name.as_str();
        let names = self.entity.attributes.keys().map(String::as_str);
        let hint = did_you_mean(&field.name, names)
            .map(|n| format!("did you mean `{n}` (rename the field or add `#[singletable(rename = \"{n}\")]`)? "))
            .unwrap_or_default();
        let span = field
            .attrs
            .rename
            .as_ref()
            .map_or_else(|| field.ident.span(), LitStr::span);
        errors.push(syn::Error::new(
            span,
            format!(
                "field `{}` holds no attribute of entity `{entity}`: `{}` is not one of its attributes; {hint}mark fields the spec does not know `#[singletable(skip)]` (read back as `Default::default()`)",
                field.ident, field.name
            ),
        ));
    }

    /// An attribute no field holds.
    fn missing(&self, attribute: &ir::Attribute, errors: &mut Errors) {
        let name = attribute.name.as_str();
        let at = self.location(attribute);
        let optional = if attribute.optional {
            " (in an `Option`)"
        } else {
            ""
        };
        errors.push(syn::Error::new(
            self.input.ident.span(),
            format!(
                "no field holds attribute `{name}` of entity `{}`{at}: add a field `{}` of type {}{optional}, or `#[singletable(rename = \"{name}\")]` on the field that holds it",
                self.entity.name.as_str(),
                crate::naming::snake(name),
                expected_type(&attribute.r#type),
            ),
        ));
    }

    /// The `Scope` type, and the check that a named tenancy has the spec's rules.
    fn scope(&self, errors: &mut Errors) -> Option<(TokenStream, TokenStream)> {
        let Some(tenancy) = self.tenancy else {
            let id = quote::format_ident!("{BOUND_TENANT_ID}");
            return Some((quote!(#id), TokenStream::new()));
        };
        let scoped = self.spec.tenant.is_some() && self.entity.scope == ir::Scope::Tenant;
        if !scoped {
            errors.push(syn::Error::new(
                tenancy.span(),
                format!(
                    "entity `{}` is not tenant-scoped: it has no tenancy",
                    self.entity.name.as_str()
                ),
            ));
            return None;
        }
        let path: syn::Path = match tenancy.parse() {
            Ok(path) => path,
            Err(e) => {
                errors.push(syn::Error::new(
                    tenancy.span(),
                    format!("`tenancy` is the path of a type implementing `singletable_runtime::TenantRules`: {e}"),
                ));
                return None;
            }
        };
        let message = format!(
            "`{}` does not have the tenant rules of the spec (alphabet and length of its tenant id_pattern)",
            tenancy.value()
        );
        let own = quote::format_ident!("{BOUND_TENANCY}");
        let assertion = quote_spanned! {tenancy.span()=>
            const _: () = ::core::assert!(
                ::singletable_runtime::same_tenant_rules::<#path, #own>(),
                #message
            );
        };
        Some((quote!(::singletable_runtime::TenantId<#path>), assertion))
    }
}
