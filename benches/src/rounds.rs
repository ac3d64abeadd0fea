//! Alternating rounds: every comparison runs all its variants in turn, round
//! after round, in one process, and judges each variant by its time over
//! the baseline's *in the same round*. Drift on a shared machine (another
//! process, frequency changes, a server's growing state) then moves both
//! sides of a ratio alike, and the ratio's spread across rounds shows how
//! far a single run could be off.
//!
//! A comparison writes `<name>.json` to the results directory
//! ([`crate::results`]): per variant the median time of one iteration, its
//! min–max across rounds, and the median and min–max of its per-round
//! ratio to the baseline (the first variant).
//!
//! With `SINGLETABLE_BENCH_COUNT=<comparison>/<variant>/<n>` in the
//! environment a benchmark runs no rounds: the comparison named runs that
//! variant's iteration `n` times and ends the process, and every other
//! comparison is skipped. `src/bin/instructions.rs` runs each variant so
//! under callgrind, twice, to count the instructions of one iteration: a
//! measure the machine's load does not move.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::results;

/// How many rounds and how long each variant runs in one round.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    /// Rounds of every variant; at least 5.
    pub rounds: usize,
    /// The time one variant runs in one round (its iteration count is
    /// calibrated once to fill it).
    pub sample: Duration,
}

impl Plan {
    /// `rounds` rounds of `sample` each; `SINGLETABLE_BENCH_ROUNDS` overrides
    /// the rounds (never below 5).
    pub fn new(rounds: usize, sample: Duration) -> Plan {
        let rounds = std::env::var("SINGLETABLE_BENCH_ROUNDS")
            .ok()
            .and_then(|r| r.parse().ok())
            .unwrap_or(rounds)
            .max(5);
        Plan { rounds, sample }
    }
}

type Timer<'a> = Box<dyn FnMut(u64) -> Duration + 'a>;

/// Variants to compare; the first is the baseline.
pub struct Comparison<'a> {
    name: String,
    variants: Vec<(String, Timer<'a>)>,
}

impl<'a> Comparison<'a> {
    /// A comparison named `name` (its results file and report key).
    pub fn new(name: &str) -> Self {
        Comparison {
            name: name.to_owned(),
            variants: Vec::new(),
        }
    }

    /// A variant of which `f` is one iteration.
    pub fn case(self, label: &str, mut f: impl FnMut() + 'a) -> Self {
        self.timed(label, move |n| {
            let start = Instant::now();
            for _ in 0..n {
                f();
            }
            start.elapsed()
        })
    }

    /// A variant that runs `n` iterations and returns the time they took
    /// (for work that must leave something out of the timing).
    pub fn timed(mut self, label: &str, f: impl FnMut(u64) -> Duration + 'a) -> Self {
        self.variants.push((label.to_owned(), Box::new(f)));
        self
    }

    /// Calibrates, runs `plan.rounds` rounds (each round starting at the
    /// next variant, so none is always first), prints a line per variant,
    /// writes the results file and returns its value. In count mode (see
    /// the module's documentation), runs one variant and ends the process,
    /// or returns `Null` for another comparison.
    pub fn run(mut self, plan: Plan) -> std::io::Result<Value> {
        if let Some(count) = Count::from_env()? {
            if count.comparison != self.name {
                return Ok(Value::Null);
            }
            let Some((_, f)) = self.variants.iter_mut().find(|(l, _)| *l == count.variant) else {
                return Err(std::io::Error::other(format!(
                    "{}: no variant `{}`",
                    self.name, count.variant
                )));
            };
            f(count.iterations);
            std::process::exit(0);
        }
        let iterations: Vec<u64> = self
            .variants
            .iter_mut()
            .map(|(_, f)| calibrate(f, plan.sample))
            .collect();
        let samples = rounds(&mut self.variants, &iterations, plan.rounds);
        let labelled: Vec<(String, Vec<f64>)> = self
            .variants
            .iter()
            .map(|(label, _)| label.clone())
            .zip(samples)
            .collect();
        let mut value = summarize(&self.name, &labelled);
        for (v, n) in value["variants"]
            .as_array_mut()
            .into_iter()
            .flatten()
            .zip(&iterations)
        {
            v["iterations"] = json!(n);
        }
        results::write(&self.name, &value)?;
        Ok(value)
    }
}

/// One variant to run `iterations` times in count mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Count {
    /// The comparison's name.
    pub comparison: String,
    /// The variant's label.
    pub variant: String,
    /// How many iterations.
    pub iterations: u64,
}

impl Count {
    /// The environment variable that selects count mode.
    pub const VAR: &'static str = "SINGLETABLE_BENCH_COUNT";

    /// The value of [`Count::VAR`] that asks for this count.
    pub fn to_env(&self) -> String {
        format!("{}/{}/{}", self.comparison, self.variant, self.iterations)
    }

    /// The count [`Count::VAR`] asks for; `None` when it is unset, an
    /// error when it is malformed.
    pub fn from_env() -> std::io::Result<Option<Count>> {
        let Ok(value) = std::env::var(Self::VAR) else {
            return Ok(None);
        };
        Self::parse(&value).map(Some).ok_or_else(|| {
            std::io::Error::other(format!(
                "{}={value:?}: expected <comparison>/<variant>/<iterations>",
                Self::VAR
            ))
        })
    }

