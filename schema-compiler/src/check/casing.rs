//! Key casing: an attribute whose values keys hold in one letter case.

use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::ir::{self, AttributeType, PlaceholderKind};
use singletable_codec::Case;

/// Why: a key in one case is not the value, so the attribute must be stored
/// as given beside it; and values that differ only in case share one key.
///
/// A cased attribute stored under a key attribute's name would be that key
/// itself (a natural key, written as given), so it is refused. One whose
/// values can differ only in case is warned about with a pair of values that
/// meet the attribute's rules and write the same key; an alphabet in one
/// case (`pattern: "^[a-z0-9-]+$"` with `case: lower`) has none.
pub fn check_key_case(spec: &ir::Spec, diags: &mut Diagnostics) {
    for entity in spec.entities.values() {
        for attribute in entity.attributes.values() {
            let Some(case) = attribute.case else { continue };
            let name = attribute.name.as_str();
            if let Some(key) = spec
                .key_attributes()
                .find(|k| k.name.value == attribute.stored())
            {
                diags.push(
                    Diagnostic::new(
                        Code::InvalidAttribute,
                        format!(
                            "`{}.{name}` cannot have a key `case`: it is stored as the key attribute `{}` itself, as given",
                            entity.name, key.name
                        ),
                    )
                    .label(attribute.name.span, "this attribute")
                    .label(key.name.span, "the key attribute")
                    .help(format!(
                        "store the attribute under a name of its own (not `{}`), so that the key is written from its template in {} case, or remove `case`",
                        key.name,
                        case.codec().name()
                    )),
                );
                continue;
            }
            let holds = |t: &ir::KeyTemplate| {
                t.placeholders()
                    .any(|p| p.kind == PlaceholderKind::Attribute && p.name.value == name)
            };
            let in_primary_key = entity.primary_key.templates().any(holds);
            if !in_primary_key && !entity.templates().any(|(_, t)| holds(t)) {
                continue;
            }
            let effect = if in_primary_key {
                "their items are one item to the table (a create of the second fails, a get of either reads the first)"
            } else {
                "a query for one also reads the items of the other"
            };
            if let Some((a, b)) = folding_pair(attribute, case.codec()) {
                diags.push(
                    Diagnostic::new(
                        Code::KeyCaseFolds,
                        format!(
                            "`{}.{name}` is written into keys in {} case, so `{a}` and `{b}` write the same key",
                            entity.name,
                            case.codec().name()
                        ),
                    )
                    .label(attribute.name.span, "values that differ only in case share a key")
                    .help(format!(
                        "{effect}; give `{name}` a `pattern` in {} case if its values never differ only in case, or allow the lint",
                        case.codec().name()
                    )),
                );
            }
        }
    }
}

/// Two values of `attribute` that meet its rules, differ, and write the
/// same key in `case`.
fn folding_pair(attribute: &ir::Attribute, case: Case) -> Option<(String, String)> {
    let AttributeType::String {
        min_length,
        max_length,
        pattern,
        alphabet,
    } = &attribute.r#type
    else {
        return None;
    };
    let regex = match pattern {
        Some(p) => Some(regex::Regex::new(p).ok()?),
        None => None,
    };
    let fits = |v: &str| {
        let len = v.len() as u64;
        len >= min_length.unwrap_or(1).max(1)
            && max_length.is_none_or(|m| len <= m)
            && v.chars().all(|c| alphabet.contains(c))
            && regex.as_ref().is_none_or(|r| r.is_match(v))
    };
    let least = usize::try_from(min_length.unwrap_or(1).max(1)).unwrap_or(1);
    let hints = [
        "abc", "ABC", "Abc", "aBc", "jdoe", "JDoe", "a1", "A1", "x", "X",
    ];
    let candidates: Vec<String> = match pattern {
        Some(p) => hints
            .iter()
            .filter_map(|h| crate::emit::workbench::samples::from_pattern(p, h))
            .collect(),
        None => ["a", "A", "é", "É", "ß"]
            .iter()
            .map(|c| c.repeat(least))
            .collect(),
    };
    candidates.into_iter().filter(|v| fits(v)).find_map(|v| {
        let swapped: String = v
            .chars()
            .map(|c| {
                if c.is_lowercase() {
                    c.to_uppercase().next().unwrap_or(c)
                } else {
                    c.to_lowercase().next().unwrap_or(c)
                }
            })
            .collect();
        [v.to_uppercase(), v.to_lowercase(), swapped]
            .into_iter()
            .find(|w| *w != v && fits(w) && case.fold(w) == case.fold(&v))
            .map(|w| (v.clone(), w))
    })
}
