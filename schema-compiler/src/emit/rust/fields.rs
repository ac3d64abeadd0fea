//! Data types and their fields: the serde and user attributes on them, and fields reached through the crate's own (extern) entity types.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::*;

impl<'a> Emitter<'a> {
    /// The attributes of the data type `ty` (a struct unless `is_enum`):
    /// serde's derives and the build script's own.
    pub(super) fn data_type_attributes(&self, ty: &str, is_enum: bool) -> TokenStream {
        let mut out = TokenStream::new();
        if self.options.serde {
            out.extend(quote! {
                #[derive(__rt::serde::Serialize, __rt::serde::Deserialize)]
                #[serde(crate = "__rt::serde")]
            });
            if let (Some(rule), false) = (&self.options.serde_rename_all, is_enum) {
                out.extend(quote!(#[serde(rename_all = #rule)]));
            }
        }
        for (path, attribute) in &self.options.type_attributes {
            if path == "." || path == ty {
                out.extend(parse_attributes(attribute).unwrap_or_default());
            }
        }
        out
    }

    /// The attributes of field `field` (its spec name; stored as `stored`,
    /// of `r#type`) of the data type `ty`.
    pub(super) fn data_field_attributes(
        &self,
        ty: &str,
        field: &str,
        stored: &str,
        r#type: &ir::AttributeType,
        optional: bool,
    ) -> TokenStream {
        let mut out = TokenStream::new();
        if self.options.serde {
            let ident = naming::snake(field);
            if self.options.serde_rename_all.is_none() && ident.trim_start_matches("r#") != stored {
                out.extend(quote!(#[serde(rename = #stored)]));
            }
            if types::needs_serde_adapter(r#type) {
                out.extend(quote!(#[serde(with = "__rt::serde_adapt")]));
            }
            if let Some(scale) = types::declared_scale(r#type) {
                let path = format!("__rt::SerdeScale::<{scale}>::serialize");
                out.extend(quote!(#[serde(serialize_with = #path)]));
            }
            if optional {
                out.extend(quote!(#[serde(default)]));
            }
        }
        let rust = naming::snake(field);
        for (path, attribute) in &self.options.field_attributes {
            let matches = path == "."
                || path
                    .split_once('.')
                    .is_some_and(|(t, f)| t == ty && (f == field || f == rust));
            if matches {
                out.extend(parse_attributes(attribute).unwrap_or_default());
            }
        }
        out
    }

    /// The crate's own type an entity is used as, if the build script
    /// named one ([`RustOptions::extern_entities`]).
    pub(super) fn extern_path(&self, entity: &str) -> Option<syn::Path> {
        if self.binding.is_some() {
            return None;
        }
        self.options
            .extern_entities
            .iter()
            .find(|(name, _)| name == entity)
            .and_then(|(_, path)| syn::parse_str(path).ok())
    }

    /// A `&T` of `attribute` of the entity value `receiver`: the field of
    /// a generated struct, or the accessor `#[derive(Entity)]` gives a
    /// crate's own struct (whose field may be named otherwise).
    pub(super) fn field_ref(
        &self,
        entity: &str,
        receiver: &TokenStream,
        attribute: &str,
    ) -> TokenStream {
        if self.extern_path(entity).is_some() {
            let accessor = format_ident!("{}", naming::field_accessors(attribute).0);
            quote!(#receiver.#accessor())
        } else {
            let f = self.name(Item::Field(
                self.entity_name(entity),
                self.attribute_name(entity, attribute),
            ));
            quote!(&#receiver.#f)
        }
    }

    /// The place of `attribute` of the entity value `receiver`, to assign to.
    pub(super) fn field_place(
        &self,
        entity: &str,
        receiver: &TokenStream,
        attribute: &str,
    ) -> TokenStream {
        if self.extern_path(entity).is_some() {
            let accessor = format_ident!("{}", naming::field_accessors(attribute).1);
            quote!(*#receiver.#accessor())
        } else {
            let f = self.name(Item::Field(
                self.entity_name(entity),
                self.attribute_name(entity, attribute),
            ));
            quote!(#receiver.#f)
        }
    }

    /// The hidden accessors of a derived struct's attribute fields, by the
    /// spec's attribute names: what a repository generated with the struct
    /// as an extern entity reads and sets them through, whatever the
    /// fields are called.
    pub(super) fn emit_field_accessors(&self, entity: &ir::Entity) -> TokenStream {
        let Some(binding) = &self.binding else {
            return TokenStream::new();
        };
        let ty = &binding.ty;
        let methods = binding
            .fields
            .iter()
            .filter_map(|(attribute, (field, value))| {
                let optional = entity.attributes.get(attribute.as_str())?.optional;
                let t = if optional {
                    quote!(::core::option::Option<#value>)
                } else {
                    value.clone()
                };
                let (get, set) = naming::field_accessors(attribute);
                let (get, set) = (format_ident!("{get}"), format_ident!("{set}"));
                Some(quote! {
                    #[doc(hidden)]
                    #[inline]
                    pub fn #get(&self) -> &#t {
                        &self.#field
                    }
                    #[doc(hidden)]
                    #[inline]
                    pub fn #set(&mut self) -> &mut #t {
                        &mut self.#field
                    }
                })
            });
        // The write shard of an entity sharded at random (a `shard: u32`
        // field, which the binding requires).
        let shard = entity.random_shard().map(|_| {
            quote! {
                #[doc(hidden)]
                #[inline]
                pub fn __singletable_shard(&self) -> u32 {
                    self.shard
                }
            }
        });
        quote! {
            #[allow(dead_code)]
            impl #ty {
                #(#methods)*
                #shard
            }
        }
    }

    /// The field holding `attribute` of `entity` in the entity's struct.
    pub(super) fn field_ident(
        &self,
        entity: &'a ir::Entity,
        attribute: &'a ir::Attribute,
    ) -> proc_macro2::Ident {
        match self
            .binding
            .as_ref()
            .and_then(|b| b.fields.get(attribute.name.as_str()))
        {
            Some((field, _)) => field.clone(),
            None => self.name(Item::Field(entity.name.as_str(), attribute.name.as_str())),
        }
    }

    /// The struct of an entity: the generated one, or the bound user struct.
    pub(super) fn entity_ident(&self, entity: &'a ir::Entity) -> proc_macro2::Ident {
        match &self.binding {
            Some(binding) => binding.ty.clone(),
            None => self.name(Item::Entity(entity.name.as_str())),
        }
    }
}
