use super::*;
use monthly_activity::*;

const MAY: i64 = 1_714_521_600; // 2024-05-01T00:00:00Z

fn event(tenant: &str, i: i64, actor: &str) -> ActivityEvent {
    ActivityEvent {
        month: "2024-05".into(),
        occurred_at: DateTime::from_secs(MAY + i * 3_600),
        event_id: format!("e{i}"),
        actor_id: actor.into(),
        action: Action::Update,
        resource: format!("{tenant}/doc/{i}"),
        details: None,
        expires_at: DateTime::from_secs(4_102_444_800),
    }
}

#[tokio::test]
async fn every_pattern_returns_only_the_tenants_items() {
    let repo = Repository::new(client().await).with_table_name(server::unique_table("Activity"));
    repo.create_table().await.unwrap();
    let (a, b) = (TenantId::new("t1").unwrap(), TenantId::new("t10").unwrap());
    let mut events = Vec::new();
    for tenant in [&a, &b] {
        let t = repo.for_tenant(tenant);
        for i in 0..6 {
            let actor = if i % 2 == 0 { "ann" } else { "bob" };
            let item = event(tenant.as_str(), i, actor);
            t.put_activity_event(&item).await.unwrap();
            if tenant == &a {
                events.push(item);
            }
        }
        for (month, n) in [
            ("2024-03", 3),
            ("2024-04", 4),
            ("2024-05", 6),
            ("2024-06", 1),
        ] {
            // Counters the stream handler would have written.
            let count = MonthlyActivityCount {
                month: month.into(),
                event_count: n + i64::from(tenant == &b) * 100,
            };
            put_stored(repo.client(), repo.table_name(), &count, tenant).await;
        }
    }
    let t = repo.for_tenant(&a);
    let mut newest_first = events.clone();
    newest_first.reverse();
    assert_eq!(
        t.month_activity("2024-05").all().await.unwrap(),
        newest_first
    );
    assert!(t.month_activity("2024-04").all().await.unwrap().is_empty());
    assert_eq!(
        t.activity_between(
            "2024-05",
            DateTime::from_secs(MAY + 3_600),
            DateTime::from_secs(MAY + 3 * 3_600)
        )
        .all()
        .await
        .unwrap(),
        // `between` is inclusive on the sort-key text: an event at the upper
        // bound has a longer key (`<at>#<id>`) and falls after it.
        events[1..3].to_vec()
    );
    assert_eq!(
        t.activity_since("2024-05", DateTime::from_secs(MAY + 4 * 3_600))
            .all()
            .await
            .unwrap(),
        events[4..].to_vec()
    );
    let mut before: Vec<_> = events[..2].to_vec();
    before.reverse();
    assert_eq!(
        t.activity_before("2024-05", DateTime::from_secs(MAY + 2 * 3_600))
            .all()
            .await
            .unwrap(),
        before
    );
    let bob: Vec<_> = events
        .iter()
        .filter(|e| e.actor_id == "bob")
        .cloned()
        .collect();
    assert_eq!(t.actor_activity("bob", "2024-05").all().await.unwrap(), bob);
    let counts = t.monthly_counts("2024-04", "2024-05").all().await.unwrap();
    assert_eq!(
        counts,
        vec![
            MonthlyActivityCount {
                month: "2024-04".into(),
                event_count: 4
            },
            MonthlyActivityCount {
                month: "2024-05".into(),
                event_count: 6
            },
        ]
    );
}
