//! Reading inputs and writing outputs: the input size bound, atomic
//! write-if-changed, and outputs that would overwrite each other.

mod support;

use std::path::{Path, PathBuf};

use singletable::output::{find_clash, write_if_changed};
use singletable::source::{read_input, MAX_INPUT_BYTES};
use singletable::Compiler;
use support::read;

/// A fresh, empty directory for one test.
fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("singletable-files-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

/// A sparse file of `len` bytes (zeros), cheap to make at any size.
fn file_of_len(path: &Path, len: u64) {
    let file = std::fs::File::create(path).expect("create");
    file.set_len(len).expect("set length");
}

/// The names in `dir` that are temporary files of the writer.
fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect()
}

#[test]
fn inputs_up_to_the_limit_are_read_and_longer_ones_refused() {
    assert_eq!(MAX_INPUT_BYTES, 16 * 1024 * 1024);
    let dir = temp_dir("limit");
    let at_limit = dir.join("at_limit.yaml");
    file_of_len(&at_limit, MAX_INPUT_BYTES);
    assert_eq!(
        read_input(&at_limit).expect("at the limit").len() as u64,
        MAX_INPUT_BYTES
    );
    let over = dir.join("over.yaml");
    file_of_len(&over, MAX_INPUT_BYTES + 1);
    let error = read_input(&over).expect_err("over the limit");
    assert_eq!(error.kind(), std::io::ErrorKind::FileTooLarge);
    assert!(error.to_string().contains("16 MiB"), "{error}");

    // Through the compiler (what build scripts and the CLI call): one `io`
    // diagnostic naming the file and the limit.
    let report = Compiler::new().file(&over).compile().report();
    let text = format!("{report:?}");
    assert!(
        text.contains("singletable::io")
            && text.contains(&over.display().to_string())
            && text.contains("larger than 16 MiB"),
        "{text}"
    );
}

#[cfg(unix)]
#[test]
fn an_endless_input_is_refused_after_the_limit() {
    let error = read_input(Path::new("/dev/zero")).expect_err("endless");
    assert_eq!(error.kind(), std::io::ErrorKind::FileTooLarge);
}

#[test]
fn write_if_changed_writes_only_changes() {
    let dir = temp_dir("changes");
    let path = dir.join("nested/out.rs");
    assert!(write_if_changed(&path, "one").expect("first write"));
    let before = std::fs::metadata(&path).expect("written");
    assert!(!write_if_changed(&path, "one").expect("same contents"));
    let after = std::fs::metadata(&path).expect("still there");
    assert_eq!(before.modified().ok(), after.modified().ok());
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        assert_eq!(
            before.ino(),
            after.ino(),
            "an unchanged file is not replaced"
        );
    }
    assert!(write_if_changed(&path, "two").expect("new contents"));
    assert_eq!(std::fs::read_to_string(&path).expect("read"), "two");
    assert!(temporaries(path.parent().expect("dir")).is_empty());
}

#[test]
fn a_concurrent_reader_sees_the_old_file_or_the_new_one() {
    // `fs::write` truncates first: a reader then sees an empty or a
    // half-written file. Renaming a complete temporary file never shows one.
    let dir = temp_dir("concurrent");
    let path = dir.join("out.rs");
    let a = "a".repeat(256 * 1024);
    let b = "b".repeat(256 * 1024);
    write_if_changed(&path, &a).expect("first write");
    let done = std::sync::atomic::AtomicBool::new(false);
    let reads = std::thread::scope(|scope| {
        let reader = scope.spawn(|| {
            let mut reads = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                let text = std::fs::read_to_string(&path).expect("the file always exists");
                assert!(
                    text == a || text == b,
                    "read {} bytes of a torn file",
                    text.len()
                );
                reads += 1;
            }
            reads
        });
        for i in 0..200 {
            write_if_changed(&path, if i % 2 == 0 { &b } else { &a }).expect("write");
        }
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        reader.join().expect("the reader saw only whole files")
    });
    assert!(reads > 0);
    assert!(temporaries(&dir).is_empty());
}

