//! End to end against the embedded dynoxide server (or `DYNAMODB_ENDPOINT`):
//! the generated repository against hand-written `aws-sdk-dynamodb` calls
//! sending the same requests, and a scatter-gather query over 20 shards
//! (one whole key per shard: read with one BatchGetItem) against one
//! single-partition query returning as many items, on the
//! server itself and through a proxy that adds a fixed round trip to every
//! answer (the network a remote DynamoDB has and a local server does not).

use std::hint::black_box;
use std::time::{Duration, Instant};

use singletable_benches::rounds::{Comparison, Plan};
use singletable_benches::{data, handwritten};
use singletable_runtime::sdk::types::ReturnConsumedCapacity;
use singletable_tests::generated::{contest_votes, support_ticket};
use singletable_tests::server;
use tokio::runtime::Runtime;

/// The time the proxy adds to every answer for `scatter_gather_remote`.
const ROUND_TRIP: Duration = Duration::from_millis(5);

struct Setup {
    tickets: support_ticket::Repository,
    votes: contest_votes::Repository,
    /// The same table, through the round-trip proxy.
    votes_remote: contest_votes::Repository,
}

async fn setup() -> Setup {
    let endpoint = &server::server().await.endpoint;
    let client = server::client(endpoint);
    let proxy = singletable_tests::faults::start_with_latency(endpoint, ROUND_TRIP)
        .await
        .expect("start the round-trip proxy");
    let tickets = support_ticket::Repository::new(client.clone())
        .with_table_name(server::unique_table("BenchTickets"));
    // Without the spec's stream: dynoxide keeps every stream record, and
    // with thousands of writes a second its requests slow down as they pile
    // up, so whichever variant ran second was measured slower.
    let table = singletable_runtime::schema::TableDef {
        stream: None,
        ..support_ticket::TABLE
    };
    table
        .create(&client, tickets.table_name())
        .await
        .expect("create the ticket table");
    let votes =
        contest_votes::Repository::new(client).with_table_name(server::unique_table("BenchVotes"));
    let votes_remote = contest_votes::Repository::new(server::client(&proxy.endpoint))
        .with_table_name(votes.table_name());
    votes.create_table().await.expect("create the votes table");
    for shard in 0..20 {
        let vote = contest_votes::VoteShard {
            shard,
            contest_id: "final".into(),
            contestant_id: "ada".into(),
            votes: i64::from(shard) * 10,
        };
        votes.put_vote_shard(&vote).await.expect("put a vote shard");
        let contestant = contest_votes::Contestant {
            contest_id: "final".into(),
            contestant_id: format!("c{shard:02}"),
            name: format!("Contestant {shard}"),
        };
        votes
            .put_contestant(&contestant)
            .await
            .expect("put a contestant");
    }
    Setup {
        tickets,
        votes,
        votes_remote,
    }
}

/// One PutItem and one GetItem of a ticket, both ways.
struct PutGet<'a> {
    setup: &'a Setup,
    tenant: support_ticket::TenantId,
    ticket: support_ticket::Ticket,
}

impl PutGet<'_> {
    async fn generated(&self) {
        let t = self.setup.tickets.for_tenant(&self.tenant);
        t.put_ticket(&self.ticket).await.unwrap();
        black_box(t.get_ticket(&self.ticket.key()).await.unwrap().unwrap());
    }

    async fn handwritten(&self) {
        let (client, table) = (self.setup.tickets.client(), self.setup.tickets.table_name());
        let tenant = self.tenant.as_str();
        let item = handwritten::ticket_to_item(tenant, &self.ticket).unwrap();
        client
            .put_item()
            .table_name(table)
            .set_item(Some(item))
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await
            .unwrap();
        let out = client
            .get_item()
            .table_name(table)
            .set_key(Some(handwritten::ticket_key(tenant, &self.ticket.id)))
            .consistent_read(false)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await
            .unwrap();
        black_box(handwritten::ticket_from_item(&out.item.unwrap()).unwrap());
    }
}

/// `n` runs of `f` on the runtime, timed.
fn on<F: std::future::Future<Output = ()>>(
    rt: &Runtime,
    n: u64,
    mut f: impl FnMut() -> F,
) -> Duration {
    rt.block_on(async {
        let start = Instant::now();
        for _ in 0..n {
            f().await;
        }
        start.elapsed()
    })
}

fn main() -> std::io::Result<()> {
    let plan = Plan::new(9, Duration::from_millis(400));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a Tokio runtime");
    let s = rt.block_on(setup());
    let ops = &PutGet {
        setup: &s,
        tenant: data::tenant(),
        ticket: data::ticket(1),
    };
    rt.block_on(async {
        ops.generated().await;
        ops.handwritten().await;
    });
    // The server's share of each operation varies more than the client's
    // difference: more rounds for a stable median.
    let e2e_plan = Plan::new(21, Duration::from_millis(300));
    Comparison::new("e2e_put_get")
        .timed("handwritten", |n| on(&rt, n, || ops.handwritten()))
        .timed("generated", |n| on(&rt, n, || ops.generated()))
        .run(e2e_plan)?;
    for (name, votes) in [
        ("scatter_gather", &s.votes),
        ("scatter_gather_remote", &s.votes_remote),
    ] {
        rt.block_on(async {
            let shards = votes.vote_shards("final", "ada").all().await.unwrap();
            let single = votes.contestants("final").all().await.unwrap();
            assert_eq!(
                (shards.len(), single.len()),
                (20, 20),
                "both return 20 items"
            );
        });
        Comparison::new(name)
            .timed("single_partition", |n| {
                on(&rt, n, || async {
                    black_box(votes.contestants("final").all().await.unwrap());
                })
            })
            .timed("twenty_shards", |n| {
                on(&rt, n, || async {
                    black_box(votes.vote_shards("final", "ada").all().await.unwrap());
                })
            })
            .run(plan)?;
    }
    Ok(())
}
