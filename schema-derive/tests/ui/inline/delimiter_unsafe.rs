#![allow(unused_imports, dead_code)]
use singletable_runtime::{DateTime, Entity};
#[path = "../status.rs"]
mod status;
use status::Status;

#[derive(Entity)]
#[singletable(table = "Notes", pk = "NOTE#<id>|X", sk = "NOTE#<author>#<at>")]
struct Note {
    id: String,
    author: String,
    at: DateTime,
}
fn main() {}
