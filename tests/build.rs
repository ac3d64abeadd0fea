//! Compiles every spec in `schemas/` into a repository module.

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut specs: Vec<_> = std::fs::read_dir(&dir)
        .expect("schemas/ exists in the workspace")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    specs.sort();
    schema_compiler::Compiler::new()
        .compile_to_out_dir(&specs)
        .unwrap();
}