    fn parse(value: &str) -> Option<Count> {
        let (rest, iterations) = value.rsplit_once('/')?;
        let (comparison, variant) = rest.split_once('/')?;
        Some(Count {
            comparison: comparison.to_owned(),
            variant: variant.to_owned(),
            iterations: iterations.parse().ok()?,
        })
    }
}

/// Per variant, the time of one iteration in each round; round `r` starts
/// with variant `r mod k`.
fn rounds(
    variants: &mut [(String, Timer<'_>)],
    iterations: &[u64],
    rounds: usize,
) -> Vec<Vec<f64>> {
    let k = variants.len();
    let mut samples = vec![Vec::with_capacity(rounds); k];
    for round in 0..rounds {
        for i in (0..k).map(|i| (i + round) % k) {
            let elapsed = (variants[i].1)(iterations[i]);
            samples[i].push(elapsed.as_secs_f64() / iterations[i] as f64);
        }
    }
    samples
}

/// Doubles the iteration count until a run takes a tenth of `sample` (the
/// first runs warm the code and data up), then scales it to `sample`.
fn calibrate(f: &mut Timer<'_>, sample: Duration) -> u64 {
    let mut n = 1u64;
    loop {
        let t = f(n);
        if t >= sample / 10 || n >= 1 << 40 {
            let per = t.as_secs_f64() / n as f64;
            return ((sample.as_secs_f64() / per.max(1e-12)).round() as u64).max(1);
        }
        n *= 2;
    }
}

/// The summary of per-round times of each variant (the first the
/// baseline, all with the same number of rounds): what [`Comparison::run`]
/// writes, also for whole-process comparisons timed elsewhere.
pub fn summarize(name: &str, variants: &[(String, Vec<f64>)]) -> Value {
    let base = variants.first().map(|(_, s)| s.as_slice()).unwrap_or(&[]);
    let rows: Vec<Value> = variants
        .iter()
        .map(|(label, times)| {
            let ratios: Vec<f64> = times.iter().zip(base).map(|(t, b)| t / b).collect();
            let time = stats(times);
            let ratio = stats(&ratios);
            eprintln!(
                "{name}: {label}: {:.3e} s ({:.3e}–{:.3e}), ratio {:.3} ({:.3}–{:.3})",
                time.0, time.1, time.2, ratio.0, ratio.1, ratio.2
            );
            json!({
                "label": label,
                "times_s": times,
                "median_s": time.0, "min_s": time.1, "max_s": time.2,
                "ratio": { "median": ratio.0, "min": ratio.1, "max": ratio.2 },
            })
        })
        .collect();
    json!({ "name": name, "rounds": base.len(), "variants": rows })
}

/// Median, min and max (NaN when empty).
fn stats(xs: &[f64]) -> (f64, f64, f64) {
    let mut sorted = xs.to_vec();
    sorted.sort_by(f64::total_cmp);
    let median = results::median_and_spread(&mut sorted).map_or(f64::NAN, |(m, _)| m);
    let min = sorted.first().copied().unwrap_or(f64::NAN);
    let max = sorted.last().copied().unwrap_or(f64::NAN);
    (median, min, max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_round_trip_through_the_environment_value() {
        let count = Count {
            comparison: "e2e_put_get".into(),
            variant: "generated".into(),
            iterations: 300,
        };
        assert_eq!(Count::parse(&count.to_env()), Some(count));
        assert_eq!(Count::parse("codec/generated"), None);
        assert_eq!(Count::parse("codec/generated/many"), None);
    }

    #[test]
    fn ratios_are_taken_within_each_round() {
        let v = summarize(
            "t",
            &[
                ("base".into(), vec![1.0, 2.0, 4.0, 1.0, 2.0]),
                ("half".into(), vec![0.5, 1.0, 2.0, 0.5, 1.0]),
            ],
        );
        let half = &v["variants"][1];
        assert_eq!(half["ratio"]["median"], 0.5);
        assert_eq!(half["ratio"]["min"], 0.5);
        assert_eq!(half["ratio"]["max"], 0.5);
        assert_eq!(half["median_s"], 1.0);
        assert_eq!(half["min_s"], 0.5);
        assert_eq!(half["max_s"], 2.0);
        assert_eq!(v["rounds"], 5);
    }

    #[test]
    fn rounds_rotate_the_first_variant() {
        let order = std::cell::RefCell::new(String::new());
        let timer = |label: char| -> Timer<'_> {
            let order = &order;
            Box::new(move |n| {
                order.borrow_mut().push(label);
                Duration::from_millis(n)
            })
        };
        let mut variants = vec![
            ("a".to_owned(), timer('a')),
            ("b".to_owned(), timer('b')),
            ("c".to_owned(), timer('c')),
        ];
        let samples = rounds(&mut variants, &[1, 2, 4], 5);
        assert_eq!(*order.borrow(), "abcbcacababcbca");
        assert_eq!(samples[2], vec![0.001; 5]);
    }

    #[test]
    fn calibration_fills_the_sample() {
        let mut timer: Timer<'_> = Box::new(|n| Duration::from_micros(3 * n));
        assert_eq!(calibrate(&mut timer, Duration::from_millis(30)), 10_000);
    }
}
