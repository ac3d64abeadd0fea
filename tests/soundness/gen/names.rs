//! Names from the emitter's own vocabulary, for entities, patterns and attributes.

use super::*;

/// Names of generated code's locals, which a spec's names meet in the
/// bodies of generated functions.
const LOCALS: &[&str] = &[
    "item",
    "key",
    "update",
    "scope",
    "value",
    "values",
    "n",
    "index",
    "repo",
    "info",
    "request",
    "changes",
    "created",
    "now",
    "w",
    "r",
    "entity",
    "condition",
    "e",
    "v",
    "map",
    "context",
    "name",
    "s",
    "f",
    "av",
    "other",
    "label",
    "token",
    "error",
    "items",
    "keys",
    "labels",
    "page",
    "query",
    "client",
    "table",
    "options",
    "table_info",
    "decode",
    "partitions",
];

/// Renames some entities and access patterns after `vocabulary`, locals
/// and names the emitter derives from other names of the spec (`E0Key`,
/// `get_e0`, `add_to_note`, `set_info_label`, `with_timestamps`), and gives some entities
/// optional attributes so named: a name that meets a generated one must be
/// refused by `check` or compile. Drawn apart from the main sequence, so
/// that the rest of each seed's spec stays what it was.
pub(super) fn name_from_vocabulary(spec: &mut Spec, vocabulary: &[&str]) {
    let mut rng = fastrand::Rng::with_seed(spec.seed ^ 0x0ca6_0b1a);
    let words: Vec<&str> = vocabulary.iter().chain(LOCALS).copied().collect();
    let identifier = |w: &str| {
        w.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !w.starts_with("__")
    };
    // Entities: a word in PascalCase, or another entity's generated type.
    let originals: Vec<String> = spec.entities.iter().map(|e| e.name.clone()).collect();
    for i in 0..spec.entities.len() {
        if rng.u8(..4) != 0 {
            continue;
        }
        let name = match rng.u8(..3) {
            0 => format!(
                "{}{}",
                originals[rng.usize(..originals.len())],
                ["Key", "Update", "Item", "Batch"][rng.usize(..4)]
            ),
            _ => pascal(words[rng.usize(..words.len())]),
        };
        if identifier(&name) && !spec.entities.iter().any(|e| e.name == name) {
            spec.entities[i].name = name;
        }
    }
    // Access patterns: a lowercase word, or an entity operation's name.
    let lowercase: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| w.chars().next().is_some_and(|c| c.is_ascii_lowercase()) && identifier(w))
        .collect();
    for i in 0..spec.patterns.len() {
        if rng.u8(..4) != 0 {
            continue;
        }
        let entity = spec.entities[rng.usize(..spec.entities.len())]
            .name
            .to_lowercase();
        let name = match rng.u8(..3) {
            0 => format!(
                "{}_{entity}{}",
                ["get", "put", "update", "delete", "create", "replace"][rng.usize(..6)],
                ["", "_when", "_item"][rng.usize(..3)]
            ),
            _ => lowercase[rng.usize(..lowercase.len())].to_owned(),
        };
        let taken = spec.patterns.iter().any(|p| p.name == name)
            || spec.scans.iter().any(|s| s.name == name)
            || spec
                .entities
                .iter()
                .any(|e| format!("get_{}", e.name.to_lowercase()) == name);
        if !taken {
            spec.patterns[i].name = name;
        }
    }
    // Attributes: optional strings named like generated members.
    for e in &mut spec.entities {
        if rng.u8(..3) != 0 {
            continue;
        }
        for _ in 0..1 + rng.usize(..2) {
            let name = match rng.u8(..5) {
                0 => {
                    let other = &e.attrs[rng.usize(..e.attrs.len())].name;
                    ["add_", "add_to_", "append_to_", "set_info_"][rng.usize(..4)].to_owned()
                        + other
                }
                // An optional attribute's `with_…` method meets the entity's
                // own `with_timestamps`, or `with_key` meets `key`'s.
                1 => ["timestamps", "key", "new"][rng.usize(..3)].to_owned(),
                _ => words[rng.usize(..words.len())].to_owned(),
            };
            if identifier(&name) && !e.attrs.iter().any(|a| a.name == name) {
                e.attrs.push(Attr {
                    name,
                    ty: Ty::Str {
                        chars: "a-z",
                        max: 3,
                    },
                    optional: true,
                });
            }
        }
    }
}

/// The Rust names the generated module gives a spec's items, as the
/// compiler's name table decides them (filled in by the build script), so
/// that the driver calls what the module defines.
#[derive(Debug, Default)]
pub struct Names {
    /// Per entity: its struct, key type and update type.
    pub types: std::collections::BTreeMap<String, [String; 3]>,
    /// Per `(entity, attribute)`: the field (also the update's setter).
    pub fields: std::collections::BTreeMap<(String, String), String>,
    /// Per `(entity, attribute)`: the field constant.
    pub consts: std::collections::BTreeMap<(String, String), String>,
    /// Per `(entity, verb)`: the repository method.
    pub ops: std::collections::BTreeMap<(String, String), String>,
    /// Per access pattern: its method.
    pub methods: std::collections::BTreeMap<String, String>,
    /// Per access pattern returning several entities: its item enum.
    pub item_enums: std::collections::BTreeMap<String, String>,
}

impl Names {
    fn get<'a, K: Ord + std::fmt::Debug>(
        map: &'a std::collections::BTreeMap<K, String>,
        key: &K,
    ) -> &'a str {
        map.get(key)
            .unwrap_or_else(|| panic!("no generated name for {key:?}"))
    }
    pub(super) fn ty(&self, entity: &str) -> &str {
        &self.types[entity][0]
    }
    pub(super) fn key(&self, entity: &str) -> &str {
        &self.types[entity][1]
    }
    pub(super) fn update(&self, entity: &str) -> &str {
        &self.types[entity][2]
    }
    pub(super) fn field(&self, entity: &str, attribute: &str) -> &str {
        Self::get(&self.fields, &(entity.to_owned(), attribute.to_owned()))
    }
    pub(super) fn field_const(&self, entity: &str, attribute: &str) -> &str {
        Self::get(&self.consts, &(entity.to_owned(), attribute.to_owned()))
    }
    pub(super) fn op(&self, entity: &str, verb: &str) -> &str {
        Self::get(&self.ops, &(entity.to_owned(), verb.to_owned()))
    }
    pub(super) fn method(&self, pattern: &str) -> &str {
        Self::get(&self.methods, &pattern.to_owned())
    }
    pub(super) fn item_enum(&self, pattern: &str) -> &str {
        Self::get(&self.item_enums, &pattern.to_owned())
    }
}
