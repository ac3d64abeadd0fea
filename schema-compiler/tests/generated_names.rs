//! A spec that `check` accepts generates a module whose names are all
//! distinct: every item at the module's top level, and every inherent
//! method of each type. Read off the generated syntax tree, independently
//! of the name table the checker keeps, so a generated name the table
//! does not know about fails here.

mod support;

use std::collections::BTreeMap;

use singletable::Compiler;

/// Names defined twice in one namespace of `module`, as `namespace: name`.
pub fn duplicates(module: &str) -> Vec<String> {
    let file: syn::File = syn::parse_str(module).expect("generated Rust parses");
    let mut seen: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut note = |namespace: String, name: String| {
        *seen.entry((namespace, name)).or_default() += 1;
    };
    for item in &file.items {
        let top = match item {
            syn::Item::Const(i) => Some(i.ident.to_string()),
            syn::Item::Enum(i) => Some(i.ident.to_string()),
            syn::Item::Fn(i) => Some(i.sig.ident.to_string()),
            syn::Item::Mod(i) => Some(i.ident.to_string()),
            syn::Item::Static(i) => Some(i.ident.to_string()),
            syn::Item::Struct(i) => Some(i.ident.to_string()),
            syn::Item::Trait(i) => Some(i.ident.to_string()),
            syn::Item::Type(i) => Some(i.ident.to_string()),
            syn::Item::Union(i) => Some(i.ident.to_string()),
            syn::Item::Impl(i) if i.trait_.is_none() => {
                let ty = quote::ToTokens::to_token_stream(&i.self_ty).to_string();
                for member in &i.items {
                    let name = match member {
                        syn::ImplItem::Fn(f) => f.sig.ident.to_string(),
                        syn::ImplItem::Const(c) => c.ident.to_string(),
                        syn::ImplItem::Type(t) => t.ident.to_string(),
                        _ => continue,
                    };
                    note(format!("impl {ty}"), name);
                }
                None
            }
            _ => None,
        };
        if let Some(name) = top {
            note("module".to_owned(), name);
        }
    }
    seen.into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|((namespace, name), _)| format!("{namespace}: {name}"))
        .collect()
}

/// The generated module of a spec `check` accepts, or `None`.
pub fn generated(name: &str, text: &str) -> Option<String> {
    let mut compiler = Compiler::new();
    compiler.source(name, text);
    if compiler.compile().has_errors() {
        return None;
    }
    let files = compiler.generate_rust().expect("a clean spec generates");
    Some(files.into_iter().map(|f| f.contents).collect())
}

/// The generated module of every spec and passing fixture `check`
/// accepts, by path (at least the twelve example specs).
fn accepted_modules() -> Vec<(String, String)> {
    let modules: Vec<(String, String)> = support::spec_paths()
        .into_iter()
        .chain(support::fixture_paths("pass"))
        .filter_map(|path| {
            let name = path.display().to_string();
            let text = std::fs::read_to_string(&path).expect("read spec");
            generated(&name, &text).map(|module| (name, module))
        })
        .collect();
    assert!(
        modules.len() >= 12,
        "only {} specs generated",
        modules.len()
    );
    modules
}

#[test]
fn accepted_specs_generate_distinct_names() {
    for (path, module) in accepted_modules() {
        let found = duplicates(&module);
        assert!(found.is_empty(), "{path}: {found:?}");
    }
}

#[test]
fn the_duplicate_finder_finds_duplicates() {
    let found = duplicates("const A: u8 = 1; fn f() {} const A: u8 = 2; struct S; impl S { fn g() {} } impl S { fn g() {} }");
    assert_eq!(found, ["impl S: g", "module: A"]);
}

/// The `static` items of `module` whose type and value another static of
/// the module has too, as `name = first name`.
pub fn repeated_statics(module: &str) -> Vec<String> {
    let file: syn::File = syn::parse_str(module).expect("generated Rust parses");
    let mut first: BTreeMap<String, String> = BTreeMap::new();
    let mut repeated = Vec::new();
    for item in &file.items {
        if let syn::Item::Static(s) = item {
            let ty = quote::ToTokens::to_token_stream(&s.ty).to_string();
            let value = quote::ToTokens::to_token_stream(&s.expr).to_string();
            let name = s.ident.to_string();
            match first.get(&format!("{ty} = {value}")) {
                Some(earlier) => repeated.push(format!("{name} = {earlier}")),
                None => {
                    first.insert(format!("{ty} = {value}"), name);
                }
            }
        }
    }
    repeated
}

/// The top-level items of `module`, other than statics, that spell out a
/// value rule (`__rt::Store::…` other than `Plain`) instead of naming the
/// module's static of it.
pub fn inline_rules(module: &str) -> Vec<String> {
    let file: syn::File = syn::parse_str(module).expect("generated Rust parses");
    file.items
        .iter()
        .filter(|item| !matches!(item, syn::Item::Static(_)))
        .map(|item| quote::ToTokens::to_token_stream(item).to_string())
        .filter(|text| {
            text.match_indices("__rt :: Store :: ")
                .any(|(at, m)| !text[at + m.len()..].starts_with("Plain"))
        })
        .map(|text| text.chars().take(80).collect())
        .collect()
}

#[test]
fn accepted_specs_write_each_value_rule_once() {
    for (path, module) in accepted_modules() {
        let repeated = repeated_statics(&module);
        assert!(repeated.is_empty(), "{path}: {repeated:?}");
        let inline = inline_rules(&module);
        assert!(inline.is_empty(), "{path}: {inline:?}");
    }
}

#[test]
fn the_rule_finders_find_repeats_and_inline_rules() {
    let module = "static A: __rt::Store = __rt::Store::Length(0, Some(9)); \
                  static B: __rt::Store = __rt::Store::Length(0, Some(9)); \
                  static C: __rt::Store = __rt::Store::Length(1, Some(9)); \
                  impl E { fn f() { w.put(\"a\", &a, __rt::Store::Plain); w.put(\"b\", &b, A); } } \
                  impl F { fn g() { w.put(\"c\", &c, __rt::Store::Integer { min: 0, max: 1 }); } }";
    assert_eq!(repeated_statics(module), ["B = A"]);
    let inline = inline_rules(module);
    assert_eq!(inline.len(), 1);
    assert!(inline[0].starts_with("impl F"), "{inline:?}");
}
