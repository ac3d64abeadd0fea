//! Filters, end to end: for random deals and random operands, every
//! filtered query returns exactly the items of its key condition that the
//! filter's conditions hold for, in sort-key order — across pages that the
//! filter may leave empty, and with a limit counting returned items. The
//! grammar's `and`, `or`, `not`, `size`, `contains` on a list and
//! `attribute_type` included, and reversed ranges under `or` (false, not
//! refused); the spec's named write conditions in the same grammar.

use std::collections::BTreeSet;

use singletable_runtime::Error;
use singletable_runtime::{DateTime, Decimal};
use singletable_tests::generated::filtered_queries::{
    Deal, DealKey, DealUpdate, Repository, Status,
};
use singletable_tests::server;

const WORDS: [&str; 4] = ["sale", "big sale", "new", "salt"];
const TAGS: [&str; 3] = ["kids", "garden", "sale"];

fn deal(rng: &mut fastrand::Rng, category: &str, id: u32) -> Deal {
    let status = [Status::Draft, Status::Live, Status::Expired][rng.usize(..3)];
    let tags: BTreeSet<String> = TAGS
        .iter()
        .filter(|_| rng.bool())
        .map(|t| (*t).to_owned())
        .collect();
    Deal {
        category: category.into(),
        id: id.to_string(),
        title: format!("{} {id}", WORDS[rng.usize(..WORDS.len())]),
        brand: ["acme", "zeta"][rng.usize(..2)].into(),
        price: format!("{}.{:02}", rng.u32(..30), rng.u32(..100))
            .parse()
            .unwrap(),
        stock: i64::from(rng.u32(..20)),
        status,
        featured: rng.bool(),
        tags: (!tags.is_empty()).then_some(tags),
        ends_at: rng
            .bool()
            .then(|| DateTime::from_secs(1_700_000_000 + i64::from(rng.u32(..1000)))),
        coupon: rng.bool().then(|| "SAVE".to_owned()),
        sizes: rng.bool().then(|| {
            (0..rng.usize(..4))
                .map(|_| i64::from(rng.u8(36..44)))
                .collect()
        }),
    }
}

fn dec(v: &str) -> Decimal {
    v.parse().unwrap()
}

/// The deals of `category` in sort-key order (`DEAL#<id>` as text).
fn in_order<'d>(deals: &'d [Deal], category: &str) -> Vec<&'d Deal> {
    let mut found: Vec<&Deal> = deals.iter().filter(|d| d.category == category).collect();
    found.sort_by(|a, b| a.id.cmp(&b.id));
    found
}

fn ids(deals: &[Deal]) -> Vec<String> {
    deals.iter().map(|d| d.id.clone()).collect()
}

fn expected(deals: &[Deal], category: &str, keep: impl Fn(&Deal) -> bool) -> Vec<String> {
    in_order(deals, category)
        .into_iter()
        .filter(|d| keep(d))
        .map(|d| d.id.clone())
        .collect()
}

/// A new table holding sixty random deals in two categories, and the
/// generator that drew them (seeded with `seed`).
async fn sixty_deals(seed: u64) -> (Repository, Vec<Deal>, fastrand::Rng) {
    let client = server::client(&server::server().await.endpoint);
    let repo = Repository::new(client).with_table_name(server::unique_table("Deals"));
    repo.create_table().await.unwrap();
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut deals = Vec::new();
    for id in 0..60 {
        let category = ["toys", "books"][rng.usize(..2)];
        let d = deal(&mut rng, category, id);
        repo.create_deal(&d).await.unwrap();
        deals.push(d);
    }
    (repo, deals, rng)
}

#[tokio::test]
async fn filtered_queries_return_exactly_what_their_conditions_keep() {
    let (repo, deals, mut rng) = sixty_deals(7).await;
    let mut checked = 0;
    for round in 0..12 {
        let category = ["toys", "books"][round % 2];
        let page = 1 + rng.u32(..4);
        let max_price = dec(&format!("{}.{:02}", rng.u32(..30), rng.u32(..100)));
        let got = repo
            .live_deals_under(category, &max_price)
            .page_size(page)
            .all()
            .await
            .unwrap();
        let want = expected(&deals, category, |d| {
            d.status == Status::Live && d.price <= max_price
        });
        assert_eq!(ids(&got), want, "live_deals_under {category} {max_price}");

        let (least, most) = (i64::from(rng.u32(..10)), i64::from(rng.u32(5..20)));
        let got = repo
            .featured_in_stock(category, least, most)
            .page_size(page)
            .all()
            .await
            .unwrap();
        let want = expected(&deals, category, |d| {
            d.featured && (least..=most).contains(&d.stock)
        });
        assert_eq!(ids(&got), want, "featured_in_stock {least}..={most}");

        let tag = TAGS[rng.usize(..TAGS.len())];
        let prefix = ["sal", "big", "n", "sale"][rng.usize(..4)];
        let got = repo
            .tagged_deals(category, tag, prefix)
            .page_size(page)
            .all()
            .await
            .unwrap();
        let want = expected(&deals, category, |d| {
            d.tags.as_ref().is_some_and(|t| t.contains(tag)) && d.title.starts_with(prefix)
        });
        assert_eq!(ids(&got), want, "tagged_deals {tag} {prefix}");

        let got = repo
            .deals_without_coupon(category)
            .page_size(page)
            .all()
            .await
            .unwrap();
        let want = expected(&deals, category, |d| {
            d.coupon.is_none() && matches!(d.status, Status::Live | Status::Draft)
        });
        assert_eq!(ids(&got), want, "deals_without_coupon");

        let before = DateTime::from_secs(1_700_000_000 + i64::from(rng.u32(..1000)));
        let got = repo
            .ending_sales(category, before)
            .page_size(page)
            .all()
            .await
            .unwrap();
        let want = expected(&deals, category, |d| {
            d.ends_at.is_some_and(|t| t < before)
                && d.title.contains("sale")
                && d.status != Status::Expired
        });
        assert_eq!(ids(&got), want, "ending_sales before {before:?}");

        // A limit counts the items returned, not the items read.
        let limit = 1 + rng.usize(..3);
        let got = repo
            .deals_without_coupon(category)
            .page_size(1)
            .limit(limit)
            .all()
            .await
            .unwrap();
        let mut want = expected(&deals, category, |d| {
            d.coupon.is_none() && matches!(d.status, Status::Live | Status::Draft)
        });
        want.truncate(limit);
        assert_eq!(ids(&got), want, "deals_without_coupon, limit {limit}");

        checked += 6;
    }
    // On an index: the filter reads a projected attribute.
    for brand in ["acme", "zeta"] {
        // The index carries part of a deal: the query returns that part.
        let got = repo
            .cheap_brand_deals(brand)
            .page_size(3)
            .all()
            .await
            .unwrap();
        let got: Vec<String> = got.iter().map(|d| d.id.clone()).collect();
        let mut want: Vec<&Deal> = deals
            .iter()
            .filter(|d| d.brand == brand && d.price < dec("10"))
            .collect();
        want.sort_by(|a, b| a.id.cmp(&b.id));
        let want: Vec<String> = want.iter().map(|d| d.id.clone()).collect();
        assert_eq!(got, want, "cheap_brand_deals {brand}");
        checked += 1;
    }
    eprintln!(
        "filters: {checked} filtered queries over {} deals agree",
        deals.len()
    );
}

