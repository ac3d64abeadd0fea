use super::{EntityOp, Item, NameTable, Scope};
use crate::Compiler;

/// The resolved spec of `yaml`, which must have no error.
fn spec(yaml: &str) -> crate::ir::Spec {
    let compilation = Compiler::new().source("spec.yaml", yaml).compile();
    assert!(!compilation.has_errors(), "{:?}", compilation.report());
    compilation.specs.into_iter().next().expect("one spec").spec
}

const SPEC: &str = r#"
version: 1
table: { name: Things, partition_key: pk, sort_key: sk }
lints: { global_entities: allow }
entities:
  Thing:
    scope: global
    attributes:
      id: { type: string, pattern: "^[a-z]{1,9}$" }
      options: string
      type: string
      count: integer
      tags: { type: set, items: string, optional: true }
    key: { pk: "THING#<id>", sk: THING }
access_patterns:
  table: { get: Thing }
  get_thing: { query: { pk: "THING#<id>" }, returns: Thing }
"#;

#[test]
fn private_members_never_meet_spec_names() {
    let spec = spec(SPEC);
    let table = NameTable::new(&spec);
    assert!(table.clashes().is_empty(), "{:?}", table.clashes());
    assert_eq!(table.name(Item::Setter("Thing", "options")), "options");
    assert_eq!(table.name(Item::Pattern("table")), "table");
}

#[test]
fn keywords_become_raw_identifiers() {
    let spec = spec(SPEC);
    let table = NameTable::new(&spec);
    assert_eq!(table.name(Item::Field("Thing", "type")), "type");
    assert_eq!(
        table.ident(Item::Field("Thing", "type")).to_string(),
        "r#type"
    );
}

#[test]
fn an_entity_operation_named_like_a_pattern_moves_aside() {
    let spec = spec(SPEC);
    let table = NameTable::new(&spec);
    assert_eq!(
        table.name(Item::EntityOp("Thing", EntityOp::Get)),
        "get_thing_item"
    );
    assert_eq!(
        table.name(Item::EntityOp("Thing", EntityOp::PutWhen)),
        "put_thing_when"
    );
}

#[test]
fn element_changes_are_claimed_in_the_update_scope() {
    let spec = spec(SPEC);
    let table = NameTable::new(&spec);
    let count = &spec.entities["Thing"].attributes["count"];
    let change = spec.entities["Thing"]
        .element_changes()
        .into_iter()
        .find(|(a, _)| a.name == count.name)
        .map(|(_, kind)| kind)
        .expect("a counter");
    assert_eq!(
        table.name(Item::Change("Thing", "count", change)),
        "add_count"
    );
}

#[test]
fn a_later_claim_is_a_clash_and_still_gets_a_name_of_its_own() {
    let spec = spec(SPEC);
    let mut table = NameTable::new(&spec);
    let scope = Scope::Fields("Thing");
    table.claim(scope, Item::Field("Thing", "id"), "x".into());
    table.claim(scope, Item::ShardField("Thing"), "options".into());
    assert_eq!(table.name(Item::ShardField("Thing")), "options2");
    let clashes = table.clashes();
    let (first, later) = clashes.last().expect("a clash");
    assert_eq!(
        (first.name.as_str(), later.name.as_str()),
        ("options", "options")
    );
    assert!(later.origin.contains("shard"), "{}", later.origin);
}
