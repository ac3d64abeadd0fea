//! Where the measurements go: one JSON file per
//! measurement in the results directory, read back by `bench-report`.

use std::path::PathBuf;

use serde_json::Value;

/// `$SINGLETABLE_BENCH_DIR`, else `target/singletable-bench` in the workspace.
pub fn dir() -> PathBuf {
    match std::env::var_os("SINGLETABLE_BENCH_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/singletable-bench"),
    }
}

/// Writes `<dir>/<name>.json`.
pub fn write(name: &str, value: &Value) -> std::io::Result<PathBuf> {
    let dir = dir();
    std::fs::create_dir_all(&dir)?;
    let path = dir.join(format!("{name}.json"));
    let text = serde_json::to_string_pretty(value).map_err(std::io::Error::other)?;
    std::fs::write(&path, text + "\n")?;
    Ok(path)
}

/// The main of a benchmark binary that talks to a server: runs `run` with
/// the number of rounds its first argument gives (at least `least`) on a
/// 2-thread Tokio runtime, prints its results and writes them as
/// `<name>.json`; exits 1, saying `what` failed, when either fails.
pub fn run_rounds<F>(name: &str, what: &str, least: usize, run: impl FnOnce(usize) -> F)
where
    F: std::future::Future<Output = Result<Value, String>>,
{
    let rounds = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(least)
        .max(least);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a Tokio runtime");
    match runtime.block_on(run(rounds)) {
        Ok(value) => {
            println!("{value}");
            if let Err(e) = write(name, &value) {
                eprintln!("cannot write the results: {e}");
                std::process::exit(1);
            }
        }
        Err(e) => {
            eprintln!("{what} failed: {e}");
            std::process::exit(1);
        }
    }
}

/// The median of `samples` (sorted in place) and their spread, the median
/// absolute deviation; `None` when there are none.
pub fn median_and_spread(samples: &mut [f64]) -> Option<(f64, f64)> {
    let median = median(samples)?;
    let mut deviations: Vec<f64> = samples.iter().map(|s| (s - median).abs()).collect();
    Some((median, self::median(&mut deviations)?))
}

fn median(samples: &mut [f64]) -> Option<f64> {
    if samples.is_empty() {
        return None;
    }
    samples.sort_by(f64::total_cmp);
    let mid = samples.len() / 2;
    Some(if samples.len().is_multiple_of(2) {
        (samples[mid - 1] + samples[mid]) / 2.0
    } else {
        samples[mid]
    })
}
