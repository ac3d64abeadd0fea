//! The `tracing` feature: one span per repository call, with the access
//! pattern or entity, the table, the shard fan-out, pages, items, retries
//! and the capacity consumed; the SDK's spans nest inside it.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use singletable_runtime::DateTime;
use singletable_tests::generated::pooled_product_catalog::*;
use singletable_tests::server;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

/// A span as the subscriber saw it.
#[derive(Debug, Clone, Default)]
struct Seen {
    name: &'static str,
    target: &'static str,
    parent: Option<u64>,
    fields: BTreeMap<String, String>,
}

/// Records every span and the values recorded on it.
#[derive(Clone, Default)]
struct Collector {
    spans: Arc<Mutex<Vec<Seen>>>,
    stack: Arc<Mutex<Vec<u64>>>,
}

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl Subscriber for Collector {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, attrs: &Attributes<'_>) -> Id {
        let mut seen = Seen {
            name: attrs.metadata().name(),
            target: attrs.metadata().target(),
            parent: self.stack.lock().unwrap().last().copied(),
            ..Seen::default()
        };
        attrs.record(&mut Fields(&mut seen.fields));
        let mut spans = self.spans.lock().unwrap();
        spans.push(seen);
        Id::from_u64(spans.len() as u64)
    }
    fn record(&self, id: &Id, values: &Record<'_>) {
        let mut spans = self.spans.lock().unwrap();
        let seen = &mut spans[id.into_u64() as usize - 1];
        values.record(&mut Fields(&mut seen.fields));
    }
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, _: &Event<'_>) {}
    fn enter(&self, id: &Id) {
        self.stack.lock().unwrap().push(id.into_u64());
    }
    fn exit(&self, _: &Id) {
        self.stack.lock().unwrap().pop();
    }
}

impl Collector {
    /// The spans of this crate (target `singletable`), with their ids.
    fn ours(&self) -> Vec<(u64, Seen)> {
        let spans = self.spans.lock().unwrap();
        spans
            .iter()
            .enumerate()
            .filter(|(_, s)| s.target == "singletable")
            .map(|(i, s)| (i as u64 + 1, s.clone()))
            .collect()
    }

    fn clear(&self) {
        self.spans.lock().unwrap().clear();
    }
}

fn product(id: &str) -> Product {
    Product {
        product_id: id.into(),
        name: format!("product {id}"),
        category: "tools".into(),
        price: "9.99".parse().unwrap(),
        currency: Currency::Eur,
        doc: Default::default(),
        updated_at: DateTime::from_secs(1_714_564_800),
    }
}

#[tokio::test]
async fn each_call_is_one_span_with_what_it_did() {
    let repo = Repository::new(server::client(&server::server().await.endpoint))
        .with_table_name(server::unique_table("Traced"));
    repo.create_table().await.unwrap();
    let collector = Collector::default();
    let _guard = tracing::subscriber::set_default(collector.clone());
    let acme = TenantId::new("acme").unwrap();
    let t = repo.for_tenant(&acme);

    t.put_product(&product("p-1")).await.unwrap();
    let spans = collector.ours();
    assert_eq!(spans.len(), 1, "{spans:#?}");
    let put = &spans[0].1;
    assert_eq!(put.name, "singletable.item");
    assert_eq!(put.fields["operation"], "put");
    assert_eq!(put.fields["entity"], "Product");
    assert_eq!(put.fields["table"], repo.table_name());
    // The SDK's own spans of the request nest inside it.
    let all = collector.spans.lock().unwrap().clone();
    assert!(
        all.iter()
            .any(|s| s.target != "singletable" && s.parent == Some(spans[0].0)),
        "no SDK span inside the call: {all:#?}"
    );

    collector.clear();
    let mut batch = t.import_products();
    for i in 0..60 {
        batch.put_product(&product(&format!("p-{i:03}")));
    }
    batch.send().await.unwrap();
    let spans = collector.ours();
    assert_eq!(spans.len(), 1, "{spans:#?}");
    let batch = &spans[0].1;
    assert_eq!(batch.name, "singletable.batch");
    assert_eq!(batch.fields["operation"], "batch_write");
    assert_eq!(batch.fields["items"], "60");
    assert_eq!(batch.fields["requests"], "3");

    collector.clear();
    let items = t.tenant_products().page_size(7).all().await.unwrap();
    let spans = collector.ours();
    assert_eq!(
        spans.len(),
        1,
        "one span for every page and shard: {spans:#?}"
    );
    let query = &spans[0].1;
    assert_eq!(query.name, "singletable.query");
    assert_eq!(query.fields["pattern"], "tenant_products");
    assert_eq!(query.fields["partitions"], "10", "the shard fan-out");
    assert_eq!(query.fields["items"], items.len().to_string());
    assert!(query.fields["pages"].parse::<u32>().unwrap() >= 2);
    let capacity: f64 = query.fields["consumed_capacity"].parse().unwrap();
    assert!(capacity > 0.0, "{query:?}");

    // The capacity is on the pages too, with or without the feature.
    let page_capacity: f64 = {
        use futures_util::StreamExt;
        let pages: Vec<_> = t.tenant_products().pages().collect().await;
        pages
            .iter()
            .map(|p| p.as_ref().unwrap().consumed_capacity)
            .sum()
    };
    assert!(page_capacity > 0.0);
}
