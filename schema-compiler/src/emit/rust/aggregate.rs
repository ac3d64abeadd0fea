//! Aggregates: counters of another entity's items, kept in the same
//! transaction as the writes or by a DynamoDB Streams handler.

use proc_macro2::TokenStream;
use quote::quote;

use super::Emitter;
use crate::evolve::RecountAttributes;
use crate::ir::{self, Maintenance, PlaceholderKind};
use crate::names::Item;

/// An aggregate the generated code can keep: its counter key is built from
/// grouping attributes of the same Rust type on both entities.
#[derive(Debug, Clone, Copy)]
pub(super) struct Counted<'a> {
    /// The aggregate entity.
    pub aggregate: &'a ir::Entity,
    /// Its description in the spec.
    pub spec: &'a ir::Aggregate,
    /// The entity whose items it counts.
    pub of: &'a ir::Entity,
}

impl<'a> Emitter<'a> {
    /// Plans the aggregates the generated code keeps, before printing.
    pub(super) fn plan_counters(&self) -> Vec<Counted<'a>> {
        let spec: &'a ir::Spec = self.spec;
        spec.entities
            .values()
            .filter_map(|aggregate| {
                let counted = Counted {
                    aggregate,
                    spec: aggregate.aggregate.as_ref()?,
                    of: spec.entities.get(&aggregate.aggregate.as_ref()?.of)?,
                };
                self.can_maintain(&counted).then_some(counted)
            })
            .collect()
    }

    /// The aggregates that count `entity`'s items and that the generated code
    /// can maintain, with how.
    pub(super) fn counted_by(&self, entity: &ir::Entity) -> Vec<Counted<'a>> {
        self.counters
            .iter()
            .filter(|c| c.of.name == entity.name)
            .copied()
            .collect()
    }

    /// The one transaction-maintained aggregate of `entity`, if any: its
    /// writes through the repository update the counter atomically.
    pub(super) fn transaction_counter(&self, entity: &ir::Entity) -> Option<Counted<'a>> {
        self.counted_by(entity)
            .into_iter()
            .find(|c| c.spec.maintained_by == Maintenance::Transaction)
    }

    fn can_maintain(&self, counted: &Counted<'_>) -> bool {
        let Counted {
            aggregate,
            spec,
            of,
        } = *counted;
        if aggregate.shards.is_some()
            || self.is_tenant_scoped(aggregate) != self.is_tenant_scoped(of)
        {
            return false;
        }
        let keys_grouped = aggregate
            .key_attributes()
            .iter()
            .all(|k| spec.group_by.contains(&k.name.value));
        let same_types = spec.group_by.iter().all(|g| {
            match (aggregate.attributes.get(g), of.attributes.get(g)) {
                (Some(a), Some(o)) => {
                    !a.optional
                        && !o.optional
                        && self.value_type(aggregate.name.as_str(), a).to_string()
                            == self.value_type(of.name.as_str(), o).to_string()
                }
                _ => false,
            }
        });
        keys_grouped && same_types
    }

    /// `COUNTER_TICKET_COUNT`.
    pub(super) fn counter_const(&self, aggregate: &'a ir::Entity) -> proc_macro2::Ident {
        self.name(Item::Counter(aggregate.name.as_str()))
    }

    /// `ticket_group_for_ticket_count`.
    pub(super) fn group_fn(&self, aggregate: &'a ir::Entity) -> proc_macro2::Ident {
        self.name(Item::GroupFn(aggregate.name.as_str()))
    }

    /// Per maintained aggregate: the counter constant, the function that
    /// finds an item's group, and for stream-maintained ones the function
    /// that reads the group out of a stream image.
    pub(super) fn emit_aggregates(&self) -> TokenStream {
        let mut out = TokenStream::new();
        for of in self.spec.entities.values() {
            for counted in self.counted_by(of) {
                out.extend(self.emit_counter(of, &counted));
            }
        }
        out
    }

    fn emit_counter(&self, of: &'a ir::Entity, counted: &Counted<'a>) -> TokenStream {
        let aggregate = counted.aggregate;
        let a_name = aggregate.name.as_str();
        let of_name = of.name.as_str();
        let of_ty = self.name(Item::Entity(of_name));
        let scope_ty = self.scope_type(of);
        let count = counted.spec.count.as_str();
        let konst = self.counter_const(aggregate);
        let group_fn = self.group_fn(aggregate);
        let a_key = self.name(Item::Key(a_name));
        let a_ty = self.name(Item::Entity(a_name));
        let key_fields = aggregate.key_attributes().into_iter().map(|k| {
            let f = self.name(Item::Field(a_name, k.name.as_str()));
            let value = self.field_ref(of_name, &quote!(item), k.name.as_str());
            quote!(#f: Clone::clone(#value),)
        });
        // The counter item's grouping attributes, under their stored names
        // (a key-only one lives in the counter's key alone).
        let attributes = counted
            .spec
            .group_by
            .iter()
            .filter(|g| {
                !aggregate
                    .attributes
                    .get(g.as_str())
                    .is_some_and(|a| a.key_only)
            })
            .map(|g| {
                let value = self.field_ref(of_name, &quote!(item), g);
                let stored = aggregate
                    .attributes
                    .get(g.as_str())
                    .map_or(g.as_str(), |a| a.stored());
                quote!((#stored, __rt::Attr::to_av(#value)),)
            });
        let counter_doc = format!(" The `{count}` counter of [`{a_name}`].");
        // The count's rule, as its own reads and writes keep it.
        let rule = aggregate.attributes.get(count).map_or_else(
            || quote!(__rt::Store::Plain),
            |a| self.rule_or_plain(a_name, a),
        );
        let recount = match self.pending_recount(a_name) {
            Some(r) => {
                let (attribute, mark, shadow) = (&r.attribute, &r.mark, &r.shadow);
                quote!(Some(__rt::aggregate::Recount { attribute: #attribute, mark: #mark, shadow: #shadow }))
            }
            None => quote!(None),
        };
        let group_doc = format!(" The [`{a_name}`] group a [`{of_name}`] is counted in.");
        let mut out = quote! {
            #[doc = #counter_doc]
            pub const #konst: __rt::aggregate::Counter = __rt::aggregate::Counter {
                entity: #a_name,
                marker: <#a_ty as __rt::Entity>::IDENTITY.marker(),
                count_attribute: #count,
                recount: #recount,
                rule: &#rule,
            };

            #[doc = #group_doc]
            fn #group_fn(item: &#of_ty, scope: &#scope_ty) -> Result<__rt::aggregate::Group, __rt::Error> {
                let key = #a_key { #(#key_fields)* };
                Ok(__rt::aggregate::Group {
                    key: key.to_key_item(scope)?,
                    attributes: vec![#(#attributes)*],
                })
            }
        };
        let stream = counted.spec.maintained_by == Maintenance::Stream;
        // The recount job reads groups out of stored items, as the stream
        // handler does out of images.
        if stream || self.pending_recount(a_name).is_some() {
            out.extend(self.emit_image_fn(of, counted));
        }
        if stream {
            out.extend(self.emit_stream_handler(of, counted));
        }
        out
    }

    /// The recount the lock holds pending for aggregate `aggregate`, if any.
    pub(super) fn pending_recount(&self, aggregate: &str) -> Option<RecountAttributes> {
        self.options
            .migrations
            .iter()
            .filter(|pending| pending.job.entity() == Some(aggregate))
            .find_map(|pending| pending.job.recount_attributes())
    }

    /// The `(attribute, mark)` of each recount pending for aggregates of
    /// `entity`'s items, which every write of one stores.
    pub(super) fn counted_marks(&self, entity: &ir::Entity) -> Vec<RecountAttributes> {
        self.counted_by(entity)
            .iter()
            .filter_map(|c| self.pending_recount(c.aggregate.name.as_str()))
            .collect()
    }

    /// `ticket_count_group_of_image(item, value)`: the group of a stored
    /// item, its tenant read out of its key.
    fn emit_image_fn(&self, of: &'a ir::Entity, counted: &Counted<'a>) -> TokenStream {
        let aggregate = counted.aggregate;
        let a_name = aggregate.name.as_str();
        let of_ty = self.name(Item::Entity(of.name.as_str()));
        let group_fn = self.group_fn(aggregate);
        let image_fn = self.name(Item::ImageFn(a_name));
        let scope = match (&self.spec.tenant, self.is_tenant_scoped(of)) {
            (Some(tenant), true) => {
                let template = &of.primary_key.pk;
                let read = self.read_placeholder(
                    of,
                    template,
                    (PlaceholderKind::Tenant, tenant.placeholder.as_str()),
                    quote!(|t: &str| TenantId::new(t).ok()),
                    &self.key_steps(of, template),
                );
                quote!(let scope: TenantId = #read;)
            }
            _ => quote!(let scope = ();),
        };
        quote! {
            fn #image_fn(item: &__rt::Item, value: &#of_ty) -> Result<__rt::aggregate::Group, __rt::Error> {
                #scope
                #group_fn(value, &scope)
            }
        }
    }

    /// `ticket_count_changes(records)`: the counter changes a batch of
    /// DynamoDB Streams records makes, for a Lambda to apply.
    fn emit_stream_handler(&self, of: &'a ir::Entity, counted: &Counted<'a>) -> TokenStream {
        let aggregate = counted.aggregate;
        let a_name = aggregate.name.as_str();
        let of_name = of.name.as_str();
        let of_ty = self.name(Item::Entity(of_name));
        let konst = self.counter_const(aggregate);
        let image_fn = self.name(Item::ImageFn(a_name));
        let handler = self.name(Item::ChangesFn(a_name));
        let doc = [
            format!(" The changes to [`{a_name}`] counters that DynamoDB Streams records of `{of_name}` items make: +1 for each new image's group, −1 for each old image's, netted per counter (records of other entities are skipped). The tenant is read from each item's key. Images that do not decode are returned as errors; the rest are still counted. `apply_counter_changes` applies each record once, also when the stream delivers a batch again."),
            String::new(),
            " A stream consumer (a Lambda on the table's stream) turns each record's `OldImage`/`NewImage` into a [`::singletable_runtime::aggregate::ChangeRecord`] (`ChangeRecord::from_lambda_event` with the runtime's `lambda` feature, or `ChangeRecord::try_from` a Streams SDK record with `streams`), calls this, and applies the result with `Repository::apply_counter_changes`:".to_owned(),
            String::new(),
            " ```ignore".to_owned(),
            " async fn handler(event: LambdaEvent<aws_lambda_events::event::dynamodb::Event>) -> Result<(), Error> {".to_owned(),
            "     let records = ChangeRecord::from_lambda_event(event.payload);".to_owned(),
            format!("     let (changes, errors) = {handler}(&records);"),
            "     for e in &errors { eprintln!(\"{e}\"); }".to_owned(),
            "     repository.apply_counter_changes(&changes).await?;".to_owned(),
            "     Ok(())".to_owned(),
            " }".to_owned(),
            " ```".to_owned(),
        ];
        quote! {
            #(#[doc = #doc])*
            pub fn #handler(records: &[__rt::aggregate::ChangeRecord]) -> (Vec<__rt::aggregate::CounterChange>, Vec<__rt::Error>) {
                __rt::aggregate::count_changes::<#of_ty>(records, &#konst, #image_fn)
            }
        }
    }
}
