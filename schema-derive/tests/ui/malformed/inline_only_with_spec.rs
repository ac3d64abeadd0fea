#![allow(unused_imports, dead_code)]
use singletable_runtime::{DateTime, Entity};
#[path = "../status.rs"]
mod status;
use status::Status;

// Sharding and enum values belong to inline mode: with a spec they are
// the spec's, and giving them here is an error, not ignored.
#[derive(Entity)]
#[singletable(spec = "tests/ui/specs/ticket.yaml", shards = 4, shard_by = "random")]
struct Ticket {
    id: String,
    title: String,
    #[singletable(values("OPEN", "CLOSED"))]
    status: Status,
    resolver: Option<String>,
    created_at: DateTime,
}
fn main() {}
