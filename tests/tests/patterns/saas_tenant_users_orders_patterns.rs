use super::*;
use saas_tenant_users_orders::*;

fn user(tenant: &str, id: &str) -> User {
    User {
        user_id: id.into(),
        email: format!("{id}@{tenant}.example"),
        role: Role::Member,
        last_login: None,
    }
}

fn order(tenant: &str, id: &str, status: Status, at: i64) -> Order {
    let line: Item = [
        ("sku".to_owned(), AttributeValue::S("SKU-1".into())),
        ("tenant".to_owned(), AttributeValue::S(tenant.into())),
    ]
    .into_iter()
    .collect();
    Order {
        order_id: id.into(),
        user_id: "u1".into(),
        status,
        total: decimal("19.99"),
        currency: Currency::Eur,
        lines: vec![line],
        created_at: DateTime::from_secs(at),
    }
}

fn stock(sku: &str, on_hand: i64) -> InventoryItem {
    InventoryItem {
        sku: sku.into(),
        on_hand,
        reserved: 0,
        version: 0,
    }
}

#[tokio::test]
async fn every_pattern_returns_only_the_tenants_items() {
    let repo = Repository::new(client().await).with_table_name(server::unique_table("SaaS"));
    repo.create_table().await.unwrap();
    let (a, b) = (
        TenantId::new("one").unwrap(),
        TenantId::new("one-1").unwrap(),
    );
    for tenant in [&a, &b] {
        let t = repo.for_tenant(tenant);
        let name = tenant.as_str();
        t.put_tenant(&Tenant {
            name: format!("tenant {name}"),
            plan: Plan::Pro,
            created_at: DateTime::from_secs(1_700_000_000),
        })
        .await
        .unwrap();
        for id in ["u1", "u2"] {
            t.put_user(&user(name, id)).await.unwrap();
        }
        t.put_order(&order(name, "o1", Status::Pending, 1_714_564_800))
            .await
            .unwrap();
        t.put_order(&order(name, "o2", Status::Shipped, 1_714_564_900))
            .await
            .unwrap();
        t.put_order(&order(name, "o3", Status::Pending, 1_714_565_000))
            .await
            .unwrap();
        t.put_inventory_item(&stock("SKU-1", 10)).await.unwrap();
        t.put_inventory_item(&stock("SKU-2", 5)).await.unwrap();
    }
    let t = repo.for_tenant(&a);
    let profile = t.tenant_profile().all().await.unwrap();
    assert_eq!(profile.len(), 1);
    assert_eq!(profile[0].name, "tenant one");
    assert_eq!(
        t.users().all().await.unwrap(),
        vec![user("one", "u1"), user("one", "u2")]
    );
    let orders = vec![
        order("one", "o1", Status::Pending, 1_714_564_800),
        order("one", "o2", Status::Shipped, 1_714_564_900),
        order("one", "o3", Status::Pending, 1_714_565_000),
    ];
    assert_eq!(t.orders().all().await.unwrap(), orders);
    let all = t.all_tenant_data().all().await.unwrap();
    assert_eq!(all.len(), 8);
    assert!(matches!(all[0], AllTenantDataItem::InventoryItem(_)));
    assert!(matches!(all[2], AllTenantDataItem::Order(_)));
    assert!(matches!(all[5], AllTenantDataItem::Tenant(_)));
    assert!(matches!(all[6], AllTenantDataItem::User(_)));
    assert_eq!(
        t.user_by_email("u2@one.example").all().await.unwrap(),
        vec![user("one", "u2")]
    );
    assert!(t
        .user_by_email("u2@one-1.example")
        .all()
        .await
        .unwrap()
        .is_empty());
    assert_eq!(
        t.pending_orders().all().await.unwrap(),
        vec![orders[0].clone(), orders[2].clone()]
    );
    assert_eq!(
        t.orders_by_status(Status::Pending, DateTime::from_secs(1_714_564_900))
            .all()
            .await
            .unwrap(),
        vec![orders[2].clone()]
    );

    // place_order: the order and the stock change, all or nothing.
    let mut place = t.place_order();
    place
        .create_order(&order("one", "o4", Status::Pending, 1_714_566_000))
        .update_inventory_item(
            &InventoryItemKey {
                sku: "SKU-1".into(),
            },
            InventoryItemUpdate::default()
                .on_hand(9)
                .reserved(1)
                .version(1),
        );
    place.send().await.unwrap();
    let mut again = t.place_order();
    again
        .create_order(&order("one", "o4", Status::Pending, 1_714_566_000))
        .update_inventory_item(
            &InventoryItemKey {
                sku: "SKU-1".into(),
            },
            InventoryItemUpdate::default().on_hand(0).version(2),
        );
    assert_canceled(again.send().await);

    // inventory_items: a batch get, which sees the first transaction only.
    let mut get = t.inventory_items();
    for sku in ["SKU-1", "SKU-2", "SKU-404"] {
        get.get_inventory_item(&InventoryItemKey { sku: sku.into() });
    }
    let mut items = get.all().await.unwrap();
    items.sort_by(|x, y| x.sku.cmp(&y.sku));
    assert_eq!(
        items,
        vec![
            InventoryItem {
                sku: "SKU-1".into(),
                on_hand: 9,
                reserved: 1,
                version: 1
            },
            stock("SKU-2", 5)
        ]
    );
    let mut other = repo.for_tenant(&b).inventory_items();
    other.get_inventory_item(&InventoryItemKey {
        sku: "SKU-1".into(),
    });
    assert_eq!(other.all().await.unwrap(), vec![stock("SKU-1", 10)]);
}
