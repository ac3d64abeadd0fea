//! `#[derive(Entity)]` on structs of the tests' own, against the structs the
//! build script generates from the same spec: the same items, and each
//! one's items read back by the other through the generated repository.

use singletable_runtime::__private::ops::{self, TableInfo};
use singletable_runtime::{DateTime, Entity, ScopeOf};
use singletable_tests::generated::{contest_votes, support_ticket as generated};
use singletable_tests::server;

/// The spec's `Ticket`, with field names and extra fields of its own.
#[derive(Debug, Clone, PartialEq, Entity)]
#[singletable(
    spec = "../schemas/support_ticket.yaml",
    entity = "Ticket",
    tenancy = "generated::Tenancy"
)]
struct OwnTicket {
    id: String,
    title: String,
    status: generated::Status,
    resolver: Option<String>,
    #[singletable(rename = "created_at")]
    opened: DateTime,
    /// Not in the spec: read back as its default.
    #[singletable(skip)]
    views: u32,
}

/// The spec's `Comment`, its tenant rules left unnamed.
#[derive(Debug, Clone, PartialEq, Entity)]
#[singletable(spec = "../schemas/support_ticket.yaml")]
struct Comment {
    ticket_id: String,
    id: String,
    author: String,
    body: String,
    created_at: DateTime,
}

/// A randomly sharded entity of another spec.
#[derive(Debug, Clone, PartialEq, Entity)]
#[singletable(spec = "../schemas/contest_votes.yaml", entity = "VoteShard")]
struct Votes {
    shard: u32,
    contest_id: String,
    contestant_id: String,
    votes: i64,
}

fn tenant(id: &str) -> generated::TenantId {
    generated::TenantId::new(id).expect("a valid tenant id")
}

fn pair(id: &str, resolver: Option<&str>) -> (OwnTicket, generated::Ticket) {
    let own = OwnTicket {
        id: id.to_owned(),
        title: format!("ticket {id}"),
        status: generated::Status::Open,
        resolver: resolver.map(str::to_owned),
        opened: DateTime::from_secs(1_714_564_800),
        views: 7,
    };
    let made = generated::Ticket {
        id: own.id.clone(),
        title: own.title.clone(),
        status: own.status,
        resolver: own.resolver.clone(),
        created_at: own.opened,
    };
    (own, made)
}

#[test]
fn derived_and_generated_structs_write_identical_items() {
    let acme = tenant("acme");
    for resolver in [Some("bob"), None] {
        let (own, made) = pair("T1", resolver);
        assert_eq!(own.to_item(&acme).unwrap(), made.to_item(&acme).unwrap());
        assert_eq!(
            own.primary_key(&acme).unwrap(),
            made.primary_key(&acme).unwrap()
        );
        let back = OwnTicket::from_item(&made.to_item(&acme).unwrap()).unwrap();
        assert_eq!(back, OwnTicket { views: 0, ..own });
    }
    assert_eq!(OwnTicket::ENTITY_TYPE, generated::Ticket::ENTITY_TYPE);

    let scope = ScopeOf::<Comment>::new("acme").unwrap();
    let own = Comment {
        ticket_id: "T1".into(),
        id: "C1".into(),
        author: "alice".into(),
        body: "first".into(),
        created_at: DateTime::from_secs(1_714_564_801),
    };
    let made = generated::Comment {
        ticket_id: own.ticket_id.clone(),
        id: own.id.clone(),
        author: own.author.clone(),
        body: own.body.clone(),
        created_at: own.created_at,
    };
    assert_eq!(own.to_item(&scope).unwrap(), made.to_item(&acme).unwrap());

    let votes = Votes {
        shard: 3,
        contest_id: "c1".into(),
        contestant_id: "ada".into(),
        votes: 12,
    };
    let made = contest_votes::VoteShard {
        shard: 3,
        contest_id: "c1".into(),
        contestant_id: "ada".into(),
        votes: 12,
    };
    assert_eq!(votes.to_item(&()).unwrap(), made.to_item(&()).unwrap());
    assert_eq!(
        Votes::from_item(&made.to_item(&()).unwrap()).unwrap(),
        votes
    );
}

