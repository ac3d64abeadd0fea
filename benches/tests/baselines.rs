//! The baselines do exactly the work the generated code does: the same
//! items, the same keys, the same values back. And the synthetic specs are
//! valid designs, so the compiler benchmark times a full check.

use singletable_benches::{data, handwritten, serde_model, synth};
use singletable_runtime::Entity;

#[test]
fn hand_written_and_serde_dynamo_tickets_are_the_generated_items() {
    let tenant = data::tenant();
    for n in 0..20 {
        let ticket = data::ticket(n);
        let generated = ticket.to_item(&tenant).unwrap();
        assert_eq!(
            handwritten::ticket_to_item(tenant.as_str(), &ticket).unwrap(),
            generated
        );
        assert_eq!(
            serde_model::ticket_to_item(tenant.as_str(), &ticket).unwrap(),
            generated
        );
        assert_eq!(handwritten::ticket_from_item(&generated).unwrap(), ticket);
        assert_eq!(
            serde_model::ticket_from_item(generated.clone()).unwrap(),
            ticket
        );
        assert_eq!(Entity::from_item(&generated).ok(), Some(ticket));
    }
}

#[test]
fn hand_written_and_serde_dynamo_comments_are_the_generated_items() {
    let tenant = data::tenant();
    for n in 0..20 {
        let comment = data::comment(n, n * 3);
        let generated = comment.to_item(&tenant).unwrap();
        assert_eq!(
            handwritten::comment_to_item(tenant.as_str(), &comment).unwrap(),
            generated
        );
        assert_eq!(
            serde_model::comment_to_item(tenant.as_str(), &comment).unwrap(),
            generated
        );
        assert_eq!(handwritten::comment_from_item(&generated).unwrap(), comment);
        assert_eq!(
            serde_model::comment_from_item(generated.clone()).unwrap(),
            comment
        );
    }
}

#[test]
fn format_keys_are_the_generated_keys() {
    let tenant = data::tenant();
    for n in 0..200 {
        let reading = data::reading(n);
        let generated = reading.key().to_key_item(&()).unwrap();
        assert_eq!(handwritten::reading_key(&reading).unwrap(), generated);
        let ticket = data::ticket(n);
        let key = ticket.key().to_key_item(&tenant).unwrap();
        assert_eq!(handwritten::ticket_key(tenant.as_str(), &ticket.id), key);
        let c = data::comment(n, n);
        let key = c.key().to_key_item(&tenant).unwrap();
        let hand = handwritten::comment_key(tenant.as_str(), &c.ticket_id, &c.created_at, &c.id);
        assert_eq!(hand.unwrap(), key);
    }
}

#[test]
fn synthetic_specs_check_clean_and_keep_their_proportions() {
    for n in [10, 200] {
        let compilation = singletable::Compiler::new()
            .source(format!("synthetic_{n}.yaml"), synth::spec_yaml(n))
            .compile();
        assert!(!compilation.has_errors(), "{:?}", compilation.report());
        let [spec] = compilation.specs.as_slice() else {
            panic!("one spec")
        };
        let json = serde_json::to_value(&spec.spec).unwrap();
        let text = json.to_string();
        assert!(text.contains("E0009"), "entity 9 is in the model");
        let peer = synth::peer_schema(n);
        let entities = peer["tables"][0]["entities"].as_object().unwrap();
        assert_eq!(entities.len(), n);
        let patterns: usize = entities
            .values()
            .map(|e| e["access_patterns"].as_array().unwrap().len())
            .sum();
        assert_eq!(patterns, n * synth::PATTERNS_PER_ENTITY);
    }
}
