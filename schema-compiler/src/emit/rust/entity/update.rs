//! Per entity: the partial update (`<Entity>Update`), its setters and what it writes.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::*;

impl<'a> Emitter<'a> {
    pub(super) fn emit_update(&self, entity: &'a ir::Entity) -> TokenStream {
        let name = entity.name.as_str();
        let entity_ty = self.entity_ident(entity);
        let ty = self.name(Item::Update(name));
        let key_ty = self.name(Item::Key(name));
        let scope_ty = self.scope_type(entity);
        let key_attributes = entity.key_attributes();
        // Timestamps are set by the repository, not by callers.
        let changeable: Vec<&ir::Attribute> = entity
            .attributes
            .values()
            .filter(|a| !key_attributes.iter().any(|k| k.name == a.name) && a.timestamp.is_none())
            .collect();
        let stamps = self.update_stamps(entity);
        // An idempotent update's value is fixed when its token is: its
        // timestamps too, or a resend would differ from what was sent.
        let stamped = !stamps.is_empty();
        let now = stamped.then(|| quote!(let now = self.__options.now();));
        let (fields, setters) = self.update_setters(entity, &changeable);
        let sets = self.update_sets(entity, &changeable);
        let changes = entity.element_changes();
        let elements = self.element_change_parts(entity, &changes);
        let map_fields = self.map_field_parts(entity);
        let index_updates = self.index_key_updates(entity, &changeable);
        let create = self.or_create(entity, &changeable, &key_attributes, &changes);
        let shard = self.bind_shard(entity, Receiver { name: "key" });
        let doc = format!(
            " A partial update of a [`{name}`]: only the attributes set are written. Index keys built from them are recomputed, and removed when an attribute in them is removed (the item leaves a sparse index)."
        );
        let at_least_once = at_least_once(&changes);
        let Parts {
            fields: element_fields,
            setters: element_setters,
            writes: element_writes,
        } = elements;
        let Parts {
            fields: map_field_fields,
            setters: map_field_setters,
            writes: map_field_writes,
        } = map_fields;
        let rest = quote! {
            let mut update = __rt::ops::Update::of::<#entity_ty>(self.__options.or_create);
            #create
            #(#sets)*
            #(#element_writes)*
            #(#map_field_writes)*
            #(#index_updates)*
            #now
            #(#stamps)*
            #at_least_once
            self.__options.apply_to(&mut update);
            Ok(update)
        };
        // The shard is bound where an index key of the update reads it.
        let shard = super::item::reads_local(&rest, "__shard").then_some(shard);
        let body = quote!(#shard #rest);
        // The key's fields are read for the key attributes and the shard.
        let key_param = if super::item::reads_local(&body, "key") {
            format_ident!("key")
        } else {
            format_ident!("_key")
        };
        let tenant = super::item::tenant_binding(&body);
        let scope_param = if tenant.is_some() || super::item::reads_local(&body, "scope") {
            format_ident!("scope")
        } else {
            format_ident!("_scope")
        };
        quote! {
            #[doc = #doc]
            #[derive(Debug, Clone, Default, PartialEq)]
            pub struct #ty {
                #(#fields)*
                #(#element_fields)*
                #(#map_field_fields)*
                __options: __rt::ops::UpdateOptions,
            }

            impl #ty {
                #(#setters)*
                #(#element_setters)*
                #(#map_field_setters)*
                __rt::update_methods!(#stamped);

                /// The attributes to set and remove, index keys included.
                pub fn to_update(&self, #key_param: &#key_ty, #scope_param: &#scope_ty) -> Result<__rt::ops::Update, __rt::Error> {
                    #tenant
                    #body
                }
            }
        }
    }

    /// The timestamps an update writes: `updated` always, `created` when
    /// the update may create the item.
    fn update_stamps(&self, entity: &'a ir::Entity) -> Vec<TokenStream> {
        let name = entity.name.as_str();
        entity
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
            .collect()
    }

