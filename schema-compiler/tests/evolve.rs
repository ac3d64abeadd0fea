//! `singletable diff` and the lock: every case of `fixtures/evolve/` (an old
//! and a new spec) reports its changes as its snapshot shows; a design
//! compared with itself, or with a copy edited only cosmetically, has no
//! change; and a spec beside its lock builds only once the lock accepts
//! its changes, then with the jobs they need.

mod support;

use std::path::{Path, PathBuf};

use singletable::evolve::lock::{LockFile, LockedSpec};
use singletable::evolve::{self, Against, Class, Design};
use singletable::Compiler;
use support::{fixture_paths, spec_paths, workspace_root};

fn cases() -> Vec<PathBuf> {
    let dir = workspace_root().join("fixtures/evolve");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fixtures/evolve")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    assert!(cases.len() >= 10, "the evolution cases");
    cases
}

/// `text` with the workspace's path removed, so snapshots do not depend
/// on where the repository is.
fn relative(text: &str) -> String {
    text.replace(&format!("{}/", workspace_root().display()), "")
}

#[test]
fn every_case_reports_its_changes_as_its_snapshot_shows() {
    for case in cases() {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let comparison = evolve::compare(
            &case.join("new.yaml"),
            &Against::File(case.join("old.yaml")),
        )
        .unwrap_or_else(|r| panic!("{name}: {}", r.to_text()));
        assert!(
            !comparison.findings.is_empty(),
            "{name}: a case changes something"
        );
        let text = relative(&evolve::render_text(
            &comparison.sources,
            &comparison.findings,
        ));
        insta::assert_snapshot!(format!("evolve_{name}"), text);
    }
}

#[test]
fn findings_as_json_carry_class_order_witness_plan_and_jobs() {
    let case = workspace_root().join("fixtures/evolve/table_key_changed");
    let comparison = evolve::compare(
        &case.join("new.yaml"),
        &Against::File(case.join("old.yaml")),
    )
    .unwrap();
    let json = serde_json::to_value(evolve::render_json(
        &comparison.sources,
        &comparison.findings,
    ))
    .unwrap();
    let first = &json[0];
    assert_eq!(first["code"], "singletable::evolve::table_key_changed");
    assert_eq!(first["class"], "breaking");
    assert_eq!(first["deploy_order"], "writers");
    assert_eq!(first["jobs"][0]["kind"], "rekey");
    assert!(
        first["witness"].as_str().unwrap().contains("ORDER#"),
        "{first}"
    );
    assert!(first["plan"].as_array().unwrap().len() >= 3);
    assert_eq!(
        first["file"].as_str().map(relative),
        Some("fixtures/evolve/table_key_changed/new.yaml".to_owned())
    );
}

#[test]
fn a_design_compared_with_itself_or_a_cosmetic_edit_has_no_change() {
    let paths: Vec<PathBuf> = spec_paths()
        .into_iter()
        .chain(fixture_paths("pass"))
        .collect();
    let mut compared = 0;
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        let compiled = Compiler::new().source("a.yaml", text.clone()).compile();
        let Some(spec) = compiled.specs.first() else {
            continue;
        };
        // The same design: every description changed, a comment added.
        // Plain descriptions reworded (quoted or block ones are left as
        // they are: the edit must stay valid YAML), and a comment added.
        let reworded: String = text
            .lines()
            .map(|line| match line.split_once("description: ") {
                Some((before, after))
                    if after.starts_with(|c: char| c.is_ascii_alphabetic())
                        && !after.contains(':') =>
                {
                    format!("{before}description: Reworded {after}\n")
                }
                _ => format!("{line}\n"),
            })
            .collect();
        let edited = format!("# edited\n{reworded}");
        let edited = Compiler::new().source("b.yaml", edited).compile();
        let other = &edited
            .specs
            .first()
            .unwrap_or_else(|| {
                panic!(
                    "{}: the edit compiles: {}",
                    path.display(),
                    edited.report().to_text()
                )
            })
            .spec;
        assert!(
            evolve::diff(&spec.spec, &spec.spec).is_empty(),
            "{}",
            path.display()
        );
        let changes = evolve::diff(&spec.spec, other);
        assert!(
            changes.is_empty(),
            "{}: {:?}",
            path.display(),
            changes.iter().map(|f| f.key()).collect::<Vec<_>>()
        );
        assert_eq!(
            Design::of(&spec.spec).hash(),
            Design::of(other).hash(),
            "{}",
            path.display()
        );
        compared += 1;
    }
    assert!(compared >= 30, "{compared}");
}

/// A directory of its own under the system's temporary directory.
fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("singletable-evolve-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn lock_at(dir: &Path, spec: &LockedSpec) {
    let mut lock = LockFile::default();
    lock.set(spec.clone());
    std::fs::write(dir.join("singletable.lock"), lock.to_text()).unwrap();
}

