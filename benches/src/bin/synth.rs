//! Writes the synthetic designs into a directory: the singletable specs of
//! 10, 100, 200 and 1,000 entities, and the peer validator's `schema.json`
//! for the 10-, 200- and 1,000-entity designs and for the support-ticket
//! design.
//!
//! ```sh
//! cargo run -p singletable-benches --bin synth -- target/synthetic
//! ```

use std::path::PathBuf;

use singletable_benches::synth;

fn main() -> std::io::Result<()> {
    let dir = PathBuf::from(
        std::env::args_os()
            .nth(1)
            .unwrap_or_else(|| "target/synthetic".into()),
    );
    std::fs::create_dir_all(&dir)?;
    for n in [10, 100, 200, 1_000] {
        std::fs::write(dir.join(format!("synthetic_{n}.yaml")), synth::spec_yaml(n))?;
    }
    let pretty =
        |v: &serde_json::Value| serde_json::to_string_pretty(v).map_err(std::io::Error::other);
    for n in [10, 200, 1_000] {
        std::fs::write(
            dir.join(format!("peer_{n}.schema.json")),
            pretty(&synth::peer_schema(n))?,
        )?;
    }
    std::fs::write(
        dir.join("peer_support_ticket.schema.json"),
        pretty(&synth::support_ticket_peer_schema())?,
    )?;
    println!("{}", dir.display());
    Ok(())
}
