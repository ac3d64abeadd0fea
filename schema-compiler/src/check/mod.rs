//! The checker: proves a resolved spec tenant-isolated and sound.
//!
//! One `check_*` function per rule, each with a one-line reason. All run on
//! every spec and all findings are collected. Findings of warning- and
//! note-level rules can be re-levelled by the spec's `lints` section.

mod casing;
mod global;
mod iam;
mod isolation;
pub(crate) mod keys;
mod limits;
mod membership;
mod names;
mod native_keys;
mod patterns;
pub(crate) mod spec_set;
mod tenant;

use crate::diagnostics::{Diagnostics, Severity};
use crate::encoding::{self, Domain};
use crate::ir::{self, LintLevel, PlaceholderKind};
use crate::lang::Tok;

/// Runs every rule over a spec that resolved without errors.
pub fn check_spec(spec: &ir::Spec, diags: &mut Diagnostics) {
    run_rules(spec, diags, true);
}

/// Runs the rules that hold for any part of a spec over the part that
/// resolution errors did not touch (`resolve::healthy_part`): all but those
/// that judge what is missing (an index, entity, projected attribute or TTL
/// attribute nothing uses may be used by a part that was left out).
pub fn check_part(spec: &ir::Spec, diags: &mut Diagnostics) {
    run_rules(spec, diags, false);
}

fn run_rules(spec: &ir::Spec, diags: &mut Diagnostics, whole: bool) {
    let mut found = Diagnostics::new();
    let completeness: &[Rule] = &[
        (patterns::check_unused_indexes, false),
        (patterns::check_unused_entities, false),
        (patterns::check_projection_names, false),
        (limits::check_ttl_used, false),
        // Which entities write an index is only known of the whole spec.
        (native_keys::check_native_keys, false),
    ];
    let rules: &[Rule] = &[
        (tenant::check_tenant_id_pattern, false),
        (tenant::check_tenant_prefix, false),
        (tenant::check_tenant_delimiter, false),
        (isolation::check_policy_isolation, false),
        (tenant::check_pattern_binds_tenant, false),
        (tenant::check_gsi_write_isolation, false),
        (tenant::check_global_entities, false),
        (tenant::check_global_reads, false),
        (tenant::check_derived_writes, false),
        (iam::check_role_scope, false),
        (keys::check_delimiter_injection, false),
        (keys::check_ambiguous_templates, false),
        (keys::check_key_collisions, false),
        (keys::check_key_space_overlap, true),
        (keys::check_sort_order, false),
        (casing::check_key_case, false),
        (membership::check_index_membership, false),
        (keys::check_range_over_parts, false),
        (keys::check_prefix_delimited, false),
        (patterns::check_sharded_gets, false),
        (patterns::check_shard_ranges, false),
        (patterns::check_fan_out, false),
        (patterns::check_filters, false),
        (patterns::check_scans, false),
        (limits::check_index_count, false),
        (limits::check_key_sizes, false),
        (limits::check_item_sizes, false),
        (limits::check_ttl, false),
        (limits::check_transactions, false),
        (limits::check_throughput, false),
        (limits::check_max_throughput, false),
        (global::check_strong_consistency, false),
        (global::check_warm_throughput, false),
        (global::check_resource_policy, false),
        (limits::check_low_cardinality_indexes, false),
        (names::check_generated_names, false),
        (iam::check_policy_sizes, true),
    ];
    let mut all: Vec<Rule> = rules.to_vec();
    if whole {
        all.extend_from_slice(completeness);
    }
    // The rules are independent: the costliest ones (marked `true`; on large
    // specs about half the time of all: by instruction counts on the
    // 200-entity benchmark spec, 44 M of 84 M, the rest 40 M on this
    // thread) run on a second thread, and the
    // findings are put back in rule order, so the report does not depend
    // on timing.
    let run = |second: bool| {
        all.iter()
            .enumerate()
            .filter(|(_, (_, heavy))| *heavy == second)
            .map(|(i, (rule, _))| {
                let mut d = Diagnostics::new();
                rule(spec, &mut d);
                (i, d)
            })
            .collect::<Vec<_>>()
    };
    let mut by_rule = std::thread::scope(|scope| {
        let second = std::thread::Builder::new()
            .spawn_scoped(scope, || run(true))
            .ok();
        let mut first = run(false);
        match second.map(|t| t.join()) {
            Some(Ok(done)) => first.extend(done),
            // No thread to be had: the same rules here.
            _ => first.extend(run(true)),
        }
        first
    });
    by_rule.sort_by_key(|(i, _)| *i);
    for (_, d) in by_rule {
        found.extend(d);
    }
    apply_lints(spec, found, diags);
}

/// A rule, and whether it is one of the costly ones run on a second thread.
type Rule = (fn(&ir::Spec, &mut Diagnostics), bool);

/// Drops or re-levels findings as the spec's `lints` section says.
fn apply_lints(spec: &ir::Spec, found: Diagnostics, diags: &mut Diagnostics) {
    for mut d in found {
        match spec.lints.get(d.code.name()) {
            Some(LintLevel::Allow) if d.severity != Severity::Error => continue,
            Some(LintLevel::Warn) if d.severity != Severity::Error => {
                d.severity = Severity::Warning
            }
            Some(LintLevel::Deny) => d.severity = Severity::Error,
            _ => {}
        }
        diags.push(d);
    }
}

pub(crate) use crate::lang::entity_tokens;

/// The language tokens of an access pattern's template: parameters range over
/// the domain of the attributes they fill.
pub(crate) fn pattern_tokens(
    spec: &ir::Spec,
    query: &ir::Query,
    template: &ir::KeyTemplate,
) -> Vec<Tok> {
    crate::lang::template_tokens(template, |p| pattern_domain(spec, query, p))
}

/// The domain of a placeholder of an access pattern's template.
pub(crate) fn pattern_domain(spec: &ir::Spec, query: &ir::Query, p: &ir::Placeholder) -> Domain {
    match p.kind {
        PlaceholderKind::Tenant => spec.tenant.as_ref().map_or_else(
            || encoding::type_domain(&ir::AttributeType::ANY, false),
            encoding::tenant_domain,
        ),
        PlaceholderKind::Shard => encoding::shard_domain(u32::MAX),
        PlaceholderKind::Attribute => match query.params.get(&p.name.value) {
            Some(param) => param_domain(param),
            None => encoding::type_domain(&ir::AttributeType::ANY, false),
        },
    }
}

/// The domain of an access-pattern parameter: its type's, in its one
/// encoding (the checker rejects binds that encode differently).
pub(crate) fn param_domain(param: &ir::Param) -> Domain {
    encoding::key_domain(&param.r#type, param.encoding)
}

/// Characters shown to people: `#`, `|`, `' '`.
pub(crate) fn show_chars(chars: &[char]) -> String {
    chars
        .iter()
        .map(|c| {
            if c.is_whitespace() || c.is_control() {
                format!("{:?}", c)
            } else {
                format!("`{c}`")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}
