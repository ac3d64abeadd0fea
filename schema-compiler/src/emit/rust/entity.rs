//! Per entity: the struct, its key type, the `Entity` impl and the partial update.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::keys::Input;
use super::{doc, Emitter};
use crate::ir::{self, KeyType, PlaceholderKind, ShardBy};
use crate::names::Item;

/// How a placeholder's value is reached from a receiver (`self`, `key`).
#[derive(Clone, Copy)]
pub(super) struct Receiver<'r> {
    /// `self` or `key`.
    pub name: &'r str,
}

impl<'a> Emitter<'a> {
    /// Attribute placeholders of the primary key, in order, without repeats.
    pub(super) fn key_attributes<'e>(&self, entity: &'e ir::Entity) -> Vec<&'e ir::Attribute> {
        let mut out: Vec<&ir::Attribute> = Vec::new();
        for p in entity
            .primary_key
            .templates()
            .flat_map(|t| t.placeholders())
        {
            if p.kind != PlaceholderKind::Attribute {
                continue;
            }
            if let Some(a) = entity.attributes.get(p.name.as_str()) {
                if !out.iter().any(|o| o.name == a.name) {
                    out.push(a);
                }
            }
        }
        out
    }

    /// Whether the entity's items carry a random shard number.
    pub(super) fn random_shard(entity: &ir::Entity) -> Option<u32> {
        match &entity.shards {
            Some(ir::Sharding {
                count,
                by: ShardBy::Random,
            }) => Some(count.value),
            Some(ir::Sharding {
                count: _,
                by: ShardBy::Hash(_),
            })
            | None => None,
        }
    }

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
        self.key_attributes(entity)
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
        let args = self
            .key_attributes(entity)
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
            let key_type = self.key_type(None, attribute);
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
            description,
            scope: _,
            attributes,
            primary_key,
            index_keys: _,
            // Read through `random_shard` and `bind_shard`.
            shards: _,
            throughput: _,
            version_attribute: _,
            aggregate: _,
            // Sample items only feed the Workbench model.
            examples: _,
            conditions,
        } = entity;
        let ty = self.name(Item::Entity(name.as_str()));
        let key_ty = self.name(Item::Key(name.as_str()));
        let scope_ty = self.scope_type(entity);
        let entity_doc = doc(description.as_deref());
        let templates = primary_key
            .templates()
            .map(|t| format!("`{}` = `{}`", t.attribute, t.source.as_str()))
            .collect::<Vec<_>>()
            .join(", ");
        let key_doc = format!(" Primary key: {templates}.");
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
        let random = Self::random_shard(entity);
        let shard_ident = random.map(|_| self.name(Item::ShardField(name.as_str())));
        let shard_field = random.zip(shard_ident.as_ref()).map(|(count, shard)| {
            let d = format!(" The write shard, below {count}; pick one with `::singletable_runtime::codec::random_shard({count})`.");
            quote!(#[doc = #d] pub #shard: u32,)
        });
        let ty_name = ty.to_string();
        let key_ty_name = key_ty.to_string();
        let fields = attributes.values().map(|a| {
            let f = self.name(Item::Field(name.as_str(), a.name.as_str()));
            let t = self.value_type(name.as_str(), a);
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
        let key_attributes = self.key_attributes(entity);
        let key_fields = key_attributes.iter().map(|a| {
            let f = self.name(Item::Field(name.as_str(), a.name.as_str()));
            let t = self.value_type(name.as_str(), a);
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
        let type_attrs = self.data_type_attributes(&ty_name, false);
        let key_type_attrs = self.data_type_attributes(&key_ty_name, false);
        let key_shard_field = shard_ident.as_ref().map(|shard| {
            quote!(/// The write shard.
            pub #shard: u32,)
        });
        let key_copies = key_attributes.iter().map(|a| {
            let f = self.name(Item::Field(name.as_str(), a.name.as_str()));
            let value = self.field_ref(name.as_str(), &quote!(entity), a.name.as_str());
            quote!(#f: Clone::clone(#value),)
        });
        let shard_copy = shard_ident
            .as_ref()
            .map(|shard| match self.extern_path(name.as_str()) {
                Some(_) => quote!(#shard: entity.__singletable_shard(),),
                None => quote!(#shard: entity.#shard,),
            });
        let entity_param = if key_attributes.is_empty() && random.is_none() {
            format_ident!("_entity")
        } else {
            format_ident!("entity")
        };
        let key_struct_doc = format!(" The primary key of a [`{}`].", name.as_str());
        let pk_self = self.primary_key_body(entity, Receiver { name: "self" });
        let entity_impl = self.emit_entity_impl(entity);
        let name_str = name.as_str();
        let wrong_entity = format!(
            "the extern type of entity `{name_str}` must derive Entity for `{name_str}` of this spec"
        );
        let key_fn = self.emit_key_fn(entity);
        let update = self.emit_update(entity);
        let named_conditions = conditions.values().map(|c| self.named_condition(entity, c));
        // A typed field per stored attribute, for write conditions.
        let field_consts = attributes.values().filter(|a| !a.key_only).map(|a| {
            let c = self.name(Item::FieldConst(name.as_str(), a.name.as_str()));
            let t = self.value_type(name.as_str(), a);
            let stored = a.stored();
            let entity_name = name.as_str();
            let d = format!(
                " `{}` of a stored [`{}`], for write conditions (`when`, `delete_…_when`).",
                a.name.as_str(),
                name.as_str()
            );
            let field = match &a.r#type {
                ir::AttributeType::Datetime { format, precision } => {
                    let format = super::types::time_format(*format, *precision);
                    quote!(__rt::Field::time(#entity_name, #stored, #format))
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
                    quote!(__rt::Field::new(#entity_name, #stored))
                }
            };
            quote! {
                #[doc = #d]
                pub const #c: __rt::Field<#t> = #field;
            }
        });
        let stamp = has_timestamps(entity).then(|| self.with_timestamps(entity));
        let constructor = self
            .extern_path(name.as_str())
            .is_none()
            .then(|| self.constructor(entity));
        let (definition, entity_impl) = match self.extern_path(name.as_str()) {
            // The crate's own struct: its `impl Entity` is the derive's,
            // which must be of this entity and scope.
            Some(path) => (
                quote! {
                    #entity_doc
                    #[doc = #key_doc]
                    pub use #path as #ty;
                },
                quote! {
                    const _: () = {
                        fn entity_with_this_scope<E: __rt::Entity<Scope = #scope_ty>>() {}
                        let _ = entity_with_this_scope::<#ty>;
                        assert!(
                            __rt::str_eq(<#ty as __rt::Entity>::ENTITY_TYPE, #name_str),
                            #wrong_entity,
                        );
                    };
                },
            ),
            None => (
                quote! {
                    #entity_doc
                    #[doc = #key_doc]
                    #shard_doc
                    #[derive(Debug, Clone, PartialEq)]
                    #type_attrs
                    pub struct #ty {
                        #shard_field
                        #(#fields)*
                    }
                },
                entity_impl,
            ),
        };
        quote! {
            #definition

            #[doc = #key_struct_doc]
            #[derive(Debug, Clone, PartialEq)]
            #key_type_attrs
            pub struct #key_ty {
                #key_shard_field
                #(#key_fields)*
            }

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

            #entity_impl

            #key_fn

            #update
        }
    }

    /// `impl Entity` for the entity's struct: the generated one, or a user's
    /// struct the derive binds to the entity.
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
        let table = &self.spec.table;
        table.partition_key.name.value == attribute
            || table
                .sort_key
                .as_ref()
                .is_some_and(|k| k.name.value == attribute)
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

    /// `(attribute, KeyShape)` of each template of `key`, on the table or
    /// `index`: the language `check` reasons about, as the runtime matches
    /// stored keys against it.
    fn key_shapes(
        &self,
        entity: &'a ir::Entity,
        index: Option<&str>,
        key: &'a ir::EntityKey,
    ) -> Vec<TokenStream> {
        key.templates()
            .map(|t| {
                let attribute = t.attribute.as_str();
                let shape = match self.key_type(index, attribute) {
                    KeyType::Number => quote!(__rt::KeyShape::N),
                    KeyType::Binary => quote!(__rt::KeyShape::B),
                    KeyType::String => {
                        let tokens = crate::lang::primary_key_tokens(self.spec, entity, t);
                        let parts = shape_parts(&tokens);
                        quote!(__rt::KeyShape::S(&[#(#parts),*]))
                    }
                };
                quote!((#attribute, #shape))
            })
            .collect()
    }

    /// `INDEX_KEYS`: the entity's key shapes on each index it writes.
    fn index_key_shapes(&self, entity: &'a ir::Entity) -> Option<TokenStream> {
        if entity.index_keys.is_empty() {
            return None;
        }
        let indexes = entity.index_keys.iter().map(|(index, key)| {
            let keys = self.key_shapes(entity, Some(index), key);
            quote!((#index, &[#(#keys),*]))
        });
        Some(quote! {
            const INDEX_KEYS: __rt::IndexKeys = &[#(#indexes),*];
        })
    }

    fn to_item_body(&self, entity: &'a ir::Entity) -> TokenStream {
        let name = entity.name.as_str();
        let marker = self.spec.table.entity_type.marker(&entity.name).map(|(attribute, value)| {
            quote!(w.raw(#attribute, __rt::AttributeValue::S(#value.to_owned()));)
        });
        // The marks of the recounts pending for the entity's aggregates.
        let counted = self.counted_marks(entity).into_iter().map(|r| {
            let (attribute, mark) = (r.attribute, r.mark);
            quote!(w.raw(#attribute, __rt::AttributeValue::S(#mark.to_owned()));)
        });
        let counted: Vec<TokenStream> = counted.collect();
        // A natural table key is the attribute itself, already in the key item.
        let natural = natural_table_keys(entity);
        // A `key_only` attribute is kept in the key alone.
        let attributes = entity
            .attributes
            .values()
            .filter(|a| !a.key_only && !natural.contains(&a.name.as_str()))
            .map(|a| {
                let attribute = a.stored();
                let f = self.field_ident(entity, a);
                let how = self.rule_or_plain(name, a);
                if a.optional {
                    quote!(w.put_opt(#attribute, &self.#f, #how)?;)
                } else {
                    quote!(w.put(#attribute, &self.#f, #how)?;)
                }
            })
            .collect::<Vec<_>>();
        let capacity = proc_macro2::Literal::usize_unsuffixed(
            entity.attributes.len() + 1 + entity.index_keys.len() * 2,
        );
        let index_keys: Vec<TokenStream> = entity
            .index_keys
            .iter()
            .flat_map(|(index, key)| {
                key.templates()
                    .filter(|t| !t.is_natural())
                    .map(move |t| self.index_key_insert(entity, index, t))
            })
            .collect();
        let shard = self.bind_shard(entity, Receiver { name: "self" });
        let key = self.key_call(entity, Receiver { name: "self" });
        // An item of nothing but its keys (natural or key-only attributes,
        // no entity-type attribute) adds nothing to the key item.
        let writer = if marker.is_none()
            && counted.is_empty()
            && attributes.is_empty()
            && index_keys.is_empty()
        {
            quote!(w)
        } else {
            quote!(mut w)
        };
        quote! {
            let __tenant = scope;
            #shard
            let #writer = __rt::ItemWriter::new(#key?, #name, #capacity);
            #marker
            #(#counted)*
            #(#attributes)*
            #(#index_keys)*
            Ok(w.finish())
        }
    }

    /// Inserts an index key attribute when every placeholder in it is present.
    fn index_key_insert(
        &self,
        entity: &'a ir::Entity,
        index: &str,
        t: &'a ir::KeyTemplate,
    ) -> TokenStream {
        let name = entity.name.as_str();
        let attribute = t.attribute.as_str();
        let key_type = self.key_type(Some(index), attribute);
        let optional: Vec<&ir::Attribute> = t
            .placeholders()
            .filter(|p| p.kind == PlaceholderKind::Attribute)
            .filter_map(|p| entity.attributes.get(p.name.as_str()))
            .filter(|a| a.optional)
            .collect();
        let value = self.key_value(t, key_type, name, &|p| match entity
            .attributes
            .get(p.name.as_str())
        {
            Some(a) if a.optional && p.kind == PlaceholderKind::Attribute => Input::Value {
                expr: {
                    let v = self.optional_value(entity, a);
                    quote!(#v)
                },
                entity: name,
                attribute: a,
            },
            _ => self.entity_input(entity, Receiver { name: "self" }, p),
        });
        let insert = quote!(w.raw(#attribute, #value););
        // One flat pattern over every optional value (a template may hold
        // hundreds), not one nested `if let` per value.
        let mut bound: Vec<&ir::Attribute> = Vec::new();
        for a in optional {
            if !bound.iter().any(|b| b.name == a.name) {
                bound.push(a);
            }
        }
        let (patterns, values): (Vec<TokenStream>, Vec<TokenStream>) = bound
            .iter()
            .map(|a| {
                let f = self.field_ident(entity, a);
                let v = self.optional_value(entity, a);
                let access = if Self::is_copy(&a.r#type) {
                    quote!(self.#f)
                } else {
                    quote!(self.#f.as_deref())
                };
                (quote!(Some(#v)), access)
            })
            .unzip();
        match (patterns.as_slice(), values.as_slice()) {
            ([], []) => insert,
            ([pattern], [value]) => quote!(if let #pattern = #value { #insert }),
            _ => quote!(if let (#(#patterns,)*) = (#(#values,)*) { #insert }),
        }
    }

    /// The local holding the value of an optional attribute while an index
    /// key is built from it: `__v_` and the attribute's field name, so two
    /// attributes never share one.
    fn optional_value(
        &self,
        entity: &'a ir::Entity,
        attribute: &'a ir::Attribute,
    ) -> proc_macro2::Ident {
        let field = self
            .names
            .name(Item::Field(entity.name.as_str(), attribute.name.as_str()));
        format_ident!("__v_{}", field.trim_start_matches("r#"))
    }

    fn decode_body(&self, entity: &'a ir::Entity) -> TokenStream {
        self.decode_fields(entity, None)
    }

    /// The body of `from_item` of `entity`'s struct, or of a partial type
    /// of it: the partial's attributes, read from the item or from the
    /// table's keys or those of the index it was read through.
    pub(super) fn decode_fields(
        &self,
        entity: &'a ir::Entity,
        partial: Option<&Partial<'_>>,
    ) -> TokenStream {
        let name = entity.name.as_str();
        let ty = match partial {
            Some(p) => p.ty.clone(),
            None => self.entity_ident(entity),
        };
        let index_keys: Vec<&ir::EntityKey> = match partial {
            None => entity.index_keys.values().collect(),
            Some(p) => p
                .index
                .and_then(|i| entity.index_keys.get(i))
                .into_iter()
                .collect(),
        };
        // The key templates read back from: each one's steps are declared once.
        let mut read_from: Vec<&ir::KeyTemplate> = Vec::new();
        let fields: Vec<TokenStream> = entity
            .attributes
            .values()
            .filter(|a| partial.is_none_or(|p| p.attributes.contains(&a.name.value)))
            .map(|a| {
                let f = self.field_ident(entity, a);
                // An attribute an index projection leaves out is read back out
                // of a key that holds it: the table's, else the index's the
                // item was read through (`STATUS#<status>` of a GSI that does
                // not project `status`).
                let mut templates: Vec<&ir::KeyTemplate> = Vec::new();
                for t in entity
                    .primary_key
                    .templates()
                    .chain(index_keys.iter().flat_map(|k| k.templates()))
                {
                    let holds = t
                        .placeholders()
                        .any(|p| p.kind == PlaceholderKind::Attribute && p.name == a.name);
                    // A local index repeats the table's partition key: one
                    // source each. Placeholders are read back out of string
                    // keys; a number key holds the value itself.
                    if holds
                        && !t.is_natural()
                        && self.spec.key_type_of(&t.attribute) == KeyType::String
                        && !templates.iter().any(|o| o.attribute == t.attribute)
                    {
                        templates.push(t);
                    }
                }
                if templates.is_empty() {
                    let read = field_read(a, self.rule(name, &a.name, &a.r#type));
                    return quote!(#f: #read,);
                }
                for t in &templates {
                    if !read_from.contains(t) {
                        read_from.push(t);
                    }
                }
                let read = self.read_from_keys(&templates, a);
                quote!(#f: #read,)
            })
            .collect();
        let shard = Self::random_shard(entity)
            .filter(|_| partial.is_none())
            .map(|_| {
                let t = entity
                    .primary_key
                    .templates()
                    .find(|t| t.has_shard())
                    .unwrap_or(&entity.primary_key.pk);
                if !read_from.contains(&t) {
                    read_from.push(t);
                }
                let read = self.read_shard(entity, t);
                let shard = self.name(Item::ShardField(name));
                quote!(#shard: #read,)
            });
        let steps = read_from.iter().map(|t| {
            let steps_name = Self::steps_const(t);
            let steps = self.key_steps(entity, t);
            quote!(const #steps_name: &[__rt::Step] = &#steps;)
        });
        let defaults = self
            .binding
            .iter()
            .filter(|_| partial.is_none())
            .flat_map(|b| &b.defaults)
            .map(|f| quote!(#f: Default::default(),));
        quote! {
            #(#steps)*
            let r = __rt::reader::Fields::new(item, #name);
            Ok(#ty {
                #shard
                #(#fields)*
                #(#defaults)*
            })
        }
    }

    /// The constructor of a condition the spec names on `entity`
    /// (`Ticket::open()`, `Product::in_stock(quantity)`).
    fn named_condition(
        &self,
        entity: &'a ir::Entity,
        named: &'a ir::NamedCondition,
    ) -> TokenStream {
        let name = entity.name.as_str();
        let c = named.name.as_str();
        let f = self.name(Item::Condition(name, c));
        let param = |p: &'a str| self.name(Item::ConditionParam(name, c, p));
        let context = format!("{name}::{}", named.name.as_str());
        let mut params = Vec::new();
        let parts: Vec<TokenStream> = named
            .conditions
            .iter()
            .map(|c| {
                let kind = match c.op {
                    ir::FilterOp::Equals => "=",
                    ir::FilterOp::NotEquals => "<>",
                    ir::FilterOp::Lt => "<",
                    ir::FilterOp::Lte => "<=",
                    ir::FilterOp::Gt => ">",
                    ir::FilterOp::Gte => ">=",
                    ir::FilterOp::Between => "BETWEEN",
                    ir::FilterOp::In => "IN",
                    ir::FilterOp::BeginsWith => "begins_with",
                    ir::FilterOp::Contains => "contains",
                    ir::FilterOp::Exists => "exists",
                    ir::FilterOp::NotExists => "not_exists",
                };
                for operand in &c.operands {
                    if let ir::FilterOperand::Param { name: p, r#type } = operand {
                        let ident = param(p.as_str());
                        let ty = match r#type {
                            ir::AttributeType::String { .. } => quote!(&str),
                            ir::AttributeType::Decimal { .. } => quote!(&__rt::Decimal),
                            other @ (ir::AttributeType::Integer { .. }
                            | ir::AttributeType::Boolean
                            | ir::AttributeType::Datetime { .. }
                            | ir::AttributeType::Enum { .. }
                            | ir::AttributeType::List { .. }
                            | ir::AttributeType::Map { .. }
                            | ir::AttributeType::Set { .. }
                            | ir::AttributeType::Binary { .. }) => {
                                self.type_of(name, &c.attribute, other)
                            }
                        };
                        params.push(quote!(#ident: #ty));
                    }
                }
                let values = c.operands.iter().map(|o| {
                    match super::patterns::operand_value_of(&context, c, o, &param) {
                        (value, true) => value,
                        (value, false) => quote!(Ok(#value)),
                    }
                });
                let stored = c.stored.as_str();
                quote!(__rt::Condition::of(#kind, #stored, vec![#(#values),*]))
            })
            .collect();
        let text = crate::plan::conditions_text(&named.conditions).unwrap_or_default();
        let d = format!(
            " The spec's write condition `{}` of a stored [`{name}`]: `{text}`. Pass it to an update's `when` or to `delete_…_when`.",
            named.name.as_str()
        );
        let mut parts = parts.into_iter();
        let first = parts
            .next()
            .unwrap_or_else(|| quote!(__rt::Condition::item_exists()));
        // A condition the spec named `new` returns a condition, not the
        // entity, as Clippy expects of a `new` in the user's crate.
        let allow = (f == "new").then(|| quote!(#[allow(clippy::new_ret_no_self)]));
        quote! {
            #[doc = #d]
            #allow
            pub fn #f(#(#params),*) -> __rt::Condition {
                #first #(.and(#parts))*
            }
        }
    }

    /// A partial type of `entity` ([`ir::AccessPattern::partials`]): the
    /// struct of its attributes and its `impl Partial`.
    pub(super) fn emit_partial(
        &self,
        entity: &'a ir::Entity,
        partial: &Partial<'_>,
        what: &str,
    ) -> TokenStream {
        let ty = &partial.ty;
        let entity_ty = self.entity_ident(entity);
        let fields = entity
            .attributes
            .values()
            .filter(|a| partial.attributes.contains(&a.name.value))
            .map(|a| {
                let f = self.name(Item::Field(entity.name.as_str(), a.name.as_str()));
                let t = self.value_type(entity.name.as_str(), a);
                let d = field_doc(entity, a);
                let attrs = self.data_field_attributes(
                    &ty.to_string(),
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
        let type_attrs = self.data_type_attributes(&ty.to_string(), false);
        let copies = entity
            .attributes
            .values()
            .filter(|a| partial.attributes.contains(&a.name.value))
            .map(|a| {
                let f = self.name(Item::Field(entity.name.as_str(), a.name.as_str()));
                if self.extern_path(entity.name.as_str()).is_some() {
                    let value =
                        self.field_ref(entity.name.as_str(), &quote!(entity), a.name.as_str());
                    return quote!(#f: Clone::clone(#value),);
                }
                let from = self.field_ident(entity, a);
                quote!(#f: Clone::clone(&entity.#from),)
            });
        let entity_param = if partial.attributes.is_empty() {
            format_ident!("_entity")
        } else {
            format_ident!("entity")
        };
        let decode = self.decode_fields(entity, Some(partial));
        let doc = format!(" The attributes of a [`{}`] {what}.", entity.name.as_str());
        quote! {
            #[doc = #doc]
            #[derive(Debug, Clone, PartialEq)]
            #type_attrs
            pub struct #ty {
                #(#fields)*
            }

            impl From<&#entity_ty> for #ty {
                fn from(#entity_param: &#entity_ty) -> Self {
                    #ty { #(#copies)* }
                }
            }

            impl __rt::Partial for #ty {
                type Of = #entity_ty;

                fn from_item(item: &__rt::Item) -> Result<Self, __rt::DecodeError> {
                    #decode
                }
            }
        }
    }

    /// The update's method making one element change of attribute `a`:
    /// `add_<counter>(n)`, `add_to_<set>`/`remove_from_<set>`,
    /// `append_to_<list>`, `remove_from_<list>_at(index, expected)`.
    fn element_change_setter(
        &self,
        entity: &'a ir::Entity,
        a: &'a ir::Attribute,
        kind: ir::ElementChange,
    ) -> TokenStream {
        let name = entity.name.as_str();
        let f = self.name(Item::Change(name, a.name.as_str(), kind));
        let attribute = a.name.as_str();
        let field = self.name(Item::Setter(name, a.name.as_str()));
        let element_type = |a: &ir::Attribute| self.list_element_type(name, a);
        match kind {
            ir::ElementChange::Add => {
                let d = format!(
                    " Adds `n` to `{attribute}` atomically (DynamoDB's `ADD`; a missing value counts as 0). Not with a `{field}` setter in the same update."
                );
                quote! {
                    #[doc = #d]
                    pub fn #f(mut self, n: i64) -> Self {
                        self.#f = Some(self.#f.unwrap_or(0).saturating_add(n));
                        self
                    }
                }
            }
            ir::ElementChange::SetAdd | ir::ElementChange::SetRemove => {
                let t = self.value_type(name, a);
                let d = if kind == ir::ElementChange::SetAdd {
                    format!(" Adds `values` to the set `{attribute}` atomically (DynamoDB's `ADD`; a missing set is created). Not with a `{field}` setter in the same update.")
                } else {
                    format!(" Removes `values` from the set `{attribute}` atomically (DynamoDB's `DELETE`; a set left empty is removed). Not with a `{field}` setter in the same update.")
                };
                quote! {
                    #[doc = #d]
                    pub fn #f(mut self, values: impl IntoIterator<Item = <#t as IntoIterator>::Item>) -> Self {
                        self.#f.extend(values);
                        self
                    }
                }
            }
            ir::ElementChange::ListAppend => {
                let t = element_type(a);
                let d = format!(" Appends `values` to the list `{attribute}` (a missing list counts as empty), each checked against the elements' declared rules. Not with a `{field}` setter or a removal in the same update.");
                quote! {
                    #[doc = #d]
                    pub fn #f(mut self, values: impl IntoIterator<Item = #t>) -> Self {
                        self.#f.extend(values);
                        self
                    }
                }
            }
            ir::ElementChange::ListRemoveAt => {
                let t = element_type(a);
                let d = format!(" Removes the element at `index` of the list `{attribute}` (indexes of the list as stored), only if it is `expected`: else the update fails with `Error::ConditionNotMet`, which carries the stored item (another writer moved or removed it). Not with a `{field}` setter or an append in the same update.");
                quote! {
                    #[doc = #d]
                    pub fn #f(mut self, index: usize, expected: impl Into<#t>) -> Self {
                        self.#f.insert(index, expected.into());
                        self
                    }
                }
            }
        }
    }

    /// A list's element type (`AttributeValue` for an untyped list).
    fn list_element_type(&self, entity: &str, a: &ir::Attribute) -> TokenStream {
        if let ir::AttributeType::List {
            items: Some(items), ..
        } = &a.r#type
        {
            self.type_of(entity, a.name.as_str(), items)
        } else {
            quote!(__rt::AttributeValue)
        }
    }

    fn emit_update(&self, entity: &'a ir::Entity) -> TokenStream {
        let name = entity.name.as_str();
        let entity_ty = self.entity_ident(entity);
        let ty = self.name(Item::Update(name));
        let key_ty = self.name(Item::Key(name));
        let scope_ty = self.scope_type(entity);
        let key_attributes = self.key_attributes(entity);
        // Timestamps are set by the repository, not by callers.
        let changeable: Vec<&ir::Attribute> = entity
            .attributes
            .values()
            .filter(|a| !key_attributes.iter().any(|k| k.name == a.name) && a.timestamp.is_none())
            .collect();
        let stamps = entity
            .attributes
            .values()
            .filter_map(|a| {
                let kind = a.timestamp?;
                let stamp = timestamp_now(a)?;
                let stored = a.stored();
                let how = self.rule_or_plain(name, a);
                Some(match kind {
                    crate::syntax::Timestamp::Updated => quote! {
                        update.put_value(#stored, &#stamp, #how)?;
                    },
                    crate::syntax::Timestamp::Created => quote! {
                        if self.__options.or_create {
                            let created = #stamp;
                            let created = __rt::Attr::store(&created, #how, #name, #stored)?;
                            update.set_if_absent.push((#stored, created));
                        }
                    },
                })
            })
            .collect::<Vec<_>>();
        // An idempotent update's value is fixed when its token is: its
        // timestamps too, or a resend would differ from what was sent.
        let stamped = !stamps.is_empty();
        let now = stamped.then(|| quote!(let now = self.__options.now();));
        let setter = |a: &'a ir::Attribute| self.name(Item::Setter(name, a.name.as_str()));
        let fields = changeable.iter().map(|a| {
            let f = setter(a);
            let t = self.value_type(name, a);
            if a.optional {
                quote!(#f: Option<Option<#t>>,)
            } else {
                quote!(#f: Option<#t>,)
            }
        });
        let setters = changeable.iter().map(|a| {
            let f = setter(a);
            let t = self.value_type(name, a);
            let d = if entity.version_attribute.as_deref() == Some(a.name.as_str()) {
                format!(" Sets `{}`, the item's new version (required): the update applies only when the stored version is one less, else it fails with `Error::VersionConflict` (optimistic locking).", a.name.as_str())
            } else {
                format!(" Sets `{}`.", a.name.as_str())
            };
            if a.optional {
                let d = format!(
                    " Sets `{}`; `None` removes it (and the index keys built from it).",
                    a.name.as_str()
                );
                quote! {
                    #[doc = #d]
                    pub fn #f(mut self, value: Option<#t>) -> Self {
                        self.#f = Some(value);
                        self
                    }
                }
            } else {
                quote! {
                    #[doc = #d]
                    pub fn #f(mut self, value: impl Into<#t>) -> Self {
                        self.#f = Some(value.into());
                        self
                    }
                }
            }
        });
        let version = entity.version_attribute.as_deref();
        // A `key_only` attribute is written only into the index keys built from it.
        let sets = changeable.iter().filter(|a| !a.key_only).map(|a| {
            let attribute = a.name.as_str();
            let stored = a.stored();
            let f = setter(a);
            let value = self.to_av(name, a, quote!(value));
            if Some(attribute) == version {
                let missing = format!("an update of a versioned `{name}` carries its new version: set `{attribute}` to the version read plus one");
                quote! {
                    match &self.#f {
                        Some(value) => {
                            update.set.push((#stored, #value));
                            let expected = value.checked_sub(1).ok_or(__rt::ValueError {
                                context: #name,
                                name: #stored,
                                problem: String::from("the version cannot go below its minimum"),
                            })?;
                            update.expect_version = Some((#stored, expected));
                        }
                        None => {
                            return Err(__rt::Error::Value(__rt::ValueError {
                                context: #name,
                                name: #stored,
                                problem: String::from(#missing),
                            }));
                        }
                    }
                }
            } else {
                let how = self.rule_or_plain(name, a);
                if a.optional {
                    quote!(update.put_opt(#stored, &self.#f, #how)?;)
                } else {
                    quote!(update.put(#stored, &self.#f, #how)?;)
                }
            }
        }).collect::<Vec<_>>();
        // Changes of an attribute's elements: counters (DynamoDB's ADD:
        // atomic, a missing attribute counts as 0), set additions and
        // removals, list appends and removals by index.
        let changes = entity.element_changes();
        let change = |a: &'a ir::Attribute, kind: ir::ElementChange| {
            self.name(Item::Change(name, a.name.as_str(), kind))
        };
        let element_type = |a: &ir::Attribute| self.list_element_type(name, a);
        let add_fields = changes.iter().map(|&(a, kind)| {
            let f = change(a, kind);
            match kind {
                ir::ElementChange::Add => quote!(#f: Option<i64>,),
                ir::ElementChange::SetAdd | ir::ElementChange::SetRemove => {
                    let t = self.value_type(name, a);
                    quote!(#f: #t,)
                }
                ir::ElementChange::ListAppend => {
                    let t = element_type(a);
                    quote!(#f: Vec<#t>,)
                }
                ir::ElementChange::ListRemoveAt => {
                    let t = element_type(a);
                    quote!(#f: ::std::collections::BTreeMap<usize, #t>,)
                }
            }
        });
        let add_setters = changes
            .iter()
            .map(|&(a, kind)| self.element_change_setter(entity, a, kind));
        let adds: Vec<TokenStream> = changes
            .iter()
            .filter_map(|&(a, kind)| {
                let stored = a.stored();
                let f = change(a, kind);
                let setter = setter(a);
                match kind {
                    ir::ElementChange::Add => {
                        let how = self.rule_or_plain(name, a);
                        Some(quote!(update.add_to(#stored, self.#f, self.#setter.is_some(), #how)?;))
                    }
                    ir::ElementChange::SetAdd => {
                        let removed = changes
                            .iter()
                            .find(|(b, c)| b.name == a.name && *c == ir::ElementChange::SetRemove)
                            .map(|&(b, c)| {
                                let m = change(b, c);
                                quote!(&self.#m)
                            })
                            .unwrap_or_else(|| quote!(&::std::collections::BTreeSet::new()));
                        Some(quote!(update.change_set(#stored, &self.#f, #removed, self.#setter.is_some())?;))
                    }
                    ir::ElementChange::ListAppend => {
                        let at = change(a, ir::ElementChange::ListRemoveAt);
                        let how = self.rule_or_plain(name, a);
                        Some(quote!(update.change_list(#stored, &self.#f, &self.#at, self.#setter.is_some(), #how)?;))
                    }
                    ir::ElementChange::SetRemove | ir::ElementChange::ListRemoveAt => None,
                }
            })
            .collect();
        // Fields of typed maps set one by one (`SET #m.#f`): of maps whose
        // struct is generated (a user's own struct for a map has its own
        // field types).
        let field_changes = if self.binding.is_some() {
            Vec::new()
        } else {
            entity.field_changes()
        };
        let field_type = |a: &ir::Attribute, f: &ir::Attribute| {
            self.type_of(name, &format!("{}.{}", a.name, f.name), &f.r#type)
        };
        let field_change = |a: &'a ir::Attribute, f: &'a ir::Attribute| {
            self.name(Item::FieldChange(name, a.name.as_str(), f.name.as_str()))
        };
        let field_fields = field_changes.iter().map(|&(a, f)| {
            let m = field_change(a, f);
            let t = field_type(a, f);
            if f.optional {
                quote!(#m: Option<Option<#t>>,)
            } else {
                quote!(#m: Option<#t>,)
            }
        });
        let field_setters = field_changes.iter().map(|&(a, f)| {
            let m = field_change(a, f);
            let t = field_type(a, f);
            let (map, field) = (a.name.as_str(), f.name.as_str());
            let also = setter(a);
            if f.optional {
                let d = format!(" Sets the field `{field}` of `{map}`, leaving its other fields as they are; `None` removes it. Fails with `Error::ConditionFailed` when the item has no `{map}`. Not with a `{also}` setter in the same update.");
                quote! {
                    #[doc = #d]
                    pub fn #m(mut self, value: Option<#t>) -> Self {
                        self.#m = Some(value);
                        self
                    }
                }
            } else {
                let d = format!(" Sets the field `{field}` of `{map}`, leaving its other fields as they are. Fails with `Error::ConditionFailed` when the item has no `{map}`. Not with a `{also}` setter in the same update.");
                quote! {
                    #[doc = #d]
                    pub fn #m(mut self, value: impl Into<#t>) -> Self {
                        self.#m = Some(value.into());
                        self
                    }
                }
            }
        });
        let field_sets: Vec<TokenStream> = field_changes
            .iter()
            .map(|&(a, f)| {
                let m = field_change(a, f);
                let setter = setter(a);
                let (map, field) = (a.stored(), f.stored());
                let how = self
                    .rule(name, &format!("{}.{}", a.name, f.name), &f.r#type)
                    .unwrap_or_else(|| quote!(__rt::Store::Plain));
                let value = if f.optional {
                    quote!(self.#m.as_ref().map(Option::as_ref))
                } else {
                    quote!(self.#m.as_ref().map(Some))
                };
                quote!(update.put_field((#map, #field), #value, #how, self.#setter.is_some())?;)
            })
            .collect();
        let index_updates = self.index_key_updates(entity, &changeable);
        // `or_create()` writes what `create` would: every required
        // attribute (a counter may be added to instead), and the key's own
        // attributes, which an update otherwise leaves as they are.
        let required = changeable.iter().filter(|a| !a.optional).map(|a| {
            let attribute = a.name.as_str();
            let f = setter(a);
            // A counter added to, a set added to or a list appended to is
            // created by the update.
            let added = changes
                .iter()
                .filter(|(b, _)| b.name == a.name)
                .find_map(|&(b, kind)| {
                    let m = change(b, kind);
                    match kind {
                        ir::ElementChange::Add => Some(quote!(|| self.#m.is_some())),
                        ir::ElementChange::SetAdd | ir::ElementChange::ListAppend => {
                            Some(quote!(|| !self.#m.is_empty()))
                        }
                        ir::ElementChange::SetRemove | ir::ElementChange::ListRemoveAt => None,
                    }
                })
                .unwrap_or_default();
            quote!((#attribute, self.#f.is_some() #added),)
        });
        // A natural table key is the key itself: DynamoDB writes it with
        // the item and refuses an update that names it.
        let natural = natural_table_keys(entity);
        let set_keys: Vec<&&ir::Attribute> = key_attributes
            .iter()
            .filter(|a| !a.key_only && !natural.contains(&a.name.as_str()))
            .collect();
        // Index keys recomputed by the update read the key's fields for
        // their key-attribute placeholders.
        let index_reads_key = entity
            .index_keys
            .values()
            .flat_map(|k| k.templates())
            .filter(|t| !t.is_natural() && !self.is_table_key(&t.attribute))
            .flat_map(|t| t.placeholders())
            .any(|p| key_attributes.iter().any(|k| k.name == p.name));
        let uses_key =
            !set_keys.is_empty() || index_reads_key || Self::random_shard(entity).is_some();
        let key_sets: Vec<TokenStream> = set_keys
            .into_iter()
            .map(|a| {
                let stored = a.stored();
                let f = self.name(Item::Field(name, a.name.as_str()));
                let how = self.rule_or_plain(name, a);
                quote!(update.put_value(#stored, &key.#f, #how)?;)
            })
            .collect();
        // An entity of nothing but its keys has nothing to change.
        let update_binding = quote!(mut update);
        let create = quote! {
            if self.__options.or_create {
                __rt::ops::creatable(#name, &[#(#required)*])?;
                #(#key_sets)*
            }
        };
        let shard = self.bind_shard(entity, Receiver { name: "key" });
        // The key's fields are read for the key attributes and the shard.
        let key_param = if !uses_key {
            format_ident!("_key")
        } else {
            format_ident!("key")
        };
        let doc = format!(
            " A partial update of a [`{name}`]: only the attributes set are written. Index keys built from them are recomputed, and removed when an attribute in them is removed (the item leaves a sparse index)."
        );
        // Counters and lists whose changes are sent at least once.
        let at_least_once: Vec<&str> = changes
            .iter()
            .filter(|(a, _)| a.at_least_once)
            .map(|(a, _)| a.stored())
            .collect();
        let at_least_once = (!at_least_once.is_empty()).then(|| {
            let mut names = at_least_once;
            names.dedup();
            quote!(update.at_least_once = &[#(#names),*];)
        });
        quote! {
            #[doc = #doc]
            #[derive(Debug, Clone, Default, PartialEq)]
            pub struct #ty {
                #(#fields)*
                #(#add_fields)*
                #(#field_fields)*
                __options: __rt::ops::UpdateOptions,
            }

            impl #ty {
                #(#setters)*
                #(#add_setters)*
                #(#field_setters)*
                __rt::update_methods!(#stamped);

                /// The attributes to set and remove, index keys included.
                pub fn to_update(&self, #key_param: &#key_ty, scope: &#scope_ty) -> Result<__rt::ops::Update, __rt::Error> {
                    let __tenant = scope;
                    #shard
                    let #update_binding = __rt::ops::Update::of::<#entity_ty>(self.__options.or_create);
                    #create
                    #(#sets)*
                    #(#adds)*
                    #(#field_sets)*
                    #(#index_updates)*
                    #now
                    #(#stamps)*
                    #at_least_once
                    self.__options.apply_to(&mut update);
                    Ok(update)
                }
            }
        }
    }

    fn index_key_updates(
        &self,
        entity: &'a ir::Entity,
        changeable: &[&'a ir::Attribute],
    ) -> Vec<TokenStream> {
        let name = entity.name.as_str();
        let mut out = Vec::new();
        let mut label = 0;
        // The table's own key attributes (an inverted index's keys, a local
        // index's partition key) never change and cannot be set.
        let table_key = |attribute: &str| self.is_table_key(attribute);
        for (index, key) in &entity.index_keys {
            for t in key
                .templates()
                .filter(|t| !t.is_natural() && !table_key(&t.attribute))
            {
                let attribute = t.attribute.as_str();
                let mentioned: Vec<&'a ir::Attribute> = changeable
                    .iter()
                    .copied()
                    .filter(|a| {
                        t.placeholders()
                            .any(|p| p.kind == PlaceholderKind::Attribute && p.name == a.name)
                    })
                    .collect();
                let all: Vec<&str> = mentioned.iter().map(|a| a.name.as_str()).collect();
                // A key built from the primary key alone is written when the
                // update may create the item; one built from attributes, when
                // they are set.
                let touched: Vec<TokenStream> = if mentioned.is_empty() {
                    vec![quote!(self.__options.or_create)]
                } else {
                    mentioned
                        .iter()
                        .map(|a| {
                            let f = self.name(Item::Setter(name, a.name.as_str()));
                            quote!(self.#f.is_some())
                        })
                        .collect()
                };
                let label_name =
                    syn::Lifetime::new(&format!("'key{label}"), proc_macro2::Span::call_site());
                label += 1;
                let has_optional = mentioned.iter().any(|a| a.optional);
                let missing = quote!(return Err(__rt::Error::IncompleteUpdate {
                    entity: #name,
                    key_attribute: #attribute,
                    missing: vec![#(#all),*],
                }));
                let binds = mentioned.iter().map(|a| {
                    let f = self.name(Item::Setter(name, a.name.as_str()));
                    let v = self.optional_value(entity, a);
                    let copy = Self::is_copy(&a.r#type);
                    match (a.optional, copy) {
                        (false, true) => quote!(let #v = match self.#f { Some(v) => v, None => #missing };),
                        (false, false) => quote!(let #v = match &self.#f { Some(v) => v.as_str(), None => #missing };),
                        (true, copy) => {
                            let get = if copy { quote!(*v) } else { quote!(v.as_str()) };
                            quote!(let #v = match &self.#f {
                                Some(Some(v)) => #get,
                                Some(None) => {
                                    update.remove.push(#attribute);
                                    break #label_name;
                                }
                                None => #missing,
                            };)
                        }
                    }
                });
                let key_type = self.key_type(Some(index), attribute);
                let value = self.key_value(t, key_type, name, &|p| match mentioned
                    .iter()
                    .find(|a| p.kind == PlaceholderKind::Attribute && a.name == p.name)
                {
                    Some(a) => Input::Value {
                        expr: {
                            let v = self.optional_value(entity, a);
                            quote!(#v)
                        },
                        entity: name,
                        attribute: a,
                    },
                    None => self.entity_input(entity, Receiver { name: "key" }, p),
                });
                if !has_optional && !mentioned.is_empty() {
                    // Every attribute of the key set, or none: the key is
                    // written, or left alone; some but not all is an error.
                    let (values, patterns): (Vec<TokenStream>, Vec<TokenStream>) = mentioned
                        .iter()
                        .map(|a| {
                            let f = self.name(Item::Setter(name, a.name.as_str()));
                            let v = self.optional_value(entity, a);
                            let value = if Self::is_copy(&a.r#type) {
                                quote!(self.#f)
                            } else {
                                quote!(&self.#f)
                            };
                            (value, quote!(Some(#v)))
                        })
                        .unzip();
                    let push = quote!(update.key(#attribute, #value););
                    out.push(match (values.as_slice(), patterns.as_slice()) {
                        ([value], [pattern]) => quote! {
                            if let #pattern = #value {
                                #push
                            }
                        },
                        _ => {
                            let nones = values.iter().map(|_| quote!(None));
                            quote! {
                                match (#(#values,)*) {
                                    (#(#patterns,)*) => { #push }
                                    (#(#nones,)*) => {}
                                    _ => #missing,
                                }
                            }
                        }
                    });
                    continue;
                }
                let body = quote! {
                    #(#binds)*
                    update.key(#attribute, #value);
                };
                let body = if has_optional {
                    quote!(#label_name: { #body })
                } else {
                    body
                };
                out.push(quote! {
                    if #(#touched)||* {
                        #body
                    }
                });
            }
        }
        out
    }
}

/// `r.required("title")?`: reading an attribute no key holds through the
/// `Fields` reader `r`.
pub(super) fn field_read(attribute: &ir::Attribute, rule: Option<TokenStream>) -> TokenStream {
    let name = attribute.stored();
    match (&attribute.r#type, attribute.optional) {
        (ir::AttributeType::Datetime { format, precision }, optional) => {
            let format = super::types::time_format(*format, *precision);
            if optional {
                quote!(r.time_opt(#name, #format)?)
            } else {
                quote!(r.time(#name, #format)?)
            }
        }
        (ty, optional) if super::types::checks_on_read(ty) => {
            let how = rule;
            if optional {
                quote!(r.checked_opt(#name, #how)?)
            } else {
                quote!(r.checked(#name, #how)?)
            }
        }
        (_, true) => quote!(r.optional(#name)?),
        (_, false) => quote!(r.required(#name)?),
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

/// The runtime shape of a key template's language: literal runs, and each
/// placeholder position as its characters.
fn shape_parts(tokens: &[crate::lang::Tok]) -> Vec<TokenStream> {
    use crate::lang::Tok;
    let ranges = |set: &ir::CharSet| {
        let pairs = set.ranges.iter().map(|&(lo, hi)| {
            let (lo, hi) = (
                proc_macro2::Literal::character(lo),
                proc_macro2::Literal::character(hi),
            );
            quote!((#lo, #hi))
        });
        quote!(&[#(#pairs),*])
    };
    let mut out = Vec::new();
    let mut literal = String::new();
    for token in tokens {
        if let Tok::Char(c) = token {
            literal.push(*c);
            continue;
        }
        if !literal.is_empty() {
            out.push(quote!(__rt::Shape::Lit(#literal)));
            literal.clear();
        }
        out.push(match token {
            Tok::Class(set) => {
                let r = ranges(set);
                quote!(__rt::Shape::Class(#r))
            }
            Tok::One(set) => {
                let r = ranges(set);
                quote!(__rt::Shape::One(#r))
            }
            Tok::Char(_) => continue,
        });
    }
    if !literal.is_empty() {
        out.push(quote!(__rt::Shape::Lit(#literal)));
    }
    out
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
        if let Some(count) = Self::random_shard(entity) {
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
        if Self::random_shard(entity).is_some() {
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

/// A partial type of an entity: its name, the attributes it holds (spec
/// names) and the index it is read through.
#[derive(Debug, Clone)]
pub(super) struct Partial<'p> {
    /// The struct.
    pub ty: proc_macro2::Ident,
    /// Its attributes.
    pub attributes: &'p [String],
    /// The index read, whose keys may hold some of them.
    pub index: Option<&'p str>,
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
