//! Checks the support-ticket design on every build: a spec error fails the
//! build with each diagnostic whole (`path:line:col: error[code]: message`,
//! the spec's lines, the help).

use std::path::PathBuf;

fn main() -> Result<(), singletable::Report> {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let spec = manifest.join("../../schemas/support_ticket.yaml");
    println!("cargo:rerun-if-changed={}", spec.display());
    let specs = singletable::Compiler::new()
        .file(&spec)
        .compile()
        .into_result()?;
    // The access patterns the program may rely on, one per line.
    let spec = &specs[0].spec;
    let mut listing = format!("{}\n", spec.table.name);
    for (name, pattern) in &spec.access_patterns {
        let description = pattern.description.as_deref().unwrap_or("");
        listing.push_str(&format!("{name}\t{description}\n"));
    }
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo"));
    std::fs::write(out.join("access_patterns.tsv"), listing).expect("write OUT_DIR");
    Ok(())
}