#[test]
fn a_shard_out_of_range_is_refused_like_the_generated_struct() {
    let votes = Votes {
        shard: 10_000,
        contest_id: "c1".into(),
        contestant_id: "ada".into(),
        votes: 1,
    };
    assert!(votes.to_item(&()).is_err());
}

#[tokio::test]
async fn both_round_trip_through_the_generated_repository() {
    let server = server::server().await;
    let repo = generated::Repository::new(server::client(&server.endpoint))
        .with_table_name(server::unique_table("DeriveTicket"));
    repo.create_table().await.expect("create the table");
    let acme = tenant("acme");
    let table = TableInfo {
        name: repo.table_name(),
        partition_key: "pk",
        ttl_attribute: None,
    };

    // Written from the derived struct, read by the generated repository.
    let (own, made) = pair("T1", Some("bob"));
    let item = own.to_item(&acme).unwrap();
    ops::put(
        repo.client(),
        &table,
        item,
        true,
        None,
        OwnTicket::ENTITY_TYPE,
    )
    .await
    .unwrap();
    let t = repo.for_tenant(&acme);
    let read = t
        .get_ticket(&generated::TicketKey { id: "T1".into() })
        .await
        .unwrap();
    assert_eq!(read, Some(made.clone()));
    // Its index keys too: the sparse GSI finds it.
    let open = t.open_tickets_for_resolver("bob").all().await.unwrap();
    assert_eq!(open, vec![made]);

    // Written by the generated repository, read as the derived struct.
    let (own2, made2) = pair("T2", None);
    t.put_ticket(&made2).await.unwrap();
    let key = own2.primary_key(&acme).unwrap();
    let read: Option<OwnTicket> = ops::get(repo.client(), &table, key, true).await.unwrap();
    assert_eq!(read, Some(OwnTicket { views: 0, ..own2 }));
    let read: Option<OwnTicket> =
        ops::get(repo.client(), &table, own.primary_key(&acme).unwrap(), true)
            .await
            .unwrap();
    assert_eq!(read, Some(OwnTicket { views: 0, ..own }));
}

/// Inline mode with an enum (its values listed on the field) and write
/// shards, random and by hash: keys and items as a spec with the same
/// declarations would write them.
mod inline_enums_and_shards {
    use singletable_runtime::__private::ops::{self, TableInfo};
    use singletable_runtime::{DateTime, Entity};
    use singletable_tests::generated::support_ticket::Status;
    use singletable_tests::server;

