//! Generates the support-ticket repository, with serde on its entities.

fn main() {
    singletable::Compiler::new()
        .serde(true)
        .compile_to_out_dir(["../../schemas/support_ticket.yaml"])
        .unwrap();
}
