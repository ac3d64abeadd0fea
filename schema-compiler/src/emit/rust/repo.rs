//! The table handle, the tenant-scoped handle and per-entity operations.

use proc_macro2::TokenStream;
use quote::quote;

use super::Emitter;
use crate::emit::table;
use crate::ir;
use crate::names::{EntityOp, Item};

/// Which handle a method lives on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Handle {
    /// `Repository`: global entities and patterns without a tenant.
    Table,
    /// `TenantRepository`: tenant-scoped entities and patterns.
    Tenant,
}

impl Handle {
    /// The `&Repository` expression inside a method of this handle.
    pub(super) fn repo(self) -> TokenStream {
        match self {
            Handle::Table => quote!(self),
            Handle::Tenant => quote!(self.repo),
        }
    }
}

fn option_tokens(t: Option<TokenStream>) -> TokenStream {
    match t {
        Some(t) => quote!(Some(#t)),
        None => quote!(None),
    }
}

fn capacity(t: Option<&table::Throughput>) -> TokenStream {
    option_tokens(t.map(|t| {
        let (r, w) = (t.read_capacity_units as i64, t.write_capacity_units as i64);
        quote!((#r, #w))
    }))
}

/// `(name, type)` of a key schema element, typed from the attribute definitions.
fn key_def(def: &table::CreateTable, key: &table::KeySchemaElement) -> TokenStream {
    let name = key.attribute_name.as_str();
    let t = def
        .attribute_definitions
        .iter()
        .find(|d| d.attribute_name == key.attribute_name)
        .map_or("S", |d| d.attribute_type);
    quote!((#name, #t))
}

/// The `(name, type)` of each element of `schema` of `key_type`, in order.
fn key_defs(
    def: &table::CreateTable,
    schema: &[table::KeySchemaElement],
    key_type: &str,
) -> Vec<TokenStream> {
    schema
        .iter()
        .filter(|k| k.key_type == key_type)
        .map(|k| key_def(def, k))
        .collect()
}

/// The table's partition key and sort key (`Option`) as `TableDef` takes them.
fn key_pair(
    def: &table::CreateTable,
    schema: &[table::KeySchemaElement],
) -> (TokenStream, TokenStream) {
    let pk = key_defs(def, schema, "HASH")
        .into_iter()
        .next()
        .unwrap_or_else(|| quote!(("", "S")));
    let sk = option_tokens(key_defs(def, schema, "RANGE").into_iter().next());
    (pk, sk)
}

fn projection_tokens(p: &table::IndexProjection) -> TokenStream {
    match p.projection_type {
        "ALL" => quote!(__rt::schema::ProjectionDef::All),
        "KEYS_ONLY" => quote!(__rt::schema::ProjectionDef::KeysOnly),
        _ => {
            let names = &p.non_key_attributes;
            quote!(__rt::schema::ProjectionDef::Include(&[#(#names),*]))
        }
    }
}

impl<'a> Emitter<'a> {
    /// The scope expression for `entity` on `handle`.
    pub(super) fn scope_expr(&self, entity: &ir::Entity, handle: Handle) -> TokenStream {
        if self.is_tenant_scoped(entity) && handle == Handle::Tenant {
            quote!(&self.tenant)
        } else {
            quote!(&())
        }
    }

    /// The `TABLE` constant, rendered from the same CreateTable definition
    /// as `singletable generate table`, so both create the same table.
    fn emit_table_def(&self) -> TokenStream {
        let def = table::create_table(self.spec);
        let (pk, sk) = key_pair(&def, &def.key_schema);
        let indexes = def
            .global_secondary_indexes
            .iter()
            .map(|i| (true, i))
            .chain(def.local_secondary_indexes.iter().map(|i| (false, i)))
            .map(|(global, i)| {
                let name = i.index_name.as_str();
                let ipk = key_defs(&def, &i.key_schema, "HASH");
                let isk = key_defs(&def, &i.key_schema, "RANGE");
                let projection = projection_tokens(&i.projection);
                let cap = capacity(i.provisioned_throughput.as_ref());
                quote!(__rt::schema::IndexDef {
                    name: #name, global: #global, partition_key: &[#(#ipk),*], sort_key: &[#(#isk),*],
                    projection: #projection, capacity: #cap,
                })
            });
        let cap = capacity(def.provisioned_throughput.as_ref());
        let stream = option_tokens(def.stream_specification.as_ref().map(|s| {
            let view = s.stream_view_type;
            quote!(#view)
        }));
        let ttl = option_tokens(table::update_time_to_live(self.spec).map(|t| {
            let t = t.time_to_live_specification.attribute_name;
            quote!(#t)
        }));
        quote! {
            /// The table as the spec declares it (keys, indexes, billing, stream, TTL):
            /// the same definition as the spec's CreateTable JSON.
            pub const TABLE: __rt::schema::TableDef = __rt::schema::TableDef {
                partition_key: #pk,
                sort_key: #sk,
                indexes: &[#(#indexes),*],
                capacity: #cap,
                stream: #stream,
                ttl_attribute: #ttl,
            };
        }
    }

    /// `Repository::for_tenant` and the `TenantRepository` it returns: the
    /// tenant's entity operations and access patterns.
    fn tenant_repository(&self) -> TokenStream {
        // Its builders (transactions, batches) borrow the repository for
        // the handle's own lifetime `'a`; without them, the lifetime is elided.
        let builders = self.patterns.iter().any(|p| {
            p.handle == Handle::Tenant
                && matches!(
                    p.pattern.operation,
                    ir::Operation::Transaction(_) | ir::Operation::Batch(_)
                )
        });
        let impl_header = if builders {
            quote!(impl<'a> TenantRepository<'a>)
        } else {
            quote!(impl TenantRepository<'_>)
        };
        let ops = self.entity_ops(Handle::Tenant);
        let patterns = self.pattern_methods(Handle::Tenant);
        // A strongly consistent global table serves no transaction.
        let transact_get = (!self.spec.table.settings.strongly_consistent()).then(|| {
            quote! {
                /// Reads items of this tenant together, as of one moment
                /// (TransactGetItems, up to 100 items): add keys with `get`, then
                /// `send` and read each item at its slot.
                pub fn transact_get(&self) -> __rt::TransactGet<'_, TenantId> {
                    __rt::TransactGet::new(&self.repo.client, self.repo.__table_info(), &self.tenant)
                }
            }
        });
        quote! {
            impl Repository {
                /// A handle scoped to `tenant`: every key it builds starts with this tenant's prefix.
                pub fn for_tenant(&self, tenant: &TenantId) -> TenantRepository<'_> {
                    TenantRepository { repo: self, tenant: Clone::clone(tenant) }
                }
            }

            /// The table, scoped to one tenant. There is no way to reach
            /// another tenant's items through it: the tenant is part of
            /// every key it builds and is never taken from an item.
            #[derive(Debug, Clone)]
            pub struct TenantRepository<'a> {
                repo: &'a Repository,
                tenant: TenantId,
            }

            #impl_header {
                /// The tenant.
                pub fn tenant(&self) -> &TenantId {
                    &self.tenant
                }

                #transact_get
                #(#ops)*
                #(#patterns)*
            }
        }
    }

    pub(super) fn emit_repositories(&self) -> TokenStream {
        let table_def = self.emit_table_def();
        let repo_doc = match &self.spec.description {
            Some(d) => format!(
                " The table: a client and the table name. {}",
                super::user_text(d.trim())
            ),
            None => " The table: a client and the table name.".to_owned(),
        };
        let pk = self.spec.table.partition_key.name.as_str();
        let ttl = option_tokens(self.spec.table.ttl.as_ref().map(|t| {
            let t = t.as_str();
            quote!(#t)
        }));
        let streams = self.spec.entities.values().any(|e| {
            self.counted_by(e)
                .iter()
                .any(|c| c.spec.maintained_by == ir::Maintenance::Stream)
        });
        let apply_changes = streams.then(|| {
            quote! {
                /// Applies the counter changes a stream handler (`…_changes`) computed: one UpdateItem each, adding to the counter (and creating it when there is none). Each stream record is applied once: the counter item keeps a mark of the records it applied for a day, so a batch delivered again (whole, split, or from a failed record on) is not counted twice. Each counter is applied on its own: one that cannot be updated stops no other, and `Error::Counters` returns the changes that failed, each with its error (`aggregate::settle` sorts them into a Lambda partial batch response and refusals to report).
                pub async fn apply_counter_changes(&self, changes: &[__rt::aggregate::CounterChange]) -> Result<(), __rt::Error> {
                    __rt::aggregate::apply(&self.client, &self.__table_info(), changes).await
                }
            }
        });
        let global = self
            .spec
            .entities
            .values()
            .any(|e| !self.is_tenant_scoped(e));
        let table_get = (global && !self.spec.table.settings.strongly_consistent()).then(|| {
            quote! {
                /// Reads items of the table's global entities together, as of one
                /// moment (TransactGetItems, up to 100 items): add keys with `get`,
                /// then `send` and read each item at its slot.
                pub fn transact_get(&self) -> __rt::TransactGet<'_, ()> {
                    __rt::TransactGet::new(&self.client, self.__table_info(), &())
                }
            }
        });
        let table_ops = self.entity_ops(Handle::Table);
        let table_patterns = self.pattern_methods(Handle::Table);
        let tenant = self.has_tenant().then(|| self.tenant_repository());
        let queries = self
            .spec
            .access_patterns
            .values()
            .any(|p| matches!(p.operation, ir::Operation::Query(_)));
        let query_helper = queries.then(|| {
            quote! {
                fn __query<T: Send + 'static>(&self, request: Result<__rt::QueryRequest, __rt::Error>, decode: __rt::Decoder<T>) -> __rt::Query<T> {
                    let query = __rt::Query::new(self.client.clone(), request, decode);
                    match &self.page_tokens {
                        Some(keys) => query.with_tokens(keys),
                        None => query,
                    }
                }
            }
        });
        let tokens_field = queries.then(|| quote!(page_tokens: Option<__rt::PageTokens>,));
        let tokens_init = queries.then(|| quote!(page_tokens: None,));
        let tokens_method = queries.then(|| {
            quote! {
                /// The keys that seal and open page tokens: every query's pages
                /// carry a `next_token`, and `Query::page(limit, token)` hands out
                /// one page of an HTTP list in one call. Every server of the
                /// application uses the same keys.
                pub fn with_page_tokens(mut self, keys: __rt::PageTokens) -> Self {
                    self.page_tokens = Some(keys);
                    self
                }
            }
        });
        quote! {
            #table_def

            #[doc = #repo_doc]
            #[derive(Debug, Clone)]
            pub struct Repository {
                client: __rt::sdk::Client,
                table_name: String,
                retry: __rt::RetryPolicy,
                pending_allowed: bool,
                #tokens_field
            }

            impl Repository {
                /// A repository on the table named in the spec.
                pub fn new(client: __rt::sdk::Client) -> Self {
                    Repository {
                        client,
                        table_name: TABLE_NAME.to_owned(),
                        retry: __rt::RetryPolicy::default(),
                        pending_allowed: false,
                        #tokens_init
                    }
                }

                /// Use another table name (one table per stage or per test).
                pub fn with_table_name(mut self, table_name: impl Into<String>) -> Self {
                    self.table_name = table_name.into();
                    self
                }

                #tokens_method

                /// How unprocessed batch items are retried.
                pub fn with_retry_policy(mut self, retry: __rt::RetryPolicy) -> Self {
                    self.retry = retry;
                    self
                }

                /// Reads through the access patterns that wait for a pending
                /// migration job too (`migrations`), whose results are
                /// incomplete or stale until the job is verified; without it
                /// they fail with `Error::Pending`.
                pub fn allow_pending(mut self) -> Self {
                    self.pending_allowed = true;
                    self
                }

                fn __pending_allowed(&self) -> bool {
                    self.pending_allowed
                }

                /// The SDK client.
                pub fn client(&self) -> &__rt::sdk::Client {
                    &self.client
                }

                /// The table name.
                pub fn table_name(&self) -> &str {
                    &self.table_name
                }

                #query_helper

                fn __table(&self) -> __rt::ops::Table<'_> {
                    __rt::ops::Table { client: &self.client, info: self.__table_info() }
                }

                fn __table_info(&self) -> __rt::ops::TableInfo<'_> {
                    __rt::ops::TableInfo {
                        name: &self.table_name,
                        partition_key: #pk,
                        ttl_attribute: #ttl,
                    }
                }

                /// Creates the table as the spec declares it and waits until it is active.
                pub async fn create_table(&self) -> Result<(), __rt::Error> {
                    TABLE.create(&self.client, &self.table_name).await
                }
            }

            impl __rt::Repository for Repository {
                const TABLE: &'static __rt::schema::TableDef = &TABLE;
                const TABLE_NAME: &'static str = TABLE_NAME;

                fn new(client: __rt::sdk::Client) -> Self {
                    Repository::new(client)
                }

                fn with_table_name(self, table_name: String) -> Self {
                    Repository::with_table_name(self, table_name)
                }

                fn client(&self) -> &__rt::sdk::Client {
                    &self.client
                }

                fn table_name(&self) -> &str {
                    &self.table_name
                }
            }

            impl Repository {

                #apply_changes
                #table_get

                #(#table_ops)*
                #(#table_patterns)*
            }

            #tenant
        }
    }

    fn entity_ops(&self, handle: Handle) -> Vec<TokenStream> {
        let spec: &'a ir::Spec = self.spec;
        spec.entities
            .values()
            .filter(|e| (self.is_tenant_scoped(e)) == (handle == Handle::Tenant))
            .map(|e| self.entity_op_methods(e, handle))
            .collect()
    }

    fn entity_op_methods(&self, entity: &'a ir::Entity, handle: Handle) -> TokenStream {
        let name = entity.name.as_str();
        let ty = self.name(Item::Entity(name));
        let key_ty = self.name(Item::Key(name));
        let update_ty = self.name(Item::Update(name));
        // An access pattern may already be called `delete_task`; the
        // pattern keeps its name and the entity operation gains `_item`.
        let op = |op: EntityOp| self.name(Item::EntityOp(name, op));
        let get = op(EntityOp::Get);
        let repo = handle.repo();
        let scope = self.scope_expr(entity, handle);
        let get_doc = format!(
            " Reads the [`{name}`] at `key`; `None` when there is none (or its TTL has passed)."
        );
        if entity.kept_by_stream() {
            // Only the stream handler writes the counters it keeps
            // (`apply_counter_changes`); the policies deny others it.
            return quote! {
                #[doc = #get_doc]
                pub async fn #get(&self, key: &#key_ty) -> Result<Option<#ty>, __rt::Error> {
                    #repo.__table().get(key, #scope).await
                }
            };
        }
        let put = op(EntityOp::Put);
        let create = op(EntityOp::Create);
        let update = op(EntityOp::Update);
        let delete = op(EntityOp::Delete);
        let replace = op(EntityOp::Replace);
        let result = quote!(Result);
        let error = quote!(__rt::Error);
        let (written, write) = stamped_write(entity, &ty);
        let returns = returns_doc(entity);
        let put_doc = match &entity.version_attribute {
            Some(v) => format!(" Writes a [`{name}`] carrying its new `{v}`: applies only when there is no item or the stored `{v}` is one less, else fails with `Error::VersionConflict` (optimistic locking).{returns}"),
            None => format!(" Writes a [`{name}`], replacing any item with the same key.{returns}"),
        };
        let create_doc = format!(" Writes a new [`{name}`]; fails with `Error::ConditionFailed` when one with the same key exists.{returns}");
        let update_doc = format!(" Applies a partial update to an existing [`{name}`] and returns it as the update left it (a counter's new value, for one); fails with `Error::ConditionFailed` when there is none. The update is applied even when the item returned does not decode (`Error::Decode`).");
        let delete_doc = format!(" Deletes the [`{name}`] at `key` and returns it as it was; `None` when there was none. A request the SDK sent again that finds nothing is `Error::AlreadyAsWritten`: an earlier attempt whose answer was lost may have deleted it.");
        let delete_when = op(EntityOp::DeleteWhen);
        let delete_when_doc = format!(" Deletes the [`{name}`] at `key` when `condition` holds on it (`Condition::item_exists()`: only an item that exists) and returns it as it was; `None` when there was none and the condition allows that. Fails with `Error::ConditionNotMet`, carrying the stored item, when the condition does not hold.");
        let put_when = op(EntityOp::PutWhen);
        let put_when_doc = format!(" Writes a [`{name}`] when `condition` holds on the stored item (replacing it; a condition on its attributes never holds when there is none). Fails with `Error::ConditionNotMet`, carrying the stored item, when it does not — for a versioned entity, also when the stored version is not the one before.{returns}");
        let put_when_body = write(quote!(#repo.__table().put_when(item, #scope, condition).await));
        let put_body = write(quote!(#repo.__table().put(item, #scope).await));
        let replace_doc = match super::entity::has_timestamps(entity) {
            true => format!(" Writes a [`{name}`] as [`{put}`](Self::{put}) does (its timestamps set to now) and returns the item it replaced; `None` when there was none. A request the SDK sent again that finds the item it writes is `Error::AlreadyAsWritten`: what an earlier attempt replaced cannot be known."),
            false => format!(" Writes a [`{name}`] as [`{put}`](Self::{put}) does and returns the item it replaced; `None` when there was none. A request the SDK sent again that finds the item it writes is `Error::AlreadyAsWritten`: what an earlier attempt replaced cannot be known."),
        };
        let replace_item = match super::entity::has_timestamps(entity) {
            true => quote!(&item.with_timestamps()),
            false => quote!(item),
        };
        let create_body = write(quote!(#repo.__table().create(item, #scope).await));
        if let Some(counted) = self.transaction_counter(entity) {
            return self.counted_op_methods(
                entity,
                handle,
                &counted,
                [get, put, create, update, delete],
            );
        }
        quote! {
            #[doc = #get_doc]
            pub async fn #get(&self, key: &#key_ty) -> #result<Option<#ty>, #error> {
                #repo.__table().get(key, #scope).await
            }

            #[doc = #put_doc]
            pub async fn #put(&self, item: &#ty) -> #result<#written, #error> {
                #put_body
            }

            #[doc = #create_doc]
            pub async fn #create(&self, item: &#ty) -> #result<#written, #error> {
                #create_body
            }

            #[doc = #update_doc]
            pub async fn #update(&self, key: &#key_ty, update: #update_ty) -> #result<#ty, #error> {
                let changes = update.to_update(key, #scope)?;
                #repo.__table().update(key, #scope, changes).await
            }

            #[doc = #put_when_doc]
            pub async fn #put_when(&self, item: &#ty, condition: &__rt::Condition) -> #result<#written, #error> {
                #put_when_body
            }

            #[doc = #replace_doc]
            pub async fn #replace(&self, item: &#ty) -> #result<Option<#ty>, #error> {
                #repo.__table().replace(#replace_item, #scope).await
            }

            #[doc = #delete_when_doc]
            pub async fn #delete_when(&self, key: &#key_ty, condition: &__rt::Condition) -> #result<Option<#ty>, #error> {
                #repo.__table().delete_if(key, #scope, condition).await
            }

            #[doc = #delete_doc]
            pub async fn #delete(&self, key: &#key_ty) -> #result<Option<#ty>, #error> {
                #repo.__table().delete(key, #scope).await
            }
        }
    }

    /// The entity operations of an entity counted by a transaction-kept
    /// aggregate: writes read the item's group and move its count atomically.
    fn counted_op_methods(
        &self,
        entity: &'a ir::Entity,
        handle: Handle,
        counted: &super::aggregate::Counted<'_>,
        [get, put, create, update, delete]: [proc_macro2::Ident; 5],
    ) -> TokenStream {
        let name = entity.name.as_str();
        let a_name = counted.aggregate.name.as_str();
        let ty = self.name(Item::Entity(name));
        let key_ty = self.name(Item::Key(name));
        let update_ty = self.name(Item::Update(name));
        let repo = handle.repo();
        let scope = self.scope_expr(entity, handle);
        let konst = self.counter_const(counted.aggregate);
        let group_fn = self.group_fn(counted.aggregate);
        let result = quote!(Result);
        let error = quote!(__rt::Error);
        let (written, write) = stamped_write(entity, &ty);
        let returns = returns_doc(entity);
        let counted_doc =
            format!(" The count in its [`{a_name}`] group changes in the same transaction.");
        let put_body = write(
            quote!(__rt::aggregate::put(&repo.client, &repo.__table_info(), item, #scope, &#konst, #group_fn).await),
        );
        let create_body = write(
            quote!(__rt::aggregate::create(&repo.client, &repo.__table_info(), item, #scope, &#konst, #group_fn).await),
        );
        let get_doc = format!(
            " Reads the [`{name}`] at `key`; `None` when there is none (or its TTL has passed)."
        );
        let put_doc =
            format!(" Writes a [`{name}`], replacing any item with the same key.{returns}");
        let create_doc = format!(" Writes a new [`{name}`]; fails with `Error::ConditionFailed` when one with the same key exists.{returns}");
        let update_doc = format!(" Applies a partial update to an existing [`{name}`]; fails with `Error::ConditionFailed` when there is none. Returns the item as the update made it from the item it read: the transaction keeps the item's group as read, not its other attributes, so a concurrent change to those may not show.");
        let delete_doc = format!(" Deletes the [`{name}`] at `key` and returns it as read before the delete (in the same group); `None` when there was none.");
        quote! {
            #[doc = #get_doc]
            pub async fn #get(&self, key: &#key_ty) -> #result<Option<#ty>, #error> {
                #repo.__table().get(key, #scope).await
            }

            #[doc = #put_doc]
            #[doc = #counted_doc]
            pub async fn #put(&self, item: &#ty) -> #result<#written, #error> {
                let repo = #repo;
                #put_body
            }

            #[doc = #create_doc]
            #[doc = #counted_doc]
            pub async fn #create(&self, item: &#ty) -> #result<#written, #error> {
                let repo = #repo;
                #create_body
            }

            #[doc = #update_doc]
            #[doc = #counted_doc]
            pub async fn #update(&self, key: &#key_ty, update: #update_ty) -> #result<#ty, #error> {
                let repo = #repo;
                let changes = update.to_update(key, #scope)?;
                __rt::aggregate::update(&repo.client, &repo.__table_info(), key.to_key_item(#scope)?, changes, #scope, &#konst, #group_fn).await
            }

            #[doc = #delete_doc]
            #[doc = #counted_doc]
            pub async fn #delete(&self, key: &#key_ty) -> #result<Option<#ty>, #error> {
                let repo = #repo;
                __rt::aggregate::delete(&repo.client, &repo.__table_info(), key.to_key_item(#scope)?, #scope, &#konst, #group_fn).await
            }
        }
    }
}

/// The sentence of a write's documentation saying what it returns.
fn returns_doc(entity: &ir::Entity) -> &'static str {
    if super::entity::has_timestamps(entity) {
        " Returns the item as written, its timestamps set to now."
    } else {
        " Returns the item as written."
    }
}

/// What `create_`/`put_` of `entity` (of Rust type `ty`) return, and their
/// body around the write `call` of `item`: the item as written, whatever
/// the entity's options; an entity with timestamps is written with them set
/// to now.
fn stamped_write(
    entity: &ir::Entity,
    ty: &proc_macro2::Ident,
) -> (TokenStream, impl Fn(TokenStream) -> TokenStream) {
    let stamped = super::entity::has_timestamps(entity);
    let written = quote!(#ty);
    let write = move |call: TokenStream| {
        if stamped {
            quote! {
                let item = &item.with_timestamps();
                #call?;
                Ok(item.clone())
            }
        } else {
            quote! {
                #call?;
                Ok(item.clone())
            }
        }
    };
    (written, write)
}
