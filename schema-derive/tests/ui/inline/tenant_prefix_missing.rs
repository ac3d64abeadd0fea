#![allow(unused_imports, dead_code)]
use singletable_runtime::{DateTime, Entity};
#[path = "../status.rs"]
mod status;
use status::Status;

#[derive(Entity)]
#[singletable(table = "Notes", tenant = "tenant", pk = "NOTE#<id>|TENANT#<tenant>", sk = "NOTE")]
struct Note {
    #[singletable(pattern = "^[a-z0-9]{1,16}$")]
    id: String,
}
fn main() {}
