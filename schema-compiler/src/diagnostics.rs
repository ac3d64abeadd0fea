//! Diagnostics: collected across a whole run, each with a stable code, a
//! message, labels on YAML spans and a help line.
//!
//! Resolution and checks never stop at the first problem: they push into a
//! [`Diagnostics`] collector and carry on, so one run reports everything.

use std::fmt;

use serde::Serialize;

use crate::source::{SourceMap, Span};

mod codes;
mod render;

pub use codes::Code;
pub(crate) use render::render_label;
pub use render::{render_json, render_text, JsonDiagnostic, JsonLabel};

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The spec cannot be compiled as written.
    Error,
    /// The spec compiles, but something is likely wrong or wasteful.
    Warning,
    /// Information worth knowing (for example, entities exempt from a rule).
    Note,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        })
    }
}

/// A span with a short explanation ("this GSI partition key").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    /// Where.
    pub span: Span,
    /// What it is, in a few words.
    pub message: String,
}

/// One finding about a spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The stable code.
    pub code: Code,
    /// Error, warning or note.
    pub severity: Severity,
    /// One short sentence.
    pub message: String,
    /// The primary label comes first.
    pub labels: Vec<Label>,
    /// How to fix it.
    pub help: Option<String>,
}

impl Diagnostic {
    /// A diagnostic with the code's default severity.
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity: code.default_severity(),
            message: message.into(),
            labels: Vec::new(),
            help: None,
        }
    }

    /// Adds a label. The first label added is the primary one.
    pub fn label(mut self, span: Span, message: impl Into<String>) -> Self {
        if !span.is_dummy() {
            self.labels.push(Label {
                span,
                message: message.into(),
            });
        }
        self
    }

    /// Sets the help line.
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Overrides the severity.
    pub fn severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    /// The span of the primary label, if any.
    pub fn primary_span(&self) -> Option<Span> {
        self.labels.first().map(|l| l.span)
    }
}

/// The collector passed `&mut` through resolution and checks.
#[derive(Debug, Clone, Default)]
pub struct Diagnostics {
    items: Vec<Diagnostic>,
}

impl Diagnostics {
    /// An empty collector.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records a diagnostic.
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.items.push(diagnostic);
    }

    /// Drops the diagnostics recorded since the first `from` whose code is
    /// one of `codes`: the follow-on errors of a root cause reported among
    /// them.
    pub(crate) fn drop_since(&mut self, from: usize, codes: &[Code]) {
        let mut i = 0;
        self.items.retain(|d| {
            i += 1;
            i <= from || !codes.contains(&d.code)
        });
    }

    /// Whether any error (not warning or note) was recorded.
    pub fn has_errors(&self) -> bool {
        self.items.iter().any(|d| d.severity == Severity::Error)
    }

    /// Number of diagnostics of a severity.
    pub fn count(&self, severity: Severity) -> usize {
        self.items.iter().filter(|d| d.severity == severity).count()
    }

    /// All diagnostics, in source order (file, then offset), errors first on ties.
    pub fn sorted(&self) -> Vec<&Diagnostic> {
        let mut items: Vec<&Diagnostic> = self.items.iter().collect();
        items.sort_by_key(|d| {
            let span = d.primary_span().unwrap_or(Span::DUMMY);
            (span.file, span.start, d.severity, d.code)
        });
        items
    }

    /// All diagnostics in the order they were recorded.
    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.items.iter()
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Number of diagnostics.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Moves every diagnostic of `other` into `self`.
    pub fn extend(&mut self, other: Diagnostics) {
        self.items.extend(other.items);
    }
}

impl IntoIterator for Diagnostics {
    type Item = Diagnostic;
    type IntoIter = std::vec::IntoIter<Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

/// The error a compilation returns: every diagnostic, with the sources to show them.
///
/// Its `Display` prints one `path:line:col: error[code]: message` line per
/// diagnostic; its `Debug` each diagnostic whole, with the spec's lines and
/// the help, which is what a build script's `main` returning
/// `Result<(), Report>` prints when a check fails.
#[derive(Clone)]
pub struct Report {
    /// The files the diagnostics point into.
    pub sources: SourceMap,
    /// What was found.
    pub diagnostics: Diagnostics,
}

impl Report {
    /// Renders the report as plain text (no colour), one block per diagnostic.
    pub fn to_text(&self) -> String {
        render_text(&self.sources, &self.diagnostics)
    }

    /// Renders the report as JSON.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(render_json(&self.sources, &self.diagnostics))
            .expect("diagnostics serialize to JSON")
    }

    /// Adapters that let miette render each diagnostic with its source.
    pub fn miette_diagnostics(&self) -> Vec<render::MietteDiagnostic> {
        render::to_miette(&self.sources, &self.diagnostics)
    }
}

/// Every diagnostic whole, as [`Report::to_text`] renders it: the
/// `path:line:col: error[code]: message` line, the lines of the spec it
/// points at with its labels, and its help. A build script whose `main`
/// returns `Result<(), Report>` (or that unwraps one) prints this, and
/// cargo shows it when the build fails.
impl fmt::Debug for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("\n")?;
        f.write_str(&self.to_text())
    }
}

/// One `path:line:col: error[code]: message` line per diagnostic.
impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in self.diagnostics.sorted() {
            match d.primary_span().and_then(|s| self.sources.location(s)) {
                Some(loc) => writeln!(f, "{loc}: {}[{}]: {}", d.severity, d.code, d.message)?,
                None => writeln!(f, "{}[{}]: {}", d.severity, d.code, d.message)?,
            }
        }
        Ok(())
    }
}

impl std::error::Error for Report {}

/// "did you mean `x`?" for the closest of `candidates`, if one is close enough.
pub fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(name, c), c))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0).then_with(|| b.1.cmp(a.1)))
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn did_you_mean_finds_close_names_only() {
        assert_eq!(did_you_mean("tenent", ["tenant", "id"]), Some("tenant"));
        assert_eq!(did_you_mean("zzz", ["tenant", "id"]), None);
    }
}
