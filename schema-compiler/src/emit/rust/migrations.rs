//! The module's `migrations`: the jobs the lock holds pending, instantiated
//! from the runtime's generic jobs, a command line to run them, and which
//! access patterns wait for them.

use proc_macro2::TokenStream;
use quote::quote;

use super::Emitter;
use crate::evolve::Job;
use crate::ir::{self, IndexRef, Operation};
use crate::names::Item;

impl<'a> Emitter<'a> {
    /// The job an access pattern waits for, if any: the first pending job
    /// whose work the pattern's results depend on (a backfill of the index
    /// it reads, a re-key of an entity it reads). A verify job changes
    /// nothing and holds nothing back.
    pub(super) fn pending_job(&self, pattern: &ir::AccessPattern) -> Option<&str> {
        let (index, entities): (Option<&str>, Vec<&str>) = match &pattern.operation {
            Operation::Get { entity, .. } => (None, vec![entity.as_str()]),
            Operation::Query(q) => (
                index_name(&q.index),
                q.returns
                    .iter()
                    .chain(&q.matching)
                    .map(String::as_str)
                    .collect(),
            ),
            Operation::Scan(s) => (index_name(&s.index), vec![s.entity.as_str()]),
            Operation::TransactGet(t) => (None, t.entities.iter().map(String::as_str).collect()),
            Operation::Transaction(_) | Operation::Batch(_) => return None,
        };
        self.options.migrations.iter().find_map(|pending| {
            let waits = match &pending.job {
                Job::BackfillIndexKeys { entity, index: i } => {
                    index == Some(i.as_str()) && entities.contains(&entity.as_str())
                }
                Job::CleanupIndexKeys { index: i, .. } => index == Some(i.as_str()),
                // Reads never read a derived attribute.
                Job::BackfillDerived { .. } => false,
                Job::Rekey { entity }
                | Job::MoveAttribute { entity, .. }
                | Job::FillAttribute { entity, .. }
                | Job::Remark { entity }
                | Job::CopyEntity { entity, .. } => entities.contains(&entity.as_str()),
                // The new table is empty until the copy: every read waits.
                Job::CopyTable { .. } => true,
                // Counts are partial until the recount.
                Job::Recount { aggregate, .. } => entities.contains(&aggregate.as_str()),
                Job::VerifyItems { .. } | Job::Purge { .. } => false,
            };
            waits.then_some(pending.id.as_str())
        })
    }

