//! `docs/diagnostics.md` documents every code, and its examples are real.
//!
//! Each code has a `## singletable::<name>` section, in the order of
//! `Code::ALL`. A section's example is a fail fixture without its comment
//! line, shown as `spec.yaml`, followed by the plain-text report; both must
//! be what the fixture holds and what the compiler prints, so the page
//! cannot drift from the compiler. A code that no rule reports yet shows a
//! YAML example only, which must compile without errors until the rule
//! lands; from then on it needs its fixture and rendering like the others.

mod support;

use singletable::diagnostics::Code;
use singletable::Compiler;
use support::{is_emitted, read};

/// One `## singletable::<name>` section.
struct Section<'a> {
    code: &'a str,
    body: &'a str,
}

fn sections(doc: &str) -> Vec<Section<'_>> {
    let mut out = Vec::new();
    let mut rest = doc;
    while let Some(start) = rest.find("\n## singletable::") {
        let after = &rest[start + "\n## singletable::".len()..];
        let (code, body) = after.split_once('\n').unwrap_or((after, ""));
        let end = body.find("\n## ").unwrap_or(body.len());
        out.push(Section {
            code: code.trim(),
            body: &body[..end],
        });
        rest = &body[end..];
    }
    out
}

/// The contents of the first fenced block of `lang` in `text`.
fn fenced<'a>(text: &'a str, lang: &str) -> Option<&'a str> {
    let open = format!("```{lang}\n");
    let start = text.find(&open)? + open.len();
    let len = text[start..].find("```")?;
    Some(&text[start..start + len])
}

/// The fixture named in "Example (`fixtures/fail/x.yaml`)" (or
/// `fixtures/lock/<code>/spec.yaml`, a spec beside its lock).
fn fixture_path(body: &str) -> Option<&str> {
    let start = body
        .find("(`fixtures/fail/")
        .or_else(|| body.find("(`fixtures/lock/"))?
        + 2;
    let len = body[start..].find('`')?;
    Some(&body[start..start + len])
}

#[test]
fn every_code_has_a_section_in_code_order() {
    let doc = read("docs/diagnostics.md");
    let documented: Vec<&str> = sections(&doc).iter().map(|s| s.code).collect();
    let codes: Vec<&str> = Code::ALL.iter().map(|c| c.name()).collect();
    assert_eq!(documented, codes);
}

/// A rendering of a fixture file with its comment line, as if the line
/// were not there: every `spec.yaml:<line>` and snippet line number one
/// less.
fn renumber(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let line = match line.split_once("spec.yaml:") {
            Some((before, after)) => {
                let (number, rest) = after.split_at(after.find(':').unwrap_or(after.len()));
                match number.parse::<usize>() {
                    Ok(n) => format!("{before}spec.yaml:{}{rest}", n.saturating_sub(1)),
                    Err(_) => line.to_owned(),
                }
            }
            None => {
                let trimmed = line.trim_start();
                match trimmed.split_once(" | ") {
                    Some((number, rest)) if number.parse::<usize>().is_ok() => {
                        let n = number.parse::<usize>().unwrap_or(1) - 1;
                        let width = line.len() - trimmed.len() + number.len();
                        format!("{n:>width$} | {rest}")
                    }
                    _ => line.to_owned(),
                }
            }
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

#[test]
fn examples_are_fixtures_and_render_as_shown() {
    let doc = read("docs/diagnostics.md");
    let mut blessed = doc.clone();
    let mut checked = 0;
    for section in sections(&doc) {
        let code = Code::ALL
            .iter()
            .copied()
            .find(|c| c.name() == section.code)
            .unwrap_or_else(|| panic!("`{}` is not a code", section.code));
        if code != Code::Io && !is_emitted(code) {
            let yaml = fenced(section.body, "yaml")
                .unwrap_or_else(|| panic!("{}: no YAML example", section.code));
            let compilation = Compiler::new().source("spec.yaml", yaml).compile();
            assert!(
                !compilation.has_errors() && fenced(section.body, "text").is_none(),
                "{}: an example of a code no rule reports must be a valid spec, shown without a rendering:\n{}",
                section.code,
                compilation.report().to_text()
            );
            continue;
        }
        let rendered = fenced(section.body, "text")
            .unwrap_or_else(|| panic!("{}: no rendered diagnostic", section.code));
        assert!(
            rendered.contains(&format!("[singletable::{}]", section.code)),
            "{}: the rendered example shows another code:\n{rendered}",
            section.code
        );
        let Some(yaml) = fenced(section.body, "yaml") else {
            // `io` has no spec to show: its example is a command line.
            assert_eq!(section.code, Code::Io.name(), "no YAML example");
            continue;
        };
        let fixture = fixture_path(section.body)
            .unwrap_or_else(|| panic!("{}: the example names no fixture", section.code));
        let text = read(fixture);
        let (_, without_comment) = text
            .split_once('\n')
            .unwrap_or_else(|| panic!("{fixture} has no comment line"));
        assert_eq!(
            yaml, without_comment,
            "{}: the example is not {fixture}",
            section.code
        );
        let report = if fixture.starts_with("fixtures/lock/") {
            // Compared with the `singletable.lock` beside it: compiled as
            // the file, shown as `spec.yaml`.
            let path = support::workspace_root().join(fixture);
            let text = Compiler::new().file(&path).compile().report().to_text();
            let shown = text
                .replace(&format!("{}:", path.display()), "spec.yaml:")
                .replace(&path.display().to_string(), "spec.yaml");
            // The comment line is not shown: every line number moves up one.
            renumber(&shown)
        } else {
            Compiler::new()
                .source("spec.yaml", yaml)
                .compile()
                .report()
                .to_text()
        };
        if std::env::var_os("SINGLETABLE_BLESS").is_some() {
            // Rewrites the rendering shown in the docs with the compiler's.
            blessed = blessed.replacen(rendered.trim_end(), report.trim_end(), 1);
            checked += 1;
            continue;
        }
        assert_eq!(
            rendered.trim_end(),
            report.trim_end(),
            "{}: docs/diagnostics.md shows another rendering than the compiler prints",
            section.code
        );
        checked += 1;
    }
    if blessed != doc {
        std::fs::write(
            support::workspace_root().join("docs/diagnostics.md"),
            &blessed,
        )
        .expect("write docs/diagnostics.md");
    }
    let emitted = Code::ALL
        .iter()
        .filter(|c| **c != Code::Io && is_emitted(**c))
        .count();
    assert_eq!(
        checked, emitted,
        "every reported code but `io` has a rendered example"
    );
}
