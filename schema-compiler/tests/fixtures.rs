//! Fixture-driven tests of the diagnostics.
//!
//! Every `fixtures/fail/*.yaml` demonstrates one mistake (its first line says
//! which, and names the expected code); its plain-text and JSON reports are
//! snapshotted under `tests/snapshots/`. Every `fixtures/pass/*.yaml` and
//! every `schemas/*.yaml` must compile without errors or warnings (notes
//! are information, not findings).
//!
//! Fixtures are compiled from memory under their workspace-relative name
//! (`fixtures/fail/x.yaml`), so snapshots do not depend on where the
//! repository is checked out.

mod support;

use std::collections::BTreeSet;

use singletable::diagnostics::{Code, Severity};
use singletable::{Compilation, Compiler};
use support::{is_emitted, workspace_root};

/// A spec file found under the workspace.
struct Fixture {
    /// Workspace-relative path with `/` separators, shown in diagnostics.
    name: String,
    /// File name without `.yaml`.
    stem: String,
    /// The file's text.
    text: String,
}

impl Fixture {
    fn compile(&self) -> Compilation {
        Compiler::new()
            .source(self.name.clone(), self.text.clone())
            .compile()
    }

    /// The first line, which says what is wrong and what is expected.
    fn header(&self) -> &str {
        self.text.lines().next().unwrap_or("")
    }
}

/// Every `*.yaml` in a workspace directory, sorted by file name.
fn yaml_files(dir: &str) -> Vec<Fixture> {
    let path = workspace_root().join(dir);
    let entries =
        std::fs::read_dir(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut fixtures: Vec<Fixture> = entries
        .map(|entry| entry.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .map(|p| {
            let file_name = p
                .file_name()
                .and_then(|n| n.to_str())
                .expect("UTF-8 file name");
            let stem = p
                .file_stem()
                .and_then(|n| n.to_str())
                .expect("UTF-8 file name");
            Fixture {
                name: format!("{dir}/{file_name}"),
                stem: stem.to_owned(),
                text: std::fs::read_to_string(&p)
                    .unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display())),
            }
        })
        .collect();
    fixtures.sort_by(|a, b| a.name.cmp(&b.name));
    assert!(!fixtures.is_empty(), "no .yaml files in {dir}");
    fixtures
}

fn fail_fixtures() -> Vec<Fixture> {
    yaml_files("fixtures/fail")
}

/// The code a fail fixture is named after: the longest code name that is
/// the whole stem or a prefix of it followed by `_`.
fn code_of_stem(stem: &str) -> Option<Code> {
    Code::ALL
        .iter()
        .copied()
        .filter(|c| {
            stem == c.name()
                || stem
                    .strip_prefix(c.name())
                    .is_some_and(|rest| rest.starts_with('_'))
        })
        .max_by_key(|c| c.name().len())
}

fn codes(compilation: &Compilation) -> BTreeSet<Code> {
    compilation.diagnostics.iter().map(|d| d.code).collect()
}

/// Fixtures whose mistake is currently reported under another code than the
/// one they are named after. Each stays listed until the compiler reports
/// the named code; `fixtures_report_the_code_they_are_named_after` fails
/// when an entry becomes stale, so the list cannot silently outlive a fix.
const REPORTED_UNDER_ANOTHER_CODE: &[&str] = &[];

#[test]
fn fail_fixtures_report_errors_and_match_snapshots() {
    let mut failed = Vec::new();
    for fixture in fail_fixtures() {
        let outcome = std::panic::catch_unwind(|| {
            let compilation = fixture.compile();
            let report = compilation.report();
            // A fixture named after a warning or note code may show just
            // that code; every other fixture shows an error.
            let shows_its_lint = code_of_stem(&fixture.stem).is_some_and(|c| {
                c.default_severity() != Severity::Error && codes(&compilation).contains(&c)
            });
            assert!(
                compilation.has_errors() || shows_its_lint,
                "{} reports no error:\n{}",
                fixture.name,
                report.to_text()
            );
            insta::with_settings!({
                snapshot_suffix => fixture.stem.as_str(),
                description => fixture.header(),
                input_file => workspace_root().join(&fixture.name),
                omit_expression => true,
            }, {
                insta::assert_snapshot!("text", report.to_text());
                insta::assert_json_snapshot!("json", report.to_json());
            });
        });
        if outcome.is_err() {
            failed.push(fixture.name);
        }
    }
    assert!(failed.is_empty(), "fixtures that failed: {failed:#?}");
}

/// Warnings a reference spec is known to have, as (spec, code). A spec
/// acknowledges a deliberate warning in its own `lints`; an entry here is a
/// warning still to be fixed or acknowledged there, and
/// `pass_fixtures_and_schemas_are_clean` fails once it no longer occurs.
const KNOWN_WARNINGS: &[(&str, Code)] = &[
    // A tenant GSI: the other reference specs acknowledge this warning.
    ("schemas/support_ticket.yaml", Code::GsiWriteIsolation),
];

