//! Compiler scaling: `check` (parse, resolve, every rule) and full Rust
//! generation of the synthetic designs of 10, 100 and 1,000 entities, in
//! process. Each size runs until it has 3 timings and has spent 4 seconds,
//! at most 30 runs (at least one). Writes `compiler.json` to the results
//! directory.

use std::time::Instant;

use serde_json::json;
use singletable_benches::{results, synth};

fn time_runs(mut f: impl FnMut() -> Result<(), String>) -> Result<Vec<f64>, String> {
    let start = Instant::now();
    let mut runs = Vec::new();
    while runs.len() < 30 && (runs.len() < 3 || start.elapsed().as_secs_f64() < 4.0) {
        let t = Instant::now();
        f()?;
        runs.push(t.elapsed().as_secs_f64());
        // A single run past the budget is enough for the largest sizes.
        if start.elapsed().as_secs_f64() > 20.0 {
            break;
        }
    }
    Ok(runs)
}

fn summary(mut runs: Vec<f64>) -> serde_json::Value {
    let n = runs.len();
    let (median, spread) = results::median_and_spread(&mut runs).unwrap_or_default();
    json!({ "median_s": median, "spread_s": spread, "runs": n })
}

fn measure(entities: usize) -> Result<serde_json::Value, String> {
    let yaml = synth::spec_yaml(entities);
    let name = format!("synthetic_{entities}.yaml");
    let check = time_runs(|| {
        let compilation = singletable::Compiler::new()
            .source(&name, yaml.as_str())
            .compile();
        match compilation.has_errors() {
            true => Err(format!("{:?}", compilation.report())),
            false => Ok(()),
        }
    })?;
    let generate = time_runs(|| {
        let files = singletable::Compiler::new()
            .source(&name, yaml.as_str())
            .generate_rust()
            .map_err(|e| format!("{e:?}"))?;
        std::hint::black_box(files);
        Ok(())
    })?;
    eprintln!("{entities} entities: check {check:?}, generate {generate:?}");
    Ok(json!({
        "entities": entities,
        "gsis": synth::gsis(entities),
        "access_patterns": entities * synth::PATTERNS_PER_ENTITY,
        "spec_bytes": yaml.len(),
        "check": summary(check),
        "generate": summary(generate),
    }))
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![10, 100, 1_000]
    } else {
        sizes
    };
    let measured: Result<Vec<_>, String> = sizes.into_iter().map(measure).collect();
    match measured.and_then(|m| results::write("compiler", &json!(m)).map_err(|e| e.to_string())) {
        Ok(path) => println!("{}", path.display()),
        Err(e) => {
            eprintln!("compiler benchmark failed: {e}");
            std::process::exit(1);
        }
    }
}
