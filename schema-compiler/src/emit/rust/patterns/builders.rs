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

    pub(super) fn transaction_builder(
        &self,
        plan: &PatternPlan<'a>,
        t: &'a ir::Transaction,
    ) -> TokenStream {
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
                    let version = crate::emit::rust::option_str(e.version_attribute.as_deref());
                    let m = op_name(if create { BuilderOp::Create } else { BuilderOp::Put });
                    let label = m.to_string();
                    let d = format!(" {} a [`{entity}`].", if create { "Creates (fails the transaction if it exists)" } else { "Puts" });
                    let stamped = crate::emit::rust::entity::stamped(e, quote!(item));
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
                        Ok(__rt::ops::decode_batch(items, &self.repo.__table_info(), self.include_expired, #decode))
                    }

                    /// Also returns items whose TTL time has passed but that DynamoDB has not deleted yet (skipped by default).
                    pub fn include_expired(&mut self) -> &mut Self {
                        self.include_expired = true;
                        self
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
/// The fields of a transaction or batch builder besides the repository and
/// tenant: what it collects, the first error, and the idempotency token.
pub(super) fn builder_fields(operation: &Operation) -> Vec<(Ident, TokenStream)> {
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
                fields.push((format_ident!("include_expired"), quote!(bool)));
            }
        }
        Operation::Get { .. } | Operation::Query(_) | Operation::Scan(_) => {}
    }
    fields.push((format_ident!("error"), quote!(Option<__rt::Error>)));
    fields
}
