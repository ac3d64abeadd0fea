//! Per entity: named write conditions and the partial read type.

use proc_macro2::TokenStream;
use quote::quote;

use super::*;

impl<'a> Emitter<'a> {
    /// The constructor of a condition the spec names on `entity`
    /// (`Ticket::open()`, `Product::in_stock(quantity)`).
    pub(super) fn named_condition(
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
        for c in ir::Filter::conditions(&named.conditions) {
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
        }
        let body = chain(&named.conditions, &quote!(and), &context, &param);
        let text = crate::plan::conditions_text(&named.conditions).unwrap_or_default();
        let d = format!(
            " The spec's write condition `{}` of a stored [`{name}`]: `{text}`. Pass it to an update's `when` or to `delete_…_when`.",
            named.name.as_str()
        );
        // A condition the spec named `new` returns a condition, not the
        // entity, as Clippy expects of a `new` in the user's crate.
        let allow = (f == "new").then(|| quote!(#[allow(clippy::new_ret_no_self)]));
        quote! {
            #[doc = #d]
            #allow
            pub fn #f(#(#params),*) -> __rt::Condition {
                #body
            }
        }
    }

    /// A partial type of `entity` ([`ir::AccessPattern::partials`]): the
    /// struct of its attributes and its `impl Partial`.
    pub(in crate::emit::rust) fn emit_partial(
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
}
/// A partial type of an entity: its name, the attributes it holds (spec
/// names) and the index it is read through.
#[derive(Debug, Clone)]
pub(in crate::emit::rust) struct Partial<'p> {
    /// The struct.
    pub ty: proc_macro2::Ident,
    /// Its attributes.
    pub attributes: &'p [String],
    /// The index read, whose keys may hold some of them.
    pub index: Option<&'p str>,
}

/// A term of a named condition as a `Condition` expression: a condition
/// through `Condition::of` (`of_size` on a size), `AND` and `OR` chained,
/// `NOT` as `!`.
fn condition_term<'s>(
    term: &'s ir::Filter,
    context: &str,
    param: &dyn Fn(&'s str) -> proc_macro2::Ident,
) -> TokenStream {
    match term {
        ir::Filter::Condition(c) => {
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
                ir::FilterOp::AttributeType => "attribute_type",
            };
            let values =
                c.operands.iter().map(|o| {
                    match super::super::patterns::operand_value_of(context, c, o, param) {
                        (value, true) => value,
                        (value, false) => quote!(Ok(#value)),
                    }
                });
            let stored = c.stored.as_str();
            let of = if c.size { quote!(of_size) } else { quote!(of) };
            quote!(__rt::Condition::#of(#kind, #stored, vec![#(#values),*]))
        }
        ir::Filter::And(terms) | ir::Filter::Or(terms) => {
            let join = if matches!(term, ir::Filter::Or(_)) {
                quote!(or)
            } else {
                quote!(and)
            };
            chain(terms, &join, context, param)
        }
        ir::Filter::Not(inner) => {
            let inner = condition_term(inner, context, param);
            quote!(!#inner)
        }
    }
}

/// Terms chained by `and` or `or` (`join`): the first the receiver, in
/// parentheses when it is a `NOT` (`!` binds looser than a method call).
fn chain<'s>(
    terms: &'s [ir::Filter],
    join: &TokenStream,
    context: &str,
    param: &dyn Fn(&'s str) -> proc_macro2::Ident,
) -> TokenStream {
    let mut parts = terms.iter().map(|t| {
        let tokens = condition_term(t, context, param);
        (matches!(t, ir::Filter::Not(_)), tokens)
    });
    let first = match parts.next() {
        Some((true, tokens)) => quote!((#tokens)),
        Some((false, tokens)) => tokens,
        None => quote!(__rt::Condition::item_exists()),
    };
    let rest = parts.map(|(_, tokens)| tokens);
    quote!(#first #(.#join(#rest))*)
}