#[test]
fn a_failed_write_leaves_the_target_as_it_was_and_no_temporary_file() {
    // The rename fails: the target is a directory that is not empty. (A
    // read-only directory would not do: the tests may run as root.)
    let dir = temp_dir("failed");
    let target = dir.join("out.rs");
    std::fs::create_dir_all(target.join("inside")).expect("directory in the way");
    write_if_changed(&target, "new").expect_err("a directory is in the way");
    assert!(target.join("inside").is_dir());
    assert!(temporaries(&dir).is_empty(), "{:?}", temporaries(&dir));
}

#[cfg(unix)]
#[test]
fn a_write_into_a_read_only_directory_keeps_old_or_new_contents() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp_dir("read_only");
    let path = dir.join("out.rs");
    std::fs::write(&path, "old").expect("old contents");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).expect("chmod");
    let result = write_if_changed(&path, "new");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).expect("chmod back");
    let now = std::fs::read_to_string(&path).expect("the file is still there");
    // As root the directory's mode does not stop the write; otherwise it does.
    match result {
        Ok(wrote) => assert!(wrote && now == "new", "{now}"),
        Err(_) => assert_eq!(now, "old"),
    }
    assert!(temporaries(&dir).is_empty());
}

#[cfg(unix)]
#[test]
fn a_replaced_file_keeps_its_permissions_and_links_are_written_through() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp_dir("keeps");
    let path = dir.join("out.rs");
    std::fs::write(&path, "old").expect("old contents");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    write_if_changed(&path, "new").expect("write");
    let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
    assert_eq!(mode & 0o777, 0o640);

    let link = dir.join("link.rs");
    std::os::unix::fs::symlink(&path, &link).expect("symlink");
    write_if_changed(&link, "through").expect("write through the link");
    assert!(std::fs::symlink_metadata(&link)
        .expect("link")
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read_to_string(&path).expect("read"), "through");
}

#[test]
fn clashes_are_found_by_name_ignoring_case() {
    assert_eq!(find_clash([("a.rs", "a.yaml"), ("b.rs", "b.yaml")]), None);
    let clash = find_clash([
        ("x.rs", "a/x.yaml"),
        ("y.rs", "y.yaml"),
        ("x.rs", "b/x.yaml"),
    ])
    .expect("same name");
    assert_eq!(
        clash.to_string(),
        "a/x.yaml and b/x.yaml both generate `x.rs`"
    );
    let clash = find_clash([("X.md", "a/X.yaml"), ("x.md", "b/x.yaml")]).expect("case");
    assert_eq!(
        clash.to_string(),
        "a/X.yaml generates `X.md` and b/x.yaml `x.md`, one file where file names ignore case"
    );
}

#[test]
fn specs_whose_outputs_clash_are_refused_naming_both() {
    // Two tables (one spec per table), whose outputs share a file name.
    let spec = read("schemas/shopping_cart.yaml");
    let other = spec.replacen("name: ShoppingCart", "name: ShoppingCartCopy", 1);
    assert_ne!(other, spec);
    let mut compiler = Compiler::new();
    compiler.source("a/cart.yaml", spec.clone());
    compiler.source("b/cart.yaml", other.clone());
    let report = compiler.generate_rust().expect_err("both write cart.rs");
    let text = format!("{report:?}");
    assert!(
        text.contains("singletable::io")
            && text.contains("a/cart.yaml and b/cart.yaml both generate `cart.rs`"),
        "{text}"
    );
    // Rust module names are snake case: `Cart` and `cart` are one module.
    let mut compiler = Compiler::new();
    compiler.source("Cart.yaml", spec.clone());
    compiler.source("cart.yaml", other.clone());
    assert!(compiler.generate_rust().is_err());
    assert!(compiler.generate_docs().is_err(), "Cart.md and cart.md");

    // The build-script path writes nothing then.
    let out = temp_dir("clash_out_dir");
    let mut compiler = Compiler::new();
    compiler.source("a/cart.yaml", spec);
    compiler.source("b/cart.yaml", other);
    compiler.out_dir(&out);
    assert!(compiler.compile_to_out_dir(Vec::<PathBuf>::new()).is_err());
    assert_eq!(std::fs::read_dir(&out).expect("dir").count(), 0);
}

