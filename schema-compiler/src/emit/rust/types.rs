//! Rust types of attributes, and the enums of enum attributes.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::names::{pascal, pascal_ident};
use super::Emitter;
use crate::ir::{self, AttributeType, DatetimeFormat, SetOf, TimePrecision};

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
            let digits = proc_macro2::Literal::u8_unsuffixed(digits);
            quote!(__rt::TimeFormat::Rfc3339(#digits))
        }
        DatetimeFormat::EpochSeconds => quote!(__rt::TimeFormat::EpochSeconds),
        DatetimeFormat::EpochMillis => quote!(__rt::TimeFormat::EpochMillis),
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
            AttributeType::String { .. } => quote!(String),
            AttributeType::Integer { .. } => quote!(i64),
            AttributeType::Decimal { .. } => quote!(__rt::Decimal),
            AttributeType::Boolean => quote!(bool),
            AttributeType::Datetime { .. } => quote!(__rt::DateTime),
            AttributeType::Enum { .. } => {
                let name = self
                    .enums
                    .get(&(entity.to_owned(), attribute.to_owned()))
                    .expect("invariant: enum_names covers every enum attribute");
                let name = format_ident!("{name}");
                quote!(#name)
            }
            AttributeType::List { items, .. } => match items {
                // A list of enums holds the attribute's generated enum.
                Some(items) => {
                    let inner = self.type_of(entity, attribute, items);
                    quote!(Vec<#inner>)
                }
                None => quote!(Vec<__rt::AttributeValue>),
            },
            AttributeType::Map => quote!(__rt::Item),
            AttributeType::Set { of } => match of {
                SetOf::String => quote!(::std::collections::BTreeSet<String>),
                SetOf::Integer => quote!(::std::collections::BTreeSet<i64>),
                SetOf::Decimal => quote!(::std::collections::BTreeSet<__rt::Decimal>),
                SetOf::Binary => quote!(::std::collections::BTreeSet<Vec<u8>>),
            },
            AttributeType::Binary { .. } => quote!(__rt::Blob),
        }
    }

    /// The type a key value of `attribute` is passed as: by value for
    /// `Copy` types, `&Blob` for bytes, `&str` otherwise.
    pub(super) fn borrowed_type(&self, entity: &str, attribute: &ir::Attribute) -> TokenStream {
        match &attribute.r#type {
            AttributeType::Integer { .. }
            | AttributeType::Boolean
            | AttributeType::Datetime { .. }
            | AttributeType::Enum { .. } => self.value_type(entity, attribute),
            AttributeType::Binary { .. } => quote!(&__rt::Blob),
            AttributeType::String { .. }
            | AttributeType::Decimal { .. }
            | AttributeType::List { .. }
            | AttributeType::Map
            | AttributeType::Set { .. } => quote!(&str),
        }
    }

    /// `field` (an expression of the attribute's type) borrowed as
    /// [`Emitter::borrowed_type`].
    pub(super) fn borrowed(field: TokenStream, ty: &AttributeType) -> TokenStream {
        match ty {
            AttributeType::Integer { .. }
            | AttributeType::Boolean
            | AttributeType::Datetime { .. }
            | AttributeType::Enum { .. } => field,
            AttributeType::Binary { .. } => quote!(&#field),
            AttributeType::String { .. }
            | AttributeType::Decimal { .. }
            | AttributeType::List { .. }
            | AttributeType::Map
            | AttributeType::Set { .. } => quote!(#field.as_str()),
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
        match store_how(attribute) {
            Some(how) => quote!(__rt::Attr::store(#value, #how, #entity, #name)?),
            None => quote!(__rt::Attr::to_av(#value)),
        }
    }

    /// One Rust enum per enum attribute name (see [`enum_names`]).
    pub(super) fn emit_enums(&self) -> TokenStream {
        let mut seen = Vec::new();
        let mut out = TokenStream::new();
        for entity in self.spec.entities.values() {
            for attribute in entity.attributes.values() {
                let Some(values) = attribute.r#type.enum_values() else {
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
            type Err = String;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    #( #values => Ok(#ty::#variants), )*
                    other => Err(format!("{other:?} is not {}", #expected)),
                }
            }
        }

        impl ::core::fmt::Display for #ty {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl __rt::Attr for #ty {
            fn to_av(&self) -> __rt::AttributeValue {
                __rt::AttributeValue::S(self.as_str().to_owned())
            }
            fn from_av(
                av: &__rt::AttributeValue,
            ) -> Result<Self, __rt::DecodeProblem> {
                let text = <String as __rt::Attr>::from_av(av)?;
                text.parse().map_err(__rt::DecodeProblem::Invalid)
            }
        }
    }
}

/// The `Store` rule of an attribute beyond its type: a string's length
/// bounds, a datetime's format; `None` when it is stored as it is.
pub fn store_how(attribute: &ir::Attribute) -> Option<TokenStream> {
    match &attribute.r#type {
        AttributeType::Datetime { format, precision } => {
            let format = time_format(*format, *precision);
            Some(quote!(__rt::Store::Time(#format)))
        }
        AttributeType::String {
            min_length,
            max_length,
            ..
        } if min_length.is_some() || max_length.is_some() => {
            let min = proc_macro2::Literal::usize_unsuffixed(min_length.unwrap_or(0) as usize);
            let max = match max_length {
                Some(m) => {
                    let m = proc_macro2::Literal::usize_unsuffixed(*m as usize);
                    quote!(Some(#m))
                }
                None => quote!(None),
            };
            Some(quote!(__rt::Store::Length(#min, #max)))
        }
        AttributeType::String { .. }
        | AttributeType::Integer { .. }
        | AttributeType::Decimal { .. }
        | AttributeType::Boolean
        | AttributeType::Enum { .. }
        | AttributeType::List { .. }
        | AttributeType::Map
        | AttributeType::Set { .. }
        | AttributeType::Binary { .. } => None,
    }
}
