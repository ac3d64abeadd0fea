//! IAM policies: roles stay within the tenant, and every generated policy
//! fits IAM's and STS's size limits.

use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::ir;
use crate::policy::{self as iam, AwsTarget, PolicyKind, TenantValue};

/// Why: a tenant role is never granted keys a LeadingKeys pattern cannot confine to its tenant.
pub fn check_role_scope(spec: &ir::Spec, diags: &mut Diagnostics) {
    let Some(tenant) = &spec.tenant else { return };
    for role in spec.roles.values() {
        let is_scan = |name: &crate::source::Spanned<String>| spec.is_scan(name);
        // A scan reaches every tenant's items wherever it reads: a role
        // with one is an admin role, which holds no tenant's patterns.
        if let (Some(scan), Some(other)) = (
            role.access_patterns.iter().find(|n| is_scan(n)),
            role.access_patterns.iter().find(|n| !is_scan(n)),
        ) {
            diags.push(
                Diagnostic::new(
                    Code::RoleNotTenantScoped,
                    format!("role `{}` lists the scan `{scan}` beside `{other}`", role.name),
                )
                .label(scan.span, "a scan: IAM cannot confine it to one tenant")
                .label(other.span, "a tenant's access pattern")
                .help("give scans a role of their own (an admin role), and keep tenant roles to tenant keys"),
            );
        }
        for name in &role.access_patterns {
            let Some(pattern) = spec.access_patterns.get(&name.value) else {
                continue;
            };
            // Keys outside the tenant: granted only as a global entity's
            // own keys, where no tenant's key can match them.
            let outside =
                iam::pattern_grants(spec, pattern)
                    .into_iter()
                    .find(|(_, index, template)| {
                        !iam::starts_with_tenant(template)
                            && !iam::global_grantable(spec, *index, template)
                    });
            if let Some((_, _, template)) = outside {
                diags.push(
                    Diagnostic::new(
                        Code::RoleNotTenantScoped,
                        format!("role `{}` lists `{name}`, whose keys do not start with the tenant and are no global entity's keys apart from every tenant's", role.name),
                    )
                    .label(name.span, "listed here")
                    .label(template.source.span, "this partition key has no tenant prefix")
                    .help(format!("roles are granted keys that start with `<{}>`, and the keys of global entities whose text before the first placeholder is not a prefix of any tenant key's text before `<{0}>` (nor the other way round); give the key a distinct literal prefix, or remove the access pattern from the role", tenant.placeholder)),
                );
            }
        }
    }
}

/// Why: IAM refuses a managed policy over 6,144 characters, and STS a session policy over 2,048.
pub fn check_policy_sizes(spec: &ir::Spec, diags: &mut Diagnostics) {
    let target = AwsTarget::longest();
    for kind in iam::policy_kinds(spec) {
        let (what, span) = match kind {
            PolicyKind::Runtime => ("the runtime policy".to_owned(), spec.table.name.span),
            PolicyKind::Role(role) => (
                format!("the policy of role `{}`", role.name),
                role.name.span,
            ),
        };
        let abac = iam::policy(spec, kind, &target, &TenantValue::PrincipalTag);
        let size = iam::managed_policy_size(&abac);
        if size > iam::MANAGED_POLICY_LIMIT {
            diags.push(
                Diagnostic::new(
                    Code::PolicyTooLarge,
                    format!("{what} has {size} characters, over IAM's limit of {} for a managed policy", iam::MANAGED_POLICY_LIMIT),
                )
                .label(span, "policy generated for this")
                .help("give the keys fewer distinct prefixes before the tenant, or split the access patterns over roles"),
            );
        }
        let Some(tenant) = &spec.tenant else { continue };
        let longest = tenant
            .max_length
            .unwrap_or(iam::MAX_TAG_VALUE_LENGTH)
            .min(iam::MAX_TAG_VALUE_LENGTH);
        let session = iam::policy(spec, kind, &target, &TenantValue::Id("x".repeat(longest)));
        let size = iam::session_policy_size(&session);
        if size > iam::SESSION_POLICY_LIMIT {
            diags.push(
                Diagnostic::new(
                    Code::SessionPolicyTooLarge,
                    format!("as a session policy, {what} has {size} characters for a {longest}-character tenant id, over STS's limit of {}", iam::SESSION_POLICY_LIMIT),
                )
                .label(span, "policy generated for this")
                .label(tenant.id_pattern.span, "tenant ids this long")
                .help("bound tenant ids more tightly, use fewer key prefixes, or use the principal-tag policy (ABAC) instead of STS session policies"),
            );
        }
    }
}
