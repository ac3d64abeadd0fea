//! Per entity: the item codec, `to_item` and `from_item`, index keys included.

use proc_macro2::TokenStream;
use quote::quote;

use super::*;

impl<'a> Emitter<'a> {
    pub(super) fn to_item_body(&self, entity: &'a ir::Entity) -> TokenStream {
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
            entity.attributes.len() + 1 + entity.index_keys.len() * 2 + entity.derived.len(),
        );
        let index_keys: Vec<TokenStream> = entity
            .computed_attributes()
            .into_iter()
            .map(|(index, t)| {
                let extra = whole_key_guard(entity, index, t);
                let insert = self.index_key_insert(entity, index, t, &extra);
                // In an index while a boolean is true: keys only then.
                match entity
                    .index_keys
                    .get(index)
                    .and_then(|k| k.when.as_deref())
                    .and_then(|f| entity.attributes.get(f))
                {
                    Some(flag) => {
                        let f = self.field_ident(entity, flag);
                        if flag.optional {
                            quote!(if self.#f == Some(true) { #insert })
                        } else {
                            quote!(if self.#f { #insert })
                        }
                    }
                    None => insert,
                }
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
        let body = quote! {
            #shard
            let #writer = __rt::ItemWriter::new(#key?, #name, #capacity);
            #marker
            #(#counted)*
            #(#attributes)*
            #(#index_keys)*
            Ok(w.finish())
        };
        let tenant = tenant_binding(&body);
        quote!(#tenant #body)
    }

    /// Inserts an index key attribute when every placeholder in it is present.
    /// `extra`: optional attributes of the index key's other attributes,
    /// whose presence also guards the insert (a multi-attribute key is
    /// written whole or not at all).
    fn index_key_insert(
        &self,
        entity: &'a ir::Entity,
        index: &str,
        t: &'a ir::KeyTemplate,
        extra: &[&'a ir::Attribute],
    ) -> TokenStream {
        let name = entity.name.as_str();
        let attribute = t.attribute.as_str();
        let key_type = self.spec.key_type(Some(index), attribute);
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
        let unused: Vec<&ir::Attribute> = extra
            .iter()
            .copied()
            .filter(|a| !bound.iter().any(|b| b.name == a.name))
            .collect();
        let (patterns, values): (Vec<TokenStream>, Vec<TokenStream>) = bound
            .iter()
            .map(|a| (a, true))
            .chain(unused.iter().map(|a| (a, false)))
            .map(|(a, used)| {
                let f = self.field_ident(entity, a);
                let v = if used {
                    let v = self.optional_value(entity, a);
                    quote!(#v)
                } else {
                    quote!(_)
                };
                let access = if Self::is_copy(&a.r#type) {
                    quote!(self.#f)
                } else {
                    quote!(self.#f.as_deref())
                };
                (quote!(Some(#v)), access)
            })
            .unzip();
        if bound.is_empty() && !unused.is_empty() {
            // Only presence matters: no value is bound.
            let present = unused.iter().map(|a| {
                let f = self.field_ident(entity, a);
                quote!(self.#f.is_some())
            });
            return quote!(if #(#present)&&* { #insert });
        }
        match (patterns.as_slice(), values.as_slice()) {
            ([], []) => insert,
            ([pattern], [value]) => quote!(if let #pattern = #value { #insert }),
            _ => quote!(if let (#(#patterns,)*) = (#(#values,)*) { #insert }),
        }
    }

    /// The local holding the value of an optional attribute while an index
    /// key is built from it: `__v_` and the attribute's field name, so two
    /// attributes never share one.
    pub(super) fn optional_value(
        &self,
        entity: &'a ir::Entity,
        attribute: &'a ir::Attribute,
    ) -> proc_macro2::Ident {
        let field = self
            .names
            .name(Item::Field(entity.name.as_str(), attribute.name.as_str()));
        format_ident!("__v_{}", field.trim_start_matches("r#"))
    }

    pub(super) fn decode_body(&self, entity: &'a ir::Entity) -> TokenStream {
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
                    // keys; a number key holds the value itself; a key in
                    // one letter case has lost the value's.
                    if holds
                        && a.case.is_none()
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
        let shard = entity
            .random_shard()
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

    /// `(attribute, KeyShape)` of each template of `key`, on the table or
    /// `index`: the language `check` reasons about, as the runtime matches
    /// stored keys against it.
    pub(super) fn key_shapes(
        &self,
        entity: &'a ir::Entity,
        index: Option<&str>,
        key: &'a ir::EntityKey,
    ) -> Vec<TokenStream> {
        key.templates()
            .map(|t| {
                let attribute = t.attribute.as_str();
                let shape = match self.spec.key_type(index, attribute) {
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
    pub(super) fn index_key_shapes(&self, entity: &'a ir::Entity) -> Option<TokenStream> {
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
}
/// The optional attributes of a multi-attribute index key's templates that
/// guard the write of its computed attribute `t`: an item without one is in
/// no partition of the index, and gets none of its key attributes. Empty
/// for a one-attribute key, and for an attribute another index key also
/// writes (it is written whenever either needs it).
pub(super) fn whole_key_guard<'e>(
    entity: &'e ir::Entity,
    index: &str,
    t: &ir::KeyTemplate,
) -> Vec<&'e ir::Attribute> {
    let Some(key) = entity.index_keys.get(index) else {
        return Vec::new();
    };
    let shared = entity
        .index_keys
        .iter()
        .filter(|(other, _)| other.as_str() != index)
        .flat_map(|(_, k)| k.templates())
        .any(|other| other.attribute == t.attribute);
    if key.more_pk.is_empty() && key.more_sk.is_empty() || shared {
        return Vec::new();
    }
    let mut out: Vec<&ir::Attribute> = Vec::new();
    for p in key.templates().flat_map(|t| t.placeholders()) {
        if let Some(a) = entity.attributes.get(p.name.as_str()) {
            if p.kind == PlaceholderKind::Attribute
                && a.optional
                && !out.iter().any(|o| o.name == a.name)
            {
                out.push(a);
            }
        }
    }
    out
}

/// `r.required("title")?`: reading an attribute no key holds through the
/// `Fields` reader `r`.
pub(in crate::emit::rust) fn field_read(
    attribute: &ir::Attribute,
    rule: Option<TokenStream>,
) -> TokenStream {
    let name = attribute.stored();
    if let Some(default) = &attribute.default {
        // An item written before the attribute was added reads the default.
        let value = super::super::types::literal_av(default);
        return if super::super::types::checks_on_read(&attribute.r#type) {
            quote!(r.checked_or(#name, #rule, #value)?)
        } else {
            quote!(r.required_or(#name, #value)?)
        };
    }
    match (&attribute.r#type, attribute.optional) {
        (ir::AttributeType::Datetime { format, precision }, optional) => {
            let format = super::super::types::time_format(*format, *precision);
            if optional {
                quote!(r.time_opt(#name, #format)?)
            } else {
                quote!(r.time(#name, #format)?)
            }
        }
        (ty, optional) if super::super::types::checks_on_read(ty) => {
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
    let mut i = 0;
    while i < tokens.len() {
        let token = &tokens[i];
        i += 1;
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
                // A run of one-character positions of one class (the
                // digits of a datetime) is one `Repeat`.
                let run = 1 + tokens[i..]
                    .iter()
                    .take_while(|t| matches!(t, Tok::One(s) if s == set))
                    .count();
                i += run - 1;
                let r = ranges(set);
                if run == 1 {
                    quote!(__rt::Shape::One(#r))
                } else {
                    let n = proc_macro2::Literal::usize_unsuffixed(run);
                    quote!(__rt::Shape::Repeat(#n, #r))
                }
            }
            Tok::Char(_) => continue,
        });
    }
    if !literal.is_empty() {
        out.push(quote!(__rt::Shape::Lit(#literal)));
    }
    out
}

/// `let __tenant = scope;` where `body` reads the tenant under that name
/// (index keys of a tenant-scoped entity), else nothing.
pub(super) fn tenant_binding(body: &TokenStream) -> Option<TokenStream> {
    reads_local(body, "__tenant").then(|| quote!(let __tenant = scope;))
}

/// Whether `tokens` read the local variable `name`: the identifier, not
/// as a field or method (after `.`) or a path segment (after `::`), so that
/// `update.key(..)` or an attribute named `scope` does not count.
pub(super) fn reads_local(tokens: &TokenStream, name: &str) -> bool {
    let mut after_path = false;
    tokens.clone().into_iter().any(|t| {
        let found = match &t {
            proc_macro2::TokenTree::Ident(i) => !after_path && i == name,
            proc_macro2::TokenTree::Group(g) => reads_local(&g.stream(), name),
            proc_macro2::TokenTree::Punct(_) | proc_macro2::TokenTree::Literal(_) => false,
        };
        after_path =
            matches!(&t, proc_macro2::TokenTree::Punct(p) if matches!(p.as_char(), '.' | ':'));
        found
    })
}
