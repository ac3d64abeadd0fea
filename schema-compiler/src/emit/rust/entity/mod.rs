//! Per entity: the struct, its key type, the `Entity` impl and the partial update.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::keys::Input;
use super::{doc, Emitter};
use crate::ir::{self, KeyType, PlaceholderKind, ShardBy};
use crate::names::Item;

mod index_update;
mod input;
mod item;
mod partial;
mod update;

pub(super) use item::field_read;
pub(super) use partial::Partial;

/// How a placeholder's value is reached from a receiver (`self`, `key`).
#[derive(Clone, Copy)]
pub(super) struct Receiver<'r> {
    /// `self` or `key`.
    pub name: &'r str,
}

impl<'a> Emitter<'a> {
    /// The value of a required attribute of `entity` through `receiver`
    /// (`&str` for strings).
    fn field_value(
        &self,
        entity: &'a ir::Entity,
        receiver: Receiver<'_>,
        attribute: &'a ir::Attribute,
    ) -> TokenStream {
        let r = format_ident!("{}", receiver.name);
        let f = self.field_ident(entity, attribute);
        Self::borrowed(quote!(#r.#f), &attribute.r#type)
    }

    /// Statements binding `__shard` for `entity` from `receiver`'s fields.
    fn bind_shard(&self, entity: &'a ir::Entity, receiver: Receiver<'_>) -> TokenStream {
        let name = entity.name.as_str();
        match &entity.shards {
            None => TokenStream::new(),
            Some(ir::Sharding { count, by }) => {
                let count = count.value;
                match by {
                    ShardBy::Random => {
                        let r = format_ident!("{}", receiver.name);
                        quote! {
                            __rt::codec::check_shard(#r.shard, #count, #name)?;
                            let __shard: u32 = #r.shard;
                        }
                    }
                    ShardBy::Hash(attribute) => {
                        let Some(a) = entity.attributes.get(attribute.as_str()) else {
                            return TokenStream::new();
                        };
                        let hash =
                            self.hash_shard(name, a, self.field_value(entity, receiver, a), count);
                        quote!(let __shard: u32 = #hash;)
                    }
                }
            }
        }
    }

    /// The input of a placeholder of `entity`'s templates, for a receiver
    /// holding the key fields (entity or key struct).
    pub(super) fn entity_input(
        &self,
        entity: &'a ir::Entity,
        receiver: Receiver<'_>,
        p: &'a ir::Placeholder,
    ) -> Input<'a> {
        match p.kind {
            PlaceholderKind::Tenant => Input::Tenant(quote!(__tenant)),
            PlaceholderKind::Shard => Input::Shard(quote!(__shard)),
            PlaceholderKind::Attribute => {
                let attribute = &entity.attributes[p.name.as_str()];
                Input::Value {
                    expr: self.field_value(entity, receiver, attribute),
                    entity: entity.name.as_str(),
                    attribute,
                }
            }
        }
    }

    /// The name of the module-private function building an entity's primary key.
    fn key_fn(&self, entity: &'a ir::Entity) -> proc_macro2::Ident {
        self.private_fn(super::Private::KeyItem(entity.name.to_string()))
    }

    /// `name: type` parameters of the primary-key function (after the scope
    /// and, for sharded entities, the shard).
    fn key_params(&self, entity: &'a ir::Entity) -> Vec<TokenStream> {
        entity
            .key_attributes()
            .into_iter()
            .map(|a| {
                let f = self.name(Item::Field(entity.name.as_str(), a.name.as_str()));
                let t = self.borrowed_type(entity.name.as_str(), a);
                quote!(#f: #t)
            })
            .collect()
    }

    /// A call of the primary-key function with `receiver`'s fields and the
    /// `scope` and `__shard` already bound.
    fn key_call(&self, entity: &'a ir::Entity, receiver: Receiver<'_>) -> TokenStream {
        let key_fn = self.key_fn(entity);
        let shard = entity.shards.is_some().then(|| quote!(__shard,));
        let args = entity
            .key_attributes()
            .into_iter()
            .map(|a| self.field_value(entity, receiver, a));
        quote!(#key_fn(scope, #shard #(#args),*))
    }

    /// The module-private function building the table's key attributes; the
    /// entity, its key type and `to_item` all call it.
    pub(super) fn emit_key_fn(&self, entity: &'a ir::Entity) -> TokenStream {
        let name = entity.name.as_str();
        let key_fn = self.key_fn(entity);
        let scope_ty = self.scope_type(entity);
        let shard = entity.shards.is_some().then(|| quote!(__shard: u32,));
        let params = self.key_params(entity);
        let inserts = entity.primary_key.templates().map(|t| {
            let attribute = t.attribute.as_str();
            let key_type = self.spec.key_type(None, attribute);
            let value = self.key_value(t, key_type, name, &|p| match p.kind {
                PlaceholderKind::Tenant => Input::Tenant(quote!(__tenant)),
                PlaceholderKind::Shard => Input::Shard(quote!(__shard)),
                PlaceholderKind::Attribute => {
                    let attribute = &entity.attributes[p.name.as_str()];
                    let f = self.name(Item::Field(name, attribute.name.as_str()));
                    Input::Value {
                        expr: quote!(#f),
                        entity: name,
                        attribute,
                    }
                }
            });
            quote!(__item.insert(#attribute.to_owned(), #value);)
        });
        let doc = format!(" The primary key attributes of a [`{name}`].");
        quote! {
            #[doc = #doc]
            fn #key_fn(__tenant: &#scope_ty, #shard #(#params),*) -> Result<__rt::Item, __rt::ValueError> {
                let mut __item = __rt::Item::with_capacity(2);
                #(#inserts)*
                Ok(__item)
            }
        }
    }

    /// Body of `primary_key`/`to_key_item`: binds the shard, calls the key function.
    fn primary_key_body(&self, entity: &'a ir::Entity, receiver: Receiver<'_>) -> TokenStream {
        let shard = self.bind_shard(entity, receiver);
        let call = self.key_call(entity, receiver);
        quote! {
            #shard
            #call
        }
    }

    pub(super) fn emit_entity(&self, entity: &'a ir::Entity) -> TokenStream {
        let ir::Entity {
            name,
            description: _,
            scope: _,
            attributes: _,
            primary_key: _,
            index_keys: _,
            // Read through `random_shard` and `bind_shard`.
            shards: _,
            throughput: _,
            version_attribute: _,
            aggregate: _,
            // Sample items only feed the Workbench model.
            examples: _,
            conditions,
            // Written by `to_item` and the update with the index keys.
            derived: _,
        } = entity;
        let ty = self.name(Item::Entity(name.as_str()));
        let key_ty = self.name(Item::Key(name.as_str()));
        let (definition, entity_impl) = self.entity_definition(entity);
        let (key_struct, key_impls) = self.key_struct(entity);
        let field_consts = self.field_consts(entity);
        let named_conditions = conditions.values().map(|c| self.named_condition(entity, c));
        let stamp = has_timestamps(entity).then(|| self.with_timestamps(entity));
        let constructor = self
            .extern_path(name.as_str())
            .is_none()
            .then(|| self.constructor(entity));
        let key_fn = self.emit_key_fn(entity);
        let update = self.emit_update(entity);
        let input = self.input_type(entity);
        quote! {
            #definition

            #input

            #key_struct

            impl #ty {
                #(#field_consts)*
                #(#named_conditions)*

                #constructor

                /// This item's primary key.
                pub fn key(&self) -> #key_ty {
                    #key_ty::from(self)
                }
                #stamp
            }

            #key_impls

            #entity_impl

            #key_fn

            #update
        }
    }

    /// The entity's struct and its `Entity` impl, or for an extern entity
    /// the re-export of the crate's own type and a check that its derive is
    /// of this entity and scope.
    fn entity_definition(&self, entity: &'a ir::Entity) -> (TokenStream, TokenStream) {
        let name = entity.name.as_str();
        let ty = self.name(Item::Entity(name));
        let entity_doc = doc(entity.description.as_deref());
        let templates = entity
            .primary_key
            .templates()
            .map(|t| format!("`{}` = `{}`", t.attribute, t.source.as_str()))
            .collect::<Vec<_>>()
            .join(", ");
        let key_doc = format!(" Primary key: {templates}.");
        if let Some(path) = self.extern_path(name) {
            let scope_ty = self.scope_type(entity);
            let wrong_entity = format!(
                "the extern type of entity `{name}` must derive Entity for `{name}` of this spec"
            );
            let definition = quote! {
                #entity_doc
                #[doc = #key_doc]
                pub use #path as #ty;
            };
            let check = quote! {
                const _: () = {
                    fn entity_with_this_scope<E: __rt::Entity<Scope = #scope_ty>>() {}
                    let _ = entity_with_this_scope::<#ty>;
                    assert!(
                        __rt::str_eq(<#ty as __rt::Entity>::ENTITY_TYPE, #name),
                        #wrong_entity,
                    );
                };
            };
            return (definition, check);
        }
        let shard_doc = entity.shards.as_ref().map(|shards| {
            let how = match &shards.by {
                ir::ShardBy::Random => "a random shard".to_owned(),
                ir::ShardBy::Hash(a) => format!("the shard a stable hash of `{a}` picks"),
            };
            let count = shards.count.value;
            let lines = [
                String::new(),
                format!(" Sharded: each item is written to {how}, one of {count}; queries read all {count} shards' partitions concurrently and merge them in sort-key order."),
                String::new(),
                format!(" Changing the shard count is a data migration: items written under {count} shards keep their shard in the key, so re-write every item with the new count (read with the old, write with the new) before deploying code generated from the new spec."),
            ];
            quote!(#(#[doc = #lines])*)
        });
        let shard_field = entity.random_shard().map(|count| {
            let shard = self.name(Item::ShardField(name));
            let d = format!(" The write shard, below {count}; pick one with `::singletable_runtime::codec::random_shard({count})`.");
            quote!(#[doc = #d] pub #shard: u32,)
        });
        let ty_name = ty.to_string();
        let fields = entity.attributes.values().map(|a| {
            let f = self.name(Item::Field(name, a.name.as_str()));
            let t = self.value_type(name, a);
            let d = field_doc(entity, a);
            let attrs = self.data_field_attributes(
                &ty_name,
                a.name.as_str(),
                a.stored(),
                &a.r#type,
                a.optional,
            );
            if a.optional {
                quote!(#d #attrs pub #f: Option<#t>,)
            } else {
                quote!(#d #attrs pub #f: #t,)
            }
        });
        let type_attrs = self.data_type_attributes(&ty_name, false);
        let definition = quote! {
            #entity_doc
            #[doc = #key_doc]
            #shard_doc
            #[derive(Debug, Clone, PartialEq)]
            #type_attrs
            pub struct #ty {
                #shard_field
                #(#fields)*
            }
        };
        (definition, self.emit_entity_impl(entity))
    }

    /// The entity's key struct (its key attributes and write shard) and its
    /// impls: made from an item, turned into the key attributes of the item.
    fn key_struct(&self, entity: &'a ir::Entity) -> (TokenStream, TokenStream) {
        let name = entity.name.as_str();
        let ty = self.name(Item::Entity(name));
        let key_ty = self.name(Item::Key(name));
        let scope_ty = self.scope_type(entity);
        let key_ty_name = key_ty.to_string();
        let key_attributes = entity.key_attributes();
        let key_fields = key_attributes.iter().map(|a| {
            let f = self.name(Item::Field(name, a.name.as_str()));
            let t = self.value_type(name, a);
            let d = field_doc(entity, a);
            let attrs = self.data_field_attributes(
                &key_ty_name,
                a.name.as_str(),
                a.stored(),
                &a.r#type,
                false,
            );
            quote!(#d #attrs pub #f: #t,)
        });
        let key_type_attrs = self.data_type_attributes(&key_ty_name, false);
        let random = entity.random_shard();
        let shard_ident = random.map(|_| self.name(Item::ShardField(name)));
        let key_shard_field = shard_ident.as_ref().map(|shard| {
            quote!(/// The write shard.
            pub #shard: u32,)
        });
        let key_copies = key_attributes.iter().map(|a| {
            let f = self.name(Item::Field(name, a.name.as_str()));
            let value = self.field_ref(name, &quote!(entity), a.name.as_str());
            quote!(#f: Clone::clone(#value),)
        });
        let shard_copy = shard_ident
            .as_ref()
            .map(|shard| match self.extern_path(name) {
                Some(_) => quote!(#shard: entity.__singletable_shard(),),
                None => quote!(#shard: entity.#shard,),
            });
        let entity_param = if key_attributes.is_empty() && random.is_none() {
            format_ident!("_entity")
        } else {
            format_ident!("entity")
        };
        let key_struct_doc = format!(" The primary key of a [`{name}`].");
        let pk_self = self.primary_key_body(entity, Receiver { name: "self" });
        let definition = quote! {
            #[doc = #key_struct_doc]
            #[derive(Debug, Clone, PartialEq)]
            #key_type_attrs
            pub struct #key_ty {
                #key_shard_field
                #(#key_fields)*
            }
        };
        let impls = quote! {
            impl From<&#ty> for #key_ty {
                fn from(#entity_param: &#ty) -> Self {
                    #key_ty { #shard_copy #(#key_copies)* }
                }
            }

            impl #key_ty {
                /// The key attributes of the item.
                pub fn to_key_item(&self, scope: &#scope_ty) -> Result<__rt::Item, __rt::ValueError> {
                    #pk_self
                }
            }

            impl __rt::EntityKey for #key_ty {
                type Entity = #ty;

                fn to_key_item(&self, scope: &#scope_ty) -> Result<__rt::Item, __rt::ValueError> {
                    #key_ty::to_key_item(self, scope)
                }
            }
        };
        (definition, impls)
    }

    /// A typed field per stored attribute, for write conditions.
    fn field_consts(&self, entity: &'a ir::Entity) -> Vec<TokenStream> {
        let name = entity.name.as_str();
        entity
            .attributes
            .values()
            .filter(|a| !a.key_only)
            .map(|a| {
                let c = self.name(Item::FieldConst(name, a.name.as_str()));
                let t = self.value_type(name, a);
                let stored = a.stored();
                let d = format!(
                    " `{}` of a stored [`{name}`], for write conditions (`when`, `delete_…_when`).",
                    a.name.as_str(),
                );
                let field = match &a.r#type {
                    ir::AttributeType::Datetime { format, precision } => {
                        let format = super::types::time_format(*format, *precision);
                        quote!(__rt::Field::time(#name, #stored, #format))
                    }
                    ir::AttributeType::String { .. }
                    | ir::AttributeType::Integer { .. }
                    | ir::AttributeType::Decimal { .. }
                    | ir::AttributeType::Boolean
                    | ir::AttributeType::Enum { .. }
                    | ir::AttributeType::List { .. }
                    | ir::AttributeType::Map { .. }
                    | ir::AttributeType::Set { .. }
                    | ir::AttributeType::Binary { .. } => {
                        quote!(__rt::Field::new(#name, #stored))
                    }
                };
                quote! {
                    #[doc = #d]
                    pub const #c: __rt::Field<#t> = #field;
                }
            })
            .collect()
    }

    pub(super) fn emit_entity_impl(&self, entity: &'a ir::Entity) -> TokenStream {
        let ty = self.entity_ident(entity);
        let scope_ty = self.scope_type(entity);
        let entity_name = entity.name.as_str();
        let pk_self = self.primary_key_body(entity, Receiver { name: "self" });
        let to_item = self.to_item_body(entity);
        let from_item = self.decode_body(entity);
        let version_const = entity
            .version_attribute
            .as_deref()
            .map(|v| entity.attributes.get(v).map_or(v, |a| a.stored()))
            .map(|v| quote!(const VERSION_ATTRIBUTE: Option<&'static str> = Some(#v);));
        let identity = self.identity(entity);
        let index_keys = self.index_key_shapes(entity);
        let marks = self.counted_marks(entity);
        let counted = (!marks.is_empty()).then(|| {
            let marks = marks.iter().map(|r| {
                let (attribute, mark) = (&r.attribute, &r.mark);
                quote!((#attribute, #mark))
            });
            quote!(const COUNTED: &'static [(&'static str, &'static str)] = &[#(#marks),*];)
        });
        quote! {
            impl __rt::Entity for #ty {
                const ENTITY_TYPE: &'static str = #entity_name;
                const IDENTITY: __rt::Identity = #identity;
                #index_keys
                #version_const
                #counted
                type Scope = #scope_ty;

                fn primary_key(&self, scope: &#scope_ty) -> Result<__rt::Item, __rt::ValueError> {
                    #pk_self
                }

                fn to_item(&self, scope: &#scope_ty) -> Result<__rt::Item, __rt::ValueError> {
                    #to_item
                }

                fn from_item(item: &__rt::Item) -> Result<Self, __rt::DecodeError> {
                    #from_item
                }
            }
        }
    }

    /// Whether `attribute` is the table's partition or sort key.
    fn is_table_key(&self, attribute: &str) -> bool {
        self.spec.table.is_key(attribute)
    }

    /// How the entity's items are told from others': the entity-type
    /// attribute's value, or the shape of the primary key (the language
    /// `check`'s `key_collision` proves disjoint between entities).
    /// An item that says it is of the entity is believed only with the
    /// entity's key shapes (a tenant can write any attribute under its own
    /// prefix, never a global entity's key).
    pub(super) fn identity(&self, entity: &'a ir::Entity) -> TokenStream {
        let keys = self.key_shapes(entity, None, &entity.primary_key);
        match self.spec.table.entity_type.marker(&entity.name) {
            Some((attribute, value)) => quote!(__rt::Identity::Attribute {
                attribute: #attribute,
                value: #value,
                keys: &[#(#keys),*],
            }),
            None => quote!(__rt::Identity::Key(&[#(#keys),*])),
        }
    }
}

/// The docs of an attribute's field: its description, then its attribute,
/// type, and the keys it is part of.
fn field_doc(entity: &ir::Entity, attribute: &ir::Attribute) -> TokenStream {
    let name = attribute.name.as_str();
    let holds = |key: &ir::EntityKey| {
        key.templates()
            .flat_map(|t| t.placeholders())
            .any(|p| p.kind == PlaceholderKind::Attribute && p.name.as_str() == name)
    };
    let mut keys: Vec<String> = Vec::new();
    if holds(&entity.primary_key) {
        keys.push("the primary key".to_owned());
    }
    for (index, key) in &entity.index_keys {
        if holds(key) {
            keys.push(format!("the `{index}` key"));
        }
    }
    let mut summary = match attribute.stored_as.as_deref() {
        Some(stored) => format!(
            "`{name}` (stored as `{stored}`): {}",
            attribute.describe_type()
        ),
        None => format!("`{name}`: {}", attribute.describe_type()),
    };
    if attribute.optional {
        summary.push_str(", optional");
    }
    if !keys.is_empty() {
        summary.push_str("; part of ");
        summary.push_str(&keys.join(" and "));
        if let Some(case) = attribute.case {
            summary.push_str(", in ");
            summary.push_str(case.codec().name());
            summary.push_str(" case");
        }
    }
    summary.push('.');
    let text = match attribute.description.as_deref() {
        Some(description) => format!("{}\n\n{summary}", description.trim()),
        None => summary,
    };
    doc(Some(&text))
}

/// The attributes (by spec name) that are `entity`'s table keys (natural keys).
fn natural_table_keys(entity: &ir::Entity) -> Vec<&str> {
    entity
        .primary_key
        .templates()
        .filter_map(|t| t.natural_attribute())
        .collect()
}

/// `item` (a reference to an entity) as the repository writes it: with its
/// timestamps set to now (`&item.with_timestamps()`), or as it is.
pub(super) fn stamped(entity: &ir::Entity, item: TokenStream) -> TokenStream {
    if has_timestamps(entity) {
        quote!(&#item.with_timestamps())
    } else {
        item
    }
}

/// Whether the repository sets some of the entity's attributes (timestamps).
pub(super) fn has_timestamps(entity: &ir::Entity) -> bool {
    entity.attributes.values().any(|a| a.timestamp.is_some())
}

impl<'a> Emitter<'a> {
    /// The `with_timestamps` method of an entity with timestamps: the entity
    /// with every timestamp set to now, as precise as it is stored.
    /// `new` (the required attributes; optional ones `None`, timestamps
    /// now, a random write shard drawn) and a `with_…` method per optional
    /// attribute: code that builds items this way keeps compiling when the
    /// spec adds an optional attribute.
    fn constructor(&self, entity: &'a ir::Entity) -> TokenStream {
        let name = entity.name.as_str();
        let mut params = Vec::new();
        let mut inits = Vec::new();
        let now = has_timestamps(entity)
            .then(|| quote!(let now = __rt::DateTime::from(::std::time::SystemTime::now());));
        if let Some(count) = entity.random_shard() {
            let shard = self.name(Item::ShardField(name));
            inits.push(quote!(#shard: __rt::codec::random_shard(#count),));
        }
        let mut withs = Vec::new();
        for a in entity.attributes.values() {
            let f = self.name(Item::Field(name, a.name.as_str()));
            let t = self.value_type(name, a);
            // A timestamp is required (the resolver refuses it optional).
            match (timestamp_now(a), a.optional) {
                (Some(value), _) => inits.push(quote!(#f: #value,)),
                (None, true) => inits.push(quote!(#f: None,)),
                (None, false) => {
                    params.push(quote!(#f: impl Into<#t>));
                    inits.push(quote!(#f: #f.into(),));
                }
            }
            if a.optional {
                let w = self.name(Item::With(name, a.name.as_str()));
                let d = format!(" This item with `{}` set.", a.name.as_str());
                withs.push(quote! {
                    #[doc = #d]
                    #[must_use]
                    pub fn #w(mut self, value: impl Into<#t>) -> Self {
                        self.#f = Some(value.into());
                        self
                    }
                });
            }
        }
        let mut d = format!(" A [`{name}`] with its required attributes");
        if !withs.is_empty() {
            d.push_str("; the optional ones are `None` (set them with the `with_…` methods)");
        }
        if now.is_some() {
            d.push_str("; its timestamps are now");
        }
        if entity.random_shard().is_some() {
            d.push_str("; its write shard is drawn at random");
        }
        d.push_str(". Code that builds items with it keeps compiling when the spec adds an optional attribute.");
        let constructor = self.name(Item::Constructor(name));
        let allow = match params.len() {
            0 => Some(quote!(#[allow(clippy::new_without_default)])),
            1..=7 => None,
            _ => Some(quote!(#[allow(clippy::too_many_arguments)])),
        };
        quote! {
            #[doc = #d]
            #allow
            pub fn #constructor(#(#params),*) -> Self {
                #now
                Self { #(#inits)* }
            }
            #(#withs)*
        }
    }

    fn with_timestamps(&self, entity: &'a ir::Entity) -> TokenStream {
        let sets = entity.attributes.values().filter_map(|a| {
            let stamp = timestamp_now(a)?;
            let field = self.field_place(entity.name.as_str(), &quote!(item), a.name.as_str());
            Some(quote!(#field = #stamp;))
        });
        quote! {
            /// This item as the repository writes it on create and put: every
            /// timestamp set to now (as precise as it is stored).
            pub fn with_timestamps(&self) -> Self {
                let now = __rt::DateTime::from(::std::time::SystemTime::now());
                let mut item = self.clone();
                #(#sets)*
                item
            }
        }
    }
}

/// The value a timestamp attribute takes at `now` (a `DateTime` in scope),
/// as precise as it is stored; `None` for any other attribute.
fn timestamp_now(a: &ir::Attribute) -> Option<TokenStream> {
    a.timestamp?;
    let ir::AttributeType::Datetime { format, precision } = &a.r#type else {
        return None;
    };
    let format = super::types::time_format(*format, *precision);
    Some(quote!(__rt::codec::at_precision(now, #format)))
}
