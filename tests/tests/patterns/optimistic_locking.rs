use super::*;
use saas_tenant_users_orders::*;

/// `or_create()` on a versioned entity: the update creates the item
/// when there is none (as a versioned put does), and otherwise applies
/// only to the version read.
#[tokio::test]
async fn versioned_upserts_create_then_lock() {
    let repo = Repository::new(client().await).with_table_name(server::unique_table("Upserts"));
    repo.create_table().await.unwrap();
    let tenant = TenantId::new("upserts").unwrap();
    let t = repo.for_tenant(&tenant);
    let key = InventoryItemKey {
        sku: "SKU-9".into(),
    };
    let first = InventoryItemUpdate::default()
        .on_hand(10)
        .reserved(0)
        .version(1)
        .or_create();
    t.update_inventory_item(&key, first.clone()).await.unwrap();
    let created = t.get_inventory_item(&key).await.unwrap().unwrap();
    assert_eq!((created.on_hand, created.version), (10, 1));
    // The same write again is stale: the item is at version 1 now.
    let stale = t.update_inventory_item(&key, first).await;
    assert!(
        matches!(stale, Err(Error::VersionConflict { expected: 0, .. })),
        "{stale:?}"
    );
    // `or_create()` may create the item, so it carries every required
    // attribute, as a put does; without one nothing is sent.
    let partial = InventoryItemUpdate::default()
        .on_hand(7)
        .version(2)
        .or_create();
    let refused = t.update_inventory_item(&key, partial).await;
    assert!(
        matches!(&refused, Err(Error::Value(v)) if v.name == "reserved"),
        "{refused:?}"
    );
    let next = InventoryItemUpdate::default()
        .on_hand(7)
        .reserved(0)
        .version(2)
        .or_create();
    t.update_inventory_item(&key, next).await.unwrap();
    let updated = t.get_inventory_item(&key).await.unwrap().unwrap();
    assert_eq!((updated.on_hand, updated.version), (7, 2));
}

#[tokio::test]
async fn versioned_writes_conflict_instead_of_overwriting() {
    let repo = Repository::new(client().await).with_table_name(server::unique_table("Locks"));
    repo.create_table().await.unwrap();
    let tenant = TenantId::new("locks").unwrap();
    let t = repo.for_tenant(&tenant);
    let key = InventoryItemKey {
        sku: "SKU-1".into(),
    };
    let item = InventoryItem {
        sku: "SKU-1".into(),
        on_hand: 100,
        reserved: 0,
        version: 0,
    };
    t.put_inventory_item(&item).await.unwrap();
    // A second writer that read nothing and writes version 0 again loses.
    let stale = t.put_inventory_item(&item).await;
    assert!(
        matches!(stale, Err(Error::VersionConflict { expected: -1, .. })),
        "{stale:?}"
    );
    // Version 1 after version 0: applies.
    t.put_inventory_item(&InventoryItem {
        on_hand: 99,
        version: 1,
        ..item.clone()
    })
    .await
    .unwrap();
    let lost = t
        .update_inventory_item(&key, InventoryItemUpdate::default().on_hand(5).version(1))
        .await;
    assert!(
        matches!(lost, Err(Error::VersionConflict { expected: 0, .. })),
        "{lost:?}"
    );
    assert_eq!(
        t.get_inventory_item(&key).await.unwrap().unwrap().on_hand,
        99
    );

    // Eight writers take 5 units each, one at a time, re-reading on
    // every conflict: none of the 40 decrements is lost.
    let writers = (0..8).map(|_| {
        let repo = repo.clone();
        let tenant = tenant.clone();
        let key = key.clone();
        tokio::spawn(async move {
            let t = repo.for_tenant(&tenant);
            let mut conflicts = 0u32;
            for _ in 0..5 {
                loop {
                    let current = t.get_inventory_item(&key).await.unwrap().unwrap();
                    let update = InventoryItemUpdate::default()
                        .on_hand(current.on_hand - 1)
                        .version(current.version + 1);
                    match t.update_inventory_item(&key, update).await {
                        Ok(_) => break,
                        Err(Error::VersionConflict { .. }) => conflicts += 1,
                        Err(e) => panic!("{e:?}"),
                    }
                }
            }
            conflicts
        })
    });
    let mut conflicts = 0;
    for writer in writers.collect::<Vec<_>>() {
        conflicts += writer.await.unwrap();
    }
    let last = t.get_inventory_item(&key).await.unwrap().unwrap();
    assert_eq!(last.on_hand, 99 - 40, "after {conflicts} conflicts");
    assert_eq!(last.version, 41);
    // An update that does not say its version is refused before any request.
    let refused = t
        .update_inventory_item(&key, InventoryItemUpdate::default().on_hand(1))
        .await;
    assert!(matches!(refused, Err(Error::Value(_))), "{refused:?}");
}
