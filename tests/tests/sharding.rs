//! Write sharding end to end: writes spread evenly over the shards, and a
//! scatter-gather query returns every item exactly once, in sort-key order,
//! resumable page by page across shards.

use futures_util::StreamExt as _;
use singletable_runtime::sdk::types::AttributeValue;
use singletable_runtime::{DateTime, Position};
use singletable_tests::generated::pooled_product_catalog::*;
use singletable_tests::samples::product;
use singletable_tests::server;

const SHARDS: u32 = 10;

/// Pearson's chi-square statistic of `counts` against a uniform spread.
fn chi_square(counts: &[u64]) -> f64 {
    let total: u64 = counts.iter().sum();
    let expected = total as f64 / counts.len() as f64;
    counts
        .iter()
        .map(|&c| (c as f64 - expected).powi(2) / expected)
        .sum()
}

/// How many items the table holds in `tenant`'s shard `shard`, counted
/// with a raw Query on the partition key the spec declares.
async fn count_shard(repo: &Repository, tenant: &str, shard: u32) -> u64 {
    let mut count = 0;
    let mut start = None;
    loop {
        let out = repo
            .client()
            .query()
            .table_name(repo.table_name())
            .key_condition_expression("#pk = :pk")
            .expression_attribute_names("#pk", "ShardID")
            .expression_attribute_values(
                ":pk",
                AttributeValue::S(format!("TENANT#{tenant}|S#{shard}")),
            )
            .select(singletable_runtime::sdk::types::Select::Count)
            .set_exclusive_start_key(start)
            .send()
            .await
            .unwrap();
        count += out.count as u64;
        start = out.last_evaluated_key;
        if start.is_none() {
            return count;
        }
    }
}

#[tokio::test]
async fn ten_thousand_writes_spread_evenly_and_come_back_once_in_order() {
    let repo = Repository::new(server::client(&server::server().await.endpoint))
        .with_table_name(server::unique_table("Shards"));
    repo.create_table().await.unwrap();
    let tenant = TenantId::new("tenant1").unwrap();
    let other = TenantId::new("tenant10").unwrap();
    let t = repo.for_tenant(&tenant);
    let mut ids: Vec<String> = (0..10_000).map(|i| format!("sku-{i:05}")).collect();
    let mut batch = t.import_products();
    for id in &ids {
        batch.put_product(&product(id, "tools"));
    }
    batch.send().await.unwrap();
    let mut other_batch = repo.for_tenant(&other).import_products();
    for id in &ids[..50] {
        other_batch.put_product(&product(id, "tools"));
    }
    other_batch.send().await.unwrap();

    // The table holds 10,000 items in ten partitions, spread as a uniform
    // hash would: chi-square with 9 degrees of freedom below 27.88 (p = 0.001).
    let mut counts = Vec::new();
    for shard in 0..SHARDS {
        counts.push(count_shard(&repo, "tenant1", shard).await);
    }
    assert_eq!(counts.iter().sum::<u64>(), 10_000, "{counts:?}");
    let statistic = chi_square(&counts);
    assert!(statistic < 27.88, "chi-square {statistic} for {counts:?}");

    // Every item exactly once, merged across the shards in sort-key order.
    ids.sort();
    let got: Vec<String> = t
        .tenant_products()
        .all()
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.product_id)
        .collect();
    assert_eq!(got, ids);
    let reversed: Vec<String> = t
        .tenant_products()
        .reverse()
        .concurrency(3)
        .limit(100)
        .all()
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.product_id)
        .collect();
    let newest: Vec<String> = ids.iter().rev().take(100).cloned().collect();
    assert_eq!(reversed, newest);

    // Resuming from each page's cursor walks the whole set once, in order,
    // and the cursor has one position per shard.
    let mut resumed = Vec::new();
    let mut cursor = None;
    let mut calls = 0;
    loop {
        let mut query = t.tenant_products().page_size(97).limit(1_500);
        if let Some(c) = cursor.take() {
            query = query.starting_after(c);
        }
        let pages: Vec<_> = futures_util::StreamExt::collect::<Vec<_>>(query.pages()).await;
        let mut next = None;
        for page in pages {
            let page = page.unwrap();
            resumed.extend(page.items.into_iter().map(|p| p.product_id));
            next = page.next;
        }
        calls += 1;
        match next {
            Some(c) => {
                assert_eq!(c.positions().len(), SHARDS as usize);
                assert!(c
                    .positions()
                    .iter()
                    .any(|p| matches!(p, Position::After(_))));
                cursor = Some(c);
            }
            None => break,
        }
        assert!(calls <= 10, "the cursor does not advance");
    }
    assert_eq!(calls, 7, "1,500 items per call over 10,000 items");
    assert_eq!(resumed, ids);

    // A cursor from a query with another number of partitions is refused.
    let single = singletable_runtime::Cursor::from_positions(vec![Position::Start]);
    let refused = t.tenant_products().starting_after(single).all().await;
    assert!(
        matches!(
            refused,
            Err(singletable_runtime::Error::Cursor(
                singletable_runtime::CursorError::Partitions { cursor: 1, .. }
            ))
        ),
        "{refused:?}"
    );
    // The other tenant sees its own 50.
    assert_eq!(
        repo.for_tenant(&other)
            .tenant_products()
            .all()
            .await
            .unwrap()
            .len(),
        50
    );
}

#[test]
fn random_shards_are_uniform() {
    // 10,000 draws over 20 shards: chi-square with 19 degrees of freedom
    // below 43.82 (p = 0.001). Seeded, so the test cannot flake.
    fastrand::seed(20_000);
    let mut counts = vec![0u64; 20];
    for _ in 0..10_000 {
        counts[singletable_runtime::codec::random_shard(20) as usize] += 1;
    }
    let statistic = chi_square(&counts);
    assert!(statistic < 43.82, "chi-square {statistic} for {counts:?}");
}

