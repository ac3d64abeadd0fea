//! Scans of global data, end to end: a scan returns its entity's items and
//! skips every other item of the table or index (other global entities,
//! every tenant's items, expired ones), in one segment or several at once,
//! one worker's segment at a time, page by page from a cursor, filtered;
//! a cursor of another index and a segment out of range are refused before
//! any request.

use std::collections::BTreeSet;

use futures_util::StreamExt;
use singletable_runtime::{DateTime, Error, ScanCursor};
use singletable_tests::generated::scans::*;
use singletable_tests::server;

fn rate(i: usize) -> Rate {
    Rate {
        currency: format!("C{}X", (b'A' + i as u8) as char),
        per_unit: i as i64,
        expires: None,
    }
}

async fn stocked() -> Repository {
    let repo = Repository::new(server::client(&server::server().await.endpoint))
        .with_table_name(server::unique_table("Scans"));
    repo.create_table().await.unwrap();
    for i in 0..12 {
        repo.put_rate(&rate(i)).await.unwrap();
    }
    // Expired (its TTL passed; DynamoDB has not deleted it yet).
    let mut old = rate(20);
    old.expires = Some(DateTime::from_secs(1_000_000_000));
    repo.put_rate(&old).await.unwrap();
    for (name, tier, price, live) in [
        ("basic", Tier::Free, 0, true),
        ("team", Tier::Pro, 20, true),
        ("corp", Tier::Enterprise, 200, true),
        ("legacy", Tier::Pro, 30, false),
    ] {
        repo.put_plan(&Plan {
            name: name.into(),
            tier,
            price,
            live,
        })
        .await
        .unwrap();
    }
    for tenant in ["acme", "globex"] {
        let t = repo.for_tenant(&TenantId::new(tenant).unwrap());
        for id in 0..5 {
            t.put_invoice(&Invoice {
                id: id.to_string(),
                amount: 10,
            })
            .await
            .unwrap();
        }
    }
    repo
}

fn currencies(rates: &[Rate]) -> BTreeSet<String> {
    rates.iter().map(|r| r.currency.clone()).collect()
}

#[tokio::test]
async fn a_scan_returns_its_entity_in_any_number_of_segments() {
    let repo = stocked().await;
    let expected: BTreeSet<String> = (0..12).map(|i| rate(i).currency).collect();
    let one = repo.rates().all().await.unwrap();
    assert_eq!(one.len(), 12, "no rate twice, none of another entity");
    assert_eq!(currencies(&one), expected);
    let parallel = repo.rates().segments(4).all().await.unwrap();
    assert_eq!(parallel.len(), 12);
    assert_eq!(currencies(&parallel), expected);
    // Three workers, one segment each: together, every rate once.
    let mut shares = Vec::new();
    for segment in 0..3 {
        shares.extend(repo.rates().segment(segment, 3).all().await.unwrap());
    }
    assert_eq!(shares.len(), 12);
    assert_eq!(currencies(&shares), expected);
    // The expired rate is there when asked for.
    let all = repo.rates().include_expired().all().await.unwrap();
    assert_eq!(all.len(), 13);
    assert_eq!(repo.rates().limit(5).all().await.unwrap().len(), 5);
}

