//! Generates the support-ticket repository from its spec.

fn main() {
    singletable::Compiler::new()
        .compile_to_out_dir(["../../schemas/support_ticket.yaml"])
        .unwrap();
}
