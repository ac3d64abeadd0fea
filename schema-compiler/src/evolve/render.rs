//! Findings as text (the diagnostic format, with the class in place of the
//! severity) and as JSON (`--format json`).

use std::fmt::Write as _;

use serde::Serialize;

use super::codes::{Class, DeployOrder};
use super::diff::{Finding, Job};
use crate::diagnostics::{render_label, JsonLabel};
use crate::source::SourceMap;

/// A finding in JSON output: the diagnostic fields, and the class, deploy
/// order, witness, plan and jobs.
#[derive(Debug, Clone, Serialize)]
pub struct JsonFinding {
    /// `singletable::evolve::<name>`.
    pub code: String,
    /// `compatible`, `backfill`, `breaking` or `clients`.
    pub class: Class,
    /// `any`, `readers`, `writers` or `infrastructure`.
    pub deploy_order: DeployOrder,
    /// Recorded as accepted in the lock.
    pub accepted: bool,
    /// What it is about.
    pub subject: String,
    /// The message.
    pub message: String,
    /// File of the primary label.
    pub file: Option<String>,
    /// Line of the primary label.
    pub line: Option<usize>,
    /// Column of the primary label.
    pub column: Option<usize>,
    /// Every label: the new spec's first, then the old one's.
    pub labels: Vec<JsonLabel>,
    /// The witness item and what the new design does with it.
    pub witness: Option<String>,
    /// The steps, in order.
    pub plan: Vec<String>,
    /// The jobs it needs.
    pub jobs: Vec<Job>,
    /// CloudFormation applies it by replacing the table.
    pub replaces_table: bool,
}

/// Findings as JSON records.
pub fn render_json(sources: &SourceMap, findings: &[Finding]) -> Vec<JsonFinding> {
    findings
        .iter()
        .map(|f| {
            let labels: Vec<JsonLabel> = f
                .labels
                .iter()
                .filter_map(|l| {
                    let loc = sources.location(l.span)?;
                    Some(JsonLabel {
                        message: l.message.clone(),
                        file: loc.file,
                        line: loc.line,
                        column: loc.column,
                        offset: l.span.start,
                        length: l.span.end - l.span.start,
                    })
                })
                .collect();
            let first = labels.first();
            JsonFinding {
                code: f.code.to_string(),
                class: f.class,
                deploy_order: f.deploy_order(),
                accepted: f.accepted,
                subject: f.subject.clone(),
                message: f.message.clone(),
                file: first.map(|l| l.file.clone()),
                line: first.map(|l| l.line),
                column: first.map(|l| l.column),
                witness: f.witness.clone(),
                plan: f.plan(),
                jobs: f.jobs.clone(),
                replaces_table: f.replaces_table,
                labels,
            }
        })
        .collect()
}

/// Findings as plain text: `path:line:col: class[code]: message`, the
/// labelled lines of the new spec (then of the old one, under its name),
/// the witness, the plan and the deploy order.
pub fn render_text(sources: &SourceMap, findings: &[Finding]) -> String {
    let mut out = String::new();
    for f in findings {
        let accepted = if f.accepted { " (accepted)" } else { "" };
        match f.labels.first().and_then(|l| sources.location(l.span)) {
            Some(loc) => {
                let _ = writeln!(
                    out,
                    "{loc}: {}[{}]: {}{accepted}",
                    f.class, f.code, f.message
                );
            }
            None => {
                let _ = writeln!(out, "{}[{}]: {}{accepted}", f.class, f.code, f.message);
            }
        }
        let gutter = f
            .labels
            .iter()
            .filter_map(|l| sources.location(l.span))
            .map(|l| l.line.to_string().len())
            .max()
            .unwrap_or(1);
        let primary = f.labels.first().map(|l| l.span.file);
        for label in &f.labels {
            if Some(label.span.file) != primary {
                if let Some(loc) = sources.location(label.span) {
                    let _ = writeln!(out, "{:gutter$}--> {loc}", "");
                }
            }
            render_label(&mut out, sources, label.span, &label.message, gutter);
        }
        if let Some(w) = &f.witness {
            let _ = writeln!(out, "  = witness: {w}");
        }
        let _ = writeln!(out, "  = plan: {}", f.plan().join(" → "));
        let _ = writeln!(out, "  = deploy: {}", order_words(f.deploy_order()));
        if f.replaces_table {
            let _ = writeln!(
                out,
                "  = CloudFormation applies this change by replacing the table"
            );
        }
        out.push('\n');
    }
    out
}

fn order_words(order: DeployOrder) -> &'static str {
    match order {
        DeployOrder::Any => "in any order",
        DeployOrder::Readers => "readers first",
        DeployOrder::Writers => "writers first",
        DeployOrder::Infrastructure => "the table's infrastructure first",
    }
}
