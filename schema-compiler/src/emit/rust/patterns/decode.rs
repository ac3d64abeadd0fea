//! What access patterns read back: item types, projections and their decoders.

use proc_macro2::TokenStream;
use quote::quote;

use super::*;

impl<'a> Emitter<'a> {
    pub(super) fn query_item_type(&self, plan: &PatternPlan<'a>, q: &'a ir::Query) -> TokenStream {
        match q.returns.as_slice() {
            [one] => {
                let ty = plan.read_type(one);
                quote!(#ty)
            }
            _ => {
                let ty = self.name(Item::Collection(plan.pattern.name.as_str()));
                quote!(#ty)
            }
        }
    }

    pub(super) fn query_support(&self, plan: &PatternPlan<'a>, q: &'a ir::Query) -> TokenStream {
        let item = self.query_item_type(plan, q);
        let partials = self.partial_defs(plan);
        let item_enum = self.item_enum_def(plan, &q.returns);
        let decode = self.decoder(plan, &q.returns, &q.matching, &item);
        let request = self.request_fn(plan, q);
        quote! {
            #partials
            #item_enum
            #decode
            #request
        }
    }

    /// The partial types of the entities `plan`'s pattern reads in part.
    pub(super) fn partial_defs(&self, plan: &PatternPlan<'a>) -> TokenStream {
        let pattern = plan.pattern;
        let index = match &pattern.operation {
            Operation::Query(q) => match &q.index {
                IndexRef::Index(i) => Some(i.as_str()),
                IndexRef::Table => None,
            },
            Operation::Get { .. }
            | Operation::Scan(_)
            | Operation::Transaction(_)
            | Operation::TransactGet(_)
            | Operation::Batch(_) => None,
        };
        let what = match (&pattern.select, index) {
            (Some(_), _) => format!("that `{}` selects", pattern.name.as_str()),
            (None, Some(i)) => format!(
                "that index `{i}` carries, as `{}` reads them",
                pattern.name.as_str()
            ),
            (None, None) => format!("that `{}` reads", pattern.name.as_str()),
        };
        plan.partials
            .iter()
            .filter_map(|(entity, ty)| {
                let e = plan.entity(entity);
                let partial = crate::emit::rust::entity::Partial {
                    ty: ty.clone(),
                    attributes: pattern.partials.get(*entity)?,
                    index,
                };
                Some(self.emit_partial(e, &partial, &what))
            })
            .collect()
    }

    /// The stored attributes a pattern with `select` asks for
    /// (ProjectionExpression), as a static slice; `None` (every attribute)
    /// without `select`. Besides those selected: the whole of each entity
    /// read whole, the keys of the table and of `index` (they place the
    /// item and prove its tenant), the entity-type attribute and the TTL.
    pub(super) fn projection(
        &self,
        plan: &PatternPlan<'a>,
        index: Option<&str>,
    ) -> Option<TokenStream> {
        plan.pattern.select.as_ref()?;
        let table = &self.spec.table;
        let mut names: Vec<&'a str> = Vec::new();
        let push = |n: &'a str, names: &mut Vec<&'a str>| {
            if !names.contains(&n) {
                names.push(n);
            }
        };
        let index = index.and_then(|i| self.spec.indexes.get(i));
        for k in [
            Some(&table.partition_key),
            table.sort_key.as_ref(),
            index.map(|i| &i.partition_key),
            index.and_then(|i| i.sort_key.as_ref()),
        ]
        .into_iter()
        .flatten()
        {
            push(k.name.as_str(), &mut names);
        }
        for a in table.entity_type.attribute().into_iter().chain(&table.ttl) {
            push(a.as_str(), &mut names);
        }
        for (name, e) in &plan.entities {
            let whole = !plan.partials.contains_key(name);
            let partial = plan.pattern.partials.get(*name);
            for a in e.attributes.values() {
                let read = whole || partial.is_some_and(|p| p.contains(&a.name.value));
                if read && !a.key_only {
                    push(a.stored(), &mut names);
                }
            }
        }
        Some(quote!(&[#(#names),*]))
    }

    pub(super) fn item_enum_def(
        &self,
        plan: &PatternPlan<'a>,
        returns: &'a [String],
    ) -> TokenStream {
        if returns.len() < 2 {
            return TokenStream::new();
        }
        let p = plan.pattern.name.as_str();
        let ty = self.name(Item::Collection(p));
        let variants = returns
            .iter()
            .map(|e| self.name(Item::CollectionVariant(p, e)));
        let payloads = returns.iter().map(|e| plan.read_type(e));
        let doc = format!(" An item returned by `{}`.", plan.pattern.name.as_str());
        let variant_docs = returns.iter().map(|e| match plan.partials.get(e.as_str()) {
            Some(p) => format!(" Attributes of a [`{e}`] ([`{p}`])."),
            None => format!(" A [`{e}`]."),
        });
        let type_attrs = self.data_type_attributes(&ty.to_string(), true);
        quote! {
            #[doc = #doc]
            #[derive(Debug, Clone, PartialEq)]
            #type_attrs
            pub enum #ty {
                #( #[doc = #variant_docs] #variants(#payloads), )*
            }
        }
    }

    pub(super) fn decoder(
        &self,
        plan: &PatternPlan<'a>,
        returns: &'a [String],
        matching: &'a [String],
        item: &TokenStream,
    ) -> TokenStream {
        let pattern = plan.pattern;
        let name = self.private_fn(Private::Decode(pattern.name.to_string()));
        let pattern_name = pattern.name.as_str();
        let index = crate::emit::rust::option_str(Self::read_index(pattern));
        let collection = returns.len() > 1;
        // Every item is checked to have the keys of the entity it says it
        // is (`decode_claimed`), whoever wrote it.
        let decode = |e: &String| {
            let ty = plan.read_type(e);
            let read = if plan.partials.contains_key(e.as_str()) {
                quote!(__rt::decode_partial_claimed::<#ty>(item, #pattern_name, #index))
            } else {
                quote!(__rt::decode_claimed::<#ty>(item, #pattern_name, #index))
            };
            if collection {
                let en = self.name(Item::Collection(pattern.name.as_str()));
                let variant = self.name(Item::CollectionVariant(pattern.name.as_str(), e));
                quote!(#read.map(|v| v.map(#en::#variant)))
            } else {
                read
            }
        };
        let skipped: Vec<&String> = matching.iter().filter(|m| !returns.contains(m)).collect();
        if let ([only], []) = (returns, skipped.as_slice()) {
            let ty = plan.read_type(only);
            let decode_as = if plan.partials.contains_key(only.as_str()) {
                quote!(decode_partial_as)
            } else {
                quote!(decode_as)
            };
            return quote! {
                fn #name(item: &__rt::Item) -> __rt::Decoded<#item> {
                    __rt::#decode_as::<#ty>(item, #pattern_name, #index)
                }
            };
        }
        let Some(eta) = self.spec.table.entity_type.attribute().map(|a| a.as_str()) else {
            // The table tells entities by their keys: at most one entity's
            // key shape matches (`key_collision` proves it).
            let arms = returns.iter().map(|e| {
                let ty = plan.entity_type(e);
                let decode = decode(e);
                quote!(if <#ty as __rt::Entity>::IDENTITY.matches(item) { return #decode; })
            });
            let skips = skipped.iter().map(|e| {
                let ty = plan.entity_type(e);
                quote!(if <#ty as __rt::Entity>::IDENTITY.matches(item) { return Ok(None); })
            });
            let pk = self.spec.table.partition_key.name.as_str();
            return quote! {
                fn #name(item: &__rt::Item) -> __rt::Decoded<#item> {
                    #(#arms)*
                    #(#skips)*
                    Err(__rt::DecodeError::new(#pattern_name, #pk, __rt::DecodeProblem::NotOfEntity(None)))
                }
            };
        };
        let arms = returns.iter().map(|e| {
            let value = self.spec.table.entity_type.value_of(e);
            let decode = decode(e);
            quote!(#value => #decode,)
        });
        let skipped = skipped
            .iter()
            .map(|e| self.spec.table.entity_type.value_of(e));
        let skip = (!matching.iter().all(|m| returns.contains(m)))
            .then(|| quote!(#(#skipped)|* => Ok(None),));
        quote! {
            fn #name(item: &__rt::Item) -> __rt::Decoded<#item> {
                match __rt::entity_type(item, #eta, #pattern_name)? {
                    #(#arms)*
                    #skip
                    other => Err(__rt::DecodeError::new(
                        #pattern_name,
                        #eta,
                        __rt::DecodeProblem::UnknownEntityType(other.to_owned()),
                    )),
                }
            }
        }
    }
}
