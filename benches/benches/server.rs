//! End to end against the embedded dynoxide server (or `DYNAMODB_ENDPOINT`):
//! the generated repository against hand-written `aws-sdk-dynamodb` calls
//! sending the same requests, and a scatter-gather query over 20 shards
//! against one single-partition query returning as many items, on the
//! server itself and through a proxy that adds a fixed round trip to every
//! answer (the network a remote DynamoDB has and a local server does not).

#![allow(
    missing_docs,
    reason = "criterion's macros generate undocumented public functions"
)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use singletable_benches::{data, handwritten};
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
    // up, so whichever variant criterion ran second was measured slower.
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
            .send()
            .await
            .unwrap();
        let out = client
            .get_item()
            .table_name(table)
            .set_key(Some(handwritten::ticket_key(tenant, &self.ticket.id)))
            .consistent_read(false)
            .send()
            .await
            .unwrap();
        black_box(handwritten::ticket_from_item(&out.item.unwrap()).unwrap());
    }

    /// Runs both `iters` times, alternating, and returns the time of one
    /// of them: the server's state (its stream of changes grows with every
    /// write) then drifts alike under both, whichever criterion runs first.
    async fn alternate(&self, iters: u64, time_generated: bool) -> Duration {
        let mut timed = Duration::ZERO;
        for _ in 0..iters {
            let start = Instant::now();
            if time_generated {
                self.generated().await;
            } else {
                self.handwritten().await;
            }
            timed += start.elapsed();
            if time_generated {
                self.handwritten().await;
            } else {
                self.generated().await;
            }
        }
        timed
    }
}

fn put_get(c: &mut Criterion, rt: &Runtime, s: &Setup) {
    let ops = &PutGet {
        setup: s,
        tenant: data::tenant(),
        ticket: data::ticket(1),
    };
    let mut group = c.benchmark_group("e2e_put_get");
    group.bench_function("generated", |b| {
        b.to_async(rt)
            .iter_custom(|iters| ops.alternate(iters, true))
    });
    group.bench_function("handwritten", |b| {
        b.to_async(rt)
            .iter_custom(|iters| ops.alternate(iters, false))
    });
    group.finish();
}

/// The 20-shard query against the single-partition one on `votes`, in
/// criterion group `group`.
fn scatter_gather(c: &mut Criterion, rt: &Runtime, votes: &contest_votes::Repository, group: &str) {
    rt.block_on(async {
        let shards = votes.vote_shards("final", "ada").all().await.unwrap();
        let single = votes.contestants("final").all().await.unwrap();
        assert_eq!(
            (shards.len(), single.len()),
            (20, 20),
            "both return 20 items"
        );
    });
    let mut group = c.benchmark_group(group);
    group.bench_function("single_partition", |b| {
        b.to_async(rt)
            .iter(|| async { black_box(votes.contestants("final").all().await.unwrap()) })
    });
    group.bench_function("twenty_shards", |b| {
        b.to_async(rt)
            .iter(|| async { black_box(votes.vote_shards("final", "ada").all().await.unwrap()) })
    });
    group.bench_function("twenty_shards_sequential", |b| {
        b.to_async(rt).iter(|| async {
            let query = votes.vote_shards("final", "ada").concurrency(1);
            black_box(query.all().await.unwrap())
        })
    });
    group.finish();
}

fn server_benches(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a Tokio runtime");
    let s = rt.block_on(setup());
    put_get(c, &rt, &s);
    scatter_gather(c, &rt, &s.votes, "scatter_gather");
    scatter_gather(c, &rt, &s.votes_remote, "scatter_gather_remote");
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .sample_size(20)
        .without_plots()
}

criterion_group! {
    name = server_group;
    config = config();
    targets = server_benches
}
criterion_main!(server_group);
