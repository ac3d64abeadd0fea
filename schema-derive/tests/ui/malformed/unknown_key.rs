#![allow(unused_imports, dead_code)]
use singletable_runtime::{DateTime, Entity};
#[path = "../status.rs"]
mod status;
use status::Status;

#[derive(Entity)]
#[singletable(spek = "tests/ui/specs/ticket.yaml")]
struct Ticket {
    id: String,
}
fn main() {}
