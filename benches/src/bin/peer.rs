//! The peer comparison: whole processes on the same design, alternating,
//! 7 rounds each (the ratio taken within each round): `singletable check` against the peer validator's
//! `codegen --validate-only` (a Python module run by the given
//! interpreter). Both must accept the design. Writes `peer.json` to the
//! results directory.
//!
//! ```sh
//! peer <singletable> <python> <synthetic dir> <support_ticket.yaml>
//! ```

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use serde_json::json;
use singletable_benches::{results, rounds};

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

fn compare(
    name: &str,
    ours: &Path,
    peer: &Path,
    bin: &Path,
    python: &Path,
) -> Result<serde_json::Value, String> {
    let ours = || timed(Command::new(bin).arg("check").arg(ours));
    let theirs = || {
        timed(
            Command::new(python)
                .args(["-m", PEER_MODULE, "--validate-only", "--schema"])
                .arg(peer),
        )
    };
    // One untimed run of each first (file caches, Python's bytecode cache).
    ours()?;
    theirs()?;
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        if round % 2 == 0 {
            a.push(ours()?);
            b.push(theirs()?);
        } else {
            b.push(theirs()?);
            a.push(ours()?);
        }
    }
    let mut summary = rounds::summarize(
        &format!("peer: {name}"),
        &[("singletable".to_owned(), a), ("peer".to_owned(), b)],
    );
    summary["design"] = json!(name);
    Ok(summary)
}

fn main() {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [bin, python, dir, support] = args.as_slice() else {
        eprintln!("usage: peer <singletable> <python> <synthetic dir> <support_ticket.yaml>");
        std::process::exit(2);
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
        .map(|(name, ours, peer)| compare(name, ours, peer, bin, python))
        .collect();
    match measured.and_then(|m| results::write("peer", &json!(m)).map_err(|e| e.to_string())) {
        Ok(path) => println!("{}", path.display()),
        Err(e) => {
            eprintln!("peer comparison failed: {e}");
            std::process::exit(1);
        }
    }
}