    #[derive(Debug, Clone, PartialEq, Entity)]
    #[singletable(
        table = "Events",
        pk = "EVENTS#<day>|S#<shard>",
        sk = "<at>#<id>",
        shards = 8
    )]
    pub struct Event {
        pub shard: u32,
        #[singletable(pattern = "^[0-9]{4}-[0-9]{2}-[0-9]{2}$")]
        pub day: String,
        pub at: DateTime,
        #[singletable(pattern = "^[a-z0-9]{1,16}$")]
        pub id: String,
        #[singletable(values("OPEN", "CLOSED"))]
        pub status: Status,
        #[singletable(values("OPEN", "CLOSED"))]
        pub previous: Option<Status>,
    }

    #[derive(Debug, Clone, PartialEq, Entity)]
    #[singletable(
        table = "Events",
        pk = "DEVICE#<device>|S#<shard>",
        sk = "DEVICE",
        shards = 4,
        shard_by = "hash(device)"
    )]
    pub struct Device {
        #[singletable(pattern = "^[a-z0-9]{1,16}$")]
        pub device: String,
        #[singletable(values("OPEN", "CLOSED"))]
        pub state: Status,
    }

    #[test]
    fn keys_carry_the_shard_and_enums_their_stored_values() {
        let event = Event {
            shard: 5,
            day: "2024-05-01".into(),
            at: DateTime::from_secs(1_714_564_800),
            id: "e1".into(),
            status: Status::Closed,
            previous: Some(Status::Open),
        };
        let item = event.to_item(&()).unwrap();
        let pk = item["pk"].as_s().unwrap();
        assert_eq!(pk, "EVENTS#2024-05-01|S#5");
        assert_eq!(item["status"].as_s().unwrap(), "CLOSED");
        assert_eq!(item["previous"].as_s().unwrap(), "OPEN");
        assert_eq!(Event::from_item(&item).unwrap(), event);
        // A shard outside 0..8 and a value not declared are refused.
        assert!(Event {
            shard: 8,
            ..event.clone()
        }
        .to_item(&())
        .is_err());
        let mut wrong = item.clone();
        wrong.insert(
            "status".into(),
            singletable_runtime::sdk::types::AttributeValue::S("LOST".into()),
        );
        // A value this build does not know reads as `UnknownValue`, and
        // is refused when written back.
        let unknown = Event::from_item(&wrong).expect("an unknown value reads");
        assert_eq!(unknown.status, Status::UnknownValue);
        assert!(unknown.to_item(&()).is_err());

        // By hash: the same device always lands in the same one of 4 shards,
        // and the devices spread over all of them.
        let shard = |device: &str| {
            let item = Device {
                device: device.into(),
                state: Status::Open,
            }
            .to_item(&())
            .unwrap();
            item["pk"]
                .as_s()
                .unwrap()
                .rsplit_once("|S#")
                .unwrap()
                .1
                .to_owned()
        };
        assert_eq!(shard("d1"), shard("d1"));
        let shards: std::collections::BTreeSet<String> =
            (0..64).map(|i| shard(&format!("d{i}"))).collect();
        assert_eq!(shards.len(), 4, "{shards:?}");
    }

    #[tokio::test]
    async fn written_and_read_back_on_a_server() {
        let server = server::server().await;
        let client = server::client(&server.endpoint);
        let name = server::unique_table("InlineEvents");
        client
            .create_table()
            .table_name(&name)
            .billing_mode(singletable_runtime::sdk::types::BillingMode::PayPerRequest)
            .attribute_definitions(
                singletable_runtime::sdk::types::AttributeDefinition::builder()
                    .attribute_name("pk")
                    .attribute_type(singletable_runtime::sdk::types::ScalarAttributeType::S)
                    .build()
                    .unwrap(),
            )
            .attribute_definitions(
                singletable_runtime::sdk::types::AttributeDefinition::builder()
                    .attribute_name("sk")
                    .attribute_type(singletable_runtime::sdk::types::ScalarAttributeType::S)
                    .build()
                    .unwrap(),
            )
            .key_schema(
                singletable_runtime::sdk::types::KeySchemaElement::builder()
                    .attribute_name("pk")
                    .key_type(singletable_runtime::sdk::types::KeyType::Hash)
                    .build()
                    .unwrap(),
            )
            .key_schema(
                singletable_runtime::sdk::types::KeySchemaElement::builder()
                    .attribute_name("sk")
                    .key_type(singletable_runtime::sdk::types::KeyType::Range)
                    .build()
                    .unwrap(),
            )
            .send()
            .await
            .unwrap();
        let table = TableInfo {
            name: &name,
            partition_key: "pk",
            ttl_attribute: None,
        };
        let device = Device {
            device: "d7".into(),
            state: Status::Closed,
        };
        let key = device.primary_key(&()).unwrap();
        let item = device.to_item(&()).unwrap();
        ops::put(&client, &table, item, true, None, Device::ENTITY_TYPE)
            .await
            .unwrap();
        let read: Option<Device> = ops::get(&client, &table, key, true).await.unwrap();
        assert_eq!(read, Some(device));
    }
}
