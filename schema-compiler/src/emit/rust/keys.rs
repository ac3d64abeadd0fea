//! Key templates as Rust: building key strings from typed values, and
//! reading placeholder values back out of stored keys.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, ToTokens};

use super::names::screaming;
use super::types::time_format;
use super::Emitter;
use crate::encoding;
use crate::ir::{self, AttributeType, DatetimeFormat, KeyType, PlaceholderKind, Segment};

/// Where a placeholder's value comes from.
pub(super) enum Input<'a> {
    /// The tenant: an expression of type `&TenantId`.
    Tenant(TokenStream),
    /// The shard number: an expression of type `u32`.
    Shard(TokenStream),
    /// A value of an entity attribute's type: `&str` for strings, the value
    /// itself for copy types.
    Value {
        /// The expression.
        expr: TokenStream,
        /// The entity whose attribute's type and bounds apply.
        entity: &'a str,
        /// The attribute.
        attribute: &'a ir::Attribute,
    },
}

/// The most bytes a key buffer reserves for one placeholder's value.
const RESERVED_WIDTH: usize = 64;

/// The constant holding a string attribute's key domain.
pub(super) fn domain_const(entity: &str, attribute: &str) -> Ident {
    format_ident!("{}", super::names::domain_const(entity, attribute))
}

