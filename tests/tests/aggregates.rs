//! Aggregates end to end: after a random sequence of creates, group changes
//! and deletes, both counter styles equal a recount of the table.
//!
//! `shopping_cart` keeps `CartCount` in the same transaction as each cart
//! write; `support_ticket` keeps `TicketCount` from the table's stream,
//! read here through the DynamoDB Streams API of the same server.

use std::collections::BTreeMap;

use schema_runtime::aggregate::ChangeRecord;
use schema_runtime::DateTime;
use singletable_tests::generated::{shopping_cart, support_ticket};
use singletable_tests::server;

/// A small deterministic generator, so a failure can be replayed.
struct Dice(u64);

impl Dice {
    fn roll(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

#[tokio::test]
async fn transaction_counters_equal_a_recount() {
    use shopping_cart::*;
    let repo = Repository::new(server::client(&server::server().await.endpoint))
        .with_table_name(server::unique_table("CartCounts"));
    repo.create_table().await.unwrap();
    let users = ["ann", "bob"];
    let statuses = [Status::Active, Status::Saved];
    let mut dice = Dice(7);
    for step in 0..150 {
        let user = users[dice.roll(2) as usize];
        let status = statuses[dice.roll(2) as usize];
        let product = format!("p{}", dice.roll(12));
        let item = CartItem {
            user_id: user.into(),
            product_id: product.clone(),
            status,
            product_name: format!("{product} at step {step}"),
            quantity: 1 + dice.roll(5) as i64,
            unit_price: "2.50".parse().unwrap(),
            added_at: DateTime::from_secs(1_714_564_800 + step),
        };
        match dice.roll(5) {
            0 => match repo.create_cart_item(&item).await {
                Ok(()) | Err(schema_runtime::Error::ConditionFailed { .. }) => {}
                Err(e) => panic!("create: {e:?}"),
            },
            1 => repo.put_cart_item(&item).await.unwrap(),
            2 => {
                repo.delete_cart_item(&item.key()).await.unwrap();
            }
            3 => {
                // An upsert: creates the item (counted in the group its key
                // names) or updates it in place.
                let update = CartItemUpdate::default()
                    .product_name(item.product_name.clone())
                    .quantity(item.quantity)
                    .unit_price(item.unit_price.clone())
                    .added_at(item.added_at)
                    .or_create();
                repo.update_cart_item(&item.key(), update).await.unwrap();
            }
            _ => {
                // A change that leaves the group as it is.
                let update = CartItemUpdate::default().quantity(9);
                match repo.update_cart_item(&item.key(), update).await {
                    Ok(_) | Err(schema_runtime::Error::ConditionFailed { .. }) => {}
                    Err(e) => panic!("update: {e:?}"),
                }
            }
        }
    }
    for user in users {
        let cart = repo.whole_cart(user).all().await.unwrap();
        let counts = repo.cart_counts(user).all().await.unwrap();
        for status in statuses {
            let recount = cart.iter().filter(|i| i.status == status).count() as i64;
            let kept = counts
                .iter()
                .find(|c| c.status == status)
                .map_or(0, |c| c.item_count);
            assert_eq!(kept, recount, "{user} {status:?}");
        }
    }
}

/// Every record of the table's stream so far, oldest first.
async fn stream_records(endpoint: &str, table: &str) -> Vec<ChangeRecord> {
    use aws_sdk_dynamodbstreams as streams;
    let config = streams::Config::builder()
        .behavior_version(streams::config::BehaviorVersion::latest())
        .region(streams::config::Region::new("us-east-1"))
        .endpoint_url(endpoint)
        .credentials_provider(streams::config::Credentials::new(
            "local", "local", None, None, "static",
        ))
        .build();
    let client = streams::Client::from_conf(config);
    let dynamodb = server::client(endpoint);
    let arn = dynamodb
        .describe_table()
        .table_name(table)
        .send()
        .await
        .unwrap()
        .table
        .and_then(|t| t.latest_stream_arn)
        .expect("the table has a stream");
    let description = client
        .describe_stream()
        .stream_arn(&arn)
        .send()
        .await
        .unwrap()
        .stream_description
        .expect("a stream description");
    let mut records = Vec::new();
    for shard in description.shards() {
        let Some(shard_id) = shard.shard_id() else {
            continue;
        };
        let mut iterator = client
            .get_shard_iterator()
            .stream_arn(&arn)
            .shard_id(shard_id)
            .shard_iterator_type(streams::types::ShardIteratorType::TrimHorizon)
            .send()
            .await
            .unwrap()
            .shard_iterator;
        while let Some(it) = iterator {
            let out = client
                .get_records()
                .shard_iterator(it)
                .send()
                .await
                .unwrap();
            let page = out.records.unwrap_or_default();
            let empty = page.is_empty();
            for record in page {
                records.push(ChangeRecord::try_from(record).unwrap());
            }
            iterator = out.next_shard_iterator;
            if empty {
                break;
            }
        }
    }
    records
}

#[tokio::test]
async fn stream_counters_equal_a_recount() {
    use support_ticket::*;
    let server = server::server().await;
    let table = server::unique_table("TicketCounts");
    let repo = Repository::new(server::client(&server.endpoint)).with_table_name(&table);
    repo.create_table().await.unwrap();
    let tenants = [TenantId::new("t1").unwrap(), TenantId::new("t10").unwrap()];
    let mut state: BTreeMap<(usize, String), Status> = BTreeMap::new();
    let mut dice = Dice(11);
    for _ in 0..120 {
        let tenant = dice.roll(2) as usize;
        let id = format!("T{}", dice.roll(15));
        let t = repo.for_tenant(&tenants[tenant]);
        let status = if dice.roll(2) == 0 {
            Status::Open
        } else {
            Status::Closed
        };
        let key = TicketKey { id: id.clone() };
        match dice.roll(3) {
            0 => {
                let ticket = Ticket {
                    id: id.clone(),
                    title: "counted".into(),
                    status,
                    resolver: None,
                    created_at: DateTime::from_secs(1_714_564_800),
                };
                if t.create_ticket(&ticket).await.is_ok() {
                    state.insert((tenant, id), status);
                }
            }
            1 => {
                if t.update_ticket(&key, TicketUpdate::default().status(status))
                    .await
                    .is_ok()
                {
                    state.insert((tenant, id), status);
                }
            }
            _ => {
                if t.delete_ticket(&key).await.unwrap().is_some() {
                    state.remove(&(tenant, id));
                }
            }
        }
    }
    let records = stream_records(&server.endpoint, &table).await;
    assert!(!records.is_empty(), "the stream has records");
    let (changes, errors) = ticket_count_changes(&records);
    assert!(errors.is_empty(), "{errors:?}");
    repo.apply_counter_changes(&changes).await.unwrap();
    for (i, tenant) in tenants.iter().enumerate() {
        let counts = repo
            .for_tenant(tenant)
            .ticket_counts_by_status()
            .all()
            .await
            .unwrap();
        for status in [Status::Open, Status::Closed] {
            let recount = state
                .iter()
                .filter(|((t, _), s)| *t == i && **s == status)
                .count() as i64;
            let kept = counts
                .iter()
                .find(|c| c.status == status)
                .map_or(0, |c| c.count);
            assert_eq!(kept, recount, "tenant {} {status:?}", tenant.as_str());
        }
    }
}
