#![allow(unused_imports, dead_code)]
use singletable_runtime::{DateTime, Entity};
#[path = "../status.rs"]
mod status;
use status::Status;

#[derive(Entity)]
#[singletable(spec = "tests/ui/specs/ticket.yaml")]
struct Ticket {
    id: String,
    title: i64,
    status: Status,
    resolver: Option<String>,
    created_at: DateTime,
}
fn main() {}
