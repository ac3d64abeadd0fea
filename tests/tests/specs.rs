//! The other specs' repositories end to end: every table definition, TTL,
//! hash- and random-sharded entities (scatter-gather queries), batches.

use singletable_runtime::DateTime;
use singletable_tests::generated::*;
use singletable_tests::samples::product;
use singletable_tests::server;

async fn client() -> singletable_runtime::sdk::Client {
    server::client(&server::server().await.endpoint)
}

macro_rules! create_tables {
    ($client:expr, $($module:ident),*) => {{
        $(
            let table = server::unique_table(stringify!($module));
            let repo = $module::Repository::new($client.clone()).with_table_name(&table);
            repo.create_table().await.unwrap_or_else(|e| panic!("{}: {e:?}", stringify!($module)));
            let described = $client.describe_table().table_name(&table).send().await.unwrap();
            let indexes = described.table.as_ref().map_or(0, |t| t.global_secondary_indexes().len() + t.local_secondary_indexes().len());
            assert_eq!(indexes, $module::TABLE.indexes.len(), "{}", stringify!($module));
        )*
    }};
}

#[tokio::test]
async fn every_spec_creates_its_table_with_its_indexes() {
    let client = client().await;
    create_tables!(
        client,
        contest_votes,
        inverted_role_index,
        iot_device_reports,
        monthly_activity,
        photo_site,
        pooled_product_catalog,
        project_task_comment,
        saas_tenant_users_orders,
        shopping_cart,
        short_lived_messages,
        support_ticket,
        vertical_partitioning
    );
}

fn message(recipient: &str, id: &str, sent: i64, expires: i64) -> short_lived_messages::Message {
    short_lived_messages::Message {
        recipient_id: recipient.into(),
        sender_id: "sender".into(),
        message_id: id.into(),
        body: format!("hello {id}"),
        sent_at: DateTime::from_secs(sent),
        is_read: false,
        expires_at: DateTime::from_secs(expires),
    }
}

#[tokio::test]
async fn reads_skip_items_whose_ttl_has_passed() {
    use short_lived_messages::*;
    let repo = Repository::new(client().await).with_table_name(server::unique_table("Messages"));
    repo.create_table().await.unwrap();
    let now = DateTime::from(std::time::SystemTime::now()).secs();
    let live = message("ann", "01HZZZZZZZZZZZZZZZZZZZZZZ1", now - 10, now + 3600);
    let expired = message("ann", "01HZZZZZZZZZZZZZZZZZZZZZZ2", now - 5, now - 1);
    repo.put_message(&live).await.unwrap();
    repo.put_message(&expired).await.unwrap();
    let inbox = repo.inbox("ann").all().await.unwrap();
    assert_eq!(inbox, vec![live.clone()]);
    assert_eq!(
        repo.message(&expired.recipient_id, expired.sent_at, &expired.message_id)
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        repo.message(&live.recipient_id, live.sent_at, &live.message_id)
            .await
            .unwrap(),
        Some(live.clone())
    );
    // Through the GSI too (the TTL attribute is projected with the keys).
    assert_eq!(
        repo.sent_messages("sender").all().await.unwrap(),
        vec![live.clone()]
    );
    let since = repo
        .inbox_since("ann", DateTime::from_secs(now - 100))
        .all()
        .await
        .unwrap();
    assert_eq!(since, vec![live.clone()]);

    // A job that must see every stored item asks for the expired ones too.
    let everything = repo.inbox("ann").include_expired().all().await.unwrap();
    assert_eq!(everything, vec![expired.clone(), live.clone()]);
    let sent = repo
        .sent_messages("sender")
        .include_expired()
        .all()
        .await
        .unwrap();
    assert_eq!(sent, vec![expired.clone(), live.clone()]);
    // A batch get skips the expired message, unless asked for it.
    let mut open = repo.open_messages();
    open.get_message(&live.key()).get_message(&expired.key());
    assert_eq!(open.all().await.unwrap(), vec![live.clone()]);
    let mut open = repo.open_messages();
    open.get_message(&live.key())
        .get_message(&expired.key())
        .include_expired();
    let mut opened = open.all().await.unwrap();
    opened.sort_by(|a, b| a.message_id.cmp(&b.message_id));
    assert_eq!(opened, vec![live.clone(), expired.clone()]);

    let mut delete = repo.delete_messages();
    delete
        .delete_message(&live.key())
        .delete_message(&expired.key());
    delete.send().await.unwrap();
    assert!(repo.inbox("ann").all().await.unwrap().is_empty());
}

