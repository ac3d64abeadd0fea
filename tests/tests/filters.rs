//! Filters, end to end: for random deals and random operands, every
//! filtered query returns exactly the items of its key condition that the
//! filter's conditions hold for, in sort-key order — across pages that the
//! filter may leave empty, and with a limit counting returned items.

use std::collections::BTreeSet;

use singletable_runtime::{DateTime, Decimal};
use singletable_tests::generated::filtered_queries::{Deal, Repository, Status};
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

#[tokio::test]
async fn filtered_queries_return_exactly_what_their_conditions_keep() {
    let client = server::client(&server::server().await.endpoint);
    let repo = Repository::new(client).with_table_name(server::unique_table("Deals"));
    repo.create_table().await.unwrap();
    let mut rng = fastrand::Rng::with_seed(7);
    let mut deals = Vec::new();
    for id in 0..60 {
        let category = ["toys", "books"][rng.usize(..2)];
        let d = deal(&mut rng, category, id);
        repo.create_deal(&d).await.unwrap();
        deals.push(d);
    }
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
