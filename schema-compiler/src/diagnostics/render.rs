//! Rendering diagnostics: plain text (for build scripts and snapshots), JSON
//! (for `--format json`) and miette adapters (for the CLI's terminal output).

use std::fmt::Write as _;

use serde::Serialize;

use super::{Diagnostic, Diagnostics};
use crate::source::{SourceMap, Span};

/// A label in JSON output.
#[derive(Debug, Clone, Serialize)]
pub struct JsonLabel {
    /// What the label says.
    pub message: String,
    /// The file name.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// Byte offset in the file.
    pub offset: u32,
    /// Length in bytes.
    pub length: u32,
}

/// A diagnostic in JSON output.
#[derive(Debug, Clone, Serialize)]
pub struct JsonDiagnostic {
    /// The stable code, e.g. `singletable::unknown_placeholder`.
    pub code: String,
    /// `error`, `warning` or `note`.
    pub severity: super::Severity,
    /// The message.
    pub message: String,
    /// File of the primary label.
    pub file: Option<String>,
    /// Line of the primary label.
    pub line: Option<usize>,
    /// Column of the primary label.
    pub column: Option<usize>,
    /// Every label, primary first.
    pub labels: Vec<JsonLabel>,
    /// How to fix it.
    pub help: Option<String>,
}

fn json_label(sources: &SourceMap, span: Span, message: &str) -> Option<JsonLabel> {
    let loc = sources.location(span)?;
    Some(JsonLabel {
        message: message.to_owned(),
        file: loc.file,
        line: loc.line,
        column: loc.column,
        offset: span.start,
        length: span.end - span.start,
    })
}

/// Diagnostics as serializable records, in source order.
pub fn render_json(sources: &SourceMap, diagnostics: &Diagnostics) -> Vec<JsonDiagnostic> {
    diagnostics
        .sorted()
        .into_iter()
        .map(|d| {
            let labels: Vec<JsonLabel> = d
                .labels
                .iter()
                .filter_map(|l| json_label(sources, l.span, &l.message))
                .collect();
            let first = labels.first();
            JsonDiagnostic {
                code: d.code.to_string(),
                severity: d.severity,
                message: d.message.clone(),
                file: first.map(|l| l.file.clone()),
                line: first.map(|l| l.line),
                column: first.map(|l| l.column),
                help: d.help.clone(),
                labels,
            }
        })
        .collect()
}

/// Diagnostics as plain text without colour: a header line
/// `path:line:col: severity[code]: message`, the source line, a caret
/// underline per label and the help.
pub fn render_text(sources: &SourceMap, diagnostics: &Diagnostics) -> String {
    let mut out = String::new();
    for d in diagnostics.sorted() {
        render_one(&mut out, sources, d);
        out.push('\n');
    }
    out
}

fn render_one(out: &mut String, sources: &SourceMap, d: &Diagnostic) {
    let loc = d.primary_span().and_then(|s| sources.location(s));
    match &loc {
        Some(loc) => {
            let _ = writeln!(out, "{loc}: {}[{}]: {}", d.severity, d.code, d.message);
        }
        None => {
            let _ = writeln!(out, "{}[{}]: {}", d.severity, d.code, d.message);
        }
    }
    // One gutter width for the whole diagnostic, so the bars line up.
    let gutter = d
        .labels
        .iter()
        .filter_map(|l| {
            sources
                .get(l.span.file)
                .map(|f| f.line_col(l.span.start as usize).0)
        })
        .map(|line| line.to_string().len())
        .max()
        .unwrap_or(1);
    let primary = d.primary_span().map(|s| s.file);
    for label in &d.labels {
        // A label in another file than the first says which, and where.
        if Some(label.span.file) != primary {
            if let Some(loc) = sources.location(label.span) {
                let _ = writeln!(out, "{:gutter$} --> {loc}", "");
            }
        }
        render_label(out, sources, label.span, &label.message, gutter);
    }
    if let Some(help) = &d.help {
        let _ = writeln!(out, "  = help: {help}");
    }
}

pub(crate) fn render_label(
    out: &mut String,
    sources: &SourceMap,
    span: Span,
    message: &str,
    gutter: usize,
) {
    let Some(file) = sources.get(span.file) else {
        return;
    };
    let (line, column) = file.line_col(span.start as usize);
    let Some(text) = file.text.lines().nth(line - 1) else {
        return;
    };
    let width = file
        .slice(span)
        .map_or(1, |s| s.lines().next().unwrap_or("").chars().count().max(1));
    let _ = writeln!(out, "{:gutter$} |", "");
    let _ = writeln!(out, "{line:>gutter$} | {text}");
    let _ = writeln!(
        out,
        "{:gutter$} | {}{} {message}",
        "",
        " ".repeat(column - 1),
        "^".repeat(width)
    );
}

/// One diagnostic with its source, for miette's renderers.
#[derive(Debug)]
pub struct MietteDiagnostic {
    code: String,
    severity: miette::Severity,
    message: String,
    help: Option<String>,
    labels: Vec<miette::LabeledSpan>,
    /// The file's text, shared by every diagnostic of the file.
    source: Option<miette::NamedSource<std::sync::Arc<str>>>,
}

impl std::fmt::Display for MietteDiagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for MietteDiagnostic {}

impl miette::Diagnostic for MietteDiagnostic {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        Some(Box::new(&self.code))
    }
    fn severity(&self) -> Option<miette::Severity> {
        Some(self.severity)
    }
    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn std::fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.source.as_ref().map(|s| s as &dyn miette::SourceCode)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        Some(Box::new(self.labels.iter().cloned()))
    }
}

pub(super) fn to_miette(sources: &SourceMap, diagnostics: &Diagnostics) -> Vec<MietteDiagnostic> {
    // One copy of each file's text, however many diagnostics point into it.
    let mut texts: Vec<(crate::source::FileId, std::sync::Arc<str>)> = Vec::new();
    diagnostics
        .sorted()
        .into_iter()
        .map(|d| {
            let file = d.primary_span().and_then(|s| sources.get(s.file));
            let source = d.primary_span().zip(file).map(|(span, f)| {
                let text = match texts.iter().find(|(id, _)| *id == span.file) {
                    Some((_, text)) => text.clone(),
                    None => {
                        let text: std::sync::Arc<str> = f.text.as_str().into();
                        texts.push((span.file, text.clone()));
                        text
                    }
                };
                miette::NamedSource::new(&f.name, text)
            });
            let primary_file = d.primary_span().map(|s| s.file);
            let labels = d
                .labels
                .iter()
                .filter(|l| Some(l.span.file) == primary_file)
                .enumerate()
                .map(|(i, l)| {
                    let span = (l.span.start as usize, l.span.len());
                    if i == 0 {
                        miette::LabeledSpan::new_primary_with_span(Some(l.message.clone()), span)
                    } else {
                        miette::LabeledSpan::new_with_span(Some(l.message.clone()), span)
                    }
                })
                .collect();
            MietteDiagnostic {
                code: d.code.to_string(),
                severity: match d.severity {
                    super::Severity::Error => miette::Severity::Error,
                    super::Severity::Warning => miette::Severity::Warning,
                    super::Severity::Note => miette::Severity::Advice,
                },
                message: d.message.clone(),
                help: d.help.clone(),
                labels,
                source,
            }
        })
        .collect()
}
