//! `default:` end to end: items written before an attribute existed (put
//! here as another writer would, without it) read its default; items that
//! have it read their own value; a stored value that breaks the rules is
//! still an error naming the attribute.

use singletable_runtime::sdk::types::AttributeValue;
use singletable_runtime::Decimal;
use singletable_tests::generated::attribute_defaults::*;
use singletable_tests::server::{self, s};

async fn put_raw(repo: &Repository, item: Vec<(&str, AttributeValue)>) {
    server::put_raw(repo.client(), repo.table_name(), item).await;
}

#[tokio::test]
async fn items_without_an_attribute_read_its_default() {
    let client = server::client(&server::server().await.endpoint);
    let repo = Repository::new(client).with_table_name(server::unique_table("Accounts"));
    repo.create_table().await.unwrap();
    // Written by the first design: no plan, seats, credit, verified, region.
    put_raw(
        &repo,
        vec![
            ("pk", s("ACCOUNT#old")),
            ("sk", s("ACCOUNT")),
            ("entity_type", s("Account")),
            ("id", s("old")),
            ("name", s("Old Ltd")),
        ],
    )
    .await;
    let old = repo.account("old").await.unwrap().unwrap();
    assert_eq!(old.plan, Plan::Free);
    assert_eq!(old.seats, 1);
    assert_eq!(old.credit, "0.00".parse::<Decimal>().unwrap());
    assert!(!old.verified);
    assert_eq!(old.region, "eu-west-1");

    // Written through the repository: every value stored, read back as is.
    let new = Account {
        id: "new".into(),
        name: "New Ltd".into(),
        plan: Plan::Team,
        seats: 12,
        credit: "10.50".parse().unwrap(),
        verified: true,
        region: "us-east-2".into(),
    };
    repo.put_account(&new).await.unwrap();
    let read = repo.account("new").await.unwrap();
    assert_eq!(read, Some(new));

    // A stored value that breaks the rules is not replaced by the default.
    put_raw(
        &repo,
        vec![
            ("pk", s("ACCOUNT#bad")),
            ("sk", s("ACCOUNT")),
            ("entity_type", s("Account")),
            ("id", s("bad")),
            ("name", s("Bad Ltd")),
            ("seats", AttributeValue::N("0".into())),
        ],
    )
    .await;
    let err = repo.account("bad").await.unwrap_err();
    assert!(err.to_string().contains("seats"), "{err}");
}
