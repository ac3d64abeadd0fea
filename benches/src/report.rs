//! Reading the measurements back: criterion's estimates and the JSON files
//! of the other benchmarks.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// Where criterion and the other benchmarks left their results.
#[derive(Debug, Clone)]
pub struct Sources {
    /// Criterion's output directory (`<target>/criterion`).
    pub criterion: PathBuf,
    /// The results directory of [`crate::results`].
    pub results: PathBuf,
}

/// A median and its spread, in seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timing {
    /// The median.
    pub median: f64,
    /// The median absolute deviation.
    pub spread: f64,
}

impl Sources {
    /// Criterion's median and median absolute deviation of `group/function`.
    pub fn criterion(&self, group: &str, function: &str) -> Option<Timing> {
        let path = self
            .criterion
            .join(group)
            .join(function)
            .join("new/estimates.json");
        let v = read(&path)?;
        Some(Timing {
            median: v["median"]["point_estimate"].as_f64()? / 1e9,
            spread: v["median_abs_dev"]["point_estimate"].as_f64()? / 1e9,
        })
    }

    /// The JSON results file `name`.
    pub fn results(&self, name: &str) -> Option<Value> {
        read(&self.results.join(format!("{name}.json")))
    }
}

fn read(path: &Path) -> Option<Value> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

/// A timing from a results file's `{ "median_s", "spread_s" }`.
pub fn timing(v: &Value) -> Option<Timing> {
    Some(Timing {
        median: v["median_s"].as_f64()?,
        spread: v["spread_s"].as_f64()?,
    })
}

/// A duration for a table: `812 ns`, `3.41 µs`, `2.20 ms`, `1.73 s`.
pub fn duration(s: f64) -> String {
    match s {
        s if s < 1e-6 => format!("{:.0} ns", s * 1e9),
        s if s < 1e-3 => format!("{:.2} µs", s * 1e6),
        s if s < 1.0 => format!("{:.2} ms", s * 1e3),
        s => format!("{s:.2} s"),
    }
}

/// `median ± spread`.
pub fn cell(t: Timing) -> String {
    format!("{} ± {}", duration(t.median), duration(t.spread))
}
