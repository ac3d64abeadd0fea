//! Per entity: the index keys a partial update recomputes, removes or leaves alone.

use proc_macro2::TokenStream;
use quote::quote;

use super::*;

impl<'a> Emitter<'a> {
    /// The update of a multi-attribute index key's attribute `t` built from
    /// the primary key alone, whose key also has the optional attributes
    /// `guard`: removed when the update removes one of them, written when it
    /// sets one, left alone otherwise (the item is in the index only while
    /// it has every key attribute).
    fn guarded_key_update(
        &self,
        entity: &'a ir::Entity,
        index: &str,
        t: &'a ir::KeyTemplate,
        guard: &[&'a ir::Attribute],
    ) -> TokenStream {
        let name = entity.name.as_str();
        let attribute = t.attribute.as_str();
        let setters: Vec<proc_macro2::Ident> = guard
            .iter()
            .map(|a| self.name(Item::Setter(name, a.name.as_str())))
            .collect();
        let key_type = self.spec.key_type(Some(index), attribute);
        let value = self.key_value(t, key_type, name, &|p| {
            self.entity_input(entity, Receiver { name: "key" }, p)
        });
        quote! {
            if #(matches!(self.#setters, Some(None)))||* {
                update.remove.push(#attribute);
            } else if #(matches!(self.#setters, Some(Some(_))))||* {
                update.key(#attribute, #value);
            }
        }
    }

    pub(super) fn index_key_updates(
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
        for (index, t) in entity
            .computed_attributes()
            .into_iter()
            .filter(|(_, t)| !table_key(&t.attribute))
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
            // A multi-attribute key's attribute built from the primary
            // key alone goes with the key's optional attributes: set
            // when one of them is set, removed when one is removed.
            let guard = super::item::whole_key_guard(entity, index, t);
            if mentioned.is_empty() && !guard.is_empty() {
                out.push(self.guarded_key_update(entity, index, t, &guard));
                continue;
            }
            if let Some(flag) = entity
                .index_keys
                .get(index)
                .and_then(|k| k.when.as_deref())
                .and_then(|f| entity.attributes.get(f))
            {
                out.push(self.member_key_update(entity, index, t, &mentioned, flag, label));
                label += 1;
                continue;
            }
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
            let binds = self.input_binds(entity, attribute, &mentioned, &label_name, &missing);
            let value = self.updated_key_value(entity, index, t, &mentioned);
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
        out
    }
}

impl<'a> Emitter<'a> {
    /// `let __v_x = …;` for each attribute of a key the update recomputes:
    /// its new value; a missing one returns `missing`, a removed optional
    /// one removes the key attribute `attribute` and leaves `label`.
    fn input_binds(
        &self,
        entity: &'a ir::Entity,
        attribute: &str,
        mentioned: &[&'a ir::Attribute],
        label: &syn::Lifetime,
        missing: &TokenStream,
    ) -> Vec<TokenStream> {
        let name = entity.name.as_str();
        mentioned
            .iter()
            .map(|a| {
                let f = self.name(Item::Setter(name, a.name.as_str()));
                let v = self.optional_value(entity, a);
                let copy = Self::is_copy(&a.r#type);
                match (a.optional, copy) {
                    (false, true) => {
                        quote!(let #v = match self.#f { Some(v) => v, None => #missing };)
                    }
                    (false, false) => {
                        quote!(let #v = match &self.#f { Some(v) => v.as_str(), None => #missing };)
                    }
                    (true, copy) => {
                        let get = if copy { quote!(*v) } else { quote!(v.as_str()) };
                        quote!(let #v = match &self.#f {
                            Some(Some(v)) => #get,
                            Some(None) => {
                                update.remove.push(#attribute);
                                break #label;
                            }
                            None => #missing,
                        };)
                    }
                }
            })
            .collect()
    }

    /// The value of an index key attribute the update recomputes, from the
    /// bound values of `mentioned` ([`Emitter::input_binds`]) and the key.
    fn updated_key_value(
        &self,
        entity: &'a ir::Entity,
        index: &str,
        t: &'a ir::KeyTemplate,
        mentioned: &[&'a ir::Attribute],
    ) -> TokenStream {
        let name = entity.name.as_str();
        let key_type = self.spec.key_type(Some(index), t.attribute.as_str());
        self.key_value(t, key_type, name, &|p| match mentioned
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
        })
    }

    /// The key attribute of an index the entity is in while `flag` is true:
    /// written when the update sets the flag true (from every input of the
    /// key, `IncompleteUpdate` without one), removed when it sets it false
    /// (or removes it), left alone when the update touches neither; an
    /// input set without the flag is `IncompleteUpdate` too, since whether
    /// the item is in the index is not known without it.
    fn member_key_update(
        &self,
        entity: &'a ir::Entity,
        index: &str,
        t: &'a ir::KeyTemplate,
        mentioned: &[&'a ir::Attribute],
        flag: &'a ir::Attribute,
        label: usize,
    ) -> TokenStream {
        let name = entity.name.as_str();
        let attribute = t.attribute.as_str();
        let label = syn::Lifetime::new(&format!("'key{label}"), proc_macro2::Span::call_site());
        let all = mentioned
            .iter()
            .map(|a| a.name.as_str())
            .chain([flag.name.as_str()]);
        let missing = quote!(return Err(__rt::Error::IncompleteUpdate {
            entity: #name,
            key_attribute: #attribute,
            missing: vec![#(#all),*],
        }));
        let f = self.name(Item::Setter(name, flag.name.as_str()));
        let (member, not_member) = if flag.optional {
            (quote!(Some(Some(true))), quote!(Some(Some(false) | None)))
        } else {
            (quote!(Some(true)), quote!(Some(false)))
        };
        let inputs: Vec<TokenStream> = mentioned
            .iter()
            .map(|a| {
                let f = self.name(Item::Setter(name, a.name.as_str()));
                quote!(self.#f.is_some())
            })
            .collect();
        let unknown = if inputs.is_empty() {
            quote!(break #label)
        } else {
            quote!({
                if #(#inputs)||* {
                    #missing;
                }
                break #label;
            })
        };
        let binds = self.input_binds(entity, attribute, mentioned, &label, &missing);
        let value = self.updated_key_value(entity, index, t, mentioned);
        quote! {
            #label: {
                match self.#f {
                    #member => {}
                    #not_member => {
                        update.remove.push(#attribute);
                        break #label;
                    }
                    None => #unknown,
                }
                #(#binds)*
                update.key(#attribute, #value);
            }
        }
    }
}
