//! An entity's input type (`NewTicket`): the item as a caller gives it, a
//! request body for one, without the attributes the repository sets.

use proc_macro2::TokenStream;
use quote::quote;

use super::{field_doc, timestamp_now, Emitter};
use crate::ir;
use crate::names::{EntityOp, Item};

impl<'a> Emitter<'a> {
    /// The input type of an entity the repository sets attributes of
    /// (timestamps, a version, a random write shard), and its conversion
    /// into the entity. Nothing for an entity without one, or an extern
    /// entity (the crate's own type is its input).
    pub(super) fn input_type(&self, entity: &'a ir::Entity) -> Option<TokenStream> {
        let name = entity.name.as_str();
        if !entity.has_input_type() || self.extern_path(name).is_some() {
            return None;
        }
        let ty = self.name(Item::Entity(name));
        let input = self.name(Item::Input(name));
        let input_name = input.to_string();
        let set: Vec<&ir::Attribute> = entity.set_by_repository().collect();
        let is_set = |a: &ir::Attribute| set.iter().any(|s| s.name == a.name);
        let mut fields = Vec::new();
        let mut inits = Vec::new();
        if let Some(count) = entity.random_shard() {
            let shard = self.name(Item::ShardField(name));
            inits.push(quote!(#shard: __rt::codec::random_shard(#count),));
        }
        for a in entity.attributes.values() {
            let f = self.name(Item::Field(name, a.name.as_str()));
            if is_set(a) {
                let value = timestamp_now(a).or_else(|| initial_version(a));
                inits.push(quote!(#f: #value,));
                continue;
            }
            let t = self.value_type(name, a);
            let d = field_doc(entity, a);
            // An attribute with a `default` may be left out: it takes it.
            let default = a.default.as_ref().and_then(|l| typed_literal(&t, a, l));
            let attrs = self.data_field_attributes(
                &input_name,
                a.name.as_str(),
                a.stored(),
                &a.r#type,
                a.optional || default.is_some(),
            );
            fields.push(if a.optional || default.is_some() {
                quote!(#d #attrs pub #f: Option<#t>,)
            } else {
                quote!(#d #attrs pub #f: #t,)
            });
            inits.push(match default {
                // A value built at run time only when it is needed.
                Some(value)
                    if matches!(
                        a.r#type,
                        ir::AttributeType::String { .. } | ir::AttributeType::Decimal { .. }
                    ) =>
                {
                    quote!(#f: input.#f.unwrap_or_else(|| #value),)
                }
                Some(value) => quote!(#f: input.#f.unwrap_or(#value),),
                None => quote!(#f: input.#f,),
            });
        }
        let create = self
            .name(Item::EntityOp(name, EntityOp::Create))
            .to_string();
        let doc = input_doc(entity, &set, &create);
        let from_doc = format!(
            " The [`{name}`] to write: the caller's attributes, with what the repository sets filled in."
        );
        let type_attrs = self.data_type_attributes(&input_name, false);
        let deny = self
            .options
            .serde
            .then(|| quote!(#[serde(deny_unknown_fields)]));
        let stamp = set
            .iter()
            .any(|a| a.timestamp.is_some())
            .then(|| quote!(let now = __rt::DateTime::from(::std::time::SystemTime::now());));
        Some(quote! {
            #(#[doc = #doc])*
            #[derive(Debug, Clone, PartialEq)]
            #type_attrs
            #deny
            pub struct #input {
                #(#fields)*
            }

            impl From<#input> for #ty {
                #[doc = #from_doc]
                fn from(input: #input) -> Self {
                    #stamp
                    #ty { #(#inits)* }
                }
            }
        })
    }
}

/// The default `literal` of attribute `a` as a Rust value of its type `t`
/// (`check` proved it one: `invalid_literal` otherwise).
fn typed_literal(
    t: &TokenStream,
    a: &ir::Attribute,
    literal: &ir::FilterLiteral,
) -> Option<TokenStream> {
    Some(match (&a.r#type, literal) {
        (ir::AttributeType::Integer { .. }, ir::FilterLiteral::N(n)) => {
            let n = proc_macro2::Literal::i64_unsuffixed(n.parse().ok()?);
            quote!(#n)
        }
        (ir::AttributeType::Decimal { .. }, ir::FilterLiteral::N(n)) => {
            // The fallback is never taken: the literal is a decimal.
            quote!(#n.parse::<__rt::Decimal>().unwrap_or_else(|_| __rt::Decimal::from(0)))
        }
        (ir::AttributeType::Boolean, ir::FilterLiteral::Bool(b)) => quote!(#b),
        (ir::AttributeType::String { .. }, ir::FilterLiteral::S(text)) => {
            quote!(::std::string::String::from(#text))
        }
        (ir::AttributeType::Enum { values }, ir::FilterLiteral::S(text)) => {
            let i = values.iter().position(|v| v == text)?;
            quote!(#t::ALL[#i])
        }
        _ => return None,
    })
}

/// The version a new item starts at: 0, or the nearest value the
/// attribute's bounds allow.
fn initial_version(a: &ir::Attribute) -> Option<TokenStream> {
    let ir::AttributeType::Integer { min, max } = &a.r#type else {
        return None;
    };
    let start = proc_macro2::Literal::i64_unsuffixed(first_version(*min, *max));
    Some(quote!(#start))
}

/// The version a new item starts at, within the attribute's bounds `min..=max`.
fn first_version(min: i64, max: i64) -> i64 {
    0i64.max(min).min(max)
}

/// The input type's doc lines: what it leaves out and who sets it.
fn input_doc(entity: &ir::Entity, set: &[&ir::Attribute], create: &str) -> Vec<String> {
    let name = entity.name.as_str();
    let article = match ir::article(name) {
        "an" => "An",
        _ => "A",
    };
    let mut left_out: Vec<String> = set
        .iter()
        .map(|a| match (a.timestamp, &a.r#type) {
            (Some(_), _) => format!("`{}` (the time of the write)", a.name.as_str()),
            (None, ir::AttributeType::Integer { min, max }) => format!(
                "`{}` (the version, which starts at {})",
                a.name.as_str(),
                first_version(*min, *max)
            ),
            (None, _) => format!("`{}`", a.name.as_str()),
        })
        .collect();
    if entity.random_shard().is_some() {
        left_out.push("the write shard (drawn at random)".to_owned());
    }
    let defaults: Vec<String> = entity
        .attributes
        .values()
        .filter(|a| a.default.is_some() && !a.optional && !set.iter().any(|s| s.name == a.name))
        .map(|a| format!("`{}`", a.name.as_str()))
        .collect();
    let defaults = match defaults.is_empty() {
        true => String::new(),
        false => format!(
            " An attribute with a default ({}) may be left out (`None`) and takes it.",
            defaults.join(", ")
        ),
    };
    vec![
        format!(
            " {article} [`{name}`] as a caller gives it (a request body, say): every attribute but those the repository sets: {}.{defaults}",
            left_out.join(", ")
        ),
        String::new(),
        format!(
            " `{name}::from(input)` makes the item to write: `repo.{create}(&input.into())`. With serde, a field the repository sets is refused (`deny_unknown_fields`), never silently dropped."
        ),
    ]
}
