//! Reading placeholder values back out of stored keys.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::*;

impl<'a> Emitter<'a> {
    /// An expression reading `attribute` through the `Fields` reader `r`:
    /// the attribute, or its text in the first of `templates`' stored keys
    /// the item has (`?`-propagating a `DecodeError`); for an optional
    /// attribute `None` when the item has neither.
    pub(in crate::emit::rust) fn read_from_keys(
        &self,
        templates: &[&ir::KeyTemplate],
        attribute: &ir::Attribute,
    ) -> TokenStream {
        let placeholder = attribute.name.as_str();
        // The item's attribute is read first, under its stored name.
        let name = attribute.stored();
        let sources = templates.iter().map(|t| {
            let key = t.attribute.as_str();
            let steps = Self::steps_const(t);
            let end = Self::steps_to(t, (PlaceholderKind::Attribute, placeholder));
            quote!((#key, &#steps[..#end]))
        });
        let sources = quote!(&[#(#sources),*]);
        match attribute.key_encoding() {
            KeyEncoding::Datetime { format, precision } => {
                let format = time_format(format, precision.unwrap_or(ir::TimePrecision::Seconds));
                if attribute.optional {
                    quote!(r.keyed_time_opt(#name, #format, #sources)?)
                } else {
                    quote!(r.keyed_time(#name, #format, #sources)?)
                }
            }
            encoding @ (KeyEncoding::Text
            | KeyEncoding::Escaped
            | KeyEncoding::Cased { .. }
            | KeyEncoding::Integer { .. }
            | KeyEncoding::Word
            | KeyEncoding::None) => {
                let parse = parse_text(encoding);
                if attribute.optional {
                    quote!(r.keyed_opt(#name, #sources, #parse)?)
                } else {
                    quote!(r.keyed(#name, #sources, #parse)?)
                }
            }
        }
    }

    /// An expression reading the shard number out of the stored key.
    pub(in crate::emit::rust) fn read_shard(
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
    pub(in crate::emit::rust) fn read_placeholder(
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
            __rt::reader::read_placeholder(item, #entity_name, #key_attribute, #target_name, &#steps[..#end], #parse)?
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
    pub(in crate::emit::rust) fn key_steps(
        &self,
        entity: &ir::Entity,
        template: &ir::KeyTemplate,
    ) -> TokenStream {
        let steps = template
            .segments
            .iter()
            .enumerate()
            .map(|(i, segment)| match segment {
                Segment::Literal(l) => quote!(__rt::lit(#l)),
                Segment::Placeholder(_) => self.take(entity, template, i),
            });
        quote!([#(#steps),*])
    }

    /// The name of the constant holding `template`'s steps in a function.
    pub(in crate::emit::rust) fn steps_const(template: &ir::KeyTemplate) -> Ident {
        // A key attribute's name may be any text (`1pk`, `Status#Time`,
        // `é sk`): names that are no identifier get a hash of the name, so
        // two that read alike (`GSI1-PK`, `GSI1.PK`) keep apart.
        let attribute = template.attribute.as_str();
        let name = screaming(attribute);
        let plain = attribute
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !attribute.starts_with(|c: char| c.is_ascii_digit());
        if plain {
            format_ident!("{}_STEPS", name)
        } else {
            // FNV-1a: stable across builds and platforms.
            let hash = attribute.bytes().fold(0x811c_9dc5_u32, |h, b| {
                (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
            });
            format_ident!("K_{}_{:08X}_STEPS", name, hash)
        }
    }

    /// The step taking the placeholder at segment `i`: to its fixed
    /// width, the next literal, or the end of the key.
    fn take(&self, entity: &ir::Entity, template: &ir::KeyTemplate, i: usize) -> TokenStream {
        let Segment::Placeholder(p) = &template.segments[i] else {
            return quote!(__rt::REST);
        };
        let domain = match p.kind {
            PlaceholderKind::Tenant => None,
            PlaceholderKind::Shard => None,
            PlaceholderKind::Attribute => entity
                .attributes
                .get(p.name.as_str())
                .map(encoding::attribute_domain),
        };
        match (domain, template.segments.get(i + 1)) {
            (Some(d), _) if d.fixed_width => {
                let width = proc_macro2::Literal::usize_unsuffixed(d.min_len);
                quote!(__rt::width(#width))
            }
            (_, Some(Segment::Literal(l))) => quote!(__rt::until(#l)),
            (_, Some(Segment::Placeholder(_)) | None) => quote!(__rt::REST),
        }
    }
}
pub(super) fn natural_value(input: Input<'_>, context: &str) -> TokenStream {
    let av = quote!(__rt::AttributeValue);
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
                    quote!(__rt::codec::datetime_to_av(#expr, #format, #context, #name)?)
                }
                AttributeType::Enum { .. } => {
                    quote!(#av::S(__rt::codec::known_word(#expr.as_str(), #context, #name)?.to_owned()))
                }
                AttributeType::Boolean => quote!(#av::Bool(#expr)),
                AttributeType::String { .. } => quote!(#av::S(#expr.to_owned())),
                // The decimal's canonical text.
                AttributeType::Decimal { .. } => quote!(#av::N(#expr.as_str().to_owned())),
                AttributeType::Binary { .. } => quote!(#av::B(Clone::clone(#expr))),
                // No key holds these (`singletable::placeholder_type`);
                // their value as stored is their attribute value.
                AttributeType::List { .. }
                | AttributeType::Map { .. }
                | AttributeType::Set { .. } => quote!(__rt::Attr::to_av(#expr)),
            }
        }
    }
}

/// The runtime function decoding placeholder text written in `encoding`.
fn parse_text(encoding: KeyEncoding) -> TokenStream {
    match encoding {
        KeyEncoding::Escaped => quote!(__rt::reader::escaped),
        KeyEncoding::Integer { offset, .. } => {
            // The least value the offset was added for (0 for none).
            let min = i64::try_from(-i128::from(offset)).unwrap_or(i64::MIN);
            if min < 0 {
                quote!(__rt::reader::integer::<{ #min }>)
            } else {
                quote!(__rt::reader::integer::<0>)
            }
        }
        // An enum's word or a boolean's (`true`, `false`): their `FromStr`.
        KeyEncoding::Word => quote!(__rt::reader::parsed),
        // A datetime is read by `Fields::keyed_time`; a value with no key
        // encoding is in no key (`singletable::placeholder_type`); a cased
        // value is never read out of a key (`read_from_keys` is not asked).
        KeyEncoding::Text
        | KeyEncoding::Cased { .. }
        | KeyEncoding::Datetime { .. }
        | KeyEncoding::None => {
            quote!(__rt::reader::text)
        }
    }
}
