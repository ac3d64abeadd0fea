#![allow(unused_imports, dead_code)]
use singletable_runtime::{DateTime, Entity};
#[path = "../status.rs"]
mod status;
use status::Status;

#[derive(Entity)]
#[singletable(spec = "tests/ui/specs/broken.yaml", entity = "Ticket")]
struct Ticket {
    id: String,
}
fn main() {}
