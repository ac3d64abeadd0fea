//! The checker: proves a resolved spec tenant-isolated and sound.
//!
//! One `check_*` function per rule, each with a one-line reason. All run on
//! every spec and all findings are collected. Findings of warning- and
//! note-level rules can be re-levelled by the spec's `lints` section.

mod iam;
mod isolation;
pub(crate) mod keys;
mod limits;
mod names;
mod patterns;
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
    let completeness: &[fn(&ir::Spec, &mut Diagnostics)] = &[
        patterns::check_unused_indexes,
        patterns::check_unused_entities,
        patterns::check_projection_names,
        limits::check_ttl_used,
    ];
    let rules: &[fn(&ir::Spec, &mut Diagnostics)] = &[
        tenant::check_tenant_id_pattern,
        tenant::check_tenant_prefix,
        tenant::check_tenant_delimiter,
        isolation::check_policy_isolation,
        tenant::check_pattern_binds_tenant,
        tenant::check_gsi_write_isolation,
        tenant::check_global_entities,
        iam::check_role_scope,
        keys::check_delimiter_injection,
        keys::check_ambiguous_templates,
        keys::check_key_collisions,
        keys::check_key_space_overlap,
        keys::check_sort_order,
        keys::check_prefix_delimited,
        patterns::check_sharded_gets,
        patterns::check_filters,
        patterns::check_scans,
        limits::check_index_count,
        limits::check_key_sizes,
        limits::check_item_sizes,
        limits::check_ttl,
        limits::check_transactions,
        limits::check_throughput,
        limits::check_low_cardinality_indexes,
        names::check_generated_names,
        iam::check_policy_sizes,
    ];
    for rule in rules {
        rule(spec, &mut found);
    }
    if whole {
        for rule in completeness {
            rule(spec, &mut found);
        }
    }
    apply_lints(spec, found, diags);
}

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
    encoding::type_domain(&param.r#type, param.encoding == ir::KeyEncoding::Escaped)
}

/// Every key template of an entity with where it is used: `None` for the table.
pub(crate) fn entity_templates(
    entity: &ir::Entity,
) -> impl Iterator<Item = (Option<&str>, &ir::KeyTemplate)> {
    entity.primary_key.templates().map(|t| (None, t)).chain(
        entity
            .index_keys
            .iter()
            .flat_map(|(i, k)| k.templates().map(move |t| (Some(i.as_str()), t))),
    )
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
