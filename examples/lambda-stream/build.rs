//! Generates the support-ticket repository from its spec.

fn main() -> Result<(), singletable::Report> {
    singletable::Compiler::new().compile_to_out_dir(["../../schemas/support_ticket.yaml"])?;
    Ok(())
}
