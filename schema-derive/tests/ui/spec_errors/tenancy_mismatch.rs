#![allow(unused_imports, dead_code)]
use singletable_runtime::{DateTime, Entity};
#[path = "../status.rs"]
mod status;
use status::Status;

enum Wide {}
impl singletable_runtime::TenantRules for Wide {
    const MIN_LENGTH: usize = 1;
    const MAX_LENGTH: usize = 64;
    const ALPHABET: &'static [(char, char)] = &[('a', 'z')];
}

#[derive(Entity)]
#[singletable(spec = "tests/ui/specs/ticket.yaml", tenancy = "Wide")]
struct Ticket {
    id: String,
    title: String,
    status: Status,
    resolver: Option<String>,
    created_at: DateTime,
}
fn main() {}
