//! What the compiler writes grows linearly with what a spec says: a key
//! template with four times the placeholders, an enum with four times the
//! values, lists nested four times as deep give at most about four times
//! the output (up to a constant: under six times). Sizes, not times, so the test is exact on any machine; a
//! quadratic step (each placeholder re-reading the key before it, as the
//! generated decoder once did: 274,000 lines for 500 placeholders) or an
//! exponential one (two sample elements per list level) fails it.

use singletable::Compiler;

fn spec(attributes: &str, sk: &str) -> String {
    format!(
        "version: 1\ntable: {{ name: Tbl, partition_key: pk, sort_key: sk }}\ntenant: {{ id_pattern: '^[a-z0-9]{{1,64}}$' }}\nentities:\n  Item:\n    attributes:\n      id: {{ type: string, pattern: '^[a-z]{{1,8}}$' }}\n{attributes}    key: {{ pk: 'TENANT#<tenant>|ITEM#<id>', sk: '{sk}' }}\naccess_patterns:\n  get_item:\n    get: Item\n"
    )
}

/// Placeholders `<a0>#<a1>#…` in the sort key, each one character.
fn placeholders(n: usize) -> String {
    let attributes: String = (0..n)
        .map(|i| format!("      a{i}: {{ type: string, pattern: '^[a-z]$' }}\n"))
        .collect();
    let sk: String = (0..n).map(|i| format!("<a{i}>#")).collect();
    spec(&attributes, &sk)
}

fn enum_values(n: usize) -> String {
    let values: Vec<String> = (0..n).map(|i| format!("V{i}")).collect();
    spec(
        &format!(
            "      e: {{ type: enum, values: [{}] }}\n",
            values.join(", ")
        ),
        "ITEM",
    )
}

fn nested_lists(depth: usize) -> String {
    let mut ty = "string".to_owned();
    for _ in 0..depth {
        ty = format!("{{ type: list, items: {ty} }}");
    }
    spec(&format!("      l: {ty}\n"), "ITEM")
}

fn bytes(text: &str, generate: fn(&Compiler) -> usize) -> usize {
    let mut compiler = Compiler::new();
    compiler.source("spec.yaml", text);
    let compilation = compiler.compile();
    assert!(
        !compilation.has_errors(),
        "{}",
        compilation.report().to_text()
    );
    generate(&compiler)
}

fn rust(compiler: &Compiler) -> usize {
    let files = compiler.generate_rust().expect("generates");
    files.iter().map(|f| f.contents.len()).sum()
}

/// Bytes other than white space: the model is indented JSON, whose
/// indentation alone grows with the square of the nesting.
fn workbench(compiler: &Compiler) -> usize {
    let files = compiler
        .generate_workbench(&Default::default())
        .expect("generates");
    files
        .iter()
        .map(|f| f.contents.chars().filter(|c| !c.is_whitespace()).count())
        .sum()
}

/// The growth from `small` to four times `small`, less what does not depend on it.
fn growth(make: fn(usize) -> String, small: usize, generate: fn(&Compiler) -> usize) -> f64 {
    let base = bytes(&make(1), generate);
    let a = bytes(&make(small), generate) - base;
    let b = bytes(&make(4 * small), generate) - base;
    b as f64 / a as f64
}

#[test]
fn generated_rust_is_linear_in_key_placeholders() {
    let g = growth(placeholders, 60, rust);
    assert!(g < 6.0, "4x the placeholders gave {g:.1}x the code");
}

#[test]
fn generated_rust_is_linear_in_enum_values() {
    let g = growth(enum_values, 500, rust);
    assert!(g < 6.0, "4x the enum values gave {g:.1}x the code");
}

#[test]
fn workbench_samples_are_linear_in_list_nesting() {
    let g = growth(nested_lists, 7, workbench);
    assert!(g < 6.0, "4x the nesting gave {g:.1}x the model");
}
