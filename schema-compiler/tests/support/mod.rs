//! Helpers shared by the fixture and documentation tests.

// Each test crate uses a different subset of these helpers.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use singletable::diagnostics::Code;

/// The workspace root, so tests can name files as `fixtures/fail/x.yaml`.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the compiler crate lives one level below the workspace root")
        .to_owned()
}

/// The reference specs, `schemas/*.yaml`, sorted; never empty.
pub fn spec_paths() -> Vec<PathBuf> {
    let out = yaml_files(&workspace_root().join("schemas"));
    assert!(!out.is_empty(), "no specs in schemas/");
    out
}

/// The fixtures `fixtures/<kind>/*.yaml` (`pass` or `fail`), sorted.
pub fn fixture_paths(kind: &str) -> Vec<PathBuf> {
    yaml_files(&workspace_root().join("fixtures").join(kind))
}

/// The `.yaml` files of `dir`, sorted.
fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    files_with_extension(dir, "yaml")
}

/// The files of `dir` whose extension is `extension`, sorted.
pub fn files_with_extension(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == extension))
        .collect();
    out.sort();
    out
}

/// A workspace file's text.
pub fn read(relative: &str) -> String {
    let path = workspace_root().join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// Whether the compiler can report `code`: some source file other than the
/// code list itself names `Code::<Variant>`. A code that is declared but not
/// yet reported by any rule is exempt from the fixture and documentation
/// example requirements until a rule names it; from then on both apply.
pub fn is_emitted(code: Code) -> bool {
    let needle = format!("Code::{code:?}");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    rust_files(&src)
        .iter()
        .filter(|p| !p.ends_with("diagnostics/codes.rs"))
        .any(|p| {
            let text = std::fs::read_to_string(p).unwrap_or_default();
            text.match_indices(&needle).any(|(i, _)| {
                !text[i + needle.len()..]
                    .starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
            })
        })
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}
