//! `#[derive(Entity)]` on structs of the tests' own, against the structs the
//! build script generates from the same spec: the same items, and each
//! one's items read back by the other through the generated repository.

use singletable_runtime::ops::{self, TableInfo};
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
