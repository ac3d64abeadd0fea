//! Names in the generated code: every spec name must become its own Rust name.

use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::ir;
use crate::names::NameTable;

/// Why: two spec names that map to one Rust name make generated code that does not compile.
pub fn check_generated_names(spec: &ir::Spec, diags: &mut Diagnostics) {
    // Two attributes that clash as fields also clash as setters and field
    // constants: one finding per pair of spec names.
    let mut reported: Vec<(crate::source::Span, crate::source::Span)> = Vec::new();
    for (first, second) in NameTable::new(spec).clashes() {
        let pair = (first.span, second.span);
        if !first.builtin && reported.contains(&pair) {
            continue;
        }
        reported.push(pair);
        let mut d = Diagnostic::new(
            Code::GeneratedNameClash,
            format!(
                "`{}` would name both {} and {}",
                second.name, first.origin, second.origin
            ),
        );
        if first.builtin {
            d = d
                .label(second.span, format!("becomes `{}`", second.name))
                .help(if second.attribute {
                    "rename it: the generated code already uses this name (`stored_as` keeps the name the table stores)"
                } else {
                    "rename it: the generated code already uses this name"
                });
        } else {
            d = d
                .label(second.span, format!("becomes `{}`", second.name))
                .label(first.span, format!("also becomes `{}`", first.name))
                .help("rename one of them");
        }
        diags.push(d);
    }
}

#[cfg(test)]
mod tests {
    use crate::diagnostics::Code;
    use crate::Compiler;

    /// The messages of the name clashes found in `entities` (+ `patterns`).
    fn clashes(entities: &str, patterns: &str) -> Vec<String> {
        let yaml = format!(
            "version: 1\ntable: {{ name: Things, partition_key: pk, sort_key: sk }}\nentities:\n{entities}access_patterns:\n{patterns}"
        );
        Compiler::new()
            .source("spec.yaml", yaml)
            .compile()
            .diagnostics
            .iter()
            .filter(|d| d.code == Code::GeneratedNameClash)
            .map(|d| d.message.clone())
            .collect()
    }

    const THING: &str = "  Thing:\n    attributes:\n      id: { type: string, pattern: \"^[a-z]{1,9}$\" }\n      FIELDS\n    key: { pk: \"THING#<id>\", sk: THING }\n";

    fn thing(fields: &str) -> String {
        THING.replace("FIELDS", fields)
    }

    const GET: &str = "  thing:\n    get: Thing\n";

    #[test]
    fn distinct_names_pass() {
        assert_eq!(clashes(&thing("name: string"), GET), Vec::<String>::new());
    }

    #[test]
    fn fields_that_snake_case_alike_clash() {
        let found = clashes(&thing("ownerId: string\n      owner_id: string"), GET);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("`owner_id`"), "{found:?}");
    }

    #[test]
    fn enum_values_that_become_one_variant_clash() {
        let found = clashes(
            &thing("state: { type: enum, values: [in-progress, IN_PROGRESS] }"),
            GET,
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("`InProgress`"), "{found:?}");
    }

    #[test]
    fn names_the_generated_code_owns_clash() {
        let entity = thing("name: string").replace("Thing", "Repository");
        let found = clashes(&entity, "  repository:\n    get: Repository\n");
        assert!(
            found.iter().any(|m| m.contains("`Repository`")),
            "{found:?}"
        );
        let found = clashes(&thing("name: string"), "  client:\n    get: Thing\n");
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("`client`"), "{found:?}");
    }

    #[test]
    fn builders_clash_with_entities() {
        let two = format!(
            "{}{}",
            thing("name: string"),
            thing("name: string")
                .replace("Thing", "SaveTransaction")
                .replace("THING", "SAVE")
        );
        let found = clashes(&two, &format!("{GET}  save:\n    transaction: {{ put: Thing }}\n  saves:\n    get: SaveTransaction\n"));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("`SaveTransaction`"), "{found:?}");
    }
}