#[test]
fn compile_to_out_dir_refuses_a_file_as_the_output_directory() {
    let dir = temp_dir("out_file");
    let file = dir.join("not_a_dir");
    std::fs::write(&file, "keep").expect("file");
    let report = Compiler::new()
        .out_dir(&file)
        .compile_to_out_dir([support::workspace_root().join("schemas/shopping_cart.yaml")])
        .expect_err("a file is not a directory");
    let text = format!("{report:?}");
    assert!(
        text.contains(&format!(
            "the output directory {} is a file",
            file.display()
        )),
        "{text}"
    );
    assert_eq!(std::fs::read_to_string(&file).expect("read"), "keep");
}

/// A build script that returns the error (or unwraps it) prints each
/// diagnostic whole: the location line, the spec's lines with the label,
/// and the help ("did you mean"), which the one-line form used to drop.
#[test]
fn a_build_script_error_shows_each_diagnostic_whole() {
    let dir = temp_dir("build_script_error");
    let spec =
        std::fs::read_to_string(support::workspace_root().join("schemas/shopping_cart.yaml"))
            .expect("read")
            .replacen(
                "key: { pk: \"USER#<user_id>\"",
                "key: { pk: \"USER#<usr_id>\"",
                1,
            );
    let path = dir.join("cart.yaml");
    std::fs::write(&path, spec).expect("write");
    let report = Compiler::new()
        .out_dir(&dir)
        .compile_to_out_dir([&path])
        .expect_err("a placeholder typo");
    // What `fn main() -> Result<(), Report>` prints: `Error: {report:?}`.
    let printed = format!("Error: {report:?}");
    assert!(printed.contains("cart.yaml:"), "{printed}");
    assert!(printed.contains("error[singletable::"), "{printed}");
    assert!(
        printed.contains("USER#<usr_id>"),
        "the spec's line: {printed}"
    );
    assert!(printed.contains("help: "), "the help: {printed}");
    assert!(printed.contains("user_id"), "the suggestion: {printed}");
    // The one-line form stays `Display`'s.
    let line = report.to_string();
    assert!(!line.contains("help: "), "{line}");
}

/// One spec per table: two inputs that describe one table with different
/// entities are refused (each spec's proofs cover only its own items); two
/// versions of one design (an entity in both) and two tables are not.
#[test]
fn two_specs_of_one_table_are_refused() {
    let spec = |table: &str, entity: &str| {
        format!(
            "version: 1\ntable: {{ name: {table}, partition_key: pk, sort_key: sk }}\nentities:\n  {entity}:\n    attributes:\n      id: {{ type: string, pattern: \"^[0-9]{{1,9}}$\" }}\n    key: {{ pk: \"{entity}#<id>\", sk: \"{entity}\" }}\naccess_patterns:\n  one:\n    description: One item.\n    get: {entity}\n"
        )
    };
    let compile = |inputs: &[(&str, String)]| {
        let mut compiler = Compiler::new();
        for (name, text) in inputs {
            compiler.source(*name, text.clone());
        }
        compiler.compile()
    };
    let shared = compile(&[
        ("a.yaml", spec("Orders", "Order")),
        ("b.yaml", spec("Orders", "Invoice")),
    ]);
    let refused: Vec<_> = shared
        .diagnostics
        .iter()
        .filter(|d| d.code.name() == "duplicate_name")
        .collect();
    assert_eq!(refused.len(), 1, "{:?}", shared.diagnostics);
    assert!(
        refused[0].message.contains("`a.yaml`"),
        "{}",
        refused[0].message
    );
    // The text report shows each file's own line, the other file's with
    // where it is.
    let text = format!("{:?}", shared.into_result().expect_err("refused"));
    assert!(
        text.contains("b.yaml:2:16: error[singletable::duplicate_name]")
            && text.contains(" --> a.yaml:2:16\n")
            && text.contains("described here first"),
        "{text}"
    );
    let versions = compile(&[
        ("v1.yaml", spec("Orders", "Order")),
        ("v2.yaml", spec("Orders", "Order")),
    ]);
    assert!(
        !versions.diagnostics.has_errors(),
        "{:?}",
        versions.diagnostics
    );
    let apart = compile(&[
        ("a.yaml", spec("Orders", "Order")),
        ("b.yaml", spec("Invoices", "Invoice")),
    ]);
    assert!(!apart.diagnostics.has_errors(), "{:?}", apart.diagnostics);
}