impl Emitter<'_> {
    /// A block expression building `template` as a `String`; `context` names
    /// the entity or pattern in errors.
    pub(super) fn build_key_string<'t>(
        &self,
        template: &'t ir::KeyTemplate,
        context: &str,
        input: &dyn Fn(&'t ir::Placeholder) -> Input<'t>,
    ) -> TokenStream {
        let mut capacity = 0;
        let mut pushes = Vec::new();
        for segment in &template.segments {
            match segment {
                Segment::Literal(l) => {
                    capacity += l.len();
                    pushes.push(quote!(__key.push_str(#l);));
                }
                Segment::Placeholder(p) => {
                    let input = input(p);
                    capacity += self.reserved_width(&input);
                    pushes.push(self.push_value(input, context));
                }
            }
        }
        quote!({
            let mut __key = ::std::string::String::with_capacity(#capacity);
            #(#pushes)*
            __key
        })
    }

    /// The bytes a key buffer reserves for one placeholder: the greatest
    /// length of its encoding (exact for integers, timestamps, enums and
    /// shards), at most [`RESERVED_WIDTH`] for long or unbounded strings,
    /// so a typical key is built in one allocation.
    fn reserved_width(&self, input: &Input<'_>) -> usize {
        let domain = match input {
            Input::Tenant(_) => self.spec.tenant.as_ref().map(encoding::tenant_domain),
            Input::Shard(_) => Some(encoding::shard_domain(u32::MAX)),
            Input::Value { attribute, .. } => {
                Some(encoding::type_domain(&attribute.r#type, attribute.escape))
            }
        };
        domain
            .and_then(|d| d.max_len)
            .map_or(RESERVED_WIDTH, |max| max.min(RESERVED_WIDTH))
    }

    /// The `AttributeValue` of a key attribute filled by `template`.
    pub(super) fn key_value<'t>(
        &self,
        template: &'t ir::KeyTemplate,
        key_type: KeyType,
        context: &str,
        input: &dyn Fn(&'t ir::Placeholder) -> Input<'t>,
    ) -> TokenStream {
        if template.is_natural() {
            if let Some(p) = template.placeholders().next() {
                return natural_value(input(p), context);
            }
        }
        let key = self.build_key_string(template, context, input);
        match key_type {
            KeyType::Number => quote!(::schema_runtime::sdk::types::AttributeValue::N(#key)),
            KeyType::String | KeyType::Binary => {
                quote!(::schema_runtime::sdk::types::AttributeValue::S(#key))
            }
        }
    }

    /// The key attribute type of `template`'s attribute on the table or `index`.
    pub(super) fn key_type(&self, index: Option<&str>, attribute: &str) -> KeyType {
        let (pk, sk) = match index.and_then(|i| self.spec.indexes.get(i)) {
            Some(i) => (&i.partition_key, i.sort_key.as_ref()),
            None => (
                &self.spec.table.partition_key,
                self.spec.table.sort_key.as_ref(),
            ),
        };
        std::iter::once(pk)
            .chain(sk)
            .find(|k| k.name.as_str() == attribute)
            .map_or(KeyType::String, |k| k.r#type)
    }

    /// An expression reading `attribute` of `entity` back out of the first
    /// of `templates`' stored keys the item has (`?`-propagating a
    /// `DecodeError`): the value, or for an optional attribute
    /// `Option<value>`, `None` when the item has none of those keys.
    pub(super) fn read_from_keys(
        &self,
        entity: &ir::Entity,
        templates: &[&ir::KeyTemplate],
        attribute: &ir::Attribute,
    ) -> TokenStream {
        let entity_name = entity.name.as_str();
        let name = attribute.name.as_str();
        let sources = templates.iter().map(|t| {
            let key = t.attribute.as_str();
            let steps = Self::steps_const(t);
            let end = Self::steps_to(t, (PlaceholderKind::Attribute, name));
            quote!((#key, &#steps[..#end]))
        });
        let parse = parse_text(attribute);
        let read = if attribute.optional {
            quote!(read_placeholder_if_present)
        } else {
            quote!(read_placeholder_from)
        };
        quote! {
            ::schema_runtime::reader::#read(item, #entity_name, #name, &[#(#sources),*], #parse)?
        }
    }

    /// An expression reading the shard number out of the stored key.
    pub(super) fn read_shard(
        &self,
        entity: &ir::Entity,
        template: &ir::KeyTemplate,
    ) -> TokenStream {
        self.read_placeholder(
            entity,
            template,
            (PlaceholderKind::Shard, "shard"),
            quote!(|t: &str| t.parse::<u32>().ok()),
            &Self::steps_const(template).into_token_stream(),
        )
    }

    /// An expression reading the placeholder `target` of `template` out of
    /// the stored key (`?`-propagating a `DecodeError`). `steps` is the
    /// template's table of steps ([`Self::key_steps`]): a constant the
    /// caller declares once, so that reading every placeholder of a long
    /// template stays linear in its length.
    pub(super) fn read_placeholder(
        &self,
        entity: &ir::Entity,
        template: &ir::KeyTemplate,
        target: (PlaceholderKind, &str),
        parse: TokenStream,
        steps: &TokenStream,
    ) -> TokenStream {
        let entity_name = entity.name.as_str();
        let key_attribute = template.attribute.as_str();
        let target_name = target.1;
        let end = Self::steps_to(template, target);
        quote! {
            ::schema_runtime::reader::read_placeholder(item, #entity_name, #key_attribute, #target_name, &#steps[..#end], #parse)?
        }
    }

    /// How many of `template`'s steps end at the placeholder `target`.
    fn steps_to(
        template: &ir::KeyTemplate,
        target: (PlaceholderKind, &str),
    ) -> proc_macro2::Literal {
        let end = template
            .segments
            .iter()
            .position(|segment| match segment {
                Segment::Placeholder(p) => {
                    p.kind == target.0
                        && (p.kind == PlaceholderKind::Shard || p.name.as_str() == target.1)
                }
                Segment::Literal(_) => false,
            })
            .map_or(0, |i| i + 1);
        proc_macro2::Literal::usize_unsuffixed(end)
    }

    /// The steps that walk a key built from `template`: a slice expression.
    pub(super) fn key_steps(&self, entity: &ir::Entity, template: &ir::KeyTemplate) -> TokenStream {
        let steps = template
            .segments
            .iter()
            .enumerate()
            .map(|(i, segment)| match segment {
                Segment::Literal(l) => quote!(::schema_runtime::reader::Step::Literal(#l)),
                Segment::Placeholder(_) => {
                    let stop = self.stop(entity, template, i);
                    quote!(::schema_runtime::reader::Step::Take(#stop))
                }
            });
        quote!([#(#steps),*])
    }

    /// The name of the constant holding `template`'s steps in a function.
    pub(super) fn steps_const(template: &ir::KeyTemplate) -> Ident {
        format_ident!("{}_STEPS", screaming(&template.attribute))
    }

    /// Where the placeholder at segment `i` ends.
    fn stop(&self, entity: &ir::Entity, template: &ir::KeyTemplate, i: usize) -> TokenStream {
        let Segment::Placeholder(p) = &template.segments[i] else {
            return quote!(::schema_runtime::reader::Stop::End);
        };
        let domain = match p.kind {
            PlaceholderKind::Tenant => None,
            PlaceholderKind::Shard => None,
            PlaceholderKind::Attribute => entity
                .attributes
                .get(p.name.as_str())
                .map(|a| encoding::type_domain(&a.r#type, a.escape)),
        };
        match (domain, template.segments.get(i + 1)) {
            (Some(d), _) if d.fixed_width => {
                let width = d.min_len;
                quote!(::schema_runtime::reader::Stop::Width(#width))
            }
            (_, Some(Segment::Literal(l))) => quote!(::schema_runtime::reader::Stop::Literal(#l)),
            (_, Some(Segment::Placeholder(_)) | None) => {
                quote!(::schema_runtime::reader::Stop::End)
            }
        }
    }

    /// The key-domain constants of the string attributes written into keys.
    pub(super) fn emit_domains(&self) -> TokenStream {
        let used = self.used_domains.borrow();
        let mut out = TokenStream::new();
        for entity in self.spec.entities.values() {
            for attribute in entity.attributes.values() {
                let id = (entity.name.to_string(), attribute.name.to_string());
                if used.contains(&id) {
                    out.extend(domain_item(entity.name.as_str(), attribute));
                }
            }
        }
        out
    }
}

fn domain_item(entity: &str, attribute: &ir::Attribute) -> TokenStream {
    if !matches!(attribute.r#type, AttributeType::String { .. }) {
        return TokenStream::new();
    }
    // The unescaped domain: the bounds the value itself must meet (escaping
    // happens after the check, in the runtime).
    let domain = encoding::type_domain(&attribute.r#type, false);
    let min = domain.min_len;
    let max = super::option_usize(domain.max_len);
    let ranges = super::char_ranges(&domain.alphabet);
    let escape = attribute.escape;
    let name = domain_const(entity, attribute.name.as_str());
    let doc = format!(
        " What `{entity}.{}` may hold in a key.",
        attribute.name.as_str()
    );
    quote! {
        #[doc = #doc]
        const #name: ::schema_runtime::codec::StrDomain = ::schema_runtime::codec::StrDomain {
            min_len: #min,
            max_len: #max,
            alphabet: &[#(#ranges),*],
            escape: #escape,
        };
    }
}

impl Emitter<'_> {
    /// Appends one placeholder's encoded value to `__key`.
    pub(super) fn push_value(&self, input: Input<'_>, context: &str) -> TokenStream {
        if let Input::Value {
            entity, attribute, ..
        } = &input
        {
            if matches!(attribute.r#type, AttributeType::String { .. }) {
                let used = (entity.to_string(), attribute.name.to_string());
                self.used_domains.borrow_mut().insert(used);
            }
        }
        push_value(input, context)
    }
}

fn push_value(input: Input<'_>, context: &str) -> TokenStream {
    match input {
        Input::Tenant(expr) => quote!(__key.push_str(#expr.as_str());),
        Input::Shard(expr) => quote!(__key.push_str(&#expr.to_string());),
        Input::Value {
            expr,
            entity,
            attribute,
        } => {
            let name = attribute.name.as_str();
            match &attribute.r#type {
                AttributeType::String { .. } => {
                    let domain = domain_const(entity, name);
                    quote!(::schema_runtime::codec::push_str(&mut __key, #expr, &#domain, #context, #name)?;)
                }
                AttributeType::Integer { min, max } => quote!(
                    ::schema_runtime::codec::push_integer(&mut __key, #expr, #min, #max, #context, #name)?;
                ),
                AttributeType::Datetime { format, precision } => {
                    let format = time_format(*format, *precision);
                    quote!(::schema_runtime::codec::push_datetime(&mut __key, #expr, #format, #context, #name)?;)
                }
                AttributeType::Enum { .. } => quote!(__key.push_str(#expr.as_str());),
                AttributeType::Boolean => {
                    quote!(__key.push_str(if #expr { "true" } else { "false" });)
                }
                // Unreachable for an accepted spec: resolve's
                // `check_placeholder_attribute` (`singletable::placeholder_type`)
                // rejects a placeholder whose attribute is not
                // `AttributeType::is_key_compatible`, and emission runs only
                // on specs without errors.
                AttributeType::Decimal { .. }
                | AttributeType::List { .. }
                | AttributeType::Map
                | AttributeType::Binary { .. } => {
                    quote!(::core::compile_error!("this attribute type cannot be part of a key");)
                }
            }
        }
    }
}

fn natural_value(input: Input<'_>, context: &str) -> TokenStream {
    let av = quote!(::schema_runtime::sdk::types::AttributeValue);
    match input {
        Input::Tenant(expr) => quote!(#av::S(#expr.as_str().to_owned())),
        Input::Shard(expr) => quote!(#av::N(#expr.to_string())),
        Input::Value {
            expr, attribute, ..
        } => {
            let name = attribute.name.as_str();
            match &attribute.r#type {
                AttributeType::Integer { .. } => quote!(#av::N(#expr.to_string())),
                AttributeType::Datetime { format, precision } => {
                    let format = time_format(*format, *precision);
                    quote!(::schema_runtime::codec::datetime_to_av(#expr, #format, #context, #name)?)
                }
                AttributeType::Enum { .. } => quote!(#av::S(#expr.as_str().to_owned())),
                AttributeType::Boolean => quote!(#av::Bool(#expr)),
                AttributeType::String { .. } => quote!(#av::S(#expr.to_owned())),
                // Unreachable for an accepted spec: a natural key is a
                // placeholder, and resolve's `check_placeholder_attribute`
                // (`singletable::placeholder_type`) rejects placeholders of
                // these types.
                AttributeType::Decimal { .. }
                | AttributeType::List { .. }
                | AttributeType::Map
                | AttributeType::Binary { .. } => quote!(#av::S(#expr.to_owned())),
            }
        }
    }
}

/// A closure `|text: &str| -> Option<T>` decoding placeholder text.
fn parse_text(attribute: &ir::Attribute) -> TokenStream {
    match &attribute.r#type {
        AttributeType::String { .. } if attribute.escape => {
            quote!(::schema_runtime::codec::unescape)
        }
        AttributeType::Integer { min, .. } => {
            quote!(|t: &str| ::schema_runtime::reader::decode_integer(t, #min))
        }
        AttributeType::Datetime { format, .. } => match format {
            DatetimeFormat::Rfc3339 => quote!(|t: &str| {
                ::schema_runtime::DateTime::from_str(
                    t,
                    ::schema_runtime::sdk::primitives::DateTimeFormat::DateTime,
                )
                .ok()
            }),
            DatetimeFormat::EpochSeconds => quote!(|t: &str| {
                ::schema_runtime::reader::decode_integer(t, 0)
                    .map(::schema_runtime::DateTime::from_secs)
            }),
            DatetimeFormat::EpochMillis => quote!(|t: &str| {
                ::schema_runtime::reader::decode_integer(t, 0)
                    .map(::schema_runtime::DateTime::from_millis)
            }),
        },
        AttributeType::Enum { .. } => quote!(|t: &str| t.parse().ok()),
        AttributeType::Boolean => quote!(|t: &str| match t {
            "true" => ::core::option::Option::Some(true),
            "false" => ::core::option::Option::Some(false),
            _ => ::core::option::Option::None,
        }),
        AttributeType::String { .. } => {
            quote!(|t: &str| ::core::option::Option::Some(t.to_owned()))
        }
        // Unreachable for an accepted spec: only placeholders are read back
        // from keys, and resolve's `check_placeholder_attribute`
        // (`singletable::placeholder_type`) rejects placeholders of these types.
        AttributeType::Decimal { .. }
        | AttributeType::List { .. }
        | AttributeType::Map
        | AttributeType::Binary { .. } => {
            quote!(|t: &str| ::core::option::Option::Some(t.to_owned()))
        }
    }
}
