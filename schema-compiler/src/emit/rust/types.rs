//! Rust types of attributes, and the enums of enum attributes.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use indexmap::IndexMap;

use super::Emitter;
use crate::ir::{self, AttributeType, DatetimeFormat, SetOf, TimePrecision};
use crate::names::{types::DataType, Item, TypeDef};

/// The [`singletable_runtime::TimeFormat`] tokens of a datetime type.
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

impl<'a> Emitter<'a> {
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

    /// The Rust type of a value of `ty` at `path` (an attribute's name, then
    /// `.field` per typed-map level) of `entity`.
    pub(super) fn type_of(&self, entity: &str, path: &str, ty: &AttributeType) -> TokenStream {
        let named = || {
            let index = self
                .names
                .data_type_at(entity, path)
                .unwrap_or_else(|| panic!("invariant: the name table names the type of every enum and typed map (`{entity}.{path}`)"));
            let name = self.name(Item::DataType(index));
            quote!(#name)
        };
        match ty {
            AttributeType::String { .. } => quote!(String),
            AttributeType::Integer { .. } => quote!(i64),
            AttributeType::Decimal { .. } => quote!(__rt::Decimal),
            AttributeType::Boolean => quote!(bool),
            AttributeType::Datetime { .. } => quote!(__rt::DateTime),
            AttributeType::Enum { .. } | AttributeType::Map { fields: Some(_) } => named(),
            AttributeType::List { items, .. } => match items {
                // A list of enums (or typed maps) holds the attribute's
                // generated type.
                Some(items) => {
                    let inner = self.type_of(entity, path, items);
                    quote!(Vec<#inner>)
                }
                None => quote!(Vec<__rt::AttributeValue>),
            },
            AttributeType::Map { fields: None } => quote!(__rt::Item),
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
            AttributeType::Decimal { .. } => quote!(&__rt::Decimal),
            AttributeType::String { .. }
            | AttributeType::List { .. }
            | AttributeType::Map { .. }
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
            AttributeType::Binary { .. } | AttributeType::Decimal { .. } => quote!(&#field),
            AttributeType::String { .. }
            | AttributeType::List { .. }
            | AttributeType::Map { .. }
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
        match self.rule(entity, name, &attribute.r#type) {
            Some(how) => quote!(__rt::Attr::store(#value, #how, #entity, #name)?),
            None => quote!(__rt::Attr::to_av(#value)),
        }
    }

    /// One Rust enum or struct per generated type (see
    /// [`crate::names::types`]).
    pub(super) fn emit_types(&self) -> TokenStream {
        let mut out = TokenStream::new();
        for (index, data_type) in self.names.data_types().iter().enumerate() {
            let DataType {
                entity,
                path,
                def,
                description,
            } = data_type;
            let name = self.names.name(Item::DataType(index));
            out.extend(match def {
                TypeDef::Enum(values) => {
                    let variants = values
                        .iter()
                        .map(|v| self.name(Item::Variant(index, v.as_str())))
                        .collect();
                    emit_enum(
                        name,
                        values,
                        &variants,
                        *description,
                        self.data_type_attributes(name, true),
                        self.options.serde,
                    )
                }
                TypeDef::Record(fields) => self.emit_record(entity, path, index, fields),
            });
        }
        out
    }

    /// The struct of a typed map: a field per declared field, stored as a
    /// DynamoDB map under the fields' stored names.
    fn emit_record(
        &self,
        entity: &str,
        path: &str,
        index: usize,
        fields: &'a IndexMap<String, ir::Attribute>,
    ) -> TokenStream {
        let name = self.names.name(Item::DataType(index));
        let ty = self.name(Item::DataType(index));
        let idents: Vec<_> = fields
            .values()
            .map(|f| self.name(Item::RecordField(index, f.name.as_str())))
            .collect();
        let decls = fields.values().zip(&idents).map(|(f, ident)| {
            let t = self.type_of(entity, &format!("{path}.{}", f.name), &f.r#type);
            let t = if f.optional { quote!(Option<#t>) } else { t };
            let doc = record_field_doc(f);
            let attrs = self.data_field_attributes(
                name,
                f.name.as_str(),
                f.stored(),
                &f.r#type,
                f.optional,
            );
            quote!(#doc #attrs pub #ident: #t,)
        });
        let type_attrs = self.data_type_attributes(name, false);
        // Stored under the spec's rules (`store`), or as each type stores
        // itself (`to_av`, which cannot fail).
        let puts = |strict: bool| {
            fields.values().zip(&idents).map(move |(f, ident)| {
                let stored = f.stored();
                let value = if f.optional {
                    quote!(value)
                } else {
                    quote!(&self.#ident)
                };
                let av = if strict {
                    let how = self
                        .rule(entity, &format!("{path}.{}", f.name), &f.r#type)
                        .unwrap_or_else(|| quote!(__rt::Store::Plain));
                    quote!(__rt::codec::store_field(#value, #how, #stored, context, name)?)
                } else {
                    quote!(__rt::Attr::to_av(#value))
                };
                if f.optional {
                    quote! {
                        if let Some(value) = &self.#ident {
                            map.insert(#stored.to_owned(), #av);
                        }
                    }
                } else {
                    quote!(map.insert(#stored.to_owned(), #av);)
                }
            })
        };
        let strict = puts(true);
        let lenient = puts(false);
        let reads = fields.values().zip(&idents).map(|(f, ident)| {
            let read = super::entity::field_read(
                f,
                self.rule(entity, &format!("{path}.{}", f.name), &f.r#type),
            );
            quote!(#ident: #read,)
        });
        let capacity = proc_macro2::Literal::usize_unsuffixed(fields.len());
        let doc = super::doc(Some(&format!(
            "A map of declared fields (`{path}` of `{entity}`), stored as a DynamoDB map."
        )));
        quote! {
            #doc
            #[derive(Debug, Clone, PartialEq)]
            #type_attrs
            pub struct #ty {
                #(#decls)*
            }

            impl __rt::Attr for #ty {
                /// The map, each field as its type stores itself; `store`
                /// applies the spec's rules (datetime formats, lengths, non-empty sets).
                fn to_av(&self) -> __rt::AttributeValue {
                    let mut map = __rt::Item::with_capacity(#capacity);
                    #(#lenient)*
                    __rt::AttributeValue::M(map)
                }
                fn store(
                    &self,
                    _: __rt::Store,
                    context: &'static str,
                    name: &'static str,
                ) -> Result<__rt::AttributeValue, __rt::ValueError> {
                    let mut map = __rt::Item::with_capacity(#capacity);
                    #(#strict)*
                    Ok(__rt::AttributeValue::M(map))
                }
                fn from_av(av: &__rt::AttributeValue) -> Result<Self, __rt::DecodeProblem> {
                    __rt::codec::record(av, #name, |r| Ok(#ty { #(#reads)* }))
                }
            }
        }
    }
}

/// A typed map's field's docs: its description, then its stored name.
fn record_field_doc(field: &ir::Attribute) -> TokenStream {
    let mut lines = Vec::new();
    if let Some(d) = &field.description {
        lines.push(d.clone());
        lines.push(String::new());
    }
    let mut line = format!("Field `{}`: {}", field.stored(), field.describe_type());
    if field.optional {
        line.push_str(", optional");
    }
    line.push('.');
    lines.push(line);
    super::doc(Some(&lines.join("\n")))
}

/// Whether a value of `ty` is serialized through the runtime's `Adapt`
/// (the SDK's types: datetimes, blobs, untyped maps and lists, binary
/// sets), not by its own serde implementation.
pub(super) fn needs_serde_adapter(ty: &AttributeType) -> bool {
    match ty {
        AttributeType::Datetime { .. }
        | AttributeType::Binary { .. }
        | AttributeType::Map { fields: None }
        | AttributeType::List { items: None, .. }
        | AttributeType::Set { of: SetOf::Binary } => true,
        AttributeType::List {
            items: Some(items), ..
        } => needs_serde_adapter(items),
        AttributeType::String { .. }
        | AttributeType::Integer { .. }
        | AttributeType::Decimal { .. }
        | AttributeType::Boolean
        | AttributeType::Enum { .. }
        | AttributeType::Map { fields: Some(_) }
        | AttributeType::Set { .. } => false,
    }
}

/// The scale a value of `ty` is serialized at: a decimal's declared
/// `scale`, also as the element of (nested) lists.
pub(super) fn declared_scale(ty: &AttributeType) -> Option<u32> {
    match ty {
        AttributeType::Decimal { scale, .. } => *scale,
        AttributeType::List {
            items: Some(items), ..
        } => declared_scale(items),
        AttributeType::String { .. }
        | AttributeType::Integer { .. }
        | AttributeType::Boolean
        | AttributeType::Datetime { .. }
        | AttributeType::Binary { .. }
        | AttributeType::Enum { .. }
        | AttributeType::List { items: None, .. }
        | AttributeType::Map { .. }
        | AttributeType::Set { .. } => None,
    }
}

fn emit_enum(
    name: &str,
    values: &[String],
    variants: &Vec<proc_macro2::Ident>,
    description: Option<&str>,
    attributes: TokenStream,
    serde: bool,
) -> TokenStream {
    let ty = format_ident!("{name}");
    let doc = super::doc(description.or(Some("The values of an enum attribute.")));
    let variant_docs = values.iter().map(|v| {
        let d = format!(" `{v}`");
        if serde {
            quote!(#[doc = #d] #[serde(rename = #v)])
        } else {
            quote!(#[doc = #d])
        }
    });
    let expected = format!("one of {}", values.join(", "));
    // JSON in is input: a value the spec does not declare is refused there
    // (serde's "unknown variant"), as on every write. Only items read back
    // from the table carry `UnknownValue`, which serializes under its name.
    let other = serde.then(|| quote!(#[serde(skip_deserializing)]));
    quote! {
        #doc
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #attributes
        pub enum #ty {
            #( #variant_docs #variants, )*
            /// A value this build does not know, read from an item a newer
            /// design wrote (a value added since): it reads, and is refused
            /// wherever it would be written (an item, a key, a condition).
            #other
            UnknownValue,
        }

        impl #ty {
            /// Every value this build knows, in declaration order.
            pub const ALL: &'static [#ty] = &[#(#ty::#variants),*];

            /// The value as stored; empty for [`Self::UnknownValue`].
            pub fn as_str(&self) -> &'static str {
                match self {
                    #( #ty::#variants => #values, )*
                    #ty::UnknownValue => "",
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
                match self {
                    #ty::UnknownValue => f.write_str("a value this build does not know"),
                    known => f.write_str(known.as_str()),
                }
            }
        }

        impl __rt::Attr for #ty {
            fn to_av(&self) -> __rt::AttributeValue {
                __rt::AttributeValue::S(self.as_str().to_owned())
            }
            /// A word this build does not know reads as
            /// [`Self::UnknownValue`]: readers deployed before a value was
            /// added read the items newer writers store.
            fn from_av(
                av: &__rt::AttributeValue,
            ) -> Result<Self, __rt::DecodeProblem> {
                let word = __rt::codec::expect_s(av)?;
                Ok(word.parse().unwrap_or(#ty::UnknownValue))
            }
            fn check(&self, _: __rt::Store) -> Result<(), String> {
                match self {
                    #ty::UnknownValue => Err(__rt::codec::UNKNOWN_VALUE.to_owned()),
                    _ => Ok(()),
                }
            }
        }
    }
}

impl<'a> Emitter<'a> {
    /// The `Store` rule of the value at `path` of `entity` (see
    /// [`store_rule`]): the module's static of it, planned in
    /// [`Emitter::plan_rules`], else the rule itself.
    pub(super) fn rule(&self, entity: &str, path: &str, ty: &AttributeType) -> Option<TokenStream> {
        match self.rules.get(&(entity.to_owned(), path.to_owned())) {
            Some(ident) => Some(quote!(#ident)),
            None => store_rule(ty),
        }
    }

    /// [`Emitter::rule`] of an attribute, `Store::Plain` without one.
    pub(super) fn rule_or_plain(&self, entity: &str, attribute: &ir::Attribute) -> TokenStream {
        self.rule(entity, &attribute.name, &attribute.r#type)
            .unwrap_or_else(|| quote!(__rt::Store::Plain))
    }

    /// The statics of the rules, one for each rule however many values
    /// share it (planned in [`Emitter::plan_rules`]).
    pub(super) fn emit_rules(&self) -> TokenStream {
        let mut out = TokenStream::new();
        let mut emitted = indexmap::IndexSet::new();
        for ((entity, path), ident) in &self.rules {
            if !emitted.insert(ident) {
                continue;
            }
            let Some(rule) = crate::names::type_at(self.spec, entity, path).and_then(store_rule)
            else {
                continue;
            };
            out.extend(quote!(static #ident: __rt::Store = #rule;));
        }
        out
    }

    /// Claims a static for every rule of the entities (`only` one, for the
    /// derive) and of their typed maps' fields that is more than
    /// `Store::Plain`: one static for each distinct rule, named after the
    /// attribute that has it, or after the rule when several share it (a
    /// rule is a few lines of code, written once however many use it).
    pub(super) fn plan_rules(
        &self,
        only: Option<&str>,
        taken: &mut super::PrivateNames,
    ) -> IndexMap<(String, String), proc_macro2::Ident> {
        // Every attribute with a rule, then one static per distinct rule:
        // named after its attribute when it has one user, after the rule
        // when several share it.
        let mut users: Vec<(String, String, String, &AttributeType)> = Vec::new();
        let mut visit = |entity: &str, path: String, ty: &'a AttributeType| {
            if let Some(rule) = store_rule(ty).filter(|_| !is_plain(ty)) {
                users.push((entity.to_owned(), path, rule.to_string(), ty));
            }
        };
        // Sharing is counted over the whole spec, so that the derive of one
        // entity names its rules as the whole module does.
        for entity in self.spec.entities.values() {
            for attribute in entity.attributes.values() {
                visit(
                    &entity.name,
                    attribute.name.value.clone(),
                    &attribute.r#type,
                );
            }
        }
        for ((entity, path), def) in crate::names::typed_paths(self.spec) {
            if let TypeDef::Record(fields) = def {
                for field in fields.values() {
                    visit(entity, format!("{path}.{}", field.name), &field.r#type);
                }
            }
        }
        let mut shared: IndexMap<&str, usize> = IndexMap::new();
        for (_, _, rule, _) in &users {
            *shared.entry(rule.as_str()).or_default() += 1;
        }
        let mut by_rule: IndexMap<&str, proc_macro2::Ident> = IndexMap::new();
        let mut rules = IndexMap::new();
        for (entity, path, rule, ty) in &users {
            if only.is_some_and(|o| o != entity) {
                continue;
            }
            let ident = by_rule
                .entry(rule.as_str())
                .or_insert_with(|| {
                    let base = match shared.get(rule.as_str()) {
                        Some(n) if *n > 1 => rule_name(ty),
                        _ => crate::naming::screaming(&path.replace('.', "_")),
                    };
                    taken.claim(format!("__{base}_RULE"))
                })
                .clone();
            rules.insert((entity.clone(), path.clone()), ident);
        }
        rules
    }
}

/// The name of a rule several attributes share, after what it allows:
/// `TEXT_1_TO_36`, `INTEGER_0_TO_100`, `RFC3339_MILLIS`.
fn rule_name(ty: &AttributeType) -> String {
    let range = |min: String, max: Option<String>| match max {
        Some(max) => format!("{min}_TO_{max}"),
        None => format!("{min}_OR_MORE"),
    };
    let signed = |n: i64| match n {
        i64::MIN => "MIN".to_owned(),
        i64::MAX => "MAX".to_owned(),
        n if n < 0 => format!("MINUS_{}", n.unsigned_abs()),
        n => n.to_string(),
    };
    match ty {
        AttributeType::String {
            min_length,
            max_length,
            pattern,
            ..
        } => match pattern.as_deref().and_then(crate::alphabet::ascii_class) {
            Some(class) => format!(
                "TEXT_{}",
                range(class.min.to_string(), class.max.map(|m| m.to_string()))
            ),
            None if pattern.is_some() => "PATTERN".to_owned(),
            None => format!(
                "TEXT_{}",
                range(
                    min_length.unwrap_or(0).to_string(),
                    max_length.map(|m| m.to_string())
                )
            ),
        },
        AttributeType::Integer { min, max } => {
            format!("INTEGER_{}", range(signed(*min), Some(signed(*max))))
        }
        AttributeType::Decimal { .. } => "DECIMAL".to_owned(),
        AttributeType::Datetime { format, precision } => match format {
            DatetimeFormat::Rfc3339 => format!("RFC3339_{precision:?}").to_uppercase(),
            DatetimeFormat::EpochSeconds => "EPOCH_SECONDS".to_owned(),
            DatetimeFormat::EpochMillis => "EPOCH_MILLIS".to_owned(),
        },
        AttributeType::List { .. } => "LIST".to_owned(),
        AttributeType::Binary { .. } => "BYTES".to_owned(),
        AttributeType::Boolean
        | AttributeType::Enum { .. }
        | AttributeType::Map { .. }
        | AttributeType::Set { .. } => "VALUE".to_owned(),
    }
}

/// Whether a type's rule is `Store::Plain` (a typed map's: its fields
/// carry their own rules).
fn is_plain(ty: &AttributeType) -> bool {
    matches!(ty, AttributeType::Map { fields: Some(_) })
}

/// Whether a value read back is checked against its rule (every rule but a
/// datetime's format, which its reader applies, and a typed map's, which
/// checks its own fields).
pub fn checks_on_read(ty: &AttributeType) -> bool {
    !matches!(
        ty,
        AttributeType::Datetime { .. } | AttributeType::Map { .. }
    ) && store_rule(ty).is_some()
}

/// The `Store` rule of a value beyond its type: a string's lengths and
/// pattern, an integer's range, a decimal's bounds and scale, a list's
/// lengths and its elements' rules, a binary's lengths, a datetime's
/// format; `None` when it is stored as it is.
fn store_rule(ty: &AttributeType) -> Option<TokenStream> {
    let usize_lit = |n: u64| proc_macro2::Literal::usize_unsuffixed(n as usize);
    let max_of = |max: &Option<u64>| match max {
        Some(m) => {
            let m = usize_lit(*m);
            quote!(Some(#m))
        }
        None => quote!(None),
    };
    match ty {
        AttributeType::Datetime { format, precision } => {
            let format = time_format(*format, *precision);
            Some(quote!(__rt::Store::Time(#format)))
        }
        AttributeType::String {
            min_length,
            max_length,
            pattern,
            ..
        } => {
            let min = usize_lit(min_length.unwrap_or(0));
            let max = max_of(max_length);
            match pattern {
                Some(p) => match crate::alphabet::ascii_class(p) {
                    Some(class) => {
                        let ranges = super::char_ranges(&crate::ir::CharSet {
                            ranges: class.ranges,
                        });
                        let (cmin, cmax) = (
                            usize_lit(class.min as u64),
                            max_of(&class.max.map(|m| m as u64)),
                        );
                        Some(quote!({
                            static CLASS: __rt::codec::AsciiClass = __rt::codec::AsciiClass {
                                pattern: #p,
                                allowed: __rt::codec::ascii_bits(&[#(#ranges),*]),
                                min: #cmin,
                                max: #cmax,
                            };
                            __rt::Store::Class { min: #min, max: #max, class: &CLASS }
                        }))
                    }
                    None => Some(quote!({
                    static PATTERN: __rt::codec::Pattern = __rt::codec::Pattern::new(#p);
                    __rt::Store::Text { min: #min, max: #max, pattern: &PATTERN }
                    })),
                },
                None if min_length.is_some() || max_length.is_some() => {
                    Some(quote!(__rt::Store::Length(#min, #max)))
                }
                None => None,
            }
        }
        AttributeType::Integer { min, max } if *min != i64::MIN || *max != i64::MAX => {
            let bound = |n: i64| match n {
                i64::MIN => quote!(i64::MIN),
                i64::MAX => quote!(i64::MAX),
                n => {
                    let n = proc_macro2::Literal::i64_unsuffixed(n);
                    quote!(#n)
                }
            };
            let (min, max) = (bound(*min), bound(*max));
            Some(quote!(__rt::Store::Integer { min: #min, max: #max }))
        }
        AttributeType::Decimal { min, max, scale }
            if min.is_some() || max.is_some() || scale.is_some() =>
        {
            let text = |b: &Option<String>| match b {
                Some(b) => quote!(Some(#b)),
                None => quote!(None),
            };
            let (min, max) = (text(min), text(max));
            let scale = match scale {
                Some(s) => quote!(Some(#s)),
                None => quote!(None),
            };
            Some(quote!(__rt::Store::Decimal { min: #min, max: #max, scale: #scale }))
        }
        AttributeType::List {
            items,
            min_length,
            max_length,
        } => {
            // A list of datetimes keeps its elements' own form (as it reads
            // them back); every other element rule applies.
            let item_rule = items
                .as_deref()
                .filter(|t| !matches!(t, AttributeType::Datetime { .. }))
                .and_then(store_rule);
            if min_length.is_none()
                && max_length.is_none()
                && item_rule.is_none()
                && ty.record_fields().is_none()
            {
                return None;
            }
            let min = usize_lit(min_length.unwrap_or(0));
            let max = max_of(max_length);
            let items = match item_rule {
                Some(rule) => quote!(Some({
                    static ITEMS: __rt::Store = #rule;
                    &ITEMS
                })),
                None => quote!(None),
            };
            Some(quote!(__rt::Store::List { min: #min, max: #max, items: #items }))
        }
        AttributeType::Binary {
            min_length,
            max_length,
        } if min_length.is_some() || max_length.is_some() => {
            let min = usize_lit(min_length.unwrap_or(0));
            let max = max_of(max_length);
            Some(quote!(__rt::Store::Bytes(#min, #max)))
        }
        // A typed map stores its fields under their rules.
        AttributeType::Map { fields: Some(_) } => Some(quote!(__rt::Store::Plain)),
        AttributeType::Integer { .. }
        | AttributeType::Decimal { .. }
        | AttributeType::Boolean
        | AttributeType::Enum { .. }
        | AttributeType::Map { fields: None }
        | AttributeType::Set { .. }
        | AttributeType::Binary { .. } => None,
    }
}

/// A literal as the attribute value DynamoDB stores.
pub(super) fn literal_av(literal: &ir::FilterLiteral) -> TokenStream {
    match literal {
        ir::FilterLiteral::S(text) => quote!(__rt::S(#text.to_owned())),
        ir::FilterLiteral::N(n) => quote!(__rt::N(#n.to_owned())),
        ir::FilterLiteral::Bool(b) => quote!(__rt::AttributeValue::Bool(#b)),
    }
}
