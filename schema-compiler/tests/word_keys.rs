//! Enum and boolean placeholders in keys are their words, not runs of their
//! letters: a ticket's `S#<status>` (`OPEN`, `CLOSED`) never writes the
//! summary's `S#CLOSE`, so `check` accepts the design in
//! `fixtures/pass/enum_words_beside_literals.yaml`; a real collision is still
//! found, with a witness of real words; and where the key's shape tells the
//! entity (`entity_type: keys`, whose reads match shapes of letters) the
//! same design is refused, saying why.

use singletable::diagnostics::{Code, Severity};
use singletable::Compiler;

const SPEC: &str = include_str!("../../fixtures/pass/enum_words_beside_literals.yaml");

fn errors(yaml: &str) -> Vec<(Code, String)> {
    Compiler::new()
        .source("spec.yaml", yaml.to_owned())
        .compile()
        .diagnostics
        .iter()
        .filter(|d| d.severity != Severity::Note)
        .map(|d| (d.code, d.message.clone()))
        .collect()
}

#[test]
fn words_beside_literals_of_their_letters_do_not_collide() {
    assert_eq!(errors(SPEC), []);
}

#[test]
fn a_real_collision_of_words_names_the_words() {
    let spec = SPEC.replace(r#"sk: "S#CLOSE""#, r#"sk: "S#CLOSED""#);
    let found = errors(&spec);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, Code::KeyCollision);
    assert!(found[0].1.contains("`sk` = `S#CLOSED`"), "{}", found[0].1);
}

#[test]
fn key_shapes_of_letters_cannot_tell_such_entities_apart() {
    let spec = SPEC.replace(
        "partition_key: pk, sort_key: sk }",
        "partition_key: pk, sort_key: sk, entity_type: keys }",
    );
    let found = errors(&spec);
    assert_eq!(found.len(), 2, "{found:?}");
    for (code, message) in &found {
        assert_eq!(*code, Code::KeyCollision);
        assert!(
            message.contains("cannot be told apart by the shapes"),
            "{message}"
        );
    }
}