    /// A request expression `request`, refused with `Error::Pending` unless
    /// the repository (`repo`) allows reading while a job is pending.
    pub(super) fn gated(
        &self,
        pattern: &ir::AccessPattern,
        repo: &TokenStream,
        request: TokenStream,
    ) -> TokenStream {
        match self.pending_job(pattern) {
            Some(job) => {
                let name = pattern.name.as_str();
                quote!(__rt::migrate::gate(#request, #repo.__pending_allowed(), #name, #job))
            }
            None => request,
        }
    }

    /// `pub mod migrations`: every pending job, and `main`, their command
    /// line.
    pub(super) fn emit_migrations(&self) -> TokenStream {
        let jobs: Vec<TokenStream> = self
            .options
            .migrations
            .iter()
            .filter(|pending| !pending.job.needs_value())
            .filter_map(|pending| self.job(&pending.id, &pending.job, pending.previous.as_deref()))
            .collect();
        let fills = self.fill_functions();
        let count = proc_macro2::Literal::usize_unsuffixed(jobs.len());
        let doc = if self.options.migrations.is_empty() {
            " The migration jobs of the changes `singletable.lock` accepted and has not verified: none."
        } else {
            " The migration jobs of the changes `singletable.lock` accepted and not yet verified. Run them with [`migrations::main`] (`list`, `run <job> --worker I --workers W --live`, `status`, `verify`, `reset-segment`), then `singletable lock --verified <job>` and rebuild: the access patterns that wait for a job return `Error::Pending` until then."
        };
        quote! {
            #[doc = #doc]
            pub mod migrations {
                #[allow(unused_imports)]
                use super::*;
                use ::singletable_runtime::__private as __rt;

                /// Every pending job that needs nothing from you; a job
                /// that fills a required attribute with values you choose
                /// is made by its `fill_…` function: add it to these and
                /// run them with `singletable_runtime::migrate::main`.
                pub fn jobs() -> Vec<Box<dyn __rt::migrate::Job>> {
                    let jobs: [Box<dyn __rt::migrate::Job>; #count] = [#(#jobs),*];
                    jobs.into()
                }

                /// The jobs' command line, on the table named in the spec
                /// (`--table` names another): see [`::singletable_runtime::migrate::main`].
                pub async fn main(client: __rt::sdk::Client) -> ::std::process::ExitCode {
                    __rt::migrate::main(client, super::TABLE_NAME, jobs()).await
                }

                #(#fills)*
            }
        }
    }

    /// `fill_<entity>_<attribute>(value)` for every pending job that fills
    /// a required attribute with values the user chooses.
    fn fill_functions(&self) -> Vec<TokenStream> {
        let mut names = std::collections::BTreeSet::new();
        let mut out = Vec::new();
        for pending in &self.options.migrations {
            let Job::FillAttribute {
                entity,
                attribute,
                value: None,
            } = &pending.job
            else {
                continue;
            };
            let Some(e) = self.spec.entities.get(entity.as_str()) else {
                continue;
            };
            let (Some(a), Some(c)) = (
                e.attributes.get(attribute.as_str()),
                self.field_const_of(entity, attribute),
            ) else {
                continue;
            };
            let base = format!(
                "fill_{}_{}",
                crate::naming::snake(entity),
                crate::naming::snake(attribute)
            );
            let mut name = base.clone();
            let mut n = 1;
            while !names.insert(name.clone()) {
                n += 1;
                name = format!("{base}_{n}");
            }
            let f = quote::format_ident!("{}", name);
            let ty = self.value_type(entity, a);
            let t = self.name(Item::Entity(e.name.as_str()));
            let id = pending.id.as_str();
            let doc = format!(" Job `{id}`: sets `{entity}.{attribute}` in every stored `{entity}` that lacks it to what `value` returns for the item as stored (`None` leaves it; a value the attribute's rules refuse is listed as invalid)." );
            out.push(quote! {
                #[doc = #doc]
                pub fn #f(value: impl Fn(&__rt::Item) -> Option<#ty> + Send + Sync + 'static) -> Box<dyn __rt::migrate::Job> {
                    Box::new(__rt::migrate::jobs::FillAttribute::<super::#t>::typed(#id, super::#t::#c, value))
                }
            });
        }
        out
    }

    /// The field constant of `entity.attribute`, if it has one.
    fn field_const_of(&self, entity: &str, attribute: &str) -> Option<proc_macro2::Ident> {
        let e = self.spec.entities.get(entity)?;
        let a = e.attributes.get(attribute)?;
        (!a.key_only).then(|| self.name(Item::FieldConst(e.name.as_str(), a.name.as_str())))
    }

    /// One job, boxed: `None` when it cannot be generated (a re-key whose
    /// old spec the lock did not record).
    fn job(&self, id: &str, job: &Job, previous: Option<&ir::Spec>) -> Option<TokenStream> {
        match job {
            Job::Purge { entity } => {
                let (_, _, old_identity) = old_entity(previous, entity)?;
                let current = self.spec.entities.values().map(|e| {
                    let t = self.name(Item::Entity(e.name.as_str()));
                    quote!(<super::#t as __rt::Entity>::IDENTITY)
                });
                let entity = entity.as_str();
                return Some(quote!(Box::new({
                    const CURRENT: &[__rt::Identity] = &[#(#current),*];
                    __rt::migrate::jobs::Purge::new(#id, #entity, #old_identity, CURRENT)
                })));
            }
            Job::CopyTable { from } => {
                let keys = std::iter::once(self.spec.table.partition_key.name.as_str())
                    .chain(self.spec.table.sort_key.as_ref().map(|k| k.name.as_str()));
                let from = from.as_str();
                // The entities the old design had and this one has not.
                let previous = previous?;
                let old = super::Emitter::new(previous);
                let removed = previous
                    .entities
                    .values()
                    .filter(|e| !self.spec.entities.contains_key(e.name.as_str()))
                    .map(|e| old.identity(e));
                return Some(quote!(Box::new({
                    const REMOVED: &[__rt::Identity] = &[#(#removed),*];
                    __rt::migrate::jobs::CopyTable::new(#id, #from, &[#(#keys),*], REMOVED)
                })));
            }
            Job::BackfillIndexKeys { .. }
            | Job::BackfillDerived { .. }
            | Job::CleanupIndexKeys { .. }
            | Job::VerifyItems { .. }
            | Job::Rekey { .. }
            | Job::MoveAttribute { .. }
            | Job::FillAttribute { .. }
            | Job::Remark { .. }
            | Job::CopyEntity { .. } => {}
            Job::Recount { aggregate, .. } => {
                let counted = self
                    .counters
                    .iter()
                    .find(|c| c.aggregate.name.as_str() == aggregate)?;
                self.pending_recount(aggregate)?;
                let of = self.name(Item::Entity(counted.of.name.as_str()));
                let a = self.name(Item::Entity(aggregate.as_str()));
                let counter = self.counter_const(counted.aggregate);
                let image = self.name(Item::ImageFn(aggregate.as_str()));
                let transactional = counted.spec.maintained_by == ir::Maintenance::Transaction;
                return Some(
                    quote!(Box::new(__rt::migrate::jobs::RecountAggregate::<super::#of, super::#a>::new(#id, super::#counter, super::#image, #transactional))),
                );
            }
        }
        let entity = self.spec.entities.get(job.entity()?)?;
        let ty = self.name(Item::Entity(entity.name.as_str()));
        let ty = quote!(super::#ty);
        Some(match job {
            Job::BackfillIndexKeys { index, .. } => {
                let keys = self.index_key_names(index);
                let tenant = tenant_at(self.spec, entity);
                quote!(Box::new(__rt::migrate::jobs::BackfillIndexKeys::<#ty>::new(#id, #index, &[#(#keys),*], #tenant)))
            }
            Job::BackfillDerived { attribute, .. } => {
                let tenant = tenant_at(self.spec, entity);
                quote!(Box::new(__rt::migrate::jobs::BackfillIndexKeys::<#ty>::derived(#id, &[#attribute], #tenant)))
            }
            Job::CleanupIndexKeys { index, .. } => {
                let keys = self.index_key_names(index);
                quote!(Box::new(__rt::migrate::jobs::CleanupIndexKeys::<#ty>::new(#id, #index, &[#(#keys),*])))
            }
            Job::VerifyItems { .. } => {
                quote!(Box::new(__rt::migrate::jobs::VerifyItems::<#ty>::new(#id)))
            }
            Job::Rekey { entity: name } => {
                let (previous, old, old_identity) = old_entity(previous, name)?;
                let tenant = tenant_at(previous, old);
                quote!(Box::new(__rt::migrate::jobs::Rekey::<#ty>::new(#id, #old_identity, #tenant)))
            }
            Job::MoveAttribute { from, to, .. } => {
                let (from, to) = (from.as_str(), to.as_str());
                quote!(Box::new(__rt::migrate::jobs::MoveAttribute::<#ty>::new(#id, #from, #to)))
            }
            Job::FillAttribute {
                attribute,
                value: Some(value),
                ..
            } => {
                let c = self.field_const_of(&entity.name, attribute)?;
                let value = proc_macro2::Literal::i64_unsuffixed(*value);
                quote!(Box::new(__rt::migrate::jobs::FillAttribute::<#ty>::typed(#id, #ty::#c, |_| Some(#value))))
            }
            Job::Remark { entity: name } => {
                let (_, _, old_identity) = old_entity(previous, name)?;
                quote!(Box::new(__rt::migrate::jobs::FillAttribute::<#ty>::remark(#id, #old_identity)))
            }
            Job::CopyEntity { entity: name, from } => {
                let (previous, old, old_identity) = old_entity(previous, name)?;
                let tenant = tenant_at(previous, old);
                let from = from.as_str();
                quote!(Box::new(__rt::migrate::jobs::CopyEntity::<#ty>::new(#id, #from, #old_identity, #tenant)))
            }
            Job::FillAttribute { value: None, .. }
            | Job::Purge { .. }
            | Job::CopyTable { .. }
            | Job::Recount { .. } => return None,
        })
    }

    /// The key attributes of `index`.
    fn index_key_names(&self, index: &str) -> Vec<&'a str> {
        let spec: &'a ir::Spec = self.spec;
        spec.indexes
            .get(index)
            .map(|i| {
                std::iter::once(i.partition_key.name.as_str())
                    .chain(i.sort_key.as_ref().map(|k| k.name.as_str()))
                    .collect()
            })
            .unwrap_or_default()
    }
}

fn index_name(index: &IndexRef) -> Option<&str> {
    match index {
        IndexRef::Index(i) => Some(i.as_str()),
        IndexRef::Table => None,
    }
}

/// Entity `name` of the spec a change set moved from, and its identity
/// there (how a job tells the items still in the old form), as tokens of
/// `Identity`; `None` when the lock recorded no such spec or entity.
fn old_entity<'p>(
    previous: Option<&'p ir::Spec>,
    name: &str,
) -> Option<(&'p ir::Spec, &'p ir::Entity, TokenStream)> {
    let previous = previous?;
    let old = previous.entities.get(name)?;
    Some((previous, old, super::Emitter::new(previous).identity(old)))
}

/// Where `entity`'s tenant sits in its table partition key, as tokens of
/// `Option<TenantAt>`.
fn tenant_at(spec: &ir::Spec, entity: &ir::Entity) -> TokenStream {
    let prefix = (spec.tenant.is_some() && entity.scope == ir::Scope::Tenant)
        .then(|| entity.primary_key.pk.tenant_prefix())
        .flatten();
    match prefix {
        Some(ir::TenantPrefix { literal, end }) => {
            let attribute = entity.primary_key.pk.attribute.as_str();
            let delimiter = match end {
                ir::TenantEnd::Delimiter(d) => quote!(Some(#d)),
                ir::TenantEnd::Key | ir::TenantEnd::Placeholder => quote!(None),
            };
            quote!(Some(__rt::migrate::jobs::TenantAt { attribute: #attribute, literal: #literal, delimiter: #delimiter }))
        }
        None => quote!(None),
    }
}
