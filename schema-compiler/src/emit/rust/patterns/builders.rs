//! Transaction and batch access patterns: their builders.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::*;

impl<'a> Emitter<'a> {
    fn builder_struct(
        &self,
        pattern: &ir::AccessPattern,
        handle: Handle,
        what: &str,
    ) -> TokenStream {
        let builder = self.name(Item::Builder(pattern.name.as_str()));
        let (names, types): (Vec<_>, Vec<_>) = self.builder_fields(pattern).into_iter().unzip();
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

    /// The builder of a read transaction: a `get_…` per listed entity,
    /// typed by its key, over the runtime's [`TransactGet`] of the handle's
    /// scope.
    pub(super) fn transact_get_builder(
        &self,
        plan: &PatternPlan<'a>,
        t: &'a ir::TransactGet,
    ) -> TokenStream {
        let pattern_name = plan.pattern.name.as_str();
        let builder = self.name(Item::Builder(pattern_name));
        let scope = if plan.handle == Handle::Tenant {
            quote!(TenantId)
        } else {
            quote!(())
        };
        let gets = t.entities.iter().map(|entity| {
            let method = self.name(Item::BuilderOp(pattern_name, entity, BuilderOp::Get));
            let ty = plan.entity_type(entity);
            let key = self.name(Item::Key(entity));
            let doc = format!(" Adds the [`{ty}`] item at `key`: read it from `send`'s result at the slot returned (`None` when there is none).");
            quote! {
                #[doc = #doc]
                pub fn #method(&mut self, key: &#key) -> __rt::Slot<#ty> {
                    self.inner.get(key)
                }
            }
        });
        let max = (t.max_items.value as usize).min(100);
        let doc = format!(" The read transaction of `{pattern_name}`: TransactGetItems, every item as of one moment.");
        quote! {
            #[doc = #doc]
            #[derive(Debug)]
            pub struct #builder<'a> {
                inner: __rt::TransactGet<'a, #scope>,
            }

            impl #builder<'_> {
                #(#gets)*

                /// Items added so far.
                pub fn len(&self) -> usize {
                    self.inner.len()
                }

                /// Whether no item was added.
                pub fn is_empty(&self) -> bool {
                    self.inner.is_empty()
                }

                /// Reads every item added, as of one moment; each is read from the result with [`__rt::TransactGetResult::get`] at its slot. More items than the pattern's `max_items` are refused before any request; with nothing added it sends nothing.
                pub async fn send(self) -> Result<__rt::TransactGetResult, __rt::Error> {
                    if self.inner.len() > #max {
                        return Err(__rt::Error::TooManyItems { pattern: #pattern_name, items: self.inner.len(), max: #max });
                    }
                    self.inner.send().await
                }
            }
        }
    }

    pub(super) fn transaction_builder(
        &self,
        plan: &PatternPlan<'a>,
        t: &'a ir::Transaction,
    ) -> TokenStream {
        let (pattern, handle) = (plan.pattern, plan.handle);
        let pattern_name = pattern.name.as_str();
        let builder = self.name(Item::Builder(pattern_name));
        let step = self.name(Item::Step(pattern_name));
        let written = self.name(Item::Written(pattern_name));
        let def = self.builder_struct(pattern, handle, "transaction");
        let max = (t.max_items.value as usize).min(100);
        let mut items: Vec<&(TransactionOp, String)> = Vec::new();
        for item in &t.items {
            if !items.contains(&item) {
                items.push(item);
            }
        }
        let steps: Vec<Step> = items
            .into_iter()
            .flat_map(|(op, entity)| self.transaction_steps(plan, *op, entity))
            .collect();
        let methods = steps.iter().map(|s| {
            let (m, variant, doc, params, body) =
                (&s.method, &s.variant, &s.doc, &s.params, &s.body);
            let label = m.to_string();
            let stored = &s.stored;
            quote! {
                #[doc = #doc]
                pub fn #m(&mut self, #params) -> &mut Self {
                    let info = self.repo.__table_info();
                    #body
                    self.parts.push(#label, item, #written::#variant(#stored));
                    self
                }
            }
        });
        let step_doc = format!(" A step of the `{pattern_name}` transaction: one per method of [`{builder}`]. [`{step}::failed`] tells which failed.");
        let written_doc = format!(" What a step of the `{pattern_name}` transaction wrote, in the order the steps were added: a put or create the item as written (its timestamps set), an update, delete or check the key.");
        let step_variants = steps.iter().map(|s| {
            let (variant, m) = (&s.variant, &s.method);
            let d = format!(" [`{builder}::{m}`].");
            quote!(#[doc = #d] #variant)
        });
        let written_variants = steps.iter().map(|s| {
            let (variant, m, ty) = (&s.variant, &s.method, &s.stored_type);
            let d = format!(" [`{builder}::{m}`].");
            quote!(#[doc = #d] #variant(#ty))
        });
        let labels = steps.iter().map(|s| {
            let (variant, label) = (&s.variant, s.method.to_string());
            quote!((#label, #step::#variant))
        });
        quote! {
            #[doc = #step_doc]
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
            pub enum #step {
                #(#step_variants,)*
            }

            impl #step {
                /// The steps of a canceled `send` of this transaction that failed, each with its reason (`reason.index` is the step's position; `reason.stored_as` reads the stored item a failed condition saw). Empty unless `error` is `Error::TransactionCanceled`.
                pub fn failed(error: &__rt::Error) -> Vec<(Self, &__rt::CancellationReason)> {
                    __rt::ops::failed_steps(error, &[#(#labels),*])
                }
            }

            #[doc = #written_doc]
            #[derive(Debug, Clone, PartialEq)]
            pub enum #written {
                #(#written_variants,)*
            }

            #def

            impl #builder<'_> {
                #(#methods)*

                /// An idempotency token: retrying with the same token within ten minutes does not apply the transaction twice.
                pub fn client_request_token(&mut self, token: impl Into<String>) -> &mut Self {
                    self.parts.client_request_token(token.into());
                    self
                }

                /// Items added so far.
                pub fn len(&self) -> usize {
                    self.parts.len()
                }

                /// Whether no item was added.
                pub fn is_empty(&self) -> bool {
                    self.parts.is_empty()
                }

                /// Runs the transaction, every item written or none, and returns what each step wrote. Taking `&mut self`, it ends a chain: one expression adds the items and sends them. After a success the builder is empty; when the server refuses the transaction or does not answer, it keeps what was added (and its `client_request_token`), to be sent again as it was. With nothing added it sends nothing.
                pub async fn send(&mut self) -> Result<Vec<#written>, __rt::Error> {
                    self.parts.send(&self.repo.client, #pattern_name, #max).await
                }
            }
        }
    }

    /// The builder methods one declared transaction item gives.
    fn transaction_steps(
        &self,
        plan: &PatternPlan<'a>,
        op: TransactionOp,
        entity: &str,
    ) -> Vec<Step> {
        let pattern_name = plan.pattern.name.as_str();
        let e = plan.entity(entity);
        let entity = e.name.as_str();
        let ty = plan.entity_type(entity);
        let key_ty = self.name(Item::Key(entity));
        let update_ty = self.name(Item::Update(entity));
        let scope = self.scope_expr(e, plan.handle);
        let names = |op: BuilderOp| {
            (
                self.name(Item::BuilderOp(pattern_name, entity, op)),
                self.name(Item::StepVariant(pattern_name, entity, op)),
            )
        };
        match op {
            TransactionOp::Put | TransactionOp::Create => {
                let create = op == TransactionOp::Create;
                let version = crate::emit::rust::option_str(e.version_attribute.as_deref());
                let owned = if crate::emit::rust::entity::has_timestamps(e) {
                    quote!(item.with_timestamps())
                } else {
                    quote!(Clone::clone(item))
                };
                let write = |when: TokenStream| {
                    quote! {
                        let stored = #owned;
                        let item = __rt::Entity::to_item(&stored, #scope)
                            .map_err(__rt::Error::from)
                            .and_then(|item| __rt::ops::transact_put(&info, item, #create, #version, #entity, #when));
                    }
                };
                let (method, variant) = names(if create {
                    BuilderOp::Create
                } else {
                    BuilderOp::Put
                });
                let mut steps = vec![Step {
                    method,
                    variant,
                    doc: format!(
                        " {} a [`{entity}`].",
                        if create {
                            "Creates (fails the transaction if it exists)"
                        } else {
                            "Puts"
                        }
                    ),
                    params: quote!(item: &#ty),
                    body: write(quote!(None)),
                    stored: quote!(stored),
                    stored_type: quote!(#ty),
                }];
                // A create meets no item, on which a condition of its
                // attributes could hold.
                if !create {
                    let (method, variant) = names(BuilderOp::PutWhen);
                    steps.push(Step {
                        method,
                        variant,
                        doc: format!(" Puts a [`{entity}`] when `condition` holds on the stored item (on none, a condition on its attributes does not): otherwise the transaction is canceled, and its reason carries the stored item (`CancellationReason::stored_as`)."),
                        params: quote!(item: &#ty, condition: &__rt::Condition),
                        body: write(quote!(Some(condition))),
                        stored: quote!(stored),
                        stored_type: quote!(#ty),
                    });
                }
                steps
            }
            TransactionOp::Update => {
                let (method, variant) = names(BuilderOp::Update);
                vec![Step {
                    method,
                    variant,
                    doc: format!(" Updates an existing [`{entity}`] (only when the update's `when` condition holds, if it has one: otherwise the transaction is canceled, and its reason carries the stored item)."),
                    params: quote!(key: &#key_ty, update: #update_ty),
                    body: quote! {
                        let item = update.to_update(key, #scope).and_then(|changes| {
                            let key = key.to_key_item(#scope)?;
                            __rt::ops::transact_update(&info, key, changes, #entity)
                        });
                    },
                    stored: quote!(Clone::clone(key)),
                    stored_type: quote!(#key_ty),
                }]
            }
            TransactionOp::Delete | TransactionOp::ConditionCheck => {
                let (ops, call, d, d_when) = if op == TransactionOp::Delete {
                    ((BuilderOp::Delete, BuilderOp::DeleteWhen), quote!(transact_delete), format!(" Deletes a [`{entity}`]."), format!(" Deletes the [`{entity}`] at `key` when `condition` holds on it (`Condition::item_exists()`: only one that exists): otherwise the transaction is canceled, and its reason carries the stored item (`CancellationReason::stored_as`)."))
                } else {
                    ((BuilderOp::Check, BuilderOp::CheckWhen), quote!(transact_check), format!(" Requires a [`{entity}`] to exist."), format!(" Requires the [`{entity}`] at `key` to exist and `condition` to hold on it: otherwise the transaction is canceled, and its reason carries the stored item (`CancellationReason::stored_as`)."))
                };
                let write = |when: TokenStream| {
                    quote! {
                        let item = key.to_key_item(#scope)
                            .map_err(__rt::Error::from)
                            .and_then(|key| __rt::ops::#call(&info, key, #when));
                    }
                };
                let (method, variant) = names(ops.0);
                let (method_when, variant_when) = names(ops.1);
                vec![
                    Step {
                        method,
                        variant,
                        doc: d,
                        params: quote!(key: &#key_ty),
                        body: write(quote!(None)),
                        stored: quote!(Clone::clone(key)),
                        stored_type: quote!(#key_ty),
                    },
                    Step {
                        method: method_when,
                        variant: variant_when,
                        doc: d_when,
                        params: quote!(key: &#key_ty, condition: &__rt::Condition),
                        body: write(quote!(Some(condition))),
                        stored: quote!(Clone::clone(key)),
                        stored_type: quote!(#key_ty),
                    },
                ]
            }
        }
    }

    pub(super) fn batch_builder(&self, plan: &PatternPlan<'a>, b: &'a ir::Batch) -> TokenStream {
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
            let stamped = crate::emit::rust::entity::stamped(e, quote!(item));
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
                    /// It sends what was added and leaves the builder empty, so one expression can add the items and send them.
                    pub async fn send(&mut self) -> Result<(), __rt::Error> {
                        let items = std::mem::take(&mut self.items);
                        if let Some(e) = self.error.take() {
                            return Err(e);
                        }
                        __rt::batch_write_of(#pattern_name, &self.repo.client, self.repo.table_name(), items, self.repo.retry).await
                    }
                },
            )
        } else {
            let decode = self.private_fn(Private::Decode(pattern.name.to_string()));
            let writes = !(b.put.is_empty() && b.delete.is_empty());
            let take_writes = writes.then(|| quote!(let items = std::mem::take(&mut self.items);));
            let write_first = writes.then(|| quote! {
                if !items.is_empty() {
                    __rt::batch_write_of(#pattern_name, &self.repo.client, self.repo.table_name(), items, self.repo.retry).await?;
                }
            });
            (
                self.item_enum_def(plan, &b.get),
                self.decoder(plan, &b.get, &b.get, &item),
                quote! {
                    /// Writes every item added, then reads every key added (in no particular order), retrying unprocessed ones: one result per item found, so an item that does not decode is an `Err` of its own and the others still decode. The whole read fails when a key stays unread or an item that was not asked for comes back.
                    /// It sends what was added and leaves the builder empty, so one expression can add the keys and send them.
                    pub async fn send(&mut self) -> Result<Vec<Result<#item, __rt::Error>>, __rt::Error> {
                        let keys = std::mem::take(&mut self.keys);
                        #take_writes
                        if let Some(e) = self.error.take() {
                            return Err(e);
                        }
                        #write_first
                        let items = __rt::batch_get_of(#pattern_name, &self.repo.client, self.repo.table_name(), keys, false, self.repo.retry).await?;
                        Ok(__rt::ops::decode_batch(items, &self.repo.__table_info(), self.include_expired, #decode))
                    }

                    /// Also returns items whose TTL time has passed but that DynamoDB has not deleted yet (skipped by default).
                    pub fn include_expired(&mut self) -> &mut Self {
                        self.include_expired = true;
                        self
                    }

                    /// [`Self::send`], failing on the first item that does not decode.
                    pub async fn all(&mut self) -> Result<Vec<#item>, __rt::Error> {
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
/// One method of a transaction builder: the item it adds and what the
/// transaction returns for it.
struct Step {
    method: Ident,
    variant: Ident,
    doc: String,
    params: TokenStream,
    /// Binds `item`, the request's item (or the error building it).
    body: TokenStream,
    /// What `send` returns for the step.
    stored: TokenStream,
    stored_type: TokenStream,
}

impl Emitter<'_> {
    /// The fields of a transaction or batch builder besides the repository
    /// and tenant: a transaction's parts (what it collects, of its written
    /// enum), or a batch's items, keys and first error.
    pub(super) fn builder_fields(&self, pattern: &ir::AccessPattern) -> Vec<(Ident, TokenStream)> {
        let mut fields = Vec::new();
        match &pattern.operation {
            Operation::Transaction(_) => {
                let written = self.name(Item::Written(pattern.name.as_str()));
                fields.push((
                    format_ident!("parts"),
                    quote!(__rt::ops::Transaction<#written>),
                ));
                return fields;
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
                    fields.push((format_ident!("include_expired"), quote!(bool)));
                }
            }
            Operation::Get { .. }
            | Operation::Query(_)
            | Operation::Scan(_)
            | Operation::TransactGet(_) => {}
        }
        fields.push((format_ident!("error"), quote!(Option<__rt::Error>)));
        fields
    }
}
