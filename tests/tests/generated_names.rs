//! Specs `check` accepts compile and run as written, on names and key types
//! that once broke the generated code (`fixtures/pass/`): an attribute named
//! like the update type's own settings, table-level patterns named like the
//! repository's helpers, and ranges over a decimal held by a Number sort key
//! (DynamoDB orders Number keys numerically: 9.5 before 10 before 100).

use singletable_runtime::Decimal;
use singletable_tests::generated::{
    attribute_named_like_update_internals, patterns_named_like_repository_internals,
    range_over_decimal_number_key,
};
use singletable_tests::server;

async fn client() -> singletable_runtime::sdk::Client {
    server::client(&server::server().await.endpoint)
}

fn decimal(text: &str) -> Decimal {
    text.parse().expect("a decimal")
}

#[tokio::test]
async fn an_attribute_named_options_is_set_by_its_update() {
    use attribute_named_like_update_internals::*;
    let repo = Repository::new(client().await).with_table_name(server::unique_table("Options"));
    repo.create_table().await.unwrap();
    let tenant = TenantId::new("acme").unwrap();
    let t = repo.for_tenant(&tenant);
    let key = SettingKey { id: "s1".into() };
    let created = t
        .update_setting(&key, SettingUpdate::default().options("dark").or_create())
        .await
        .unwrap();
    assert_eq!(created.options, "dark");
    let updated = t
        .update_setting(
            &key,
            SettingUpdate::default()
                .options("light")
                .when(Setting::OPTIONS.eq("dark")),
        )
        .await
        .unwrap();
    assert_eq!(updated.options, "light");
    assert_eq!(t.setting(&key.id).await.unwrap(), Some(updated));
}

#[tokio::test]
async fn patterns_named_table_and_table_info_are_the_patterns() {
    use patterns_named_like_repository_internals::*;
    let repo = Repository::new(client().await).with_table_name(server::unique_table("Tbl"));
    repo.create_table().await.unwrap();
    let thing = Thing {
        id: "t1".into(),
        label: "first".into(),
    };
    repo.put_thing(&thing).await.unwrap();
    let key = ThingKey { id: "t1".into() };
    assert_eq!(repo.table(&key.id).await.unwrap(), Some(thing.clone()));
    assert_eq!(repo.table_info("t1").all().await.unwrap(), vec![thing]);
}

#[tokio::test]
async fn ranges_over_a_decimal_number_key_follow_numeric_order() {
    use range_over_decimal_number_key::*;
    let repo = Repository::new(client().await).with_table_name(server::unique_table("Deals"));
    repo.create_table().await.unwrap();
    let tenant = TenantId::new("acme").unwrap();
    let t = repo.for_tenant(&tenant);
    // Text order would be 0.25 < 10 < 100.5 < 9.5 < -3; numeric order is
    // -3 < 0.25 < 9.5 < 10 < 100.5.
    for (id, discount) in [
        ("a", "10"),
        ("b", "9.5"),
        ("c", "100.5"),
        ("d", "0.25"),
        ("e", "-3"),
    ] {
        t.put_deal(&Deal {
            id: id.into(),
            discount: decimal(discount),
        })
        .await
        .unwrap();
    }
    let ids = |deals: Vec<Deal>| deals.into_iter().map(|d| d.id).collect::<Vec<_>>();
    let from = t
        .deals_from(&decimal("9.5"))
        .page_size(2)
        .all()
        .await
        .unwrap();
    assert_eq!(ids(from), ["b", "a", "c"]);
    let between = t
        .deals_between(&decimal("0"), &decimal("10"))
        .all()
        .await
        .unwrap();
    assert_eq!(ids(between), ["d", "b", "a"]);
    // The parameter is a typed decimal: what is not a number cannot be
    // passed, and a number's other spellings mean the same value.
    assert!("ten".parse::<Decimal>().is_err());
    let same = t.deals_from(&decimal("9.50")).all().await.unwrap();
    assert_eq!(ids(same), ["b", "a", "c"]);
}

/// Names a spec chose keep theirs where they meet the conveniences every
/// entity gets (`fixtures/pass/names_like_entity_conveniences.yaml`): the
/// conditions `new` and `with_key` stay conditions, the constructor becomes
/// `new_item`, and the `with_…` methods of `timestamps` and `key` take
/// `_value`; the spec checks clean instead of being refused.
#[test]
fn conveniences_give_way_to_names_the_spec_chose() {
    use singletable_tests::generated::names_like_entity_conveniences::Note;
    let note = Note::new_item("a")
        .with_timestamps_value("t")
        .with_key_value("k")
        .with_new("n");
    assert_eq!(
        (
            note.timestamps.as_deref(),
            note.key.as_deref(),
            note.new.as_deref()
        ),
        (Some("t"), Some("k"), Some("n"))
    );
    // The spec's own conditions, by the names it gave them.
    let (fresh, stale) = (Note::new(), Note::with_key());
    assert_ne!(format!("{fresh:?}"), format!("{stale:?}"));
}
