//! Item codec and key building: the generated `to_item` / `from_item` and
//! key encoders against the hand-written baseline (`format!` keys) and
//! `serde_dynamo`, on the same support-ticket data in the same run.

#![allow(
    missing_docs,
    reason = "criterion's macros generate undocumented public functions"
)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use singletable_benches::{data, handwritten, serde_model};
use singletable_runtime::Entity;

fn tickets_to_item(c: &mut Criterion) {
    let tenant = data::tenant();
    let tickets: Vec<_> = (0..64).map(data::ticket).collect();
    let mut group = c.benchmark_group("codec_ticket_to_item");
    group.bench_function("generated", |b| {
        b.iter(|| {
            for t in &tickets {
                black_box(t.to_item(&tenant).unwrap());
            }
        })
    });
    group.bench_function("handwritten", |b| {
        b.iter(|| {
            for t in &tickets {
                black_box(handwritten::ticket_to_item(tenant.as_str(), t).unwrap());
            }
        })
    });
    group.bench_function("serde_dynamo", |b| {
        b.iter(|| {
            for t in &tickets {
                black_box(serde_model::ticket_to_item(tenant.as_str(), t).unwrap());
            }
        })
    });
    group.finish();
}

fn tickets_from_item(c: &mut Criterion) {
    let tenant = data::tenant();
    let items: Vec<_> = (0..64)
        .map(|n| data::ticket(n).to_item(&tenant).unwrap())
        .collect();
    let mut group = c.benchmark_group("codec_ticket_from_item");
    group.bench_function("generated", |b| {
        b.iter(|| {
            for item in &items {
                black_box(<singletable_benches::Ticket as Entity>::from_item(item).unwrap());
            }
        })
    });
    group.bench_function("handwritten", |b| {
        b.iter(|| {
            for item in &items {
                black_box(handwritten::ticket_from_item(item).unwrap());
            }
        })
    });
    // serde_dynamo takes the item by value: the clone is made outside the timing.
    group.bench_function("serde_dynamo", |b| {
        b.iter_batched(
            || items.clone(),
            |items| {
                for item in items {
                    black_box(serde_model::ticket_from_item(item).unwrap());
                }
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

fn comments_round_trip(c: &mut Criterion) {
    let tenant = data::tenant();
    let comments: Vec<_> = (0..64).map(|n| data::comment(n / 8, n)).collect();
    let mut group = c.benchmark_group("codec_comment_round_trip");
    group.bench_function("generated", |b| {
        b.iter(|| {
            for c in &comments {
                let item = c.to_item(&tenant).unwrap();
                black_box(<singletable_benches::Comment as Entity>::from_item(&item).unwrap());
            }
        })
    });
    group.bench_function("handwritten", |b| {
        b.iter(|| {
            for c in &comments {
                let item = handwritten::comment_to_item(tenant.as_str(), c).unwrap();
                black_box(handwritten::comment_from_item(&item).unwrap());
            }
        })
    });
    group.bench_function("serde_dynamo", |b| {
        b.iter(|| {
            for c in &comments {
                let item = serde_model::comment_to_item(tenant.as_str(), c).unwrap();
                black_box(serde_model::comment_from_item(item).unwrap());
            }
        })
    });
    group.finish();
}

fn keys(c: &mut Criterion) {
    let tenant = data::tenant();
    let readings: Vec<_> = (0..64).map(|n| data::reading(n).key()).collect();
    let comments: Vec<_> = (0..64).map(|n| data::comment(n / 8, n)).collect();
    let mut group = c.benchmark_group("keys_typed");
    group.bench_function("generated", |b| {
        b.iter(|| {
            for k in &readings {
                black_box(k.to_key_item(&()).unwrap());
            }
        })
    });
    let raw: Vec<_> = (0..64).map(data::reading).collect();
    group.bench_function("format", |b| {
        b.iter(|| {
            for r in &raw {
                black_box(handwritten::reading_key(r).unwrap());
            }
        })
    });
    group.finish();
    let mut group = c.benchmark_group("keys_comment");
    let keys: Vec<_> = comments.iter().map(|c| c.key()).collect();
    group.bench_function("generated", |b| {
        b.iter(|| {
            for k in &keys {
                black_box(k.to_key_item(&tenant).unwrap());
            }
        })
    });
    group.bench_function("format", |b| {
        b.iter(|| {
            for c in &comments {
                let key =
                    handwritten::comment_key(tenant.as_str(), &c.ticket_id, &c.created_at, &c.id);
                black_box(key.unwrap());
            }
        })
    });
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(30)
        .without_plots()
}

criterion_group! {
    name = codec;
    config = config();
    targets = tickets_to_item, tickets_from_item, comments_round_trip, keys
}
criterion_main!(codec);