/// The write-sharding reference: votes add 1 to one of 20 random shard
/// counters (so no partition takes more than its share of the writes), a
/// periodic tally reads the 20 shards in parallel and publishes the totals.
#[tokio::test]
async fn sharded_vote_counters_count_every_vote() {
    use singletable_tests::generated::contest_votes::*;
    let repo = Repository::new(server::client(&server::server().await.endpoint))
        .with_table_name(server::unique_table("Votes"));
    repo.create_table().await.unwrap();
    let voters = (0..8).map(|v| {
        let repo = repo.clone();
        tokio::spawn(async move {
            for _ in 0..250 {
                let key = VoteShardKey {
                    contest_id: "final".into(),
                    contestant_id: if v % 4 == 0 { "bob" } else { "ann" }.into(),
                    shard: singletable_runtime::codec::random_shard(20),
                };
                repo.update_vote_shard(&key, VoteShardUpdate::default().add_votes(1).or_create())
                    .await
                    .unwrap();
            }
        })
    });
    for voter in voters.collect::<Vec<_>>() {
        voter.await.unwrap();
    }
    // The tally: every shard of each contestant, read concurrently.
    let mut publish = repo.publish_totals();
    for (contestant, expected) in [("ann", 1_500), ("bob", 500)] {
        let shards = repo.vote_shards("final", contestant).all().await.unwrap();
        assert!(
            shards.len() > 15,
            "votes spread over the shards: {}",
            shards.len()
        );
        let total: i64 = shards.iter().map(|s| s.votes).sum();
        assert_eq!(total, expected, "{contestant}");
        publish.put_vote_total(&VoteTotal {
            contest_id: "final".into(),
            contestant_id: contestant.into(),
            votes: total,
            tallied_at: DateTime::from_secs(1_714_564_800),
        });
    }
    publish.send().await.unwrap();
    let board = repo.leaderboard("final").all().await.unwrap();
    assert_eq!(
        board
            .iter()
            .map(|t| (t.contestant_id.as_str(), t.votes))
            .collect::<Vec<_>>(),
        [("ann", 1_500), ("bob", 500)]
    );
    // Without `or_create`, an update of a shard nobody voted in yet fails
    // instead of creating a counter silently.
    let missing = repo
        .update_vote_shard(
            &VoteShardKey {
                contest_id: "other".into(),
                contestant_id: "ann".into(),
                shard: 0,
            },
            VoteShardUpdate::default().add_votes(1),
        )
        .await;
    assert!(
        matches!(
            missing,
            Err(singletable_runtime::Error::ConditionFailed { .. })
        ),
        "{missing:?}"
    );
}

/// A sharded query whose key condition is one whole primary key per shard
/// (`vote_shards`: `…|S#<shard>` and `sk = VOTES`) reads the shards with
/// one BatchGetItem, and returns what a Query per shard returns: the items
/// that exist, in shard order, resumable from any item's cursor.
#[tokio::test]
async fn point_queries_over_shards_read_in_one_batch() {
    use singletable_runtime::testing::CallRecorder;
    use singletable_tests::generated::contest_votes::*;
    let repo = Repository::new(server::client(&server::server().await.endpoint))
        .with_table_name(server::unique_table("VotePoints"));
    repo.create_table().await.unwrap();
    let present: Vec<u32> = (0..20).filter(|s| s % 3 != 1).collect();
    for &shard in &present {
        repo.put_vote_shard(&VoteShard {
            shard,
            contest_id: "final".into(),
            contestant_id: "ann".into(),
            votes: i64::from(shard) * 10,
        })
        .await
        .unwrap();
    }
    // Another contestant's shards are not read.
    repo.put_vote_shard(&VoteShard {
        shard: 1,
        contest_id: "final".into(),
        contestant_id: "bob".into(),
        votes: 7,
    })
    .await
    .unwrap();

    let recorder = CallRecorder::default();
    let _guard = recorder.install();
    let all = repo.vote_shards("final", "ann").all().await.unwrap();
    let calls = recorder.calls();
    assert_eq!(calls.len(), 1, "{calls:#?}");
    assert_eq!(calls[0].fields["requests"], "1", "{calls:#?}");
    let shards: Vec<u32> = all.iter().map(|v| v.shard).collect();
    assert_eq!(shards, present, "the shards that exist, in shard order");
    assert!(all.iter().all(|v| v.votes == i64::from(v.shard) * 10));

    // Limits and cursors behave as with a Query per shard.
    let first: Vec<u32> = repo
        .vote_shards("final", "ann")
        .limit(4)
        .all()
        .await
        .unwrap()
        .iter()
        .map(|v| v.shard)
        .collect();
    assert_eq!(first, present[..4]);
    let page = Box::pin(repo.vote_shards("final", "ann").item_cursors().pages())
        .next()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(page.items.len(), present.len());
    for i in [0, 4, present.len() - 1] {
        let rest: Vec<u32> = repo
            .vote_shards("final", "ann")
            .starting_after(page.item_cursors[i].clone())
            .all()
            .await
            .unwrap()
            .iter()
            .map(|v| v.shard)
            .collect();
        assert_eq!(rest, present[i + 1..], "after item {i}");
    }
    // Nothing stored: nothing returned, in one request.
    recorder.clear();
    assert!(repo
        .vote_shards("final", "cy")
        .all()
        .await
        .unwrap()
        .is_empty());
    assert_eq!(recorder.calls()[0].fields["requests"], "1");
}
