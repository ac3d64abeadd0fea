//! The peer comparison: whole processes on the same design, alternating,
//! 5 rounds each: `singletable check` against the peer validator's
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
use singletable_benches::results;

const ROUNDS: usize = 5;
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
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        a.push(timed(Command::new(bin).arg("check").arg(ours))?);
        b.push(timed(
            Command::new(python)
                .args(["-m", PEER_MODULE, "--validate-only", "--schema"])
                .arg(peer),
        )?);
    }
    let (am, asp) = results::median_and_spread(&mut a).ok_or("no rounds")?;
    let (bm, bsp) = results::median_and_spread(&mut b).ok_or("no rounds")?;
    eprintln!("{name}: singletable {am:.3} s, peer {bm:.3} s");
    Ok(json!({
        "design": name, "rounds": ROUNDS,
        "singletable": { "median_s": am, "spread_s": asp },
        "peer": { "median_s": bm, "spread_s": bsp },
        "speedup": bm / am,
    }))
}

fn main() {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [bin, python, dir, support] = args.as_slice() else {
        eprintln!("usage: peer <singletable> <python> <synthetic dir> <support_ticket.yaml>");
        std::process::exit(2);
    };
    let designs = [
        (
            "200 entities, 20 GSIs, 1,000 access patterns",
            dir.join("synthetic_200.yaml"),
            dir.join("peer_200.schema.json"),
        ),
        (
            "support ticket",
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
