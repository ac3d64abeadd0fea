//! One method per access pattern, and the types and helpers behind them.

use indexmap::IndexMap;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::keys::Input;
use super::repo::Handle;
use super::{doc, Emitter, Private};
use crate::ir::{self, IndexRef, Operation, PlaceholderKind, SortOp, TransactionOp};
use crate::names::{BuilderOp, Item};
use crate::plan::QueryShards;

/// What an access pattern's printers need, decided once before printing:
/// the handle its method lives on, the entities it names and the entity
/// attribute each parameter takes its type and encoding from.
#[derive(Debug, Clone)]
pub(super) struct PatternPlan<'a> {
    /// The pattern.
    pub pattern: &'a ir::AccessPattern,
    /// `Repository` or `TenantRepository`.
    pub handle: Handle,
    /// The entities it returns, matches, reads or writes, by name.
    pub entities: IndexMap<&'a str, &'a ir::Entity>,
    /// Per query parameter: the first entity attribute it binds.
    pub params: IndexMap<&'a str, (&'a ir::Entity, &'a ir::Attribute)>,
    /// The partial type of each entity it reads in part.
    pub partials: IndexMap<&'a str, Ident>,
    /// The type of each entity it names.
    pub types: IndexMap<&'a str, Ident>,
}

impl<'a> PatternPlan<'a> {
    /// The entity named `name` in the pattern.
    fn entity(&self, name: &str) -> &'a ir::Entity {
        match self.entities.get(name) {
            Some(entity) => entity,
            None => panic!("invariant: a pattern's plan holds every entity it names (`{name}`)"),
        }
    }

    /// The type an item of entity `name` is read as: its partial type, or
    /// its struct.
    fn read_type(&self, name: &str) -> Ident {
        match self.partials.get(name) {
            Some(ty) => ty.clone(),
            None => self.entity_type(name),
        }
    }

    /// The struct of entity `name`.
    fn entity_type(&self, name: &str) -> Ident {
        match self.types.get(name) {
            Some(ty) => ty.clone(),
            None => panic!("invariant: a pattern's plan holds every entity it names (`{name}`)"),
        }
    }
}

