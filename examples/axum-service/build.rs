//! Generates the support-ticket repository, with serde on its entities.

fn main() -> Result<(), singletable::Report> {
    singletable::Compiler::new()
        .serde(true)
        .compile_to_out_dir(["../../schemas/support_ticket.yaml"])?;
    Ok(())
}
