//! The declared `rust-version` of every published crate is true: it is at
//! least the highest `rust-version` of any crate in its resolved dependency
//! graph (normal and build dependencies, every feature the workspace
//! enables), as `cargo metadata` reports it from the lock file.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use serde_json::Value;

const PUBLISHED: [&str; 4] = [
    "singletable",
    "singletable-runtime",
    "singletable-derive",
    "singletable-codec",
];

type Version = (u64, u64, u64);

fn version(text: &str) -> Version {
    let mut parts = text.split('.').map(|p| {
        p.parse::<u64>()
            .unwrap_or_else(|_| panic!("rust-version `{text}` is not numeric"))
    });
    let major = parts.next().unwrap_or(0);
    let minor = parts.next().unwrap_or(0);
    let patch = parts.next().unwrap_or(0);
    (major, minor, patch)
}

fn metadata() -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let out = Command::new(cargo)
        // Every platform's dependencies count (crates.io may be asked for
        // the manifests of ones not built here); the lock file decides.
        .args(["metadata", "--format-version", "1", "--locked"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON")
}

/// For each published crate: its declared version and the highest one its
/// dependency graph needs, with the crates that need it.
fn requirements(meta: &Value) -> BTreeMap<String, (Version, Version, Vec<String>)> {
    let packages: BTreeMap<&str, &Value> = meta["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .map(|p| (p["id"].as_str().expect("id"), p))
        .collect();
    let nodes: BTreeMap<&str, &Value> = meta["resolve"]["nodes"]
        .as_array()
        .expect("resolve graph")
        .iter()
        .map(|n| (n["id"].as_str().expect("id"), n))
        .collect();
    let mut result = BTreeMap::new();
    for name in PUBLISHED {
        let (root, package) = packages
            .iter()
            .find(|(_, p)| p["name"] == name && p["source"].is_null())
            .unwrap_or_else(|| panic!("workspace package {name}"));
        let declared = version(
            package["rust_version"]
                .as_str()
                .unwrap_or_else(|| panic!("{name} declares no rust-version")),
        );
        let mut seen = BTreeSet::new();
        let mut stack = vec![*root];
        while let Some(id) = stack.pop() {
            if !seen.insert(id) {
                continue;
            }
            for dep in nodes[id]["deps"].as_array().expect("deps") {
                let runtime_dep = dep["dep_kinds"]
                    .as_array()
                    .expect("dep_kinds")
                    .iter()
                    .any(|k| k["kind"].is_null() || k["kind"] == "build");
                if runtime_dep {
                    stack.push(dep["pkg"].as_str().expect("pkg"));
                }
            }
        }
        let mut needed = (0, 0, 0);
        let mut by = Vec::new();
        for id in seen.iter().filter(|id| **id != *root) {
            let Some(v) = packages[id]["rust_version"].as_str().map(version) else {
                continue;
            };
            let dep = format!("{} {}", packages[id]["name"], packages[id]["version"]);
            if v > needed {
                needed = v;
                by = vec![dep];
            } else if v == needed {
                by.push(dep);
            }
        }
        assert!(
            seen.len() > 1 || name == "singletable-codec",
            "{name} has no dependencies?"
        );
        result.insert(name.to_owned(), (declared, needed, by));
    }
    result
}

#[test]
fn declared_rust_version_covers_the_dependency_graph() {
    let meta = metadata();
    let requirements = requirements(&meta);
    assert_eq!(requirements.len(), PUBLISHED.len());
    for (name, (declared, needed, by)) in &requirements {
        assert!(
            declared >= needed,
            "{name} declares rust-version {declared:?}, but {} need {needed:?}",
            by.join(", ")
        );
    }
    // The runtime's graph holds the AWS SDK, whose own rust-version is what
    // the declared one must follow.
    let (_, needed, by) = &requirements["singletable-runtime"];
    assert!(
        *needed >= (1, 80, 0),
        "the SDK's rust-version was not read: {by:?}"
    );
}

#[test]
fn a_lower_declared_version_is_caught() {
    // The same computation, with the workspace's declared version lowered
    // in the metadata as if Cargo.toml said 1.88: it must be found short.
    let mut meta = metadata();
    for package in meta["packages"].as_array_mut().expect("packages") {
        if package["source"].is_null() {
            package["rust_version"] = Value::from("1.88");
        }
    }
    let requirements = requirements(&meta);
    let (declared, needed, by) = &requirements["singletable-runtime"];
    assert!(
        declared < needed,
        "1.88 should be below what {by:?} need ({needed:?})"
    );
}
