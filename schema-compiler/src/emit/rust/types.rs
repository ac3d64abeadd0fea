//! Rust types of attributes, and the enums of enum attributes.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::names::{pascal, pascal_ident};
use super::Emitter;
use crate::ir::{self, AttributeType, DatetimeFormat, TimePrecision};

/// The [`schema_runtime::TimeFormat`] tokens of a datetime type.
pub fn time_format(format: DatetimeFormat, precision: TimePrecision) -> TokenStream {
    match format {
        DatetimeFormat::Rfc3339 => {
            let digits: u8 = match precision {
                TimePrecision::Seconds => 0,
                TimePrecision::Millis => 3,
                TimePrecision::Micros => 6,
                TimePrecision::Nanos => 9,
            };
            quote!(::schema_runtime::TimeFormat::Rfc3339(#digits))
        }
        DatetimeFormat::EpochSeconds => quote!(::schema_runtime::TimeFormat::EpochSeconds),
        DatetimeFormat::EpochMillis => quote!(::schema_runtime::TimeFormat::EpochMillis),
    }
}

impl Emitter<'_> {
    /// The Rust type of an attribute's value (without `Option`).
    pub(super) fn value_type(&self, entity: &str, attribute: &ir::Attribute) -> TokenStream {
        if let Some((_, ty)) = self
            .binding
            .as_ref()
            .and_then(|b| b.fields.get(attribute.name.as_str()))
        {
            return ty.clone();
        }
        self.type_of(entity, attribute.name.as_str(), &attribute.r#type)
    }

    fn type_of(&self, entity: &str, attribute: &str, ty: &AttributeType) -> TokenStream {
        match ty {
            AttributeType::String { .. } => quote!(::std::string::String),
            AttributeType::Integer { .. } => quote!(i64),
            AttributeType::Decimal { .. } => quote!(::schema_runtime::Decimal),
            AttributeType::Boolean => quote!(bool),
            AttributeType::Datetime { .. } => quote!(::schema_runtime::DateTime),
            AttributeType::Enum { .. } => {
                let name = self
                    .enums
                    .get(&(entity.to_owned(), attribute.to_owned()))
                    .expect("invariant: enum_names covers every enum attribute");
                let name = format_ident!("{name}");
                quote!(#name)
            }
            AttributeType::List { items, .. } => match items {
                Some(items) if !matches!(**items, AttributeType::Enum { .. }) => {
                    let inner = self.type_of(entity, attribute, items);
                    quote!(::std::vec::Vec<#inner>)
                }
                _ => quote!(::std::vec::Vec<::schema_runtime::sdk::types::AttributeValue>),
            },
            AttributeType::Map => quote!(::schema_runtime::Item),
            AttributeType::Binary { .. } => quote!(::schema_runtime::Blob),
        }
    }

    /// Whether values of the type are `Copy` (passed by value).
    pub(super) fn is_copy(ty: &AttributeType) -> bool {
        matches!(
            ty,
            AttributeType::Integer { .. }
                | AttributeType::Boolean
                | AttributeType::Datetime { .. }
                | AttributeType::Enum { .. }
        )
    }

    /// An expression turning `value` (a reference to the attribute's value)
    /// into an `AttributeValue`; fallible ones end in `?`.
    pub(super) fn to_av(
        &self,
        entity: &str,
        attribute: &ir::Attribute,
        value: TokenStream,
    ) -> TokenStream {
        let name = attribute.name.as_str();
        match &attribute.r#type {
            AttributeType::Datetime { format, precision } => {
                let format = time_format(*format, *precision);
                quote!(::schema_runtime::codec::datetime_to_av(*#value, #format, #entity, #name)?)
            }
            AttributeType::String {
                min_length,
                max_length,
                ..
            } if min_length.is_some() || max_length.is_some() => {
                let min = min_length.unwrap_or(0) as usize;
                let max = super::option_usize(max_length.map(|m| m as usize));
                quote!({
                    ::schema_runtime::codec::check_length(#value, #min, #max, #entity, #name)?;
                    ::schema_runtime::Attr::to_av(#value)
                })
            }
            AttributeType::String { .. }
            | AttributeType::Integer { .. }
            | AttributeType::Decimal { .. }
            | AttributeType::Boolean
            | AttributeType::Enum { .. }
            | AttributeType::List { .. }
            | AttributeType::Map
            | AttributeType::Binary { .. } => quote!(::schema_runtime::Attr::to_av(#value)),
        }
    }

    /// An expression reading the attribute from `item`, `?`-propagating a `DecodeError`.
    pub(super) fn read_attribute_expr(
        &self,
        entity: &str,
        attribute: &ir::Attribute,
    ) -> TokenStream {
        let name = attribute.name.as_str();
        match &attribute.r#type {
            AttributeType::Datetime { format, precision } => {
                let format = time_format(*format, *precision);
                let read = if attribute.optional {
                    quote!(::schema_runtime::optional_with)
                } else {
                    quote!(::schema_runtime::required_with)
                };
                quote!(#read(item, #entity, #name, |av| ::schema_runtime::codec::datetime_from_av(av, #format))?)
            }
            AttributeType::String { .. }
            | AttributeType::Integer { .. }
            | AttributeType::Decimal { .. }
            | AttributeType::Boolean
            | AttributeType::Enum { .. }
            | AttributeType::List { .. }
            | AttributeType::Map
            | AttributeType::Binary { .. } => {
                let ty = self.value_type(entity, attribute);
                if attribute.optional {
                    quote!(::schema_runtime::optional::<#ty>(item, #entity, #name)?)
                } else {
                    quote!(::schema_runtime::required::<#ty>(item, #entity, #name)?)
                }
            }
        }
    }

    /// One Rust enum per enum attribute name (see [`enum_names`]).
    pub(super) fn emit_enums(&self) -> TokenStream {
        let mut seen = Vec::new();
        let mut out = TokenStream::new();
        for entity in self.spec.entities.values() {
            for attribute in entity.attributes.values() {
                let AttributeType::Enum { values } = &attribute.r#type else {
                    continue;
                };
                let name = &self.enums[&(entity.name.to_string(), attribute.name.to_string())];
                if seen.contains(name) {
                    continue;
                }
                seen.push(name.clone());
                out.extend(emit_enum(name, values, attribute.description.as_deref()));
            }
        }
        out
    }
}

fn variant_names(values: &[String]) -> Vec<proc_macro2::Ident> {
    let mut names: indexmap::IndexSet<String> = indexmap::IndexSet::with_capacity(values.len());
    for value in values {
        let mut name = pascal(value);
        let base = name.clone();
        let mut n = 2;
        while names.contains(&name) {
            name = format!("{base}{n}");
            n += 1;
        }
        names.insert(name);
    }
    names.iter().map(|n| pascal_ident(n)).collect()
}

fn emit_enum(name: &str, values: &[String], description: Option<&str>) -> TokenStream {
    let ty = format_ident!("{name}");
    let variants = variant_names(values);
    let doc = super::doc(description.or(Some("The values of an enum attribute.")));
    let variant_docs = values.iter().map(|v| format!(" `{v}`"));
    let expected = format!("one of {}", values.join(", "));
    quote! {
        #doc
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum #ty {
            #( #[doc = #variant_docs] #variants, )*
        }

        impl #ty {
            /// Every value, in declaration order.
            pub const ALL: &'static [#ty] = &[#(#ty::#variants),*];

            /// The value as stored.
            pub fn as_str(&self) -> &'static str {
                match self {
                    #( #ty::#variants => #values, )*
                }
            }
        }

        impl ::core::str::FromStr for #ty {
            type Err = ::std::string::String;
            fn from_str(s: &str) -> ::core::result::Result<Self, Self::Err> {
                match s {
                    #( #values => ::core::result::Result::Ok(#ty::#variants), )*
                    other => ::core::result::Result::Err(::std::format!("{other:?} is not {}", #expected)),
                }
            }
        }

        impl ::core::fmt::Display for #ty {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::schema_runtime::Attr for #ty {
            fn to_av(&self) -> ::schema_runtime::sdk::types::AttributeValue {
                ::schema_runtime::sdk::types::AttributeValue::S(self.as_str().to_owned())
            }
            fn from_av(
                av: &::schema_runtime::sdk::types::AttributeValue,
            ) -> ::core::result::Result<Self, ::schema_runtime::DecodeProblem> {
                let text = <::std::string::String as ::schema_runtime::Attr>::from_av(av)?;
                text.parse().map_err(::schema_runtime::DecodeProblem::Invalid)
            }
        }
    }
}
