//! The peer comparison: whole processes on the same design, alternating,
//! 7 rounds each (the ratio taken within each round): `singletable check` against the peer validator's
//! `codegen --validate-only` (a Python module run by the given
//! interpreter). Both must accept the design. Beside them, the YAML floor:
//! `yaml-floor` (built next to this binary) running only the event parser
//! under serde-saphyr, and the fastest other one, over the same spec.
//! Writes `peer.json` to the results directory.
//!
//! ```sh
//! peer <singletable> <python> <synthetic dir> <support_ticket.yaml>
//! ```

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use serde_json::json;
use singletable_benches::{results, rounds, yaml_floor_label, YAML_FLOOR_PARSERS};

const ROUNDS: usize = 7;
const PEER_MODULE: &str = "awslabs.dynamodb_mcp_server.repo_generation_tool.codegen";

fn timed(cmd: &mut Command) -> Result<f64, String> {
    let start = Instant::now();
    let out = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
    let elapsed = start.elapsed().as_secs_f64();
    if !out.status.success() {
        return Err(format!(
            "{cmd:?} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(elapsed)
}

/// The programs compared on one design: a label and how to run it.
type Runs<'a> = Vec<(String, Box<dyn Fn() -> Result<f64, String> + 'a>)>;

fn compare(
    name: &str,
    ours: &Path,
    peer: &Path,
    tools: &Tools,
) -> Result<serde_json::Value, String> {
    let mut runs: Runs<'_> = vec![
        (
            "singletable".to_owned(),
            Box::new(|| timed(Command::new(&tools.singletable).arg("check").arg(ours))),
        ),
        (
            "peer".to_owned(),
            Box::new(|| {
                timed(
                    Command::new(&tools.python)
                        .args(["-m", PEER_MODULE, "--validate-only", "--schema"])
                        .arg(peer),
                )
            }),
        ),
    ];
    for parser in YAML_FLOOR_PARSERS {
        runs.push((
            yaml_floor_label(parser),
            Box::new(move || timed(Command::new(&tools.floor).arg(parser).arg(ours))),
        ));
    }
    // One untimed run of each first (file caches, Python's bytecode cache).
    for (_, run) in &runs {
        run()?;
    }
    let mut times = vec![Vec::with_capacity(ROUNDS); runs.len()];
    for round in 0..ROUNDS {
        for i in (0..runs.len()).map(|i| (i + round) % runs.len()) {
            times[i].push((runs[i].1)()?);
        }
    }
    let labelled: Vec<(String, Vec<f64>)> = runs.into_iter().map(|(l, _)| l).zip(times).collect();
    let mut summary = rounds::summarize(&format!("peer: {name}"), &labelled);
    summary["design"] = json!(name);
    Ok(summary)
}

/// The programs the comparison runs.
struct Tools {
    singletable: PathBuf,
    python: PathBuf,
    /// `yaml-floor`, next to this binary.
    floor: PathBuf,
}

fn main() {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [bin, python, dir, support] = args.as_slice() else {
        eprintln!("usage: peer <singletable> <python> <synthetic dir> <support_ticket.yaml>");
        std::process::exit(2);
    };
    let floor = std::env::current_exe()
        .map(|exe| exe.with_file_name(format!("yaml-floor{}", std::env::consts::EXE_SUFFIX)));
    let tools = match floor {
        Ok(floor) if floor.is_file() => Tools {
            singletable: bin.clone(),
            python: python.clone(),
            floor,
        },
        _ => {
            eprintln!("peer: build `yaml-floor` next to this binary first (cargo build --release -p singletable-benches --bins)");
            std::process::exit(2);
        }
    };
    let synthetic = |n: usize, gsis: usize, patterns: &str| {
        (
            format!("{n} entities, {gsis} GSIs, {patterns} access patterns"),
            dir.join(format!("synthetic_{n}.yaml")),
            dir.join(format!("peer_{n}.schema.json")),
        )
    };
    let designs = [
        synthetic(10, 1, "50"),
        synthetic(200, 20, "1,000"),
        synthetic(1_000, 20, "5,000"),
        (
            "support ticket".to_owned(),
            support.clone(),
            dir.join("peer_support_ticket.schema.json"),
        ),
    ];
    let measured: Result<Vec<_>, String> = designs
        .iter()
        .map(|(name, ours, peer)| compare(name, ours, peer, &tools))
        .collect();
    match measured.and_then(|m| results::write("peer", &json!(m)).map_err(|e| e.to_string())) {
        Ok(path) => println!("{}", path.display()),
        Err(e) => {
            eprintln!("peer comparison failed: {e}");
            std::process::exit(1);
        }
    }
}
