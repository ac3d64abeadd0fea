#![allow(unused_imports, dead_code)]
use singletable_runtime::Entity;

#[derive(Entity)]
#[singletable(table = "Events", pk = "EVENT#<id>", shard_by = "hash(id)")]
struct Event {
    #[singletable(pattern = "^[a-z0-9]{1,16}$")]
    id: String,
}

#[derive(Entity)]
#[singletable(table = "Events", pk = "EVENT#<id>|S#<shard>", shards = 4)]
struct NoShardField {
    #[singletable(pattern = "^[a-z0-9]{1,16}$")]
    id: String,
}
fn main() {}