#[test]
fn pass_fixtures_and_schemas_are_clean() {
    let specs = yaml_files("fixtures/pass")
        .into_iter()
        .chain(yaml_files("schemas"));
    let mut known_seen = BTreeSet::new();
    for spec in specs {
        let compilation = spec.compile();
        let unexpected: Vec<_> = compilation
            .diagnostics
            .iter()
            .filter(|d| d.severity != Severity::Note)
            .filter(|d| {
                let known = d.severity == Severity::Warning
                    && KNOWN_WARNINGS.contains(&(spec.name.as_str(), d.code));
                if known {
                    known_seen.insert((spec.name.clone(), d.code));
                }
                !known
            })
            .collect();
        assert!(
            unexpected.is_empty(),
            "{}: {} error(s) or warning(s)\n{}",
            spec.name,
            unexpected.len(),
            compilation.report().to_text()
        );
        assert_eq!(compilation.specs.len(), 1, "{} did not resolve", spec.name);
    }
    for (spec, code) in KNOWN_WARNINGS {
        assert!(
            known_seen.contains(&(spec.to_string(), *code)),
            "{spec} no longer reports `{code}`: remove it from KNOWN_WARNINGS"
        );
    }
}

/// Every code the compiler can report, except `io` (a file that cannot be
/// read is not a fixture), is produced by at least one fail fixture, or by
/// a lock fixture (`fixtures/lock/<code>/spec.yaml`, compiled beside its
/// `singletable.lock`).
#[test]
fn every_code_is_produced_by_a_fail_fixture() {
    let lock_fixtures = workspace_root().join("fixtures/lock");
    let mut produced: BTreeSet<Code> = fail_fixtures()
        .iter()
        .flat_map(|f| codes(&f.compile()))
        .collect();
    for dir in std::fs::read_dir(&lock_fixtures).expect("fixtures/lock") {
        let spec = dir.expect("an entry").path().join("spec.yaml");
        produced.extend(codes(&Compiler::new().file(&spec).compile()));
    }
    let missing: Vec<&str> = Code::ALL
        .iter()
        .filter(|c| **c != Code::Io && is_emitted(**c) && !produced.contains(c))
        .map(|c| c.name())
        .collect();
    assert!(missing.is_empty(), "no fail fixture produces: {missing:?}");
}

#[test]
fn fixtures_report_the_code_they_are_named_after() {
    for fixture in fail_fixtures() {
        if ["three_mistakes", "every_problem_at_once"].contains(&fixture.stem.as_str()) {
            continue;
        }
        let code = code_of_stem(&fixture.stem)
            .unwrap_or_else(|| panic!("{} is not named after a code", fixture.name));
        assert!(
            fixture.header().starts_with("# Wrong") && fixture.header().contains(&code.to_string()),
            "{}: the first line must say what is wrong and name `{code}`",
            fixture.name
        );
        let reported = codes(&fixture.compile()).contains(&code);
        let listed = REPORTED_UNDER_ANOTHER_CODE.contains(&fixture.stem.as_str());
        assert!(
            reported != listed,
            "{}: `{code}` {} but the fixture is {} REPORTED_UNDER_ANOTHER_CODE",
            fixture.name,
            if reported {
                "is reported"
            } else {
                "is not reported"
            },
            if listed { "listed in" } else { "missing from" }
        );
    }
}

#[test]
fn three_mistakes_are_reported_together() {
    let fixture = fail_fixtures()
        .into_iter()
        .find(|f| f.stem == "three_mistakes")
        .expect("fixtures/fail/three_mistakes.yaml exists");
    let compilation = fixture.compile();
    let found: Vec<(Code, usize)> = compilation
        .report()
        .to_json()
        .as_array()
        .expect("the JSON report is an array")
        .iter()
        .map(|d| {
            let name = d["code"].as_str().expect("a code");
            let code = Code::ALL
                .iter()
                .copied()
                .find(|c| c.to_string() == name)
                .expect("a known code");
            (code, d["line"].as_u64().expect("a line") as usize)
        })
        .collect();
    assert_eq!(
        found,
        [
            (Code::UnknownPlaceholder, 18),
            (Code::UnknownIndex, 21),
            (Code::UnknownEntity, 26),
        ],
        "\n{}",
        compilation.report().to_text()
    );
    assert_eq!(compilation.diagnostics.count(Severity::Error), 3);
}

#[test]
fn a_resolution_error_hides_no_finding_about_other_entities() {
    let fixture = fail_fixtures()
        .into_iter()
        .find(|f| f.stem == "every_problem_at_once")
        .expect("fixtures/fail/every_problem_at_once.yaml exists");
    let found = codes(&fixture.compile());
    assert_eq!(
        found,
        [
            Code::UnknownType,
            Code::TenantPrefixMissing,
            Code::TenantPrefixUnsafe,
            Code::DelimiterInjection,
            Code::KeyTooLarge,
        ]
        .into_iter()
        .collect(),
        "\n{}",
        fixture.compile().report().to_text()
    );
}