impl<'a> Emitter<'a> {
    /// Plans every access pattern (see [`PatternPlan`]).
    pub(super) fn plan_patterns(&self) -> Vec<PatternPlan<'a>> {
        let spec: &'a ir::Spec = self.spec;
        spec.access_patterns
            .values()
            .map(|pattern| {
                let names: Vec<&String> = match &pattern.operation {
                    Operation::Get { entity, .. } => vec![entity],
                    Operation::Query(q) => q.returns.iter().chain(&q.matching).collect(),
                    Operation::Scan(scan) => vec![&scan.entity],
                    Operation::Transaction(t) => t.items.iter().map(|(_, e)| e).collect(),
                    Operation::Batch(b) => b.get.iter().chain(&b.put).chain(&b.delete).collect(),
                };
                let entities: IndexMap<&'a str, &'a ir::Entity> = names
                    .into_iter()
                    .filter_map(|n| spec.entities.get(n).map(|e| (e.name.as_str(), e)))
                    .collect();
                let params = match &pattern.operation {
                    Operation::Query(q) => q
                        .params
                        .values()
                        .filter_map(|p| {
                            let bound = p.binds.iter().find_map(|(entity, attribute)| {
                                let e = spec.entities.get(entity)?;
                                Some((e, e.attributes.get(attribute)?))
                            })?;
                            Some((p.name.as_str(), bound))
                        })
                        .collect(),
                    Operation::Get { .. }
                    | Operation::Scan(_)
                    | Operation::Transaction(_)
                    | Operation::Batch(_) => IndexMap::new(),
                };
                let scoped = match &pattern.operation {
                    Operation::Query(q) => {
                        q.pk.placeholders()
                            .any(|p| p.kind == PlaceholderKind::Tenant)
                            || q.returns
                                .iter()
                                .filter_map(|e| entities.get(e.as_str()))
                                .any(|e| self.is_tenant_scoped(e))
                    }
                    Operation::Get { .. }
                    | Operation::Scan(_)
                    | Operation::Transaction(_)
                    | Operation::Batch(_) => entities.values().any(|e| self.is_tenant_scoped(e)),
                };
                let handle = if scoped && self.has_tenant() {
                    Handle::Tenant
                } else {
                    Handle::Table
                };
                let p = pattern.name.as_str();
                let partials = pattern
                    .partials
                    .keys()
                    .map(|e| (e.as_str(), self.name(Item::Partial(p, e.as_str()))))
                    .collect();
                let types = entities
                    .keys()
                    .map(|e| (*e, self.name(Item::Entity(e))))
                    .collect();
                PatternPlan {
                    pattern,
                    handle,
                    entities,
                    params,
                    partials,
                    types,
                }
            })
            .collect()
    }

    /// The methods of every access pattern on `handle`.
    pub(super) fn pattern_methods(&self, handle: Handle) -> Vec<TokenStream> {
        self.patterns
            .iter()
            .filter(|p| p.handle == handle)
            .map(|p| self.pattern_method(p))
            .collect()
    }

    /// Module-level items behind the pattern methods.
    pub(super) fn emit_pattern_support(&self) -> Vec<TokenStream> {
        self.patterns
            .iter()
            .map(|plan| match &plan.pattern.operation {
                Operation::Query(q) => self.query_support(plan, q),
                Operation::Scan(scan) => self.scan_support(plan, scan),
                Operation::Transaction(t) => self.transaction_builder(plan, t),
                Operation::Batch(b) => self.batch_builder(plan, b),
                Operation::Get { .. } => self.partial_defs(plan),
            })
            .collect()
    }

    fn pattern_doc(pattern: &ir::AccessPattern, detail: String) -> TokenStream {
        let mut text = pattern.description.clone().unwrap_or_default();
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(&detail);
        doc(Some(&text))
    }

    fn pattern_method(&self, plan: &PatternPlan<'a>) -> TokenStream {
        let (pattern, handle) = (plan.pattern, plan.handle);
        let name = self.name(Item::Pattern(pattern.name.as_str()));
        let repo = handle.repo();
        match &pattern.operation {
            Operation::Get {
                entity,
                consistent_read,
            } => {
                let e = plan.entity(entity);
                let key_ty = self.name(Item::Key(e.name.as_str()));
                let scope = self.scope_expr(e, handle);
                let gate = self.pending_job(pattern).map(|job| {
                    let name = pattern.name.as_str();
                    quote! {
                        if !#repo.__pending_allowed() {
                            return Err(__rt::Error::Pending { pattern: #name, job: #job });
                        }
                    }
                });
                if let Some(ty) = plan.partials.get(entity.as_str()) {
                    let projection = self.projection(plan, None).unwrap_or_else(|| quote!(&[]));
                    let doc = Self::pattern_doc(
                        pattern,
                        format!(
                            "GetItem of the attributes of one [`{entity}`] that [`{ty}`] holds."
                        ),
                    );
                    return quote! {
                        #doc
                        pub async fn #name(&self, key: &#key_ty) -> Result<Option<#ty>, __rt::Error> {
                            #gate
                            #repo.__table().get_partial(key, #scope, #consistent_read, #projection).await
                        }
                    };
                }
                let ty = plan.entity_type(entity);
                let doc = Self::pattern_doc(pattern, format!("GetItem of one [`{entity}`]."));
                let read = if *consistent_read {
                    format_ident!("get_consistent")
                } else {
                    format_ident!("get")
                };
                quote! {
                    #doc
                    pub async fn #name(&self, key: &#key_ty) -> Result<Option<#ty>, __rt::Error> {
                        #gate
                        #repo.__table().#read(key, #scope).await
                    }
                }
            }
            Operation::Query(q) => {
                let params = self.param_list(plan, q);
                let args = self.arg_names(pattern.name.as_str(), q);
                let item = self.query_item_type(plan, q);
                let request = self.private_fn(Private::Request(pattern.name.to_string()));
                let decode = self.private_fn(Private::Decode(pattern.name.to_string()));
                let index = match &q.index {
                    IndexRef::Table => "the table".to_owned(),
                    IndexRef::Index(i) => format!("index `{i}`"),
                };
                let condition = crate::plan::key_condition(q);
                let filter = crate::plan::filter_text(q)
                    .map(|f| format!(" Filtered after the read: `{f}`."))
                    .unwrap_or_default();
                let doc = Self::pattern_doc(
                    pattern,
                    format!("Query of {index}: `{condition}` with `:pk` = `{}`.{filter} Returns a lazy [`::singletable_runtime::Query`]: call `.all()`, `.items()` or `.pages()`.", q.pk.source.as_str()),
                );
                let request = self.gated(pattern, &repo, quote!(#request(self, #(#args),*)));
                quote! {
                    #doc
                    pub fn #name(&self, #(#params),*) -> __rt::Query<#item> {
                        #repo.__query(#request, #decode)
                    }
                }
            }
            Operation::Scan(scan) => {
                let params = self.filter_param_list(plan, &scan.filter);
                let p = pattern.name.as_str();
                let args =
                    filter_params(&scan.filter).map(|(_, name, _)| self.name(Item::Param(p, name)));
                let ty = plan.entity_type(&scan.entity);
                let request = self.private_fn(Private::Request(pattern.name.to_string()));
                let decode = self.private_fn(Private::Decode(pattern.name.to_string()));
                let target = match &scan.index {
                    IndexRef::Table => "the table".to_owned(),
                    IndexRef::Index(i) => format!("index `{i}`"),
                };
                let filter = crate::plan::conditions_text(&scan.filter)
                    .map(|f| format!(" Filtered after the read: `{f}`."))
                    .unwrap_or_default();
                let doc = Self::pattern_doc(
                    pattern,
                    format!("Scan of {target}, returning its [`{}`] items (those of other entities are skipped).{filter} Returns a lazy [`::singletable_runtime::Scan`]: `.segments(n)` reads n segments at once, `.segment(i, n)` one worker's share; then `.all()`, `.items()` or `.pages()`. A tenant's policy denies Scan: run it with the credentials of the role that lists it.", scan.entity),
                );
                let request = self.gated(pattern, &repo, quote!(#request(self, #(#args),*)));
                quote! {
                    #doc
                    pub fn #name(&self, #(#params),*) -> __rt::Scan<#ty> {
                        __rt::Scan::new(self.client.clone(), #request, #decode)
                    }
                }
            }
            Operation::Transaction(_) | Operation::Batch(_) => {
                let builder = self.name(Item::Builder(pattern.name.as_str()));
                let what = if matches!(pattern.operation, Operation::Transaction(_)) {
                    "TransactWriteItems: add items, then `send()`; all or nothing."
                } else {
                    "Batch: add items, then `send()`; chunked, with unprocessed items retried."
                };
                let doc = Self::pattern_doc(pattern, what.to_owned());
                let fields = builder_fields(&pattern.operation)
                    .into_iter()
                    .map(|(f, _)| f);
                let tenant =
                    (handle == Handle::Tenant).then(|| quote!(tenant: Clone::clone(&self.tenant),));
                let lifetime = if handle == Handle::Tenant {
                    quote!('a)
                } else {
                    quote!('_)
                };
                quote! {
                    #doc
                    pub fn #name(&self) -> #builder<#lifetime> {
                        #builder {
                            repo: #repo,
                            #tenant
                            #(#fields: Default::default(),)*
                        }
                    }
                }
            }
        }
    }

    /// `resolver: &str, since: DateTime` parameters of a query: its key
    /// condition's, then its filter's.
    fn param_list(&self, plan: &PatternPlan<'a>, q: &'a ir::Query) -> Vec<TokenStream> {
        let pattern = plan.pattern.name.as_str();
        let keys = q.params.values().map(|p| {
            let name = self.name(Item::Param(pattern, p.name.as_str()));
            let ty = match plan.params.get(p.name.as_str()) {
                Some((entity, a)) => self.borrowed_type(entity.name.as_str(), a),
                None => panic!(
                    "invariant: resolve binds every parameter of a query to an attribute (`{}`)",
                    p.name.as_str()
                ),
            };
            quote!(#name: #ty)
        });
        keys.chain(self.filter_param_list(plan, &q.filter))
            .collect()
    }

    /// `max_price: &Decimal` parameters of a filter.
    fn filter_param_list(
        &self,
        plan: &PatternPlan<'a>,
        filter: &'a [ir::FilterCondition],
    ) -> Vec<TokenStream> {
        let pattern = plan.pattern.name.as_str();
        filter_params(filter)
            .map(|(condition, name, ty)| {
                let ident = self.name(Item::Param(pattern, name));
                let ty = self.filter_param_type(plan, condition, ty);
                quote!(#ident: #ty)
            })
            .collect()
    }

    /// The argument names of a query's method, in [`Self::param_list`]'s
    /// order.
    fn arg_names(&self, pattern: &'a str, q: &'a ir::Query) -> Vec<Ident> {
        q.params
            .keys()
            .map(|p| self.name(Item::Param(pattern, p)))
            .chain(
                filter_params(&q.filter).map(|(_, name, _)| self.name(Item::Param(pattern, name))),
            )
            .collect()
    }

    /// The type a filter parameter is passed as.
    fn filter_param_type(
        &self,
        plan: &PatternPlan<'a>,
        condition: &ir::FilterCondition,
        ty: &ir::AttributeType,
    ) -> TokenStream {
        use ir::AttributeType as T;
        match ty {
            T::String { .. } => quote!(&str),
            T::Decimal { .. } => quote!(&__rt::Decimal),
            T::Enum { .. } => {
                let entity = plan
                    .entities
                    .values()
                    .find(|e| e.attributes.contains_key(&condition.attribute));
                match entity {
                    Some(e) => self.type_of(e.name.as_str(), &condition.attribute, ty),
                    None => panic!("invariant: a filter's attribute is an attribute of an entity its pattern reads (`{}`)", condition.attribute),
                }
            }
            other @ (T::Integer { .. }
            | T::Boolean
            | T::Datetime { .. }
            | T::List { .. }
            | T::Map { .. }
            | T::Set { .. }
            | T::Binary { .. }) => self.type_of("", "", other),
        }
    }

    /// The `(placeholder, value expression)` pairs of a query's filter
    /// operands (see [`crate::plan::filter_expression`]).
    fn filter_values(
        &self,
        pattern: &'a str,
        filter: &'a [ir::FilterCondition],
    ) -> Vec<(String, TokenStream)> {
        filter
            .iter()
            .enumerate()
            .flat_map(|(i, condition)| {
                condition
                    .operands
                    .iter()
                    .enumerate()
                    .map(move |(j, operand)| {
                        (
                            format!(":f{i}_{j}"),
                            self.filter_value(pattern, condition, operand),
                        )
                    })
            })
            .collect()
    }

    /// A filter operand as an `AttributeValue` expression, stored as the
    /// attribute is (a datetime in its format); `?` on a `ValueError`.
    fn filter_value(
        &self,
        pattern: &'a str,
        condition: &'a ir::FilterCondition,
        operand: &'a ir::FilterOperand,
    ) -> TokenStream {
        let param = |name: &'a str| self.name(Item::Param(pattern, name));
        match operand_value_of(pattern, condition, operand, &param) {
            (value, true) => quote!(#value?),
            (value, false) => value,
        }
    }

    fn query_item_type(&self, plan: &PatternPlan<'a>, q: &'a ir::Query) -> TokenStream {
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

    fn query_support(&self, plan: &PatternPlan<'a>, q: &'a ir::Query) -> TokenStream {
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
    fn partial_defs(&self, plan: &PatternPlan<'a>) -> TokenStream {
        let pattern = plan.pattern;
        let index = match &pattern.operation {
            Operation::Query(q) => match &q.index {
                IndexRef::Index(i) => Some(i.as_str()),
                IndexRef::Table => None,
            },
            Operation::Get { .. }
            | Operation::Scan(_)
            | Operation::Transaction(_)
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
                let partial = super::entity::Partial {
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
    fn projection(&self, plan: &PatternPlan<'a>, index: Option<&str>) -> Option<TokenStream> {
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

    fn item_enum_def(&self, plan: &PatternPlan<'a>, returns: &'a [String]) -> TokenStream {
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

    fn decoder(
        &self,
        plan: &PatternPlan<'a>,
        returns: &'a [String],
        matching: &'a [String],
        item: &TokenStream,
    ) -> TokenStream {
        let pattern = plan.pattern;
        let name = self.private_fn(Private::Decode(pattern.name.to_string()));
        let pattern_name = pattern.name.as_str();
        let index = super::option_str(Self::read_index(pattern));
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

    /// The index an access pattern reads through, if any.
    fn read_index(pattern: &ir::AccessPattern) -> Option<&str> {
        let index = match &pattern.operation {
            Operation::Query(q) => &q.index,
            Operation::Scan(s) => &s.index,
            Operation::Get { .. } | Operation::Transaction(_) | Operation::Batch(_) => return None,
        };
        match index {
            IndexRef::Index(i) => Some(i.as_str()),
            IndexRef::Table => None,
        }
    }

    /// How the query's `<shard>` is filled: one shard computed from a
    /// parameter, every shard, or none ([`crate::plan::query_shards`]);
    /// every shard is a partition of the request, and the results are
    /// merged.
    fn shard_plan(&self, pattern: &'a str, q: &'a ir::Query) -> Option<(u32, Option<TokenStream>)> {
        match crate::plan::query_shards(self.spec, q) {
            QueryShards::Unsharded => None,
            QueryShards::Every { count } => Some((count, None)),
            QueryShards::Hashed {
                entity,
                attribute,
                param,
                count,
            } => {
                let ident = self.name(Item::Param(pattern, param.name.as_str()));
                let hash = self.hash_shard(entity.name.as_str(), attribute, quote!(#ident), count);
                Some((count, Some(hash)))
            }
        }
    }

    /// What fills a placeholder of a query's key condition.
    pub(super) fn pattern_input(
        &self,
        plan: &PatternPlan<'a>,
        q: &'a ir::Query,
        p: &'a ir::Placeholder,
    ) -> Input<'a> {
        match p.kind {
            PlaceholderKind::Tenant => Input::Tenant(quote!(__tenant)),
            PlaceholderKind::Shard => Input::Shard(quote!(__shard)),
            PlaceholderKind::Attribute => {
                let (param, (entity, attribute)) = q
                    .params
                    .get(p.name.as_str())
                    .and_then(|param| Some((param, *plan.params.get(param.name.as_str())?)))
                    .unwrap_or_else(|| panic!("invariant: resolve binds every placeholder of a query's key condition to an attribute (`{}`)", p.name.as_str()));
                let ident = self.name(Item::Param(plan.pattern.name.as_str(), param.name.as_str()));
                Input::Value {
                    expr: quote!(#ident),
                    entity: entity.name.as_str(),
                    attribute,
                }
            }
        }
    }

    fn request_fn(&self, plan: &PatternPlan<'a>, q: &'a ir::Query) -> TokenStream {
        let (pattern, handle) = (plan.pattern, plan.handle);
        let name = self.private_fn(Private::Request(pattern.name.to_string()));
        let pattern_name = pattern.name.as_str();
        let params = self.param_list(plan, q);
        let (handle_ty, bind) = match handle {
            Handle::Tenant => (
                quote!(TenantRepository<'_>),
                quote!(let (__table, __tenant) = (__handle.repo.table_name(), &__handle.tenant);),
            ),
            Handle::Table => (
                quote!(Repository),
                quote!(let __table = __handle.table_name();),
            ),
        };
        let input = |p| self.pattern_input(plan, q, p);
        let index = match &q.index {
            IndexRef::Table => None,
            IndexRef::Index(i) => Some(i.as_str()),
        };
        let pk_type = self.key_type(index, q.pk.attribute.as_str());
        let pk = self.key_value(&q.pk, pk_type, pattern_name, &input);
        let mut values = vec![(":pk".to_owned(), pk)];
        let mut names = vec![{
            let a = q.pk.attribute.as_str();
            quote!(("#pk", #a))
        }];
        if let Some(sk) = &q.sk {
            if let Some(first) = sk.operands.first() {
                let a = first.attribute.as_str();
                names.push(quote!(("#sk", #a)));
            }
            for (i, operand) in sk.operands.iter().enumerate() {
                let placeholder = if sk.op == SortOp::Between {
                    format!(":sk{i}")
                } else {
                    ":sk".to_owned()
                };
                let sk_type = self.key_type(index, operand.attribute.as_str());
                let value = self.key_value(operand, sk_type, pattern_name, &input);
                values.push((placeholder, value));
            }
        }
        let condition = crate::plan::key_condition(q);
        let point = crate::plan::reads_shards_in_batch(self.spec, pattern);
        let index_tokens = index.map(|i| quote!(Some(#i)));
        let consistent = q.consistent_read.then(|| quote!(true));
        let forward = q.order == ir::Order::Ascending;
        let table = &self.spec.table;
        let sort_key = match index {
            Some(i) => self.spec.indexes.get(i).and_then(|i| i.sort_key.as_ref()),
            None => table.sort_key.as_ref(),
        };
        let sort_key = sort_key.map(|k| {
            let k = k.name.as_str();
            quote!(Some(#k))
        });
        let key_attributes = self.position_attributes(index);
        let ttl = self.spec.table.ttl.as_ref().map(|t| {
            let t = t.as_str();
            quote!(Some(#t))
        });
        let (binds, pairs): (Vec<TokenStream>, Vec<TokenStream>) = values
            .iter()
            .enumerate()
            .map(|(i, (placeholder, value))| {
                let v = format_ident!("__v{i}");
                (quote!(let #v = #value;), quote!((#placeholder, #v)))
            })
            .unzip();
        let one = quote! {
            #(#binds)*
            __partitions.push(__rt::ops::values([#(#pairs),*]));
        };
        let tenant_keys = self.tenant_shapes(plan, q).map(|shapes| {
            let pk = self.spec.table.partition_key.name.as_str();
            let shapes = shapes.iter().map(|(literal, delimiter)| match delimiter {
                Some(d) => quote!((#literal, Some(#d))),
                None => quote!((#literal, None)),
            });
            quote!(Some(__rt::TenantKeys::new(__tenant, #pk, &[#(#shapes),*])))
        });
        let projection = self.projection(plan, index);
        let FilterTokens {
            names: filter_names,
            filter,
            values: filter_values,
            ranges: filter_ranges,
        } = self.filter_tokens(pattern_name, &q.filter);
        names.extend(filter_names);
        // One partition's values go straight into the request; a sharded
        // query's, one for each shard read.
        let (fill, partitions) = match self.shard_plan(pattern.name.as_str(), q) {
            None => (
                quote!(#(#binds)*),
                quote!(vec![__rt::ops::values([#(#pairs),*])]),
            ),
            Some((_, Some(hash))) => (
                quote!(let mut __partitions = Vec::new(); { let __shard: u32 = #hash; #one }),
                quote!(__partitions),
            ),
            Some((count, None)) => (
                quote!(let mut __partitions = Vec::new(); for __shard in 0..#count { #one }),
                quote!(__partitions),
            ),
        };
        let filtered = !q.filter.is_empty();
        let request = super::literal_without_defaults(
            quote!(__rt::QueryRequest),
            &[
                ("pattern", Some(quote!(#pattern_name))),
                ("table", Some(quote!(__table.to_owned()))),
                ("index", index_tokens),
                ("key_condition", Some(quote!(#condition))),
                ("point", point.then(|| quote!(true))),
                ("names", Some(quote!(&[#(#names),*]))),
                ("partitions", Some(partitions)),
                ("consistent_read", consistent),
                ("forward", Some(quote!(#forward))),
                ("ttl_attribute", ttl),
                ("sort_key", sort_key),
                ("key_attributes", Some(quote!(&[#(#key_attributes),*]))),
                ("tenant", tenant_keys),
                ("projection", projection),
                ("filter", filtered.then_some(filter)),
                ("filter_values", filtered.then_some(filter_values)),
                (
                    "filter_ranges",
                    (!filter_ranges.is_empty()).then(|| quote!(&[#(#filter_ranges),*])),
                ),
            ],
        );
        quote! {
            fn #name(__handle: &#handle_ty, #(#params),*) -> Result<__rt::QueryRequest, __rt::Error> {
                #bind
                #fill
                Ok(#request)
            }
        }
    }

    /// The attributes of an item's position in the table or `index`: the
    /// table's keys, and the index's.
    fn position_attributes(&self, index: Option<&str>) -> Vec<&'a str> {
        let spec: &'a ir::Spec = self.spec;
        let table = &spec.table;
        let (index_pk, index_sk) = match index.and_then(|i| spec.indexes.get(i)) {
            Some(i) => (Some(&i.partition_key), i.sort_key.as_ref()),
            None => (None, None),
        };
        let mut out: Vec<&'a str> = Vec::new();
        let keys = [
            Some(&table.partition_key),
            table.sort_key.as_ref(),
            index_pk,
            index_sk,
        ];
        for k in keys.into_iter().flatten() {
            if !out.contains(&k.name.as_str()) {
                out.push(k.name.as_str());
            }
        }
        out
    }

    /// The request of a scan access pattern, on the table's handle.
    fn scan_request_fn(&self, plan: &PatternPlan<'a>, scan: &'a ir::Scan) -> TokenStream {
        let pattern_name = plan.pattern.name.as_str();
        let name = self.private_fn(Private::Request(pattern_name.to_owned()));
        let params = self.filter_param_list(plan, &scan.filter);
        let index = match &scan.index {
            IndexRef::Table => None,
            IndexRef::Index(i) => Some(i.as_str()),
        };
        let index_tokens = index.map(|i| quote!(Some(#i)));
        let key_attributes = self.position_attributes(index);
        let ttl = self.spec.table.ttl.as_ref().map(|t| {
            let t = t.as_str();
            quote!(Some(#t))
        });
        let FilterTokens {
            names,
            filter,
            values,
            ranges,
        } = self.filter_tokens(pattern_name, &scan.filter);
        let filtered = !scan.filter.is_empty();
        let request = super::literal_without_defaults(
            quote!(__rt::ScanRequest),
            &[
                ("table", Some(quote!(__handle.table_name().to_owned()))),
                ("index", index_tokens),
                ("names", filtered.then(|| quote!(&[#(#names),*]))),
                (
                    "consistent_read",
                    scan.consistent_read.then(|| quote!(true)),
                ),
                ("ttl_attribute", ttl),
                ("key_attributes", Some(quote!(&[#(#key_attributes),*]))),
                ("filter", filtered.then_some(filter)),
                ("filter_values", filtered.then_some(values)),
                (
                    "filter_ranges",
                    (!ranges.is_empty()).then(|| quote!(&[#(#ranges),*])),
                ),
            ],
        );
        quote! {
            fn #name(__handle: &Repository, #(#params),*) -> Result<__rt::ScanRequest, __rt::Error> {
                Ok(#request)
            }
        }
    }

    fn scan_support(&self, plan: &PatternPlan<'a>, scan: &'a ir::Scan) -> TokenStream {
        let name = self.private_fn(Private::Decode(plan.pattern.name.to_string()));
        let ty = plan.entity_type(&scan.entity);
        let request = self.scan_request_fn(plan, scan);
        let index = super::option_str(Self::read_index(plan.pattern));
        quote! {
            fn #name(item: &__rt::Item) -> __rt::Decoded<#ty> {
                __rt::decode_if::<#ty>(item, #index)
            }

            #request
        }
    }

    /// The names, expression, values and `BETWEEN` ranges of a filter.
    fn filter_tokens(&self, pattern: &'a str, filter: &'a [ir::FilterCondition]) -> FilterTokens {
        let names = filter
            .iter()
            .enumerate()
            .map(|(i, condition)| {
                let placeholder = format!("#f{i}");
                let stored = condition.stored.as_str();
                quote!((#placeholder, #stored))
            })
            .collect();
        let ranges = filter
            .iter()
            .enumerate()
            .filter(|(_, c)| c.op == ir::FilterOp::Between)
            .map(|(i, _)| {
                let (low, high) = (format!(":f{i}_0"), format!(":f{i}_1"));
                quote!((#low, #high))
            })
            .collect();
        let filter_expression = match crate::plan::conditions_expression(filter) {
            Some(expression) => quote!(Some(#expression)),
            None => quote!(None),
        };
        let values = self.filter_values(pattern, filter);
        let values = if values.is_empty() {
            quote!(__rt::Item::new())
        } else {
            let pairs = values.iter().map(|(p, v)| quote!((#p, #v)));
            quote!(__rt::ops::values([#(#pairs),*]))
        };
        FilterTokens {
            names,
            filter: filter_expression,
            values,
            ranges,
        }
    }

    /// For a query of a tenant's handle: the shapes of the table partition
    /// keys of the entities it can match (the literal before the tenant, and
    /// the delimiter after it), which every item returned must have. `None`
    /// on the table's handle, and when a global entity could match (its
    /// items carry no tenant; `pattern_tenant_unbound` keeps them out of
    /// tenant partitions).
    fn tenant_shapes(
        &self,
        plan: &PatternPlan<'a>,
        q: &ir::Query,
    ) -> Option<Vec<(String, Option<char>)>> {
        if plan.handle != Handle::Tenant {
            return None;
        }
        let mut shapes = Vec::new();
        for name in q.matching.iter().chain(&q.returns) {
            let entity = plan.entity(name);
            if !self.is_tenant_scoped(entity) {
                return None;
            }
            // A placeholder right after the tenant (`tenant_prefix_unsafe`)
            // gives no shape: such items are refused (fail closed).
            let Some(ir::TenantPrefix { literal, end }) = entity.primary_key.pk.tenant_prefix()
            else {
                continue;
            };
            let shape = match end {
                ir::TenantEnd::Delimiter(d) => (literal, Some(d)),
                ir::TenantEnd::Key => (literal, None),
                ir::TenantEnd::Placeholder => continue,
            };
            if !shapes.contains(&shape) {
                shapes.push(shape);
            }
        }
        Some(shapes)
    }

    fn builder_struct(
        &self,
        pattern: &ir::AccessPattern,
        handle: Handle,
        what: &str,
    ) -> TokenStream {
        let builder = self.name(Item::Builder(pattern.name.as_str()));
        let (names, types): (Vec<_>, Vec<_>) =
            builder_fields(&pattern.operation).into_iter().unzip();
        let tenant = (handle == Handle::Tenant).then(|| quote!(tenant: TenantId,));
        let doc = format!(" The {what} of `{}`.", pattern.name.as_str());
        quote! {
            #[doc = #doc]
            #[derive(Debug)]
            pub struct #builder<'a> {
                repo: &'a Repository,
                #tenant
                #(#names: #types,)*
            }
        }
    }

    fn transaction_builder(&self, plan: &PatternPlan<'a>, t: &'a ir::Transaction) -> TokenStream {
        let (pattern, handle) = (plan.pattern, plan.handle);
        let pattern_name = pattern.name.as_str();
        let builder = self.name(Item::Builder(pattern_name));
        let def = self.builder_struct(pattern, handle, "transaction");
        let max = (t.max_items.value as usize).min(100);
        let mut items: Vec<&(TransactionOp, String)> = Vec::new();
        for item in &t.items {
            if !items.contains(&item) {
                items.push(item);
            }
        }
        let methods = items.into_iter().map(|(op, entity)| {
            let e = plan.entity(entity);
            let entity = e.name.as_str();
            let ty = plan.entity_type(entity);
            let key_ty = self.name(Item::Key(entity));
            let update_ty = self.name(Item::Update(entity));
            let scope = self.scope_expr(e, handle);
            let op_name = |op: BuilderOp| self.name(Item::BuilderOp(pattern_name, entity, op));
            match op {
                TransactionOp::Put | TransactionOp::Create => {
                    let create = *op == TransactionOp::Create;
                    let version = super::option_str(e.version_attribute.as_deref());
                    let m = op_name(if create { BuilderOp::Create } else { BuilderOp::Put });
                    let label = m.to_string();
                    let d = format!(" {} a [`{entity}`].", if create { "Creates (fails the transaction if it exists)" } else { "Puts" });
                    let stamped = super::entity::stamped(e, quote!(item));
                    let write = |when: TokenStream| quote! {
                        let info = self.repo.__table_info();
                        let item = __rt::Entity::to_item(#stamped, #scope)
                            .map_err(__rt::Error::from)
                            .and_then(|item| __rt::ops::transact_put(&info, item, #create, #version, #entity, #when));
                    };
                    let plain = write(quote!(None));
                    // A create meets no item, on which a condition of its
                    // attributes could hold.
                    let conditional = (!create).then(|| {
                        let m_when = op_name(BuilderOp::PutWhen);
                        let label = m_when.to_string();
                        let d = format!(" Puts a [`{entity}`] when `condition` holds on the stored item (on none, a condition on its attributes does not): otherwise the transaction is canceled, and its reason carries the stored item (`CancellationReason::stored_as`).");
                        let body = write(quote!(Some(condition)));
                        quote! {
                            #[doc = #d]
                            pub fn #m_when(&mut self, item: &#ty, condition: &__rt::Condition) -> &mut Self {
                                #body
                                self.push(#label, item)
                            }
                        }
                    });
                    quote! {
                        #[doc = #d]
                        pub fn #m(&mut self, item: &#ty) -> &mut Self {
                            #plain
                            self.push(#label, item)
                        }

                        #conditional
                    }
                }
                TransactionOp::Update => {
                    let m = op_name(BuilderOp::Update);
                    let label = m.to_string();
                    let d = format!(" Updates an existing [`{entity}`] (only when the update's `when` condition holds, if it has one: otherwise the transaction is canceled, and its reason carries the stored item).");
                    quote! {
                        #[doc = #d]
                        pub fn #m(&mut self, key: &#key_ty, update: #update_ty) -> &mut Self {
                            let info = self.repo.__table_info();
                            let item = update.to_update(key, #scope).and_then(|changes| {
                                let key = key.to_key_item(#scope)?;
                                __rt::ops::transact_update(&info, key, changes, #entity)
                            });
                            self.push(#label, item)
                        }
                    }
                }
                TransactionOp::Delete | TransactionOp::ConditionCheck => {
                    let (ops, call, d, d_when) = if *op == TransactionOp::Delete {
                        ((BuilderOp::Delete, BuilderOp::DeleteWhen), quote!(transact_delete), format!(" Deletes a [`{entity}`]."), format!(" Deletes the [`{entity}`] at `key` when `condition` holds on it (`Condition::item_exists()`: only one that exists): otherwise the transaction is canceled, and its reason carries the stored item (`CancellationReason::stored_as`)."))
                    } else {
                        ((BuilderOp::Check, BuilderOp::CheckWhen), quote!(transact_check), format!(" Requires a [`{entity}`] to exist."), format!(" Requires the [`{entity}`] at `key` to exist and `condition` to hold on it: otherwise the transaction is canceled, and its reason carries the stored item (`CancellationReason::stored_as`)."))
                    };
                    let m = op_name(ops.0);
                    let m_when = op_name(ops.1);
                    let (label, label_when) = (m.to_string(), m_when.to_string());
                    let write = |when: TokenStream| quote! {
                        let info = self.repo.__table_info();
                        let item = key.to_key_item(#scope)
                            .map_err(__rt::Error::from)
                            .and_then(|key| __rt::ops::#call(&info, key, #when));
                    };
                    let (plain, conditional) = (write(quote!(None)), write(quote!(Some(condition))));
                    quote! {
                        #[doc = #d]
                        pub fn #m(&mut self, key: &#key_ty) -> &mut Self {
                            #plain
                            self.push(#label, item)
                        }

                        #[doc = #d_when]
                        pub fn #m_when(&mut self, key: &#key_ty, condition: &__rt::Condition) -> &mut Self {
                            #conditional
                            self.push(#label_when, item)
                        }
                    }
                }
            }
        });
        quote! {
            #def

            impl #builder<'_> {
                #(#methods)*

                fn push(&mut self, label: &'static str, item: Result<__rt::sdk::types::TransactWriteItem, __rt::Error>) -> &mut Self {
                    match item {
                        Ok(item) => {
                            self.items.push(item);
                            self.labels.push(label);
                        }
                        Err(e) => {
                            if self.error.is_none() {
                                self.error = Some(e);
                            }
                        }
                    }
                    self
                }

                /// An idempotency token: retrying with the same token within ten minutes does not apply the transaction twice.
                pub fn client_request_token(&mut self, token: impl Into<String>) -> &mut Self {
                    self.token = Some(token.into());
                    self
                }

                /// Items added so far.
                pub fn len(&self) -> usize {
                    self.items.len()
                }

                /// Whether no item was added.
                pub fn is_empty(&self) -> bool {
                    self.items.is_empty()
                }

                /// Runs the transaction: every item is written, or none.
                pub async fn send(self) -> Result<(), __rt::Error> {
                    if let Some(e) = self.error {
                        return Err(e);
                    }
                    if self.items.len() > #max {
                        return Err(__rt::Error::TooManyItems {
                            pattern: #pattern_name,
                            items: self.items.len(),
                            max: #max,
                        });
                    }
                    __rt::transact_write(&self.repo.client, self.items, self.token)
                        .await
                        .map_err(|e| e.with_item_labels(&self.labels))
                }
            }
        }
    }

    fn batch_builder(&self, plan: &PatternPlan<'a>, b: &'a ir::Batch) -> TokenStream {
        let (pattern, handle) = (plan.pattern, plan.handle);
        let pattern_name = pattern.name.as_str();
        let builder = self.name(Item::Builder(pattern_name));
        let def = self.builder_struct(pattern, handle, "batch");
        let op_name =
            |entity: &'a str, op: BuilderOp| self.name(Item::BuilderOp(pattern_name, entity, op));
        let mut methods = Vec::new();
        for entity in &b.put {
            let e = plan.entity(entity);
            let ty = plan.entity_type(entity);
            let scope = self.scope_expr(e, handle);
            let m = op_name(e.name.as_str(), BuilderOp::Put);
            let d = format!(" Adds a put of a [`{entity}`].");
            let stamped = super::entity::stamped(e, quote!(item));
            methods.push(quote! {
                #[doc = #d]
                pub fn #m(&mut self, item: &#ty) -> &mut Self {
                    let request = __rt::Entity::to_item(#stamped, #scope)
                        .map_err(__rt::Error::from)
                        .and_then(__rt::ops::put_request);
                    self.push_write(request)
                }
            });
        }
        for entity in &b.delete {
            let e = plan.entity(entity);
            let key_ty = self.name(Item::Key(e.name.as_str()));
            let scope = self.scope_expr(e, handle);
            let m = op_name(e.name.as_str(), BuilderOp::Delete);
            let d = format!(" Adds a delete of a [`{entity}`].");
            methods.push(quote! {
                #[doc = #d]
                pub fn #m(&mut self, key: &#key_ty) -> &mut Self {
                    let request = key.to_key_item(#scope)
                        .map_err(__rt::Error::from)
                        .and_then(__rt::ops::delete_request);
                    self.push_write(request)
                }
            });
        }
        for entity in &b.get {
            let e = plan.entity(entity);
            let key_ty = self.name(Item::Key(e.name.as_str()));
            let scope = self.scope_expr(e, handle);
            let m = op_name(e.name.as_str(), BuilderOp::Get);
            let d = format!(" Adds a read of a [`{entity}`].");
            methods.push(quote! {
                #[doc = #d]
                pub fn #m(&mut self, key: &#key_ty) -> &mut Self {
                    match key.to_key_item(#scope) {
                        Ok(key) => self.keys.push(key),
                        Err(e) => {
                            if self.error.is_none() {
                                self.error = Some(e.into());
                            }
                        }
                    }
                    self
                }
            });
        }
        let item: TokenStream = match b.get.as_slice() {
            [] => quote!(()),
            [one] => {
                let ty = plan.entity_type(one);
                quote!(#ty)
            }
            _ => {
                let ty = self.name(Item::Collection(pattern_name));
                quote!(#ty)
            }
        };
        let (item_enum_def, decoder, send) = if b.get.is_empty() {
            (
                TokenStream::new(),
                TokenStream::new(),
                quote! {
                    /// Writes every item, retrying unprocessed ones; what is still unwritten after the retries comes back in `Error::Unprocessed`.
                    pub async fn send(self) -> Result<(), __rt::Error> {
                        if let Some(e) = self.error {
                            return Err(e);
                        }
                        __rt::batch_write(&self.repo.client, self.repo.table_name(), self.items, self.repo.retry).await
                    }
                },
            )
        } else {
            let decode = self.private_fn(Private::Decode(pattern.name.to_string()));
            let write_first = (!(b.put.is_empty() && b.delete.is_empty())).then(|| quote! {
                if !self.items.is_empty() {
                    __rt::batch_write(&self.repo.client, self.repo.table_name(), self.items, self.repo.retry).await?;
                }
            });
            (
                self.item_enum_def(plan, &b.get),
                self.decoder(plan, &b.get, &b.get, &item),
                quote! {
                    /// Writes every item added, then reads every key added (in no particular order), retrying unprocessed ones: one result per item found, so an item that does not decode is an `Err` of its own and the others still decode. The whole read fails when a key stays unread or an item that was not asked for comes back.
                    pub async fn send(self) -> Result<Vec<Result<#item, __rt::Error>>, __rt::Error> {
                        if let Some(e) = self.error {
                            return Err(e);
                        }
                        #write_first
                        let items = __rt::batch_get(&self.repo.client, self.repo.table_name(), self.keys, false, self.repo.retry).await?;
                        Ok(__rt::ops::decode_batch(items, &self.repo.__table_info(), #decode))
                    }

                    /// [`Self::send`], failing on the first item that does not decode.
                    pub async fn all(self) -> Result<Vec<#item>, __rt::Error> {
                        self.send().await?.into_iter().collect()
                    }
                },
            )
        };
        let push_write = (!(b.put.is_empty() && b.delete.is_empty())).then(|| quote! {
                fn push_write(&mut self, request: Result<__rt::sdk::types::WriteRequest, __rt::Error>) -> &mut Self {
                    match request {
                        Ok(request) => self.items.push(request),
                        Err(e) => {
                            if self.error.is_none() {
                                self.error = Some(e);
                            }
                        }
                    }
                    self
                }
        });
        quote! {
            #item_enum_def
            #decoder
            #def

            impl #builder<'_> {
                #(#methods)*
                #push_write
                #send
            }
        }
    }
}

/// A filter's parts as generated code holds them.
struct FilterTokens {
    /// `("#f0", "status")` pairs.
    names: Vec<TokenStream>,
    /// `Some("#f0 = :f0_0")` or `None`.
    filter: TokenStream,
    /// The operands' `Item`.
    values: TokenStream,
    /// `(":f0_0", ":f0_1")` of each `BETWEEN`.
    ranges: Vec<TokenStream>,
}

/// The fields of a transaction or batch builder besides the repository and
/// tenant: what it collects, the first error, and the idempotency token.
fn builder_fields(operation: &Operation) -> Vec<(Ident, TokenStream)> {
    let mut fields = Vec::new();
    match operation {
        Operation::Transaction(_) => {
            fields.push((
                format_ident!("items"),
                quote!(Vec<__rt::sdk::types::TransactWriteItem>),
            ));
            fields.push((format_ident!("labels"), quote!(Vec<&'static str>)));
            fields.push((format_ident!("token"), quote!(Option<String>)));
        }
        Operation::Batch(b) => {
            if !(b.put.is_empty() && b.delete.is_empty()) {
                fields.push((
                    format_ident!("items"),
                    quote!(Vec<__rt::sdk::types::WriteRequest>),
                ));
            }
            if !b.get.is_empty() {
                fields.push((format_ident!("keys"), quote!(Vec<__rt::Item>)));
            }
        }
        Operation::Get { .. } | Operation::Query(_) | Operation::Scan(_) => {}
    }
    fields.push((format_ident!("error"), quote!(Option<__rt::Error>)));
    fields
}

/// The parameters of a query's filter: each `<name>` operand with the
/// condition it is in and its type, in the order written.
fn filter_params(
    filter: &[ir::FilterCondition],
) -> impl Iterator<Item = (&ir::FilterCondition, &str, &ir::AttributeType)> {
    filter.iter().flat_map(|condition| {
        condition.operands.iter().filter_map(move |o| match o {
            ir::FilterOperand::Param { name, r#type } => Some((condition, name.as_str(), r#type)),
            ir::FilterOperand::Literal(_) => None,
        })
    })
}

/// A condition operand as an `AttributeValue` expression, and whether it
/// is fallible (a `Result<AttributeValue, ValueError>`: a datetime stored
/// in its format): a literal as stored, or a parameter (named by `param`)
/// stored as the attribute is; `context` names the call in errors.
pub(super) fn operand_value_of<'s>(
    context: &str,
    condition: &'s ir::FilterCondition,
    operand: &'s ir::FilterOperand,
    param: &dyn Fn(&'s str) -> Ident,
) -> (TokenStream, bool) {
    use ir::AttributeType as T;
    let value = match operand {
        ir::FilterOperand::Literal(ir::FilterLiteral::S(text)) => quote!(__rt::S(#text.to_owned())),
        ir::FilterOperand::Literal(ir::FilterLiteral::N(n)) => quote!(__rt::N(#n.to_owned())),
        ir::FilterOperand::Literal(ir::FilterLiteral::Bool(b)) => {
            quote!(__rt::AttributeValue::Bool(#b))
        }
        ir::FilterOperand::Param { name, r#type } => {
            let ident = param(name.as_str());
            match r#type {
                T::String { .. } => quote!(__rt::S(#ident.to_owned())),
                T::Decimal { .. } => quote!(__rt::Attr::to_av(#ident)),
                T::Datetime { format, precision } => {
                    let format = super::types::time_format(*format, *precision);
                    let attribute = condition.attribute.as_str();
                    let store =
                        quote!(__rt::codec::store_time(&#ident, #format, #context, #attribute));
                    return (store, true);
                }
                T::Integer { .. }
                | T::Boolean
                | T::Enum { .. }
                | T::List { .. }
                | T::Map { .. }
                | T::Set { .. }
                | T::Binary { .. } => quote!(__rt::Attr::to_av(&#ident)),
            }
        }
    };
    (value, false)
}