#[tokio::test]
async fn hash_sharded_products_scatter_and_gather_per_tenant() {
    use pooled_product_catalog::*;
    let repo = Repository::new(client().await).with_table_name(server::unique_table("Catalog"));
    repo.create_table().await.unwrap();
    let (a, b) = (
        TenantId::new("tenant1").unwrap(),
        TenantId::new("tenant10").unwrap(),
    );
    for tenant in [&a, &b] {
        let mut batch = repo.for_tenant(tenant).import_products();
        for i in 0..60 {
            batch.put_product(&product(
                &format!("p{i:02}"),
                if i % 3 == 0 { "tools" } else { "toys" },
            ));
        }
        batch.send().await.unwrap();
    }
    let t = repo.for_tenant(&a);
    let mut all = t.tenant_products().all().await.unwrap();
    all.sort_by(|x, y| x.product_id.cmp(&y.product_id));
    assert_eq!(all.len(), 60);
    assert_eq!(all[0], product("p00", "tools"));
    // The items really are spread over the shards.
    let key = t.product("p07").await.unwrap();
    assert_eq!(key, Some(product("p07", "toys")));
    let tools = t.products_in_category("tools").all().await.unwrap();
    assert_eq!(tools.len(), 20);
    assert_eq!(t.tenant_products().limit(7).all().await.unwrap().len(), 7);

    t.update_product(
        &ProductKey {
            product_id: "p01".into(),
        },
        ProductUpdate::default().category("tools"),
    )
    .await
    .unwrap();
    assert_eq!(
        t.products_in_category("tools").all().await.unwrap().len(),
        21
    );

    let mut delete = t.delete_products();
    for i in 0..60 {
        delete.delete_product(&ProductKey {
            product_id: format!("p{i:02}"),
        });
    }
    delete.send().await.unwrap();
    assert!(t.tenant_products().all().await.unwrap().is_empty());
    assert_eq!(
        repo.for_tenant(&b)
            .tenant_products()
            .all()
            .await
            .unwrap()
            .len(),
        60
    );
}

#[tokio::test]
async fn random_shards_are_read_back_and_summed() {
    use contest_votes::*;
    let repo = Repository::new(client().await).with_table_name(server::unique_table("Votes"));
    repo.create_table().await.unwrap();
    let mut expected = 0;
    for shard in 0..20u32 {
        let votes = i64::from(shard) * 3 + 1;
        expected += votes;
        repo.put_vote_shard(&VoteShard {
            shard,
            contest_id: "c1".into(),
            contestant_id: "alice".into(),
            votes,
        })
        .await
        .unwrap();
    }
    let shards = repo.vote_shards("c1", "alice").all().await.unwrap();
    assert_eq!(shards.len(), 20);
    let mut seen: Vec<u32> = shards.iter().map(|s| s.shard).collect();
    seen.sort_unstable();
    assert_eq!(seen, (0..20).collect::<Vec<_>>());
    assert_eq!(shards.iter().map(|s| s.votes).sum::<i64>(), expected);
    let shard = singletable_runtime::codec::random_shard(20);
    assert!(shard < 20);
    let bad = repo
        .put_vote_shard(&VoteShard {
            shard: 20,
            contest_id: "c1".into(),
            contestant_id: "bob".into(),
            votes: 0,
        })
        .await;
    assert!(
        matches!(bad, Err(singletable_runtime::Error::Value(_))),
        "{bad:?}"
    );

    let mut publish = repo.publish_totals();
    publish.put_vote_total(&VoteTotal {
        contest_id: "c1".into(),
        contestant_id: "alice".into(),
        votes: expected,
        tallied_at: DateTime::from_secs(1_714_564_800),
    });
    publish.send().await.unwrap();
    let board = repo.leaderboard("c1").all().await.unwrap();
    assert_eq!(board.len(), 1);
    assert_eq!(board[0].votes, expected);
    let total = repo.vote_total("c1", "alice").await.unwrap();
    assert_eq!(total.map(|t| t.votes), Some(expected));
    let none = repo.vote_total("c2", "alice").await.unwrap();
    assert_eq!(none, None);
}
