//! Read transactions declared as access patterns (`transaction: { get }`):
//! every item read as of one moment, at its slot, typed by its entity; an
//! absent item is `None`; another tenant's item at the same ids is not
//! read; more items than the pattern's `max_items` are refused before any
//! request. Run on both servers.

use singletable_runtime::{Decimal, Error};
use singletable_tests::generated::read_transactions::*;
use singletable_tests::server;

fn account(id: &str, owner: &str, balance: &str) -> Account {
    Account {
        account_id: id.into(),
        owner: owner.into(),
        balance: balance.parse::<Decimal>().unwrap(),
    }
}

#[tokio::test]
async fn a_read_transaction_reads_each_item_at_its_slot() {
    let client = server::client(&server::server().await.endpoint);
    let repo = Repository::new(client).with_table_name(server::unique_table("Bank"));
    repo.create_table().await.unwrap();
    let acme = TenantId::new("acme").unwrap();
    let other = TenantId::new("other").unwrap();
    let ours = repo.for_tenant(&acme);
    let theirs = repo.for_tenant(&other);
    ours.put_account(&account("1", "7", "10.00")).await.unwrap();
    ours.put_account(&account("2", "7", "-3.50")).await.unwrap();
    ours.put_customer(&Customer {
        customer_id: "7".into(),
        name: "Ada".into(),
    })
    .await
    .unwrap();
    // Another tenant's items at the same ids.
    theirs
        .put_account(&account("3", "8", "99.00"))
        .await
        .unwrap();

    let mut read = ours.account_and_owner();
    let first = read.get_account(&AccountKey {
        account_id: "1".into(),
    });
    let second = read.get_account(&AccountKey {
        account_id: "2".into(),
    });
    let owner = read.get_customer(&CustomerKey {
        customer_id: "7".into(),
    });
    let missing = read.get_account(&AccountKey {
        account_id: "3".into(),
    });
    assert_eq!(read.len(), 4);
    let result = read.send().await.unwrap();
    assert_eq!(result.get(first).unwrap(), Some(account("1", "7", "10.00")));
    assert_eq!(
        result.get(second).unwrap(),
        Some(account("2", "7", "-3.50"))
    );
    assert_eq!(
        result.get(owner).unwrap(),
        Some(Customer {
            customer_id: "7".into(),
            name: "Ada".into()
        })
    );
    // Account 3 is the other tenant's: through this tenant's handle it is absent.
    assert_eq!(result.get(missing).unwrap(), None);

    // Global data, on the table's handle.
    repo.put_rate(&Rate {
        currency: "EUR".into(),
        per_usd: "0.92".parse().unwrap(),
    })
    .await
    .unwrap();
    let mut rates = repo.rates();
    let eur = rates.get_rate(&RateKey {
        currency: "EUR".into(),
    });
    let gbp = rates.get_rate(&RateKey {
        currency: "GBP".into(),
    });
    let result = rates.send().await.unwrap();
    assert_eq!(
        result.get(eur).unwrap().map(|r| r.per_usd),
        Some("0.92".parse::<Decimal>().unwrap())
    );
    assert_eq!(result.get(gbp).unwrap(), None);
}

#[tokio::test]
async fn more_items_than_the_pattern_allows_are_refused_before_any_request() {
    // No table: a request would fail with another error.
    let client = server::client(&server::server().await.endpoint);
    let repo = Repository::new(client).with_table_name(server::unique_table("Bank"));
    let acme = TenantId::new("acme").unwrap();
    let ours = repo.for_tenant(&acme);
    let mut read = ours.account_and_owner();
    for id in 0..11 {
        read.get_account(&AccountKey {
            account_id: id.to_string(),
        });
    }
    match read.send().await {
        Err(Error::TooManyItems {
            pattern,
            items,
            max,
        }) => {
            assert_eq!((pattern, items, max), ("account_and_owner", 11, 10));
        }
        other => panic!("not refused: {other:?}"),
    }
    // Nothing added: nothing sent, nothing read.
    let empty = ours.account_and_owner();
    assert!(empty.is_empty());
    let result = empty.send().await.unwrap();
    let _ = result;
}
