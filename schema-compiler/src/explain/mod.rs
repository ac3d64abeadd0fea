//! `singletable explain`: what each access pattern compiles to (the plans
//! of `crate::plan`) as text and as AWS CLI commands, and how every key
//! placeholder is protected against delimiter injection.

use std::fmt::Write as _;

use serde::Serialize;

use crate::encoding;
use crate::ir::{self, PlaceholderKind};
pub use crate::plan::{
    key_condition, plans, query_shards, reads_shards_in_batch, typical_item_size, Plan, QueryShards,
};

/// How one key placeholder is kept from forging key structure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlaceholderSafety {
    /// Entity.
    pub entity: String,
    /// Template.
    pub template: String,
    /// Placeholder name.
    pub placeholder: String,
    /// `alphabet` (no value holds the literal it is read up to), `escaped`,
    /// `fixed width`, `ends the key`, or `unsafe`.
    pub protection: String,
    /// The literal after it, which a key is read up to (empty at the end).
    pub read_up_to: String,
}

/// The protection of every placeholder of every entity template, as
/// `check`'s `delimiter_injection` decides it: a placeholder of variable
/// width is read up to the literal after it, which its values must not be
/// able to hold an occurrence of.
pub fn placeholder_safety(spec: &ir::Spec) -> Vec<PlaceholderSafety> {
    let mut out = Vec::new();
    for entity in spec.entities.values() {
        for template in entity.templates().map(|(_, t)| t) {
            for (i, segment) in template.segments.iter().enumerate() {
                let ir::Segment::Placeholder(p) = segment else {
                    continue;
                };
                let domain = encoding::entity_placeholder_domain(spec, entity, p);
                let after = match template.segments.get(i + 1) {
                    Some(ir::Segment::Literal(l)) => Some(l.as_str()),
                    _ => None,
                };
                let protection = if domain.escaped {
                    "escaped"
                } else if domain.fixed_width {
                    "fixed width"
                } else if after.is_none() {
                    "ends the key"
                } else if after
                    .and_then(|l| crate::lang::read_too_early(&domain.alphabet, l))
                    .is_none()
                {
                    "alphabet"
                } else {
                    "unsafe"
                };
                let placeholder = match p.kind {
                    PlaceholderKind::Tenant => format!("<{}> (tenant)", p.name),
                    PlaceholderKind::Shard => format!("<{}> (shard)", p.name),
                    PlaceholderKind::Attribute => format!("<{}>", p.name),
                };
                out.push(PlaceholderSafety {
                    entity: entity.name.value.clone(),
                    template: template.source.value.clone(),
                    placeholder,
                    protection: protection.into(),
                    read_up_to: after.unwrap_or_default().to_owned(),
                });
            }
        }
    }
    out
}

/// The whole explanation as text.
pub fn render_explain(spec: &ir::Spec) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "table {}", spec.table.name);
    for plan in plans(spec) {
        let _ = writeln!(out, "\n{}", plan.name);
        if let Some(d) = &plan.description {
            let _ = writeln!(out, "  {d}");
        }
        let target = plan.index.as_ref().map_or_else(
            || plan.table.clone(),
            |i| format!("{} index {i}", plan.table),
        );
        let _ = writeln!(out, "  {} on {target}", plan.operation);
        if let Some(c) = &plan.key_condition {
            let _ = writeln!(out, "    KeyConditionExpression: {c}");
        }
        if !plan.names.is_empty() {
            let names: Vec<String> = plan.names.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let _ = writeln!(out, "    names: {}", names.join(", "));
            let values: Vec<String> = plan
                .values
                .iter()
                .map(|(k, v)| format!("{k}=\"{v}\""))
                .collect();
            let _ = writeln!(out, "    values: {}", values.join(", "));
        }
        if !plan.scan_index_forward {
            let _ = writeln!(out, "    ScanIndexForward: false");
        }
        if plan.consistent_read {
            let _ = writeln!(out, "    ConsistentRead: true");
        }
        let _ = writeln!(out, "    entities: {}", plan.entities.join(", "));
        let _ = writeln!(
            out,
            "    estimated capacity per call: {} RCU, {} WCU",
            plan.read_units, plan.write_units
        );
    }
    relative_changes(spec, &mut out);
    let _ = writeln!(out, "\nkey placeholders");
    for s in placeholder_safety(spec) {
        let read = if s.protection == "fixed width" {
            "read by its width".to_owned()
        } else if s.read_up_to.is_empty() {
            "read to the end".to_owned()
        } else {
            format!("read up to `{}`", s.read_up_to)
        };
        let _ = writeln!(
            out,
            "  {:<16} {:<40} {:<24} {} ({read})",
            s.entity, s.template, s.placeholder, s.protection
        );
    }
    out
}

/// The updates that change a value relative to what is stored (a
/// counter's `ADD`, a list's appends and removals by index): how each is
/// sent, and what that costs per call.
pub(crate) fn relative_changes(spec: &ir::Spec, out: &mut String) {
    let mut lines = Vec::new();
    for entity in spec.entities.values() {
        let size = crate::plan::typical_item_size(spec, entity);
        let (write, read) = (
            crate::plan::write_units(size),
            crate::plan::read_units(size, true),
        );
        let mut seen = Vec::new();
        for (a, change) in entity.element_changes() {
            let what = match change {
                ir::ElementChange::Add => "adds to it",
                ir::ElementChange::ListAppend | ir::ElementChange::ListRemoveAt => {
                    "appends to it or removes from it by index"
                }
                ir::ElementChange::SetAdd | ir::ElementChange::SetRemove => continue,
            };
            if seen.contains(&a.name.as_str()) {
                continue;
            }
            seen.push(a.name.as_str());
            let how = if a.at_least_once {
                format!("at least once (`at_least_once`): a plain UpdateItem, {write} WCU; an answer lost and sent again applies it twice")
            } else {
                format!("exactly once: TransactWriteItems with a client request token, {} WCU, then GetItem (ConsistentRead) of the item, {read} RCU; `at_least_once: true` makes it a plain UpdateItem ({write} WCU) that a lost answer sent again applies twice", 2.0 * write)
            };
            lines.push(format!(
                "  {}.{}: an update that {what} is sent {how}",
                entity.name, a.name
            ));
        }
    }
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(out, "\nupdates relative to the stored value");
    for line in lines {
        let _ = writeln!(out, "{line}");
    }
}

mod request;

pub use request::{cli_args, render_requests, request, shell_command, Request};
