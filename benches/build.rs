//! Compiles the benchmark-only specs in `specs/` (key shapes the shipped
//! specs do not have: offset integers, epoch timestamps, escaped strings).

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("specs");
    println!("cargo:rerun-if-changed={}", dir.display());
    singletable::Compiler::new()
        .compile_to_out_dir([dir.join("key_shapes.yaml")])
        .unwrap();
}
