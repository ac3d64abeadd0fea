//! What the benchmarks time keeps every check on untrusted input: a
//! hostile tenant id, a key value that would forge another key, and an
//! item read back that breaks the spec's rules are refused by the very
//! code the codec benchmarks run, each error naming what is wrong.

use singletable_benches::{data, Ticket};
use singletable_runtime::sdk::types::AttributeValue;
use singletable_runtime::Entity;
use singletable_tests::generated::support_ticket::{CommentKey, Status, TenantId};

#[test]
fn hostile_tenant_ids_are_refused() {
    for hostile in [
        "",
        "acme|TICKET#x",
        "acme#1",
        "acme TICKET",
        "ac/me",
        "acmé",
        "acme\n",
        &"a".repeat(65),
    ] {
        assert!(TenantId::new(hostile).is_err(), "{hostile:?} accepted");
    }
    assert!(TenantId::new("a".repeat(64)).is_ok());
}

#[test]
fn key_values_that_would_forge_another_key_are_refused() {
    let tenant = data::tenant();
    for forged in ["t1|TICKET#other", "t1#x", "", "é", "t 1", &"x".repeat(37)] {
        let mut ticket = data::ticket(1);
        ticket.id = forged.to_owned();
        let err = ticket.to_item(&tenant).unwrap_err();
        assert_eq!(err.name, "id", "{forged:?}: {err}");
        let key = CommentKey {
            ticket_id: forged.to_owned(),
            ..data::comment(1, 1).key()
        };
        assert!(
            key.to_key_item(&tenant).is_err(),
            "{forged:?} in a comment key"
        );
    }
}

#[test]
fn items_that_break_the_rules_are_refused_on_read() {
    let tenant = data::tenant();
    let good = data::ticket(3).to_item(&tenant).unwrap();
    for (attribute, bad) in [
        ("resolver", "Not A Login!"),
        ("resolver", "ré"),
        ("title", &"x".repeat(201)),
        ("created_at", "2024-02-30T00:00:00.000Z"),
        ("created_at", "yesterday"),
    ] {
        let mut item = good.clone();
        item.insert(attribute.to_owned(), AttributeValue::S(bad.to_owned()));
        let err = <Ticket as Entity>::from_item(&item).unwrap_err();
        assert_eq!(err.attribute, attribute, "{bad:?}: {err}");
    }
    // An enum value this build does not know (a newer design added it) is
    // read as `UnknownValue`; a status of another DynamoDB type is refused.
    let mut item = good.clone();
    item.insert(
        "status".to_owned(),
        AttributeValue::S("REOPENED".to_owned()),
    );
    let ticket = <Ticket as Entity>::from_item(&item).expect("an unknown value reads");
    assert_eq!(ticket.status, Status::UnknownValue);
    item.insert("status".to_owned(), AttributeValue::N("1".to_owned()));
    let err = <Ticket as Entity>::from_item(&item).unwrap_err();
    assert_eq!(err.attribute, "status", "{err}");
}
