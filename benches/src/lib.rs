//! Benchmarks of singletable: what the generated code costs against what a
//! careful engineer writes by hand with `aws-sdk-dynamodb` alone (and
//! against `serde_dynamo`), how the compiler scales, and what the
//! generated repositories do against a real DynamoDB-compatible server.
//!
//! The comparisons in alternating rounds ([`rounds`]) live in `benches/`;
//! the measurements that are not micro-benchmarks (bulk loads, the peer
//! validator, build cost) are binaries in `src/bin/`. `scripts/bench` runs everything and writes
//! `BENCHMARKS.md` from the results.
//!
//! This library holds what the benchmarks share: the sample data, the
//! hand-written and `serde_dynamo` baselines (tested to produce exactly the
//! items the generated code produces, so the comparisons are like for like),
//! the synthetic-spec generator and the results files.

pub mod data;
pub mod handwritten;
pub mod report;
pub mod results;
pub mod rounds;
pub mod serde_model;
pub mod synth;

pub use singletable_tests::generated::support_ticket::{Comment, Ticket};

/// The YAML parsers the floor of the peer comparison times
/// (`src/bin/yaml-floor.rs`), by the names `yaml-floor` takes: the event
/// parser under serde-saphyr (the one `check` uses), then the fastest other
/// maintained one that reports positions.
pub const YAML_FLOOR_PARSERS: [&str; 2] = ["granit-parser", "yaml-rust2"];

/// The label of `parser`'s floor in the peer comparison's results.
pub fn yaml_floor_label(parser: &str) -> String {
    format!("yaml floor: {parser}")
}

/// Repositories generated from the benchmark-only specs in `specs/`.
pub mod generated {
    singletable_runtime::include_generated!(pub key_shapes);
}
