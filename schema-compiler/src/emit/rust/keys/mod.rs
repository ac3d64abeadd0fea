//! Key templates as Rust: building key strings from typed values, and
//! reading placeholder values back out of stored keys.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, ToTokens};

use indexmap::IndexMap;

use super::types::time_format;
use super::Emitter;
use crate::encoding;
use crate::ir::{self, AttributeType, KeyEncoding, KeyType, Operation, PlaceholderKind, Segment};
use crate::naming::{screaming, snake};

mod read;

use read::natural_value;

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

impl Emitter<'_> {
    /// An expression of type `String` building `template`: a call of the
    /// template's key function (`?`-propagating a `ValueError`); `context`
    /// names the entity or pattern in errors.
    pub(super) fn build_key_string<'t>(
        &self,
        template: &'t ir::KeyTemplate,
        context: &str,
        input: &dyn Fn(&'t ir::Placeholder) -> Input<'t>,
    ) -> TokenStream {
        if template.placeholders().next().is_none() {
            let text: String = template
                .segments
                .iter()
                .map(|s| match s {
                    Segment::Literal(l) => l.as_str(),
                    Segment::Placeholder(_) => "",
                })
                .collect();
            return quote!(#text.to_owned());
        }
        let inputs: Vec<Input<'t>> = template.placeholders().map(input).collect();
        let signature = self.key_signature(&self.keys.domains, template, &inputs);
        let Some(key_fn) = self.keys.fns.get(&signature) else {
            // Every template the emitter builds is planned in `plan_keys`;
            // one that is not is built in place.
            let mut inputs = inputs.into_iter();
            let pushes = template.segments.iter().map(|segment| match segment {
                Segment::Literal(l) => push_literal(l),
                Segment::Placeholder(_) => match inputs.next() {
                    Some(input) => self.push_value(input, quote!(#context)),
                    None => TokenStream::new(),
                },
            });
            let pushes: Vec<TokenStream> = pushes.collect();
            return quote!({
                let mut __key = String::new();
                #(#pushes)*
                __key
            });
        };
        let name = &key_fn.name;
        let mut args: Vec<TokenStream> = Vec::new();
        let mut seen: Vec<&str> = Vec::new();
        // One argument per distinct placeholder, in the order of first use
        // (the key function's parameters).
        for (p, input) in template.placeholders().zip(inputs) {
            if !seen.contains(&p.name.as_str()) {
                seen.push(p.name.as_str());
                args.push(match input {
                    Input::Tenant(expr) | Input::Shard(expr) | Input::Value { expr, .. } => expr,
                });
            }
        }
        quote!(#name(#context, #(#args),*)?)
    }

    /// What makes two key templates the same function: their literals, and
    /// per placeholder what fills it (tenant, shard, or an attribute's
    /// name, type and encoding), with repeats by position.
    fn key_signature(
        &self,
        domains: &Domains,
        template: &ir::KeyTemplate,
        inputs: &[Input<'_>],
    ) -> String {
        let mut out = String::new();
        let mut firsts: Vec<&str> = Vec::new();
        let mut inputs = inputs.iter();
        for segment in &template.segments {
            match segment {
                Segment::Literal(l) => {
                    out.push_str(&format!("L{}:{l}", l.len()));
                }
                Segment::Placeholder(p) => {
                    let input = inputs.next();
                    let at = firsts.iter().position(|n| *n == p.name.as_str());
                    let at = at.unwrap_or_else(|| {
                        firsts.push(p.name.as_str());
                        firsts.len() - 1
                    });
                    out.push_str(&format!("P{at}:"));
                    match input {
                        Some(Input::Tenant(_)) => out.push('T'),
                        Some(Input::Shard(_)) => out.push('S'),
                        Some(Input::Value {
                            entity, attribute, ..
                        }) => {
                            let ty = self.value_type(entity, attribute);
                            out.push_str(&format!(
                                "V{}:{:?}:{:?}:{ty}:{}",
                                attribute.name.len(),
                                attribute.name.as_str(),
                                attribute.key_encoding(),
                                domains
                                    .name(entity, attribute)
                                    .map(|d| d.to_string())
                                    .unwrap_or_default(),
                            ));
                            out.push_str(&format!("{:?}", attribute.r#type));
                        }
                        None => out.push('?'),
                    }
                }
            }
            out.push('|');
        }
        out
    }

    /// Plans one function per distinct key template the module builds,
    /// and one constant per distinct string domain they use: every entity
    /// key (or, for the derive, the bound entity's), every shard hash and
    /// every query's key condition.
    pub(super) fn plan_keys(
        &self,
        only: Option<&str>,
        taken: &mut super::PrivateNames,
    ) -> KeyTable {
        let mut domains = Domains::default();
        let entities = self
            .spec
            .entities
            .values()
            .filter(|e| only.is_none_or(|o| o == e.name.as_str()));
        let mut planned: Vec<(&ir::KeyTemplate, Vec<Input<'_>>, &str)> = Vec::new();
        for entity in entities {
            let receiver = super::entity::Receiver { name: "self" };
            for t in entity
                .primary_key
                .templates()
                .chain(entity.index_keys.values().flat_map(|k| k.templates()))
                .chain(entity.derived.values())
                .filter(|t| !self.spec.holds_value(t))
            {
                let inputs = t
                    .placeholders()
                    .map(|p| self.entity_input(entity, receiver, p))
                    .collect();
                planned.push((t, inputs, entity.name.as_str()));
            }
            if let Some(ir::Sharding {
                by: ir::ShardBy::Hash(attribute),
                ..
            }) = &entity.shards
            {
                if let Some(a) = entity.attributes.get(attribute.as_str()) {
                    domains.add(entity.name.as_str(), a, taken);
                }
            }
        }
        if only.is_none() {
            for plan in &self.patterns {
                let Operation::Query(q) = &plan.pattern.operation else {
                    continue;
                };
                for t in q.templates() {
                    if self.spec.holds_value(t) {
                        continue;
                    }
                    let inputs = t
                        .placeholders()
                        .map(|p| self.pattern_input(plan, q, p))
                        .collect();
                    planned.push((t, inputs, plan.pattern.name.as_str()));
                }
                if let crate::plan::QueryShards::Hashed {
                    entity, attribute, ..
                } = crate::plan::query_shards(self.spec, q)
                {
                    domains.add(entity.name.as_str(), attribute, taken);
                }
            }
        }
        for (_, inputs, _) in &planned {
            for input in inputs {
                if let Input::Value {
                    entity, attribute, ..
                } = input
                {
                    domains.add(entity, attribute, taken);
                }
            }
        }
        let mut fns = IndexMap::new();
        for (template, inputs, owner) in planned {
            if template.placeholders().next().is_none() {
                continue;
            }
            let signature = self.key_signature(&domains, template, &inputs);
            if fns.contains_key(&signature) {
                continue;
            }
            let key_fn = self.key_fn_item(&domains, template, &inputs, owner, taken);
            fns.insert(signature, key_fn);
        }
        KeyTable { fns, domains }
    }

    /// The key function of `template`, filled by `inputs`.
    fn key_fn_item(
        &self,
        domains: &Domains,
        template: &ir::KeyTemplate,
        inputs: &[Input<'_>],
        owner: &str,
        taken: &mut super::PrivateNames,
    ) -> KeyFn {
        // A key attribute's name may start with a digit (`1pk`): no `__`
        // inside the function's name.
        let attribute = snake(&template.attribute);
        let name = taken.claim(format!(
            "__{}_{}",
            snake(owner),
            attribute.trim_start_matches('_')
        ));
        let mut params: Vec<TokenStream> = Vec::new();
        let mut described: Vec<String> = Vec::new();
        let mut param_names: Vec<(String, Ident)> = Vec::new();
        let mut capacity = 0;
        let mut pushes = Vec::new();
        let mut inputs = inputs.iter();
        for segment in &template.segments {
            match segment {
                Segment::Literal(l) => {
                    capacity += l.len();
                    pushes.push(push_literal(l));
                }
                Segment::Placeholder(p) => {
                    let Some(input) = inputs.next() else {
                        continue;
                    };
                    capacity += self.reserved_width(input);
                    let ident = match param_names.iter().find(|(n, _)| n == p.name.as_str()) {
                        Some((_, ident)) => ident.clone(),
                        None => {
                            let ident = match input {
                                Input::Tenant(_) => format_ident!("__tenant"),
                                Input::Shard(_) => format_ident!("__shard"),
                                Input::Value { .. } => {
                                    let mut ident = snake(p.name.as_str());
                                    while param_names.iter().any(|(_, i)| *i == ident) {
                                        ident.push('_');
                                    }
                                    crate::naming::ident(&ident)
                                }
                            };
                            described.push(match input {
                                Input::Tenant(_) => format!("{ident}: tenant"),
                                Input::Shard(_) => format!("{ident}: shard"),
                                Input::Value {
                                    entity, attribute, ..
                                } => format!(
                                    "{ident}: {entity}.{} in {}",
                                    attribute.name.as_str(),
                                    attribute.key_encoding().describe()
                                ),
                            });
                            params.push(match input {
                                Input::Tenant(_) => {
                                    let scope = match &self.binding {
                                        Some(binding) => binding.scope.clone(),
                                        None => quote!(TenantId),
                                    };
                                    quote!(#ident: &#scope)
                                }
                                Input::Shard(_) => quote!(#ident: u32),
                                Input::Value {
                                    entity, attribute, ..
                                } => {
                                    let ty = self.borrowed_type(entity, attribute);
                                    quote!(#ident: #ty)
                                }
                            });
                            param_names.push((p.name.to_string(), ident.clone()));
                            ident
                        }
                    };
                    let input = match input {
                        Input::Tenant(_) => Input::Tenant(quote!(#ident)),
                        Input::Shard(_) => Input::Shard(quote!(#ident)),
                        Input::Value {
                            entity, attribute, ..
                        } => Input::Value {
                            expr: quote!(#ident),
                            entity,
                            attribute,
                        },
                    };
                    pushes.push(push_value(input, domains, quote!(__context)));
                }
            }
        }
        let doc = format!(" Builds `{}`.", template.source.as_str());
        let capacity = proc_macro2::Literal::usize_unsuffixed(capacity);
        let item = quote! {
            #[doc = #doc]
            fn #name(__context: &'static str, #(#params),*) -> Result<String, __rt::ValueError> {
                let mut __key = String::with_capacity(#capacity);
                #(#pushes)*
                Ok(__key)
            }
        };
        let describe = format!(
            "({}) builds `{}`",
            described.join(", "),
            template.source.as_str()
        );
        KeyFn {
            name,
            item,
            describe,
        }
    }
    /// The bytes a key buffer reserves for one placeholder: the greatest
    /// length of its encoding (exact for integers, timestamps, enums and
    /// shards), at most [`RESERVED_WIDTH`] for long or unbounded strings,
    /// so a typical key is built in one allocation.
    fn reserved_width(&self, input: &Input<'_>) -> usize {
        let domain = match input {
            Input::Tenant(_) => self.spec.tenant.as_ref().map(encoding::tenant_domain),
            Input::Shard(_) => Some(encoding::shard_domain(u32::MAX)),
            Input::Value { attribute, .. } => Some(encoding::attribute_domain(attribute)),
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
        // A natural key, and a number key's one placeholder, hold the value
        // as it is stored: a number key is a DynamoDB number, not the
        // zero-padded (and offset) text of a string key.
        if self.spec.holds_value(template) {
            if let Some(p) = template.placeholders().next() {
                // The value is stored as it is: the rules of its attribute
                // apply, as to any attribute written.
                let rule = match input(p) {
                    Input::Value {
                        entity, attribute, ..
                    } if super::types::checks_on_read(&attribute.r#type) => self
                        .rule(entity, &attribute.name, &attribute.r#type)
                        .map(|rule| (rule, attribute.name.as_str())),
                    Input::Value { .. } | Input::Tenant(_) | Input::Shard(_) => None,
                };
                let value = natural_value(input(p), context);
                return match rule {
                    Some((rule, name)) => quote!({
                        let value = #value;
                        __rt::codec::check_value(&value, #rule, #context, #name)?;
                        value
                    }),
                    None => value,
                };
            }
        }
        let key = self.build_key_string(template, context, input);
        match key_type {
            KeyType::Number => quote!(__rt::N(#key)),
            KeyType::String | KeyType::Binary => {
                quote!(__rt::S(#key))
            }
        }
    }

    /// The key functions and key-domain constants the module uses.
    pub(super) fn emit_domains(&self) -> TokenStream {
        let fns = self.keys.fns.values().map(|f| &f.item);
        let domains = self.keys.domains.by_content.values().map(|d| &d.item);
        let rules = self.emit_rules();
        quote! {
            #(#fns)*
            #(#domains)*
            #rules
        }
    }

    /// A block computing the shard, one of `count`, that a stable hash of
    /// `expr` (a value of `attribute` of `entity`) picks.
    pub(super) fn hash_shard(
        &self,
        entity: &str,
        attribute: &ir::Attribute,
        expr: TokenStream,
        count: u32,
    ) -> TokenStream {
        let push = self.push_value(
            Input::Value {
                expr,
                entity,
                attribute,
            },
            quote!(#entity),
        );
        quote!({
            let mut __key = String::new();
            #push
            __rt::codec::hash_shard(&__key, #count)
        })
    }

    /// Appends one placeholder's encoded value to `__key`.
    pub(super) fn push_value(&self, input: Input<'_>, context: TokenStream) -> TokenStream {
        push_value(input, &self.keys.domains, context)
    }
}

/// Decided before any code is printed: one function per distinct key
/// template (literals, and what fills each placeholder), one constant per
/// distinct string domain. Both live in the `__` namespace a spec cannot
/// name, so they never clash with generated names.
#[derive(Default)]
pub(super) struct KeyTable {
    /// Per signature ([`Emitter::key_signature`]).
    fns: IndexMap<String, KeyFn>,
    /// The key-domain constants.
    domains: Domains,
}

/// One key-domain constant per distinct domain of the string attributes
/// written into keys.
#[derive(Default)]
pub(super) struct Domains {
    /// Per domain content.
    by_content: IndexMap<String, Domain>,
    /// `(entity, attribute)` → index into `by_content`.
    domain_of: IndexMap<(String, String), usize>,
}

/// One key function.
pub(super) struct KeyFn {
    name: Ident,
    item: TokenStream,
    /// The template it builds and its parameters with their key
    /// encodings, in words (the model's snapshot).
    describe: String,
}

/// One key-domain constant.
pub(super) struct Domain {
    name: Ident,
    item: TokenStream,
}

impl KeyTable {
    /// The key functions and domain constants, one line each: what the
    /// model snapshot shows.
    pub(super) fn describe(&self) -> Vec<String> {
        let fns = self
            .fns
            .values()
            .map(|f| format!("fn {}{}", f.name, f.describe));
        let domains = self
            .domains
            .by_content
            .iter()
            .map(|(content, d)| format!("const {}: {content}", d.name));
        fns.chain(domains).collect()
    }
}

impl Domains {
    /// The constant holding the key domain of a string attribute.
    fn name(&self, entity: &str, attribute: &ir::Attribute) -> Option<&Ident> {
        let at = self
            .domain_of
            .get(&(entity.to_owned(), attribute.name.to_string()))?;
        self.by_content.get_index(*at).map(|(_, d)| &d.name)
    }

    /// Plans the domain of a string attribute written into keys.
    fn add(&mut self, entity: &str, attribute: &ir::Attribute, taken: &mut super::PrivateNames) {
        if !matches!(
            attribute.key_encoding(),
            KeyEncoding::Text | KeyEncoding::Escaped | KeyEncoding::Cased { .. }
        ) {
            return;
        }
        let id = (entity.to_owned(), attribute.name.to_string());
        if self.domain_of.contains_key(&id) {
            return;
        }
        // The unescaped domain: the bounds the value itself must meet
        // (escaping happens after the check, in the runtime).
        let domain = encoding::type_domain(&attribute.r#type, false);
        let content = format!(
            "{}|{:?}|{:?}|{}",
            domain.min_len,
            domain.max_len,
            domain.alphabet.ranges,
            attribute.key_encoding().is_escaped()
        );
        let at = match self.by_content.get_index_of(&content) {
            Some(at) => at,
            None => {
                let name = taken.claim(format!("__{}", screaming(attribute.name.as_str())));
                let doc = format!(
                    " What `{entity}.{}` may hold in a key.",
                    attribute.name.as_str()
                );
                let domain = str_domain(attribute);
                let item = quote! {
                    #[doc = #doc]
                    const #name: __rt::codec::StrDomain = { #domain };
                };
                self.by_content.insert(content, Domain { name, item });
                self.by_content.len() - 1
            }
        };
        self.domain_of.insert(id, at);
    }
}

/// The statements of a block whose value is the unescaped key domain of a
/// string attribute: the bounds the value itself must meet (escaping happens
/// after the check, in the runtime).
fn str_domain(attribute: &ir::Attribute) -> TokenStream {
    let domain = encoding::type_domain(&attribute.r#type, false);
    let min = domain.min_len;
    let max = super::option_usize(domain.max_len);
    let ranges = super::char_ranges(&domain.alphabet);
    let escape = attribute.key_encoding().is_escaped();
    quote! {
        const ALPHABET: &[(char, char)] = &[#(#ranges),*];
        __rt::codec::StrDomain {
            min_len: #min,
            max_len: #max,
            alphabet: ALPHABET,
            ascii: __rt::codec::ascii_bits(ALPHABET),
            escape: #escape,
        }
    }
}

/// Appends a literal to `__key`.
fn push_literal(text: &str) -> TokenStream {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => quote!(__key.push(#c);),
        _ => quote!(__key.push_str(#text);),
    }
}

/// Appends one placeholder's encoded value to `__key`; a string's value is
/// checked against its constant in `domains`.
fn push_value(input: Input<'_>, domains: &Domains, context: TokenStream) -> TokenStream {
    match input {
        Input::Tenant(expr) => quote!(__key.push_str(#expr.as_str());),
        Input::Shard(expr) => quote!(__key.push_str(&#expr.to_string());),
        Input::Value {
            expr,
            entity,
            attribute,
        } => {
            let name = attribute.name.as_str();
            let encoding = attribute.key_encoding();
            match encoding {
                KeyEncoding::Text | KeyEncoding::Escaped | KeyEncoding::Cased { .. } => {
                    let domain = match domains.name(entity, attribute) {
                        Some(domain) => quote!(#domain),
                        // Every string attribute of a planned template has a
                        // constant (`Domains::add`); any other is checked
                        // against its domain written out in place.
                        None => {
                            let domain = str_domain(attribute);
                            quote!({ #domain })
                        }
                    };
                    match encoding.case() {
                        None => quote!(
                            __rt::codec::push_str(&mut __key, #expr, &#domain, #context, #name)?;
                        ),
                        Some(case) => {
                            let case = match case {
                                crate::syntax::KeyCase::Lower => quote!(__rt::codec::Case::Lower),
                                crate::syntax::KeyCase::Upper => quote!(__rt::codec::Case::Upper),
                            };
                            quote!(
                                __rt::codec::push_cased(&mut __key, #expr, &#domain, #case, #context, #name)?;
                            )
                        }
                    }
                }
                KeyEncoding::Integer { .. } => {
                    let (min, max) = attribute.r#type.integer_bounds();
                    quote!(__rt::codec::push_integer(&mut __key, #expr, #min, #max, #context, #name)?;)
                }
                KeyEncoding::Datetime { format, precision } => {
                    let format =
                        time_format(format, precision.unwrap_or(ir::TimePrecision::Seconds));
                    quote!(__rt::codec::push_datetime(&mut __key, #expr, #format, #context, #name)?;)
                }
                // The word of an enum value, or of a boolean.
                KeyEncoding::Word if attribute.r#type == AttributeType::Boolean => {
                    quote!(__key.push_str(if #expr { "true" } else { "false" });)
                }
                KeyEncoding::Word => quote!(
                    __rt::codec::push_word(&mut __key, #expr.as_str(), #context, #name)?;
                ),
                // A value with no key encoding is refused by `check`
                // (`singletable::placeholder_type`) before any code is
                // generated; written anyway, the key is refused at run time.
                KeyEncoding::None => quote!(
                    return Err(__rt::codec::not_in_key(#context, #name));
                ),
            }
        }
    }
}
