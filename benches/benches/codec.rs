//! Item codec and key building: the generated `to_item` / `from_item` and
//! key encoders against the hand-written baseline (`format!` keys) and
//! `serde_dynamo`, on the same support-ticket data, in alternating rounds
//! ([`singletable_benches::rounds`]).

use std::hint::black_box;
use std::time::{Duration, Instant};

use singletable_benches::rounds::{Comparison, Plan};
use singletable_benches::{data, handwritten, serde_model};
use singletable_runtime::Entity;

fn main() -> std::io::Result<()> {
    let plan = Plan::new(11, Duration::from_millis(150));
    let tenant = data::tenant();
    let tickets: Vec<_> = (0..64).map(data::ticket).collect();
    Comparison::new("codec_ticket_to_item")
        .case("handwritten", || {
            for t in &tickets {
                black_box(handwritten::ticket_to_item(tenant.as_str(), t).unwrap());
            }
        })
        .case("generated", || {
            for t in &tickets {
                black_box(t.to_item(&tenant).unwrap());
            }
        })
        .case("serde_dynamo", || {
            for t in &tickets {
                black_box(serde_model::ticket_to_item(tenant.as_str(), t).unwrap());
            }
        })
        .run(plan)?;

    let items: Vec<_> = tickets
        .iter()
        .map(|t| t.to_item(&tenant).unwrap())
        .collect();
    Comparison::new("codec_ticket_from_item")
        .case("handwritten", || {
            for item in &items {
                black_box(handwritten::ticket_from_item(item).unwrap());
            }
        })
        .case("generated", || {
            for item in &items {
                black_box(<singletable_benches::Ticket as Entity>::from_item(item).unwrap());
            }
        })
        // serde_dynamo takes the item by value: the clones are made outside
        // the timing.
        .timed("serde_dynamo", |n| {
            let mut elapsed = Duration::ZERO;
            for _ in 0..n {
                let owned = items.clone();
                let start = Instant::now();
                for item in owned {
                    black_box(serde_model::ticket_from_item(item).unwrap());
                }
                elapsed += start.elapsed();
            }
            elapsed
        })
        .run(plan)?;

    let comments: Vec<_> = (0..64).map(|n| data::comment(n / 8, n)).collect();
    Comparison::new("codec_comment_round_trip")
        .case("handwritten", || {
            for c in &comments {
                let item = handwritten::comment_to_item(tenant.as_str(), c).unwrap();
                black_box(handwritten::comment_from_item(&item).unwrap());
            }
        })
        .case("generated", || {
            for c in &comments {
                let item = c.to_item(&tenant).unwrap();
                black_box(<singletable_benches::Comment as Entity>::from_item(&item).unwrap());
            }
        })
        .case("serde_dynamo", || {
            for c in &comments {
                let item = serde_model::comment_to_item(tenant.as_str(), c).unwrap();
                black_box(serde_model::comment_from_item(item).unwrap());
            }
        })
        .run(plan)?;

    let readings: Vec<_> = (0..64).map(data::reading).collect();
    let reading_keys: Vec<_> = readings.iter().map(|r| r.key()).collect();
    Comparison::new("keys_typed")
        .case("format", || {
            for r in &readings {
                black_box(handwritten::reading_key(r).unwrap());
            }
        })
        .case("generated", || {
            for k in &reading_keys {
                black_box(k.to_key_item(&()).unwrap());
            }
        })
        .run(plan)?;

    let comment_keys: Vec<_> = comments.iter().map(|c| c.key()).collect();
    Comparison::new("keys_comment")
        .case("format", || {
            for c in &comments {
                let key =
                    handwritten::comment_key(tenant.as_str(), &c.ticket_id, &c.created_at, &c.id);
                black_box(key.unwrap());
            }
        })
        .case("generated", || {
            for k in &comment_keys {
                black_box(k.to_key_item(&tenant).unwrap());
            }
        })
        .run(plan)?;
    Ok(())
}
