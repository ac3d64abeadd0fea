//! The requests of access patterns: key conditions, scans, filters and the tenant's key shapes.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::*;

impl<'a> Emitter<'a> {
    pub(super) fn request_fn(&self, plan: &PatternPlan<'a>, q: &'a ir::Query) -> TokenStream {
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
        let mut values = Vec::new();
        let mut names = Vec::new();
        for (name, value, template) in crate::plan::key_equalities(q) {
            let key_type = self.spec.key_type(index, template.attribute.as_str());
            values.push((
                value,
                self.key_value(template, key_type, pattern_name, &input),
            ));
            let a = template.attribute.as_str();
            names.push(quote!((#name, #a)));
        }
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
                let sk_type = self.spec.key_type(index, operand.attribute.as_str());
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
        let request = crate::emit::rust::literal_without_defaults(
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
        let index_keys = index
            .and_then(|i| spec.indexes.get(i))
            .into_iter()
            .flat_map(ir::Index::key_parts);
        let mut out: Vec<&'a str> = Vec::new();
        let keys = table.keys().chain(index_keys);
        for k in keys {
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
        let request = crate::emit::rust::literal_without_defaults(
            quote!(__rt::ScanRequest),
            &[
                ("pattern", Some(quote!(#pattern_name))),
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

    pub(super) fn scan_support(&self, plan: &PatternPlan<'a>, scan: &'a ir::Scan) -> TokenStream {
        let name = self.private_fn(Private::Decode(plan.pattern.name.to_string()));
        let ty = plan.entity_type(&scan.entity);
        let request = self.scan_request_fn(plan, scan);
        let index = crate::emit::rust::option_str(Self::read_index(plan.pattern));
        quote! {
            fn #name(item: &__rt::Item) -> __rt::Decoded<#ty> {
                __rt::decode_if::<#ty>(item, #index)
            }

            #request
        }
    }

    /// The index an access pattern reads through, if any.
    pub(super) fn read_index(pattern: &ir::AccessPattern) -> Option<&str> {
        let index = match &pattern.operation {
            Operation::Query(q) => &q.index,
            Operation::Scan(s) => &s.index,
            Operation::Get { .. }
            | Operation::Transaction(_)
            | Operation::TransactGet(_)
            | Operation::Batch(_) => return None,
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
    pub(in crate::emit::rust) fn pattern_input(
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

    /// The names, expression, values and `BETWEEN` ranges of a filter.
    fn filter_tokens(&self, pattern: &'a str, filter: &'a [ir::Filter]) -> FilterTokens {
        let names = ir::Filter::conditions(filter)
            .into_iter()
            .enumerate()
            .map(|(i, condition)| {
                let placeholder = format!("#f{i}");
                let stored = condition.stored.as_str();
                quote!((#placeholder, #stored))
            })
            .collect();
        let ranges = crate::plan::top_level_ranges(filter)
            .into_iter()
            .map(|i| {
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
}
/// A filter's parts as generated code holds them.
pub(super) struct FilterTokens {
    /// `("#f0", "status")` pairs.
    names: Vec<TokenStream>,
    /// `Some("#f0 = :f0_0")` or `None`.
    filter: TokenStream,
    /// The operands' `Item`.
    values: TokenStream,
    /// `(":f0_0", ":f0_1")` of each `BETWEEN`.
    ranges: Vec<TokenStream>,
}
