//! Heap allocations per call, counted (not timed): the generated key
//! encoders against `format!` of the same templates, and the item codecs.
//! An item key is a map of two attributes; the map and the two attribute
//! names cost the same in every variant, so the allocations per key value
//! are `(total - container) / 2`, with `container` measured here too.

#![allow(
    clippy::disallowed_types,
    reason = "the SDK's item type is a HashMap; the container cost is measured on it"
)]

use std::collections::HashMap;

use serde_json::json;
use singletable_benches::{data, handwritten, results, serde_model};
use singletable_runtime::sdk::types::AttributeValue;
use singletable_runtime::Entity;

/// Allocations of one call of `f`, the least over a few calls (the first
/// may grow thread-locals).
fn count(mut f: impl FnMut()) -> u64 {
    (0..5)
        .map(|_| allocation_counter::measure(&mut f).count_total)
        .min()
        .unwrap_or(0)
}

fn main() {
    let tenant = data::tenant();
    let reading = data::reading(7);
    let reading_key = reading.key();
    let comment = data::comment(3, 21);
    let comment_key = comment.key();
    let ticket = data::ticket(5);
    let container = count(|| {
        let item: HashMap<String, AttributeValue> = HashMap::from([
            ("pk".to_owned(), AttributeValue::S(String::new())),
            ("sk".to_owned(), AttributeValue::S(String::new())),
        ]);
        std::hint::black_box(item);
    });
    let per_key = |total: u64| (total.saturating_sub(container)) as f64 / 2.0;
    let typed_generated = count(|| {
        std::hint::black_box(reading_key.to_key_item(&()).unwrap());
    });
    let typed_format = count(|| {
        std::hint::black_box(handwritten::reading_key(&reading).unwrap());
    });
    let comment_generated = count(|| {
        std::hint::black_box(comment_key.to_key_item(&tenant).unwrap());
    });
    let comment_format = count(|| {
        let c = &comment;
        let key = handwritten::comment_key(tenant.as_str(), &c.ticket_id, &c.created_at, &c.id);
        std::hint::black_box(key.unwrap());
    });
    let ticket_generated = count(|| {
        std::hint::black_box(ticket.to_item(&tenant).unwrap());
    });
    let ticket_handwritten = count(|| {
        std::hint::black_box(handwritten::ticket_to_item(tenant.as_str(), &ticket).unwrap());
    });
    let ticket_serde = count(|| {
        std::hint::black_box(serde_model::ticket_to_item(tenant.as_str(), &ticket).unwrap());
    });
    let value = json!({
        "container": container,
        "keys_typed": { "generated": typed_generated, "format": typed_format,
                        "generated_per_key": per_key(typed_generated), "format_per_key": per_key(typed_format) },
        "keys_comment": { "generated": comment_generated, "format": comment_format,
                          "generated_per_key": per_key(comment_generated), "format_per_key": per_key(comment_format) },
        "ticket_to_item": { "generated": ticket_generated, "handwritten": ticket_handwritten, "serde_dynamo": ticket_serde },
    });
    println!(
        "{}",
        serde_json::to_string_pretty(&value).unwrap_or_default()
    );
    if let Err(e) = results::write("allocations", &value) {
        eprintln!("cannot write the results: {e}");
        std::process::exit(1);
    }
}
