#![allow(unused_imports, dead_code)]
use singletable_runtime::{DateTime, Entity};
#[path = "../status.rs"]
mod status;
use status::Status;

#[derive(Entity)]
#[singletable(
    table = "Notes",
    pk = "NOTE#<id>",
    index(name = "GSI1", pk = "AUTHOR#<writer>", sk = "<id>")
)]
struct Note {
    #[singletable(pattern = "^[a-z0-9]{1,16}$")]
    id: String,
    #[singletable(pattern = "^[a-z0-9]{1,16}$")]
    author: String,
}
fn main() {}
