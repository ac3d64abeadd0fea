use super::*;
use photo_site::*;

const T0: i64 = 1_714_564_800_000;

fn photo(owner: &str, i: u8) -> Photo {
    Photo {
        photo_id: format!("01HZ{:0>22}", i),
        url: format!("https://img.example/{owner}/{i}.jpg"),
        caption: i.is_multiple_of(2).then(|| format!("photo {i} of {owner}")),
        image_format: ImageFormat::Jpeg,
        width: 4_000,
        height: 3_000,
        size_bytes: 2_000_000 + i64::from(i),
        tags: Some(vec![owner.to_owned()]),
        uploaded_at: DateTime::from_millis(T0 + i64::from(i) * 60_000),
    }
}

fn profile(owner: &str) -> UserProfile {
    UserProfile {
        display_name: format!("{owner}'s photos"),
        bio: None,
        avatar_url: Some(format!("https://img.example/{owner}/avatar.png")),
        created_at: DateTime::from_secs(1_700_000_000),
    }
}

#[tokio::test]
async fn every_pattern_returns_only_the_users_items() {
    let repo = Repository::new(client().await).with_table_name(server::unique_table("Photos"));
    repo.create_table().await.unwrap();
    let (a, b) = (
        TenantId::new("ann").unwrap(),
        TenantId::new("ann_2").unwrap(),
    );
    let mut photos = Vec::new();
    for owner in [&a, &b] {
        let t = repo.for_tenant(owner);
        t.put_user_profile(&profile(owner.as_str())).await.unwrap();
        for i in 1..=5 {
            let item = photo(owner.as_str(), i);
            t.put_photo(&item).await.unwrap();
            if owner == &a {
                photos.push(item);
            }
        }
    }
    let t = repo.for_tenant(&a);
    assert_eq!(t.user_profile().await.unwrap(), Some(profile("ann")));
    assert_eq!(
        t.photo(&photos[2].photo_id).await.unwrap(),
        Some(photos[2].clone())
    );
    assert_eq!(
        t.photos_between(
            DateTime::from_millis(T0 + 60_000),
            DateTime::from_millis(T0 + 3 * 60_000 + 1)
        )
        .all()
        .await
        .unwrap(),
        photos[..3].to_vec()
    );
    let mut newest_first = photos.clone();
    newest_first.reverse();
    assert_eq!(t.latest_photos().all().await.unwrap(), newest_first);
    assert_eq!(
        t.photos_since(DateTime::from_millis(T0 + 4 * 60_000))
            .all()
            .await
            .unwrap(),
        photos[3..].to_vec()
    );
    // `PHOTO#…` sorts before `PROFILE`.
    let mut contents: Vec<_> = photos
        .iter()
        .cloned()
        .map(AccountContentsItem::Photo)
        .collect();
    contents.push(AccountContentsItem::UserProfile(profile("ann")));
    assert_eq!(t.account_contents().all().await.unwrap(), contents);

    let mut delete = t.delete_account_items();
    delete.delete_user_profile(&UserProfileKey {});
    for p in &photos {
        delete.delete_photo(&p.key());
    }
    delete.send().await.unwrap();
    assert!(t.account_contents().all().await.unwrap().is_empty());
    assert_eq!(
        repo.for_tenant(&b)
            .account_contents()
            .all()
            .await
            .unwrap()
            .len(),
        6
    );
}
