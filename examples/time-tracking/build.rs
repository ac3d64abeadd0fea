//! Generates the time-tracking repository, with serde on its types.

fn main() -> Result<(), singletable::Report> {
    singletable::Compiler::new()
        .serde(true)
        .compile_to_out_dir(["time_tracking.yaml"])?;
    Ok(())
}
