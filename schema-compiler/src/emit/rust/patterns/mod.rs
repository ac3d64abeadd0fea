//! One method per access pattern, and the types and helpers behind them.

use indexmap::IndexMap;
use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::keys::Input;
use super::repo::Handle;
use super::{doc, Emitter, Private};
use crate::ir::{self, IndexRef, Operation, PlaceholderKind, SortOp, TransactionOp};
use crate::names::{BuilderOp, Item};
use crate::plan::QueryShards;

mod builders;
mod decode;
mod request;

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
                    Operation::TransactGet(t) => t.entities.iter().collect(),
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
                    | Operation::TransactGet(_)
                    | Operation::Batch(_) => IndexMap::new(),
                };
                let scoped = match &pattern.operation {
                    Operation::Query(q) => {
                        q.templates()
                            .flat_map(|t| t.placeholders())
                            .any(|p| p.kind == PlaceholderKind::Tenant)
                            || q.returns
                                .iter()
                                .filter_map(|e| entities.get(e.as_str()))
                                .any(|e| self.is_tenant_scoped(e))
                    }
                    Operation::Get { .. }
                    | Operation::Scan(_)
                    | Operation::Transaction(_)
                    | Operation::TransactGet(_)
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
                Operation::TransactGet(t) => self.transact_get_builder(plan, t),
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
            } => self.get_method(plan, entity, *consistent_read),
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
            Operation::TransactGet(_) => {
                let builder = self.name(Item::Builder(pattern.name.as_str()));
                let doc = Self::pattern_doc(
                    pattern,
                    "TransactGetItems: add keys with its `get_…` methods, then `send()`; every item is read as of one moment, and each read from the result at the slot its `get_…` returned.".to_owned(),
                );
                let scope = if handle == Handle::Tenant {
                    quote!(&self.tenant)
                } else {
                    quote!(&())
                };
                let p = pattern.name.as_str();
                quote! {
                    #doc
                    pub fn #name(&self) -> #builder<'_> {
                        #builder {
                            inner: __rt::TransactGet::for_pattern(&#repo.client, #repo.__table_info(), #scope, #p),
                        }
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
                let (fields, field_types): (Vec<_>, Vec<_>) =
                    self.builder_fields(pattern).into_iter().unzip();
                let tenant =
                    (handle == Handle::Tenant).then(|| quote!(tenant: Clone::clone(&self.tenant),));
                // A tenant's builder borrows the repository, not the tenant
                // handle: `repo.for_tenant(&t).close_tickets()` outlives it.
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
                            #(#fields: <#field_types>::default(),)*
                        }
                    }
                }
            }
        }
    }

    /// The method of a get pattern: its key's parts as parameters (the
    /// write shard first, when random), read as the entity or the pattern's
    /// partial type.
    fn get_method(
        &self,
        plan: &PatternPlan<'a>,
        entity: &str,
        consistent_read: bool,
    ) -> TokenStream {
        let (pattern, handle) = (plan.pattern, plan.handle);
        let p = pattern.name.as_str();
        let name = self.name(Item::Pattern(p));
        let repo = handle.repo();
        let e = plan.entity(entity);
        let key_ty = self.name(Item::Key(e.name.as_str()));
        let scope = self.scope_expr(e, handle);
        let gate = self.pending_job(pattern).map(|job| {
            quote! {
                if !#repo.__pending_allowed() {
                    return Err(__rt::Error::Pending { pattern: #p, job: #job });
                }
            }
        });
        let mut params = Vec::new();
        let mut fields = Vec::new();
        // `field: param`, or `field` where the two are one name; `owned`
        // turns the parameter into the field's value when it is borrowed.
        let mut init = |field: Ident, param: Ident, owned: Option<TokenStream>| {
            fields.push(match owned {
                None if param == field => quote!(#field),
                None => quote!(#field: #param),
                Some(owned) => quote!(#field: #owned),
            });
        };
        if e.random_shard().is_some() {
            let param = self.name(Item::Param(p, "shard"));
            params.push(quote!(#param: u32));
            init(self.name(Item::ShardField(e.name.as_str())), param, None);
        }
        for a in e.key_attributes() {
            let param = self.name(Item::Param(p, a.name.as_str()));
            let ty = self.borrowed_type(e.name.as_str(), a);
            let owned = match &a.r#type {
                ir::AttributeType::String { .. }
                | ir::AttributeType::List { .. }
                | ir::AttributeType::Map { .. }
                | ir::AttributeType::Set { .. } => Some(quote!(#param.to_owned())),
                ir::AttributeType::Integer { .. }
                | ir::AttributeType::Boolean
                | ir::AttributeType::Datetime { .. }
                | ir::AttributeType::Enum { .. } => None,
                ir::AttributeType::Decimal { .. } | ir::AttributeType::Binary { .. } => {
                    Some(quote!(Clone::clone(#param)))
                }
            };
            params.push(quote!(#param: #ty));
            init(
                self.name(Item::Field(e.name.as_str(), a.name.as_str())),
                param,
                owned,
            );
        }
        let key = quote! {
            let key = #key_ty { #(#fields),* }.to_key_item(#scope)?;
        };
        if let Some(ty) = plan.partials.get(entity) {
            let projection = self.projection(plan, None).unwrap_or_else(|| quote!(&[]));
            let doc = Self::pattern_doc(
                pattern,
                format!("GetItem of the attributes of one [`{entity}`] that [`{ty}`] holds."),
            );
            return quote! {
                #doc
                pub async fn #name(&self, #(#params),*) -> Result<Option<#ty>, __rt::Error> {
                    #gate
                    #key
                    let info = #repo.__table_info();
                    __rt::ops::get_partial(#p, &#repo.client, &info, key, #consistent_read, #projection).await
                }
            };
        }
        let ty = plan.entity_type(entity);
        let doc = Self::pattern_doc(pattern, format!("GetItem of one [`{entity}`]."));
        quote! {
            #doc
            pub async fn #name(&self, #(#params),*) -> Result<Option<#ty>, __rt::Error> {
                #gate
                #key
                let info = #repo.__table_info();
                __rt::ops::get_as(#p, &#repo.client, &info, key, #consistent_read).await
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
        filter: &'a [ir::Filter],
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
        filter: &'a [ir::Filter],
    ) -> Vec<(String, TokenStream)> {
        ir::Filter::conditions(filter)
            .into_iter()
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
}

/// The parameters of a query's filter: each `<name>` operand with the
/// condition it is in and its type, in the order written.
fn filter_params(
    filter: &[ir::Filter],
) -> impl Iterator<Item = (&ir::FilterCondition, &str, &ir::AttributeType)> {
    ir::Filter::conditions(filter)
        .into_iter()
        .flat_map(|condition| {
            condition.operands.iter().filter_map(move |o| match o {
                ir::FilterOperand::Param { name, r#type } => {
                    Some((condition, name.as_str(), r#type))
                }
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
        ir::FilterOperand::Literal(literal) => super::types::literal_av(literal),
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
