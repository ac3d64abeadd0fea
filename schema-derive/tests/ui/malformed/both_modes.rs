#![allow(unused_imports, dead_code)]
use singletable_runtime::{DateTime, Entity};
#[path = "../status.rs"]
mod status;
use status::Status;

#[derive(Entity)]
#[singletable(spec = "tests/ui/specs/ticket.yaml", table = "Tickets", pk = "TICKET#<id>")]
struct Ticket {
    id: String,
}
fn main() {}
