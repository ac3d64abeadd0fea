#![allow(unused_imports, dead_code)]
use singletable_runtime::{DateTime, Entity};
#[path = "../status.rs"]
mod status;
use status::Status;

#[derive(Entity)]
#[singletable(table = "Notes", sk = "NOTE")]
struct Note {
    id: String,
}
fn main() {}
