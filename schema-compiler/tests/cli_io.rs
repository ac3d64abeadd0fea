//! The `singletable` command line on bad inputs and failing outputs: every
//! failure is a message and exit status 2, never a panic (status 101).
#![cfg(feature = "cli")]

mod support;

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use support::workspace_root as root;

fn singletable() -> Command {
    let mut cmd = Command::cargo_bin("singletable").expect("binary is built with the cli feature");
    cmd.current_dir(root());
    cmd
}

/// A fresh, empty directory for one test.
fn temp_dir(test: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("singletable-cli-io-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Exit status 2 with `message` on standard error, and no panic.
fn assert_io_error(out: &Output, message: &str) {
    let stderr = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(message),
        "expected `{message}` in:\n{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn an_oversized_spec_or_model_is_refused_naming_the_file_and_the_limit() {
    let dir = temp_dir("oversized");
    let big = dir.join("big.yaml");
    let file = std::fs::File::create(&big).expect("create");
    file.set_len(16 * 1024 * 1024 + 1).expect("a sparse file");
    let big_name = big.display().to_string();
    for args in [&["check"][..], &["generate", "rust"], &["explain"]] {
        let out = singletable().args(args).arg(&big).output().expect("runs");
        assert_io_error(&out, &format!("cannot read {big_name}: larger than 16 MiB"));
    }
    let out = singletable()
        .args(["import", "workbench"])
        .arg(&big)
        .output()
        .expect("runs");
    assert_io_error(&out, &format!("cannot read {big_name}: larger than 16 MiB"));
}

#[cfg(unix)]
#[test]
fn dev_zero_as_a_spec_is_refused_not_read_until_memory_runs_out() {
    let out = singletable()
        .args(["check", "/dev/zero"])
        .output()
        .expect("runs");
    assert_io_error(&out, "cannot read /dev/zero: larger than 16 MiB");
}

/// Runs `singletable` with standard output sent to `stdout`.
#[cfg(unix)]
fn run_with_stdout(args: &[&str], stdout: impl Into<std::process::Stdio>) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_singletable"))
        .current_dir(root())
        .args(args)
        .stdout(stdout)
        .output()
        .expect("runs")
}

/// Every command that prints, with something to print.
const PRINTING: &[&[&str]] = &[
    &["generate", "rust", "schemas/shopping_cart.yaml"],
    &["generate", "iam", "schemas/shopping_cart.yaml"],
    &["generate", "docs", "schemas/shopping_cart.yaml"],
    &["check", "--format", "json", "schemas/shopping_cart.yaml"],
    &["check", "--explain", "schemas/shopping_cart.yaml"],
    &["explain", "schemas/shopping_cart.yaml"],
    &["schema"],
    &["--help"],
];

#[cfg(target_os = "linux")]
#[test]
fn a_full_standard_output_is_exit_status_two() {
    for args in PRINTING {
        let full = std::fs::File::options()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        let out = run_with_stdout(args, full);
        assert_io_error(&out, "cannot write to standard output");
    }
}

#[cfg(unix)]
#[test]
fn a_closed_standard_output_is_exit_status_two() {
    for args in PRINTING {
        // The reading end is closed before the command starts (`| head -c0`).
        let (reader, writer) = std::io::pipe().expect("pipe");
        drop(reader);
        let out = run_with_stdout(args, writer);
        assert_io_error(&out, "cannot write to standard output");
    }
}

#[test]
fn specs_with_the_same_stem_are_refused_before_anything_is_written() {
    let dir = temp_dir("same_stem");
    let spec = std::fs::read_to_string(root().join("schemas/shopping_cart.yaml")).expect("spec");
    for sub in ["a", "b"] {
        std::fs::create_dir_all(dir.join(sub)).expect("dir");
        std::fs::write(dir.join(sub).join("x.yaml"), &spec).expect("spec");
    }
    let out_dir = dir.join("out");
    for kind in ["rust", "iam", "table", "docs", "workbench"] {
        let out = singletable()
            .args(["generate", kind])
            .arg(dir.join("a/x.yaml"))
            .arg(dir.join("b/x.yaml"))
            .arg("-o")
            .arg(&out_dir)
            .output()
            .expect("runs");
        let both = format!(
            "{} and {} both generate `x.",
            dir.join("a/x.yaml").display(),
            dir.join("b/x.yaml").display()
        );
        assert_io_error(&out, &both);
        assert_eq!(names_in(&out_dir), Vec::<String>::new(), "{kind}");
    }
}

/// A Workbench model of two tables whose file names are the same.
fn model_with_tables(names: [&str; 2]) -> serde_json::Value {
    let out = singletable()
        .args([
            "generate",
            "workbench",
            "schemas/shopping_cart.yaml",
            "--date",
            "2024-01-01",
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut model: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let mut second = model["DataModel"][0].clone();
    model["DataModel"][0]["TableName"] = names[0].into();
    second["TableName"] = names[1].into();
    model["DataModel"]
        .as_array_mut()
        .expect("tables")
        .push(second);
    model
}

#[test]
fn imported_tables_whose_names_snake_case_alike_are_refused() {
    let dir = temp_dir("import_clash");
    let model = dir.join("model.json");
    let json = model_with_tables(["Orders-1", "orders_1"]).to_string();
    std::fs::write(&model, json).expect("model");
    let out_dir = dir.join("out");
    let out = singletable()
        .args(["import", "workbench"])
        .arg(&model)
        .arg("-o")
        .arg(&out_dir)
        .output()
        .expect("runs");
    assert_io_error(
        &out,
        "table `Orders-1` and table `orders_1` both generate `orders_1.yaml`",
    );
    assert_eq!(names_in(&out_dir), Vec::<String>::new());

    // One of them at a time is fine.
    let out = singletable()
        .args(["import", "workbench"])
        .arg(&model)
        .args(["--table", "Orders-1", "-o"])
        .arg(&out_dir)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(names_in(&out_dir), ["orders_1.yaml"]);
}

#[test]
fn an_output_directory_that_is_a_file_is_named_as_such() {
    let dir = temp_dir("out_file");
    let file = dir.join("some-file");
    std::fs::write(&file, "keep").expect("file");
    let message = format!("`-o` must be a directory: {} is a file", file.display());
    let out = singletable()
        .args(["generate", "rust", "schemas/shopping_cart.yaml", "-o"])
        .arg(&file)
        .output()
        .expect("runs");
    assert_io_error(&out, &message);
    let model = dir.join("model.json");
    let json = model_with_tables(["Orders", "Carts"]).to_string();
    std::fs::write(&model, json).expect("model");
    let out = singletable()
        .args(["import", "workbench"])
        .arg(&model)
        .arg("-o")
        .arg(&file)
        .output()
        .expect("runs");
    assert_io_error(&out, &message);
    assert_eq!(std::fs::read_to_string(&file).expect("read"), "keep");
}

#[test]
fn generating_again_leaves_unchanged_files_alone() {
    let out_dir = temp_dir("unchanged");
    let run = || {
        singletable()
            .args(["generate", "table", "schemas/shopping_cart.yaml", "-o"])
            .arg(&out_dir)
            .output()
            .expect("runs")
    };
    let first = run();
    assert!(stderr(&first).contains("wrote "), "{}", stderr(&first));
    let path = out_dir.join("shopping_cart.create-table.json");
    let modified = std::fs::metadata(&path).and_then(|m| m.modified()).ok();
    let second = run();
    assert_eq!(second.status.code(), Some(0));
    assert!(
        stderr(&second).contains(&format!("unchanged {}", path.display())),
        "{}",
        stderr(&second)
    );
    let again = std::fs::metadata(&path).and_then(|m| m.modified()).ok();
    assert_eq!(modified, again);
}

#[cfg(unix)]
#[test]
fn an_interrupted_write_leaves_the_old_file() {
    // `ulimit -f` stops the process (SIGXFSZ) when a file it writes passes
    // 2 KiB; the generated module is larger. Writing in place would leave a
    // truncated module behind.
    let out_dir = temp_dir("interrupted");
    let path = out_dir.join("shopping_cart.rs");
    std::fs::write(&path, "// the old module\n").expect("old module");
    let out = std::process::Command::new("sh")
        .current_dir(root())
        .args(["-c", r#"ulimit -f 4 && exec "$0" "$@""#])
        .arg(env!("CARGO_BIN_EXE_singletable"))
        .args(["generate", "rust", "schemas/shopping_cart.yaml", "-o"])
        .arg(&out_dir)
        .output()
        .expect("runs");
    assert!(!out.status.success(), "the write was not interrupted");
    assert_ne!(out.status.code(), Some(101), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(&path).expect("read"),
        "// the old module\n"
    );
}
