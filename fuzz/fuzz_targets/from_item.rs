//! The runtime's decoders on arbitrary attribute maps: every entity's
//! `from_item`, including reading attributes back out of arbitrary stored
//! keys. A value or a decode error naming the attribute, never a panic.
#![no_main]

use std::collections::HashMap;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use singletable_runtime::sdk::primitives::Blob;
use singletable_runtime::sdk::types::AttributeValue;
use singletable_runtime::{Entity, Item};

mod generated {
    singletable_runtime::include_generated!(pub support_ticket);
    singletable_runtime::include_generated!(pub pooled_product_catalog);
    singletable_runtime::include_generated!(pub photo_site);
    singletable_runtime::include_generated!(pub monthly_activity);
    singletable_runtime::include_generated!(pub vertical_partitioning);
    singletable_runtime::include_generated!(pub contest_votes);
}
use generated::*;

/// Names the specs use, so maps hit the real decode paths.
const NAMES: &[&str] = &[
    "pk",
    "sk",
    "entity_type",
    "EntityType",
    "id",
    "ticket_id",
    "title",
    "status",
    "resolver",
    "created_at",
    "author",
    "body",
    "count",
    "tenant_status",
    "ShardID",
    "ProductID",
    "product_id",
    "name",
    "category",
    "price",
    "currency",
    "doc",
    "updated_at",
    "gsi1pk",
    "gsi1sk",
    "photo_id",
    "url",
    "tags",
    "uploaded_at",
    "width",
    "lsi1sk",
    "month",
    "occurred_at",
    "event_id",
    "expires_at",
    "details",
    "chunk",
    "text",
    "version",
    "document_id",
    "shard",
    "votes",
];

#[derive(Debug, Arbitrary)]
enum Value {
    S(String),
    N(String),
    B(Vec<u8>),
    Bool(bool),
    Null,
    Ss(Vec<String>),
    Ns(Vec<String>),
    L(Vec<Value>),
    M(Vec<(String, Value)>),
}

fn convert(v: Value, depth: u8) -> AttributeValue {
    match v {
        Value::S(s) => AttributeValue::S(s),
        Value::N(n) => AttributeValue::N(n),
        Value::B(b) => AttributeValue::B(Blob::new(b)),
        Value::Bool(b) => AttributeValue::Bool(b),
        Value::Null => AttributeValue::Null(true),
        Value::Ss(v) => AttributeValue::Ss(v),
        Value::Ns(v) => AttributeValue::Ns(v),
        Value::L(v) if depth < 8 => {
            AttributeValue::L(v.into_iter().map(|x| convert(x, depth + 1)).collect())
        }
        Value::M(v) if depth < 8 => AttributeValue::M(
            v.into_iter()
                .map(|(k, x)| (k, convert(x, depth + 1)))
                .collect(),
        ),
        _ => AttributeValue::Null(true),
    }
}

#[derive(Debug, Arbitrary)]
struct Input {
    attributes: Vec<(u8, Option<String>, Value)>,
}

fn check<E: Entity>(item: &Item) {
    if let Err(e) = E::from_item(item) {
        assert!(!e.attribute.is_empty());
        let _ = e.to_string();
    }
}

fuzz_target!(|input: Input| {
    let mut item: Item = HashMap::new();
    for (name, custom, value) in input.attributes.into_iter().take(32) {
        let name = custom.unwrap_or_else(|| NAMES[name as usize % NAMES.len()].to_owned());
        item.insert(name, convert(value, 0));
    }
    check::<support_ticket::Ticket>(&item);
    check::<support_ticket::Comment>(&item);
    check::<support_ticket::TicketCount>(&item);
    check::<pooled_product_catalog::Product>(&item);
    check::<photo_site::Photo>(&item);
    check::<photo_site::UserProfile>(&item);
    check::<monthly_activity::ActivityEvent>(&item);
    check::<vertical_partitioning::DocumentBodyChunk>(&item);
    check::<vertical_partitioning::DocumentMeta>(&item);
    check::<contest_votes::VoteShard>(&item);
});
