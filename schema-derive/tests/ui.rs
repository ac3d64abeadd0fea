//! Compile errors of `#[derive(Entity)]`, one case per file, by category.

#[test]
fn compile_errors() {
    // trybuild builds the cases out of tree; their `spec = "…"` paths are
    // relative to this crate.
    std::env::set_var("SINGLETABLE_MANIFEST_DIR", env!("CARGO_MANIFEST_DIR"));
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*/*.rs");
}
