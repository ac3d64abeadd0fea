//! Instructions per operation, counted by callgrind: each variant of the
//! codec and end-to-end comparisons runs alone in its benchmark binary (the
//! count mode of [`singletable_benches::rounds`]) under
//! `valgrind --tool=callgrind`, once with no iterations and once with many;
//! the difference over the iterations is the instructions of one. Unlike
//! time, the count does not move with the machine's load: it shows what the
//! generated code does beside the hand-written code, run after run. (The
//! end-to-end count includes the embedded server's work, the same for both
//! variants.) Writes `instructions.json` to the results directory.
//!
//! Run from the workspace root after `cargo bench --no-run`.

use std::process::Command;

use serde_json::{json, Value};
use singletable_benches::results;
use singletable_benches::rounds::Count;

/// One comparison to count: its benchmark binary, name, variants (the
/// baseline first), the iterations of each run and the operations in one
/// iteration.
struct Counted {
    bench: &'static str,
    comparison: &'static str,
    variants: &'static [&'static str],
    iterations: u64,
    operations: u64,
}

const COUNTED: &[Counted] = &[
    Counted {
        bench: "codec",
        comparison: "codec_ticket_to_item",
        variants: &["handwritten", "generated", "serde_dynamo"],
        iterations: 50,
        operations: 64,
    },
    Counted {
        bench: "codec",
        comparison: "codec_ticket_from_item",
        variants: &["handwritten", "generated", "serde_dynamo"],
        iterations: 50,
        operations: 64,
    },
    Counted {
        bench: "codec",
        comparison: "codec_comment_round_trip",
        variants: &["handwritten", "generated", "serde_dynamo"],
        iterations: 50,
        operations: 64,
    },
    Counted {
        bench: "codec",
        comparison: "keys_typed",
        variants: &["format", "generated"],
        iterations: 50,
        operations: 64,
    },
    Counted {
        bench: "codec",
        comparison: "keys_comment",
        variants: &["format", "generated"],
        iterations: 50,
        operations: 64,
    },
    Counted {
        bench: "server",
        comparison: "e2e_put_get",
        variants: &["handwritten", "generated"],
        iterations: 200,
        operations: 1,
    },
];

/// The executable of each benchmark of this package, as cargo built it.
fn bench_executables() -> Result<Vec<(String, String)>, String> {
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args([
            "bench",
            "-q",
            "-p",
            "singletable-benches",
            "--no-run",
            "--message-format=json",
        ])
        .output()
        .map_err(|e| format!("cargo bench --no-run: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo bench --no-run failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter_map(|m| {
            let name = m["target"]["name"].as_str()?.to_owned();
            let exe = m["executable"].as_str()?.to_owned();
            Some((name, exe))
        })
        .collect())
}

/// The instructions callgrind counts in one run of `exe` in count mode.
fn instructions(exe: &str, count: &Count) -> Result<u64, String> {
    let out = Command::new("valgrind")
        .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
        .arg(exe)
        .env(Count::VAR, count.to_env())
        .output()
        .map_err(|e| format!("valgrind: {e}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!("{exe} ({}) failed: {stderr}", count.to_env()));
    }
    stderr
        .lines()
        .find_map(|l| {
            l.split_once("Collected : ")
                .map(|(_, n)| n.trim().parse().ok())
        })
        .flatten()
        .ok_or_else(|| format!("no instruction count from callgrind: {stderr}"))
}

fn count(exe: &str, c: &Counted) -> Result<Value, String> {
    let mut variants = Vec::new();
    let mut baseline = None;
    for variant in c.variants {
        let run = |iterations| Count {
            comparison: c.comparison.to_owned(),
            variant: (*variant).to_owned(),
            iterations,
        };
        let (idle, busy) = (
            instructions(exe, &run(0))?,
            instructions(exe, &run(c.iterations))?,
        );
        let per_op = busy.saturating_sub(idle) as f64 / (c.iterations * c.operations) as f64;
        let base = *baseline.get_or_insert(per_op);
        eprintln!(
            "{}: {variant}: {per_op:.0} instructions per operation, ratio {:.3}",
            c.comparison,
            per_op / base
        );
        variants.push(json!({ "label": variant, "per_operation": per_op, "ratio": per_op / base }));
    }
    Ok(json!({
        "name": c.comparison,
        "operations_per_iteration": c.operations,
        "iterations": c.iterations,
        "variants": variants,
    }))
}

fn main() {
    let measured = bench_executables().and_then(|exes| {
        COUNTED
            .iter()
            .map(|c| {
                let exe = exes
                    .iter()
                    .find(|(name, _)| name == c.bench)
                    .map(|(_, exe)| exe.as_str())
                    .ok_or_else(|| format!("no executable for the `{}` benchmark", c.bench))?;
                count(exe, c)
            })
            .collect::<Result<Vec<_>, String>>()
    });
    match measured
        .and_then(|m| results::write("instructions", &json!(m)).map_err(|e| e.to_string()))
    {
        Ok(path) => println!("{}", path.display()),
        Err(e) => {
            eprintln!("instruction counts failed: {e}");
            std::process::exit(1);
        }
    }
}