    /// The update's field and setter of each attribute a caller may change.
    fn update_setters(
        &self,
        entity: &'a ir::Entity,
        changeable: &[&'a ir::Attribute],
    ) -> (Vec<TokenStream>, Vec<TokenStream>) {
        let name = entity.name.as_str();
        let fields = changeable
            .iter()
            .map(|a| {
                let f = self.name(Item::Setter(name, a.name.as_str()));
                let t = self.value_type(name, a);
                if a.optional {
                    quote!(#f: Option<Option<#t>>,)
                } else {
                    quote!(#f: Option<#t>,)
                }
            })
            .collect();
        let setters = changeable.iter().map(|a| {
            let f = self.name(Item::Setter(name, a.name.as_str()));
            let t = self.value_type(name, a);
            if a.optional {
                let d = format!(
                    " Sets `{}`; `None` removes it (and the index keys built from it).",
                    a.name.as_str()
                );
                return quote! {
                    #[doc = #d]
                    pub fn #f(mut self, value: Option<#t>) -> Self {
                        self.#f = Some(value);
                        self
                    }
                };
            }
            let d = if entity.version_attribute.as_deref() == Some(a.name.as_str()) {
                format!(" Sets `{}`, the item's new version (required): the update applies only when the stored version is one less, else it fails with `Error::VersionConflict` (optimistic locking).", a.name.as_str())
            } else {
                format!(" Sets `{}`.", a.name.as_str())
            };
            quote! {
                #[doc = #d]
                pub fn #f(mut self, value: impl Into<#t>) -> Self {
                    self.#f = Some(value.into());
                    self
                }
            }
        }).collect();
        (fields, setters)
    }

    /// What `to_update` writes for each attribute set; a `key_only`
    /// attribute is written only into the index keys built from it, and the
    /// version attribute is required and checked against the stored one.
    fn update_sets(
        &self,
        entity: &'a ir::Entity,
        changeable: &[&'a ir::Attribute],
    ) -> Vec<TokenStream> {
        let name = entity.name.as_str();
        let version = entity.version_attribute.as_deref();
        changeable.iter().filter(|a| !a.key_only).map(|a| {
            let attribute = a.name.as_str();
            let stored = a.stored();
            let f = self.name(Item::Setter(name, attribute));
            if Some(attribute) != version {
                let how = self.rule_or_plain(name, a);
                return if a.optional {
                    quote!(update.put_opt(#stored, &self.#f, #how)?;)
                } else {
                    quote!(update.put(#stored, &self.#f, #how)?;)
                };
            }
            let value = self.to_av(name, a, quote!(value));
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
        }).collect()
    }

    /// Changes of an attribute's elements: counters (DynamoDB's ADD:
    /// atomic, a missing attribute counts as 0), set additions and
    /// removals, list appends and removals by index.
    fn element_change_parts(
        &self,
        entity: &'a ir::Entity,
        changes: &[(&'a ir::Attribute, ir::ElementChange)],
    ) -> Parts {
        let name = entity.name.as_str();
        let change = |a: &'a ir::Attribute, kind: ir::ElementChange| {
            self.name(Item::Change(name, a.name.as_str(), kind))
        };
        let fields = changes
            .iter()
            .map(|&(a, kind)| {
                let f = change(a, kind);
                match kind {
                    ir::ElementChange::Add => quote!(#f: Option<i64>,),
                    ir::ElementChange::SetAdd | ir::ElementChange::SetRemove => {
                        let t = self.value_type(name, a);
                        quote!(#f: #t,)
                    }
                    ir::ElementChange::ListAppend => {
                        let t = self.list_element_type(name, a);
                        quote!(#f: Vec<#t>,)
                    }
                    ir::ElementChange::ListRemoveAt => {
                        let t = self.list_element_type(name, a);
                        quote!(#f: ::std::collections::BTreeMap<usize, #t>,)
                    }
                }
            })
            .collect();
        let setters = changes
            .iter()
            .map(|&(a, kind)| self.element_change_setter(entity, a, kind))
            .collect();
        let writes = changes
            .iter()
            .filter_map(|&(a, kind)| {
                let stored = a.stored();
                let f = change(a, kind);
                let setter = self.name(Item::Setter(name, a.name.as_str()));
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
        Parts {
            fields,
            setters,
            writes,
        }
    }

    /// Fields of typed maps set one by one (`SET #m.#f`): of maps whose
    /// struct is generated (a user's own struct for a map has its own
    /// field types).
    fn map_field_parts(&self, entity: &'a ir::Entity) -> Parts {
        let name = entity.name.as_str();
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
        let fields = field_changes
            .iter()
            .map(|&(a, f)| {
                let m = field_change(a, f);
                let t = field_type(a, f);
                if f.optional {
                    quote!(#m: Option<Option<#t>>,)
                } else {
                    quote!(#m: Option<#t>,)
                }
            })
            .collect();
        let setters = field_changes.iter().map(|&(a, f)| {
            let m = field_change(a, f);
            let t = field_type(a, f);
            let (map, field) = (a.name.as_str(), f.name.as_str());
            let also = self.name(Item::Setter(name, map));
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
        }).collect();
        let writes = field_changes
            .iter()
            .map(|&(a, f)| {
                let m = field_change(a, f);
                let setter = self.name(Item::Setter(name, a.name.as_str()));
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
        Parts {
            fields,
            setters,
            writes,
        }
    }

    /// What `or_create()` writes.
    /// It writes what `create` would: every required attribute (a counter
    /// may be added to instead), and the key's own attributes, which an
    /// update otherwise leaves as they are.
    fn or_create(
        &self,
        entity: &'a ir::Entity,
        changeable: &[&'a ir::Attribute],
        key_attributes: &[&'a ir::Attribute],
        changes: &[(&'a ir::Attribute, ir::ElementChange)],
    ) -> TokenStream {
        let name = entity.name.as_str();
        let required = changeable.iter().filter(|a| !a.optional).map(|a| {
            let attribute = a.name.as_str();
            let f = self.name(Item::Setter(name, attribute));
            // A counter added to, a set added to or a list appended to is
            // created by the update.
            let added = changes
                .iter()
                .filter(|(b, _)| b.name == a.name)
                .find_map(|&(b, kind)| {
                    let m = self.name(Item::Change(name, b.name.as_str(), kind));
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
        let key_sets = set_keys.into_iter().map(|a| {
            let stored = a.stored();
            let f = self.name(Item::Field(name, a.name.as_str()));
            let how = self.rule_or_plain(name, a);
            quote!(update.put_value(#stored, &key.#f, #how)?;)
        });
        quote! {
            if self.__options.or_create {
                __rt::ops::creatable(#name, &[#(#required)*])?;
                #(#key_sets)*
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
}

/// The struct fields, setters and writes of one kind of change.
struct Parts {
    fields: Vec<TokenStream>,
    setters: Vec<TokenStream>,
    writes: Vec<TokenStream>,
}

/// Counters and lists whose changes are sent at least once.
fn at_least_once(changes: &[(&ir::Attribute, ir::ElementChange)]) -> Option<TokenStream> {
    let mut names: Vec<&str> = changes
        .iter()
        .filter(|(a, _)| a.at_least_once)
        .map(|(a, _)| a.stored())
        .collect();
    names.dedup();
    (!names.is_empty()).then(|| quote!(update.at_least_once = &[#(#names),*];))
}