#[tokio::test]
async fn a_scan_resumes_from_a_cursor() {
    let repo = stocked().await;
    let mut pages = Box::pin(repo.rates().page_size(4).pages());
    let first = pages.next().await.unwrap().unwrap();
    let cursor = first.next.clone().expect("more pages");
    drop(pages);
    let rest = repo.rates().starting_after(cursor).all().await.unwrap();
    let mut got = currencies(&first.items);
    let before = got.len();
    got.extend(currencies(&rest));
    assert_eq!(before + rest.len(), 12, "no rate read twice");
    assert_eq!(got.len(), 12);

    // A page cut short by a limit resumes after its last item returned.
    let mut pages = Box::pin(repo.rates().page_size(4).limit(6).pages());
    let mut first_six = Vec::new();
    let mut last = None;
    while let Some(page) = pages.next().await {
        let page = page.unwrap();
        first_six.extend(page.items);
        last = page.next;
    }
    drop(pages);
    assert_eq!(first_six.len(), 6);
    let rest = repo
        .rates()
        .starting_after(last.expect("the limit cut the scan short"))
        .all()
        .await
        .unwrap();
    let mut all = currencies(&first_six);
    all.extend(currencies(&rest));
    assert_eq!((all.len(), first_six.len() + rest.len()), (12, 12));
    // A cursor of one segment read as part of others is refused.
    let cursor = ScanCursor {
        segment: 0,
        total: 1,
        key: first.next.clone().unwrap().key,
    };
    let mixed = repo.rates().starting_after(cursor).segments(3).all().await;
    assert!(matches!(mixed, Err(Error::Cursor(_))), "{mixed:?}");

    // A cursor with a key of another shape (another index's) is refused
    // before any request; so is a segment outside the scan.
    let mut key = first.next.unwrap().key;
    key.insert(
        "gsi1pk".into(),
        singletable_runtime::sdk::types::AttributeValue::S("TIER#pro".into()),
    );
    let forged = ScanCursor {
        segment: 0,
        total: 1,
        key,
    };
    let refused = repo.rates().starting_after(forged).all().await;
    assert!(matches!(refused, Err(Error::Cursor(_))), "{refused:?}");
    let out_of_range = repo.rates().segment(3, 3).all().await;
    assert!(
        matches!(out_of_range, Err(Error::Value(_))),
        "{out_of_range:?}"
    );
    assert!(matches!(
        repo.rates().segments(0).all().await,
        Err(Error::Value(_))
    ));
}

/// `page(limit, cursor)`: one segment page by page, each page at most
/// `limit` items however many requests it took, until `next` is `None`;
/// every rate once. A scan of several segments has no one page.
#[tokio::test]
async fn a_scan_pages_in_one_call_per_page() {
    let repo = stocked().await;
    for segments in [1, 2] {
        let mut all = Vec::new();
        for segment in 0..segments {
            let mut cursor = None;
            let mut pages = 0;
            loop {
                let page = repo
                    .rates()
                    .segment(segment, segments)
                    .page_size(2)
                    .page(5, cursor)
                    .await
                    .unwrap();
                assert!(page.items.len() <= 5);
                assert_eq!(page.segment, segment);
                all.extend(page.items);
                pages += 1;
                assert!(pages < 20, "no end");
                match page.next {
                    Some(next) => cursor = Some(next),
                    None => break,
                }
            }
        }
        assert_eq!(all.len(), 12, "every rate once in {segments} segment(s)");
        assert_eq!(currencies(&all).len(), 12);
    }
    let several = repo.rates().segments(3).page(5, None).await;
    assert!(matches!(several, Err(Error::Value(_))), "{several:?}");

    // The scan's span names its pattern and table.
    let collector = singletable_runtime::testing::CallRecorder::default();
    let _guard = collector.install();
    repo.rates().page(5, None).await.unwrap();
    let spans = collector.calls();
    assert_eq!(spans.len(), 1, "{spans:#?}");
    assert_eq!(spans[0].name, "singletable.scan");
    assert_eq!(spans[0].fields["pattern"], "rates");
    assert_eq!(spans[0].fields["table"], repo.table_name());
}

#[tokio::test]
async fn a_filtered_scan_of_an_index_returns_what_the_filter_keeps() {
    let repo = stocked().await;
    let names = |plans: Vec<Plan>| plans.into_iter().map(|p| p.name).collect::<BTreeSet<_>>();
    let live = repo.live_plans(20).segments(2).all().await.unwrap();
    assert_eq!(names(live), ["corp", "team"].map(String::from).into());
    let all_live = repo.live_plans(0).all().await.unwrap();
    assert_eq!(
        names(all_live),
        ["basic", "corp", "team"].map(String::from).into()
    );
}
