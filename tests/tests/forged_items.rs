//! No tenant can change what others see of global data. A tenant's policy
//! lets it write any item under its own key prefix, with any attributes:
//! here tenant `evil` writes items that say they are global plans and rates
//! (by the entity-type attribute, or by a discriminator), with the index key
//! of the `pro` tier. Every read of global entities — a global query
//! through an index, an index scan, a table scan — refuses each such item
//! as a forgery (`DecodeProblem::ForgedEntity`, per item, naming the key)
//! and still returns the real ones; none comes back as a plan or a rate.

use futures_util::StreamExt;
use singletable_runtime::sdk::types::AttributeValue;
use singletable_runtime::{DecodeProblem, Error};
use singletable_tests::generated::{global_reads_refuse_forged_items as catalog, scans};
use singletable_tests::server::{self, s};

fn n(number: i64) -> AttributeValue {
    AttributeValue::N(number.to_string())
}

/// Puts an item as a tenant's credentials allow: any attributes, under a
/// partition key of the tenant's own prefix.
async fn put_as_tenant(
    client: &singletable_runtime::sdk::Client,
    table: &str,
    item: Vec<(&str, AttributeValue)>,
) {
    let pk = match item.iter().find(|(k, _)| *k == "pk") {
        Some((_, AttributeValue::S(pk))) => pk.clone(),
        _ => panic!("an item with a partition key"),
    };
    assert!(pk.starts_with("TENANT#evil|"), "the tenant's own prefix");
    server::put_raw(client, table, item).await;
}

/// The results of a read, item by item: the values, and the forgeries
/// refused (every other error fails the test).
async fn split<T>(
    items: impl futures_util::Stream<Item = Result<T, Error>>,
) -> (Vec<T>, Vec<String>) {
    let results: Vec<Result<T, Error>> = items.collect().await;
    let (mut values, mut forged) = (Vec::new(), Vec::new());
    for result in results {
        match result {
            Ok(value) => values.push(value),
            Err(Error::Decode(e)) if matches!(e.problem, DecodeProblem::ForgedEntity(_)) => {
                forged.push(e.attribute.clone());
            }
            Err(other) => panic!("an error other than a refused forgery: {other}"),
        }
    }
    (values, forged)
}

#[tokio::test]
async fn items_claiming_a_global_entity_by_discriminator_are_refused() {
    use catalog::*;
    let client = server::client(&server::server().await.endpoint);
    let repo = Repository::new(client.clone()).with_table_name(server::unique_table("Catalog"));
    repo.create_table().await.unwrap();
    for (name, tier, price) in [("basic", Tier::Free, 0), ("team", Tier::Pro, 20)] {
        repo.put_plan(&Plan {
            name: name.into(),
            tier,
            price,
        })
        .await
        .unwrap();
    }
    repo.put_rate(&Rate {
        currency: "EUR".into(),
        per_unit: 3,
    })
    .await
    .unwrap();
    let acme = repo.for_tenant(&TenantId::new("acme").unwrap());
    acme.put_seat(&Seat {
        id: "1".into(),
        plan: "team".into(),
    })
    .await
    .unwrap();
    // The forged plan and rate, as tenant `evil` can write them.
    let table = repo.table_name().to_owned();
    put_as_tenant(
        &client,
        &table,
        vec![
            ("pk", s("TENANT#evil|DOC#666")),
            ("sk", s("PLAN#pro")),
            ("kind", s("plan")),
            ("name", s("pro")),
            ("tier", s("pro")),
            ("price", n(0)),
            ("gsi1pk", s("TIER#pro")),
            ("gsi1sk", s("PLAN#pro")),
        ],
    )
    .await;
    put_as_tenant(
        &client,
        &table,
        vec![
            ("pk", s("TENANT#evil|DOC#667")),
            ("sk", s("RATE#USD")),
            ("kind", s("rate")),
            ("currency", s("USD")),
            ("per_unit", n(0)),
        ],
    )
    .await;

    let (plans, forged) = split(repo.plans_by_tier(Tier::Pro).page_size(1).items()).await;
    assert_eq!(
        plans.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
        ["team"]
    );
    assert_eq!(forged, ["pk"], "the forged plan, refused by its table key");
    assert!(
        repo.plans_by_tier(Tier::Pro).all().await.is_err(),
        "`all` tells the caller a forged item was met"
    );

    let (plans, forged) = split(repo.tier_plans().segments(2).items()).await;
    let mut names: Vec<&str> = plans.iter().map(|p| p.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["basic", "team"]);
    assert_eq!(forged, ["pk"]);

    let (rates, forged) = split(repo.all_rates().items()).await;
    assert_eq!(
        rates
            .iter()
            .map(|r| r.currency.as_str())
            .collect::<Vec<_>>(),
        ["EUR"]
    );
    assert_eq!(forged, ["pk"]);

    // The global collection is out of any tenant's reach: nothing forged.
    let catalog = repo.catalog().all().await.unwrap();
    assert_eq!(catalog.len(), 3);
}

#[tokio::test]
async fn items_claiming_a_global_entity_by_entity_type_are_refused() {
    use scans::*;
    let client = server::client(&server::server().await.endpoint);
    let repo = Repository::new(client.clone()).with_table_name(server::unique_table("Forged"));
    repo.create_table().await.unwrap();
    repo.put_rate(&Rate {
        currency: "EUR".into(),
        per_unit: 3,
        expires: None,
    })
    .await
    .unwrap();
    repo.put_plan(&Plan {
        name: "team".into(),
        tier: Tier::Pro,
        price: 20,
        live: true,
    })
    .await
    .unwrap();
    let table = repo.table_name().to_owned();
    put_as_tenant(
        &client,
        &table,
        vec![
            ("pk", s("TENANT#evil|DOC#666")),
            ("sk", s("PLAN")),
            ("entity_type", s("Plan")),
            ("name", s("pro")),
            ("tier", s("pro")),
            ("price", n(0)),
            ("live", AttributeValue::Bool(true)),
            ("gsi1pk", s("TIER#pro")),
            ("gsi1sk", s("PLAN#pro")),
        ],
    )
    .await;
    put_as_tenant(
        &client,
        &table,
        vec![
            ("pk", s("TENANT#evil|RATE#USD")),
            ("sk", s("RATE")),
            ("entity_type", s("Rate")),
            ("currency", s("USD")),
            ("per_unit", n(0)),
        ],
    )
    .await;

    let (plans, forged) = split(repo.live_plans(0).items()).await;
    assert_eq!(
        plans.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
        ["team"]
    );
    assert_eq!(forged, ["pk"]);
    let (rates, forged) = split(repo.rates().segments(3).items()).await;
    assert_eq!(
        rates
            .iter()
            .map(|r| r.currency.as_str())
            .collect::<Vec<_>>(),
        ["EUR"]
    );
    assert_eq!(forged, ["pk"]);
}
