use super::*;
use shopping_cart::*;

fn item(user: &str, product: &str, status: Status) -> CartItem {
    CartItem {
        user_id: user.into(),
        product_id: product.into(),
        status,
        product_name: format!("{product} for {user}"),
        quantity: 1,
        unit_price: decimal("9.50"),
        added_at: DateTime::from_secs(1_714_564_800),
    }
}

fn count(user: &str, status: Status, n: i64) -> CartCount {
    CartCount {
        user_id: user.into(),
        status,
        item_count: n,
    }
}

#[tokio::test]
async fn every_pattern_returns_only_the_users_items() {
    let repo = Repository::new(client().await).with_table_name(server::unique_table("Cart"));
    repo.create_table().await.unwrap();
    for user in ["ann", "ann2"] {
        // The counters exist before the first transaction updates them.
        repo.put_cart_count(&count(user, Status::Active, 0))
            .await
            .unwrap();
        let mut add = repo.add_to_cart();
        add.put_cart_item(&item(user, "p1", Status::Active))
            .update_cart_count(
                &CartCountKey {
                    user_id: user.into(),
                    status: Status::Active,
                },
                CartCountUpdate::default().item_count(1),
            );
        add.send().await.unwrap();
        repo.put_cart_item(&item(user, "p2", Status::Active))
            .await
            .unwrap();
        repo.put_cart_item(&item(user, "p3", Status::Saved))
            .await
            .unwrap();
        repo.put_cart_count(&count(user, Status::Active, 2))
            .await
            .unwrap();
        repo.put_cart_count(&count(user, Status::Saved, 1))
            .await
            .unwrap();
        repo.put_wishlist_item(&WishlistItem {
            user_id: user.into(),
            product_id: "p9".into(),
            product_name: "p9".into(),
            note: Some(format!("for {user}")),
            added_at: DateTime::from_secs(1_714_564_800),
        })
        .await
        .unwrap();
    }
    let active = vec![
        item("ann", "p1", Status::Active),
        item("ann", "p2", Status::Active),
    ];
    let saved = vec![item("ann", "p3", Status::Saved)];
    let whole: Vec<_> = active.iter().chain(&saved).cloned().collect();
    assert_eq!(repo.whole_cart("ann").all().await.unwrap(), whole);
    assert_eq!(repo.active_cart("ann").all().await.unwrap(), active);
    assert_eq!(repo.saved_for_later("ann").all().await.unwrap(), saved);
    assert_eq!(
        repo.cart_item(&active[1].user_id, active[1].status, &active[1].product_id)
            .await
            .unwrap(),
        Some(active[1].clone())
    );
    let wishlist = repo.wishlist("ann").all().await.unwrap();
    assert_eq!(wishlist.len(), 1);
    assert_eq!(wishlist[0].note.as_deref(), Some("for ann"));
    assert_eq!(
        repo.cart_counts("ann").all().await.unwrap(),
        vec![
            count("ann", Status::Active, 2),
            count("ann", Status::Saved, 1)
        ]
    );

    // move_item: out of the active cart into saved-for-later.
    let mut mv = repo.move_item();
    mv.delete_cart_item(&active[0].key())
        .put_cart_item(&item("ann", "p1", Status::Saved))
        .update_cart_count(
            &CartCountKey {
                user_id: "ann".into(),
                status: Status::Active,
            },
            CartCountUpdate::default().item_count(1),
        )
        .update_cart_count(
            &CartCountKey {
                user_id: "ann".into(),
                status: Status::Saved,
            },
            CartCountUpdate::default().item_count(2),
        );
    mv.send().await.unwrap();
    assert_eq!(
        repo.active_cart("ann").all().await.unwrap(),
        vec![active[1].clone()]
    );
    assert_eq!(repo.saved_for_later("ann").all().await.unwrap().len(), 2);

    // checkout: the active cart goes, its count drops to zero.
    let mut checkout = repo.checkout();
    checkout
        .delete_cart_item(&active[1].key())
        .update_cart_count(
            &CartCountKey {
                user_id: "ann".into(),
                status: Status::Active,
            },
            CartCountUpdate::default().item_count(0),
        );
    checkout.send().await.unwrap();
    assert!(repo.active_cart("ann").all().await.unwrap().is_empty());
    assert_eq!(
        repo.cart_counts("ann").all().await.unwrap(),
        vec![
            count("ann", Status::Active, 0),
            count("ann", Status::Saved, 2)
        ]
    );
    // The other user's cart is untouched.
    assert_eq!(repo.whole_cart("ann2").all().await.unwrap().len(), 3);
}
