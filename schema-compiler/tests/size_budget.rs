//! The size budget: no Rust source file of the repository is longer than
//! 800 lines (functions are held to 150 lines by clippy's
//! `too_many_lines`, set in clippy.toml). A file that grows past it is
//! split by concept, as the emitter, the runtime and the tests are.
//!
//! Generated code is not source: the golden modules (`tests/golden/`) are
//! the emitter's output, and build outputs live under `target/`.

mod support;

use std::path::{Path, PathBuf};

const MAX_LINES: usize = 800;

/// Directories that hold no source of the repository's own.
const SKIPPED: [&str; 6] = [
    "target",
    ".git",
    ".tools",
    "node_modules",
    "golden",
    "corpus",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            if !SKIPPED.contains(&name) {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_source_file_is_longer_than_the_budget() {
    let root = support::workspace_root();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    assert!(
        files.len() > 100,
        "the walk found the sources ({} files)",
        files.len()
    );
    let over: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(path).expect("a readable source file");
            let lines = text.lines().count();
            (lines > MAX_LINES).then(|| {
                format!(
                    "{}: {lines} lines",
                    path.strip_prefix(&root).unwrap_or(path).display()
                )
            })
        })
        .collect();
    assert!(
        over.is_empty(),
        "files over {MAX_LINES} lines (split them by concept): {over:#?}"
    );
}
