//! Generates the repositories of a few specs for the decoder target.
fn main() {
    let specs = [
        "../schemas/support_ticket.yaml",
        "../schemas/pooled_product_catalog.yaml",
        "../schemas/photo_site.yaml",
        "../schemas/monthly_activity.yaml",
        "../schemas/vertical_partitioning.yaml",
        "../schemas/contest_votes.yaml",
    ];
    if let Err(report) = singletable::Compiler::new().compile_to_out_dir(specs) {
        panic!("{report:?}");
    }
}
