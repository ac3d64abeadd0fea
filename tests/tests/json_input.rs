//! Types that fit JSON APIs: an entity's input type (`NewIssue`) is a
//! request body without what the repository sets (timestamps, a version),
//! refuses those fields instead of dropping them, and writes through the
//! usual `create_…`; decimals serialize with the scale the spec declares.

use serde_json::json;
use singletable_runtime::Decimal;
use singletable_tests::generated::declared_bounds::Product;
use singletable_tests::generated::project_task_comment::{
    self as tasks, NewTask, Task, TaskUpdate, TenantId,
};
use singletable_tests::generated::sequence_numbers::{NewIssue, Repository};
use singletable_tests::generated::typed_maps::Lines;
use singletable_tests::{close_to_now, server};

#[tokio::test]
async fn a_request_body_without_timestamps_creates_the_item() {
    let repo = Repository::new(server::client(&server::server().await.endpoint))
        .with_table_name(server::unique_table("CodeHost"));
    repo.create_table().await.unwrap();

    let body = json!({"owner": "octo", "name": "hello", "number": 7, "title": "a bug"});
    let input: NewIssue = serde_json::from_value(body).unwrap();
    let written = repo.create_issue(&input.clone().into()).await.unwrap();
    assert_eq!(
        (
            written.owner.as_str(),
            written.number,
            written.title.as_str()
        ),
        ("octo", 7, "a bug")
    );
    assert!(close_to_now(written.opened_at) && close_to_now(written.changed_at));
    assert_eq!(
        repo.get_issue(&written.key()).await.unwrap(),
        Some(written.clone())
    );
    // The item as written serializes with the timestamps it was given.
    let out = serde_json::to_value(&written).unwrap();
    assert!(out["opened_at"].is_string(), "{out}");

    // A field the repository sets is refused, never silently dropped.
    for field in ["opened_at", "changed_at"] {
        let mut body = json!({"owner": "octo", "name": "hello", "number": 8, "title": "x"});
        body[field] = json!("2020-01-01T00:00:00Z");
        let e = serde_json::from_value::<NewIssue>(body).unwrap_err();
        assert!(e.to_string().contains(field), "{e}");
    }
    // And what serde takes is what the struct holds: a missing attribute is
    // an error naming it.
    let e = serde_json::from_value::<NewIssue>(json!({"owner": "octo", "name": "h", "number": 9}))
        .unwrap_err();
    assert!(e.to_string().contains("title"), "{e}");
}

#[tokio::test]
async fn a_versioned_item_starts_at_its_first_version() {
    let repo = tasks::Repository::new(server::client(&server::server().await.endpoint))
        .with_table_name(server::unique_table("Projects"));
    repo.create_table().await.unwrap();
    let tenant = TenantId::new("acme").unwrap();
    let t = repo.for_tenant(&tenant);

    let input: NewTask = serde_json::from_value(json!({
        "project_id": "p1", "task_id": "t1", "title": "write docs", "status": "TODO"
    }))
    .unwrap();
    assert_eq!(
        input.assignee_id, None,
        "optional attributes may be left out"
    );
    let refused = serde_json::from_value::<NewTask>(json!({
        "project_id": "p1", "task_id": "t1", "title": "x", "status": "TODO", "version": 5
    }));
    assert!(refused.is_err(), "the version is the repository's");

    let written: Task = t.create_task(&input.into()).await.unwrap();
    assert_eq!(written.version, 0);
    // The next write is version 1, as for any versioned item.
    let updated = t
        .update_task(
            &written.key(),
            TaskUpdate::default().version(1).title("docs"),
        )
        .await
        .unwrap();
    assert_eq!((updated.version, updated.title.as_str()), (1, "docs"));
}

fn dec(v: &str) -> Decimal {
    v.parse().unwrap()
}

#[test]
fn decimals_serialize_at_their_declared_scale() {
    let product = Product {
        store: "main".into(),
        id: "p1".into(),
        sku: "AB-0001".into(),
        on_hand: 1,
        price: dec("120"),
        sizes: vec!["S".into()],
        thumbnail: None,
        note: None,
        dims: None,
    };
    let json = serde_json::to_value(&product).unwrap();
    assert_eq!(json["price"], json!("120.00"));
    let back: Product = serde_json::from_value(json).unwrap();
    assert_eq!(back.price, dec("120"), "the same number, read back");
    // More digits than the scale are kept (the write refuses them).
    let wide = Product {
        price: dec("1.234"),
        ..product.clone()
    };
    assert_eq!(
        serde_json::to_value(&wide).unwrap()["price"],
        json!("1.234")
    );
    // In typed maps inside lists, too.
    let lines = Lines {
        sku: "A".into(),
        quantity: 2,
        price: dec("9.5"),
    };
    assert_eq!(
        serde_json::to_value(&lines).unwrap()["price"],
        json!("9.50")
    );
    // A decimal without a declared scale is as written.
    let total = dec("9.5").checked_mul(&dec("2")).unwrap();
    assert_eq!(
        serde_json::to_value(&total).unwrap(),
        json!("19"),
        "checked arithmetic keeps the canonical form"
    );
    assert_eq!(total.to_string_with_scale(2), "19.00");
}

#[tokio::test]
async fn an_input_type_leaves_out_what_the_repository_sets_and_takes_defaults() {
    use singletable_tests::generated::input_types::{
        Account, NewAccount, NewSignup, Plan, Repository,
    };
    let repo = Repository::new(server::client(&server::server().await.endpoint))
        .with_table_name(server::unique_table("Accounts"));
    repo.create_table().await.unwrap();

    let input: NewAccount = serde_json::from_value(json!({"id": "a1", "name": "Ann"})).unwrap();
    let written = repo.create_account(&input.into()).await.unwrap();
    assert_eq!(
        (written.plan, written.seats, written.verified),
        (Plan::Pro, 3, true),
        "each default taken"
    );
    assert_eq!(written.credit, dec("2.5"));
    assert_eq!(written.region, "eu-west-1");
    assert_eq!(written.nickname, None);
    assert_eq!(written.revision, 1, "the version starts at its min");
    assert!(close_to_now(written.opened_at) && close_to_now(written.touched_at));
    assert_eq!(repo.account("a1").await.unwrap(), Some(written.clone()));
    // What the caller gives wins over a default.
    let given: NewAccount = serde_json::from_value(json!({
        "id": "a2", "name": "Bo", "plan": "team", "seats": 9, "credit": "7", "verified": false,
        "region": "us-east-1", "nickname": "b"
    }))
    .unwrap();
    let b: Account = given.into();
    assert_eq!(
        (
            b.plan,
            b.seats,
            b.verified,
            b.region.as_str(),
            b.nickname.as_deref()
        ),
        (Plan::Team, 9, false, "us-east-1", Some("b"))
    );
    assert_eq!(serde_json::to_value(&b).unwrap()["credit"], json!("7.00"));
    for field in ["revision", "opened_at", "touched_at"] {
        let mut body = json!({"id": "a3", "name": "C"});
        body[field] = json!(1);
        assert!(
            serde_json::from_value::<NewAccount>(body).is_err(),
            "{field}"
        );
    }

    // The write shard is drawn, never given.
    assert!(serde_json::from_value::<NewSignup>(json!({"email": "a@b.c", "shard": 0})).is_err());
    let signup = repo
        .create_signup(
            &NewSignup {
                email: "a@b.c".into(),
            }
            .into(),
        )
        .await
        .unwrap();
    assert!(signup.shard < 4);
    let all = repo.signups().all().await.unwrap();
    assert_eq!(all, vec![signup]);
}
