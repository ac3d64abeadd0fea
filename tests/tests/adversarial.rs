//! Adversarial tenants and bad data: tenant ids that could widen a key are
//! refused, keys of tenants whose ids share a prefix never overlap, a handle
//! refuses items of another tenant whatever returns them, and items written
//! by other tools come back as typed errors while the good ones still do.

use futures_util::StreamExt;
use proptest::prelude::*;
use singletable_runtime::sdk::types::AttributeValue;
use singletable_runtime::{DateTime, Entity, Error, ForeignReason, Item};
use singletable_tests::generated::{pooled_product_catalog, support_ticket};
use singletable_tests::server::s;
use singletable_tests::{faults, server};

/// support_ticket's tenant ids: `^[A-Za-z0-9_]{1,64}$`.
fn is_valid_tenant(id: &str) -> bool {
    (1..=64).contains(&id.chars().count())
        && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[test]
fn tenant_ids_that_could_widen_a_key_are_refused() {
    use support_ticket::TenantId;
    for bad in [
        "",
        "a|b",
        "a#b",
        "*",
        "acme*",
        "a?",
        "$x",
        "${aws:PrincipalTag/TenantId}",
        "a\u{0}",
        "a\nb",
        "é",
        "a b",
        "a/b",
    ] {
        assert!(TenantId::new(bad).is_err(), "{bad:?} accepted");
    }
    assert!(TenantId::new("x".repeat(65)).is_err());
    assert!(TenantId::new("x".repeat(64)).is_ok());
    assert!(TenantId::new("Acme_01").is_ok());
}

fn ticket(id: &str) -> support_ticket::Ticket {
    support_ticket::Ticket {
        id: id.into(),
        title: format!("ticket {id}"),
        status: support_ticket::Status::Open,
        resolver: Some("bob".into()),
        created_at: DateTime::from_secs(1_714_564_800),
    }
}

fn pk(item: &Item, attribute: &str) -> String {
    match item.get(attribute) {
        Some(AttributeValue::S(s)) => s.clone(),
        other => panic!("{attribute}: {other:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn tenant_ids_are_accepted_exactly_when_they_match_the_pattern(id in "\\PC{0,70}") {
        prop_assert_eq!(support_ticket::TenantId::new(id.as_str()).is_ok(), is_valid_tenant(&id));
    }

    #[test]
    fn keys_of_tenants_whose_ids_share_a_prefix_never_overlap(
        base in "[A-Za-z0-9_]{1,12}",
        suffix in "[A-Za-z0-9_]{1,6}",
        id in "[A-Za-z0-9_-]{1,36}",
    ) {
        let long = format!("{base}{suffix}");
        for (a, b) in [(base.as_str(), long.as_str()), (long.as_str(), base.as_str())] {
            let (ta, tb) = (
                support_ticket::TenantId::new(a).unwrap(),
                support_ticket::TenantId::new(b).unwrap(),
            );
            // What `dynamodb:LeadingKeys` lets tenant `b` reach: `TENANT#<b>|*`.
            let reach_b = format!("TENANT#{b}|");
            let t = ticket(&id);
            let table_key = pk(&t.primary_key(&ta).unwrap(), "pk");
            prop_assert!(!table_key.starts_with(&reach_b), "{} reachable by {}", table_key, b);
            let item = t.to_item(&ta).unwrap();
            let index_key = pk(&item, "tenant_status");
            prop_assert!(!index_key.starts_with(&reach_b), "{} reachable by {}", index_key, b);
            prop_assert_ne!(table_key, pk(&t.primary_key(&tb).unwrap(), "pk"));
        }
        // Shard suffixes included: the pooled catalog's keys end in `|S#<n>`.
        let (ta, tb) = (
            pooled_product_catalog::TenantId::new(base.to_lowercase().replace('_', "")).ok(),
            pooled_product_catalog::TenantId::new(long.to_lowercase().replace('_', "")).ok(),
        );
        if let (Some(ta), Some(tb)) = (ta, tb) {
            if ta.as_str() != tb.as_str() {
                let product = pooled_product_catalog::Product {
                    product_id: id.clone(),
                    name: "n".into(),
                    category: "tools".into(),
                    price: "1".parse().unwrap(),
                    currency: pooled_product_catalog::Currency::Eur,
                    doc: Default::default(),
                    updated_at: DateTime::from_secs(0),
                };
                for (x, y) in [(&ta, &tb), (&tb, &ta)] {
                    let key = pk(&product.primary_key(x).unwrap(), "ShardID");
                    let reach = format!("TENANT#{}|", y.as_str());
                    prop_assert!(!key.starts_with(&reach), "{} reachable by {}", key, y.as_str());
                }
            }
        }
    }
}

async fn repository(client_endpoint: &str, table: &str) -> support_ticket::Repository {
    support_ticket::Repository::new(server::client(client_endpoint)).with_table_name(table)
}

#[tokio::test]
async fn a_handle_refuses_another_tenants_items_whatever_returns_them() {
    use support_ticket::*;
    let upstream = server::server().await.endpoint.clone();
    let table = server::unique_table("Tamper");
    let direct = repository(&upstream, &table).await;
    direct.create_table().await.unwrap();
    let (t1, t2) = (TenantId::new("t1").unwrap(), TenantId::new("t2").unwrap());
    for tenant in [&t1, &t2] {
        direct
            .for_tenant(tenant)
            .put_ticket(&ticket("T1"))
            .await
            .unwrap();
    }
    // A server that answers tenant t1's requests with tenant t2's keys.
    let proxy = faults::start_tampering(&upstream, "TENANT#t1|", "TENANT#t2|")
        .await
        .unwrap();
    let tampered = repository(&proxy.endpoint, &table).await;
    let t = tampered.for_tenant(&t1);

    let got = t.get_ticket(&TicketKey { id: "T1".into() }).await;
    assert!(
        matches!(&got, Err(Error::ForeignItem(e))
            if e.attribute == "pk" && e.reason == ForeignReason::NotRequested),
        "{got:?}"
    );
    for results in [
        t.ticket_with_comments("T1")
            .items()
            .map(|r| r.map(drop))
            .collect::<Vec<_>>()
            .await,
        t.open_tickets()
            .items()
            .map(|r| r.map(drop))
            .collect::<Vec<_>>()
            .await,
    ] {
        assert_eq!(results.len(), 1, "{results:?}");
        assert!(
            matches!(&results[0], Err(Error::ForeignItem(e))
                if e.attribute == "pk" && e.reason == ForeignReason::OtherTenant),
            "{results:?}"
        );
    }
    // Without the tampering, tenant t1 reads its own ticket.
    let own = direct
        .for_tenant(&t1)
        .get_ticket(&TicketKey { id: "T1".into() })
        .await;
    assert_eq!(own.unwrap(), Some(ticket("T1")));
}

/// Puts a raw item, as another tool would.
async fn put_raw(repo: &support_ticket::Repository, item: Vec<(&str, AttributeValue)>) {
    server::put_raw(repo.client(), repo.table_name(), item).await;
}

#[tokio::test]
async fn bad_items_are_typed_errors_and_the_good_ones_still_come_back() {
    use support_ticket::*;
    let endpoint = server::server().await.endpoint.clone();
    let repo = repository(&endpoint, &server::unique_table("BadData")).await;
    repo.create_table().await.unwrap();
    let tenant = TenantId::new("acme").unwrap();
    let t = repo.for_tenant(&tenant);
    t.put_ticket(&ticket("T1")).await.unwrap();
    t.put_comment(&Comment {
        ticket_id: "T1".into(),
        id: "good".into(),
        author: "ann".into(),
        body: "fine".into(),
        created_at: DateTime::from_secs(1_714_564_801),
    })
    .await
    .unwrap();
    let pk = s("TENANT#acme|TICKET#T1");
    // A comment without its body.
    put_raw(
        &repo,
        vec![
            ("pk", pk.clone()),
            ("sk", s("COMMENT#2024-05-01T12:00:02.000Z#missing")),
            ("entity_type", s("Comment")),
            ("ticket_id", s("T1")),
            ("id", s("missing")),
            ("author", s("ann")),
            ("created_at", s("2024-05-01T12:00:02Z")),
        ],
    )
    .await;
    // A comment whose author is a number.
    put_raw(
        &repo,
        vec![
            ("pk", pk.clone()),
            ("sk", s("COMMENT#2024-05-01T12:00:03.000Z#number")),
            ("entity_type", s("Comment")),
            ("ticket_id", s("T1")),
            ("id", s("number")),
            ("author", AttributeValue::N("7".into())),
            ("body", s("b")),
            ("created_at", s("2024-05-01T12:00:03Z")),
        ],
    )
    .await;
    // A comment without its id, whose sort key is no comment's key: its
    // claim to be a `Comment` is refused on `sk`.
    put_raw(
        &repo,
        vec![
            ("pk", pk.clone()),
            ("sk", s("COMMENT#garbage")),
            ("entity_type", s("Comment")),
            ("ticket_id", s("T1")),
            ("author", s("ann")),
            ("body", s("b")),
            ("created_at", s("2024-05-01T12:00:04Z")),
        ],
    )
    .await;
    // An entity type the spec does not know.
    put_raw(
        &repo,
        vec![
            ("pk", pk.clone()),
            ("sk", s("ZZZ#alien")),
            ("entity_type", s("Alien")),
        ],
    )
    .await;
    // A ticket summary of another ticket with an unknown status and an
    // oversized title.
    put_raw(
        &repo,
        vec![
            ("pk", s("TENANT#acme|TICKET#T2")),
            ("sk", s("SUMMARY")),
            ("entity_type", s("Ticket")),
            ("id", s("T2")),
            ("title", s(&"x".repeat(500))),
            ("status", s("REOPENED")),
            ("created_at", s("2024-05-01T12:00:00Z")),
        ],
    )
    .await;

    let results: Vec<Result<TicketWithCommentsItem, Error>> =
        t.ticket_with_comments("T1").items().collect().await;
    let good: Vec<_> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
    let bad: Vec<String> = results
        .iter()
        .filter_map(|r| match r {
            Err(Error::Decode(e)) => Some(e.attribute.clone()),
            Err(other) => panic!("not a decode error: {other:?}"),
            Ok(_) => None,
        })
        .collect();
    assert_eq!(
        good.len(),
        2,
        "the ticket and the good comment: {results:?}"
    );
    let mut bad_sorted = bad.clone();
    bad_sorted.sort();
    assert_eq!(
        bad_sorted,
        ["author", "body", "entity_type", "sk"],
        "{results:?}"
    );

    // The whole-collection call fails on the first error instead.
    assert!(t.ticket_with_comments("T1").all().await.is_err());

    let broken = t.get_ticket(&TicketKey { id: "T2".into() }).await;
    assert!(
        matches!(&broken, Err(Error::Decode(e)) if e.attribute == "status" || e.attribute == "title"),
        "{broken:?}"
    );
    let message = broken.unwrap_err().to_string();
    assert!(message.contains("Ticket"), "{message}");
}