#[test]
fn a_spec_builds_on_its_lock_only_once_the_lock_accepts_its_changes() {
    let case = workspace_root().join("fixtures/evolve/index_computed_keys_added");
    let (old, new) = (
        std::fs::read_to_string(case.join("old.yaml")).unwrap(),
        std::fs::read_to_string(case.join("new.yaml")).unwrap(),
    );
    let dir = scratch("lock");
    let spec = dir.join("shop.yaml");
    std::fs::write(&spec, &old).unwrap();
    let old_design = Design::of(&Compiler::new().file(&spec).compile().specs[0].spec);
    let baseline = LockedSpec::baseline("shop.yaml", &old, &old_design);
    lock_at(&dir, &baseline);
    assert!(
        !Compiler::new().file(&spec).compile().has_errors(),
        "the locked design builds"
    );

    // The change, not accepted: the build fails with its diagnostics.
    std::fs::write(&spec, &new).unwrap();
    let refused = Compiler::new().file(&spec).compile();
    let codes: Vec<&str> = refused.diagnostics.iter().map(|d| d.code.name()).collect();
    assert!(
        codes.contains(&"unaccepted_change"),
        "{}",
        refused.report().to_text()
    );
    let text = refused.report().to_text();
    assert!(
        text.contains("index_computed_keys_added(Order,GSI2)"),
        "{text}"
    );

    // Accepted: it builds, with the backfill pending and its pattern waiting.
    let comparison = evolve::compare(&spec, &Against::Lock).unwrap();
    assert!(comparison
        .findings
        .iter()
        .any(|f| f.class == Class::Backfill));
    let new_design = Design::of(&comparison.new);
    let accepted = baseline.accept(&new, &new_design, &comparison.findings, &old_design);
    assert_eq!(
        accepted.generation, 1,
        "no breaking change, no new generation"
    );
    assert_eq!(accepted.pending_jobs()[0].id, "backfill-order-gsi2");
    assert_ne!(accepted.chain, baseline.chain);
    lock_at(&dir, &accepted);
    let built = Compiler::new().file(&spec).compile();
    assert!(!built.has_errors(), "{}", built.report().to_text());
    assert!(built.specs[0].lock.is_some());
    let files = Compiler::new().file(&spec).generate_rust().unwrap();
    let module = &files[0].contents;
    assert!(module.contains("BackfillIndexKeys"), "the job is generated");
    assert!(module.contains("\"backfill-order-gsi2\""));

    // A compatible change later: a warning, an error in locked mode.
    std::fs::write(
        &spec,
        new.replace(
            "      placed_at: datetime\n",
            "      placed_at: datetime\n      gift: { type: boolean, optional: true }\n",
        ),
    )
    .unwrap();
    let warned = Compiler::new().file(&spec).compile();
    assert!(!warned.has_errors());
    assert!(warned
        .diagnostics
        .iter()
        .any(|d| d.code.name() == "unrecorded_change"));
    assert!(Compiler::new()
        .locked(true)
        .file(&spec)
        .compile()
        .has_errors());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_breaking_change_bumps_the_generation_and_reserves_the_old_key() {
    let case = workspace_root().join("fixtures/evolve/table_key_changed");
    let old = std::fs::read_to_string(case.join("old.yaml")).unwrap();
    let new = std::fs::read_to_string(case.join("new.yaml")).unwrap();
    let dir = scratch("breaking");
    let spec = dir.join("shop.yaml");
    std::fs::write(&spec, &old).unwrap();
    let old_design = Design::of(&Compiler::new().file(&spec).compile().specs[0].spec);
    let baseline = LockedSpec::baseline("shop.yaml", &old, &old_design);
    std::fs::write(&spec, &new).unwrap();
    lock_at(&dir, &baseline);
    let comparison = evolve::compare(&spec, &Against::Lock).unwrap();
    let accepted = baseline.accept(
        &new,
        &Design::of(&comparison.new),
        &comparison.findings,
        &old_design,
    );
    assert_eq!(accepted.generation, 2);
    assert_eq!(
        accepted.reserved.key_prefixes["Order"],
        vec!["TENANT#<tenant>|ORDER#<id>".to_owned()]
    );
    let entry = accepted.history.last().unwrap();
    assert!(
        entry.previous.is_some(),
        "a re-key records the spec it moves from"
    );
    // The lock reads back as written.
    lock_at(&dir, &accepted);
    let read = LockFile::read(&dir.join("singletable.lock"))
        .unwrap()
        .unwrap();
    assert_eq!(read.spec("shop.yaml"), Some(&accepted));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `docs/evolution.md` has one row per change code, with the code's row,
/// class and deploy order as the compiler has them, and no other row.
#[test]
fn the_guide_lists_every_change_code_with_its_class_and_order() {
    let guide = std::fs::read_to_string(workspace_root().join("docs/evolution.md"))
        .expect("docs/evolution.md");
    let rows: Vec<Vec<&str>> = guide
        .lines()
        .filter(|l| l.starts_with("| ") && l.contains(" | `"))
        .map(|l| {
            l.split(" | ")
                .map(|c| c.trim_matches(['|', ' ', '`']))
                .collect()
        })
        .filter(|cells: &Vec<&str>| cells.len() == 5)
        .collect();
    for code in evolve::ChangeCode::ALL {
        let row = rows
            .iter()
            .find(|cells| cells[1] == code.name())
            .unwrap_or_else(|| panic!("docs/evolution.md has no row for `{}`", code.name()));
        assert_eq!(
            (row[0], row[2], row[3]),
            (
                code.row(),
                code.default_class().name(),
                code.deploy_order().name()
            ),
            "the row of `{}`",
            code.name()
        );
    }
    assert_eq!(
        rows.len(),
        evolve::ChangeCode::ALL.len(),
        "rows without a code"
    );
}