#[tokio::test]
async fn and_or_not_size_and_list_filters_keep_exactly_what_they_say() {
    let (repo, deals, mut rng) = sixty_deals(9).await;
    for round in 0..12 {
        let category = ["toys", "books"][round % 2];
        let page = 1 + rng.u32(..4);
        let under = dec(&format!("{}.{:02}", rng.u32(..30), rng.u32(..100)));
        let got = repo
            .bargains_or_featured(category, &under)
            .page_size(page)
            .all()
            .await
            .unwrap();
        let want = expected(&deals, category, |d| {
            (d.price < under || (d.featured && d.stock > 0)) && d.status != Status::Expired
        });
        assert_eq!(ids(&got), want, "bargains_or_featured {under}");

        let (least_tags, longest) = (u64::from(rng.u8(..4)), u64::from(rng.u8(..12)));
        let got = repo
            .richly_tagged(category, least_tags as i64, longest as i64)
            .page_size(page)
            .all()
            .await
            .unwrap();
        let want = expected(&deals, category, |d| {
            d.tags
                .as_ref()
                .is_some_and(|t| t.len() as u64 >= least_tags)
                && (1..=longest).contains(&(d.title.len() as u64))
        });
        assert_eq!(ids(&got), want, "richly_tagged {least_tags} {longest}");

        let size = i64::from(rng.u8(36..44));
        let got = repo
            .in_size(category, size)
            .page_size(page)
            .all()
            .await
            .unwrap();
        let want = expected(&deals, category, |d| {
            d.sizes.as_ref().is_some_and(|s| s.contains(&size)) && d.coupon.is_some()
        });
        assert_eq!(ids(&got), want, "in_size {size}");

        // Reversed bounds under `or` make that alternative false, not the
        // request refused.
        let (low, high) = (i64::from(rng.u32(..20)), i64::from(rng.u32(..20)));
        let got = repo
            .stock_outside_or_within(category, low, high)
            .page_size(page)
            .all()
            .await
            .unwrap();
        let want = expected(&deals, category, |d| {
            ((low..=high).contains(&d.stock) || d.status != Status::Live)
                && d.price >= dec("0")
                && d.price <= dec("1000")
        });
        assert_eq!(ids(&got), want, "stock_outside_or_within {low}..={high}");
    }
}

#[tokio::test]
async fn named_conditions_combine_or_not_and_size() {
    let client = server::client(&server::server().await.endpoint);
    let repo = Repository::new(client).with_table_name(server::unique_table("Deals"));
    repo.create_table().await.unwrap();
    let mut rng = fastrand::Rng::with_seed(11);
    let mut applied = 0;
    for id in 0..40 {
        let d = deal(&mut rng, "toys", id);
        repo.create_deal(&d).await.unwrap();
        let max_tags = rng.u8(..4);
        // `sellable`: (stock > 0 OR coupon exists) AND NOT status = expired
        // AND size(tags) <= max_tags.
        let holds = (d.stock > 0 || d.coupon.is_some())
            && d.status != Status::Expired
            && d.tags
                .as_ref()
                .is_some_and(|t| t.len() <= usize::from(max_tags));
        let key = DealKey {
            category: d.category.clone(),
            id: d.id.clone(),
        };
        let update = DealUpdate::default()
            .stock(d.stock + 1)
            .when(Deal::sellable(i64::from(max_tags)));
        match repo.update_deal(&key, update).await {
            Ok(updated) => {
                assert!(
                    holds,
                    "{d:?} with {max_tags}: the condition does not hold, the write applied"
                );
                assert_eq!(updated.stock, d.stock + 1);
                applied += 1;
            }
            Err(e @ Error::ConditionNotMet { .. }) => {
                assert!(
                    !holds,
                    "{d:?} with {max_tags}: the condition holds, the write failed: {e}"
                );
                let stored = e.stored_as::<Deal>().unwrap().unwrap();
                assert_eq!(stored, d, "nothing written");
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert!(
        (5..35).contains(&applied),
        "{applied} of 40 applied: both outcomes are tried"
    );
}
