//! Reading the measurements back: the JSON files the benchmarks leave in
//! the results directory ([`crate::results`], [`crate::rounds`]).

use std::path::{Path, PathBuf};

use serde_json::Value;

/// Where the benchmarks left their results.
#[derive(Debug, Clone)]
pub struct Sources {
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

/// A median with the least and greatest value around it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Range {
    /// The median.
    pub median: f64,
    /// The least value.
    pub min: f64,
    /// The greatest value.
    pub max: f64,
}

impl Range {
    fn read(median: &Value, min: &Value, max: &Value) -> Option<Range> {
        Some(Range {
            median: median.as_f64()?,
            min: min.as_f64()?,
            max: max.as_f64()?,
        })
    }

    /// The reciprocal (a time ratio as a speedup): min and max swap.
    pub fn inverse(self) -> Range {
        Range {
            median: 1.0 / self.median,
            min: 1.0 / self.max,
            max: 1.0 / self.min,
        }
    }
}

/// One variant of a comparison in alternating rounds ([`crate::rounds`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Variant {
    /// The time of one iteration across rounds.
    pub time: Range,
    /// Its time over the baseline's in the same round, across rounds.
    pub ratio: Range,
}

impl Sources {
    /// The JSON results file `name`.
    pub fn results(&self, name: &str) -> Option<Value> {
        read(&self.results.join(format!("{name}.json")))
    }

    /// Variant `label` of the comparison `name`.
    pub fn variant(&self, name: &str, label: &str) -> Option<Variant> {
        variant(&self.results(name)?, label)
    }
}

/// Variant `label` of a comparison's results.
pub fn variant(comparison: &Value, label: &str) -> Option<Variant> {
    let v = comparison["variants"]
        .as_array()?
        .iter()
        .find(|v| v["label"] == label)?;
    Some(Variant {
        time: Range::read(&v["median_s"], &v["min_s"], &v["max_s"])?,
        ratio: Range::read(
            &v["ratio"]["median"],
            &v["ratio"]["min"],
            &v["ratio"]["max"],
        )?,
    })
}

/// Variant `over`'s time over variant `under`'s in the same round, across
/// the rounds of a comparison's results (whichever its baseline).
pub fn ratio_between(comparison: &Value, over: &str, under: &str) -> Option<Range> {
    let times = |label: &str| -> Option<Vec<f64>> {
        comparison["variants"]
            .as_array()?
            .iter()
            .find(|v| v["label"] == label)?["times_s"]
            .as_array()?
            .iter()
            .map(Value::as_f64)
            .collect()
    };
    let (over, under) = (times(over)?, times(under)?);
    if over.len() != under.len() {
        return None;
    }
    let mut ratios: Vec<f64> = over.iter().zip(&under).map(|(o, u)| o / u).collect();
    let (median, _) = crate::results::median_and_spread(&mut ratios)?;
    Some(Range {
        median,
        min: *ratios.first()?,
        max: *ratios.last()?,
    })
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

/// `median (min–max)` of times.
pub fn time_range(r: Range) -> String {
    format!(
        "{} ({}–{})",
        duration(r.median),
        duration(r.min),
        duration(r.max)
    )
}

/// `median (min–max)` of ratios, to `digits` decimals.
pub fn ratio_range(r: Range, digits: usize) -> String {
    format!("{:.d$} ({:.d$}–{:.d$})", r.median, r.min, r.max, d = digits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ratios_between_two_variants_pair_their_rounds() {
        let comparison = json!({ "variants": [
            { "label": "base", "times_s": [1.0, 1.0, 1.0] },
            { "label": "slow", "times_s": [4.0, 2.0, 9.0] },
            { "label": "fast", "times_s": [1.0, 1.0, 3.0] },
        ]});
        let r = ratio_between(&comparison, "slow", "fast").unwrap();
        assert_eq!((r.median, r.min, r.max), (3.0, 2.0, 4.0));
        assert_eq!(ratio_between(&comparison, "slow", "none"), None);
    }
}
